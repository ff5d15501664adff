/*
 * keysort: sorting records by a 64-bit key in time linear in the records
 * (a radix sort, least significant byte first), and records of one key
 * by a comparison, for orders whose leading member fits in the key.
 *
 * keysort() sorts n records of size bytes at base in the order of key()
 * and, among records of one key, of cmp (which must tell apart records
 * of one key for a deterministic order).  It takes a second buffer as
 * large as the records, as qsort(3)'s merge sort does; the caller owns
 * base, keysort() nothing.
 */
#ifndef KEYSORT_H
#define KEYSORT_H

#include <stddef.h>
#include <stdint.h>

void	keysort(void *base, size_t n, size_t size,
	    uint64_t (*key)(const void *), int (*cmp)(const void *, const void *));

#endif
