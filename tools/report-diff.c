/*
 * report-diff: compare two JSON reports of analyze-profile, before and
 * after a change, and say for each action of the first whether its
 * validation metric improved.  Markdown, or with -j one "diff" record.
 */
#include <getopt.h>
#include <limits.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include <jv.h>

#include "base/err.h"
#include "base/usage.h"
#include "io/ndjson.h"
#include "io/textout.h"
#include "report/jqx.h"
#include "report/recset.h"
#include "report/rubric.h"

static void	usage(void);
static int	read_report(const char *, jv *);
static struct jqx *compile(const char *dir, int json, const char *before,
		    const char *after, double limit);
static double	parse_percent(const char *);
static int	tell_worse(jv);

static const struct optdoc options[] = {
	{ "--fail-on pct",
	    "exit 1 when the step time or an action's metric got worse by"
	    " more than pct % beyond the noise" },
	{ "-j", "write one diff record, not Markdown" },
	{ "-r rubric", "the rubric directory" },
	OPTDOC_HELP,
	OPTDOC_END
};
static const struct usage use = {
	"[-j] [--fail-on pct] [-r rubric] before after",
	"compare two profile reports and check each action's validation metric",
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
	enum { OPT_FAIL_ON = UCHAR_MAX + 1 };
	static const struct option longopts[] = {
		{ "fail-on", required_argument, NULL, OPT_FAIL_ON },
		{ "help", no_argument, NULL, 'h' },
		{ NULL, 0, NULL, 0 }
	};
	struct jqx *x;
	struct jw *w;
	const char *rflag = NULL;
	char *dir, *msg;
	int ch, jflag = 0, nb, na, status;
	double limit = -1;
	jv before, after, in, out, res;

	setprogname(argv[0]);
	while ((ch = getopt_long(argc, argv, "jr:h", longopts, NULL)) != -1) {
		switch (ch) {
		case 'j':
			jflag = 1;
			break;
		case 'r':
			rflag = optarg;
			break;
		case OPT_FAIL_ON:
			limit = parse_percent(optarg);
			break;
		case 'h':
			usage_help(&use);
		default:
			usage();
		}
	}
	argc -= optind;
	argv += optind;
	if (argc != 2)
		usage();

	dir = rubric_dir(rflag);
	x = compile(dir, jflag, argv[0], argv[1], limit);
	free(dir);
	nb = read_report(argv[0], &before);
	na = read_report(argv[1], &after);
	/* Two empty inputs: nothing to compare, no output. */
	if (nb == 0 && na == 0) {
		jv_free(before);
		jv_free(after);
		jqx_free(x);
		return finish(0);
	}
	if (nb == 0)
		die("%s: not an analyze-profile report", argv[0]);
	if (na == 0)
		die("%s: not an analyze-profile report", argv[1]);

	in = jv_object();
	in = jv_object_set(in, jv_string("before"), before);
	in = jv_object_set(in, jv_string("after"), after);
	if (jqx_run(x, in, &res, &msg) < 0)
		die("diff.jq: %s", msg);
	if (jv_get_kind(res) != JV_KIND_ARRAY ||
	    jv_array_length(jv_copy(res)) != 2)
		die("diff.jq: not [the diff, what got worse]");
	out = jv_array_get(jv_copy(res), 0);
	/* The diff is written whether or not the gate fails. */
	if (jflag && jv_get_kind(out) == JV_KIND_OBJECT) {
		w = jw_new(stdout);
		jqx_write_record(w, "diff", out);
		jw_free(w);
	} else if (!jflag && jv_get_kind(out) == JV_KIND_STRING)
		textout_write(stdout, jqx_str(out),
		    (size_t)jv_string_length_bytes(jv_copy(out)));
	else
		die("diff.jq: the diff is not a %s",
		    jflag ? "JSON object" : "string");
	jv_free(out);
	status = tell_worse(jv_array_get(res, 1));
	jqx_free(x);
	return finish(status);
}

/* --fail-on's percentage: a number, 0 or more, "%" allowed after it. */
static double
parse_percent(const char *s)
{
	char *end;
	double v;

	v = strtod(s, &end);
	if (end != s && *end == '%')
		end++;
	if (end == s || *end != '\0' || !isfinite(v) || v < 0)
		die_usage("--fail-on: not a percentage of 0 or more: %s", s);
	return v / 100;
}

/*
 * What the gate found worse, a sentence each on stderr; 1 when there is
 * any.  Takes worse.
 */
static int
tell_worse(jv worse)
{
	jv e;
	int i, n;

	if (jv_get_kind(worse) != JV_KIND_ARRAY)
		die("diff.jq: the regressions are not a list");
	n = jv_array_length(jv_copy(worse));
	for (i = 0; i < n; i++) {
		e = jv_array_get(jv_copy(worse), i);
		if (jv_get_kind(e) != JV_KIND_STRING)
			die("diff.jq: a regression is not a sentence");
		warnmsg("worse: %s", jqx_str(e));
		jv_free(e);
	}
	jv_free(worse);
	return n > 0;
}

/*
 * Reads the report record of path into *rep (the caller's).  Returns 1;
 * 0 when the file holds no records at all (*rep is then jv_null()).  A
 * file that cannot be read, is not NDJSON or holds no report is fatal.
 */
static int
read_report(const char *path, jv *rep)
{
	struct recset rs;
	jv all, r;
	int rc, n;

	recset_init(&rs, 1);
	if ((rc = recset_read(&rs, path)) != 0)
		exit(1);
	all = recset_take(&rs);
	recset_free(&rs);
	n = jv_object_length(jv_get(jv_copy(all), jv_string("counts")));
	r = jv_get(jv_get(jv_get(all, jv_string("records")),
	    jv_string("report")), jv_number(0));
	if (n == 0) {
		jv_free(r);
		*rep = jv_null();
		return 0;
	}
	if (jv_get_kind(r) != JV_KIND_OBJECT)
		die("%s: not an analyze-profile report",
		    strcmp(path, "-") == 0 ? "<stdin>" : path);
	*rep = r;
	return 1;
}

/* The diff program: the rubric's facts helpers, then diff.jq. */
static struct jqx *
compile(const char *dir, int json, const char *before, const char *after,
    double limit)
{
	static const char *const files[] = { "facts.jq", "diff.jq", NULL };
	jv args;

	args = jv_object();
	args = jv_object_set(args, jv_string("format"),
	    jv_string(json ? "json" : "markdown"));
	args = jv_object_set(args, jv_string("before_name"),
	    jv_string(before));
	args = jv_object_set(args, jv_string("after_name"), jv_string(after));
	args = jv_object_set(args, jv_string("limit"), jv_number(limit));
	return rubric_compile_files(dir, files,
	    "diff_report($format; $before_name; $after_name; $limit)", args);
}
