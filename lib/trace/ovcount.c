/*
 * ovcount: the queue and busy counters of an overlay (see ovcount.h).
 */
#include <inttypes.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "io/json.h"
#include "io/ndjson.h"
#include "io/spill.h"
#include "trace/extract.h"
#include "trace/opbase.h"
#include "trace/ovcount.h"

/* Spill records; each order ends in a sequence number. */
struct launch {
	int64_t		corr, start;
	uint64_t	seq;
};
struct gpuwork {
	int64_t		corr, start, end, pid, stream;
	uint64_t	seq;
};
struct delta {
	int64_t		ts, pid, stream;
	int32_t		queue, busy;
	uint64_t	seq;
};

/* A stream's counters as last written. */
struct ovstream {
	int64_t	pid, stream;
	int64_t	queue, busy;
	int64_t	queue_out, busy_out;	/* -1: not written yet */
};

static void	put_counter(struct jw *, int64_t, const struct ovstream *,
		    const char *, int64_t, int64_t);
static struct ovstream *get_stream(struct ovcount *, int64_t, int64_t);
static int	cmp_i64(int64_t, int64_t);
static int	cmp_launch(const void *, const void *);
static int	cmp_gpu(const void *, const void *);
static int	cmp_delta(const void *, const void *);

void
ovcount_init(struct ovcount *c, struct spool *pool)
{
	memset(c, 0, sizeof(*c));
	spill_init(&c->launches, pool, sizeof(struct launch), cmp_launch);
	spill_init(&c->gpu, pool, sizeof(struct gpuwork), cmp_gpu);
	spill_init(&c->deltas, pool, sizeof(struct delta), cmp_delta);
}

/* GPU work and the runtime calls that launch it, for the counters. */
void
ovcount_see(struct ovcount *c, const struct jdoc *d,
    const struct extract_seen *s)
{
	const char *cat;
	size_t len;
	int args;
	int64_t corr = INT64_MIN;

	if (jdoc_get_str(d, 0, "cat", &cat, &len) < 0 ||
	    (args = jdoc_get(d, 0, "args")) < 0 ||
	    d->node[args].type != JT_OBJECT)
		return;
	(void)jdoc_get_i64(d, (uint32_t)args, "correlation", &corr);
	if (strcmp(cat, "kernel") == 0 || strcmp(cat, "gpu_memcpy") == 0 ||
	    strcmp(cat, "gpu_memset") == 0) {
		struct gpuwork g;

		if (jdoc_get_i64(d, 0, "pid", &g.pid) < 0 ||
		    jdoc_get_i64(d, (uint32_t)args, "stream", &g.stream) < 0)
			return;
		g.corr = corr;
		g.start = s->start_ns;
		g.end = s->start_ns + s->dur_ns;
		g.seq = c->seq++;
		spill_add(&c->gpu, &g);
	} else if (corr != INT64_MIN && (strcmp(cat, "cuda_runtime") == 0 ||
	    strcmp(cat, "cuda_driver") == 0)) {
		struct launch l;

		l.corr = corr;
		l.start = s->start_ns;
		l.seq = c->seq++;
		spill_add(&c->launches, &l);
	}
}

/*
 * Each stream's queue (launched, not finished: HTA's queue length) and
 * whether it runs, from the launches and the GPU work joined on their
 * correlation, then swept in time.
 */
