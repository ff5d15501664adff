/*
 * overlay: the trace, its events passed through tr-extract's reader (so
 * that times are read as the records' are), with the critical path drawn
 * on it.  See overlay.h for what is written.
 */
#include <inttypes.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "base/err.h"
#include "base/strmap.h"
#include "base/xalloc.h"
#include "io/json.h"
#include "io/ndjson.h"
#include "io/spill.h"
#include "trace/extract.h"
#include "trace/opbase.h"
#include "trace/overlay.h"

/* The counters' spills in memory, as crit-path's: $MRP_CRIT_PATH_MEMORY. */
#define MEMORY	(16u << 20)

/* The edge types of crit-path's records, and HTA's names for them. */
static const char *const edge_types[] = {
	"operator", "dependency", "kernel_launch_delay",
	"kernel_kernel_delay", "sync_dependency"
};
enum { E_OPERATOR, E_DEPENDENCY, E_LAUNCH, E_KERNEL, E_SYNC, E_NTYPES };

/* A node of crit-path's graph: one end of an event. */
struct node {
	int		critical;	/* on a critical edge */
	int		found;		/* its event was read */
	int64_t		ns;		/* from the origin */
	int		end;
	struct jid	pid, tid;
	int64_t		dur_ns;		/* its event's */
	int		device;		/* its event runs on a GPU */
};

struct edge {
	int64_t		 rank;
	struct node	*from, *to;
	int		 type;
	int64_t		 weight_ns;
	char		*cls;		/* its bound class, or NULL */
	char		*event;		/* the event it is attributed to */
	int		 critical;
};

struct finding {
	int64_t	 place;
	char	*rule, *area, *observation;
};

/* Records of the counters' spills; each ends in its sequence number. */
struct launch {
	int64_t		corr, start;
	uint64_t	seq;
};
struct gpuwork {
	int64_t		corr, start, end, pid, stream;
	uint64_t	seq;
};
struct delta {
	int64_t		ts, pid, stream;
	int32_t		queue, busy;
	uint64_t	seq;
};

/* A stream's counters as last written. */
struct stream {
	int64_t	pid, stream;
	int64_t	queue, busy;
	int64_t	queue_out, busy_out;	/* -1: not written yet */
};

struct overlay {
	const struct overlay_opts *o;
	struct strmap	 nodes;		/* key(): struct node */
	struct edge	*edges;
	size_t		 nedges, edgecap;
	int64_t		*ranks;		/* ranks the records name */
	size_t		 nranks;
	int64_t		 rank;		/* the one drawn */
	int		 have_start;
	int64_t		 first_start;	/* ns, the first window's start */
	struct finding	*findings;
	size_t		 nfindings, findcap;

	/* Writing. */
	struct jw	*w;
	const char	*file;		/* the trace's name, for messages */
	int64_t		 origin;
	int		 have_origin;
	int64_t		 max_pid;
	int		 have_pid;
	struct jdoc	 top[5];	/* the top-level members kept */
	int		 have_top[5];
	uint64_t	 marked, found;
	struct spool	 pool;
	struct spill	 launches, gpu, deltas;
	uint64_t	 seq;
	struct stream	*streams;
	size_t		 nstreams, streamcap;
};

static const char *const top_keys[] = {
	"schemaVersion", "deviceProperties", "distributedInfo",
	"baseTimeNanoseconds", "displayTimeUnit"
};

static int	add_edge(struct overlay *, const struct jdoc *, const char *,
		    uint64_t);
static int	add_finding(struct overlay *, const struct jdoc *);
static void	see_rank(struct overlay *, int64_t);
static size_t	node_key(char *, size_t, int64_t, const char *, size_t,
		    int, int64_t);
static struct node *get_node(struct overlay *, int64_t, const char *,
		    size_t, int, int64_t, int);
static int	pick_rank(struct overlay *);
static int	discard(void *, const struct jdoc *);
static int	each_event(void *, const struct jdoc *,
		    const struct extract_seen *);
static int	keep_top(void *, const char *, const struct jdoc *);
static void	fill_node(struct node *, const struct jdoc *, int, int,
		    int64_t);
