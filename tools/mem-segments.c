/*
 * mem-segments: read CUDA memory snapshots and say where memory goes: one
 * "segment" record per segment, largest first, then one "memory_summary"
 * per device and one for all devices.
 */
#include <getopt.h>
#include <inttypes.h>
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

/* Allocation sites listed per segment, and per device. */
#define TOP_SITES	3
#define DEVICE_SITES	200
/* Segments drawn block by block, and the runs of blocks kept for each. */
#define LAYOUTS		32
#define MAX_RUNS	64

struct site {
	const char	*site;		/* interned by the reader */
	int64_t		 bytes;
	uint64_t	 blocks;
};

/* What is kept of a segment until the ranking is known. */
struct segrec {
	int64_t		device, address, total, allocated, active, requested;
	int64_t		stream, pool_id[2], largest_free, free;
	int		has_active;
	int		pool, has_pool_id, expandable;
	uint64_t	blocks[MS_NSTATES];
	struct site	top[TOP_SITES];
	int		ntop;
};

struct devsum {
	int64_t		device;
	uint64_t	segments, by_pool[3];	/* small, large, unknown */
	uint64_t	private_segments, expandable;
	int64_t		private_reserved;
	int64_t		reserved, allocated, active, requested, inactive;
	int64_t		inactive_split, free_segments;
	int64_t		largest_free;
	uint64_t	warnings;
	int		requested_known;
	uint64_t	blocks[MS_NSTATES];
	int		has_trace;
	uint64_t	entries, ooms;
	/* Active blocks by site, merged when the list doubles. */
	struct site	*sites;
	size_t		 nsites, sitecap, merged;
	int64_t		 nosite_bytes;
	uint64_t	 nosite_blocks;
};

/* Adjacent blocks in one state. */
struct run {
	enum mstate	state;
	int64_t		bytes;
};

/* A segment's blocks as runs, for the segment_layout record. */
struct layout {
	int64_t		 device, address, total;
	struct run	*run;
	size_t		 nrun;
	uint64_t	 merged;	/* runs merged into others */
};

struct snap {
	struct segrec	*seg;
	size_t		 nseg, segcap;
	struct devsum	*dev;
	size_t		 ndev, devcap;
	struct site	*tmp;
	size_t		 tmpcap;
	uint64_t	 warned;	/* msnap_warnings() at last segment */
	struct layout	 lay[LAYOUTS];	/* the largest segments so far */
	size_t		 nlay;
	/* Bytes reserved, allocated, active and requested, all devices. */
	int64_t		 sums[4];
};

static void	usage(void) __attribute__((noreturn));
static int	summarize(const char *, void *);
static int	on_segment(void *, struct msnap *, const struct mseg *);
static int	on_trace(void *, struct msnap *, const struct mtrace *);
static struct devsum *devsum(struct snap *, int64_t);
static void	top_sites(struct snap *, const struct mseg *, struct segrec *,
		    struct devsum *);
static void	add_sites(struct devsum *, const struct site *, size_t);
static size_t	merge_sites(struct site *, size_t);
static void	put_sites(struct jw *, struct msnap *, struct devsum *);
static void	put_site(struct jw *, const struct site *);
static int	seg_cmp(const void *, const void *);
static int	site_ptr_cmp(const void *, const void *);
static int	site_rank_cmp(const void *, const void *);
static int	dev_cmp(const void *, const void *);
static void	put_segment(struct jw *, const struct segrec *);
static void	keep_layout(struct snap *, const struct mseg *);
static void	bound_runs(struct layout *);
static int	lay_cmp(const void *, const void *);
static void	put_layout(struct jw *, const struct layout *);
static void	put_summary(struct jw *, struct msnap *, const struct devsum *,
		    const struct devsum *, size_t);
static void	put_stat(struct jw *, struct msnap *, const struct devsum *,
		    size_t, const char *, const char *);
static void	put_blocks(struct jw *, const uint64_t *);

