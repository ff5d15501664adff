/*
 * critpath: see critpath.h.  Here are the records read into each rank's
 * events, the windows and the records written; the passes over a rank
 * are cprank's, the graph of a window cpgraph's.
 */
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>

#include "base/err.h"
#include "base/strmap.h"
#include "base/xalloc.h"
#include "io/json.h"
#include "io/ndjson.h"
#include "io/tsv.h"
#include "trace/cpgraph.h"
#include "trace/cprank.h"
#include "trace/critpath.h"
#include "trace/opbase.h"
#include "trace/trevent.h"

#define NTOP		10
/* The passes' spills in memory, as op-rank's: $MRP_CRIT_PATH_MEMORY. */
#define MEMORY		(16 * 1024 * 1024)

static const char *const role_name[] = {
	"launch", "graph", "blocking", "lock", "data", "comm"
};
#define NROLE	(sizeof(role_name) / sizeof(role_name[0]))

static const char *const etype_name[] = {
	"operator", "dependency", "kernel_launch_delay",
	"kernel_kernel_delay", "sync_dependency"
};

static const char *const bound_name[NBOUND] = {
	"cpu_bound", "data_loading", "gpu_compute_bound",
	"gpu_communication_bound", "kernel_kernel_overhead",
	"kernel_launch_overhead", "host_blocked_on_sync", "graph_replay"
};

static void	load_rules(struct critpath *);
static uint32_t	intern(struct critpath *, const char *, size_t);
static struct rank *rank_of(struct critpath *, int64_t);
static int32_t	thread_of(struct rank *, const char *, size_t,
		    const char *, size_t);
static int32_t	stream_of(struct rank *, int32_t, int32_t);
struct reader;
static int	window(struct critpath *, struct rank *, struct reader *,
		    const char *, long, int64_t, int64_t, struct jw *);
static int	run_rank(struct critpath *, struct rank *, struct jw *);

struct critpath *
critpath_new(const struct critpath_opts *o)
{
	struct critpath *cp = xcalloc(1, sizeof(*cp));
	char *frames;

	cp->o = o;
	load_rules(cp);
	cp->k_cpu_op = intern(cp, "cpu_op", 6);
	cp->k_runtime = intern(cp, "cuda_runtime", 12);
	cp->k_driver = intern(cp, "cuda_driver", 11);
	/* PyTorch 1.8's names for them, as torch-tb-profiler reads them. */
	cp->k_operator = intern(cp, "Operator", 8);
	cp->k_runtime18 = intern(cp, "Runtime", 7);
	cp->k_annot = intern(cp, "user_annotation", 15);
	cp->k_sync = intern(cp, "cuda_sync", 9);
	cp->k_gpu_annot = intern(cp, "gpu_user_annotation", 19);
	cp->k_py = intern(cp, "python_function", 15);
	cp->pool.budget = spool_budget("MRP_CRIT_PATH_MEMORY", MEMORY);
	frames = op_find_table(FRAMES_NAME);
	op_load_table(&cp->frames, frames, "user");
	free(frames);
	cp->famlib = op_family_index(&cp->frames, "library");
	cp->famprof = op_family_index(&cp->frames, "profiler");
	return cp;
}

static void
load_rules(struct critpath *cp)
{
	struct tsv tab = { 0 };
	char *f[2];
	size_t n, i, cap = 0;

	if ((tab.fp = fopen(cp->o->calls, "r")) == NULL)
		die_usage("%s:", cp->o->calls);
	while ((n = tsv_next(&tab, f, 2)) > 0) {
		for (i = 0; i < NROLE; i++)
			if (strcmp(f[0], role_name[i]) == 0)
				break;
		if (n != 2 || i == NROLE || *f[1] == '\0')
			die_usage("%s:%lu: expected a role (launch, graph,"
			    " blocking, lock, data or comm) and a pattern"
			    " separated by a tab", cp->o->calls, tab.lineno);
		cp->rule = op_grow(cp->rule, &cap, cp->nrule, sizeof(*cp->rule));
		cp->rule[cp->nrule].role = 1u << i;
		pattern_init(&cp->rule[cp->nrule++].pat, f[1]);
	}
	if (ferror(tab.fp))
		die_usage("%s:", cp->o->calls);
	tsv_free(&tab);
	fclose(tab.fp);
}

