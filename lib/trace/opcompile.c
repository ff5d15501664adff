/*
 * opcompile: torch.compile in a trace.  Dynamo wraps each call of a
 * compiled frame in a "Torch-Compiled Region: F/C" range, F the frame's
 * id and C its compile id within the frame (torch/_dynamo's CompileId:
 * C > 0 is a recompilation, its guards having failed for the earlier
 * ones); before it, "TorchDynamo Cache Lookup" evaluates the guards.  A
 * region that runs inside another is the resumption of a frame that a
 * graph break split, and a region that calls two graphs or more
 * ("## Call CompiledFxGraph <hash> ##", AOTAutograd's "CompiledFunction")
 * was split too.  Reads those events and the ledger's compile spans and
 * kernel sums; writes the rank's compile record and its partials.
 */
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "base/err.h"
#include "base/xalloc.h"
#include "trace/opbase.h"
#include "trace/opcompile.h"
#include "trace/opcore.h"
#include "trace/opfield.h"
#include "trace/opledger.h"
#include "trace/opnames.h"
#include "trace/opsums.h"

#define MAXREGIONS	4096	/* compile ids a rank sums apart */
#define OTHER_REGIONS	"(other regions)"
#define MAXDEPTH	64	/* regions open at once that are followed */
#define REGION_PREFIX	"Torch-Compiled Region: "
#define TOP_REGIONS	10	/* regions a compile record lists */

/* A region or a graph call of a trace, to nest them. */
enum { CP_REGION, CP_GRAPH };
struct cpev {
	uint64_t	thr;
	int64_t		ts, end;
	uint32_t	seq;
	int32_t		kind;
};

/* A region open while nesting: its end, its graph calls, the last's end. */
struct cpopen {
	int64_t		end, graphs, gend;
};

static int	cmpcpev(const void *, const void *);
static int	compile_id(const char *, size_t, long long *, long long *);
static void	region_add(struct agg *, const char *, size_t,
		    const struct rtsum *);
static void	pop(struct compsum *, struct cpopen *, size_t *);

static int
cmpcpev(const void *a, const void *b)
{
	const struct cpev *x = a, *y = b;

	if (x->thr != y->thr)
		return x->thr < y->thr ? -1 : 1;
	if (x->ts != y->ts)
		return x->ts < y->ts ? -1 : 1;
	/* The outer of two that start together first, a region first. */
	if (x->end != y->end)
		return x->end > y->end ? -1 : 1;
	if (x->kind != y->kind)
		return x->kind < y->kind ? -1 : 1;
	return (x->seq > y->seq) - (x->seq < y->seq);
}

/* "F/C" of s (len bytes), each a decimal of at most 9 digits: 0 or -1. */
static int
compile_id(const char *s, size_t len, long long *f, long long *c)
{
	size_t i = 0, k;

	for (*f = 0, k = i; i < len && s[i] >= '0' && s[i] <= '9'; i++)
		*f = *f * 10 + (s[i] - '0');
	if (i == k || i - k > 9 || i == len || s[i++] != '/')
		return -1;
	for (*c = 0, k = i; i < len && s[i] >= '0' && s[i] <= '9'; i++)
		*c = *c * 10 + (s[i] - '0');
	return i == k || i - k > 9 || i != len ? -1 : 0;
}

/* A compile id's calls into a's, past MAXREGIONS into OTHER_REGIONS. */
static void
region_add(struct agg *a, const char *key, size_t len,
    const struct rtsum *add)
{
	if (strmap_get(&a->compile.regions, key, len) == NULL &&
	    a->compile.regions.count >= MAXREGIONS) {
		key = OTHER_REGIONS;
		len = strlen(key);
	}
	op_rtsum_fold(strmap_put(&a->compile.regions, key, len), add);
}

