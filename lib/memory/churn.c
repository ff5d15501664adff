#include <inttypes.h>
#include <math.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "base/err.h"
#include "base/xalloc.h"
#include "memory/churn.h"

#define SHORT_ALLOCS	16	/* freed before this many more allocs */
#define GROWTH_SITES	5	/* growing sites listed */
#define GROWTH_MIN	3	/* blocks that stay, at least, to grow */

static struct churn_dev *dev_get(struct churn *, int64_t);
static int	on_segment(void *, struct msnap *, const struct mseg *);
static int	on_trace(void *, struct msnap *, const struct mtrace *);
static void	end_run(struct churn_dev *, enum maction, const char *);
static int	on_trace_end(void *, struct msnap *, int64_t, uint64_t);
static void	grow(struct churn_dev *, const struct livemap *, struct vec *);
static int	grow_site_cmp(const void *, const void *);
static int	grow_rank_cmp(const void *, const void *);
static void	take_top(struct churn_dev *, const struct livemap *);
static void	add_top(struct churn_dev *, int64_t, int64_t, const char *,
    int);
static int	top_cmp(const void *, const void *);
static int	addr_cmp(const void *, const void *);
static int	seen_cmp(const void *, const void *);
static int	is_touched(const struct churn_dev *, int64_t);
static const struct seen *first_made(const struct churn_dev *, int64_t);
static void	*vec_push(struct vec *, size_t);
static void	vec_free(struct vec *);
static int	dev_cmp(const void *, const void *);
static int	size_class(int64_t);
static void	tl_point(struct churn_dev *, const struct mtrace *,
    const char *);
static int64_t	tl_time(const struct mtrace *);

int
churn_read(struct churn *rp, struct msnap *ms)
{
	static const struct msnap_ops ops = {
		on_segment, on_trace, on_trace_end
	};
	int rc;

	memset(rp, 0, sizeof(*rp));
	live_clear(&rp->map);
	live_clear(&rp->segs);
	if ((rc = msnap_read(ms, &ops, rp)) == 0)
		xqsort(rp->dev, rp->ndev, sizeof(*rp->dev), dev_cmp);
	return rc;
}

void
churn_free(struct churn *rp)
{
	size_t i;

	for (i = 0; i < rp->ndev; i++) {
		vec_free(&rp->dev[i].touched);
		vec_free(&rp->dev[i].made);
		vec_free(&rp->dev[i].unmade);
		vec_free(&rp->dev[i].segs);
		vec_free(&rp->dev[i].blocks);
		vec_free(&rp->dev[i].growth);
		mtl_free(&rp->dev[i].tl);
	}
	free(rp->dev);
	vec_free(&rp->unmatched);
	vec_free(&rp->tmp);
	live_free(&rp->map);
	live_free(&rp->segs);
}

static struct churn_dev *
dev_get(struct churn *rp, int64_t device)
{
	struct churn_dev *d;
	size_t i;

	for (i = 0; i < rp->ndev; i++)
		if (rp->dev[i].device == device)
			return &rp->dev[i];
	if (rp->ndev == rp->devcap) {
		rp->devcap = rp->devcap ? rp->devcap * 2 : 8;
		rp->dev = xreallocarray(rp->dev, rp->devcap, sizeof(*rp->dev));
	}
	d = &rp->dev[rp->ndev++];
	memset(d, 0, sizeof(*d));
	d->device = device;
	return d;
}

/*
 * What the snapshot says is live at its end, in requested bytes, and which
 * blocks and segments those are: the trace may come before or after the
 * segments, so they are placed in the window once both have been read.
 */
