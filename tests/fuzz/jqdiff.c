/*
 * jqdiff: the streaming reader (lib/io/json) against libjq's parser as the
 * oracle.  The same bytes go to jr_value() and to jv_parser; each value the
 * reader returns must be the value jq returns, and where one refuses the
 * other must refuse too, up to what the reader documents in lib/io/json.h:
 *  - repairs: jq is given the input as the reader repairs it (invalid UTF-8
 *    and lone surrogate escapes become U+FFFD, raw control characters in
 *    strings are kept, a bare N/A is "N/A", NaN and Infinity are null);
 *  - U+0000: the reader's strings hold it as JNUL (C0 80), jq's as a NUL,
 *    so the reader's are compared in jq's form;
 *  - limits: the reader refuses past JR_MAX_*, jq past its own depth of 256;
 *  - strictness: the reader refuses what RFC 8259 does while jq 1.6 takes
 *    numbers such as 01, +1, .5 or nan, and takes several top-level values
 *    on one line or without JR_STREAM.
 * Numbers are compared as doubles (strtod of the reader's text against jq's
 * value, an overflow held at DBL_MAX as jq holds it), and the reader's
 * exact nanoseconds must agree with that double.  The first byte's low bit
 * chooses JR_STREAM; gzip input is the reader's alone and is skipped.
 */
#include "fuzz.h"

#include <float.h>
#include <math.h>
#include <string.h>

#include <jv.h>

#include "io/gzin.h"
#include "io/json.h"

struct buf {
	char	*s;
	size_t	 n, cap;
};

static void
put(struct buf *b, const void *p, size_t n)
{
	if (b->n + n > b->cap) {
		while (b->n + n > b->cap)
			b->cap = b->cap ? b->cap * 2 : 256;
		if ((b->s = realloc(b->s, b->cap)) == NULL)
			abort();
	}
	memcpy(b->s + b->n, p, n);
	b->n += n;
}

static void
puts_(struct buf *b, const char *s)
{
	put(b, s, strlen(s));
}

/* The length of a strictly valid UTF-8 sequence at s, or 0. */
static size_t
utf8_seq(const unsigned char *s, size_t n)
{
	size_t len, k;
	uint32_t cp;

	if (s[0] < 0x80)
		return 1;
	if ((s[0] & 0xe0) == 0xc0) {
		len = 2;
		cp = s[0] & 0x1f;
	} else if ((s[0] & 0xf0) == 0xe0) {
		len = 3;
		cp = s[0] & 0x0f;
	} else if ((s[0] & 0xf8) == 0xf0) {
		len = 4;
		cp = s[0] & 0x07;
	} else
		return 0;
	if (n < len)
		return 0;
	for (k = 1; k < len; k++) {
		if ((s[k] & 0xc0) != 0x80)
			return 0;
		cp = cp << 6 | (s[k] & 0x3f);
	}
	if ((len == 2 && cp < 0x80) || (len == 3 && cp < 0x800) ||
	    (len == 4 && cp < 0x10000) || cp > 0x10ffff ||
	    (cp >= 0xd800 && cp <= 0xdfff))
		return 0;
	return len;
}

static int
hexval(const unsigned char *p, size_t n)
{
	int v = 0, d;
	size_t i;

	if (n < 4)
		return -1;
	for (i = 0; i < 4; i++) {
		if (p[i] >= '0' && p[i] <= '9')
			d = p[i] - '0';
		else if ((p[i] | 0x20) >= 'a' && (p[i] | 0x20) <= 'f')
			d = (p[i] | 0x20) - 'a' + 10;
		else
			return -1;
		v = v << 4 | d;
	}
	return v;
}

static int
wordch(unsigned char c)
{
	return (c >= '0' && c <= '9') || ((c | 0x20) >= 'a' &&
	    (c | 0x20) <= 'z') || c == '_' || c == '.' || c == '+' || c == '-';
}

/*
 * The input as the reader repairs it, for jq: a string is followed from
 * quote to quote (a backslash takes the next byte with it), whatever the
 * context; outside strings only the bare words and RS are replaced.
 */
static const struct {
	const char *word, *with;
} words[] = {
	{ "-Infinity", "null" }, { "Infinity", "null" },
	{ "NaN", "null" }, { "N/A", "\"N/A\"" },
};

/* Whether the n bytes at s start with a word that repair() replaces. */
static int
repaired_word(const unsigned char *s, size_t n)
{
	size_t w, len;

	for (w = 0; w < sizeof(words) / sizeof(words[0]); w++) {
		len = strlen(words[w].word);
		if (n >= len && memcmp(s, words[w].word, len) == 0 &&
		    (n == len || !wordch(s[len])))
			return 1;
	}
	return 0;
}

