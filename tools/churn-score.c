/*
 * churn-score: replay the device_traces of CUDA memory snapshots and say how
 * hard the caching allocator churns: one "churn" record per device.
 */
#include <getopt.h>
#include <inttypes.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "base/err.h"
#include "base/operands.h"
#include "base/usage.h"
#include "base/xalloc.h"
#include "io/ndjson.h"
#include "memory/memsnap.h"
#include "memory/memtl.h"

#define TOP_PEAK	10	/* largest live blocks listed at the peak */
#define MAX_OOMS	16	/* oom events listed one by one */
#define SHORT_ALLOCS	16	/* freed before this many more allocs */
#define NCLASS		64	/* powers of two */
#define GROWTH_SITES	5	/* growing sites listed */
#define GROWTH_MIN	3	/* blocks that stay, at least, to grow */
#define NONE		UINT32_MAX

/* A live allocation seen in the trace. */
struct live {
	int64_t		 addr, size;
	uint64_t	 alloc_no;	/* allocations made before it */
	const char	*site;
	uint32_t	 next;		/* in the free list */
	uint32_t	 pos;		/* in the heap */
};

/*
 * Live allocations by address (linear probing) and in a heap, largest
 * first as top_at_peak orders them, so that the largest few are found
 * without looking at the others: the peak moves often (alloc, free, alloc,
 * ...) and the live set may hold many thousands of blocks.
 */
struct livemap {
	struct live	*e;
	size_t		 n, cap;
	uint32_t	 freelist;
	uint32_t	*tab;		/* entry index + 1; 0 is empty */
	size_t		 tabcap, count;
	uint32_t	*heap;		/* entry indices; count of them */
	size_t		 heapcap;
};

struct oom {
	uint64_t	seq;
	int		has_time;
	int64_t		time_us, size, device_free;
};

struct top {
	int64_t		 addr, size;
	const char	*site;
	int		 before;	/* allocated before the window */
};

/* An address and when the trace named it. */
struct seen {
	int64_t		addr;
	uint64_t	seq;
};

/* A free whose block the window never allocated: live from its start. */
struct ufree {
	int64_t		addr, size;
	uint64_t	seq;
};

/* A block the snapshot holds live; size is the requested one if known. */
struct sblock {
	int64_t		 addr, size;
	const char	*site;
};

/* Blocks of one site that stayed live: see grow(). */
struct grow {
	const char	*site;
	uint64_t	 blocks;
	int64_t		 bytes, smallest, largest;
	uint64_t	 first_alloc, last_alloc;
	unsigned	 thirds;	/* bit k: one came in third k */
};

/* A growing array of n elements of any of the above. */
struct vec {
	void		*v;
	size_t		 n, cap;
};

struct dev {
	int64_t		device;
	uint64_t	entries, actions[MA_NACTIONS];
	int64_t		bytes_allocated, bytes_freed;
	int64_t		seg_bytes[4];	/* alloc, free, map, unmap */
	int		has_time;
	int64_t		t_first, t_last;
	int64_t		delta, max_delta;
	int		has_peak, peak_has_time, peak_dirty;
	uint64_t	peak_seq;
	int64_t		peak_time;
	struct top	top[TOP_PEAK];
	int		ntop;
	uint64_t	short_lived, unmatched, double_allocs;
	int64_t		unmatched_bytes;
	uint64_t	hist[NCLASS];
	int64_t		hist_bytes[NCLASS];
	struct oom	ooms[MAX_OOMS];
	uint64_t	run, bursts, burst_segments, largest_burst;
	uint64_t	retry_bursts;
	uint64_t	free_then_alloc;
	/* The run of releases being read, told apart in end_run(). */
	int		run_empty_cache;
	const char	*run_site;	/* the first release's stack */
	int		run_one_site;	/* every release has that stack */
	int		run_not_maker;	/* a stack not the one that made it */
	int64_t		run_bytes, run_t;
	uint64_t	run_seq;
	uint64_t	empty_cache_calls, empty_cache_segments;
	int64_t		empty_cache_bytes;
	uint64_t	retries_succeeded, retries_failed, retry_segments;
	int64_t		retry_bytes;
	uint64_t	unattributed_bursts;
	struct vec	growth;		/* grow: sites whose blocks stay */
	uint64_t	iterations;	/* the fewest blocks one of them kept */
	uint64_t	growth_blocks;	/* all of theirs, the unlisted too */
	int64_t		growth_bytes;
	int64_t		live_end;
	uint64_t	live_blocks_end;
	int64_t		snap_live;	/* from the segments */
	int		traced;
	/* Kept to place the snapshot in the window once both are read. */
	struct vec	touched;	/* int64_t: alloc, free addresses */
	struct vec	made;		/* seen: segment_alloc, _map */
	struct vec	unmade;		/* seen: segment_free, _unmap */
	struct vec	segs;		/* int64_t: snapshot segments */
	struct vec	blocks;		/* sblock: snapshot live blocks */
	int64_t		static_bytes;	/* live, never named by the trace */
	uint64_t	unplaced;	/* segments from before the window */
	/* The curve for the memory_timeline record. */
	struct memtl	tl;
	int64_t		reserved;	/* segment bytes made in the window */
	int64_t		snap_reserved;	/* the snapshot's segments */
	uint64_t	line, col;	/* where its trace starts */
};

