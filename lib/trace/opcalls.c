/*
 * opcalls: the calls of one operator, by shape, and the GPU work they
 * launched; see opcalls.h.
 */
#include <ctype.h>
#include <inttypes.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "base/err.h"
#include "base/strbuf.h"
#include "base/xalloc.h"
#include "trace/extract.h"
#include "trace/nsys.h"
#include "trace/opcalls.h"

/* A call: its thread, its span (ns) and its group. */
struct ocall {
	uint32_t	thr, group;
	int64_t		ts, end;
	int64_t		ext;		/* its External id, or INT64_MIN */
	int64_t		gpu;		/* what it launched ran this long, ns */
};

/* Of a thread, the range of its calls among the sorted calls. */
struct othread {
	size_t	lo, hi;
};

/* A CPU event inside call c. */
struct ochild {
	size_t	c;
	int64_t	ts, end;
};

/* GPU work of call c: kernel k of the kernels' table ran dur ns. */
struct olaunch {
	size_t		c;
	uint32_t	k;
	int64_t		dur;
};

enum { CAT_NONE, CAT_OP, CAT_ANN, CAT_RUNTIME, CAT_GPU };

static int	on_record(void *, const struct jdoc *);
static int	category(const struct jdoc *);
static int	span(const struct jdoc *, int64_t *, int64_t *);
static int	thread_key(struct strbuf *, const struct jdoc *);
static void	on_trace(struct opcalls *, const struct jdoc *);
static void	on_call(struct opcalls *, const struct jdoc *);
static void	on_inside(struct opcalls *, const struct jdoc *, int);
static void	on_gpu(struct opcalls *, const struct jdoc *);
static size_t	containing(const struct opcalls *, uint32_t, int64_t,
		    int64_t);
static void	outermost(struct opcalls *);
static void	sum_calls(struct opcalls *);
static int	cmpcall(const void *, const void *);
static int	cmpchild(const void *, const void *);
static int	cmpi64(const void *, const void *);
static int	cmpgroup(const void *, const void *);
static int	cmpkernel(const void *, const void *);

int
opcalls_read(struct opcalls *oc, const char *path,
    const struct opcalls_opts *o)
{
	struct extract_opts xo = { .args = 1 };
	struct jw *w;
	int rc = 0;

	memset(oc, 0, sizeof(*oc));
	oc->o = o;
	for (oc->pass = 1; oc->pass <= 3 && rc == 0; oc->pass++) {
		if (oc->pass == 2)
			outermost(oc);
		/* Nothing of the operator: the other passes have nothing. */
		if (oc->pass > 1 && oc->nc == 0)
			break;
		w = jw_new_doc(on_record, oc);
		rc = o->nsys ? nsys_extract(path, w, NULL) :
		    extract_trace(path, w, &xo);
		jw_free(w);
	}
	if (rc == 0)
		sum_calls(oc);
	return rc;
}

static int
on_record(void *arg, const struct jdoc *d)
{
	struct opcalls *oc = arg;
	const char *kind;
	int cat;

	if (jdoc_get_str(d, 0, "kind", &kind, NULL) < 0)
		return 0;
	if (strcmp(kind, "trace") == 0) {
		if (oc->pass == 1)
			on_trace(oc, d);
		return 0;
	}
	if (strcmp(kind, "event") != 0)
		return 0;
	cat = category(d);
	if (oc->pass == 1 && cat == CAT_OP)
		on_call(oc, d);
	else if (oc->pass == 2 && (cat == CAT_OP || cat == CAT_ANN ||
	    cat == CAT_RUNTIME))
		on_inside(oc, d, cat);
	else if (oc->pass == 3 && cat == CAT_GPU)
		on_gpu(oc, d);
	return 0;
}

