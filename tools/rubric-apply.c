/*
 * rubric-apply: evaluate the rubric's rules on the records of the other
 * tools and write the findings, ranked as mrp-rubric(5) documents: what
 * stops the run first, then the objective's resource, then the other,
 * each by the share of its basis that the action could recover, with time
 * or memory that two rules claim attributed once.
 */
#include <getopt.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include <jv.h>

#include "base/err.h"
#include "base/usage.h"
#include "base/xalloc.h"
#include "io/ndjson.h"
#include "io/outdir.h"
#include "report/jqx.h"
#include "report/recset.h"
#include "report/rubric.h"

/* Records kept per kind, rank and class: the rules look at the top ones. */
#define KEEP	64

/* Rounding: four decimals are all an estimate is worth. */
#define GRAIN	1e4

/* What apply_one() applies, for recset_each(). */
struct program {
	const struct rubric	*r;
	struct jqx		*x;
};

struct hit {
	size_t	 rule;
	int	 conf;		/* 0 high, 1 medium, 2 low */
	int	 group;		/* rank group, see group_of() */
	int	 has_impact;
	double	 claimed;	/* the rule's own estimate */
	double	 fraction;	/* what is left of it once attributed */
	double	 pool_size;	/* the largest claim on its pool */
	jv	 v;
};

static void	usage(void);
static int	apply(const struct rubric *, struct jqx *, jv records,
		    struct jw *, const char *input);
static int	apply_one(void *, jv records, FILE *, const char *path,
		    const char *input);
static int	confidence_rank(const char *);
static int	group_of(const struct rule *, int has_impact,
		    const char *objective, const char *phase);
static int	in_phase(const char *area, const char *phase);
static int	hit_cmp(const void *, const void *);
static int	collect(const struct rubric *, jv results, struct hit *,
		    const char *input, size_t *);
static size_t	attribute(const struct rubric *, struct hit *, size_t);
static void	put_finding(struct jw *, const struct rubric *,
		    const struct hit *, size_t place, jv measures);
static void	put_measure(struct jw *, const struct rule *, jv value);

static const struct optdoc options[] = {
	{ "-l", "read no input; write one rule record per rule" },
	{ "-o dir", "write the findings of each file into dir, on its own" },
	{ "-O plan", "write each output the plan names from its files" },
	{ "-r rubric", "the rubric directory" },
	OPTDOC_HELP,
	OPTDOC_END
};
static const struct usage use = {
	"[-l] [-r rubric] [file ...]\n"
	"-o dir [-r rubric] file ...\n"
	"-O plan [-r rubric]",
	"turn profile records into ranked findings with a reviewable rubric",
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
	struct rubric r;
	struct recset rs;
	struct outdir od;
	struct program prog;
	struct jqx *x;
	struct jw *w;
	const char *oflag = NULL, *Oflag = NULL, *rflag = NULL;
	char *dir;
	size_t i;
	int ch, lflag = 0, status = 0, rc;

	setprogname(argv[0]);
	while ((ch = getopt_long(argc, argv, "lo:O:r:h", longopts, NULL)) != -1) {
		switch (ch) {
		case 'l':
			lflag = 1;
			break;
		case 'o':
			oflag = optarg;
			break;
		case 'O':
			Oflag = optarg;
			break;
		case 'r':
			rflag = optarg;
			break;
		case 'h':
			usage_help(&use);
		default:
			usage();
		}
	}
	argc -= optind;
	argv += optind;
	if (lflag && (argc > 0 || oflag != NULL || Oflag != NULL))
		usage();
	if (oflag != NULL && (argc == 0 || Oflag != NULL))
		usage();
	if (Oflag != NULL && argc > 0)
		usage();
	if (oflag != NULL)
		outdir_init(&od, oflag, argv, (size_t)argc, ".ndjson");
	if (Oflag != NULL)
		outdir_plan(&od, Oflag);

	dir = rubric_dir(rflag);
	memset(&r, 0, sizeof(r));
	rubric_load(&r, dir);
	free(dir);
	if (lflag) {
		w = jw_new(stdout);
		for (i = 0; i < r.n; i++)
			rubric_write_rule(w, &r, i);
		jw_free(w);
		rubric_free(&r);
		return finish(0);
	}
	x = rubric_compile(&r);

	if (oflag != NULL || Oflag != NULL) {
		prog.r = &r;
		prog.x = x;
		status = recset_each(&od, KEEP, NULL, apply_one, &prog);
		outdir_free(&od);
	} else {
		recset_init(&rs, KEEP);
		if ((rc = recset_read_operands(&rs, argc, argv)) < 0)
			exit(1);
		status |= rc;
		w = jw_new(stdout);
		if (apply(&r, x, recset_take(&rs), w, NULL) != 0)
			exit(1);
		jw_free(w);
		recset_free(&rs);
	}
	jqx_free(x);
	rubric_free(&r);
	return finish(status != 0);
}

