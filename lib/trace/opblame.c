/*
 * opblame: who spends each slice of the time ledger.  While op_ledger()
 * sweeps the ledger's edges, the intervals open at an instant are kept
 * here in the order they opened, the host's apart from the GPU's and the
 * profiler's own records.  A slice's holder is the last one of it opened;
 * below the holder, on its thread, lie the operator it runs in and the
 * Python frames that called it.  The user's innermost frame is the code
 * that spends the time, and the library frame it called through is kept
 * beside it.  What runs under the profiler's frames is the profiler's;
 * what the frames around the model's step do outside any operator (the
 * loop that drives it and times it) is the harness's: each has a slice
 * of its own, so that no advice to the model's author counts it.
 */
#include <stdlib.h>
#include <string.h>

#include "base/err.h"
#include "base/xalloc.h"
#include "trace/opbase.h"
#include "trace/opcore.h"
#include "trace/opfield.h"
#include "trace/opledger.h"
#include "trace/opnames.h"
#include "trace/opnest.h"
#include "trace/opstep.h"
#include "trace/opsums.h"

/*
 * A real call stack is a few dozen deep (a hundred, all threads together,
 * in the deepest trace at hand).  A trace whose intervals never close, or
 * cross, could make the stack as long as the trace and each search along
 * it as long: the stack keeps its last MAXHOLD intervals and a search
 * looks MAXSCAN deep, so that the sweep stays linear.
 */
#define MAXHOLD		65536
#define MAXSCAN		256

const char *const op_whoname[NWHO] = { "model", "harness", "profiler" };

/* An interval open in the sweep: its slice, holder and thread. */
struct hold {
	int64_t		start;
	uint32_t	slice, who, thr;
};

struct holders {
	struct hold	*hs, *gs;	/* the host's; the GPU's and others */
	size_t		 nhs, caphs, ngs, capgs;
	uint8_t		*harness;	/* by name id: frames around the step */
	uint32_t	*stamp;		/* by name id: counted this interval */
	uint32_t	 gen;
	int64_t		 hostend;	/* the last step's host end */
	uint32_t	 pyslice;
	int		 frames;	/* the trace has Python frames */
	/* The instant's holder, op_blame_resolve()'s for op_blame_commit(). */
	struct bkey	 k;
	ssize_t		 at;		/* in hs; -1: none or not the host's */
	int		 atpy;
	/* The last contributor added to and its entry, which repeat. */
	struct bkey	 last;
	struct strent	*lastent;
};

static int
is_py(const struct holders *h, uint32_t s)
{
	return s == h->pyslice;
}

/* The slices an operator or an annotation that marks a phase holds. */
static int
is_op(const struct holders *h, uint32_t s)
{
	return (s >= L_FAMILY && s < h->pyslice) || s == L_DATA || s == L_OPT;
}

/* What the harness may hold: Python time and calls outside operators. */
static int
harness_slice(const struct holders *h, uint32_t s)
{
	return is_py(h, s) || (s >= L_SYNC && s <= L_RUNTIME);
}

/*
 * The sweep's holders of trace t.  The frames around every outermost
 * module call but the last (op_nest_chain()) are the harness's; the
 * steps are in the rank's time, origin ahead of the trace's.
 */
struct holders *
op_holders_new(const struct oprank *r, struct trace *t, int64_t origin)
{
	struct holders *h = xcalloc(1, sizeof(*h));
	struct spillcur c;
	const struct step *st;
	size_t i;

	h->harness = xcalloc(r->names.n + 1, sizeof(*h->harness));
	h->stamp = xcalloc(r->names.n + 1, sizeof(*h->stamp));
	for (i = 0; t->chained && i + 1 < t->nchain; i++)
		h->harness[t->chain[i]] = 1;
	/* Without steps, no call is after them. */
	h->hostend = t->a.nsteps > 0 ? INT64_MIN : INT64_MAX;
	op_steps_open(&c, &t->a);
	while ((st = spill_next(&c)) != NULL)
		if (st->cpu_end - origin > h->hostend)
			h->hostend = st->cpu_end - origin;
	spillcur_free(&c);
	h->pyslice = op_lslice_py(r);
	h->frames = t->a.pyframes > 0;
	return h;
}

