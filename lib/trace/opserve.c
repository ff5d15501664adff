/*
 * opserve: the steps of serving engines, from their labels
 * (lib/trace/servelabel, rubric/serve-steps.tsv).  Each label that reads
 * as a step is one, with the phase, requests and tokens it says; a label
 * inside another on its thread is the same step.  The GPU work of a step
 * is what the runtime calls under its label launched (opgraph.c sums it
 * by call), graph replays included.  A step's time is measured on the
 * GPU: the end of its last GPU work minus the end of the previous step's,
 * or its first GPU work's start for the first of a trace, not the host's
 * label.  A label that starts as a step's does but reads as none is
 * counted and named in a warning, never made a step.  Per phase: the
 * steps' time (mean, p50, p90), tokens a second and kernel time by class;
 * of decode steps the time per output token by batch size, of mixed
 * steps the time they take past decode steps of their batch (prefill
 * interference), and a lower bound of the time to first token.
 */
#include <inttypes.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "base/err.h"
#include "base/xalloc.h"
#include "trace/opbase.h"
#include "trace/opcore.h"
#include "trace/opfield.h"
#include "trace/opledger.h"
#include "trace/opserve.h"
#include "trace/opsums.h"

#define BADLABEL	160	/* bytes of a bad label kept for its warning */
#define MAXBATCH	64	/* decode batch sizes summed apart */

/* A label read as a step, on its thread, as read. */
struct slabel {
	uint64_t		thr;
	int64_t			ts, end;
	uint32_t		seq;
	struct servestep	st;
};

/* A phase's step times, with a weight (ttft: the prefill requests). */
struct wdur {
	int64_t		dur, weight;
};

/* A decode batch size's steps. */
struct batch {
	int64_t		size, steps, time;
};

static int	cmpslabel(const void *, const void *);
static int	cmpsstep(const void *, const void *);
static int	cmpwdur(const void *, const void *);
static int	cmpbatch(const void *, const void *);
static void	keep_bad(struct agg *, const char *, size_t);
static void	step_add(struct agg *, const struct sstep *);
static double	percentile(struct spill *, int64_t, double);
static void	put_opt(struct jw *, const char *, int64_t);
static void	put_step(struct oprank *, struct jw *, const struct agg *,
		    const struct sstep *);
static void	put_classes(struct jw *, const int64_t *);
static struct batch	*batch_of(struct batch *, size_t *, int64_t);

static int
cmpslabel(const void *a, const void *b)
{
	const struct slabel *x = a, *y = b;

	if (x->thr != y->thr)
		return x->thr < y->thr ? -1 : 1;
	if (x->ts != y->ts)
		return x->ts < y->ts ? -1 : 1;
	/* The outer of two that start together first. */
	if (x->end != y->end)
		return x->end > y->end ? -1 : 1;
	return (x->seq > y->seq) - (x->seq < y->seq);
}

static int
cmpsstep(const void *a, const void *b)
{
	const struct sstep *x = a, *y = b;

	if (x->ts != y->ts)
		return x->ts < y->ts ? -1 : 1;
	return (x->seq > y->seq) - (x->seq < y->seq);
}

static int
cmpwdur(const void *a, const void *b)
{
	const struct wdur *x = a, *y = b;

	if (x->dur != y->dur)
		return x->dur < y->dur ? -1 : 1;
	return (x->weight > y->weight) - (x->weight < y->weight);
}

static int
cmpbatch(const void *a, const void *b)
{
	const struct batch *x = a, *y = b;

	return (x->size > y->size) - (x->size < y->size);
}

/* The first bad label, cut at a character's start, for the warning. */
static void
keep_bad(struct agg *a, const char *s, size_t len)
{
	if (a->serve_badlabel != NULL)
		return;
	if (len > BADLABEL) {
		len = BADLABEL;
		while (len > 0 && ((unsigned char)s[len] & 0xc0) == 0x80)
			len--;
	}
	a->serve_badlabel = xmalloc(len + 1);
	memcpy(a->serve_badlabel, s, len);
	a->serve_badlabel[len] = '\0';
}

