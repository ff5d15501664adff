/*
 * opagg: a whole struct agg: its merge from trace to rank and from rank
 * to the run, which reaches every part's sums (steps, ledger, calls,
 * shapes, graphs, serving steps, compiled regions), and its freeing; and,
 * across ranks, each operator's ranking key kept in 32 bits while every
 * value fits, the primary rank and the late one.  One sum at a time is
 * opsums.c's.
 */
#include <stdlib.h>
#include <string.h>

#include "base/xalloc.h"
#include "trace/opbase.h"
#include "trace/opcoll.h"
#include "trace/opcompile.h"
#include "trace/opcore.h"
#include "trace/opfield.h"
#include "trace/opgraph.h"
#include "trace/opledger.h"
#include "trace/opnames.h"
#include "trace/opserve.h"
#include "trace/opshape.h"
#include "trace/opstep.h"
#include "trace/opsums.h"

static void	thsum_free(void *);
static void	devsum_free(void *);
static size_t	xindex(struct oprank *, size_t);
static int64_t	kv_get(const struct oprank *, const struct agg *, size_t,
		    size_t);
static void	kv_put(const struct oprank *, struct agg *, size_t, size_t,
		    int64_t);

/*
 * Adds src's sums to dst, which sums apart the first max threads; a
 * rank's steps, ledger, calls and shapes are op_agg_take()'s.
 */
void
op_agg_merge(struct agg *dst, const struct agg *src, size_t max)
{
	struct strent **ent;
	struct thsum *ts, *tt;
	size_t i;
	int p;

	op_agg_fit(dst, src->nst);
	for (i = 0; i < src->nst; i++) {
		opf_merge(&op_stat_fields, &dst->st[i], &src->st[i]);
		opf_merge(&op_stat_fields, &dst->pst[i], &src->pst[i]);
	}
	ent = strmap_sorted(&src->threads);
	for (i = 0; i < src->threads.count; i++) {
		ts = ent[i]->val;
		tt = op_thsum_get(dst, &ts->pid, &ts->tid, ts->name, max);
		op_thsum_fold(tt, ts);
	}
	free(ent);
	ent = strmap_sorted(&src->devs);
	for (i = 0; i < src->devs.count; i++)
		op_devsum_add(op_devsum_get(dst,
		    &((struct devsum *)ent[i]->val)->dev), ent[i]->val);
	free(ent);
	ent = strmap_sorted(&src->rtcalls);
	for (i = 0; i < src->rtcalls.count; i++)
		op_rtsum_add(dst, ent[i]->key, ent[i]->len, ent[i]->val);
	free(ent);
	ent = strmap_sorted(&src->callers);
	for (i = 0; i < src->callers.count; i++)
		op_caller_add(dst, ent[i]->key, ent[i]->len, ent[i]->val);
	free(ent);
	for (p = 0; p < NPHASE; p++) {
		dst->ph_self[p] = op_sat_add(dst->ph_self[p], src->ph_self[p]);
		dst->ph_gpu[p] = op_sat_add(dst->ph_gpu[p], src->ph_gpu[p]);
	}
	dst->rt_count = op_sat_add(dst->rt_count, src->rt_count);
	dst->rt_total = op_sat_add(dst->rt_total, src->rt_total);
	dst->launch_count = op_sat_add(dst->launch_count, src->launch_count);
	dst->launch = op_sat_add(dst->launch, src->launch);
	dst->sync_count = op_sat_add(dst->sync_count, src->sync_count);
	dst->sync = op_sat_add(dst->sync, src->sync);
	dst->traces = op_sat_add(dst->traces, src->traces);
	dst->nsys_exports = op_sat_add(dst->nsys_exports, src->nsys_exports);
	dst->overflowed = op_sat_add(dst->overflowed, src->overflowed);

	dst->cpu_events = op_sat_add(dst->cpu_events, src->cpu_events);
	dst->gpu_events = op_sat_add(dst->gpu_events, src->gpu_events);
	if (src->have_time) {
		if (!dst->have_time || src->start < dst->start)
			dst->start = src->start;
		if (!dst->have_time || src->end > dst->end)
			dst->end = src->end;
		if (!dst->have_time || src->origin < dst->origin)
			dst->origin = src->origin;
		dst->have_time = 1;
	}
}

/*
 * As op_agg_merge(), but a rank that has nothing yet takes src's sums
 * whole instead of a copy of each, which would hold every name and thread
 * twice at once; src is left empty then.  Either way src stays the
 * caller's to free.
 */