static const struct optdoc options[] = {
	OPTDOC_HELP,
	OPTDOC_END
};
static const struct usage use = {
	"[file ...]",
	"say where CUDA memory goes, segment by segment",
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
	status = for_each_operand(argc, argv, summarize, w);
	jw_free(w);
	return finish(status);
}

/*
 * Returns 0, 1 when the file could not be opened (the others still run),
 * or -1 after a data error, which ends the run.
 */
static int
summarize(const char *path, void *arg)
{
	static const struct msnap_ops ops = { on_segment, on_trace, NULL };
	struct jw *w = arg;
	struct msnap *ms;
	struct snap s;
	struct devsum all;
	size_t i;
	int rc, k;

	if ((ms = msnap_open(path, MS_SITES)) == NULL) {
		warnmsg("%s:", path);
		return 1;
	}
	memset(&s, 0, sizeof(s));
	rc = msnap_read(ms, &ops, &s);
	if (rc == 0)
		msnap_put_warnings(ms, w);
	if (rc == 0 && msnap_form(ms) == MF_RECORDS) {
		memrec_write(ms, w);
		memrec_timeline(ms, w);
	} else if (rc == 0 && msnap_form(ms) != MF_EMPTY) {
		xqsort(s.seg, s.nseg, sizeof(*s.seg), seg_cmp);
		for (i = 0; i < s.nseg; i++)
			put_segment(w, &s.seg[i]);
		xqsort(s.lay, s.nlay, sizeof(*s.lay), lay_cmp);
		for (i = 0; i < s.nlay; i++)
			put_layout(w, &s.lay[i]);
		xqsort(s.dev, s.ndev, sizeof(*s.dev), dev_cmp);
		for (i = 0; i < s.ndev; i++)
			put_sites(w, ms, &s.dev[i]);
		memset(&all, 0, sizeof(all));
		all.requested_known = 1;
		for (i = 0; i < s.ndev; i++) {
			const struct devsum *d = &s.dev[i];

			put_summary(w, ms, d, d, 1);
			all.segments += d->segments;
			for (k = 0; k < 3; k++)
				all.by_pool[k] += d->by_pool[k];
			all.private_segments += d->private_segments;
			all.private_reserved += d->private_reserved;
			all.expandable += d->expandable;
			all.reserved += d->reserved;
			all.allocated += d->allocated;
			all.active += d->active;
			all.requested += d->requested;
			all.requested_known &= d->requested_known;
			all.inactive += d->inactive;
			all.inactive_split += d->inactive_split;
			all.free_segments += d->free_segments;
			if (d->largest_free > all.largest_free)
				all.largest_free = d->largest_free;
			for (k = 0; k < MS_NSTATES; k++)
				all.blocks[k] += d->blocks[k];
			all.has_trace |= d->has_trace;
			all.entries += d->entries;
			all.ooms += d->ooms;
		}
		/* Not all warnings need be about a device's segment. */
		all.warnings = msnap_warnings(ms);
		put_summary(w, ms, &all, s.dev, s.ndev);
	}
	for (i = 0; i < s.nlay; i++)
		free(s.lay[i].run);
	for (i = 0; i < s.ndev; i++)
		free(s.dev[i].sites);
	free(s.seg);
	free(s.dev);
	free(s.tmp);
	msnap_close(ms);
	return rc == 0 ? 0 : -1;
}

static struct devsum *
devsum(struct snap *s, int64_t device)
{
	struct devsum *d;
	size_t i;

	for (i = 0; i < s->ndev; i++)
		if (s->dev[i].device == device)
			return &s->dev[i];
	if (s->ndev == s->devcap) {
		s->devcap = s->devcap ? s->devcap * 2 : 8;
		s->dev = xreallocarray(s->dev, s->devcap, sizeof(*s->dev));
	}
	d = &s->dev[s->ndev++];
	memset(d, 0, sizeof(*d));
	d->device = device;
	d->requested_known = 1;
	return d;
}

