/*
 * opout: one rank's records, in the order mrp-records(5) gives them: op,
 * thread_total, family_total, phase_total, step and step_stats, kernel,
 * gemm_precision, gpu_timeline, runtime_total and cpu_summary, ranked by
 * the key asked for with ties broken by name.
 */
#include <inttypes.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "base/err.h"
#include "base/xalloc.h"
#include "trace/opbase.h"
#include "trace/opcore.h"
#include "trace/opfield.h"
#include "trace/opledger.h"
#include "trace/opnames.h"
#include "trace/opout.h"
#include "trace/opstep.h"
#include "trace/opsums.h"

static size_t	ranked(const struct oprank *, const struct agg *,
		    const struct stat *, int, enum key, struct item *);
static size_t	threads_ranked(const struct agg *, struct item *);
static int64_t	shown(int64_t);
static int	cmpitem(const void *, const void *);
static double	pct(int64_t, int64_t);
static size_t	families(const struct oprank *, const struct agg *, int64_t *,
		    int64_t *, int64_t *, struct item *);

static int
cmpitem(const void *a, const void *b)
{
	const struct item *x = a, *y = b;

	if (x->v != y->v)
		return x->v > y->v ? -1 : 1;
	return strcmp(x->s, y->s);
}

/*
 * cmpitem() for operators and annotations together, where an operator and
 * an annotation may share a name: the interned key before the name holds
 * the class letter, and settles the order whatever order names came in.
 */
int
op_cmpclass(const void *a, const void *b)
{
	const struct item *x = a, *y = b;
	int c;

	if ((c = cmpitem(a, b)) != 0)
		return c;
	return (x->s[-1] > y->s[-1]) - (x->s[-1] < y->s[-1]);
}

/* A self time as a table shows it: put_negself() says where it is not. */
static int64_t
shown(int64_t self)
{
	return self > 0 ? self : 0;
}

/* A percentage with two decimals, as key_averages().table() prints. */
static double
pct(int64_t part, int64_t whole)
{
	return whole != 0 ? round((double)part * 10000 / (double)whole) / 100 :
	    0;
}

/*
 * The names of class cls in a, ranked by the key on their stats st (a->st,
 * or a->pst for the -p phase); returns how many.
 */
static size_t
ranked(const struct oprank *r, const struct agg *a, const struct stat *st,
    int cls, enum key key, struct item *it)
{
	size_t i, n = 0;

	for (i = 0; i < a->nst; i++) {
		if (r->names.v[i].cls != cls || st[i].count == 0)
			continue;
		it[n].v = op_keyval(&st[i], key);
		it[n].s = r->names.v[i].s;
		it[n++].i = i;
	}
	xqsort(it, n, sizeof(*it), cmpitem);
	return n;
}

void
op_put_ops(struct oprank *r, struct jw *w, const struct agg *a, int cls)
{
	struct item *it;
	const struct stat *st = r->phase != PH_NONE ? a->pst : a->st;
	int64_t total;
	size_t i, n;

	/* Python frames belong to no phase. */
	if (r->phase != PH_NONE && cls == C_PY)
		return;
	it = xreallocarray(NULL, a->nst + 1, sizeof(*it));
	total = op_self_total(r, a);
	/* Python frames launch nothing themselves: rank them by total. */
	n = ranked(r, a, st, cls, cls == C_PY && r->key == K_GPU ? K_TOTAL :
	    r->key, it);
	if (r->limit > 0 && (size_t)r->limit < n)
		n = (size_t)r->limit;
	for (i = 0; i < n; i++) {
		const struct stat *s = &st[it[i].i];

		jw_record(w, "op");
		op_put_rank(w, a->rank);
		if (r->phase != PH_NONE) {
			jw_key(w, "phase");
			jw_cstring(w, op_phasename[r->phase]);
		}
		jw_key(w, "class");
		jw_cstring(w, op_clsname[cls]);
		jw_key(w, "place");
		jw_uint(w, i + 1);
		jw_key(w, "name");
		jw_cstring(w, it[i].s);
		jw_key(w, "family");
		jw_cstring(w, op_family_name(r, r->names.v[it[i].i].family));
		jw_key(w, "count");
		jw_int(w, s->count);
		jw_key(w, "total");
		jw_int(w, s->total);
		jw_key(w, "self");
		jw_int(w, shown(s->self));
		jw_key(w, "mean");
		jw_double(w, op_round3((double)s->total / (double)s->count));
		jw_key(w, "min");
		jw_int(w, s->min);
		jw_key(w, "max");
		jw_int(w, s->max);
		if (cls != C_PY) {
			jw_key(w, "self_pct");
			jw_double(w, pct(shown(s->self), total));
			jw_key(w, "total_pct");
			jw_double(w, pct(s->total, total));
		}
		if (cls != C_PY && a->gpu_events > 0) {
			jw_key(w, "gpu_self");
			jw_us(w, s->gpu_self);
			jw_key(w, "gpu_total");
			jw_us(w, s->gpu_total);
		}
		jw_end(w);
	}
	free(it);
}

