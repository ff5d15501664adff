#include <ctype.h>
#include <stddef.h>
#include <string.h>

#include "base/strbuf.h"
#include "io/json.h"
#include "report/svgsafe.h"

static int	svg_attr(struct strbuf *, const char *name, size_t,
		    const char *val, size_t, char q, const char *prefix,
		    const char **why);
static void	svg_chars(struct strbuf *, const char *, size_t,
		    const char *prefix);
static const char *svg_hostile(const char *, size_t);
static int	good_ref(const char *, size_t);
static int	svg_element(const char *, size_t);
static int	is_name_char(int);
static const char *memcasemem(const char *, size_t, const char *);

/* The offset of the first NUL byte or bad UTF-8 sequence, or n if none. */
size_t
svgsafe_bad_text(const char *s, size_t n)
{
	const unsigned char *u = (const unsigned char *)s;
	size_t i = 0;
	int len;

	while (i < n) {
		if (u[i] == '\0' || (len = json_utf8_len(u + i, n - i)) <= 0)
			return i;
		i += (size_t)len;
	}
	return n;
}

int
svgsafe_inline(struct strbuf *o, const char *s, size_t n, const char *prefix,
    const char **why)
{
	const char *p = s, *end = s + n, *q, *name, *v;
	size_t nl, an, vn;
	int depth = 0, closing, isstyle, instyle = 0;
	char quote;

	if ((*why = svg_hostile(s, n)) != NULL)
		return -1;
	if (n >= 3 && memcmp(p, "\xef\xbb\xbf", 3) == 0)
		p += 3;
	while (p < end && strchr(" \t\r\n", *p) != NULL)
		p++;
	if (end - p >= 5 && memcmp(p, "<?xml", 5) == 0) {
		if ((q = memcasemem(p, (size_t)(end - p), "?>")) == NULL)
			return *why = "unterminated XML declaration", -1;
		p = q + 2;
	}
	for (;;) {
		while (p < end && strchr(" \t\r\n", *p) != NULL)
			p++;
		if (end - p < 4 || memcmp(p, "<!--", 4) != 0)
			break;
		if ((q = memcasemem(p, (size_t)(end - p), "-->")) == NULL)
			return *why = "unterminated comment", -1;
		p = q + 3;
	}
	if (end - p < 5 || memcmp(p, "<svg", 4) != 0 ||
	    strchr(" \t\r\n>", p[4]) == NULL)
		return *why = "not an SVG document", -1;

	while (p < end) {
		if (*p != '<') {
			if ((q = memchr(p, '<', (size_t)(end - p))) == NULL)
				q = end;
			/* A CSS escape could spell out a url( or @import. */
			if (instyle && memchr(p, '\\', (size_t)(q - p)) != NULL)
				return *why = "a CSS escape", -1;
			svg_chars(o, p, (size_t)(q - p), prefix);
			p = q;
			continue;
		}
		if (end - p >= 4 && memcmp(p, "<!--", 4) == 0) {
			if ((q = memcasemem(p, (size_t)(end - p), "-->")) ==
			    NULL)
				return *why = "unterminated comment", -1;
			p = q + 3;
			continue;
		}
		if (end - p >= 9 && memcmp(p, "<![CDATA[", 9) == 0) {
			if ((q = memcasemem(p, (size_t)(end - p), "]]>")) ==
			    NULL)
				return *why = "unterminated CDATA section", -1;
			if (instyle && memchr(p, '\\', (size_t)(q - p)) != NULL)
				return *why = "a CSS escape", -1;
			svg_chars(o, p, (size_t)(q + 3 - p), prefix);
			p = q + 3;
			continue;
		}
		closing = end - p > 1 && p[1] == '/';
		name = p + 1 + closing;
		for (nl = 0; name + nl < end && is_name_char(name[nl]); nl++)
			;
		if (nl == 0)
			return *why = "a declaration or malformed tag", -1;
		if (!svg_element(name, nl))
			return *why = "an element that is not drawing", -1;
		isstyle = nl == 5 && memcmp(name, "style", 5) == 0;
		sb_put(o, p, (size_t)(name + nl - p));
		q = name + nl;
		for (;;) {
			v = q;
			while (q < end && strchr(" \t\r\n", *q) != NULL)
				q++;
			if (q == end)
				return *why = "truncated", -1;
			if (*q == '>') {
				sb_puts(o, ">");
				q++;
				depth += closing ? -1 : 1;
				instyle = isstyle && !closing;
				break;
			}
			if (!closing && end - q >= 2 &&
			    memcmp(q, "/>", 2) == 0) {
				sb_puts(o, "/>");
				q += 2;
				break;
			}
			if (closing || q == v)
				return *why = "a malformed tag", -1;
			name = q;
			while (q < end && strchr(" \t\r\n=/>\"'<", *q) == NULL)
				q++;
			an = (size_t)(q - name);
			while (q < end && strchr(" \t\r\n", *q) != NULL)
				q++;
			if (an == 0 || q == end || *q != '=')
				return *why = "a malformed attribute", -1;
			q++;
			while (q < end && strchr(" \t\r\n", *q) != NULL)
				q++;
			if (q == end || (*q != '"' && *q != '\''))
				return *why = "an unquoted attribute", -1;
			quote = *q++;
			v = q;
			while (q < end && *q != quote && *q != '<')
				q++;
			if (q == end || *q != quote)
				return *why = "a malformed attribute", -1;
			vn = (size_t)(q - v);
			q++;
			if (svg_attr(o, name, an, v, vn, quote, prefix,
			    why) != 0)
				return -1;
		}
		p = q;
		if (depth == 0)
			break;
	}
	if (depth != 0)
		return *why = "truncated", -1;
	/* Only blanks and comments may follow the root element. */
	while (p < end) {
		if (strchr(" \t\r\n", *p) != NULL)
			p++;
		else if (end - p >= 4 && memcmp(p, "<!--", 4) == 0 &&
		    (q = memcasemem(p, (size_t)(end - p), "-->")) != NULL)
			p = q + 3;
		else
			return *why = "content after the root element", -1;
	}
	return 0;
}