/* A name's index, and what HTA reads in it, found once. */
static uint32_t
intern(struct critpath *cp, const char *s, size_t len)
{
	struct strent *e = strmap_put(&cp->names, s, len);
	struct cpname *nm;

	if (e->val != NULL)
		return (uint32_t)(e->n - 1);
	cp->name = op_grow(cp->name, &cp->capname, cp->nname, sizeof(*cp->name));
	nm = &cp->name[cp->nname];
	memset(nm, 0, sizeof(*nm));
	nm->s = e->key;
	/* Kineto's names, and nsys-extract's ("Stream sync", ...). */
	nm->sync = strcasecmp(nm->s, "Context Sync") == 0 ? S_CONTEXT :
	    strcasecmp(nm->s, "Stream Sync") == 0 ? S_STREAM :
	    strcasecmp(nm->s, "Event Sync") == 0 ? S_EVENT :
	    strcmp(nm->s, "Stream Wait Event") == 0 ||
	    strcmp(nm->s, "Stream wait sync") == 0 ? S_WAIT : S_NONE;
	nm->record = strcmp(nm->s, "cudaEventRecord") == 0 ||
	    strcmp(nm->s, "hipEventRecord") == 0;
	nm->fwd = strstr(nm->s, "forward") != NULL;
	nm->bwd = strstr(nm->s, "autograd") != NULL;
	e->val = nm;
	e->n = ++cp->nname;
	return (uint32_t)(e->n - 1);
}

/*
 * A name's roles by the calls table, or, for a Python frame, whether it is
 * the user's code: a hundred thousand frames need no calls' patterns.
 */
static void
describe(const struct critpath *cp, struct cpname *nm, int python)
{
	size_t i, len;

	if (python) {
		nm->user = op_pyframe_kind(&cp->frames, cp->famlib,
		    cp->famprof, nm->s) == PYK_USER;
		nm->framed = 1;
		return;
	}
	len = strlen(nm->s);
	for (i = 0; i < cp->nrule; i++)
		if (pattern_match(&cp->rule[i].pat, nm->s, len))
			nm->role |= cp->rule[i].role;
	nm->described = 1;
}

static struct rank *
rank_of(struct critpath *cp, int64_t id)
{
	struct strent *e = strmap_put(&cp->ranks, (const char *)&id,
	    sizeof(id));

	if (e->n == 0) {
		cp->rank = op_grow(cp->rank, &cp->caprank, cp->nrank,
		    sizeof(*cp->rank));
		memset(&cp->rank[cp->nrank], 0, sizeof(*cp->rank));
		cp->rank[cp->nrank].id = id;
		e->n = ++cp->nrank;
	}
	return &cp->rank[e->n - 1];
}

