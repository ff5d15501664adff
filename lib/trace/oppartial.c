/*
 * oppartial: op-rank --partial and --merge.  Writes a rank's sums as
 * op_partial records, with the table digests and windows that make a merge
 * safe; reads them back, refusing partials of other tables or versions,
 * and merges them in one pass, or in two (every rank's light sums, then
 * the primary rank's detail) when the files can be read again, so that
 * memory does not grow with the ranks.
 */
#include <inttypes.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "base/err.h"
#include "base/xalloc.h"
#include "trace/opbase.h"
#include "trace/opcoll.h"
#include "trace/opcompile.h"
#include "trace/opcore.h"
#include "trace/opfield.h"
#include "trace/opgraph.h"
#include "trace/opledger.h"
#include "trace/opnames.h"
#include "trace/opout.h"
#include "trace/opserve.h"
#include "trace/opshape.h"
#include "trace/opstep.h"
#include "trace/opsums.h"

static void	put_class_name(struct jw *, int64_t, const struct name *);
static int	cmpseen(const void *, const void *);
static size_t	put_rank_partial(struct oprank *, struct jw *,
		    struct agg *);
static void	put_partial_head(struct oprank *, struct jw *);
static int	in_order(struct oprank *, const char *, int64_t,
		    const char *, int64_t);
static int	partial_head(struct oprank *);
static int	partial_name(struct oprank *, struct agg *);
static int	partial_record(struct oprank *, const char *);
static void	put_coll(struct oprank *, struct jw *, const struct ccall *);
static int	partial_coll(struct oprank *, struct agg *);
static int	get_class_name(struct oprank *, const char **, size_t *);

/* A name's record: its rank, class and name, as get_class_name() reads them. */
static void
put_class_name(struct jw *w, int64_t rank, const struct name *nm)
{
	op_put_rank(w, rank);
	jw_key(w, "class");
	jw_cstring(w, op_clsname[nm->cls]);
	jw_key(w, "name");
	jw_cstring(w, nm->s);
}

static int
cmpseen(const void *a, const void *b)
{
	const struct seen *x = a, *y = b;

	if (x->rank != y->rank)
		return x->rank < y->rank ? -1 : 1;
	if (x->start != y->start)
		return x->start < y->start ? -1 : 1;
	if (x->end != y->end)
		return x->end < y->end ? -1 : 1;
	return strcmp(x->file, y->file);
}