/* One attribute, with ids and #id references given the chart's prefix. */
static int
svg_attr(struct strbuf *o, const char *name, size_t n, const char *val,
    size_t vn, char q, const char *prefix, const char **why)
{
	int href;

	if (n >= 2 && (name[0] == 'o' || name[0] == 'O') &&
	    (name[1] == 'n' || name[1] == 'N'))
		return *why = "an event handler attribute", -1;
	href = (n == 4 && memcmp(name, "href", 4) == 0) ||
	    (n > 5 && memcmp(name + n - 5, ":href", 5) == 0);
	if (href && (vn == 0 || val[0] != '#'))
		return *why = "a reference outside the document", -1;
	/* A CSS escape could spell out what svg_hostile() looks for. */
	if (n == 5 && memcmp(name, "style", 5) == 0 &&
	    memchr(val, '\\', vn) != NULL)
		return *why = "a CSS escape", -1;
	sb_puts(o, " ");
	sb_put(o, name, n);
	sb_put(o, "=", 1);
	sb_put(o, &q, 1);
	if (href) {
		sb_puts(o, "#");
		sb_puts(o, prefix);
		sb_put(o, val + 1, vn - 1);
	} else if (n == 2 && memcmp(name, "id", 2) == 0) {
		sb_puts(o, prefix);
		sb_put(o, val, vn);
	} else
		svg_chars(o, val, vn, prefix);
	sb_put(o, &q, 1);
	return 0;
}

/*
 * Copies text, adding prefix to each url(#id); svg_hostile() has made
 * sure that every url( is one of those.
 */
static void
svg_chars(struct strbuf *o, const char *s, size_t n, const char *prefix)
{
	const char *p = s, *end = s + n, *u;

	while ((u = memcasemem(p, (size_t)(end - p), "url(")) != NULL) {
		u += 4;
		while (u < end && strchr(" '\"", *u) != NULL)
			u++;
		if (u < end && *u == '#')
			u++;
		sb_put(o, p, (size_t)(u - p));
		sb_puts(o, prefix);
		p = u;
	}
	sb_put(o, p, (size_t)(end - p));
}

/*
 * What makes a chart unfit to inline, whatever the markup around it; NULL
 * when nothing does.  The element list in svg_element() is the main
 * check: these catch what could hide in text, styles and attributes.
 */