struct replay {
	struct dev	*dev;
	size_t		 ndev, devcap;
	struct livemap	 map;
	struct livemap	 segs;		/* segments made: their sites */
	struct vec	 unmatched;	/* ufree: this device's, so far */
	struct vec	 tmp;		/* grow: the live blocks, for grow() */
};

static void	usage(void) __attribute__((noreturn));
static int	score(const char *, void *);
static struct dev *dev_get(struct replay *, int64_t);
static int	on_segment(void *, struct msnap *, const struct mseg *);
static int	on_trace(void *, struct msnap *, const struct mtrace *);
static int	on_trace_end(void *, struct msnap *, int64_t, uint64_t);
static void	end_run(struct dev *, enum maction, const char *);
static void	grow(struct dev *, const struct livemap *, struct vec *);
static int	grow_site_cmp(const void *, const void *);
static int	grow_rank_cmp(const void *, const void *);
static void	take_top(struct dev *, const struct livemap *);
static void	add_top(struct dev *, int64_t, int64_t, const char *, int);
static int	place(struct msnap *, struct dev *);
static int	top_cmp(const void *, const void *);
static int	addr_cmp(const void *, const void *);
static int	seen_cmp(const void *, const void *);
static int	is_touched(const struct dev *, int64_t);
static const struct seen *first_made(const struct dev *, int64_t);
static void	*vec_push(struct vec *, size_t);
static void	vec_free(struct vec *);
static int	dev_cmp(const void *, const void *);
static int	size_class(int64_t);
static struct live *live_find(struct livemap *, int64_t);
static void	live_add(struct livemap *, int64_t, int64_t, uint64_t,
		    const char *);
static void	live_del(struct livemap *, struct live *);
static int	live_before(const struct livemap *, uint32_t, uint32_t);
static void	heap_up(struct livemap *, size_t);
static void	heap_down(struct livemap *, size_t);
static void	live_clear(struct livemap *);
static void	live_free(struct livemap *);
static void	put_dev(struct jw *, struct msnap *, const struct dev *);
static int	is_complete(struct msnap *, const struct dev *);
static void	tl_point(struct dev *, const struct mtrace *, const char *);
static int64_t	tl_time(const struct mtrace *);
static void	put_timeline(struct jw *, struct msnap *, const struct dev *);
static void	put_growth(struct jw *, struct msnap *, const struct dev *);

static const struct optdoc options[] = {
	OPTDOC_HELP,
	OPTDOC_END
};
static const struct usage use = {
	"[file ...]",
	"replay CUDA memory snapshot traces and score allocator churn",
	options
};

static void
usage(void)
{
	usage_error(&use);
}

int
main(int argc, char *argv[])
{
	static const struct option longopts[] = {
		{ "help", no_argument, NULL, 'h' },
		{ NULL, 0, NULL, 0 }
	};
	struct jw *w;
	int ch, status = 0;

	setprogname(argv[0]);
	while ((ch = getopt_long(argc, argv, "h", longopts, NULL)) != -1) {
		switch (ch) {
		case 'h':
			usage_help(&use);
		default:
			usage();
		}
	}
	argc -= optind;
	argv += optind;

	w = jw_new(stdout);
	status = for_each_operand(argc, argv, score, w);
	jw_free(w);
	return finish(status);
}

