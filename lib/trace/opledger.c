/*
 * opledger: the time ledger.  Each window of a rank (a step, or without
 * steps the whole trace) is cut into slices that add up to its wall time
 * exactly: the GPU busy by what its kernels are, and while no GPU is
 * busy, what the host was doing.  The events' ends go to one spill in
 * time order; a sweep gives each instant to the first slice open then.
 */
#include <inttypes.h>
#include <stdlib.h>
#include <string.h>

#include "base/err.h"
#include "base/xalloc.h"
#include "trace/opcore.h"

#define WARMUP_CALL	(1000 * 1000)	/* ns */

static const char *const fixed[L_FAMILY] = {
	"gpu_gemm", "gpu_conv", "gpu_attention", "gpu_other", "gpu_memset",
	"gpu_comm", "gpu_memcpy", "warm_up", "profiler", "sync", "blocking_copy",
	"allocator", "launch", "runtime_other", "data_loading", "optimizer"
};

/* A window to cut: its step (-1: none) and bounds in the trace's time. */
struct cut {
	int64_t		 num, start, end;
	int		 inferred;	/* B_*; B_NONE: a step or the trace */
};

const char *const op_boundname[NBOUND] = {
	"DataLoader.__next__", "Optimizer.step", "outermost nn.Module"
};

/*
 * The kind of iteration boundary a record_function label is: PyTorch's
 * "enumerate(DataLoader)#_SingleProcessDataLoaderIter.__next__" (or
 * _MultiProcessing...) and "Optimizer.step#SGD.step".
 */
int
op_bound_of(const char *s)
{
	size_t n = strlen(s);

	if (op_prefix(s, "enumerate(DataLoader)#") && n >= 8 &&
	    strcmp(s + n - 8, "__next__") == 0)
		return B_DATA;
	if (op_prefix(s, "Optimizer.step#"))
		return B_OPT;
	return B_NONE;
}

int
op_cmpbound(const void *a, const void *b)
{
	const struct bound *x = a, *y = b;

	if (x->kind != y->kind)
		return x->kind < y->kind ? -1 : 1;
	if (x->ts != y->ts)
		return x->ts < y->ts ? -1 : 1;
	if (x->thr != y->thr)
		return x->thr < y->thr ? -1 : 1;
	return (x->name > y->name) - (x->name < y->name);
}

size_t
op_lslices(const struct oprank *r)
{
	return L_FAMILY + r->tab.nfam + 1 + 2;
}

/* Python outside any operator, then nothing traced: the last two. */
static uint32_t
slice_py(const struct oprank *r)
{
	return (uint32_t)(op_lslices(r) - 2);
}

static uint32_t
slice_none(const struct oprank *r)
{
	return (uint32_t)(op_lslices(r) - 1);
}

const char *
op_lslice_name(const struct oprank *r, uint32_t s, struct strbuf *sb)
{
	if (s < L_FAMILY)
		return fixed[s];
	if (s == slice_py(r))
		return "python";
	if (s == slice_none(r))
		return "untraced";
	sb_truncate(sb, 0);
	sb_puts(sb, "cpu:");
	sb_puts(sb, op_family_name(r, (int)(s - L_FAMILY)));
	return sb->s;
}

int
op_lslice_of(const struct oprank *r, const char *name, uint32_t *s)
{
	struct strbuf sb = { NULL, 0, 0 };
	size_t i, n = op_lslices(r);

	for (i = 0; i < n; i++)
		if (strcmp(op_lslice_name(r, (uint32_t)i, &sb), name) == 0)
			break;
	sb_free(&sb);
	*s = (uint32_t)i;
	return i < n ? 0 : -1;
}

int
op_cmpledge(const void *a, const void *b)
{
	const struct ledge *x = a, *y = b;

	if (x->t != y->t)
		return x->t < y->t ? -1 : 1;
	if (x->slice != y->slice)
		return x->slice < y->slice ? -1 : 1;
	return (x->delta > y->delta) - (x->delta < y->delta);
}

void
op_ledge(struct trace *t, uint32_t slice, int64_t ts, int64_t end)
{
	if (end <= ts)
		return;
	spill_add(&t->ledges, &(struct ledge){ ts, slice, 1 });
	spill_add(&t->ledges, &(struct ledge){ end, slice, -1 });
}

