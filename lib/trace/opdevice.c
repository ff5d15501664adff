/*
 * opdevice: the GPU a rank ran on and the precisions its tensor (matrix)
 * cores run, for the rubric's precision advice: by name from
 * rubric/gpu-peaks.tsv (or -g), else by platform and compute capability
 * from rubric/gpu-arch.tsv.  Kineto's deviceProperties give the name and
 * capability; HIP reports a gfx target's major and minor in the same
 * fields (gfx942 is 9.4), so the platform tells the two apart.  Some
 * traces name no GPU (vLLM's on ROCm: an empty name); its model is then
 * inferred, and said to be, from its capability, SMs (CUs) and memory by
 * gpu-arch.tsv's model lines, and its peaks are that model's.
 */
#include <ctype.h>
#include <errno.h>
#include <fnmatch.h>
#include <inttypes.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "base/err.h"
#include "base/xalloc.h"
#include "io/tsv.h"
#include "trace/opbase.h"
#include "trace/opcore.h"
#include "trace/opdevice.h"
#include "trace/opsums.h"

static int	is_rocm(const char *name, int64_t warp);
static unsigned	parse_precisions(const char *s);
static const struct gpuarch	*arch_of(const struct oprank *r,
	    const char *platform, int major, int minor);
static void	put_precisions(struct jw *w, unsigned set);
static int	unnamed(const char *);
static double	decimal(const char *);
static void	load_model(struct oprank *, char **, const char *,
		    unsigned long);

/* The tensor-core precisions, as bits in this order (op_peakname's). */
static const int fast_peak[] = { 2, 3, 4, 5, 6, 7 };
#define NFAST	(sizeof(fast_peak) / sizeof(fast_peak[0]))

/*
 * AMD's GPUs: a 64-lane wavefront (CDNA, GCN), or a name that says so
 * (RDNA runs 32 lanes, as NVIDIA's warps do).
 */
static int
is_rocm(const char *name, int64_t warp)
{
	char *low;
	int amd;

	if (warp == 64)
		return 1;
	if (name == NULL)
		return 0;
	low = op_lower_dup(name);
	amd = strncmp(low, "amd", 3) == 0 || strstr(low, "radeon") != NULL ||
	    strstr(low, "instinct") != NULL;
	free(low);
	return amd;
}

/* A GPU the trace does not name: no name, or an empty one. */
static int
unnamed(const char *name)
{
	return name == NULL || name[0] == '\0';
}

/*
 * Keeps the first device of a trace's device_properties, the array at
 * node props: its name, and "cuda 8.0" or "rocm 9.4" for its platform and
 * capability, followed by its SMs and memory when it has no name.  A rank
 * drives one kind of GPU; of two, the least is kept so that the merge
 * order never matters.
 */
void
op_device_keep(struct agg *a, const struct jdoc *d, int props)
{
	const char *name = NULL;
	int64_t major, minor, warp = 0, sms, mem;
	char cap[96];
	uint32_t dev;
	size_t n;

	if (props < 0 || d->node[props].type != JT_ARRAY ||
	    d->node[props].len == 0)
		return;
	dev = (uint32_t)props + 1;
	if (jdoc_get_str(d, dev, "name", &name, NULL) == 0)
		op_gpu_keep(&a->gpu, name);
	if (jdoc_get_i64(d, dev, "computeMajor", &major) < 0 ||
	    jdoc_get_i64(d, dev, "computeMinor", &minor) < 0 ||
	    major < 0 || major > 999 || minor < 0 || minor > 999)
		return;
	(void)jdoc_get_i64(d, dev, "warpSize", &warp);
	n = (size_t)snprintf(cap, sizeof(cap), "%s %" PRId64 ".%" PRId64,
	    is_rocm(name, warp) ? "rocm" : "cuda", major, minor);
	if (unnamed(name) && jdoc_get_i64(d, dev, "numSms", &sms) == 0 &&
	    jdoc_get_i64(d, dev, "totalGlobalMem", &mem) == 0 && sms > 0 &&
	    mem > 0)
		snprintf(cap + n, sizeof(cap) - n, " %" PRId64 " %" PRId64,
		    sms, mem);
	op_gpu_keep(&a->gpuarch, cap);
}

/* A comma-separated list of op_peakname's tensor-core precisions. */
static unsigned
parse_precisions(const char *s)
{
	unsigned set = 0;
	size_t i, n;

	if (strcmp(s, "-") == 0)
		return 0;
	while (*s != '\0') {
		n = strcspn(s, ",");
		for (i = 0; i < NFAST; i++)
			if (strlen(op_peakname[fast_peak[i]]) == n &&
			    strncmp(s, op_peakname[fast_peak[i]], n) == 0)
				break;
		if (i == NFAST)
			return ARCH_BAD;
		set |= 1u << i;
		s += n;
		if (*s == ',' && *++s == '\0')
			return ARCH_BAD;
	}
	return set;
}

