/*
 * opledger: the time ledger.  Each window of a rank (a step, or without
 * steps the whole trace) is cut into slices that add up to its wall time
 * exactly: the GPU busy by what its kernels are, and while no GPU is
 * busy, what the host was doing.  The events' ends go to one spill in
 * time order; a sweep gives each instant to the first slice open then.
 * The windows come one at a time from the steps (or the iteration
 * boundaries), and go as rows to a spill of the rank's: a million steps
 * hold no more memory than ten.
 */
#include <inttypes.h>
#include <stdlib.h>
#include <string.h>

#include "base/err.h"
#include "base/xalloc.h"
#include "trace/opbase.h"
#include "trace/opcore.h"
#include "trace/opfield.h"
#include "trace/opledger.h"
#include "trace/opstep.h"
#include "trace/opsums.h"

/* A window to cut: its step (-1: none) and bounds in the trace's time. */
struct cut {
	int64_t		 num, start, end;
	int		 inferred;	/* B_*; B_NONE: a step or the trace */
};

/* A module call's key among the outermost ones: its thread and name. */
struct modkey {
	uint64_t	thr;
	uint32_t	name;
};

/*
 * Where the windows come from, one at a time: the steps, the iteration
 * boundaries of kind bk, or the one window of the trace.
 */
struct windows {
	enum { W_NONE, W_STEPS, W_ITER, W_TRACE } from;
	struct spillcur	 c;
	struct step	 next;		/* W_STEPS: the step after */
	int		 more;
	int64_t		 lo, origin;
	int		 bk;		/* W_ITER */
	struct modkey	 mod;
	int64_t		 prev, m;
	struct cut	 trace;		/* else, if timed: W_TRACE */
	int		 timed;
};

static int	cmplrow(const void *, const void *);
static void	lrow_add(struct agg *, const struct lrow *);

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

int
op_cmpledge(const void *a, const void *b)
{
	const struct ledge *x = a, *y = b;

	if (x->t != y->t)
		return x->t < y->t ? -1 : 1;
	if (x->slice != y->slice)
		return x->slice < y->slice ? -1 : 1;
	if (x->delta != y->delta)
		return x->delta < y->delta ? -1 : 1;
	if (x->thr != y->thr)
		return x->thr < y->thr ? -1 : 1;
	return (x->who > y->who) - (x->who < y->who);
}

/*
 * A thread's id on the ledger's edges: its place in the table, or for a
 * thread past it 31 bits of its digest, the top bit set; never LTHR_NONE.
 */
uint32_t
op_lthr(uint64_t thr)
{
	uint32_t v;

	if (!(thr & THR_HASHED))
		return thr < LTHR_NONE ? (uint32_t)thr : LTHR_NONE - 1;
	v = (uint32_t)(thr ^ thr >> 32) | UINT32_C(1) << 31;
	return v == LTHR_NONE ? v - 1 : v;
}

void
op_ledge(struct trace *t, uint32_t slice, uint32_t who, uint32_t thr,
    int64_t ts, int64_t end)
{
	if (end <= ts)
		return;
	spill_add(&t->ledges, &(struct ledge){ ts, slice, 1, who, thr });
	spill_add(&t->ledges, &(struct ledge){ end, slice, -1, who, thr });
}

/* Rows in window order, a window's own first, then its slices'. */
static int
cmplrow(const void *a, const void *b)
{
	const struct lrow *x = a, *y = b;

	if (x->start != y->start)
		return x->start < y->start ? -1 : 1;
	if (x->num != y->num)
		return x->num < y->num ? -1 : 1;
	if (x->seq != y->seq)
		return x->seq < y->seq ? -1 : 1;
	return (x->slice > y->slice) - (x->slice < y->slice);
}

static void
lrow_add(struct agg *a, const struct lrow *row)
{
	if (a->ledger.pool == NULL)
		spill_init(&a->ledger, a->pool, sizeof(struct lrow), cmplrow);
	spill_add(&a->ledger, row);
}

/*
 * The window's slices, the nonzero ones in slice order, then its time in
 * each kind of span, into a's ledger, shifted by origin into the rank's
 * time.
 */