static int32_t
thread_of(struct rank *r, const char *pid, size_t plen, const char *tid,
    size_t tlen)
{
	struct strent *e;
	struct thread *t;
	char *key, *end;

	/* An event is most often of the thread of the one before it. */
	if (r->nth > 0) {
		t = &r->th[r->last_th];
		if (t->plen == plen && t->tlen == tlen &&
		    memcmp(t->pid, pid, plen) == 0 &&
		    memcmp(t->tid, tid, tlen) == 0)
			return r->last_th;
	}
	key = xmalloc(sizeof(plen) + plen + tlen);
	/* The pid's length first: a string's may hold any byte. */
	memcpy(key, &plen, sizeof(plen));
	memcpy(key + sizeof(plen), pid, plen);
	memcpy(key + sizeof(plen) + plen, tid, tlen);
	e = strmap_put(&r->thmap, key, sizeof(plen) + plen + tlen);
	free(key);
	if (e->n > 0)
		return r->last_th = (int32_t)(e->n - 1);
	r->th = op_grow(r->th, &r->capth, r->nth, sizeof(*r->th));
	t = &r->th[r->nth];
	t->pid = xmemdup(pid, plen);
	t->tid = xmemdup(tid, tlen);
	t->plen = plen;
	t->tlen = tlen;
	t->npid = strtoll(t->pid, &end, 10);
	t->numeric = *t->pid != '\0' && *end == '\0';
	t->ntid = strtoll(t->tid, &end, 10);
	t->numeric = t->numeric && *t->tid != '\0' && *end == '\0';
	e->n = ++r->nth;
	return r->last_th = (int32_t)(e->n - 1);
}

static int32_t
stream_of(struct rank *r, int32_t device, int32_t id)
{
	struct stream key = { device, id };
	struct strent *e = strmap_put(&r->stmap, (const char *)&key,
	    sizeof(key));

	if (e->n == 0) {
		r->st = op_grow(r->st, &r->capst, r->nst, sizeof(*r->st));
		r->st[r->nst] = key;
		e->n = ++r->nst;
	}
	return (int32_t)(e->n - 1);
}

/* Node i's text where it is a number or a string, for pid and tid. */
static int
node_text(const struct jdoc *d, int i, const char **s, size_t *len)
{
	if (i < 0 || (d->node[i].type != JT_NUMBER &&
	    d->node[i].type != JT_STRING))
		return -1;
	*s = jdoc_str(d, (uint32_t)i);
	*len = d->node[i].len;
	return 0;
}

static int
node_str(const struct jdoc *d, int i, const char **s, size_t *len)
{
	return i >= 0 && d->node[i].type == JT_STRING ?
	    node_text(d, i, s, len) : -1;
}

/* Node i's integer, absent where it is none. */
static int64_t
node_int(const struct jdoc *d, int i, int64_t absent)
{
	int64_t v;

	return i >= 0 && d->node[i].type == JT_NUMBER &&
	    jnum_int64(jdoc_str(d, (uint32_t)i), d->node[i].len, &v) == 0 ?
	    v : absent;
}

/*
 * Whether e bounds windows: a step (a "ProfilerStep#" event on the host, as
 * the ledger's steps are), or with --window any event whose name holds
 * it, as HTA counts an annotation's instances.
 */
static int
takes_window(const struct critpath *cp, const struct ev *e)
{
	const char *s = cp->name[e->name].s;

	if (cp->o->whole)
		return 0;
	if (cp->o->window != NULL)
		return strstr(s, cp->o->window) != NULL;
	return e->kind != K_GPU && e->kind != K_SYNC &&
	    e->cat != cp->k_gpu_annot && strncmp(s, "ProfilerStep#", 13) == 0;
}

static void
add_window(struct rank *r, const struct ev *e)
{
	r->win = op_grow(r->win, &r->capwin, r->nwin, sizeof(*r->win));
	r->win[r->nwin++] = (struct win){ e->ts, e->end, e->idx, e->name };
}

int
critpath_add(struct critpath *cp, const struct jdoc *d, const char *file,
    uint64_t line)
{
	struct trevent ev;

	if (strcmp(ndin_kind(d), "event") != 0)
		return 0;
	trevent_from_doc(d, &ev);
	return critpath_event(cp, &ev, file, line);
}

