/*
 * escape: the escaping of three destinations, each against its rules.
 *  - A terminal (lib/io/textout): no C0 control but tab and newline, no
 *    DEL and no C1 control reaches it; each is written as \xNN or \uNNNN
 *    and every other byte as it is.
 *  - A message (lib/base/err, on stderr): the same, with tab and newline
 *    escaped too, after "escape: ", in one line of at most 4096 bytes
 *    (a longer one is cut, its last escape whole).
 *  - XML (lib/io/xmltext, the SVG charts): the text is XML 1.0 character
 *    data and attribute value alike: valid UTF-8 of XML characters only,
 *    no < > " ' and no & but as one of the five predefined references;
 *    read back, it is the input with its controls as spaces, U+FFFE and
 *    U+FFFF as U+FFFD and, past max characters, its middle as one
 *    ellipsis, the ends kept.
 * The first byte chooses max (1 to 256); the rest, repaired to UTF-8 as
 * the JSON reader repairs names (libjq's U+FFFD), is the text; for XML,
 * each NUL in it is C0 80, as the reader holds a name's U+0000, and must
 * read back as U+FFFD.
 */
#include "fuzz.h"

#include <jv.h>

#include "base/strbuf.h"
#include "base/termesc.h"
#include "io/textout.h"
#include "io/xmltext.h"

/* The code point at s (valid UTF-8), its length in *len. */
static uint32_t
decode(const unsigned char *s, size_t *len)
{
	uint32_t c = s[0];
	size_t k;

	*len = c < 0x80 ? 1 : c < 0xe0 ? 2 : c < 0xf0 ? 3 : 4;
	if (*len > 1)
		c &= 0x3fu >> (*len - 1);
	for (k = 1; k < *len; k++)
		c = c << 6 | (s[k] & 0x3f);
	return c;
}

/* What the rules make of s: lines keeps tab and newline. */
static void
escaped(struct strbuf *want, const char *s, size_t n, int lines)
{
	size_t i, len;
	uint32_t c;

	for (i = 0; i < n; i += len) {
		c = decode((const unsigned char *)s + i, &len);
		if ((c < 0x20 && !(lines && (c == '\t' || c == '\n'))) ||
		    c == 0x7f)
			sb_printf(want, "\\x%02x", (unsigned)c);
		else if (c >= 0x80 && c <= 0x9f)
			sb_printf(want, "\\u%04x", (unsigned)c);
		else
			sb_put(want, s + i, len);
	}
}

static void
check_terminal(const char *s, size_t n)
{
	struct strbuf want = { 0 };
	char *got = NULL;
	size_t gotlen = 0;
	FILE *fp;

	if ((fp = open_memstream(&got, &gotlen)) == NULL)
		abort();
	textout_escape(fp, s, n);
	fclose(fp);
	escaped(&want, s, n, 1);
	if (gotlen != want.len || (gotlen > 0 && memcmp(got, want.s,
	    gotlen) != 0)) {
		fprintf(stderr, "escape: the terminal gets \"%s\"\n", got);
		abort();
	}
	free(got);
	sb_free(&want);
}

/* s, up to its first NUL, as warnmsg() writes it. */
static void
check_message(const char *s, size_t n)
{
	struct strbuf want = { 0 };
	char got[8192];
	ssize_t len;
	size_t k;
	FILE *fp = fuzz_memfile("message");
	int saved = dup(STDERR_FILENO);

	n = strnlen(s, n);
	fflush(stderr);
	if (saved == -1 || dup2(fileno(fp), STDERR_FILENO) == -1)
		abort();
	warnmsg("%.*s", (int)n, s);
	if (dup2(saved, STDERR_FILENO) == -1)
		abort();
	close(saved);
	if ((len = pread(fileno(fp), got, sizeof(got), 0)) <= 0)
		abort();
	fclose(fp);
	sb_puts(&want, "escape: ");
	escaped(&want, s, n, 0);
	/* Whole, or cut where an escape ends, and a newline after it. */
	k = (size_t)len - 1;
	if (got[k] != '\n' || k > 4095 || memcmp(got, want.s, k) != 0 ||
	    (k < want.len && k + TERMESC_MAX < 4095)) {
		fprintf(stderr, "escape: the message is \"%.*s\"\n", (int)len,
		    got);
		abort();
	}
	sb_free(&want);
}

