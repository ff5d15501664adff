/*
 * opnest: each thread's call trees (opnest.c): operators and Python frames
 * nested by time, self times, what the runtime calls under each operator
 * launched, and which operator or frame issued each sync, copy and
 * allocator call; a window of unfinished trees, so memory grows with the
 * largest tree, not the thread.
 *
 * Ownership: a struct nest owns its arrays until op_nest_free(); the
 * events it reads are its trace's spills.
 */
#ifndef OPNEST_H
#define OPNEST_H

#include <stddef.h>
#include <stdint.h>

#include "io/spill.h"
#include "trace/opgpu.h"

struct oprank;
struct thr;
struct trace;

#define MAXORPHANS	65536	/* such calls a thread holds for its frames */

/* A CPU event kept for nesting: exact ns as read, and its thread. */
struct cev {
	int64_t		ts, dur;
	uint32_t	name, seq;
	uint64_t	thr;		/* struct thr's id */
};

/* An operator open on the runtime stack: its exact end, its index. */
struct rtopen {
	int64_t	end;
	size_t	i;
};

/* A Python frame open while nesting. */
struct pyopen {
	int64_t		end, dur, childsum;	/* ns */
	int64_t		d;			/* truncated µs */
	uint32_t	name;
	int		module;			/* an "nn.Module: " frame */
};

/* A whole call tree in the window: events lo..hi of the thread. */
struct seg {
	size_t	lo, hi;
	int64_t	maxend;		/* the latest exact end in it */
};

/*
 * Nesting one thread, as a stream of its operators in order.  The window
 * holds the call trees not yet finished: events off..off+n of the thread,
 * indexed by their place in the thread (every index here is one).  A tree
 * is finished once no runtime call left can land in it, so memory grows
 * with the largest tree, not with the thread.  Kept across threads.
 */
struct nest {
	struct cev	*v;
	int64_t		*parent;	/* -1: a root */
	int32_t		*nchild;
	uint8_t		*del, *mark;
	uint32_t	*shape;		/* in trace's shv, NOSHAPE or INCOST */
	int64_t		*childsum, *gdir, *gsub;
	int64_t		*lcur;		/* self time given to the ledger */
	size_t		 off, n, cap;
	size_t		*stack;		/* the tree being built */
	size_t		 sp, capstack;
	struct rtopen	*rs;		/* the runtime calls' stack */
	size_t		 nrs, caprs;
	struct pyopen	*ps;
	size_t		 nps, capps;
	size_t		 nmodules;	/* module frames among ps */
	struct rev	*orphan;	/* callers' calls outside any operator */
	size_t		 norphan, caporphan;
	struct seg	*seg;		/* built, not finished */
	size_t		 nseg, capseg;
	size_t		 next;		/* the next operator the runtime sees */
	int64_t		 bs, be, busy, count;	/* the thread's busy time */
	int		 open;
	/*
	 * Of the next link: the thread's place in key order, then its
	 * calls', so that links sort as when threads were nested in that
	 * order (a correlation id two threads share goes to the last).
	 */
	uint64_t	 order;
	uint64_t	 thr;		/* the thread being nested */
	const struct cev *op, *py;	/* the next of ops and py, or NULL */
	const struct rev *rt;		/* the next of rt, or NULL */
	const struct cev *sh;		/* the next of shp, or NULL */
	struct spillcur	 oc, pc, rc, sc;	/* over the trace's spills */
};

/* opnest.c */
int	op_cmpcev(const void *a, const void *b);
int	op_cmprev(const void *a, const void *b);
void	op_nest_open(struct nest *nb, struct trace *t);
uint64_t	op_nest_next(const struct nest *nb);
void	op_nest_free(struct nest *nb);
void	op_nest_cpu(struct oprank *r, struct nest *nb, const struct thr *th);
void	op_nest_py(struct oprank *r, struct nest *nb, const struct thr *th);

#endif