/* What an event is, by its category as PyTorch and nsys-extract name it. */
static int
category(const struct jdoc *d)
{
	static const char *const op[] = { "cpu_op", "Operator", NULL };
	static const char *const ann[] = { "user_annotation", NULL };
	static const char *const rt[] = {
		"cuda_runtime", "Runtime", "cuda_driver", "mtia_runtime", NULL
	};
	static const char *const gpu[] = {
		"kernel", "Kernel", "gpu_memcpy", "Memcpy", "gpu_memset",
		"Memset", NULL
	};
	static const char *const *const table[] = { op, ann, rt, gpu };
	const char *c;
	size_t i, j;

	/* Legacy traces give operators no category. */
	if (jdoc_get_str(d, 0, "cat", &c, NULL) < 0)
		return CAT_OP;
	for (i = 0; i < 4; i++)
		for (j = 0; table[i][j] != NULL; j++)
			if (strcmp(c, table[i][j]) == 0)
				return CAT_OP + (int)i;
	return CAT_NONE;
}

/* The event's start and end, ns; -1 when it has none. */
static int
span(const struct jdoc *d, int64_t *ts, int64_t *end)
{
	int64_t dur;

	if (jdoc_get_ns(d, 0, "ts", ts) < 0 ||
	    jdoc_get_ns(d, 0, "dur", &dur) < 0 || dur < 0 ||
	    *ts > INT64_MAX - dur)
		return -1;
	*end = *ts + dur;
	return 0;
}

/* pid and tid as written, a string apart from a number. */
static int
thread_key(struct strbuf *key, const struct jdoc *d)
{
	static const char *const names[] = { "pid", "tid" };
	int i, n;

	sb_truncate(key, 0);
	for (i = 0; i < 2; i++) {
		if ((n = jdoc_get(d, 0, names[i])) < 0)
			return -1;
		sb_printf(key, "%c", d->node[n].type == JT_STRING ? 's' : 'n');
		sb_put(key, jdoc_str(d, (uint32_t)n), d->node[n].len);
		sb_puts(key, "\n");
	}
	return 0;
}

static void
on_trace(struct opcalls *oc, const struct jdoc *d)
{
	int props, dev;
	const char *name;

	if (oc->gpu == NULL && (props = jdoc_get(d, 0, "device_properties"))
	    >= 0 && d->node[props].type == JT_ARRAY &&
	    d->node[props].len > 0 && (dev = props + 1,
	    d->node[dev].type == JT_OBJECT) &&
	    jdoc_get_str(d, (uint32_t)dev, "name", &name, NULL) == 0)
		oc->gpu = xstrdup(name);
}

static void
on_call(struct opcalls *oc, const struct jdoc *d)
{
	const struct opcalls_opts *o = oc->o;
	struct strbuf key = { 0 }, thr = { 0 };
	struct shapenodes in;
	struct strent *e;
	struct opgroup *g;
	struct ocall *c;
	const char *name;
	int64_t ts, end, ext;
	int has;

	if (jdoc_get_str(d, 0, "name", &name, NULL) < 0 ||
	    strcmp(name, o->name) != 0 || span(d, &ts, &end) < 0 ||
	    thread_key(&thr, d) < 0)
		goto out;
	callshape_nodes(d, 0, &in);
	has = callshape_key(&key, d, &in) == 0;
	if (!has)
		sb_truncate(&key, 0);
	if (o->key != NULL && (key.len != o->keylen ||
	    memcmp(key.s, o->key, key.len) != 0))
		goto out;
	e = strmap_put(&oc->groups, key.len > 0 ? key.s : "", key.len);
	/* val marks the entry made; n is the group's index. */
	if (e->val == NULL) {
		oc->g = xreallocarray(oc->g, oc->ng + 1, sizeof(*oc->g));
		g = &oc->g[oc->ng];
		memset(g, 0, sizeof(*g));
		g->key = xmalloc(key.len + 1);
		memcpy(g->key, key.len > 0 ? key.s : "", key.len);
		g->key[key.len] = '\0';
		g->keylen = key.len;
		if ((g->has_shape = has))
			callshape_copy(&g->shape, d, &in);
		e->val = oc;
		e->n = oc->ng++;
	}
	if (oc->nc == oc->capc) {
		oc->capc = oc->capc ? 2 * oc->capc : 64;
		oc->c = xreallocarray(oc->c, oc->capc, sizeof(*oc->c));
	}
	c = &oc->c[oc->nc++];
	c->group = (uint32_t)e->n;
	c->ts = ts;
	c->end = end;
	c->gpu = 0;
	c->ext = jdoc_get_i64(d, 0, "external_id", &ext) == 0 ? ext :
	    INT64_MIN;
	e = strmap_put(&oc->threads, thr.s, thr.len);
	if (e->val == NULL) {
		e->val = oc;
		e->n = oc->threads.count - 1;
	}
	c->thr = (uint32_t)e->n;
out:
	free(key.s);
	free(thr.s);
}