void
op_agg_take(struct agg *dst, struct agg *src, size_t max)
{
	struct agg empty;
	size_t i;

	if (dst->traces > 0 || dst->nst > 0 || dst->threads.count > 0 ||
	    dst->devs.count > 0 || dst->rtcalls.count > 0 ||
	    dst->callers.count > 0 || dst->blame.count > 0 ||
	    dst->issuers.count > 0 ||
	    dst->frames.count > 0 ||
	    dst->nsteps > 0 || dst->nlw > 0 || dst->ncc > 0 ||
	    dst->shapes.count > 0 || dst->nserve > 0 ||
	    dst->graph.launches > 0 || dst->serve_bad > 0 ||
	    dst->compile.region_calls > 0 || dst->compile.guard_calls > 0) {
		op_agg_merge(dst, src, max);
		/*
		 * A rank's own steps, ledger, calls, graph replays, serving
		 * steps and compiled regions, not summed across ranks.
		 */
		op_steps_merge(dst, src);
		op_ledger_merge(dst, src);
		opf_merge(&op_graphsum_fields, &dst->graph, &src->graph);
		op_serve_merge(dst, src);
		op_compile_merge(dst, src);
		op_blame_merge(dst, src);
		for (i = 0; i < src->ncc; i++)
			op_ccall_add(dst, &src->cc[i]);
		/*
		 * Shapes are a rank's detail, not summed across ranks as the
		 * rest is; they cost what threads do: one max for both.
		 */
		op_shape_merge(dst, src, max);
		op_gpu_keep(&dst->gpu, src->gpu);
		op_gpu_keep(&dst->gpuarch, src->gpuarch);
		return;
	}
	empty = *dst;
	*dst = *src;
	dst->rank = empty.rank;
	*src = empty;
}

static void
thsum_free(void *p)
{
	struct thsum *t = p;

	op_jid_free(&t->pid);
	op_jid_free(&t->tid);
	free(t->name);
	free(t);
}

static void
devsum_free(void *p)
{
	struct devsum *d = p;

	op_jid_free(&d->dev);
	free(d);
}

void
op_agg_free(struct agg *a)
{
	free(a->st);
	free(a->pst);
	op_steps_free(a);
	op_serve_free(a);
	op_compile_free(a);
	free(a->cc);
	op_ledger_free(a);
	strmap_free(&a->threads, thsum_free);
	strmap_free(&a->devs, devsum_free);
	strmap_free(&a->rtcalls, free);
	strmap_free(&a->callers, free);
	strmap_free(&a->shapes, op_shape_free);
	op_blame_free(a);
	free(a->gpu);
	free(a->gpuarch);
	free(a->rthr);
	free(a->kv32);
	free(a->kv64);
}

int64_t
op_self_total(const struct oprank *r, const struct agg *a)
{
	int64_t sum = 0;
	size_t i;

	for (i = 0; i < a->nst; i++)
		if (r->names.v[i].cls == C_OP || r->names.v[i].cls == C_ANN ||
		    r->names.v[i].cls == C_RT)
			sum = op_sat_add(sum, a->st[i].self);
	return sum;
}

/*
 * The index of name id among the operators and annotations, which is
 * what a rank keeps of each across ranks; SIZE_MAX for other names.
 */
static size_t
xindex(struct oprank *r, size_t id)
{
	int cls;

	for (; r->nxof < r->names.n; r->nxof++) {
		r->xof = op_grow(r->xof, &r->capxof, r->nxof, sizeof(*r->xof));
		cls = r->names.v[r->nxof].cls;
		r->xof[r->nxof] = cls == C_OP || cls == C_ANN ?
		    (uint32_t)r->nx++ : UINT32_MAX;
	}
	return r->xof[id] == UINT32_MAX ? SIZE_MAX : r->xof[id];
}

/* A rank's value t (0: the key, 1: the total) of xindex x, or ABSENT. */
static int64_t
kv_get(const struct oprank *r, const struct agg *a, size_t x, size_t t)
{
	size_t i = x * r->kvw + t;

	if (x >= a->nkv)
		return ABSENT;
	if (a->kv64 != NULL)
		return a->kv64[i];
	return a->kv32[i] == KV_NONE ? ABSENT : a->kv32[i];
}

/*
 * Stores a value of a name the rank has room for.  Values take 32 bits
 * while they fit, as most do (CPU totals to 35 minutes): a merge keeps
 * them of every rank; the first that does not widens the rank's all.
 */