static void
repair(const unsigned char *s, size_t n, struct buf *b)
{
	char esc[8];
	size_t i = 0, k, len, w;
	int in = 0, hi, lo;

	while (i < n) {
		if (!in) {
			for (w = 0; w < sizeof(words) / sizeof(words[0]); w++) {
				len = strlen(words[w].word);
				if (n - i >= len &&
				    memcmp(s + i, words[w].word, len) == 0 &&
				    (i == 0 || !wordch(s[i - 1])) &&
				    (i + len == n || !wordch(s[i + len])))
					break;
			}
			if (w < sizeof(words) / sizeof(words[0])) {
				puts_(b, words[w].with);
				i += strlen(words[w].word);
				continue;
			}
			if (s[i] == '"')
				in = 1;
			/* To jq RS always ends a value (RFC 7464); both refuse it. */
			if (s[i] == 0x1e) {
				puts_(b, "\x01");
				i++;
				continue;
			}
			k = utf8_seq(s + i, n - i);
			if (k == 0) {
				puts_(b, "\xef\xbf\xbd");
				i++;
			} else {
				put(b, s + i, k);
				i += k;
			}
			continue;
		}
		if (s[i] == '"') {
			in = 0;
			put(b, s + i++, 1);
		} else if (s[i] == '\\' && i + 1 < n && s[i + 1] == 'u' &&
		    (hi = hexval(s + i + 2, n - i - 2)) >= 0xd800 &&
		    hi <= 0xdfff) {
			/* A pair stays; a lone surrogate is U+FFFD. */
			if (hi <= 0xdbff && n - i >= 12 && s[i + 6] == '\\' &&
			    s[i + 7] == 'u' &&
			    (lo = hexval(s + i + 8, n - i - 8)) >= 0xdc00 &&
			    lo <= 0xdfff) {
				put(b, s + i, 12);
				i += 12;
			} else {
				puts_(b, "\\ufffd");
				i += 6;
			}
		} else if (s[i] == '\\') {
			put(b, s + i, i + 1 < n ? 2 : 1);
			i += i + 1 < n ? 2 : 1;
		} else if (s[i] < 0x20) {
			snprintf(esc, sizeof(esc), "\\u%04x", s[i]);
			puts_(b, esc);
			i++;
		} else if ((k = utf8_seq(s + i, n - i)) == 0) {
			puts_(b, "\xef\xbf\xbd");
			i++;
		} else {
			put(b, s + i, k);
			i += k;
		}
	}
}

/* A string of the reader, n bytes of s, in jq's form: JNUL a NUL. */
static jv
jq_form(const char *s, size_t n)
{
	struct buf b = { 0 };
	size_t i;
	jv v;

	for (i = 0; i < n; i++)
		if (i + 1 < n && memcmp(s + i, JNUL, 2) == 0) {
			put(&b, "", 1);
			i++;
		} else
			put(&b, s + i, 1);
	v = jv_string_sized(b.n ? b.s : "", (int)b.n);
	free(b.s);
	return v;
}

/*
 * Whether the reader may refuse what jq takes: a limit, a pickle, values
 * that share a line, or a word at the error that RFC 8259 does not allow
 * (jq 1.6 reads any run of bytes up to a blank, quote or structural
 * character that strtod takes, even a NUL byte as 0).
 */
static int
may_refuse(struct jreader *r, const unsigned char *s, size_t n)
{
	const char *msg = jr_error(r);
	uint64_t line = 1;
	size_t i = 0, k;

	if (jr_errkind(r) != JE_SYNTAX)
		return 1;
	if (strcmp(msg, "unexpected data after the JSON value") == 0 ||
	    strcmp(msg, "expected a newline after the record") == 0 ||
	    strncmp(msg, "not JSON: ", 10) == 0)
		return 1;
	for (; i < n && line < jr_errline(r); i++)
		if (s[i] == '\n')
			line++;
	i += jr_errcol(r) - 1;
	if (i >= n)
		return 0;
	/*
	 * The repairs are of values: a bare word where a member name goes
	 * stays an error, though repair() quoted it for jq.
	 */
	if (strcmp(msg, "expected a member name in quotes") == 0)
		return repaired_word(s + i, n - i);
	if (strcmp(msg, "invalid number") != 0 &&
	    strncmp(msg, "unexpected character", 20) != 0 &&
	    strncmp(msg, "unexpected byte", 15) != 0)
		return 0;
	for (k = i; k < n && memchr(" \t\r\n\"[]{},:", s[k], 11) == NULL;
	    k++)
		;
	if (k == i || grammar_ok((const char *)s + i, k - i))
		return 0;
	return !(k - i == 4 && (memcmp(s + i, "true", 4) == 0 ||
	    memcmp(s + i, "null", 4) == 0)) &&
	    !(k - i == 5 && memcmp(s + i, "false", 5) == 0);
}

static double
held(double x)
{
	if (isinf(x))
		return x > 0 ? DBL_MAX : -DBL_MAX;
	return x;
}

