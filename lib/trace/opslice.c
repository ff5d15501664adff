/*
 * opslice: the time ledger's slices, and which one an event's time goes
 * to: the GPU's by what its kernels are (a graph's replay before any
 * class), the runtime's calls by what they make the host do, the
 * profiler's own work, the phases that operators mark, operator families,
 * then Python outside any operator, a graph launch queued before its
 * first kernel and nothing traced, the last three.
 */
#include <string.h>

#include "trace/opcore.h"
#include "trace/opledger.h"
#include "trace/opnames.h"

#define WARMUP_CALL	(1000 * 1000)	/* ns */

static const char *const fixed[L_FAMILY] = {
	"gpu_graph", "gpu_gemm", "gpu_conv", "gpu_attention", "gpu_other", "gpu_memset",
	"gpu_comm", "gpu_memcpy", "warm_up", "profiler", "harness", "sync",
	"blocking_copy", "allocator", "launch", "runtime_other", "data_loading",
	"optimizer"
};

size_t
op_lslices(const struct oprank *r)
{
	return L_FAMILY + r->tab.nfam + 1 + 3;
}

/*
 * Python outside any operator, a graph launch queued, then nothing
 * traced: the last three.
 */
static uint32_t
slice_py(const struct oprank *r)
{
	return (uint32_t)(op_lslices(r) - 3);
}

uint32_t
op_lslice_queued(const struct oprank *r)
{
	return (uint32_t)(op_lslices(r) - 2);
}

uint32_t
op_lslice_none(const struct oprank *r)
{
	return (uint32_t)(op_lslices(r) - 1);
}

const char *
op_lslice_name(const struct oprank *r, uint32_t s, struct strbuf *sb)
{
	if (s < L_FAMILY)
		return fixed[s];
	if (s == slice_py(r))
		return "python";
	if (s == op_lslice_queued(r))
		return "graph_queued";
	if (s == op_lslice_none(r))
		return "untraced";
	sb_truncate(sb, 0);
	sb_puts(sb, "cpu:");
	sb_puts(sb, op_family_name(r, (int)(s - L_FAMILY)));
	return sb->s;
}

int
op_lslice_of(const struct oprank *r, const char *name, uint32_t *s)
{
	struct strbuf sb = { NULL, 0, 0 };
	size_t i, n = op_lslices(r);

	for (i = 0; i < n; i++)
		if (strcmp(op_lslice_name(r, (uint32_t)i, &sb), name) == 0)
			break;
	sb_free(&sb);
	*s = (uint32_t)i;
	return i < n ? 0 : -1;
}

uint32_t
op_lslice_kernel(const struct oprank *r, uint32_t name, int memset)
{
	const struct name *n = &r->names.v[name];

	if (n->gcls == G_COMM)
		return L_COMM;
	if (n->gcls == G_MEMCPY)
		return L_MEMCPY;
	if (memset || n->family == r->names.fammemset)
		return L_MEMSET;
	if (n->family == r->names.famgemm)
		return L_GEMM;
	if (n->family == r->names.famconv)
		return L_CONV;
	if (n->family == r->names.famattn)
		return L_ATTN;
	return L_KERNEL;
}

static int
any_of(const char *s, const char *const *v)
{
	for (; *v != NULL; v++)
		if (strcmp(s, *v) == 0)
			return 1;
	return 0;
}

/*
 * A runtime call's slice by its name, CUDA's and HIP's alike: what waits
 * for the device, copies that block the host, the allocator's calls, and
 * launches.  A launch or other call takes microseconds; one that takes
 * WARMUP_CALL or more is setting up on first use: creating the context,
 * loading or compiling the kernel's module.  A graph launch is a launch
 * however long: it enqueues every node of the graph (HIP's take a
 * millisecond for some hundreds).  An asynchronous copy that holds the
 * host while no GPU work runs blocks it all the same (pageable memory).
 */
uint32_t
op_lslice_runtime(const char *s, int64_t dur)
{
	static const char *const sync[] = {
		"cudaDeviceSynchronize", "cudaStreamSynchronize",
		"cudaEventSynchronize", "hipDeviceSynchronize",
		"hipStreamSynchronize", "hipEventSynchronize",
		"cuCtxSynchronize", "cuStreamSynchronize",
		"cuEventSynchronize", NULL
	};
	static const char *const copy[] = {
		"cudaMemcpy", "cudaMemcpy2D", "cudaMemcpyToSymbol",
		"cudaMemcpyFromSymbol", "hipMemcpy", "hipMemcpyWithStream",
		"hipMemcpy2D", "cuMemcpyDtoH_v2", "cuMemcpyHtoD_v2",
		"cudaMemset", "hipMemset", "cudaMemcpyAsync", "hipMemcpyAsync",
		"cuMemcpyAsync", "cuMemcpyHtoDAsync_v2", "cuMemcpyDtoHAsync_v2",
		NULL
	};
	static const char *const alloc[] = {
		"cudaMalloc", "cudaFree", "cudaMallocHost", "cudaFreeHost",
		"cudaHostAlloc", "cudaMallocManaged", "cudaMallocAsync",
		"cudaFreeAsync", "hipMalloc", "hipFree", "hipHostMalloc",
		"hipHostFree", "hipMallocManaged", "hipMallocAsync",
		"hipFreeAsync", "hipExtMallocWithFlags", "cuMemAlloc_v2",
		"cuMemFree_v2", "cuMemCreate", "cuMemMap", "cuMemUnmap",
		"cuMemRelease", "cuMemAddressReserve", "cuMemAddressFree",
		"cuMemSetAccess", "hipMemCreate", "hipMemMap", "hipMemUnmap",
		"hipMemRelease", NULL
	};

	if (any_of(s, sync))
		return L_SYNC;
	if (any_of(s, copy))
		return L_COPY;
	if (any_of(s, alloc))
		return L_ALLOC;
	if (dur >= WARMUP_CALL && !op_is_graph_launch(s))
		return L_WARMUP;
	return strstr(s, "Launch") != NULL ? L_LAUNCH : L_RUNTIME;
}

/*
 * CUPTI's overhead records (Kineto's "overhead" events, named by
 * overheadKindString()): loading a module or compiling a kernel on first
 * use is warm-up; the rest (buffer requests and flushes, instrumentation)
 * is the profiler's own time, which an unprofiled run does not pay.
 */
uint32_t
op_lslice_overhead(const char *s)
{
	static const char *const first_use[] = {
		"Driver Compiler", "Runtime Triggered Module Loading",
		"Lazy Function Loading", NULL
	};

	return any_of(s, first_use) ? L_WARMUP : L_PROFILER;
}

/* An operator or annotation that marks data loading or the optimizer. */
uint32_t
op_lslice_mark(const struct oprank *r, uint32_t name)
{
	switch (r->names.v[name].mark) {
	case PH_DATA:
		return L_DATA;
	case PH_OPT:
		return L_OPT;
	default:
		return UINT32_MAX;
	}
}

uint32_t
op_lslice_op(const struct oprank *r, uint32_t name)
{
	return L_FAMILY + (uint32_t)r->names.v[name].family;
}

uint32_t
op_lslice_py(const struct oprank *r)
{
	return slice_py(r);
}

int
op_is_graph_launch(const char *s)
{
	return strstr(s, "GraphLaunch") != NULL;
}
