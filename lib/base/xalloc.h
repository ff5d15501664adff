/*
 * xalloc: allocation that never returns NULL.  Each function dies with
 * "<prog>: out of memory" on failure.  The caller owns and frees every
 * result with free(3).
 */
#ifndef XALLOC_H
#define XALLOC_H

#include <stddef.h>

void *xmalloc(size_t);
void *xcalloc(size_t, size_t);
/* Like realloc(3); after the call the old pointer is no longer valid. */
void *xrealloc(void *, size_t);
/* Like reallocarray(3): dies when n * size overflows. */
void *xreallocarray(void *, size_t n, size_t size);
char *xstrdup(const char *);
/* Copies len bytes and adds a NUL. */
char *xmemdup(const void *, size_t len);
/*
 * qsort(3) for arrays that may never have been allocated: qsort(3) must
 * not be given a NULL base even for no elements.
 */
void xqsort(void *, size_t n, size_t size,
    int (*cmp)(const void *, const void *));

#endif
