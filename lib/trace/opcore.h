/*
 * opcore: the operator aggregator's private types, tables and the
 * functions its files share.  Only lib/trace/op*.c include it; everyone
 * else uses oprank.h.  The aggregator is split by what each file owns:
 *
 *	oprank.c	the entry points: options, tables loaded, teardown
 *	opfamily.c	the class, phase, family and precision tables, and
 *			names interned into them
 *	opintake.c	records in: events, threads and trace records, pid
 *			and tid as written, which trace and rank they are
 *	opnest.c	each thread's call trees: self time, what the
 *			runtime calls under each operator launched, and
 *			which operator issued each sync, copy and
 *			allocator call
 *	opgpu.c		GPU work joined to the runtime calls that launched
 *			it, its phases, and each device's timeline
 *	opagg.c		the sums by name, thread, device and rank, and their
 *			merge across traces and ranks
 *	opout.c		one rank's records, op to cpu_summary
 *	opranks.c	the records across ranks, and the order of all output
 *	oppartial.c	op_partial records out, and merged back in
 *	opstep.c	the steps, their ends and FLOPs, and their
 *			statistics, through spills
 *	opshape.c	modelled calls by shape, their FLOPs and the GPU
 *			peaks: op_shape and compute_summary records
 *	opslice.c	the ledger's slices: their names, and which one an
 *			event's time goes to
 *	opledger.c	the time ledger: each window's wall time in slices
 *	opblame.c	who spends each slice: the user's frame, operator,
 *			call, and the model, its harness or the profiler
 *	opphase.c	what each window is (capture, compile, warm-up,
 *			steady) and periodic steps
 *	opgraph.c	GPU work by the runtime call that launched it: CUDA
 *			and HIP graph replays, their kernels and queue time
 *	opserve.c	serving engines' steps from their labels: phase,
 *			batch, tokens and GPU step time, stats by phase
 *	opcompile.c	torch.compile: compiled regions by compile id,
 *			recompiles, graph breaks, guards, compile time
 *	opdevice.c	the rank's GPU and the precisions it runs fast:
 *			gpu_device records
 *	opfield.c	the partial format: its integers' ranges, and the
 *			summed records' fields as tables, written, read
 *			and merged (opfield.h)
 *
 * What one file gives another (functions, and the name tables) is named
 * op_*; the rest is static.  opdevice, opgraph, opserve and opcompile
 * declare theirs in headers of their own, which this one includes;
 * opfield.h is included by its users alone.  Ownership is as oprank.h
 * says: a struct oprank owns everything reachable from it (tables, names,
 * spills, sums) and oprank_free() frees it all.
 */
#ifndef OPCORE_H
#define OPCORE_H

#include <stddef.h>
#include <stdint.h>

#include "base/strbuf.h"
#include "base/strmap.h"
#include "io/json.h"
#include "io/ndjson.h"
#include "io/spill.h"
#include "trace/callshape.h"
#include "trace/opcompile.h"
#include "trace/opcost.h"
#include "trace/opdevice.h"
#include "trace/opgraph.h"
#include "trace/oprank.h"
#include "trace/servelabel.h"

#define TABLE_NAME	"op-families.tsv"
#define PREC_NAME	"kernel-precision.tsv"
#define TOP_N		5	/* entries in the summaries' top lists */
#define TOP_RT		10	/* runtime_call records a rank writes */
#define TOP_CALLERS	3	/* runtime_caller records a slice gets */
#define MAXORPHANS	65536	/* such calls a thread holds for its frames */
#define MAXCCALLS	4096	/* communication calls a rank keeps, the first */
#define PARTIAL_VERSION	3	/* of the op_partial records */
#define MEMORY		(16 << 20)	/* bytes of events held, by default */
#define MINSHARE	(16 << 20)	/* names' or threads' least share */
#define NAME_COST	256	/* bytes a name takes, besides its text */
#define THREAD_COST	512	/* bytes a thread's sums take */
#define SHAPE_COST	512	/* bytes a shape's sums take */
#define PEAKS_NAME	"gpu-peaks.tsv"
#define FRAMES_NAME	"python-frames.tsv"
#define ARCH_NAME	"gpu-arch.tsv"
#define SERVE_NAME	"serve-steps.tsv"

/* What a name is; the class is part of the interned key. */
enum { C_OP, C_ANN, C_PY, C_GPU, C_RT, NCLASS };
extern const char *const op_clsname[NCLASS];

enum {
	PH_FWD, PH_BWD, PH_OPT, PH_DATA, PH_COMM, PH_OTHER, NPHASE,
	PH_NONE = NPHASE
};
extern const char *const op_phasename[NPHASE];

/* GPU time classes, in precedence order for ival_exposed(). */
enum { G_COMP, G_COMM, G_MEMCPY, NGCLS };

