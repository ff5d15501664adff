/*
 * ival: lengths of unions of time intervals, for busy, idle and overlap
 * figures that must not count the same nanosecond twice.
 *
 * An interval is [start, end) in any integral unit; one with end <= start
 * is empty.  Each carries a class, a small integer; lower classes take
 * precedence where intervals overlap.  The functions sort the caller's
 * array in place and allocate only scratch that they free before
 * returning.  Nothing is kept between calls.
 */
#ifndef IVAL_H
#define IVAL_H

#include <stddef.h>
#include <stdint.h>

#define IVAL_MAXCLS	8

struct ival {
	int64_t	start, end;
	int	cls;		/* 0 .. IVAL_MAXCLS - 1 */
};

/*
 * The length of the union of v[0..n).  Sorts v by start.
 */
int64_t ival_union(struct ival *v, size_t n);

/*
 * Splits the union of v[0..n) by precedence: out[c] (c < ncls) receives
 * the length of the time covered by class c and by no class below c, so
 * that the out[] sum to the union's length, which is returned.  Classes
 * at or above ncls are ignored.  Sorts v by start.
 */
int64_t ival_exposed(struct ival *v, size_t n, int ncls, int64_t *out);

#endif
