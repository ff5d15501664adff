/*
 * churn: the replay of a CUDA memory snapshot's device_traces, as
 * churn-score reports it: per device, the allocator's actions, the peak
 * and the blocks live at it, short-lived blocks, release bursts and what
 * caused them (empty_cache(), a retry, a site), blocks that stay and
 * grow, and the snapshot placed in the trace's window.
 *
 * Ownership: a struct churn owns its devices and everything they hold
 * until churn_free(); the site strings are the msnap's, which must
 * outlive it.
 */
#ifndef CHURN_H
#define CHURN_H

#include <stddef.h>
#include <stdint.h>

#include "memory/livemap.h"
#include "memory/memsnap.h"
#include "memory/memtl.h"

#define TOP_PEAK	10	/* largest live blocks listed at the peak */
#define MAX_OOMS	16	/* oom events listed one by one */
#define NCLASS		64	/* powers of two */

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

struct churn_dev {
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

struct churn {
	struct churn_dev	*dev;
	size_t		 ndev, devcap;
	struct livemap	 map;
	struct livemap	 segs;		/* segments made: their sites */
	struct vec	 unmatched;	/* ufree: this device's, so far */
	struct vec	 tmp;		/* grow: the live blocks, for grow() */
};

/*
 * Replays the snapshot ms into c, its devices then in order.  Returns
 * msnap_read()'s status: 0, or -1 after a data error.
 */
int	churn_read(struct churn *, struct msnap *);

/*
 * Places the snapshot in device d's window, after both are read.
 * Returns 0, or -1 after a data error.
 */
int	churn_place(struct msnap *, struct churn_dev *);

void	churn_free(struct churn *);

#endif