/*
 * The ledger's slices, in the order that one open at an instant takes it
 * from the rest: the GPU busy, a graph's replay first, then by kernel
 * class; then what the host waits on or does.  A CPU operator family's
 * slice is L_FAMILY plus the family; Python outside any operator, a graph
 * launch queued before its first kernel, and nothing traced come after
 * the last (op_lslices()).
 */
enum {
	L_GRAPH, L_GEMM, L_CONV, L_ATTN, L_KERNEL, L_MEMSET, L_COMM, L_MEMCPY,
	L_WARMUP, L_PROFILER, L_HARNESS, L_SYNC, L_COPY, L_ALLOC, L_LAUNCH,
	L_RUNTIME, L_DATA, L_OPT, L_FAMILY
};
#define L_GPU_END	L_WARMUP	/* the GPU's slices are those before */
#define NKCLS		(L_GPU_END - L_GEMM)	/* kernel classes: L_GEMM on */

/*
 * Who spends a slice's time (opblame.c): the process's own code, the
 * harness that drives it (the frames around the model's step), or the
 * profiler.  The harness's and the profiler's time is their slice's.
 */
enum { W_MODEL, W_HARNESS, W_PROFILER, NWHO };
extern const char *const op_whoname[NWHO];

/* What a Python frame is, by rubric/python-frames.tsv. */
enum { PYK_USER, PYK_LIB, PYK_PROF, PYK_MODULE };

/* The precisions of gemm_precision records, in their order. */
#define NPREC	8
extern const char *const op_precname[NPREC];

enum key { K_TOTAL, K_SELF, K_COUNT, K_MEAN, K_MAX, K_GPU };
#define NKEY	(K_GPU + 1)
extern const char *const op_keyname[NKEY];

struct rule {
	int	 gpu;		/* the scope: 0 cpu, 1 gpu, 2 python */
	int	 family;
	char	*pattern;
};

/*
 * The family table, or the precision table; "other" (or "unknown") is
 * family nfam, after the table's own.
 */
struct table {
	struct rule	*r;
	size_t		 n, cap;
	char		**fam;
	size_t		 nfam, capfam;
};

struct name {
	const char	*s;	/* borrowed from the map's key, past the class */
	int		 cls;
	int		 family;
	int		 mark;	/* the phase the name marks, or PH_NONE */
	int		 gcls;	/* a kernel's timeline class, G_* */
	int		 prec;	/* a kernel's precision: op_precname[] */
	int		 mm;	/* a kernel in family gemm or conv */
	int		 pyk;	/* a Python frame's PYK_* */
};

struct names {
	struct strmap		 map;
	struct name		*v;
	size_t			 n, cap;
	char			*buf;
	size_t			 bufcap;
	const struct table	*tab, *prec, *frames;
	int			 famcomm, fammemcpy, famgemm, famconv;
	int			 famattn, fammemset, famrt;
	int			 famlib, famprof;	/* of frames */
	int			*precof; /* table family -> op_precname[] */
	/*
	 * What the names may take, NAME_COST and its text each; a new
	 * name beyond it folds into its class's (other ...) name.
	 */
	size_t			 budget, used;
};

/* Per name: CPU times in whole µs as key_averages() has them, GPU in ns. */
struct stat {
	int64_t	count, total, self, min, max;
	int64_t	gpu_self, gpu_total;
	int64_t	bytes;		/* a GPU copy's or memset's, as Kineto counts */
};

/* A pid or tid as the trace wrote it: a number's text or a string. */
struct jid {
	char	*text;		/* NULL when absent */
	int	 str;
};

/*
 * A thread's sums, or the sums of the threads that did not fit (no pid or
 * tid, name FOLD_THREADS): then threads says how many went in and top is
 * the busy time of the busiest, which the rank's busy time needs.
 */
struct thsum {
	struct jid	 pid, tid;
	char		*name;
	int64_t		 count, busy;
	int64_t		 threads, top;
};

#define FOLD_THREADS	"(other threads)"

/*
 * A thread's busy time in one rank, when the thread itself is kept in
 * the sum over all ranks only (a merge's pass 1): the rank summary wants
 * the busiest of the rank's threads and nothing else of them.
 */
struct rankthr {
	const struct thsum	*t;	/* in the run's all */
	int64_t			 busy;
};

struct step {
	int64_t	num, ts, cpu_end, end;	/* ns from the trace's origin */
	double	flops;			/* of the modelled calls in it */
};

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

/*
 * A row of a rank's ledger: a window's own (slice 0: its wall), then one
 * per nonzero slice (slice s + 1: its time), in the order of their
 * window's start, number and seq, the order windows were cut in.
 */
struct lrow {
	int64_t		start;		/* ns, in the rank's time */
	int64_t		num;		/* its step, or -1: the whole trace */
	uint64_t	seq;
	int64_t		ns;
	uint32_t	slice;
	int32_t		inferred;	/* its iteration's boundary, or B_NONE */
};