static int
on_segment(void *arg, struct msnap *ms, const struct mseg *g)
{
	struct snap *s = arg;
	struct segrec *r;
	struct devsum *d;
	size_t i;

	/*
	 * Over all devices; every per-device sum, and the summary's, adds
	 * up part of one of these, so it fits in int64 too.
	 */
	if (msnap_add(ms, g->line, g->col, &s->sums[0], g->total_size) < 0 ||
	    msnap_add(ms, g->line, g->col, &s->sums[1],
	    g->allocated_size) < 0 ||
	    msnap_add(ms, g->line, g->col, &s->sums[2], g->active_size) < 0 ||
	    msnap_add(ms, g->line, g->col, &s->sums[3],
	    g->requested_size > 0 ? g->requested_size : 0) < 0)
		return -1;
	if (s->nseg == s->segcap) {
		s->segcap = s->segcap ? s->segcap * 2 : 64;
		s->seg = xreallocarray(s->seg, s->segcap, sizeof(*s->seg));
	}
	r = &s->seg[s->nseg++];
	memset(r, 0, sizeof(*r));
	r->device = g->device;
	r->address = g->address;
	r->total = g->total_size;
	r->allocated = g->allocated_size;
	r->active = g->active_size;
	r->requested = g->requested_size;
	r->stream = g->stream;
	r->pool = g->pool;
	r->has_pool_id = g->has_pool_id;
	r->pool_id[0] = g->pool_id[0];
	r->pool_id[1] = g->pool_id[1];
	r->expandable = g->expandable;
	/*
	 * The segment's own figures, as PyTorch's statistics are kept:
	 * they stand even where its blocks disagree (a warning then).
	 */
	r->free = g->total_size > g->active_size ?
	    g->total_size - g->active_size : 0;
	r->has_active = g->active_size > 0;
	for (i = 0; i < g->nblocks; i++) {
		const struct mblock *b = &g->blocks[i];

		r->blocks[b->state]++;
		if (b->state == MS_INACTIVE && b->size > r->largest_free)
			r->largest_free = b->size;
	}
	d = devsum(s, g->device);
	top_sites(s, g, r, d);
	keep_layout(s, g);

	d->segments++;
	d->by_pool[g->pool < 0 ? 2 : g->pool]++;
	if (g->has_pool_id && (g->pool_id[0] != 0 || g->pool_id[1] != 0)) {
		d->private_segments++;
		d->private_reserved += g->total_size;
	}
	d->expandable += g->expandable == 1;
	d->reserved += g->total_size;
	d->allocated += g->allocated_size;
	d->active += g->active_size;
	if (g->requested_size >= 0)
		d->requested += g->requested_size;
	else
		d->requested_known = 0;
	d->inactive += r->free;
	/*
	 * Free space beside live blocks stays reserved until they go
	 * (memory_stats()' inactive_split_bytes); a segment with nothing
	 * active is what empty_cache() would hand back.
	 */
	if (r->has_active)
		d->inactive_split += r->free;
	else
		d->free_segments += g->total_size;
	d->warnings += msnap_warnings(ms) - s->warned;
	s->warned = msnap_warnings(ms);
	if (r->largest_free > d->largest_free)
		d->largest_free = r->largest_free;
	for (i = 0; i < MS_NSTATES; i++)
		d->blocks[i] += r->blocks[i];
	return 0;
}

static int
on_trace(void *arg, struct msnap *ms, const struct mtrace *e)
{
	struct devsum *d = devsum(arg, e->device);

	(void)ms;
	d->has_trace = 1;
	d->entries++;
	d->ooms += e->action == MA_OOM;
	return 0;
}

/*
 * The live blocks' sites, summed by site, the largest TOP_SITES kept, and
 * added to the device's.
 */
static void
top_sites(struct snap *s, const struct mseg *g, struct segrec *r,
    struct devsum *d)
{
	size_t i, n = 0, m;

