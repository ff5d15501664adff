#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "base/err.h"
#include "base/strbuf.h"
#include "base/xalloc.h"

static void	grow(struct strbuf *, size_t);

static void
grow(struct strbuf *b, size_t n)
{
	if (b->cap - b->len >= n + 1)
		return;
	b->cap = (b->len + n + 1) * 2;
	b->s = xrealloc(b->s, b->cap);
}

void
sb_put(struct strbuf *b, const char *s, size_t n)
{
	grow(b, n);
	memcpy(b->s + b->len, s, n);
	b->len += n;
	b->s[b->len] = '\0';
}

void
sb_puts(struct strbuf *b, const char *s)
{
	sb_put(b, s, strlen(s));
}

void
sb_printf(struct strbuf *b, const char *fmt, ...)
{
	va_list ap;
	int n;

	va_start(ap, fmt);
	n = vsnprintf(NULL, 0, fmt, ap);
	va_end(ap);
	if (n < 0)
		die("output formatting failed");
	grow(b, (size_t)n);
	va_start(ap, fmt);
	vsnprintf(b->s + b->len, (size_t)n + 1, fmt, ap);
	va_end(ap);
	b->len += (size_t)n;
}

void
sb_truncate(struct strbuf *b, size_t len)
{
	if (len < b->len) {
		b->len = len;
		b->s[len] = '\0';
	}
}

void
sb_free(struct strbuf *b)
{
	free(b->s);
	b->s = NULL;
	b->len = b->cap = 0;
}
