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
#include "trace/ovcore.h"
#include "trace/ovcount.h"
#include "trace/overlay.h"

/* The spills in memory, as crit-path's: $MRP_CRIT_PATH_MEMORY. */
#define MEMORY	(16u << 20)

/* A pid or tid as the trace wrote it, in a spill's fixed size. */
#define JIDLEN	24
enum { JID_ABSENT, JID_NUMBER, JID_STRING };

/* Spill records; each order ends in a sequence number or an index. */
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

const char *const ov_edge_types[] = {
	"operator", "dependency", "kernel_launch_delay",
	"kernel_kernel_delay", "sync_dependency"
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
static int	no_records(void *, const struct jdoc *)
		    __attribute__((noreturn));
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
static void	put_flows(struct overlay *);
static void	put_flow(struct overlay *, const struct edgerec *,
		    const struct flowout *, uint64_t);
static int	cmp_i64(int64_t, int64_t);
static int	cmp_u64(uint64_t, uint64_t);
static int	cmp_edge(const void *, const void *);
static int	cmp_node(const void *, const void *);
static int	cmp_evaddr(const void *, const void *);
static int	cmp_mark(const void *, const void *);
static int	cmp_flowend(const void *, const void *);
static int	cmp_flowout(const void *, const void *);

struct overlay *
overlay_new(const struct overlay_opts *o)
{
	struct overlay *ov;

	ov = xcalloc(1, sizeof(*ov));
	ov->o = o;
	ov->pool.budget = spool_budget("MRP_CRIT_PATH_MEMORY", MEMORY);
	spill_init(&ov->edges, &ov->pool, sizeof(struct edgerec), cmp_edge);
	spill_init(&ov->nodes, &ov->pool, sizeof(struct nodeaddr), cmp_node);
	spill_init(&ov->events, &ov->pool, sizeof(struct evaddr),
	    cmp_evaddr);
	spill_init(&ov->marks, &ov->pool, sizeof(uint64_t), cmp_mark);
	spill_init(&ov->flowends, &ov->pool, sizeof(struct flowend),
	    cmp_flowend);
	spill_init(&ov->flowouts, &ov->pool, sizeof(struct flowout),
	    cmp_flowout);
	ovcount_init(&ov->counters, &ov->pool);
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
		if (strcmp(type, ov_edge_types[t]) == 0)
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
	if (path == NULL || strcmp(path, "-") == 0)
		path = NULL;
	else if (stat(path, &st) < 0) {
		warnmsg("%s:", path);
		return 1;
	}
	if (path == NULL || !S_ISREG(st.st_mode)) {
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
	ovtrack_write(ov);
	ovcount_write(&ov->counters, ov->w, ov->origin);
	jw_end_array(ov->w);
	put_top(ov, 2);
	jw_end(ov->w);
	jw_free(ov->w);
	ov->w = NULL;
	return 0;
}

/* One read of the trace through tr-extract's reader, its hooks alone. */
static int
read_trace(struct overlay *ov, const char *path)
{
	struct extract_opts xo;
	struct jw *none;
	int rc;

	memset(&xo, 0, sizeof(xo));
	xo.each = each_event;
	xo.top = keep_top;
	xo.hook_arg = ov;
	xo.hooks_only = 1;
	/* The first read said what the trace lacks. */
	xo.quiet = ov->writing;
	ov->index = 0;
	none = jw_new_doc(no_records, NULL);
	rc = extract_trace(path, none, &xo);
	jw_free(none);
	return rc;
}

/* hooks_only writes none: this writer is never handed one. */
static int
no_records(void *arg, const struct jdoc *d)
{
	(void)arg;
	(void)d;
	abort();
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
			ovcount_see(&ov->counters, d, s);
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
	jw_us(w, ov->origin + o->ns);
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
	snprintf(type, sizeof(type), "critical_path_%s", ov_edge_types[e->type]);
	jw_cstring(w, type);
	jw_end_object(w);
	if (o->to) {
		jw_key(w, "bp");
		jw_cstring(w, "e");
	}
	jw_end_object(w);
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
	for (i = 0; i < ov->nfindings; i++) {
		free(ov->findings[i].rule);
		free(ov->findings[i].area);
		free(ov->findings[i].observation);
	}
	free(ov->findings);
	free(ov->ranks);
	for (i = 0; i < sizeof(ov->top) / sizeof(ov->top[0]); i++)
		jdoc_free(&ov->top[i]);
	spill_free(&ov->edges);
	spill_free(&ov->nodes);
	spill_free(&ov->events);
	spill_free(&ov->marks);
	spill_free(&ov->flowends);
	spill_free(&ov->flowouts);
	ovcount_free(&ov->counters);
	spool_free(&ov->pool);
	free(ov);
}
