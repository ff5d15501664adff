/*
 * opnest: one thread's operators nested into call trees, as key_averages()
 * nests them: each operator's total and self time in whole microseconds,
 * the GPU time of the runtime calls under it (its own and its children's),
 * and the steps those calls belong to.  Python frames nest apart.  Reads
 * the trace's spills, a thread at a time; memory grows with the largest
 * call tree, not with the thread.
 */
#include <stdlib.h>
#include <string.h>

#include "base/xalloc.h"
#include "trace/opbase.h"
#include "trace/opcore.h"
#include "trace/opgpu.h"
#include "trace/opledger.h"
#include "trace/opnames.h"
#include "trace/opnest.h"
#include "trace/opshape.h"
#include "trace/opstep.h"
#include "trace/opsums.h"

static int64_t	floordiv(int64_t, int64_t);
static int64_t	us_start(const struct cev *);
static int64_t	us_end(const struct cev *);
static void	nest_fit(struct nest *, size_t);
static void	nest_add(struct nest *, const struct cev *);
static void	nest_built(struct oprank *, struct nest *, size_t);
static const struct rev *rt_here(const struct nest *);
static void	shaped(struct trace *, uint32_t, int64_t, int64_t, int64_t);
static void	nest_runtime(struct oprank *, struct nest *, int, int64_t,
		    int);
static void	ledger_self(struct oprank *, struct nest *,
		    const struct seg *);
static void	nest_finish(struct oprank *, struct nest *, int);

static int64_t
floordiv(int64_t a, int64_t b)
{
	int64_t q = a / b;

	return (a % b != 0 && (a < 0) != (b < 0)) ? q - 1 : q;
}

/* key_averages() truncates start and duration to µs separately. */
static int64_t
us_start(const struct cev *e)
{
	return floordiv(e->ts, 1000);
}

static int64_t
us_end(const struct cev *e)
{
	return floordiv(e->ts, 1000) + e->dur / 1000;
}

int
op_cmpcev(const void *a, const void *b)
{
	const struct cev *x = a, *y = b;
	int64_t xs = us_start(x), ys = us_start(y), xe, ye;

	if (x->thr != y->thr)
		return x->thr < y->thr ? -1 : 1;
	if (xs != ys)
		return xs < ys ? -1 : 1;
	xe = us_end(x);
	ye = us_end(y);
	if (xe != ye)
		return xe > ye ? -1 : 1;
	return (x->seq > y->seq) - (x->seq < y->seq);
}

int
op_cmprev(const void *a, const void *b)
{
	const struct rev *x = a, *y = b;

	if (x->thr != y->thr)
		return x->thr < y->thr ? -1 : 1;
	if (x->ts != y->ts)
		return x->ts < y->ts ? -1 : 1;
	return (x->seq > y->seq) - (x->seq < y->seq);
}

static void
nest_fit(struct nest *nb, size_t n)
{
	if (n <= nb->cap)
		return;
	nb->cap = n > 2 * nb->cap ? n : 2 * nb->cap;
	nb->v = xreallocarray(nb->v, nb->cap, sizeof(*nb->v));
	nb->parent = xreallocarray(nb->parent, nb->cap, sizeof(*nb->parent));
	nb->nchild = xreallocarray(nb->nchild, nb->cap, sizeof(*nb->nchild));
	nb->del = xreallocarray(nb->del, nb->cap, sizeof(*nb->del));
	nb->mark = xreallocarray(nb->mark, nb->cap, sizeof(*nb->mark));
	nb->childsum = xreallocarray(nb->childsum, nb->cap,
	    sizeof(*nb->childsum));
	nb->gdir = xreallocarray(nb->gdir, nb->cap, sizeof(*nb->gdir));
	nb->gsub = xreallocarray(nb->gsub, nb->cap, sizeof(*nb->gsub));
	nb->shape = xreallocarray(nb->shape, nb->cap, sizeof(*nb->shape));
	nb->lcur = xreallocarray(nb->lcur, nb->cap, sizeof(*nb->lcur));
}