static int
cmpcall(const void *a, const void *b)
{
	const struct ocall *x = a, *y = b;

	if (x->thr != y->thr)
		return x->thr < y->thr ? -1 : 1;
	if (x->ts != y->ts)
		return x->ts < y->ts ? -1 : 1;
	return (x->end < y->end) - (x->end > y->end);
}

/*
 * Sorts the calls by thread and start and keeps the outermost: a call
 * inside another of the operator (a recursion through its own kernel
 * choice) is part of it.
 */
static void
outermost(struct opcalls *oc)
{
	size_t i, n = 0;
	uint32_t t;

	xqsort(oc->c, oc->nc, sizeof(*oc->c), cmpcall);
	for (i = 0; i < oc->nc; i++) {
		if (n > 0 && oc->c[n - 1].thr == oc->c[i].thr &&
		    oc->c[i].end <= oc->c[n - 1].end)
			continue;
		oc->c[n++] = oc->c[i];
	}
	oc->nc = n;
	oc->t = xcalloc(oc->threads.count + 1, sizeof(*oc->t));
	for (i = 0; i < oc->nc; i = oc->t[t].hi) {
		t = oc->c[i].thr;
		oc->t[t].lo = i;
		for (oc->t[t].hi = i; oc->t[t].hi < oc->nc &&
		    oc->c[oc->t[t].hi].thr == t; oc->t[t].hi++)
			;
	}
}

/* The call of thread t that holds ts..end, or SIZE_MAX. */
static size_t
containing(const struct opcalls *oc, uint32_t t, int64_t ts, int64_t end)
{
	size_t lo = oc->t[t].lo, hi = oc->t[t].hi, mid;

	while (lo < hi) {
		mid = lo + (hi - lo) / 2;
		if (oc->c[mid].ts <= ts)
			lo = mid + 1;
		else
			hi = mid;
	}
	if (lo == oc->t[t].lo || end > oc->c[lo - 1].end)
		return SIZE_MAX;
	return lo - 1;
}

static void
on_inside(struct opcalls *oc, const struct jdoc *d, int cat)
{
	struct strbuf thr = { 0 };
	struct strent *e;
	struct ochild *ch;
	const char *name;
	int64_t ts, end;
	size_t c;
	int corr;

	if (span(d, &ts, &end) < 0 || thread_key(&thr, d) < 0 ||
	    (e = strmap_get(&oc->threads, thr.s, thr.len)) == NULL ||
	    (c = containing(oc, (uint32_t)e->n, ts, end)) == SIZE_MAX)
		goto out;
	/* The call itself. */
	if (cat == CAT_OP && ts == oc->c[c].ts && end == oc->c[c].end &&
	    jdoc_get_str(d, 0, "name", &name, NULL) == 0 &&
	    strcmp(name, oc->o->name) == 0)
		goto out;
	if (cat == CAT_RUNTIME && (corr = jdoc_get(d, 0, "correlation")) >= 0)
		strmap_put(&oc->corrs, jdoc_str(d, (uint32_t)corr),
		    d->node[corr].len)->n = c + 1;
	if (oc->nch == oc->capch) {
		oc->capch = oc->capch ? 2 * oc->capch : 64;
		oc->ch = xreallocarray(oc->ch, oc->capch, sizeof(*oc->ch));
	}
	ch = &oc->ch[oc->nch++];
	ch->c = c;
	ch->ts = ts;
	ch->end = end;
out:
	free(thr.s);
}