/* A capability "major.minor" at s, or a usage error at path:lineno. */
static void
capability(const char *s, long *major, long *minor, const char *path,
    unsigned long lineno)
{
	char *end;

	errno = 0;
	*major = strtol(s, &end, 10);
	if (end == s || *end != '.' || !isdigit((unsigned char)end[1]) ||
	    (*minor = strtol(end + 1, &end, 10), *end) || errno != 0 ||
	    *major < 0 || *major > 999 || *minor > 999)
		die_usage("%s:%lu: not a capability: %s", path, lineno, s);
}

/*
 * A model line's fields after "model": platform, capability, SMs (CUs),
 * memory as "low-high" GiB, the model's name, its gpu-peaks.tsv row or
 * "-", source.
 */
static void
load_model(struct oprank *r, char **f, const char *path,
    unsigned long lineno)
{
	struct gpumodel *m;
	long major, minor, sms;
	double lo, hi;
	char *end;
	size_t i;

	if (strcmp(f[0], "cuda") != 0 && strcmp(f[0], "rocm") != 0)
		die_usage("%s:%lu: not cuda or rocm: %s", path, lineno, f[0]);
	capability(f[1], &major, &minor, path, lineno);
	errno = 0;
	sms = strtol(f[2], &end, 10);
	if (end == f[2] || *end != '\0' || errno != 0 || sms <= 0 ||
	    sms > 100000)
		die_usage("%s:%lu: not a number of SMs: %s", path, lineno,
		    f[2]);
	lo = strtod(f[3], &end);
	if (end == f[3] || *end != '-' || (hi = strtod(end + 1, &end),
	    *end != '\0') || !isfinite(lo) || !isfinite(hi) || lo <= 0 ||
	    hi < lo)
		die_usage("%s:%lu: not a range of GiB: %s", path, lineno,
		    f[3]);
	if (f[4][0] == '\0' || f[5][0] == '\0')
		die_usage("%s:%lu: a model without a name or row", path,
		    lineno);
	for (i = 0; strcmp(f[5], "-") != 0 && i < r->npeaks &&
	    strcmp(f[5], r->peaks[i].gpu) != 0; i++)
		;
	if (strcmp(f[5], "-") != 0 && i == r->npeaks)
		die_usage("%s:%lu: no row %s in gpu-peaks.tsv", path, lineno,
		    f[5]);
	r->models = xreallocarray(r->models, r->nmodels + 1,
	    sizeof(*r->models));
	m = &r->models[r->nmodels++];
	m->rocm = f[0][0] == 'r';
	m->major = (int)major;
	m->minor = (int)minor;
	m->sms = sms;
	m->memlo = lo;
	m->memhi = hi;
	m->name = xstrdup(f[4]);
	m->peaks = strcmp(f[5], "-") != 0 ? xstrdup(f[5]) : NULL;
}

/*
 * rubric/gpu-arch.tsv: platform, capability (major.minor), architecture,
 * precisions ("-": none, "?": not known from the capability alone),
 * source; or a model line ("model" and load_model()'s fields).  Lines
 * starting with '#' and blank lines are comments.  A bad row is a usage
 * error, as a bad family or precision table is.  The peaks are loaded
 * first: a model names its row.
 */
void
op_load_arch(struct oprank *r, const char *path)
{
	struct tsv t = { 0 };
	char *f[8];
	unsigned long lineno;
	struct gpuarch *g;
	long major, minor;
	size_t n;

	if ((t.fp = fopen(path, "r")) == NULL)
		die("%s: %s", path, strerror(errno));
	while ((n = tsv_next(&t, f, 8)) > 0) {
		lineno = t.lineno;
		if (n > 1 && strcmp(f[0], "model") == 0) {
			if (n < 8)
				die_usage("%s:%lu: want 8 tab-separated"
				    " fields on a model line", path, lineno);
			load_model(r, f + 1, path, lineno);
			continue;
		}
		if (n < 5)
			die_usage("%s:%lu: want 5 tab-separated fields", path,
			    lineno);
		if (strcmp(f[0], "cuda") != 0 && strcmp(f[0], "rocm") != 0)
			die_usage("%s:%lu: not cuda or rocm: %s", path, lineno,
			    f[0]);
		capability(f[1], &major, &minor, path, lineno);
		r->arch = xreallocarray(r->arch, r->narch + 1,
		    sizeof(*r->arch));
		g = &r->arch[r->narch++];
		g->rocm = f[0][0] == 'r';
		g->major = (int)major;
		g->minor = (int)minor;
		g->name = xstrdup(f[2]);
		g->fast = strcmp(f[3], "?") == 0 ? ARCH_UNKNOWN :
		    parse_precisions(f[3]);
		if (g->fast == ARCH_BAD)
			die_usage("%s:%lu: not a list of tf32, fp16, bf16,"
			    " fp8, fp4 and int8, \"-\" or \"?\": %s", path,
			    lineno, f[3]);
	}
	if (ferror(t.fp))
		die("%s: %s", path, strerror(errno));
	tsv_free(&t);
	fclose(t.fp);
}