int
critpath_event(struct critpath *cp, const struct trevent *m,
    const char *file, uint64_t line)
{
	const struct jdoc *d = m->d;
	const char *name, *cat, *pid, *tid;
	size_t nlen, clen, plen, tlen;
	struct rank *r;
	struct ev ev, *e = &ev;
	int64_t ts, dur, stream, wait_stream;
	int32_t device;
	uint32_t nm, k;

	if (node_str(d, m->name, &name, &nlen) < 0 || m->ts_read != TRT_READ)
		return error("%s:%" PRIu64 ": an event without a name or ts",
		    file, line);
	if (node_str(d, m->cat, &cat, &clen) < 0)
		cat = "", clen = 0;
	if (m->dur_read != TRT_READ)
		return 0;	/* instants and counters are not work */
	ts = m->ts_ns;
	dur = m->dur_ns;
	if (ts < -TIME_MAX || ts > TIME_MAX || dur < -TIME_MAX ||
	    dur > TIME_MAX)
		return error("%s:%" PRIu64 ": ts or dur beyond %d days", file,
		    line, (int)(TIME_MAX / 86400000000000LL));
	stream = node_int(d, m->stream, -1);
	k = intern(cp, cat, clen);
	if (k == cp->k_operator)
		k = cp->k_cpu_op;
	else if (k == cp->k_runtime18)
		k = cp->k_runtime;
	/* What the graph cannot use: memory, flows, instants, counters. */
	if (stream < 0 && clen > 0 && k != cp->k_cpu_op &&
	    k != cp->k_runtime &&
	    k != cp->k_driver && k != cp->k_annot && k != cp->k_sync &&
	    k != cp->k_gpu_annot && k != cp->k_py)
		return 0;
	if (node_text(d, m->pid, &pid, &plen) < 0 ||
	    node_text(d, m->tid, &tid, &tlen) < 0)
		pid = tid = "", plen = tlen = 0;
	nm = intern(cp, name, nlen);
	if (k == cp->k_py ? !cp->name[nm].framed : !cp->name[nm].described)
		describe(cp, &cp->name[nm], k == cp->k_py);
	r = rank_of(cp, m->rank);
	if (r->n == UINT32_MAX)
		return error("%s:%" PRIu64 ": more than %" PRIu32 " events in"
		    " rank %" PRId64, file, line, UINT32_MAX - 1, r->id);
	memset(e, 0, sizeof(*e));
	e->idx = r->n++;
	e->ts = ts;
	e->end = ts + (dur > 0 ? dur : 0);
	e->name = nm;
	e->cat = k;
	e->corr = node_int(d, m->corr, -1);
	e->wait_record = node_int(d, m->wait_record, -1);
	wait_stream = node_int(d, m->wait_stream, -1);
	device = (int32_t)node_int(d, m->device, -1);
	e->link = e->wait_stream = -1;
	e->stream = -1;
	e->thread = -1;
	if (k == cp->k_sync) {
		e->kind = K_SYNC;
		r->has_sync = 1;
		if (stream >= 0)
			e->stream = stream_of(r, device, (int32_t)stream);
		if (wait_stream >= 0)
			e->wait_stream = stream_of(r, device,
			    (int32_t)wait_stream);
	} else if (stream >= 0) {
		e->kind = K_GPU;
		e->stream = stream_of(r, device, (int32_t)stream);
	} else {
		/* The legacy profiler's operators have no category. */
		e->kind = k == cp->k_cpu_op || clen == 0 ? K_OP :
		    k == cp->k_runtime || k == cp->k_driver ? K_RUNTIME :
		    K_ANNOT;
		e->thread = thread_of(r, pid, plen, tid, tlen);
	}
	if (r->n == 1 || ts < r->lo)
		r->lo = ts;
	if (r->n == 1 || e->end > r->hi)
		r->hi = e->end;
	if (takes_window(cp, e))
		add_window(r, e);
	cpr_add(cp, r, e);
	return 0;
}

/* HTA's order of the call stacks: groupby(["pid", "tid"]). */
static int
thread_cmp(const void *a, const void *b)
{
	const struct thread *x = *(struct thread *const *)a;
	const struct thread *y = *(struct thread *const *)b;
	int c;

	if (x->numeric != y->numeric)
		return x->numeric ? -1 : 1;
	if (x->numeric) {
		if (x->npid != y->npid)
			return x->npid < y->npid ? -1 : 1;
		return x->ntid < y->ntid ? -1 : x->ntid > y->ntid;
	}
	if ((c = strcmp(x->pid, y->pid)) != 0)
		return c;
	return strcmp(x->tid, y->tid);
}

