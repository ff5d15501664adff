#include <inttypes.h>
#include <math.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "base/err.h"
#include "base/strbuf.h"
#include "base/strmap.h"
#include "base/xalloc.h"
#include "io/json.h"
#include "io/ndjson.h"
#include "io/publish.h"
#include "io/xmltext.h"
#include "report/charts.h"

static const char *const state_key[3] = {
	"active_allocated", "active_pending_free", "inactive"
};

static int64_t	rank_of(const struct jdoc *);
static int	num_array(const char *, const struct jdoc *, const char *,
		    int, double **, size_t *);
static int	take_timeline(struct charts *, const char *,
		    const struct jdoc *);
static const char *site_label(const char *, char *, size_t);
static int	take_layout(struct charts *, const char *, const struct jdoc *);
static int	take_gpu(struct charts *, const struct jdoc *);
static int	take_step(struct charts *, const struct jdoc *);
static int	take_ledger(struct charts *, const char *, const struct jdoc *);
static int	take_critical(struct charts *, const char *,
		    const struct jdoc *);
static struct window *new_bar(struct barset *);
static size_t	part_of(struct barset *, const char *);
static int	take_family(struct charts *, const struct jdoc *);
static int	take_shape(struct charts *, const struct jdoc *);
static int	take_compute(struct charts *, const struct jdoc *);

/* Keeps what the charts need of one record; other kinds are ignored. */
int
charts_take(struct charts *c, const char *file, const struct jdoc *d)
{
	const char *kind = ndin_kind(d);

	if (strcmp(kind, "memory_timeline") == 0)
		return take_timeline(c, file, d);
	if (strcmp(kind, "segment_layout") == 0)
		return take_layout(c, file, d);
	if (strcmp(kind, "gpu_timeline") == 0)
		return take_gpu(c, d);
	if (strcmp(kind, "step") == 0)
		return take_step(c, d);
	if (strcmp(kind, "family_total") == 0)
		return take_family(c, d);
	if (strcmp(kind, "op_shape") == 0)
		return take_shape(c, d);
	if (strcmp(kind, "compute_summary") == 0)
		return take_compute(c, d);
	if (strcmp(kind, "ledger") == 0)
		return take_ledger(c, file, d);
	if (strcmp(kind, "critical_path") == 0)
		return take_critical(c, file, d);
	return 0;
}

static int64_t
rank_of(const struct jdoc *d)
{
	int64_t r;

	return jdoc_get_i64(d, 0, "rank", &r) == 0 ? r : -1;
}

/*
 * The numbers of array member key into a new array (null as NAN when
 * nulls is set).  Returns 0, or -1 after reporting what is wrong.
 */
static int
num_array(const char *file, const struct jdoc *d, const char *key,
    int nulls, double **v, size_t *n)
{
	uint32_t i, k;
	int a;

	*v = NULL;
	*n = 0;
	if ((a = jdoc_get(d, 0, key)) < 0 || d->node[a].type != JT_ARRAY)
		return jdoc_error(file, d, 0, "\"%s\" is not an array", key);
	*v = xreallocarray(NULL, (size_t)d->node[a].len + 1, sizeof(**v));
	for (i = (uint32_t)a + 1, k = 0; i < d->node[a].next;
	    i = d->node[i].next, k++) {
		if (d->node[i].type == JT_NUMBER &&
		    isfinite(jnum_double(jdoc_str(d, i))))
			(*v)[k] = jnum_double(jdoc_str(d, i));
		else if (nulls && d->node[i].type == JT_NULL)
			(*v)[k] = NAN;
		else {
			free(*v);
			*v = NULL;
			return jdoc_error(file, d, i, "\"%s\" holds a value"
			    " that is not a finite number", key);
		}
	}
	*n = k;
	return 0;
}

/*
 * A memory_timeline, its buckets merged further when there are more than
 * MAX_BUCKETS: the lowest minimum, the highest maximum, and the sites'
 * bytes at that maximum.
 */
