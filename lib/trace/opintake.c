/*
 * opintake: tr-extract's records in, one at a time, from NDJSON or from an
 * in-process writer, its events typed (trace/trevent.h) either way.  Owns
 * the trace being read (its threads and devices, their events spilled
 * under the memory budget), pid and tid kept as the trace wrote them, the
 * rank and window of every trace read so far (a copy is an error, a window
 * is not), and each rank's sums, which a finished trace is nested
 * (opnest.c), joined to its GPU work (opgpu.c) and merged into.  Data
 * errors are reported at the record's node.
 */
#include <inttypes.h>
#include <stdlib.h>
#include <string.h>

#include "base/err.h"
#include "base/sha256.h"
#include "base/xalloc.h"
#include "trace/opbase.h"
#include "trace/opcoll.h"
#include "trace/opcompile.h"
#include "trace/opcore.h"
#include "trace/opdevice.h"
#include "trace/opfield.h"
#include "trace/opgpu.h"
#include "trace/opgraph.h"
#include "trace/opledger.h"
#include "trace/opnames.h"
#include "trace/opnest.h"
#include "trace/opserve.h"
#include "trace/opshape.h"
#include "trace/opstep.h"
#include "trace/opsums.h"
#include "trace/trevent.h"

static int	str_is(const char *, const char *, const char *);
static void	thr_free(void *);
static void	dev_free(void *);
static int	on_thread(struct oprank *);
static void	on_trace(struct oprank *, int64_t, int, int64_t, int64_t,
		    int64_t);
static int	trace_record(struct oprank *);
static uint64_t	thr_id(struct oprank *, int, int);
static void	shape_call(struct oprank *, const char *,
		    const struct shapenodes *,
		    const struct cev *);
static size_t	jid_key(char *, size_t, const struct jid *);
static uint64_t	key_lead(const void *);

/*
 * What an event is, by its "cat" (PyTorch's, or its older spelling), and
 * so which handler takes it in; an event without a cat is an operator.
 */
enum evclass {
	EV_IGNORED,	/* a category of no interest */
	EV_OP,		/* an operator or a record_function label */
	EV_PY,		/* a Python frame */
	EV_KERNEL,	/* GPU work: a kernel */
	EV_MEMSET,	/* GPU work: a memset */
	EV_MEMCPY,	/* GPU work: a copy */
	EV_RUNTIME,	/* a runtime or driver API call */
	EV_OVERHEAD	/* the profiler's own */
};

static const struct {
	const char	*cat;
	enum evclass	 cls;
} evcats[] = {
	{ "cpu_op", EV_OP }, { "Operator", EV_OP },
	{ "user_annotation", EV_OP },
	{ "python_function", EV_PY },
	{ "kernel", EV_KERNEL }, { "Kernel", EV_KERNEL },
	{ "mtia_ccp_events", EV_KERNEL },
	{ "gpu_memset", EV_MEMSET }, { "Memset", EV_MEMSET },
	{ "gpu_memcpy", EV_MEMCPY }, { "Memcpy", EV_MEMCPY },
	{ "cuda_runtime", EV_RUNTIME }, { "Runtime", EV_RUNTIME },
	{ "cuda_driver", EV_RUNTIME }, { "mtia_runtime", EV_RUNTIME },
	{ "xpu_runtime", EV_RUNTIME }, { "privateuse1_runtime", EV_RUNTIME },
	{ "overhead", EV_OVERHEAD }
};

/* An event as its handler takes it: checked, times in ns. */
struct event {
	const struct trevent	*n;
	struct shapenodes	 sn;
	struct collargs		 ca;
	const char		*cat;	/* NULL when it has none */
	const char		*s;	/* its name */
	size_t			 len;
	int64_t			 ts, dur;
	int64_t			 corr;
	int			 has_corr;
};

static int	on_overhead(struct oprank *, const struct event *,
		    enum evclass);
static int	on_runtime(struct oprank *, const struct event *,
		    enum evclass);
static int	on_gpu(struct oprank *, const struct event *, enum evclass);
static int	on_python(struct oprank *, const struct event *,
		    enum evclass);
static int	on_cpu(struct oprank *, const struct event *, enum evclass);
static enum evclass event_class(const char *);

