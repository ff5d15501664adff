/*
 * tr-extract: stream PyTorch profiler traces (Chrome trace JSON, plain or
 * gzip) into NDJSON records, one per event, and one "trace" record last.
 * The work is lib/trace/extract's; this is its command line.
 */
#include <stdio.h>
#include <stdlib.h>
#include <unistd.h>

#include "base/err.h"
#include "base/operands.h"
#include "io/ndjson.h"
#include "trace/extract.h"

static void	usage(void) __attribute__((noreturn));
static int	extract(const char *, void *);

static struct extract_opts opts;

static void
usage(void)
{
	fprintf(stderr, "usage: %s [-a] [file ...]\n", getprogname());
	exit(2);
}

int
main(int argc, char *argv[])
{
	struct jw *w;
	int ch, status = 0;

	setprogname(argv[0]);
	while ((ch = getopt(argc, argv, "a")) != -1) {
		switch (ch) {
		case 'a':
			opts.args = 1;
			break;
		default:
			usage();
		}
	}
	argc -= optind;
	argv += optind;

	w = jw_new(stdout);
	status = for_each_operand(argc, argv, extract, w);
	jw_free(w);
	return finish(status);
}

/* for_each_operand()'s callback: a data error (-1) ends the run. */
static int
extract(const char *path, void *arg)
{
	return extract_trace(path, arg, &opts);
}