void
op_holders_free(struct holders *h)
{
	if (h == NULL)
		return;
	free(h->hs);
	free(h->gs);
	free(h->harness);
	free(h->stamp);
	free(h);
}

/* The last opened interval that e closes in v, or -1. */
static ssize_t
find_open(const struct hold *v, size_t n, const struct ledge *e)
{
	size_t i;

	for (i = n; i > 0 && i + MAXSCAN > n; i--)
		if (v[i - 1].slice == e->slice && v[i - 1].who == e->who &&
		    v[i - 1].thr == e->thr)
			return (ssize_t)(i - 1);
	return -1;
}

/* An edge of the sweep: its interval opens, or the last like it closes. */
void
op_holders_edge(struct holders *h, const struct ledge *e)
{
	struct hold **v = e->thr == LTHR_NONE ? &h->gs : &h->hs;
	size_t *n = e->thr == LTHR_NONE ? &h->ngs : &h->nhs;
	size_t *cap = e->thr == LTHR_NONE ? &h->capgs : &h->caphs;
	ssize_t i;

	if (e->delta > 0) {
		if (*n == MAXHOLD) {
			/* The oldest quarter goes, unresolved from now on. */
			memmove(*v, *v + MAXHOLD / 4, (MAXHOLD - MAXHOLD / 4) *
			    sizeof(**v));
			*n -= MAXHOLD / 4;
		}
		*v = op_grow(*v, cap, *n, sizeof(**v));
		(*v)[(*n)++] = (struct hold){ e->t, e->slice, e->who, e->thr };
		return;
	}
	if ((i = find_open(*v, *n, e)) >= 0) {
		memmove(*v + i, *v + i + 1, (*n - (size_t)i - 1) *
		    sizeof(**v));
		(*n)--;
	}
}

/* The last opened of slice s in v, or -1. */
static ssize_t
holder(const struct hold *v, size_t n, uint32_t s)
{
	size_t i;

	for (i = n; i > 0 && i + MAXSCAN > n; i--)
		if (v[i - 1].slice == s)
			return (ssize_t)(i - 1);
	return -1;
}

/* The entry of contributor k in a's blame, made when new. */
static struct strent *
blame_entry(struct agg *a, const struct bkey *k)
{
	struct strent *e;
	struct bkey fold;

	if ((e = strmap_get(&a->blame, (const char *)k, sizeof(*k))) == NULL &&
	    a->maxblame > 0 && a->blame.count >= a->maxblame) {
		/*
		 * Past the bound, what is new is the slice's and no one's.
		 * Names fold past theirs first: only call sites beyond
		 * count come here.
		 */
		fold = (struct bkey){ k->slice, NO_WHO, NO_WHO, NO_WHO, NO_WHO,
		    k->who };
		k = &fold;
	}
	if (e == NULL)
		e = strmap_put(&a->blame, (const char *)k, sizeof(*k));
	return e;
}

void
op_blame_add(struct agg *a, const struct bkey *k, int64_t ns)
{
	blame_entry(a, k)->n += (uint64_t)ns;
}

/*
 * As op_blame_add(), through the sweep's last entry when k is its key:
 * one instant's holder holds the next ones too, most of the time.  The
 * entry stays valid, as every new key the sweep puts comes through here.
 */
static void
sweep_add(struct holders *h, struct agg *a, const struct bkey *k, int64_t ns)
{
	if (h->lastent == NULL || memcmp(&h->last, k, sizeof(*k)) != 0) {
		h->lastent = blame_entry(a, k);
		h->last = *k;
	}
	h->lastent->n += (uint64_t)ns;
}

/* The user's frames open on the holder's thread, each once, get ns. */
static void
frames_add(struct agg *a, struct holders *h, const struct oprank *r,
    size_t top, uint32_t thr, int py, int64_t ns)
{
	struct strent *e;
	struct fsum *f;
	int64_t depth = 0;
	size_t i;

	if (!h->frames)
		return;
	if (++h->gen == 0) {
		memset(h->stamp, 0, (r->names.n + 1) * sizeof(*h->stamp));
		h->gen = 1;
	}
	for (i = top >= MAXSCAN ? top - MAXSCAN + 1 : 0; i <= top; i++) {
		const struct hold *o = &h->hs[i];

		if (o->thr != thr || !is_py(h, o->slice))
			continue;
		depth++;
		if (r->names.v[o->who].pyk != PYK_USER ||
		    h->stamp[o->who] == h->gen)
			continue;
		h->stamp[o->who] = h->gen;
		e = strmap_put(&a->frames, (const char *)&o->who,
		    sizeof(o->who));
		if ((f = e->val) == NULL) {
			f = e->val = xcalloc(1, sizeof(*f));
			f->depth = depth;
		}
		if (depth < f->depth)
			f->depth = depth;
		if (py)
			f->py += ns;
		else
			f->work += ns;
	}
}