static int	(*const on_class[])(struct oprank *, const struct event *,
		    enum evclass) = {
	[EV_OP] = on_cpu, [EV_PY] = on_python, [EV_KERNEL] = on_gpu,
	[EV_MEMSET] = on_gpu, [EV_MEMCPY] = on_gpu, [EV_RUNTIME] = on_runtime,
	[EV_OVERHEAD] = on_overhead
};

int
oprank_record(struct oprank *r, const char *file, const struct jdoc *d)
{
	const char *kind = ndin_kind(d);
	struct trevent ev;

	r->file = file;
	r->doc = d;
	if (strcmp(kind, "event") == 0) {
		trevent_from_doc(d, &ev);
		return oprank_event(r, file, &ev);
	}
	if (strcmp(kind, "thread") == 0)
		return on_thread(r);
	if (strcmp(kind, "trace") == 0)
		return trace_record(r);
	if (strcmp(kind, "op_partial") == 0)
		return jdoc_error(file, d, 0, "a partial: merge it with --merge");
	return 0;
}

int
oprank_input_end(struct oprank *r, const char *file)
{
	if (!r->t.any)
		return 0;
	warnmsg("%s: input ends inside a trace: no \"trace\" record after"
	    " its events", file);
	on_trace(r, -1, 0, 0, 0, 0);
	return 1;
}

int
oprank_file(struct oprank *r, const char *path)
{
	struct ndin *in;
	const char *file;
	int rc;

	if ((in = ndin_open(path)) == NULL) {
		warnmsg("%s:", path);
		return 1;
	}
	file = ndin_name(in);
	while ((rc = ndin_next(in, &r->in)) == 1)
		if ((rc = oprank_record(r, file, &r->in)) < 0)
			break;
	if (rc == 0)
		rc = oprank_input_end(r, file);
	ndin_close(in);
	return rc;
}

/* Writes id as a kind letter and its text, cut to fit in n bytes (n > 0). */
static size_t
jid_key(char *buf, size_t n, const struct jid *id)
{
	size_t len;

	if (id->text == NULL) {
		buf[0] = '-';
		return 1;
	}
	buf[0] = id->str ? 's' : 'n';
	if ((len = strlen(id->text)) > n - 1)
		len = n - 1;
	memcpy(buf + 1, id->text, len);
	return len + 1;
}

/*
 * The id of the thread of pid/tid nodes: its place in the table, where
 * it goes on first sight while the table has room, or THR_HASHED and a
 * digest of its key.
 */
static uint64_t
thr_id(struct oprank *r, int pid, int tid)
{
	struct trace *t = &r->t;
	struct jid p, q;
	struct strent *e;
	struct sha256 h;
	struct thr *th;
	char key[512], hex[65];
	size_t n;

	op_get_jid(r->doc, pid, &p);
	op_get_jid(r->doc, tid, &q);
	/* Every CPU event comes here: no snprintf. */
	n = jid_key(key, sizeof(key) - 2, &p);
	key[n++] = '\n';
	n += jid_key(key + n, sizeof(key) - n, &q);
	if (t->nthv >= r->maxthr &&
	    (e = strmap_get(&t->threads, key, n)) == NULL) {
		sha256_init(&h);
		sha256_update(&h, key, n);
		sha256_hex(&h, hex);
		hex[16] = '\0';
		return THR_HASHED | strtoull(hex, NULL, 16) >> 1;
	}
	e = strmap_put(&t->threads, key, n);
	if ((th = e->val) == NULL) {
		th = e->val = xcalloc(1, sizeof(*th));
		op_jid_copy(&th->pid, &p);
		op_jid_copy(&th->tid, &q);
		th->id = t->nthv;
		t->thv = op_grow(t->thv, &t->capthv, t->nthv,
		    sizeof(*t->thv));
		t->thv[t->nthv++] = th;
	}
	return th->id;
}

static int
str_is(const char *s, const char *a, const char *b)
{
	return strcmp(s, a) == 0 || (b != NULL && strcmp(s, b) == 0);
}

