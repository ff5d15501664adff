/*
 * cpcore: what crit-path's parts share (critpath.c reads the records and
 * builds each rank's tables, cpgraph.c each window's graph): a rank's
 * events, as few bytes each as the graph needs, and the names interned
 * once with their roles from rubric/cuda-calls.tsv.
 *
 * Ownership: struct critpath owns its names, rules and ranks; a rank its
 * events, threads, streams and tables (critpath_free()).
 */
#ifndef CPCORE_H
#define CPCORE_H

#include <stddef.h>
#include <stdint.h>

#include "base/strmap.h"
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
};

struct ev {
	int64_t		 ts, end;	/* ns from the trace's origin */
	int64_t		 corr;		/* -1: none */
	int64_t		 wait_record;	/* cuda_sync: its cudaEventRecord */
	uint32_t	 name, cat;
	int32_t		 thread;	/* host events; -1 on the GPU */
	int32_t		 stream;	/* index into the rank's streams */
	int32_t		 wait_stream;	/* cuda_sync: the event's stream */
	int32_t		 device;
	int32_t		 link;		/* HTA's index_correlation, or -1 */
	int32_t		 queue;		/* launches before it on its stream */
	int32_t		 queue_at;	/* launches left there as it starts */
	int32_t		 loc;		/* place in the window, or -1 */
	unsigned char	 kind;
	unsigned char	 graph;		/* GPU work of a graph launch */
};

struct thread {
	char		*pid, *tid;	/* as in the trace */
	int		 numeric;
	long long	 npid, ntid;
	uint32_t	 order;		/* in HTA's order of (pid, tid) */
};

struct stream {
	int32_t		 device, id;
};

/* An event by its start, for the windows' host events. */
struct at {
	int64_t		 ts;
	uint32_t	 ev;
};

struct rank {
	int64_t		 id;
	struct ev	*ev;
	size_t		 n, cap;
	struct thread	*th;
	size_t		 nth, capth;
	struct strmap	 thmap;		/* pid's length, pid, tid: thread + 1 */
	struct strmap	 stmap;		/* struct stream: its index + 1 */
	struct stream	*st;
	size_t		 nst, capst;
	int		 has_sync;
	struct at	*by_ts;		/* host events by start */
	size_t		 nby_ts;
	uint32_t	*waits;		/* the Stream Wait Events: in every
					   window, as in HTA's */
	size_t		 nwaits;
	uint32_t	*gpu_of;	/* CSR: each runtime call's GPU work */
	uint32_t	*gpu_at;
	int32_t		*rec_src;	/* per sync: its record's GPU work */
	int32_t		*wait_dest;	/* per event: a wait's next GPU work */
};

struct critpath {
	const struct critpath_opts *o;
	struct strmap	 names;
	struct cpname	*name;
	size_t		 nname, capname;
	struct rank	*rank;
	size_t		 nrank, caprank;
	struct strmap	 ranks;		/* the rank's id: its index + 1 */
	struct { unsigned role; char *pat; } *rule;
	size_t		 nrule;
	uint32_t	 k_cpu_op, k_runtime, k_driver, k_annot, k_sync,
			 k_gpu_annot, k_operator, k_runtime18, k_py;
	struct table	 frames;	/* rubric/python-frames.tsv */
	int		 famlib, famprof;
};

#endif