static void
flush(struct agg *a, const struct cut *c, int64_t origin, int64_t *acc,
    size_t n, const int64_t span[NPSPAN])
{
	struct lrow row = { c->start + origin, c->num, a->lseq++,
	    c->end - c->start, 0, c->inferred };
	size_t i;

	lrow_add(a, &row);
	a->nlw++;
	for (i = 0; i < n; i++) {
		if (acc[i] == 0)
			continue;
		row.slice = (uint32_t)i + 1;
		row.ns = acc[i];
		lrow_add(a, &row);
		acc[i] = 0;
	}
	for (i = 0; i < NPSPAN; i++) {
		if (span[i] == 0)
			continue;
		row.slice = LROW_SPAN + (uint32_t)i;
		row.ns = span[i];
		lrow_add(a, &row);
	}
}

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
 * The windows, in order: each step from its start to its end (the last
 * GPU work it launched), cut short where the next step starts so that no
 * instant is counted twice; without steps, iterations from one boundary
 * call's start to the next's, of the first kind with two or more (the
 * time before the first and after the last is no whole iteration); else
 * the trace's window.  The steps are in the rank's time: origin takes
 * them back to the trace's.
 */
static void
windows_open(struct windows *w, struct trace *t, int timed, int64_t start,
    int64_t end, int64_t origin)
{
	const struct step *s;

	memset(w, 0, sizeof(*w));
	w->lo = INT64_MIN;
	w->origin = origin;
	w->prev = INT64_MIN;
	w->timed = timed && end > start;
	w->trace = (struct cut){ -1, start, end, B_NONE };
	if (t->a.nsteps > 0) {
		w->from = W_STEPS;
		op_steps_open(&w->c, &t->a);
		if ((w->more = (s = spill_next(&w->c)) != NULL))
			w->next = *s;
		return;
	}
	for (w->bk = 0; w->bk < NBOUND && (t->nbound[w->bk] < 2 ||
	    (w->bk == B_MOD && !busiest_module(t, &w->mod))); w->bk++)
		;
	if (w->bk < NBOUND) {
		w->from = W_ITER;
		spill_open(&w->c, &t->bounds);
	} else if (w->timed)
		w->from = W_TRACE;
}

/* The next window into *c: 1, or 0 after the last. */
static int
windows_next(struct windows *w, struct cut *c)
{
	const struct step *s;
	const struct bound *b;
	struct step cur;
	int64_t e;

	switch (w->from) {
	case W_STEPS:
		while (w->more) {
			cur = w->next;
			if ((w->more = (s = spill_next(&w->c)) != NULL))
				w->next = *s;
			e = (cur.end > cur.cpu_end ? cur.end : cur.cpu_end) -
			    w->origin;
			if (w->more && w->next.ts - w->origin < e)
				e = w->next.ts - w->origin;
			c->num = cur.num;
			c->inferred = B_NONE;
			c->start = cur.ts - w->origin > w->lo ?
			    cur.ts - w->origin : w->lo;
			c->end = e;
			if (c->end > c->start) {
				w->lo = c->end;
				return 1;
			}
		}
		return 0;
	case W_ITER:
		while ((b = spill_next(&w->c)) != NULL) {
			if (b->kind != w->bk || (w->bk == B_MOD &&
			    (b->thr != w->mod.thr || b->name != w->mod.name)))
				continue;
			e = w->prev;
			w->prev = b->ts;
			if (e != INT64_MIN && b->ts > e) {
				*c = (struct cut){ w->m++, e, b->ts, w->bk };
				return 1;
			}
		}
		/* Boundaries that cut no iteration: the trace's window. */
		if (w->m > 0 || !w->timed)
			return 0;
		/* FALLTHROUGH */
	case W_TRACE:
		*c = w->trace;
		w->from = W_NONE;
		return 1;
	default:
		return 0;
	}
}

static void
windows_close(struct windows *w)
{
	spillcur_free(&w->c);
}

/*
 * Sweeps the trace's ledger edges.  The instant [from, to) goes to the
 * first slice open, or to nothing traced; the windows it crosses take
 * their share, and a window is written once the sweep is past it.
 */
struct sweep {
	struct oprank	*r;
	struct agg	*a;
	struct windows	 w;
	struct cut	 cur;		/* the window at hand */
	int		 have;		/* 0: none is left */
	size_t		 n;
	int64_t		*acc, origin;
	uint32_t	 none;
	struct holders	*h;
	struct spancur	*spans;
	int64_t		 prevend;	/* the end of the last window written */
};

/*
 * The instant's slice s: its time in the windows goes to who spent it,
 * which may make it the profiler's or the harness's.  Who is looked for
 * only when a window holds some of the instant.
 */