void
op_arch_free(struct oprank *r)
{
	size_t i;

	for (i = 0; i < r->narch; i++)
		free(r->arch[i].name);
	free(r->arch);
	for (i = 0; i < r->nmodels; i++) {
		free(r->models[i].name);
		free(r->models[i].peaks);
	}
	free(r->models);
}

/*
 * The model of a rank's GPU that its trace does not name, by its
 * platform, capability, SMs and memory; NULL when it has a name, or when
 * no model line matches.
 */
const struct gpumodel *
op_model_of(const struct oprank *r, const struct agg *a)
{
	char platform[8];
	int major, minor;
	long long sms, mem;
	double gib;
	size_t i;

	if (!unnamed(a->gpu) || a->gpuarch == NULL ||
	    sscanf(a->gpuarch, "%7s %d.%d %lld %lld", platform, &major,
	    &minor, &sms, &mem) != 5)
		return NULL;
	gib = (double)mem / (1024.0 * 1024 * 1024);
	for (i = 0; i < r->nmodels; i++) {
		const struct gpumodel *m = &r->models[i];

		if (m->rocm == (strcmp(platform, "rocm") == 0) &&
		    m->major == major && m->minor == minor && m->sms == sms &&
		    gib >= m->memlo && gib <= m->memhi)
			return m;
	}
	return NULL;
}

/*
 * The peaks a rank's operators are judged against: -g's, else its GPU's
 * by name, else the inferred model's.
 */
const struct gpupeak *
op_rank_peak(const struct oprank *r, const struct agg *a)
{
	const struct gpumodel *m;

	if (r->gpu != NULL || !unnamed(a->gpu))
		return op_peak_of(r, a->gpu);
	if ((m = op_model_of(r, a)) != NULL && m->peaks != NULL)
		return op_peak_of(r, m->peaks);
	return NULL;
}

/*
 * The first row of the platform with the same major and at most the
 * minor: minors add to a major's features (8.6 and 8.7 are Ampere, 8.9
 * is Ada), majors need not (gfx9 is CDNA, gfx11 RDNA).
 */
static const struct gpuarch *
arch_of(const struct oprank *r, const char *platform, int major, int minor)
{
	int rocm = strcmp(platform, "rocm") == 0;
	size_t i;

	for (i = 0; i < r->narch; i++)
		if (r->arch[i].rocm == rocm && r->arch[i].major == major &&
		    r->arch[i].minor <= minor)
			return &r->arch[i];
	return NULL;
}

static void
put_precisions(struct jw *w, unsigned set)
{
	size_t i;

	jw_begin_array(w);
	for (i = 0; i < NFAST; i++)
		if (set & 1u << i)
			jw_cstring(w, op_peakname[fast_peak[i]]);
	jw_end_array(w);
}

/*
 * The rank's gpu_device record, where the trace or -g names a GPU: the
 * precisions come from its gpu-peaks.tsv row (a peak is a precision it
 * runs), else from its capability's gpu-arch.tsv row, else null.
 */
void
op_put_device(struct oprank *r, struct jw *w, const struct agg *a)
{
	const struct gpupeak *g = op_rank_peak(r, a);
	const struct gpumodel *m = op_model_of(r, a);
	const struct gpuarch *arch = NULL;
	char platform[8] = "", text[128];
	int major = -1, minor = -1;
	long long sms, mem;
	unsigned set = ARCH_UNKNOWN;
	size_t i;

	if (g == NULL && a->gpu == NULL && a->gpuarch == NULL)
		return;
	if (a->gpuarch != NULL &&
	    sscanf(a->gpuarch, "%7s %d.%d", platform, &major, &minor) == 3)
		arch = arch_of(r, platform, major, minor);
	if (g != NULL)
		for (i = 0, set = 0; i < NFAST; i++)
			set |= isfinite(g->tflops[fast_peak[i]]) ? 1u << i : 0;
	else if (arch != NULL)
		set = arch->fast;
	jw_record(w, "gpu_device");
	op_put_rank(w, a->rank);
	jw_key(w, "name");
	jw_cstring_or_null(w, a->gpu != NULL && a->gpu[0] != '\0' ?
	    a->gpu : NULL);
	if (m != NULL && sscanf(a->gpuarch, "%*s %*d.%*d %lld %lld", &sms,
	    &mem) == 2) {
		jw_key(w, "inferred");
		jw_cstring(w, m->name);
		snprintf(text, sizeof(text), "%s %d.%d, %lld %s, %.0f GiB",
		    platform, major, minor, sms, m->rocm ? "CUs" : "SMs",
		    (double)mem / (1024.0 * 1024 * 1024));
		jw_key(w, "inferred_from");
		jw_cstring(w, text);
	}
	jw_key(w, "platform");
	jw_cstring_or_null(w, major >= 0 ? platform : NULL);
	jw_key(w, "capability");
	if (major >= 0) {
		snprintf(text, sizeof(text), "%d.%d", major, minor);
		jw_cstring(w, text);
	} else
		jw_null(w);
	jw_key(w, "architecture");
	jw_cstring_or_null(w, arch != NULL ? arch->name : NULL);
	jw_key(w, "gpu");
	jw_cstring_or_null(w, g != NULL ? g->gpu : NULL);
	jw_key(w, "precisions");
	if (set == ARCH_UNKNOWN)
		jw_null(w);
	else
		put_precisions(w, set);
	jw_key(w, "precisions_from");
	jw_cstring_or_null(w, g != NULL ? PEAKS_NAME :
	    set != ARCH_UNKNOWN ? ARCH_NAME : NULL);
	jw_end(w);
}

