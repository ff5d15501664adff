/*
 * opgpu: GPU work (opgpu.c): kernels, copies and memsets joined to the
 * runtime calls that launched them by correlation id (both sorted, not a
 * table of every id), the phase each launch gives its work, and each
 * device's timeline of edges.
 *
 * Ownership: the records are in their struct trace's spills; a struct
 * dev is its trace's.
 */
#ifndef OPGPU_H
#define OPGPU_H

#include <stddef.h>
#include <stdint.h>

#include "trace/opbase.h"

struct oprank;
struct trace;

/*
 * A runtime call as read, to find what it launched and, for a
 * synchronise, copy or allocator call (slice L_SYNC, L_COPY or L_ALLOC by
 * its name; else NO_CALLER), what called it.
 */
#define NO_CALLER	UINT32_MAX
struct rcall {
	int64_t		corr, ts, dur;
	uint32_t	seq, slice;
	uint64_t	thr;
	uint32_t	name;
};

/*
 * A runtime call that launched GPU work, and what that work was; or one
 * whose caller is wanted, which launched none (end INT64_MIN).
 */
struct rev {
	int64_t		ts, corr;
	int64_t		sum, comm, end;	/* of its GPU work */
	uint32_t	seq;
	uint64_t	thr;
	int64_t		dur;
	uint32_t	slice;
};

/* The phase a runtime call gave its GPU work, in the order of the calls. */
struct link {
	int64_t		corr;
	uint64_t	order;
	int		phase;
};

/* One end of a GPU event on its device's timeline. */
struct gedge {
	int64_t		t;
	uint32_t	dev;		/* struct dev's idx */
	int16_t		cls, delta;
};

/*
 * A device of the trace.  Its edges are in the trace's spill, which sorts
 * by idx first, so that a device costs its sums and not a buffer of its
 * own however many devices there are.
 */
struct dev {
	struct jid	 dev;
	uint32_t	 idx;		/* in the order first seen */
	int64_t		 n, lo, hi;	/* events, their window */
};

/* A GPU event that names the runtime call that launched it. */
struct gev {
	int64_t		corr, dur, end;
	uint32_t	name, seq;
	int		comm, memset;
};

/* opgpu.c */
int	op_cmprcall(const void *a, const void *b);
int	op_cmplink(const void *a, const void *b);
int	op_cmpgev(const void *a, const void *b);
int	op_cmpgedge(const void *a, const void *b);
void	op_timelines(struct trace *t);
void	op_gpu_join(struct trace *t);
void	op_gpu_phases(struct oprank *r);

#endif