/*
 * What holds hs[i], an interval of slice s: the operator it runs in, the
 * user's frame below it and the library frame between, and who spends
 * it, into k (whose slice and call or op are set).  Returns 1 when the
 * thread had Python frames open there.
 */
static int
resolve(const struct oprank *r, const struct holders *h, size_t i,
    uint32_t s, struct bkey *k)
{
	const struct name *nm = r->names.v;
	const struct hold *o = &h->hs[i];
	size_t j;
	int prof = 0, frames = 0;

	for (j = is_py(h, s) ? i + 1 : i; j > 0 && j + MAXSCAN > i; j--) {
		const struct hold *p = &h->hs[j - 1];

		if (p->thr != o->thr)
			continue;
		if (is_op(h, p->slice)) {
			if (k->op == NO_WHO)
				k->op = p->who;
			/* Without frames, the operator is all there is. */
			if (!h->frames)
				break;
			continue;
		}
		if (!is_py(h, p->slice))
			continue;
		frames = 1;
		if (nm[p->who].pyk == PYK_USER) {
			k->frame = p->who;
			break;
		}
		if (nm[p->who].pyk == PYK_PROF)
			prof = 1;
		else
			k->via = p->who;
	}
	k->who = W_MODEL;
	if (prof || s == L_PROFILER)
		k->who = W_PROFILER;
	else if (k->op == NO_WHO && k->frame != NO_WHO &&
	    h->harness[k->frame] && harness_slice(h, s))
		k->who = W_HARNESS;
	/* Without frames, a call outside the steps' host work: stopping. */
	else if (k->op == NO_WHO && !frames && !is_py(h, s) &&
	    o->start >= h->hostend)
		k->who = W_PROFILER;
	return frames;
}

/*
 * Who holds the instant of slice s: its holder, the operator and the
 * user's frame below it, and who spends it, kept for op_blame_commit().
 * Returns the slice the time is the ledger's: s, or the profiler's or
 * the harness's.
 */
uint32_t
op_blame_resolve(struct oprank *r, struct holders *h, uint32_t s)
{
	struct bkey *k = &h->k;
	ssize_t i;

	*k = (struct bkey){ s, NO_WHO, NO_WHO, NO_WHO, NO_WHO, W_MODEL };
	h->at = -1;
	if (s < L_GPU_END || (i = holder(h->hs, h->nhs, s)) < 0) {
		if ((i = holder(h->gs, h->ngs, s)) >= 0)
			k->call = h->gs[i].who;
		if (s == L_PROFILER)
			k->who = W_PROFILER;
		return s;
	}
	if (is_op(h, s))
		k->op = h->hs[i].who;
	else if (!is_py(h, s))
		k->call = h->hs[i].who;
	resolve(r, h, (size_t)i, s, k);
	if (k->who == W_PROFILER)
		k->slice = L_PROFILER;
	else if (k->who == W_HARNESS)
		k->slice = L_HARNESS;
	else {
		h->at = i;
		h->atpy = is_py(h, s);
	}
	return k->slice;
}

/*
 * The instant op_blame_resolve() looked at holds ns of the windows: to
 * its holder, and to the user's frames open under it.
 */
void
op_blame_commit(struct oprank *r, struct holders *h, int64_t ns)
{
	struct agg *a = &r->t.a;

	if (h->at >= 0)
		frames_add(a, h, r, (size_t)h->at, h->hs[h->at].thr, h->atpy,
		    ns);
	sweep_add(h, a, &h->k, ns);
}

/*
 * A synchronise, copy or allocator call ends at e: its whole time to what
 * issued it, whether the GPU's work hid the wait or not, when it overlaps
 * a window: the last one written, which ends at prevend, or the next,
 * which starts at start.
 */
