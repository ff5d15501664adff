#include <stdlib.h>
#include <string.h>

#include "base/strmap.h"
#include "base/xalloc.h"

static uint64_t	hash(const char *, size_t);
static void	grow(struct strmap *);
static int	cmpent(const void *, const void *);

/*
 * Eight bytes a step, each mixed by a multiply: names run to hundreds of
 * bytes (C++ kernel names) and are hashed once per event.  No adversary
 * here is worth a keyed hash.
 */
static uint64_t
hash(const char *s, size_t len)
{
	uint64_t h = 0x9e3779b97f4a7c15ULL ^ len, w;

	for (; len >= 8; s += 8, len -= 8) {
		memcpy(&w, s, 8);
		h = (h ^ w) * 0xff51afd7ed558ccdULL;
		h ^= h >> 32;
	}
	w = 0;
	memcpy(&w, s, len);
	h = (h ^ w) * 0xc4ceb9fe1a85ec53ULL;
	return h ^ h >> 29;
}

struct strent *
strmap_get(const struct strmap *m, const char *key, size_t len)
{
	uint64_t h;
	size_t i;

	if (m->cap == 0)
		return NULL;
	h = hash(key, len);
	for (i = h & (m->cap - 1); m->tab[i].key != NULL;
	    i = (i + 1) & (m->cap - 1))
		if (m->tab[i].hash == h && m->tab[i].len == len &&
		    memcmp(m->tab[i].key, key, len) == 0)
			return &m->tab[i];
	return NULL;
}

static void
grow(struct strmap *m)
{
	struct strent *old = m->tab;
	size_t oldcap = m->cap, i, j;

	/*
	 * Small at first: many maps hold a key or two (op-rank's merge keeps
	 * the threads and devices of every rank, most of them one or two).
	 */
	m->cap = oldcap ? oldcap * 2 : 4;
	m->tab = xcalloc(m->cap, sizeof(*m->tab));
	for (i = 0; i < oldcap; i++) {
		if (old[i].key == NULL)
			continue;
		for (j = old[i].hash & (m->cap - 1); m->tab[j].key != NULL;
		    j = (j + 1) & (m->cap - 1))
			;
		m->tab[j] = old[i];
	}
	free(old);
}

struct strent *
strmap_put(struct strmap *m, const char *key, size_t len)
{
	struct strent *e;
	uint64_t h;
	size_t i;

	if ((e = strmap_get(m, key, len)) != NULL)
		return e;
	if ((m->count + 1) * 4 > m->cap * 3)
		grow(m);
	h = hash(key, len);
	for (i = h & (m->cap - 1); m->tab[i].key != NULL;
	    i = (i + 1) & (m->cap - 1))
		;
	e = &m->tab[i];
	e->key = xmemdup(key, len);
	e->len = len;
	e->hash = h;
	e->val = NULL;
	e->n = 0;
	m->count++;
	return e;
}

/*
 * Linear probing has no tombstones: the entries after the hole that would
 * not be found past it move back into it.
 */
void
strmap_del(struct strmap *m, const char *key, size_t len)
{
	struct strent *e;
	size_t mask = m->cap - 1, i, j, home;

	if ((e = strmap_get(m, key, len)) == NULL)
		return;
	free(e->key);
	i = (size_t)(e - m->tab);
	for (j = (i + 1) & mask; m->tab[j].key != NULL; j = (j + 1) & mask) {
		home = m->tab[j].hash & mask;
		/* Stays: its home lies cyclically in (i, j]. */
		if (i <= j ? (i < home && home <= j) : (i < home || home <= j))
			continue;
		m->tab[i] = m->tab[j];
		i = j;
	}
	m->tab[i].key = NULL;
	m->count--;
}

static int
cmpent(const void *a, const void *b)
{
	const struct strent *x = *(struct strent *const *)a;
	const struct strent *y = *(struct strent *const *)b;
	size_t n = x->len < y->len ? x->len : y->len;
	int c = memcmp(x->key, y->key, n);

	if (c != 0)
		return c;
	return (x->len > y->len) - (x->len < y->len);
}

struct strent **
strmap_sorted(const struct strmap *m)
{
	struct strent **v;
	size_t i, n = 0;

	v = xreallocarray(NULL, m->count + 1, sizeof(*v));
	for (i = 0; i < m->cap; i++)
		if (m->tab[i].key != NULL)
			v[n++] = &m->tab[i];
	xqsort(v, n, sizeof(*v), cmpent);
	return v;
}

void
strmap_free(struct strmap *m, void (*freeval)(void *))
{
	size_t i;

	for (i = 0; i < m->cap; i++) {
		if (m->tab[i].key == NULL)
			continue;
		free(m->tab[i].key);
		if (freeval != NULL)
			freeval(m->tab[i].val);
	}
	free(m->tab);
	m->tab = NULL;
	m->cap = m->count = 0;
}