/* The rank's aggregates, in an order fixed by their keys. */
static size_t
put_rank_partial(struct oprank *r, struct jw *w, struct agg *a)
{
	struct strent **ent;
	struct spillcur c;
	const struct step *st;
	size_t i, n = 0;

	jw_record(w, "op_partial_rank");
	op_put_rank(w, a->rank);
	jw_key(w, "traces");
	jw_int(w, a->traces);
	if (a->nsys_exports > 0) {
		jw_key(w, "nsys_exports");
		jw_int(w, a->nsys_exports);
	}
	jw_key(w, "events");
	jw_int(w, a->cpu_events);
	jw_key(w, "gpu_events");
	jw_int(w, a->gpu_events);
	if (a->have_time) {
		jw_key(w, "start");
		jw_int(w, a->start);
		jw_key(w, "end");
		jw_int(w, a->end);
		jw_key(w, "origin");
		jw_int(w, a->origin);
	}
	if (a->gpu != NULL) {
		jw_key(w, "gpu");
		jw_cstring(w, a->gpu);
	}
	if (a->gpuarch != NULL) {
		jw_key(w, "gpu_arch");
		jw_cstring(w, a->gpuarch);
	}
	if (a->unshaped > 0) {
		jw_key(w, "uncosted");
		jw_int(w, a->unshaped);
	}
	if (a->overflowed > 0) {
		jw_key(w, "overflowed");
		jw_int(w, a->overflowed);
	}
	if (a->pyframes > 0) {
		jw_key(w, "python_frames");
		jw_int(w, a->pyframes);
	}
	op_put_nums(w, "phase_self", a->ph_self, NPHASE);
	op_put_nums(w, "phase_gpu", a->ph_gpu, NPHASE);
	jw_key(w, "runtime");
	jw_begin_array(w);
	jw_int(w, a->rt_count);
	jw_int(w, a->rt_total);
	jw_int(w, a->launch_count);
	jw_int(w, a->launch);
	jw_int(w, a->sync_count);
	jw_int(w, a->sync);
	jw_end_array(w);
	jw_end(w);
	n++;

	ent = strmap_sorted(&r->names.map);
	for (i = 0; i < r->names.map.count; i++) {
		size_t id = (size_t)(uintptr_t)ent[i]->val - 1;
		const struct name *nm = &r->names.v[id];

		if (id >= a->nst || (a->st[id].count == 0 &&
		    a->pst[id].count == 0))
			continue;
		jw_record(w, "op_partial_name");
		put_class_name(w, a->rank, nm);
		opf_put(w, &op_stat_fields, &a->st[id]);
		if (a->pst[id].count > 0) {
			jw_key(w, "in_phase");
			jw_begin_object(w);
			opf_put(w, &op_stat_fields, &a->pst[id]);
			jw_end_object(w);
		}
		jw_end(w);
		n++;
	}
	free(ent);

	ent = strmap_sorted(&a->threads);
	for (i = 0; i < a->threads.count; i++) {
		const struct thsum *ts = ent[i]->val;

		jw_record(w, "op_partial_thread");
		op_put_rank(w, a->rank);
		op_put_thread(w, ts);
		opf_put(w, &op_thsum_fields, ts);
		jw_end(w);
		n++;
	}
	free(ent);

	ent = strmap_sorted(&a->devs);
	for (i = 0; i < a->devs.count; i++) {
		const struct devsum *d = ent[i]->val;

		jw_record(w, "op_partial_device");
		op_put_rank(w, a->rank);
		op_put_jid(w, "device", &d->dev);
		opf_put(w, &op_devsum_fields, d);
		jw_end(w);
		n++;
	}
	free(ent);

	ent = strmap_sorted(&a->callers);
	for (i = 0; i < a->callers.count; i++) {
		const char *slice, *cls, *name;
		size_t namelen;

		op_caller_split(ent[i], &slice, &cls, &name, &namelen);
		jw_record(w, "op_partial_caller");
		op_put_rank(w, a->rank);
		jw_key(w, "slice");
		jw_cstring(w, slice);
		jw_key(w, "class");
		jw_cstring(w, cls);
		jw_key(w, "caller");
		jw_string(w, name, namelen);
		opf_put(w, &op_rtsum_fields, ent[i]->val);
		jw_end(w);
		n++;
	}
	free(ent);

	ent = strmap_sorted(&a->rtcalls);
	for (i = 0; i < a->rtcalls.count; i++) {
		jw_record(w, "op_partial_runtime");
		op_put_rank(w, a->rank);
		jw_key(w, "name");
		jw_string(w, ent[i]->key, ent[i]->len);
		opf_put(w, &op_rtsum_fields, ent[i]->val);
		jw_end(w);
		n++;
	}
	free(ent);

	op_steps_open(&c, a);
	while ((st = spill_next(&c)) != NULL) {
		jw_record(w, "op_partial_step");
		op_put_rank(w, a->rank);
		opf_put(w, &op_step_fields, st);
		if (st->flops > 0) {
			jw_key(w, "flops");
			jw_double(w, st->flops);
		}
		jw_end(w);
		n++;
	}
	spillcur_free(&c);
	for (i = 0; i < a->ncc; i++) {
		jw_record(w, "op_partial_collective");
		put_class_name(w, a->rank, &r->names.v[a->cc[i].name]);
		jw_key(w, "ts");
		jw_int(w, a->cc[i].ts);
		jw_key(w, "dur");
		jw_int(w, a->cc[i].dur);
		put_coll(r, w, &a->cc[i]);
		jw_end(w);
		n++;
	}
	return n + op_put_ledger_partials(r, w, a) +
	    op_put_blame_partials(r, w, a) + op_put_shape_partials(w, a) +
	    op_put_graph_partial(w, a) + op_put_serve_partials(r, w, a) +
	    op_put_compile_partials(w, a);
}

