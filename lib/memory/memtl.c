#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "base/xalloc.h"
#include "io/ndjson.h"
#include "memory/memtl.h"

/* A site with its bytes at the peak. */
struct tsite {
	const char	*site;
	int64_t		 bytes;
	int		 slot;		/* in the stack, or -1 */
};

struct bucket {
	size_t		first, last;
	int64_t		amin, amax, rmax;
	int64_t		site[MTL_SITES];
};

static int	ptr_cmp(const void *, const void *);
static int	rank_cmp(const void *, const void *);
static struct tsite *find(struct tsite *, size_t, const char *);
static size_t	pick_sites(const struct memtl *, size_t, struct tsite **,
		    size_t *, const char *[MTL_SITES]);
static void	put_x(struct jw *, const struct mtl_point *, int);

void
mtl_push(struct memtl *tl, int64_t t, int64_t seq, int64_t allocated,
    int64_t reserved, const char *site)
{
	struct mtl_point *p;

	if (tl->n == tl->cap) {
		tl->cap = tl->cap ? tl->cap * 2 : 1024;
		tl->p = xreallocarray(tl->p, tl->cap, sizeof(*tl->p));
	}
	p = &tl->p[tl->n++];
	p->t = t;
	p->seq = seq;
	p->allocated = allocated;
	p->reserved = reserved;
	p->site = site;
}

void
mtl_mark(struct memtl *tl, int64_t t, int64_t seq, int64_t bytes,
    const char *what)
{
	struct mtl_mark *m;

	if (tl->nmark < MTL_MARKS) {
		m = &tl->mark[tl->nmark];
		m->t = t;
		m->seq = seq;
		m->bytes = bytes;
		m->what = what;
	}
	tl->nmark++;
}

void
mtl_free(struct memtl *tl)
{
	free(tl->p);
}

int64_t
mtl_add(int64_t a, int64_t b)
{
	int64_t r;

	if (__builtin_add_overflow(a, b, &r))
		return b > 0 ? INT64_MAX : INT64_MIN + 1;
	return r == INT64_MIN ? INT64_MIN + 1 : r;
}

int64_t
mtl_sub(int64_t a, int64_t b)
{
	int64_t r;

	if (__builtin_sub_overflow(a, b, &r))
		return b < 0 ? INT64_MAX : INT64_MIN + 1;
	return r == INT64_MIN ? INT64_MIN + 1 : r;
}

static int
ptr_cmp(const void *a, const void *b)
{
	uintptr_t x = (uintptr_t)((const struct tsite *)a)->site;
	uintptr_t y = (uintptr_t)((const struct tsite *)b)->site;

	return x < y ? -1 : x > y;
}

static int
rank_cmp(const void *a, const void *b)
{
	const struct tsite *x = *(const struct tsite *const *)a;
	const struct tsite *y = *(const struct tsite *const *)b;

	if (x->bytes != y->bytes)
		return x->bytes > y->bytes ? -1 : 1;
	return strcmp(x->site, y->site);
}

/* The site in v (sorted by pointer), or NULL for "other". */
static struct tsite *
find(struct tsite *v, size_t n, const char *site)
{
	struct tsite key;

	if (site == NULL || n == 0)
		return NULL;
	key.site = site;
	return bsearch(&key, v, n, sizeof(*v), ptr_cmp);
}

/*
 * The distinct sites (sorted by pointer, in *all, *nall of them) and the up
 * to MTL_SITES with the most bytes live at point peak (in top, largest
 * first, their slot set in *all); returns how many are in top.  A site's
 * bytes are the changes of allocated at the points that name it.
 */
static size_t
pick_sites(const struct memtl *tl, size_t peak, struct tsite **all,
    size_t *nall, const char *top[MTL_SITES])
{
	struct tsite *v, **r, *s;
	size_t i, n = 0, m = 0, k;
	int64_t prev = 0;

	v = xreallocarray(NULL, tl->n + 1, sizeof(*v));
	for (i = 0; i < tl->n; i++)
		if (tl->p[i].site != NULL) {
			v[n].site = tl->p[i].site;
			v[n].bytes = 0;
			v[n].slot = -1;
			n++;
		}
	xqsort(v, n, sizeof(*v), ptr_cmp);
	for (i = 0; i < n; i++)
		if (m == 0 || v[m - 1].site != v[i].site)
			v[m++] = v[i];
	for (i = 0; i <= peak && i < tl->n; i++) {
		if ((s = find(v, m, tl->p[i].site)) != NULL)
			s->bytes = mtl_add(s->bytes,
			    mtl_sub(tl->p[i].allocated, prev));
		prev = tl->p[i].allocated;
	}
	r = xreallocarray(NULL, m + 1, sizeof(*r));
	for (i = 0; i < m; i++)
		r[i] = &v[i];
	xqsort(r, m, sizeof(*r), rank_cmp);
	for (k = 0; k < m && k < MTL_SITES && r[k]->bytes > 0; k++) {
		r[k]->slot = (int)k;
		top[k] = r[k]->site;
	}
	free(r);
	*all = v;
	*nall = m;
	return k;
}

static void
put_x(struct jw *w, const struct mtl_point *p, int timed)
{
	if (timed)
		jw_us(w, p->t);
	else
		jw_int(w, p->seq);
}