/* -o, -O: the findings of one output's records into its stream. */
static int
apply_one(void *arg, jv records, FILE *out, const char *path,
    const char *input)
{
	const struct program *prog = arg;
	struct jw *w;
	int rc;

	w = jw_new(out);
	jw_name(w, path);
	rc = apply(prog->r, prog->x, records, w, input);
	jw_free(w);
	return rc;
}

/*
 * Writes the findings, then the measures, of the gathered records
 * (consumed).  Returns 0, or -1 after a message, having written nothing:
 * the rules gave nothing or failed.  input names the file the records
 * came from (or the plan's line), for the message, under -o or -O;
 * NULL otherwise.
 */
static int
apply(const struct rubric *r, struct jqx *x, jv records, struct jw *w,
    const char *input)
{
	const char *in = input != NULL ? input : "",
	    *sep = input != NULL ? ": " : "";
	struct hit *hits;
	char *msg;
	size_t i, n;
	int rc;
	jv out, objective, phase, measures;

	rc = jqx_run(x, records, &out, &msg);
	if (rc < 0) {
		error("%s%s%s/facts.jq: %s", in, sep, r->dir, msg);
		free(msg);
		return -1;
	}
	/* No results: nothing was gathered, so there is nothing to say. */
	if (rc == 0 || jv_get_kind(out) != JV_KIND_OBJECT) {
		jv_free(out);
		return error("%s%s%s: the rules gave no result", in, sep,
		    r->dir);
	}
	objective = jv_object_get(jv_copy(out), jv_string("objective"));
	phase = jv_object_get(jv_copy(out), jv_string("phase"));
	measures = jv_object_get(jv_copy(out), jv_string("measures"));
	out = jv_object_get(out, jv_string("results"));
	if (jv_get_kind(out) != JV_KIND_ARRAY ||
	    (jv_array_length(jv_copy(out)) != (int)r->n &&
	    jv_array_length(jv_copy(out)) != 0)) {
		jv_free(out);
		jv_free(objective);
		jv_free(phase);
		jv_free(measures);
		return error("%s%s%s: the rules gave no result", in, sep,
		    r->dir);
	}
	hits = xcalloc(r->n, sizeof(*hits));
	if (collect(r, out, hits, input, &n) != 0) {
		free(hits);
		jv_free(objective);
		jv_free(phase);
		jv_free(measures);
		return -1;
	}
	n = attribute(r, hits, n);
	for (i = 0; i < n; i++)
		hits[i].group = group_of(&r->rule[hits[i].rule],
		    hits[i].has_impact, jv_get_kind(objective) ==
		    JV_KIND_STRING ? jv_string_value(objective) : NULL,
		    jv_get_kind(phase) == JV_KIND_STRING ?
		    jv_string_value(phase) : NULL);
	jv_free(objective);
	jv_free(phase);
	xqsort(hits, n, sizeof(*hits), hit_cmp);
	for (i = 0; i < n; i++) {
		put_finding(w, r, &hits[i], i + 1, measures);
		jv_free(hits[i].v);
	}
	/* Every rule's measure, fired or not, for report-diff. */
	if (jv_get_kind(measures) == JV_KIND_ARRAY &&
	    jv_array_length(jv_copy(measures)) == (int)r->n)
		for (i = 0; i < r->n; i++)
			if (r->rule[i].measure != NULL)
				put_measure(w, &r->rule[i], jv_array_get(
				    jv_copy(measures), (int)i));
	jv_free(measures);
	free(hits);
	return 0;
}

/*
 * Keeps the rules that fired, in *n of hits; results is consumed.  A rule
 * that failed on this data is a data error naming the rule (and input,
 * the file of the records, or the plan's line, under -o or -O): -1 after
 * the message, with nothing kept.
 */