static size_t
threads_ranked(const struct agg *a, struct item *it)
{
	struct strent **ent = strmap_sorted(&a->threads);
	size_t i;

	for (i = 0; i < a->threads.count; i++) {
		it[i].v = (double)((struct thsum *)ent[i]->val)->busy;
		it[i].s = ent[i]->key;
		it[i].i = (size_t)(uintptr_t)ent[i]->val;
	}
	free(ent);
	xqsort(it, a->threads.count, sizeof(*it), cmpitem);
	return a->threads.count;
}

void
op_put_thread(struct jw *w, const struct thsum *ts)
{
	op_put_jid(w, "pid", &ts->pid);
	op_put_jid(w, "tid", &ts->tid);
	if (ts->name != NULL) {
		jw_key(w, "name");
		jw_cstring(w, ts->name);
	}
	if (ts->threads > 0) {
		jw_key(w, "threads");
		jw_int(w, ts->threads);
		jw_key(w, "busiest");
		jw_int(w, ts->top);
	}
}

/*
 * A warning for each sum of names or threads that did not fit, which the
 * records after it show as one.  Names are not counted, as that would
 * take the memory the fold saves: their events are.
 */
/*
 * key_averages() gives an operator its total less its children's, call by
 * call; where children overlap or their fractional-µs times round apart,
 * that can add up to less than nothing.  The sums stay PyTorch's, and
 * their records show such a self time as 0, after one warning that names
 * the operators, most negative first.  Takes it, to reuse and free.
 */
static void
put_negself(struct oprank *r, struct jw *w, const struct agg *a,
    struct item *it, size_t cap)
{
	struct strbuf sb = { NULL, 0, 0 };
	size_t i, n = 0;

	for (i = 0; i < a->nst; i++) {
		if (a->st[i].self >= 0 || a->st[i].count == 0)
			continue;
		it = op_grow(it, &cap, n, sizeof(*it));
		it[n++] = (struct item){ (double)-a->st[i].self,
		    r->names.v[i].s, i };
	}
	if (n > 0) {
		xqsort(it, n, sizeof(*it), cmpitem);
		sb_printf(&sb, "%zu names have a negative self time, their"
		    " children adding up to more than their own time"
		    " (overlapping children, or fractional-µs timestamps"
		    " rounded apart); shown as 0:", n);
		for (i = 0; i < n && i < TOP_N; i++)
			sb_printf(&sb, "%s %s (%" PRId64 " µs)", i > 0 ? "," :
			    "", it[i].s, a->st[it[i].i].self);
		if (n > TOP_N)
			sb_printf(&sb, " and %zu more", n - TOP_N);
		op_put_warning(w, a->rank, sb.s);
	}
	sb_free(&sb);
	free(it);
}