/*
 * Spans of a trace that make a window other than a steady step (opphase.c):
 * CUDA or HIP graph capture, and compilation.  A window's time in each
 * kind is a row of its own after its slices' (slice LROW_SPAN + kind).
 */
enum { PS_CAPTURE, PS_COMPILE, NPSPAN };
#define LROW_SPAN	(UINT32_MAX - NPSPAN)
struct pspan {
	int64_t		ts, end;
	int32_t		kind;
	uint32_t	seq;
};

/* What a window is, judged from its spans and slices (op_window_phase()). */
enum { WP_STEADY, WP_WARMUP, WP_CAPTURE, WP_COMPILE, WP_PROFILER, NWPHASE };
extern const char *const op_wphasename[NWPHASE];

/*
 * Without steps, iterations are inferred from a call that starts each:
 * the DataLoader's __next__, else the optimizer's step, else a module's
 * call that no other module's encloses (of the thread and module that
 * hold the most time in such calls).
 */
enum { B_DATA, B_OPT, B_MOD, NBOUND, B_NONE = NBOUND };
extern const char *const op_boundname[NBOUND];
struct bound {
	int64_t		ts;
	int		kind;
	uint32_t	name;		/* B_MOD: the module's frame */
	uint64_t	thr;		/* B_MOD: its thread */
	int64_t		dur;		/* B_MOD */
};

/*
 * A communication operator's call, kept to match the ranks' calls of a
 * collective by their order (opranks.c): ts in the rank's time.
 */
struct ccall {
	int64_t		ts, dur;
	int64_t		bytes;		/* -1: unknown */
	uint32_t	name;
	uint32_t	group;		/* op_coll_group(); 0: unnamed */
	int32_t		gsize;		/* the group's size; 0: unknown */
	int8_t		kind;		/* op_coll_kind(); -1: unknown */
	int8_t		gpu;		/* a kernel's, not an operator's */
};

/* A rank's part in the collectives matched across ranks (opcoll.c). */
struct collsum {
	size_t		instances, last, names;
	int64_t		total, waited;	/* ns */
	uint32_t	name;
};

/* Where an event's collective members are: jdoc nodes, or -1. */
struct collargs {
	int	coll, group, gsize, in, out, dtype;
};

struct lslice {
	uint32_t	slice;
	int64_t		ns;
};

/*
 * A window of a rank's ledger as read back (op_ledger_next()): its own
 * row, its time in each kind of span, and its nonzero slices in v, which
 * has room for op_lslices().
 */
struct lwinv {
	struct lrow	 head;
	int64_t		 span[NPSPAN];
	struct lslice	*v;
	size_t		 n;
};

/* A reader of a rank's ledger, window by window. */
struct lread {
	struct spillcur	 c;
	const struct lrow *row;		/* the next, NULL at the end */
};

struct devsum {
	struct jid	dev;
	int64_t		window, busy, comp, comm, memcpy, xcomm, xmemcpy;
	int64_t		events;
};

/*
 * A runtime API's calls, by its name: which sync, copy or allocator call
 * holds the time.  A rank sums MAXRTNAMES names apart and the rest as
 * RT_OTHER, so that a trace of made-up names cannot grow memory.
 */
#define MAXRTNAMES	256
#define RT_OTHER	"(other runtime calls)"
struct rtsum {
	int64_t		count, total, max;
};

/* Everything known about a trace, then about a rank. */
struct agg {
	int64_t		 rank;		/* -1: unknown */
	struct spool	*pool;		/* of its spills; NULL: it has none */
	struct stat	*st;		/* by name id */
	struct stat	*pst;		/* by name id, in -p phase */
	size_t		 nst, capst;
	struct strmap	 threads;	/* -> struct thsum */
	struct strmap	 devs;		/* -> struct devsum */
	struct strmap	 rtcalls;	/* -> struct rtsum, by name */
	struct strmap	 callers;	/* -> struct rtsum, op_caller_key */
	int64_t		 ph_self[NPHASE], ph_gpu[NPHASE];
	struct spill	 steps;		/* struct step, by op_cmpstep */
	size_t		 nsteps;
	struct spill	 ledger;	/* struct lrow, by cmplrow */
	size_t		 nlw;		/* its windows */
	uint64_t	 lseq;		/* the next window's seq */
	struct ccall	*cc;		/* communication calls, MAXCCALLS */
	size_t		 ncc, capcc;
	int64_t		 rt_count, rt_total, launch_count, launch;
	int64_t		 sync_count, sync;
	int64_t		 traces, cpu_events, gpu_events;
	struct strmap	 shapes;	/* -> struct shsum */
	int64_t		 unshaped;	/* modelled calls past maxshape */
	int64_t		 overflowed;	/* of those, shapes past 64 bits */
	char		*gpu;		/* deviceProperties' first name */
	/*
	 * Its "cuda 8.0" or "rocm 9.4", and when it has no name its SMs and
	 * memory too, "rocm 9.4 304 206141652992", to infer it by.
	 */
	char		*gpuarch;
	int64_t		 nsys_exports;	/* traces read from nsys-extract */
	struct strmap	 blame;		/* struct bkey -> ns in n */
	size_t		 maxblame;	/* kept apart; 0: all */
	struct strmap	 frames;	/* a frame's id -> struct fsum */
	struct strmap	 issuers;	/* struct bkey -> struct rtsum */
	int64_t		 pyframes;	/* Python frames read */
	struct graphsum	 graph;
	struct compsum	 compile;
	struct spill	 serve;		/* struct sstep, by ts */
	size_t		 nserve;
	int64_t		 serve_bad;	/* labels like a step's that are none */
	char		*serve_badlabel;	/* the first of them */
	int		 have_time;
	int64_t		 start, end, origin;	/* absolute ns */
	/*
	 * Across ranks: self_total(), and by xindex() each operator's and
	 * annotation's op_ranks key (and total, when the key is not the
	 * total), read through kv_get().  A two-pass merge keeps only these
	 * of a rank that is not the primary one, not st.
	 */
	int64_t		 self;
	struct rankthr	*rthr;		/* light: the threads, by busy only */
	size_t		 nrthr, caprthr;
	int32_t		*kv32;		/* while every value fits */
	int64_t		*kv64;		/* once one does not */
	size_t		 nkv;
};

