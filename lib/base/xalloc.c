#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "base/err.h"
#include "base/xalloc.h"

void *
xmalloc(size_t n)
{
	void *p = malloc(n ? n : 1);

	if (p == NULL)
		die("out of memory");
	return p;
}

void *
xcalloc(size_t n, size_t size)
{
	void *p = calloc(n ? n : 1, size ? size : 1);

	if (p == NULL)
		die("out of memory");
	return p;
}

void *
xrealloc(void *p, size_t n)
{
	p = realloc(p, n ? n : 1);
	if (p == NULL)
		die("out of memory");
	return p;
}

void *
xreallocarray(void *p, size_t n, size_t size)
{
	if (size != 0 && n > SIZE_MAX / size)
		die("out of memory");
	return xrealloc(p, n * size);
}

char *
xstrdup(const char *s)
{
	return xmemdup(s, strlen(s));
}

char *
xmemdup(const void *s, size_t len)
{
	char *p = xmalloc(len + 1);

	memcpy(p, s, len);
	p[len] = '\0';
	return p;
}

void
xqsort(void *p, size_t n, size_t size, int (*cmp)(const void *, const void *))
{
	if (n > 1)
		qsort(p, n, size, cmp);
}
