/*
 * livemap: the live allocations of a memory trace replay, by address
 * (linear probing) and in a heap, largest first as top_at_peak orders
 * them, so that the largest few are found without looking at the others:
 * the peak moves often (alloc, free, alloc, ...) and the live set may
 * hold many thousands of blocks.
 *
 * Ownership: a livemap owns its arrays; the site strings are borrowed
 * and must outlive the entries that name them.  live_clear() must come
 * first, live_free() last.
 */
#ifndef LIVEMAP_H
#define LIVEMAP_H

#include <stddef.h>
#include <stdint.h>

/* A live allocation seen in the trace. */
struct live {
	int64_t		 addr, size;
	uint64_t	 alloc_no;	/* allocations made before it */
	const char	*site;
	uint32_t	 next;		/* in the free list */
	uint32_t	 pos;		/* in the heap */
};

struct livemap {
	struct live	*e;
	size_t		 n, cap;
	uint32_t	 freelist;
	uint32_t	*tab;		/* entry index + 1; 0 is empty */
	size_t		 tabcap, count;
	uint32_t	*heap;		/* entry indices; count of them */
	size_t		 heapcap;
};

/* An empty map, as the replay of each snapshot starts. */
void	live_clear(struct livemap *);
void	live_free(struct livemap *);

/* The live block at addr, or NULL. */
struct live *live_find(struct livemap *, int64_t addr);

/* Adds a block, made after alloc_no others, at site. */
void	live_add(struct livemap *, int64_t addr, int64_t size,
	    uint64_t alloc_no, const char *site);
void	live_del(struct livemap *, struct live *);

/* Whether entry a comes before entry b in top_at_peak's order. */
int	live_before(const struct livemap *, uint32_t a, uint32_t b);

#endif
