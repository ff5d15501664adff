/*
 * svgsafe: an SVG chart made safe to inline in report-html's page, by an
 * allow-list: drawing elements and their presentation attributes only,
 * never a script, an event handler, foreign content or a reference
 * outside the chart itself; text checked as UTF-8 without NUL bytes.
 *
 * Ownership: inputs are borrowed; output is appended to the caller's
 * strbuf.
 */
#ifndef SVGSAFE_H
#define SVGSAFE_H

#include <stddef.h>

#include "base/strbuf.h"

/*
 * Copies an SVG document into o if it is one of ours: an <svg> root after
 * at most an XML declaration, made of drawing elements only, with no
 * script, event handler, foreign content or reference outside itself.
 * The declaration and comments are dropped; every id, and every #id
 * reference, gets prefix, so that charts sharing one page keep their own
 * clip paths and gradients.  Returns 0, or -1 with the reason in *why.
 */
int	svgsafe_inline(struct strbuf *o, const char *s, size_t n,
	    const char *prefix, const char **why);

/* The offset of the first NUL byte or bad UTF-8 sequence, or n if none. */
size_t	svgsafe_bad_text(const char *s, size_t n);

#endif