/* Each thread's place in that order. */
static void
order_threads(struct rank *r)
{
	struct thread **by = xreallocarray(NULL, r->nth + 1, sizeof(*by));
	size_t t;

	for (t = 0; t < r->nth; t++)
		by[t] = &r->th[t];
	xqsort(by, r->nth, sizeof(*by), thread_cmp);
	for (t = 0; t < r->nth; t++)
		by[t]->order = (uint32_t)t;
	free(by);
}


static void
put_window(struct jw *w, const struct graph *g)
{
	jw_key(w, "rank");
	jw_int(w, g->r->id);
	jw_key(w, "window");
	jw_cstring(w, g->label);
	jw_key(w, "instance");
	jw_int(w, g->instance);
}

static void
put_edge(struct jw *w, struct graph *g, const struct edge *e, int critical)
{
	int b = cpg_bound_of(g, e);

	jw_record(w, "critical_edge");
	put_window(w, g);
	jw_key(w, "from");
	jw_uint(w, e->u);
	jw_key(w, "to");
	jw_uint(w, e->v);
	jw_key(w, "type");
	jw_cstring(w, etype_name[e->type]);
	jw_key(w, "weight_us");
	jw_us(w, e->w);
	jw_key(w, "from_event");
	jw_cstring(w, cpg_ev_name(g, (int32_t)g->node[e->u].ev));
	jw_key(w, "from_end");
	jw_bool(w, !g->node[e->u].start);
	jw_key(w, "from_us");
	jw_us(w, g->node[e->u].ts);
	jw_key(w, "to_event");
	jw_cstring(w, cpg_ev_name(g, (int32_t)g->node[e->v].ev));
	jw_key(w, "to_end");
	jw_bool(w, !g->node[e->v].start);
	jw_key(w, "to_us");
	jw_us(w, g->node[e->v].ts);
	jw_key(w, "event");
	if (e->attr >= 0 || e->type == E_OP)
		jw_cstring(w, cpg_ev_name(g, e->attr));
	else
		jw_null(w);
	jw_key(w, "class");
	jw_cstring_or_null(w, b == B_NONE ? NULL : bound_name[b]);
	jw_key(w, "critical");
	jw_bool(w, critical);
	jw_end(w);
}

/* An event's time on the path in one class, for the top events. */
/*
 * The path's time of the events of one name in one class run from one
 * frame of the user's code, for the top events; ev is the first of them.
 */
struct spent {
	int64_t		 us;
	int32_t		 ev, frame;
	int		 bound;
	uint64_t	 count;
};

static int
spent_cmp(const void *a, const void *b)
{
	const struct spent *x = a, *y = b;

	if (x->us != y->us)
		return x->us > y->us ? -1 : 1;
	if (x->ev != y->ev)
		return x->ev < y->ev ? -1 : 1;
	return x->bound - y->bound;
}

/* An event's classes on the path are one byte's bits (put_path()). */
_Static_assert(NBOUND <= 8, "a class is a bit of a byte");

