/*
 * cprank: a rank's passes (see cprank.h).  Each is a sort of fixed-size
 * records in a spill (memory up to the pool's budget, then sorted runs in
 * a temporary file) and one sweep over them in order; what a sweep finds
 * of an event goes, as a fact, to the last pass, which joins the facts to
 * the events by their idx.  Ties fall as in HTA's dataframes.
 */
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "base/xalloc.h"
#include "trace/cpcore.h"
#include "trace/cprank.h"
#include "trace/opbase.h"

/*
 * The event syncs' join by correlation: a cudaEventRecord call by its
 * own, each sync by the one it waits on.
 */
struct ritem {
	int64_t		 key;
	uint32_t	 type;		/* R_RECORD, R_SYNC */
	uint32_t	 idx;
	int64_t		 ts;		/* a record's start */
	int32_t		 stream;	/* a sync's recorded stream, or -1 */
	int32_t		 src;		/* a record's last launched work */
};

enum { R_RECORD, R_SYNC };

/* A stream's queue: each launch's +1 and each start's -1. */
struct qitem {
	int64_t		 ts;
	uint32_t	 stream;
	uint32_t	 later;		/* a start, after the launches at ts */
	uint32_t	 order;		/* the event's idx */
	uint32_t	 gpu;
	uint32_t	 graph;		/* a graph launch's */
};

/* Launches and records by stream and time: the work a record waits for. */
struct litem {
	int64_t		 ts;
	uint32_t	 stream;
	uint32_t	 type;		/* L_LAUNCH, then L_RECORD at one ts */
	uint32_t	 host, gpu;	/* a record: its idx, and 0 */
	int64_t		 corr;		/* a record's */
};

enum { L_LAUNCH, L_RECORD };

/* Launches and waits by stream, thread and time: the work a wait holds. */
struct ditem {
	int64_t		 ts;
	uint32_t	 stream;
	int32_t		 thread;
	uint32_t	 type;		/* L_LAUNCH, then L_WAIT at one ts */
	uint32_t	 host, gpu;	/* a wait: its idx, and 0 */
};

enum { L_WAIT = 1 };

/* What a sweep found of event idx. */
struct fact {
	uint32_t	 idx;
	uint32_t	 field;
	int32_t		 value;
};

enum { F_QUEUE, F_QUEUE_AT, F_REC_SRC, F_WAIT_DEST };

#define CMP(a, b)	((a) < (b) ? -1 : (a) > (b))

/* HTA's GPUKernelFilter: GPU work, and the syncs that run on the device. */
static int
gpu_side(const struct critpath *cp, const struct ev *e)
{
	return (e->kind == K_GPU && e->corr >= 0) ||
	    (e->kind == K_SYNC && (cp->name[e->name].sync == S_EVENT ||
	    cp->name[e->name].sync == S_CONTEXT || e->stream >= 0));
}

static int
bycorr_cmp(const void *a, const void *b)
{
	const struct ev *x = a, *y = b;

	if (x->corr != y->corr)
		return CMP(x->corr, y->corr);
	/* The host's side first: link holds the side (cpr_add()). */
	if (x->link != y->link)
		return CMP(x->link, y->link);
	return CMP(x->idx, y->idx);
}

static int
byidx_cmp(const void *a, const void *b)
{
	return CMP(((const struct ev *)a)->idx, ((const struct ev *)b)->idx);
}

static int
bysel_cmp(const void *a, const void *b)
{
	const struct ev *x = a, *y = b;

	if (x->sel != y->sel)
		return CMP(x->sel, y->sel);
	return CMP(x->idx, y->idx);
}

static int
ritem_cmp(const void *a, const void *b)
{
	const struct ritem *x = a, *y = b;

	if (x->key != y->key)
		return CMP(x->key, y->key);
	if (x->type != y->type)
		return CMP(x->type, y->type);
	return CMP(x->idx, y->idx);
}