static int
on_segment(void *arg, struct msnap *ms, const struct mseg *g)
{
	struct churn_dev *d = dev_get(arg, g->device);
	struct sblock *sb;
	size_t i;

	*(int64_t *)vec_push(&d->segs, sizeof(int64_t)) = g->address;
	d->snap_reserved = mtl_add(d->snap_reserved, g->total_size);
	for (i = 0; i < g->nblocks; i++) {
		const struct mblock *b = &g->blocks[i];

		if (b->state == MS_INACTIVE)
			continue;
		sb = vec_push(&d->blocks, sizeof(*sb));
		sb->addr = b->address;
		sb->size = b->requested >= 0 ? b->requested : b->size;
		sb->site = b->site;
		if (msnap_add(ms, g->line, g->col, &d->snap_live,
		    sb->size) < 0)
			return -1;
	}
	return 0;
}

static int
on_trace(void *arg, struct msnap *ms, const struct mtrace *e)
{
	struct churn *rp = arg;
	struct livemap *m = &rp->map;
	struct churn_dev *d = dev_get(rp, e->device);
	struct live *l;
	struct seen *sn;
	const char *site = NULL;
	int c;

	if (!d->traced) {
		d->line = e->line;
		d->col = e->col;
	}
	d->traced = 1;
	d->entries++;
	d->actions[e->action]++;
	if (e->has_time) {
		int64_t span;

		if (!d->has_time || e->time_us < d->t_first)
			d->t_first = e->time_us;
		if (!d->has_time || e->time_us > d->t_last)
			d->t_last = e->time_us;
		d->has_time = 1;
		if (__builtin_sub_overflow(d->t_last, d->t_first, &span))
			return msnap_fail(ms, e->line, e->col,
			    "\"time_us\" is too far from the trace's other"
			    " times for 64 bits");
	}
	if (e->action >= MA_SEGMENT_ALLOC && e->action <= MA_SEGMENT_UNMAP)
		site = msnap_site(ms, e->doc, e->frames);
	end_run(d, e->action, site);
	switch (e->action) {
	case MA_ALLOC:
		*(int64_t *)vec_push(&d->touched, sizeof(int64_t)) = e->addr;
		c = size_class(e->size);
		d->hist[c]++;
		/* hist_bytes adds up part of what bytes_allocated does. */
		if (msnap_add(ms, e->line, e->col, &d->bytes_allocated,
		    e->size) < 0)
			return -1;
		d->hist_bytes[c] += e->size;
		if ((l = live_find(m, e->addr)) != NULL) {
			/* The trace lost the free; the new block replaces it. */
			d->double_allocs++;
			if (msnap_add(ms, e->line, e->col, &d->delta,
			    -l->size) < 0)
				return -1;
			tl_point(d, e, l->site);
			live_del(m, l);
		}
		live_add(m, e->addr, e->size, d->actions[MA_ALLOC] - 1,
		    msnap_site(ms, e->doc, e->frames));
		if (msnap_add(ms, e->line, e->col, &d->delta, e->size) < 0)
			return -1;
		tl_point(d, e, live_find(m, e->addr)->site);
		if (d->delta > d->max_delta) {
			d->max_delta = d->delta;
			d->has_peak = 1;
			d->peak_seq = e->seq;
			d->peak_has_time = e->has_time;
			d->peak_time = e->time_us;
			d->peak_dirty = 1;
		}
		break;
	case MA_FREE_COMPLETED:
		/* The live set is about to shrink: keep the peak's top now. */
		if (d->peak_dirty)
			take_top(d, m);
		*(int64_t *)vec_push(&d->touched, sizeof(int64_t)) = e->addr;
		if (msnap_add(ms, e->line, e->col, &d->bytes_freed,
		    e->size) < 0 ||
		    msnap_add(ms, e->line, e->col, &d->delta, -e->size) < 0)
			return -1;
		if ((l = live_find(m, e->addr)) == NULL) {
			struct ufree *u;

			/* Allocated before the window: live since it began. */
			d->unmatched++;
			if (msnap_add(ms, e->line, e->col, &d->unmatched_bytes,
			    e->size) < 0)
				return -1;
			u = vec_push(&rp->unmatched, sizeof(*u));
			u->addr = e->addr;
			u->size = e->size;
			u->seq = e->seq;
			tl_point(d, e, NULL);
			break;
		}
		/* alloc and free_completed carry the same requested size. */
		if (msnap_add(ms, e->line, e->col, &d->delta,
		    e->size - l->size) < 0)
			return -1;
		tl_point(d, e, l->site);
		if (d->actions[MA_ALLOC] - l->alloc_no <= SHORT_ALLOCS)
			d->short_lived++;
		live_del(m, l);
		break;
	case MA_SEGMENT_ALLOC:
	case MA_SEGMENT_FREE:
	case MA_SEGMENT_MAP:
	case MA_SEGMENT_UNMAP:
		if (msnap_add(ms, e->line, e->col,
		    &d->seg_bytes[e->action - MA_SEGMENT_ALLOC], e->size) < 0)
			return -1;
		sn = vec_push(e->action == MA_SEGMENT_FREE ||
		    e->action == MA_SEGMENT_UNMAP ? &d->unmade : &d->made,
		    sizeof(*sn));
		sn->addr = e->addr;
		sn->seq = e->seq;
		if (e->action == MA_SEGMENT_FREE ||
		    e->action == MA_SEGMENT_UNMAP) {
			if (d->run++ == 0) {
				d->run_site = site;
				d->run_one_site = 1;
				d->run_not_maker = 0;
				d->run_t = tl_time(e);
				d->run_seq = e->seq;
			}
			d->run_one_site &= site == d->run_site;
			if ((l = live_find(&rp->segs, e->addr)) != NULL) {
				d->run_not_maker |= l->site != NULL &&
				    l->site != site;
				live_del(&rp->segs, l);
			}
			d->run_empty_cache |= msnap_empty_cache(e->doc,
			    e->frames);
			d->run_bytes = mtl_add(d->run_bytes, e->size);
			d->reserved = mtl_sub(d->reserved, e->size);
		} else {
			if ((l = live_find(&rp->segs, e->addr)) != NULL)
				live_del(&rp->segs, l);
			live_add(&rp->segs, e->addr, e->size, 0, site);
			d->reserved = mtl_add(d->reserved, e->size);
		}
		tl_point(d, e, NULL);
		break;
	case MA_OOM:
		if (d->actions[MA_OOM] <= MAX_OOMS) {
			struct oom *o = &d->ooms[d->actions[MA_OOM] - 1];

			o->seq = e->seq;
			o->has_time = e->has_time;
			o->time_us = e->time_us;
			o->size = e->size;
			o->device_free = e->device_free;
		}
		mtl_mark(&d->tl, tl_time(e), (int64_t)e->seq, e->size, "oom");
		break;
	default:
		break;
	}
	return 0;
}

