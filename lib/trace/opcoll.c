/*
 * opcoll: collectives call by call.  Each rank's communication calls (the
 * CPU operators of a backend that runs them on the host, such as gloo, or
 * the NCCL/RCCL kernels of a rank with GPU work) are matched across the
 * ranks by their order within each name and process group, as a group's
 * collectives run in the order they are issued; an instance's last rank to
 * arrive is the one whose call is shortest, every other waits past it, and
 * its call is the transfer alone.  Bandwidths follow nccl-tests'
 * definitions (doc/PERFORMANCE.md there): the algorithm bandwidth is the
 * bytes over the time, the bus bandwidth that times a factor of the kind
 * and the group's size.  A bus bandwidth beyond what the GPU's memory
 * moves (gpu-peaks.tsv) is no measurement but sizes that are not what
 * was sent: it is left out and said in a warning.
 */
#include <ctype.h>
#include <inttypes.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "base/strbuf.h"
#include "base/xalloc.h"
#include "trace/opbase.h"
#include "trace/opcoll.h"
#include "trace/opcore.h"
#include "trace/opdevice.h"
#include "trace/opsums.h"

#define MAXGROUPS	4096	/* process groups told apart, the first */

static const char *const kinds[] = {
	"all_reduce", "all_gather", "reduce_scatter", "all_to_all",
	"broadcast", "reduce", "send_recv", "barrier",
};
enum { K_ALLREDUCE, K_ALLGATHER, K_REDSCAT, K_ALLTOALL, K_BCAST, K_REDUCE,
    K_SENDRECV, K_BARRIER, NKINDS };

/* A call as it sorts: by its name's and group's place in text order. */
struct ocall {
	uint32_t		 nord, gord;
	const struct ccall	*c;
};

/* An instance, as its name and group's collective_total sums it up. */
struct inst {
	int64_t	skew, transfer;
	size_t	late;		/* its index among the runs */
	double	busbw;		/* < 0: unknown */
	int	beyond;		/* its bus bandwidth is past the GPU's */
};

/* One rank's calls of the name and group at hand. */
struct run {
	const struct ocall	*v;
	size_t			 n;
	int64_t			 rank;
	size_t			 j;	/* the rank's index in r->ranks */
};

/* What walk() calls with each name and group that two or more ranks call. */
typedef void	keyfn(struct oprank *, const struct run *, size_t m,
		    size_t n, void *arg);

static int	ends(const char *, size_t, const char *);
static int	cmpocall(const void *, const void *);
static uint32_t	*text_order(const char *const *, size_t);
static void	walk(struct oprank *, keyfn *, void *);
static void	match(const struct run *, size_t, size_t, struct inst *);
static void	put_instance(struct oprank *, struct jw *, const struct run *,
		    size_t, size_t, double, struct inst *);
static void	put_total(struct oprank *, struct jw *, const struct run *,
		    size_t, struct inst *, size_t);
static double	bw_limit(const struct oprank *, const char **);
static void	put_beyond(struct oprank *, struct jw *, const struct run *,
		    size_t, double, const char *);

/*
 * The kind of a collective, from PyTorch's "Collective name" ("allreduce",
 * "_allgather_base", "all_to_allv", "send") or an operator's or kernel's
 * name ("gloo:all_reduce", "ncclDevKernel_AllGather_RING_LL"), its
 * first 127 characters but underscores, in lower case.  -1: none of the
 * kinds.
 */
int
op_coll_kind(const char *s, size_t len)
{
	char n[128];
	size_t i, m = 0;

	for (i = 0; i < len && m < sizeof(n) - 1; i++)
		if (s[i] != '_')
			n[m++] = (char)tolower((unsigned char)s[i]);
	n[m] = '\0';
	if (strstr(n, "alltoall") != NULL)
		return K_ALLTOALL;
	if (strstr(n, "allreduce") != NULL)
		return K_ALLREDUCE;
	if (strstr(n, "allgather") != NULL)
		return K_ALLGATHER;
	if (strstr(n, "reducescatter") != NULL)
		return K_REDSCAT;
	if (strstr(n, "broadcast") != NULL)
		return K_BCAST;
	if (strstr(n, "sendrecv") != NULL || ends(n, m, "send") ||
	    ends(n, m, "recv"))
		return K_SENDRECV;
	if (strstr(n, "barrier") != NULL)
		return K_BARRIER;
	if (ends(n, m, "reduce") || strstr(n, "kernelreduce") != NULL)
		return K_REDUCE;
	return -1;
}