/* A record_function label s of the trace at hand, from ts to end. */
void
op_serve_label(struct oprank *r, const char *s, size_t len, int64_t ts,
    int64_t end, uint64_t thr)
{
	struct trace *t = &r->t;
	struct slabel l;

	switch (servelabel_parse(r->serve, s, len, &l.st)) {
	case SL_STEP:
		if (t->nslabel++ == 0)
			spill_init(&t->slabels, t->a.pool, sizeof(l),
			    cmpslabel);
		l.thr = thr;
		l.ts = ts;
		l.end = end;
		l.seq = t->seq++;
		spill_add(&t->slabels, &l);
		break;
	case SL_BAD:
		t->a.serve_bad++;
		keep_bad(&t->a, s, len);
		break;
	}
}

static void
step_add(struct agg *a, const struct sstep *st)
{
	if (a->nserve++ == 0)
		spill_init(&a->serve, a->pool, sizeof(*st), cmpsstep);
	spill_add(&a->serve, st);
}

/*
 * The trace's steps: its outermost labels, each with the GPU work of the
 * runtime calls its thread made under it, then timed in start order and
 * added to the trace's sums in the rank's time (origin on).
 */
void
op_serve_steps(struct oprank *r, int64_t origin)
{
	struct trace *t = &r->t;
	struct spill steps;
	struct spillcur lc, kc, sc;
	const struct slabel *l;
	const struct lsum *k;
	const struct sstep *cs;
	struct sstep st;
	uint64_t othr = 0;
	int64_t oend = INT64_MIN, prev = INT64_MIN;
	int i;

	if (t->nslabel == 0)
		return;
	spill_init(&steps, t->a.pool, sizeof(st), cmpsstep);
	spill_open(&lc, &t->slabels);
	spill_open(&kc, &t->launches);
	k = spill_next(&kc);
	while ((l = spill_next(&lc)) != NULL) {
		if (oend != INT64_MIN && l->thr == othr && l->ts < oend)
			continue;
		othr = l->thr;
		oend = l->end;
		memset(&st, 0, sizeof(st));
		st.ts = l->ts;
		st.host = l->end - l->ts;
		st.first = INT64_MAX;
		st.last = INT64_MIN;
		memcpy(st.f, l->st.f, sizeof(st.f));
		st.requests = l->st.requests;
		st.prefill_requests = l->st.prefill_requests;
		st.decode_requests = l->st.decode_requests;
		st.tokens = l->st.tokens;
		st.prefill_tokens = l->st.prefill_tokens;
		st.decode_tokens = l->st.decode_tokens;
		st.engine = l->st.engine;
		st.phase = l->st.phase;
		st.seq = l->seq;
		memcpy(st.mode, l->st.mode, sizeof(st.mode));
		while (k != NULL && (k->thr < l->thr ||
		    (k->thr == l->thr && k->ts < l->ts)))
			k = spill_next(&kc);
		for (; k != NULL && k->thr == l->thr && k->ts < l->end;
		    k = spill_next(&kc)) {
			if (k->first < st.first)
				st.first = k->first;
			if (k->last > st.last)
				st.last = k->last;
			st.kernels += k->kernels;
			for (i = 0; i < NKCLS; i++)
				st.cls[i] += k->cls[i];
		}
		spill_add(&steps, &st);
	}
	spillcur_free(&lc);
	spillcur_free(&kc);
	/*
	 * In start order, each step's time runs from the previous step's
	 * last GPU work, captures aside: they run before serving starts.
	 */
	spill_open(&sc, &steps);
	while ((cs = spill_next(&sc)) != NULL) {
		st = *cs;
		st.dur = -1;
		if (st.kernels > 0) {
			st.dur = st.phase != SP_CAPTURE && prev != INT64_MIN &&
			    prev < st.last ? st.last - prev :
			    st.last - st.first;
			if (st.phase != SP_CAPTURE)
				prev = st.last;
			st.first += origin;
			st.last += origin;
		} else
			st.first = st.last = 0;
		st.ts += origin;
		step_add(&t->a, &st);
	}
	spillcur_free(&sc);
	spill_free(&steps);
}