static int
take_timeline(struct charts *c, const char *file, const struct jdoc *d)
{
	struct timeline *t;
	struct tlset *set;
	double *x = NULL, *amin = NULL, *amax = NULL, *rmax = NULL, v;
	double *xend = NULL;
	size_t nx, n1, n2, n3, n4 = 0, i, b, k, ns = 0;
	const char *s, *src = "";
	size_t len;
	int64_t dev;
	int a, p, m, rc = -1;
	uint32_t j, q;
	char lab[128];

	if (jdoc_get_str(d, 0, "source", &src, &len) < 0 ||
	    (strcmp(src, "snapshot") != 0 && strcmp(src, "trace") != 0))
		return jdoc_error(file, d, 0, "memory_timeline has no"
		    " \"source\" \"snapshot\" or \"trace\"");
	set = strcmp(src, "snapshot") == 0 ? &c->mem : &c->memtr;
	if (set->n == MAX_PANELS) {
		set->dropped++;
		return 0;
	}
	if (num_array(file, d, "x", 0, &x, &nx) < 0 ||
	    num_array(file, d, "allocated_min", 1, &amin, &n1) < 0 ||
	    num_array(file, d, "allocated_max", 1, &amax, &n2) < 0 ||
	    num_array(file, d, "reserved_max", 1, &rmax, &n3) < 0 ||
	    (jdoc_get(d, 0, "x_end") >= 0 &&
	    num_array(file, d, "x_end", 0, &xend, &n4) < 0))
		goto out;
	if (n1 != nx || n2 != nx || n3 != nx || (xend != NULL && n4 != nx)) {
		jdoc_error(file, d, 0, "memory_timeline arrays differ in"
		    " length");
		goto out;
	}
	t = xcalloc(1, sizeof(*t));
	set->tl[set->n++] = t;
	t->timed = jdoc_get_str(d, 0, "x_unit", &s, &len) == 0 &&
	    strcmp(s, "us") == 0;
	if (jdoc_get_i64(d, 0, "device", &dev) == 0)
		snprintf(lab, sizeof(lab), "device %" PRId64, dev);
	else if (jdoc_get_i64(d, 0, "device_id", &dev) == 0) {
		int64_t ty = 1;

		(void)jdoc_get_i64(d, 0, "device_type", &ty);
		if ((t->cpu = ty == 0))
			snprintf(lab, sizeof(lab), "CPU");
		else
			snprintf(lab, sizeof(lab), "device %" PRId64, dev);
	} else
		snprintf(lab, sizeof(lab), "memory");
	t->label = xstrdup(lab);

	/* The sites, "other" last; more than MAX_SITES go into it. */
	if ((a = jdoc_get(d, 0, "sites")) >= 0 && d->node[a].type == JT_ARRAY)
		for (j = (uint32_t)a + 1; j < d->node[a].next;
		    j = d->node[j].next)
			ns++;
	if (ns > 0) {
		for (j = (uint32_t)a + 1, k = 0; j < d->node[a].next &&
		    k < MAX_SITES; j = d->node[j].next, k++)
			t->site[k] = xstrdup(d->node[j].type == JT_STRING ?
			    site_label(jdoc_str(d, j), lab, sizeof(lab)) :
			    "?");
		if (k < ns) {
			free(t->site[k - 1]);
			t->site[k - 1] = xstrdup("other");
		}
		t->nsite = k;
	}
	t->n = nx < MAX_BUCKETS ? nx : MAX_BUCKETS;
	t->sb = xcalloc(t->n * (t->nsite ? t->nsite : 1) + 1,
	    sizeof(*t->sb));
	for (b = 0; b < t->n; b++) {
		t->amin[b] = t->amax[b] = t->rmax[b] = NAN;
		t->x[b] = 0;
	}
	p = jdoc_get(d, 0, "site_bytes");
	q = p >= 0 && d->node[p].type == JT_ARRAY ? (uint32_t)p + 1 : 0;
	for (i = 0; i < nx; i++) {
		uint32_t r;

		b = i * t->n / nx;
		if (i == 0 || (i - 1) * t->n / nx != b)
			t->x[b] = x[i];
		if (!isnan(amin[i]) && (isnan(t->amin[b]) ||
		    amin[i] < t->amin[b]))
			t->amin[b] = amin[i];
		if (!isnan(rmax[i]) && (isnan(t->rmax[b]) ||
		    rmax[i] > t->rmax[b]))
			t->rmax[b] = rmax[i];
		r = q;
		if (q != 0) {
			if (q >= d->node[p].next)
				r = q = 0;
			else
				q = d->node[q].next;
		}
		if (isnan(amax[i]) || (!isnan(t->amax[b]) &&
		    amax[i] <= t->amax[b]))
			continue;
		t->amax[b] = amax[i];
		if (t->nsite == 0)
			continue;
		memset(&t->sb[b * t->nsite], 0, t->nsite * sizeof(*t->sb));
		if (r == 0 || d->node[r].type != JT_ARRAY)
			continue;
		for (j = r + 1, k = 0; j < d->node[r].next;
		    j = d->node[j].next, k++) {
			v = d->node[j].type == JT_NUMBER ?
			    jnum_double(jdoc_str(d, j)) : 0;
			t->sb[b * t->nsite + (k < t->nsite ? k :
			    t->nsite - 1)] += v > 0 && isfinite(v) ? v : 0;
		}
	}
	/* The axis spans every entry, to where the last one ends. */
	for (i = 0; i < nx; i++) {
		v = xend != NULL && xend[i] > x[i] ? xend[i] : x[i];
		if (i == 0 || v > t->x_last)
			t->x_last = v;
	}
	if ((p = jdoc_get(d, 0, "peak")) >= 0 &&
	    d->node[p].type == JT_OBJECT &&
	    jdoc_get_double(d, (uint32_t)p, "x", &t->peak_x) == 0 &&
	    jdoc_get_double(d, (uint32_t)p, "bytes", &t->peak_bytes) == 0 &&
	    isfinite(t->peak_x) && isfinite(t->peak_bytes)) {
		t->has_peak = 1;
		m = jdoc_get(d, (uint32_t)p, "at_least");
		t->at_least = m >= 0 && d->node[m].type == JT_TRUE;
	}
	if ((a = jdoc_get(d, 0, "markers")) >= 0 &&
	    d->node[a].type == JT_ARRAY)
		for (j = (uint32_t)a + 1; j < d->node[a].next &&
		    t->nmark < MAX_MARKS; j = d->node[j].next) {
			if (d->node[j].type != JT_OBJECT ||
			    jdoc_get_double(d, j, "x", &v) < 0 ||
			    !isfinite(v) ||
			    jdoc_get_str(d, j, "what", &s, &len) < 0)
				continue;
			t->mark[t->nmark].x = v;
			t->mark[t->nmark].oom = strcmp(s, "oom") == 0;
			t->nmark++;
		}
	rc = 0;
out:
	free(x);
	free(xend);
	free(amin);
	free(amax);
	free(rmax);
	return rc;
}

