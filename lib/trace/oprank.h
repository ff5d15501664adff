/*
 * oprank: the operator aggregator of op-rank(1).  It takes tr-extract's
 * records one at a time (from NDJSON, or in-process from the extractor:
 * its events typed, its other records through a jw_new_doc() writer) or
 * op-rank's partials, and writes
 * op-rank's records: where the time goes by operator, thread, family,
 * phase, step, kernel and rank.
 *
 * Ownership: oprank_new() copies what it needs of its options; the
 * struct oprank is the caller's to free with oprank_free().  Records
 * passed in are borrowed for the call; file names are borrowed until the
 * next input, and messages name them.  Data errors are reported on stderr
 * as "<prog>: file:line:col: what" here, at the record's node.
 *
 * Memory is bounded by $MRP_OP_RANK_MEMORY (bytes of events held; past it
 * sorted runs spill to a temporary file under $TMPDIR), not by the input.
 */
#ifndef OPRANK_H
#define OPRANK_H

#include <stddef.h>

#include "io/json.h"
#include "io/ndjson.h"

struct oprank;
struct trevent;

/* What a step's record_function label starts with: "ProfilerStep#3". */
#define OPRANK_STEP_PREFIX	"ProfilerStep#"

struct oprank_opts {
	const char	*table;	/* the families table; NULL: the installed one */
	int		 key;	/* what ranks operators: oprank_key() */
	long long	 limit;	/* operators written, 0: all */
	int		 phase;	/* the phase in focus: oprank_phase(), or -1 */
	int		 every;	/* every rank's detail, not the slowest's only */
	const char	*gpu;	/* the GPU, over deviceProperties; or NULL */
};

/* The key or phase named s for the options, or -1 when there is none. */
int oprank_key(const char *s);
int oprank_phase(const char *s);

/* Loads the tables; a bad table or options end the program (exit 2). */
struct oprank *oprank_new(const struct oprank_opts *);
void oprank_free(struct oprank *);

/*
 * One of tr-extract's records, read from file.  Returns 0, or -1 after a
 * data error, which ends the run.
 */
int oprank_record(struct oprank *, const char *file, const struct jdoc *);

/*
 * One "event" record, typed (trace/trevent.h): what oprank_record() does
 * with the record, without it.
 */
int oprank_event(struct oprank *, const char *file, const struct trevent *);

/*
 * The input file is done.  Returns 0, or 1 after warning that it ended
 * inside a trace (its events count, as the trace's own).
 */
int oprank_input_end(struct oprank *, const char *file);

/*
 * Reads the records of path (NULL or "-": stdin).  Returns 0, 1 when the
 * file could not be opened or ended inside a trace (the others still
 * run), or -1 after a data error.
 */
int oprank_file(struct oprank *, const char *path);

/*
 * Adds the partials in paths (none: stdin), each whole.  Returns 0, 1 when
 * one could not be opened, or -1 after a data error.  Files are read twice
 * when partial is 0, so that memory does not grow with the ranks.
 */
int oprank_merge(struct oprank *, int n, char *paths[], int partial);

/* Writes the result, or with partial the partial records for a merge. */
void oprank_write(struct oprank *, struct jw *, int partial);

#endif