void
op_blame_call(struct oprank *r, struct holders *h, const struct ledge *e,
    int64_t prevend, int64_t start)
{
	struct bkey k = { e->slice, NO_WHO, NO_WHO, NO_WHO, e->who, W_MODEL };
	const struct hold *o;
	ssize_t i;

	if ((i = find_open(h->hs, h->nhs, e)) < 0)
		return;
	o = &h->hs[i];
	if (o->start >= prevend && e->t <= start)
		return;
	resolve(r, h, (size_t)i, e->slice, &k);
	op_rtsum_fold(strmap_put(&r->t.a.issuers, (const char *)&k,
	    sizeof(k)), &(struct rtsum){ 1, e->t - o->start, e->t - o->start });
}

/*
 * The frames around an outermost module call, outermost first: the frames
 * common to every such call so far stay.  The model's step runs in the
 * last of them; those before drive it.
 */
void
op_nest_chain(struct trace *t, const struct pyopen *ps, size_t n)
{
	size_t i;

	if (!t->chained) {
		t->chain = xreallocarray(t->chain, n + 1, sizeof(*t->chain));
		for (i = 0; i < n; i++)
			t->chain[i] = ps[i].name;
		t->nchain = n;
		t->chained = 1;
		return;
	}
	for (i = 0; i < t->nchain && i < n && t->chain[i] == ps[i].name; i++)
		;
	t->nchain = i;
}

void
op_blame_merge(struct agg *dst, const struct agg *src)
{
	struct strent **ent;
	struct strent *e;
	struct fsum *f, *g;
	size_t i;

	ent = strmap_sorted(&src->blame);
	for (i = 0; i < src->blame.count; i++)
		op_blame_add(dst, (const struct bkey *)ent[i]->key,
		    (int64_t)ent[i]->n);
	free(ent);
	ent = strmap_sorted(&src->frames);
	for (i = 0; i < src->frames.count; i++) {
		g = ent[i]->val;
		e = strmap_put(&dst->frames, ent[i]->key, ent[i]->len);
		if ((f = e->val) == NULL) {
			f = e->val = xcalloc(1, sizeof(*f));
			f->depth = g->depth;
		}
		f->py = op_sat_add(f->py, g->py);
		f->work = op_sat_add(f->work, g->work);
		if (g->depth < f->depth)
			f->depth = g->depth;
	}
	free(ent);
	ent = strmap_sorted(&src->issuers);
	for (i = 0; i < src->issuers.count; i++)
		op_rtsum_fold(strmap_put(&dst->issuers, ent[i]->key,
		    ent[i]->len), ent[i]->val);
	free(ent);
	dst->pyframes = op_sat_add(dst->pyframes, src->pyframes);
}

void
op_blame_free(struct agg *a)
{
	strmap_free(&a->blame, NULL);
	strmap_free(&a->frames, free);
	strmap_free(&a->issuers, free);
}

/*
 * A contributor as shown: its key and names (NULL for none), the via that
 * holds most of its time, its time.  Names, not ids, order what is
 * written: ids depend on the order names were first seen.
 */
struct contrib {
	struct bkey	 k;
	const char	*frame, *op, *call, *via;
	int64_t		 ns, via_ns;
};

static const char *
name_of(const struct oprank *r, uint32_t id)
{
	return id == NO_WHO ? NULL : r->names.v[id].s;
}

/* Strings, none first. */
static int
cmpstr(const char *a, const char *b)
{
	if (a == NULL || b == NULL)
		return (a != NULL) - (b != NULL);
	return strcmp(a, b);
}

/* By frame, operator, call and who, then via: the via to merge over. */
static int
cmpkey(const void *a, const void *b)
{
	const struct contrib *x = a, *y = b;
	int c;

	if ((c = cmpstr(x->frame, y->frame)) != 0 ||
	    (c = cmpstr(x->op, y->op)) != 0 ||
	    (c = cmpstr(x->call, y->call)) != 0)
		return c;
	if (x->k.who != y->k.who)
		return x->k.who < y->k.who ? -1 : 1;
	return cmpstr(x->via, y->via);
}

/* Contributors by time, most first, then by key. */
static int
cmpcontrib(const void *a, const void *b)
{
	const struct contrib *x = a, *y = b;

	if (x->ns != y->ns)
		return x->ns > y->ns ? -1 : 1;
	return cmpkey(a, b);
}