uint32_t
op_lslice_kernel(const struct oprank *r, uint32_t name, int memset)
{
	const struct name *n = &r->names.v[name];

	if (n->gcls == G_COMM)
		return L_COMM;
	if (n->gcls == G_MEMCPY)
		return L_MEMCPY;
	if (memset || n->family == r->names.fammemset)
		return L_MEMSET;
	if (n->family == r->names.famgemm)
		return L_GEMM;
	if (n->family == r->names.famconv)
		return L_CONV;
	if (n->family == r->names.famattn)
		return L_ATTN;
	return L_KERNEL;
}

static int
any_of(const char *s, const char *const *v)
{
	for (; *v != NULL; v++)
		if (strcmp(s, *v) == 0)
			return 1;
	return 0;
}

/*
 * A runtime call's slice by its name, CUDA's and HIP's alike: what waits
 * for the device, copies that block the host, the allocator's calls, and
 * launches.  A launch or other call takes microseconds; one that takes
 * WARMUP_CALL or more is setting up on first use: creating the context,
 * loading or compiling the kernel's module.  An asynchronous copy that
 * holds the host while no GPU work runs blocks it all the same (pageable
 * memory).
 */
uint32_t
op_lslice_runtime(const char *s, int64_t dur)
{
	static const char *const sync[] = {
		"cudaDeviceSynchronize", "cudaStreamSynchronize",
		"cudaEventSynchronize", "hipDeviceSynchronize",
		"hipStreamSynchronize", "hipEventSynchronize",
		"cuCtxSynchronize", "cuStreamSynchronize",
		"cuEventSynchronize", NULL
	};
	static const char *const copy[] = {
		"cudaMemcpy", "cudaMemcpy2D", "cudaMemcpyToSymbol",
		"cudaMemcpyFromSymbol", "hipMemcpy", "hipMemcpyWithStream",
		"hipMemcpy2D", "cuMemcpyDtoH_v2", "cuMemcpyHtoD_v2",
		"cudaMemset", "hipMemset", "cudaMemcpyAsync", "hipMemcpyAsync",
		"cuMemcpyAsync", "cuMemcpyHtoDAsync_v2", "cuMemcpyDtoHAsync_v2",
		NULL
	};
	static const char *const alloc[] = {
		"cudaMalloc", "cudaFree", "cudaMallocHost", "cudaFreeHost",
		"cudaHostAlloc", "cudaMallocManaged", "cudaMallocAsync",
		"cudaFreeAsync", "hipMalloc", "hipFree", "hipHostMalloc",
		"hipHostFree", "hipMallocManaged", "hipMallocAsync",
		"hipFreeAsync", "hipExtMallocWithFlags", "cuMemAlloc_v2",
		"cuMemFree_v2", "cuMemCreate", "cuMemMap", "cuMemUnmap",
		"cuMemRelease", "cuMemAddressReserve", "cuMemAddressFree",
		"cuMemSetAccess", "hipMemCreate", "hipMemMap", "hipMemUnmap",
		"hipMemRelease", NULL
	};

	if (any_of(s, sync))
		return L_SYNC;
	if (any_of(s, copy))
		return L_COPY;
	if (any_of(s, alloc))
		return L_ALLOC;
	if (dur >= WARMUP_CALL)
		return L_WARMUP;
	return strstr(s, "Launch") != NULL ? L_LAUNCH : L_RUNTIME;
}

/*
 * CUPTI's overhead records (Kineto's "overhead" events, named by
 * overheadKindString()): loading a module or compiling a kernel on first
 * use is warm-up; the rest (buffer requests and flushes, instrumentation)
 * is the profiler's own time, which an unprofiled run does not pay.
 */
uint32_t
op_lslice_overhead(const char *s)
{
	static const char *const first_use[] = {
		"Driver Compiler", "Runtime Triggered Module Loading",
		"Lazy Function Loading", NULL
	};

	return any_of(s, first_use) ? L_WARMUP : L_PROFILER;
}

/* An operator or annotation that marks data loading or the optimizer. */
uint32_t
op_lslice_mark(const struct oprank *r, uint32_t name)
{
	switch (r->names.v[name].mark) {
	case PH_DATA:
		return L_DATA;
	case PH_OPT:
		return L_OPT;
	default:
		return UINT32_MAX;
	}
}

uint32_t
op_lslice_op(const struct oprank *r, uint32_t name)
{
	return L_FAMILY + (uint32_t)r->names.v[name].family;
}

uint32_t
op_lslice_py(const struct oprank *r)
{
	return slice_py(r);
}