void
op_serve_merge(struct agg *dst, struct agg *src)
{
	struct spillcur c;
	const struct sstep *st;

	if (src->nserve > 0) {
		spill_open(&c, &src->serve);
		while ((st = spill_next(&c)) != NULL)
			step_add(dst, st);
		spillcur_free(&c);
	}
	dst->serve_bad = op_sat_add(dst->serve_bad, src->serve_bad);
	if (dst->serve_badlabel == NULL && src->serve_badlabel != NULL)
		keep_bad(dst, src->serve_badlabel,
		    strlen(src->serve_badlabel));
}

void
op_serve_free(struct agg *a)
{
	if (a->nserve > 0)
		spill_free(&a->serve);
	a->nserve = 0;
	free(a->serve_badlabel);
	a->serve_badlabel = NULL;
}

/*
 * The p-quantile of the n durations of spill sp, sorted, interpolated
 * between the two nearest as numpy.percentile() does by default.
 */
static double
percentile(struct spill *sp, int64_t n, double p)
{
	struct spillcur c;
	const struct wdur *v;
	double pos = p * (double)(n - 1), lo = 0, hi = 0;
	int64_t i, at = (int64_t)floor(pos);

	spill_open(&c, sp);
	for (i = 0; (v = spill_next(&c)) != NULL && i <= at + 1; i++) {
		if (i == at)
			lo = hi = (double)v->dur;
		else if (i == at + 1)
			hi = (double)v->dur;
	}
	spillcur_free(&c);
	return lo + (pos - (double)at) * (hi - lo);
}

/* A count or size, null when unknown (-1). */
static void
put_opt(struct jw *w, const char *key, int64_t v)
{
	jw_ckey(w, key);
	if (v < 0)
		jw_null(w);
	else
		jw_int(w, v);
}

/* Kernel time by class, the ledger's GPU slices, those with any. */
static void
put_classes(struct jw *w, const int64_t *cls)
{
	static const char *const name[NKCLS] = {
		"gpu_gemm", "gpu_conv", "gpu_attention", "gpu_other",
		"gpu_memset", "gpu_comm", "gpu_memcpy"
	};
	int i;

	jw_key(w, "kernel_time");
	jw_begin_object(w);
	for (i = 0; i < NKCLS; i++)
		if (cls[i] > 0) {
			jw_ckey(w, name[i]);
			jw_us(w, cls[i]);
		}
	jw_end_object(w);
}

static void
put_step(struct oprank *r, struct jw *w, const struct agg *a,
    const struct sstep *st)
{
	int i;

	jw_record(w, "serve_step");
	op_put_rank(w, a->rank);
	jw_key(w, "engine");
	jw_cstring(w, servetab_engine(r->serve, st->engine));
	jw_key(w, "phase");
	jw_cstring(w, serve_phasename[st->phase]);
	if (st->mode[0] != '\0') {
		jw_key(w, "mode");
		jw_cstring(w, st->mode);
	}
	jw_key(w, "ts");
	jw_us(w, st->ts - a->origin);
	jw_key(w, "host_dur");
	jw_us(w, st->host);
	jw_key(w, "gpu_start");
	if (st->dur >= 0)
		jw_us(w, st->first - a->origin);
	else
		jw_null(w);
	jw_key(w, "gpu_end");
	if (st->dur >= 0)
		jw_us(w, st->last - a->origin);
	else
		jw_null(w);
	jw_key(w, "dur");
	if (st->dur >= 0)
		jw_us(w, st->dur);
	else
		jw_null(w);
	if (st->phase == SP_CAPTURE) {
		put_opt(w, "batch", st->requests);
	} else {
		put_opt(w, "requests", st->requests);
		put_opt(w, "prefill_requests", st->prefill_requests);
		put_opt(w, "decode_requests", st->decode_requests);
		put_opt(w, "tokens", st->tokens);
		put_opt(w, "prefill_tokens", st->prefill_tokens);
		put_opt(w, "decode_tokens", st->decode_tokens);
	}
	jw_key(w, "kernels");
	jw_int(w, st->kernels);
	put_classes(w, st->cls);
	jw_key(w, "label");
	jw_begin_object(w);
	for (i = 0; i < NSFIELD; i++)
		if (st->f[i] >= 0) {
			jw_ckey(w, serve_fieldname[i]);
			jw_int(w, st->f[i]);
		}
	jw_end_object(w);
	jw_end(w);
}