	if (s->tmpcap < g->nblocks) {
		s->tmpcap = g->nblocks;
		s->tmp = xreallocarray(s->tmp, s->tmpcap, sizeof(*s->tmp));
	}
	for (i = 0; i < g->nblocks; i++) {
		if (g->blocks[i].state == MS_INACTIVE)
			continue;
		if (g->blocks[i].site == NULL) {
			d->nosite_bytes += g->blocks[i].size;
			d->nosite_blocks++;
			continue;
		}
		s->tmp[n].site = g->blocks[i].site;
		s->tmp[n].bytes = g->blocks[i].size;
		s->tmp[n].blocks = 1;
		n++;
	}
	/* s->tmp may never have been allocated: memcpy(3) must not see it. */
	if (n == 0) {
		r->ntop = 0;
		return;
	}
	m = merge_sites(s->tmp, n);
	add_sites(d, s->tmp, m);
	xqsort(s->tmp, m, sizeof(*s->tmp), site_rank_cmp);
	r->ntop = m < TOP_SITES ? (int)m : TOP_SITES;
	memcpy(r->top, s->tmp, (size_t)r->ntop * sizeof(*r->top));
}

/*
 * Sums equal sites of v[0..n) into its first m elements, m returned.
 * Interned sites: equal strings are equal pointers.
 */
static size_t
merge_sites(struct site *v, size_t n)
{
	size_t i, m;

	xqsort(v, n, sizeof(*v), site_ptr_cmp);
	for (i = 0, m = 0; i < n; i++) {
		if (m > 0 && v[m - 1].site == v[i].site) {
			v[m - 1].bytes += v[i].bytes;
			v[m - 1].blocks += v[i].blocks;
		} else
			v[m++] = v[i];
	}
	return m;
}

/*
 * A segment's sites join the device's.  The list is merged each time it
 * doubles, so it holds at most twice the device's distinct sites.
 */
static void
add_sites(struct devsum *d, const struct site *v, size_t n)
{
	if (d->nsites + n > d->sitecap) {
		d->sitecap = (d->nsites + n) * 2;
		d->sites = xreallocarray(d->sites, d->sitecap,
		    sizeof(*d->sites));
	}
	memcpy(d->sites + d->nsites, v, n * sizeof(*v));
	d->nsites += n;
	if (d->nsites >= 2 * d->merged + 1024)
		d->nsites = d->merged = merge_sites(d->sites, d->nsites);
}

/*
 * The device's memory_sites record: its active bytes by allocation site,
 * the DEVICE_SITES largest one by one, so that two snapshots can be
 * compared site by site (report-diff).
 */
static void
put_sites(struct jw *w, struct msnap *ms, struct devsum *d)
{
	int64_t other_bytes = 0;
	uint64_t other_blocks = 0;
	size_t i, n;

	n = d->nsites > 0 ? merge_sites(d->sites, d->nsites) : 0;
	xqsort(d->sites, n, sizeof(*d->sites), site_rank_cmp);
	jw_record(w, "memory_sites");
	jw_key(w, "file");
	jw_cstring(w, msnap_name(ms));
	jw_key(w, "device");
	jw_int(w, d->device);
	jw_key(w, "sites_total");
	jw_uint(w, n);
	jw_key(w, "sites");
	jw_begin_array(w);
	for (i = 0; i < n; i++) {
		if (i < DEVICE_SITES)
			put_site(w, &d->sites[i]);
		else {
			other_bytes += d->sites[i].bytes;
			other_blocks += d->sites[i].blocks;
		}
	}
	jw_end_array(w);
	jw_key(w, "other_bytes");
	jw_int(w, other_bytes);
	jw_key(w, "other_blocks");
	jw_uint(w, other_blocks);
	jw_key(w, "no_site_bytes");
	jw_int(w, d->nosite_bytes);
	jw_key(w, "no_site_blocks");
	jw_uint(w, d->nosite_blocks);
	jw_end(w);
}

static void
put_site(struct jw *w, const struct site *s)
{
	jw_begin_object(w);
	jw_key(w, "site");
	jw_cstring(w, s->site);
	jw_key(w, "bytes");
	jw_int(w, s->bytes);
	jw_key(w, "blocks");
	jw_uint(w, s->blocks);
	jw_end_object(w);
}

