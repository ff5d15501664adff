/*
 * opcalls: the calls of one operator in a trace, grouped by their shapes
 * as op-rank's op_shape records group them (callshape.h), and the GPU
 * work each call launched, kernel by kernel: what snip-new --from-trace
 * says of the operator it replays, and what replay-check compares between
 * a trace and a replay of it.
 *
 * A call's GPU work is that of the runtime calls (cudaLaunchKernel,
 * hipLaunchKernel, cuLaunchKernel, ...) made on its thread while it ran,
 * its children's included, joined to the kernels, copies and memsets by
 * their correlation, as op-rank joins them.  Its self time is its
 * duration less the time CPU operators and runtime calls inside it took.
 * Kernel names are compared as TraceLens's TraceDiff compares names:
 * hexadecimal addresses made 0xXXXX (opcalls_norm()).
 *
 * The trace is read three times (the calls; what ran inside them; the GPU
 * work), one record at a time: memory grows with the calls of the one
 * operator and what they launched, not with the trace.  A call inside
 * another call of the same operator on its thread is counted in that one.
 *
 * Ownership: struct opcalls owns everything it holds; opcalls_free()
 * releases it.  Options are borrowed until opcalls_free().
 */
#ifndef OPCALLS_H
#define OPCALLS_H

#include <stddef.h>
#include <stdint.h>

#include "base/strmap.h"
#include "io/ndjson.h"
#include "trace/callshape.h"

struct opcalls_opts {
	const char	*name;		/* the operator, as the trace names it */
	/* Only the calls whose callshape_key() is this; NULL: every call. */
	const char	*key;
	size_t		 keylen;
	int		 nsys;		/* the trace is an Nsight Systems export */
};

/* The launches of one kernel (by normalised name) by a group's calls. */
struct opkernel {
	char		*name;		/* as the trace first names it */
	char		*norm;		/* opcalls_norm() of it */
	int64_t		 total;		/* ns */
	int64_t		*dur;		/* each launch's, ns, sorted */
	size_t		 n, cap;
};

/* The calls of one shape. */
struct opgroup {
	char		*key;		/* callshape_key(); "" without shapes */
	size_t		 keylen;
	int		 has_shape;
	struct callshape shape;
	int64_t		 calls;
	int64_t		 cpu, self, gpu;	/* ns, summed over the calls */
	int64_t		 first;		/* the first call's start, ns */
	char		*external_id;	/* the first call's, or NULL */
	int64_t		*call_gpu;	/* each call's GPU time, ns, sorted */
	struct opkernel	*k;		/* by total time, then name */
	size_t		 nk;
};

struct opcalls {
	const struct opcalls_opts *o;
	char		*gpu;		/* the trace's first device, or NULL */
	struct opgroup	*g;		/* by GPU, then self time, calls, key */
	size_t		 ng;
	/* While reading. */
	struct strmap	 groups, threads, corrs, kernels;
	struct ocall	*c;
	size_t		 nc, capc;
	struct othread	*t;		/* by thread id */
	struct ochild	*ch;
	size_t		 nch, capch;
	struct olaunch	*l;
	size_t		 nl, capl;
	int		 pass;
};

/*
 * Reads the trace at path (a PyTorch trace, or with o->nsys an export)
 * three times and groups the calls of o->name.  Returns 0; 1 when it
 * could not be opened; -1 after a data error (each reported).
 */
int opcalls_read(struct opcalls *, const char *path,
    const struct opcalls_opts *o);

/* The group whose key is key, or NULL. */
const struct opgroup *opcalls_find(const struct opcalls *, const char *key,
    size_t keylen);

/*
 * One "op_calls" record per group, in their order: name, the shapes
 * (callshape_put()), calls, cpu_us, self_us, gpu_us, the calls' GPU time
 * (gpu_median_us, gpu_min_us, gpu_max_us), first (the first call's ts,
 * as tr-extract gives it), external_id, and kernels: name, launches, per_call, total_us,
 * median_us, min_us, max_us.
 */
void opcalls_put(struct jw *, const struct opcalls *, const struct opgroup *);

/*
 * One kernel of group g as op_calls lists it, the object alone; total_us
 * only when total is set.
 */
void opcalls_put_kernel(struct jw *, const struct opgroup *g,
    const struct opkernel *, int total);

/* name with TraceLens's normalisation: 0x followed by hex digits, 0xXXXX. */
char *opcalls_norm(const char *name);

/* The median of n sorted values (the mean of the middle two). */
int64_t opcalls_median(const int64_t *v, size_t n);

void opcalls_free(struct opcalls *);

#endif
