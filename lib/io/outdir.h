/*
 * outdir: one output file per input file, in a directory (the -o dir of
 * rubric-apply and report-md), or one per line of a plan (their -O plan):
 * these tools compile their jq program once and apply it to each output's
 * files in turn.
 *
 * An output is named after its input's last component, less a final
 * ".gz", then less its extension (the last '.' and what follows, unless
 * the name starts with that '.'), plus the tool's suffix: dir/a.md for
 * runs/1/a.ndjson.gz.  The name never holds a '/', so no output lands
 * outside dir.  outdir_init() refuses, before anything is read or
 * written, the operands that would lose data: standard input ("-", which
 * has no name), a path that ends in '/', two inputs that give one name,
 * and an output that is one of the inputs (it would be replaced before
 * it is read, or read after).
 *
 * A plan names each output and what it is made of, as a pipeline that
 * makes many outputs each from several files (report.mk's run
 * directories) knows them: one output a line, its path, then a tab and
 * each of its fields (the files and options of one run), tab-separated;
 * blank lines are skipped.  outdir_plan() refuses, naming the plan's line
 * (exit 1), a line with no field or an empty one, standard input, a path
 * that two lines write and a path that is a field of any line.
 *
 * An output is made in memory (the stream of outdir_begin()) and
 * published whole by publish_file() (io/publish.h): a reader sees the old
 * file or the new one, never half of one.  Making and publishing are
 * apart, so that outputs made in other processes (base/forkpool.h) are
 * published by the one that owns the outdir.  The outputs of these tools are
 * bounded (a report, the findings of a rubric), so memory stays small.
 *
 * Ownership: the outdir owns its paths, the plan's text and the stream;
 * outdir_free() frees them.  dir is borrowed for outdir_init() only; the
 * inputs for as long as the outdir lives (its args point into them).
 */
#ifndef OUTDIR_H
#define OUTDIR_H

#include <stddef.h>
#include <stdio.h>
#include <sys/types.h>

struct outdir {
	char	**path;		/* path[i]: output i */
	char	***args;	/* its nargs[i] fields: its input under -o, */
	int	 *nargs;	/* its line's fields under -O */
	char	**where;	/* its name in messages: input or plan:line */
	size_t	  n;
	char	 *plan;		/* the plan's text, which args point into */
	mode_t	  mode;		/* a new file's: 0666 less the umask */
	FILE	 *fp;		/* the output being made, or NULL */
	char	 *buf;		/* fp's bytes */
	size_t	  len;
};

/*
 * Names the outputs in dir of the n inputs, each ending in suffix (".md").
 * A dir that is no directory is an error (exit 1); the operands refused
 * above are usage errors (exit 2), naming them.
 */
void outdir_init(struct outdir *, const char *dir, char *inputs[],
    size_t n, const char *suffix);

/*
 * Reads the plan: path[i] and the fields of its i-th line.  What it
 * refuses (above), or a plan that cannot be read, is a message and exit 1.
 */
void outdir_plan(struct outdir *, const char *plan);

/*
 * Starts an output: a stream into memory, the outdir's, open until
 * outdir_end() or outdir_discard().
 */
FILE *outdir_begin(struct outdir *);

/*
 * Closes the stream and hands what was written to it to the caller:
 * *buf (to free) and its *len bytes.
 */
void outdir_end(struct outdir *, char **buf, size_t *len);

/*
 * Publishes the len bytes of buf as output i.  Returns 0, or -1 after a
 * message naming the output ("dir/a.md: write failed: File too large"),
 * with the output as it was and no temporary file left.
 */
int outdir_publish(const struct outdir *, size_t i, const char *buf,
    size_t len);

/* Closes the stream and drops what was written to it. */
void outdir_discard(struct outdir *);

void outdir_free(struct outdir *);

#endif