static int
ends(const char *s, size_t len, const char *tail)
{
	size_t n = strlen(tail);

	return len >= n && memcmp(s + len - n, tail, n) == 0 &&
	    (len == n || !isalpha((unsigned char)s[len - n - 1]));
}

/*
 * nccl-tests' bus bandwidth factor for n ranks: what each rank's link
 * carries for every byte of the collective's size.
 */
static double
bus_factor(int kind, int64_t n)
{
	switch (kind) {
	case K_ALLREDUCE:
		return 2.0 * (double)(n - 1) / (double)n;
	case K_ALLGATHER:
	case K_REDSCAT:
	case K_ALLTOALL:
		return (double)(n - 1) / (double)n;
	case K_BCAST:
	case K_REDUCE:
	case K_SENDRECV:
		return 1;
	}
	return 0;
}

/* The bytes of an element, by c10's name of its ScalarType; 0: unknown. */
static int
dtype_size(const char *s)
{
	static const struct {
		const char	*name;
		int		 size;
	} sizes[] = {
		{ "Float", 4 }, { "BFloat16", 2 }, { "Half", 2 },
		{ "Double", 8 }, { "Long", 8 }, { "Int", 4 }, { "Short", 2 },
		{ "Char", 1 }, { "Byte", 1 }, { "Bool", 1 },
		{ "ComplexHalf", 4 }, { "ComplexFloat", 8 },
		{ "ComplexDouble", 16 }, { "UInt16", 2 }, { "UInt32", 4 },
		{ "UInt64", 8 },
	};
	size_t i;

	if (strncmp(s, "Float8_", 7) == 0)
		return 1;
	for (i = 0; i < sizeof(sizes) / sizeof(sizes[0]); i++)
		if (strcmp(s, sizes[i].name) == 0)
			return sizes[i].size;
	return 0;
}

/* A process group's number, 1 on; 0 when unnamed or past MAXGROUPS. */
uint32_t
op_coll_group(struct oprank *r, const char *s, size_t len)
{
	struct strent *e;

	if ((e = strmap_get(&r->groups, s, len)) != NULL)
		return (uint32_t)e->n;
	if (r->ngroups == MAXGROUPS)
		return 0;
	e = strmap_put(&r->groups, s, len);
	r->groupv = op_grow(r->groupv, &r->capgroups, r->ngroups,
	    sizeof(*r->groupv));
	r->groupv[r->ngroups++] = e->key;
	e->n = r->ngroups;
	return (uint32_t)e->n;
}

/* Its group's name; NULL when unnamed. */
const char *
op_coll_group_name(const struct oprank *r, uint32_t g)
{
	return g == 0 ? NULL : r->groupv[g - 1];
}

const char *
op_coll_kind_name(int kind)
{
	return kind < 0 || kind >= NKINDS ? NULL : kinds[kind];
}

/* A communication call, while the rank has room for it. */
void
op_ccall_add(struct agg *a, const struct ccall *c)
{
	if (a->ncc == MAXCCALLS)
		return;
	a->cc = op_grow(a->cc, &a->capcc, a->ncc, sizeof(*a->cc));
	a->cc[a->ncc++] = *c;
}

/*
 * A communication call of the trace at hand, with what its event says of
 * the collective (tr-extract's "collective", "group", "group_size",
 * "in_nelems", "out_nelems" and "dtype"): its bytes are the larger
 * message's, the size nccl-tests counts (all-gather's output,
 * reduce-scatter's input).  The host's calls and the GPU's each keep
 * their first MAXCCALLS, as the trace's end keeps one side only.
 */
void
op_coll_call(struct oprank *r, struct agg *a, const struct collargs *ca,
    struct ccall *c)
{
	const struct jdoc *d = r->doc;
	int64_t in = -1, out = -1, gs;
	int size;