static void	free_node(void *);
static void	put_marked(struct jw *, const struct jdoc *);
static void	see_gpu(struct overlay *, const struct jdoc *,
		    const struct extract_seen *);
static void	put_time(struct overlay *, int64_t);
static void	put_flows(struct overlay *);
static void	put_flow(struct overlay *, const struct edge *,
		    const struct node *, uint64_t, int);
static void	put_track(struct overlay *);
static void	put_counters(struct overlay *);
static void	put_counter(struct overlay *, const struct stream *,
		    const char *, int64_t, int64_t);
static struct stream *get_stream(struct overlay *, int64_t, int64_t);
static int	cmp_launch(const void *, const void *);
static int	cmp_gpu(const void *, const void *);
static int	cmp_delta(const void *, const void *);
static int	cmp_i64(int64_t, int64_t);

struct overlay *
overlay_new(const struct overlay_opts *o)
{
	struct overlay *ov;
	const char *env;

	ov = xcalloc(1, sizeof(*ov));
	ov->o = o;
	ov->pool.budget = MEMORY;
	if ((env = getenv("MRP_CRIT_PATH_MEMORY")) != NULL && *env != '\0')
		ov->pool.budget = (size_t)parse_num(env, 1, LLONG_MAX,
		    "MRP_CRIT_PATH_MEMORY");
	spill_init(&ov->launches, &ov->pool, sizeof(struct launch),
	    cmp_launch);
	spill_init(&ov->gpu, &ov->pool, sizeof(struct gpuwork), cmp_gpu);
	spill_init(&ov->deltas, &ov->pool, sizeof(struct delta), cmp_delta);
	return ov;
}

int
overlay_add(struct overlay *ov, const struct jdoc *d, const char *file,
    uint64_t line)
{
	const char *kind = ndin_kind(d);
	int64_t rank, ns;

	if (strcmp(kind, "critical_edge") == 0)
		return add_edge(ov, d, file, line);
	if (strcmp(kind, "finding") == 0)
		return add_finding(ov, d);
	if (strcmp(kind, "critical_path") != 0)
		return 0;
	if (jdoc_get_i64(d, 0, "rank", &rank) < 0 ||
	    jdoc_get_ns(d, 0, "start_us", &ns) < 0)
		return jdoc_error(file, d, 0, "a critical_path record without"
		    " rank and start_us");
	see_rank(ov, rank);
	if ((ov->o->rank < 0 || rank == ov->o->rank) &&
	    (!ov->have_start || ns < ov->first_start)) {
		ov->first_start = ns;
		ov->have_start = 1;
	}
	return 0;
}

static int
add_edge(struct overlay *ov, const struct jdoc *d, const char *file,
    uint64_t line)
{
	struct edge *e;
	const char *from, *to, *type, *s;
	size_t nfrom, nto, ntype, n;
	int64_t rank, from_ns, to_ns, weight;
	int from_end, to_end, critical, t, i;

	(void)line;
	if (jdoc_get_i64(d, 0, "rank", &rank) < 0 ||
	    jdoc_get_str(d, 0, "from_event", &from, &nfrom) < 0 ||
	    jdoc_get_str(d, 0, "to_event", &to, &nto) < 0 ||
	    jdoc_get_str(d, 0, "type", &type, &ntype) < 0 ||
	    jdoc_get_ns(d, 0, "from_us", &from_ns) < 0 ||
	    jdoc_get_ns(d, 0, "to_us", &to_ns) < 0 ||
	    jdoc_get_ns(d, 0, "weight_us", &weight) < 0 ||
	    (i = jdoc_get(d, 0, "from_end")) < 0 ||
	    d->node[i].type > JT_TRUE || d->node[i].type == JT_NULL ||
	    (from_end = d->node[i].type == JT_TRUE,
	    (i = jdoc_get(d, 0, "to_end")) < 0) ||
	    d->node[i].type > JT_TRUE || d->node[i].type == JT_NULL ||
	    (to_end = d->node[i].type == JT_TRUE,
	    (i = jdoc_get(d, 0, "critical")) < 0) ||
	    d->node[i].type > JT_TRUE || d->node[i].type == JT_NULL)
		return jdoc_error(file, d, 0, "a critical_edge record without"
		    " rank, from and to events, their ends and times, type,"
		    " weight_us and critical");
	critical = d->node[i].type == JT_TRUE;
	for (t = 0; t < E_NTYPES; t++)
		if (strcmp(type, edge_types[t]) == 0)
			break;
	if (t == E_NTYPES)
		return jdoc_error(file, d, (uint32_t)jdoc_get(d, 0, "type"),
		    "not an edge type of crit-path: %s", type);
	see_rank(ov, rank);
	ov->edges = op_grow(ov->edges, &ov->edgecap, ov->nedges,
		    sizeof(*ov->edges));
	e = &ov->edges[ov->nedges++];
	memset(e, 0, sizeof(*e));
	e->rank = rank;
	e->type = t;
	e->weight_ns = weight;
	e->critical = critical;
	e->from = get_node(ov, rank, from, nfrom, from_end, from_ns,
	    critical);
	e->to = get_node(ov, rank, to, nto, to_end, to_ns, critical);
	if (jdoc_get_str(d, 0, "class", &s, &n) == 0)
		e->cls = xstrdup(s);
	if (jdoc_get_str(d, 0, "event", &s, &n) == 0)
		e->event = xstrdup(s);
	return 0;
}

