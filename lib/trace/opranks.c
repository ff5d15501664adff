/*
 * opranks: what only many ranks have, and the order of all output: the
 * op_ranks records (each operator's key on every rank, with the median),
 * the rank_summary records (each rank's steps and busy time, and its
 * operator furthest from the median rank), the steps timed across ranks,
 * and which rank's detail the records give (the slowest, or with -a every
 * rank's).
 */
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "base/xalloc.h"
#include "trace/opbase.h"
#include "trace/opcoll.h"
#include "trace/opcompile.h"
#include "trace/opcore.h"
#include "trace/opdevice.h"
#include "trace/opgraph.h"
#include "trace/opledger.h"
#include "trace/opnames.h"
#include "trace/opout.h"
#include "trace/opserve.h"
#include "trace/opshape.h"
#include "trace/opstep.h"
#include "trace/opsums.h"

static void	put_op_ranks(struct oprank *, struct jw *);
static void	put_detail(struct oprank *, struct jw *, struct agg *);
static void	put_rank_summaries(struct oprank *, struct jw *);
static void	put_wall_steps(struct oprank *, struct jw *);

/* Per op across ranks: the spread of the key and the slowest rank. */
static void
put_op_ranks(struct oprank *r, struct jw *w)
{
	size_t nn = r->names.n, i, j, n = 0, m;
	struct item *it = xreallocarray(NULL, nn + 1, sizeof(*it));
	int64_t *v = xreallocarray(NULL, r->nranks, sizeof(*v));
	enum key key = r->key == K_MEAN ? K_TOTAL : r->key;

	for (i = 0; i < nn; i++) {
		double mx = 0;
		int seen = 0;

		if (r->names.v[i].cls != C_OP && r->names.v[i].cls != C_ANN)
			continue;
		for (j = 0; j < r->nranks; j++)
			if (op_rank_key(r, r->ranks[j], i) != ABSENT) {
				double x;

				x = (double)op_rank_key(r, r->ranks[j], i);
				if (!seen || x > mx)
					mx = x;
				seen = 1;
			}
		if (!seen)
			continue;
		it[n].v = mx;
		it[n].s = r->names.v[i].s;
		it[n++].i = i;
	}
	xqsort(it, n, sizeof(*it), op_cmpclass);
	if (r->limit > 0 && (size_t)r->limit < n)
		n = (size_t)r->limit;
	for (i = 0; i < n; i++) {
		int64_t slow = -1, sv = 0;

		for (j = m = 0; j < r->nranks; j++) {
			const struct agg *a = r->ranks[j];
			int64_t x;

			if ((x = op_rank_key(r, a, it[i].i)) == ABSENT)
				continue;
			v[m++] = x;
			if (slow == -1 || x > sv) {
				slow = (int64_t)j;
				sv = x;
			}
		}
		xqsort(v, m, sizeof(*v), op_cmpi64);
		jw_record(w, "op_ranks");
		jw_key(w, "class");
		jw_cstring(w, op_clsname[r->names.v[it[i].i].cls]);
		jw_key(w, "name");
		jw_cstring(w, it[i].s);
		jw_key(w, "key");
		jw_cstring(w, op_keyname[key]);
		jw_key(w, "ranks");
		jw_uint(w, m);
		if (key == K_GPU) {
			jw_key(w, "min");
			jw_us(w, v[0]);
			jw_key(w, "median");
			jw_us(w, m % 2 ? v[m / 2] : (v[m / 2 - 1] + v[m / 2]) /
			    2);
			jw_key(w, "max");
			jw_us(w, v[m - 1]);
		} else {
			jw_key(w, "min");
			jw_int(w, v[0]);
			jw_key(w, "median");
			jw_double(w, op_median(v, m));
			jw_key(w, "max");
			jw_int(w, v[m - 1]);
		}
		if (r->ranks[slow]->rank >= 0) {
			jw_key(w, "slowest_rank");
			jw_int(w, r->ranks[slow]->rank);
		}
		jw_end(w);
	}
	free(it);
	free(v);
}

int
op_cmprank(const void *a, const void *b)
{
	const struct agg *x = *(struct agg *const *)a;
	const struct agg *y = *(struct agg *const *)b;

	return (x->rank > y->rank) - (x->rank < y->rank);
}

/* A rank's detail: what one rank's output holds. */
static void
put_detail(struct oprank *r, struct jw *w, struct agg *a)
{
	int c;

	op_agg_fit(a, r->names.n);
	op_put_folds(r, w, a);
	for (c = C_OP; c <= C_PY; c++)
		op_put_ops(r, w, a, c);
	op_put_ops(r, w, a, C_RT);
	op_put_threads(r, w, a);
	op_put_families(r, w, a);
	op_put_phases(w, a);
	op_put_steps(w, a, 1);
	op_put_serve(r, w, a);
	op_put_ledger(r, w, a, 1);
	op_put_kernels(r, w, a);
	op_put_precision(r, w, a);
	op_put_devs(w, a);
	op_put_device(r, w, a);
	op_put_runtime(r, w, a);
	op_put_graph(r, w, a);
	op_put_compile(r, w, a);
	op_put_shapes(r, w, a);
	op_put_summary(r, w, a, 1);
}