static void
on_gpu(struct opcalls *oc, const struct jdoc *d)
{
	struct strent *e, *k;
	struct olaunch *l;
	const char *name;
	int64_t ts, end;
	int corr;

	if ((corr = jdoc_get(d, 0, "correlation")) < 0 ||
	    (e = strmap_get(&oc->corrs, jdoc_str(d, (uint32_t)corr),
	    d->node[corr].len)) == NULL || e->n == 0 ||
	    span(d, &ts, &end) < 0 ||
	    jdoc_get_str(d, 0, "name", &name, NULL) < 0)
		return;
	{
		char *norm = opcalls_norm(name);

		k = strmap_put(&oc->kernels, norm, strlen(norm));
		if (k->val == NULL) {
			k->val = xstrdup(name);
			k->n = oc->kernels.count - 1;
		}
		free(norm);
	}
	if (oc->nl == oc->capl) {
		oc->capl = oc->capl ? 2 * oc->capl : 64;
		oc->l = xreallocarray(oc->l, oc->capl, sizeof(*oc->l));
	}
	l = &oc->l[oc->nl++];
	l->c = (size_t)e->n - 1;
	l->k = (uint32_t)k->n;
	l->dur = end - ts;
}

char *
opcalls_norm(const char *name)
{
	struct strbuf b = { 0 };
	const char *p = name;

	sb_puts(&b, "");
	while (*p != '\0') {
		if (p[0] == '0' && (p[1] == 'x' || p[1] == 'X') &&
		    isxdigit((unsigned char)p[2])) {
			sb_puts(&b, "0xXXXX");
			for (p += 2; isxdigit((unsigned char)*p); p++)
				;
		} else
			sb_put(&b, p++, 1);
	}
	return b.s;
}

int64_t
opcalls_median(const int64_t *v, size_t n)
{
	if (n == 0)
		return 0;
	if (n % 2 == 1)
		return v[n / 2];
	return v[n / 2 - 1] + (v[n / 2] - v[n / 2 - 1]) / 2;
}

static int
cmpchild(const void *a, const void *b)
{
	const struct ochild *x = a, *y = b;

	if (x->c != y->c)
		return x->c < y->c ? -1 : 1;
	return (x->ts > y->ts) - (x->ts < y->ts);
}

static int
cmpi64(const void *a, const void *b)
{
	int64_t x = *(const int64_t *)a, y = *(const int64_t *)b;

	return (x > y) - (x < y);
}

/* By GPU time, then self time, calls and key: a total order. */
static int
cmpgroup(const void *a, const void *b)
{
	const struct opgroup *x = a, *y = b;
	size_t n = x->keylen < y->keylen ? x->keylen : y->keylen;
	int c;

	if (x->gpu != y->gpu)
		return x->gpu > y->gpu ? -1 : 1;
	if (x->self != y->self)
		return x->self > y->self ? -1 : 1;
	if (x->calls != y->calls)
		return x->calls > y->calls ? -1 : 1;
	if ((c = memcmp(x->key, y->key, n)) != 0)
		return c;
	return (x->keylen > y->keylen) - (x->keylen < y->keylen);
}

static int
cmpkernel(const void *a, const void *b)
{
	const struct opkernel *x = a, *y = b;

	if (x->total != y->total)
		return x->total > y->total ? -1 : 1;
	return strcmp(x->norm, y->norm);
}

/*
 * The sums: each call's time and self time, the GPU work of its launches,
 * by group and kernel; then the groups and their kernels in order.
 */