/* The bytes of a GPU copy or memset, where the trace counts them. */
static void
add_bytes(struct stat *s, const struct jdoc *d, uint32_t node)
{
	int64_t v;

	if (d->node[node].type != JT_NUMBER ||
	    jnum_int64(jdoc_str(d, node), d->node[node].len, &v) < 0 || v < 0)
		return;
	s->bytes = op_sat_add(s->bytes, v);
}

static enum evclass
event_class(const char *cat)
{
	size_t i;

	if (cat == NULL)
		return EV_OP;
	for (i = 0; i < sizeof(evcats) / sizeof(evcats[0]); i++)
		if (strcmp(cat, evcats[i].cat) == 0)
			return evcats[i].cls;
	return EV_IGNORED;
}

/*
 * An event record: classified by its category, checked (a time, a
 * thread, a correlation), and handed to the handler of its class.
 */
int
oprank_event(struct oprank *r, const char *file, const struct trevent *n)
{
	const struct jdoc *d = n->d;
	struct event ev;
	enum evclass cls;
	int pid, tid;

	r->file = file;
	r->doc = d;
	ev.n = n;
	ev.cat = n->cat >= 0 && d->node[n->cat].type == JT_STRING ?
	    jdoc_str(d, (uint32_t)n->cat) : NULL;
	if ((cls = event_class(ev.cat)) == EV_IGNORED)
		return 0;
	if (n->ts_read == TRT_NONE)
		return jdoc_error(file, d, n->ts < 0 ? 0 : (uint32_t)n->ts,
		    "event has no \"ts\" number");
	if (n->dur_read == TRT_NONE)
		return jdoc_error(file, d, n->dur < 0 ? 0 : (uint32_t)n->dur,
		    "event has no \"dur\" number");
	if (n->ts_read == TRT_RANGE)
		return jdoc_error(file, d, (uint32_t)n->ts,
		    "\"ts\" is out of range");
	if (n->dur_read == TRT_RANGE)
		return jdoc_error(file, d, (uint32_t)n->dur,
		    "\"dur\" is out of range");
	ev.ts = n->ts_ns;
	ev.dur = n->dur_ns > 0 ? n->dur_ns : 0;
	if (ev.ts > INT64_MAX - ev.dur)
		return jdoc_error(file, d, (uint32_t)n->dur,
		    "\"dur\" is out of range");
	pid = n->pid >= 0 && d->node[n->pid].type != JT_NUMBER &&
	    d->node[n->pid].type != JT_STRING;
	tid = n->tid >= 0 && d->node[n->tid].type != JT_NUMBER &&
	    d->node[n->tid].type != JT_STRING;
	if (pid || tid)
		return jdoc_error(file, d, (uint32_t)(pid ? n->pid : n->tid),
		    "\"pid\" and \"tid\" must be numbers or strings");
	ev.corr = 0;
	ev.has_corr = n->corr >= 0 && d->node[n->corr].type == JT_NUMBER &&
	    jnum_int64(jdoc_str(d, (uint32_t)n->corr), d->node[n->corr].len,
	    &ev.corr) == 0;
	if (n->name >= 0 && d->node[n->name].type == JT_STRING) {
		ev.s = jdoc_str(d, (uint32_t)n->name);
		ev.len = d->node[n->name].len;
	} else {
		ev.s = "(no name)";
		ev.len = strlen(ev.s);
	}
	ev.sn = (struct shapenodes){ n->dims, n->types, n->strides,
	    n->concrete };
	ev.ca = (struct collargs){ n->coll, n->group, n->group_size,
	    n->in_nelems, n->out_nelems, n->dtype };
	r->t.any = 1;
	return on_class[cls](r, &ev, cls);
}

/* The profiler's own work: a slice of the ledger, nothing more. */
static int
on_overhead(struct oprank *r, const struct event *ev, enum evclass cls)
{
	struct trace *t = &r->t;

	(void)cls;
	op_ledge(t, op_lslice_overhead(ev->s), op_intern(&r->names, C_RT,
	    ev->s, ev->len), LTHR_NONE, ev->ts, ev->ts + ev->dur);
	return 0;
}

/*
 * A runtime call.  key_averages() nests it under the operator that
 * issued it, as a row of its own: its time is not the operator's self
 * time.
 */