/*
 * Returns 0, 1 when the file could not be opened (the others still run),
 * or -1 after a data error, which ends the run.
 */
static int
score(const char *path, void *arg)
{
	static const struct msnap_ops ops = {
		on_segment, on_trace, on_trace_end
	};
	struct jw *w = arg;
	struct msnap *ms;
	struct replay rp;
	size_t i;
	int rc, traced = 0;

	if ((ms = msnap_open(path, MS_SITES)) == NULL) {
		warnmsg("%s:", path);
		return 1;
	}
	memset(&rp, 0, sizeof(rp));
	live_clear(&rp.map);
	live_clear(&rp.segs);
	rc = msnap_read(ms, &ops, &rp);
	if (rc == 0)
		msnap_put_warnings(ms, w);
	if (rc == 0 && msnap_form(ms) == MF_RECORDS)
		memrec_write(ms, w);
	else if (rc == 0 && msnap_form(ms) != MF_EMPTY) {
		xqsort(rp.dev, rp.ndev, sizeof(*rp.dev), dev_cmp);
		for (i = 0; i < rp.ndev; i++) {
			if (!rp.dev[i].traced)
				continue;
			if ((rc = place(ms, &rp.dev[i])) < 0)
				break;
			put_dev(w, ms, &rp.dev[i]);
			put_timeline(w, ms, &rp.dev[i]);
			put_growth(w, ms, &rp.dev[i]);
			traced = 1;
		}
		if (rc == 0 && !traced)
			warnmsg("%s: no trace entries to replay; record them"
			    " with torch.cuda.memory._record_memory_history()"
			    " before taking the snapshot", msnap_name(ms));
	}
	for (i = 0; i < rp.ndev; i++) {
		vec_free(&rp.dev[i].touched);
		vec_free(&rp.dev[i].made);
		vec_free(&rp.dev[i].unmade);
		vec_free(&rp.dev[i].segs);
		vec_free(&rp.dev[i].blocks);
		vec_free(&rp.dev[i].growth);
		mtl_free(&rp.dev[i].tl);
	}
	free(rp.dev);
	vec_free(&rp.unmatched);
	vec_free(&rp.tmp);
	live_free(&rp.map);
	live_free(&rp.segs);
	msnap_close(ms);
	return rc == 0 ? 0 : -1;
}