static void
sum_calls(struct opcalls *oc)
{
	struct strent **kv = strmap_sorted(&oc->kernels);
	char **knorm = xcalloc(oc->kernels.count + 1, sizeof(*knorm));
	char **kname = xcalloc(oc->kernels.count + 1, sizeof(*kname));
	size_t i, j, *ncalls = xcalloc(oc->ng + 1, sizeof(*ncalls));
	int64_t covered, at;
	struct opgroup *g;
	struct ocall *c;

	for (i = 0; i < oc->kernels.count; i++) {
		knorm[kv[i]->n] = kv[i]->key;
		kname[kv[i]->n] = kv[i]->val;
	}
	xqsort(oc->ch, oc->nch, sizeof(*oc->ch), cmpchild);
	for (i = 0; i < oc->nc; i++) {
		c = &oc->c[i];
		g = &oc->g[c->group];
		if (g->calls == 0 || c->ts < g->first) {
			g->first = c->ts;
			free(g->external_id);
			g->external_id = NULL;
			if (c->ext != INT64_MIN) {
				struct strbuf b = { 0 };

				sb_printf(&b, "%" PRId64, c->ext);
				g->external_id = b.s;
			}
		}
		g->calls++;
		g->cpu += c->end - c->ts;
		g->self += c->end - c->ts;
	}
	/* Self time: less the union of what ran inside, call by call. */
	for (i = 0; i < oc->nch; i = j) {
		covered = 0;
		at = INT64_MIN;
		for (j = i; j < oc->nch && oc->ch[j].c == oc->ch[i].c; j++) {
			int64_t s = oc->ch[j].ts > at ? oc->ch[j].ts : at;

			if (oc->ch[j].end > s)
				covered += oc->ch[j].end - s;
			if (oc->ch[j].end > at)
				at = oc->ch[j].end;
		}
		oc->g[oc->c[oc->ch[i].c].group].self -= covered;
	}
	for (i = 0; i < oc->nl; i++) {
		const struct olaunch *l = &oc->l[i];
		struct opkernel *k;

		c = &oc->c[l->c];
		g = &oc->g[c->group];
		c->gpu += l->dur;
		g->gpu += l->dur;
		for (j = 0; j < g->nk && strcmp(g->k[j].norm, knorm[l->k]) != 0;
		    j++)
			;
		if (j == g->nk) {
			g->k = xreallocarray(g->k, g->nk + 1, sizeof(*g->k));
			k = &g->k[g->nk++];
			memset(k, 0, sizeof(*k));
			k->norm = xstrdup(knorm[l->k]);
			k->name = xstrdup(kname[l->k]);
		}
		k = &g->k[j];
		if (k->n == k->cap) {
			k->cap = k->cap ? 2 * k->cap : 16;
			k->dur = xreallocarray(k->dur, k->cap, sizeof(*k->dur));
		}
		k->dur[k->n++] = l->dur;
		k->total += l->dur;
	}
	for (i = 0; i < oc->ng; i++)
		oc->g[i].call_gpu = xreallocarray(NULL, (size_t)oc->g[i].calls +
		    1, sizeof(*oc->g[i].call_gpu));
	for (i = 0; i < oc->nc; i++) {
		c = &oc->c[i];
		oc->g[c->group].call_gpu[ncalls[c->group]++] = c->gpu;
	}
	for (i = 0; i < oc->ng; i++) {
		g = &oc->g[i];
		xqsort(g->call_gpu, (size_t)g->calls, sizeof(*g->call_gpu),
		    cmpi64);
		for (j = 0; j < g->nk; j++)
			xqsort(g->k[j].dur, g->k[j].n, sizeof(*g->k[j].dur),
			    cmpi64);
		xqsort(g->k, g->nk, sizeof(*g->k), cmpkernel);
	}
	/* Groups with no call left (all inside another) are dropped. */
	for (i = j = 0; i < oc->ng; i++) {
		if (oc->g[i].calls > 0)
			oc->g[j++] = oc->g[i];
		else {
			callshape_free(&oc->g[i].shape);
			free(oc->g[i].key);
			free(oc->g[i].call_gpu);
		}
	}
	oc->ng = j;
	xqsort(oc->g, oc->ng, sizeof(*oc->g), cmpgroup);
	free(ncalls);
	free(knorm);
	free(kname);
	free(kv);
}

