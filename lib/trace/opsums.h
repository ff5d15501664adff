/*
 * opsums: the operator aggregator's sums: by name, thread, device and
 * runtime call, one at a time (opsums.c); a trace's and then a rank's
 * whole (struct agg), merged across traces and ranks, and the rank's
 * values by name across ranks (opagg.c).  The sums saturate
 * (op_sat_add()).
 *
 * Ownership: a struct agg owns its maps, spills and arrays and what they
 * hold; op_agg_free() frees them.
 */
#ifndef OPSUMS_H
#define OPSUMS_H

#include <stddef.h>
#include <stdint.h>

#include "base/strbuf.h"
#include "base/strmap.h"
#include "io/spill.h"
#include "trace/opbase.h"
#include "trace/opcompile.h"
#include "trace/opgraph.h"
#include "trace/opnames.h"

struct ccall;
struct jw;
struct oprank;
struct rankthr;

#define THREAD_COST	512	/* bytes a thread's sums take */

enum key { K_TOTAL, K_SELF, K_COUNT, K_MEAN, K_MAX, K_GPU };
#define NKEY	(K_GPU + 1)
extern const char *const op_keyname[NKEY];

/* Per name: CPU times in whole µs as key_averages() has them, GPU in ns. */
struct stat {
	int64_t	count, total, self, min, max;
	int64_t	gpu_self, gpu_total;
	int64_t	bytes;		/* a GPU copy's or memset's, as Kineto counts */
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
#define KV_NONE	INT32_MIN	/* ABSENT in kv32 */

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

/* opsums.c: one sum at a time. */
double	op_keyval(const struct stat *s, enum key k);
void	op_stat_add(struct stat *s, int64_t total, int64_t self);
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

/*
 * opagg.c: a whole struct agg, whose merge and freeing reach every
 * part's sums, and the ranks compared.
 */
void	op_agg_merge(struct agg *dst, const struct agg *src, size_t max);
void	op_agg_take(struct agg *dst, struct agg *src, size_t max);
void	op_agg_free(struct agg *a);
int64_t	op_self_total(const struct oprank *r, const struct agg *a);
void	op_kv_add(struct oprank *r, struct agg *a, size_t id,
	    const struct stat *s);
int64_t	op_rank_key(struct oprank *r, const struct agg *a, size_t id);
int64_t	op_rank_total(struct oprank *r, const struct agg *a, size_t id);
size_t	op_late_rank(struct oprank *r);
size_t	op_primary(struct oprank *r);

#endif
