/*
 * opcompile: torch.compile in a trace (opcompile.c): compiled regions and
 * graph calls read while a trace comes in and nested once it is whole,
 * the rank's sums (struct compsum, a member of opsums.h's struct agg),
 * written as the compile record and carried in partials.  Only
 * lib/trace/op*.c include it; a struct agg owns its compsum.
 */
#ifndef OPCOMPILE_H
#define OPCOMPILE_H

#include <stddef.h>
#include <stdint.h>

#include "base/strmap.h"

struct agg;
struct jw;
struct oprank;

/*
 * A rank's torch.compile (opcompile.c): dynamo's guard evaluations, the
 * compiled regions' calls and time, by compile id "F/C" (-> struct rtsum),
 * regions inside regions and regions split into graphs; times in ns.
 */
struct compsum {
	int64_t		guard_calls, guard_time, region_calls, region_time;
	int64_t		nested, splits;
	struct strmap	regions;
};

/* An operator or annotation of the trace at hand, from ts to end (ns). */
void	op_compile_event(struct oprank *r, const char *s, size_t len,
	    int64_t ts, int64_t end, uint64_t thr);

/* The trace's regions nested: graph breaks into its sums. */
void	op_compile_nest(struct oprank *r);

/* Adds src's sums to dst's; frees a's. */
void	op_compile_merge(struct agg *dst, const struct agg *src);
void	op_compile_free(struct agg *a);

/* The rank's compile record, where it ran compiled regions. */
void	op_put_compile(struct oprank *r, struct jw *w, struct agg *a);

/* Its op_partial_compile and op_partial_compile_region records. */
size_t	op_put_compile_partials(struct jw *w, const struct agg *a);

/* One of those records read into a: 0, or -1 after saying why. */
int	op_compile_partial(struct oprank *r, struct agg *a);

#endif