/*
 * Opens the trace's spills for nesting its threads in the order of their
 * idx, which is theirs.  The caller frees nb with op_nest_free().
 */
void
op_nest_open(struct nest *nb, struct trace *t)
{
	spill_open(&nb->oc, &t->ops);
	spill_open(&nb->pc, &t->py);
	spill_open(&nb->rc, &t->rt);
	spill_open(&nb->sc, &t->shp);
	nb->op = spill_next(&nb->oc);
	nb->py = spill_next(&nb->pc);
	nb->rt = spill_next(&nb->rc);
	nb->sh = spill_next(&nb->sc);
}

/* The id of the thread whose events come next; none left: 0, not hashed. */
uint64_t
op_nest_next(const struct nest *nb)
{
	uint64_t id = 0;

	if (nb->op != NULL)
		id = nb->op->thr;
	if (nb->py != NULL && (id == 0 || nb->py->thr < id))
		id = nb->py->thr;
	if (nb->rt != NULL && (id == 0 || nb->rt->thr < id))
		id = nb->rt->thr;
	return id;
}

void
op_nest_free(struct nest *nb)
{
	free(nb->v);
	free(nb->parent);
	free(nb->nchild);
	free(nb->del);
	free(nb->mark);
	free(nb->childsum);
	free(nb->gdir);
	free(nb->gsub);
	free(nb->shape);
	free(nb->lcur);
	free(nb->stack);
	free(nb->rs);
	free(nb->ps);
	free(nb->orphan);
	free(nb->seg);
	spillcur_free(&nb->oc);
	spillcur_free(&nb->pc);
	spillcur_free(&nb->rc);
	spillcur_free(&nb->sc);
}

/*
 * Adds the next event in (start, -end) order to the tree being built, as
 * torch's EventList does: an event pops every open event it does not fit
 * inside, in truncated µs, and the remaining top is its parent.
 */
static void
nest_add(struct nest *nb, const struct cev *e)
{
	size_t i = nb->off + nb->n, w = nb->n;
	int64_t p;

	nest_fit(nb, nb->n + 1);
	nb->v[w] = *e;
	p = nb->sp > 0 ? (int64_t)nb->stack[nb->sp - 1] : -1;
	nb->parent[w] = p;
	nb->nchild[w] = 0;
	nb->del[w] = 0;
	nb->childsum[w] = 0;
	nb->gdir[w] = 0;
	nb->gsub[w] = 0;
	/* The shaped calls sort as the operators do: the next is this one? */
	nb->shape[w] = NOSHAPE;
	if (nb->sh != NULL && nb->sh->seq == e->seq) {
		nb->shape[w] = nb->sh->name;
		nb->sh = spill_next(&nb->sc);
	}
	if (p >= 0)
		nb->nchild[p - (int64_t)nb->off]++;
	nb->stack = op_grow(nb->stack, &nb->capstack, nb->sp,
	    sizeof(*nb->stack));
	nb->stack[nb->sp++] = i;
	nb->n++;
}

/*
 * The tree from lo to the window's end is built.  _remove_dup_nodes: an
 * only child with its parent's name goes, and the parent adopts its
 * children.  Parents sort before children, so one pass in order settles
 * every chain.
 */
static void
nest_built(struct oprank *r, struct nest *nb, size_t lo)
{
	const struct name *nm = r->names.v;
	struct cev *v = nb->v;
	struct seg *sg;
	size_t i, w;
	int64_t p, q;

	nb->seg = op_grow(nb->seg, &nb->capseg, nb->nseg, sizeof(*nb->seg));
	sg = &nb->seg[nb->nseg++];
	sg->lo = lo;
	sg->hi = nb->off + nb->n;
	sg->maxend = INT64_MIN;
	for (i = lo; i < sg->hi; i++) {
		w = i - nb->off;
		if (v[w].ts + v[w].dur > sg->maxend)
			sg->maxend = v[w].ts + v[w].dur;
		p = nb->parent[w];
		q = p - (int64_t)nb->off;
		if (p >= 0 && nb->del[q]) {
			p = nb->parent[w] = nb->parent[q];
			q = p - (int64_t)nb->off;
		}
		if (p >= 0 && v[q].name == v[w].name && nb->nchild[q] == 1) {
			nb->del[w] = 1;
			nb->nchild[q] = nb->nchild[w];
		}
		/* What a costed call runs is in its cost: layer_norm's native_. */
		if (p >= 0 && nb->shape[q] != NOSHAPE)
			nb->shape[w] = INCOST;
		if (nb->del[w])
			continue;
		nb->mark[w] = (uint8_t)(nm[v[w].name].mark != PH_NONE ?
		    nm[v[w].name].mark : p >= 0 ? nb->mark[q] : PH_NONE);
		if (p >= 0)
			nb->childsum[q] += us_end(&v[w]) - us_start(&v[w]);
	}
}

