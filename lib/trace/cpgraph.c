/*
 * cpgraph: one window's dependency graph and its longest path (see
 * cpgraph.h).  Each step names the part of HTA's
 * hta/analyzers/critical_path_analysis.py (CPGraph, at f4d0062) whose
 * graph it reproduces; where mrp differs, the comment says so and why.
 */
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "base/err.h"
#include "base/keysort.h"
#include "base/xalloc.h"
#include "trace/cpgraph.h"
#include "trace/opbase.h"

/* GPU work or a sync by the time HTA orders it by, then its place. */
struct at {
	int64_t		 ts;
	uint32_t	 ev;
};

static int
at_cmp(const void *a, const void *b)
{
	const struct at *x = a, *y = b;

	if (x->ts != y->ts)
		return x->ts < y->ts ? -1 : 1;
	return x->ev < y->ev ? -1 : x->ev > y->ev;
}

/* Edges are keyed by their ends, as in a networkx DiGraph. */
static size_t
edge_slot(const struct graph *g, uint32_t u, uint32_t v)
{
	uint64_t h = ((uint64_t)u << 32 | v) * 0x9E3779B97F4A7C15ull;
	size_t i = (size_t)(h >> 20) & (g->hashcap - 1);

	while (g->hash[i] != 0 && (g->edge[g->hash[i] - 1].u != u ||
	    g->edge[g->hash[i] - 1].v != v))
		i = (i + 1) & (g->hashcap - 1);
	return i;
}

static void
rehash(struct graph *g)
{
	size_t i;

	free(g->hash);
	g->hashcap = g->hashcap ? g->hashcap * 2 : 1024;
	g->hash = xcalloc(g->hashcap, sizeof(*g->hash));
	for (i = 0; i < g->nedge; i++)
		g->hash[edge_slot(g, g->edge[i].u, g->edge[i].v)] =
		    (uint32_t)i + 1;
}

/*
 * HTA's _add_edge_helper: a dependency or sync edge weighs nothing, any
 * other the time between its ends.  Adding an edge again replaces its
 * type and weight and keeps its place, as networkx's add_edge does.
 */
static struct edge *
add_edge(struct graph *g, int32_t u, int32_t v, int type, int zero)
{
	struct edge *e;
	size_t i;

	if (2 * (g->nedge + 1) > g->hashcap)
		rehash(g);
	i = edge_slot(g, (uint32_t)u, (uint32_t)v);
	if (g->hash[i] == 0) {
		g->edge = op_grow(g->edge, &g->capedge, g->nedge,
		    sizeof(*g->edge));
		e = &g->edge[g->nedge++];
		e->u = (uint32_t)u;
		e->v = (uint32_t)v;
		e->attr = -1;
		g->hash[i] = (uint32_t)g->nedge;
	} else
		e = &g->edge[g->hash[i] - 1];
	e->type = (unsigned char)type;
	e->w = type == E_DEP || type == E_SYNC || zero ? 0 :
	    g->node[v].ts - g->node[u].ts;
	return e;
}

/*
 * HTA's _attribute_edge: an operator edge belongs to the event it runs
 * in (its start's, its end's, or between two children their parent's),
 * a kernel-to-kernel gap to the kernel before it.
 */
static void
attribute(struct graph *g, struct edge *e, int32_t parent)
{
	const struct node *s = &g->node[e->u], *d = &g->node[e->v];

	if (e->type != E_OP && e->type != E_KK)
		return;
	if (e->type == E_KK || s->start)
		e->attr = (int32_t)s->ev;
	else
		e->attr = !d->start ? (int32_t)d->ev : parent;
}

static int
role(const struct graph *g, uint32_t ev, unsigned r)
{
	return (g->cp->name[g->ev[ev].name].role & r) != 0;
}

/* HTA's _shares_cuda_runtime_lock. */
static int
shares_lock(const struct graph *g, int32_t a, int32_t b)
{
	return role(g, g->node[a].ev, R_LOCK) &&
	    role(g, g->node[b].ev, R_LOCK) &&
	    (g->node[a].start || !g->node[b].start);
}