void
op_put_folds(struct oprank *r, struct jw *w, const struct agg *a)
{
	const struct thsum *ts;
	struct strent *e;
	struct item *it = NULL;
	char msg[256];
	size_t i, n = 0, cap = 0;

	/* By name, as a merge of partials interns them in another order. */
	for (i = 0; i < a->nst; i++) {
		if (!op_folded(&r->names.v[i]) || a->st[i].count == 0)
			continue;
		it = op_grow(it, &cap, n, sizeof(*it));
		it[n++] = (struct item){ 0, r->names.v[i].s, i };
	}
	xqsort(it, n, sizeof(*it), cmpitem);
	for (i = 0; i < n; i++) {
		snprintf(msg, sizeof(msg), "%" PRId64 " events of names that"
		    " did not fit in MRP_OP_RANK_MEMORY are summed as %s;"
		    " a larger budget keeps their names", a->st[it[i].i].count,
		    it[i].s);
		op_put_warning(w, a->rank, msg);
	}
	put_negself(r, w, a, it, cap);
	if (a->overflowed > 0) {
		snprintf(msg, sizeof(msg), "%" PRId64 " call%s of costed"
		    " operators ha%s input shapes whose sizes, FLOPs or bytes"
		    " are past 64 bits: left uncosted", a->overflowed,
		    a->overflowed == 1 ? "" : "s", a->overflowed == 1 ? "s" :
		    "ve");
		op_put_warning(w, a->rank, msg);
	}
	if ((e = strmap_get(&a->threads, "-\n-", 3)) == NULL ||
	    (ts = e->val)->threads == 0)
		return;
	snprintf(msg, sizeof(msg), "%" PRId64 " threads that did not fit in"
	    " MRP_OP_RANK_MEMORY are summed as " FOLD_THREADS "; a larger"
	    " budget keeps them apart", ts->threads);
	op_put_warning(w, a->rank, msg);
}

void
op_put_threads(struct oprank *r, struct jw *w, const struct agg *a)
{
	struct item *it = xreallocarray(NULL, a->threads.count + 1,
	    sizeof(*it));
	size_t i, n;

	n = threads_ranked(a, it);
	if (r->limit > 0 && (size_t)r->limit < n)
		n = (size_t)r->limit;
	for (i = 0; i < n; i++) {
		const struct thsum *ts = (const struct thsum *)it[i].i;

		jw_record(w, "thread_total");
		op_put_rank(w, a->rank);
		op_put_thread(w, ts);
		opf_put_final(w, &op_thsum_fields, ts);
		jw_end(w);
	}
	free(it);
}

/*
 * CPU self time, event counts and launched GPU time by family, and the
 * families ranked by self time in it (table order breaks ties).
 */
static size_t
families(const struct oprank *r, const struct agg *a, int64_t *self,
    int64_t *count, int64_t *gpu, struct item *it)
{
	size_t i, f, nf = r->tab.nfam + 1, n = 0;

	for (f = 0; f < nf; f++)
		self[f] = count[f] = gpu[f] = 0;
	for (i = 0; i < a->nst; i++) {
		const struct name *nm = &r->names.v[i];

		if ((nm->cls != C_OP && nm->cls != C_ANN && nm->cls != C_RT) ||
		    a->st[i].count == 0)
			continue;
		self[nm->family] = op_sat_add(self[nm->family], a->st[i].self);
		count[nm->family] = op_sat_add(count[nm->family],
		    a->st[i].count);
		gpu[nm->family] = op_sat_add(gpu[nm->family],
		    a->st[i].gpu_self);
	}
	for (f = 0; f < nf; f++) {
		if (count[f] == 0)
			continue;
		it[n].v = (double)self[f];
		it[n].s = "";
		it[n++].i = f;
	}
	/* Equal self times keep table order: the sort is not stable. */
	for (i = 1; i < n; i++) {
		struct item x = it[i];
		size_t j = i;

		for (; j > 0 && it[j - 1].v < x.v; j--)
			it[j] = it[j - 1];
		it[j] = x;
	}
	return n;
}

