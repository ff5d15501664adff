/*
 * critpath: see critpath.h.  Here are the records read into each rank's
 * events and the tables over the whole rank that HTA builds over its
 * dataframe (links, queues, event syncs), the windows, and the records
 * written; the graph of a window is cpgraph's.
 */
#include <fnmatch.h>
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
#include "trace/critpath.h"
#include "trace/opbase.h"

#define NTOP		10

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
static void	link_rank(struct critpath *, struct rank *);
static void	queue_rank(struct critpath *, struct rank *);
static void	events_rank(struct critpath *, struct rank *);
static int	window(struct critpath *, struct rank *, const char *,
		    long, int64_t, int64_t, struct jw *);
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
		cp->rule[cp->nrule++].pat = xstrdup(f[1]);
	}
	if (ferror(tab.fp))
		die_usage("%s:", cp->o->calls);
	tsv_free(&tab);
	fclose(tab.fp);
}

/* A name's index, its roles and what HTA reads in it found once. */
static uint32_t
intern(struct critpath *cp, const char *s, size_t len)
{
	struct strent *e = strmap_put(&cp->names, s, len);
	struct cpname *nm;
	size_t i;

	if (e->val != NULL)
		return (uint32_t)(e->n - 1);
	cp->name = op_grow(cp->name, &cp->capname, cp->nname, sizeof(*cp->name));
	nm = &cp->name[cp->nname];
	memset(nm, 0, sizeof(*nm));
	nm->s = e->key;
	for (i = 0; i < cp->nrule; i++)
		if (fnmatch(cp->rule[i].pat, nm->s, 0) == 0)
			nm->role |= cp->rule[i].role;
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
	char *key = xmalloc(sizeof(plen) + plen + tlen);
	struct strent *e;
	struct thread *t;
	char *end;

	/* The pid's length first: a string's may hold any byte. */
	memcpy(key, &plen, sizeof(plen));
	memcpy(key + sizeof(plen), pid, plen);
	memcpy(key + sizeof(plen) + plen, tid, tlen);
	e = strmap_put(&r->thmap, key, sizeof(plen) + plen + tlen);
	free(key);
	if (e->n > 0)
		return (int32_t)(e->n - 1);
	r->th = op_grow(r->th, &r->capth, r->nth, sizeof(*r->th));
	t = &r->th[r->nth];
	t->pid = xmemdup(pid, plen);
	t->tid = xmemdup(tid, tlen);
	t->npid = strtoll(t->pid, &end, 10);
	t->numeric = *t->pid != '\0' && *end == '\0';
	t->ntid = strtoll(t->tid, &end, 10);
	t->numeric = t->numeric && *t->tid != '\0' && *end == '\0';
	e->n = ++r->nth;
	return (int32_t)(e->n - 1);
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

/* A member as the text of a number or string, for pid and tid. */
static int
member_text(const struct jdoc *d, const char *key, const char **s,
    size_t *len)
{
	int i = jdoc_get(d, 0, key);

	if (i < 0 || (d->node[i].type != JT_NUMBER &&
	    d->node[i].type != JT_STRING))
		return -1;
	*s = jdoc_str(d, (uint32_t)i);
	*len = d->node[i].len;
	return 0;
}

static int64_t
get_int(const struct jdoc *d, const char *key, int64_t absent)
{
	int64_t v;

	return jdoc_get_i64(d, 0, key, &v) == 0 ? v : absent;
}

int
critpath_add(struct critpath *cp, const struct jdoc *d, const char *file,
    uint64_t line)
{
	const char *name, *cat, *pid, *tid;
	size_t nlen, clen, plen, tlen;
	struct rank *r;
	struct ev *e;
	int64_t ts, dur, stream;
	uint32_t nm, k;

	if (strcmp(ndin_kind(d), "event") != 0)
		return 0;
	if (jdoc_get_str(d, 0, "name", &name, &nlen) < 0 ||
	    jdoc_get_ns(d, 0, "ts", &ts) < 0)
		return error("%s:%" PRIu64 ": an event without a name or ts",
		    file, line);
	if (jdoc_get_str(d, 0, "cat", &cat, &clen) < 0)
		cat = "", clen = 0;
	if (jdoc_get_ns(d, 0, "dur", &dur) < 0)
		return 0;	/* instants and counters are not work */
	if (ts < -TIME_MAX || ts > TIME_MAX || dur < -TIME_MAX ||
	    dur > TIME_MAX)
		return error("%s:%" PRIu64 ": ts or dur beyond %d days", file,
		    line, (int)(TIME_MAX / 86400000000000LL));
	stream = get_int(d, "stream", -1);
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
	if (member_text(d, "pid", &pid, &plen) < 0 ||
	    member_text(d, "tid", &tid, &tlen) < 0)
		pid = tid = "", plen = tlen = 0;
	nm = intern(cp, name, nlen);
	if (k == cp->k_py && !cp->name[nm].user)
		cp->name[nm].user = op_pyframe_kind(&cp->frames, cp->famlib,
		    cp->famprof, cp->name[nm].s) == PYK_USER;
	r = rank_of(cp, get_int(d, "rank", 0));
	r->ev = op_grow(r->ev, &r->cap, r->n, sizeof(*r->ev));
	e = &r->ev[r->n++];
	memset(e, 0, sizeof(*e));
	e->ts = ts;
	e->end = ts + (dur > 0 ? dur : 0);
	e->name = nm;
	e->cat = k;
	e->corr = get_int(d, "correlation", -1);
	e->wait_record = get_int(d, "wait_on_event_record", -1);
	e->wait_stream = (int32_t)get_int(d, "wait_on_stream", -1);
	e->device = (int32_t)get_int(d, "device", -1);
	e->link = e->loc = -1;
	e->stream = -1;
	e->thread = -1;
	if (k == cp->k_sync) {
		e->kind = K_SYNC;
		r->has_sync = 1;
		if (stream >= 0)
			e->stream = stream_of(r, e->device, (int32_t)stream);
	} else if (stream >= 0) {
		e->kind = K_GPU;
		e->stream = stream_of(r, e->device, (int32_t)stream);
	} else {
		/* The legacy profiler's operators have no category. */
		e->kind = k == cp->k_cpu_op || clen == 0 ? K_OP :
		    k == cp->k_runtime || k == cp->k_driver ? K_RUNTIME :
		    K_ANNOT;
		e->thread = thread_of(r, pid, plen, tid, tlen);
	}
	/* A zero-length host event has no place in HTA's call stacks. */
	if (e->kind != K_GPU && e->kind != K_SYNC && dur <= 0)
		e->thread = -2;
	return 0;
}

/* HTA's GPUKernelFilter: GPU work, and the syncs that run on the device. */
static int
gpu_side(const struct critpath *cp, const struct ev *e)
{
	return (e->kind == K_GPU && e->corr >= 0) ||
	    (e->kind == K_SYNC && (cp->name[e->name].sync == S_EVENT ||
	    cp->name[e->name].sync == S_CONTEXT || e->stream >= 0));
}

/*
 * HTA's transform_correlation_to_index: each host event and the GPU event
 * of its correlation point at each other.  A graph launch's GPU events
 * all point at it; it points at the last of them, as in HTA.
 */
static void
link_rank(struct critpath *cp, struct rank *r)
{
	struct strmap host = { 0 };
	struct strent *e;
	uint32_t *fill, h;
	size_t i;

	for (i = 0; i < r->n; i++)
		if (r->ev[i].corr >= 0 && !gpu_side(cp, &r->ev[i])) {
			e = strmap_put(&host, (const char *)&r->ev[i].corr,
			    sizeof(r->ev[i].corr));
			e->n = i + 1;
		}
	for (i = 0; i < r->n; i++)
		if (r->ev[i].corr >= 0 && gpu_side(cp, &r->ev[i]) &&
		    (e = strmap_get(&host, (const char *)&r->ev[i].corr,
		    sizeof(r->ev[i].corr))) != NULL) {
			r->ev[i].link = (int32_t)(e->n - 1);
			r->ev[e->n - 1].link = (int32_t)i;
		}
	strmap_free(&host, NULL);

	/* Each runtime call's GPU work, in order, as a CSR table. */
	r->gpu_at = xcalloc(r->n + 1, sizeof(*r->gpu_at));
	for (i = 0; i < r->n; i++)
		if (r->ev[i].kind == K_GPU && r->ev[i].link >= 0)
			r->gpu_at[r->ev[i].link + 1]++;
	for (i = 0; i < r->n; i++)
		r->gpu_at[i + 1] += r->gpu_at[i];
	r->gpu_of = xcalloc(r->gpu_at[r->n] + 1, sizeof(*r->gpu_of));
	fill = xcalloc(r->n + 1, sizeof(*fill));
	for (i = 0; i < r->n; i++) {
		if (r->ev[i].kind != K_GPU || r->ev[i].link < 0)
			continue;
		h = (uint32_t)r->ev[i].link;
		r->gpu_of[r->gpu_at[h] + fill[h]++] = (uint32_t)i;
		r->ev[i].graph = (cp->name[r->ev[h].name].role & R_GRAPH) != 0;
	}
	free(fill);
}

static int
launches(const struct critpath *cp, const struct rank *r, uint32_t h)
{
	return (cp->name[r->ev[h].name].role & (R_LAUNCH | R_GRAPH)) != 0;
}

/* A stream's enqueued work: each launch's +1 and each start's -1. */
struct qitem {
	int64_t		 ts;
	uint32_t	 stream;
	uint32_t	 later;		/* a start, after the launches at ts */
	uint32_t	 order;		/* the event's place in the trace */
	uint32_t	 gpu;
};

static int
qitem_cmp(const void *a, const void *b)
{
	const struct qitem *x = a, *y = b;

	if (x->stream != y->stream)
		return x->stream < y->stream ? -1 : 1;
	if (x->ts != y->ts)
		return x->ts < y->ts ? -1 : 1;
	if (x->later != y->later)
		return x->later < y->later ? -1 : 1;
	if (x->order != y->order)
		return x->order < y->order ? -1 : 1;
	return x->gpu < y->gpu ? -1 : x->gpu > y->gpu;
}

/*
 * HTA's TraceCounters._get_queue_length_time_series_for_rank, over the
 * whole rank: a stream's queue grows at each launch's start and shrinks
 * at each start of its work, ties kept in the order HTA concatenates
 * them (launches first).  queue is the length before the launch (HTA's
 * queue_length_runtime less one), queue_at the length as the work starts;
 * a graph launch's work shares the length before the launch.
 */
static void
queue_rank(struct critpath *cp, struct rank *r)
{
	struct qitem *q;
	size_t i, n = 0, k;
	int32_t len = 0;
	uint32_t prev = UINT32_MAX, st = UINT32_MAX;
	int32_t base = 0;

	q = xreallocarray(NULL, 2 * r->n + 1, sizeof(*q));
	for (i = 0; i < r->n; i++) {
		struct ev *g = &r->ev[i];

		g->queue = g->queue_at = -1;
		if (g->kind != K_GPU || g->link < 0 ||
		    !launches(cp, r, (uint32_t)g->link))
			continue;
		q[n++] = (struct qitem){ r->ev[g->link].ts, (uint32_t)g->stream,
		    0, (uint32_t)g->link, (uint32_t)i };
		q[n++] = (struct qitem){ g->ts, (uint32_t)g->stream, 1,
		    (uint32_t)i, (uint32_t)i };
	}
	xqsort(q, n, sizeof(*q), qitem_cmp);
	for (k = 0; k < n; k++) {
		struct ev *g = &r->ev[q[k].gpu];

		if (q[k].stream != st) {
			st = q[k].stream;
			len = 0;
			prev = UINT32_MAX;
		}
		if (q[k].later) {
			g->queue_at = --len;
			continue;
		}
		if (q[k].order != prev)
			base = len;
		prev = q[k].order;
		g->queue = g->graph ? base : len;
		len++;
	}
	free(q);
}

/* A launch of GPU work on a stream, for the event syncs. */
struct launch {
	int64_t		 ts;
	uint32_t	 stream, host, gpu;
};

static int
launch_cmp(const void *a, const void *b)
{
	const struct launch *x = a, *y = b;

	if (x->stream != y->stream)
		return x->stream < y->stream ? -1 : 1;
	if (x->ts != y->ts)
		return x->ts < y->ts ? -1 : 1;
	if (x->host != y->host)
		return x->host < y->host ? -1 : 1;
	return x->gpu < y->gpu ? -1 : x->gpu > y->gpu;
}

/* The first launch on stream at ts or later (n where there is none). */
static size_t
launch_at(const struct launch *l, size_t n, uint32_t stream, int64_t ts)
{
	size_t lo = 0, hi = n, mid;

	while (lo < hi) {
		mid = lo + (hi - lo) / 2;
		if (l[mid].stream < stream ||
		    (l[mid].stream == stream && l[mid].ts < ts))
			lo = mid + 1;
		else
			hi = mid;
	}
	return lo;
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

/*
 * What the event syncs wait for, over the whole rank as HTA's
 * _get_cuda_event_record_df and _get_cuda_stream_wait_event_df find it:
 * a cudaEventRecord waits for the last work launched before it on the
 * stream its syncs name; a Stream Wait Event holds back the next work
 * its cudaStreamWaitEvent's thread launches on the waiting stream.
 */
static void
events_rank(struct critpath *cp, struct rank *r)
{
	struct strmap rec = { 0 };
	struct strent *e;
	struct launch *l;
	size_t i, n = 0, k;

	r->rec_src = xreallocarray(NULL, r->n + 1, sizeof(*r->rec_src));
	r->wait_dest = xreallocarray(NULL, r->n + 1, sizeof(*r->wait_dest));
	l = xreallocarray(NULL, r->n + 1, sizeof(*l));
	for (i = 0; i < r->n; i++) {
		struct ev *g = &r->ev[i];

		r->rec_src[i] = r->wait_dest[i] = -1;
		if (g->kind == K_GPU && g->link >= 0 &&
		    launches(cp, r, (uint32_t)g->link))
			l[n++] = (struct launch){ r->ev[g->link].ts,
			    (uint32_t)g->stream, (uint32_t)g->link,
			    (uint32_t)i };
	}
	xqsort(l, n, sizeof(*l), launch_cmp);

	/* Each recorded event's stream, from the syncs that wait on it. */
	for (i = 0; i < r->n; i++) {
		struct ev *s = &r->ev[i];

		if (s->kind != K_SYNC || s->wait_record < 0 ||
		    s->wait_stream < 0)
			continue;
		e = strmap_put(&rec, (const char *)&s->wait_record,
		    sizeof(s->wait_record));
		if (e->n == 0)
			e->n = (uint64_t)stream_of(r, s->device,
			    s->wait_stream) + 1;
	}
	for (i = 0; i < r->n; i++) {
		struct ev *h = &r->ev[i];
		uint32_t st;

		if (h->kind != K_RUNTIME || !cp->name[h->name].record ||
		    h->corr < 0 || (e = strmap_get(&rec, (const char *)&h->corr,
		    sizeof(h->corr))) == NULL)
			continue;
		st = (uint32_t)(e->n - 1);
		k = launch_at(l, n, st, h->ts + 1);
		if (k > 0 && l[k - 1].stream == st)
			e->val = &r->ev[l[k - 1].gpu];
	}
	for (i = 0; i < r->n; i++) {
		struct ev *s = &r->ev[i];

		if (s->kind == K_SYNC && s->wait_record >= 0 &&
		    (e = strmap_get(&rec, (const char *)&s->wait_record,
		    sizeof(s->wait_record))) != NULL && e->val != NULL)
			r->rec_src[i] = (int32_t)((struct ev *)e->val - r->ev);
	}
	strmap_free(&rec, NULL);

	for (i = 0; i < r->n; i++) {
		struct ev *s = &r->ev[i], *w;

		if (s->kind != K_SYNC || cp->name[s->name].sync != S_WAIT ||
		    s->link < 0 || s->stream < 0)
			continue;
		w = &r->ev[s->link];
		for (k = launch_at(l, n, (uint32_t)s->stream, w->ts + 1);
		    k < n && l[k].stream == (uint32_t)s->stream; k++)
			if (r->ev[l[k].host].thread == w->thread) {
				r->wait_dest[i] = (int32_t)l[k].gpu;
				break;
			}
	}
	free(l);

	r->by_ts = xreallocarray(NULL, r->n + 1, sizeof(*r->by_ts));
	r->waits = xreallocarray(NULL, r->n + 1, sizeof(*r->waits));
	for (i = 0; i < r->n; i++) {
		if (r->ev[i].stream < 0)
			r->by_ts[r->nby_ts++].ev = (uint32_t)i;
		if (r->ev[i].kind == K_SYNC &&
		    cp->name[r->ev[i].name].sync == S_WAIT)
			r->waits[r->nwaits++] = (uint32_t)i;
	}
	for (i = 0; i < r->nby_ts; i++)
		r->by_ts[i].ts = r->ev[r->by_ts[i].ev].ts;
	xqsort(r->by_ts, r->nby_ts, sizeof(*r->by_ts), cp_at_cmp);
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

static void
put_path(struct jw *w, struct graph *g)
{
	int64_t by[NBOUND] = { 0 };
	size_t ntype[5] = { 0 };
	struct strmap m = { 0 }, events = { 0 };
	struct spent *sp = NULL;
	size_t i, nsp = 0, nev = 0;
	struct strent *s;
	unsigned char *mark;
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
	sp = xreallocarray(NULL, g->npath + 1, sizeof(*sp));
	for (i = 0; i < g->npath; i++)
		if (!mark[g->r->ev[g->node[g->path[i]].ev].loc]++)
			nev++;
	for (i = 0; i + 1 < g->npath; i++) {
		struct { int64_t name, frame; int bound; } key;
		struct { int32_t ev; int bound; } one;
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
		key.name = ev < 0 ? -1 : (int64_t)g->r->ev[ev].name;
		key.frame = frame < 0 ? -1 : (int64_t)g->r->ev[frame].name;
		key.bound = b;
		s = strmap_put(&m, (const char *)&key, sizeof(key));
		if (s->n == 0) {
			sp[nsp] = (struct spent){ 0, ev, frame, b, 0 };
			s->n = ++nsp;
		}
		sp[s->n - 1].us += e->w;
		memset(&one, 0, sizeof(one));
		one.ev = ev;
		one.bound = b;
		if (strmap_put(&events, (const char *)&one, sizeof(one))->n++ == 0)
			sp[s->n - 1].count++;
	}
	strmap_free(&events, NULL);
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
		const struct ev *ev = sp[i].ev >= 0 ? &g->r->ev[sp[i].ev] :
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
put_edges(struct jw *w, struct graph *g, int all)
{
	unsigned char *on;
	struct edge *e;
	size_t i;

	if (g->failed != NULL || g->npath == 0) {
		if (!all)
			return;
	}
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

static int
window(struct critpath *cp, struct rank *r, const char *label, long instance,
    int64_t ws, int64_t we, struct jw *w)
{
	struct graph g;
	int rc;

	memset(&g, 0, sizeof(g));
	g.cp = cp;
	g.r = r;
	g.label = label;
	g.instance = instance;
	g.ws = ws;
	g.we = we;
	cpg_build(&g);
	put_path(w, &g);
	put_edges(w, &g, cp->o->all_edges);

	rc = g.failed != NULL;
	cpg_free(&g);
	return rc;
}

/*
 * The windows: each step (a "ProfilerStep#" event, as the ledger's steps
 * are), or else the whole trace; with --window the events whose name
 * holds it, in the trace's order, as HTA counts an annotation's
 * instances; with --whole the whole trace, from its first start to its
 * last end, as HTA's empty annotation.
 */
static int
run_rank(struct critpath *cp, struct rank *r, struct jw *w)
{
	const struct critpath_opts *o = cp->o;
	struct at *win;
	size_t i, n = 0;
	int64_t lo = INT64_MAX, hi = INT64_MIN;
	long k = 0;
	int rc = 0, whole = o->whole;

	link_rank(cp, r);
	queue_rank(cp, r);
	events_rank(cp, r);
	order_threads(r);
	win = xreallocarray(NULL, r->n + 1, sizeof(*win));
	for (i = 0; i < r->n; i++) {
		const char *s = cp->name[r->ev[i].name].s;

		if (r->ev[i].ts < lo)
			lo = r->ev[i].ts;
		if (r->ev[i].end > hi)
			hi = r->ev[i].end;
		if (whole)
			continue;
		if (o->window != NULL ? strstr(s, o->window) != NULL :
		    r->ev[i].kind != K_GPU && r->ev[i].kind != K_SYNC &&
		    r->ev[i].cat != cp->k_gpu_annot &&
		    strncmp(s, "ProfilerStep#", 13) == 0)
			win[n++] = (struct at){ r->ev[i].ts, (uint32_t)i };
	}
	if (o->window == NULL && !whole) {
		xqsort(win, n, sizeof(*win), cp_at_cmp);
		whole = n == 0;
	}
	if (whole && r->n > 0)
		rc |= window(cp, r, "", -1, lo, hi, w);
	for (i = 0; !whole && i < n; i++, k++) {
		const struct ev *e = &r->ev[win[i].ev];

		if (o->instance >= 0 && k != o->instance)
			continue;
		rc |= window(cp, r, cp->name[e->name].s, k, e->ts, e->end, w);
	}
	if (o->window != NULL && !whole &&
	    (n == 0 || (o->instance >= 0 && (size_t)o->instance >= n)))
		warnmsg("warning: rank %" PRId64 ": no instance %ld of an event"
		    " named like \"%s\" (%zu found)", r->id, o->instance,
		    o->window, n);
	free(win);
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

		for (t = 0; t < r->nth; t++) {
			free(r->th[t].pid);
			free(r->th[t].tid);
		}
		free(r->th);
		strmap_free(&r->thmap, NULL);
		strmap_free(&r->stmap, NULL);
		free(r->st);
		free(r->ev);
		free(r->by_ts);
		free(r->waits);
		free(r->gpu_of);
		free(r->gpu_at);
		free(r->rec_src);
		free(r->wait_dest);
	}
	free(cp->rank);
	strmap_free(&cp->ranks, NULL);
	for (i = 0; i < cp->nrule; i++)
		free(cp->rule[i].pat);
	free(cp->rule);
	op_table_free(&cp->frames);
	free(cp->name);
	strmap_free(&cp->names, NULL);
	free(cp);
}