static int
node_cmp(const void *a, const void *b)
{
	const struct node *x = a, *y = b;

	if (x->ts != y->ts)
		return x->ts < y->ts ? -1 : 1;
	if (x->ev != y->ev)
		return x->ev < y->ev ? -1 : 1;
	return y->start - x->start;
}

/*
 * HTA's _create_event_nodes: two nodes for each operator, runtime call,
 * data load and GPU event of the window, in order of time.  The window's
 * events (HTA's clip) are the caller's: the host events that start in it
 * and last, the GPU work their calls launched (all of a graph launch's:
 * HTA keeps one) and every Stream Wait Event, in order of idx.
 */
static void
make_nodes(struct graph *g)
{
	size_t i;

	g->snode = xreallocarray(NULL, g->nin + 1, sizeof(*g->snode));
	g->enode = xreallocarray(NULL, g->nin + 1, sizeof(*g->enode));
	g->sync_src = xreallocarray(NULL, g->nin + 1, sizeof(*g->sync_src));
	g->frame = xreallocarray(NULL, g->nin + 1, sizeof(*g->frame));
	g->node = xreallocarray(NULL, 2 * g->nin + 1, sizeof(*g->node));
	for (i = 0; i < g->nin; i++) {
		const struct ev *e = &g->ev[i];

		g->snode[i] = g->enode[i] = g->sync_src[i] = g->frame[i] = -1;
		if (e->kind == K_OP || e->kind == K_RUNTIME ||
		    role(g, (uint32_t)i, R_DATA) ||
		    (e->stream >= 0 && (e->link >= 0 || e->corr >= 0))) {
			g->node[g->nnode++] = (struct node){ e->ts, (uint32_t)i,
			    1 };
			g->node[g->nnode++] = (struct node){ e->end,
			    (uint32_t)i, 0 };
		}
	}
	xqsort(g->node, g->nnode, sizeof(*g->node), node_cmp);
	for (i = 0; i < g->nnode; i++) {
		if (g->node[i].start)
			g->snode[g->node[i].ev] = (int32_t)i;
		else
			g->enode[g->node[i].ev] = (int32_t)i;
	}
}

/* The window's place of the event of idx, or -1 where it is not in it. */
static int32_t
local(const struct graph *g, int32_t idx)
{
	size_t lo = 0, hi = g->nin, mid;

	if (idx < 0)
		return -1;
	while (lo < hi) {
		mid = lo + (hi - lo) / 2;
		if (g->ev[mid].idx < (uint32_t)idx)
			lo = mid + 1;
		else
			hi = mid;
	}
	return lo < g->nin && g->ev[lo].idx == (uint32_t)idx ?
	    (int32_t)lo : -1;
}

/* An event's start and end nodes, by its place; -1 for none. */
static int32_t
snode(const struct graph *g, int32_t ev)
{
	return ev < 0 ? -1 : g->snode[ev];
}

static int32_t
enode(const struct graph *g, int32_t ev)
{
	return ev < 0 ? -1 : g->enode[ev];
}

/*
 * HTA's _construct_graph_from_cuda_runtime_events: calls that hold the
 * runtime's lock wait for the one that ended before them, on any thread.
 */
static void
lock_edges(struct graph *g)
{
	int32_t *open = xreallocarray(NULL, g->nnode + 1, sizeof(*open));
	int32_t last = -1, p;
	size_t i, nopen = 0;
	struct edge *e;

	for (i = 0; i < g->nnode; i++) {
		if (!role(g, g->node[i].ev, R_LOCK))
			continue;
		if (g->node[i].start)
			open[nopen++] = (int32_t)i;
		else {
			while (nopen > 0) {
				p = open[--nopen];
				if (g->node[p].ev == g->node[i].ev) {
					e = add_edge(g, p, (int32_t)i, E_OP, 0);
					attribute(g, e, (int32_t)g->node[i].ev);
				} else
					add_edge(g, p, (int32_t)i, E_DEP, 0);
			}
			if (last >= 0 && !g->node[last].start)
				add_edge(g, last, (int32_t)i, E_DEP, 0);
		}
		last = (int32_t)i;
	}
	free(open);
}