/* The window's slices, the nonzero ones in slice order, into a's ledger. */
static void
flush(struct agg *a, const struct cut *c, int64_t *acc, size_t n)
{
	struct lwin *lw;
	size_t i;

	a->lw = op_grow(a->lw, &a->caplw, a->nlw, sizeof(*a->lw));
	lw = &a->lw[a->nlw++];
	lw->num = c->num;
	lw->inferred = c->inferred;
	lw->start = c->start;
	lw->wall = c->end - c->start;
	lw->off = a->nls;
	lw->n = 0;
	for (i = 0; i < n; i++) {
		if (acc[i] == 0)
			continue;
		a->ls = op_grow(a->ls, &a->capls, a->nls, sizeof(*a->ls));
		a->ls[a->nls].slice = (uint32_t)i;
		a->ls[a->nls++].ns = acc[i];
		lw->n++;
		acc[i] = 0;
	}
}

/* A module call's key among the outermost ones: its thread and name. */
struct modkey {
	uint64_t	thr;
	uint32_t	name;
};

/*
 * Of the outermost module calls, the thread and module that hold the most
 * time in two or more calls (ties: the first key): the model that a loop
 * calls once an iteration.  0 when none is called twice.
 */
static int
busiest_module(struct trace *t, struct modkey *best)
{
	struct strmap calls = { 0 };
	struct spillcur bc;
	const struct bound *b;
	struct strent **ent, *e;
	struct modkey k;
	int64_t *sum, top = -1;
	size_t i;

	spill_open(&bc, &t->bounds);
	while ((b = spill_next(&bc)) != NULL) {
		if (b->kind != B_MOD)
			continue;
		memset(&k, 0, sizeof(k));
		k.thr = b->thr;
		k.name = b->name;
		e = strmap_put(&calls, (const char *)&k, sizeof(k));
		if (e->val == NULL)
			e->val = xcalloc(1, sizeof(int64_t));
		e->n++;
		sum = e->val;
		*sum = op_sat_add(*sum, b->dur);
	}
	spillcur_free(&bc);
	ent = strmap_sorted(&calls);
	for (i = 0; i < calls.count; i++)
		if (ent[i]->n >= 2 && *(int64_t *)ent[i]->val > top) {
			top = *(int64_t *)ent[i]->val;
			memcpy(best, ent[i]->key, sizeof(*best));
		}
	free(ent);
	strmap_free(&calls, free);
	return top >= 0;
}

/*
 * Without steps, iterations from one boundary call's start to the next's,
 * of the first kind with two or more: the time before the first and after
 * the last is no whole iteration.  How many; none, 0.
 */
static size_t
iterations(struct trace *t, struct cut **w)
{
	struct spillcur bc;
	const struct bound *b;
	struct modkey mod = { 0, 0 };
	int64_t prev = INT64_MIN;
	size_t m = 0;
	int k;

	for (k = 0; k < NBOUND && (t->nbound[k] < 2 ||
	    (k == B_MOD && !busiest_module(t, &mod))); k++)
		;
	if (k == NBOUND)
		return 0;
	*w = xreallocarray(*w, t->nbound[k], sizeof(**w));
	spill_open(&bc, &t->bounds);
	while ((b = spill_next(&bc)) != NULL) {
		if (b->kind != k || (k == B_MOD && (b->thr != mod.thr ||
		    b->name != mod.name)))
			continue;
		if (prev != INT64_MIN && b->ts > prev) {
			(*w)[m] = (struct cut){ (int64_t)m, prev, b->ts, k };
			m++;
		}
		prev = b->ts;
	}
	spillcur_free(&bc);
	return m;
}

/*
 * The windows: each step from its start to its end (the last GPU work it
 * launched), cut short where the next step starts so that no instant is
 * counted twice; without steps, inferred iterations, else the trace's
 * window.
 */
static struct cut *
windows(struct trace *t, int timed, int64_t start, int64_t end,
    size_t *n)
{
	const struct agg *a = &t->a;
	struct cut *w;
	int64_t lo = INT64_MIN, e;
	size_t i, m = 0;

	w = xreallocarray(NULL, a->nsteps + 1, sizeof(*w));
	if (a->nsteps == 0 && (m = iterations(t, &w)) > 0) {
		*n = m;
		return w;
	}
	for (i = 0; i < a->nsteps; i++) {
		e = a->steps[i].end > a->steps[i].cpu_end ? a->steps[i].end :
		    a->steps[i].cpu_end;
		if (i + 1 < a->nsteps && a->steps[i + 1].ts < e)
			e = a->steps[i + 1].ts;
		w[m].num = a->steps[i].num;
		w[m].inferred = B_NONE;
		w[m].start = a->steps[i].ts > lo ? a->steps[i].ts : lo;
		w[m].end = e;
		if (w[m].end > w[m].start) {
			lo = w[m].end;
			m++;
		}
	}
	if (a->nsteps == 0 && timed) {
		w[0] = (struct cut){ -1, start, end, B_NONE };
		m = end > start;
	}
	*n = m;
	return w;
}

