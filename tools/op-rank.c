/*
 * op-rank: where the time goes in a PyTorch profiler trace, by operator,
 * thread, family, phase, step and GPU kernel, from tr-extract records;
 * with --partial and --merge, in pieces that add up to the same.
 */
#include <getopt.h>
#include <limits.h>
#include <malloc.h>
#include <stdio.h>
#include <stdlib.h>

#include "base/err.h"
#include "base/operands.h"
#include "base/usage.h"
#include "base/xalloc.h"
#include "io/ndjson.h"
#include "trace/oprank.h"

static void	usage(void) __attribute__((noreturn));

static const struct optdoc options[] = {
	{ "-a", "with several ranks, write every rank's records" },
	{ "-f table", "read operator and kernel families from table" },
	{ "-g gpu", "judge FLOPs against gpu's peaks, not the trace's GPU" },
	{ "-k key", "rank by total, self, count, mean, max or gpu" },
	{ "-n count", "write at most count records of each kind" },
	{ "-p, --phase phase", "only what ran in phase" },
	{ "-T list", "read the files that list names, one a line" },
	{ "--merge", "read partials and write the ranked records" },
	{ "--partial", "write partial aggregates, for --merge" },
	OPTDOC_HELP,
	OPTDOC_END
};
static const struct usage use = {
	"[-a] [-f table] [-g gpu] [-k key] [-n count] [-p phase] [-T list] "
	    "[--merge] "
	    "[--partial] [file ...]",
	"rank where the time goes in profiler traces, by operator, thread, "
	    "family, phase, step and GPU kernel",
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
	enum { OPT_MERGE = UCHAR_MAX + 1, OPT_PARTIAL };
	static const struct option longopts[] = {
		{ "help", no_argument, NULL, 'h' },
		{ "merge", no_argument, NULL, OPT_MERGE },
		{ "partial", no_argument, NULL, OPT_PARTIAL },
		{ "phase", required_argument, NULL, 'p' },
		{ NULL, 0, NULL, 0 }
	};
	struct oprank_opts o = { NULL, 0, 0, -1, 0, NULL };
	struct oprank *r;
	struct oplist files;
	struct jw *w;
	const char *tflag = NULL;
	int ch, i, rc = 0, status = 0, merge = 0, partial = 0;

	setprogname(argv[0]);
	while ((ch = getopt_long(argc, argv, "af:g:k:n:p:T:h", longopts,
	    NULL)) != -1) {
		switch (ch) {
		case 'a':
			o.every = 1;
			break;
		case 'f':
			o.table = optarg;
			break;
		case 'g':
			o.gpu = optarg;
			break;
		case 'k':
			if ((o.key = oprank_key(optarg)) < 0) {
				warnmsg("-k: unknown key: %s", optarg);
				usage();
			}
			break;
		case 'n':
			o.limit = parse_num(optarg, 0, LLONG_MAX, "count");
			break;
		case 'p':
			if ((o.phase = oprank_phase(optarg)) < 0) {
				warnmsg("-p: unknown phase: %s", optarg);
				usage();
			}
			break;
		case 'T':
			tflag = optarg;
			break;
		case OPT_MERGE:
			merge = 1;
			break;
		case OPT_PARTIAL:
			partial = 1;
			break;
		case 'h':
			usage_help(&use);
		default:
			usage();
		}
	}
	argc -= optind;
	argv += optind;
	/* Thousands of ranks' partials: more than exec(2) takes. */
	oplist_read(&files, argc, argv, tflag);
	argc = files.argc;
	argv = files.argv;

	r = oprank_new(&o);
	if (merge) {
#ifdef M_MMAP_THRESHOLD
		/*
		 * Each file's read buffers are mapped apart and unmapped at its
		 * end.  glibc would raise its threshold past them after the
		 * first and take the next from the heap, where what the merge
		 * keeps of each rank lands meanwhile: memory would grow with
		 * the number of files, not with what is kept of them.
		 */
		mallopt(M_MMAP_THRESHOLD, 128 * 1024);
#endif
		rc = oprank_merge(r, argc, argv, partial);
	}
	else {
		if (argc == 0)
			rc = oprank_file(r, NULL);
		for (i = 0; i < argc && rc >= 0; i++)
			if ((rc = oprank_file(r, argv[i])) > 0)
				status = 1;
	}
	if (rc < 0)
		status = 1;
	else {
		if (rc > 0)
			status = 1;
		w = jw_new(stdout);
		oprank_write(r, w, partial);
		jw_free(w);
	}
	oprank_free(r);
	oplist_free(&files);
	return finish(status);
}