static void
put_partial_head(struct oprank *r, struct jw *w)
{
	jw_record(w, "op_partial");
	jw_key(w, "version");
	jw_int(w, PARTIAL_VERSION);
	jw_key(w, "key");
	jw_cstring(w, op_keyname[r->key]);
	jw_key(w, "limit");
	jw_int(w, r->limit);
	jw_key(w, "phase");
	jw_cstring_or_null(w, r->phase != PH_NONE ? op_phasename[r->phase] :
	    NULL);
	jw_key(w, "families");
	jw_cstring(w, r->famsum);
	jw_key(w, "precisions");
	jw_cstring(w, r->precsum);
	jw_end(w);
}

void
op_output_partial(struct oprank *r, struct jw *w)
{
	size_t i, n = 0;

	put_partial_head(r, w);
	xqsort(r->seen, r->nseen, sizeof(*r->seen), cmpseen);
	for (i = 0; i < r->nseen; i++) {
		jw_record(w, "op_partial_window");
		op_put_rank(w, r->seen[i].rank);
		jw_key(w, "file");
		jw_cstring(w, r->seen[i].file);
		jw_key(w, "start");
		jw_int(w, r->seen[i].start);
		jw_key(w, "end");
		jw_int(w, r->seen[i].end);
		jw_end(w);
		n++;
	}
	xqsort(r->ranks, r->nranks, sizeof(*r->ranks), op_cmprank);
	for (i = 0; i < r->nranks; i++) {
		op_agg_fit(r->ranks[i], r->names.n);
		n += put_rank_partial(r, w, r->ranks[i]);
	}
	jw_record(w, "op_partial_end");
	jw_key(w, "records");
	jw_uint(w, n);
	jw_end(w);
}

/* What a communication call's event said of its collective. */
static void
put_coll(struct oprank *r, struct jw *w, const struct ccall *c)
{
	if (c->bytes >= 0) {
		jw_key(w, "bytes");
		jw_int(w, c->bytes);
	}
	if (c->group > 0) {
		jw_key(w, "group");
		jw_cstring(w, op_coll_group_name(r, c->group));
	}
	if (c->gsize > 0) {
		jw_key(w, "group_size");
		jw_int(w, c->gsize);
	}
	if (c->kind >= 0) {
		jw_key(w, "collective");
		jw_cstring(w, op_coll_kind_name(c->kind));
	}
}

/* put_coll()'s twin, with the call's name and times. */
static int
partial_coll(struct oprank *r, struct agg *a)
{
	const struct jdoc *d = r->doc;
	struct ccall cc = { .bytes = -1, .kind = -1 };
	const char *s;
	size_t len;
	int64_t gs = 0;
	int c;

	if ((c = get_class_name(r, &s, &len)) < 0 ||
	    op_get_num(r, 0, "ts", P_TIME, &cc.ts) < 0 ||
	    op_get_num(r, 0, "dur", P_SIZE, &cc.dur) < 0 ||
	    (op_member(d, "bytes") != 0 &&
	    op_get_num(r, 0, "bytes", P_SIZE, &cc.bytes) < 0) ||
	    (op_member(d, "group_size") != 0 &&
	    op_get_num(r, 0, "group_size", P_SIZE, &gs) < 0))
		return -1;
	if (op_member(d, "group_size") != 0 && (gs <= 0 || gs > INT32_MAX))
		return jdoc_error(r->file, d, 0,
		    "\"bytes\" or \"group_size\" out of range");
	cc.gsize = (int32_t)gs;
	cc.name = op_intern(&r->names, c, s, len);
	if (jdoc_get_str(d, 0, "group", &s, &len) == 0)
		cc.group = op_coll_group(r, s, len);
	if (jdoc_get_str(d, 0, "collective", &s, &len) == 0)
		cc.kind = (int8_t)op_coll_kind(s, len);
	op_ccall_add(a, &cc);
	return 0;
}