/* An operator or annotation s of the trace at hand, from ts to end. */
void
op_compile_event(struct oprank *r, const char *s, size_t len, int64_t ts,
    int64_t end, uint64_t thr)
{
	struct trace *t = &r->t;
	struct compsum *cs = &t->a.compile;
	const size_t plen = strlen(REGION_PREFIX);
	long long f, c;
	char key[32];
	int kind = -1, n;

	if (len == 24 && memcmp(s, "TorchDynamo Cache Lookup", 24) == 0) {
		cs->guard_calls++;
		cs->guard_time = op_sat_add(cs->guard_time, end - ts);
		return;
	}
	if (len > plen && memcmp(s, REGION_PREFIX, plen) == 0 &&
	    compile_id(s + plen, len - plen, &f, &c) == 0) {
		n = snprintf(key, sizeof(key), "%lld/%lld", f, c);
		region_add(&t->a, key, (size_t)n,
		    &(struct rtsum){ 1, end - ts, end - ts });
		cs->region_calls++;
		cs->region_time = op_sat_add(cs->region_time, end - ts);
		kind = CP_REGION;
	} else if ((len == 16 && memcmp(s, "CompiledFunction", 16) == 0) ||
	    (len > 24 && memcmp(s, "## Call CompiledFxGraph ", 24) == 0))
		kind = CP_GRAPH;
	if (kind < 0)
		return;
	if (t->ncpev++ == 0)
		spill_init(&t->cpevs, t->a.pool, sizeof(struct cpev),
		    cmpcpev);
	spill_add(&t->cpevs, &(struct cpev){ thr, ts, end, t->seq++, kind });
}

/* The innermost open region is done: its graph calls beyond one split it. */
static void
pop(struct compsum *cs, struct cpopen *st, size_t *depth)
{
	const struct cpopen *o = &st[--*depth];

	if (o->graphs >= 2)
		cs->splits += o->graphs - 1;
}

/*
 * The trace's regions and graph calls, by thread in start order: a region
 * inside another is a graph break's resumption; a region's graph calls
 * beyond the first, not inside another graph call, its split graphs.
 */
void
op_compile_nest(struct oprank *r)
{
	struct trace *t = &r->t;
	struct compsum *cs = &t->a.compile;
	struct spillcur c;
	const struct cpev *e;
	struct cpopen st[MAXDEPTH];
	size_t depth = 0, deeper = 0;
	uint64_t thr = 0;
	int64_t deepend = INT64_MIN;

	if (t->ncpev == 0)
		return;
	spill_open(&c, &t->cpevs);
	while ((e = spill_next(&c)) != NULL) {
		if (e->thr != thr) {
			while (depth > 0)
				pop(cs, st, &depth);
			deeper = 0;
			thr = e->thr;
		}
		if (deeper > 0 && e->ts >= deepend)
			deeper = 0;
		while (deeper == 0 && depth > 0 && st[depth - 1].end <= e->ts)
			pop(cs, st, &depth);
		if (e->kind == CP_REGION) {
			if (depth > 0 || deeper > 0)
				cs->nested++;
			/* Deeper than followed: counted, not opened. */
			if (depth == MAXDEPTH || deeper > 0) {
				if (deeper++ == 0 || e->end > deepend)
					deepend = e->end;
				continue;
			}
			st[depth++] = (struct cpopen){ e->end, 0, INT64_MIN };
		} else if (depth > 0 && deeper == 0 &&
		    e->ts >= st[depth - 1].gend) {
			st[depth - 1].graphs++;
			st[depth - 1].gend = e->end;
		}
	}
	while (depth > 0)
		pop(cs, st, &depth);
	spillcur_free(&c);
}

void
op_compile_merge(struct agg *dst, const struct agg *src)
{
	struct strent **ent;
	size_t i;

	opf_merge(&op_compsum_fields, &dst->compile, &src->compile);
	ent = strmap_sorted(&src->compile.regions);
	for (i = 0; i < src->compile.regions.count; i++)
		region_add(dst, ent[i]->key, ent[i]->len, ent[i]->val);
	free(ent);
}