static int
on_runtime(struct oprank *r, const struct event *ev, enum evclass cls)
{
	struct trace *t = &r->t;
	const char *s = ev->s;
	uint64_t thr;
	uint32_t id, slice;

	(void)cls;
	thr = thr_id(r, ev->n->pid, ev->n->tid);
	id = op_intern(&r->names, C_RT, s, ev->len);
	spill_add(&t->ops, &(struct cev){ ev->ts, ev->dur, id, t->seq++,
	    thr });
	slice = op_lslice_runtime(s, ev->dur);
	op_ledge(t, slice, id, op_lthr(thr), ev->ts, ev->ts + ev->dur);
	op_pspan_event(t, C_RT, s, ev->ts, ev->ts + ev->dur);
	op_rtsum_add(&t->a, s, ev->len, &(struct rtsum){ 1, ev->dur,
	    ev->dur });
	t->a.rt_count++;
	t->a.rt_total = op_sat_add(t->a.rt_total, ev->dur);
	if (strstr(s, "Launch") != NULL) {
		t->a.launch_count++;
		t->a.launch = op_sat_add(t->a.launch, ev->dur);
	} else if (str_is(s, "cudaDeviceSynchronize",
	    "cudaStreamSynchronize") ||
	    str_is(s, "cudaEventSynchronize", "cudaMemcpy") ||
	    str_is(s, "hipDeviceSynchronize", "hipStreamSynchronize") ||
	    str_is(s, "hipEventSynchronize", "hipMemcpy")) {
		t->a.sync_count++;
		t->a.sync = op_sat_add(t->a.sync, ev->dur);
	}
	if (ev->has_corr)
		spill_add(&t->rc, &(struct rcall){ ev->corr, ev->ts, ev->dur,
		    t->seq++, slice == L_SYNC || slice == L_COPY ||
		    slice == L_ALLOC ? slice : NO_CALLER, thr, id });
	return 0;
}

/* GPU work: a kernel, memset or copy, on its device's timeline. */
static int
on_gpu(struct oprank *r, const struct event *ev, enum evclass cls)
{
	const struct jdoc *d = r->doc;
	const struct trevent *n = ev->n;
	struct trace *t = &r->t;
	int gcls = cls == EV_MEMCPY ? G_MEMCPY : G_COMP;
	int is_memset = cls == EV_MEMSET;
	int64_t end = ev->ts + ev->dur;
	struct strent *e;
	struct dev *dev;
	struct jid dv;
	uint32_t id;

	id = op_intern(&r->names, C_GPU, ev->s, ev->len);
	op_agg_fit(&t->a, r->names.n);
	op_stat_add(&t->a.st[id], ev->dur, ev->dur);
	if (n->bytes >= 0)
		add_bytes(&t->a.st[id], d, (uint32_t)n->bytes);
	t->a.gpu_events++;
	if (gcls == G_COMP)
		gcls = r->names.v[id].gcls;
	if (gcls == G_COMM)
		op_coll_call(r, &t->a, &ev->ca, &(struct ccall){ .ts = ev->ts,
		    .dur = ev->dur, .name = id, .gpu = 1 });
	op_ledge(t, op_lslice_kernel(r, id, is_memset), id, LTHR_NONE, ev->ts,
	    end);
	if (ev->has_corr)
		spill_add(&t->gk, &(struct gev){ ev->corr, ev->dur, end, id,
		    t->seq++, gcls == G_COMM, is_memset });
	else if (r->phase == (r->names.v[id].gcls == G_COMM ?
	    PH_COMM : PH_OTHER))
		op_stat_add(&t->a.pst[id], ev->dur, ev->dur);
	if (n->device >= 0 && d->node[n->device].type == JT_NUMBER)
		op_get_jid(d, n->device, &dv);
	else
		op_get_jid(d, n->pid, &dv);
	e = strmap_put(&t->devs, dv.text != NULL ? dv.text : "",
	    dv.text != NULL ? strlen(dv.text) : 0);
	if ((dev = e->val) == NULL) {
		if (t->ndvv == UINT32_MAX)
			die("more than %" PRIu32 " devices in one trace",
			    UINT32_MAX);
		dev = e->val = xcalloc(1, sizeof(*dev));
		op_jid_copy(&dev->dev, &dv);
		dev->idx = (uint32_t)t->ndvv;
		t->dvv = op_grow(t->dvv, &t->capdvv, t->ndvv,
		    sizeof(*t->dvv));
		t->dvv[t->ndvv++] = dev;
		dev->lo = ev->ts;
		dev->hi = end;
	}
	dev->n++;
	if (ev->ts < dev->lo)
		dev->lo = ev->ts;
	if (end > dev->hi)
		dev->hi = end;
	if (ev->dur > 0) {
		spill_add(&t->edges, &(struct gedge){ ev->ts, dev->idx,
		    (int16_t)gcls, 1 });
		spill_add(&t->edges, &(struct gedge){ end, dev->idx,
		    (int16_t)gcls, -1 });
	}
	return 0;
}