/* One end of a host event on its thread's call stack. */
struct cs {
	int64_t		 time, dur;
	uint32_t	 thread;	/* its stack's place in HTA's order */
	uint32_t	 ev;
	int		 start;
};

/* HTA's compare_events (hta/common/call_stack.py), case for case. */
static int
cs_cmp(const void *a, const void *b)
{
	const struct cs *x = a, *y = b;

	if (x->thread != y->thread)
		return x->thread < y->thread ? -1 : 1;
	if (x->ev == y->ev)
		return x->start ? -1 : 1;
	if (x->time != y->time)
		return x->time < y->time ? -1 : 1;
	if (x->start == y->start) {
		if (x->dur != y->dur)
			return (x->dur < y->dur) == x->start ? 1 : -1;
		return (x->ev < y->ev) == x->start ? -1 : 1;
	}
	if (x->dur > 0 && y->dur > 0)
		return x->start ? 1 : -1;
	if (x->dur == 0 && y->dur == 0)
		return x->ev < y->ev ? -1 : 1;
	return x->start ? -1 : 1;
}

/* A time as a key that orders alike: its sign bit flipped. */
static uint64_t
cs_time(const void *a)
{
	return (uint64_t)((const struct cs *)a)->time ^ UINT64_C(1) << 63;
}

/*
 * cs_cmp's order in time linear in the stacks' edges: apart by thread,
 * by counting, then each thread's by time, ties by cs_cmp.  cs is freed;
 * the sorted copy is returned.
 */
static struct cs *
sort_stacks(struct cs *cs, size_t n, size_t nth)
{
	size_t *at = xcalloc(nth + 1, sizeof(*at)), i, from;
	struct cs *out = xreallocarray(NULL, n > 0 ? n : 1, sizeof(*out));

	for (i = 0; i < n; i++)
		at[cs[i].thread + 1]++;
	for (i = 1; i <= nth; i++)
		at[i] += at[i - 1];
	for (i = 0; i < n; i++)
		out[at[cs[i].thread]++] = cs[i];
	free(cs);
	/* at[t] is where thread t's edges end now, and t + 1's begin. */
	for (i = 0, from = 0; i < nth; from = at[i++])
		keysort(out + from, at[i] - from, sizeof(*out), cs_time,
		    cs_cmp);
	free(at);
	return out;
}

/*
 * HTA's _get_fwd_tid and _get_bwd_tid: the one thread with operators or
 * annotations named "forward", and the one named "autograd", if each is
 * alone and they differ: the backward thread's events join the forward
 * thread's stack, so that the path runs from forward into backward.
 */
static void
merge_backward(struct graph *g, int32_t *from, int32_t *into)
{
	struct rank *r = g->r;
	int32_t fwd = -1, bwd = -1;
	int many_fwd = 0, many_bwd = 0;
	size_t i;

	*from = *into = -1;
	for (i = 0; i < g->nin; i++) {
		const struct ev *e = &g->ev[i];
		const struct cpname *nm = &g->cp->name[e->name];

		if (e->thread < 0 || (e->cat != g->cp->k_cpu_op &&
		    e->cat != g->cp->k_annot))
			continue;
		if (nm->fwd && fwd != e->thread)
			many_fwd |= fwd >= 0, fwd = e->thread;
		if (nm->bwd && bwd != e->thread)
			many_bwd |= bwd >= 0, bwd = e->thread;
	}
	if (fwd >= 0 && bwd >= 0 && !many_fwd && !many_bwd && fwd != bwd &&
	    strcmp(r->th[fwd].pid, r->th[bwd].pid) == 0) {
		*from = bwd;
		*into = fwd;
	}
}

