/*
 * opcore: the operator aggregator's state, which its files share: a
 * struct oprank and the trace it is reading (struct trace, its threads),
 * and the intake that fills them (opintake.c).  Only lib/trace/op*.c
 * include it; everyone else uses oprank.h.  Each part of the aggregator
 * declares what it gives the others in a header of its own:
 *
 *	opbase.c	what every part uses, calling none (opbase.h)
 *	oprank.c	the entry points: options, tables loaded,
 *			teardown (oprank.h)
 *	opintake.c	records in: events, threads and trace records, pid
 *			and tid as written, which trace and rank they are
 *			(this header)
 *	opfamily.c	names interned, and the class, phase, family and
 *			precision tables they are looked up in (opnames.h)
 *	opsums.c, opagg.c
 *			the sums by name, thread, device and rank, and
 *			their merge across traces and ranks (opsums.h)
 *	opnest.c	each thread's call trees: self time, what the
 *			runtime calls under each operator launched, and
 *			which operator issued each sync, copy and
 *			allocator call (opnest.h)
 *	opgpu.c		GPU work joined to the runtime calls that launched
 *			it, its phases, each device's timeline (opgpu.h)
 *	opstep.c	the steps, their ends and FLOPs, and their
 *			statistics, through spills (opstep.h)
 *	opshape.c	modelled calls by shape, their FLOPs and the GPU
 *			peaks: op_shape and compute_summary (opshape.h)
 *	opslice.c, opledger.c, opphase.c, opblame.c
 *			the time ledger: its slices, each window's wall
 *			time in them, what each window is, and who spends
 *			each slice (opledger.h)
 *	opcoll.c	collectives matched across ranks (opcoll.h)
 *	opgraph.c	CUDA and HIP graph replays (opgraph.h)
 *	opserve.c	serving engines' steps from their labels (opserve.h)
 *	opcompile.c	torch.compile's regions and recompiles (opcompile.h)
 *	opdevice.c	the rank's GPU, its peaks and the precisions it
 *			runs fast (opdevice.h)
 *	opout.c, opranks.c
 *			the records written: one rank's, then those across
 *			ranks, in the order of all output (opout.h)
 *	oppartial.c, opfield.c
 *			the partial format: op_partial records out and
 *			merged back in, the summed records' fields as
 *			tables (opfield.h)
 *
 * What one file gives another is named op_*; the rest is static.  A file
 * includes the headers of the parts it uses, and the files call each
 * other in layers, from opbase.c up to oprank.c, never in a circle
 * (tests/layers).  Ownership is as oprank.h
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
#include "io/spill.h"
#include "trace/opledger.h"
#include "trace/opnames.h"
#include "trace/oprank.h"
#include "trace/opsums.h"

struct gpuarch;
struct gpumodel;
struct gpupeak;
struct jw;
struct servetab;
struct shsum;

/*
 * The thread of an event past the trace's table of threads: this bit and
 * 63 bits of the SHA-256 of its pid and tid, which stand for it alone.
 */
#define THR_HASHED	((uint64_t)1 << 63)

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
	const struct jdoc *doc;		/* the record or event at hand */
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

/* opintake.c */
int	op_get_rank(struct oprank *r, int64_t *rank);
int	op_same_window(struct oprank *r, const char *file, int64_t rank,
	    int64_t start, int64_t end);
struct agg	*op_rank_agg(struct oprank *r, int64_t rank);
void	op_trace_init(struct trace *t, struct spool *pool);
void	op_trace_free(struct trace *t);

#endif