static void
put_path(struct jw *w, struct graph *g)
{
	int64_t by[NBOUND] = { 0 };
	size_t ntype[5] = { 0 };
	struct strmap m = { 0 };
	struct spent *sp = NULL;
	size_t i, nsp = 0, nev = 0;
	struct strent *s;
	unsigned char *mark, *classes;	/* by event: counted, its classes */
	struct edge *e;
	int32_t frame;
	int b;

	for (i = 0; i < g->nedge; i++)
		ntype[g->edge[i].type]++;
	jw_record(w, "critical_path");
	put_window(w, g);
	jw_key(w, "start_us");
	jw_us(w, g->ws);
	jw_key(w, "end_us");
	jw_us(w, g->we);
	jw_key(w, "nodes");
	jw_uint(w, g->nnode);
	jw_key(w, "edges");
	jw_uint(w, g->nedge);
	jw_key(w, "edge_types");
	jw_begin_object(w);
	for (i = 0; i < 5; i++) {
		jw_ckey(w, etype_name[i]);
		jw_uint(w, ntype[i]);
	}
	jw_end_object(w);
	jw_key(w, "failed");
	jw_cstring_or_null(w, g->failed);
	jw_key(w, "length_us");
	if (g->failed != NULL || g->npath == 0) {
		jw_null(w);
		jw_end(w);
		return;
	}
	jw_us(w, g->length);

	mark = xcalloc(g->nin + 1, 1);
	classes = xcalloc(g->nin + 1, 1);
	sp = xreallocarray(NULL, g->npath + 1, sizeof(*sp));
	for (i = 0; i < g->npath; i++)
		if (!mark[g->node[g->path[i]].ev]++)
			nev++;
	for (i = 0; i + 1 < g->npath; i++) {
		struct { int64_t name, frame; int bound; } key;
		int32_t ev;

		e = cpg_edge_of(g, g->path[i], g->path[i + 1]);
		if ((b = cpg_bound_of(g, e)) == B_NONE || e->w == 0)
			continue;
		by[b] += e->w;
		/* A gap is the kernel's before it, a launch's delay its work's. */
		ev = e->type == E_KK ? (int32_t)g->node[e->u].ev :
		    e->type == E_LAUNCH ? (int32_t)g->node[e->v].ev : e->attr;
		frame = cpg_frame_of(g, ev);
		memset(&key, 0, sizeof(key));
		key.name = ev < 0 ? -1 : (int64_t)g->ev[ev].name;
		key.frame = frame < 0 ? -1 : (int64_t)g->ev[frame].name;
		key.bound = b;
		s = strmap_put(&m, (const char *)&key, sizeof(key));
		if (s->n == 0) {
			sp[nsp] = (struct spent){ 0, ev, frame, b, 0 };
			s->n = ++nsp;
		}
		sp[s->n - 1].us += e->w;
		/* ev is -1 for an edge of no event: its own slot. */
		if (!(classes[ev + 1] & 1 << b)) {
			classes[ev + 1] |= (unsigned char)(1 << b);
			sp[s->n - 1].count++;
		}
	}
	free(classes);
	strmap_free(&m, NULL);
	jw_key(w, "path_nodes");
	jw_uint(w, g->npath);
	jw_key(w, "path_edges");
	jw_uint(w, g->npath - 1);
	jw_key(w, "path_events");
	jw_uint(w, nev);
	jw_key(w, "by_class_us");
	jw_begin_object(w);
	for (b = 0; b < NBOUND; b++) {
		jw_ckey(w, bound_name[b]);
		jw_us(w, by[b]);
	}
	jw_end_object(w);
	jw_key(w, "share");
	jw_begin_object(w);
	for (b = 0; b < NBOUND; b++) {
		jw_ckey(w, bound_name[b]);
		jw_ratio3(w, (double)by[b], (double)g->length);
	}
	jw_end_object(w);
	xqsort(sp, nsp, sizeof(*sp), spent_cmp);
	jw_key(w, "top");
	jw_begin_array(w);
	for (i = 0; i < nsp && i < NTOP; i++) {
		const struct ev *ev = sp[i].ev >= 0 ? &g->ev[sp[i].ev] :
		    NULL;

		jw_begin_object(w);
		jw_key(w, "name");
		jw_cstring(w, cpg_ev_name(g, sp[i].ev));
		jw_key(w, "cat");
		jw_cstring_or_null(w, ev ? g->cp->name[ev->cat].s : NULL);
		jw_key(w, "class");
		jw_cstring(w, bound_name[sp[i].bound]);
		jw_key(w, "frame");
		jw_cstring_or_null(w, sp[i].frame < 0 ? NULL :
		    cpg_ev_name(g, sp[i].frame));
		jw_key(w, "count");
		jw_uint(w, sp[i].count);
		jw_key(w, "us");
		jw_us(w, sp[i].us);
		jw_key(w, "share");
		jw_ratio3(w, (double)sp[i].us, (double)g->length);
		jw_end_object(w);
	}
	jw_end_array(w);
	jw_end(w);
	free(sp);
	free(mark);
}