/* A Python frame: nested with the operators, a ledger slice of its own. */
static int
on_python(struct oprank *r, const struct event *ev, enum evclass cls)
{
	struct trace *t = &r->t;
	uint64_t thr;
	uint32_t id;

	(void)cls;
	thr = thr_id(r, ev->n->pid, ev->n->tid);
	id = op_intern(&r->names, C_PY, ev->s, ev->len);
	spill_add(&t->py, &(struct cev){ ev->ts, ev->dur, id, t->seq++,
	    thr });
	op_ledge(t, op_lslice_py(r), id, op_lthr(thr), ev->ts,
	    ev->ts + ev->dur);
	op_pspan_event(t, C_PY, ev->s, ev->ts, ev->ts + ev->dur);
	t->a.pyframes++;
	return 0;
}

/*
 * An operator, or a record_function label ("Optimizer.step#SGD.step",
 * "ProfilerStep#3"): steps, phase bounds, serving steps and compile
 * regions are labels.
 */
static int
on_cpu(struct oprank *r, const struct event *ev, enum evclass evcls)
{
	const struct trevent *n = ev->n;
	struct trace *t = &r->t;
	const char *s = ev->s;
	size_t len = ev->len;
	int64_t end = ev->ts + ev->dur;
	uint64_t thr;
	uint32_t id;
	int cls = C_OP, b;

	(void)evcls;
	thr = thr_id(r, n->pid, n->tid);
	if ((ev->cat != NULL && strcmp(ev->cat, "user_annotation") == 0) ||
	    (memchr(s, '#', len) != NULL && strstr(s, "::") == NULL))
		cls = C_ANN;
	op_pspan_event(t, cls, s, ev->ts, end);
	if (cls == C_ANN)
		op_serve_label(r, s, len, ev->ts, end, thr);
	op_compile_event(r, s, len, ev->ts, end, thr);
	if (cls == C_ANN && op_prefix(s, OPRANK_STEP_PREFIX)) {
		op_step_read(t, strtoll(s + strlen(OPRANK_STEP_PREFIX), NULL, 10),
		    ev->ts, end);
		/* key_averages() groups every step under one name. */
		s = "ProfilerStep*";
		len = strlen(s);
	} else if (cls == C_ANN && (b = op_bound_of(s)) != B_NONE) {
		spill_add(&t->bounds, &(struct bound){ ev->ts, b, 0, 0, 0 });
		t->nbound[b]++;
	}
	t->a.cpu_events++;
	id = op_intern(&r->names, cls, s, len);
	if (op_lslice_mark(r, id) != UINT32_MAX)
		op_ledge(t, op_lslice_mark(r, id), id, op_lthr(thr), ev->ts,
		    end);
	if (cls == C_OP && ev->sn.dims >= 0)
		shape_call(r, s, &ev->sn, &(struct cev){ ev->ts, ev->dur, 0,
		    t->seq, thr });
	/*
	 * ProcessGroupGloo's work ("gloo:all_reduce") starts on the thread
	 * that issues it and ends on a worker's once every rank has sent its
	 * part: the collective's call on a CPU rank.  PyTorch's key_averages()
	 * counts it async, with its time but no self time, and nests nothing
	 * in it.  The ledger still sees the wait, as communication.
	 */
	if (op_prefix(s, "gloo:")) {
		op_coll_call(r, &t->a, &ev->ca, &(struct ccall){ .ts = ev->ts,
		    .dur = ev->dur, .name = id });
		op_agg_fit(&t->a, r->names.n);
		/* In µs, the start and the duration truncated apart. */
		op_stat_add(&t->a.st[id], ev->dur / 1000, 0);
		op_ledge(t, op_lslice_op(r, id), id, op_lthr(thr), ev->ts,
		    end);
		return 0;
	}
	spill_add(&t->ops, &(struct cev){ ev->ts, ev->dur, id, t->seq++,
	    thr });
	return 0;
}