/* The entry of decode batch size n in v (sorted), made when room is left. */
static struct batch *
batch_of(struct batch *v, size_t *n, int64_t size)
{
	struct batch key = { size, 0, 0 }, *b;
	size_t i;

	if ((b = bsearch(&key, v, *n, sizeof(*v), cmpbatch)) != NULL ||
	    *n == MAXBATCH)
		return b;
	for (i = *n; i > 0 && v[i - 1].size > size; i--)
		v[i] = v[i - 1];
	v[i] = key;
	(*n)++;
	return &v[i];
}

/*
 * The rank's serving steps: a warning for labels that read as none, a
 * serve_step record per step, a serve_phase record per phase with steps
 * (captures only counted), and a serve_summary.
 */
void
op_put_serve(struct oprank *r, struct jw *w, struct agg *a)
{
	struct spillcur c;
	const struct sstep *st;
	struct spill durs[NSPHASE], ttft;
	struct batch batches[MAXBATCH], *b;
	size_t nbatch = 0;
	int64_t n[NSPHASE] = { 0 }, timed[NSPHASE] = { 0 };
	int64_t time[NSPHASE] = { 0 }, host[NSPHASE] = { 0 };
	int64_t req[NSPHASE] = { 0 }, tok[NSPHASE] = { 0 };
	int64_t mn[NSPHASE], mx[NSPHASE], cls[NSPHASE][NKCLS];
	int64_t ntok[NSPHASE] = { 0 }, tottok = 0, tottime = 0, nttft = 0;
	int64_t nattn[NSPHASE] = { 0 };
	double attn[NSPHASE][3];
	int64_t wsum = 0, cum = 0, extra = 0, nextra = 0, bound = -1;
	double tpot = 0;
	const struct wdur *wd;
	char msg[BADLABEL + 256];
	int p, i;

	if (a->serve_bad > 0) {
		snprintf(msg, sizeof(msg), "%" PRId64 " label%s start%s as a"
		    " serving engine's step label does but read%s as no step"
		    " (rubric/serve-steps.tsv), and %s not counted: \"%s\"",
		    a->serve_bad, a->serve_bad == 1 ? "" : "s",
		    a->serve_bad == 1 ? "s" : "", a->serve_bad == 1 ? "s" : "",
		    a->serve_bad == 1 ? "is" : "are",
		    a->serve_badlabel != NULL ? a->serve_badlabel : "");
		op_put_warning(w, a->rank, msg);
	}
	if (a->nserve == 0)
		return;
	memset(cls, 0, sizeof(cls));
	memset(attn, 0, sizeof(attn));
	for (p = 0; p < NSPHASE; p++) {
		spill_init(&durs[p], a->pool, sizeof(struct wdur), cmpwdur);
		mn[p] = INT64_MAX;
		mx[p] = 0;
	}
	spill_init(&ttft, a->pool, sizeof(struct wdur), cmpwdur);
	spill_open(&c, &a->serve);
	while ((st = spill_next(&c)) != NULL) {
		put_step(r, w, a, st);
		p = st->phase;
		n[p]++;
		host[p] = op_sat_add(host[p], st->host);
		if (st->dur < 0 || p == SP_CAPTURE)
			continue;
		timed[p]++;
		time[p] = op_sat_add(time[p], st->dur);
		if (st->dur < mn[p])
			mn[p] = st->dur;
		if (st->dur > mx[p])
			mx[p] = st->dur;
		spill_add(&durs[p], &(struct wdur){ st->dur, 0 });
		req[p] = op_sat_add(req[p], st->requests);
		if (st->tokens >= 0) {
			tok[p] = op_sat_add(tok[p], st->tokens);
			ntok[p]++;
		}
		for (i = 0; i < NKCLS; i++)
			cls[p][i] = op_sat_add(cls[p][i], st->cls[i]);
		/* Attention's sums, for its FLOPs (TraceLens's formulas). */
		if (st->f[SF_C_SQSK] >= 0 && st->f[SF_C_SQSQ] >= 0 &&
		    st->f[SF_G_SQSK] >= 0) {
			attn[p][0] += (double)st->f[SF_C_SQSK];
			attn[p][1] += (double)st->f[SF_C_SQSQ];
			attn[p][2] += (double)st->f[SF_G_SQSK];
			nattn[p]++;
		}
		if (p == SP_DECODE && (b = batch_of(batches, &nbatch,
		    st->requests)) != NULL) {
			b->steps++;
			b->time = op_sat_add(b->time, st->dur);
		}
		/* A request's first token comes after its step began. */
		if (st->prefill_requests != 0) {
			spill_add(&ttft, &(struct wdur){ st->last - st->ts,
			    st->prefill_requests > 0 ? st->prefill_requests :
			    1 });
			nttft++;
		}
	}
	spillcur_free(&c);
	/* Mixed steps past the decode steps of their batch, or of all. */
	if (timed[SP_MIXED] > 0 && timed[SP_DECODE] > 0) {
		tpot = (double)time[SP_DECODE] / (double)timed[SP_DECODE];
		spill_open(&c, &a->serve);
		while ((st = spill_next(&c)) != NULL) {
			struct batch key = { st->decode_requests, 0, 0 };

			if (st->phase != SP_MIXED || st->dur < 0)
				continue;
			b = st->decode_requests > 0 ? bsearch(&key, batches,
			    nbatch, sizeof(*batches), cmpbatch) : NULL;
			extra += st->dur - (int64_t)llround(b != NULL ?
			    (double)b->time / (double)b->steps : tpot);
			nextra++;
		}
		spillcur_free(&c);
	}
	if (nttft > 0) {
		spill_open(&c, &ttft);
		while ((wd = spill_next(&c)) != NULL)
			wsum = op_sat_add(wsum, wd->weight);
		spillcur_free(&c);
		spill_open(&c, &ttft);
		while ((wd = spill_next(&c)) != NULL && bound < 0) {
			cum = op_sat_add(cum, wd->weight);
			if (2 * (double)cum >= (double)wsum)
				bound = wd->dur;
		}
		spillcur_free(&c);
	}
	for (p = 0; p < NSPHASE; p++) {
		if (n[p] == 0 || p == SP_CAPTURE)
			continue;
		jw_record(w, "serve_phase");
		op_put_rank(w, a->rank);
		jw_key(w, "phase");
		jw_cstring(w, serve_phasename[p]);
		jw_key(w, "steps");
		jw_int(w, n[p]);
		jw_key(w, "timed_steps");
		jw_int(w, timed[p]);
		jw_key(w, "host_mean");
		jw_us(w, host[p] / n[p]);
		if (timed[p] > 0) {
			jw_key(w, "time");
			jw_us(w, time[p]);
			jw_key(w, "mean");
			jw_us(w, time[p] / timed[p]);
			jw_key(w, "p50");
			jw_us(w, llround(percentile(&durs[p], timed[p], 0.5)));
			jw_key(w, "p90");
			jw_us(w, llround(percentile(&durs[p], timed[p], 0.9)));
			jw_key(w, "min");
			jw_us(w, mn[p]);
			jw_key(w, "max");
			jw_us(w, mx[p]);
			jw_key(w, "requests");
			jw_int(w, req[p]);
			jw_key(w, "mean_batch");
			jw_double(w, op_round3((double)req[p] /
			    (double)timed[p]));
			jw_key(w, "tokens");
			if (ntok[p] == timed[p])
				jw_int(w, tok[p]);
			else
				jw_null(w);
			jw_key(w, "tokens_per_s");
			if (ntok[p] == timed[p] && time[p] > 0)
				jw_double(w, op_round3((double)tok[p] * 1e9 /
				    (double)time[p]));
			else
				jw_null(w);
			put_classes(w, cls[p]);
			if (nattn[p] == timed[p]) {
				jw_key(w, "attention_sums");
				jw_begin_object(w);
				jw_key(w, "c_sqsk");
				jw_double(w, attn[p][0]);
				jw_key(w, "c_sqsq");
				jw_double(w, attn[p][1]);
				jw_key(w, "g_sqsk");
				jw_double(w, attn[p][2]);
				jw_end_object(w);
			}
			if (ntok[p] == timed[p]) {
				tottok = op_sat_add(tottok, tok[p]);
				tottime = op_sat_add(tottime, time[p]);
			}
		}
		if (p == SP_DECODE && timed[p] > 0) {
			jw_key(w, "by_batch");
			jw_begin_array(w);
			for (i = 0; i < (int)nbatch; i++) {
				jw_begin_object(w);
				jw_key(w, "batch");
				jw_int(w, batches[i].size);
				jw_key(w, "steps");
				jw_int(w, batches[i].steps);
				jw_key(w, "mean");
				jw_us(w, batches[i].time / batches[i].steps);
				jw_end_object(w);
			}
			jw_end_array(w);
		}
		if (p == SP_MIXED && nextra > 0) {
			jw_key(w, "interference");
			jw_us(w, extra / nextra);
		}
		jw_end(w);
	}
	jw_record(w, "serve_summary");
	op_put_rank(w, a->rank);
	jw_key(w, "steps");
	jw_int(w, n[SP_PREFILL] + n[SP_DECODE] + n[SP_MIXED]);
	jw_key(w, "capture_steps");
	jw_int(w, n[SP_CAPTURE]);
	jw_key(w, "tpot");
	if (timed[SP_DECODE] > 0)
		jw_us(w, time[SP_DECODE] / timed[SP_DECODE]);
	else
		jw_null(w);
	jw_key(w, "ttft_lower_bound");
	if (bound >= 0)
		jw_us(w, bound);
	else
		jw_null(w);
	jw_key(w, "tokens_per_s");
	jw_ratio3(w, (double)tottok * 1e9, tottime);
	jw_end(w);
	for (p = 0; p < NSPHASE; p++)
		spill_free(&durs[p]);
	spill_free(&ttft);
}