static int
qitem_cmp(const void *a, const void *b)
{
	const struct qitem *x = a, *y = b;

	if (x->stream != y->stream)
		return CMP(x->stream, y->stream);
	if (x->ts != y->ts)
		return CMP(x->ts, y->ts);
	if (x->later != y->later)
		return CMP(x->later, y->later);
	if (x->order != y->order)
		return CMP(x->order, y->order);
	return CMP(x->gpu, y->gpu);
}

static int
litem_cmp(const void *a, const void *b)
{
	const struct litem *x = a, *y = b;

	if (x->stream != y->stream)
		return CMP(x->stream, y->stream);
	if (x->ts != y->ts)
		return CMP(x->ts, y->ts);
	if (x->type != y->type)
		return CMP(x->type, y->type);
	if (x->host != y->host)
		return CMP(x->host, y->host);
	return CMP(x->gpu, y->gpu);
}

static int
ditem_cmp(const void *a, const void *b)
{
	const struct ditem *x = a, *y = b;

	if (x->stream != y->stream)
		return CMP(x->stream, y->stream);
	if (x->thread != y->thread)
		return CMP(x->thread, y->thread);
	if (x->ts != y->ts)
		return CMP(x->ts, y->ts);
	if (x->type != y->type)
		return CMP(x->type, y->type);
	if (x->host != y->host)
		return CMP(x->host, y->host);
	return CMP(x->gpu, y->gpu);
}

static int
fact_cmp(const void *a, const void *b)
{
	const struct fact *x = a, *y = b;

	if (x->idx != y->idx)
		return CMP(x->idx, y->idx);
	return CMP(x->field, y->field);
}

/*
 * The leading members of the events' orders, for spill_key()'s radix
 * sort: a signed one with its sign bit flipped, so that it orders alike.
 */
static uint64_t
corr_key(const void *e)
{
	return (uint64_t)((const struct ev *)e)->corr ^ UINT64_C(1) << 63;
}

static uint64_t
sel_key(const void *e)
{
	return (uint64_t)((const struct ev *)e)->sel ^ UINT64_C(1) << 63;
}

static uint64_t
idx_key(const void *e)
{
	return ((const struct ev *)e)->idx;
}

/* HTA's clip: host events that last, by their own start. */
static int64_t
own_sel(const struct ev *e)
{
	return e->stream < 0 && e->end > e->ts ? e->ts : NO_SEL;
}

/*
 * An event that no sweep finds a fact of (only launched work and syncs
 * get one), as merge_facts() would make it, into the windows' spill.
 */
static void
to_windows(struct rank *r, struct ev *e)
{
	e->queue = e->queue_at = e->rec_src = e->wait_dest = -1;
	if (e->sel != NO_SEL)
		spill_add(&r->bysel, e);
}

static void
init_bysel(struct critpath *cp, struct rank *r)
{
	spill_init(&r->bysel, &cp->pool, sizeof(struct ev), bysel_cmp);
	spill_key(&r->bysel, sel_key);
}

void
cpr_add(struct critpath *cp, struct rank *r, const struct ev *e)
{
	struct ev c = *e;

	if (r->n == 1) {
		spill_init(&r->bycorr, &cp->pool, sizeof(struct ev),
		    bycorr_cmp);
		spill_key(&r->bycorr, corr_key);
		spill_init(&r->recs, &cp->pool, sizeof(struct ritem),
		    ritem_cmp);
		init_bysel(cp, r);
	}
	/*
	 * No sweep links it or finds a fact of it (they are of correlated
	 * events and syncs), so it goes to the windows' spill at once: a
	 * host-only trace's events are spilled once, not three times.
	 */
	if (e->corr < 0 && e->kind != K_SYNC) {
		c.sel = own_sel(&c);
		c.link = -1;
		to_windows(r, &c);
		return;
	}
	/* link holds the side until the links are found. */
	c.link = gpu_side(cp, e);
	spill_add(&r->bycorr, &c);
	if (e->kind == K_RUNTIME && cp->name[e->name].record && e->corr >= 0)
		spill_add(&r->recs, &(struct ritem){ e->corr, R_RECORD, e->idx,
		    e->ts, -1, -1 });
	if (e->kind == K_SYNC && e->wait_record >= 0)
		spill_add(&r->recs, &(struct ritem){ e->wait_record, R_SYNC,
		    e->idx, 0, e->wait_stream, -1 });
}

