/*
 * opgraph: GPU work by the runtime call that launched it (opgraph.c):
 * CUDA and HIP graph replays, their kernels to the ledger's gpu_graph
 * slice and the wait before the first to graph_queued, a rank's graph
 * sums (struct graphsum, a member of opsums.h's struct agg) and each
 * launch's GPU work for the serving steps.  Only lib/trace/op*.c include
 * it; the launches are their trace's spill.
 */
#ifndef OPGRAPH_H
#define OPGRAPH_H

#include <stddef.h>
#include <stdint.h>

struct agg;
struct jw;
struct oprank;

/*
 * A rank's CUDA or HIP graph replays (opgraph.c): the launch calls and
 * those that ran kernels, their kernels and the kernels' time, the delay
 * from each launch's return to its first kernel, the host's time in the
 * launch calls; all in ns.
 */
struct graphsum {
	int64_t		launches, ran, kernels, kernel_time;
	int64_t		delay, delay_max, host, host_max;
};

/*
 * The trace's runtime calls joined to their GPU work: graph launches to
 * the ledger's edges and the trace's graph sums; with serving labels,
 * each call's work to the trace's launches spill.  After op_gpu_join().
 */
void	op_graph_join(struct oprank *r);

/* Adds src's sums to dst's. */

/* The rank's graph_replay record, where it launched graphs. */
void	op_put_graph(struct oprank *r, struct jw *w, struct agg *a);

/* Its op_partial_graph record; how many records (0 or 1). */
size_t	op_put_graph_partial(struct jw *w, const struct agg *a);

/* An op_partial_graph record read into a's sums: 0, or -1 so. */
int	op_graph_partial(struct oprank *r, struct agg *a);

#endif