#define ABSENT	INT64_MIN
#define NOSHAPE	UINT32_MAX
#define INCOST	(NOSHAPE - 1)	/* inside a costed call: not costed again */
#define KV_NONE	INT32_MIN	/* ABSENT in kv32 */

/*
 * The thread of an event past the trace's table of threads: this bit and
 * 63 bits of the SHA-256 of its pid and tid, which stand for it alone.
 */
#define THR_HASHED	((uint64_t)1 << 63)

/*
 * One end of an interval of a ledger slice, and what holds it: a name
 * (the operator, Python frame, runtime call or kernel; NO_WHO for none)
 * on a thread (op_lthr(); LTHR_NONE for the GPU's and the profiler's
 * own records).
 */
#define NO_WHO		UINT32_MAX
#define LTHR_NONE	UINT32_MAX
struct ledge {
	int64_t		t;
	uint32_t	slice;
	int32_t		delta;
	uint32_t	who;
	uint32_t	thr;
};

/*
 * What a slice's time went to (opblame.c): the user's innermost Python
 * frame, the library frame it called through, the operator, the runtime
 * call or kernel, each a name id or NO_WHO, and who spent it (W_*).
 */
struct bkey {
	uint32_t	slice, frame, via, op, call, who;
};

/* A user frame's time while the step is in Python (py) or in work. */
struct fsum {
	int64_t		py, work;
	int64_t		depth;	/* the least seen: outer frames first */
};

#define TOP_BLAME	5	/* contributors a slice shows */
#define BLAME_COST	64	/* bytes a contributor's sum takes */

/* A CPU event kept for nesting: exact ns as read, and its thread. */
struct cev {
	int64_t		ts, dur;
	uint32_t	name, seq;
	uint64_t	thr;		/* struct thr's id */
};

/*
 * A runtime call as read, to find what it launched and, for a
 * synchronise, copy or allocator call (slice L_SYNC, L_COPY or L_ALLOC by
 * its name; else NO_CALLER), what called it.
 */
#define NO_CALLER	UINT32_MAX
struct rcall {
	int64_t		corr, ts, dur;
	uint32_t	seq, slice;
	uint64_t	thr;
	uint32_t	name;
};

/*
 * A runtime call that launched GPU work, and what that work was; or one
 * whose caller is wanted, which launched none (end INT64_MIN).
 */
struct rev {
	int64_t		ts, corr;
	int64_t		sum, comm, end;	/* of its GPU work */
	uint32_t	seq;
	uint64_t	thr;
	int64_t		dur;
	uint32_t	slice;
};

/* The phase a runtime call gave its GPU work, in the order of the calls. */
struct link {
	int64_t		corr;
	uint64_t	order;
	int		phase;
};

/* One end of a GPU event on its device's timeline. */
struct gedge {
	int64_t		t;
	uint32_t	dev;		/* struct dev's idx */
	int16_t		cls, delta;
};

/*
 * A thread of the trace.  Its events are in the trace's spills, which
 * sort by id first, so that a thread costs its names and not a buffer of
 * its own however many threads there are.  The trace's table holds the
 * first threads seen, as many as a rank sums apart; a thread past them is
 * known by its events' THR_HASHED id alone, and summed as one of the
 * (other threads), so the table stays within the threads' share.
 */
struct thr {
	struct jid	 pid, tid;
	char		*name;
	uint64_t	 id;		/* the order first seen, or THR_HASHED */
	uint64_t	 sorted;	/* the order of its key, at the end */
};