/*
 * HTA's _get_cuda_event_to_stream_df: a recorded event's stream is the
 * first that a sync waiting on it names (by idx); each record whose
 * stream is known goes to the launches' sweep, and each sync to the join
 * after it.
 */
static void
sweep_records(struct rank *r, struct spill *lb, struct spill *c)
{
	struct spillcur cur;
	const struct ritem *it;
	struct ritem *rec = NULL;
	size_t nrec = 0, caprec = 0, i;
	int64_t key = 0;
	int32_t stream = -1;

	spill_open(&cur, &r->recs);
	for (;;) {
		it = spill_next(&cur);
		if (it == NULL || it->key != key) {
			for (i = 0; stream >= 0 && i < nrec; i++)
				spill_add(lb, &(struct litem){ rec[i].ts,
				    (uint32_t)stream, L_RECORD, rec[i].idx, 0,
				    rec[i].key });
			nrec = 0;
			stream = -1;
			if (it == NULL)
				break;
			key = it->key;
		}
		if (it->type == R_RECORD) {
			rec = op_grow(rec, &caprec, nrec, sizeof(*rec));
			rec[nrec++] = *it;
		} else {
			if (stream < 0)
				stream = it->stream;
			spill_add(c, it);
		}
	}
	spillcur_free(&cur);
	spill_free(&r->recs);
	free(rec);
}

/*
 * HTA's transform_correlation_to_index: each event of the host's side and
 * each of the GPU's that share a correlation point at each other, the
 * GPU's at the last of the host's, the host's at the last of the GPU's
 * (a graph launch's work all at its launch).  What the later passes need
 * of a link is copied into the event: its launch's start and thread and
 * whether it launches; then the queue's, the launches' and the waits'
 * items are made, and the start that puts the event in a window: a host
 * event's own, GPU work's its launch's, where those last.
 */
static void
sweep_links(struct critpath *cp, struct rank *r, struct spill *b,
    struct spill *q, struct spill *lb, struct spill *ld)
{
	struct spillcur cur;
	const struct ev *it;
	struct ev *grp = NULL, *h, *g;
	size_t n = 0, cap = 0, i, nhost;
	unsigned role;