void
op_put_families(struct oprank *r, struct jw *w, const struct agg *a)
{
	size_t nf = r->tab.nfam + 1, i, n;
	int64_t *self = xreallocarray(NULL, 3 * nf, sizeof(*self));
	int64_t *count = self + nf, *gpu = self + 2 * nf;
	struct item *it = xreallocarray(NULL, nf, sizeof(*it));
	int64_t total = op_self_total(r, a);

	n = families(r, a, self, count, gpu, it);
	for (i = 0; i < n; i++) {
		jw_record(w, "family_total");
		op_put_rank(w, a->rank);
		jw_key(w, "family");
		jw_cstring(w, op_family_name(r, (int)it[i].i));
		jw_key(w, "count");
		jw_int(w, count[it[i].i]);
		jw_key(w, "self");
		jw_int(w, shown(self[it[i].i]));
		jw_key(w, "self_pct");
		jw_double(w, pct(shown(self[it[i].i]), total));
		if (a->gpu_events > 0) {
			jw_key(w, "gpu_self");
			jw_us(w, gpu[it[i].i]);
		}
		jw_end(w);
	}
	free(self);
	free(it);
}

void
op_put_phases(struct jw *w, const struct agg *a)
{
	int p;

	for (p = 0; p < NPHASE; p++) {
		jw_record(w, "phase_total");
		op_put_rank(w, a->rank);
		jw_key(w, "phase");
		jw_cstring(w, op_phasename[p]);
		jw_key(w, "self");
		jw_int(w, shown(a->ph_self[p]));
		if (a->gpu_events > 0) {
			jw_key(w, "gpu");
			jw_us(w, a->ph_gpu[p]);
		}
		jw_end(w);
	}
}

/* A step_stats record's members after its kind and rank. */
void
op_put_sstat(struct jw *w, const struct sstat *s)
{
	jw_key(w, "steps");
	jw_uint(w, s->n);
	jw_key(w, "total");
	jw_us(w, s->total);
	jw_key(w, "mean");
	jw_double(w, op_round3(s->mean / 1000));
	jw_key(w, "min");
	jw_us(w, s->min);
	jw_key(w, "max");
	jw_us(w, s->max);
	jw_key(w, "std");
	jw_double(w, op_round3(s->std / 1000));
	jw_key(w, "median");
	jw_double(w, op_round3((double)s->med2 / 2000));
	jw_key(w, "above_median");
	jw_double(w, op_round3((double)s->above / 2000));
	jw_key(w, "slowest_step");
	jw_int(w, s->slowest);
}

/* The step records, and with stats set the step_stats record. */
void
op_put_steps(struct jw *w, struct agg *a, int stats)
{
	struct spillcur c;
	const struct step *s;
	struct sstat ss;
	struct durs d;
	char name[48];

	if (a->nsteps == 0)
		return;
	if (stats)
		op_durs_init(&d, a->pool);
	op_steps_open(&c, a);
	while ((s = spill_next(&c)) != NULL) {
		jw_record(w, "step");
		op_put_rank(w, a->rank);
		snprintf(name, sizeof(name), "ProfilerStep#%" PRId64, s->num);
		jw_key(w, "name");
		jw_cstring(w, name);
		jw_key(w, "step");
		jw_int(w, s->num);
		jw_key(w, "ts");
		jw_us(w, s->ts - a->origin);
		jw_key(w, "cpu_dur");
		jw_us(w, s->cpu_end - s->ts);
		jw_key(w, "dur");
		jw_us(w, s->end - s->ts);
		if (s->flops > 0) {
			jw_key(w, "flops");
			jw_double(w, s->flops);
		}
		jw_end(w);
		if (stats)
			op_durs_add(&d, s->num, s->end - s->ts);
	}
	spillcur_free(&c);
	if (!stats)
		return;
	op_step_stats(&d, &ss);
	op_durs_free(&d);
	jw_record(w, "step_stats");
	op_put_rank(w, a->rank);
	op_put_sstat(w, &ss);
	jw_end(w);
}

