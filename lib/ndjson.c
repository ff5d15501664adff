#include <errno.h>
#include <inttypes.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#ifdef __SSE2__
#include <emmintrin.h>
#endif

#include "err.h"
#include "gzin.h"
#include "ndjson.h"
#include "xalloc.h"

/* Output buffered; the fuzzing build makes it small (-DJW_BUFCAP=). */
#ifndef JW_BUFCAP
#define JW_BUFCAP	(256u * 1024)
#endif
#define WCAP	JW_BUFCAP

struct jw {
	FILE		*fp;
	char		*buf;
	size_t		 len;
	int		 depth;
	int		 after_key;
	unsigned char	 more[JR_MAX_DEPTH + 1];	/* a member was written */
};

static void	put(struct jw *, const void *, size_t);
static void	put_full(struct jw *, const void *, size_t);
static void	putch(struct jw *, char);
static void	sep(struct jw *);
static size_t	clean_span(const unsigned char *, size_t, size_t);
static void	put_escape(struct jw *, unsigned char);
static void	put_string(struct jw *, const char *, size_t, int);
static void	put_key(struct jw *, const char *, size_t, int);
static void	put_digits(struct jw *, int, uint64_t);
static void	open_(struct jw *, char);
static void	close_(struct jw *, char);

struct jw *
jw_new(FILE *fp)
{
	struct jw *w;

	widen_pipe(fileno(fp));
	w = xcalloc(1, sizeof(*w));
	w->fp = fp;
	w->buf = xmalloc(WCAP);
	return w;
}

void
jw_free(struct jw *w)
{
	if (w == NULL)
		return;
	jw_flush(w);
	free(w->buf);
	free(w);
}

void
jw_flush(struct jw *w)
{
	if (w->len > 0 && fwrite(w->buf, 1, w->len, w->fp) != w->len)
		die("<stdout>: write failed:");
	w->len = 0;
	if (fflush(w->fp) == EOF)
		die("<stdout>: write failed:");
}

/* The common case inline; a full buffer goes to put_full(). */
static inline void
put(struct jw *w, const void *p, size_t n)
{
	if (w->len + n <= WCAP) {
		memcpy(w->buf + w->len, p, n);
		w->len += n;
	} else
		put_full(w, p, n);
}

static void
put_full(struct jw *w, const void *p, size_t n)
{
	if (fwrite(w->buf, 1, w->len, w->fp) != w->len)
		die("<stdout>: write failed:");
	w->len = 0;
	if (n > WCAP) {
		if (fwrite(p, 1, n, w->fp) != n)
			die("<stdout>: write failed:");
		return;
	}
	memcpy(w->buf + w->len, p, n);
	w->len += n;
}

static void
putch(struct jw *w, char c)
{
	if (w->len == WCAP)
		put(w, &c, 1);
	else
		w->buf[w->len++] = c;
}

/* Writes the comma that goes before a value, unless a key went before. */
static void
sep(struct jw *w)
{
	if (w->after_key)
		w->after_key = 0;
	else if (w->more[w->depth])
		putch(w, ',');
	w->more[w->depth] = 1;
}

static void
open_(struct jw *w, char c)
{
	sep(w);
	putch(w, c);
	if (w->depth == JR_MAX_DEPTH)
		die("output nested deeper than %d levels", JR_MAX_DEPTH);
	w->more[++w->depth] = 0;
}

static void
close_(struct jw *w, char c)
{
	putch(w, c);
	w->depth--;
}

void
jw_record_frag(struct jw *w, const char *frag, size_t n)
{
	sep(w);
	put(w, frag, n);
	if (w->depth == JR_MAX_DEPTH)
		die("output nested deeper than %d levels", JR_MAX_DEPTH);
	w->more[++w->depth] = 1;
}

void
jw_crecord(struct jw *w, const char *kind)
{
	jw_begin_object(w);
	jw_key(w, "kind");
	jw_cstring(w, kind);
}

void
jw_end(struct jw *w)
{
	jw_end_object(w);
	putch(w, '\n');
	w->more[0] = 0;
}

void
jw_begin_object(struct jw *w)
{
	open_(w, '{');
}

void
jw_end_object(struct jw *w)
{
	close_(w, '}');
}

void
jw_begin_array(struct jw *w)
{
	open_(w, '[');
}

void
jw_end_array(struct jw *w)
{
	close_(w, ']');
}

void
jw_put_key(struct jw *w, struct jwkey k)
{
	sep(w);
	put(w, k.frag, k.len);
	w->after_key = 1;
}

void
jw_ckey(struct jw *w, const char *k)
{
	put_key(w, k, strlen(k), 0);
}

/*
 * A member name of n bytes: one read from JSON may hold a NUL ("\u0000").
 * valid is as for put_string().
 */
