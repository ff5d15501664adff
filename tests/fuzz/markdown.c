/*
 * markdown: the one Markdown escaping (md in rubric/format.jq, through
 * libjq as report-md runs it) against cmark-gfm, GitHub's own parser, as
 * the oracle.  Any text (the input as jq reads a string: invalid UTF-8 is
 * U+FFFD) escaped by md must read back as that very text and as nothing
 * else, with the GitHub extensions on (tables, autolinks, strikethrough,
 * the HTML tag filter):
 *  - inside a paragraph, between two words: one paragraph of text alone,
 *    no code, emphasis, link, image, HTML or line break, whose text is
 *    the input's;
 *  - in a table cell: a table of one column and one row, whose cell's
 *    text is the input's, less its blanks at either end (GFM trims them).
 * The input's text is as md shows it: line ends as \n and \r, other
 * controls and the invisible or reordering characters as \uXXXX.  An
 * e-mail address may become a mailto: link: only to the text it shows.
 * The rubric's format.jq is read from RUBRIC_DIR, set by the Makefile.
 */
#include "fuzz.h"

#include <cmark-gfm-core-extensions.h>
#include <cmark-gfm.h>

#include "base/strbuf.h"
#include "report/jqx.h"
#include "report/rubric.h"

/* md is a regex substitution per character class: long texts are slow. */
#define MAX_TEXT	2048

static struct jqx *md;

/* A strbuf's text, "" while nothing was added. */
static const char *
str(const struct strbuf *b)
{
	return b->s != NULL ? b->s : "";
}

/*
 * libjq keeps its stack by a pointer past its start: to LeakSanitizer, at
 * exit, the program still held looks lost.
 */
static void
unload(void)
{
	jqx_free(md);
}

static void
load(void)
{
	struct strbuf prog = { 0 };
	char *format, *msg;

	format = rubric_slurp(RUBRIC_DIR, "format.jq");
	sb_puts(&prog, format);
	sb_puts(&prog, "\nmd\n");
	free(format);
	if ((md = jqx_compile(prog.s, jv_object(), &msg)) == NULL) {
		fprintf(stderr, "%s/format.jq: %s\n", RUBRIC_DIR, msg);
		abort();
	}
	sb_free(&prog);
	atexit(unload);
	cmark_gfm_core_extensions_ensure_registered();
}

/* Whether md shows code point c as \uXXXX (\n and \r aside). */
static int
shown_as_escape(uint32_t c)
{
	return (c < 0x20 && c != '\t') || (c >= 0x7f && c <= 0x9f) ||
	    c == 0x61c || (c >= 0x200b && c <= 0x200f) ||
	    (c >= 0x2028 && c <= 0x202e) || (c >= 0x2060 && c <= 0x2069) ||
	    c == 0xfeff;
}

/* The text of s (valid UTF-8, n bytes) as md shows it. */
static void
visible(struct strbuf *out, const char *s, size_t n)
{
	const unsigned char *p = (const unsigned char *)s;
	size_t i = 0, len;
	uint32_t c;

	while (i < n) {
		c = p[i];
		len = c < 0x80 ? 1 : c < 0xe0 ? 2 : c < 0xf0 ? 3 : 4;
		if (len > 1) {
			c &= 0x3f >> (len - 1);
			for (size_t k = 1; k < len; k++)
				c = c << 6 | (p[i + k] & 0x3f);
		}
		if (c == '\n')
			sb_puts(out, "\\n");
		else if (c == '\r')
			sb_puts(out, "\\r");
		else if (shown_as_escape(c))
			sb_printf(out, "\\u%04X", (unsigned)c);
		else
			sb_put(out, s + i, len);
		i += len;
	}
}

static cmark_node *
parse(const char *text, size_t n)
{
	static const char *const ext[] = {
		"table", "autolink", "strikethrough", "tagfilter", NULL
	};
	cmark_parser *p;
	cmark_node *doc;
	int i;

	p = cmark_parser_new(CMARK_OPT_DEFAULT);
	for (i = 0; ext[i] != NULL; i++)
		cmark_parser_attach_syntax_extension(p,
		    cmark_find_syntax_extension(ext[i]));
	cmark_parser_feed(p, text, n);
	doc = cmark_parser_finish(p);
	cmark_parser_free(p);
	return doc;
}

/*
 * Appends the text of node's inlines to out; aborts on any inline that is
 * not text, or a link that is not an autolink to the text it shows.
 */