/*
 * A device of the trace.  Its edges are in the trace's spill, which sorts
 * by idx first, so that a device costs its sums and not a buffer of its
 * own however many devices there are.
 */
struct dev {
	struct jid	 dev;
	uint32_t	 idx;		/* in the order first seen */
	int64_t		 n, lo, hi;	/* events, their window */
};

/* A GPU event that names the runtime call that launched it. */
struct gev {
	int64_t		corr, dur, end;
	uint32_t	name, seq;
	int		comm, memset;
};

/*
 * A trace's GPU work is joined to the runtime calls that launched it by
 * sorting both by correlation id, not in a table of every id.
 */
struct trace {
	int		 any;
	uint32_t	 seq;
	size_t		 ncoll[2];	/* op_coll_call()s: host's, GPU's */
	struct strmap	 threads;	/* -> struct thr */
	struct thr	**thv;		/* by id */
	size_t		 nthv, capthv;
	struct strmap	 devs;		/* -> struct dev */
	struct dev	**dvv;		/* by idx */
	size_t		 ndvv, capdvv;
	struct spill	 edges;		/* struct gedge, by op_cmpgedge */
	struct spill	 shp;		/* struct cev of shaped calls, name: */
	struct shsum	**shv;		/* ... their index here */
	size_t		 nshv, capshv;
	struct spill	 ops, py;	/* struct cev, by cmpcev */
	struct spill	 rt;		/* struct rev, by cmprev, at the end */
	struct spill	 gk;		/* struct gev, by cmpgev */
	struct spill	 rc;		/* struct rcall, by cmprcall */
	struct spill	 links;		/* struct link, by cmplink */
	struct spill	 ledges;	/* struct ledge, by op_cmpledge */
	struct spill	 bounds;	/* struct bound, by op_cmpbound */
	size_t		 nbound[NBOUND];
	struct spill	 steps;		/* struct step as read, op_step_read() */
	struct spill	 stepup;	/* what nesting found of them */
	size_t		 nraw;
	uint64_t	 nstepup;
	struct spill	 pspans;	/* struct pspan, by op_cmppspan */
	int64_t		 capbegin;	/* a capture begun; INT64_MIN: none */
	struct spill	 slabels;	/* struct slabel: serving steps' labels */
	size_t		 nslabel;
	struct spill	 launches;	/* struct lsum, with serving labels */
	struct spill	 cpevs;		/* compiled regions and graph calls */
	size_t		 ncpev;
	/*
	 * The frames around every outermost module call (op_nest_py()):
	 * the model's step runs in the last, the harness in those before.
	 */
	uint32_t	*chain;
	size_t		 nchain, capchain;
	int		 chained;
	struct agg	 a;
};

/* The rank and window of a trace read so far, to tell a copy from a window. */
struct seen {
	int64_t		 rank;		/* -1: unknown */
	int64_t		 start, end;	/* absolute ns */
	char		*file;
};

struct oprank {
	struct spool	 pool;		/* $MRP_OP_RANK_MEMORY */
	struct names	 names;
	struct table	 tab, prec, frames;
	struct trace	 t;
	struct agg	**ranks, *cur;	/* cur: the rank last looked up */
	size_t		 nranks;
	struct agg	 all;		/* light: every rank's st and pst */
	int		 light;		/* merge pass 1: st of ranks not kept */
	int		 pass2;		/* merge pass 2: the primary rank only */
	int64_t		 primary;	/* its rank, in pass 2 */
	int		 every;		/* -a: every rank's detail */
	uint32_t	*xof;		/* name id -> xindex() */
	size_t		 nxof, capxof, nx;
	size_t		 kvw;		/* values per name in kv: 1 or 2 */
	struct seen	*seen;
	size_t		 nseen;
	struct jdoc	 in;		/* what oprank_file() reads into */
	const struct jdoc *doc;		/* the record at hand */
	enum key	 key;
	int		 phase;		/* -p, or PH_NONE */
	long long	 limit;
	size_t		 maxthr;	/* threads a rank sums apart */
	size_t		 maxshape;	/* shapes a rank sums apart */
	size_t		 maxblame;	/* contributors a rank sums apart */
	struct gpupeak	*peaks;
	size_t		 npeaks;
	struct gpuarch	*arch;
	size_t		 narch;
	struct gpumodel	*models;
	size_t		 nmodels;
	struct servetab	*serve;		/* serve-steps.tsv */
	const char	*gpu;		/* -g */
	struct strbuf	 shapekey;	/* a shape's, while reading */
	struct strbuf	 callerkey;	/* a caller's, while nesting */
	const char	*file;
	char		 famsum[65], precsum[65];	/* table digests */
	struct strmap	 groups;	/* process groups -> number, in n */
	const char	**groupv;	/* by number - 1: groups' keys */
	size_t		 ngroups, capgroups;
};