/* The thread's next runtime call, or NULL after its last. */
static const struct rev *
rt_here(const struct nest *nb)
{
	return nb->rt != NULL && nb->rt->thr == nb->thr ? nb->rt : NULL;
}

/*
 * A synchronise, copy or allocator call to the operator (or Python frame)
 * innermost at its start: what issued it, for the rule that names it.
 */
static void
add_caller(struct oprank *r, struct agg *a, const struct rev *c,
    const struct name *caller)
{
	struct strbuf slice = { NULL, 0, 0 };

	op_caller_key(&r->callerkey, op_lslice_name(r, c->slice, &slice),
	    caller != NULL ? op_clsname[caller->cls] : "",
	    caller != NULL ? caller->s : "");
	sb_free(&slice);
	op_caller_add(a, r->callerkey.s, r->callerkey.len,
	    &(struct rtsum){ 1, c->dur, c->dur });
}

/* A frame of PyTorch's own code or a built-in, which the user did not write. */
static int
torch_frame(const char *s)
{
	const char *p = strstr(s, "torch/");

	return op_prefix(s, "<built-in") ||
	    (p != NULL && (p == s || p[-1] == '/'));
}

/*
 * Of the Python frames open at a call, the innermost one of the user's
 * code, else the innermost: torch.cuda.synchronize() is issued by the
 * line that calls it, not by its own frame.  NULL when none is open.
 */
static const struct name *
frame_caller(const struct oprank *r, const struct nest *nb)
{
	size_t i;

	for (i = nb->nps; i > 0; i--)
		if (!torch_frame(r->names.v[nb->ps[i - 1].name].s))
			return &r->names.v[nb->ps[i - 1].name];
	return nb->nps > 0 ? &r->names.v[nb->ps[nb->nps - 1].name] : NULL;
}

/*
 * Runtime calls in time order to the innermost operator open at their
 * start: every call before until, or all when last.  Then finishes the
 * trees that no call left can land in.
 */
