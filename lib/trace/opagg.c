/*
 * opagg: the sums.  Per name (count, total, self, min, max, GPU self and
 * total), per thread (those past a rank's share summed as one), per device
 * and per rank, and their merge from trace to rank and from rank to the
 * run; and, across ranks, each operator's ranking key kept in 32 bits
 * while every value fits.  Also the small helpers every file uses:
 * sorting, growing arrays, medians.
 */
#include <stdlib.h>
#include <string.h>

#include "base/xalloc.h"
#include "trace/opcoll.h"
#include "trace/opcompile.h"
#include "trace/opcore.h"
#include "trace/opfield.h"
#include "trace/opgraph.h"
#include "trace/opledger.h"
#include "trace/opnames.h"
#include "trace/opout.h"
#include "trace/opserve.h"
#include "trace/opshape.h"
#include "trace/opstep.h"
#include "trace/opsums.h"

static int64_t	thsum_busy(const struct thsum *);
static void	thsum_free(void *);
static void	devsum_free(void *);
static size_t	xindex(struct oprank *, size_t);
static int64_t	kv_get(const struct oprank *, const struct agg *, size_t,
		    size_t);
static void	kv_put(const struct oprank *, struct agg *, size_t, size_t,
		    int64_t);

void *
op_grow(void *p, size_t *cap, size_t n, size_t size)
{
	if (n < *cap)
		return p;
	*cap = *cap ? *cap * 2 : 16;
	return xreallocarray(p, *cap, size);
}

void
op_stat_add(struct stat *s, int64_t total, int64_t self)
{
	if (s->count == 0 || total < s->min)
		s->min = total;
	if (s->count == 0 || total > s->max)
		s->max = total;
	s->count++;
	s->total = op_sat_add(s->total, total);
	s->self = op_sat_add(s->self, self);
}

void
op_stat_merge(struct stat *d, const struct stat *s)
{
	if (s->count == 0)
		return;
	if (d->count == 0 || s->min < d->min)
		d->min = s->min;
	if (d->count == 0 || s->max > d->max)
		d->max = s->max;
	d->count = op_sat_add(d->count, s->count);
	d->total = op_sat_add(d->total, s->total);
	d->self = op_sat_add(d->self, s->self);
	d->gpu_self = op_sat_add(d->gpu_self, s->gpu_self);
	d->gpu_total = op_sat_add(d->gpu_total, s->gpu_total);
	d->bytes = op_sat_add(d->bytes, s->bytes);
}

/*
 * Makes room for names below n.  The room grows by doubling, as a merge
 * fits a rank to each new name it reads; nst stays exact, for the loops
 * over names.
 */
void
op_agg_fit(struct agg *a, size_t n)
{
	size_t cap;

	if (n <= a->nst)
		return;
	if (n > a->capst) {
		cap = a->capst * 2 > n ? a->capst * 2 : n;
		a->st = xreallocarray(a->st, cap, sizeof(*a->st));
		memset(a->st + a->capst, 0, (cap - a->capst) *
		    sizeof(*a->st));
		a->pst = xreallocarray(a->pst, cap, sizeof(*a->pst));
		memset(a->pst + a->capst, 0, (cap - a->capst) *
		    sizeof(*a->pst));
		a->capst = cap;
	}
	a->nst = n;
}

/*
 * A rank's sum for a thread; the key is what tells threads apart, here and
 * in a merge of partials.  Of the names a thread had in the windows of its
 * rank, the one that sorts first stays, whatever order they come in.  A
 * new thread beyond the first max gets the sum of the threads that did not
 * fit, FOLD_THREADS; the caller adds it in with op_thsum_fold().
 */
struct thsum *
op_thsum_get(struct agg *a, const struct jid *pid, const struct jid *tid,
    const char *name, size_t max)
{
	static const struct jid none = { NULL, 0 };
	struct thsum *ts;
	struct strent *e;
	char key[512];
	int len;

	len = snprintf(key, sizeof(key), "%c%s\n%c%s",
	    pid->text == NULL ? '-' : pid->str ? 's' : 'n',
	    pid->text ? pid->text : "",
	    tid->text == NULL ? '-' : tid->str ? 's' : 'n',
	    tid->text ? tid->text : "");
	if (len < 0 || (size_t)len >= sizeof(key))
		len = (int)sizeof(key) - 1;
	if (a->threads.count >= max && (pid->text != NULL ||
	    tid->text != NULL) && strmap_get(&a->threads, key,
	    (size_t)len) == NULL)
		return op_thsum_get(a, &none, &none, FOLD_THREADS, SIZE_MAX);
	e = strmap_put(&a->threads, key, (size_t)len);
	if ((ts = e->val) == NULL) {
		ts = e->val = xcalloc(1, sizeof(*ts));
		op_jid_copy(&ts->pid, pid);
		op_jid_copy(&ts->tid, tid);
	}
	if (name != NULL && (ts->name == NULL || strcmp(name, ts->name) < 0)) {
		free(ts->name);
		ts->name = xstrdup(name);
	}
	return ts;
}

/*
 * Adds thread sums src to dst: a thread's windows, or threads that did
 * not fit (src one thread, or such a sum itself) when dst is FOLD_THREADS.
 */