static int
site_ptr_cmp(const void *a, const void *b)
{
	const struct site *x = a, *y = b;

	return x->site < y->site ? -1 : x->site > y->site;
}

static int
site_rank_cmp(const void *a, const void *b)
{
	const struct site *x = a, *y = b;

	if (x->bytes != y->bytes)
		return x->bytes > y->bytes ? -1 : 1;
	return strcmp(x->site, y->site);
}

/* Largest first; then by device and address, so the order is total. */
static int
seg_cmp(const void *a, const void *b)
{
	const struct segrec *x = a, *y = b;

	if (x->total != y->total)
		return x->total > y->total ? -1 : 1;
	if (x->device != y->device)
		return x->device < y->device ? -1 : 1;
	return x->address < y->address ? -1 : x->address > y->address;
}

static int
dev_cmp(const void *a, const void *b)
{
	const struct devsum *x = a, *y = b;

	return x->device < y->device ? -1 : x->device > y->device;
}

static void
put_blocks(struct jw *w, const uint64_t *n)
{
	int k;

	jw_key(w, "blocks");
	jw_begin_object(w);
	for (k = 0; k < MS_NSTATES; k++) {
		jw_ckey(w, mstate_name[k]);
		jw_uint(w, n[k]);
	}
	jw_end_object(w);
}

static void
put_segment(struct jw *w, const struct segrec *r)
{
	int i;

	jw_record(w, "segment");
	jw_key(w, "device");
	jw_int(w, r->device);
	jw_key(w, "address");
	jw_int(w, r->address);
	jw_key(w, "total_size");
	jw_int(w, r->total);
	jw_key(w, "allocated");
	jw_int(w, r->allocated);
	jw_key(w, "active");
	jw_int(w, r->active);
	jw_key(w, "requested");
	jw_int_or_null(w, r->requested >= 0, r->requested);
	jw_key(w, "stream");
	jw_int(w, r->stream);
	jw_key(w, "pool");
	if (r->pool >= 0)
		jw_cstring(w, r->pool ? "large" : "small");
	else
		jw_null(w);
	jw_key(w, "pool_id");
	if (r->has_pool_id) {
		jw_begin_array(w);
		jw_int(w, r->pool_id[0]);
		jw_int(w, r->pool_id[1]);
		jw_end_array(w);
	} else
		jw_null(w);
	jw_key(w, "expandable");
	if (r->expandable >= 0)
		jw_bool(w, r->expandable);
	else
		jw_null(w);
	put_blocks(w, r->blocks);
	jw_key(w, "free");
	jw_int(w, r->free);
	jw_key(w, "largest_free");
	jw_int(w, r->largest_free);
	if (r->ntop > 0) {
		jw_key(w, "top_sites");
		jw_begin_array(w);
		for (i = 0; i < r->ntop; i++)
			put_site(w, &r->top[i]);
		jw_end_array(w);
	}
	jw_end(w);
}

/*
 * A memory_stats() counter summed over devices dev[0..n): null unless every
 * one of them has it.
 */
static void
put_stat(struct jw *w, struct msnap *ms, const struct devsum *dev, size_t n,
    const char *key, const char *as)
{
	const struct jdoc *doc;
	int64_t v, sum = 0;
	size_t i;
	int obj, known = n > 0;

	for (i = 0; i < n && known; i++) {
		obj = msnap_stats(ms, dev[i].device, &doc);
		if (obj < 0 || jdoc_get_i64(doc, (uint32_t)obj, key, &v) < 0)
			known = 0;
		else
			sum += v;
	}
	jw_ckey(w, as);
	jw_int_or_null(w, known, sum);
}