/*
 * rubric/gpu-peaks.tsv: pattern, gpu, then the dense peak TFLOPS of each
 * of op_peakname[] ("-": none), the memory bandwidth in TB/s and the
 * source.  Lines starting with '#' and blank lines are comments.
 */
const char *const op_peakname[NPEAK] = {
	"fp64", "fp32", "tf32", "fp16", "bf16", "fp8", "fp4", "int8"
};

void
op_load_peaks(struct oprank *r, const char *path)
{
	struct tsv t = { 0 };
	char *f[NPEAK + 4];
	unsigned long lineno;
	struct gpupeak *g;
	size_t n;
	int i;

	if ((t.fp = fopen(path, "r")) == NULL)
		die_usage("%s: %s", path, strerror(errno));
	while ((n = tsv_next(&t, f, NPEAK + 4)) > 0) {
		lineno = t.lineno;
		if (n < NPEAK + 4)
			die_usage("%s:%lu: want %d tab-separated fields", path,
			    lineno, NPEAK + 4);
		r->peaks = xreallocarray(r->peaks, r->npeaks + 1,
		    sizeof(*r->peaks));
		g = &r->peaks[r->npeaks++];
		/* Matched ignoring case: both sides lower case. */
		g->pattern = op_lower_dup(f[0]);
		g->gpu = xstrdup(f[1]);
		for (i = 0; i <= NPEAK; i++) {
			double *v = i < NPEAK ? &g->tflops[i] : &g->tbps;

			*v = NAN;
			if (strcmp(f[i + 2], "-") == 0)
				continue;
			if ((*v = decimal(f[i + 2])) <= 0)
				die_usage("%s:%lu: not a peak (a finite positive"
				    " decimal, or -): %s", path, lineno,
				    f[i + 2]);
		}
	}
	if (ferror(t.fp))
		die_usage("%s: %s", path, strerror(errno));
	tsv_free(&t);
	fclose(t.fp);
}

void
op_peaks_free(struct oprank *r)
{
	size_t i;

	for (i = 0; i < r->npeaks; i++) {
		free(r->peaks[i].pattern);
		free(r->peaks[i].gpu);
	}
	free(r->peaks);
}

/* The row for a GPU named by -g (its id or name) or by the trace. */
const struct gpupeak *
op_peak_of(const struct oprank *r, const char *name)
{
	const struct gpupeak *g = NULL;
	char *low;
	size_t i;

	if (r->gpu != NULL)
		name = r->gpu;
	if (name == NULL)
		return NULL;
	low = op_lower_dup(name);
	for (i = 0; i < r->npeaks && g == NULL; i++)
		if (strcasecmp(name, r->peaks[i].gpu) == 0 ||
		    fnmatch(r->peaks[i].pattern, low, 0) == 0)
			g = &r->peaks[i];
	free(low);
	return g;
}

/*
 * A peak as the table writes it: digits, and a fraction after one point;
 * no sign, exponent, hex, inf or nan, which strtod() takes.  0 or less
 * (the caller refuses it) for anything else, or a value past a double.
 */
static double
decimal(const char *s)
{
	size_t n = strspn(s, "0123456789"), m = 0;
	double v;

	if (n == 0)
		return 0;
	if (s[n] == '.' && (m = strspn(s + n + 1, "0123456789")) == 0)
		return 0;
	if (s[n + (m > 0 ? m + 1 : 0)] != '\0')
		return 0;
	v = strtod(s, NULL);
	return isfinite(v) ? v : 0;
}
