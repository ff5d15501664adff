/*
 * The rubric directory compiled into the tools: the Makefile compiles this
 * file with MRP_RUBRICDIR set to the tree's rubric/ for the tree's tools,
 * and again with RUBRICDIR for the tools make install links.
 */
#include "base/progdir.h"

const char mrp_rubricdir[] = MRP_RUBRICDIR;