static void
nest_runtime(struct oprank *r, struct nest *nb, int bwd, int64_t until,
    int last)
{
	struct trace *t = &r->t;
	struct agg *a = &t->a;
	const struct name *nm = r->names.v;
	const struct rev *c;
	struct cev *v = nb->v;
	size_t hi = nb->off + nb->n, w, o;
	int ph;

	for (; (c = rt_here(nb)) != NULL && (last || c->ts < until);
	    nb->rt = spill_next(&nb->rc)) {
		/*
		 * Operators of finished trees all ended before this call:
		 * the stack would only push and pop them again.
		 */
		if (nb->next < nb->off)
			nb->next = nb->off;
		for (; nb->next < hi && v[nb->next - nb->off].ts <= c->ts;
		    nb->next++) {
			w = nb->next - nb->off;
			/* GPU work is the operator's, not the call's. */
			if (nb->del[w] || r->names.v[v[w].name].cls == C_RT)
				continue;
			while (nb->nrs > 0 && nb->rs[nb->nrs - 1].end < v[w].ts)
				nb->nrs--;
			nb->rs = op_grow(nb->rs, &nb->caprs, nb->nrs,
			    sizeof(*nb->rs));
			nb->rs[nb->nrs].end = v[w].ts + v[w].dur;
			nb->rs[nb->nrs++].i = nb->next;
		}
		/* Such an operator (i < off) ended before c too. */
		while (nb->nrs > 0 && (nb->rs[nb->nrs - 1].end < c->ts ||
		    nb->rs[nb->nrs - 1].i < nb->off))
			nb->nrs--;
		if (c->slice != NO_CALLER && nb->nrs > 0)
			add_caller(r, a, c,
			    &nm[v[nb->rs[nb->nrs - 1].i - nb->off].name]);
		else if (c->slice != NO_CALLER && nb->norphan < MAXORPHANS) {
			/* To the Python frame open then, in op_nest_py(). */
			nb->orphan = op_grow(nb->orphan, &nb->caporphan,
			    nb->norphan, sizeof(*nb->orphan));
			nb->orphan[nb->norphan++] = *c;
		} else if (c->slice != NO_CALLER)
			add_caller(r, a, c, NULL);
		if (c->end == INT64_MIN)
			continue;
		if (nb->nrs > 0) {
			o = nb->rs[nb->nrs - 1].i - nb->off;
			nb->gdir[o] += c->sum;
			ph = nb->mark[o] != PH_NONE ? nb->mark[o] :
			    bwd ? PH_BWD : nm[v[o].name].cls == C_OP ?
			    PH_FWD : PH_OTHER;
		} else
			ph = bwd ? PH_BWD : PH_OTHER;
		spill_add(&t->links, &(struct link){ c->corr, nb->order++,
		    ph });
		a->ph_gpu[PH_COMM] += c->comm;
		a->ph_gpu[ph] += c->sum - c->comm;
		/* A step ends at the last GPU work that calls in it launched. */
		op_step_touch(t, c->ts, c->end, 0);
	}
	while (nb->nseg > 0 && ((c = rt_here(nb)) == NULL ||
	    c->ts > nb->seg[0].maxend))
		nest_finish(r, nb, bwd);
}

/*
 * A costed call, done: its kernels' time and its self time (µs) to its
 * shape, its FLOPs to the step it started in (op_steps_resolve()).
 */
static void
shaped(struct trace *t, uint32_t i, int64_t ts, int64_t gpu, int64_t self)
{
	struct shsum *sh = t->shv[i];

	sh->count++;
	sh->gpu += gpu;
	sh->self += self;
	op_step_touch(t, ts, INT64_MIN, sh->flops);
}

/* Adds the window's first tree to the trace and drops it from the window. */
/*
 * Each operator's self time goes to the ledger as the stretches its
 * operator children leave, in exact ns: the instants an operator runs
 * itself, not a callee, are its family's.  Annotations hold none.
 */
static void
ledger_self(struct oprank *r, struct nest *nb, const struct seg *sg)
{
	const struct name *nm = r->names.v;
	const struct cev *v = nb->v;
	size_t i, w, q;
	int64_t p, e;

	for (i = sg->lo; i < sg->hi; i++) {
		w = i - nb->off;
		if (nb->del[w] || nm[v[w].name].cls != C_OP)
			continue;
		nb->lcur[w] = v[w].ts;
		for (p = nb->parent[w]; p >= 0 && nm[v[p - (int64_t)nb->off]
		    .name].cls != C_OP; p = nb->parent[p - (int64_t)nb->off])
			;
		if (p < 0)
			continue;
		q = (size_t)p - nb->off;
		op_ledge(&r->t, op_lslice_op(r, v[q].name), v[q].name,
		    op_lthr(v[q].thr), nb->lcur[q], v[w].ts);
		e = v[w].ts + v[w].dur;
		if (e > nb->lcur[q])
			nb->lcur[q] = e;
	}
	for (i = sg->lo; i < sg->hi; i++) {
		w = i - nb->off;
		if (!nb->del[w] && nm[v[w].name].cls == C_OP)
			op_ledge(&r->t, op_lslice_op(r, v[w].name),
			    v[w].name, op_lthr(v[w].thr), nb->lcur[w],
			    v[w].ts + v[w].dur);
	}
}