	if (r->t.ncoll[c->gpu] == MAXCCALLS)
		return;
	r->t.ncoll[c->gpu]++;
	c->bytes = -1;
	c->group = 0;
	c->gsize = 0;
	c->kind = -1;
	if (ca->coll >= 0 && d->node[ca->coll].type == JT_STRING)
		c->kind = (int8_t)op_coll_kind(jdoc_str(d, (uint32_t)ca->coll),
		    d->node[ca->coll].len);
	if (c->kind < 0)
		c->kind = (int8_t)op_coll_kind(r->names.v[c->name].s,
		    strlen(r->names.v[c->name].s));
	if (ca->group >= 0 && d->node[ca->group].type == JT_STRING)
		c->group = op_coll_group(r, jdoc_str(d, (uint32_t)ca->group),
		    d->node[ca->group].len);
	if (ca->gsize >= 0 && d->node[ca->gsize].type == JT_NUMBER &&
	    jnum_int64(jdoc_str(d, (uint32_t)ca->gsize),
	    d->node[ca->gsize].len, &gs) == 0 && gs > 0 && gs <= INT32_MAX)
		c->gsize = (int32_t)gs;
	if (ca->in >= 0 && d->node[ca->in].type == JT_NUMBER &&
	    jnum_int64(jdoc_str(d, (uint32_t)ca->in), d->node[ca->in].len,
	    &in) < 0)
		in = -1;
	if (ca->out >= 0 && d->node[ca->out].type == JT_NUMBER &&
	    jnum_int64(jdoc_str(d, (uint32_t)ca->out), d->node[ca->out].len,
	    &out) < 0)
		out = -1;
	if (out > in)
		in = out;
	if (in >= 0 && ca->dtype >= 0 && d->node[ca->dtype].type == JT_STRING &&
	    (size = dtype_size(jdoc_str(d, (uint32_t)ca->dtype))) > 0 &&
	    in <= INT64_MAX / size)
		c->bytes = in * size;
	a->cc = op_grow(a->cc, &a->capcc, a->ncc, sizeof(*a->cc));
	a->cc[a->ncc++] = *c;
}

static int
cmpocall(const void *a, const void *b)
{
	const struct ocall *x = a, *y = b;

	if (x->nord != y->nord)
		return x->nord < y->nord ? -1 : 1;
	if (x->gord != y->gord)
		return x->gord < y->gord ? -1 : 1;
	if (x->c->ts != y->c->ts)
		return x->c->ts < y->c->ts ? -1 : 1;
	return (x->c->dur > y->c->dur) - (x->c->dur < y->c->dur);
}

struct textent {
	const char	*s;
	uint32_t	 id;
};

static int
cmptextent(const void *a, const void *b)
{
	const struct textent *x = a, *y = b;

	return strcmp(x->s, y->s);
}

/*
 * Each id's place when the texts are sorted: the order of output must not
 * depend on the order names were first seen, which a merge changes.
 */
static uint32_t *
text_order(const char *const *s, size_t n)
{
	struct textent *v = xreallocarray(NULL, n + 1, sizeof(*v));
	uint32_t *ord = xreallocarray(NULL, n + 1, sizeof(*ord));
	size_t i;

	for (i = 0; i < n; i++) {
		v[i].s = s[i];
		v[i].id = (uint32_t)i;
	}
	xqsort(v, n, sizeof(*v), cmptextent);
	for (i = 0; i < n; i++)
		ord[v[i].id] = (uint32_t)i;
	free(v);
	return ord;
}

/*
 * Each name and group that two or more ranks call, in text order: every
 * such rank's run of its calls, and how many instances all of them have.
 */
static void
walk(struct oprank *r, keyfn *each, void *arg)
{
	const char **texts = xreallocarray(NULL, r->names.n + r->ngroups + 1,
	    sizeof(*texts));
	uint32_t *nord, *gord;
	struct ocall **v = xcalloc(r->nranks + 1, sizeof(*v));
	size_t *at = xcalloc(r->nranks + 1, sizeof(*at));
	struct run *runs = xcalloc(r->nranks + 1, sizeof(*runs));
	size_t i, j, k, m, n;
	struct ocall lo;

	for (i = 0; i < r->names.n; i++)
		texts[i] = r->names.v[i].s;
	nord = text_order(texts, r->names.n);
	texts[0] = "";
	for (i = 0; i < r->ngroups; i++)
		texts[i + 1] = r->groupv[i];
	gord = text_order(texts, r->ngroups + 1);
	for (j = 0; j < r->nranks; j++) {
		const struct agg *a = r->ranks[j];

		v[j] = xreallocarray(NULL, a->ncc + 1, sizeof(**v));
		for (i = 0; a->rank >= 0 && i < a->ncc; i++) {
			v[j][i].nord = nord[a->cc[i].name];
			v[j][i].gord = gord[a->cc[i].group];
			v[j][i].c = &a->cc[i];
		}
		xqsort(v[j], a->rank >= 0 ? a->ncc : 0, sizeof(**v), cmpocall);
	}
	for (;;) {
		/* The next name and group, in text order, of any rank. */
		lo.nord = lo.gord = UINT32_MAX;
		for (j = 0; j < r->nranks; j++) {
			const struct ocall *o = &v[j][at[j]];

			if (r->ranks[j]->rank < 0 || at[j] == r->ranks[j]->ncc)
				continue;
			if (o->nord < lo.nord ||
			    (o->nord == lo.nord && o->gord < lo.gord))
				lo = *o;
		}
		if (lo.nord == UINT32_MAX)
			break;
		for (j = m = 0, n = SIZE_MAX; j < r->nranks; j++) {
			const struct agg *a = r->ranks[j];

			for (k = at[j]; a->rank >= 0 && k < a->ncc &&
			    v[j][k].nord == lo.nord && v[j][k].gord == lo.gord;)
				k++;
			if (k == at[j])
				continue;
			runs[m].v = &v[j][at[j]];
			runs[m].n = k - at[j];
			runs[m].rank = a->rank;
			runs[m].j = j;
			if (runs[m].n < n)
				n = runs[m].n;
			m++;
			at[j] = k;
		}
		if (m >= 2)
			each(r, runs, m, n, arg);
	}
	for (j = 0; j < r->nranks; j++)
		free(v[j]);
	free(v);
	free(at);
	free(runs);
	free(nord);
	free(gord);
	free(texts);
}