/* A Python frame of the user's code, by rubric/python-frames.tsv. */
static int
user_frame(const struct graph *g, uint32_t ev)
{
	return g->ev[ev].cat == g->cp->k_py &&
	    g->cp->name[g->ev[ev].name].user;
}

/*
 * HTA's _construct_graph_from_call_stack, per thread in HTA's order of
 * (pid, tid): a depth-first walk of the call stack links each event's
 * start to the last node before it and its end to the last node inside
 * it; consecutive top-level events are dependencies, the time inside an
 * event its own, and a blocking call's wait (its last edge) weighs
 * nothing, as the GPU work it waits for holds the time.
 */
static void
stack_edges(struct graph *g)
{
	struct rank *r = g->r;
	struct { uint32_t ev; int32_t parent; } *stack;
	int32_t last = -1, last_parent = -1, depth = 0, parent, s, en;
	int32_t from, into;
	size_t i, ncs = 0, nst = 0;
	struct edge *e;
	struct cs *cs;
	uint32_t ev, th;

	merge_backward(g, &from, &into);
	cs = xreallocarray(NULL, 2 * g->nin + 1, sizeof(*cs));
	stack = xreallocarray(NULL, g->nin + 1, sizeof(*stack));
	for (i = 0; i < g->nin; i++) {
		const struct ev *h = &g->ev[i];

		if (h->thread < 0)
			continue;
		th = r->th[h->thread == from ? into : h->thread].order;
		cs[ncs++] = (struct cs){ h->ts, h->end - h->ts, th, (uint32_t)i,
		    1 };
		cs[ncs++] = (struct cs){ h->end, h->end - h->ts, th, (uint32_t)i,
		    0 };
	}
	/* Each thread's stack in turn, in HTA's order of (pid, tid). */
	cs = sort_stacks(cs, ncs, r->nth);
	for (i = 0; i < ncs; i++) {
		if (i > 0 && cs[i].thread != cs[i - 1].thread) {
			last = last_parent = -1;
			depth = 0;
			nst = 0;
		}
		if (cs[i].start) {
			parent = nst > 0 ? (int32_t)stack[nst - 1].ev : -1;
			ev = cs[i].ev;
			stack[nst].ev = ev;
			stack[nst++].parent = parent;
			g->frame[ev] = user_frame(g, ev) ? (int32_t)ev :
			    parent < 0 ? -1 : g->frame[parent];
			if ((s = snode(g, (int32_t)ev)) < 0 ||
			    enode(g, (int32_t)ev) < 0)
				continue;
			if (last >= 0 && !shares_lock(g, last, s)) {
				e = add_edge(g, last, s, depth == 0 ? E_DEP :
				    E_OP, 0);
				attribute(g, e, last_parent);
			}
			last = s;
			last_parent = parent;
			depth++;
			continue;
		}
		if (nst == 0)
			continue;
		ev = stack[--nst].ev;
		parent = stack[nst].parent;
		if ((en = enode(g, (int32_t)ev)) < 0 ||
		    snode(g, (int32_t)ev) < 0)
			continue;
		if (last >= 0 && !shares_lock(g, last, en)) {
			e = add_edge(g, last, en, E_OP, role(g, ev, R_BLOCKING));
			attribute(g, e, last_parent);
		}
		last = en;
		last_parent = parent;
		depth--;
	}
	free(stack);
	free(cs);
}

/*
 * Work that starts before the work before it on its stream ends did not
 * wait for it (Hopper's programmatic dependent launch, or two devices
 * that number their streams alike): no gap to count.  HTA counts the gap,
 * weighs it 0 and may send the path back in time through it.
 */
static int
overlaps(const struct graph *g, int32_t last, int32_t start)
{
	return g->node[start].ts - g->node[last].ts < -NEG_TOLERANCE;
}

static void
sync_edge(struct graph *g, int32_t from, int32_t to)
{
	if (from >= 0 && to >= 0 && from != to)
		add_edge(g, from, to, E_SYNC, 0);
}