static struct dev *
dev_get(struct replay *rp, int64_t device)
{
	struct dev *d;
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
	struct dev *d = dev_get(arg, g->device);
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
	struct replay *rp = arg;
	struct livemap *m = &rp->map;
	struct dev *d = dev_get(rp, e->device);
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
end_run(struct dev *d, enum maction a, const char *site)
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
	struct replay *rp = arg;
	struct dev *d;
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
grow(struct dev *d, const struct livemap *m, struct vec *tmp)
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
take_top(struct dev *d, const struct livemap *m)
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
add_top(struct dev *d, int64_t addr, int64_t size, const char *site,
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
static int
place(struct msnap *ms, struct dev *d)
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
is_touched(const struct dev *d, int64_t addr)
{
	return d->touched.n > 0 && bsearch(&addr, d->touched.v,
	    d->touched.n, sizeof(int64_t), addr_cmp) != NULL;
}

/* The earliest segment made at addr, or NULL; made is sorted. */
static const struct seen *
first_made(const struct dev *d, int64_t addr)
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
	const struct dev *x = a, *y = b;

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

static uint64_t
addr_hash(int64_t a)
{
	uint64_t x = (uint64_t)a;

	x ^= x >> 33;
	x *= 0xff51afd7ed558ccdULL;
	x ^= x >> 33;
	return x;
}

static struct live *
live_find(struct livemap *m, int64_t addr)
{
	size_t i;

	if (m->tabcap == 0)
		return NULL;
	for (i = addr_hash(addr) & (m->tabcap - 1); m->tab[i] != 0;
	    i = (i + 1) & (m->tabcap - 1))
		if (m->e[m->tab[i] - 1].addr == addr)
			return &m->e[m->tab[i] - 1];
	return NULL;
}

static void
tab_insert(struct livemap *m, uint32_t idx)
{
	size_t i;

	for (i = addr_hash(m->e[idx].addr) & (m->tabcap - 1); m->tab[i] != 0;
	    i = (i + 1) & (m->tabcap - 1))
		;
	m->tab[i] = idx + 1;
}

static void
live_add(struct livemap *m, int64_t addr, int64_t size, uint64_t alloc_no,
    const char *site)
{
	struct live *l;
	uint32_t idx;
	size_t i;

	if ((m->count + 1) * 2 > m->tabcap) {
		uint32_t *old = m->tab;
		size_t oldcap = m->tabcap;

		m->tabcap = m->tabcap ? m->tabcap * 2 : 1024;
		m->tab = xcalloc(m->tabcap, sizeof(*m->tab));
		for (i = 0; i < oldcap; i++)
			if (old[i] != 0)
				tab_insert(m, old[i] - 1);
		free(old);
	}
	if (m->freelist != NONE && m->n > 0) {
		idx = m->freelist;
		m->freelist = m->e[idx].next;
	} else {
		if (m->n == m->cap) {
			m->cap = m->cap ? m->cap * 2 : 1024;
			m->e = xreallocarray(m->e, m->cap, sizeof(*m->e));
		}
		idx = (uint32_t)m->n++;
	}
	l = &m->e[idx];
	l->addr = addr;
	l->size = size;
	l->alloc_no = alloc_no;
	l->site = site;
	tab_insert(m, idx);
	if (m->count == m->heapcap) {
		m->heapcap = m->heapcap ? m->heapcap * 2 : 1024;
		m->heap = xreallocarray(m->heap, m->heapcap,
		    sizeof(*m->heap));
	}
	l->pos = (uint32_t)m->count;
	m->heap[m->count++] = idx;
	heap_up(m, l->pos);
}

/* Unlinks l; its slot goes on the free list with size -1. */
static void
live_del(struct livemap *m, struct live *l)
{
	uint32_t idx = (uint32_t)(l - m->e), moved;
	size_t i, j, k, mask = m->tabcap - 1;

	/* The last heap entry takes l's place and moves up or down. */
	if (l->pos != --m->count) {
		moved = m->heap[m->count];
		m->heap[l->pos] = moved;
		m->e[moved].pos = l->pos;
		heap_up(m, l->pos);
		heap_down(m, m->e[moved].pos);
	}
	/* Backward-shift deletion keeps every probe chain unbroken. */
	for (i = addr_hash(l->addr) & mask; m->tab[i] != idx + 1;
	    i = (i + 1) & mask)
		;
	m->tab[i] = 0;
	for (j = (i + 1) & mask; m->tab[j] != 0; j = (j + 1) & mask) {
		k = addr_hash(m->e[m->tab[j] - 1].addr) & mask;
		if ((j > i && (k <= i || k > j)) || (j < i && k <= i && k > j)) {
			m->tab[i] = m->tab[j];
			m->tab[j] = 0;
			i = j;
		}
	}
	l->size = -1;
	l->next = m->freelist;
	m->freelist = idx;
}

/* Whether entry a comes before entry b in top_at_peak (top_cmp). */
static int
live_before(const struct livemap *m, uint32_t a, uint32_t b)
{
	const struct live *x = &m->e[a], *y = &m->e[b];

	if (x->size != y->size)
		return x->size > y->size;
	return x->addr < y->addr;
}

static void
heap_swap(struct livemap *m, size_t i, size_t j)
{
	uint32_t t = m->heap[i];

	m->heap[i] = m->heap[j];
	m->heap[j] = t;
	m->e[m->heap[i]].pos = (uint32_t)i;
	m->e[m->heap[j]].pos = (uint32_t)j;
}

static void
heap_up(struct livemap *m, size_t i)
{
	while (i > 0 && live_before(m, m->heap[i], m->heap[(i - 1) / 2])) {
		heap_swap(m, i, (i - 1) / 2);
		i = (i - 1) / 2;
	}
}

static void
heap_down(struct livemap *m, size_t i)
{
	size_t c;

	while ((c = 2 * i + 1) < m->count) {
		if (c + 1 < m->count && live_before(m, m->heap[c + 1],
		    m->heap[c]))
			c++;
		if (!live_before(m, m->heap[c], m->heap[i]))
			break;
		heap_swap(m, i, c);
		i = c;
	}
}

static void
live_clear(struct livemap *m)
{
	m->n = 0;
	m->count = 0;
	m->freelist = NONE;
	if (m->tab != NULL)
		memset(m->tab, 0, m->tabcap * sizeof(*m->tab));
}

static void
live_free(struct livemap *m)
{
	free(m->e);
	free(m->tab);
	free(m->heap);
}

static void
put_dev(struct jw *w, struct msnap *ms, const struct dev *d)
{
	static const char *const partial[] = {
		"actions", "bytes_allocated", "bytes_freed", "size_histogram",
		"short_lived_share", "top_at_peak", "churn"
	};
	const struct jdoc *set = msnap_settings(ms);
	uint64_t allocs = d->actions[MA_ALLOC], segev, k;
	int64_t at_start = d->static_bytes + d->unmatched_bytes;
	double window = 0, pressure, turnover, sp, st, churn;
	int i, overflowed = 0, complete;
	int t;

	if (set != NULL && (t = jdoc_get(set, 0, "trace_alloc_overflowed")) >= 0)
		overflowed = set->node[t].type == JT_TRUE;
	complete = is_complete(ms, d);
	if (d->has_time)
		window = (double)(d->t_last - d->t_first) / 1e6;
	segev = d->actions[MA_SEGMENT_ALLOC] + d->actions[MA_SEGMENT_FREE] +
	    d->actions[MA_SEGMENT_MAP] + d->actions[MA_SEGMENT_UNMAP];

	jw_record(w, "churn");
	jw_key(w, "file");
	jw_cstring(w, msnap_name(ms));
	jw_key(w, "device");
	jw_int(w, d->device);
	jw_key(w, "entries");
	jw_uint(w, d->entries);
	jw_key(w, "actions");
	jw_begin_object(w);
	for (i = 0; i < MA_NACTIONS; i++) {
		jw_ckey(w, maction_name[i]);
		jw_uint(w, d->actions[i]);
	}
	jw_end_object(w);
	jw_key(w, "start_time_us");
	jw_int_or_null(w, d->has_time, d->t_first);
	jw_key(w, "window_s");
	if (d->has_time)
		jw_double(w, window);
	else
		jw_null(w);
	jw_key(w, "bytes_allocated");
	jw_int(w, d->bytes_allocated);
	jw_key(w, "bytes_freed");
	jw_int(w, d->bytes_freed);
	jw_key(w, "segment_bytes_allocated");
	jw_int(w, d->seg_bytes[0]);
	jw_key(w, "segment_bytes_freed");
	jw_int(w, d->seg_bytes[1]);
	jw_key(w, "bytes_mapped");
	jw_int(w, d->seg_bytes[2]);
	jw_key(w, "bytes_unmapped");
	jw_int(w, d->seg_bytes[3]);
	jw_key(w, "allocs_per_s");
	jw_ratio(w, (double)allocs, window);
	jw_key(w, "device_calls");
	jw_uint(w, segev);
	jw_key(w, "device_calls_per_1000_allocs");
	jw_ratio(w, 1000.0 * (double)segev, (double)allocs);
	jw_key(w, "device_calls_per_s");
	jw_ratio(w, (double)segev, window);

	jw_key(w, "peak");
	jw_int(w, at_start + d->max_delta);
	jw_key(w, "peak_lower_bound");
	jw_bool(w, !complete);
	jw_key(w, "peak_in_window");
	jw_int(w, d->max_delta);
	jw_key(w, "peak_seq");
	jw_int_or_null(w, d->has_peak, (int64_t)d->peak_seq);
	jw_key(w, "peak_time_us");
	jw_int_or_null(w, d->has_peak && d->peak_has_time, d->peak_time);
	jw_key(w, "live_at_start");
	jw_int(w, at_start);
	jw_key(w, "static_bytes");
	jw_int(w, d->static_bytes);
	jw_key(w, "segments_before_window");
	jw_uint(w, d->unplaced);
	jw_key(w, "snapshot_live");
	jw_int(w, d->snap_live);
	jw_key(w, "live_at_end_replayed");
	jw_int(w, d->live_end);
	jw_key(w, "live_blocks_at_end_replayed");
	jw_uint(w, d->live_blocks_end);
	jw_key(w, "unmatched_frees");
	jw_uint(w, d->unmatched);
	jw_key(w, "unmatched_free_bytes");
	jw_int(w, d->unmatched_bytes);
	jw_key(w, "double_allocs");
	jw_uint(w, d->double_allocs);
	jw_key(w, "top_at_peak");
	jw_begin_array(w);
	for (i = 0; i < d->ntop; i++) {
		jw_begin_object(w);
		jw_key(w, "addr");
		jw_int(w, d->top[i].addr);
		jw_key(w, "size");
		jw_int(w, d->top[i].size);
		jw_key(w, "site");
		jw_cstring_or_null(w, d->top[i].site);
		jw_key(w, "origin");
		jw_cstring(w, d->top[i].before ? "before_window" : "window");
		jw_end_object(w);
	}
	jw_end_array(w);
	jw_key(w, "short_lived");
	jw_uint(w, d->short_lived);
	jw_key(w, "short_lived_share");
	jw_ratio(w, (double)d->short_lived, (double)allocs);
	jw_key(w, "size_histogram");
	jw_begin_array(w);
	for (i = 0; i < NCLASS; i++) {
		if (d->hist[i] == 0)
			continue;
		jw_begin_object(w);
		jw_key(w, "from");
		jw_int(w, i == 0 ? 0 : (int64_t)1 << i);
		jw_key(w, "to");
		if (i < 62)
			jw_int(w, (int64_t)2 << i);
		else
			jw_null(w);
		jw_key(w, "allocs");
		jw_uint(w, d->hist[i]);
		jw_key(w, "bytes");
		jw_int(w, d->hist_bytes[i]);
		jw_end_object(w);
	}
	jw_end_array(w);
	jw_key(w, "ooms");
	jw_uint(w, d->actions[MA_OOM]);
	jw_key(w, "oom_events");
	jw_begin_array(w);
	for (k = 0; k < d->actions[MA_OOM] && k < MAX_OOMS; k++) {
		const struct oom *o = &d->ooms[k];

		jw_begin_object(w);
		jw_key(w, "seq");
		jw_uint(w, o->seq);
		jw_key(w, "time_us");
		jw_int_or_null(w, o->has_time, o->time_us);
		jw_key(w, "size");
		jw_int(w, o->size);
		jw_key(w, "device_free");
		jw_int_or_null(w, o->device_free >= 0, o->device_free);
		jw_end_object(w);
	}
	jw_end_array(w);
	jw_key(w, "segment_free_bursts");
	jw_uint(w, d->bursts);
	jw_key(w, "retry_bursts");
	jw_uint(w, d->retry_bursts);
	jw_key(w, "burst_segments");
	jw_uint(w, d->burst_segments);
	jw_key(w, "largest_burst");
	jw_uint(w, d->largest_burst);
	jw_key(w, "free_then_alloc");
	jw_uint(w, d->free_then_alloc);
	jw_key(w, "empty_cache_calls");
	jw_uint(w, d->empty_cache_calls);
	jw_key(w, "empty_cache_segments");
	jw_uint(w, d->empty_cache_segments);
	jw_key(w, "empty_cache_bytes");
	jw_int(w, d->empty_cache_bytes);
	jw_key(w, "retries_succeeded");
	jw_uint(w, d->retries_succeeded);
	jw_key(w, "retries_failed");
	jw_uint(w, d->retries_failed);
	jw_key(w, "retry_segments");
	jw_uint(w, d->retry_segments);
	jw_key(w, "retry_bytes");
	jw_int(w, d->retry_bytes);
	jw_key(w, "unattributed_bursts");
	jw_uint(w, d->unattributed_bursts);
	jw_key(w, "ring_overflowed");
	jw_bool(w, overflowed);
	jw_key(w, "window_complete");
	jw_bool(w, complete);
	jw_key(w, "partial");
	jw_begin_array(w);
	for (i = 0; !complete && i < (int)(sizeof(partial) /
	    sizeof(partial[0])); i++)
		jw_cstring(w, partial[i]);
	jw_end_array(w);

	/* The score: see churn-score(1), "The churn score". */
	pressure = allocs > 0 ? 1000.0 * (double)segev / (double)allocs : 0;
	sp = fmin(pressure / 50.0, 1.0);
	turnover = (double)d->bytes_allocated /
	    (double)(at_start + d->max_delta > 0 ? at_start + d->max_delta : 1);
	st = fmin(log2(1.0 + turnover) / 8.0, 1.0);
	churn = 100.0 * (0.5 * sp + 0.25 * (allocs > 0 ?
	    (double)d->short_lived / (double)allocs : 0) + 0.25 * st);
	jw_key(w, "turnover");
	jw_double(w, turnover);
	jw_key(w, "churn");
	jw_int(w, (int64_t)lround(churn));
	jw_end(w);
}

/* Whether the window provably covers the whole run: see put_dev(). */
static int
is_complete(struct msnap *ms, const struct dev *d)
{
	const struct jdoc *set = msnap_settings(ms);
	int t;

	if (set != NULL && (t = jdoc_get(set, 0, "trace_alloc_overflowed")) >= 0
	    && set->node[t].type == JT_TRUE)
		return 0;
	return d->unmatched == 0 && d->double_allocs == 0 &&
	    d->static_bytes == 0 && d->unmatched_bytes == 0 &&
	    d->unplaced == 0;
}

/* A point of the curve after entry e changed what is live or reserved. */
static void
tl_point(struct dev *d, const struct mtrace *e, const char *site)
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

/*
 * The device's memory_timeline: allocated is what was live at the start
 * plus the replay's running total; reserved starts at what makes it end at
 * the snapshot's segments, or, where the snapshot disagrees, at the least
 * that keeps it from going below zero.
 */
static void
put_timeline(struct jw *w, struct msnap *ms, const struct dev *d)
{
	int64_t base, low = 0;
	size_t i;

	if (d->tl.n == 0)
		return;
	for (i = 0; i < d->tl.n; i++)
		if (d->tl.p[i].reserved < low)
			low = d->tl.p[i].reserved;
	base = mtl_sub(d->snap_reserved, d->reserved);
	if (base < mtl_sub(0, low))
		base = mtl_sub(0, low);
	jw_record(w, "memory_timeline");
	jw_key(w, "source");
	jw_cstring(w, "snapshot");
	jw_key(w, "file");
	jw_cstring(w, msnap_name(ms));
	jw_key(w, "device");
	jw_int(w, d->device);
	mtl_put(w, &d->tl, mtl_add(d->static_bytes, d->unmatched_bytes), base,
	    !is_complete(ms, d));
	jw_end(w);
}

/*
 * The device's memory_growth record, when some site grows.  The trace
 * names no iteration, so the growing site that kept the fewest blocks is
 * taken to keep one per iteration: the others' rates are per that cycle.
 */
static void
put_growth(struct jw *w, struct msnap *ms, const struct dev *d)
{
	const struct grow *g = d->growth.v;
	size_t i;

	if (d->growth.n == 0)
		return;
	jw_record(w, "memory_growth");
	jw_key(w, "file");
	jw_cstring(w, msnap_name(ms));
	jw_key(w, "device");
	jw_int(w, d->device);
	jw_key(w, "allocs");
	jw_uint(w, d->actions[MA_ALLOC]);
	jw_key(w, "iterations");
	jw_uint(w, d->iterations);
	jw_key(w, "iterations_inferred");
	jw_bool(w, 1);
	jw_key(w, "blocks");
	jw_uint(w, d->growth_blocks);
	jw_key(w, "bytes");
	jw_int(w, d->growth_bytes);
	jw_key(w, "live_at_end_replayed");
	jw_int(w, d->live_end);
	jw_key(w, "sites");
	jw_begin_array(w);
	for (i = 0; i < d->growth.n; i++) {
		jw_begin_object(w);
		jw_key(w, "site");
		jw_cstring(w, g[i].site);
		jw_key(w, "blocks");
		jw_uint(w, g[i].blocks);
		jw_key(w, "bytes");
		jw_int(w, g[i].bytes);
		jw_key(w, "blocks_per_iteration");
		jw_double(w, (double)g[i].blocks / (double)d->iterations);
		jw_key(w, "bytes_per_iteration");
		jw_double(w, (double)g[i].bytes / (double)d->iterations);
		jw_key(w, "smallest");
		jw_int(w, g[i].smallest);
		jw_key(w, "largest");
		jw_int(w, g[i].largest);
		jw_key(w, "first_alloc");
		jw_uint(w, g[i].first_alloc);
		jw_key(w, "last_alloc");
		jw_uint(w, g[i].last_alloc);
		jw_end_object(w);
	}
	jw_end_array(w);
	jw_end(w);
}
