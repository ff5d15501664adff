/*
 * opledger: the time ledger (opslice.c, opledger.c, opphase.c,
 * opblame.c): the slices a window's wall time is cut into, each window's
 * rows, what each window is (capture, compile, warm-up, steady) and its
 * periodic steps, the iterations inferred where a trace has no steps, and
 * who spends each slice (the user's frame, operator, call; the model, its
 * harness or the profiler).
 *
 * Ownership: the rows and contributors are in their struct agg (spill and
 * maps), freed by op_ledger_free() and op_blame_free(); a struct lread,
 * struct spancur or struct holders is its opener's until closed or freed.
 */
#ifndef OPLEDGER_H
#define OPLEDGER_H

#include <stddef.h>
#include <stdint.h>

#include "io/spill.h"

struct agg;
struct jw;
struct oprank;
struct pyopen;
struct strbuf;
struct trace;

#define TOP_CALLERS	3	/* runtime_caller records a slice gets */

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

/* opslice.c */
/* A runtime call named s launches a graph: cudaGraphLaunch and the like. */
int	op_is_graph_launch(const char *s);
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
void	op_ledger(struct oprank *r, int timed, int64_t start, int64_t end,
	    int64_t origin);
void	op_ledger_merge(struct agg *dst, struct agg *src);
void	op_ledger_free(struct agg *a);
void	op_put_ledger(struct oprank *r, struct jw *w, struct agg *a,
	    int detail);
size_t	op_put_ledger_partials(struct oprank *r, struct jw *w,
	    struct agg *a);
int	op_ledger_partial(struct oprank *r, struct agg *a);
/* opphase.c: also the rank's ledger read back, window by window. */
void	op_ledger_open(struct lread *lr, struct agg *a);
int	op_ledger_next(struct lread *lr, struct lwinv *wv);
void	op_ledger_close(struct lread *lr);
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

#endif
