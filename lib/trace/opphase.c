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
 * checkpointing, evaluation, logging.
 */
#include <stdlib.h>
#include <string.h>

#include "base/xalloc.h"
#include "trace/opcore.h"

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

	if (x->kind != y->kind)
		return x->kind < y->kind ? -1 : 1;
	if (x->ts != y->ts)
		return x->ts < y->ts ? -1 : 1;
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
 * Each window's time in each kind of span, overlapping spans counted
 * once.  The windows are in time order and do not overlap.
 */
void
op_pspan_windows(struct trace *t, struct cut *w, size_t n)
{
	struct spillcur sc;
	const struct pspan *p;
	int64_t lo = 0, hi = INT64_MIN, a, b;
	size_t i, k = 0;
	int kind = -1;

	for (i = 0; i < n; i++)
		memset(w[i].span, 0, sizeof(w[i].span));
	spill_open(&sc, &t->pspans);
	for (;;) {
		p = spill_next(&sc);
		/* A union of spans is whole: lay it over the windows. */
		if (p == NULL || p->kind != kind || p->ts > hi) {
			for (i = k; kind >= 0 && i < n && w[i].start < hi; i++) {
				a = lo > w[i].start ? lo : w[i].start;
				b = hi < w[i].end ? hi : w[i].end;
				if (a < b)
					w[i].span[kind] += b - a;
			}
			if (p == NULL)
				break;
			if (p->kind != kind)
				k = 0;
			for (; k < n && w[k].end <= p->ts; k++)
				;
			kind = p->kind;
			lo = p->ts;
			hi = p->end;
		} else if (p->end > hi)
			hi = p->end;
	}
	spillcur_free(&sc);
}

/* A window's slice's time by name, or 0. */
static int64_t
slice_time(const struct oprank *r, const struct agg *a, const struct lwin *lw,
    const char *name)
{
	uint32_t s;
	size_t j;

	if (op_lslice_of(r, name, &s) < 0)
		return 0;
	for (j = 0; j < lw->n; j++)
		if (a->ls[lw->off + j].slice == s)
			return a->ls[lw->off + j].ns;
	return 0;
}

int
op_window_phase(const struct oprank *r, const struct agg *a,
    const struct lwin *lw)
{
	double wall = (double)lw->wall;

	if ((double)lw->span[PS_CAPTURE] >= SPAN_SHARE * wall)
		return WP_CAPTURE;
	if ((double)lw->span[PS_COMPILE] >= SPAN_SHARE * wall)
		return WP_COMPILE;
	if ((double)slice_time(r, a, lw, "warm_up") >= WARMUP_SHARE * wall)
		return WP_WARMUP;
	if ((double)slice_time(r, a, lw, "profiler") >= PROFILER_SHARE * wall)
		return WP_PROFILER;
	return WP_STEADY;
}

/* Of a ledger_total: each phase its windows are in, with their time. */
void
op_put_phases_of(struct oprank *r, struct jw *w, const struct agg *a)
{
	int64_t wall[NWPHASE] = { 0 }, count[NWPHASE] = { 0 };
	size_t i;
	int ph;

	for (i = 0; i < a->nlw; i++) {
		ph = op_window_phase(r, a, &a->lw[i]);
		count[ph]++;
		wall[ph] += a->lw[i].wall;
	}
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
		jw_us(w, wall[ph]);
		jw_end_object(w);
	}
	jw_end_array(w);
}

/*
 * Of n windows, the steady ones long or not: whether the long ones are
 * every k-th steady window, k from 2 to PERIOD_MAX, from the first one
 * in the first k windows of the steady ones on, two or more, and no
 * other is long.  Sets the first, k and how many.
 */