void
op_put_kernels(struct oprank *r, struct jw *w, const struct agg *a)
{
	struct item *it = xreallocarray(NULL, a->nst + 1, sizeof(*it));
	const struct stat *st = r->phase != PH_NONE ? a->pst : a->st;
	enum key key = r->key == K_SELF || r->key == K_GPU ? K_TOTAL : r->key;
	int64_t total = 0;
	size_t i, n;

	/* pct stays a share of all GPU event time, in a phase or not. */
	for (i = 0; i < a->nst; i++)
		if (r->names.v[i].cls == C_GPU)
			total = op_sat_add(total, a->st[i].total);
	n = ranked(r, a, st, C_GPU, key, it);
	if (r->limit > 0 && (size_t)r->limit < n)
		n = (size_t)r->limit;
	for (i = 0; i < n; i++) {
		const struct stat *s = &st[it[i].i];
		const char *fam = op_family_name(r,
		    r->names.v[it[i].i].family);

		jw_record(w, "kernel");
		op_put_rank(w, a->rank);
		if (r->phase != PH_NONE) {
			jw_key(w, "phase");
			jw_cstring(w, op_phasename[r->phase]);
		}
		jw_key(w, "place");
		jw_uint(w, i + 1);
		jw_key(w, "name");
		jw_cstring(w, it[i].s);
		jw_key(w, "family");
		jw_cstring(w, fam);
		jw_key(w, "count");
		jw_int(w, s->count);
		jw_key(w, "total");
		jw_us(w, s->total);
		jw_key(w, "mean");
		jw_double(w, op_round3((double)s->total / (double)s->count /
		    1000));
		jw_key(w, "min");
		jw_us(w, s->min);
		jw_key(w, "max");
		jw_us(w, s->max);
		jw_key(w, "pct");
		jw_double(w, pct(s->total, total));
		/* In a phase, st holds the calls of every phase. */
		if (r->phase == PH_NONE && s->bytes > 0) {
			jw_key(w, "bytes");
			jw_int(w, s->bytes);
		}
		jw_end(w);
	}
	free(it);
}

/*
 * GEMM and convolution kernel time by the precision their names give,
 * over every kernel, whatever -n and -p say.
 */
void
op_put_precision(struct oprank *r, struct jw *w, const struct agg *a)
{
	int64_t count[NPREC + 1], time[NPREC + 1], all = 0;
	size_t i;

	memset(count, 0, sizeof(count));
	memset(time, 0, sizeof(time));
	for (i = 0; i < a->nst; i++) {
		const struct name *nm = &r->names.v[i];

		if (nm->cls != C_GPU || !nm->mm || a->st[i].count == 0)
			continue;
		count[nm->prec] = op_sat_add(count[nm->prec], a->st[i].count);
		time[nm->prec] = op_sat_add(time[nm->prec], a->st[i].total);
		all = op_sat_add(all, a->st[i].total);
	}
	for (i = 0; i <= NPREC; i++) {
		if (count[i] == 0)
			continue;
		jw_record(w, "gemm_precision");
		op_put_rank(w, a->rank);
		jw_key(w, "precision");
		jw_cstring(w, i < NPREC ? op_precname[i] : "unknown");
		jw_key(w, "kernels");
		jw_int(w, count[i]);
		jw_key(w, "gpu_time");
		jw_us(w, time[i]);
		jw_key(w, "share");
		jw_double(w, all != 0 ? round((double)time[i] * 10000 /
		    (double)all) / 10000 : 0);
		jw_end(w);
	}
}

void
op_put_devs(struct jw *w, const struct agg *a)
{
	struct strent **ent = strmap_sorted(&a->devs);
	size_t i;

	for (i = 0; i < a->devs.count; i++) {
		const struct devsum *d = ent[i]->val;

		jw_record(w, "gpu_timeline");
		op_put_rank(w, a->rank);
		op_put_jid(w, "device", &d->dev);
		opf_put_final(w, &op_devsum_fields, d);
		jw_end(w);
	}
	free(ent);
}

