/*
 * overlay: the trace, its events passed through tr-extract's reader (so
 * that times are read as the records' are), with the critical path drawn
 * on it.  See overlay.h for what is written.
 *
 * Two reads of the trace, everything between them in spill files: the
 * first finds where the records' nodes are (each event's start and end,
 * by name and time, joined with the nodes), the second writes the events
 * and notes where each flow meets its event.  Memory holds the distinct
 * names of the path's events and the spills' budget.
 */
#include <inttypes.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

#include "base/err.h"
#include "base/strmap.h"
#include "base/xalloc.h"
#include "io/json.h"
#include "io/ndjson.h"
#include "io/spill.h"
#include "trace/extract.h"
#include "trace/opbase.h"
#include "trace/overlay.h"

/* The spills in memory, as crit-path's: $MRP_CRIT_PATH_MEMORY. */
#define MEMORY	(16u << 20)

/* The edge types of crit-path's records; HTA's names add a prefix. */
static const char *const edge_types[] = {
	"operator", "dependency", "kernel_launch_delay",
	"kernel_kernel_delay", "sync_dependency"
};
enum { E_OPERATOR, E_DEPENDENCY, E_LAUNCH, E_KERNEL, E_SYNC, E_NTYPES };

/* No name: an edge without a class or an attributed event. */
#define NONAME	UINT32_MAX

/* A node's bits. */
enum {
	N_END = 1,		/* the event's end, not its start */
	N_TO = 2,		/* the edge's last node */
	N_CRITICAL = 4,		/* the edge is on the path */
	N_FLOW = 8		/* the edge gets a flow */
};

/* A pid or tid as the trace wrote it, in a spill's fixed size. */
#define JIDLEN	24
enum { JID_ABSENT, JID_NUMBER, JID_STRING };

/* Spill records; each order ends in a sequence number or an index. */
struct edgerec {		/* the records' edges, in their order */
	uint64_t	seq;
	int64_t		rank, from_ns, weight_ns;
	uint32_t	type, bits;	/* N_CRITICAL, N_FLOW */
	uint32_t	cls, event;	/* names, or NONAME */
};
struct nodeaddr {		/* an edge's node, by the event it is */
	int64_t		rank;
	uint32_t	name, bits;
	int64_t		ns;
	uint64_t	seq;
};
struct evaddr {			/* an end of an event of the trace */
	uint32_t	name, end;
	int64_t		ns;
	uint64_t	index;		/* the event's, in file order */
};
struct flowend {		/* where a flow meets an event */
	uint64_t	index, seq;
	uint32_t	bits;
	uint32_t	pad;
};
struct flowout {		/* that event's thread and the flow's time */
	uint64_t	seq;
	uint32_t	to, pad;
	int64_t		ns;
	char		pid[JIDLEN], tid[JIDLEN];	/* last byte: JID_* */
};
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

struct finding {
	int64_t	 place;
	char	*rule, *area, *observation;
};

/* A rank the records name, and its first window's start. */
struct rankseen {
	int64_t	rank;
	int	have_start;
	int64_t	start_ns;
};

/* A stream's counters as last written. */
struct stream {
	int64_t	pid, stream;
	int64_t	queue, busy;
	int64_t	queue_out, busy_out;	/* -1: not written yet */
};

struct overlay {
	const struct overlay_opts *o;
	struct strmap	 names;		/* name -> its id + 1 in n */
	char		**name;		/* by id */
	size_t		 nnames, namecap;
	uint64_t	 nedges;
	struct rankseen	*ranks;
	size_t		 nranks;
	int64_t		 rank;		/* the one drawn */
	struct finding	*findings;
	size_t		 nfindings, findcap;
	struct spool	 pool;
	struct spill	 edges, nodes, events, marks, flowends, flowouts;
	struct spill	 launches, gpu, deltas;
	uint64_t	 seq;