static void
kv_put(const struct oprank *r, struct agg *a, size_t x, size_t t, int64_t v)
{
	size_t i, n;

	if (a->kv64 == NULL && (v <= KV_NONE || v > INT32_MAX)) {
		n = a->nkv * r->kvw;
		a->kv64 = xreallocarray(NULL, n, sizeof(*a->kv64));
		for (i = 0; i < n; i++)
			a->kv64[i] = a->kv32[i] == KV_NONE ? ABSENT :
			    a->kv32[i];
		free(a->kv32);
		a->kv32 = NULL;
	}
	i = x * r->kvw + t;
	if (a->kv64 != NULL)
		a->kv64[i] = v;
	else
		a->kv32[i] = (int32_t)v;
}

/*
 * Adds a stat of name id to the rank's op_ranks key and total: windows of
 * one rank add up, but for the key max.
 */
void
op_kv_add(struct oprank *r, struct agg *a, size_t id, const struct stat *s)
{
	enum key key = r->key == K_MEAN ? K_TOTAL : r->key;
	size_t cap, i, x;
	int64_t v, cur;

	if (s->count == 0 || (x = xindex(r, id)) == SIZE_MAX)
		return;
	if (x >= a->nkv) {
		/*
		 * Those known so far, in steps of 16: a merge keeps this of
		 * every rank, and meets its names one by one.
		 */
		cap = (x >= r->nx ? x + 1 : r->nx) + 15;
		cap -= cap % 16;
		if (a->kv64 != NULL) {
			a->kv64 = xreallocarray(a->kv64, cap * r->kvw,
			    sizeof(*a->kv64));
			for (i = a->nkv * r->kvw; i < cap * r->kvw; i++)
				a->kv64[i] = ABSENT;
		} else {
			a->kv32 = xreallocarray(a->kv32, cap * r->kvw,
			    sizeof(*a->kv32));
			for (i = a->nkv * r->kvw; i < cap * r->kvw; i++)
				a->kv32[i] = KV_NONE;
		}
		a->nkv = cap;
	}
	v = (int64_t)op_keyval(s, key);
	if ((cur = kv_get(r, a, x, 0)) != ABSENT)
		v = key == K_MAX ? (v > cur ? v : cur) : op_sat_add(cur, v);
	kv_put(r, a, x, 0, v);
	if (r->kvw == 2) {
		cur = kv_get(r, a, x, 1);
		kv_put(r, a, x, 1, cur == ABSENT ? s->total :
		    op_sat_add(cur, s->total));
	}
}

/* The rank's op_ranks key of name id, or ABSENT. */
int64_t
op_rank_key(struct oprank *r, const struct agg *a, size_t id)
{
	size_t x = xindex(r, id);

	return x == SIZE_MAX ? ABSENT : kv_get(r, a, x, 0);
}

/* The rank's total of name id, or ABSENT. */
int64_t
op_rank_total(struct oprank *r, const struct agg *a, size_t id)
{
	size_t x = xindex(r, id);

	return x == SIZE_MAX ? ABSENT : kv_get(r, a, x, r->kvw - 1);
}

/*
 * Of several ranks, the one last at most of the instances of the
 * collectives it took part in, more than half of them: the one the
 * others wait for; else SIZE_MAX.
 */
size_t
op_late_rank(struct oprank *r)
{
	struct collsum *cs;
	size_t i, late = SIZE_MAX;

	if (r->nranks < 2)
		return SIZE_MAX;
	cs = op_coll_sums(r);
	for (i = 0; i < r->nranks; i++)
		if (cs[i].instances > 0 && 2 * cs[i].last > cs[i].instances &&
		    (late == SIZE_MAX || cs[i].last > cs[late].last))
			late = i;
	free(cs);
	return late;
}

/*
 * The primary rank, whose detail the output holds: in synchronous
 * training every rank's step lasts as long as the late one's, so where
 * the collectives were matched rank by rank, the rank that arrives last
 * at most of its instances (the one the others wait for); else the
 * slowest by mean step, then the one with the most CPU self time (which a
 * wait in an async collective does not inflate), the first of those in
 * rank order.
 */
size_t
op_primary(struct oprank *r)
{
	size_t i, best = 0, late = op_late_rank(r);
	double m, bm = op_mean_step(r->ranks[0]);

	if (late != SIZE_MAX)
		return late;
	for (i = 1; i < r->nranks; i++) {
		m = op_mean_step(r->ranks[i]);
		if (m > bm || (m == bm &&
		    r->ranks[i]->self > r->ranks[best]->self)) {
			best = i;
			bm = m;
		}
	}
	return best;
}
