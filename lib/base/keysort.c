#include <stdlib.h>
#include <string.h>

#include "base/keysort.h"
#include "base/xalloc.h"

/* Records of one key past this many are sorted by qsort(3). */
#define TIEMAX	16

static void	sort_ties(char *, size_t n, size_t size,
		    uint64_t (*)(const void *),
		    int (*)(const void *, const void *));

/*
 * Least significant byte first, each pass stable; a byte that all the
 * keys share (the high ones of times that the records span) costs no
 * pass.
 */
void
keysort(void *base, size_t n, size_t size, uint64_t (*key)(const void *),
    int (*cmp)(const void *, const void *))
{
	size_t count[8][256], pos[256], i, d, b;
	char *from = base, *to, *tmp;
	uint64_t k;

	if (n < 2)
		return;
	memset(count, 0, sizeof(count));
	for (i = 0; i < n; i++) {
		k = key(from + i * size);
		for (d = 0; d < 8; d++)
			count[d][(k >> (8 * d)) & 0xff]++;
	}
	to = xreallocarray(NULL, n, size);
	for (d = 0; d < 8; d++) {
		if (count[d][key(from) >> (8 * d) & 0xff] == n)
			continue;
		for (b = 0, i = 0; b < 256; i += count[d][b++])
			pos[b] = i;
		for (i = 0; i < n; i++) {
			b = key(from + i * size) >> (8 * d) & 0xff;
			memcpy(to + pos[b]++ * size, from + i * size, size);
		}
		tmp = from;
		from = to;
		to = tmp;
	}
	if (from != base)
		memcpy(base, from, n * size);
	free(from != base ? from : to);
	sort_ties(base, n, size, key, cmp);
}

/* Records of one key, next to each other now, in cmp's order. */
static void
sort_ties(char *p, size_t n, size_t size, uint64_t (*key)(const void *),
    int (*cmp)(const void *, const void *))
{
	size_t i, j, k, m;
	uint64_t at;
	char *rec;

	rec = xmalloc(size);
	for (i = 0; i < n; i = j) {
		at = key(p + i * size);
		for (j = i + 1; j < n && key(p + j * size) == at; j++)
			continue;
		if (j - i > TIEMAX) {
			qsort(p + i * size, j - i, size, cmp);
			continue;
		}
		for (k = i + 1; k < j; k++) {
			memcpy(rec, p + k * size, size);
			for (m = k; m > i && cmp(p + (m - 1) * size, rec) > 0;
			    m--)
				continue;
			if (m == k)
				continue;
			memmove(p + (m + 1) * size, p + m * size, (k - m) * size);
			memcpy(p + m * size, rec, size);
		}
	}
	free(rec);
}