static int
add_finding(struct overlay *ov, const struct jdoc *d)
{
	struct finding *f;
	const char *s;
	size_t n;

	ov->findings = op_grow(ov->findings, &ov->findcap,
		    ov->nfindings, sizeof(*ov->findings));
	f = &ov->findings[ov->nfindings++];
	memset(f, 0, sizeof(*f));
	if (jdoc_get_i64(d, 0, "place", &f->place) < 0)
		f->place = (int64_t)ov->nfindings;
	f->rule = xstrdup(jdoc_get_str(d, 0, "rule", &s, &n) == 0 ? s : "");
	f->area = xstrdup(jdoc_get_str(d, 0, "area", &s, &n) == 0 ? s : "");
	f->observation = xstrdup(jdoc_get_str(d, 0, "observation", &s,
	    &n) == 0 ? s : "");
	return 0;
}

static void
see_rank(struct overlay *ov, int64_t rank)
{
	size_t i;

	for (i = 0; i < ov->nranks; i++)
		if (ov->ranks[i] == rank)
			return;
	ov->ranks = xreallocarray(ov->ranks, ov->nranks + 1,
	    sizeof(*ov->ranks));
	ov->ranks[ov->nranks++] = rank;
}

/* rank, end and time, then the name: the bytes a node is found by. */
static size_t
node_key(char *buf, size_t size, int64_t rank, const char *name,
    size_t len, int end, int64_t ns)
{
	size_t n = 2 * sizeof(int64_t) + 1;

	if (n + len > size)
		len = size - n;
	memcpy(buf, &rank, sizeof(rank));
	memcpy(buf + sizeof(rank), &ns, sizeof(ns));
	buf[2 * sizeof(int64_t)] = (char)end;
	memcpy(buf + n, name, len);
	return n + len;
}

static struct node *
get_node(struct overlay *ov, int64_t rank, const char *name, size_t len,
    int end, int64_t ns, int critical)
{
	char key[4096];
	struct strent *ent;
	struct node *nd;

	ent = strmap_put(&ov->nodes, key, node_key(key, sizeof(key), rank,
	    name, len, end, ns));
	if ((nd = ent->val) == NULL) {
		nd = ent->val = xcalloc(1, sizeof(*nd));
		nd->ns = ns;
		nd->end = end;
	}
	nd->critical |= critical;
	return nd;
}

/* The rank drawn: the one asked for, else the only one the records name. */
static int
pick_rank(struct overlay *ov)
{
	ov->rank = ov->o->rank;
	if (ov->rank >= 0 || ov->nranks <= 1) {
		if (ov->rank < 0 && ov->nranks == 1)
			ov->rank = ov->ranks[0];
		return 0;
	}
	warnmsg("the records hold the critical paths of %zu ranks (%" PRId64
	    " and %" PRId64 " among them): name the trace's with -r",
	    ov->nranks, ov->ranks[0], ov->ranks[1]);
	return -1;
}