	/* Reading the trace. */
	int		 writing;	/* the second read */
	uint64_t	 index;		/* the event being read */
	int64_t		 origin;
	int64_t		 max_pid;
	int		 have_pid;
	struct jdoc	 top[5];	/* the top-level members kept */
	int		 have_top[5];	/* 1: before the events, 2: after */
	uint64_t	 marked;
	struct spillcur	 markcur, flowcur;
	const uint64_t	*mark;
	const struct flowend *flow;
	struct jw	*w;
	struct stream	*streams;
	size_t		 nstreams, streamcap;
};

static const char *const top_keys[] = {
	"schemaVersion", "deviceProperties", "distributedInfo",
	"baseTimeNanoseconds", "displayTimeUnit"
};

static int	add_edge(struct overlay *, const struct jdoc *, const char *);
static int	add_window(struct overlay *, const struct jdoc *,
		    const char *);
static int	add_finding(struct overlay *, const struct jdoc *);
static struct rankseen *see_rank(struct overlay *, int64_t);
static int	get_bool(const struct jdoc *, const char *, int *);
static uint32_t	intern(struct overlay *, const char *);
static int64_t	name_id(const struct overlay *, const char *, size_t);
static void	add_node(struct overlay *, const struct edgerec *,
		    const char *, int, int64_t, uint32_t);
static int	pick_rank(struct overlay *);
static int	read_trace(struct overlay *, const char *);
static int	discard(void *, const struct jdoc *);
static int	each_event(void *, const struct jdoc *,
		    const struct extract_seen *);
static int	keep_top(void *, const char *, const struct jdoc *);
static void	put_top(struct overlay *, int);
static void	find_ends(struct overlay *, const struct jdoc *,
		    const struct extract_seen *);
static void	join_nodes(struct overlay *);
static void	meet_flows(struct overlay *, const struct jdoc *,
		    const struct extract_seen *);
static void	jid_pack(char *, const struct jdoc *, const char *);
static void	jid_put(struct jw *, const char *, const char *);
static void	put_marked(struct jw *, const struct jdoc *);
static void	see_gpu(struct overlay *, const struct jdoc *,
		    const struct extract_seen *);
static void	put_time(struct overlay *, int64_t);
static void	put_flows(struct overlay *);
static void	put_flow(struct overlay *, const struct edgerec *,
		    const struct flowout *, uint64_t);
static void	put_track(struct overlay *);
static void	put_thread_meta(struct jw *, const char *, int64_t, int64_t,
		    const char *);
static void	put_counters(struct overlay *);
static void	put_counter(struct overlay *, const struct stream *,
		    const char *, int64_t, int64_t);
static struct stream *get_stream(struct overlay *, int64_t, int64_t);
static int	cmp_i64(int64_t, int64_t);
static int	cmp_u64(uint64_t, uint64_t);
static int	cmp_edge(const void *, const void *);
static int	cmp_node(const void *, const void *);
static int	cmp_evaddr(const void *, const void *);
static int	cmp_mark(const void *, const void *);
static int	cmp_flowend(const void *, const void *);
static int	cmp_flowout(const void *, const void *);
static int	cmp_launch(const void *, const void *);
static int	cmp_gpu(const void *, const void *);
static int	cmp_delta(const void *, const void *);
static void	free_finding(struct finding *);

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
	spill_init(&ov->edges, &ov->pool, sizeof(struct edgerec), cmp_edge);
	spill_init(&ov->nodes, &ov->pool, sizeof(struct nodeaddr), cmp_node);
	spill_init(&ov->events, &ov->pool, sizeof(struct evaddr),
	    cmp_evaddr);
	spill_init(&ov->marks, &ov->pool, sizeof(uint64_t), cmp_mark);
	spill_init(&ov->flowends, &ov->pool, sizeof(struct flowend),
	    cmp_flowend);
	spill_init(&ov->flowouts, &ov->pool, sizeof(struct flowout),
	    cmp_flowout);
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

	(void)line;
	if (strcmp(kind, "critical_edge") == 0)
		return add_edge(ov, d, file);
	if (strcmp(kind, "critical_path") == 0)
		return add_window(ov, d, file);
	if (strcmp(kind, "finding") == 0)
		return add_finding(ov, d);
	return 0;
}