/*
 * A run of segment_free/segment_unmap ends at any other action a, whose
 * stack's site is site: two or more in a row is a burst.  Who released
 * them is told by their stacks.  torch.cuda.empty_cache() stands on its
 * own (see msnap_empty_cache()).  The allocator's own release, on a failed
 * cudaMalloc (or past garbage_collection_threshold), records the stack of
 * the allocation it serves, then makes that allocation's segment with the
 * same stack, or records an OOM when even that fails
 * (CUDACachingAllocator.cpp, malloc(), release_cached_blocks()).  Without
 * context="all", empty_cache() records no stack and each release gets the
 * one that made its segment: so a run is the allocator's only when its
 * releases share one stack that did not make all of their segments.  The
 * rest, releases without stacks among them, is not attributed.
 */
static void
end_run(struct churn_dev *d, enum maction a, const char *site)
{
	const char *mark = NULL;

	if (a == MA_SEGMENT_FREE || a == MA_SEGMENT_UNMAP || d->run == 0)
		return;
	if (a == MA_SEGMENT_ALLOC || a == MA_SEGMENT_MAP)
		d->free_then_alloc++;
	if (d->run >= 2) {
		d->bursts++;
		if (a == MA_OOM)
			d->retry_bursts++;
		d->burst_segments += d->run;
		if (d->run > d->largest_burst)
			d->largest_burst = d->run;
	}
	if (d->run_empty_cache) {
		d->empty_cache_calls++;
		d->empty_cache_segments += d->run;
		d->empty_cache_bytes = mtl_add(d->empty_cache_bytes,
		    d->run_bytes);
		mark = "empty_cache";
	} else if (a == MA_OOM || ((a == MA_SEGMENT_ALLOC ||
	    a == MA_SEGMENT_MAP) && site != NULL && site == d->run_site &&
	    d->run_one_site && d->run_not_maker)) {
		if (a == MA_OOM)
			d->retries_failed++;
		else
			d->retries_succeeded++;
		d->retry_segments += d->run;
		d->retry_bytes = mtl_add(d->retry_bytes, d->run_bytes);
		mark = "alloc_retry";
	} else if (d->run >= 2) {
		d->unattributed_bursts++;
		mark = "release";
	}
	if (mark != NULL)
		mtl_mark(&d->tl, d->run_t, (int64_t)d->run_seq, d->run_bytes,
		    mark);
	d->run = 0;
	d->run_empty_cache = 0;
	d->run_bytes = 0;
}