/*
 * A call with input shapes: costed when its operator has a model, and
 * its shape's index in the trace spilled beside it (ev, name aside), to
 * meet it again while nesting.
 */
static void
shape_call(struct oprank *r, const char *name, const struct shapenodes *in,
    const struct cev *ev)
{
	struct trace *t = &r->t;
	struct opcost c;
	struct shsum *sh;
	struct cev at = *ev;
	int rc;

	if (opcost_model(name) == OM_NONE)
		return;
	if ((rc = opcost_eval(name, r->doc, in->dims, in->types, in->concrete,
	    &c)) == OPCOST_OVERFLOW)
		t->a.overflowed++;
	if (rc < 0 || op_shape_key(&r->shapekey, name, &c, r->doc, in) < 0 ||
	    (sh = op_shape_get(r, &t->a, &r->shapekey, name, &c, r->doc,
	    in)) == NULL) {
		t->a.unshaped++;
		return;
	}
	if (sh->idx == NOSHAPE) {
		if (t->nshv == NOSHAPE)
			die("more than %" PRIu32 " shapes in one trace",
			    NOSHAPE - 1);
		sh->idx = (uint32_t)t->nshv;
		t->shv = op_grow(t->shv, &t->capshv, t->nshv,
		    sizeof(*t->shv));
		t->shv[t->nshv++] = sh;
	}
	at.name = sh->idx;
	spill_add(&t->shp, &at);
}

static int
on_thread(struct oprank *r)
{
	const struct jdoc *d = r->doc;
	struct thr *th;
	const char *s;
	uint64_t id;

	if (jdoc_get_str(d, 0, "name", &s, NULL) < 0)
		return 0;
	/* A thread past the table is summed as one of many: no name. */
	id = thr_id(r, jdoc_get(d, 0, "pid"), jdoc_get(d, 0, "tid"));
	if (id & THR_HASHED)
		return 0;
	th = r->t.thv[id];
	free(th->name);
	th->name = xstrdup(s);
	return 0;
}

/* The record's "rank"; absent or null: none, -1. */
int
op_get_rank(struct oprank *r, int64_t *rank)
{
	const struct jdoc *d = r->doc;
	int i;

	*rank = -1;
	i = jdoc_get(d, 0, "rank");
	if (i >= 0 && d->node[i].type != JT_NULL &&
	    (jdoc_get_i64(d, 0, "rank", rank) < 0 || *rank < 0))
		return jdoc_error(r->file, d, (uint32_t)i,
		    "\"rank\" is not a rank number");
	return 0;
}

static int
trace_record(struct oprank *r)
{
	const struct jdoc *d = r->doc;
	int64_t rank, origin = 0, start = 0, end = 0, events;
	int k;

	if (op_get_rank(r, &rank) < 0)
		return -1;
	if (jdoc_get_i64(d, 0, "origin_ns", &origin) < 0 ||
	    jdoc_get_ns(d, 0, "start", &start) < 0 ||
	    jdoc_get_ns(d, 0, "end", &end) < 0)
		return jdoc_error(r->file, d, 0, "\"trace\" record lacks \"origin_ns\","
		    " \"start\" or \"end\"");
	if (!op_in_range(origin, P_TIME) || !op_in_range(start, P_TIME) ||
	    !op_in_range(end, P_TIME))
		return jdoc_error(r->file, d, 0, "\"trace\" record's"
		    " \"origin_ns\", \"start\" or \"end\" is beyond 2^62 ns");
	/* A trace without events has no window. */
	if ((jdoc_get_i64(d, 0, "events", &events) < 0 || events != 0) &&
	    op_same_window(r, (k = jdoc_get(d, 0, "file")) >= 0 &&
	    d->node[k].type == JT_STRING ? jdoc_str(d, (uint32_t)k) : r->file,
	    rank, origin + start, origin + end) != 0)
		return -1;
	r->t.any = 1;
	/* The first device names the GPU: a rank drives one kind. */
	op_device_keep(&r->t.a, d, jdoc_get(d, 0, "device_properties"));
	if ((k = jdoc_get(d, 0, "format")) >= 0 &&
	    d->node[k].type == JT_STRING &&
	    strcmp(jdoc_str(d, (uint32_t)k), "nsys-sqlite") == 0)
		r->t.a.nsys_exports = 1;
	on_trace(r, rank, 1, origin, origin + start, origin + end);
	return 0;
}

