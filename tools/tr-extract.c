/*
 * tr-extract: stream PyTorch profiler traces (Chrome trace JSON, plain or
 * gzip) into NDJSON records, one per event, and one "trace" record last.
 * The work is lib/trace/extract's; this is its command line.
 */
#include <getopt.h>
#include <stdio.h>
#include <stdlib.h>
#include <unistd.h>

#include "base/err.h"
#include "base/operands.h"
#include "base/usage.h"
#include "io/ndjson.h"
#include "trace/extract.h"

static void	usage(void) __attribute__((noreturn));
static int	extract(const char *, void *);

static struct extract_opts opts;

static const struct optdoc options[] = {
	{ "-a", "keep each event's whole args object" },
	OPTDOC_HELP,
	OPTDOC_END
};
static const struct usage use = {
	"[-a] [file ...]",
	"stream PyTorch profiler traces into NDJSON records",
	options
};

static void
usage(void)
{
	usage_error(&use);
}

int
main(int argc, char *argv[])
{
	static const struct option longopts[] = {
		{ "help", no_argument, NULL, 'h' },
		{ NULL, 0, NULL, 0 }
	};
	struct jw *w;
	int ch, status = 0;

	setprogname(argv[0]);
	while ((ch = getopt_long(argc, argv, "ah", longopts, NULL)) != -1) {
		switch (ch) {
		case 'a':
			opts.args = 1;
			break;
		case 'h':
			usage_help(&use);
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
