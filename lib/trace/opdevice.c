/*
 * opdevice: the GPU a rank ran on and the precisions its tensor (matrix)
 * cores run, for the rubric's precision advice: by name from
 * rubric/gpu-peaks.tsv (or -g), else by platform and compute capability
 * from rubric/gpu-arch.tsv.  Kineto's deviceProperties give the name and
 * capability; HIP reports a gfx target's major and minor in the same
 * fields (gfx942 is 9.4), so the platform tells the two apart.
 */
#include <ctype.h>
#include <errno.h>
#include <inttypes.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "base/err.h"
#include "base/xalloc.h"
#include "trace/opcore.h"

static int	is_rocm(const char *name, int64_t warp);
static unsigned	parse_precisions(const char *s);
static const struct gpuarch	*arch_of(const struct oprank *r,
	    const char *platform, int major, int minor);
static void	put_precisions(struct jw *w, unsigned set);

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

/*
 * Keeps the first device of a trace's device_properties, the array at
 * node props: its name, and "cuda 8.0" or "rocm 9.4" for its platform and
 * capability.  A rank drives one kind of GPU; of two, the least is kept
 * so that the merge order never matters.
 */
void
op_device_keep(struct agg *a, const struct jdoc *d, int props)
{
	const char *name = NULL;
	int64_t major, minor, warp = 0;
	char cap[64];
	uint32_t dev;

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
	snprintf(cap, sizeof(cap), "%s %" PRId64 ".%" PRId64,
	    is_rocm(name, warp) ? "rocm" : "cuda", major, minor);
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

/*
 * rubric/gpu-arch.tsv: platform, capability (major.minor), architecture,
 * precisions ("-": none, "?": not known from the capability alone),
 * source.  Lines starting with '#' and blank lines are comments.  A bad
 * row is a usage error, as a bad family or precision table is.
 */
void
op_load_arch(struct oprank *r, const char *path)
{
	FILE *fp;
	char *line = NULL, *f[5], *end;
	size_t cap = 0;
	unsigned long lineno = 0;
	struct gpuarch *g;
	long major, minor;

	if ((fp = fopen(path, "r")) == NULL)
		die("%s: %s", path, strerror(errno));
	while (getline(&line, &cap, fp) != -1) {
		lineno++;
		line[strcspn(line, "\r\n")] = '\0';
		if (line[0] == '#' || line[0] == '\0')
			continue;
		if (op_tab_split(line, f, 5) != 5)
			die_usage("%s:%lu: want 5 tab-separated fields", path,
			    lineno);
		if (strcmp(f[0], "cuda") != 0 && strcmp(f[0], "rocm") != 0)
			die_usage("%s:%lu: not cuda or rocm: %s", path, lineno,
			    f[0]);
		errno = 0;
		major = strtol(f[1], &end, 10);
		if (end == f[1] || *end != '.' || !isdigit((unsigned char)
		    end[1]) || (minor = strtol(end + 1, &end, 10), *end) ||
		    errno != 0 || major < 0 || major > 999 || minor > 999)
			die_usage("%s:%lu: not a capability: %s", path, lineno,
			    f[1]);
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
	if (ferror(fp))
		die("%s: %s", path, strerror(errno));
	free(line);
	fclose(fp);
}

void
op_arch_free(struct oprank *r)
{
	size_t i;

	for (i = 0; i < r->narch; i++)
		free(r->arch[i].name);
	free(r->arch);
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
	const struct gpupeak *g = op_peak_of(r, a->gpu);
	const struct gpuarch *arch = NULL;
	char platform[8] = "";
	int major = -1, minor = -1;
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
	jw_key(w, "platform");
	jw_cstring_or_null(w, major >= 0 ? platform : NULL);
	jw_key(w, "capability");
	if (major >= 0)
		jw_cstring(w, strchr(a->gpuarch, ' ') + 1);
	else
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