/*
 * Sweeps the trace's ledger edges.  The instant [from, to) goes to the
 * first slice open, or to nothing traced; the windows it crosses take
 * their share, and a window is written once the sweep is past it.
 */
struct sweep {
	struct agg	*a;
	struct cut	*w;
	size_t		 nw, k, n;
	int64_t		*acc;
};

static void
give(struct sweep *sw, int64_t from, int64_t to, uint32_t s)
{
	int64_t lo, hi;

	while (sw->k < sw->nw) {
		struct cut *c = &sw->w[sw->k];

		lo = from > c->start ? from : c->start;
		hi = to < c->end ? to : c->end;
		if (lo < hi)
			sw->acc[s] += hi - lo;
		if (to < c->end)
			break;
		flush(sw->a, c, sw->acc, sw->n);
		sw->k++;
	}
}

/* The first slice open, or nothing traced. */
static uint32_t
first_open(const uint64_t *bits, size_t nwords, uint32_t none)
{
	size_t i;

	for (i = 0; i < nwords; i++)
		if (bits[i] != 0)
			return (uint32_t)(i * 64 + (size_t)__builtin_ctzll(bits[i]));
	return none;
}

void
op_ledger(struct oprank *r, int timed, int64_t start, int64_t end)
{
	struct trace *t = &r->t;
	struct spillcur ec;
	const struct ledge *e;
	struct sweep sw;
	int32_t *open;
	uint64_t *bits;
	size_t nwords;
	int64_t prev = INT64_MIN;
	uint32_t cur, none = slice_none(r);
	int spans;

	sw.a = &t->a;
	sw.n = op_lslices(r);
	sw.w = windows(t, timed, start, end, &sw.nw);
	sw.k = 0;
	/* Else without a window of its own, the trace spans its events. */
	if ((spans = t->a.nsteps == 0 && !timed && (sw.nw == 0 ||
	    sw.w[0].inferred == B_NONE))) {
		sw.w[0] = (struct cut){ -1, INT64_MAX, INT64_MAX, B_NONE };
		sw.nw = 1;
	}
	sw.acc = xcalloc(sw.n, sizeof(*sw.acc));
	open = xcalloc(sw.n, sizeof(*open));
	nwords = (sw.n + 63) / 64;
	bits = xcalloc(nwords, sizeof(*bits));
	cur = none;
	spill_open(&ec, &t->ledges);
	while ((e = spill_next(&ec)) != NULL) {
		if (prev == INT64_MIN && spans)
			sw.w[0].start = e->t;
		if (e->t > prev)
			give(&sw, prev, e->t, cur);
		prev = e->t;
		open[e->slice] += e->delta;
		if (open[e->slice] > 0)
			bits[e->slice / 64] |= (uint64_t)1 << (e->slice % 64);
		else
			bits[e->slice / 64] &= ~((uint64_t)1 << (e->slice % 64));
		cur = first_open(bits, nwords, none);
	}
	spillcur_free(&ec);
	if (spans) {
		sw.w[0].end = prev;
		if (prev == INT64_MIN || sw.w[0].end <= sw.w[0].start)
			sw.nw = 0;
	}
	give(&sw, prev, INT64_MAX, none);
	free(bits);
	free(open);
	free(sw.acc);
	free(sw.w);
}

/* Windows from several traces of a rank come in start order. */
static int
cmplwin(const void *a, const void *b)
{
	const struct lwin *x = a, *y = b;

	if (x->start != y->start)
		return x->start < y->start ? -1 : 1;
	return (x->num > y->num) - (x->num < y->num);
}

void
op_ledger_merge(struct agg *dst, const struct agg *src)
{
	struct lwin *lw;
	size_t i, j;

	for (i = 0; i < src->nlw; i++) {
		dst->lw = op_grow(dst->lw, &dst->caplw, dst->nlw,
		    sizeof(*dst->lw));
		lw = &dst->lw[dst->nlw++];
		*lw = src->lw[i];
		lw->off = dst->nls;
		for (j = 0; j < lw->n; j++) {
			dst->ls = op_grow(dst->ls, &dst->capls, dst->nls,
			    sizeof(*dst->ls));
			dst->ls[dst->nls++] = src->ls[src->lw[i].off + j];
		}
	}
}

