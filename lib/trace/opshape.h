/*
 * opshape: modelled calls by shape (opshape.c): each operator's calls with
 * one set of input shapes, their FLOPs and bytes from opcost, held
 * against the GPU's peaks (opdevice.h), and the op_shape and
 * compute_summary records.
 *
 * Ownership: a struct agg's shapes map owns its struct shsum.
 */
#ifndef OPSHAPE_H
#define OPSHAPE_H

#include <stddef.h>
#include <stdint.h>

#include "base/strbuf.h"
#include "io/json.h"
#include "trace/callshape.h"
#include "trace/opcost.h"

struct agg;
struct jw;
struct oprank;

#define SHAPE_COST	512	/* bytes a shape's sums take */

/*
 * The calls of one operator with one set of input shapes, types, strides
 * and scalar arguments (callshape.h), and what opcost gives each: an
 * op_shape record.  Keyed by op_shape_key().
 */
struct shsum {
	char		*name;
	uint32_t	 idx;		/* in the trace's shv, or NOSHAPE */
	int		 model;		/* enum opmodel */
	const char	*prec;		/* static, or NULL */
	int		 causal;
	double		 flops, bytes;	/* per call */
	int64_t		 count, gpu;	/* calls; their kernels' time, ns */
	int64_t		 self;		/* their self CPU time, µs */
	struct callshape shape;
};

#define NOSHAPE	UINT32_MAX
#define INCOST	(NOSHAPE - 1)	/* inside a costed call: not costed again */

/* opshape.c */
int	op_shape_key(struct strbuf *key, const char *name,
	    const struct opcost *c, const struct jdoc *d,
	    const struct shapenodes *in);
struct shsum	*op_shape_get(struct oprank *r, struct agg *a,
	    const struct strbuf *key, const char *name, const struct opcost *c,
	    const struct jdoc *d, const struct shapenodes *in);
void	op_shape_free(void *p);
void	op_shape_merge(struct agg *dst, const struct agg *src, size_t max);
void	op_put_shapes(struct oprank *r, struct jw *w, struct agg *a);
size_t	op_put_shape_partials(struct jw *w, const struct agg *a);
int	op_shape_partial(struct oprank *r, struct agg *a);

#endif
