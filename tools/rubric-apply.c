/*
 * rubric-apply: evaluate the rubric's rules on the records of the other
 * tools and write the findings, largest expected impact first.
 */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include <jv.h>

#include "err.h"
#include "jqx.h"
#include "ndjson.h"
#include "recset.h"
#include "rubric.h"
#include "xalloc.h"

/* Records kept per kind, rank and class: the rules look at the top ones. */
#define KEEP	64

struct hit {
	size_t	 rule;
	int	 conf;		/* 0 high, 1 medium, 2 low */
	int	 has_impact;
	double	 impact;
	jv	 v;
};

static void	usage(void);
static int	confidence_rank(const char *);
static int	hit_cmp(const void *, const void *);
static size_t	collect(const struct rubric *, jv results, struct hit *);
static void	put_finding(struct jw *, const struct rubric *,
		    const struct hit *, size_t place);

static void
usage(void)
{
	fprintf(stderr, "usage: %s [-l] [-r rubric] [file ...]\n",
	    getprogname());
	exit(2);
}

int
main(int argc, char *argv[])
{
	struct rubric r;
	struct recset rs;
	struct jqx *x;
	struct jw *w;
	struct hit *hits;
	const char *rflag = NULL;
	char *dir, *msg;
	size_t i, n;
	int ch, lflag = 0, status = 0, rc;
	jv out;

	setprogname(argv[0]);
	while ((ch = getopt(argc, argv, "lr:")) != -1) {
		switch (ch) {
		case 'l':
			lflag = 1;
			break;
		case 'r':
			rflag = optarg;
			break;
		default:
			usage();
		}
	}
	argc -= optind;
	argv += optind;
	if (lflag && argc > 0)
		usage();

	dir = rubric_dir(rflag);
	memset(&r, 0, sizeof(r));
	rubric_load(&r, dir);
	free(dir);
	w = jw_new(stdout);
	if (lflag) {
		for (i = 0; i < r.n; i++)
			rubric_write_rule(w, &r, i);
		jw_free(w);
		rubric_free(&r);
		return finish(0);
	}
	x = rubric_compile(&r);

	recset_init(&rs, KEEP);
	if ((rc = recset_read_operands(&rs, argc, argv)) < 0)
		exit(1);
	status |= rc;

	rc = jqx_run(x, recset_take(&rs), &out, &msg);
	if (rc < 0)
		die("%s/facts.jq: %s", r.dir, msg);
	/* An empty array: nothing was gathered, so there is nothing to say. */
	if (rc == 0 || jv_get_kind(out) != JV_KIND_ARRAY ||
	    (jv_array_length(jv_copy(out)) != (int)r.n &&
	    jv_array_length(jv_copy(out)) != 0))
		die("%s: the rules gave no result", r.dir);
	hits = xcalloc(r.n, sizeof(*hits));
	n = collect(&r, out, hits);
	qsort(hits, n, sizeof(*hits), hit_cmp);
	for (i = 0; i < n; i++) {
		put_finding(w, &r, &hits[i], i + 1);
		jv_free(hits[i].v);
	}
	free(hits);
	jw_free(w);
	jqx_free(x);
	recset_free(&rs);
	rubric_free(&r);
	return finish(status != 0);
}

/*
 * Keeps the rules that fired; a rule that failed on this data is a data
 * error naming the rule.
 */
static size_t
collect(const struct rubric *r, jv results, struct hit *hits)
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
			die("%s/%s:%u: rule %s: %s", r->dir, r->rule[i].file,
			    r->rule[i].line, r->rule[i].id, jqx_str(e));
		}
		jv_free(e);
		imp = jv_object_get(jv_copy(v), jv_string("impact"));
		hits[n].rule = i;
		hits[n].conf = confidence_rank(r->rule[i].confidence);
		hits[n].has_impact = jv_get_kind(imp) == JV_KIND_NUMBER &&
		    isfinite(jv_number_value(imp));
		/* Four decimals are all an estimate is worth. */
		hits[n].impact = hits[n].has_impact ?
		    round(jv_number_value(imp) * 1e4) / 1e4 : 0;
		hits[n].v = v;
		jv_free(imp);
		n++;
	}
	jv_free(results);
	return n;
}

static int
confidence_rank(const char *c)
{
	return strcmp(c, "high") == 0 ? 0 : strcmp(c, "medium") == 0 ? 1 : 2;
}

/* Ties in impact are broken by confidence, then by rubric order. */
static int
hit_cmp(const void *a, const void *b)
{
	const struct hit *x = a, *y = b;

	if (x->has_impact != y->has_impact)
		return y->has_impact - x->has_impact;
	if (x->has_impact && x->impact != y->impact)
		return x->impact > y->impact ? -1 : 1;
	if (x->conf != y->conf)
		return x->conf - y->conf;
	return x->rule < y->rule ? -1 : x->rule > y->rule;
}

static void
put_finding(struct jw *w, const struct rubric *r, const struct hit *h,
    size_t place)
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
	if (h->has_impact)
		jw_double(w, h->impact);
	else
		jw_null(w);
	jw_key(w, "confidence");
	jw_cstring(w, u->confidence);
	jw_key(w, "hypothesis");
	jw_bool(w, strcmp(u->confidence, "low") == 0);
	for (k = 0; k < RT_N; k++) {
		t = jv_object_get(jv_copy(h->v), jv_string(rubric_text_name[k]));
		if (jv_get_kind(t) == JV_KIND_STRING) {
			jw_key(w, rubric_text_name[k]);
			jqx_write(w, t);
		}
		jv_free(t);
	}
	t = jv_object_get(jv_copy(h->v), jv_string("evidence"));
	jw_key(w, "evidence");
	jqx_write(w, t);
	jv_free(t);
	jw_end(w);
}