/*
 * Refuses a trace whose rank (or lack of one) an earlier trace had over an
 * overlapping window: the same file twice, or two files of one process.
 * Windows that only touch, or are apart, are parts of one run.  A merge
 * checks the windows its partials carry the same way.
 */
int
op_same_window(struct oprank *r, const char *file, int64_t rank, int64_t start,
    int64_t end)
{
	const struct seen *s;
	char rs[32];
	size_t i;

	for (i = 0; i < r->nseen; i++) {
		s = &r->seen[i];
		if (s->rank != rank)
			continue;
		if ((start < s->end && s->start < end) ||
		    (start == s->start && end == s->end)) {
			if (rank >= 0)
				snprintf(rs, sizeof(rs), "rank %" PRId64, rank);
			else
				snprintf(rs, sizeof(rs), "without a rank");
			return error("%s and %s: both %s, same window", s->file,
			    file, rs);
		}
	}
	r->seen = xreallocarray(r->seen, r->nseen + 1, sizeof(*r->seen));
	r->seen[r->nseen].rank = rank;
	r->seen[r->nseen].start = start;
	r->seen[r->nseen].end = end;
	r->seen[r->nseen].file = xstrdup(file);
	r->nseen++;
	return 0;
}

/* A trace is complete: nest its threads and add it to its rank. */
static void
on_trace(struct oprank *r, int64_t rank, int timed, int64_t origin,
    int64_t start, int64_t end)
{
	struct trace *t = &r->t;
	struct strent **ent;
	struct nest nb;
	struct agg *ra;
	struct thr past;
	size_t i, j, n;

	memset(&nb, 0, sizeof(nb));
	memset(&past, 0, sizeof(past));
	op_agg_fit(&t->a, r->names.n);
	op_gpu_join(t);
	ent = strmap_sorted(&t->threads);
	for (i = 0; i < t->threads.count; i++)
		((struct thr *)ent[i]->val)->sorted = i;
	free(ent);
	op_nest_open(&nb, t);
	for (i = 0; i < t->nthv; i++) {
		op_nest_cpu(r, &nb, t->thv[i]);
		op_nest_py(r, &nb, t->thv[i]);
	}
	/* Then the threads past the table, each alone, in their ids' order. */
	for (past.sorted = t->nthv; (past.id = op_nest_next(&nb)) & THR_HASHED;
	    past.sorted++) {
		op_nest_cpu(r, &nb, &past);
		op_nest_py(r, &nb, &past);
	}
	op_nest_free(&nb);
	/* Nested, the threads are in t->a: their table goes before the merge. */
	strmap_free(&t->threads, thr_free);
	free(t->thv);
	t->thv = NULL;
	t->nthv = t->capthv = 0;
	op_gpu_phases(r);
	op_timelines(t);
	/* Graph replays' slices before the ledger, then the serving steps. */
	op_graph_join(r);
	op_serve_steps(r, origin);
	op_compile_nest(r);
	/* Steps and the ledger leave the trace's time base for the rank's. */
	op_steps_resolve(t, origin);
	op_ledger(r, timed, start - origin, end - origin, origin);
	/*
	 * Where a GPU runs the collectives, its kernels are their calls: the
	 * host's operators only launch them.
	 */
	for (i = n = 0; i < t->a.ncc; i++)
		if (t->a.cc[i].gpu)
			n++;
	for (i = j = 0; i < t->a.ncc; i++)
		if (t->a.cc[i].gpu == (n > 0)) {
			t->a.cc[j] = t->a.cc[i];
			t->a.cc[j].gpu = 0;
			t->a.cc[j++].ts += origin;
		}
	t->a.ncc = j;
	t->a.traces = 1;
	if (timed) {
		t->a.have_time = 1;
		t->a.start = start;
		t->a.end = end;
		t->a.origin = origin;
	}
	ra = op_rank_agg(r, rank);
	op_agg_take(ra, &t->a, r->maxthr);
	op_trace_free(t);
	op_trace_init(t, &r->pool);
	t->a.maxblame = r->maxblame;
}

