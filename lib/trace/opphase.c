/*
 * opphase: what each window of the time ledger is before anything judges
 * it.  A window that captures CUDA or HIP graphs runs no kernel of the
 * graphs it records, and one that compiles spends its time in the
 * compiler: neither is the run's steady state.  Spans of both are read
 * from PyTorch's own names (the runtime's capture calls, the graph
 * context manager's frames, inductor's CUDAGraphNode.record and dynamo's
 * "(dynamo_timed)" ranges, the capture steps of vLLM and SGLang) and laid
 * over the windows; a window that first uses the device, or that the
 * profiler's own work fills, is said so too.  Across a rank's steps, one
 * that comes back every k-th step longer than the rest is periodic work:
 * checkpointing, evaluation, logging.  The ledger's windows are read
 * back here, for the ledger's records and for every part that looks at
 * windows after it.
 */
#include <stdlib.h>
#include <string.h>

#include "base/xalloc.h"
#include "trace/opbase.h"
#include "trace/opcore.h"
#include "trace/opledger.h"
#include "trace/opnames.h"
#include "trace/opsums.h"

/* A window this much in capture or compile spans is that phase. */
#define SPAN_SHARE	0.10
/* First-use setup or the profiler's own work this much of a window. */
#define WARMUP_SHARE	0.25
#define PROFILER_SHARE	0.50
/* Periodic: steps this much longer than the median, every k-th. */
#define PERIOD_RATIO	1.3
#define PERIOD_MIN	6	/* steps to see a period in */
#define PERIOD_MAX	16	/* the longest period looked for */

const char *const op_wphasename[NWPHASE] = {
	"steady", "warm_up", "capture", "compile", "profiler"
};

int
op_cmppspan(const void *a, const void *b)
{
	const struct pspan *x = a, *y = b;

	if (x->ts != y->ts)
		return x->ts < y->ts ? -1 : 1;
	if (x->kind != y->kind)
		return x->kind < y->kind ? -1 : 1;
	if (x->end != y->end)
		return x->end < y->end ? -1 : 1;
	return (x->seq > y->seq) - (x->seq < y->seq);
}

static int
ends_with(const char *s, const char *t)
{
	size_t n = strlen(s), m = strlen(t);

	return n >= m && strcmp(s + n - m, t) == 0;
}

static void
add_span(struct trace *t, int kind, int64_t ts, int64_t end)
{
	if (end > ts)
		spill_add(&t->pspans, &(struct pspan){ ts, end, kind,
		    t->seq++ });
}

/*
 * An event of class cls named s, from ts to end: the spans it opens,
 * closes or is.  A capture runs from the runtime's begin call to its end
 * call on the stream.
 */
void
op_pspan_event(struct trace *t, int cls, const char *s, int64_t ts,
    int64_t end)
{
	const char *p;

	switch (cls) {
	case C_RT:
		if (strstr(s, "StreamBeginCapture") != NULL) {
			if (t->capbegin == INT64_MIN)
				t->capbegin = ts;
		} else if (strstr(s, "StreamEndCapture") != NULL &&
		    t->capbegin != INT64_MIN) {
			add_span(t, PS_CAPTURE, t->capbegin, end);
			t->capbegin = INT64_MIN;
		} else if (strstr(s, "GraphInstantiate") != NULL)
			add_span(t, PS_CAPTURE, ts, end);
		break;
	case C_OP:
	case C_ANN:
		if (op_prefix(s, "CUDAGraphNode.record") ||
		    (op_prefix(s, "capture_") && s[8] >= '0' && s[8] <= '9'))
			add_span(t, PS_CAPTURE, ts, end);
		else if (ends_with(s, " (dynamo_timed)"))
			add_span(t, PS_COMPILE, ts, end);
		break;
	case C_PY:
		if ((p = strstr(s, "torch/cuda/graphs.py(")) != NULL &&
		    (p == s || p[-1] == '/') && (ends_with(s, ": capture_begin") ||
		    ends_with(s, ": capture_end") || ends_with(s, ": __enter__") ||
		    ends_with(s, ": __exit__")))
			add_span(t, PS_CAPTURE, ts, end);
		else if ((strstr(s, "torch/_dynamo/convert_frame.py(") != NULL &&
		    (ends_with(s, ": _compile") ||
		    ends_with(s, ": compile_inner"))) ||
		    (strstr(s, "torch/_inductor/compile_fx.py(") != NULL &&
		    strstr(s, ": compile_fx") != NULL))
			add_span(t, PS_COMPILE, ts, end);
		break;
	}
}

/*
 * The spans read in start order, each kind's union one interval at a
 * time: the last one's [lo, hi), which the spans yet to come may widen.
 */
