/*
 * opcost: the FLOPs and bytes of one call of a PyTorch operator, from what
 * its trace event records with record_shapes=True: "Input Dims", "Input
 * type" and "Concrete Inputs" (tr-extract's input_dims, input_types and
 * concrete_inputs).  The Chrome trace stores no FLOPs, even with
 * with_flops=True, so they are recomputed here.  The formulas are
 * TraceLens's (TraceLens/PerfModel/perf_model.py), which follow
 * torch.utils.flop_counter for GEMMs, convolutions and attention;
 * op-rank(1) gives each one and where it differs.
 *
 * Ownership: nothing here allocates; a struct opcost is a plain value and
 * its prec a static string.
 */
#ifndef OPCOST_H
#define OPCOST_H

#include "io/json.h"

/* What bounds an operator: its arithmetic, or the bytes it moves. */
enum opmodel {
	OM_NONE,
	OM_GEMM,	/* mm, addmm, bmm, baddbmm, _scaled_mm */
	OM_CONV,	/* convolution, forward and backward */
	OM_ATTN,	/* fused scaled dot product attention, both ways */
	OM_NORM,	/* batch, layer, group, RMS norms: by bytes */
	OM_ELEM,	/* elementwise: by bytes */
	OM_FUSED	/* Inductor's fused Triton kernels: by bytes */
};

struct opcost {
	enum opmodel	 model;
	double		 flops;		/* per call */
	double		 bytes;		/* read and written, per call */
	const char	*prec;		/* "bf16", "fp32", ...: the inputs' */
	int		 causal;	/* attention whose score FLOPs halve */
};

/* The model of operator name, OM_NONE when it has none. */
enum opmodel	opcost_model(const char *name);

/*
 * The cost of one call of operator name: nodes dims, types and concrete
 * of d are its event's input_dims, input_types and concrete_inputs (-1
 * when absent).  Returns 0; -1 when the call's shapes do not fit the
 * model (missing inputs, dimensions that do not agree, unknown types);
 * OPCOST_OVERFLOW when they do, but its sizes, FLOPs or bytes are past
 * what 64 bits (or a double) hold, as only a forged shape's are.
 */
#define OPCOST_OVERFLOW	(-2)
int	opcost_eval(const char *name, const struct jdoc *d, int dims,
	    int types, int concrete, struct opcost *c);

/* "compute" for GEMMs, convolutions and attention, else "memory". */
const char	*opcost_bound(enum opmodel m);

#endif
