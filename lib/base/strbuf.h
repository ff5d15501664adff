/*
 * strbuf: a growable string.
 *
 * Invariant: s is NULL while nothing was added, else NUL-terminated at len.
 * The strbuf owns s; the caller frees it with strbuf_free() or takes it
 * over (and then frees it with free(3)).  An empty strbuf needs no
 * initialisation beyond struct strbuf b = { 0 }.
 */
#ifndef STRBUF_H
#define STRBUF_H

#include <stddef.h>

struct strbuf {
	char	*s;
	size_t	 len, cap;
};

/* Appends n bytes of s. */
void sb_put(struct strbuf *, const char *s, size_t n);

/* Appends the string s. */
void sb_puts(struct strbuf *, const char *s);

/* Appends the formatted text. */
__attribute__((format(printf, 2, 3)))
void sb_printf(struct strbuf *, const char *fmt, ...);

/* Cuts the text to its first len bytes (at most its length); keeps the room. */
void sb_truncate(struct strbuf *, size_t len);

/* Frees the text and empties the strbuf. */
void sb_free(struct strbuf *);

#endif