/* The code point that the reference at s (after its &) stands for. */
static uint32_t
reference(const char *s, size_t *len)
{
	static const struct { const char *name; uint32_t c; } refs[] = {
		{ "amp;", '&' }, { "lt;", '<' }, { "gt;", '>' },
		{ "quot;", '"' }, { "apos;", '\'' }
	};
	size_t k;

	for (k = 0; k < sizeof(refs) / sizeof(refs[0]); k++) {
		*len = strlen(refs[k].name);
		if (strncmp(s, refs[k].name, *len) == 0)
			return refs[k].c;
	}
	fprintf(stderr, "escape: XML has a bare &\n");
	abort();
}

static void
check_xml(const char *s, size_t max)
{
	struct strbuf out = { 0 };
	uint32_t *in = NULL, *back = NULL, c;
	size_t nin = 0, nback = 0, i, len, head, tail;
	const unsigned char *p;

	xml_text(&out, s, max);
	for (p = (const unsigned char *)s; *p != '\0'; p += len) {
		c = decode(p, &len);
		if (c == 0 && len == 2)
			c = 0xfffd;
		else if (c < 0x20 || c == 0x7f)
			c = ' ';
		else if (c == 0xfffe || c == 0xffff)
			c = 0xfffd;
		in = realloc(in, (nin + 1) * sizeof(*in));
		in[nin++] = c;
	}
	for (i = 0; i < out.len; i += len) {
		c = decode((const unsigned char *)out.s + i, &len);
		if (c == '&') {
			c = reference(out.s + i + 1, &len);
			len++;
		} else if (c == '<' || c == '>' || c == '"' || c == '\'' ||
		    (c < 0x20 && c != '\t' && c != '\n' && c != '\r') ||
		    (c >= 0xd800 && c <= 0xdfff) || c == 0xfffe ||
		    c == 0xffff || c > 0x10ffff) {
			fprintf(stderr, "escape: XML holds U+%04X\n",
			    (unsigned)c);
			abort();
		}
		back = realloc(back, (nback + 1) * sizeof(*back));
		back[nback++] = c;
	}
	head = nin > max ? (max - 1) / 3 : nin;
	tail = nin > max ? max - 1 - head : 0;
	if (nin <= max ? nback != nin || (nin > 0 && memcmp(back, in,
	    nin * sizeof(*in)) != 0) :
	    nback != max || memcmp(back, in, head * sizeof(*in)) != 0 ||
	    back[head] != 0x2026 || memcmp(back + head + 1,
	    in + nin - tail, tail * sizeof(*in)) != 0) {
		fprintf(stderr, "escape: XML reads back otherwise\n");
		abort();
	}
	free(in);
	free(back);
	sb_free(&out);
}

int
LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	struct strbuf nul = { 0 };
	const char *s;
	size_t max, n, i;
	jv text;

	fuzz_init("escape");
	if (size == 0)
		return 0;
	max = (size_t)data[0] + 1;
	text = jv_string_sized((const char *)data + 1, (int)(size - 1));
	check_terminal(jv_string_value(text),
	    (size_t)jv_string_length_bytes(jv_copy(text)));
	check_message(jv_string_value(text),
	    (size_t)jv_string_length_bytes(jv_copy(text)));
	s = jv_string_value(text);
	n = (size_t)jv_string_length_bytes(jv_copy(text));
	for (i = 0; i < n; i++)
		if (s[i] == '\0')
			sb_puts(&nul, "\xc0\x80");
		else
			sb_put(&nul, s + i, 1);
	check_xml(nul.s != NULL ? nul.s : "", max);
	sb_free(&nul);
	jv_free(text);
	return 0;
}
