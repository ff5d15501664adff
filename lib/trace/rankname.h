/*
 * rankname: the rank a per-rank file's name gives, for the readers of
 * traces and of Nsight Systems exports alike.  Nothing is kept.
 */
#ifndef RANKNAME_H
#define RANKNAME_H

#include <stdint.h>

/*
 * The rank in path's last component: "rank", "worker" or "-TP" (looked
 * for in that order), an optional '-', '_' or '[', then up to 9 digits;
 * -1 when there is none.  path is borrowed.
 */
int64_t rank_from_name(const char *path);

#endif