/* -1 after saying so unless member a's value is at most member b's. */
static int
in_order(struct oprank *r, const char *a, int64_t va, const char *b,
    int64_t vb)
{
	if (va <= vb)
		return 0;
	return jdoc_error(r->file, r->doc, op_member(r->doc, b), "\"%s\""
	    " record's \"%s\" is before its \"%s\"", ndin_kind(r->doc), b,
	    a);
}

/*
 * The header must match this run: the same format, the same options (so
 * that every partial of a merge was made alike) and the same tables.
 */
static int
partial_head(struct oprank *r)
{
	const struct jdoc *d = r->doc;
	const char *s, *ph;
	int64_t v;
	int i;

	if (strcmp(ndin_kind(d), "op_partial") != 0)
		return jdoc_error(r->file, d, 0, "not an op-rank partial:"
		    " \"%s\" record before \"op_partial\"", ndin_kind(d));
	if (op_get_num(r, 0, "version", P_ANY, &v) < 0)
		return -1;
	if (v != PARTIAL_VERSION)
		return jdoc_error(r->file, d, op_member(d, "version"),
		    "partial of version %" PRId64 ", not %d", v,
		    PARTIAL_VERSION);
	if (jdoc_get_str(d, 0, "key", &s, NULL) < 0)
		return jdoc_error(r->file, d, op_member(d, "key"),
		    "\"op_partial\" record lacks \"key\"");
	if (strcmp(s, op_keyname[r->key]) != 0)
		return jdoc_error(r->file, d, op_member(d, "key"),
		    "partial made with -k %s, not -k %s", s, op_keyname[r->key]);
	if (op_get_num(r, 0, "limit", P_ANY, &v) < 0)
		return -1;
	if (v != r->limit)
		return jdoc_error(r->file, d, op_member(d, "limit"),
		    "partial made with -n %" PRId64 ", not -n %lld", v,
		    r->limit);
	ph = r->phase != PH_NONE ? op_phasename[r->phase] : "none";
	if ((i = jdoc_get(d, 0, "phase")) < 0 ||
	    (d->node[i].type != JT_NULL && d->node[i].type != JT_STRING))
		return jdoc_error(r->file, d, op_member(d, "phase"),
		    "\"op_partial\" record lacks \"phase\"");
	s = d->node[i].type == JT_NULL ? "none" : jdoc_str(d, (uint32_t)i);
	/* "none" is no phase name: -p refuses it. */
	if (strcmp(s, ph) != 0)
		return jdoc_error(r->file, d, (uint32_t)i, "partial made with"
		    " -p %s, not -p %s", s, ph);
	if (jdoc_get_str(d, 0, "families", &s, NULL) < 0 ||
	    strcmp(s, r->famsum) != 0)
		return jdoc_error(r->file, d, op_member(d, "families"),
		    "partial made with another family table");
	if (jdoc_get_str(d, 0, "precisions", &s, NULL) < 0 ||
	    strcmp(s, r->precsum) != 0)
		return jdoc_error(r->file, d, op_member(d, "precisions"),
		    "partial made with another precision table");
	return 0;
}

/* The record's class and name, as op_partial_name writes them; or -1. */
static int
get_class_name(struct oprank *r, const char **name, size_t *len)
{
	const struct jdoc *d = r->doc;
	const char *cls;
	int c;

	if (jdoc_get_str(d, 0, "class", &cls, NULL) < 0)
		return jdoc_error(r->file, d, 0, "\"%s\" lacks \"class\"",
		    ndin_kind(d));
	for (c = 0; c < NCLASS; c++)
		if (strcmp(cls, op_clsname[c]) == 0)
			break;
	if (c == NCLASS)
		return jdoc_error(r->file, d, op_member(d, "class"),
		    "unknown class: %s", cls);
	if (jdoc_get_str(d, 0, "name", name, len) < 0)
		return jdoc_error(r->file, d, 0, "\"%s\" lacks \"name\"",
		    ndin_kind(d));
	return c;
}

