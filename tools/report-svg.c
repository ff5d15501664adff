/*
 * report-svg: draw the records of the report stages as standalone SVG
 * charts, one file per chart, and say on stdout which were written.
 * What is kept of the records and how each chart is drawn, bounded in
 * size whatever the input, is lib/report/charts's.
 */
#include <getopt.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "base/err.h"
#include "base/operands.h"
#include "base/strbuf.h"
#include "base/usage.h"
#include "io/json.h"
#include "io/ndjson.h"
#include "report/charts.h"

static const char *oflag = ".";

static void	usage(void) __attribute__((noreturn));
static int	read_file(const char *, void *);

static const struct optdoc options[] = {
	{ "-o dir", "write the charts into dir" },
	OPTDOC_HELP,
	OPTDOC_END
};
static const struct usage use = {
	"[-o dir] [file ...]",
	"draw profile records as standalone SVG charts",
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
	struct charts c;
	struct jw *w;
	int ch, status;

	setprogname(argv[0]);
	while ((ch = getopt_long(argc, argv, "o:h", longopts, NULL)) != -1) {
		switch (ch) {
		case 'o':
			oflag = optarg;
			break;
		case 'h':
			usage_help(&use);
		default:
			usage();
		}
	}
	argc -= optind;
	argv += optind;

	memset(&c, 0, sizeof(c));
	status = for_each_operand(argc, argv, read_file, &c);
	/* A data error ends the run before anything is drawn. */
	if (!c.bad) {
		w = jw_new(stdout);
		charts_draw(&c, w, oflag);
		jw_free(w);
	}
	charts_free(&c);
	return finish(status);
}

/* Returns 0, 1 when path cannot be opened, -1 after a data error. */
static int
read_file(const char *path, void *arg)
{
	struct ndin *in;
	struct jdoc doc = { 0 };
	int rc;

	if ((in = ndin_open(path)) == NULL) {
		warnmsg("%s:", path);
		return 1;
	}
	while ((rc = ndin_next(in, &doc)) == 1)
		if ((rc = charts_take(arg, ndin_name(in), &doc)) < 0)
			break;
	jdoc_free(&doc);
	ndin_close(in);
	if (rc < 0)
		((struct charts *)arg)->bad = 1;
	return rc < 0 ? -1 : 0;
}
