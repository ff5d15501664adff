/*
 * runnames: what a file is in a run directory, by its name alone, as
 * pipelines/names.mk says for report.mk too (the Makefile compiles that
 * list in as gen/names.h): a trace, a memory snapshot dumped as JSON, an
 * Nsight Systems SQLite export, a pickle (named, never read), or nothing
 * of ours.
 *
 * Names are borrowed and never kept; the pattern lists are static.
 * runname_dir() returns arrays and names the caller frees.
 */
#ifndef RUNNAMES_H
#define RUNNAMES_H

#include <stddef.h>

enum runname {
	RN_OTHER,
	RN_TRACE,
	RN_SNAPSHOT,		/* never a trace, whatever else it matches */
	RN_PICKLE,
	RN_NSYS
};

/* The trace globs, in names.mk's order, NULL-terminated: for messages. */
extern const char *const runname_trace_patterns[];

/* What name (the last component of a path) is. */
enum runname runname_of(const char *name);

/*
 * The regular files of the directory dir (and links to them) that are
 * traces, in byte order as make's $(sort) has them, into *traces; the
 * pickles, named on stderr with advice and never read, into *pickles in
 * the order found.  A directory without a trace, or one that cannot be
 * read, is fatal.
 */
void runname_dir(const char *dir, const char *advice, char ***traces,
    size_t *ntraces, char ***pickles, size_t *npickles);

#endif