static int
partial_name(struct oprank *r, struct agg *a)
{
	const struct jdoc *d = r->doc;
	struct stat st, ps;
	const char *name;
	size_t len;
	uint32_t id;
	int c, i;

	if ((c = get_class_name(r, &name, &len)) < 0)
		return -1;
	memset(&ps, 0, sizeof(ps));
	if (opf_get(r, 0, &op_stat_fields, &st) < 0)
		return -1;
	if ((i = jdoc_get(d, 0, "in_phase")) >= 0 &&
	    (d->node[i].type != JT_OBJECT ||
	    opf_get(r, (uint32_t)i, &op_stat_fields, &ps) < 0))
		return d->node[i].type != JT_OBJECT ? jdoc_error(r->file, d,
		    (uint32_t)i, "\"in_phase\" is not an object") : -1;
	id = op_intern(&r->names, c, name, len);
	if (r->light && !r->pass2) {
		/* Of a rank, what crosses ranks; the stats go to all. */
		if (c == C_OP || c == C_ANN)
			a->self = op_sat_add(a->self, st.self);
		op_kv_add(r, a, id, &st);
		a = &r->all;
	}
	op_agg_fit(a, r->names.n);
	opf_merge(&op_stat_fields, &a->st[id], &st);
	opf_merge(&op_stat_fields, &a->pst[id], &ps);
	return 0;
}

/* A runtime call's sums, as opf_put() wrote them. */
static int
get_rtsum(struct oprank *r, struct rtsum *rs)
{
	return opf_get(r, 0, &op_rtsum_fields, rs);
}