static void
put_edges(struct jw *w, struct graph *g, int which)
{
	int all = which == CP_EDGES_ALL;
	unsigned char *on;
	struct edge *e;
	size_t i;

	if (which == CP_EDGES_NONE ||
	    (!all && (g->failed != NULL || g->npath == 0)))
		return;
	on = xcalloc(g->nedge + 1, 1);
	for (i = 0; i + 1 < g->npath; i++) {
		e = cpg_edge_of(g, g->path[i], g->path[i + 1]);
		on[e - g->edge] = 1;
		if (!all)
			put_edge(w, g, e, 1);
	}
	for (i = 0; all && i < g->nedge; i++)
		put_edge(w, g, &g->edge[i], on[i]);
	free(on);
}

/*
 * Reads a rank's events by (sel, idx) for windows in order of their
 * starts: what a window takes stays in buf while a later window, which
 * starts no earlier, may take it too.
 */
struct reader {
	struct spillcur	 cur;
	struct ev	 next;		/* read, not yet in buf */
	int		 has_next;
	struct ev	*buf;
	size_t		 head, n, cap;
};

static void
reader_load(struct reader *rd, int64_t ws, int64_t we)
{
	const struct ev *e;

	while (rd->head < rd->n && rd->buf[rd->head].sel < ws)
		rd->head++;
	if (rd->head > 0 && rd->head * 2 >= rd->n) {
		memmove(rd->buf, rd->buf + rd->head,
		    (rd->n - rd->head) * sizeof(*rd->buf));
		rd->n -= rd->head;
		rd->head = 0;
	}
	for (;;) {
		if (!rd->has_next) {
			if ((e = spill_next(&rd->cur)) == NULL)
				break;
			rd->next = *e;
			rd->has_next = 1;
		}
		if (rd->next.sel > we)
			break;
		rd->has_next = 0;
		if (rd->next.sel < ws)
			continue;
		rd->buf = op_grow(rd->buf, &rd->cap, rd->n, sizeof(*rd->buf));
		rd->buf[rd->n++] = rd->next;
	}
}

static int
idx_cmp(const void *a, const void *b)
{
	uint32_t x = ((const struct ev *)a)->idx, y = ((const struct ev *)b)->idx;

	return x < y ? -1 : x > y;
}

/* Window [ws, we]'s graph, path and records. */
static int
window(struct critpath *cp, struct rank *r, struct reader *rd,
    const char *label, long instance, int64_t ws, int64_t we, struct jw *w)
{
	struct graph g;
	size_t i;
	int rc;

	reader_load(rd, ws, we);
	memset(&g, 0, sizeof(g));
	g.cp = cp;
	g.r = r;
	g.label = label;
	g.instance = instance;
	g.ws = ws;
	g.we = we;
	g.ev = xreallocarray(NULL, rd->n - rd->head + r->nwaits + 1,
	    sizeof(*g.ev));
	for (i = rd->head; i < rd->n && rd->buf[i].sel <= we; i++)
		g.ev[g.nin++] = rd->buf[i];
	for (i = 0; i < r->nwaits; i++)
		g.ev[g.nin++] = r->waits[i];
	xqsort(g.ev, g.nin, sizeof(*g.ev), idx_cmp);
	cpg_build(&g);
	put_path(w, &g);
	put_edges(w, &g, cp->o->edges);
	rc = g.failed != NULL;
	cpg_free(&g);
	return rc;
}