static void
nest_finish(struct oprank *r, struct nest *nb, int bwd)
{
	struct agg *a = &r->t.a;
	const struct name *nm = r->names.v;
	const struct seg sg = nb->seg[0];
	struct cev *v = nb->v;
	size_t i, w, n;
	int64_t self, s, d;
	int ph;

	for (i = sg.hi; i-- > sg.lo;) {
		w = i - nb->off;
		if (nb->del[w])
			continue;
		nb->gsub[w] += nb->gdir[w];
		if (nb->parent[w] >= 0)
			nb->gsub[nb->parent[w] - (int64_t)nb->off] += nb->gsub[w];
	}
	ledger_self(r, nb, &sg);
	for (i = sg.lo; i < sg.hi; i++) {
		w = i - nb->off;
		if (nb->del[w])
			continue;
		s = us_start(&v[w]);
		d = us_end(&v[w]) - s;
		nb->count++;
		self = d - nb->childsum[w];
		op_stat_add(&a->st[v[w].name], d, self);
		a->st[v[w].name].gpu_self += nb->gdir[w];
		a->st[v[w].name].gpu_total += nb->gsub[w];
		ph = nb->mark[w] != PH_NONE ? nb->mark[w] : bwd ? PH_BWD :
		    nm[v[w].name].cls == C_OP ? PH_FWD : PH_OTHER;
		a->ph_self[ph] += self;
		if (nb->shape[w] < INCOST)
			shaped(&r->t, nb->shape[w], v[w].ts, nb->gsub[w],
			    self);
		if (ph == r->phase) {
			struct stat *ps = &a->pst[v[w].name];

			op_stat_add(ps, d, self);
			ps->gpu_self += nb->gdir[w];
			ps->gpu_total += nb->gsub[w];
		}
		if (nb->open && s <= nb->be) {
			if (s + d > nb->be)
				nb->be = s + d;
		} else {
			if (nb->open)
				nb->busy += nb->be - nb->bs;
			nb->bs = s;
			nb->be = s + d;
			nb->open = 1;
		}
	}
	n = sg.hi - nb->off;
	nb->n -= n;
	memmove(nb->v, nb->v + n, nb->n * sizeof(*nb->v));
	memmove(nb->parent, nb->parent + n, nb->n * sizeof(*nb->parent));
	memmove(nb->nchild, nb->nchild + n, nb->n * sizeof(*nb->nchild));
	memmove(nb->del, nb->del + n, nb->n * sizeof(*nb->del));
	memmove(nb->mark, nb->mark + n, nb->n * sizeof(*nb->mark));
	memmove(nb->childsum, nb->childsum + n, nb->n *
	    sizeof(*nb->childsum));
	memmove(nb->gdir, nb->gdir + n, nb->n * sizeof(*nb->gdir));
	memmove(nb->gsub, nb->gsub + n, nb->n * sizeof(*nb->gsub));
	memmove(nb->shape, nb->shape + n, nb->n * sizeof(*nb->shape));
	memmove(nb->lcur, nb->lcur + n, nb->n * sizeof(*nb->lcur));
	nb->off = sg.hi;
	memmove(nb->seg, nb->seg + 1, --nb->nseg * sizeof(*nb->seg));
}

/*
 * A thread's operators: trees built as they stream in, runtime calls
 * linked, then self time and GPU time by name, phase and thread.  Reads
 * its events from nb's cursors, which op_nest_open() opened.
 */