void
op_compile_free(struct agg *a)
{
	strmap_free(&a->compile.regions, free);
}

/* Regions by time, most first, then by compile id. */
static int
cmpregion(const void *a, const void *b)
{
	const struct strent *x = *(const struct strent *const *)a;
	const struct strent *y = *(const struct strent *const *)b;
	const struct rtsum *p = x->val, *q = y->val;

	if (p->total != q->total)
		return p->total > q->total ? -1 : 1;
	return strcmp(x->key, y->key);
}

/*
 * The rank's compile record, where it ran compiled regions or evaluated
 * dynamo's guards: the regions by compile id, the frames and those
 * recompiled, graph breaks (regions inside regions, and regions split
 * into graphs), guard time, the compile spans' time in the ledger's
 * windows (in compile windows and in the others), and the GPU time of
 * Inductor's Triton kernels ("triton_..." kernels) and its share of all
 * kernel time.
 */
void
op_put_compile(struct oprank *r, struct jw *w, struct agg *a)
{
	const struct compsum *cs = &a->compile;
	struct strent **ent;
	struct lread lr;
	struct lwinv wv;
	long long f, c, maxf = -1;
	int64_t frames = 0, recompiled = 0, recompiles = 0, span = 0;
	int64_t steady = 0, triton = 0, kernels = 0;
	unsigned char *seen = NULL;
	size_t i, j, nseen = 0;

	if (cs->region_calls == 0 && cs->guard_calls == 0)
		return;
	ent = strmap_sorted(&cs->regions);
	/* Frames and their recompilations, by the compile ids' numbers. */
	for (i = 0; i < cs->regions.count; i++)
		if (compile_id(ent[i]->key, ent[i]->len, &f, &c) == 0 &&
		    f > maxf)
			maxf = f;
	if (maxf >= 0) {
		nseen = (size_t)maxf + 1;
		if (nseen > MAXREGIONS)
			nseen = MAXREGIONS;
		seen = xcalloc(nseen, 1);
	}
	for (i = 0; i < cs->regions.count; i++) {
		if (compile_id(ent[i]->key, ent[i]->len, &f, &c) < 0 ||
		    (size_t)f >= nseen)
			continue;
		if (c > 0)
			recompiles++;
		if (!(seen[f] & 1)) {
			seen[f] |= 1;
			frames++;
		}
		if (c > 0 && !(seen[f] & 2)) {
			seen[f] |= 2;
			recompiled++;
		}
	}
	free(seen);
	wv.v = xreallocarray(NULL, op_lslices(r), sizeof(*wv.v));
	op_ledger_open(&lr, a);
	while (op_ledger_next(&lr, &wv)) {
		span = op_sat_add(span, wv.span[PS_COMPILE]);
		if (op_window_phase(&wv) != WP_COMPILE)
			steady = op_sat_add(steady, wv.span[PS_COMPILE]);
	}
	op_ledger_close(&lr);
	free(wv.v);
	for (j = 0; j < a->nst; j++) {
		if (r->names.v[j].cls != C_GPU)
			continue;
		kernels = op_sat_add(kernels, a->st[j].total);
		if (op_prefix(r->names.v[j].s, "triton_"))
			triton = op_sat_add(triton, a->st[j].total);
	}
	jw_record(w, "compile");
	op_put_rank(w, a->rank);
	jw_key(w, "region_calls");
	jw_int(w, cs->region_calls);
	jw_key(w, "region_time");
	jw_us(w, cs->region_time);
	jw_key(w, "compile_ids");
	jw_uint(w, cs->regions.count);
	jw_key(w, "frames");
	jw_int(w, frames);
	jw_key(w, "recompiled_frames");
	jw_int(w, recompiled);
	jw_key(w, "recompiles");
	jw_int(w, recompiles);
	jw_key(w, "graph_breaks");
	jw_int(w, op_sat_add(cs->nested, cs->splits));
	jw_key(w, "nested_regions");
	jw_int(w, cs->nested);
	jw_key(w, "split_regions");
	jw_int(w, cs->splits);
	jw_key(w, "guard_calls");
	jw_int(w, cs->guard_calls);
	jw_key(w, "guard_time");
	jw_us(w, cs->guard_time);
	jw_key(w, "guard_mean");
	if (cs->guard_calls > 0)
		jw_us(w, cs->guard_time / cs->guard_calls);
	else
		jw_null(w);
	jw_key(w, "compile_time");
	jw_us(w, span);
	jw_key(w, "compile_in_steady");
	jw_us(w, steady);
	jw_key(w, "inductor_gpu_time");
	jw_us(w, triton);
	jw_key(w, "inductor_share");
	jw_ratio3(w, triton, kernels);
	xqsort(ent, cs->regions.count, sizeof(*ent), cmpregion);
	jw_key(w, "regions");
	jw_begin_array(w);
	for (i = 0; i < cs->regions.count && i < TOP_REGIONS; i++) {
		const struct rtsum *rs = ent[i]->val;

		jw_begin_object(w);
		jw_key(w, "compile_id");
		jw_string(w, ent[i]->key, ent[i]->len);
		jw_key(w, "count");
		jw_int(w, rs->count);
		jw_key(w, "time");
		jw_us(w, rs->total);
		jw_key(w, "max");
		jw_us(w, rs->max);
		jw_end_object(w);
	}
	jw_end_array(w);
	jw_end(w);
	free(ent);
}

