/*
 * opgpu: GPU work joined to the runtime calls that launched it, by sorting
 * both by correlation id rather than keeping a table of every id; the
 * phase each kernel's time goes to; and each device's timeline (busy,
 * computation, communication and copies, and what of the last two no
 * computation hides).  Reads the trace's spills; writes into its sums.
 */
#include "base/ival.h"
#include "trace/opcore.h"
#include "trace/opgpu.h"
#include "trace/opnames.h"
#include "trace/opsums.h"

int
op_cmprcall(const void *a, const void *b)
{
	const struct rcall *x = a, *y = b;

	if (x->corr != y->corr)
		return x->corr < y->corr ? -1 : 1;
	return (x->seq > y->seq) - (x->seq < y->seq);
}

int
op_cmplink(const void *a, const void *b)
{
	const struct link *x = a, *y = b;

	if (x->corr != y->corr)
		return x->corr < y->corr ? -1 : 1;
	return (x->order > y->order) - (x->order < y->order);
}

int
op_cmpgev(const void *a, const void *b)
{
	const struct gev *x = a, *y = b;

	if (x->corr != y->corr)
		return x->corr < y->corr ? -1 : 1;
	return (x->seq > y->seq) - (x->seq < y->seq);
}

/* Edges at one time may come in any order: this order is only a total one. */
int
op_cmpgedge(const void *a, const void *b)
{
	const struct gedge *x = a, *y = b;

	if (x->dev != y->dev)
		return x->dev < y->dev ? -1 : 1;
	if (x->t != y->t)
		return x->t < y->t ? -1 : 1;
	if (x->cls != y->cls)
		return x->cls < y->cls ? -1 : 1;
	return (x->delta > y->delta) - (x->delta < y->delta);
}

void
op_timelines(struct trace *t)
{
	struct devsum *ds;
	struct ivsweep sw;
	struct spillcur ec;
	const struct gedge *e;
	const struct dev *dev;
	size_t i;

	spill_open(&ec, &t->edges);
	e = spill_next(&ec);
	for (i = 0; i < t->ndvv; i++) {
		dev = t->dvv[i];
		ival_init(&sw, NGCLS);
		for (; e != NULL && e->dev == dev->idx; e = spill_next(&ec))
			ival_edge(&sw, e->t, e->cls, e->delta);
		ds = op_devsum_get(&t->a, &dev->dev);
		ds->events += dev->n;
		ds->window += dev->hi - dev->lo;
		ds->busy += sw.sum;
		ds->comp += sw.out[G_COMP];
		ds->xcomm += sw.out[G_COMM];
		ds->xmemcpy += sw.out[G_MEMCPY];
		ds->comm += sw.cover[G_COMM];
		ds->memcpy += sw.cover[G_MEMCPY];
	}
	spillcur_free(&ec);
}

/*
 * Gives each runtime call the sum, communication share and end of the GPU
 * work with its correlation id, and files it under its thread; a call
 * that launched none only where its caller is wanted.
 */
void
op_gpu_join(struct trace *t)
{
	struct spillcur gc, cc;
	const struct gev *g;
	const struct rcall *c;
	struct rev k;
	int have = 0;

	spill_open(&gc, &t->gk);
	spill_open(&cc, &t->rc);
	g = spill_next(&gc);
	while ((c = spill_next(&cc)) != NULL) {
		if (!have || k.corr != c->corr) {
			have = 0;
			while (g != NULL && g->corr < c->corr)
				g = spill_next(&gc);
			if (g == NULL || g->corr != c->corr) {
				/* No GPU work: wanted for its caller only. */
				if (c->slice != NO_CALLER)
					spill_add(&t->rt, &(struct rev){ c->ts,
					    c->corr, 0, 0, INT64_MIN, c->seq,
					    c->thr, c->dur, c->slice });
				continue;
			}
			k = (struct rev){ 0, c->corr, 0, 0, INT64_MIN, 0, 0,
			    0, NO_CALLER };
			for (; g != NULL && g->corr == k.corr;
			    g = spill_next(&gc)) {
				k.sum += g->dur;
				if (g->comm)
					k.comm += g->dur;
				if (g->end > k.end)
					k.end = g->end;
			}
			have = 1;
		}
		k.ts = c->ts;
		k.seq = c->seq;
		k.thr = c->thr;
		k.dur = c->dur;
		k.slice = c->slice;
		spill_add(&t->rt, &k);
	}
	spillcur_free(&gc);
	spillcur_free(&cc);
}

/*
 * GPU work goes to the phase that the last runtime call to launch it gave
 * it; what none launched is communication or "other".  For -p, each
 * kernel's time in that phase, as phase_total counts it.
 */
void
op_gpu_phases(struct oprank *r)
{
	struct trace *t = &r->t;
	struct spillcur gc, lc;
	const struct gev *g;
	const struct link *l;
	int64_t corr, sum, comm;
	int linked, ph, gph;

	spill_open(&gc, &t->gk);
	spill_open(&lc, &t->links);
	g = spill_next(&gc);
	l = spill_next(&lc);
	while (g != NULL) {
		corr = g->corr;
		while (l != NULL && l->corr < corr)
			l = spill_next(&lc);
		linked = 0;
		ph = PH_OTHER;
		for (; l != NULL && l->corr == corr; l = spill_next(&lc)) {
			linked = 1;
			ph = l->phase;
		}
		sum = comm = 0;
		for (; g != NULL && g->corr == corr; g = spill_next(&gc)) {
			sum += g->dur;
			if (g->comm)
				comm += g->dur;
			gph = r->names.v[g->name].gcls == G_COMM ? PH_COMM : ph;
			if (gph == r->phase)
				op_stat_add(&t->a.pst[g->name], g->dur, g->dur);
		}
		if (!linked) {
			t->a.ph_gpu[PH_COMM] += comm;
			t->a.ph_gpu[PH_OTHER] += sum - comm;
		}
	}
	spillcur_free(&gc);
	spillcur_free(&lc);
}