/* An operator open on the runtime stack: its exact end, its index. */
struct rtopen {
	int64_t	end;
	size_t	i;
};

/* A Python frame open while nesting. */
struct pyopen {
	int64_t		end, dur, childsum;	/* ns */
	int64_t		d;			/* truncated µs */
	uint32_t	name;
	int		module;			/* an "nn.Module: " frame */
};

/* A whole call tree in the window: events lo..hi of the thread. */
struct seg {
	size_t	lo, hi;
	int64_t	maxend;		/* the latest exact end in it */
};

/*
 * Nesting one thread, as a stream of its operators in order.  The window
 * holds the call trees not yet finished: events off..off+n of the thread,
 * indexed by their place in the thread (every index here is one).  A tree
 * is finished once no runtime call left can land in it, so memory grows
 * with the largest tree, not with the thread.  Kept across threads.
 */
struct nest {
	struct cev	*v;
	int64_t		*parent;	/* -1: a root */
	int32_t		*nchild;
	uint8_t		*del, *mark;
	uint32_t	*shape;		/* in trace's shv, NOSHAPE or INCOST */
	int64_t		*childsum, *gdir, *gsub;
	int64_t		*lcur;		/* self time given to the ledger */
	size_t		 off, n, cap;
	size_t		*stack;		/* the tree being built */
	size_t		 sp, capstack;
	struct rtopen	*rs;		/* the runtime calls' stack */
	size_t		 nrs, caprs;
	struct pyopen	*ps;
	size_t		 nps, capps;
	size_t		 nmodules;	/* module frames among ps */
	struct rev	*orphan;	/* callers' calls outside any operator */
	size_t		 norphan, caporphan;
	struct seg	*seg;		/* built, not finished */
	size_t		 nseg, capseg;
	size_t		 next;		/* the next operator the runtime sees */
	int64_t		 bs, be, busy, count;	/* the thread's busy time */
	int		 open;
	/*
	 * Of the next link: the thread's place in key order, then its
	 * calls', so that links sort as when threads were nested in that
	 * order (a correlation id two threads share goes to the last).
	 */
	uint64_t	 order;
	uint64_t	 thr;		/* the thread being nested */
	const struct cev *op, *py;	/* the next of ops and py, or NULL */
	const struct rev *rt;		/* the next of rt, or NULL */
	const struct cev *sh;		/* the next of shp, or NULL */
	struct spillcur	 oc, pc, rc, sc;	/* over the trace's spills */
};

/* A sort item: a value to rank by and the name that breaks ties. */
struct item {
	double		 v;
	const char	*s;
	size_t		 i;
};

/* A step-time summary of put_sstat(). */
struct sstat {
	size_t	n;
	int64_t	slowest;		/* its number */
	int64_t	total, min, max, med2, above;
	double	mean, std;
};

/* Step times in the order the steps ran (opstep.c). */
struct durs {
	struct spill	sp;
	uint64_t	n;
};

/* opfamily.c */
char	*op_find_table(const char *name);
void	op_load_table(struct table *t, const char *path, const char *none);
void	op_table_free(struct table *t);
int	op_family_index(const struct table *t, const char *s);
void	op_check_prec(struct names *nm, const struct table *t,
	    const char *path);
int	op_prefix(const char *s, const char *p);
uint32_t	op_intern(struct names *nm, int cls, const char *s, size_t len);
int	op_folded(const struct name *n);
const char	*op_family_name(const struct oprank *r, int f);
void	op_digest_file(const char *path, char hex[65]);

/* opintake.c */
int	op_get_jid(const struct jdoc *d, int i, struct jid *id);
void	op_jid_copy(struct jid *dst, const struct jid *src);
void	op_jid_free(struct jid *id);
void	op_put_jid(struct jw *w, const char *key, const struct jid *id);
int	op_get_rank(struct oprank *r, int64_t *rank);
int	op_same_window(struct oprank *r, const char *file, int64_t rank,
	    int64_t start, int64_t end);
struct agg	*op_rank_agg(struct oprank *r, int64_t rank);
void	op_trace_init(struct trace *t, struct spool *pool);
void	op_trace_free(struct trace *t);

/* opnest.c */
int	op_cmpcev(const void *a, const void *b);
int	op_cmprev(const void *a, const void *b);
void	op_nest_open(struct nest *nb, struct trace *t);
uint64_t	op_nest_next(const struct nest *nb);
void	op_nest_free(struct nest *nb);
void	op_nest_cpu(struct oprank *r, struct nest *nb, const struct thr *th);
void	op_nest_py(struct oprank *r, struct nest *nb, const struct thr *th);

/* opgpu.c */
int	op_cmprcall(const void *a, const void *b);
int	op_cmplink(const void *a, const void *b);
int	op_cmpgev(const void *a, const void *b);
int	op_cmpgedge(const void *a, const void *b);
void	op_timelines(struct trace *t);
void	op_gpu_join(struct trace *t);
void	op_gpu_phases(struct oprank *r);