static int
on_trace_end(void *arg, struct msnap *ms, int64_t device, uint64_t n)
{
	struct churn *rp = arg;
	struct churn_dev *d;
	size_t i;

	(void)ms;
	if (n == 0)
		return 0;
	d = dev_get(rp, device);
	end_run(d, MA_OTHER, NULL);
	if (d->peak_dirty)
		take_top(d, &rp->map);
	/* Blocks from before the window still live at the peak. */
	for (i = 0; i < rp->unmatched.n; i++) {
		const struct ufree *u = (struct ufree *)rp->unmatched.v + i;

		if (!d->has_peak || u->seq > d->peak_seq)
			add_top(d, u->addr, u->size, NULL, 1);
	}
	d->live_end = 0;
	for (i = 0; i < rp->map.n; i++)
		if (rp->map.e[i].size >= 0)
			d->live_end += rp->map.e[i].size;
	d->live_blocks_end = rp->map.count;
	grow(d, &rp->map, &rp->tmp);
	live_clear(&rp->map);
	live_clear(&rp->segs);
	rp->unmatched.n = 0;
	return 0;
}

/*
 * The sites whose blocks the window allocated and never freed, a few in
 * each third of its allocations: memory that grows as the loop runs (a
 * tensor appended to a list, a metric summed without .item(), a graph
 * kept with retain_graph=True).  Parameters, optimizer state and caches
 * are allocated early, once, and stay: they are not growth.
 */
static void
grow(struct churn_dev *d, const struct livemap *m, struct vec *tmp)
{
	uint64_t allocs = d->actions[MA_ALLOC];
	struct grow *g, *v;
	size_t i, n;

	tmp->n = 0;
	for (i = 0; i < m->n; i++) {
		const struct live *l = &m->e[i];

		if (l->size < 0 || l->site == NULL)
			continue;
		g = vec_push(tmp, sizeof(*g));
		g->site = l->site;
		g->blocks = 1;
		g->bytes = g->smallest = g->largest = l->size;
		g->first_alloc = g->last_alloc = l->alloc_no;
		g->thirds = 1u << (unsigned)(l->alloc_no * 3 / allocs);
	}
	if (tmp->n == 0)
		return;
	v = tmp->v;
	xqsort(v, tmp->n, sizeof(*v), grow_site_cmp);
	for (i = 1, n = 1; i < tmp->n; i++) {
		g = &v[n - 1];
		if (g->site != v[i].site) {
			v[n++] = v[i];
			continue;
		}
		g->blocks++;
		g->bytes = mtl_add(g->bytes, v[i].bytes);
		if (v[i].smallest < g->smallest)
			g->smallest = v[i].smallest;
		if (v[i].largest > g->largest)
			g->largest = v[i].largest;
		if (v[i].first_alloc < g->first_alloc)
			g->first_alloc = v[i].first_alloc;
		if (v[i].last_alloc > g->last_alloc)
			g->last_alloc = v[i].last_alloc;
		g->thirds |= v[i].thirds;
	}
	for (i = 0; i < n; i++) {
		if (v[i].blocks < GROWTH_MIN || v[i].thirds != 7)
			continue;
		*(struct grow *)vec_push(&d->growth, sizeof(*g)) = v[i];
		if (d->iterations == 0 || v[i].blocks < d->iterations)
			d->iterations = v[i].blocks;
		d->growth_blocks += v[i].blocks;
		d->growth_bytes = mtl_add(d->growth_bytes, v[i].bytes);
	}
	xqsort(d->growth.v, d->growth.n, sizeof(*g), grow_rank_cmp);
	if (d->growth.n > GROWTH_SITES)
		d->growth.n = GROWTH_SITES;
}

