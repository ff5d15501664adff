/*
 * thresholds: a rubric's thresholds.tsv, the limits its rules and its jq
 * files judge a run by, each named once with its unit and its source, and
 * the jq variable $th (name to number) that they read them as.
 *
 * A row is name <TAB> value <TAB> unit <TAB> source; blank lines and lines
 * starting with '#' are comments.  A name is a jq identifier, used once; a
 * value is a finite number as JSON writes it.  A bad row, like a text that
 * names a threshold the table lacks, is a usage error (exit 2) naming its
 * place, as every problem of a rubric is (mrp-rubric(5)).
 *
 * Ownership: the table owns its strings; th_free() frees them.
 */
#ifndef THRESHOLDS_H
#define THRESHOLDS_H

#include <stddef.h>

#include <jv.h>

/* The rows, in file order. */
struct thresholds {
	char		**name;
	char		**value;	/* the number as written */
	size_t		 n;
};

/*
 * Parses text, the table's whole text, into t (zeroed by the caller);
 * messages name it path.  text is changed.
 */
void th_parse(struct thresholds *, const char *path, char *text);

/*
 * Why text is wrong: the first $th.NAME in it (comments and strings too)
 * whose NAME is no threshold, with its byte offset in *off; NULL when
 * every one names a threshold.  The caller frees the message.
 */
char *th_bad(const struct thresholds *, const char *text, size_t *off);

/* Exits 2 at dir/name:line:col where text names no threshold. */
void th_check_file(const struct thresholds *, const char *dir,
    const char *name, const char *text);

/*
 * text with each $th.NAME of a threshold its value as written, for the
 * rubric's listing; the caller frees the result.
 */
char *th_subst(const struct thresholds *, const char *text);

/* {"th": {name: number, ...}}: the named arguments of a jq program. */
jv th_args(const struct thresholds *);

void th_free(struct thresholds *);

#endif
