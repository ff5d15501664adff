/*
 * xmltext: text for XML (the SVG charts), the one escaping of that
 * destination.  XML 1.0 cannot carry most C0 controls, nor U+FFFE and
 * U+FFFF, even as references: every C0 control and DEL becomes a space (a
 * chart's label is one line) and those two U+FFFD, as is a name's U+0000
 * (held as C0 80, see json.h), so that a name from an artifact never makes
 * a chart ill-formed.  Markup characters become the
 * five predefined references, so that the text serves as character data
 * and as an attribute value alike.
 *
 * The text is borrowed for the call; the strbuf is the caller's.
 */
#ifndef XMLTEXT_H
#define XMLTEXT_H

#include <stddef.h>

struct strbuf;

/*
 * Appends s (UTF-8, NUL-terminated) as XML text, at most max characters
 * of it (max >= 1): a longer s loses its middle to an ellipsis, as a
 * site's file:line and a kernel's template arguments are at its end.
 */
void xml_text(struct strbuf *, const char *s, size_t max);

#endif