size_t
op_put_compile_partials(struct jw *w, const struct agg *a)
{
	const struct compsum *cs = &a->compile;
	struct strent **ent;
	size_t i, n = 0;

	if (cs->region_calls == 0 && cs->guard_calls == 0)
		return 0;
	jw_record(w, "op_partial_compile");
	op_put_rank(w, a->rank);
	opf_put(w, &op_compsum_fields, cs);
	jw_end(w);
	n++;
	ent = strmap_sorted(&cs->regions);
	for (i = 0; i < cs->regions.count; i++) {
		jw_record(w, "op_partial_compile_region");
		op_put_rank(w, a->rank);
		jw_key(w, "compile_id");
		jw_string(w, ent[i]->key, ent[i]->len);
		opf_put(w, &op_rtsum_fields, ent[i]->val);
		jw_end(w);
		n++;
	}
	free(ent);
	return n;
}

/* An op_partial_compile or op_partial_compile_region record. */
int
op_compile_partial(struct oprank *r, struct agg *a)
{
	const struct jdoc *d = r->doc;
	struct compsum one;
	struct rtsum rs;
	const char *s;
	size_t len;
	long long f, c;

	if (strcmp(ndin_kind(d), "op_partial_compile_region") == 0) {
		if (jdoc_get_str(d, 0, "compile_id", &s, &len) < 0 ||
		    (compile_id(s, len, &f, &c) < 0 && (len !=
		    strlen(OTHER_REGIONS) || memcmp(s, OTHER_REGIONS, len))))
			return jdoc_error(r->file, d, 0, "\"%s\" lacks a"
			    " \"compile_id\" of the form F/C", ndin_kind(d));
		if (opf_get(r, 0, &op_rtsum_fields, &rs) < 0)
			return -1;
		if (rs.count == 0 || rs.max > rs.total)
			return jdoc_error(r->file, d, 0, "\"%s\" does not add"
			    " up: no calls, or a longest call past the sum",
			    ndin_kind(d));
		region_add(a, s, len, &rs);
		return 0;
	}
	memset(&one, 0, sizeof(one));
	if (opf_get(r, 0, &op_compsum_fields, &one) < 0)
		return -1;
	opf_merge(&op_compsum_fields, &a->compile, &one);
	return 0;
}
