/*
 * opgraph: GPU work by the runtime call that launched it, for CUDA and HIP
 * graph replays and for the serving steps.  A graph launch
 * (cudaGraphLaunch, hipGraphLaunch, cuGraphLaunch) runs every kernel of
 * the graph under its own correlation id, and none of them is linked to
 * an operator: they are the ledger's gpu_graph slice, ahead of any kernel
 * class, and the time from the launch's return to its first kernel, the
 * launch queued behind work the trace does not show, is graph_queued
 * rather than nothing traced.  Reads the trace's runtime calls and GPU
 * events by correlation id, as op_gpu_join() does; writes ledger edges,
 * the rank's graph sums (graph_replay records) and, when the trace has
 * serving labels, each launch's GPU work for opserve.c.
 */
#include <inttypes.h>
#include <stdlib.h>
#include <string.h>

#include "base/err.h"
#include "base/xalloc.h"
#include "trace/opbase.h"
#include "trace/opcore.h"
#include "trace/opfield.h"
#include "trace/opgpu.h"
#include "trace/opgraph.h"
#include "trace/opledger.h"
#include "trace/opserve.h"
#include "trace/opsums.h"

static void	put_us_pair(struct jw *, const char *, int64_t, int64_t,
		    int64_t);

int
op_cmplsum(const void *a, const void *b)
{
	const struct lsum *x = a, *y = b;

	if (x->thr != y->thr)
		return x->thr < y->thr ? -1 : 1;
	if (x->ts != y->ts)
		return x->ts < y->ts ? -1 : 1;
	return (x->seq > y->seq) - (x->seq < y->seq);
}

/*
 * Every runtime call with GPU work: a graph launch's kernels to the graph
 * slice and its sums, its wait for the first to the queued slice; each
 * call's work summed for the serving steps when there are any.
 */
void
op_graph_join(struct oprank *r)
{
	struct trace *t = &r->t;
	struct graphsum *gs = &t->a.graph;
	struct spillcur gc, cc;
	const struct gev *g;
	const struct rcall *c;
	struct lsum ls;
	int64_t corr = INT64_MIN, delay, ret;
	uint32_t queued = op_lslice_queued(r);
	int have = 0, graph, done = 0, k;

	spill_open(&gc, &t->gk);
	spill_open(&cc, &t->rc);
	g = spill_next(&gc);
	while ((c = spill_next(&cc)) != NULL) {
		graph = op_is_graph_launch(r->names.v[c->name].s);
		if (graph) {
			gs->launches++;
			gs->host = op_sat_add(gs->host, c->dur);
			if (c->dur > gs->host_max)
				gs->host_max = c->dur;
		}
		if (!graph && t->nslabel == 0)
			continue;
		if (!have || corr != c->corr) {
			/* The calls of one id share its work: summed once. */
			corr = c->corr;
			done = 0;
			while (g != NULL && g->corr < corr)
				g = spill_next(&gc);
			memset(&ls, 0, sizeof(ls));
			ls.first = INT64_MAX;
			ls.last = INT64_MIN;
			for (; g != NULL && g->corr == corr;
			    g = spill_next(&gc)) {
				if (g->end - g->dur < ls.first)
					ls.first = g->end - g->dur;
				if (g->end > ls.last)
					ls.last = g->end;
				ls.kernels++;
				ls.cls[op_lslice_kernel(r, g->name, g->memset) -
				    L_GEMM] += g->dur;
				if (graph)
					op_ledge(t, L_GRAPH, g->name,
					    LTHR_NONE, g->end - g->dur,
					    g->end);
			}
			have = 1;
		}
		if (ls.kernels == 0)
			continue;
		if (graph && !done) {
			done = 1;
			gs->ran++;
			gs->kernels = op_sat_add(gs->kernels, ls.kernels);
			for (k = 0; k < NKCLS; k++)
				gs->kernel_time = op_sat_add(gs->kernel_time,
				    ls.cls[k]);
			ret = c->ts + c->dur;
			delay = ls.first > ret ? ls.first - ret : 0;
			gs->delay = op_sat_add(gs->delay, delay);
			if (delay > gs->delay_max)
				gs->delay_max = delay;
			op_ledge(t, queued, c->name, LTHR_NONE, ret, ls.first);
		}
		if (t->nslabel > 0) {
			ls.thr = c->thr;
			ls.ts = c->ts;
			ls.seq = c->seq;
			spill_add(&t->launches, &ls);
		}
	}
	spillcur_free(&gc);
	spillcur_free(&cc);
}

