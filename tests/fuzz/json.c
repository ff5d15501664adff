/*
 * json: the streaming reader (lib/io/json) over arbitrary bytes.
 *
 * The first byte chooses the flags (JR_STREAM, JR_OPEN_ARRAY) and seeds the
 * choice, call by call, among jr_next(), jr_value(), jr_skip(r, 0) and
 * jr_skip(r, 1), in any order, whether or not the order makes sense: the
 * reader must answer every sequence with tokens or a placed error, never a
 * crash.  What it returns is checked against what the header promises:
 * strings are valid UTF-8 (repairs included) but for JNUL, U+0000, and hold
 * no NUL, numbers follow RFC 8259's
 * grammar and convert consistently, a jdoc's nodes form a well-made tree,
 * and an error has a message and a line and column.  A second reader of
 * the same bytes follows with jr_next() alone: each jdoc's nodes must be
 * the values of its tokens, with their text, line and column.
 */
#include "fuzz.h"

#include <errno.h>
#include <string.h>

#include "io/gzin.h"
#include "io/json.h"

/*
 * A small PRNG (xorshift64*) for harnesses that choose among API calls: the
 * choices come from the input, so a crash replays exactly.
 */
static uint64_t
fuzz_rand(uint64_t *s)
{
	*s ^= *s >> 12;
	*s ^= *s << 25;
	*s ^= *s >> 27;
	return *s * 0x2545f4914f6cdd1dULL;
}

/*
 * Valid UTF-8: no overlong forms, surrogates or code points past U+10FFFF,
 * but JNUL, the one overlong form the reader makes.
 */
static int
utf8_ok(const unsigned char *s, size_t n)
{
	size_t i = 0, k, len;
	uint32_t cp;

	while (i < n) {
		if (s[i] < 0x80) {
			i++;
			continue;
		}
		if (n - i >= 2 && memcmp(s + i, JNUL, 2) == 0) {
			i += 2;
			continue;
		}
		if ((s[i] & 0xe0) == 0xc0) {
			len = 2;
			cp = s[i] & 0x1f;
		} else if ((s[i] & 0xf0) == 0xe0) {
			len = 3;
			cp = s[i] & 0x0f;
		} else if ((s[i] & 0xf8) == 0xf0) {
			len = 4;
			cp = s[i] & 0x07;
		} else
			return 0;
		if (n - i < len)
			return 0;
		for (k = 1; k < len; k++) {
			if ((s[i + k] & 0xc0) != 0x80)
				return 0;
			cp = cp << 6 | (s[i + k] & 0x3f);
		}
		if ((len == 2 && cp < 0x80) || (len == 3 && cp < 0x800) ||
		    (len == 4 && cp < 0x10000) || cp > 0x10ffff ||
		    (cp >= 0xd800 && cp <= 0xdfff))
			return 0;
		i += len;
	}
	return 1;
}

static void
check_string(const char *s, size_t len)
{
	if (len > JR_MAX_STRING || memchr(s, '\0', len) != NULL ||
	    !utf8_ok((const unsigned char *)s, len))
		abort();
}

static void
check_number(const char *s, size_t len)
{
	char buf[JR_MAX_NUMBER + 1], *end;
	int64_t v, ns;
	long long ll;
	double d, ref;

	if (len == 0 || len > JR_MAX_NUMBER || !grammar_ok(s, len))
		abort();
	memcpy(buf, s, len);
	buf[len] = '\0';
	if (jnum_int64(buf, len, &v) == 0) {
		errno = 0;
		ll = strtoll(buf, &end, 10);
		if (errno != 0 || end != buf + len || ll != v)
			abort();
		/* Whole microseconds are exact nanoseconds. */
		if (v > -INT64_MAX / 1000 && v < INT64_MAX / 1000 &&
		    (jnum_us_to_ns(buf, len, &ns) != 0 || ns != v * 1000))
			abort();
	} else if (strpbrk(buf, ".eE") == NULL) {
		/* Integral text jnum_int64 refuses must be out of range. */
		errno = 0;
		(void)strtoll(buf, &end, 10);
		if (errno != ERANGE)
			abort();
	}
	(void)jnum_us_to_ns(buf, len, &ns);
	/* Its fast path gives strtod()'s value, to the bit. */
	d = jnum_double(buf);
	ref = strtod(buf, NULL);
	if (memcmp(&d, &ref, sizeof(d)) != 0)
		abort();
}

