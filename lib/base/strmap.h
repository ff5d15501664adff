/*
 * strmap: a hash map from byte strings to a pointer and a counter.
 *
 * Keys are copied in and owned by the map.  Values are the caller's: the map
 * never frees them unless a free function is passed to strmap_free().
 * Pointers to entries stay valid until the next strmap_put() of a new key.
 * Iteration order is the sorted key order (strmap_sorted), so output built
 * from a map is deterministic.
 */
#ifndef STRMAP_H
#define STRMAP_H

#include <stddef.h>
#include <stdint.h>

struct strent {
	char		*key;	/* NUL-terminated; may contain NULs before len */
	size_t		 len;
	uint64_t	 hash;
	void		*val;
	uint64_t	 n;
};

struct strmap {
	struct strent	*tab;
	size_t		 cap, count;
};

/* An empty map needs no allocation: struct strmap m = { 0 }. */

/* The entry for key, or NULL. */
struct strent *strmap_get(const struct strmap *, const char *key, size_t len);

/* The entry for key, added with val NULL and n 0 when it is new. */
struct strent *strmap_put(struct strmap *, const char *key, size_t len);

/*
 * Removes key's entry, if any, and frees its key; its val is the caller's.
 * Moves other entries: pointers to any entry are stale after the call.
 */
void strmap_del(struct strmap *, const char *key, size_t len);

/*
 * An array of pointers to every entry, sorted by key (bytewise, shorter
 * first on a tie).  The caller frees the array, not the entries.
 */
struct strent **strmap_sorted(const struct strmap *);

/* Frees the keys and the table, and each val with freeval if not NULL. */
void strmap_free(struct strmap *, void (*freeval)(void *));

#endif
