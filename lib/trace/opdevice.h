/*
 * opdevice: the GPU a rank ran on (opdevice.c): its name and capability
 * kept from the trace's deviceProperties, the architecture and model
 * tables of rubric/gpu-arch.tsv, the model inferred where the trace names
 * no GPU, the peaks its operators are judged against, and the gpu_device
 * record.  Only lib/trace/op*.c include it; the tables
 * belong to the struct oprank that loaded them, and op_arch_free() frees
 * them.
 */
#ifndef OPDEVICE_H
#define OPDEVICE_H

#include "io/json.h"

struct agg;
struct gpupeak;
struct jw;
struct oprank;

#define ARCH_NAME	"gpu-arch.tsv"
#define PEAKS_NAME	"gpu-peaks.tsv"

/* The precisions of gpu-peaks.tsv's columns, in their order. */
#define NPEAK	8
extern const char *const op_peakname[NPEAK];

/* A row of gpu-peaks.tsv: dense peaks, NAN where there is none. */
struct gpupeak {
	char	*pattern, *gpu;
	double	 tflops[NPEAK], tbps;
};

/*
 * A row of gpu-arch.tsv: a platform's capability from this minor on, and
 * its tensor-core precisions as bits of tf32, fp16, bf16, fp8, fp4, int8.
 */
#define ARCH_UNKNOWN	(1u << 30)	/* "?": the capability does not say */
#define ARCH_BAD	(1u << 31)
struct gpuarch {
	int		 rocm, major, minor;
	char		*name;
	unsigned	 fast;
};

/*
 * A model line of gpu-arch.tsv: a GPU without a name is the model whose
 * platform and capability it has, its SMs (CUs) and memory in the range
 * (GiB); peaks names its gpu-peaks.tsv row, NULL for none.
 */
struct gpumodel {
	int		 rocm, major, minor;
	long		 sms;
	double		 memlo, memhi;
	char		*name, *peaks;
};

/* Keeps the first device of device_properties (node props) in a. */
void	op_device_keep(struct agg *a, const struct jdoc *d, int props);

/* Loads gpu-arch.tsv into r, after the peaks: a usage error ends it. */
void	op_load_arch(struct oprank *r, const char *path);
void	op_arch_free(struct oprank *r);

/* The rank's gpu_device record, where the trace or -g names a GPU. */
void	op_put_device(struct oprank *r, struct jw *w, const struct agg *a);

/* The model of a GPU the trace does not name, or NULL; r's. */
const struct gpumodel	*op_model_of(const struct oprank *r,
	    const struct agg *a);

/* The peaks a rank's operators are judged against, or NULL; r's. */
const struct gpupeak	*op_rank_peak(const struct oprank *r,
	    const struct agg *a);

/* gpu-peaks.tsv: loaded, freed, and the row of a GPU by its name. */
void	op_load_peaks(struct oprank *r, const char *path);
void	op_peaks_free(struct oprank *r);
const struct gpupeak	*op_peak_of(const struct oprank *r, const char *name);

#endif