static int
partial_record(struct oprank *r, const char *kind)
{
	const struct jdoc *d = r->doc;
	struct agg *a, one;
	struct thsum *ts, one_ts;
	struct jid pid, tid;
	struct devsum ds;
	struct rtsum rs;
	struct step st;
	const char *s, *slice, *cls;
	size_t len;
	int64_t rank, v[6];

	if (op_get_rank(r, &rank) < 0)
		return -1;
	/* Pass 2 reads the primary rank, whose windows pass 1 checked. */
	if (r->pass2 && (rank != r->primary ||
	    strcmp(kind, "op_partial_window") == 0))
		return 0;
	a = op_rank_agg(r, rank);
	if (strcmp(kind, "op_partial_name") == 0)
		return partial_name(r, a);
	if (strcmp(kind, "op_partial_rank") == 0) {
		memset(&one, 0, sizeof(one));
		if (op_get_num(r, 0, "traces", P_SIZE, &one.traces) < 0 ||
		    op_get_num(r, 0, "events", P_SIZE, &one.cpu_events) < 0 ||
		    op_get_num(r, 0, "gpu_events", P_SIZE, &one.gpu_events) < 0 ||
		    op_get_nums(r, "phase_self", P_TIME, one.ph_self, NPHASE) < 0 ||
		    op_get_nums(r, "phase_gpu", P_SIZE, one.ph_gpu, NPHASE) < 0 ||
		    op_get_nums(r, "runtime", P_SIZE, v, 6) < 0)
			return -1;
		if (jdoc_get(d, 0, "nsys_exports") >= 0 &&
		    op_get_num(r, 0, "nsys_exports", P_SIZE, &one.nsys_exports) < 0)
			return -1;
		if (jdoc_get(d, 0, "uncosted") >= 0 &&
		    op_get_num(r, 0, "uncosted", P_SIZE, &one.unshaped) < 0)
			return -1;
		if (jdoc_get(d, 0, "overflowed") >= 0 &&
		    op_get_num(r, 0, "overflowed", P_SIZE, &one.overflowed) < 0)
			return -1;
		if (jdoc_get(d, 0, "python_frames") >= 0 &&
		    op_get_num(r, 0, "python_frames", P_SIZE, &one.pyframes) < 0)
			return -1;
		one.rt_count = v[0];
		one.rt_total = v[1];
		one.launch_count = v[2];
		one.launch = v[3];
		one.sync_count = v[4];
		one.sync = v[5];
		if (jdoc_get(d, 0, "start") >= 0) {
			if (op_get_num(r, 0, "start", P_TIME, &one.start) < 0 ||
			    op_get_num(r, 0, "end", P_TIME, &one.end) < 0 ||
			    op_get_num(r, 0, "origin", P_TIME, &one.origin) < 0 ||
			    in_order(r, "start", one.start, "end", one.end) < 0)
				return -1;
			one.have_time = 1;
		}
		/* Copied once nothing can fail. */
		if (jdoc_get_str(d, 0, "gpu", &s, NULL) == 0)
			one.gpu = xstrdup(s);
		if (jdoc_get_str(d, 0, "gpu_arch", &s, NULL) == 0)
			one.gpuarch = xstrdup(s);
		op_agg_merge(a, &one, SIZE_MAX);
		a->unshaped = op_sat_add(a->unshaped, one.unshaped);
		a->pyframes = op_sat_add(a->pyframes, one.pyframes);
		op_gpu_keep(&a->gpu, one.gpu);
		op_gpu_keep(&a->gpuarch, one.gpuarch);
		free(one.gpu);
		free(one.gpuarch);
		return 0;
	}
	if (strcmp(kind, "op_partial_shape") == 0)
		/* Shapes are detail: pass 1 of two keeps none. */
		return r->light && !r->pass2 ? 0 : op_shape_partial(r, a);
	if (strcmp(kind, "op_partial_thread") == 0) {
		if (op_get_jid(d, jdoc_get(d, 0, "pid"), &pid) < 0 ||
		    op_get_jid(d, jdoc_get(d, 0, "tid"), &tid) < 0)
			return jdoc_error(r->file, d, 0, "\"pid\" or \"tid\""
			    " is not a number or a string");
		memset(&one_ts, 0, sizeof(one_ts));
		if (opf_get(r, 0, &op_thsum_fields, &one_ts) < 0)
			return -1;
		/* Of threads that did not fit: how many, the busiest. */
		if (jdoc_get(d, 0, "threads") >= 0 &&
		    (op_get_num(r, 0, "threads", P_SIZE, &one_ts.threads) < 0 ||
		    op_get_num(r, 0, "busiest", P_SIZE, &one_ts.top) < 0))
			return -1;
		if (jdoc_get_str(d, 0, "name", &s, NULL) < 0)
			s = NULL;
		if (r->light && !r->pass2) {
			ts = op_thsum_get(&r->all, &pid, &tid, s, SIZE_MAX);
			op_rankthr_add(a, ts, one_ts.threads > 0 ?
			    one_ts.top : one_ts.busy);
		} else
			ts = op_thsum_get(a, &pid, &tid, s, SIZE_MAX);
		op_thsum_fold(ts, &one_ts);
		return 0;
	}
	if (strcmp(kind, "op_partial_device") == 0) {
		memset(&ds, 0, sizeof(ds));
		if (op_get_jid(d, jdoc_get(d, 0, "device"), &ds.dev) < 0)
			return jdoc_error(r->file, d, 0, "\"device\" is not"
			    " a number or a string");
		if (opf_get(r, 0, &op_devsum_fields, &ds) < 0)
			return -1;
		op_devsum_add(op_devsum_get(a, &ds.dev), &ds);
		return 0;
	}
	/*
	 * Runtime calls, callers, blame, graph replays and serving steps
	 * are detail, as shapes are.
	 */
	if (r->light && !r->pass2 && (strcmp(kind, "op_partial_caller") == 0 ||
	    strcmp(kind, "op_partial_runtime") == 0 ||
	    strcmp(kind, "op_partial_graph") == 0 ||
	    strcmp(kind, "op_partial_serve") == 0 ||
	    strcmp(kind, "op_partial_serve_step") == 0 ||
	    strcmp(kind, "op_partial_compile") == 0 ||
	    strcmp(kind, "op_partial_compile_region") == 0 ||
	    strcmp(kind, "op_partial_blame") == 0 ||
	    strcmp(kind, "op_partial_issuer") == 0 ||
	    strcmp(kind, "op_partial_frame") == 0))
		return 0;
	if (strcmp(kind, "op_partial_graph") == 0)
		return op_graph_partial(r, a);
	if (strcmp(kind, "op_partial_compile") == 0 ||
	    strcmp(kind, "op_partial_compile_region") == 0)
		return op_compile_partial(r, a);
	if (strcmp(kind, "op_partial_serve") == 0 ||
	    strcmp(kind, "op_partial_serve_step") == 0)
		return op_serve_partial(r, a);
	if (strcmp(kind, "op_partial_blame") == 0)
		return op_blame_partial(r, a, 0);
	if (strcmp(kind, "op_partial_issuer") == 0)
		return op_blame_partial(r, a, 1);
	if (strcmp(kind, "op_partial_frame") == 0)
		return op_blame_partial(r, a, 2);
	if (strcmp(kind, "op_partial_caller") == 0) {
		if (jdoc_get_str(d, 0, "slice", &slice, NULL) < 0 ||
		    jdoc_get_str(d, 0, "class", &cls, NULL) < 0 ||
		    jdoc_get_str(d, 0, "caller", &s, &len) < 0)
			return jdoc_error(r->file, d, 0, "\"op_partial_caller\""
			    " lacks \"slice\", \"class\" or \"caller\"");
		if (get_rtsum(r, &rs) < 0)
			return -1;
		op_caller_key(&r->callerkey, slice, cls, "");
		sb_put(&r->callerkey, s, len);
		op_caller_add(a, r->callerkey.s, r->callerkey.len, &rs);
		return 0;
	}
	if (strcmp(kind, "op_partial_runtime") == 0) {
		if (jdoc_get_str(d, 0, "name", &s, &len) < 0)
			return jdoc_error(r->file, d, 0,
			    "\"op_partial_runtime\" lacks \"name\"");
		if (get_rtsum(r, &rs) < 0)
			return -1;
		op_rtsum_add(a, s, len, &rs);
		return 0;
	}
	if (strcmp(kind, "op_partial_step") == 0) {
		if (opf_get(r, 0, &op_step_fields, &st) < 0 ||
		    in_order(r, "ts", st.ts, "cpu_end", st.cpu_end) < 0 ||
		    in_order(r, "cpu_end", st.cpu_end, "end", st.end) < 0)
			return -1;
		st.flops = 0;
		if (jdoc_get(d, 0, "flops") >= 0 &&
		    (jdoc_get_double(d, 0, "flops", &st.flops) < 0 ||
		    !isfinite(st.flops) || st.flops < 0))
			return jdoc_error(r->file, d, op_member(d, "flops"),
			    "\"flops\" is not a finite number of 0 or more");
		/* A merge keeps the steps of every rank, in the budget. */
		op_steps_add(a, &st);
		return 0;
	}
	if (strcmp(kind, "op_partial_collective") == 0)
		return partial_coll(r, a);
	if (strcmp(kind, "op_partial_ledger") == 0)
		return op_ledger_partial(r, a);
	if (strcmp(kind, "op_partial_window") == 0) {
		if (jdoc_get_str(d, 0, "file", &s, NULL) < 0)
			return jdoc_error(r->file, d, 0, "\"op_partial_window\""
			    " lacks \"file\"");
		if (op_get_num(r, 0, "start", P_TIME, &v[0]) < 0 ||
		    op_get_num(r, 0, "end", P_TIME, &v[1]) < 0 ||
		    in_order(r, "start", v[0], "end", v[1]) < 0)
			return -1;
		return op_same_window(r, s, rank, v[0], v[1]);
	}
	return jdoc_error(r->file, d, 0, "not a partial record: \"%s\"",
	    kind);
}