/*
 * A site "name@/long/path/file.py:12" as "name@file.py:12", in buf: the
 * directories do not fit a legend.
 */
static const char *
site_label(const char *site, char *buf, size_t size)
{
	const char *at, *p, *base;

	if ((at = strchr(site, '@')) == NULL)
		return site;
	for (base = p = at + 1; *p != '\0'; p++)
		if (*p == '/' || *p == '\\')
			base = p + 1;
	snprintf(buf, size, "%.*s%s", (int)(at + 1 - site), site, base);
	return buf;
}

static int
take_layout(struct charts *c, const char *file, const struct jdoc *d)
{
	struct seglay l, *dst;
	size_t i, min = 0;
	uint32_t j;
	int a, k;
	const char *s;

	memset(&l, 0, sizeof(l));
	if (jdoc_get_double(d, 0, "total_size", &l.total) < 0 ||
	    !isfinite(l.total) || l.total < 0)
		return jdoc_error(file, d, 0, "segment_layout has no"
		    " \"total_size\"");
	(void)jdoc_get_i64(d, 0, "device", &l.device);
	if ((a = jdoc_get(d, 0, "runs")) < 0 || d->node[a].type != JT_ARRAY)
		return jdoc_error(file, d, 0, "\"runs\" is not an array");
	l.run = xreallocarray(NULL, (size_t)d->node[a].len + 1,
	    sizeof(*l.run));
	for (j = (uint32_t)a + 1; j < d->node[a].next; j = d->node[j].next) {
		if (d->node[j].type != JT_ARRAY || d->node[j].len != 2 ||
		    d->node[j + 1].type != JT_STRING ||
		    d->node[d->node[j + 1].next].type != JT_NUMBER) {
			free(l.run);
			return jdoc_error(file, d, j, "a run is not"
			    " [state, bytes]");
		}
		s = jdoc_str(d, j + 1);
		for (k = 0; k < 3; k++)
			if (strcmp(s, state_key[k]) == 0)
				break;
		/* A state not known here is drawn as free space. */
		l.run[l.nrun].state = k < 3 ? k : 2;
		l.run[l.nrun].bytes = jnum_double(jdoc_str(d,
		    d->node[j + 1].next));
		if (!isfinite(l.run[l.nrun].bytes))
			l.run[l.nrun].bytes = 0;
		l.nrun++;
	}
	/* The MAX_SEGS largest are kept, the smallest one replaced. */
	if (c->nseg == MAX_SEGS) {
		for (i = 1; i < c->nseg; i++)
			if (charts_seglay_cmp(&c->seg[i], &c->seg[min]) > 0)
				min = i;
		c->segs_dropped++;
		if (charts_seglay_cmp(&l, &c->seg[min]) >= 0) {
			free(l.run);
			return 0;
		}
		dst = &c->seg[min];
		free(dst->run);
	} else
		dst = &c->seg[c->nseg++];
	*dst = l;
	return 0;
}