size_t
op_put_serve_partials(struct oprank *r, struct jw *w, struct agg *a)
{
	struct spillcur c;
	const struct sstep *st;
	int64_t counts[6];
	size_t n = 0;

	if (a->serve_bad > 0) {
		jw_record(w, "op_partial_serve");
		op_put_rank(w, a->rank);
		jw_key(w, "bad_labels");
		jw_int(w, a->serve_bad);
		jw_key(w, "bad_label");
		jw_cstring_or_null(w, a->serve_badlabel);
		jw_end(w);
		n++;
	}
	if (a->nserve == 0)
		return n;
	spill_open(&c, &a->serve);
	while ((st = spill_next(&c)) != NULL) {
		jw_record(w, "op_partial_serve_step");
		op_put_rank(w, a->rank);
		jw_key(w, "engine");
		jw_cstring(w, servetab_engine(r->serve, st->engine));
		jw_key(w, "phase");
		jw_cstring(w, serve_phasename[st->phase]);
		jw_key(w, "mode");
		jw_cstring(w, st->mode);
		jw_key(w, "ts");
		jw_int(w, st->ts);
		jw_key(w, "host");
		jw_int(w, st->host);
		jw_key(w, "first");
		jw_int(w, st->first);
		jw_key(w, "last");
		jw_int(w, st->last);
		jw_key(w, "dur");
		jw_int(w, st->dur);
		jw_key(w, "kernels");
		jw_int(w, st->kernels);
		op_put_nums(w, "classes", st->cls, NKCLS);
		op_put_nums(w, "fields", st->f, NSFIELD);
		counts[0] = st->requests;
		counts[1] = st->prefill_requests;
		counts[2] = st->decode_requests;
		counts[3] = st->tokens;
		counts[4] = st->prefill_tokens;
		counts[5] = st->decode_tokens;
		op_put_nums(w, "counts", counts, 6);
		jw_end(w);
		n++;
	}
	spillcur_free(&c);
	return n;
}