/*
 * Adds a partial: its header, its records and the "op_partial_end" that
 * shows it whole.  Returns as oprank_file() does.
 */
int
op_merge_file(struct oprank *r, const char *path)
{
	struct ndin *in;
	const char *kind;
	uint64_t n = 0;
	int64_t want;
	int rc, state = 0;	/* 0: before the header, 1: in, 2: ended */

	if ((in = ndin_open(path)) == NULL) {
		/* Pass 1 has said so. */
		if (!r->pass2)
			warnmsg("%s:", path);
		return 1;
	}
	r->file = ndin_name(in);
	r->doc = &r->in;
	while ((rc = ndin_next(in, &r->in)) == 1) {
		kind = ndin_kind(r->doc);
		if (state == 0) {
			rc = partial_head(r);
			state = 1;
		} else if (state == 2)
			rc = jdoc_error(r->file, r->doc, 0, "\"%s\" record"
			    " after \"op_partial_end\"", kind);
		else if (strcmp(kind, "op_partial_end") == 0) {
			if ((rc = op_get_num(r, 0, "records", P_ANY, &want)) == 0 &&
			    (uint64_t)want != n)
				rc = jdoc_error(r->file, r->doc, 0, "partial"
				    " of %" PRId64 " records has %" PRIu64,
				    want, n);
			state = 2;
		} else {
			rc = partial_record(r, kind);
			n++;
		}
		if (rc < 0)
			break;
	}
	if (rc == 0 && state != 2)
		rc = error("%s:%" PRIu64 ":1: partial ends without its"
		    " \"op_partial_end\" record: cut short", r->file,
		    state == 0 ? 1 : ndin_line(in) + 1);
	ndin_close(in);
	return rc;
}

