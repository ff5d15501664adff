/*
 * crit-path: the critical path of each step of a PyTorch profiler trace,
 * from tr-extract records: which events, if shorter, make the step
 * shorter.  The graph and the path are lib/trace/critpath's.
 */
#include <getopt.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "base/err.h"
#include "base/operands.h"
#include "base/usage.h"
#include "base/xalloc.h"
#include "io/json.h"
#include "io/ndjson.h"
#include "trace/critpath.h"
#include "trace/opnames.h"

static void	usage(void) __attribute__((noreturn));
static int	read_file(const char *, void *);

static const struct optdoc options[] = {
	{ "-a", "write a critical_edge record for every edge, not only the"
	    " path's" },
	{ "-f table", "read the calls' roles from table" },
	{ "-s", "write only the critical_path records, no edges" },
	{ "-w, --window name[:n]", "the events named like name (instance n"
	    " only), not the steps" },
	{ "-W, --whole", "the whole trace as one window" },
	OPTDOC_HELP,
	OPTDOC_END
};
static const struct usage use = {
	"[-asW] [-f table] [-w name[:n]] [file ...]",
	"find the critical path of each step of profiler traces",
	options
};

struct reading {
	struct critpath	*cp;
	struct jdoc	 doc;
	int		 failed;	/* a data error: no records */
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
		{ "whole", no_argument, NULL, 'W' },
		{ "window", required_argument, NULL, 'w' },
		{ NULL, 0, NULL, 0 }
	};
	struct critpath_opts o = { NULL, -1, 0, CP_EDGES_PATH, NULL };
	struct reading rd;
	struct jw *w;
	char *table = NULL, *window = NULL, *colon;
	int ch, status;

	setprogname(argv[0]);
	while ((ch = getopt_long(argc, argv, "af:hsw:W", longopts, NULL)) !=
	    -1) {
		switch (ch) {
		case 'a':
			o.edges = CP_EDGES_ALL;
			break;
		case 's':
			o.edges = CP_EDGES_NONE;
			break;
		case 'f':
			o.calls = optarg;
			break;
		case 'w':
			free(window);
			window = xstrdup(optarg);
			/* A name may hold colons: only digits after the last. */
			o.instance = -1;
			if ((colon = strrchr(window, ':')) != NULL &&
			    colon[1] != '\0' &&
			    strspn(colon + 1, "0123456789") ==
			    strlen(colon + 1)) {
				o.instance = (long)parse_num(colon + 1, 0,
				    LONG_MAX, "instance");
				*colon = '\0';
			}
			if (*window == '\0') {
				warnmsg("-w: an empty name; --whole is the"
				    " whole trace");
				usage();
			}
			break;
		case 'W':
			o.whole = 1;
			break;
		case 'h':
			usage_help(&use);
		default:
			usage();
		}
	}
	argc -= optind;
	argv += optind;
	if (o.whole && window != NULL) {
		warnmsg("--whole and --window name different windows");
		usage();
	}
	o.window = window;
	if (o.calls == NULL)
		o.calls = table = op_find_table(CALLS_NAME);

	memset(&rd, 0, sizeof(rd));
	rd.cp = critpath_new(&o);
	status = for_each_operand(argc, argv, read_file, &rd);
	if (!rd.failed) {
		w = jw_new(stdout);
		status |= critpath_write(rd.cp, w);
		jw_free(w);
	}
	jdoc_free(&rd.doc);
	critpath_free(rd.cp);
	free(table);
	free(window);
	return finish(status);
}

static int
read_file(const char *path, void *arg)
{
	struct reading *rd = arg;
	struct ndin *in;
	int rc;

	if (rd->failed)
		return -1;
	if ((in = ndin_open(path)) == NULL) {
		warnmsg("%s:", path);
		return 1;
	}
	while ((rc = ndin_next(in, &rd->doc)) == 1)
		if ((rc = critpath_add(rd->cp, &rd->doc, ndin_name(in),
		    ndin_line(in))) < 0)
			break;
	ndin_close(in);
	if (rc < 0)
		rd->failed = 1;
	return rc < 0 ? -1 : 0;
}