struct putarg {
	struct jw	*w;
	struct inst	*in;
	size_t		 capin;
	double		 limit;	/* GB/s; NAN: none */
	const char	*gpu;	/* whose memory moves limit; NULL: any's */
};

static void
put_key(struct oprank *r, const struct run *runs, size_t m, size_t n,
    void *arg)
{
	struct putarg *pa = arg;
	size_t k, beyond = 0;

	for (k = 0; k < n; k++) {
		pa->in = op_grow(pa->in, &pa->capin, k, sizeof(*pa->in));
		put_instance(r, pa->w, runs, m, k, pa->limit, &pa->in[k]);
		beyond += (size_t)pa->in[k].beyond;
	}
	put_total(r, pa->w, runs, m, pa->in, n);
	if (beyond > 0)
		put_beyond(r, pa->w, runs, beyond, pa->limit, pa->gpu);
}

/*
 * The collective records: one per instance of each name and group that
 * two or more ranks call, the first as many as every such rank has; then
 * the instances summed up.
 */
void
op_put_collectives(struct oprank *r, struct jw *w)
{
	struct putarg pa = { w, NULL, 0, NAN, NULL };

	pa.limit = bw_limit(r, &pa.gpu);
	walk(r, put_key, &pa);
	free(pa.in);
}

/*
 * The most bus bandwidth there can be, in GB/s: what the memory of the
 * fastest of the ranks' GPUs moves (its row of gpu-peaks.tsv, or -g's),
 * its name in *gpu; without one, what the fastest GPU of the table
 * moves, *gpu NULL.  A collective's every byte is read from or written to
 * a GPU's memory.  NAN when the table knows no bandwidth.
 */
static double
bw_limit(const struct oprank *r, const char **gpu)
{
	const struct gpupeak *g;
	double best = NAN;
	size_t i;

	*gpu = NULL;
	for (i = 0; i < r->nranks; i++)
		if ((g = op_rank_peak(r, r->ranks[i])) != NULL &&
		    isfinite(g->tbps) && !(g->tbps <= best)) {
			best = g->tbps;
			*gpu = g->gpu;
		}
	for (i = 0; *gpu == NULL && i < r->npeaks; i++)
		if (isfinite(r->peaks[i].tbps) && !(r->peaks[i].tbps <= best))
			best = r->peaks[i].tbps;
	return best * 1000;
}

/* The warning for a name and group whose bandwidths were left out. */
static void
put_beyond(struct oprank *r, struct jw *w, const struct run *runs,
    size_t beyond, double limit, const char *gpu)
{
	const struct ccall *c = runs[0].v[0].c;
	const char *g = op_coll_group_name(r, c->group);
	struct strbuf sb = { 0 };

	sb_printf(&sb, "%zu instance%s of collective %s", beyond,
	    beyond == 1 ? "" : "s", r->names.v[c->name].s);
	if (g != NULL)
		sb_printf(&sb, " (group %s)", g);
	sb_printf(&sb, " give%s a bus bandwidth over %.0f GB/s, more than the"
	    " memory of %s%s moves: their message sizes are not what was"
	    " sent, and their bandwidths are left out", beyond == 1 ? "s" :
	    "", limit, gpu != NULL ? "the " : "any GPU", gpu != NULL ? gpu :
	    "");
	op_put_warning(w, -1, sb.s);
	sb_free(&sb);
}