struct spancur {
	struct spillcur	 c;
	const struct pspan *next;
	int64_t		 lo[NPSPAN], hi[NPSPAN];
};

struct spancur *
op_spans_open(struct trace *t)
{
	struct spancur *sc = xcalloc(1, sizeof(*sc));
	int k;

	for (k = 0; k < NPSPAN; k++)
		sc->lo[k] = sc->hi[k] = INT64_MIN;
	if (t->pspans.pool != NULL) {
		spill_open(&sc->c, &t->pspans);
		sc->next = spill_next(&sc->c);
	}
	return sc;
}

static int64_t
overlap(int64_t lo, int64_t hi, int64_t start, int64_t end)
{
	if (lo < start)
		lo = start;
	if (hi > end)
		hi = end;
	return lo < hi ? hi - lo : 0;
}

/*
 * The window [start, end)'s time in each kind of span, overlapping spans
 * counted once.  Windows come in time order and do not overlap: a union
 * closed before this window's start holds none of it, and a span that
 * starts at its end or later widens a union only past it.
 */
void
op_spans_of(struct spancur *sc, int64_t start, int64_t end,
    int64_t span[NPSPAN])
{
	const struct pspan *p;
	int k;

	memset(span, 0, NPSPAN * sizeof(*span));
	while ((p = sc->next) != NULL && p->ts < end) {
		k = p->kind;
		if (p->ts > sc->hi[k]) {
			span[k] += overlap(sc->lo[k], sc->hi[k], start, end);
			sc->lo[k] = p->ts;
			sc->hi[k] = p->end;
		} else if (p->end > sc->hi[k])
			sc->hi[k] = p->end;
		sc->next = spill_next(&sc->c);
	}
	for (k = 0; k < NPSPAN; k++)
		span[k] += overlap(sc->lo[k], sc->hi[k], start, end);
}

void
op_spans_close(struct spancur *sc)
{
	if (sc == NULL)
		return;
	spillcur_free(&sc->c);
	free(sc);
}

/* A window's time in slice s. */
static int64_t
slice_time(const struct lwinv *wv, uint32_t s)
{
	size_t j;

	for (j = 0; j < wv->n; j++)
		if (wv->v[j].slice == s)
			return wv->v[j].ns;
	return 0;
}

int
op_window_phase(const struct lwinv *wv)
{
	double wall = (double)wv->head.ns;

	if ((double)wv->span[PS_CAPTURE] >= SPAN_SHARE * wall)
		return WP_CAPTURE;
	if ((double)wv->span[PS_COMPILE] >= SPAN_SHARE * wall)
		return WP_COMPILE;
	if ((double)slice_time(wv, L_WARMUP) >= WARMUP_SHARE * wall)
		return WP_WARMUP;
	if ((double)slice_time(wv, L_PROFILER) >= PROFILER_SHARE * wall)
		return WP_PROFILER;
	return WP_STEADY;
}

/*
 * Whether the long ones among a rank's steady windows, read in order,
 * come back every k-th, k from 2 to PERIOD_MAX, from one in the first k
 * steady windows on, two or more of them, and no other is long.
 */
struct period {
	int64_t		 start, first, k, nl;	/* window indices; -1: none */
	int		 broken;
	int64_t		 firstnum;
};

static void
period_init(struct period *p)
{
	*p = (struct period){ -1, -1, 0, 0, 0, -1 };
}

static void
period_see(struct period *p, int64_t i, int64_t num, int longv)
{
	if (p->start < 0)
		p->start = i;
	if (longv) {
		if (p->nl == 0) {
			p->first = i;
			p->firstnum = num;
		} else if (p->nl == 1)
			p->k = i - p->first;
		p->nl++;
	}
	/* Before the second long one, those between are short by nature. */
	if (p->nl >= 2 && longv != ((i - p->first) % p->k == 0))
		p->broken = 1;
}

static int
period_holds(const struct period *p)
{
	return !p->broken && p->nl >= 2 && p->k >= 2 && p->k <= PERIOD_MAX &&
	    p->first - p->start < p->k;
}

/* The median of a rank's steady windows' walls, and how many; 0: none. */
static int64_t
median_steady(struct agg *a, struct lwinv *wv, int64_t *m)
{
	struct spill walls;
	struct spillcur c;
	struct lread lr;
	const int64_t *v;
	int64_t i, med = 0;

	spill_init(&walls, a->pool, sizeof(int64_t), op_cmpi64);
	*m = 0;
	op_ledger_open(&lr, a);
	while (op_ledger_next(&lr, wv))
		if (op_window_phase(wv) == WP_STEADY) {
			spill_add(&walls, &wv->head.ns);
			(*m)++;
		}
	op_ledger_close(&lr);
	spill_open(&c, &walls);
	for (i = 0; (v = spill_next(&c)) != NULL && i <= (*m - 1) / 2; i++)
		med = *v;
	spillcur_free(&c);
	spill_free(&walls);
	return med;
}