static int
collect(const struct rubric *r, jv results, struct hit *hits,
    const char *input, size_t *np)
{
	size_t i, n = 0;
	jv v, e, imp;

	for (i = 0; i < r->n; i++) {
		v = jv_array_get(jv_copy(results), (int)i);
		if (jv_get_kind(v) != JV_KIND_OBJECT) {
			jv_free(v);
			continue;
		}
		e = jv_object_get(jv_copy(v), jv_string("mrp_error"));
		if (jv_get_kind(e) != JV_KIND_INVALID) {
			if (jv_get_kind(e) != JV_KIND_STRING)
				e = jv_dump_string(e, 0);
			error("%s%s%s/%s:%u: rule %s: %s",
			    input != NULL ? input : "",
			    input != NULL ? ": " : "", r->dir,
			    r->rule[i].file, r->rule[i].line, r->rule[i].id,
			    jqx_str(e));
			jv_free(e);
			jv_free(v);
			while (n > 0)
				jv_free(hits[--n].v);
			jv_free(results);
			return -1;
		}
		jv_free(e);
		imp = jv_object_get(jv_copy(v), jv_string("impact"));
		hits[n].rule = i;
		hits[n].conf = confidence_rank(r->rule[i].confidence);
		hits[n].has_impact = jv_get_kind(imp) == JV_KIND_NUMBER &&
		    isfinite(jv_number_value(imp));
		if (hits[n].has_impact)
			hits[n].claimed = round(fmin(fmax(
			    jv_number_value(imp), 0), 1) * GRAIN) / GRAIN;
		jv_free(imp);
		if (hits[n].has_impact) {
			/* Nothing to recover is nothing to advise. */
			if (hits[n].claimed == 0) {
				jv_free(v);
				continue;
			}
		}
		hits[n].v = v;
		n++;
	}
	jv_free(results);
	*np = n;
	return 0;
}

/*
 * Gives each estimate the part of its basis that no rule before it (in
 * rubric order, which puts specific causes before general ones) has
 * claimed: a pool, the time or memory that several rules explain in
 * different ways, is as large as its largest claim and attributed once;
 * a basis never adds up to more than all of it.  A finding left with
 * nothing is dropped: a rule before it already explains its share.
 */
static size_t
attribute(const struct rubric *r, struct hit *hits, size_t n)
{
	double basis_used, pool_used;
	size_t i, j, kept = 0;
	const struct rule *u, *o;

	/* A pool is as large as the largest claim on it, dropped or not. */
	for (i = 0; i < n; i++) {
		u = &r->rule[hits[i].rule];
		hits[i].pool_size = 0;
		for (j = 0; j < n && u->pool != NULL; j++) {
			o = &r->rule[hits[j].rule];
			if (hits[j].has_impact && o->pool != NULL &&
			    strcmp(o->pool, u->pool) == 0 &&
			    strcmp(o->basis, u->basis) == 0)
				hits[i].pool_size = fmax(hits[i].pool_size,
				    hits[j].claimed);
		}
	}
	for (i = 0; i < n; i++) {
		u = &r->rule[hits[i].rule];
		hits[i].fraction = hits[i].claimed;
		if (!hits[i].has_impact) {
			hits[kept++] = hits[i];
			continue;
		}
		basis_used = pool_used = 0;
		for (j = 0; j < kept; j++) {
			o = &r->rule[hits[j].rule];
			if (!hits[j].has_impact ||
			    strcmp(o->basis, u->basis) != 0)
				continue;
			basis_used += hits[j].fraction;
			if (u->pool != NULL && o->pool != NULL &&
			    strcmp(o->pool, u->pool) == 0)
				pool_used += hits[j].fraction;
		}
		hits[i].fraction = fmin(hits[i].fraction, 1 - basis_used);
		if (u->pool != NULL)
			hits[i].fraction = fmin(hits[i].fraction,
			    hits[i].pool_size - pool_used);
		hits[i].fraction = round(hits[i].fraction * GRAIN) / GRAIN;
		if (hits[i].fraction <= 0) {
			jv_free(hits[i].v);
			continue;
		}
		hits[kept++] = hits[i];
	}
	return kept;
}

/*
 * 0: the run cannot go on (an OOM); 1: the objective's resource (memory
 * for "memory", else time); 2: the other resource; 3: a cause whose cost
 * these artifacts cannot measure; 4: a missing artifact (a rule that says
 * what to capture).  With a phase in focus, findings about other phases
 * follow all of these.
 */