static int
add_window(struct overlay *ov, const struct jdoc *d, const char *file)
{
	struct rankseen *r;
	int64_t rank, ns;

	if (jdoc_get_i64(d, 0, "rank", &rank) < 0 ||
	    jdoc_get_ns(d, 0, "start_us", &ns) < 0)
		return jdoc_error(file, d, 0, "a critical_path record without"
		    " rank and start_us");
	r = see_rank(ov, rank);
	if (!r->have_start || ns < r->start_ns) {
		r->start_ns = ns;
		r->have_start = 1;
	}
	return 0;
}

static int
add_edge(struct overlay *ov, const struct jdoc *d, const char *file)
{
	struct edgerec e;
	const char *from, *to, *type, *s;
	size_t n;
	int64_t to_ns;
	int from_end, to_end, critical, t;

	if (jdoc_get_i64(d, 0, "rank", &e.rank) < 0 ||
	    jdoc_get_str(d, 0, "from_event", &from, &n) < 0 ||
	    jdoc_get_str(d, 0, "to_event", &to, &n) < 0 ||
	    jdoc_get_str(d, 0, "type", &type, &n) < 0 ||
	    jdoc_get_ns(d, 0, "from_us", &e.from_ns) < 0 ||
	    jdoc_get_ns(d, 0, "to_us", &to_ns) < 0 ||
	    jdoc_get_ns(d, 0, "weight_us", &e.weight_ns) < 0 ||
	    get_bool(d, "from_end", &from_end) < 0 ||
	    get_bool(d, "to_end", &to_end) < 0 ||
	    get_bool(d, "critical", &critical) < 0)
		return jdoc_error(file, d, 0, "a critical_edge record without"
		    " rank, from and to events, their ends and times, type,"
		    " weight_us and critical");
	for (t = 0; t < E_NTYPES; t++)
		if (strcmp(type, edge_types[t]) == 0)
			break;
	if (t == E_NTYPES)
		return jdoc_error(file, d, (uint32_t)jdoc_get(d, 0, "type"),
		    "not an edge type of crit-path: %s", type);
	(void)see_rank(ov, e.rank);
	e.seq = ov->nedges++;
	e.type = (uint32_t)t;
	e.bits = critical ? N_CRITICAL : 0;
	/* HTA's: the path's dependencies, launches and syncs; or all. */
	if (ov->o->all_edges ? !(t == E_LAUNCH && e.weight_ns == 0) :
	    critical && (t == E_DEPENDENCY || t == E_LAUNCH || t == E_SYNC))
		e.bits |= N_FLOW;
	e.cls = jdoc_get_str(d, 0, "class", &s, &n) == 0 ? intern(ov, s) :
	    NONAME;
	e.event = jdoc_get_str(d, 0, "event", &s, &n) == 0 ?
	    intern(ov, s) : NONAME;
	spill_add(&ov->edges, &e);
	if (e.bits != 0) {
		add_node(ov, &e, from, from_end, e.from_ns, 0);
		add_node(ov, &e, to, to_end, to_ns, N_TO);
	}
	return 0;
}

static void
add_node(struct overlay *ov, const struct edgerec *e, const char *name,
    int end, int64_t ns, uint32_t to)
{
	struct nodeaddr a;

	memset(&a, 0, sizeof(a));
	a.rank = e->rank;
	a.name = intern(ov, name);
	a.bits = e->bits | to | (end ? N_END : 0);
	a.ns = ns;
	a.seq = e->seq;
	spill_add(&ov->nodes, &a);
}

static int
get_bool(const struct jdoc *d, const char *key, int *v)
{
	int i = jdoc_get(d, 0, key);

	if (i < 0 || (d->node[i].type != JT_TRUE &&
	    d->node[i].type != JT_FALSE))
		return -1;
	*v = d->node[i].type == JT_TRUE;
	return 0;
}