void
op_thsum_fold(struct thsum *dst, const struct thsum *src)
{
	int64_t top = src->threads > 0 ? src->top : src->busy;

	dst->count = op_sat_add(dst->count, src->count);
	dst->busy = op_sat_add(dst->busy, src->busy);
	if (dst->pid.text != NULL || dst->tid.text != NULL)
		return;
	dst->threads = op_sat_add(dst->threads, src->threads > 0 ?
	    src->threads : 1);
	if (top > dst->top)
		dst->top = top;
}

/* Adds busy time of thread t, which all holds, to rank a's own. */
void
op_rankthr_add(struct agg *a, const struct thsum *t, int64_t busy)
{
	size_t i;

	for (i = 0; i < a->nrthr && a->rthr[i].t != t; i++)
		;
	if (i == a->nrthr) {
		if (a->nrthr == a->caprthr) {
			a->caprthr = a->caprthr ? 2 * a->caprthr : 2;
			a->rthr = xreallocarray(a->rthr, a->caprthr,
			    sizeof(*a->rthr));
		}
		a->rthr[a->nrthr++] = (struct rankthr){ t, 0 };
	}
	a->rthr[i].busy = op_sat_add(a->rthr[i].busy, busy);
}

/* A thread's busy time; of threads that did not fit, the busiest's. */
static int64_t
thsum_busy(const struct thsum *t)
{
	return t->threads > 0 ? t->top : t->busy;
}

/* The busy time of the rank's busiest thread, or -1 without threads. */
int64_t
op_rank_busy(const struct agg *a)
{
	struct strent **ent = strmap_sorted(&a->threads);
	int64_t busy = -1;
	size_t i;

	for (i = 0; i < a->threads.count; i++)
		if (thsum_busy(ent[i]->val) > busy)
			busy = thsum_busy(ent[i]->val);
	free(ent);
	for (i = 0; i < a->nrthr; i++)
		if (a->rthr[i].busy > busy)
			busy = a->rthr[i].busy;
	return busy;
}

struct devsum *
op_devsum_get(struct agg *a, const struct jid *dev)
{
	struct devsum *ds;
	struct strent *e;

	e = strmap_put(&a->devs, dev->text ? dev->text : "",
	    dev->text ? strlen(dev->text) : 0);
	if ((ds = e->val) == NULL) {
		ds = e->val = xcalloc(1, sizeof(*ds));
		op_jid_copy(&ds->dev, dev);
	}
	return ds;
}

void
op_devsum_add(struct devsum *dd, const struct devsum *ds)
{
	opf_merge(&op_devsum_fields, dd, ds);
}

/* Adds calls to the sums of entry e, made on its first calls. */
void
op_rtsum_fold(struct strent *e, const struct rtsum *add)
{
	struct rtsum *rs;

	if ((rs = e->val) == NULL)
		rs = e->val = xcalloc(1, sizeof(*rs));
	opf_merge(&op_rtsum_fields, rs, add);
}

/* Adds a runtime API's calls to the rank's, by name. */
void
op_rtsum_add(struct agg *a, const char *name, size_t len,
    const struct rtsum *add)
{
	struct strent *e;

	if ((e = strmap_get(&a->rtcalls, name, len)) == NULL) {
		if (a->rtcalls.count >= MAXRTNAMES) {
			name = RT_OTHER;
			len = strlen(RT_OTHER);
		}
		e = strmap_put(&a->rtcalls, name, len);
	}
	op_rtsum_fold(e, add);
}

/*
 * The key of what called a slice's runtime calls: the slice, the caller's
 * class and name, NUL-separated; "" for both where no operator was open.
 */
void
op_caller_key(struct strbuf *key, const char *slice, const char *cls,
    const char *name)
{
	sb_truncate(key, 0);
	sb_put(key, slice, strlen(slice) + 1);
	sb_put(key, cls, strlen(cls) + 1);
	sb_puts(key, name);
}

/* Adds calls to a caller's; callers are operators, bounded as names are. */
void
op_caller_add(struct agg *a, const char *key, size_t len,
    const struct rtsum *add)
{
	op_rtsum_fold(strmap_put(&a->callers, key, len), add);
}

/* The parts of a caller key: its slice, class and name ("" for none). */
void
op_caller_split(const struct strent *e, const char **slice,
    const char **cls, const char **name, size_t *namelen)
{
	*slice = e->key;
	*cls = *slice + strlen(*slice) + 1;
	*name = *cls + strlen(*cls) + 1;
	*namelen = e->len - (size_t)(*name - e->key);
}

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
		op_stat_merge(&dst->st[i], &src->st[i]);
		op_stat_merge(&dst->pst[i], &src->pst[i]);
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
		op_graph_merge(&dst->graph, &src->graph);
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

int
op_cmpi64(const void *a, const void *b)
{
	const int64_t *x = a, *y = b;

	return (*x > *y) - (*x < *y);
}

/* The median of m > 0 sorted values: halfway between two when m is even. */
double
op_median(const int64_t *v, size_t m)
{
	return m % 2 ? (double)v[m / 2] :
	    ((double)v[m / 2 - 1] + (double)v[m / 2]) / 2;
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