static int
group_of(const struct rule *u, int has_impact, const char *objective,
    const char *phase)
{
	int group, memory_first, is_memory;

	if (u->blocking)
		return 0;
	if (!has_impact)
		group = u->text[RT_CAPTURE] != NULL ||
		    u->casex[RT_CAPTURE] != NULL ? 4 : 3;
	else {
		memory_first = objective != NULL &&
		    strcmp(objective, "memory") == 0;
		is_memory = strstr(u->basis, "memory") != NULL;
		group = is_memory == memory_first ? 1 : 2;
	}
	return in_phase(u->area, phase) ? group : group + 5;
}

/*
 * Whether a finding of this area speaks about the phase: the areas named
 * after a phase belong to it; compute, memory and step findings belong to
 * the forward and backward passes.
 */
static int
in_phase(const char *area, const char *phase)
{
	if (phase == NULL || strcmp(area, phase) == 0)
		return 1;
	if (strcmp(phase, "forward") != 0 && strcmp(phase, "backward") != 0)
		return 0;
	return strcmp(area, "cpu") == 0 || strcmp(area, "gpu") == 0 ||
	    strcmp(area, "memory") == 0 || strcmp(area, "step") == 0;
}

static int
confidence_rank(const char *c)
{
	return strcmp(c, "high") == 0 ? 0 : strcmp(c, "medium") == 0 ? 1 : 2;
}

/*
 * By group, then by the attributed fraction; ties are broken by
 * confidence, then by rubric order.
 */
static int
hit_cmp(const void *a, const void *b)
{
	const struct hit *x = a, *y = b;

	if (x->group != y->group)
		return x->group - y->group;
	if (x->has_impact && y->has_impact && x->fraction != y->fraction)
		return x->fraction > y->fraction ? -1 : 1;
	if (x->conf != y->conf)
		return x->conf - y->conf;
	return x->rule < y->rule ? -1 : x->rule > y->rule;
}

/* A finding; measures (borrowed) holds the value of every rule's measure. */
static void
put_finding(struct jw *w, const struct rubric *r, const struct hit *h,
    size_t place, jv measures)
{
	const struct rule *u = &r->rule[h->rule];
	jv t;
	int k;

	jw_record(w, "finding");
	jw_key(w, "place");
	jw_uint(w, place);
	jw_key(w, "rule");
	jw_cstring(w, u->id);
	jw_key(w, "area");
	jw_cstring(w, u->area);
	jw_key(w, "impact");
	if (h->has_impact) {
		jw_begin_object(w);
		jw_key(w, "basis");
		jw_cstring(w, u->basis);
		jw_key(w, "fraction");
		jw_double(w, h->fraction);
		jw_key(w, "claimed");
		jw_double(w, h->claimed);
		jw_end_object(w);
	} else
		jw_null(w);
	jw_key(w, "blocking");
	jw_bool(w, u->blocking);
	jw_key(w, "confidence");
	jw_cstring(w, u->confidence);
	jw_key(w, "hypothesis");
	jw_bool(w, strcmp(u->confidence, "low") == 0);
	for (k = 0; k < RT_N; k++) {
		t = jv_object_get(jv_copy(h->v), jv_string(rubric_text_name[k]));
		if (jv_get_kind(t) == JV_KIND_STRING) {
			jw_ckey(w, rubric_text_name[k]);
			jqx_write(w, t);
		}
		jv_free(t);
	}
	t = jv_object_get(jv_copy(h->v), jv_string("evidence"));
	jw_key(w, "evidence");
	jqx_write(w, t);
	jv_free(t);
	jw_key(w, "measure");
	if (u->measure != NULL && jv_get_kind(measures) == JV_KIND_ARRAY) {
		t = jv_array_get(jv_copy(measures), (int)h->rule);
		jw_begin_object(w);
		jw_key(w, "value");
		jqx_write(w, t);
		jw_key(w, "better");
		jw_cstring(w, u->better);
		jw_end_object(w);
		jv_free(t);
	} else
		jw_null(w);
	jw_end(w);
}

/* The "measure" record of rule u; value is consumed. */
static void
put_measure(struct jw *w, const struct rule *u, jv value)
{
	jw_record(w, "measure");
	jw_key(w, "rule");
	jw_cstring(w, u->id);
	jw_key(w, "value");
	jqx_write(w, value);
	jw_key(w, "better");
	jw_cstring(w, u->better);
	jw_end(w);
	jv_free(value);
}