struct sumarg {
	struct collsum	*sum;
	struct inst	 in;
	int64_t		 best;	/* the summed skew of sum's name */
};

static void
sum_key(struct oprank *r, const struct run *runs, size_t m, size_t n,
    void *arg)
{
	struct sumarg *sa = arg;
	int64_t skew = 0;
	size_t j, k;

	for (k = 0; k < n; k++) {
		match(runs, m, k, &sa->in);
		skew = op_sat_add(skew, sa->in.skew);
		for (j = 0; j < m; j++) {
			struct collsum *cs = &sa->sum[runs[j].j];
			const struct ccall *c = runs[j].v[k].c;

			cs->instances++;
			cs->total = op_sat_add(cs->total, c->dur);
			cs->waited = op_sat_add(cs->waited,
			    c->dur - sa->in.transfer);
			if (j == sa->in.late)
				cs->last++;
		}
	}
	for (j = 0; j < m; j++)
		sa->sum[runs[j].j].names++;
	if (skew > sa->best || sa->sum[r->nranks].name == UINT32_MAX) {
		sa->best = skew;
		sa->sum[r->nranks].name = runs[0].v[0].c->name;
	}
}

/*
 * Each rank's part in the collectives (by its index in r->ranks): the
 * instances it took part in, how often it arrived last, its calls' time
 * and its waits; at [nranks], the name whose instances have the most skew
 * (UINT32_MAX: none).  The caller frees the array.
 */
struct collsum *
op_coll_sums(struct oprank *r)
{
	struct sumarg sa;

	memset(&sa, 0, sizeof(sa));
	sa.sum = xcalloc(r->nranks + 1, sizeof(*sa.sum));
	sa.sum[r->nranks].name = UINT32_MAX;
	walk(r, sum_key, &sa);
	return sa.sum;
}

/* The head of a name and group's records: what its calls said. */
static void
put_head(struct oprank *r, struct jw *w, const struct ccall *c, int kind)
{
	const char *g;

	jw_key(w, "name");
	jw_cstring(w, r->names.v[c->name].s);
	if ((g = op_coll_group_name(r, c->group)) != NULL) {
		jw_key(w, "group");
		jw_cstring(w, g);
	}
	if (op_coll_kind_name(kind) != NULL) {
		jw_key(w, "collective");
		jw_cstring(w, op_coll_kind_name(kind));
	}
}

/* The k-th instance of m ranks' runs: who came last, who waited. */
static void
match(const struct run *runs, size_t m, size_t k, struct inst *in)
{
	const struct ccall *c;
	int64_t longest = 0;
	size_t j;

	in->late = 0;
	for (j = 0; j < m; j++) {
		c = runs[j].v[k].c;
		if (c->dur < runs[in->late].v[k].c->dur)
			in->late = j;
		if (c->dur > longest)
			longest = c->dur;
	}
	in->transfer = runs[in->late].v[k].c->dur;
	in->skew = longest - in->transfer;
	in->busbw = -1;
}

/*
 * The k-th instance of m ranks' runs, summed up in *in; a bus bandwidth
 * over limit GB/s is left out.
 */