struct agg *
op_rank_agg(struct oprank *r, int64_t rank)
{
	struct agg *a;
	size_t i, cap = r->nranks;

	/* A partial's records come rank by rank. */
	if (r->cur != NULL && r->cur->rank == rank)
		return r->cur;
	for (i = 0; i < r->nranks; i++)
		if (r->ranks[i]->rank == rank)
			return r->cur = r->ranks[i];
	r->ranks = xreallocarray(r->ranks, cap + 1, sizeof(*r->ranks));
	a = r->ranks[r->nranks++] = xcalloc(1, sizeof(*a));
	a->rank = rank;
	a->maxblame = r->maxblame;
	a->pool = &r->pool;
	return r->cur = a;
}

static void
thr_free(void *p)
{
	struct thr *t = p;

	op_jid_free(&t->pid);
	op_jid_free(&t->tid);
	free(t->name);
	free(t);
}

static void
dev_free(void *p)
{
	struct dev *d = p;

	op_jid_free(&d->dev);
	free(d);
}

/*
 * The leading int64_t of a record, made unsigned in the same order: what
 * the orders of struct gev, rcall, link and ledge compare first.
 */
static uint64_t
key_lead(const void *rec)
{
	int64_t v;

	memcpy(&v, rec, sizeof(v));
	return (uint64_t)v ^ UINT64_C(1) << 63;
}

void
op_trace_init(struct trace *t, struct spool *pool)
{
	memset(t, 0, sizeof(*t));
	t->a.pool = pool;
	spill_init(&t->ops, pool, sizeof(struct cev), op_cmpcev);
	spill_init(&t->py, pool, sizeof(struct cev), op_cmpcev);
	spill_init(&t->rt, pool, sizeof(struct rev), op_cmprev);
	spill_init(&t->gk, pool, sizeof(struct gev), op_cmpgev);
	spill_init(&t->rc, pool, sizeof(struct rcall), op_cmprcall);
	spill_init(&t->links, pool, sizeof(struct link), op_cmplink);
	spill_init(&t->edges, pool, sizeof(struct gedge), op_cmpgedge);
	spill_init(&t->shp, pool, sizeof(struct cev), op_cmpcev);
	spill_init(&t->ledges, pool, sizeof(struct ledge), op_cmpledge);
	spill_init(&t->bounds, pool, sizeof(struct bound), op_cmpbound);
	spill_init(&t->pspans, pool, sizeof(struct pspan), op_cmppspan);
	spill_init(&t->launches, pool, sizeof(struct lsum), op_cmplsum);
	t->capbegin = INT64_MIN;
	spill_key(&t->gk, key_lead);
	spill_key(&t->rc, key_lead);
	spill_key(&t->links, key_lead);
	spill_key(&t->ledges, key_lead);
}

void
op_trace_free(struct trace *t)
{
	strmap_free(&t->threads, thr_free);
	free(t->thv);
	strmap_free(&t->devs, dev_free);
	free(t->dvv);
	spill_free(&t->edges);
	spill_free(&t->shp);
	free(t->shv);
	spill_free(&t->ops);
	spill_free(&t->py);
	spill_free(&t->rt);
	spill_free(&t->gk);
	spill_free(&t->rc);
	spill_free(&t->links);
	spill_free(&t->ledges);
	spill_free(&t->bounds);
	spill_free(&t->pspans);
	spill_free(&t->launches);
	if (t->nslabel > 0)
		spill_free(&t->slabels);
	if (t->ncpev > 0)
		spill_free(&t->cpevs);
	free(t->chain);
	if (t->nraw > 0) {
		spill_free(&t->steps);
		spill_free(&t->stepup);
	}
	op_agg_free(&t->a);
}