/* The summary of d: one device when devs is d, else all ndev devices. */
static void
put_summary(struct jw *w, struct msnap *ms, const struct devsum *d,
    const struct devsum *devs, size_t ndev)
{
	const struct jdoc *set = msnap_settings(ms);
	double split;
	const char *risk = NULL;
	int one = devs == d;

	jw_record(w, "memory_summary");
	jw_key(w, "file");
	jw_cstring(w, msnap_name(ms));
	jw_key(w, "scope");
	jw_cstring(w, one ? "device" : "all");
	if (one) {
		jw_key(w, "device");
		jw_int(w, d->device);
	} else {
		jw_key(w, "devices");
		jw_uint(w, ndev);
	}
	jw_key(w, "era");
	jw_cstring(w, msnap_era(ms));
	jw_key(w, "segments");
	jw_uint(w, d->segments);
	jw_key(w, "segments_by_pool");
	jw_begin_object(w);
	jw_key(w, "small");
	jw_uint(w, d->by_pool[0]);
	jw_key(w, "large");
	jw_uint(w, d->by_pool[1]);
	if (d->by_pool[2] > 0) {
		jw_key(w, "unknown");
		jw_uint(w, d->by_pool[2]);
	}
	jw_end_object(w);
	jw_key(w, "private_pool_segments");
	jw_uint(w, d->private_segments);
	jw_key(w, "private_pool_reserved");
	jw_int(w, d->private_reserved);
	jw_key(w, "expandable_segments");
	jw_uint(w, d->expandable);
	jw_key(w, "reserved");
	jw_int(w, d->reserved);
	jw_key(w, "allocated");
	jw_int(w, d->allocated);
	jw_key(w, "active");
	jw_int(w, d->active);
	jw_key(w, "requested");
	jw_int_or_null(w, d->requested_known, d->requested);
	jw_key(w, "pending_free");
	jw_int(w, d->active - d->allocated);
	jw_key(w, "inactive");
	jw_int(w, d->inactive);
	jw_key(w, "internal_waste");
	jw_int_or_null(w, d->requested_known, d->allocated - d->requested);
	jw_key(w, "fragmentation");
	jw_ratio(w, d->inactive, d->reserved);
	jw_key(w, "inactive_split_bytes");
	jw_int(w, d->inactive_split);
	jw_key(w, "free_segment_bytes");
	jw_int(w, d->free_segments);
	jw_key(w, "split_fragmentation");
	jw_ratio(w, d->inactive_split, d->reserved);
	jw_key(w, "releasable_share");
	jw_ratio(w, d->free_segments, d->reserved);
	/*
	 * The verdict is on split free space only: whole free segments are
	 * a cache that empty_cache() can release, not fragmentation.
	 */
	if (d->reserved > 0) {
		split = (double)d->inactive_split / (double)d->reserved;
		risk = split < 0.10 ? "LOW" : split <= 0.20 ? "MEDIUM" :
		    "HIGH";
	}
	jw_key(w, "fragmentation_risk");
	jw_cstring_or_null(w, risk);
	jw_key(w, "largest_free");
	jw_int(w, d->largest_free);
	jw_key(w, "external_fragmentation");
	if (d->inactive > 0)
		jw_double(w, 1.0 - (double)d->largest_free /
		    (double)d->inactive);
	else
		jw_null(w);
	put_blocks(w, d->blocks);
	jw_key(w, "trace_entries");
	jw_int_or_null(w, d->has_trace, (int64_t)d->entries);
	jw_key(w, "oom_events");
	jw_int_or_null(w, d->has_trace, (int64_t)d->ooms);
	put_stat(w, ms, devs, ndev, "num_alloc_retries",
	    "num_alloc_retries");
	put_stat(w, ms, devs, ndev, "num_ooms", "num_ooms");
	put_stat(w, ms, devs, ndev, "allocated_bytes.all.peak",
	    "peak_allocated");
	put_stat(w, ms, devs, ndev, "reserved_bytes.all.peak",
	    "peak_reserved");
	jw_key(w, "warnings");
	jw_uint(w, d->warnings);
	jw_key(w, "allocator_settings");
	if (set != NULL)
		jw_jdoc(w, set, 0);
	else
		jw_null(w);
	jw_end(w);
}