int
overlay_write(struct overlay *ov, const char *path, FILE *out,
    const char *outname)
{
	struct extract_opts xo;
	struct jw *sink;
	size_t i;
	int rc;

	if (pick_rank(ov) < 0)
		return -1;
	memset(&xo, 0, sizeof(xo));
	xo.each = each_event;
	xo.top = keep_top;
	xo.hook_arg = ov;
	ov->w = jw_new(out);
	jw_name(ov->w, outname);
	jw_begin_object(ov->w);
	jw_key(ov->w, "traceEvents");
	jw_begin_array(ov->w);
	/* The records tr-extract would write are not wanted here. */
	sink = jw_new_doc(discard, NULL);
	rc = extract_trace(path, sink, &xo);
	jw_free(sink);
	if (rc != 0) {
		jw_free(ov->w);
		ov->w = NULL;
		return rc;
	}
	if (ov->marked == 0 && ov->found == 0 && ov->nedges > 0)
		warnmsg("%s: warning: none of the path's events is in the"
		    " trace: are the records from another trace?",
		    path == NULL ? "<stdin>" : path);
	put_flows(ov);
	put_track(ov);
	put_counters(ov);
	jw_end_array(ov->w);
	for (i = 0; i < sizeof(top_keys) / sizeof(top_keys[0]); i++)
		if (ov->have_top[i]) {
			jw_ckey(ov->w, top_keys[i]);
			jw_jdoc(ov->w, &ov->top[i], 0);
		}
	jw_end(ov->w);
	jw_free(ov->w);
	ov->w = NULL;
	return 0;
}

static int
discard(void *arg, const struct jdoc *d)
{
	(void)arg;
	(void)d;
	return 0;
}

/* Each event of the trace, as read: passed on, marked if on the path. */
static int
each_event(void *arg, const struct jdoc *d, const struct extract_seen *s)
{
	struct overlay *ov = arg;
	struct node *start = NULL, *end = NULL;
	char key[4096];
	const char *name;
	size_t len;
	int64_t pid;
	int critical = 0, pid_i, tid_i;
	struct strent *ent;

	if (!ov->have_origin && s->timed) {
		ov->origin = s->origin_ns;
		ov->have_origin = 1;
	}
	if (jdoc_get_i64(d, 0, "pid", &pid) == 0 &&
	    (!ov->have_pid || pid > ov->max_pid)) {
		ov->max_pid = pid;
		ov->have_pid = 1;
	}
	if (s->timed && ov->nodes.count > 0 &&
	    (s->ph == 'X' || s->ph == 'B' || s->ph == 'E') &&
	    jdoc_get_str(d, 0, "name", &name, &len) == 0) {
		if (s->ph != 'E' && (ent = strmap_get(&ov->nodes, key,
		    node_key(key, sizeof(key), ov->rank, name, len, 0,
		    s->start_ns))) != NULL)
			start = ent->val;
		if (s->ph != 'B' && (ent = strmap_get(&ov->nodes, key,
		    node_key(key, sizeof(key), ov->rank, name, len, 1,
		    s->start_ns + (s->ph == 'X' ? s->dur_ns : 0)))) != NULL)
			end = ent->val;
		pid_i = jdoc_get(d, 0, "pid");
		tid_i = jdoc_get(d, 0, "tid");
		if (start != NULL)
			fill_node(start, d, pid_i, tid_i, s->dur_ns);
		if (end != NULL)
			fill_node(end, d, pid_i, tid_i, s->dur_ns);
		if (start != NULL || end != NULL)
			ov->found++;
		critical = (start != NULL && start->critical) ||
		    (end != NULL && end->critical);
	}
	jw_break(ov->w);
	if (critical) {
		put_marked(ov->w, d);
		ov->marked++;
	} else
		jw_jdoc(ov->w, d, 0);
	if (s->timed && s->ph == 'X')
		see_gpu(ov, d, s);
	return 0;
}