int
charts_seglay_cmp(const void *a, const void *b)
{
	const struct seglay *x = a, *y = b;

	if (x->total != y->total)
		return x->total > y->total ? -1 : 1;
	return x->device < y->device ? -1 : x->device > y->device;
}

static int
take_gpu(struct charts *c, const struct jdoc *d)
{
	static const char *const key[4] = {
		"computation", "exposed_comm", "exposed_memcpy", "idle"
	};
	struct gpubar *g;
	int k;

	if (c->ngpu == MAX_RANKS) {
		c->gpu_dropped++;
		return 0;
	}
	g = &c->gpu[c->ngpu++];
	g->rank = rank_of(d);
	if (jdoc_get_i64(d, 0, "device", &g->device) < 0)
		g->device = -1;
	for (k = 0; k < 4; k++)
		if (jdoc_get_double(d, 0, key[k], &g->v[k]) < 0 ||
		    !isfinite(g->v[k]) || g->v[k] < 0)
			g->v[k] = 0;
		else if (g->v[k] > 1e300)
			g->v[k] = 1e300;
	return 0;
}

static int
take_step(struct charts *c, const struct jdoc *d)
{
	struct stepser *s = NULL;
	int64_t rank = rank_of(d), step;
	double dur;
	size_t i;

	if (jdoc_get_double(d, 0, "dur", &dur) < 0 || !isfinite(dur) ||
	    dur < 0)
		return 0;
	if (jdoc_get_i64(d, 0, "step", &step) < 0)
		step = -1;
	for (i = 0; i < c->nsteps; i++)
		if (c->steps[i].rank == rank)
			s = &c->steps[i];
	if (s == NULL) {
		if (c->nsteps == MAX_RANKS) {
			c->steps_dropped++;
			return 0;
		}
		s = &c->steps[c->nsteps++];
		s->rank = rank;
	}
	if (s->n == s->cap) {
		s->cap = s->cap ? s->cap * 2 : 64;
		s->dur = xreallocarray(s->dur, s->cap, sizeof(*s->dur));
		s->step = xreallocarray(s->step, s->cap, sizeof(*s->step));
	}
	s->dur[s->n] = dur;
	s->step[s->n] = step;
	s->n++;
	return 0;
}

/* A new bar of bs, or NULL once MAX_WINDOWS are drawn (counted). */
static struct window *
new_bar(struct barset *bs)
{
	struct window *wn;

	if (bs->nwin == MAX_WINDOWS) {
		bs->dropped++;
		return NULL;
	}
	wn = &bs->win[bs->nwin];
	memset(wn, 0, sizeof(*wn));
	return wn;
}

/* The index of part name in bs: past MAX_SLICES names, the last one. */
static size_t
part_of(struct barset *bs, const char *name)
{
	size_t k;

	for (k = 0; k < bs->npart && strcmp(bs->part[k], name) != 0; k++)
		;
	if (k == bs->npart && bs->npart < MAX_SLICES)
		bs->part[bs->npart++] = xstrdup(name);
	return k < MAX_SLICES ? k : MAX_SLICES - 1;
}