/*
 * HTA's _construct_graph_from_kernels: each GPU event's own time; before
 * it, a launch delay from its call where its stream's queue was empty,
 * else the gap since the stream's last work (under 1.5 ms, or any gap
 * inside one graph launch); the syncs' edges into the host calls that
 * wait; and a launch edge of no weight where there is no delay, so that
 * no work starts before its launch.
 */
static void
kernel_edges(struct graph *g)
{
	struct rank *r = g->r;
	const struct critpath *cp = g->cp;
	struct at *gk;
	int32_t *last, *order, s, en, rs, src, dest, run, ks;
	size_t i, k, ngk = 0, norder = 0;
	int launched;
	struct edge *e;

	gk = xreallocarray(NULL, g->nin + 1, sizeof(*gk));
	for (i = 0; i < g->nin; i++) {
		const struct ev *ev = &g->ev[i];

		if (ev->kind == K_GPU ? (ev->link >= 0 || ev->corr >= 0) :
		    ev->kind == K_SYNC && ev->link >= 0)
			gk[ngk++] = (struct at){ ev->kind == K_SYNC ? ev->end :
			    ev->ts, (uint32_t)i };
	}
	/* HTA's kernel order: GPU work by start, syncs by their end. */
	xqsort(gk, ngk, sizeof(*gk), at_cmp);
	last = xreallocarray(NULL, r->nst + 1, sizeof(*last));
	order = xreallocarray(NULL, r->nst + 1, sizeof(*order));
	for (i = 0; i < r->nst; i++)
		last[i] = -1;

	for (k = 0; k < ngk; k++) {
		uint32_t id = gk[k].ev;
		const struct ev *ev = &g->ev[id];
		int32_t host = local(g, ev->link);

		if (ev->kind == K_SYNC) {
			switch (cp->name[ev->name].sync) {
			case S_WAIT:
				dest = local(g, ev->wait_dest);
				if (ev->rec_src >= 0 && dest >= 0)
					g->sync_src[dest] = ev->rec_src;
				break;
			case S_EVENT:
				sync_edge(g, enode(g, local(g, ev->rec_src)),
				    enode(g, host));
				break;
			case S_STREAM:
				if (ev->stream >= 0)
					sync_edge(g, last[ev->stream],
					    enode(g, host));
				break;
			case S_CONTEXT:
				for (i = 0; i < norder; i++)
					sync_edge(g, last[order[i]],
					    enode(g, host));
				break;
			}
			continue;
		}
		if ((s = snode(g, (int32_t)id)) < 0 ||
		    (en = enode(g, (int32_t)id)) < 0)
			continue;
		e = add_edge(g, s, en, E_OP, 0);
		attribute(g, e, -1);

		ks = -1;
		if ((src = g->sync_src[id]) >= 0 &&
		    (ks = enode(g, local(g, src))) >= 0) {
			sync_edge(g, ks, s);
			g->sync_src[id] = -1;
		}
		rs = snode(g, host);
		run = last[ev->stream] >= 0 && ev->graph &&
		    g->ev[g->node[last[ev->stream]].ev].link == ev->link;
		launched = 0;
		if (rs >= 0 && !run && ev->queue == 0 &&
		    (ev->graph || ev->queue_at == 0) &&
		    (last[ev->stream] < 0 ||
		    g->node[last[ev->stream]].ts < ev->link_ts) &&
		    (ks < 0 || g->node[ks].ts < ev->link_ts)) {
			add_edge(g, rs, s, E_LAUNCH, 0);
			launched = 1;
		} else if (last[ev->stream] >= 0 && (run ||
		    g->node[s].ts - g->node[last[ev->stream]].ts < KK_CUTOFF) &&
		    !overlaps(g, last[ev->stream], s) &&
		    (ks < 0 || g->node[ks].ts < g->node[last[ev->stream]].ts)) {
			e = add_edge(g, last[ev->stream], s, E_KK, 0);
			attribute(g, e, -1);
		}
		if (!launched && rs >= 0)
			add_edge(g, rs, s, E_LAUNCH, 1);
		if (last[ev->stream] < 0)
			order[norder++] = ev->stream;
		last[ev->stream] = en;
	}
	free(order);
	free(last);
	free(gk);
}