static void
give(struct sweep *sw, int64_t from, int64_t to, uint32_t s)
{
	int64_t lo, hi, given = 0, span[NPSPAN];
	int blamed = 0;

	while (sw->have) {
		struct cut *c = &sw->cur;

		lo = from > c->start ? from : c->start;
		hi = to < c->end ? to : c->end;
		if (lo < hi) {
			if (!blamed && s != sw->none) {
				s = op_blame_resolve(sw->r, sw->h, s);
				blamed = 1;
			}
			sw->acc[s] += hi - lo;
			given += hi - lo;
		}
		if (to < c->end)
			break;
		op_spans_of(sw->spans, c->start, c->end, span);
		flush(sw->a, c, sw->origin, sw->acc, sw->n, span);
		sw->prevend = c->end;
		sw->have = windows_next(&sw->w, &sw->cur);
	}
	if (blamed)
		op_blame_commit(sw->r, sw->h, given);
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
op_ledger(struct oprank *r, int timed, int64_t start, int64_t end,
    int64_t origin)
{
	struct trace *t = &r->t;
	struct spillcur ec;
	const struct ledge *e;
	struct sweep sw;
	int32_t *open;
	uint64_t *bits;
	size_t nwords;
	int64_t prev = INT64_MIN;
	uint32_t cur, none = op_lslice_none(r);
	int spans;

	sw.r = r;
	sw.a = &t->a;
	sw.n = op_lslices(r);
	sw.origin = origin;
	sw.none = none;
	sw.prevend = INT64_MIN;
	windows_open(&sw.w, t, timed, start, end, origin);
	sw.have = windows_next(&sw.w, &sw.cur);
	/* Else without a window of its own, the trace spans its events. */
	if ((spans = t->a.nsteps == 0 && !sw.have && !timed)) {
		sw.cur = (struct cut){ -1, INT64_MAX, INT64_MAX, B_NONE };
		sw.have = 1;
	}
	sw.acc = xcalloc(sw.n, sizeof(*sw.acc));
	open = xcalloc(sw.n, sizeof(*open));
	nwords = (sw.n + 63) / 64;
	bits = xcalloc(nwords, sizeof(*bits));
	cur = none;
	sw.h = op_holders_new(r, t, origin);
	sw.spans = op_spans_open(t);
	spill_open(&ec, &t->ledges);
	while ((e = spill_next(&ec)) != NULL) {
		if (prev == INT64_MIN && spans)
			sw.cur.start = e->t;
		if (e->t > prev)
			give(&sw, prev, e->t, cur);
		/* Graph launches too: the frame that replays them. */
		if (e->delta < 0 && (e->slice == L_SYNC ||
		    e->slice == L_COPY || e->slice == L_ALLOC ||
		    (e->slice == L_LAUNCH && e->who != NO_WHO &&
		    op_is_graph_launch(r->names.v[e->who].s))))
			op_blame_call(r, sw.h, e, sw.prevend, sw.have ?
			    sw.cur.start : INT64_MAX);
		op_holders_edge(sw.h, e);
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
		sw.cur.end = prev;
		if (prev == INT64_MIN || sw.cur.end <= sw.cur.start)
			sw.have = 0;
	}
	give(&sw, prev, INT64_MAX, none);
	op_spans_close(sw.spans);
	op_holders_free(sw.h);
	windows_close(&sw.w);
	free(bits);
	free(open);
	free(sw.acc);
}

/* Adds src's ledger to dst's: src's windows go after dst's of one start. */
void
op_ledger_merge(struct agg *dst, struct agg *src)
{
	struct spillcur c;
	const struct lrow *row;
	struct lrow r;

	if (src->nlw == 0)
		return;
	spill_open(&c, &src->ledger);
	while ((row = spill_next(&c)) != NULL) {
		r = *row;
		r.seq += dst->lseq;
		lrow_add(dst, &r);
	}
	spillcur_free(&c);
	dst->nlw += src->nlw;
	dst->lseq += src->lseq;
}

void
op_ledger_free(struct agg *a)
{
	if (a->ledger.pool != NULL)
		spill_free(&a->ledger);
	a->nlw = 0;
	a->lseq = 0;
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
    const struct lslice *v, size_t n, int64_t wall, int blame)
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
		if (blame)
			op_put_blame(r, w, a, v[j].slice, wall);
		jw_end_object(w);
	}
	jw_end_array(w);
	sb_free(&sb);
}

static const char *
window_name(const struct lrow *lw)
{
	return lw->num < 0 ? "trace" : lw->inferred != B_NONE ? "iteration" :
	    "step";
}

/* What the window is; an iteration says what it was inferred from. */
static void
put_window(struct jw *w, const struct lrow *lw)
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
 * ledger_total record, with the phases the windows are in and any
 * periodic work among them; with detail (the rank whose detail the
 * output holds), who spent each slice.
 */