/* A ledger record: its slices by name, a share each of its wall time. */
static int
take_ledger(struct charts *c, const char *file, const struct jdoc *d)
{
	struct window *wn;
	const char *kind, *name;
	int64_t rank = rank_of(d), num;
	double t;
	uint32_t i;
	int a;

	if ((wn = new_bar(&c->ledger)) == NULL)
		return 0;
	if (jdoc_get_str(d, 0, "window", &kind, NULL) < 0 ||
	    jdoc_get_double(d, 0, "wall", &wn->wall) < 0 ||
	    !isfinite(wn->wall) || wn->wall < 0 ||
	    (a = jdoc_get(d, 0, "slices")) < 0 ||
	    d->node[a].type != JT_ARRAY)
		return jdoc_error(file, d, 0, "\"ledger\" lacks \"window\","
		    " a \"wall\" time or the array \"slices\"");
	if (jdoc_get_i64(d, 0, kind, &num) < 0)
		num = -1;
	if (num >= 0 && rank >= 0)
		snprintf(wn->label, sizeof(wn->label), "rank %" PRId64
		    ", %.15s %" PRId64, rank, kind, num);
	else if (num >= 0)
		snprintf(wn->label, sizeof(wn->label), "%.15s %" PRId64,
		    kind, num);
	else
		snprintf(wn->label, sizeof(wn->label), rank >= 0 ?
		    "rank %" PRId64 : "trace", rank);
	for (i = (uint32_t)a + 1; i < d->node[a].next; i = d->node[i].next) {
		if (d->node[i].type != JT_OBJECT ||
		    jdoc_get_str(d, i, "slice", &name, NULL) < 0 ||
		    jdoc_get_double(d, i, "time", &t) < 0 || !isfinite(t) ||
		    t < 0)
			return jdoc_error(file, d, i, "a slice lacks its"
			    " \"slice\" name or a \"time\"");
		wn->t[part_of(&c->ledger, name)] += t;
	}
	c->ledger.nwin++;
	return 0;
}

/*
 * A critical_path record with a path: its time by bound class, a share
 * each of the path's length.  A window without a path draws no bar.
 */
static int
take_critical(struct charts *c, const char *file, const struct jdoc *d)
{
	struct window *wn;
	const char *window;
	int64_t rank = rank_of(d);
	double t;
	uint32_t i;
	int a, e, len;

	if ((len = jdoc_get(d, 0, "length_us")) >= 0 &&
	    d->node[len].type == JT_NULL)
		return 0;
	if ((wn = new_bar(&c->critical)) == NULL)
		return 0;
	if (jdoc_get_str(d, 0, "window", &window, NULL) < 0 ||
	    jdoc_get_double(d, 0, "length_us", &wn->wall) < 0 ||
	    !isfinite(wn->wall) || wn->wall < 0 ||
	    (a = jdoc_get(d, 0, "by_class_us")) < 0 ||
	    d->node[a].type != JT_OBJECT)
		return jdoc_error(file, d, 0, "\"critical_path\" lacks"
		    " \"window\", a \"length_us\" or the object"
		    " \"by_class_us\"");
	if (*window == '\0')
		window = "whole trace";
	/* Every piece of GPU work has its launch's edge, at least. */
	if ((e = jdoc_get(d, 0, "edge_types")) >= 0 &&
	    d->node[e].type == JT_OBJECT)
		for (i = (uint32_t)e + 1; i < d->node[e].next;
		    i = d->node[i].next)
			if (strcmp(jdoc_key(d, i), "operator") != 0 &&
			    strcmp(jdoc_key(d, i), "dependency") != 0 &&
			    d->node[i].type == JT_NUMBER &&
			    jnum_double(jdoc_str(d, i)) > 0)
				c->critical_gpu = 1;
	if (rank >= 0)
		snprintf(wn->label, sizeof(wn->label), "rank %" PRId64
		    ", %.40s", rank, window);
	else
		snprintf(wn->label, sizeof(wn->label), "%.40s", window);
	for (i = (uint32_t)a + 1; i < d->node[a].next; i = d->node[i].next) {
		if (d->node[i].type != JT_NUMBER ||
		    !isfinite(t = jnum_double(jdoc_str(d, i))) || t < 0)
			return jdoc_error(file, d, i, "a class's time is not"
			    " a number of microseconds");
		if (t > 0)
			wn->t[part_of(&c->critical, jdoc_key(d, i))] += t;
	}
	c->critical.nwin++;
	return 0;
}

