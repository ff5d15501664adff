/*
 * recset: the records of one or more NDJSON inputs gathered as one jq
 * value, so that a jq program (a rubric, a report template) can look at
 * all of them at once.
 *
 * The value is {"records": {kind: [record, ...]}, "counts": {kind: n}}.
 * Records keep their input order.  Memory stays bounded: of each group of
 * records with the same kind, rank and class, only the first cap are kept
 * (the tools write ranked kinds best first, so these are the top ones);
 * counts still counts every record.
 *
 * Ownership: the recset owns its jv values until recset_take() hands them
 * to the caller; recset_free() frees what is left.
 */
#ifndef RECSET_H
#define RECSET_H

#include <stddef.h>
#include <stdio.h>

#include <jv.h>

#include "base/strmap.h"

/* The records kept of one kind, in the order read. */
struct reckind {
	char		*name;
	jv		 recs;		/* an array, or null until one kept */
	uint64_t	 count;		/* records read */
};

struct recset {
	struct strmap	 kinds;		/* kind -> 1 + its index in kind[] */
	struct reckind	*kind;		/* in the order first read */
	size_t		 nkind, kindcap;
	struct strmap	 groups;	/* kind, rank, class -> records kept */
	struct strmap	 names;		/* member names made, jqx_from_jdoc() */
	size_t		 cap;
	size_t		 total;		/* records read */
	uint64_t	 nonfinite;	/* NaN and Infinity read as null */
};

/* Starts an empty set keeping at most cap records per group. */
void recset_init(struct recset *, size_t cap);

/*
 * Adds every record of path (stdin for NULL or "-").  Returns 0; 1 when
 * the file could not be opened (after a warning); -1 after reporting a
 * malformed record as "prog: file:line:col: what".
 */
int recset_read(struct recset *, const char *path);

/*
 * recset_read() of each of argc paths in turn, or of stdin when argc is 0;
 * the first malformed record ends the reading.  Returns 0; 1 when a file
 * could not be opened; -1 after a malformed record.
 */
int recset_read_operands(struct recset *, int argc, char *argv[]);

struct outdir;

/*
 * The -o dir and -O plan of rubric-apply and report-md: the records of
 * each output's fields apart (cap per group), gathered by gather (NULL:
 * recset_read_operands() of the fields, which are files) and handed
 * (consumed) to fn with the stream of the output in od and its path, for
 * the messages.  gather returns 0, 1 when a file could not be read, or
 * -1 after a message naming where, the output's name in messages; fn 0,
 * or -1 after a message naming input (where).  An output whose files
 * cannot be read, or that fn fails on, is not written (what was there
 * stays) and makes the status 1, and the next is made; a failed publish
 * ends the run at once (-1).  The outputs are made on every CPU the
 * process may use (base/forkpool.h), in forked workers that share what
 * the caller set up (its compiled program); gather and fn run there, and
 * the messages and the outputs come out in the outputs' order, as from
 * one process.
 */
int recset_each(struct outdir *od, size_t cap,
    int (*gather)(void *arg, struct recset *, int nargs, char *args[],
    const char *where),
    int (*fn)(void *arg, jv records, FILE *out, const char *path,
    const char *input), void *arg);

/* Adds one record (consumed): an object with a string "kind". */
void recset_add(struct recset *, jv rec);

/*
 * The gathered value, handed to the caller; the set is left empty but
 * still needs recset_free().
 */
jv recset_take(struct recset *);

/*
 * The report record of path ("-": stdin, named <stdin>), as
 * analyze-profile writes it, into *rep, the caller's; *nonfinite gets the
 * count of NaN and Infinity read as null.  Returns 1; 0 when the file
 * holds no records at all (*rep is then null).  A file that cannot be
 * read, is not NDJSON or holds records but no report is fatal.
 */
int recset_report(const char *path, jv *rep, uint64_t *nonfinite);

void recset_free(struct recset *);

#endif