/* GPU work by stream and launch, for the blocking calls' waits. */
struct work {
	int64_t		 ts;		/* of its launch */
	int32_t		 stream, end;
};

static int
work_cmp(const void *a, const void *b)
{
	const struct work *x = a, *y = b;

	if (x->stream != y->stream)
		return x->stream < y->stream ? -1 : 1;
	if (x->ts != y->ts)
		return x->ts < y->ts ? -1 : 1;
	return x->end < y->end ? -1 : x->end > y->end;
}

/*
 * Where the trace has no cuda_sync events (ROCm, older PyTorch), a
 * blocking call waits for its own GPU work, or, where it has none (a
 * device or stream synchronize), for the last work launched on each
 * stream before it began: HTA adds no edge there and loses the wait.
 */
static void
blocking_edges(struct graph *g)
{
	struct work *l;
	uint32_t *at, *of, *fill;
	size_t i, k, n = 0, lo, hi, mid, a;
	int32_t to, h;

	/* Each call's own GPU work in the window, in order: a CSR table. */
	at = xcalloc(g->nin + 2, sizeof(*at));
	for (i = 0; i < g->nin; i++)
		if (g->ev[i].kind == K_GPU &&
		    (h = local(g, g->ev[i].link)) >= 0)
			at[h + 1]++;
	for (i = 0; i < g->nin; i++)
		at[i + 1] += at[i];
	of = xreallocarray(NULL, at[g->nin] + 1, sizeof(*of));
	fill = xcalloc(g->nin + 1, sizeof(*fill));
	l = xreallocarray(NULL, g->nin + 1, sizeof(*l));
	for (i = 0; i < g->nin; i++) {
		const struct ev *ev = &g->ev[i];

		if (ev->kind == K_GPU && (h = local(g, ev->link)) >= 0)
			of[at[h] + fill[h]++] = (uint32_t)i;
		if (ev->kind == K_GPU && ev->link >= 0 && g->enode[i] >= 0)
			l[n++] = (struct work){ ev->link_ts, ev->stream,
			    g->enode[i] };
	}
	xqsort(l, n, sizeof(*l), work_cmp);
	for (i = 0; i < g->nin; i++) {
		if (g->ev[i].kind != K_RUNTIME ||
		    !role(g, (uint32_t)i, R_BLOCKING) || (to = g->enode[i]) < 0)
			continue;
		if (at[i] < at[i + 1]) {
			for (k = at[i]; k < at[i + 1]; k++)
				sync_edge(g, g->enode[of[k]], to);
			continue;
		}
		for (a = 0; a < n; a = hi) {
			for (hi = a; hi < n && l[hi].stream == l[a].stream; hi++)
				;
			for (lo = a, mid = hi; lo < mid;) {
				k = lo + (mid - lo) / 2;
				if (l[k].ts < g->ev[i].ts)
					lo = k + 1;
				else
					mid = k;
			}
			if (lo > a)
				sync_edge(g, l[lo - 1].end, to);
		}
	}
	free(l);
	free(fill);
	free(of);
	free(at);
}

const char *
cpg_ev_name(const struct graph *g, int32_t ev)
{
	return ev < 0 ? "ROOT" : g->cp->name[g->ev[ev].name].s;
}

static void
edge_warning(struct graph *g, const struct edge *e, const char *what)
{
	warnmsg("warning: rank %" PRId64 ", window %s: %s from %s (%s) to"
	    " %s (%s); no critical path for this window", g->r->id,
	    g->label, what, cpg_ev_name(g, (int32_t)g->node[e->u].ev),
	    g->node[e->u].start ? "start" : "end",
	    cpg_ev_name(g, (int32_t)g->node[e->v].ev),
	    g->node[e->v].start ? "start" : "end");
}