/* The contributors of map m in slice s (NO_WHO: all), named; how many. */
static size_t
named(const struct oprank *r, const struct strmap *m, uint32_t slice,
    struct contrib **out)
{
	struct strent **ent = strmap_sorted(m);
	struct contrib *v = NULL;
	size_t i, n = 0, cap = 0;

	for (i = 0; i < m->count; i++) {
		const struct bkey *k = (const struct bkey *)ent[i]->key;

		if (slice != NO_WHO && k->slice != slice)
			continue;
		v = op_grow(v, &cap, n, sizeof(*v));
		v[n].k = *k;
		v[n].frame = name_of(r, k->frame);
		v[n].op = name_of(r, k->op);
		v[n].call = name_of(r, k->call);
		v[n].via = name_of(r, k->via);
		v[n].ns = v[n].via_ns = (int64_t)ent[i]->n;
		v[n].k.slice = k->slice;
		n++;
	}
	free(ent);
	*out = v;
	return n;
}

/*
 * The slice's contributors, the ones that differ only in the library
 * frame they called through as one, under the via that holds the most of
 * their time.  Returns how many; *time is the slice's.
 */
static size_t
contributors(const struct oprank *r, const struct agg *a, uint32_t slice,
    struct contrib **out, int64_t *time)
{
	struct contrib *v;
	size_t i, n, m = 0;

	n = named(r, &a->blame, slice, &v);
	*time = 0;
	for (i = 0; i < n; i++)
		*time += v[i].ns;
	xqsort(v, n, sizeof(*v), cmpkey);
	for (i = 0; i < n; i++) {
		if (m > 0 && v[m - 1].k.frame == v[i].k.frame &&
		    v[m - 1].k.op == v[i].k.op && v[m - 1].k.call == v[i].k.call &&
		    v[m - 1].k.who == v[i].k.who) {
			v[m - 1].ns += v[i].ns;
			/* Sorted by via: a tie keeps the first. */
			if (v[i].via_ns > v[m - 1].via_ns) {
				v[m - 1].via_ns = v[i].via_ns;
				v[m - 1].k.via = v[i].k.via;
				v[m - 1].via = v[i].via;
			}
			continue;
		}
		v[m++] = v[i];
	}
	xqsort(v, m, sizeof(*v), cmpcontrib);
	*out = v;
	return m;
}

/* A user frame's sums and name, to sort by. */
struct framerow {
	const struct fsum	*f;
	const char		*name;
};

/* Frames by Python time, most first, outer first, then by name. */
static int
cmpframe(const void *a, const void *b)
{
	const struct framerow *x = a, *y = b;

	if (x->f->py != y->f->py)
		return x->f->py > y->f->py ? -1 : 1;
	if (x->f->depth != y->f->depth)
		return x->f->depth < y->f->depth ? -1 : 1;
	return strcmp(x->name, y->name);
}

static void
put_name_or_null(struct oprank *r, struct jw *w, const char *key,
    uint32_t id)
{
	jw_ckey(w, key);
	jw_cstring_or_null(w, id == NO_WHO ? NULL : r->names.v[id].s);
}

static double
pct(int64_t part, int64_t whole)
{
	return whole > 0 ? op_round3(100.0 * (double)part / (double)whole) : 0;
}

/*
 * The frame under which the Python slice's time is spent: down the
 * frames that hold half of it or more, outer first, the first whose
 * heaviest callee holds less than nine tenths of its time (the body
 * that spreads the work over its calls), or the innermost of them.
 */
static void
put_under(struct oprank *r, struct jw *w, const struct agg *a, int64_t time,
    int64_t wall)
{
	struct strent **ent = strmap_sorted(&a->frames);
	struct framerow *v;
	const struct framerow *f = NULL;
	size_t i, n = a->frames.count;
	uint32_t id;

	v = xreallocarray(NULL, n + 1, sizeof(*v));
	for (i = 0; i < n; i++) {
		memcpy(&id, ent[i]->key, sizeof(id));
		v[i].f = ent[i]->val;
		v[i].name = r->names.v[id].s;
	}
	free(ent);
	xqsort(v, n, sizeof(*v), cmpframe);
	for (i = 0; i < n; i++) {
		if (2 * v[i].f->py < time)
			break;
		if (f != NULL && 10 * v[i].f->py < 9 * f->f->py)
			break;
		f = &v[i];
	}
	if (f != NULL) {
		jw_key(w, "under");
		jw_begin_object(w);
		jw_key(w, "frame");
		jw_cstring(w, f->name);
		jw_key(w, "time");
		jw_us(w, f->f->py);
		jw_key(w, "pct");
		jw_double(w, pct(f->f->py, wall));
		jw_key(w, "work");
		jw_us(w, f->f->work);
		jw_end_object(w);
	}
	free(v);
}