/* A window's slices by time, longest first, then in slice order. */
static int
cmplslice(const void *a, const void *b)
{
	const struct lslice *x = a, *y = b;

	if (x->ns != y->ns)
		return x->ns > y->ns ? -1 : 1;
	return (x->slice > y->slice) - (x->slice < y->slice);
}

static double
share(int64_t part, int64_t whole)
{
	return whole > 0 ? op_round3(100.0 * (double)part / (double)whole) : 0;
}

/*
 * A window's or the windows' wall time and slices, v sorted by time; and
 * where the rank has GPU work, the GPU's busy time over the same wall.
 */
static void
put_slices(struct oprank *r, struct jw *w, const struct agg *a,
    const struct lslice *v, size_t n, int64_t wall)
{
	struct strbuf sb = { NULL, 0, 0 };
	int64_t busy = 0;
	size_t j;

	jw_key(w, "wall");
	jw_us(w, wall);
	if (a->gpu_events > 0) {
		for (j = 0; j < n; j++)
			if (v[j].slice < L_GPU_END)
				busy += v[j].ns;
		jw_key(w, "gpu_busy");
		jw_us(w, busy);
		jw_key(w, "gpu_idle");
		jw_us(w, wall - busy);
		jw_key(w, "gpu_util");
		jw_double(w, share(busy, wall));
	}
	jw_key(w, "slices");
	jw_begin_array(w);
	for (j = 0; j < n; j++) {
		jw_begin_object(w);
		jw_key(w, "slice");
		jw_cstring(w, op_lslice_name(r, v[j].slice, &sb));
		jw_key(w, "time");
		jw_us(w, v[j].ns);
		jw_key(w, "pct");
		jw_double(w, share(v[j].ns, wall));
		jw_end_object(w);
	}
	jw_end_array(w);
	sb_free(&sb);
}

static const char *
window_name(const struct lwin *lw)
{
	return lw->num < 0 ? "trace" : lw->inferred != B_NONE ? "iteration" :
	    "step";
}

/* What the window is; an iteration says what it was inferred from. */
static void
put_window(struct jw *w, const struct lwin *lw)
{
	jw_key(w, "window");
	jw_cstring(w, window_name(lw));
	if (lw->inferred != B_NONE) {
		jw_key(w, "inferred_from");
		jw_cstring(w, op_boundname[lw->inferred]);
	}
}

/*
 * The ledger records, one per window of the rank, then their sum in a
 * ledger_total record.
 */
void
op_put_ledger(struct oprank *r, struct jw *w, const struct agg *a)
{
	struct lslice *v, *tot;
	size_t i, j, n = op_lslices(r), ntot;
	int64_t wall = 0;

	if (a->nlw == 0)
		return;
	v = xreallocarray(NULL, n, sizeof(*v));
	tot = xreallocarray(NULL, n, sizeof(*tot));
	for (j = 0; j < n; j++)
		tot[j] = (struct lslice){ (uint32_t)j, 0 };
	xqsort(a->lw, a->nlw, sizeof(*a->lw), cmplwin);
	for (i = 0; i < a->nlw; i++) {
		const struct lwin *lw = &a->lw[i];

		memcpy(v, a->ls + lw->off, lw->n * sizeof(*v));
		for (j = 0; j < lw->n; j++)
			tot[v[j].slice].ns = op_sat_add(tot[v[j].slice].ns,
			    v[j].ns);
		wall = op_sat_add(wall, lw->wall);
		xqsort(v, lw->n, sizeof(*v), cmplslice);
		jw_record(w, "ledger");
		op_put_rank(w, a->rank);
		put_window(w, lw);
		if (lw->num >= 0) {
			jw_ckey(w, window_name(lw));
			jw_int(w, lw->num);
		}
		jw_key(w, "ts");
		jw_us(w, lw->start - a->origin);
		put_slices(r, w, a, v, lw->n, lw->wall);
		jw_end(w);
	}
	xqsort(tot, n, sizeof(*tot), cmplslice);
	for (ntot = 0; ntot < n && tot[ntot].ns > 0; ntot++)
		;
	jw_record(w, "ledger_total");
	op_put_rank(w, a->rank);
	jw_key(w, "windows");
	jw_uint(w, a->nlw);
	put_window(w, &a->lw[0]);
	put_slices(r, w, a, tot, ntot, wall);
	jw_end(w);
	free(tot);
	free(v);
}