/*
 * HTA's _validate_graph, with one difference: HTA sets every negative
 * weight to 0, mrp only those within a microsecond (a nanosecond trace's
 * parent ending before its child, pytorch/pytorch#122425); an edge that
 * runs back further in time means the graph is wrong, and a wrong path
 * is worse than none.
 */
static void
validate(struct graph *g)
{
	struct edge *e;
	const struct ev *a, *b;
	size_t i;

	for (i = 0; i < g->nedge && g->failed == NULL; i++) {
		e = &g->edge[i];
		if (e->w < 0 && e->w >= -NEG_TOLERANCE)
			e->w = 0;
		else if (e->w < 0) {
			edge_warning(g, e, "an edge back in time");
			g->failed = "negative_weight";
		}
		a = &g->ev[g->node[e->u].ev];
		b = &g->ev[g->node[e->v].ev];
		if (e->type == E_SYNC && a->kind == K_GPU &&
		    b->kind == K_GPU && a->stream == b->stream) {
			edge_warning(g, e, "a sync between work on one stream");
			g->failed = "same_stream_sync";
		}
	}
}

/*
 * networkx's dag_longest_path as HTA calls it, ties and all: nodes enter
 * the graph with their first edge; the topological order is Kahn's, by
 * generations, in that order; each node keeps its first best predecessor
 * in the order its edges were added, and the path ends at the first node
 * of greatest length.  Linear in the graph's size.
 */
static void
longest(struct graph *g)
{
	size_t n = g->nnode, i, k, head = 0, tail = 0, nseen = 0;
	uint32_t *seen, *topo, *indeg, *sat, *sof, *pat, *pof, v, u;
	int64_t *dist, best = 0;
	int32_t *from;
	unsigned char *in;

	in = xcalloc(n + 1, 1);
	seen = xreallocarray(NULL, n + 1, sizeof(*seen));
	for (i = 0; i < g->nedge; i++) {
		if (!in[g->edge[i].u])
			in[g->edge[i].u] = 1, seen[nseen++] = g->edge[i].u;
		if (!in[g->edge[i].v])
			in[g->edge[i].v] = 1, seen[nseen++] = g->edge[i].v;
	}
	sat = xcalloc(n + 2, sizeof(*sat));
	pat = xcalloc(n + 2, sizeof(*pat));
	for (i = 0; i < g->nedge; i++) {
		sat[g->edge[i].u + 1]++;
		pat[g->edge[i].v + 1]++;
	}
	for (i = 0; i < n; i++) {
		sat[i + 1] += sat[i];
		pat[i + 1] += pat[i];
	}
	sof = xreallocarray(NULL, g->nedge + 1, sizeof(*sof));
	pof = xreallocarray(NULL, g->nedge + 1, sizeof(*pof));
	indeg = xcalloc(n + 1, sizeof(*indeg));
	for (i = 0; i < g->nedge; i++) {
		sof[sat[g->edge[i].u] + indeg[g->edge[i].u]++] = (uint32_t)i;
	}
	memset(indeg, 0, (n + 1) * sizeof(*indeg));
	for (i = 0; i < g->nedge; i++)
		pof[pat[g->edge[i].v] + indeg[g->edge[i].v]++] = (uint32_t)i;

	topo = xreallocarray(NULL, n + 1, sizeof(*topo));
	for (i = 0; i < nseen; i++)
		if (indeg[seen[i]] == 0)
			topo[tail++] = seen[i];
	while (head < tail) {
		v = topo[head++];
		for (k = sat[v]; k < sat[v + 1]; k++) {
			u = g->edge[sof[k]].v;
			if (--indeg[u] == 0)
				topo[tail++] = u;
		}
	}
	if (tail < nseen) {
		for (i = 0; i < nseen && indeg[seen[i]] == 0; i++)
			;
		warnmsg("warning: rank %" PRId64 ", window %s: the graph has"
		    " a cycle through %s (%s); no critical path for this"
		    " window", g->r->id, g->label,
		    cpg_ev_name(g, (int32_t)g->node[seen[i]].ev),
		    g->node[seen[i]].start ? "start" : "end");
		g->failed = "cycle";
	}

	dist = xreallocarray(NULL, n + 1, sizeof(*dist));
	from = xreallocarray(NULL, n + 1, sizeof(*from));
	for (i = 0; i < tail && g->failed == NULL; i++) {
		v = topo[i];
		from[v] = -1;
		for (k = pat[v]; k < pat[v + 1]; k++) {
			const struct edge *e = &g->edge[pof[k]];

			int64_t d;

			/* A path of millions of edges cannot overflow. */
			if (__builtin_add_overflow(dist[e->u], e->w, &d))
				d = INT64_MAX;
			if (from[v] < 0 || d > best) {
				best = d;
				from[v] = (int32_t)e->u;
			}
		}
		if (from[v] < 0 || best < 0) {
			best = 0;
			from[v] = (int32_t)v;
		}
		dist[v] = best;
	}
	if (g->failed == NULL && tail > 0) {
		v = topo[0];
		for (i = 1; i < tail; i++)
			if (dist[topo[i]] > dist[v])
				v = topo[i];
		g->length = dist[v];
		g->path = xreallocarray(NULL, n + 1, sizeof(*g->path));
		for (;;) {
			g->path[g->npath++] = v;
			if (from[v] == (int32_t)v)
				break;
			v = (uint32_t)from[v];
		}
		for (i = 0; i < g->npath / 2; i++) {
			u = g->path[i];
			g->path[i] = g->path[g->npath - 1 - i];
			g->path[g->npath - 1 - i] = u;
		}
	}
	free(from);
	free(dist);
	free(topo);
	free(indeg);
	free(pof);
	free(sof);
	free(pat);
	free(sat);
	free(seen);
	free(in);
}