/*
 * Of a ledger_total's slice: its top contributors, and for the Python
 * slice the frame under which it is spent; time is the slice's.
 */
void
op_put_blame(struct oprank *r, struct jw *w, const struct agg *a,
    uint32_t slice, int64_t wall)
{
	struct contrib *v;
	size_t i, n;
	int64_t time;

	n = contributors(r, a, slice, &v, &time);
	jw_key(w, "top");
	jw_begin_array(w);
	for (i = 0; i < n && i < TOP_BLAME; i++) {
		jw_begin_object(w);
		put_name_or_null(r, w, "frame", v[i].k.frame);
		put_name_or_null(r, w, "via", v[i].k.via);
		put_name_or_null(r, w, "op", v[i].k.op);
		put_name_or_null(r, w, "call", v[i].k.call);
		jw_key(w, "who");
		jw_cstring(w, op_whoname[v[i].k.who]);
		jw_key(w, "time");
		jw_us(w, v[i].ns);
		jw_key(w, "pct");
		jw_double(w, pct(v[i].ns, wall));
		jw_end_object(w);
	}
	jw_end_array(w);
	if (slice == op_lslice_py(r) && a->frames.count > 0)
		put_under(r, w, a, time, wall);
	free(v);
}

/* Issuers by slice, then by total time, most first, then by names. */
static int
cmpissuer(const void *a, const void *b)
{
	const struct contrib *x = a, *y = b;

	if (x->k.slice != y->k.slice)
		return x->k.slice < y->k.slice ? -1 : 1;
	return cmpcontrib(a, b);
}

/*
 * runtime_issuer records: of each slice whose calls are kept, the calls
 * that take the most time by what issued them, whole.
 */
void
op_put_issuers(struct oprank *r, struct jw *w, const struct agg *a)
{
	struct strbuf sb = { NULL, 0, 0 };
	struct contrib *v;
	size_t i, n, k = 0;
	uint32_t slice = NO_WHO;

	n = named(r, &a->issuers, NO_WHO, &v);
	for (i = 0; i < n; i++)
		v[i].ns = ((const struct rtsum *)strmap_get(&a->issuers,
		    (const char *)&v[i].k, sizeof(v[i].k))->val)->total;
	xqsort(v, n, sizeof(*v), cmpissuer);
	for (i = 0; i < n; i++) {
		const struct rtsum *rs = strmap_get(&a->issuers,
		    (const char *)&v[i].k, sizeof(v[i].k))->val;

		if (v[i].k.slice != slice) {
			slice = v[i].k.slice;
			k = 0;
		}
		if (k++ >= TOP_BLAME)
			continue;
		jw_record(w, "runtime_issuer");
		op_put_rank(w, a->rank);
		jw_key(w, "slice");
		jw_cstring(w, op_lslice_name(r, slice, &sb));
		put_name_or_null(r, w, "call", v[i].k.call);
		put_name_or_null(r, w, "frame", v[i].k.frame);
		put_name_or_null(r, w, "via", v[i].k.via);
		put_name_or_null(r, w, "op", v[i].k.op);
		jw_key(w, "who");
		jw_cstring(w, op_whoname[v[i].k.who]);
		opf_put_final(w, &op_rtsum_fields, rs);
		jw_end(w);
	}
	free(v);
	sb_free(&sb);
}

/* A name with its class, as partial_id() reads it: ["python", "f.py(1): g"]. */
static void
put_partial_id(struct oprank *r, struct jw *w, const char *key, uint32_t id)
{
	jw_ckey(w, key);
	if (id == NO_WHO) {
		jw_null(w);
		return;
	}
	jw_begin_array(w);
	jw_cstring(w, op_clsname[r->names.v[id].cls]);
	jw_cstring(w, r->names.v[id].s);
	jw_end_array(w);
}