static int
keep_top(void *arg, const char *key, const struct jdoc *value)
{
	struct overlay *ov = arg;
	size_t i;

	for (i = 0; i < sizeof(top_keys) / sizeof(top_keys[0]); i++)
		if (strcmp(key, top_keys[i]) == 0) {
			jdoc_copy(&ov->top[i], value);
			ov->have_top[i] = 1;
		}
	return 0;
}

/* Where a flow meets the event: its thread, and whether a GPU runs it. */
static void
fill_node(struct node *nd, const struct jdoc *d, int pid_i, int tid_i,
    int64_t dur_ns)
{
	struct jid id;
	int64_t device;
	int args;

	if (nd->found)
		return;
	nd->found = 1;
	if (op_get_jid(d, pid_i, &id) == 0)
		op_jid_copy(&nd->pid, &id);
	if (op_get_jid(d, tid_i, &id) == 0)
		op_jid_copy(&nd->tid, &id);
	nd->dur_ns = dur_ns;
	args = jdoc_get(d, 0, "args");
	nd->device = args >= 0 && d->node[args].type == JT_OBJECT &&
	    jdoc_get_i64(d, (uint32_t)args, "device", &device) == 0 &&
	    device >= 0;
}

/* The event with "critical": 1 in its args, as HTA marks it. */
static void
put_marked(struct jw *w, const struct jdoc *d)
{
	uint32_t i, j;
	int had_args = 0;

	jw_begin_object(w);
	for (i = 1; i < d->node[0].next; i = d->node[i].next) {
		jw_ckey_sized(w, jdoc_key(d, i), d->node[i].keylen);
		if (strcmp(jdoc_key(d, i), "args") != 0 ||
		    d->node[i].type != JT_OBJECT) {
			jw_jdoc(w, d, i);
			continue;
		}
		had_args = 1;
		jw_begin_object(w);
		for (j = i + 1; j < d->node[i].next; j = d->node[j].next)
			if (strcmp(jdoc_key(d, j), "critical") != 0) {
				jw_ckey_sized(w, jdoc_key(d, j),
				    d->node[j].keylen);
				jw_jdoc(w, d, j);
			}
		jw_key(w, "critical");
		jw_int(w, 1);
		jw_end_object(w);
	}
	if (!had_args) {
		jw_key(w, "args");
		jw_begin_object(w);
		jw_key(w, "critical");
		jw_int(w, 1);
		jw_end_object(w);
	}
	jw_end_object(w);
}

/* GPU work and the runtime calls that launch it, for the counters. */
static void
see_gpu(struct overlay *ov, const struct jdoc *d,
    const struct extract_seen *s)
{
	const char *cat;
	size_t len;
	int args;
	int64_t corr = INT64_MIN;

	if (jdoc_get_str(d, 0, "cat", &cat, &len) < 0 ||
	    (args = jdoc_get(d, 0, "args")) < 0 ||
	    d->node[args].type != JT_OBJECT)
		return;
	(void)jdoc_get_i64(d, (uint32_t)args, "correlation", &corr);
	if (strcmp(cat, "kernel") == 0 || strcmp(cat, "gpu_memcpy") == 0 ||
	    strcmp(cat, "gpu_memset") == 0) {
		struct gpuwork g;

		if (jdoc_get_i64(d, 0, "pid", &g.pid) < 0 ||
		    jdoc_get_i64(d, (uint32_t)args, "stream", &g.stream) < 0)
			return;
		g.corr = corr;
		g.start = s->start_ns;
		g.end = s->start_ns + s->dur_ns;
		g.seq = ov->seq++;
		spill_add(&ov->gpu, &g);
	} else if (corr != INT64_MIN && (strcmp(cat, "cuda_runtime") == 0 ||
	    strcmp(cat, "cuda_driver") == 0)) {
		struct launch l;

		l.corr = corr;
		l.start = s->start_ns;
		l.seq = ov->seq++;
		spill_add(&ov->launches, &l);
	}
}

/* A time from the origin, in the trace's own clock. */
static void
put_time(struct overlay *ov, int64_t ns)
{
	jw_us(ov->w, ov->origin + ns);
}