void
op_put_ledger(struct oprank *r, struct jw *w, struct agg *a, int detail)
{
	struct lslice *tot;
	struct lread lr;
	struct lwinv wv;
	struct lrow first;
	size_t j, n = op_lslices(r), ntot;
	int64_t wall = 0, count[NWPHASE] = { 0 }, pwall[NWPHASE] = { 0 };
	int ph;

	if (a->nlw == 0)
		return;
	wv.v = xreallocarray(NULL, n, sizeof(*wv.v));
	tot = xreallocarray(NULL, n, sizeof(*tot));
	for (j = 0; j < n; j++)
		tot[j] = (struct lslice){ (uint32_t)j, 0 };
	op_ledger_open(&lr, a);
	first = *lr.row;
	while (op_ledger_next(&lr, &wv)) {
		for (j = 0; j < wv.n; j++)
			tot[wv.v[j].slice].ns = op_sat_add(tot[wv.v[j].slice].ns,
			    wv.v[j].ns);
		wall = op_sat_add(wall, wv.head.ns);
		ph = op_window_phase(&wv);
		count[ph]++;
		pwall[ph] = op_sat_add(pwall[ph], wv.head.ns);
		xqsort(wv.v, wv.n, sizeof(*wv.v), cmplslice);
		jw_record(w, "ledger");
		op_put_rank(w, a->rank);
		put_window(w, &wv.head);
		jw_key(w, "phase");
		jw_cstring(w, op_wphasename[ph]);
		if (wv.head.num >= 0) {
			jw_ckey(w, window_name(&wv.head));
			jw_int(w, wv.head.num);
		}
		jw_key(w, "ts");
		jw_us(w, wv.head.start - a->origin);
		put_slices(r, w, a, wv.v, wv.n, wv.head.ns, 0);
		jw_end(w);
	}
	op_ledger_close(&lr);
	xqsort(tot, n, sizeof(*tot), cmplslice);
	for (ntot = 0; ntot < n && tot[ntot].ns > 0; ntot++)
		;
	jw_record(w, "ledger_total");
	op_put_rank(w, a->rank);
	jw_key(w, "windows");
	jw_uint(w, a->nlw);
	put_window(w, &first);
	jw_key(w, "phases");
	jw_begin_array(w);
	for (ph = 0; ph < NWPHASE; ph++) {
		if (count[ph] == 0)
			continue;
		jw_begin_object(w);
		jw_key(w, "phase");
		jw_cstring(w, op_wphasename[ph]);
		jw_key(w, "windows");
		jw_int(w, count[ph]);
		jw_key(w, "wall");
		jw_us(w, pwall[ph]);
		jw_end_object(w);
	}
	jw_end_array(w);
	op_put_periodic(r, w, a);
	jw_key(w, "python_frames");
	jw_int(w, a->pyframes);
	put_slices(r, w, a, tot, ntot, wall, detail);
	jw_end(w);
	free(tot);
	free(wv.v);
}

size_t
op_put_ledger_partials(struct oprank *r, struct jw *w, struct agg *a)
{
	struct strbuf sb = { NULL, 0, 0 };
	struct lread lr;
	struct lwinv wv;
	size_t j;

	if (a->nlw == 0)
		return 0;
	wv.v = xreallocarray(NULL, op_lslices(r), sizeof(*wv.v));
	op_ledger_open(&lr, a);
	while (op_ledger_next(&lr, &wv)) {
		jw_record(w, "op_partial_ledger");
		op_put_rank(w, a->rank);
		jw_key(w, "step");
		jw_int(w, wv.head.num);
		if (wv.head.inferred != B_NONE) {
			jw_key(w, "inferred_from");
			jw_cstring(w, op_boundname[wv.head.inferred]);
		}
		jw_key(w, "start");
		jw_int(w, wv.head.start);
		jw_key(w, "wall");
		jw_int(w, wv.head.ns);
		if (wv.span[PS_CAPTURE] > 0) {
			jw_key(w, "capture");
			jw_int(w, wv.span[PS_CAPTURE]);
		}
		if (wv.span[PS_COMPILE] > 0) {
			jw_key(w, "compile");
			jw_int(w, wv.span[PS_COMPILE]);
		}
		jw_key(w, "slices");
		jw_begin_array(w);
		for (j = 0; j < wv.n; j++) {
			jw_begin_array(w);
			jw_cstring(w, op_lslice_name(r, wv.v[j].slice, &sb));
			jw_int(w, wv.v[j].ns);
			jw_end_array(w);
		}
		jw_end_array(w);
		jw_end(w);
	}
	op_ledger_close(&lr);
	free(wv.v);
	sb_free(&sb);
	return a->nlw;
}