/* {"mean": sum / n, "max": max} under key, in µs; null without n. */
static void
put_us_pair(struct jw *w, const char *key, int64_t sum, int64_t n,
    int64_t max)
{
	jw_ckey(w, key);
	if (n <= 0) {
		jw_null(w);
		return;
	}
	jw_begin_object(w);
	jw_key(w, "mean");
	jw_us(w, sum / n);
	jw_key(w, "max");
	jw_us(w, max);
	jw_end_object(w);
}

/*
 * The rank's graph_replay record, where it launched graphs: the launches,
 * their kernels, the GPU time inside replays and its share of the GPU's
 * busy time over the ledger's windows (the gpu_graph slice over all the
 * GPU's), the queued time, the delays and host times per launch, and the
 * user's frame that replays most (the launches' issuers).
 */
void
op_put_graph(struct oprank *r, struct jw *w, struct agg *a)
{
	const struct graphsum *gs = &a->graph;
	struct lread lr;
	struct lwinv wv;
	int64_t busy = 0, inside = 0, queued = 0, best = -1;
	uint32_t q = op_lslice_queued(r), frame = NO_WHO, call = NO_WHO;
	struct strent **ent;
	size_t j;

	if (gs->launches == 0)
		return;
	wv.v = xreallocarray(NULL, op_lslices(r), sizeof(*wv.v));
	op_ledger_open(&lr, a);
	while (op_ledger_next(&lr, &wv))
		for (j = 0; j < wv.n; j++) {
			if (wv.v[j].slice < L_GPU_END)
				busy = op_sat_add(busy, wv.v[j].ns);
			if (wv.v[j].slice == L_GRAPH)
				inside = op_sat_add(inside, wv.v[j].ns);
			else if (wv.v[j].slice == q)
				queued = op_sat_add(queued, wv.v[j].ns);
		}
	op_ledger_close(&lr);
	free(wv.v);
	ent = strmap_sorted(&a->issuers);
	for (j = 0; j < a->issuers.count; j++) {
		const struct bkey *k = (const struct bkey *)ent[j]->key;
		const struct rtsum *rs = ent[j]->val;

		if (k->slice == L_LAUNCH && k->call != NO_WHO &&
		    op_is_graph_launch(r->names.v[k->call].s) &&
		    rs->total > best) {
			best = rs->total;
			frame = k->frame;
			call = k->call;
		}
	}
	free(ent);
	jw_record(w, "graph_replay");
	op_put_rank(w, a->rank);
	jw_key(w, "call");
	jw_cstring_or_null(w, call != NO_WHO ? r->names.v[call].s : NULL);
	jw_key(w, "launches");
	jw_int(w, gs->launches);
	jw_key(w, "launches_with_kernels");
	jw_int(w, gs->ran);
	jw_key(w, "kernels");
	jw_int(w, gs->kernels);
	jw_key(w, "kernels_per_launch");
	jw_ratio3(w, gs->kernels, gs->ran);
	jw_key(w, "kernel_time");
	jw_us(w, gs->kernel_time);
	jw_key(w, "gpu_time");
	jw_us(w, inside);
	jw_key(w, "gpu_busy");
	jw_us(w, busy);
	jw_key(w, "coverage");
	jw_ratio3(w, inside, busy);
	jw_key(w, "queued");
	jw_us(w, queued);
	put_us_pair(w, "launch_delay", gs->delay, gs->ran, gs->delay_max);
	put_us_pair(w, "host_per_launch", gs->host, gs->launches,
	    gs->host_max);
	jw_key(w, "frame");
	jw_cstring_or_null(w, frame != NO_WHO ? r->names.v[frame].s : NULL);
	jw_end(w);
}

size_t
op_put_graph_partial(struct jw *w, const struct agg *a)
{
	const struct graphsum *gs = &a->graph;

	if (gs->launches == 0)
		return 0;
	jw_record(w, "op_partial_graph");
	op_put_rank(w, a->rank);
	opf_put(w, &op_graphsum_fields, gs);
	jw_end(w);
	return 1;
}

/* op_put_graph_partial()'s record, added to the rank's sums. */
int
op_graph_partial(struct oprank *r, struct agg *a)
{
	struct graphsum gs;

	if (opf_get(r, 0, &op_graphsum_fields, &gs) < 0)
		return -1;
	if (gs.ran > gs.launches || gs.delay_max > gs.delay ||
	    gs.host_max > gs.host || (gs.ran == 0) != (gs.kernels == 0))
		return jdoc_error(r->file, r->doc, 0, "\"op_partial_graph\""
		    " does not add up: more launches with kernels than"
		    " launches, or a maximum above its sum");
	opf_merge(&op_graphsum_fields, &a->graph, &gs);
	return 0;
}
