/*
 * ival: lengths of unions of time intervals, for busy, idle and overlap
 * figures that must not count the same nanosecond twice, swept from the
 * intervals' edges in time order, so that the intervals themselves need
 * not be kept (a spill can sort the edges).
 *
 * An interval is [start, end) in any integral unit, given as an edge +1 at
 * its start and an edge -1 at its end; an empty one (end <= start) must
 * not be given.  Each carries a class, a small integer; lower classes take
 * precedence where intervals overlap.  Edges at the same time may come in
 * any order.  A sweep owns nothing: it is a plain struct.
 */
#ifndef IVAL_H
#define IVAL_H

#include <stddef.h>
#include <stdint.h>

#define IVAL_MAXCLS	8

struct ivsweep {
	int	ncls;			/* classes at or above are ignored */
	int	started;
	int64_t	t;			/* the last edge's time */
	int64_t	active[IVAL_MAXCLS];	/* open intervals by class */
	int64_t	out[IVAL_MAXCLS];	/* covered by c and by no class below */
	int64_t	cover[IVAL_MAXCLS];	/* the union of class c's intervals */
	int64_t	sum;			/* the union of all: the out[] sum */
};

/* A sweep with no edges yet, over classes 0 .. ncls - 1. */
void	ival_init(struct ivsweep *, int ncls);

/*
 * The edge of class cls at time t, delta +1 (a start) or -1 (an end); t
 * must not be before the last edge's.
 */
void	ival_edge(struct ivsweep *, int64_t t, int cls, int delta);

#endif