static int
cmprtcall(const void *a, const void *b)
{
	const struct strent *x = *(struct strent *const *)a;
	const struct strent *y = *(struct strent *const *)b;
	const struct rtsum *p = x->val, *q = y->val;

	if (p->total != q->total)
		return p->total > q->total ? -1 : 1;
	return strcmp(x->key, y->key);
}

/* By slice, then the most time first. */
static int
cmpcaller(const void *a, const void *b)
{
	const struct strent *x = *(struct strent *const *)a;
	const struct strent *y = *(struct strent *const *)b;
	const struct rtsum *p = x->val, *q = y->val;
	int c;

	if ((c = strcmp(x->key, y->key)) != 0)
		return c;
	if (p->total != q->total)
		return p->total > q->total ? -1 : 1;
	if (x->len != y->len)
		return x->len < y->len ? -1 : 1;
	return memcmp(x->key, y->key, x->len);
}

/*
 * runtime_caller records: of each slice whose calls' callers are kept,
 * the operators (or Python frames) that issued the most of its time.
 */
static void
put_callers(struct jw *w, const struct agg *a)
{
	struct strent **ent = strmap_sorted(&a->callers);
	const char *slice, *cls, *name, *prev = NULL;
	size_t i, namelen, n = 0;

	xqsort(ent, a->callers.count, sizeof(*ent), cmpcaller);
	for (i = 0; i < a->callers.count; i++) {
		const struct rtsum *rs = ent[i]->val;

		op_caller_split(ent[i], &slice, &cls, &name, &namelen);
		if (prev == NULL || strcmp(prev, slice) != 0)
			n = 0;
		prev = slice;
		if (n++ >= TOP_CALLERS)
			continue;
		jw_record(w, "runtime_caller");
		op_put_rank(w, a->rank);
		jw_key(w, "slice");
		jw_cstring(w, slice);
		jw_key(w, "class");
		jw_cstring_or_null(w, *cls != '\0' ? cls : NULL);
		jw_key(w, "caller");
		if (*cls != '\0')
			jw_string(w, name, namelen);
		else
			jw_null(w);
		jw_key(w, "count");
		jw_int(w, rs->count);
		jw_key(w, "total");
		jw_us(w, rs->total);
		jw_end(w);
	}
	free(ent);
}

/*
 * runtime_total, then the runtime calls with the most time by name, each
 * with the ledger slice its name puts it in: which synchronise, copy or
 * allocator call holds the time the ledger gives those slices.
 */
void
op_put_runtime(struct oprank *r, struct jw *w, const struct agg *a)
{
	struct strent **ent;
	struct strbuf sb = { NULL, 0, 0 };
	size_t i;

	if (a->rt_count == 0)
		return;
	jw_record(w, "runtime_total");
	op_put_rank(w, a->rank);
	jw_key(w, "count");
	jw_int(w, a->rt_count);
	jw_key(w, "total");
	jw_us(w, a->rt_total);
	jw_key(w, "launch_count");
	jw_int(w, a->launch_count);
	jw_key(w, "launch");
	jw_us(w, a->launch);
	jw_key(w, "sync_count");
	jw_int(w, a->sync_count);
	jw_key(w, "sync");
	jw_us(w, a->sync);
	jw_end(w);
	ent = strmap_sorted(&a->rtcalls);
	xqsort(ent, a->rtcalls.count, sizeof(*ent), cmprtcall);
	for (i = 0; i < a->rtcalls.count && i < TOP_RT; i++) {
		const struct rtsum *rs = ent[i]->val;

		jw_record(w, "runtime_call");
		op_put_rank(w, a->rank);
		jw_key(w, "name");
		jw_string(w, ent[i]->key, ent[i]->len);
		jw_key(w, "slice");
		jw_cstring(w, op_lslice_name(r,
		    op_lslice_runtime(ent[i]->key, 0), &sb));
		opf_put_final(w, &op_rtsum_fields, rs);
		jw_end(w);
	}
	free(ent);
	sb_free(&sb);
	put_callers(w, a);
	op_put_issuers(r, w, a);
}