static void
check_token(const struct jtoken *t, enum jtok tok)
{
	if (t->line == 0 || t->col == 0)
		abort();
	if (tok == J_KEY || tok == J_STRING)
		check_string(t->s, t->len);
	else if (tok == J_NUMBER)
		check_number(t->s, t->len);
}

/* The string at off (a node's off or key), len bytes, NUL-ended. */
static const char *
doc_text(const struct jdoc *d, uint32_t off, uint32_t len)
{
	uint32_t in = off & JTEXT ? d->textlen : d->used;

	if ((uint64_t)(off & ~JTEXT) + len >= in ||
	    jdoc_at(d, off)[len] != '\0')
		abort();
	return jdoc_at(d, off);
}

/* Checks node i, whose subtree must end by limit; returns its next. */
static uint32_t
check_node(const struct jdoc *d, uint32_t i, uint32_t limit, int member)
{
	const struct jnode *nd = &d->node[i];
	uint32_t c, count = 0;
	const char *key;

	if (nd->next <= i || nd->next > limit)
		abort();
	if (member) {
		if (nd->key == JNOKEY)
			abort();
		key = doc_text(d, nd->key, nd->keylen);
		check_string(key, nd->keylen);
	} else if (nd->key != JNOKEY)
		abort();
	switch (nd->type) {
	case JT_NULL:
	case JT_FALSE:
	case JT_TRUE:
		if (nd->next != i + 1)
			abort();
		break;
	case JT_NUMBER:
		if (nd->next != i + 1)
			abort();
		check_number(doc_text(d, nd->off, nd->len), nd->len);
		break;
	case JT_STRING:
		if (nd->next != i + 1)
			abort();
		check_string(doc_text(d, nd->off, nd->len), nd->len);
		break;
	case JT_ARRAY:
	case JT_OBJECT:
		for (c = i + 1; c < nd->next; count++)
			c = check_node(d, c, nd->next, nd->type == JT_OBJECT);
		if (c != nd->next || count != nd->len)
			abort();
		break;
	default:
		abort();
	}
	return nd->next;
}

/* The lookups on an object root agree with its members. */
static void
check_lookups(const struct jdoc *d)
{
	const char *key, *s;
	uint32_t c;
	int64_t v;
	double x;
	size_t len;
	int got;

	if (d->node[0].type != JT_OBJECT)
		return;
	for (c = 1; c < d->node[0].next; c = d->node[c].next) {
		key = jdoc_key(d, c);
		got = jdoc_get(d, 0, key);
		if (got < (int)c || strcmp(jdoc_key(d, (uint32_t)got), key))
			abort();
		(void)jdoc_get_str(d, 0, key, &s, &len);
		(void)jdoc_get_i64(d, 0, key, &v);
		(void)jdoc_get_double(d, 0, key, &x);
		(void)jdoc_get_ns(d, 0, key, &v);
	}
}

/*
 * The tokens of mirror that make up the value read into d (rc 1), or the
 * end that jr_value() found instead (rc 0).
 */