/* The bound class of an edge on the path, by what it is attributed to. */
int
cpg_bound_of(const struct graph *g, const struct edge *e)
{
	const struct ev *a, *u, *v;

	switch (e->type) {
	case E_LAUNCH:
		return B_LAUNCH;
	case E_KK:
		u = &g->ev[g->node[e->u].ev];
		v = &g->ev[g->node[e->v].ev];
		return u->graph && v->graph && u->link == v->link ? B_GRAPH :
		    B_KK;
	case E_OP:
		if (e->attr < 0)
			return B_CPU;
		a = &g->ev[e->attr];
		if (a->kind == K_GPU)
			return a->graph ? B_GRAPH :
			    role(g, (uint32_t)e->attr, R_COMM) ? B_COMM : B_GPU;
		return role(g, (uint32_t)e->attr, R_DATA) ? B_DATA :
		    role(g, (uint32_t)e->attr, R_BLOCKING) ? B_SYNC : B_CPU;
	}
	return B_NONE;
}

int32_t
cpg_frame_of(const struct graph *g, int32_t ev)
{
	if (ev < 0)
		return -1;
	if (g->ev[ev].kind == K_GPU)
		return cpg_frame_of(g, local(g, g->ev[ev].link));
	return g->frame[ev];
}

/* The edge from u to v, or NULL. */
struct edge *
cpg_edge_of(struct graph *g, uint32_t u, uint32_t v)
{
	size_t i = edge_slot(g, u, v);

	return g->hash[i] ? &g->edge[g->hash[i] - 1] : NULL;
}

/*
 * The window's graph and its longest path, or g->failed and a warning:
 * the edges in HTA's order (the runtime lock, the call stacks, the GPU
 * work), then mrp's waits where the trace has no cuda_sync events.
 */
void
cpg_build(struct graph *g)
{
	make_nodes(g);
	lock_edges(g);
	stack_edges(g);
	kernel_edges(g);
	if (!g->r->has_sync)
		blocking_edges(g);
	validate(g);
	if (g->failed == NULL)
		longest(g);
}

void
cpg_free(struct graph *g)
{
	free(g->path);
	free(g->hash);
	free(g->edge);
	free(g->node);
	free(g->sync_src);
	free(g->frame);
	free(g->enode);
	free(g->snode);
	free(g->ev);
}