/*
 * HTA's flows: by default the path's dependency, launch and sync edges;
 * with all_edges every edge read but launches of no weight, as HTA's
 * show_all_edges.
 */
static void
put_flows(struct overlay *ov)
{
	const struct edge *e;
	uint64_t id = 0, lost = 0;
	size_t i;

	for (i = 0; i < ov->nedges; i++) {
		e = &ov->edges[i];
		if (e->rank != ov->rank)
			continue;
		if (ov->o->all_edges ?
		    e->type == E_LAUNCH && e->weight_ns == 0 :
		    !e->critical || e->type == E_OPERATOR ||
		    e->type == E_KERNEL)
			continue;
		if (!e->from->found || !e->to->found) {
			lost++;
			continue;
		}
		put_flow(ov, e, e->from, id, 1);
		put_flow(ov, e, e->to, id, 0);
		id++;
	}
	if (lost > 0)
		warnmsg("warning: %" PRIu64 " edges have an event the trace"
		    " does not hold; they have no flow", lost);
}

static void
put_flow(struct overlay *ov, const struct edge *e, const struct node *nd,
    uint64_t id, int start)
{
	struct jw *w = ov->w;
	char type[64];
	int64_t ns = nd->ns;

	/* Inside a GPU slice, so that viewers draw the arrow (HTA's). */
	if (nd->end && nd->device)
		ns -= nd->dur_ns < 1000 ? nd->dur_ns : 1000;
	jw_break(w);
	jw_begin_object(w);
	jw_key(w, "ph");
	jw_cstring(w, start ? "s" : "f");
	jw_key(w, "id");
	jw_uint(w, id);
	op_put_jid(w, "pid", &nd->pid);
	op_put_jid(w, "tid", &nd->tid);
	jw_key(w, "ts");
	put_time(ov, ns);
	jw_key(w, "cat");
	jw_cstring(w, "critical_path");
	jw_key(w, "name");
	jw_cstring(w, "critical_path");
	jw_key(w, "args");
	jw_begin_object(w);
	jw_key(w, "weight");
	jw_us(w, e->weight_ns);
	jw_key(w, "critical");
	jw_bool(w, e->critical);
	jw_key(w, "type");
	snprintf(type, sizeof(type), "critical_path_%s", edge_types[e->type]);
	jw_cstring(w, type);
	jw_end_object(w);
	if (!start) {
		jw_key(w, "bp");
		jw_cstring(w, "e");
	}
	jw_end_object(w);
}