static int
grow_site_cmp(const void *a, const void *b)
{
	const struct grow *x = a, *y = b;

	return x->site < y->site ? -1 : x->site > y->site;
}

/* Most bytes first; then by name, so that the order is total. */
static int
grow_rank_cmp(const void *a, const void *b)
{
	const struct grow *x = a, *y = b;

	if (x->bytes != y->bytes)
		return x->bytes > y->bytes ? -1 : 1;
	return strcmp(x->site, y->site);
}

/*
 * The TOP_PEAK largest live blocks: the heap's root, then each time the
 * better of the candidates, whose children become candidates in turn.
 */
static void
take_top(struct churn_dev *d, const struct livemap *m)
{
	size_t cand[TOP_PEAK + 1], nc = 0, i, best, h;
	const struct live *l;

	d->peak_dirty = 0;
	d->ntop = 0;
	if (m->count > 0)
		cand[nc++] = 0;
	while (nc > 0 && d->ntop < TOP_PEAK) {
		for (best = 0, i = 1; i < nc; i++)
			if (live_before(m, m->heap[cand[i]],
			    m->heap[cand[best]]))
				best = i;
		h = cand[best];
		cand[best] = cand[--nc];
		l = &m->e[m->heap[h]];
		d->top[d->ntop].addr = l->addr;
		d->top[d->ntop].size = l->size;
		d->top[d->ntop].site = l->site;
		d->top[d->ntop].before = 0;
		d->ntop++;
		/* After k are taken, at most k + 1 are candidates. */
		for (i = 2 * h + 1; i <= 2 * h + 2 && i < m->count; i++)
			cand[nc++] = i;
	}
}

/* Puts a block among the TOP_PEAK largest, if it is one of them. */
static void
add_top(struct churn_dev *d, int64_t addr, int64_t size, const char *site,
    int before)
{
	struct top t;
	int i;

	t.addr = addr;
	t.size = size;
	t.site = site;
	t.before = before;
	if (d->ntop == TOP_PEAK && top_cmp(&t, &d->top[TOP_PEAK - 1]) >= 0)
		return;
	if (d->ntop < TOP_PEAK)
		d->ntop++;
	for (i = d->ntop - 1; i > 0 && top_cmp(&t, &d->top[i - 1]) < 0; i--)
		d->top[i] = d->top[i - 1];
	d->top[i] = t;
}

/*
 * Places the snapshot in the window, after both are read.  A live block
 * whose address no alloc or free_completed names was live all through
 * the window (Mosaic's "static" memory), so it was live at the peak.  A
 * segment the window did not make, or a segment freed that it did not
 * make, existed before the window began: the window started mid-run.
 */