static void
check_mirror(struct jreader *mirror, const struct jdoc *d, int rc)
{
	struct jtoken t;
	struct jpos at;
	enum jtok tok;
	uint32_t i = 0;
	int depth = 0;

	do {
		tok = jr_next(mirror, &t);
		if (rc == 0) {
			if (tok != J_EOF && tok != J_END_OBJECT &&
			    tok != J_END_ARRAY)
				abort();
			return;
		}
		if (tok == J_KEY)
			continue;
		if (tok == J_END_OBJECT || tok == J_END_ARRAY) {
			depth--;
			continue;
		}
		if (i == d->n)
			abort();
		at = jdoc_where(d, i);
		if (at.line != t.line || at.col != t.col)
			abort();
		switch (tok) {
		case J_BEGIN_OBJECT:
		case J_BEGIN_ARRAY:
			depth++;
			if (d->node[i].type != (tok == J_BEGIN_OBJECT ?
			    JT_OBJECT : JT_ARRAY))
				abort();
			break;
		case J_STRING:
		case J_NUMBER:
			if (d->node[i].type != (tok == J_STRING ? JT_STRING :
			    JT_NUMBER) || d->node[i].len != t.len ||
			    memcmp(jdoc_str(d, i), t.s, t.len) != 0)
				abort();
			break;
		case J_TRUE:
		case J_FALSE:
		case J_NULL:
			if (d->node[i].type != (tok == J_TRUE ? JT_TRUE :
			    tok == J_FALSE ? JT_FALSE : JT_NULL))
				abort();
			break;
		default:
			abort();
		}
		i++;
	} while (depth > 0);
	if (i != d->n)
		abort();
}

static void
check_doc(const struct jdoc *d)
{
	if (d->n == 0 || check_node(d, 0, d->n, 0) != d->n)
		abort();
	check_lookups(d);
}

int
LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	struct jreader *r, *mirror;
	struct jtoken t, mt;
	struct jdoc doc = { 0 };
	enum jtok tok;
	uint64_t seed, steps;
	int rc = 0, op;
	char path[64];

	fuzz_init("fuzz-json");
	if (size == 0)
		return 0;
	seed = 0x9e3779b97f4a7c15ULL ^ data[0];
	op = data[0];
	fuzz_stdin(data + 1, size - 1);
	if ((r = jr_open(gzin_open(NULL), op & (JR_STREAM | JR_OPEN_ARRAY)))
	    == NULL)
		abort();
	/* The same bytes, with an offset of their own. */
	snprintf(path, sizeof(path), "/proc/self/fd/%d", fileno(fuzz_file));
	if ((mirror = jr_open(gzin_open(path), op & (JR_STREAM |
	    JR_OPEN_ARRAY))) == NULL)
		abort();
	/* Each call consumes input or ends it; the bound stops a loop. */
	for (steps = 0; steps < 4 * (uint64_t)size + 16; steps++) {
		/* Bit 2: tokens only, the common way to walk big inputs. */
		op = op & 4 ? 0 : (int)(fuzz_rand(&seed) % 8);
		if (op < 4) {
			tok = jr_next(r, &t);
			if (tok == J_ERROR || tok == J_EOF)
				break;
			check_token(&t, tok);
			if (jr_next(mirror, &mt) != tok || mt.line != t.line ||
			    mt.col != t.col)
				abort();
		} else if (op < 6) {
			if ((rc = jr_value(r, &doc)) < 0)
				break;
			if (rc == 1)
				check_doc(&doc);
			check_mirror(mirror, &doc, rc);
		} else if (jr_skip(r, op == 7) < 0 ||
		    jr_skip(mirror, op == 7) < 0)
			break;
	}
	if (jr_errkind(r) != JE_NONE) {
		if (jr_error(r)[0] == '\0' || (jr_errkind(r) != JE_IO &&
		    (jr_errline(r) == 0 || jr_errcol(r) == 0)))
			abort();
		/* A failed reader stays failed. */
		if (jr_next(r, &t) != J_ERROR || jr_value(r, &doc) != -1 ||
		    jr_skip(r, 0) != -1)
			abort();
	}
	(void)jr_unclosed(r);
	(void)jr_repairs(r);
	(void)jr_offset(r);
	jr_close(r);
	jr_close(mirror);
	jdoc_free(&doc);
	return 0;
}
