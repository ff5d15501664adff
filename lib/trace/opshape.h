/*
 * opshape: modelled calls by shape (opshape.c): each operator's calls with
 * one set of input shapes, their FLOPs and bytes from opcost, the GPU
 * peaks they are held against (gpu-peaks.tsv), and the op_shape and
 * compute_summary records; the table helpers the TSV readers share.
 *
 * Ownership: a struct agg's shapes map owns its struct shsum; struct
 * oprank owns the peaks; op_lower_dup() returns memory the caller frees.
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
#define PEAKS_NAME	"gpu-peaks.tsv"

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

/* The precisions of gpu-peaks.tsv's columns, in their order. */
#define NPEAK	8
extern const char *const op_peakname[NPEAK];

/* A row of gpu-peaks.tsv: dense peaks, NAN where there is none. */
struct gpupeak {
	char	*pattern, *gpu;
	double	 tflops[NPEAK], tbps;
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
void	op_gpu_keep(char **dst, const char *src);
size_t	op_tab_split(char *line, char **f, size_t max);
void	op_load_peaks(struct oprank *r, const char *path);
void	op_peaks_free(struct oprank *r);
const struct gpupeak	*op_peak_of(const struct oprank *r, const char *name);
char	*op_lower_dup(const char *s);
void	op_put_shapes(struct oprank *r, struct jw *w, struct agg *a);
size_t	op_put_shape_partials(struct jw *w, const struct agg *a);
int	op_shape_partial(struct oprank *r, struct agg *a);

#endif