	spill_open(&cur, &r->bycorr);
	for (;;) {
		it = spill_next(&cur);
		if (n > 0 && (it == NULL || it->corr < 0 ||
		    it->corr != grp[0].corr)) {
			for (nhost = 0; nhost < n && grp[nhost].link == 0;
			    nhost++)
				;
			h = nhost > 0 ? &grp[nhost - 1] : NULL;
			for (i = 0; i < n; i++) {
				g = &grp[i];
				g->link = -1;
				if (i < nhost && nhost < n)
					g->link = (int32_t)grp[n - 1].idx;
				else if (i >= nhost && h != NULL) {
					g->link = (int32_t)h->idx;
					g->link_ts = h->ts;
					role = cp->name[h->name].role;
					g->graph = g->kind == K_GPU &&
					    (role & R_GRAPH) != 0;
					g->launched = g->kind == K_GPU &&
					    (role & (R_LAUNCH | R_GRAPH)) != 0;
				}
			}
			for (i = 0; i < n; i++) {
				g = &grp[i];
				if (g->stream >= 0 && h != NULL && i >= nhost &&
				    h->end > h->ts && (g->kind == K_GPU ||
				    (uint32_t)h->link == g->idx))
					g->sel = h->ts;
				if (g->launched) {
					spill_add(q, &(struct qitem){ h->ts,
					    (uint32_t)g->stream, 0, h->idx,
					    g->idx, g->graph });
					spill_add(q, &(struct qitem){ g->ts,
					    (uint32_t)g->stream, 1, g->idx,
					    g->idx, 0 });
					spill_add(lb, &(struct litem){ h->ts,
					    (uint32_t)g->stream, L_LAUNCH, h->idx,
					    g->idx, 0 });
					spill_add(ld, &(struct ditem){ h->ts,
					    (uint32_t)g->stream, h->thread,
					    L_LAUNCH, h->idx, g->idx });
				}
				if (g->kind == K_SYNC && h != NULL &&
				    i >= nhost && g->stream >= 0 &&
				    cp->name[g->name].sync == S_WAIT)
					spill_add(ld, &(struct ditem){ h->ts,
					    (uint32_t)g->stream, h->thread,
					    L_WAIT, g->idx, 0 });
				if (g->launched || g->kind == K_SYNC)
					spill_add(b, g);
				else
					to_windows(r, g);
			}
			n = 0;
		}
		if (it == NULL)
			break;
		grp = op_grow(grp, &cap, n, sizeof(*grp));
		grp[n] = *it;
		g = &grp[n];
		g->sel = own_sel(g);
		if (g->corr < 0) {
			g->link = -1;
			spill_add(b, g);
			continue;
		}
		n++;
	}
	spillcur_free(&cur);
	spill_free(&r->bycorr);
	free(grp);
}

/*
 * HTA's TraceCounters._get_queue_length_time_series_for_rank, over the
 * whole rank: a stream's queue grows at each launch's start and shrinks
 * at each start of its work, ties kept in the order HTA concatenates
 * them (launches first).  queue is the length before the launch (HTA's
 * queue_length_runtime less one), queue_at the length as the work starts;
 * a graph launch's work shares the length before the launch.
 */
static void
sweep_queue(struct spill *q, struct spill *f)
{
	struct spillcur cur;
	const struct qitem *it;
	uint32_t prev = UINT32_MAX, st = UINT32_MAX;
	int32_t len = 0, base = 0;

	spill_open(&cur, q);
	while ((it = spill_next(&cur)) != NULL) {
		if (it->stream != st) {
			st = it->stream;
			len = 0;
			prev = UINT32_MAX;
		}
		if (it->later) {
			spill_add(f, &(struct fact){ it->gpu, F_QUEUE_AT,
			    --len });
			continue;
		}
		if (it->order != prev)
			base = len;
		prev = it->order;
		spill_add(f, &(struct fact){ it->gpu, F_QUEUE,
		    it->graph ? base : len });
		len++;
	}
	spillcur_free(&cur);
}

/*
 * HTA's _get_cuda_event_record_df: a record waits for the last work
 * launched on its stream at or before its start.  What it finds joins the
 * syncs by the record's correlation.
 */
static void
sweep_launches(struct spill *lb, struct spill *c)
{
	struct spillcur cur;
	const struct litem *it;
	uint32_t st = UINT32_MAX;
	int32_t last = -1;

	spill_open(&cur, lb);
	while ((it = spill_next(&cur)) != NULL) {
		if (it->stream != st) {
			st = it->stream;
			last = -1;
		}
		if (it->type == L_LAUNCH)
			last = (int32_t)it->gpu;
		else if (last >= 0)
			spill_add(c, &(struct ritem){ it->corr, R_RECORD,
			    it->host, it->ts, -1, last });
	}
	spillcur_free(&cur);
}

/* Each sync waits for what the last record of its event found. */
static void
sweep_recorded(struct spill *c, struct spill *f)
{
	struct spillcur cur;
	const struct ritem *it;
	int64_t key = 0;
	int32_t src = -1;

	spill_open(&cur, c);
	while ((it = spill_next(&cur)) != NULL) {
		if (it->key != key) {
			key = it->key;
			src = -1;
		}
		if (it->type == R_RECORD)
			src = it->src;
		else if (src >= 0)
			spill_add(f, &(struct fact){ it->idx, F_REC_SRC, src });
	}
	spillcur_free(&cur);
}