/* The process "critical path": its track of edges, and the findings. */
static void
put_track(struct overlay *ov)
{
	struct jw *w = ov->w;
	const struct edge *e;
	const struct finding *f;
	int64_t pid = ov->have_pid && ov->max_pid < INT64_MAX ?
	    ov->max_pid + 1 : 1, tid = ov->rank < 0 ? 0 : ov->rank;
	char name[64];
	size_t i;

	if (ov->nedges == 0 && ov->nfindings == 0)
		return;
	jw_break(w);
	jw_begin_object(w);
	jw_key(w, "ph");
	jw_cstring(w, "M");
	jw_key(w, "name");
	jw_cstring(w, "process_name");
	jw_key(w, "pid");
	jw_int(w, pid);
	jw_key(w, "tid");
	jw_int(w, tid);
	jw_key(w, "args");
	jw_begin_object(w);
	jw_key(w, "name");
	jw_cstring(w, "critical path");
	jw_end_object(w);
	jw_end_object(w);
	jw_break(w);
	jw_begin_object(w);
	jw_key(w, "ph");
	jw_cstring(w, "M");
	jw_key(w, "name");
	jw_cstring(w, "thread_name");
	jw_key(w, "pid");
	jw_int(w, pid);
	jw_key(w, "tid");
	jw_int(w, tid);
	jw_key(w, "args");
	jw_begin_object(w);
	jw_key(w, "name");
	snprintf(name, sizeof(name), "critical path, rank %" PRId64, tid);
	jw_cstring(w, name);
	jw_end_object(w);
	jw_end_object(w);
	for (i = 0; i < ov->nedges; i++) {
		e = &ov->edges[i];
		if (e->rank != ov->rank || !e->critical || e->weight_ns <= 0)
			continue;
		jw_break(w);
		jw_begin_object(w);
		jw_key(w, "ph");
		jw_cstring(w, "X");
		jw_key(w, "name");
		jw_cstring(w, e->cls != NULL ? e->cls : edge_types[e->type]);
		jw_key(w, "cat");
		jw_cstring(w, "critical_path");
		jw_key(w, "pid");
		jw_int(w, pid);
		jw_key(w, "tid");
		jw_int(w, tid);
		jw_key(w, "ts");
		put_time(ov, e->from->ns);
		jw_key(w, "dur");
		jw_us(w, e->weight_ns);
		jw_key(w, "args");
		jw_begin_object(w);
		/* Not "type": HTA counts flows by it. */
		jw_key(w, "edge");
		jw_cstring(w, edge_types[e->type]);
		jw_key(w, "event");
		jw_cstring_or_null(w, e->event);
		jw_end_object(w);
		jw_end_object(w);
	}
	for (i = 0; i < ov->nfindings; i++) {
		f = &ov->findings[i];
		jw_break(w);
		jw_begin_object(w);
		jw_key(w, "ph");
		jw_cstring(w, "i");
		jw_key(w, "s");
		jw_cstring(w, "g");
		jw_key(w, "name");
		snprintf(name, sizeof(name), "finding %" PRId64, f->place);
		jw_cstring(w, name);
		jw_key(w, "cat");
		jw_cstring(w, "mrp");
		jw_key(w, "pid");
		jw_int(w, pid);
		jw_key(w, "tid");
		jw_int(w, tid);
		jw_key(w, "ts");
		put_time(ov, ov->have_start ? ov->first_start : 0);
		jw_key(w, "args");
		jw_begin_object(w);
		jw_key(w, "place");
		jw_int(w, f->place);
		jw_key(w, "rule");
		jw_cstring(w, f->rule);
		jw_key(w, "area");
		jw_cstring(w, f->area);
		jw_key(w, "observation");
		jw_cstring(w, f->observation);
		jw_end_object(w);
		jw_end_object(w);
	}
}

/*
 * Each stream's queue (launched, not finished: HTA's queue length) and
 * whether it runs, from the launches and the GPU work joined on their
 * correlation, then swept in time.
 */
static void
put_counters(struct overlay *ov)
{
	struct spillcur lc, gc, dc;
	const struct launch *l;
	const struct gpuwork *g;
	const struct delta *dl;
	struct delta d;
	struct stream *st;
	int64_t ts;

	spill_open(&lc, &ov->launches);
	spill_open(&gc, &ov->gpu);
	l = spill_next(&lc);
	while ((g = spill_next(&gc)) != NULL) {
		while (l != NULL && l->corr < g->corr)
			l = spill_next(&lc);
		memset(&d, 0, sizeof(d));
		d.pid = g->pid;
		d.stream = g->stream;
		d.ts = g->start;
		d.busy = 1;
		d.seq = ov->seq++;
		spill_add(&ov->deltas, &d);
		d.ts = g->end;
		d.busy = -1;
		if (l != NULL && l->corr == g->corr && g->corr != INT64_MIN &&
		    l->start <= g->end) {
			d.queue = -1;
			d.seq = ov->seq++;
			spill_add(&ov->deltas, &d);
			d.ts = l->start;
			d.queue = 1;
			d.busy = 0;
		}
		d.seq = ov->seq++;
		spill_add(&ov->deltas, &d);
	}
	spillcur_free(&lc);
	spillcur_free(&gc);
	spill_open(&dc, &ov->deltas);
	dl = spill_next(&dc);
	while (dl != NULL) {
		st = get_stream(ov, dl->pid, dl->stream);
		ts = dl->ts;
		do {
			st->queue += dl->queue;
			st->busy += dl->busy;
			dl = spill_next(&dc);
		} while (dl != NULL && dl->ts == ts && dl->pid == st->pid &&
		    dl->stream == st->stream);
		if (st->queue != st->queue_out &&
		    !(st->queue_out < 0 && st->queue == 0)) {
			put_counter(ov, st, "queue length", ts, st->queue);
			st->queue_out = st->queue;
		}
		if ((st->busy > 0) != st->busy_out) {
			put_counter(ov, st, "GPU busy", ts, st->busy > 0);
			st->busy_out = st->busy > 0;
		}
	}
	spillcur_free(&dc);
}

