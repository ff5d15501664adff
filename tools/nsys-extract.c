/*
 * nsys-extract: Nsight Systems SQLite exports as the NDJSON records that
 * tr-extract writes for a PyTorch trace.  The work is lib/trace/nsys's;
 * this is its command line.
 */
#include <getopt.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "base/err.h"
#include "base/usage.h"
#include "io/ndjson.h"
#include "trace/nsys.h"

static void	usage(void) __attribute__((noreturn));

static const struct optdoc options[] = {
	{ "-c name", "the snippet runner's capture range (profile-target)" },
	OPTDOC_HELP,
	OPTDOC_END
};
static const struct usage use = {
	"[-c name] file ...",
	"read Nsight Systems SQLite exports into NDJSON records (files only:"
	    " SQLite cannot read standard input)",
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
	struct nsys_opts o = { NULL };
	struct jw *w;
	int ch, i, rc, status = 0;

	setprogname(argv[0]);
	while ((ch = getopt_long(argc, argv, "c:h", longopts, NULL)) != -1) {
		switch (ch) {
		case 'c':
			if (*optarg == '\0')
				die_usage("-c: the capture range has no name");
			o.capture = optarg;
			break;
		case 'h':
			usage_help(&use);
		default:
			usage();
		}
	}
	argc -= optind;
	argv += optind;
	if (argc == 0)
		usage();
	for (i = 0; i < argc; i++)
		if (strcmp(argv[i], "-") == 0)
			die_usage("-: SQLite cannot read an export from standard"
			    " input; name the file");

	w = jw_new(stdout);
	for (i = 0; i < argc; i++) {
		rc = nsys_extract(argv[i], w, &o);
		if (rc < 0) {
			status = 1;
			break;
		}
		if (rc > 0)
			status = 1;
	}
	jw_free(w);
	return finish(status);
}