/*
 * HTA's _get_cuda_stream_wait_event_df: a Stream Wait Event holds back
 * the next work that its cudaStreamWaitEvent's thread launches on the
 * waiting stream, after the call began.
 */
static void
sweep_waits(struct spill *ld, struct spill *f)
{
	struct spillcur cur;
	const struct ditem *it;
	uint32_t *wait = NULL, st = UINT32_MAX;
	int32_t th = 0;
	size_t n = 0, cap = 0, i;

	spill_open(&cur, ld);
	while ((it = spill_next(&cur)) != NULL) {
		if (it->stream != st || it->thread != th) {
			st = it->stream;
			th = it->thread;
			n = 0;
		}
		if (it->type == L_WAIT) {
			wait = op_grow(wait, &cap, n, sizeof(*wait));
			wait[n++] = it->host;
			continue;
		}
		for (i = 0; i < n; i++)
			spill_add(f, &(struct fact){ wait[i], F_WAIT_DEST,
			    (int32_t)it->gpu });
		n = 0;
	}
	spillcur_free(&cur);
	free(wait);
}

/* The events with what the sweeps found, into the windows' spill. */
static void
merge_facts(struct critpath *cp, struct rank *r, struct spill *b,
    struct spill *f)
{
	struct spillcur cb, cf;
	const struct ev *it;
	const struct fact *ft;
	struct ev e;

	spill_open(&cb, b);
	spill_open(&cf, f);
	ft = spill_next(&cf);
	while ((it = spill_next(&cb)) != NULL) {
		e = *it;
		e.queue = e.queue_at = e.rec_src = e.wait_dest = -1;
		for (; ft != NULL && ft->idx == e.idx; ft = spill_next(&cf))
			switch (ft->field) {
			case F_QUEUE:
				e.queue = ft->value;
				break;
			case F_QUEUE_AT:
				e.queue_at = ft->value;
				break;
			case F_REC_SRC:
				e.rec_src = ft->value;
				break;
			case F_WAIT_DEST:
				e.wait_dest = ft->value;
				break;
			}
		if (e.kind == K_SYNC && cp->name[e.name].sync == S_WAIT) {
			r->waits = op_grow(r->waits, &r->capwaits, r->nwaits,
			    sizeof(*r->waits));
			r->waits[r->nwaits++] = e;
		} else if (e.sel != NO_SEL)
			spill_add(&r->bysel, &e);
	}
	spillcur_free(&cf);
	spillcur_free(&cb);
}

void
cpr_prepare(struct critpath *cp, struct rank *r)
{
	struct spill b, q, lb, ld, c, f;

	if (r->n == 0) {
		init_bysel(cp, r);
		return;
	}
	spill_init(&b, &cp->pool, sizeof(struct ev), byidx_cmp);
	spill_key(&b, idx_key);
	spill_init(&q, &cp->pool, sizeof(struct qitem), qitem_cmp);
	spill_init(&lb, &cp->pool, sizeof(struct litem), litem_cmp);
	spill_init(&ld, &cp->pool, sizeof(struct ditem), ditem_cmp);
	spill_init(&c, &cp->pool, sizeof(struct ritem), ritem_cmp);
	spill_init(&f, &cp->pool, sizeof(struct fact), fact_cmp);
	sweep_records(r, &lb, &c);
	sweep_links(cp, r, &b, &q, &lb, &ld);
	sweep_queue(&q, &f);
	spill_free(&q);
	sweep_launches(&lb, &c);
	spill_free(&lb);
	sweep_recorded(&c, &f);
	spill_free(&c);
	sweep_waits(&ld, &f);
	spill_free(&ld);
	merge_facts(cp, r, &b, &f);
	spill_free(&f);
	spill_free(&b);
}
