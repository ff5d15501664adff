/*
 * runnames: what a file is in a run directory, by its name alone, as
 * pipelines/names.mk says for report.mk too (the Makefile compiles that
 * list in as gen/names.h): a trace, a memory snapshot dumped as JSON, an
 * Nsight Systems SQLite export, a pickle (named, never read), or nothing
 * of ours.
 *
 * Names are borrowed and never kept; the pattern lists are static.
 */
#ifndef RUNNAMES_H
#define RUNNAMES_H

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

#endif