int
churn_place(struct msnap *ms, struct churn_dev *d)
{
	const struct sblock *sb = d->blocks.v;
	const int64_t *seg = d->segs.v;
	const struct seen *un = d->unmade.v, *m;
	int64_t at;
	size_t i;

	xqsort(d->touched.v, d->touched.n, sizeof(int64_t), addr_cmp);
	for (i = 0; i < d->blocks.n; i++) {
		if (is_touched(d, sb[i].addr))
			continue;
		d->static_bytes += sb[i].size;
		add_top(d, sb[i].addr, sb[i].size, sb[i].site, 1);
	}
	xqsort(d->made.v, d->made.n, sizeof(struct seen), seen_cmp);
	for (i = 0; i < d->segs.n; i++)
		if (first_made(d, seg[i]) == NULL)
			d->unplaced++;
	for (i = 0; i < d->unmade.n; i++)
		if ((m = first_made(d, un[i].addr)) == NULL ||
		    m->seq > un[i].seq)
			d->unplaced++;
	/* The peak, put_dev()'s sum of these, must fit as well. */
	if (__builtin_add_overflow(d->static_bytes, d->unmatched_bytes, &at) ||
	    __builtin_add_overflow(at, d->max_delta, &at))
		return msnap_fail(ms, d->line, d->col, "device %" PRId64 ":"
		    " the bytes live at the peak add up beyond 64 bits",
		    d->device);
	return 0;
}

static int
top_cmp(const void *a, const void *b)
{
	const struct top *x = a, *y = b;

	if (x->size != y->size)
		return x->size > y->size ? -1 : 1;
	return x->addr < y->addr ? -1 : x->addr > y->addr;
}

static int
addr_cmp(const void *a, const void *b)
{
	int64_t x = *(const int64_t *)a, y = *(const int64_t *)b;

	return x < y ? -1 : x > y;
}

static int
seen_cmp(const void *a, const void *b)
{
	const struct seen *x = a, *y = b;

	if (x->addr != y->addr)
		return x->addr < y->addr ? -1 : 1;
	return x->seq < y->seq ? -1 : x->seq > y->seq;
}

/* Whether the trace named addr; touched is sorted. */
static int
is_touched(const struct churn_dev *d, int64_t addr)
{
	return d->touched.n > 0 && bsearch(&addr, d->touched.v,
	    d->touched.n, sizeof(int64_t), addr_cmp) != NULL;
}

/* The earliest segment made at addr, or NULL; made is sorted. */
static const struct seen *
first_made(const struct churn_dev *d, int64_t addr)
{
	const struct seen *v = d->made.v;
	size_t lo = 0, hi = d->made.n, mid;

	while (lo < hi) {
		mid = lo + (hi - lo) / 2;
		if (v[mid].addr < addr)
			lo = mid + 1;
		else
			hi = mid;
	}
	return lo < d->made.n && v[lo].addr == addr ? &v[lo] : NULL;
}

/* Room for one more element of size sz at the end of v. */
static void *
vec_push(struct vec *v, size_t sz)
{
	if (v->n == v->cap) {
		v->cap = v->cap ? v->cap * 2 : 64;
		v->v = xreallocarray(v->v, v->cap, sz);
	}
	return (char *)v->v + sz * v->n++;
}

static void
vec_free(struct vec *v)
{
	free(v->v);
}

static int
dev_cmp(const void *a, const void *b)
{
	const struct churn_dev *x = a, *y = b;

	return x->device < y->device ? -1 : x->device > y->device;
}

/* floor(log2(size)); 0 for sizes below 2. */
static int
size_class(int64_t size)
{
	int c = 0;

	/* Unsigned: 2 << 62 is beyond int64. */
	while (c < NCLASS - 1 && size >= 0 &&
	    (uint64_t)size >= (uint64_t)2 << c)
		c++;
	return c;
}

/* A point of the curve after entry e changed what is live or reserved. */
static void
tl_point(struct churn_dev *d, const struct mtrace *e, const char *site)
{
	mtl_push(&d->tl, tl_time(e), (int64_t)e->seq, d->delta, d->reserved,
	    site);
}

/*
 * Entry e's time on the curve, in ns.  The replay checks times in µs; one
 * that is no 64-bit count of ns is held at the end of the range, as
 * mtl_add() holds bytes: the drawing of such a trace is no measure anyway.
 */
static int64_t
tl_time(const struct mtrace *e)
{
	int64_t ns;

	if (!e->has_time)
		return MTL_NOTIME;
	if (__builtin_mul_overflow(e->time_us, 1000, &ns))
		return e->time_us < 0 ? INT64_MIN + 1 : INT64_MAX;
	return ns;
}