struct offmed {
	size_t	id;
	double	diff;
};

/* One of a rank_summary's operators: its total against the median's. */
static void
put_offmed(struct oprank *r, struct jw *w, struct jwkey key,
    const struct agg *a, const struct offmed *o, const double *med)
{
	jw_put_key(w, key);
	if (o->id == SIZE_MAX) {
		jw_null(w);
		return;
	}
	jw_begin_object(w);
	jw_key(w, "name");
	jw_cstring(w, r->names.v[o->id].s);
	jw_key(w, "total");
	jw_int(w, op_rank_total(r, a, o->id));
	jw_key(w, "median");
	jw_double(w, med[o->id]);
	jw_key(w, "diff");
	jw_double(w, o->diff);
	jw_end_object(w);
}

/* Whether x, off the median by d, goes before the best so far. */
static int
offmed_better(const struct oprank *r, const struct offmed *best, size_t id,
    double d, double bd)
{
	if (best->id == SIZE_MAX || d > bd)
		return 1;
	return d == bd && strcmp(r->names.v[id].s,
	    r->names.v[best->id].s) < 0;
}

/*
 * Per rank: its steps, CPU and GPU busy times, and the operator whose
 * total differs most from the median of the ranks that ran it, over all
 * of the rank's operators (ties: the first name).
 */
static void
put_rank_summaries(struct oprank *r, struct jw *w)
{
	size_t nn = r->names.n, i, j, m;
	struct collsum *cs = op_coll_sums(r), *top = &cs[r->nranks];
	double *med = xreallocarray(NULL, nn + 1, sizeof(*med));
	int64_t *v = xreallocarray(NULL, r->nranks + 1, sizeof(*v));
	struct strent **ent;
	struct offmed off, slower;
	struct spillcur c;
	const struct step *s;
	struct sstat ss;
	struct durs sd;

	for (i = 0; i < nn; i++) {
		if (r->names.v[i].cls != C_OP && r->names.v[i].cls != C_ANN)
			continue;
		for (j = m = 0; j < r->nranks; j++)
			if ((v[m] = op_rank_total(r, r->ranks[j], i)) != ABSENT)
				m++;
		xqsort(v, m, sizeof(*v), op_cmpi64);
		med[i] = m == 0 ? 0 : op_median(v, m);
	}
	for (j = 0; j < r->nranks; j++) {
		struct agg *a = r->ranks[j];
		struct devsum g;
		int64_t busy;

		if (a->rank < 0)
			continue;
		jw_record(w, "rank_summary");
		op_put_rank(w, a->rank);
		jw_key(w, "steps");
		jw_uint(w, a->nsteps);
		if (a->nsteps > 0) {
			op_durs_init(&sd, a->pool);
			op_steps_open(&c, a);
			while ((s = spill_next(&c)) != NULL)
				op_durs_add(&sd, s->num, s->end - s->ts);
			spillcur_free(&c);
			op_step_stats(&sd, &ss);
			op_durs_free(&sd);
			jw_key(w, "mean_step");
			jw_double(w, op_round3(ss.mean / 1000));
			jw_key(w, "max_step");
			jw_us(w, ss.max);
		}
		if ((busy = op_rank_busy(a)) >= 0) {
			jw_key(w, "cpu_busy");
			jw_int(w, busy);
		}
		memset(&g, 0, sizeof(g));
		ent = strmap_sorted(&a->devs);
		for (i = 0; i < a->devs.count; i++)
			op_devsum_add(&g, ent[i]->val);
		free(ent);
		if (a->devs.count > 0) {
			jw_key(w, "gpu_busy");
			jw_us(w, g.busy);
			jw_key(w, "computation");
			jw_us(w, g.comp);
			jw_key(w, "exposed_comm");
			jw_us(w, g.xcomm);
			jw_key(w, "exposed_memcpy");
			jw_us(w, g.xmemcpy);
			jw_key(w, "idle");
			jw_us(w, g.window - g.busy);
		}
		off.id = slower.id = SIZE_MAX;
		off.diff = slower.diff = 0;
		for (i = 0; i < nn; i++) {
			int64_t t;
			double d;

			if (r->names.v[i].cls != C_OP ||
			    (t = op_rank_total(r, a, i)) == ABSENT)
				continue;
			d = (double)t - med[i];
			if (offmed_better(r, &off, i, fabs(d), fabs(off.diff))) {
				off.id = i;
				off.diff = d;
			}
			if (d > 0 && offmed_better(r, &slower, i, d,
			    slower.diff)) {
				slower.id = i;
				slower.diff = d;
			}
		}
		put_offmed(r, w, JW_KEY("operator"), a, &off, med);
		put_offmed(r, w, JW_KEY("slower_operator"), a, &slower, med);
		if (cs[j].instances > 0) {
			jw_key(w, "collective");
			jw_begin_object(w);
			jw_key(w, "name");
			jw_cstring(w, r->names.v[top->name].s);
			jw_key(w, "names");
			jw_uint(w, cs[j].names);
			jw_key(w, "total");
			jw_us(w, cs[j].total);
			jw_key(w, "instances");
			jw_uint(w, cs[j].instances);
			jw_key(w, "last_at");
			jw_uint(w, cs[j].last);
			jw_key(w, "waited");
			jw_us(w, cs[j].waited);
			jw_end_object(w);
		}
		jw_end(w);
	}
	free(cs);
	free(med);
	free(v);
}

