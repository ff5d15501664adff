#include <inttypes.h>
#include <math.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "base/err.h"
#include "base/xalloc.h"
#include "memory/livemap.h"

#define NONE		UINT32_MAX

static void	heap_up(struct livemap *, size_t);
static void	heap_down(struct livemap *, size_t);

static uint64_t
addr_hash(int64_t a)
{
	uint64_t x = (uint64_t)a;

	x ^= x >> 33;
	x *= 0xff51afd7ed558ccdULL;
	x ^= x >> 33;
	return x;
}

struct live *
live_find(struct livemap *m, int64_t addr)
{
	size_t i;

	if (m->tabcap == 0)
		return NULL;
	for (i = addr_hash(addr) & (m->tabcap - 1); m->tab[i] != 0;
	    i = (i + 1) & (m->tabcap - 1))
		if (m->e[m->tab[i] - 1].addr == addr)
			return &m->e[m->tab[i] - 1];
	return NULL;
}

static void
tab_insert(struct livemap *m, uint32_t idx)
{
	size_t i;

	for (i = addr_hash(m->e[idx].addr) & (m->tabcap - 1); m->tab[i] != 0;
	    i = (i + 1) & (m->tabcap - 1))
		;
	m->tab[i] = idx + 1;
}

void
live_add(struct livemap *m, int64_t addr, int64_t size, uint64_t alloc_no,
    const char *site)
{
	struct live *l;
	uint32_t idx;
	size_t i;

	if ((m->count + 1) * 2 > m->tabcap) {
		uint32_t *old = m->tab;
		size_t oldcap = m->tabcap;

		m->tabcap = m->tabcap ? m->tabcap * 2 : 1024;
		m->tab = xcalloc(m->tabcap, sizeof(*m->tab));
		for (i = 0; i < oldcap; i++)
			if (old[i] != 0)
				tab_insert(m, old[i] - 1);
		free(old);
	}
	if (m->freelist != NONE && m->n > 0) {
		idx = m->freelist;
		m->freelist = m->e[idx].next;
	} else {
		if (m->n == m->cap) {
			m->cap = m->cap ? m->cap * 2 : 1024;
			m->e = xreallocarray(m->e, m->cap, sizeof(*m->e));
		}
		idx = (uint32_t)m->n++;
	}
	l = &m->e[idx];
	l->addr = addr;
	l->size = size;
	l->alloc_no = alloc_no;
	l->site = site;
	tab_insert(m, idx);
	if (m->count == m->heapcap) {
		m->heapcap = m->heapcap ? m->heapcap * 2 : 1024;
		m->heap = xreallocarray(m->heap, m->heapcap,
		    sizeof(*m->heap));
	}
	l->pos = (uint32_t)m->count;
	m->heap[m->count++] = idx;
	heap_up(m, l->pos);
}

/* Unlinks l; its slot goes on the free list with size -1. */
void
live_del(struct livemap *m, struct live *l)
{
	uint32_t idx = (uint32_t)(l - m->e), moved;
	size_t i, j, k, mask = m->tabcap - 1;

	/* The last heap entry takes l's place and moves up or down. */
	if (l->pos != --m->count) {
		moved = m->heap[m->count];
		m->heap[l->pos] = moved;
		m->e[moved].pos = l->pos;
		heap_up(m, l->pos);
		heap_down(m, m->e[moved].pos);
	}
	/* Backward-shift deletion keeps every probe chain unbroken. */
	for (i = addr_hash(l->addr) & mask; m->tab[i] != idx + 1;
	    i = (i + 1) & mask)
		;
	m->tab[i] = 0;
	for (j = (i + 1) & mask; m->tab[j] != 0; j = (j + 1) & mask) {
		k = addr_hash(m->e[m->tab[j] - 1].addr) & mask;
		if ((j > i && (k <= i || k > j)) ||
		    (j < i && k <= i && k > j)) {
			m->tab[i] = m->tab[j];
			m->tab[j] = 0;
			i = j;
		}
	}
	l->size = -1;
	l->next = m->freelist;
	m->freelist = idx;
}

/* Whether entry a comes before entry b in top_at_peak (top_cmp). */
int
live_before(const struct livemap *m, uint32_t a, uint32_t b)
{
	const struct live *x = &m->e[a], *y = &m->e[b];

	if (x->size != y->size)
		return x->size > y->size;
	return x->addr < y->addr;
}

static void
heap_swap(struct livemap *m, size_t i, size_t j)
{
	uint32_t t = m->heap[i];

	m->heap[i] = m->heap[j];
	m->heap[j] = t;
	m->e[m->heap[i]].pos = (uint32_t)i;
	m->e[m->heap[j]].pos = (uint32_t)j;
}

static void
heap_up(struct livemap *m, size_t i)
{
	while (i > 0 && live_before(m, m->heap[i], m->heap[(i - 1) / 2])) {
		heap_swap(m, i, (i - 1) / 2);
		i = (i - 1) / 2;
	}
}

static void
heap_down(struct livemap *m, size_t i)
{
	size_t c;

	while ((c = 2 * i + 1) < m->count) {
		if (c + 1 < m->count && live_before(m, m->heap[c + 1],
		    m->heap[c]))
			c++;
		if (!live_before(m, m->heap[c], m->heap[i]))
			break;
		heap_swap(m, i, c);
		i = c;
	}
}

void
live_clear(struct livemap *m)
{
	m->n = 0;
	m->count = 0;
	m->freelist = NONE;
	if (m->tab != NULL)
		memset(m->tab, 0, m->tabcap * sizeof(*m->tab));
}

void
live_free(struct livemap *m)
{
	free(m->e);
	free(m->tab);
	free(m->heap);
}