void
ovcount_write(struct ovcount *c, struct jw *w, int64_t origin)
{
	struct spillcur lc, gc, dc;
	const struct launch *l;
	const struct gpuwork *g;
	const struct delta *dl;
	struct delta d;
	struct ovstream *st;
	int64_t ts;

	spill_open(&lc, &c->launches);
	spill_open(&gc, &c->gpu);
	l = spill_next(&lc);
	while ((g = spill_next(&gc)) != NULL) {
		while (l != NULL && l->corr < g->corr)
			l = spill_next(&lc);
		memset(&d, 0, sizeof(d));
		d.pid = g->pid;
		d.stream = g->stream;
		d.ts = g->start;
		d.busy = 1;
		d.seq = c->seq++;
		spill_add(&c->deltas, &d);
		d.ts = g->end;
		d.busy = -1;
		if (l != NULL && l->corr == g->corr && g->corr != INT64_MIN &&
		    l->start <= g->end) {
			d.queue = -1;
			d.seq = c->seq++;
			spill_add(&c->deltas, &d);
			d.ts = l->start;
			d.queue = 1;
			d.busy = 0;
		}
		d.seq = c->seq++;
		spill_add(&c->deltas, &d);
	}
	spillcur_free(&lc);
	spillcur_free(&gc);
	spill_open(&dc, &c->deltas);
	dl = spill_next(&dc);
	while (dl != NULL) {
		st = get_stream(c, dl->pid, dl->stream);
		ts = dl->ts;
		do {
			st->queue += dl->queue;
			st->busy += dl->busy;
			dl = spill_next(&dc);
		} while (dl != NULL && dl->ts == ts && dl->pid == st->pid &&
		    dl->stream == st->stream);
		if (st->queue != st->queue_out &&
		    !(st->queue_out < 0 && st->queue == 0)) {
			put_counter(w, origin, st, "queue length", ts,
			    st->queue);
			st->queue_out = st->queue;
		}
		if ((st->busy > 0) != st->busy_out &&
		    !(st->busy_out < 0 && st->busy == 0)) {
			put_counter(w, origin, st, "GPU busy", ts, st->busy > 0);
			st->busy_out = st->busy > 0;
		}
	}
	spillcur_free(&dc);
}

static void
put_counter(struct jw *w, int64_t origin, const struct ovstream *st,
    const char *what, int64_t ts, int64_t value)
{
	char name[96];

	jw_break(w);
	jw_begin_object(w);
	jw_key(w, "ph");
	jw_cstring(w, "C");
	snprintf(name, sizeof(name), "%s (stream %" PRId64 ")", what,
	    st->stream);
	jw_key(w, "name");
	jw_cstring(w, name);
	jw_key(w, "cat");
	jw_cstring(w, "mrp");
	jw_key(w, "pid");
	jw_int(w, st->pid);
	jw_key(w, "ts");
	jw_us(w, origin + ts);
	jw_key(w, "args");
	jw_begin_object(w);
	if (what[0] == 'q')
		jw_key(w, "kernels");
	else
		jw_key(w, "busy");
	jw_int(w, value);
	jw_end_object(w);
	jw_end_object(w);
}

static struct ovstream *
get_stream(struct ovcount *c, int64_t pid, int64_t stream)
{
	struct ovstream *st;
	size_t i;

	for (i = 0; i < c->nstreams; i++)
		if (c->streams[i].pid == pid && c->streams[i].stream == stream)
			return &c->streams[i];
	c->streams = op_grow(c->streams, &c->streamcap,
		    c->nstreams, sizeof(*c->streams));
	st = &c->streams[c->nstreams++];
	memset(st, 0, sizeof(*st));
	st->pid = pid;
	st->stream = stream;
	st->queue_out = st->busy_out = -1;
	return st;
}

static int
cmp_i64(int64_t a, int64_t b)
{
	return a < b ? -1 : a > b;
}

static int
cmp_launch(const void *a, const void *b)
{
	const struct launch *x = a, *y = b;

	return x->corr != y->corr ? cmp_i64(x->corr, y->corr) :
	    cmp_i64((int64_t)x->seq, (int64_t)y->seq);
}

static int
cmp_gpu(const void *a, const void *b)
{
	const struct gpuwork *x = a, *y = b;

	return x->corr != y->corr ? cmp_i64(x->corr, y->corr) :
	    cmp_i64((int64_t)x->seq, (int64_t)y->seq);
}

static int
cmp_delta(const void *a, const void *b)
{
	const struct delta *x = a, *y = b;

	if (x->ts != y->ts)
		return cmp_i64(x->ts, y->ts);
	if (x->pid != y->pid)
		return cmp_i64(x->pid, y->pid);
	if (x->stream != y->stream)
		return cmp_i64(x->stream, y->stream);
	return cmp_i64((int64_t)x->seq, (int64_t)y->seq);
}

void
ovcount_free(struct ovcount *c)
{
	spill_free(&c->launches);
	spill_free(&c->gpu);
	spill_free(&c->deltas);
	free(c->streams);
}