struct wstep {
	int64_t	num, dur;
};

/* By step number, the longest first. */
static int
cmpwstep(const void *a, const void *b)
{
	const struct wstep *x = a, *y = b;

	if (x->num != y->num)
		return (x->num > y->num) - (x->num < y->num);
	return (x->dur < y->dur) - (x->dur > y->dur);
}

/*
 * Step statistics across ranks: each step (by number) at its slowest
 * rank, the step's wall time.  The ranks' steps go through a spill by
 * number, so that none is held whole.
 */
static void
put_wall_steps(struct oprank *r, struct jw *w)
{
	struct spill all;
	struct spillcur c;
	const struct step *s;
	const struct wstep *x;
	struct sstat ss;
	struct durs d;
	struct wstep ws;
	size_t i, n = 0;
	int64_t last = 0;

	spill_init(&all, &r->pool, sizeof(struct wstep), cmpwstep);
	for (i = 0; i < r->nranks; i++) {
		struct agg *a = r->ranks[i];

		if (a->rank < 0)
			continue;
		op_steps_open(&c, a);
		while ((s = spill_next(&c)) != NULL) {
			ws = (struct wstep){ s->num, s->end - s->ts };
			spill_add(&all, &ws);
			n++;
		}
		spillcur_free(&c);
	}
	if (n == 0) {
		spill_free(&all);
		return;
	}
	op_durs_init(&d, &r->pool);
	spill_open(&c, &all);
	for (n = 0; (x = spill_next(&c)) != NULL; n++)
		if (n == 0 || x->num != last) {
			op_durs_add(&d, x->num, x->dur);
			last = x->num;
		}
	spillcur_free(&c);
	spill_free(&all);
	op_step_stats(&d, &ss);
	op_durs_free(&d);
	jw_record(w, "step_stats");
	jw_key(w, "wall");
	jw_bool(w, 1);
	op_put_sstat(w, &ss);
	jw_end(w);
}

/*
 * One rank: its detail.  Several: the primary rank's detail (every
 * rank's with -a), and of the others their steps and GPU timelines, which
 * the charts draw per rank; then the rows of every rank, the steps across
 * ranks, the operators across ranks and the summary of all.
 */
void
op_output(struct oprank *r, struct jw *w)
{
	size_t i, j, p;

	xqsort(r->ranks, r->nranks, sizeof(*r->ranks), op_cmprank);
	for (i = 0; i < r->nranks; i++) {
		struct agg *a = r->ranks[i];

		if (r->light)
			continue;
		op_agg_fit(a, r->names.n);
		a->self = op_self_total(r, a);
		/* Only what crosses ranks reads kv and all. */
		if (r->nranks < 2)
			continue;
		for (j = 0; j < a->nst; j++)
			op_kv_add(r, a, j, &a->st[j]);
		op_agg_merge(&r->all, a, SIZE_MAX);
	}
	if (r->nranks < 2) {
		for (i = 0; i < r->nranks; i++)
			put_detail(r, w, r->ranks[i]);
		return;
	}
	p = op_primary(r);
	for (i = 0; i < r->nranks; i++)
		if (r->every || i == p)
			put_detail(r, w, r->ranks[i]);
		else {
			op_put_steps(w, r->ranks[i], 0);
			op_put_ledger(r, w, r->ranks[i], 0);
			op_put_devs(w, r->ranks[i]);
		}
	put_rank_summaries(r, w);
	op_put_collectives(r, w);
	put_wall_steps(r, w);
	put_op_ranks(r, w);
	r->all.rank = -1;
	op_agg_fit(&r->all, r->names.n);
	op_put_summary(r, w, &r->all, r->nranks);
}