static void
put_instance(struct oprank *r, struct jw *w, const struct run *runs,
    size_t m, size_t k, double limit, struct inst *in)
{
	const struct ccall *c0 = runs[0].v[k].c, *c;
	size_t j;
	int64_t first = c0->ts, bytes = -1, n = 0;
	int kind = -1;

	match(runs, m, k, in);
	in->beyond = 0;
	for (j = 0; j < m; j++) {
		c = runs[j].v[k].c;
		if (c->ts < first)
			first = c->ts;
		if (bytes < 0)
			bytes = c->bytes;
		if (kind < 0)
			kind = c->kind;
		if (n == 0)
			n = c->gsize;
	}
	if (n == 0)
		n = (int64_t)m;
	jw_record(w, "collective");
	put_head(r, w, c0, kind);
	jw_key(w, "instance");
	jw_uint(w, k + 1);
	jw_key(w, "ranks");
	jw_uint(w, m);
	jw_key(w, "late_rank");
	jw_int(w, runs[in->late].rank);
	jw_key(w, "skew");
	jw_us(w, in->skew);
	jw_key(w, "transfer");
	jw_us(w, in->transfer);
	if (bytes >= 0) {
		jw_key(w, "bytes");
		jw_int(w, bytes);
		/* Bytes a nanosecond are GB/s, nccl-tests' unit. */
		if (in->transfer > 0 && kind >= 0 && kind != K_BARRIER &&
		    (double)bytes / (double)in->transfer * bus_factor(kind,
		    n) > limit) {
			in->beyond = 1;
			jw_key(w, "busbw_beyond_gpu");
			jw_bool(w, 1);
		} else if (in->transfer > 0 && kind >= 0 && kind != K_BARRIER) {
			jw_key(w, "algbw");
			jw_double(w, op_round3((double)bytes /
			    (double)in->transfer));
			in->busbw = (double)bytes / (double)in->transfer *
			    bus_factor(kind, n);
			jw_key(w, "busbw");
			jw_double(w, op_round3(in->busbw));
			jw_key(w, "bus_factor");
			jw_double(w, op_round3(bus_factor(kind, n)));
		}
	}
	jw_key(w, "calls");
	jw_begin_array(w);
	for (j = 0; j < m; j++) {
		c = runs[j].v[k].c;
		jw_begin_object(w);
		jw_key(w, "rank");
		jw_int(w, runs[j].rank);
		jw_key(w, "start");
		jw_us(w, c->ts - first);
		jw_key(w, "dur");
		jw_us(w, c->dur);
		jw_key(w, "wait");
		jw_us(w, c->dur - in->transfer);
		jw_end_object(w);
	}
	jw_end_array(w);
	jw_end(w);
}

static int
cmpdouble(const void *a, const void *b)
{
	double x = *(const double *)a, y = *(const double *)b;

	return (x > y) - (x < y);
}

/*
 * A name and group's n instances summed up: their medians, the rank last
 * to arrive most often (the first in rank order on a tie), and the calls
 * left unmatched.  The report reads these, as a trace may hold thousands
 * of instances.
 */
static void
put_total(struct oprank *r, struct jw *w, const struct run *runs, size_t m,
    struct inst *in, size_t n)
{
	int64_t *v = xreallocarray(NULL, n + 1, sizeof(*v));
	double *bw = xreallocarray(NULL, n + 1, sizeof(*bw));
	size_t *last = xcalloc(m, sizeof(*last));
	size_t i, j, nbw = 0, most = 0, unmatched = 0, beyond = 0;
	int kind = -1;

	for (j = 0; j < m; j++)
		unmatched += runs[j].n - n;
	for (i = 0; i < n; i++) {
		last[in[i].late]++;
		if (in[i].busbw >= 0)
			bw[nbw++] = in[i].busbw;
		beyond += (size_t)in[i].beyond;
	}
	for (j = 0; j < m; j++) {
		if (last[j] > last[most])
			most = j;
		for (i = 0; kind < 0 && i < n; i++)
			kind = runs[j].v[i].c->kind;
	}
	jw_record(w, "collective_total");
	put_head(r, w, runs[0].v[0].c, kind);
	jw_key(w, "instances");
	jw_uint(w, n);
	jw_key(w, "ranks");
	jw_uint(w, m);
	for (i = 0; i < n; i++)
		v[i] = in[i].skew;
	xqsort(v, n, sizeof(*v), op_cmpi64);
	jw_key(w, "median_skew");
	jw_double(w, op_round3(op_median(v, n) / 1000));
	for (i = 0; i < n; i++)
		v[i] = in[i].transfer;
	xqsort(v, n, sizeof(*v), op_cmpi64);
	jw_key(w, "median_transfer");
	jw_double(w, op_round3(op_median(v, n) / 1000));
	jw_key(w, "late_rank");
	jw_int(w, runs[most].rank);
	jw_key(w, "late_at");
	jw_uint(w, last[most]);
	/* Calls past the fewest a rank has: windows that start apart. */
	if (unmatched > 0) {
		jw_key(w, "unmatched");
		jw_uint(w, unmatched);
	}
	if (beyond > 0) {
		jw_key(w, "busbw_beyond_gpu");
		jw_uint(w, beyond);
	}
	if (nbw > 0) {
		xqsort(bw, nbw, sizeof(*bw), cmpdouble);
		jw_key(w, "median_busbw");
		jw_double(w, op_round3(nbw % 2 ? bw[nbw / 2] :
		    (bw[nbw / 2 - 1] + bw[nbw / 2]) / 2));
	}
	jw_end(w);
	free(v);
	free(bw);
	free(last);
}