static int
period(const uint8_t *steady, const uint8_t *longv, size_t n, size_t *first,
    size_t *k, size_t *nl)
{
	size_t i, start = n;

	*nl = *k = 0;
	for (i = 0; i < n; i++) {
		if (!steady[i])
			continue;
		if (start == n)
			start = i;
		if (!longv[i])
			continue;
		if (*nl == 0)
			*first = i;
		else if (*nl == 1)
			*k = i - *first;
		(*nl)++;
	}
	if (*nl < 2 || *k < 2 || *k > PERIOD_MAX || *first - start >= *k)
		return 0;
	for (i = 0; i < n; i++)
		if (steady[i] && longv[i] != (i >= *first &&
		    (i - *first) % *k == 0))
			return 0;
	return 1;
}

/*
 * Of a ledger_total of steps (or iterations), in start order: steps that
 * come back every k-th step, all PERIOD_RATIO times the median step or
 * longer while no other is, are periodic work.  Writes the period, the
 * first such step, how many, their time above the median step, and the
 * slices that hold most of it.
 */
void
op_put_periodic(struct oprank *r, struct jw *w, const struct agg *a)
{
	struct strbuf sb = { NULL, 0, 0 };
	int64_t *wall, med, extra = 0, *add, *base;
	size_t i, j, n = a->nlw, m = 0, nl = 0, first = 0, k = 0;
	size_t ns = op_lslices(r);
	uint8_t *steady, *longv;

	if (n < PERIOD_MIN || a->lw[0].num < 0)
		return;
	/* Warm-up, capture and compile steps are no period's. */
	steady = xcalloc(2 * n, 1);
	longv = steady + n;
	wall = xreallocarray(NULL, n, sizeof(*wall));
	for (i = 0; i < n; i++)
		if ((steady[i] = op_window_phase(r, a, &a->lw[i]) == WP_STEADY))
			wall[m++] = a->lw[i].wall;
	med = m > 0 ? wall[0] : 0;
	if (m > 0) {
		qsort(wall, m, sizeof(*wall), op_cmpi64);
		med = wall[(m - 1) / 2];
	}
	free(wall);
	for (i = 0; i < n; i++)
		longv[i] = (double)a->lw[i].wall >= PERIOD_RATIO * (double)med;
	/* A first step long with first-use work is no part of the period. */
	if (!period(steady, longv, n, &first, &k, &nl) && n > 0 && longv[0] &&
	    steady[0]) {
		steady[0] = 0;
		if (!period(steady, longv, n, &first, &k, &nl))
			k = 0;
	}
	for (i = m = 0; i < n; i++)
		m += steady[i];
	if (m < PERIOD_MIN || k == 0) {
		free(steady);
		return;
	}
	add = xcalloc(2 * ns, sizeof(*add));
	base = add + ns;
	for (i = 0; i < n; i++) {
		const struct lwin *lw = &a->lw[i];
		int64_t *to;

		if (!steady[i])
			continue;
		to = i >= first && (i - first) % k == 0 ? add : base;
		for (j = 0; j < lw->n; j++)
			to[a->ls[lw->off + j].slice] += a->ls[lw->off + j].ns;
		if (to == add)
			extra += lw->wall - med;
	}
	jw_key(w, "periodic");
	jw_begin_object(w);
	jw_key(w, "every");
	jw_uint(w, k);
	jw_key(w, "first");
	jw_int(w, a->lw[first].num);
	jw_key(w, "windows");
	jw_uint(w, nl);
	jw_key(w, "median");
	jw_us(w, med);
	jw_key(w, "extra");
	jw_us(w, extra);
	/* What the periodic steps hold beyond as many other steps, by slice. */
	jw_key(w, "slices");
	jw_begin_object(w);
	for (j = 0; j < ns; j++) {
		double more = (double)add[j] - (double)base[j] *
		    (double)nl / (double)(m - nl);

		if (more > 0 && more >= 0.05 * (double)extra) {
			jw_ckey(w, op_lslice_name(r, (uint32_t)j, &sb));
			jw_us(w, (int64_t)more);
		}
	}
	jw_end_object(w);
	jw_end_object(w);
	free(add);
	free(steady);
	sb_free(&sb);
}
