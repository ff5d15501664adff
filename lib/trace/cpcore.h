/*
 * cpcore: what crit-path's parts share (critpath.c reads the records and
 * writes the windows' records, cprank.c makes each rank's passes,
 * cpgraph.c each window's graph): an event as the passes carry it, a
 * rank's threads, streams and spills, and the names interned once with
 * their roles from rubric/cuda-calls.tsv.
 *
 * Ownership: struct critpath owns its names, rules, ranks and spill pool;
 * a rank its threads, streams, windows, waits and spills (critpath_free()).
 */
#ifndef CPCORE_H
#define CPCORE_H

#include <stddef.h>
#include <stdint.h>

#include "base/pattern.h"
#include "base/strmap.h"
#include "io/spill.h"
#include "trace/opnames.h"

struct critpath_opts;

#define US		1000
/* HTA's KERNEL_KERNEL_DELAY_THRESHOLD_US: a longer gap is no overhead. */
#define KK_CUTOFF	(1500 * US)
/* Parents may end a nanosecond-rounded microsecond before their children. */
#define NEG_TOLERANCE	US
/* Times so far from the origin that their sums could overflow: 52 days. */
#define TIME_MAX	(INT64_C(1) << 52)

enum { R_LAUNCH = 1, R_GRAPH = 2, R_BLOCKING = 4, R_LOCK = 8, R_DATA = 16,
	R_COMM = 32 };

enum { K_OP, K_RUNTIME, K_ANNOT, K_SYNC, K_GPU };
enum { S_NONE, S_CONTEXT, S_STREAM, S_EVENT, S_WAIT };

struct cpname {
	char		*s;
	unsigned	 role;
	unsigned char	 sync;		/* S_*, for cuda_sync events */
	unsigned char	 record;	/* cudaEventRecord, hipEventRecord */
	unsigned char	 fwd, bwd;	/* holds "forward", "autograd" */
	unsigned char	 user;		/* a Python frame of the user's code */
	unsigned char	 framed;	/* user found, for a Python frame */
	unsigned char	 described;	/* role found, for any other event */
};

/* NO_SEL: an event no window takes by its time. */
#define NO_SEL		INT64_MIN

/*
 * A kept event, as it goes through the rank's passes (cprank.c) in spill
 * files of fixed-size records and into a window's graph.  idx is its
 * place among the rank's events, HTA's index: links name events by it.
 */
struct ev {
	int64_t		 ts, end;	/* ns from the trace's origin */
	int64_t		 corr;		/* -1: none */
	int64_t		 wait_record;	/* cuda_sync: its cudaEventRecord */
	int64_t		 sel;		/* the start that puts it in a
					   window: its own or its launch's */
	int64_t		 link_ts;	/* its link's start */
	uint32_t	 idx;
	uint32_t	 name, cat;
	int32_t		 thread;	/* host events; -1 on the GPU */
	int32_t		 stream;	/* index into the rank's streams */
	int32_t		 wait_stream;	/* cuda_sync: the recorded event's
					   stream, an index as stream's */
	int32_t		 link;		/* HTA's index_correlation, or -1 */
	int32_t		 queue;		/* launches before it on its stream */
	int32_t		 queue_at;	/* launches left there as it starts */
	int32_t		 rec_src;	/* a sync: the work its event waits
					   for, or -1 */
	int32_t		 wait_dest;	/* a Stream Wait Event: the work it
					   holds back, or -1 */
	unsigned char	 kind;
	unsigned char	 graph;		/* GPU work of a graph launch */
	unsigned char	 launched;	/* GPU work of a launch: queued */
};

struct thread {
	char		*pid, *tid;	/* as in the trace */
	size_t		 plen, tlen;
	int		 numeric;
	long long	 npid, ntid;
	uint32_t	 order;		/* in HTA's order of (pid, tid) */
};

struct stream {
	int32_t		 device, id;
};

/* A window's bounds and the event that names it. */
struct win {
	int64_t		 ts, end;
	uint32_t	 idx, name;
};

struct rank {
	int64_t		 id;
	uint32_t	 n;		/* events kept */
	struct spill	 bycorr;	/* every one, for the links */
	struct spill	 recs;		/* the event syncs' records and waits */
	struct spill	 bysel;		/* every one a window may take, as
					   cpr_add() and cpr_prepare() find
					   all it needs */
	struct ev	*waits;		/* the Stream Wait Events: in every
					   window, as in HTA's */
	size_t		 nwaits, capwaits;
	struct win	*win;		/* the events that may be windows */
	size_t		 nwin, capwin;
	int64_t		 lo, hi;	/* the first start, the last end */
	struct thread	*th;
	size_t		 nth, capth;
	struct strmap	 thmap;		/* pid's length, pid, tid: thread + 1 */
	int32_t		 last_th;	/* the thread thread_of() found last */
	struct strmap	 stmap;		/* struct stream: its index + 1 */
	struct stream	*st;
	size_t		 nst, capst;
	int		 has_sync;
};

struct critpath {
	const struct critpath_opts *o;
	struct strmap	 names;
	struct cpname	*name;
	size_t		 nname, capname;
	struct rank	*rank;
	size_t		 nrank, caprank;
	struct strmap	 ranks;		/* the rank's id: its index + 1 */
	struct { unsigned role; struct pattern pat; } *rule;
	size_t		 nrule;
	uint32_t	 k_cpu_op, k_runtime, k_driver, k_annot, k_sync,
			 k_gpu_annot, k_operator, k_runtime18, k_py;
	struct table	 frames;	/* rubric/python-frames.tsv */
	int		 famlib, famprof;
	struct spool	 pool;		/* $MRP_CRIT_PATH_MEMORY */
};

#endif