/* Whether node i of d is the value v; v is consumed. */
static int
same(const struct jdoc *d, uint32_t i, jv v)
{
	const struct jnode *nd = &d->node[i];
	const char *text;
	uint32_t c, m, last, nkeys = 0, idx = 0;
	int64_t ns;
	double x;
	int ok = 0;

	switch (jv_get_kind(v)) {
	case JV_KIND_NULL:
		ok = nd->type == JT_NULL;
		break;
	case JV_KIND_FALSE:
		ok = nd->type == JT_FALSE;
		break;
	case JV_KIND_TRUE:
		ok = nd->type == JT_TRUE;
		break;
	case JV_KIND_NUMBER:
		if (nd->type != JT_NUMBER)
			break;
		text = jdoc_str(d, i);
		x = held(jnum_double(text));
		ok = x == held(jv_number_value(v));
		/* Truncated to whole ns: within a ns of the double. */
		if (ok && jnum_us_to_ns(text, nd->len, &ns) == 0)
			ok = fabs((double)ns - x * 1e3) <=
			    1.0 + fabs(x * 1e3) * 1e-15;
		break;
	case JV_KIND_STRING:
		ok = nd->type == JT_STRING &&
		    jv_equal(jv_copy(v), jq_form(jdoc_str(d, i), nd->len));
		break;
	case JV_KIND_ARRAY:
		if (nd->type != JT_ARRAY ||
		    (uint32_t)jv_array_length(jv_copy(v)) != nd->len)
			break;
		ok = 1;
		for (c = i + 1; ok && c < nd->next; c = d->node[c].next)
			ok = same(d, c, jv_array_get(jv_copy(v), (int)idx++));
		break;
	case JV_KIND_OBJECT:
		if (nd->type != JT_OBJECT)
			break;
		ok = 1;
		/* jq keeps the last of repeated names, as jdoc_get() finds. */
		for (c = i + 1; ok && c < nd->next; c = d->node[c].next) {
			for (last = c, m = d->node[c].next; m < nd->next;
			    m = d->node[m].next)
				if (d->node[m].keylen == d->node[c].keylen &&
				    memcmp(jdoc_key(d, m), jdoc_key(d, c),
				    d->node[c].keylen) == 0)
					last = m;
			if (last != c)
				continue;
			nkeys++;
			ok = same(d, c, jv_object_get(jv_copy(v),
			    jq_form(jdoc_key(d, c), d->node[c].keylen)));
		}
		ok = ok && (int)nkeys == jv_object_length(jv_copy(v));
		break;
	default:
		break;
	}
	jv_free(v);
	return ok;
}

/*
 * libjq 1.6 leaks the value it refuses ("Expected separator between
 * values"): a leak with libjq's allocator on its stack is jq's own, while
 * the reader's leaks stay reported when an input is replayed by hand
 * (tests/fuzz/run turns the leak check off for speed).
 */
const char	*__lsan_default_suppressions(void);

const char *
__lsan_default_suppressions(void)
{
	return "leak:libjq.so\n";
}

/* jq refused for a reason of its own: its depth limit is below ours. */
static int
jq_limit(jv v)
{
	jv msg = jv_invalid_get_msg(jv_copy(v));
	int lim;

	lim = jv_get_kind(msg) == JV_KIND_STRING &&
	    strstr(jv_string_value(msg), "depth limit") != NULL;
	jv_free(msg);
	return lim;
}

int
LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	struct buf fixed = { 0 };
	struct jdoc doc = { 0 };
	struct jreader *r;
	jv_parser *p;
	jv v;
	int rc, jq_ok, jq_err;

	fuzz_init("fuzz-jqdiff");
	if (size == 0 || (size >= 3 && data[1] == 0x1f && data[2] == 0x8b))
		return 0;
	fuzz_stdin(data + 1, size - 1);
	if ((r = jr_open(gzin_open(NULL), data[0] & 1 ? JR_STREAM : 0)) ==
	    NULL)
		abort();
	repair(data + 1, size - 1, &fixed);
	p = jv_parser_new(0);
	jv_parser_set_buf(p, fixed.n ? fixed.s : "", (int)fixed.n, 0);
	for (;;) {
		rc = jr_value(r, &doc);
		v = jv_parser_next(p);
		jq_ok = jv_is_valid(v);
		jq_err = !jq_ok && jv_invalid_has_msg(jv_copy(v));
		if (rc == 1 && !jq_ok) {
			/* Past jq's depth limit nothing more is compared. */
			if (jq_err && jq_limit(v)) {
				jv_free(v);
				break;
			}
			/*
			 * jq reads the byte after a top-level number or word
			 * before it hands the value out, and refuses it first;
			 * the reader does on its next call.
			 */
			if (jq_err && doc.node[0].type != JT_STRING &&
			    doc.node[0].type != JT_ARRAY &&
			    doc.node[0].type != JT_OBJECT &&
			    jr_value(r, &doc) < 0) {
				jv_free(v);
				break;
			}
			abort();
		}
		if (rc == 1) {
			if (!same(&doc, 0, v))
				abort();
			continue;
		}
		if (rc == 0 && (jq_ok || jq_err))
			abort();
		if (rc < 0 && !jq_err && !may_refuse(r, data + 1, size - 1))
			abort();
		jv_free(v);
		break;
	}
	jv_parser_free(p);
	jr_close(r);
	jdoc_free(&doc);
	free(fixed.s);
	return 0;
}