size_t
op_put_ledger_partials(struct oprank *r, struct jw *w, const struct agg *a)
{
	struct strbuf sb = { NULL, 0, 0 };
	size_t i, j;

	xqsort(a->lw, a->nlw, sizeof(*a->lw), cmplwin);
	for (i = 0; i < a->nlw; i++) {
		const struct lwin *lw = &a->lw[i];

		jw_record(w, "op_partial_ledger");
		op_put_rank(w, a->rank);
		jw_key(w, "step");
		jw_int(w, lw->num);
		if (lw->inferred != B_NONE) {
			jw_key(w, "inferred_from");
			jw_cstring(w, op_boundname[lw->inferred]);
		}
		jw_key(w, "start");
		jw_int(w, lw->start);
		jw_key(w, "wall");
		jw_int(w, lw->wall);
		jw_key(w, "slices");
		jw_begin_array(w);
		for (j = 0; j < lw->n; j++) {
			jw_begin_array(w);
			jw_cstring(w, op_lslice_name(r,
			    a->ls[lw->off + j].slice, &sb));
			jw_int(w, a->ls[lw->off + j].ns);
			jw_end_array(w);
		}
		jw_end_array(w);
		jw_end(w);
	}
	sb_free(&sb);
	return a->nlw;
}

/* An op_partial_ledger record, whose slices must add up to its wall. */
int
op_ledger_partial(struct oprank *r, struct agg *a)
{
	const struct jdoc *d = r->doc;
	struct lwin lw;
	uint32_t c, p, s;
	int64_t ns, sum = 0;
	const char *from;
	int i;

	if (jdoc_get_i64(d, 0, "step", &lw.num) < 0 ||
	    jdoc_get_i64(d, 0, "start", &lw.start) < 0 ||
	    jdoc_get_i64(d, 0, "wall", &lw.wall) < 0 || lw.wall <= 0)
		return jdoc_error(r->file, d, 0, "\"op_partial_ledger\" needs"
		    " the integers \"step\", \"start\" and a positive \"wall\"");
	if (op_get_num(r, 0, "start", P_TIME, &lw.start) < 0 ||
	    op_get_num(r, 0, "wall", P_SIZE, &lw.wall) < 0)
		return -1;
	lw.inferred = B_NONE;
	if (jdoc_get_str(d, 0, "inferred_from", &from, NULL) == 0) {
		for (lw.inferred = 0; lw.inferred < NBOUND &&
		    strcmp(from, op_boundname[lw.inferred]) != 0; lw.inferred++)
			;
		if (lw.inferred == B_NONE)
			return jdoc_error(r->file, d, 0, "no iteration"
			    " boundary \"%s\"", from);
	}
	if ((i = jdoc_get(d, 0, "slices")) < 0 ||
	    d->node[i].type != JT_ARRAY)
		return jdoc_error(r->file, d, 0, "\"op_partial_ledger\" lacks"
		    " the array \"slices\"");
	lw.off = a->nls;
	lw.n = 0;
	for (c = (uint32_t)i + 1; c < d->node[i].next; c = d->node[c].next) {
		p = c + 1;
		if (d->node[c].type != JT_ARRAY || d->node[c].len != 2 ||
		    d->node[p].type != JT_STRING ||
		    d->node[d->node[p].next].type != JT_NUMBER ||
		    jnum_int64(jdoc_str(d, d->node[p].next),
		    d->node[d->node[p].next].len, &ns) < 0 || ns <= 0)
			return jdoc_error(r->file, d, c, "a slice is not"
			    " [name, positive ns]");
		if (op_lslice_of(r, jdoc_str(d, p), &s) < 0)
			return jdoc_error(r->file, d, p, "no slice \"%s\"",
			    jdoc_str(d, p));
		if (ns > lw.wall - sum)
			return jdoc_error(r->file, d, c, "the slices add up"
			    " to more than the window");
		sum += ns;
		a->ls = op_grow(a->ls, &a->capls, a->nls, sizeof(*a->ls));
		a->ls[a->nls].slice = s;
		a->ls[a->nls++].ns = ns;
		lw.n++;
	}
	if (sum != lw.wall)
		return jdoc_error(r->file, d, (uint32_t)i, "the slices add up"
		    " to %" PRId64 " ns of a %" PRId64 " ns window", sum,
		    lw.wall);
	a->lw = op_grow(a->lw, &a->caplw, a->nlw, sizeof(*a->lw));
	a->lw[a->nlw++] = lw;
	return 0;
}
