/*
 * opserve: serving engines' steps from their labels (opserve.c): the
 * labels read while a trace comes in, its steps made and timed on the GPU
 * once it is whole, the rank's steps (a spill of struct sstep in struct
 * agg) merged, written and carried in partials.  Only lib/trace/op*.c
 * include it; the steps and labels are in their struct agg's and struct
 * trace's spills.
 */
#ifndef OPSERVE_H
#define OPSERVE_H

#include <stddef.h>
#include <stdint.h>

#include "trace/opledger.h"
#include "trace/servelabel.h"

struct agg;
struct jw;
struct oprank;

#define SERVE_NAME	"serve-steps.tsv"

/*
 * A serving engine's step (opserve.c), in the rank's time: its label's
 * start and length, the GPU work launched under it (first start, last
 * end, how many events, their time by kernel class: L_GEMM + i), its GPU
 * step time (-1: no GPU work), and what its label says.
 */
struct sstep {
	int64_t		ts, host;
	int64_t		first, last, dur, kernels;
	int64_t		cls[NKCLS];
	int64_t		f[NSFIELD];
	int64_t		requests, prefill_requests, decode_requests;
	int64_t		tokens, prefill_tokens, decode_tokens;
	int32_t		engine, phase;
	uint32_t	seq;
	char		mode[SERVE_MODE];
};

/*
 * The GPU work of one runtime call, for the serving steps (opgraph.c
 * writes them): its thread and start, and its GPU events' first start,
 * last end, count and time by kernel class.
 */
struct lsum {
	uint64_t	thr;
	int64_t		ts, first, last, kernels;
	uint32_t	seq;
	int64_t		cls[NKCLS];
};

/* The order of the launches spill: thread, start, seq. */
int	op_cmplsum(const void *a, const void *b);

/* A record_function label of the trace at hand, from ts to end (ns). */
void	op_serve_label(struct oprank *r, const char *s, size_t len,
	    int64_t ts, int64_t end, uint64_t thr);

/* The trace's steps, timed, into its sums in the rank's time. */
void	op_serve_steps(struct oprank *r, int64_t origin);

/* Adds src's steps and bad labels to dst's; src keeps its own. */
void	op_serve_merge(struct agg *dst, struct agg *src);
void	op_serve_free(struct agg *a);

/* The rank's warning, serve_step, serve_phase and serve_summary records. */
void	op_put_serve(struct oprank *r, struct jw *w, struct agg *a);

/* Its op_partial_serve and op_partial_serve_step records; how many. */
size_t	op_put_serve_partials(struct oprank *r, struct jw *w, struct agg *a);

/* One of those records read into a: 0, or -1 after saying why. */
int	op_serve_partial(struct oprank *r, struct agg *a);

#endif