static void
inline_text(struct strbuf *out, cmark_node *node)
{
	cmark_node *c, *t;
	const char *url;
	size_t skip;

	for (c = cmark_node_first_child(node); c != NULL;
	    c = cmark_node_next(c)) {
		if (cmark_node_get_type(c) == CMARK_NODE_TEXT) {
			sb_puts(out, cmark_node_get_literal(c));
			continue;
		}
		if (cmark_node_get_type(c) != CMARK_NODE_LINK)
			goto markup;
		t = cmark_node_first_child(c);
		url = cmark_node_get_url(c);
		if (t == NULL || cmark_node_next(t) != NULL ||
		    cmark_node_get_type(t) != CMARK_NODE_TEXT)
			goto markup;
		skip = strncmp(url, "mailto:", 7) == 0 &&
		    strncmp(cmark_node_get_literal(t), "mailto:", 7) != 0 ?
		    7 : 0;
		if (strchr(cmark_node_get_literal(t), '@') == NULL ||
		    strcmp(url + skip, cmark_node_get_literal(t)) != 0)
			goto markup;
		sb_puts(out, cmark_node_get_literal(t));
	}
	return;
markup:
	fprintf(stderr, "markdown: read as %s\n", cmark_node_get_type_string(c));
	abort();
}

static void
expect(const char *where, const struct strbuf *got, const char *want,
    size_t n)
{
	if (got->len == n && memcmp(str(got), want, n) == 0)
		return;
	fprintf(stderr, "markdown: %s reads \"%s\", not \"%.*s\"\n", where,
	    str(got), (int)n, want);
	abort();
}

/* The one child of node, of the type named. */
static cmark_node *
only(cmark_node *node, const char *type)
{
	cmark_node *c = cmark_node_first_child(node);

	if (c == NULL || cmark_node_next(c) != NULL ||
	    strcmp(cmark_node_get_type_string(c), type) != 0) {
		fprintf(stderr, "markdown: no single %s in %s\n", type,
		    cmark_node_get_type_string(node));
		abort();
	}
	return c;
}

static void
in_paragraph(const char *esc, size_t n, const struct strbuf *shown)
{
	struct strbuf doc = { 0 }, got = { 0 }, want = { 0 };
	cmark_node *root;

	sb_printf(&doc, "x %.*s y\n", (int)n, esc);
	root = parse(doc.s, doc.len);
	inline_text(&got, only(root, "paragraph"));
	sb_printf(&want, "x %s y", str(shown));
	expect("a paragraph", &got, want.s, want.len);
	cmark_node_free(root);
	sb_free(&doc);
	sb_free(&got);
	sb_free(&want);
}

static void
in_cell(const char *esc, size_t n, const struct strbuf *shown)
{
	struct strbuf doc = { 0 }, got = { 0 };
	cmark_node *root, *table, *row;
	const char *s = str(shown);
	size_t len = shown->len;

	sb_printf(&doc, "| h |\n| - |\n| %.*s |\n", (int)n, esc);
	root = parse(doc.s, doc.len);
	table = only(root, "table");
	row = cmark_node_last_child(table);
	if (cmark_node_previous(row) != cmark_node_first_child(table))
		abort();
	inline_text(&got, only(row, "table_cell"));
	while (len > 0 && (*s == ' ' || *s == '\t'))
		s++, len--;
	while (len > 0 && (s[len - 1] == ' ' || s[len - 1] == '\t'))
		len--;
	expect("a table cell", &got, s, len);
	cmark_node_free(root);
	sb_free(&doc);
	sb_free(&got);
}

int
LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	struct strbuf shown = { 0 };
	jv text, out;
	char *msg;

	if (md == NULL) {
		fuzz_init("markdown");
		load();
	}
	if (size > MAX_TEXT)
		return 0;
	text = jv_string_sized((const char *)data, (int)size);
	visible(&shown, jv_string_value(text),
	    (size_t)jv_string_length_bytes(jv_copy(text)));
	if (jqx_run(md, text, &out, &msg) != 1 ||
	    jv_get_kind(out) != JV_KIND_STRING) {
		fprintf(stderr, "markdown: md failed\n");
		abort();
	}
	in_paragraph(jv_string_value(out),
	    (size_t)jv_string_length_bytes(jv_copy(out)), &shown);
	in_cell(jv_string_value(out),
	    (size_t)jv_string_length_bytes(jv_copy(out)), &shown);
	jv_free(out);
	sb_free(&shown);
	return 0;
}