static const char *
svg_hostile(const char *s, size_t n)
{
	static const char *const bad[] = {
		"<script", "<foreignobject", "<!doctype", "<!entity",
		"javascript:", "@import", "expression(", NULL
	};
	/* CSS functions that fetch what their string names. */
	static const char *const fetch[] = {
		"image-set(", "image(", "cross-fade(", "src(", NULL
	};
	const char *p, *end = s + n;
	size_t i;

	/* Also what the scanner's strchr() calls must never see: NUL. */
	if (svgsafe_bad_text(s, n) != n)
		return "a NUL byte or bad UTF-8";
	for (i = 0; bad[i] != NULL; i++)
		if (memcasemem(s, n, bad[i]) != NULL)
			return "a script, a foreign object or a DTD";
	/* As a function's name, not the end of a name in a label. */
	for (i = 0; fetch[i] != NULL; i++)
		for (p = s; (p = memcasemem(p, (size_t)(end - p), fetch[i])) !=
		    NULL; p++)
			if (p == s || (!isalnum((unsigned char)p[-1]) &&
			    p[-1] != '_'))
				return "a CSS function that takes a URL";
	for (p = s; (p = memcasemem(p, (size_t)(end - p), "url(")) != NULL;) {
		p += 4;
		while (p < end && strchr(" '\"", *p) != NULL)
			p++;
		if (p == end || *p != '#')
			return "a url() outside the document";
	}
	for (p = s; (p = memchr(p, '&', (size_t)(end - p))) != NULL; p++)
		if (!good_ref(p + 1, (size_t)(end - p - 1)))
			return "a character reference to ASCII";
	return NULL;
}

/*
 * Whether the text after a '&' is a reference our charts may use: one of
 * XML's five, or a numeric one to a character beyond ASCII.  Anything
 * else could spell out, past the checks, what they look for (url(,
 * javascript:) once the HTML parser decodes it.
 */
static int
good_ref(const char *s, size_t n)
{
	static const char *const named[] = {
		"amp;", "lt;", "gt;", "quot;", "apos;", NULL
	};
	unsigned long c = 0;
	size_t i;
	int hex, d;

	for (i = 0; named[i] != NULL; i++)
		if (n >= strlen(named[i]) &&
		    memcmp(s, named[i], strlen(named[i])) == 0)
			return 1;
	if (n < 3 || s[0] != '#')
		return 0;
	hex = s[1] == 'x' || s[1] == 'X';
	for (i = 1 + hex; i < n && i < 10 && s[i] != ';'; i++) {
		if (s[i] >= '0' && s[i] <= '9')
			d = s[i] - '0';
		else if (hex && s[i] >= 'a' && s[i] <= 'f')
			d = s[i] - 'a' + 10;
		else if (hex && s[i] >= 'A' && s[i] <= 'F')
			d = s[i] - 'A' + 10;
		else
			return 0;
		c = c * (hex ? 16 : 10) + (unsigned long)d;
	}
	return i < n && s[i] == ';' && i > 1 + (size_t)hex && c >= 0x80 &&
	    c <= 0x10ffff;
}

/*
 * The SVG elements a chart may use: shapes, text, grouping and paint
 * servers.  Anything else, and above all an HTML element, which would
 * break out of the SVG in an HTML parser, refuses the chart.
 */
static int
svg_element(const char *s, size_t n)
{
	static const char *const ok[] = {
		"circle", "clipPath", "defs", "desc", "ellipse", "g", "line",
		"linearGradient", "marker", "mask", "path", "pattern",
		"polygon", "polyline", "radialGradient", "rect", "stop",
		"style", "svg", "symbol", "text", "title", "tspan", "use",
		NULL
	};
	size_t i;

	for (i = 0; ok[i] != NULL; i++)
		if (strlen(ok[i]) == n && memcmp(ok[i], s, n) == 0)
			return 1;
	return 0;
}

/* A character of an XML name, as far as our charts go. */
static int
is_name_char(int c)
{
	return (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') ||
	    (c >= '0' && c <= '9') || (c != '\0' && strchr(":_.-", c) != NULL);
}

/* The first place of needle (lowercase) in h[0..n), in any case; or NULL. */
static const char *
memcasemem(const char *h, size_t n, const char *needle)
{
	size_t i, j, k = strlen(needle);
	int c;

	for (i = 0; i + k <= n; i++) {
		for (j = 0; j < k; j++) {
			c = (unsigned char)h[i + j];
			if (c >= 'A' && c <= 'Z')
				c += 'a' - 'A';
			if (c != needle[j])
				break;
		}
		if (j == k)
			return h + i;
	}
	return NULL;
}