/* A partial's rank and key, as partial_key() reads them. */
static void
put_partial_key(struct oprank *r, struct jw *w, const struct agg *a,
    const struct bkey *k, struct strbuf *sb)
{
	op_put_rank(w, a->rank);
	jw_key(w, "slice");
	jw_cstring(w, op_lslice_name(r, k->slice, sb));
	put_partial_id(r, w, "frame", k->frame);
	put_partial_id(r, w, "via", k->via);
	put_partial_id(r, w, "op", k->op);
	put_partial_id(r, w, "call", k->call);
	jw_key(w, "who");
	jw_cstring(w, op_whoname[k->who]);
}

/* By slice, then by names: an order that does not hang on name ids. */
static int
cmpslicekey(const void *a, const void *b)
{
	const struct contrib *x = a, *y = b;

	if (x->k.slice != y->k.slice)
		return x->k.slice < y->k.slice ? -1 : 1;
	return cmpkey(a, b);
}

/* Frames by name. */
static int
cmpframename(const void *a, const void *b)
{
	return strcmp(((const struct framerow *)a)->name,
	    ((const struct framerow *)b)->name);
}

/*
 * The partial records of who spent what (op_partial_blame, _issuer and
 * _frame), in the order of their names, so that a merged partial is the
 * partial of one run over the same inputs.
 */
size_t
op_put_blame_partials(struct oprank *r, struct jw *w, const struct agg *a)
{
	struct strbuf sb = { NULL, 0, 0 };
	struct strent **ent;
	struct contrib *v;
	struct framerow *f;
	size_t i, n, total = 0;
	uint32_t id;

	n = named(r, &a->blame, NO_WHO, &v);
	xqsort(v, n, sizeof(*v), cmpslicekey);
	for (i = 0; i < n; i++) {
		jw_record(w, "op_partial_blame");
		put_partial_key(r, w, a, &v[i].k, &sb);
		jw_key(w, "ns");
		jw_int(w, v[i].ns);
		jw_end(w);
	}
	free(v);
	total += n;
	n = named(r, &a->issuers, NO_WHO, &v);
	xqsort(v, n, sizeof(*v), cmpslicekey);
	for (i = 0; i < n; i++) {
		jw_record(w, "op_partial_issuer");
		put_partial_key(r, w, a, &v[i].k, &sb);
		opf_put(w, &op_rtsum_fields, strmap_get(&a->issuers,
		    (const char *)&v[i].k, sizeof(v[i].k))->val);
		jw_end(w);
	}
	free(v);
	total += n;
	ent = strmap_sorted(&a->frames);
	f = xreallocarray(NULL, a->frames.count + 1, sizeof(*f));
	for (i = 0; i < a->frames.count; i++) {
		memcpy(&id, ent[i]->key, sizeof(id));
		f[i].f = ent[i]->val;
		f[i].name = r->names.v[id].s;
	}
	xqsort(f, a->frames.count, sizeof(*f), cmpframename);
	for (i = 0; i < a->frames.count; i++) {
		jw_record(w, "op_partial_frame");
		op_put_rank(w, a->rank);
		jw_key(w, "frame");
		jw_begin_array(w);
		jw_cstring(w, op_clsname[C_PY]);
		jw_cstring(w, f[i].name);
		jw_end_array(w);
		jw_key(w, "py");
		jw_int(w, f[i].f->py);
		jw_key(w, "work");
		jw_int(w, f[i].f->work);
		jw_key(w, "depth");
		jw_int(w, f[i].f->depth);
		jw_end(w);
	}
	total += a->frames.count;
	free(f);
	free(ent);
	sb_free(&sb);
	return total;
}

/* A partial's ["class", "name"] or null at member key, interned. */
static int
partial_id(struct oprank *r, const char *key, uint32_t *id)
{
	const struct jdoc *d = r->doc;
	const char *cls;
	int i, c;

	*id = NO_WHO;
	if ((i = jdoc_get(d, 0, key)) < 0 || d->node[i].type == JT_NULL)
		return 0;
	if (d->node[i].type != JT_ARRAY || d->node[i].len != 2 ||
	    d->node[i + 1].type != JT_STRING ||
	    d->node[d->node[i + 1].next].type != JT_STRING)
		return jdoc_error(r->file, d, (uint32_t)i, "\"%s\" is not"
		    " null or [class, name]", key);
	cls = jdoc_str(d, (uint32_t)i + 1);
	for (c = 0; c < NCLASS && strcmp(cls, op_clsname[c]) != 0; c++)
		;
	if (c == NCLASS)
		return jdoc_error(r->file, d, (uint32_t)i + 1,
		    "unknown class: %s", cls);
	*id = op_intern(&r->names, c, jdoc_str(d, d->node[i + 1].next),
	    d->node[d->node[i + 1].next].len);
	return 0;
}