/* opagg.c */
void	*op_grow(void *p, size_t *cap, size_t n, size_t size);
void	op_stat_add(struct stat *s, int64_t total, int64_t self);
void	op_stat_merge(struct stat *d, const struct stat *s);
void	op_agg_fit(struct agg *a, size_t n);
struct thsum	*op_thsum_get(struct agg *a, const struct jid *pid,
	    const struct jid *tid, const char *name, size_t max);
void	op_thsum_fold(struct thsum *dst, const struct thsum *src);
void	op_rankthr_add(struct agg *a, const struct thsum *t, int64_t busy);
int64_t	op_rank_busy(const struct agg *a);
struct devsum	*op_devsum_get(struct agg *a, const struct jid *dev);
void	op_devsum_add(struct devsum *dd, const struct devsum *ds);
void	op_rtsum_add(struct agg *a, const char *name, size_t len,
	    const struct rtsum *add);
void	op_rtsum_fold(struct strent *e, const struct rtsum *add);
void	op_caller_add(struct agg *a, const char *key, size_t len,
	    const struct rtsum *add);
void	op_caller_key(struct strbuf *key, const char *slice, const char *cls,
	    const char *name);
void	op_caller_split(const struct strent *e, const char **slice,
	    const char **cls, const char **name, size_t *namelen);
void	op_put_rtsum(struct jw *w, const struct rtsum *rs);
void	op_agg_merge(struct agg *dst, const struct agg *src, size_t max);
void	op_agg_take(struct agg *dst, struct agg *src, size_t max);
void	op_agg_free(struct agg *a);
int64_t	op_self_total(const struct oprank *r, const struct agg *a);
int	op_cmpi64(const void *a, const void *b);
double	op_median(const int64_t *v, size_t m);
void	op_kv_add(struct oprank *r, struct agg *a, size_t id,
	    const struct stat *s);
int64_t	op_rank_key(struct oprank *r, const struct agg *a, size_t id);
int64_t	op_rank_total(struct oprank *r, const struct agg *a, size_t id);
size_t	op_late_rank(struct oprank *r);
size_t	op_primary(struct oprank *r);

/* opout.c */
double	op_keyval(const struct stat *s, enum key k);
int	op_cmpclass(const void *a, const void *b);
double	op_round3(double x);
void	op_put_rank(struct jw *w, int64_t rank);
void	op_put_warning(struct jw *w, int64_t rank, const char *msg);
void	op_put_ops(struct oprank *r, struct jw *w, const struct agg *a,
	    int cls);
void	op_put_thread(struct jw *w, const struct thsum *ts);
void	op_put_threads(struct oprank *r, struct jw *w, const struct agg *a);
void	op_put_families(struct oprank *r, struct jw *w, const struct agg *a);
void	op_put_phases(struct jw *w, const struct agg *a);
void	op_put_sstat(struct jw *w, const struct sstat *s);
void	op_put_steps(struct jw *w, struct agg *a, int stats);
void	op_put_kernels(struct oprank *r, struct jw *w, const struct agg *a);
void	op_put_precision(struct oprank *r, struct jw *w, const struct agg *a);
void	op_put_devs(struct jw *w, const struct agg *a);
void	op_put_runtime(struct oprank *r, struct jw *w, const struct agg *a);
void	op_put_folds(struct oprank *r, struct jw *w, const struct agg *a);
void	op_put_summary(struct oprank *r, struct jw *w, const struct agg *a,
	    size_t nranks);

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

/* opslice.c */
size_t	op_lslices(const struct oprank *r);
const char	*op_lslice_name(const struct oprank *r, uint32_t s,
	    struct strbuf *sb);
int	op_lslice_of(const struct oprank *r, const char *name, uint32_t *s);
uint32_t	op_lslice_kernel(const struct oprank *r, uint32_t name,
	    int memset);
uint32_t	op_lslice_runtime(const char *s, int64_t dur);
uint32_t	op_lslice_overhead(const char *s);
uint32_t	op_lslice_mark(const struct oprank *r, uint32_t name);
uint32_t	op_lslice_op(const struct oprank *r, uint32_t name);
uint32_t	op_lslice_py(const struct oprank *r);
uint32_t	op_lslice_queued(const struct oprank *r);
uint32_t	op_lslice_none(const struct oprank *r);

/* opledger.c */
int	op_cmpledge(const void *a, const void *b);
int	op_cmpbound(const void *a, const void *b);
int	op_bound_of(const char *s);
void	op_ledge(struct trace *t, uint32_t slice, uint32_t who,
	    uint32_t thr, int64_t ts, int64_t end);