/*
 * Keeps g's blocks as runs when g is among the LAYOUTS largest segments so
 * far, in the order seg_cmp() ranks them.
 */
static void
keep_layout(struct snap *s, const struct mseg *g)
{
	struct layout *l, cand;
	size_t i, min = 0;

	cand.device = g->device;
	cand.address = g->address;
	cand.total = g->total_size;
	if (s->nlay < LAYOUTS)
		l = &s->lay[s->nlay++];
	else {
		for (i = 1; i < s->nlay; i++)
			if (lay_cmp(&s->lay[i], &s->lay[min]) > 0)
				min = i;
		if (lay_cmp(&cand, &s->lay[min]) >= 0)
			return;
		l = &s->lay[min];
		free(l->run);
	}
	*l = cand;
	l->run = xreallocarray(NULL, g->nblocks + 1, sizeof(*l->run));
	l->nrun = 0;
	l->merged = 0;
	for (i = 0; i < g->nblocks; i++) {
		if (l->nrun > 0 &&
		    l->run[l->nrun - 1].state == g->blocks[i].state) {
			l->run[l->nrun - 1].bytes += g->blocks[i].size;
			continue;
		}
		l->run[l->nrun].state = g->blocks[i].state;
		l->run[l->nrun].bytes = g->blocks[i].size;
		l->nrun++;
	}
	bound_runs(l);
}

/*
 * Beyond MAX_RUNS, the smallest run goes into its larger neighbour (which
 * may then meet a run in its own state), until MAX_RUNS are left: a bar
 * cannot show more, and the large runs are what fragmentation is about.
 */
static void
bound_runs(struct layout *l)
{
	size_t i, k, to;

	while (l->nrun > MAX_RUNS) {
		for (k = 0, i = 1; i < l->nrun; i++)
			if (l->run[i].bytes < l->run[k].bytes)
				k = i;
		if (k == 0)
			to = 1;
		else if (k == l->nrun - 1 ||
		    l->run[k - 1].bytes >= l->run[k + 1].bytes)
			to = k - 1;
		else
			to = k + 1;
		l->run[to].bytes += l->run[k].bytes;
		memmove(&l->run[k], &l->run[k + 1],
		    (l->nrun - k - 1) * sizeof(*l->run));
		l->nrun--;
		l->merged++;
		/* The runs on either side of the gap may now agree. */
		i = k > 0 ? k - 1 : 0;
		if (i + 1 < l->nrun && l->run[i].state == l->run[i + 1].state) {
			l->run[i].bytes += l->run[i + 1].bytes;
			memmove(&l->run[i + 1], &l->run[i + 2],
			    (l->nrun - i - 2) * sizeof(*l->run));
			l->nrun--;
			l->merged++;
		}
	}
}

/* As seg_cmp(): largest first, then by device and address. */
static int
lay_cmp(const void *a, const void *b)
{
	const struct layout *x = a, *y = b;

	if (x->total != y->total)
		return x->total > y->total ? -1 : 1;
	if (x->device != y->device)
		return x->device < y->device ? -1 : 1;
	return x->address < y->address ? -1 : x->address > y->address;
}

static void
put_layout(struct jw *w, const struct layout *l)
{
	size_t i;

	jw_record(w, "segment_layout");
	jw_key(w, "device");
	jw_int(w, l->device);
	jw_key(w, "address");
	jw_int(w, l->address);
	jw_key(w, "total_size");
	jw_int(w, l->total);
	jw_key(w, "runs");
	jw_begin_array(w);
	for (i = 0; i < l->nrun; i++) {
		jw_begin_array(w);
		jw_cstring(w, mstate_name[l->run[i].state]);
		jw_int(w, l->run[i].bytes);
		jw_end_array(w);
	}
	jw_end_array(w);
	jw_key(w, "runs_merged");
	jw_uint(w, l->merged);
	jw_end(w);
}
