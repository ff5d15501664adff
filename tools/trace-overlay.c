/*
 * trace-overlay: a profiler trace written back with its critical path on
 * it (crit-path's records) and the report's findings, for a trace viewer.
 * The work is lib/trace/overlay's; this is its command line.
 */
#include <getopt.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "base/err.h"
#include "base/operands.h"
#include "base/usage.h"
#include "io/gzout.h"
#include "io/json.h"
#include "io/ndjson.h"
#include "trace/overlay.h"

static void	usage(void) __attribute__((noreturn));
static int	read_records(const char *, void *);

static const struct optdoc options[] = {
	{ "-a", "a flow for every edge of the records, not only the path's" },
	{ "-p", "write plain JSON, not gzip" },
	{ "-r rank", "draw this rank's path, of records that hold several" },
	OPTDOC_HELP,
	OPTDOC_END
};
static const struct usage use = {
	"[-ap] [-r rank] trace records ...",
	"write a profiler trace back with its critical path on it",
	options
};

struct reading {
	struct overlay	*ov;
	struct jdoc	 doc;
	int		 failed;
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
	struct overlay_opts o = { 0, -1 };
	struct reading rd;
	FILE *out;
	int ch, plain = 0, status, rc, i;

	setprogname(argv[0]);
	while ((ch = getopt_long(argc, argv, "ahpr:", longopts, NULL)) != -1) {
		switch (ch) {
		case 'a':
			o.all_edges = 1;
			break;
		case 'p':
			plain = 1;
			break;
		case 'r':
			o.rank = parse_num(optarg, 0, INT64_MAX, "-r");
			break;
		case 'h':
			usage_help(&use);
		default:
			usage();
		}
	}
	argc -= optind;
	argv += optind;
	if (argc < 2)
		usage();
	for (i = 1; i < argc; i++)
		if (strcmp(argv[i], "-") == 0 && strcmp(argv[0], "-") == 0) {
			warnmsg("the trace and the records cannot both be"
			    " standard input");
			usage();
		}

	memset(&rd, 0, sizeof(rd));
	rd.ov = overlay_new(&o);
	status = for_each_operand(argc - 1, argv + 1, read_records, &rd);
	jdoc_free(&rd.doc);
	if (rd.failed) {
		overlay_free(rd.ov);
		return finish(1);
	}
	out = plain ? stdout : gzout_open(stdout);
	rc = overlay_write(rd.ov, argv[0], out, "<stdout>");
	if (!plain && gzout_close(out) == EOF)
		die("<stdout>: write failed:");
	overlay_free(rd.ov);
	return finish(rc != 0 ? 1 : status);
}

static int
read_records(const char *path, void *arg)
{
	struct reading *rd = arg;
	struct ndin *in;
	int rc;

	if (rd->failed)
		return -1;
	if ((in = ndin_open(path)) == NULL) {
		warnmsg("%s:", path);
		rd->failed = 1;
		return 1;
	}
	while ((rc = ndin_next(in, &rd->doc)) == 1)
		if ((rc = overlay_add(rd->ov, &rd->doc, ndin_name(in),
		    ndin_line(in))) < 0)
			break;
	ndin_close(in);
	if (rc < 0)
		rd->failed = 1;
	return rc < 0 ? -1 : 0;
}