/* Whether a merge may read its operands twice: files, not stdin or pipes. */
int
op_reread(int argc, char *argv[])
{
	int i;

	for (i = 0; i < argc; i++)
		if (!gzin_rereadable(argv[i]))
			return 0;
	return argc > 0;
}

/*
 * Pass 2 of a merge: pass 1 kept of each rank what crosses ranks and
 * summed the stats of all; this pass reads the primary rank's records
 * again, so that memory does not grow with the number of ranks.
 */
int
op_merge_again(struct oprank *r, int argc, char *argv[])
{
	struct agg *a, keep;
	size_t i;
	int rc = 0;

	if (r->nranks == 0)
		return 0;
	xqsort(r->ranks, r->nranks, sizeof(*r->ranks), op_cmprank);
	for (i = 0; i < r->nranks; i++)
		op_agg_merge(&r->all, r->ranks[i], SIZE_MAX);
	a = r->ranks[op_primary(r)];
	keep = *a;
	keep.st = keep.pst = NULL;
	memset(&keep.steps, 0, sizeof(keep.steps));
	memset(&keep.ledger, 0, sizeof(keep.ledger));
	keep.nlw = keep.nsteps = 0;
	keep.lseq = 0;
	keep.cc = NULL;
	keep.ncc = keep.capcc = 0;
	keep.rthr = NULL;
	keep.nrthr = keep.caprthr = 0;
	memset(&keep.threads, 0, sizeof(keep.threads));
	memset(&keep.devs, 0, sizeof(keep.devs));
	memset(&keep.rtcalls, 0, sizeof(keep.rtcalls));
	memset(&keep.callers, 0, sizeof(keep.callers));
	memset(&keep.blame, 0, sizeof(keep.blame));
	memset(&keep.frames, 0, sizeof(keep.frames));
	memset(&keep.issuers, 0, sizeof(keep.issuers));
	keep.pyframes = 0;
	memset(&keep.shapes, 0, sizeof(keep.shapes));
	keep.gpu = keep.gpuarch = NULL;
	keep.unshaped = 0;
	keep.nst = keep.capst = 0;
	keep.rt_count = keep.rt_total = keep.launch_count = keep.launch = 0;
	keep.sync_count = keep.sync = 0;
	keep.traces = keep.cpu_events = keep.gpu_events = 0;
	keep.nsys_exports = 0;
	keep.overflowed = 0;
	keep.have_time = 0;
	keep.start = keep.end = keep.origin = 0;
	memset(keep.ph_self, 0, sizeof(keep.ph_self));
	memset(keep.ph_gpu, 0, sizeof(keep.ph_gpu));
	a->kv32 = NULL;
	a->kv64 = NULL;
	op_agg_free(a);
	*a = keep;
	r->pass2 = 1;
	r->primary = a->rank;
	r->cur = NULL;
	for (i = 0; i < (size_t)argc && rc >= 0; i++)
		rc = op_merge_file(r, argv[i]);
	return rc;
}