/* nranks > 1 for the summary across ranks, which carries no rank. */
void
op_put_summary(struct oprank *r, struct jw *w, const struct agg *a,
    size_t nranks)
{
	size_t nf = r->tab.nfam + 1, n, i, m;
	int64_t *self = xreallocarray(NULL, 3 * nf, sizeof(*self));
	int64_t *count = self + nf, *gpu = self + 2 * nf, kt = 0;
	struct item *it = xreallocarray(NULL, (a->nst > nf ? a->nst : nf) +
	    a->threads.count + 1, sizeof(*it));

	jw_record(w, "cpu_summary");
	if (nranks > 1) {
		jw_key(w, "ranks");
		jw_uint(w, nranks);
		if (r->ranks[op_primary(r)]->rank >= 0) {
			jw_key(w, "slowest_rank");
			jw_int(w, r->ranks[op_primary(r)]->rank);
			jw_key(w, "slowest_by");
			jw_cstring(w, op_late_rank(r) != SIZE_MAX ?
			    "collectives" : "mean_step");
		}
	} else
		op_put_rank(w, a->rank);
	jw_key(w, "traces");
	jw_int(w, a->traces);
	if (a->nsys_exports > 0) {
		jw_key(w, "nsys_exports");
		jw_int(w, a->nsys_exports);
	}
	jw_key(w, "events");
	jw_int(w, a->cpu_events);
	if (a->have_time) {
		jw_key(w, "start");
		jw_us(w, a->start - a->origin);
		jw_key(w, "end");
		jw_us(w, a->end - a->origin);
		jw_key(w, "window");
		jw_us(w, a->end - a->start);
	}
	jw_key(w, "self_total");
	jw_int(w, op_self_total(r, a));

	jw_key(w, "top_ops");
	jw_begin_array(w);
	n = ranked(r, a, a->st, C_OP, r->key, it);
	for (i = 0; i < n && i < TOP_N; i++) {
		jw_begin_object(w);
		jw_key(w, "name");
		jw_cstring(w, it[i].s);
		jw_key(w, "total");
		jw_int(w, a->st[it[i].i].total);
		jw_key(w, "self");
		jw_int(w, a->st[it[i].i].self);
		jw_end_object(w);
	}
	jw_end_array(w);

	jw_key(w, "top_threads");
	jw_begin_array(w);
	n = threads_ranked(a, it);
	for (i = 0; i < n && i < TOP_N; i++) {
		const struct thsum *ts = (const struct thsum *)it[i].i;

		jw_begin_object(w);
		op_put_thread(w, ts);
		jw_key(w, "busy");
		jw_int(w, ts->busy);
		jw_end_object(w);
	}
	jw_end_array(w);

	n = families(r, a, self, count, gpu, it);
	jw_key(w, "families");
	jw_begin_object(w);
	for (i = 0; i < n; i++) {
		jw_ckey(w, op_family_name(r, (int)it[i].i));
		jw_int(w, self[it[i].i]);
	}
	jw_end_object(w);
	if (n > 0) {
		jw_key(w, "dominant_family");
		jw_cstring(w, op_family_name(r, (int)it[0].i));
	}
	if (a->gpu_events > 0) {
		for (m = 0; m < a->nst; m++)
			if (r->names.v[m].cls == C_GPU)
				kt = op_sat_add(kt, a->st[m].total);
		jw_key(w, "gpu_events");
		jw_int(w, a->gpu_events);
		jw_key(w, "gpu_total");
		jw_us(w, kt);
	}
	jw_end(w);
	free(self);
	free(it);
}