/*
 * A partial's op_partial_serve record (its bad labels) or
 * op_partial_serve_step record, checked as a trace's steps would be.
 */
int
op_serve_partial(struct oprank *r, struct agg *a)
{
	const struct jdoc *d = r->doc;
	struct sstep st;
	const char *s;
	size_t len;
	int64_t v[6];
	int i;

	if (strcmp(ndin_kind(d), "op_partial_serve") == 0) {
		if (op_get_num(r, 0, "bad_labels", P_SIZE, &v[0]) < 0)
			return -1;
		a->serve_bad = op_sat_add(a->serve_bad, v[0]);
		if (jdoc_get_str(d, 0, "bad_label", &s, &len) == 0)
			keep_bad(a, s, len);
		return 0;
	}
	memset(&st, 0, sizeof(st));
	if (jdoc_get_str(d, 0, "engine", &s, NULL) < 0 ||
	    (st.engine = servetab_engine_index(r->serve, s)) < 0)
		return jdoc_error(r->file, d, 0, "\"op_partial_serve_step\""
		    " of an engine %s has no row", SERVE_NAME);
	if (jdoc_get_str(d, 0, "phase", &s, NULL) < 0)
		s = "";
	for (st.phase = 0; st.phase < NSPHASE &&
	    strcmp(s, serve_phasename[st.phase]) != 0; st.phase++)
		;
	if (st.phase == NSPHASE)
		return jdoc_error(r->file, d, 0, "\"op_partial_serve_step\""
		    " has no phase of a serving step");
	if (jdoc_get_str(d, 0, "mode", &s, &len) < 0 ||
	    len >= SERVE_MODE || strlen(s) != len)
		return jdoc_error(r->file, d, 0, "\"op_partial_serve_step\""
		    " lacks a \"mode\" of at most %d bytes", SERVE_MODE - 1);
	memcpy(st.mode, s, len);
	if (op_get_num(r, 0, "ts", P_TIME, &st.ts) < 0 ||
	    op_get_num(r, 0, "host", P_SIZE, &st.host) < 0 ||
	    op_get_num(r, 0, "first", P_TIME, &st.first) < 0 ||
	    op_get_num(r, 0, "last", P_TIME, &st.last) < 0 ||
	    op_get_num(r, 0, "dur", P_TIME, &st.dur) < 0 ||
	    op_get_num(r, 0, "kernels", P_SIZE, &st.kernels) < 0 ||
	    op_get_nums(r, "classes", P_SIZE, st.cls, NKCLS) < 0 ||
	    op_get_nums(r, "fields", P_ANY, st.f, NSFIELD) < 0 ||
	    op_get_nums(r, "counts", P_ANY, v, 6) < 0)
		return -1;
	for (i = 0; i < NSFIELD; i++)
		if (st.f[i] < -1 || st.f[i] >= SERVE_MAXV)
			return jdoc_error(r->file, d, 0, "\"fields\" holds a"
			    " value out of range");
	for (i = 0; i < 6; i++)
		if (v[i] < -1 || v[i] >= SERVE_MAXV)
			return jdoc_error(r->file, d, 0, "\"counts\" holds a"
			    " value out of range");
	if (st.dur < -1 || (st.dur >= 0) != (st.kernels > 0) ||
	    (st.dur >= 0 && st.first > st.last))
		return jdoc_error(r->file, d, 0, "\"op_partial_serve_step\""
		    " does not add up: a time without GPU work, or GPU work"
		    " that ends before it starts");
	st.requests = v[0];
	st.prefill_requests = v[1];
	st.decode_requests = v[2];
	st.tokens = v[3];
	st.prefill_tokens = v[4];
	st.decode_tokens = v[5];
	st.seq = (uint32_t)a->nserve;
	step_add(a, &st);
	return 0;
}