static void
put_counter(struct overlay *ov, const struct stream *st, const char *what,
    int64_t ts, int64_t value)
{
	struct jw *w = ov->w;
	char name[96];

	jw_break(w);
	jw_begin_object(w);
	jw_key(w, "ph");
	jw_cstring(w, "C");
	snprintf(name, sizeof(name), "%s (stream %" PRId64 ")", what,
	    st->stream);
	jw_key(w, "name");
	jw_cstring(w, name);
	jw_key(w, "cat");
	jw_cstring(w, "mrp");
	jw_key(w, "pid");
	jw_int(w, st->pid);
	jw_key(w, "ts");
	put_time(ov, ts);
	jw_key(w, "args");
	jw_begin_object(w);
	if (what[0] == 'q')
		jw_key(w, "kernels");
	else
		jw_key(w, "busy");
	jw_int(w, value);
	jw_end_object(w);
	jw_end_object(w);
}

static struct stream *
get_stream(struct overlay *ov, int64_t pid, int64_t stream)
{
	struct stream *st;
	size_t i;

	for (i = 0; i < ov->nstreams; i++)
		if (ov->streams[i].pid == pid && ov->streams[i].stream == stream)
			return &ov->streams[i];
	ov->streams = op_grow(ov->streams, &ov->streamcap,
		    ov->nstreams, sizeof(*ov->streams));
	st = &ov->streams[ov->nstreams++];
	memset(st, 0, sizeof(*st));
	st->pid = pid;
	st->stream = stream;
	st->queue_out = st->busy_out = -1;
	return st;
}

static int
cmp_i64(int64_t a, int64_t b)
{
	return a < b ? -1 : a > b;
}

static int
cmp_launch(const void *a, const void *b)
{
	const struct launch *x = a, *y = b;

	return x->corr != y->corr ? cmp_i64(x->corr, y->corr) :
	    cmp_i64((int64_t)x->seq, (int64_t)y->seq);
}

static int
cmp_gpu(const void *a, const void *b)
{
	const struct gpuwork *x = a, *y = b;

	return x->corr != y->corr ? cmp_i64(x->corr, y->corr) :
	    cmp_i64((int64_t)x->seq, (int64_t)y->seq);
}

static int
cmp_delta(const void *a, const void *b)
{
	const struct delta *x = a, *y = b;

	if (x->ts != y->ts)
		return cmp_i64(x->ts, y->ts);
	if (x->pid != y->pid)
		return cmp_i64(x->pid, y->pid);
	if (x->stream != y->stream)
		return cmp_i64(x->stream, y->stream);
	return cmp_i64((int64_t)x->seq, (int64_t)y->seq);
}

void
overlay_free(struct overlay *ov)
{
	size_t i;

	if (ov == NULL)
		return;
	for (i = 0; i < ov->nedges; i++) {
		free(ov->edges[i].cls);
		free(ov->edges[i].event);
	}
	free(ov->edges);
	strmap_free(&ov->nodes, free_node);
	for (i = 0; i < ov->nfindings; i++) {
		free(ov->findings[i].rule);
		free(ov->findings[i].area);
		free(ov->findings[i].observation);
	}
	free(ov->findings);
	free(ov->ranks);
	free(ov->streams);
	for (i = 0; i < sizeof(ov->top) / sizeof(ov->top[0]); i++)
		jdoc_free(&ov->top[i]);
	spill_free(&ov->launches);
	spill_free(&ov->gpu);
	spill_free(&ov->deltas);
	spool_free(&ov->pool);
	free(ov);
}

static void
free_node(void *p)
{
	struct node *nd = p;

	op_jid_free(&nd->pid);
	op_jid_free(&nd->tid);
	free(nd);
}