static void
put_key(struct jw *w, const char *k, size_t n, int valid)
{
	sep(w);
	put_string(w, k, n, valid);
	putch(w, ':');
	w->after_key = 1;
}

void
jw_string(struct jw *w, const char *s, size_t n)
{
	sep(w);
	put_string(w, s, n, 0);
}

void
jw_string_valid(struct jw *w, const char *s, size_t n)
{
	sep(w);
	put_string(w, s, n, 1);
}

/*
 * The index of the first byte at or after i that a JSON string cannot hold
 * as it is ('"', '\\' or a control character), or n.  Bytes of UTF-8
 * sequences are not stopped at: this is for text already known valid.
 */
static size_t
clean_span(const unsigned char *b, size_t i, size_t n)
{
#ifdef __SSE2__
	const __m128i quote = _mm_set1_epi8('"');
	const __m128i bslash = _mm_set1_epi8('\\');
	const __m128i ctl = _mm_set1_epi8(0x1f);
	__m128i v, m;
	unsigned mask;
	size_t at;

	/*
	 * n does not change: the loop ends in a return.  Strings shorter
	 * than 16 bytes go a byte at a time, below.
	 */
	while (n >= 16) {
		/*
		 * The last 16 bytes end the scan, loaded from n - 16 and with
		 * the bytes before i already looked at masked off, so that a
		 * short tail never falls back to a byte at a time.
		 */
		at = n - i >= 16 ? i : n - 16;
		v = _mm_loadu_si128((const __m128i *)(const void *)(b + at));
		/* max(v, 0x1f) == 0x1f: v <= 0x1f, unsigned. */
		m = _mm_or_si128(_mm_or_si128(_mm_cmpeq_epi8(v, quote),
		    _mm_cmpeq_epi8(v, bslash)),
		    _mm_cmpeq_epi8(_mm_max_epu8(v, ctl), ctl));
		mask = (unsigned)_mm_movemask_epi8(m) >> (i - at);
		if (mask != 0)
			return i + (size_t)__builtin_ctz(mask);
		if (at + 16 >= n)
			return n;
		i += 16;
	}
#endif
	while (i < n && b[i] != '"' && b[i] != '\\' && b[i] >= 0x20)
		i++;
	return i;
}

static void
put_escape(struct jw *w, unsigned char c)
{
	static const char hex[] = "0123456789abcdef";
	char esc[6] = { '\\', 'u', '0', '0' };

	switch (c) {
	case '"': esc[1] = '"'; break;
	case '\\': esc[1] = '\\'; break;
	case '\b': esc[1] = 'b'; break;
	case '\f': esc[1] = 'f'; break;
	case '\n': esc[1] = 'n'; break;
	case '\r': esc[1] = 'r'; break;
	case '\t': esc[1] = 't'; break;
	default:
		esc[4] = hex[c >> 4];
		esc[5] = hex[c & 0xf];
		put(w, esc, 6);
		return;
	}
	put(w, esc, 2);
}

/*
 * Writes s as a JSON string, its clean spans in one copy each.  When valid,
 * s is known to be valid UTF-8 and only escapes are looked for; otherwise
 * each sequence is checked as well, and an invalid byte becomes U+FFFD.
 */
static void
put_string(struct jw *w, const char *s, size_t n, int valid)
{
	const unsigned char *b = (const unsigned char *)s;
	size_t i = 0, j;
	int len;

	putch(w, '"');
	while (i < n) {
		j = valid ? clean_span(b, i, n) : json_scan(b, i, n);
		put(w, b + i, j - i);
		if ((i = j) == n)
			break;
		if (b[i] < 0x80) {
			put_escape(w, b[i++]);
			continue;
		}
		len = json_utf8_len(b + i, n - i);
		if (len > 0)
			put(w, b + i, (size_t)len);
		else
			put(w, "\xef\xbf\xbd", 3);
		i += len > 0 ? (size_t)len : 1;
	}
	putch(w, '"');
}

void
jw_cstring(struct jw *w, const char *s)
{
	jw_string(w, s, strlen(s));
}

void
jw_cstring_or_null(struct jw *w, const char *s)
{
	if (s != NULL)
		jw_cstring(w, s);
	else
		jw_null(w);
}

/*
 * Writes the digits of v, after a '-' when neg; by hand, since printf is a
 * tenth of the time of a run that writes millions of timestamps.
 */
static void
put_digits(struct jw *w, int neg, uint64_t v)
{
	char b[24], *p = b + sizeof(b);

	do
		*--p = (char)('0' + v % 10);
	while ((v /= 10) != 0);
	if (neg)
		*--p = '-';
	put(w, p, (size_t)(b + sizeof(b) - p));
}