const struct opgroup *
opcalls_find(const struct opcalls *oc, const char *key, size_t keylen)
{
	size_t i;

	for (i = 0; i < oc->ng; i++)
		if (oc->g[i].keylen == keylen &&
		    memcmp(oc->g[i].key, key, keylen) == 0)
			return &oc->g[i];
	return NULL;
}

void
opcalls_put(struct jw *w, const struct opcalls *oc, const struct opgroup *g)
{
	size_t i;

	jw_record(w, "op_calls");
	jw_key(w, "name");
	jw_cstring(w, oc->o->name);
	if (g->has_shape)
		callshape_put(w, &g->shape);
	jw_key(w, "calls");
	jw_int(w, g->calls);
	jw_key(w, "cpu_us");
	jw_us(w, g->cpu);
	jw_key(w, "self_us");
	jw_us(w, g->self > 0 ? g->self : 0);
	jw_key(w, "gpu_us");
	jw_us(w, g->gpu);
	jw_key(w, "gpu_median_us");
	jw_us(w, opcalls_median(g->call_gpu, (size_t)g->calls));
	jw_key(w, "gpu_min_us");
	jw_us(w, g->calls > 0 ? g->call_gpu[0] : 0);
	jw_key(w, "gpu_max_us");
	jw_us(w, g->calls > 0 ? g->call_gpu[g->calls - 1] : 0);
	jw_key(w, "first");
	jw_us(w, g->first);
	if (g->external_id != NULL) {
		jw_key(w, "external_id");
		jw_number(w, g->external_id, strlen(g->external_id));
	}
	jw_key(w, "kernels");
	jw_begin_array(w);
	for (i = 0; i < g->nk; i++)
		opcalls_put_kernel(w, g, &g->k[i], 1);
	jw_end_array(w);
	jw_end(w);
}

void
opcalls_put_kernel(struct jw *w, const struct opgroup *g,
    const struct opkernel *k, int total)
{
	jw_begin_object(w);
	jw_key(w, "name");
	jw_cstring(w, k->name);
	jw_key(w, "launches");
	jw_uint(w, k->n);
	jw_key(w, "per_call");
	jw_ratio3(w, k->n, g->calls);
	if (total) {
		jw_key(w, "total_us");
		jw_us(w, k->total);
	}
	jw_key(w, "median_us");
	jw_us(w, opcalls_median(k->dur, k->n));
	jw_key(w, "min_us");
	jw_us(w, k->dur[0]);
	jw_key(w, "max_us");
	jw_us(w, k->dur[k->n - 1]);
	jw_end_object(w);
}

void
opcalls_free(struct opcalls *oc)
{
	size_t i, j;

	for (i = 0; i < oc->ng; i++) {
		struct opgroup *g = &oc->g[i];

		for (j = 0; j < g->nk; j++) {
			free(g->k[j].name);
			free(g->k[j].norm);
			free(g->k[j].dur);
		}
		free(g->k);
		callshape_free(&g->shape);
		free(g->key);
		free(g->external_id);
		free(g->call_gpu);
	}
	free(oc->g);
	free(oc->gpu);
	free(oc->c);
	free(oc->t);
	free(oc->ch);
	free(oc->l);
	strmap_free(&oc->groups, NULL);
	strmap_free(&oc->threads, NULL);
	strmap_free(&oc->corrs, NULL);
	strmap_free(&oc->kernels, free);
	memset(oc, 0, sizeof(*oc));
}
