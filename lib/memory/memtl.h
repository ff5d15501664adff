/*
 * memtl: a memory-over-time curve, gathered point by point and written as
 * the members of a "memory_timeline" record in a bounded size, however long
 * the input: MTL_BUCKETS buckets of consecutive points, each with the
 * minimum and maximum allocated bytes (so that no peak is lost), the
 * maximum reserved bytes, and the bytes of the largest allocation sites at
 * the bucket's highest point.  churn-score feeds it a snapshot's trace
 * replay, mem-segments a trace's [memory] events.
 *
 * Ownership: the memtl owns its points; mtl_free() frees them.  Site
 * strings are borrowed and must outlive mtl_put() (the memsnap reader's
 * interned sites do); markers' names must be string literals.
 */
#ifndef MEMTL_H
#define MEMTL_H

#include <stddef.h>
#include <stdint.h>

#define MTL_BUCKETS	500	/* buckets written at most */
#define MTL_SITES	6	/* sites stacked; the rest is "other" */
#define MTL_MARKS	32	/* markers written one by one */
#define MTL_NOTIME	INT64_MIN	/* a point without a time */
#define MTL_UNKNOWN	INT64_MIN	/* bytes not known */

struct jw;

struct mtl_point {
	int64_t		 t;		/* ns, or MTL_NOTIME */
	int64_t		 seq;		/* the input entry's index */
	int64_t		 allocated;	/* or MTL_UNKNOWN */
	int64_t		 reserved;	/* or MTL_UNKNOWN */
	const char	*site;		/* whose bytes changed; NULL: other */
};

struct mtl_mark {
	int64_t		 t, seq;
	int64_t		 bytes;		/* -1 when not known */
	const char	*what;
};

struct memtl {
	struct mtl_point *p;
	size_t		 n, cap;
	struct mtl_mark	 mark[MTL_MARKS];
	uint64_t	 nmark;		/* all of them, the unkept included */
};

/*
 * Adds a point.  With sites, allocated must change only by what the named
 * site (or, for NULL, "other") gained or lost since the previous point.
 */
void mtl_push(struct memtl *, int64_t t, int64_t seq, int64_t allocated,
    int64_t reserved, const char *site);

/* Adds a marker (an OOM, a segment_free burst) at t (ns) and seq. */
void mtl_mark(struct memtl *, int64_t t, int64_t seq, int64_t bytes,
    const char *what);

/*
 * Writes the timeline's members into the record being written: the x
 * axis ("us" when every point has a time, else "entry"), the buckets, the
 * sites, the peak (with at_least) and the markers.  base_allocated and
 * base_reserved are added to every point: what was live, and reserved,
 * before the first one.
 */
void mtl_put(struct jw *, const struct memtl *, int64_t base_allocated,
    int64_t base_reserved, int at_least);

void mtl_free(struct memtl *);

/*
 * a + b and a - b, held at the ends of int64 (INT64_MIN + 1 at the low
 * end, INT64_MIN being MTL_UNKNOWN) instead of overflowing: hostile sizes
 * must not make the curve undefined.
 */
int64_t mtl_add(int64_t a, int64_t b);
int64_t mtl_sub(int64_t a, int64_t b);

#endif