static int
take_family(struct charts *c, const struct jdoc *d)
{
	struct strent *e;
	struct family *f;
	const char *name;
	size_t len, i;
	double cpu = 0, gpu = 0;
	int64_t rank = rank_of(d);

	if (jdoc_get_str(d, 0, "family", &name, &len) < 0)
		return 0;
	(void)jdoc_get_double(d, 0, "self", &cpu);
	(void)jdoc_get_double(d, 0, "gpu_self", &gpu);
	for (i = 0; i < c->nfamrank && c->famrank[i] != rank; i++)
		;
	if (i == c->nfamrank && i < MAX_RANKS)
		c->famrank[c->nfamrank++] = rank;
	if ((e = strmap_get(&c->fam, name, len)) == NULL &&
	    c->fam.count >= MAX_FAMNAMES)
		f = &c->fam_other;
	else {
		e = strmap_put(&c->fam, name, len);
		if (e->val == NULL)
			e->val = xcalloc(1, sizeof(struct family));
		f = e->val;
	}
	/* Bounded, so that no sum of them overflows to infinity. */
	f->cpu = fmin(f->cpu + (cpu > 0 && isfinite(cpu) ? cpu : 0), 1e300);
	f->gpu = fmin(f->gpu + (gpu > 0 && isfinite(gpu) ? gpu : 0), 1e300);
	return 0;
}

/*
 * The costed shapes of one rank (the first whose records come), in the
 * order op-rank writes them, by GPU time: the top MAX_SHAPES with a rate.
 */
static int
take_shape(struct charts *c, const struct jdoc *d)
{
	struct shape *sh;
	const char *name, *bound;
	int64_t rank = rank_of(d);

	if (c->nshape == 0)
		c->shaperank = rank;
	if (rank != c->shaperank || c->nshape == MAX_SHAPES)
		return 0;
	sh = &c->shape[c->nshape];
	if (jdoc_get_str(d, 0, "name", &name, NULL) < 0 ||
	    jdoc_get_double(d, 0, "intensity", &sh->intensity) < 0 ||
	    jdoc_get_double(d, 0, "tflops", &sh->tflops) < 0 ||
	    jdoc_get_double(d, 0, "gpu_us", &sh->gpu_us) < 0 ||
	    !(sh->intensity > 0) || !(sh->tflops > 0) ||
	    !isfinite(sh->intensity) || !isfinite(sh->tflops))
		return 0;
	sh->memory = jdoc_get_str(d, 0, "bound", &bound, NULL) == 0 &&
	    strcmp(bound, "memory") == 0;
	if (c->nshape == 0 &&
	    jdoc_get_double(d, 0, "peak_tbps", &c->peak_tbps) < 0)
		c->peak_tbps = NAN;
	sh->name = xstrdup(name);
	c->nshape++;
	return 0;
}

/* The GPU and the peak of the precision with the most FLOPs. */
static int
take_compute(struct charts *c, const struct jdoc *d)
{
	const char *s;

	if (c->gpuname != NULL || rank_of(d) != c->shaperank)
		return 0;
	if (jdoc_get_double(d, 0, "peak_tflops", &c->peak_tflops) < 0)
		c->peak_tflops = NAN;
	c->gpuname = xstrdup(jdoc_get_str(d, 0, "gpu", &s, NULL) == 0 ? s :
	    "an unknown GPU");
	return 0;
}

void
charts_timeline_free(struct timeline *t)
{
	size_t i;

	free(t->label);
	for (i = 0; i < t->nsite; i++)
		free(t->site[i]);
	free(t->sb);
	free(t);
}

void
charts_free(struct charts *c)
{
	size_t i;

	for (i = 0; i < c->mem.n; i++)
		charts_timeline_free(c->mem.tl[i]);
	for (i = 0; i < c->memtr.n; i++)
		charts_timeline_free(c->memtr.tl[i]);
	for (i = 0; i < c->nseg; i++)
		free(c->seg[i].run);
	for (i = 0; i < c->nsteps; i++) {
		free(c->steps[i].dur);
		free(c->steps[i].step);
	}
	strmap_free(&c->fam, free);
	for (i = 0; i < c->nshape; i++)
		free(c->shape[i].name);
	free(c->gpuname);
	for (i = 0; i < c->ledger.npart; i++)
		free(c->ledger.part[i]);
	for (i = 0; i < c->critical.npart; i++)
		free(c->critical.part[i]);
}