uint32_t	op_lthr(uint64_t thr);
void	op_ccall_add(struct agg *a, const struct ccall *c);
void	op_ledger(struct oprank *r, int timed, int64_t start, int64_t end,
	    int64_t origin);
void	op_ledger_merge(struct agg *dst, struct agg *src);
void	op_ledger_free(struct agg *a);
void	op_ledger_open(struct lread *lr, struct agg *a);
int	op_ledger_next(struct lread *lr, struct lwinv *wv);
void	op_ledger_close(struct lread *lr);
void	op_put_ledger(struct oprank *r, struct jw *w, struct agg *a,
	    int detail);
size_t	op_put_ledger_partials(struct oprank *r, struct jw *w,
	    struct agg *a);
int	op_ledger_partial(struct oprank *r, struct agg *a);

/* opphase.c */
struct spancur;
int	op_cmppspan(const void *a, const void *b);
void	op_pspan_event(struct trace *t, int cls, const char *s, int64_t ts,
	    int64_t end);
struct spancur	*op_spans_open(struct trace *t);
void	op_spans_of(struct spancur *sc, int64_t start, int64_t end,
	    int64_t span[NPSPAN]);
void	op_spans_close(struct spancur *sc);
int	op_window_phase(const struct lwinv *wv);
void	op_put_periodic(struct oprank *r, struct jw *w, struct agg *a);

/* opblame.c */
struct holders;
struct holders	*op_holders_new(const struct oprank *r, struct trace *t,
	    int64_t origin);
void	op_holders_free(struct holders *h);
void	op_holders_edge(struct holders *h, const struct ledge *e);
uint32_t	op_blame_resolve(struct oprank *r, struct holders *h,
	    uint32_t slice);
void	op_blame_commit(struct oprank *r, struct holders *h, int64_t ns);
void	op_blame_call(struct oprank *r, struct holders *h,
	    const struct ledge *e, int64_t prevend, int64_t start);
void	op_put_issuers(struct oprank *r, struct jw *w, const struct agg *a);
void	op_blame_add(struct agg *a, const struct bkey *k, int64_t ns);
void	op_blame_merge(struct agg *dst, const struct agg *src);
void	op_blame_free(struct agg *a);
void	op_put_blame(struct oprank *r, struct jw *w, const struct agg *a,
	    uint32_t slice, int64_t wall);
size_t	op_put_blame_partials(struct oprank *r, struct jw *w,
	    const struct agg *a);
int	op_blame_partial(struct oprank *r, struct agg *a, int kind);
void	op_nest_chain(struct trace *t, const struct pyopen *ps, size_t n);

/* opcoll.c */
int	op_coll_kind(const char *s, size_t len);
const char	*op_coll_kind_name(int kind);
uint32_t	op_coll_group(struct oprank *r, const char *s, size_t len);
const char	*op_coll_group_name(const struct oprank *r, uint32_t g);
void	op_coll_call(struct oprank *r, struct agg *a,
	    const struct collargs *ca, struct ccall *c);
void	op_put_collectives(struct oprank *r, struct jw *w);
struct collsum	*op_coll_sums(struct oprank *r);

/* opranks.c */
int	op_cmprank(const void *a, const void *b);
void	op_output(struct oprank *r, struct jw *w);

/*
 * a + b, or past 64 bits the most either way: sums of durations, counts
 * and bytes, from traces and partials alike, saturate.  INT64_MIN, which
 * stands for absent (ABSENT), is never a sum.
 */
static inline int64_t
op_sat_add(int64_t a, int64_t b)
{
	int64_t s;

	if (!__builtin_add_overflow(a, b, &s) && s != INT64_MIN)
		return s;
	return b > 0 ? INT64_MAX : -INT64_MAX;
}

/* opstep.c */
int	op_cmpstep(const void *a, const void *b);
void	op_step_read(struct trace *t, int64_t num, int64_t ts, int64_t end);
void	op_step_touch(struct trace *t, int64_t ts, int64_t end, double flops);
void	op_steps_resolve(struct trace *t, int64_t origin);
void	op_steps_add(struct agg *a, const struct step *s);
void	op_steps_open(struct spillcur *c, struct agg *a);
void	op_steps_merge(struct agg *dst, struct agg *src);
void	op_steps_free(struct agg *a);
double	op_mean_step(struct agg *a);
void	op_durs_init(struct durs *d, struct spool *pool);
void	op_durs_add(struct durs *d, int64_t num, int64_t dur);
void	op_durs_free(struct durs *d);
void	op_step_stats(struct durs *d, struct sstat *s);

/* oppartial.c */
void	op_output_partial(struct oprank *r, struct jw *w);
int	op_merge_file(struct oprank *r, const char *path);
int	op_reread(int argc, char *argv[]);
int	op_merge_again(struct oprank *r, int argc, char *argv[]);

/* The serving steps' interface: it needs the slices' and labels' sizes. */
#include "trace/opserve.h"

#endif