static int
add_finding(struct overlay *ov, const struct jdoc *d)
{
	struct finding *f;
	const char *s;
	size_t n;

	ov->findings = op_grow(ov->findings, &ov->findcap, ov->nfindings,
	    sizeof(*ov->findings));
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

static struct rankseen *
see_rank(struct overlay *ov, int64_t rank)
{
	size_t i;

	for (i = 0; i < ov->nranks; i++)
		if (ov->ranks[i].rank == rank)
			return &ov->ranks[i];
	ov->ranks = xreallocarray(ov->ranks, ov->nranks + 1,
	    sizeof(*ov->ranks));
	memset(&ov->ranks[ov->nranks], 0, sizeof(ov->ranks[0]));
	ov->ranks[ov->nranks].rank = rank;
	return &ov->ranks[ov->nranks++];
}

/* Names are few (the distinct names of the path's events and classes). */
static uint32_t
intern(struct overlay *ov, const char *s)
{
	struct strent *ent;

	ent = strmap_put(&ov->names, s, strlen(s));
	if (ent->n == 0) {
		if (ov->nnames == NONAME)
			die("more than %u names on a critical path", NONAME);
		ov->name = op_grow(ov->name, &ov->namecap, ov->nnames,
		    sizeof(*ov->name));
		ov->name[ov->nnames++] = xstrdup(s);
		ent->n = ov->nnames;
	}
	return (uint32_t)(ent->n - 1);
}

static int64_t
name_id(const struct overlay *ov, const char *s, size_t len)
{
	const struct strent *ent = strmap_get(&ov->names, s, len);

	return ent == NULL ? -1 : (int64_t)ent->n - 1;
}

/* The rank drawn: the one asked for, else the only one the records name. */
static int
pick_rank(struct overlay *ov)
{
	ov->rank = ov->o->rank;
	if (ov->rank >= 0 || ov->nranks <= 1) {
		if (ov->rank < 0 && ov->nranks == 1)
			ov->rank = ov->ranks[0].rank;
		return 0;
	}
	warnmsg("the records hold the critical paths of %zu ranks (%" PRId64
	    " and %" PRId64 " among them): name the trace's with -r",
	    ov->nranks, ov->ranks[0].rank, ov->ranks[1].rank);
	return -1;
}

int
overlay_write(struct overlay *ov, const char *path, FILE *out,
    const char *outname)
{
	struct stat st;
	int rc;

	if (pick_rank(ov) < 0)
		return -1;
	if (path == NULL || strcmp(path, "-") == 0 || stat(path, &st) < 0 ||
	    !S_ISREG(st.st_mode)) {
		if (path != NULL && strcmp(path, "-") != 0 &&
		    stat(path, &st) < 0) {
			warnmsg("%s:", path);
			return 1;
		}
		warnmsg("%s: the trace is read twice: name a regular file",
		    path == NULL ? "-" : path);
		return -1;
	}
	if ((rc = read_trace(ov, path)) != 0)
		return rc;
	join_nodes(ov);
	ov->w = jw_new(out);
	jw_name(ov->w, outname);
	jw_begin_object(ov->w);
	/* Where they were: a reader takes a rank for the events after it. */
	put_top(ov, 1);
	jw_key(ov->w, "traceEvents");
	jw_begin_array(ov->w);
	ov->writing = 1;
	spill_open(&ov->markcur, &ov->marks);
	spill_open(&ov->flowcur, &ov->flowends);
	ov->mark = spill_next(&ov->markcur);
	ov->flow = spill_next(&ov->flowcur);
	rc = read_trace(ov, path);
	spillcur_free(&ov->markcur);
	spillcur_free(&ov->flowcur);
	if (rc != 0) {
		jw_free(ov->w);
		ov->w = NULL;
		return rc;
	}
	if (ov->marked == 0 && ov->nedges > 0)
		warnmsg("%s: warning: none of the path's events is in the"
		    " trace: are the records from another trace?", path);
	put_flows(ov);
	put_track(ov);
	put_counters(ov);
	jw_end_array(ov->w);
	put_top(ov, 2);
	jw_end(ov->w);
	jw_free(ov->w);
	ov->w = NULL;
	return 0;
}

/* One read of the trace through tr-extract's reader, records discarded. */
static int
read_trace(struct overlay *ov, const char *path)
{
	struct extract_opts xo;
	struct jw *sink;
	int rc;

	memset(&xo, 0, sizeof(xo));
	xo.each = each_event;
	xo.top = keep_top;
	xo.hook_arg = ov;
	ov->index = 0;
	sink = jw_new_doc(discard, NULL);
	rc = extract_trace(path, sink, &xo);
	jw_free(sink);
	return rc;
}

static int
discard(void *arg, const struct jdoc *d)
{
	(void)arg;
	(void)d;
	return 0;
}

static int
each_event(void *arg, const struct jdoc *d, const struct extract_seen *s)
{
	struct overlay *ov = arg;
	int marked = 0;

	if (!ov->writing) {
		int64_t pid;

		if (s->timed)
			ov->origin = s->origin_ns;
		if (jdoc_get_i64(d, 0, "pid", &pid) == 0 &&
		    (!ov->have_pid || pid > ov->max_pid)) {
			ov->max_pid = pid;
			ov->have_pid = 1;
		}
		find_ends(ov, d, s);
		if (s->timed && s->ph == 'X')
			see_gpu(ov, d, s);
		ov->index++;
		return 0;
	}
	while (ov->mark != NULL && *ov->mark <= ov->index) {
		marked |= *ov->mark == ov->index;
		ov->mark = spill_next(&ov->markcur);
	}
	meet_flows(ov, d, s);
	jw_break(ov->w);
	if (marked) {
		put_marked(ov->w, d);
		ov->marked++;
	} else
		jw_jdoc(ov->w, d, 0);
	ov->index++;
	return 0;
}

static int
keep_top(void *arg, const char *key, const struct jdoc *value)
{
	struct overlay *ov = arg;
	size_t i;

	if (ov->writing)
		return 0;
	for (i = 0; i < sizeof(top_keys) / sizeof(top_keys[0]); i++)
		if (strcmp(key, top_keys[i]) == 0) {
			jdoc_copy(&ov->top[i], value);
			ov->have_top[i] = ov->index == 0 ? 1 : 2;
		}
	return 0;
}

static void
put_top(struct overlay *ov, int where)
{
	size_t i;

	for (i = 0; i < sizeof(top_keys) / sizeof(top_keys[0]); i++)
		if (ov->have_top[i] == where) {
			jw_ckey(ov->w, top_keys[i]);
			jw_jdoc(ov->w, &ov->top[i], 0);
		}
}

/* The ends of an event that a node of the path may be: its start, end. */
static void
find_ends(struct overlay *ov, const struct jdoc *d,
    const struct extract_seen *s)
{
	struct evaddr a;
	const char *name;
	size_t len;
	int64_t id;

	if (!s->timed || (s->ph != 'X' && s->ph != 'B' && s->ph != 'E') ||
	    jdoc_get_str(d, 0, "name", &name, &len) < 0 ||
	    (id = name_id(ov, name, len)) < 0)
		return;
	memset(&a, 0, sizeof(a));
	a.name = (uint32_t)id;
	a.index = ov->index;
	if (s->ph != 'E') {
		a.end = 0;
		a.ns = s->start_ns;
		spill_add(&ov->events, &a);
	}
	if (s->ph != 'B') {
		a.end = 1;
		a.ns = s->start_ns + (s->ph == 'X' ? s->dur_ns : 0);
		spill_add(&ov->events, &a);
	}
}

/*
 * The nodes of the drawn rank joined with the events' ends, both in the
 * order of name, end and time: the events to mark, and where each flow
 * meets its event.
 */
static void
join_nodes(struct overlay *ov)
{
	struct spillcur nc, ec;
	const struct nodeaddr *n;
	const struct evaddr *e;
	uint64_t *group = NULL;
	size_t ngroup = 0, cap = 0, i;
	struct evaddr key;
	struct flowend f;
	int have_key = 0;

	spill_open(&nc, &ov->nodes);
	spill_open(&ec, &ov->events);
	e = spill_next(&ec);
	memset(&key, 0, sizeof(key));
	while ((n = spill_next(&nc)) != NULL) {
		if (n->rank != ov->rank)
			continue;
		if (!have_key || key.name != n->name ||
		    key.end != (n->bits & N_END ? 1u : 0u) || key.ns != n->ns) {
			key.name = n->name;
			key.end = n->bits & N_END ? 1 : 0;
			key.ns = n->ns;
			key.index = 0;
			have_key = 1;
			while (e != NULL && cmp_evaddr(e, &key) < 0)
				e = spill_next(&ec);
			ngroup = 0;
			while (e != NULL && e->name == key.name &&
			    e->end == key.end && e->ns == key.ns) {
				group = op_grow(group, &cap, ngroup,
				    sizeof(*group));
				group[ngroup++] = e->index;
				e = spill_next(&ec);
			}
		}
		for (i = 0; i < ngroup; i++) {
			if (n->bits & N_CRITICAL)
				spill_add(&ov->marks, &group[i]);
			if (n->bits & N_FLOW) {
				memset(&f, 0, sizeof(f));
				f.index = group[i];
				f.seq = n->seq;
				f.bits = n->bits;
				spill_add(&ov->flowends, &f);
			}
		}
	}
	free(group);
	spillcur_free(&nc);
	spillcur_free(&ec);
}

/* Where the flows of the event being written meet it. */
static void
meet_flows(struct overlay *ov, const struct jdoc *d,
    const struct extract_seen *s)
{
	struct flowout o;
	int64_t device;
	int args, gpu;

	if (ov->flow == NULL || ov->flow->index != ov->index)
		return;
	args = jdoc_get(d, 0, "args");
	gpu = args >= 0 && d->node[args].type == JT_OBJECT &&
	    jdoc_get_i64(d, (uint32_t)args, "device", &device) == 0 &&
	    device >= 0;
	for (; ov->flow != NULL && ov->flow->index == ov->index;
	    ov->flow = spill_next(&ov->flowcur)) {
		memset(&o, 0, sizeof(o));
		o.seq = ov->flow->seq;
		o.to = ov->flow->bits & N_TO ? 1 : 0;
		o.ns = s->start_ns;
		if (ov->flow->bits & N_END) {
			if (s->ph == 'X')
				o.ns += s->dur_ns;
			/* Inside a GPU slice, so that viewers draw the arrow. */
			if (gpu)
				o.ns -= s->dur_ns < 1000 ? s->dur_ns : 1000;
		}
		jid_pack(o.pid, d, "pid");
		jid_pack(o.tid, d, "tid");
		spill_add(&ov->flowouts, &o);
	}
}

/* A pid or tid into a fixed slot; one too long to fit stays absent. */
static void
jid_pack(char *slot, const struct jdoc *d, const char *key)
{
	struct jid id;
	size_t n;

	memset(slot, 0, JIDLEN);
	if (op_get_jid(d, jdoc_get(d, 0, key), &id) < 0 || id.text == NULL ||
	    (n = strlen(id.text)) >= JIDLEN - 1)
		return;
	memcpy(slot, id.text, n);
	slot[JIDLEN - 1] = id.str ? JID_STRING : JID_NUMBER;
}

static void
jid_put(struct jw *w, const char *key, const char *slot)
{
	struct jid id;

	id.text = slot[JIDLEN - 1] == JID_ABSENT ? NULL : (char *)slot;
	id.str = slot[JIDLEN - 1] == JID_STRING;
	op_put_jid(w, key, &id);
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

/* HTA's flows, in the records' order, each where its events were. */
static void
put_flows(struct overlay *ov)
{
	struct spillcur ec, oc;
	const struct edgerec *e;
	const struct flowout *o;
	struct flowout from;
	uint64_t id = 0, lost = 0;
	int have_from, have_to;

	spill_open(&ec, &ov->edges);
	spill_open(&oc, &ov->flowouts);
	o = spill_next(&oc);
	while ((e = spill_next(&ec)) != NULL) {
		if (e->rank != ov->rank || !(e->bits & N_FLOW))
			continue;
		while (o != NULL && o->seq < e->seq)
			o = spill_next(&oc);
		have_from = have_to = 0;
		for (; o != NULL && o->seq == e->seq; o = spill_next(&oc)) {
			if (!o->to && !have_from) {
				from = *o;
				have_from = 1;
			} else if (o->to && have_from && !have_to) {
				put_flow(ov, e, &from, id);
				put_flow(ov, e, o, id);
				have_to = 1;
				id++;
			}
		}
		lost += !have_to;
	}
	spillcur_free(&ec);
	spillcur_free(&oc);
	if (lost > 0)
		warnmsg("warning: %" PRIu64 " edges have an event the trace"
		    " does not hold; they have no flow", lost);
}

static void
put_flow(struct overlay *ov, const struct edgerec *e,
    const struct flowout *o, uint64_t id)
{
	struct jw *w = ov->w;
	char type[64];

	jw_break(w);
	jw_begin_object(w);
	jw_key(w, "ph");
	jw_cstring(w, o->to ? "f" : "s");
	jw_key(w, "id");
	jw_uint(w, id);
	jid_put(w, "pid", o->pid);
	jid_put(w, "tid", o->tid);
	jw_key(w, "ts");
	put_time(ov, o->ns);
	jw_key(w, "cat");
	jw_cstring(w, "critical_path");
	jw_key(w, "name");
	jw_cstring(w, "critical_path");
	jw_key(w, "args");
	jw_begin_object(w);
	jw_key(w, "weight");
	jw_us(w, e->weight_ns);
	jw_key(w, "critical");
	jw_bool(w, (e->bits & N_CRITICAL) != 0);
	jw_key(w, "type");
	snprintf(type, sizeof(type), "critical_path_%s", edge_types[e->type]);
	jw_cstring(w, type);
	jw_end_object(w);
	if (o->to) {
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
	struct spillcur ec;
	const struct edgerec *e;
	const struct finding *f;
	const struct rankseen *r = NULL;
	int64_t pid = ov->have_pid && ov->max_pid < INT64_MAX ?
	    ov->max_pid + 1 : 1, tid = ov->rank < 0 ? 0 : ov->rank;
	char name[64];
	size_t i;

	if (ov->nedges == 0 && ov->nfindings == 0)
		return;
	for (i = 0; i < ov->nranks; i++)
		if (ov->ranks[i].rank == ov->rank)
			r = &ov->ranks[i];
	put_thread_meta(w, "process_name", pid, tid, "critical path");
	snprintf(name, sizeof(name), "critical path, rank %" PRId64, tid);
	put_thread_meta(w, "thread_name", pid, tid, name);
	spill_open(&ec, &ov->edges);
	while ((e = spill_next(&ec)) != NULL) {
		if (e->rank != ov->rank || !(e->bits & N_CRITICAL) ||
		    e->weight_ns <= 0)
			continue;
		jw_break(w);
		jw_begin_object(w);
		jw_key(w, "ph");
		jw_cstring(w, "X");
		jw_key(w, "name");
		jw_cstring(w, e->cls != NONAME ? ov->name[e->cls] :
		    edge_types[e->type]);
		jw_key(w, "cat");
		jw_cstring(w, "critical_path");
		jw_key(w, "pid");
		jw_int(w, pid);
		jw_key(w, "tid");
		jw_int(w, tid);
		jw_key(w, "ts");
		put_time(ov, e->from_ns);
		jw_key(w, "dur");
		jw_us(w, e->weight_ns);
		jw_key(w, "args");
		jw_begin_object(w);
		/* Not "type": HTA counts flows by it. */
		jw_key(w, "edge");
		jw_cstring(w, edge_types[e->type]);
		jw_key(w, "event");
		jw_cstring_or_null(w, e->event != NONAME ?
		    ov->name[e->event] : NULL);
		jw_end_object(w);
		jw_end_object(w);
	}
	spillcur_free(&ec);
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
		put_time(ov, r != NULL && r->have_start ? r->start_ns : 0);
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

static void
put_thread_meta(struct jw *w, const char *what, int64_t pid, int64_t tid,
    const char *name)
{
	jw_break(w);
	jw_begin_object(w);
	jw_key(w, "ph");
	jw_cstring(w, "M");
	jw_key(w, "name");
	jw_cstring(w, what);
	jw_key(w, "pid");
	jw_int(w, pid);
	jw_key(w, "tid");
	jw_int(w, tid);
	jw_key(w, "args");
	jw_begin_object(w);
	jw_key(w, "name");
	jw_cstring(w, name);
	jw_end_object(w);
	jw_end_object(w);
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
		if ((st->busy > 0) != st->busy_out &&
		    !(st->busy_out < 0 && st->busy == 0)) {
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
cmp_u64(uint64_t a, uint64_t b)
{
	return a < b ? -1 : a > b;
}

static int
cmp_edge(const void *a, const void *b)
{
	return cmp_u64(((const struct edgerec *)a)->seq,
	    ((const struct edgerec *)b)->seq);
}

static int
cmp_node(const void *a, const void *b)
{
	const struct nodeaddr *x = a, *y = b;

	if (x->rank != y->rank)
		return cmp_i64(x->rank, y->rank);
	if (x->name != y->name)
		return x->name < y->name ? -1 : 1;
	if ((x->bits & N_END) != (y->bits & N_END))
		return x->bits & N_END ? 1 : -1;
	if (x->ns != y->ns)
		return cmp_i64(x->ns, y->ns);
	if (x->seq != y->seq)
		return cmp_u64(x->seq, y->seq);
	return (x->bits & N_TO) != (y->bits & N_TO) ?
	    (x->bits & N_TO ? 1 : -1) : 0;
}

static int
cmp_evaddr(const void *a, const void *b)
{
	const struct evaddr *x = a, *y = b;

	if (x->name != y->name)
		return x->name < y->name ? -1 : 1;
	if (x->end != y->end)
		return x->end < y->end ? -1 : 1;
	if (x->ns != y->ns)
		return cmp_i64(x->ns, y->ns);
	return cmp_u64(x->index, y->index);
}

static int
cmp_mark(const void *a, const void *b)
{
	return cmp_u64(*(const uint64_t *)a, *(const uint64_t *)b);
}

static int
cmp_flowend(const void *a, const void *b)
{
	const struct flowend *x = a, *y = b;

	if (x->index != y->index)
		return cmp_u64(x->index, y->index);
	if (x->seq != y->seq)
		return cmp_u64(x->seq, y->seq);
	return cmp_u64(x->bits, y->bits);
}

static int
cmp_flowout(const void *a, const void *b)
{
	const struct flowout *x = a, *y = b;

	if (x->seq != y->seq)
		return cmp_u64(x->seq, y->seq);
	return cmp_u64(x->to, y->to);
}

static int
cmp_launch(const void *a, const void *b)
{
	const struct launch *x = a, *y = b;

	return x->corr != y->corr ? cmp_i64(x->corr, y->corr) :
	    cmp_u64(x->seq, y->seq);
}

static int
cmp_gpu(const void *a, const void *b)
{
	const struct gpuwork *x = a, *y = b;

	return x->corr != y->corr ? cmp_i64(x->corr, y->corr) :
	    cmp_u64(x->seq, y->seq);
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
	return cmp_u64(x->seq, y->seq);
}

static void
free_finding(struct finding *f)
{
	free(f->rule);
	free(f->area);
	free(f->observation);
}

void
overlay_free(struct overlay *ov)
{
	size_t i;

	if (ov == NULL)
		return;
	for (i = 0; i < ov->nnames; i++)
		free(ov->name[i]);
	free(ov->name);
	strmap_free(&ov->names, NULL);
	for (i = 0; i < ov->nfindings; i++)
		free_finding(&ov->findings[i]);
	free(ov->findings);
	free(ov->ranks);
	free(ov->streams);
	for (i = 0; i < sizeof(ov->top) / sizeof(ov->top[0]); i++)
		jdoc_free(&ov->top[i]);
	spill_free(&ov->edges);
	spill_free(&ov->nodes);
	spill_free(&ov->events);
	spill_free(&ov->marks);
	spill_free(&ov->flowends);
	spill_free(&ov->flowouts);
	spill_free(&ov->launches);
	spill_free(&ov->gpu);
	spill_free(&ov->deltas);
	spool_free(&ov->pool);
	free(ov);
}
