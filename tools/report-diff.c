/*
 * report-diff: compare two JSON reports of analyze-profile, before and
 * after a change, and say for each action of the first whether its
 * validation metric improved.  Markdown, or with -j one "diff" record.
 */
#include <getopt.h>
#include <inttypes.h>
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
static void	check_figures(const char *, jv);
static void	check_number(const char *, const char *, const char *, jv,
		    int);
static struct jqx *compile(const char *dir, int json, const char *before,
		    const char *after, double limit, jv only);
static double	parse_percent(const char *);
static jv	parse_figures(const char *);
static int	tell_worse(jv);

static const struct optdoc options[] = {
	{ "--compare figures",
	    "the gate compares these figures only (step_time and rule ids,"
	    " comma-separated), each of which both reports must have" },
	{ "--fail-on pct",
	    "exit 1 when the step time or an action's metric got worse by"
	    " more than pct % beyond the noise, or one report lacks it" },
	{ "-j", "write one diff record, not Markdown" },
	{ "-r rubric", "the rubric directory" },
	OPTDOC_HELP,
	OPTDOC_END
};
static const struct usage use = {
	"[-j] [--compare figures] [--fail-on pct] [-r rubric] before after",
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
	enum { OPT_COMPARE = UCHAR_MAX + 1, OPT_FAIL_ON };
	static const struct option longopts[] = {
		{ "compare", required_argument, NULL, OPT_COMPARE },
		{ "fail-on", required_argument, NULL, OPT_FAIL_ON },
		{ "help", no_argument, NULL, 'h' },
		{ NULL, 0, NULL, 0 }
	};
	struct jqx *x;
	struct jw *w;
	const char *rflag = NULL, *compare = NULL;
	char *dir, *msg;
	int ch, jflag = 0, nb, na, status;
	double limit = -1;
	jv before, after, in, out, res, only;

	setprogname(argv[0]);
	while ((ch = getopt_long(argc, argv, "jr:h", longopts, NULL)) != -1) {
		switch (ch) {
		case 'j':
			jflag = 1;
			break;
		case 'r':
			rflag = optarg;
			break;
		case OPT_COMPARE:
			compare = optarg;
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
	if (compare != NULL && limit < 0)
		die_usage("--compare: the figures of a gate: give --fail-on too");
	only = compare != NULL ? parse_figures(compare) : jv_null();

	/* The reports first: a bad one is told without the compile's wait. */
	nb = read_report(argv[0], &before);
	na = read_report(argv[1], &after);
	/* Two empty inputs: nothing to compare, no output. */
	if (nb == 0 && na == 0) {
		jv_free(before);
		jv_free(after);
		jv_free(only);
		return finish(0);
	}
	if (nb == 0)
		die("%s: not an analyze-profile report", argv[0]);
	if (na == 0)
		die("%s: not an analyze-profile report", argv[1]);
	dir = rubric_dir(rflag);
	x = compile(dir, jflag, argv[0], argv[1], limit, only);
	free(dir);

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
 * --compare's figures: names of letters, digits, '_' and '-', separated
 * by commas, as a list; each once.  Checked whole before any is kept, so
 * that a usage error leaves nothing allocated.
 */
static jv
parse_figures(const char *s)
{
	static const char name[] = "abcdefghijklmnopqrstuvwxyz0123456789_-";
	jv list, fig;
	const char *p;
	size_t n;
	int i, len, seen;

	for (p = s;; p += n + 1) {
		n = strspn(p, name);
		if (n == 0 || (p[n] != ',' && p[n] != '\0'))
			die_usage("--compare: not a list of figures (step_time"
			    " and rule ids, comma-separated): %s", s);
		if (p[n] == '\0')
			break;
	}
	list = jv_array();
	for (p = s;; p += n + 1) {
		n = strspn(p, name);
		fig = jv_string_sized(p, (int)n);
		len = jv_array_length(jv_copy(list));
		for (i = seen = 0; i < len && !seen; i++)
			seen = jv_equal(jv_array_get(jv_copy(list), i),
			    jv_copy(fig));
		if (seen)
			jv_free(fig);
		else
			list = jv_array_append(list, fig);
		if (p[n] == '\0')
			return list;
	}
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
	const char *name = strcmp(path, "-") == 0 ? "<stdin>" : path;
	uint64_t nonfinite;

	if (recset_report(path, rep, &nonfinite) == 0)
		return 0;
	if (nonfinite > 0)
		die("%s: %" PRIu64 " NaN or Infinity, read as null: a report's"
		    " figures are finite numbers", name, nonfinite);
	check_figures(name, *rep);
	return 1;
}

/*
 * Refuses a report whose step figures (summary.steps) or measures are
 * not finite numbers, or whose step figures are negative: no step lasts
 * less than nothing, and a gate that reads such a figure would pass or
 * fail on nonsense.  rep is borrowed.
 */
static void
check_figures(const char *name, jv rep)
{
	static const char *const step[] = {
		"steps", "total", "mean", "min", "max", "std", "median",
		"above_median", NULL
	};
	jv steps, measures, m;
	const char *const *k;

	steps = jv_get(jv_get(jv_copy(rep), jv_string("summary")),
	    jv_string("steps"));
	for (k = step; jv_get_kind(steps) == JV_KIND_OBJECT && *k != NULL; k++)
		check_number(name, "summary.steps.", *k, jv_get(jv_copy(steps),
		    jv_string(*k)), 1);
	jv_free(steps);
	measures = jv_get(jv_copy(rep), jv_string("measures"));
	if (jv_get_kind(measures) == JV_KIND_OBJECT)
		jv_object_foreach(measures, key, v) {
			m = jv_get(v, jv_string("value"));
			check_number(name, "measures.", jv_string_value(key),
			    m, 0);
			jv_free(key);
		}
	jv_free(measures);
}

/* A figure, consumed: null or absent, or a finite number (not negative). */
static void
check_number(const char *name, const char *where, const char *key, jv v,
    int nonneg)
{
	double d;

	switch (jv_get_kind(v)) {
	case JV_KIND_NULL:
	case JV_KIND_INVALID:
		break;
	case JV_KIND_NUMBER:
		d = jv_number_value(v);
		if (!isfinite(d))
			die("%s: %s%s is out of range", name, where, key);
		if (nonneg && d < 0)
			die("%s: %s%s is negative: %g", name, where, key, d);
		break;
	default:
		die("%s: %s%s is not a number", name, where, key);
	}
	jv_free(v);
}

/* The diff program: the rubric's facts helpers, then diff.jq.  Takes only. */
static struct jqx *
compile(const char *dir, int json, const char *before, const char *after,
    double limit, jv only)
{
	static const char *const files[] = {
	    "facts.jq", "format.jq", "diff.jq", NULL
	};
	jv args;

	args = jv_object();
	args = jv_object_set(args, jv_string("format"),
	    jv_string(json ? "json" : "markdown"));
	args = jv_object_set(args, jv_string("before_name"),
	    jv_string(before));
	args = jv_object_set(args, jv_string("after_name"), jv_string(after));
	args = jv_object_set(args, jv_string("limit"), jv_number(limit));
	args = jv_object_set(args, jv_string("only"), only);
	return rubric_compile_files(dir, files,
	    "diff_report($format; $before_name; $after_name; $limit; $only)",
	    args);
}
