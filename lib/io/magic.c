/*
 * magic: each file type's first bytes, in one place; magic.h says which.
 */
#include <string.h>

#include "io/magic.h"

static int	pickle_name(const unsigned char *, size_t *, size_t);

enum magic
magic_of(const void *buf, size_t len, int flags)
{
	static const char sqlite[16] = "SQLite format 3";
	const unsigned char *b = buf;
	size_t i;

	if (len < 2)
		return MAGIC_NONE;
	switch (b[0]) {
	case 0x1f:
		return b[1] == 0x8b ? MAGIC_GZIP : MAGIC_NONE;
	case 'P':
		return len >= 4 && memcmp(b, "PK\3\4", 4) == 0 ? MAGIC_ZIP :
		    MAGIC_NONE;
	case 'S':
		return len >= sizeof(sqlite) &&
		    memcmp(b, sqlite, sizeof(sqlite)) == 0 ? MAGIC_SQLITE :
		    MAGIC_NONE;
	case 0x80:
		/* PROTO, which pickle.dumps() writes from protocol 2 on. */
		return b[1] <= 5 ? MAGIC_PICKLE : MAGIC_NONE;
	}
	if (!(flags & MAGIC_PICKLE01))
		return MAGIC_NONE;
	/*
	 * MARK '(' before a dict, list or tuple of protocol 0 ("(dp0",
	 * "(lp0") or a tuple of protocol 1; EMPTY_DICT '}' or EMPTY_LIST ']'
	 * of protocol 1, then BINPUT 'q', MARK '(' or STOP '.'; GLOBAL 'c'
	 * of an object, then "module\nname\n".
	 */
	switch (b[0]) {
	case '(':
		return b[1] != '\0' &&
		    strchr("(cdltFGIJKLMNSTUVX])}", b[1]) != NULL ?
		    MAGIC_PICKLE : MAGIC_NONE;
	case '}':
	case ']':
		return b[1] == 'q' || b[1] == '(' || b[1] == '.' ?
		    MAGIC_PICKLE : MAGIC_NONE;
	case 'c':
		i = 1;
		return pickle_name(b, &i, len) && pickle_name(b, &i, len) ?
		    MAGIC_PICKLE : MAGIC_NONE;
	}
	return MAGIC_NONE;
}

int
magic_may(int c, int flags)
{
	if (c == 0x1f || c == 'P' || c == 'S' || c == 0x80)
		return 1;
	return (flags & MAGIC_PICKLE01) && c != '\0' &&
	    strchr("(}]c", c) != NULL;
}

/* A dotted Python name and a newline at b[*i], which is moved past it. */
static int
pickle_name(const unsigned char *b, size_t *i, size_t n)
{
	size_t k = *i;

	if (k >= n || (b[k] >= '0' && b[k] <= '9') || b[k] == '.')
		return 0;
	for (; k < n && ((b[k] >= '0' && b[k] <= '9') || b[k] == '_' ||
	    b[k] == '.' || ((b[k] | 0x20) >= 'a' && (b[k] | 0x20) <= 'z'));
	    k++)
		;
	if (k == *i || k >= n || b[k] != '\n')
		return 0;
	*i = k + 1;
	return 1;
}