void
jw_int(struct jw *w, int64_t v)
{
	sep(w);
	put_digits(w, v < 0, v < 0 ? -(uint64_t)v : (uint64_t)v);
}

void
jw_uint(struct jw *w, uint64_t v)
{
	sep(w);
	put_digits(w, 0, v);
}

void
jw_double(struct jw *w, double d)
{
	char b[32];
	int n, prec;

	if (!isfinite(d)) {
		jw_null(w);
		return;
	}
	if (d == 0)
		d = 0;	/* no "-0" */
	for (prec = 15; prec <= 17; prec++) {
		n = snprintf(b, sizeof(b), "%.*g", prec, d);
		if (strtod(b, NULL) == d)
			break;
	}
	sep(w);
	put(w, b, (size_t)n);
}

void
jw_number(struct jw *w, const char *s, size_t n)
{
	sep(w);
	put(w, s, n);
}

void
jw_bool(struct jw *w, int v)
{
	sep(w);
	if (v)
		put(w, "true", 4);
	else
		put(w, "false", 5);
}

void
jw_null(struct jw *w)
{
	sep(w);
	put(w, "null", 4);
}

void
jw_us(struct jw *w, int64_t ns)
{
	uint64_t a = ns < 0 ? -(uint64_t)ns : (uint64_t)ns;
	unsigned frac = (unsigned)(a % 1000);
	char b[4];
	size_t n = 4;

	sep(w);
	put_digits(w, ns < 0, a / 1000);
	if (frac == 0)
		return;
	b[0] = '.';
	b[1] = (char)('0' + frac / 100);
	b[2] = (char)('0' + frac / 10 % 10);
	b[3] = (char)('0' + frac % 10);
	while (b[n - 1] == '0')
		n--;
	put(w, b, n);
}

void
jw_jdoc(struct jw *w, const struct jdoc *d, uint32_t i)
{
	const struct jnode *nd = &d->node[i];
	uint32_t c;

	switch (nd->type) {
	case JT_NULL: jw_null(w); break;
	case JT_FALSE: jw_bool(w, 0); break;
	case JT_TRUE: jw_bool(w, 1); break;
	case JT_NUMBER: jw_number(w, jdoc_str(d, i), nd->len); break;
	case JT_STRING: jw_string_valid(w, jdoc_str(d, i), nd->len); break;
	case JT_ARRAY:
	case JT_OBJECT:
		if (nd->type == JT_OBJECT)
			jw_begin_object(w);
		else
			jw_begin_array(w);
		for (c = i + 1; c < nd->next; c = d->node[c].next) {
			if (nd->type == JT_OBJECT)
				put_key(w, jdoc_key(d, c), d->node[c].keylen,
				    1);
			jw_jdoc(w, d, c);
		}
		if (nd->type == JT_OBJECT)
			jw_end_object(w);
		else
			jw_end_array(w);
		break;
	}
}

struct ndin {
	struct jreader	*r;
	uint64_t	 line;
};

struct ndin *
ndin_open(const char *path)
{
	struct ndin *n;
	struct gzin *in;

	if ((in = gzin_open(path)) == NULL)
		return NULL;
	n = xcalloc(1, sizeof(*n));
	n->r = jr_open(in, JR_STREAM);
	return n;
}

int
ndin_next(struct ndin *n, struct jdoc *d)
{
	const char *kind;
	int rc;

	rc = jr_value(n->r, d);
	if (rc == 1) {
		n->line = d->node[0].line;
		if (d->node[0].type != JT_OBJECT)
			jr_fail(n->r, d->node[0].line, d->node[0].col,
			    "record is not an object");
		else if (jdoc_get_str(d, 0, "kind", &kind, NULL) < 0)
			jr_fail(n->r, d->node[0].line, d->node[0].col,
			    "record has no \"kind\" string");
		else
			return 1;
		rc = -1;
	}
	if (rc < 0) {
		if (jr_errkind(n->r) == JE_IO)
			warnmsg("%s: %s", jr_name(n->r), jr_error(n->r));
		else
			warnmsg("%s:%" PRIu64 ":%" PRIu64 ": %s", jr_name(n->r),
			    jr_errline(n->r), jr_errcol(n->r),
			    jr_error(n->r));
	}
	return rc;
}

const char *
ndin_kind(const struct jdoc *d)
{
	const char *kind = "";

	jdoc_get_str(d, 0, "kind", &kind, NULL);
	return kind;
}

const char *
ndin_name(const struct ndin *n)
{
	return jr_name(n->r);
}

uint64_t
ndin_line(const struct ndin *n)
{
	return n->line;
}

void
ndin_close(struct ndin *n)
{
	if (n == NULL)
		return;
	jr_close(n->r);
	free(n);
}