void
op_nest_cpu(struct oprank *r, struct nest *nb, const struct thr *th)
{
	const struct cev *e, *top;
	struct thsum *ts;
	size_t lo = 0;
	int64_t s, en;
	int bwd;

	bwd = th->name != NULL && strstr(th->name, "autograd") != NULL;
	nb->off = nb->n = nb->sp = nb->nrs = nb->nseg = nb->next = 0;
	nb->bs = nb->be = nb->busy = nb->count = 0;
	nb->open = 0;
	nb->thr = th->id;
	nb->order = th->sorted << 32;
	for (; (e = nb->op) != NULL && e->thr == th->id;
	    nb->op = spill_next(&nb->oc)) {
		s = us_start(e);
		en = us_end(e);
		while (nb->sp > 0) {
			top = &nb->v[nb->stack[nb->sp - 1] - nb->off];
			if (s < us_end(top) && en <= us_end(top))
				break;
			nb->sp--;
		}
		/* A root: the tree before it is whole. */
		if (nb->sp == 0 && nb->off + nb->n > lo) {
			nest_built(r, nb, lo);
			nest_runtime(r, nb, bwd, e->ts, 0);
			lo = nb->off + nb->n;
		}
		nest_add(nb, e);
	}
	if (nb->off + nb->n > lo)
		nest_built(r, nb, lo);
	nest_runtime(r, nb, bwd, 0, 1);
	if (nb->open)
		nb->busy += nb->be - nb->bs;
	if (nb->count == 0)
		return;
	if (th->id & THR_HASHED)
		ts = op_thsum_get(&r->t.a, &th->pid, &th->tid, FOLD_THREADS,
		    SIZE_MAX);
	else
		ts = op_thsum_get(&r->t.a, &th->pid, &th->tid, th->name,
		    r->maxthr);
	op_thsum_fold(ts, &(struct thsum){ th->pid, th->tid, NULL,
	    nb->count, nb->busy, 0, 0 });
}

/* The innermost open frame ends: its time to its name. */
static void
py_pop(struct agg *a, struct nest *nb)
{
	const struct pyopen *f = &nb->ps[--nb->nps];

	op_stat_add(&a->st[f->name], f->d, (f->dur - f->childsum) / 1000);
	nb->nmodules -= (size_t)f->module;
}

/*
 * Python frames nest among themselves, with no duplicates to remove: a
 * frame's self time is known when it closes, so only open ones are kept.
 * They are a call stack, not key_averages() rows, so they nest in ns: in
 * truncated µs a callee can end after its caller and leave it a self time
 * below zero.  On the way, the calls no operator issued go to the user's
 * frame open at them, and the outermost module calls are noted as
 * iteration boundaries.
 */
void
op_nest_py(struct oprank *r, struct nest *nb, const struct thr *th)
{
	struct agg *a = &r->t.a;
	const struct cev *e;
	int64_t s, en;
	size_t o = 0;
	int module;

	nb->nps = nb->nmodules = 0;
	for (;; nb->py = spill_next(&nb->pc)) {
		if ((e = nb->py) != NULL && e->thr != th->id)
			e = NULL;
		s = e != NULL ? e->ts : 0;
		en = e != NULL ? e->ts + e->dur : 0;
		for (; o < nb->norphan && (e == NULL || nb->orphan[o].ts < s);
		    o++) {
			while (nb->nps > 0 &&
			    nb->ps[nb->nps - 1].end <= nb->orphan[o].ts)
				py_pop(a, nb);
			add_caller(r, a, &nb->orphan[o], frame_caller(r, nb));
		}
		while (nb->nps > 0 && (e == NULL ||
		    s >= nb->ps[nb->nps - 1].end ||
		    en > nb->ps[nb->nps - 1].end))
			py_pop(a, nb);
		if (e == NULL)
			break;
		if (nb->nps > 0)
			nb->ps[nb->nps - 1].childsum += e->dur;
		module = op_prefix(r->names.v[e->name].s, "nn.Module: ");
		if (module && nb->nmodules == 0) {
			spill_add(&r->t.bounds, &(struct bound){ e->ts, B_MOD,
			    e->name, th->id, e->dur });
			r->t.nbound[B_MOD]++;
		}
		if (module && nb->nmodules == 0)
			op_nest_chain(&r->t, nb->ps, nb->nps);
		nb->nmodules += (size_t)module;
		nb->ps = op_grow(nb->ps, &nb->capps, nb->nps, sizeof(*nb->ps));
		nb->ps[nb->nps++] = (struct pyopen){ en, e->dur, 0,
		    us_end(e) - us_start(e), e->name, module };
	}
	nb->norphan = 0;
}