/* A partial's slice, names and who into k, as put_partial_key() wrote them. */
static int
partial_key(struct oprank *r, struct bkey *k)
{
	const struct jdoc *d = r->doc;
	const char *s;

	if (jdoc_get_str(d, 0, "slice", &s, NULL) < 0 ||
	    op_lslice_of(r, s, &k->slice) < 0)
		return jdoc_error(r->file, d, 0, "a partial's contributor lacks"
		    " a ledger slice");
	if (partial_id(r, "frame", &k->frame) < 0 ||
	    partial_id(r, "via", &k->via) < 0 ||
	    partial_id(r, "op", &k->op) < 0 ||
	    partial_id(r, "call", &k->call) < 0)
		return -1;
	if (jdoc_get_str(d, 0, "who", &s, NULL) < 0)
		return jdoc_error(r->file, d, 0, "a partial's contributor lacks"
		    " \"who\"");
	for (k->who = 0; k->who < NWHO && strcmp(s, op_whoname[k->who]) != 0;
	    k->who++)
		;
	if (k->who == NWHO)
		return jdoc_error(r->file, d, 0, "no one named \"%s\"", s);
	return 0;
}

/* An op_partial_frame record. */
static int
partial_frame(struct oprank *r, struct agg *a)
{
	const struct jdoc *d = r->doc;
	struct strent *e;
	struct fsum *f;
	int64_t py, work, depth;
	uint32_t id;

	if (partial_id(r, "frame", &id) < 0)
		return -1;
	if (id == NO_WHO || jdoc_get_i64(d, 0, "py", &py) < 0 ||
	    jdoc_get_i64(d, 0, "work", &work) < 0 ||
	    jdoc_get_i64(d, 0, "depth", &depth) < 0 || py < 0 || work < 0 ||
	    depth < 0)
		return jdoc_error(r->file, d, 0, "\"op_partial_frame\" needs a"
		    " frame and the integers \"py\", \"work\" and \"depth\","
		    " none negative");
	e = strmap_put(&a->frames, (const char *)&id, sizeof(id));
	if ((f = e->val) == NULL) {
		f = e->val = xcalloc(1, sizeof(*f));
		f->depth = depth;
	}
	f->py = op_sat_add(f->py, py);
	f->work = op_sat_add(f->work, work);
	if (depth < f->depth)
		f->depth = depth;
	return 0;
}

/*
 * An op_partial_blame, op_partial_issuer or op_partial_frame record (kind
 * 0, 1 or 2) into a.
 */
int
op_blame_partial(struct oprank *r, struct agg *a, int kind)
{
	const struct jdoc *d = r->doc;
	struct bkey k;
	struct rtsum rs;
	int64_t ns;

	if (kind == 2)
		return partial_frame(r, a);
	if (partial_key(r, &k) < 0)
		return -1;
	if (kind == 1) {
		if (jdoc_get_i64(d, 0, "count", &rs.count) < 0 ||
		    jdoc_get_i64(d, 0, "total", &rs.total) < 0 ||
		    jdoc_get_i64(d, 0, "max", &rs.max) < 0 || rs.count <= 0 ||
		    rs.total < 0 || rs.max < 0 || rs.max > rs.total)
			return jdoc_error(r->file, d, 0, "\"op_partial_issuer\""
			    " needs the integers \"count\" (positive),"
			    " \"total\" and \"max\" (at most the total)");
		op_rtsum_fold(strmap_put(&a->issuers, (const char *)&k,
		    sizeof(k)), &rs);
		return 0;
	}
	if (jdoc_get_i64(d, 0, "ns", &ns) < 0 || ns <= 0)
		return jdoc_error(r->file, d, 0, "\"op_partial_blame\" needs a"
		    " positive integer \"ns\"");
	op_blame_add(a, &k, ns);
	return 0;
}