static int
win_cmp(const void *a, const void *b)
{
	const struct win *x = a, *y = b;

	if (x->ts != y->ts)
		return x->ts < y->ts ? -1 : 1;
	return x->idx < y->idx ? -1 : x->idx > y->idx;
}

/*
 * The windows: each step, or else the whole trace; with --window each
 * instance in the trace's order (or the one asked for); with --whole the
 * whole trace, from its first start to its last end, as HTA's empty
 * annotation.  Windows in order of their starts are read in one pass;
 * others read the rank's events again from the start.
 */
static int
run_rank(struct critpath *cp, struct rank *r, struct jw *w)
{
	const struct critpath_opts *o = cp->o;
	struct reader rd;
	size_t i;
	int64_t last = INT64_MIN;
	int rc = 0, whole = o->whole;

	order_threads(r);
	cpr_prepare(cp, r);
	memset(&rd, 0, sizeof(rd));
	spill_open(&rd.cur, &r->bysel);
	if (o->window == NULL && !whole) {
		xqsort(r->win, r->nwin, sizeof(*r->win), win_cmp);
		whole = r->nwin == 0;
	}
	if (whole && r->n > 0)
		rc |= window(cp, r, &rd, "", -1, r->lo, r->hi, w);
	for (i = 0; !whole && i < r->nwin; i++) {
		const struct win *v = &r->win[i];

		if (o->instance >= 0 && (size_t)o->instance != i)
			continue;
		if (v->ts < last) {
			spillcur_free(&rd.cur);
			spill_open(&rd.cur, &r->bysel);
			rd.head = rd.n = 0;
			rd.has_next = 0;
		}
		last = v->ts;
		rc |= window(cp, r, &rd, cp->name[v->name].s, (long)i, v->ts,
		    v->end, w);
	}
	if (o->window != NULL && !whole && r->nwin == 0)
		warnmsg("warning: rank %" PRId64 ": no event named like \"%s\"",
		    r->id, o->window);
	else if (o->window != NULL && !whole && o->instance >= 0 &&
	    (size_t)o->instance >= r->nwin)
		warnmsg("warning: rank %" PRId64 ": no instance %ld of an event"
		    " named like \"%s\" (%zu found)", r->id, o->instance,
		    o->window, r->nwin);
	spillcur_free(&rd.cur);
	free(rd.buf);
	spill_free(&r->bysel);
	return rc;
}

int
critpath_write(struct critpath *cp, struct jw *w)
{
	size_t i;
	int rc = 0;

	for (i = 0; i < cp->nrank; i++)
		rc |= run_rank(cp, &cp->rank[i], w);
	return rc;
}

void
critpath_free(struct critpath *cp)
{
	size_t i, t;

	if (cp == NULL)
		return;
	for (i = 0; i < cp->nrank; i++) {
		struct rank *r = &cp->rank[i];

		/* What a data error left unread. */
		if (r->bycorr.pool != NULL)
			spill_free(&r->bycorr);
		if (r->recs.pool != NULL)
			spill_free(&r->recs);
		if (r->bysel.pool != NULL)
			spill_free(&r->bysel);

		for (t = 0; t < r->nth; t++) {
			free(r->th[t].pid);
			free(r->th[t].tid);
		}
		free(r->th);
		strmap_free(&r->thmap, NULL);
		strmap_free(&r->stmap, NULL);
		free(r->st);
		free(r->waits);
		free(r->win);
	}
	free(cp->rank);
	strmap_free(&cp->ranks, NULL);
	for (i = 0; i < cp->nrule; i++)
		pattern_free(&cp->rule[i].pat);
	free(cp->rule);
	op_table_free(&cp->frames);
	free(cp->name);
	strmap_free(&cp->names, NULL);
	spool_free(&cp->pool);
	free(cp);
}