/*
 * Of a ledger_total of steps (or iterations), in start order: steps that
 * come back every k-th step, all PERIOD_RATIO times the median step or
 * longer while no other is, are periodic work.  Warm-up, capture and
 * compile steps are no period's, nor a long first step when the rest
 * make one without it: first-use work.  Writes the period, the first
 * such step, how many, their time above the median step, and the slices
 * that hold most of it.  Two reads of the ledger: the median, then the
 * period with each slice's time in long and in other steps.
 */
void
op_put_periodic(struct oprank *r, struct jw *w, struct agg *a)
{
	struct strbuf sb = { NULL, 0, 0 };
	struct lread lr;
	struct lwinv wv;
	struct period all, later, *p;
	int64_t i, m, med, extra = 0, extra0 = 0, *add, *base, *zero;
	size_t j, ns = op_lslices(r);
	int steady, longv, first_long = 0;

	if (a->nlw < PERIOD_MIN)
		return;
	wv.v = xreallocarray(NULL, ns, sizeof(*wv.v));
	med = median_steady(a, &wv, &m);
	add = xcalloc(3 * ns, sizeof(*add));
	base = add + ns;
	zero = base + ns;
	period_init(&all);
	period_init(&later);
	op_ledger_open(&lr, a);
	for (i = 0; op_ledger_next(&lr, &wv); i++) {
		if (i == 0 && wv.head.num < 0)
			break;
		steady = op_window_phase(&wv) == WP_STEADY;
		longv = (double)wv.head.ns >= PERIOD_RATIO * (double)med;
		if (!steady)
			continue;
		period_see(&all, i, wv.head.num, longv);
		if (i > 0)
			period_see(&later, i, wv.head.num, longv);
		else
			first_long = longv;
		for (j = 0; j < wv.n; j++)
			(longv ? add : base)[wv.v[j].slice] += wv.v[j].ns;
		if (longv)
			extra += wv.head.ns - med;
		if (i == 0 && longv) {
			for (j = 0; j < wv.n; j++)
				zero[wv.v[j].slice] = wv.v[j].ns;
			extra0 = wv.head.ns - med;
		}
	}
	op_ledger_close(&lr);
	p = &all;
	if (!period_holds(&all) && first_long) {
		/* The first step's first-use work, set aside. */
		p = &later;
		m--;
		extra -= extra0;
		for (j = 0; j < ns; j++)
			add[j] -= zero[j];
	}
	if (i < (int64_t)a->nlw || m < PERIOD_MIN || !period_holds(p))
		goto out;
	jw_key(w, "periodic");
	jw_begin_object(w);
	jw_key(w, "every");
	jw_int(w, p->k);
	jw_key(w, "first");
	jw_int(w, p->firstnum);
	jw_key(w, "windows");
	jw_int(w, p->nl);
	jw_key(w, "median");
	jw_us(w, med);
	jw_key(w, "extra");
	jw_us(w, extra);
	/* What the periodic steps hold beyond as many other steps, by slice. */
	jw_key(w, "slices");
	jw_begin_object(w);
	for (j = 0; j < ns; j++) {
		double more = (double)add[j] - (double)base[j] *
		    (double)p->nl / (double)(m - p->nl);

		if (more > 0 && more >= 0.05 * (double)extra) {
			jw_ckey(w, op_lslice_name(r, (uint32_t)j, &sb));
			jw_us(w, (int64_t)more);
		}
	}
	jw_end_object(w);
	jw_end_object(w);
out:
	free(add);
	free(wv.v);
	sb_free(&sb);
}

void
op_ledger_open(struct lread *lr, struct agg *a)
{
	if (a->nlw == 0) {
		memset(lr, 0, sizeof(*lr));
		return;
	}
	spill_open(&lr->c, &a->ledger);
	lr->row = spill_next(&lr->c);
}

/* The next window into *wv: 1, or 0 after the last. */
int
op_ledger_next(struct lread *lr, struct lwinv *wv)
{
	const struct lrow *row;

	if ((row = lr->row) == NULL)
		return 0;
	wv->head = *row;
	memset(wv->span, 0, sizeof(wv->span));
	wv->n = 0;
	while ((row = lr->row = spill_next(&lr->c)) != NULL &&
	    row->slice != 0) {
		if (row->slice >= LROW_SPAN)
			wv->span[row->slice - LROW_SPAN] = row->ns;
		else {
			wv->v[wv->n].slice = row->slice - 1;
			wv->v[wv->n++].ns = row->ns;
		}
	}
	return 1;
}

void
op_ledger_close(struct lread *lr)
{
	spillcur_free(&lr->c);
}