void
mtl_put(struct jw *w, const struct memtl *tl, int64_t base_allocated,
    int64_t base_reserved, int at_least)
{
	struct bucket *bk;
	struct tsite *all, *s;
	const char *top[MTL_SITES];
	int64_t cur[MTL_SITES] = { 0 }, a, r, prev = 0, sum;
	size_t i, b, nb, peak = 0, nsite, nall = 0;
	uint64_t k;
	int timed = tl->n > 0, j, has_peak = 0;

	for (i = 0; i < tl->n; i++) {
		if (tl->p[i].t == MTL_NOTIME)
			timed = 0;
		if (tl->p[i].allocated != MTL_UNKNOWN && (!has_peak ||
		    tl->p[i].allocated > tl->p[peak].allocated)) {
			peak = i;
			has_peak = 1;
		}
	}
	nsite = pick_sites(tl, peak, &all, &nall, top);
	nb = tl->n < MTL_BUCKETS ? tl->n : MTL_BUCKETS;
	bk = xcalloc(nb + 1, sizeof(*bk));
	for (b = 0; b < nb; b++) {
		bk[b].first = b * tl->n / nb;
		bk[b].last = (b + 1) * tl->n / nb - 1;
		bk[b].amin = bk[b].amax = bk[b].rmax = MTL_UNKNOWN;
	}
	for (b = 0, i = 0; i < tl->n; i++) {
		const struct mtl_point *p = &tl->p[i];

		if (i > bk[b].last)
			b++;
		if (nsite > 0) {
			s = find(all, nall, p->site);
			if (s != NULL && s->slot >= 0)
				cur[s->slot] = mtl_add(cur[s->slot],
				    mtl_sub(p->allocated, prev));
			prev = p->allocated;
		}
		if (p->allocated != MTL_UNKNOWN) {
			a = mtl_add(p->allocated, base_allocated);
			if (bk[b].amin == MTL_UNKNOWN || a < bk[b].amin)
				bk[b].amin = a;
			if (bk[b].amax == MTL_UNKNOWN || a > bk[b].amax) {
				bk[b].amax = a;
				memcpy(bk[b].site, cur, sizeof(cur));
			}
		}
		if (p->reserved != MTL_UNKNOWN) {
			r = mtl_add(p->reserved, base_reserved);
			if (bk[b].rmax == MTL_UNKNOWN || r > bk[b].rmax)
				bk[b].rmax = r;
		}
	}

	jw_key(w, "x_unit");
	jw_cstring(w, timed ? "us" : "entry");
	jw_key(w, "points");
	jw_uint(w, tl->n);
	jw_key(w, "x");
	jw_begin_array(w);
	for (b = 0; b < nb; b++)
		put_x(w, &tl->p[bk[b].first], timed);
	jw_end_array(w);
	jw_key(w, "x_end");
	jw_begin_array(w);
	for (b = 0; b < nb; b++)
		put_x(w, &tl->p[bk[b].last], timed);
	jw_end_array(w);
	jw_key(w, "allocated_min");
	jw_begin_array(w);
	for (b = 0; b < nb; b++)
		if (bk[b].amin != MTL_UNKNOWN)
			jw_int(w, bk[b].amin);
		else
			jw_null(w);
	jw_end_array(w);
	jw_key(w, "allocated_max");
	jw_begin_array(w);
	for (b = 0; b < nb; b++)
		if (bk[b].amax != MTL_UNKNOWN)
			jw_int(w, bk[b].amax);
		else
			jw_null(w);
	jw_end_array(w);
	jw_key(w, "reserved_max");
	jw_begin_array(w);
	for (b = 0; b < nb; b++)
		if (bk[b].rmax != MTL_UNKNOWN)
			jw_int(w, bk[b].rmax);
		else
			jw_null(w);
	jw_end_array(w);
	jw_key(w, "sites");
	jw_begin_array(w);
	for (j = 0; j < (int)nsite; j++)
		jw_cstring(w, top[j]);
	if (nsite > 0)
		jw_cstring(w, "other");
	jw_end_array(w);
	jw_key(w, "site_bytes");
	jw_begin_array(w);
	for (b = 0; nsite > 0 && b < nb; b++) {
		jw_begin_array(w);
		for (j = 0, sum = 0; j < (int)nsite; j++) {
			a = bk[b].site[j] > 0 && bk[b].amax != MTL_UNKNOWN ?
			    bk[b].site[j] : 0;
			if (a > 0 && mtl_add(sum, a) > bk[b].amax)
				a = mtl_sub(bk[b].amax, sum);
			jw_int(w, a);
			sum = mtl_add(sum, a);
		}
		jw_int(w, bk[b].amax > sum ? mtl_sub(bk[b].amax, sum) : 0);
		jw_end_array(w);
	}
	jw_end_array(w);
	jw_key(w, "peak");
	if (has_peak) {
		jw_begin_object(w);
		jw_key(w, "x");
		put_x(w, &tl->p[peak], timed);
		jw_key(w, "bytes");
		jw_int(w, mtl_add(tl->p[peak].allocated, base_allocated));
		jw_key(w, "at_least");
		jw_bool(w, at_least);
		jw_end_object(w);
	} else
		jw_null(w);
	jw_key(w, "markers");
	jw_begin_array(w);
	for (k = 0; k < tl->nmark && k < MTL_MARKS; k++) {
		const struct mtl_mark *m = &tl->mark[k];

		jw_begin_object(w);
		jw_key(w, "what");
		jw_cstring(w, m->what);
		jw_key(w, "x");
		if (timed && m->t != MTL_NOTIME)
			jw_us(w, m->t);
		else
			jw_int(w, m->seq);
		jw_key(w, "bytes");
		if (m->bytes >= 0)
			jw_int(w, m->bytes);
		else
			jw_null(w);
		jw_end_object(w);
	}
	jw_end_array(w);
	jw_key(w, "markers_total");
	jw_uint(w, tl->nmark);
	free(bk);
	free(all);
}