/* An op_partial_ledger record, whose slices must add up to its wall. */
int
op_ledger_partial(struct oprank *r, struct agg *a)
{
	const struct jdoc *d = r->doc;
	struct lrow row;
	struct lslice *v;
	uint32_t c, p, s;
	int64_t ns, sum = 0, span[NPSPAN] = { 0 };
	const char *from;
	size_t nv = 0, j;
	int i, rc = 0;

	memset(&row, 0, sizeof(row));
	if (jdoc_get_i64(d, 0, "step", &row.num) < 0 ||
	    jdoc_get_i64(d, 0, "start", &row.start) < 0 ||
	    jdoc_get_i64(d, 0, "wall", &row.ns) < 0 || row.ns <= 0)
		return jdoc_error(r->file, d, 0, "\"op_partial_ledger\" needs"
		    " the integers \"step\", \"start\" and a positive \"wall\"");
	if (op_get_num(r, 0, "start", P_TIME, &row.start) < 0 ||
	    op_get_num(r, 0, "wall", P_SIZE, &row.ns) < 0)
		return -1;
	if ((jdoc_get(d, 0, "capture") >= 0 && (jdoc_get_i64(d, 0, "capture",
	    &span[PS_CAPTURE]) < 0 || span[PS_CAPTURE] < 0 ||
	    span[PS_CAPTURE] > row.ns)) || (jdoc_get(d, 0, "compile") >= 0 &&
	    (jdoc_get_i64(d, 0, "compile", &span[PS_COMPILE]) < 0 ||
	    span[PS_COMPILE] < 0 || span[PS_COMPILE] > row.ns)))
		return jdoc_error(r->file, d, 0, "\"capture\" and \"compile\""
		    " must be integers from 0 to the window's \"wall\"");
	row.inferred = B_NONE;
	if (jdoc_get_str(d, 0, "inferred_from", &from, NULL) == 0) {
		for (row.inferred = 0; row.inferred < NBOUND &&
		    strcmp(from, op_boundname[row.inferred]) != 0;
		    row.inferred++)
			;
		if (row.inferred == B_NONE)
			return jdoc_error(r->file, d, 0, "no iteration"
			    " boundary \"%s\"", from);
	}
	if ((i = jdoc_get(d, 0, "slices")) < 0 ||
	    d->node[i].type != JT_ARRAY)
		return jdoc_error(r->file, d, 0, "\"op_partial_ledger\" lacks"
		    " the array \"slices\"");
	v = xreallocarray(NULL, d->node[i].len + 1, sizeof(*v));
	for (c = (uint32_t)i + 1; rc == 0 && c < d->node[i].next;
	    c = d->node[c].next) {
		p = c + 1;
		if (d->node[c].type != JT_ARRAY || d->node[c].len != 2 ||
		    d->node[p].type != JT_STRING ||
		    d->node[d->node[p].next].type != JT_NUMBER ||
		    jnum_int64(jdoc_str(d, d->node[p].next),
		    d->node[d->node[p].next].len, &ns) < 0 || ns <= 0)
			rc = jdoc_error(r->file, d, c, "a slice is not"
			    " [name, positive ns]");
		else if (op_lslice_of(r, jdoc_str(d, p), &s) < 0)
			rc = jdoc_error(r->file, d, p, "no slice \"%s\"",
			    jdoc_str(d, p));
		else if (ns > row.ns - sum)
			rc = jdoc_error(r->file, d, c, "the slices add up"
			    " to more than the window");
		else {
			sum += ns;
			v[nv].slice = s;
			v[nv++].ns = ns;
		}
	}
	if (rc == 0 && sum != row.ns)
		rc = jdoc_error(r->file, d, (uint32_t)i, "the slices add up"
		    " to %" PRId64 " ns of a %" PRId64 " ns window", sum,
		    row.ns);
	if (rc == 0) {
		row.seq = a->lseq++;
		lrow_add(a, &row);
		a->nlw++;
		for (j = 0; j < nv; j++) {
			row.slice = v[j].slice + 1;
			row.ns = v[j].ns;
			lrow_add(a, &row);
		}
		for (j = 0; j < NPSPAN; j++) {
			if (span[j] == 0)
				continue;
			row.slice = LROW_SPAN + (uint32_t)j;
			row.ns = span[j];
			lrow_add(a, &row);
		}
	}
	free(v);
	return rc;
}
