/*
 * progdir: where this program is, and where the rubric it reads is.
 * The one lookup of the rubric's files for every tool, so that a tree,
 * an installed copy and an installed copy whose data directory is not
 * share/mrp (make install MRPDIR=...) all find theirs.
 *
 * Ownership: prog_dir() and rubric_find() return strings the caller frees.
 */
#ifndef PROGDIR_H
#define PROGDIR_H

/*
 * The rubric directory the build compiled in: the tree's rubric/ for the
 * tree's tools, RUBRICDIR for those make install links (lib/base/instdir.c).
 */
extern const char mrp_rubricdir[];

/* The directory that holds the running program, or NULL. */
char	*prog_dir(void);

/*
 * The rubric directory that holds name: $MRP_RUBRIC as it is, else the
 * first of rubric/ beside the program's directory (a tree), the
 * compiled-in mrp_rubricdir, and share/mrp/rubric/ beside it (an installed
 * tree moved whole) where name can be read.  NULL when none has it.
 */
char	*rubric_find(const char *name);

/*
 * Where rubric_find() looks after $MRP_RUBRIC, for a message: "A, B or C".
 * The string is progdir's, kept until the program ends.
 */
const char	*rubric_places(void);

#endif
