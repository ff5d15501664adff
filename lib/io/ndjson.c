/*
 * ndjson: the one writer of records, text or documents, and the reader of
 * NDJSON records (see ndjson.h).
 *
 * One file: each writing call serves both backends, choosing by DOC(w), so
 * that a stage makes the same calls whether its records are printed or
 * handed to an in-process consumer; split by backend, every call would be
 * written twice.
 */
#include <errno.h>
#include <inttypes.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#ifdef __SSE2__
#include <emmintrin.h>
#endif

#include "base/err.h"
#include "base/xalloc.h"
#include "io/gzin.h"
#include "io/ndjson.h"

/*
 * Output buffered; the fuzzing build makes it small (-DJW_BUFCAP=).  Its
 * pages become resident as output fills it, so more would make a tool's
 * memory grow with its output up to the size, for no fewer write(2) calls
 * that anyone could measure.
 */
#ifndef JW_BUFCAP
#define JW_BUFCAP	(64u * 1024)
#endif
#define WCAP	JW_BUFCAP

/*
 * One writer, two backends: text (fp) or documents (fn).  Every entry
 * point tests DOC() once, a branch that goes the same way for the whole
 * life of the writer, and the text path below it is what it always was.
 */
#define DOC(w)	__builtin_expect((w)->fn != NULL, 0)

struct jw {
	FILE		*fp;
	const char	*name;		/* fp's, for a failed write */
	char		*buf;
	size_t		 len;
	int		 depth;
	int		 after_key;
	unsigned char	 more[JR_MAX_DEPTH + 1];	/* a member was written */

	/* The document backend: the record being built and where it goes. */
	int		(*fn)(void *, const struct jdoc *);
	void		*arg;
	int		 failed;	/* fn refused a record */
	struct jdoc	 doc;
	uint32_t	 open[JR_MAX_DEPTH + 1];	/* containers being built */
	uint32_t	 key, keylen;	/* the pending member name, or JNOKEY */
	int		 placed;	/* a node was copied: where[0] is its */
};

static void	put(struct jw *, const void *, size_t);
static void	put_full(struct jw *, const void *, size_t);
static void	putch(struct jw *, char);
static void	sep(struct jw *);
static size_t	clean_span(const unsigned char *, size_t, size_t);
static int	is_jnul(const unsigned char *, size_t, size_t);
static void	put_escape(struct jw *, unsigned char);
static void	put_string(struct jw *, const char *, size_t, int);
static void	put_key(struct jw *, const char *, size_t, int);
static char	*fmt_digits(char *, int, uint64_t);
static void	put_number(struct jw *, const char *, size_t);
static void	open_(struct jw *, char);
static void	close_(struct jw *, char);
static uint32_t	d_text(struct jw *, const char *, size_t, int, uint32_t *);
static uint32_t	d_node(struct jw *, int);
static void	d_string(struct jw *, int, const char *, size_t, int);
static void	d_key(struct jw *, const char *, size_t, int);
static void	d_open(struct jw *, int);
static void	d_close(struct jw *);
static void	d_copy(struct jw *, const struct jdoc *, uint32_t);
static void	d_hand(struct jw *, const struct jdoc *);
static void	*d_room(void *, uint32_t *, uint32_t, uint32_t, size_t);
static void	d_begin(struct jw *);
static void	d_end(struct jw *);

struct jw *
jw_new(FILE *fp)
{
	struct jw *w;

	widen_pipe(fileno(fp));
	w = xcalloc(1, sizeof(*w));
	w->fp = fp;
	w->name = "<stdout>";
	w->buf = xmalloc(WCAP);
	return w;
}

struct jw *
jw_new_doc(int (*fn)(void *, const struct jdoc *), void *arg)
{
	struct jw *w;

	w = xcalloc(1, sizeof(*w));
	w->fn = fn;
	w->arg = arg;
	d_begin(w);
	return w;
}

void
jw_name(struct jw *w, const char *name)
{
	w->name = name;
}

int
jw_failed(const struct jw *w)
{
	return w->failed;
}

void
jw_free(struct jw *w)
{
	if (w == NULL)
		return;
	jw_flush(w);
	free(w->buf);
	jdoc_free(&w->doc);
	free(w);
}

void
jw_flush(struct jw *w)
{
	if (DOC(w))
		return;
	if (w->len > 0 && fwrite(w->buf, 1, w->len, w->fp) != w->len)
		die("%s: write failed:", w->name);
	w->len = 0;
	if (fflush(w->fp) == EOF)
		die("%s: write failed:", w->name);
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
		die("%s: write failed:", w->name);
	w->len = 0;
	if (n > WCAP) {
		if (fwrite(p, 1, n, w->fp) != n)
			die("%s: write failed:", w->name);
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
	if (DOC(w)) {
		/* frag is {"kind":"<kind>" and the kind needs no escape. */
		d_open(w, JT_OBJECT);
		d_key(w, "kind", 4, 1);
		d_string(w, JT_STRING, frag + 9, n - 10, 1);
		return;
	}
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
	if (DOC(w)) {
		d_end(w);
		return;
	}
	close_(w, '}');
	putch(w, '\n');
	w->more[0] = 0;
}

void
jw_begin_object(struct jw *w)
{
	if (DOC(w))
		d_open(w, JT_OBJECT);
	else
		open_(w, '{');
}

void
jw_end_object(struct jw *w)
{
	if (DOC(w))
		d_close(w);
	else
		close_(w, '}');
}

void
jw_begin_array(struct jw *w)
{
	if (DOC(w))
		d_open(w, JT_ARRAY);
	else
		open_(w, '[');
}

void
jw_end_array(struct jw *w)
{
	if (DOC(w))
		d_close(w);
	else
		close_(w, ']');
}

void
jw_break(struct jw *w)
{
	if (DOC(w))
		return;
	if (w->more[w->depth]) {
		putch(w, ',');
		/* As after a key: the value that follows writes no comma. */
		w->after_key = 1;
	}
	putch(w, '\n');
}

void
jw_put_key(struct jw *w, struct jwkey k)
{
	if (DOC(w)) {
		/* frag is "<name>": and the name needs no escape. */
		d_key(w, k.frag + 1, k.len - 3, 1);
		return;
	}
	sep(w);
	put(w, k.frag, k.len);
	w->after_key = 1;
}

void
jw_ckey(struct jw *w, const char *k)
{
	jw_ckey_sized(w, k, strlen(k));
}

void
jw_ckey_sized(struct jw *w, const char *k, size_t n)
{
	if (DOC(w))
		d_key(w, k, n, 0);
	else
		put_key(w, k, n, 0);
}

/*
 * A member name of n bytes: one of jq's may hold a NUL (U+0000).  valid is
 * as for put_string().
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
	if (DOC(w)) {
		d_string(w, JT_STRING, s, n, 0);
		return;
	}
	sep(w);
	put_string(w, s, n, 0);
}

void
jw_string_valid(struct jw *w, const char *s, size_t n)
{
	if (DOC(w)) {
		d_string(w, JT_STRING, s, n, 1);
		return;
	}
	sep(w);
	put_string(w, s, n, 1);
}
/*
 * The index of the first byte at or after i that a JSON string cannot hold
 * as it is ('"', '\\', a control character, or the C0 that starts JNUL),
 * or n.  Bytes of UTF-8 sequences are not stopped at: this is for text
 * already known valid, where no C0 starts anything else.
 */
static size_t
clean_span(const unsigned char *b, size_t i, size_t n)
{
#ifdef __SSE2__
	const __m128i quote = _mm_set1_epi8('"');
	const __m128i bslash = _mm_set1_epi8('\\');
	const __m128i ctl = _mm_set1_epi8(0x1f);
	const __m128i nul = _mm_set1_epi8((char)0xc0);
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
		    _mm_or_si128(_mm_cmpeq_epi8(_mm_max_epu8(v, ctl), ctl),
		    _mm_cmpeq_epi8(v, nul)));
		mask = (unsigned)_mm_movemask_epi8(m) >> (i - at);
		if (mask != 0)
			return i + (size_t)__builtin_ctz(mask);
		if (at + 16 >= n)
			return n;
		i += 16;
	}
#endif
	while (i < n && b[i] != '"' && b[i] != '\\' && b[i] >= 0x20 &&
	    b[i] != 0xc0)
		i++;
	return i;
}

/* Whether the n bytes of b hold JNUL at i. */
static int
is_jnul(const unsigned char *b, size_t i, size_t n)
{
	return b[i] == 0xc0 && i + 1 < n && b[i + 1] == 0x80;
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
 * Either way JNUL, the reader's U+0000, is written as \u0000, as is a NUL.
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
		if (is_jnul(b, i, n)) {
			put_escape(w, '\0');
			i += 2;
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
 * The digits of v, after a '-' when neg, ending at end; returns where they
 * start.  By hand, since printf is a tenth of the time of a run that
 * writes millions of timestamps.
 */
static char *
fmt_digits(char *end, int neg, uint64_t v)
{
	char *p = end;

	do
		*--p = (char)('0' + v % 10);
	while ((v /= 10) != 0);
	if (neg)
		*--p = '-';
	return p;
}

/* A number's text, to either backend. */
static void
put_number(struct jw *w, const char *s, size_t n)
{
	if (DOC(w)) {
		d_string(w, JT_NUMBER, s, n, 1);
		return;
	}
	sep(w);
	put(w, s, n);
}

void
jw_int(struct jw *w, int64_t v)
{
	char b[24], *p;

	p = fmt_digits(b + sizeof(b), v < 0,
	    v < 0 ? -(uint64_t)v : (uint64_t)v);
	put_number(w, p, (size_t)(b + sizeof(b) - p));
}

void
jw_int_or_null(struct jw *w, int known, int64_t v)
{
	if (known)
		jw_int(w, v);
	else
		jw_null(w);
}

void
jw_uint(struct jw *w, uint64_t v)
{
	char b[24], *p;

	p = fmt_digits(b + sizeof(b), 0, v);
	put_number(w, p, (size_t)(b + sizeof(b) - p));
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
	put_number(w, b, (size_t)n);
}

void
jw_ratio(struct jw *w, double n, double d)
{
	if (d > 0)
		jw_double(w, n / d);
	else
		jw_null(w);
}

void
jw_ratio3(struct jw *w, double n, double d)
{
	if (d > 0)
		jw_double(w, round(n / d * 1000) / 1000);
	else
		jw_null(w);
}

void
jw_number(struct jw *w, const char *s, size_t n)
{
	put_number(w, s, n);
}

void
jw_bool(struct jw *w, int v)
{
	if (DOC(w)) {
		d_node(w, v ? JT_TRUE : JT_FALSE);
		return;
	}
	sep(w);
	if (v)
		put(w, "true", 4);
	else
		put(w, "false", 5);
}

void
jw_null(struct jw *w)
{
	if (DOC(w)) {
		d_node(w, JT_NULL);
		return;
	}
	sep(w);
	put(w, "null", 4);
}

void
jw_us(struct jw *w, int64_t ns)
{
	uint64_t a = ns < 0 ? -(uint64_t)ns : (uint64_t)ns;
	unsigned frac = (unsigned)(a % 1000);
	char b[32], *p, *end = b + 20;

	/* The integral digits end at b + 20, the decimals follow them. */
	p = fmt_digits(end, ns < 0, a / 1000);
	if (frac != 0) {
		*end++ = '.';
		*end++ = (char)('0' + frac / 100);
		*end++ = (char)('0' + frac / 10 % 10);
		*end++ = (char)('0' + frac % 10);
		while (end[-1] == '0')
			end--;
	}
	put_number(w, p, (size_t)(end - p));
}

void
jw_jdoc(struct jw *w, const struct jdoc *d, uint32_t i)
{
	const struct jnode *nd = &d->node[i];
	uint32_t c;

	if (DOC(w)) {
		d_copy(w, d, i);
		return;
	}
	switch (nd->type) {
	case JT_NULL:
		sep(w);
		put(w, "null", 4);
		break;
	case JT_FALSE:
		sep(w);
		put(w, "false", 5);
		break;
	case JT_TRUE:
		sep(w);
		put(w, "true", 4);
		break;
	case JT_NUMBER:
		sep(w);
		put(w, jdoc_str(d, i), nd->len);
		break;
	case JT_STRING:
		sep(w);
		put_string(w, jdoc_str(d, i), nd->len, 1);
		break;
	case JT_ARRAY:
	case JT_OBJECT:
		open_(w, nd->type == JT_OBJECT ? '{' : '[');
		for (c = i + 1; c < nd->next; c = d->node[c].next) {
			if (nd->type == JT_OBJECT)
				put_key(w, jdoc_key(d, c), d->node[c].keylen,
				    1);
			jw_jdoc(w, d, c);
		}
		close_(w, nd->type == JT_OBJECT ? '}' : ']');
		break;
	}
}

void
jw_member(struct jw *w, const struct jdoc *d, int i, struct jwkey as)
{
	if (i < 0)
		return;
	jw_put_key(w, as);
	jw_jdoc(w, d, (uint32_t)i);
}

void
jw_jdoc_record(struct jw *w, const struct jdoc *d)
{
	if (DOC(w)) {
		d_hand(w, d);
		return;
	}
	jw_jdoc(w, d, 0);
	putch(w, '\n');
	w->more[0] = 0;
}

/*
 * The document backend.  A record is built in w->doc node by node, as the
 * reader would have built it from the line the text backend writes: the
 * same types, member names, string bytes (repaired as put_string() does),
 * number texts, child counts and next.  w->open holds the containers not
 * yet closed, w->key the name that the next node takes.
 */

/*
 * Copies n bytes of s into the arena, NUL-terminated, and returns their
 * offset and (*len) length.  Unless valid, invalid UTF-8 becomes U+FFFD
 * as in put_string(), so the bytes are those the text reads back as.
 */
static uint32_t
d_text(struct jw *w, const char *s, size_t n, int valid, uint32_t *len)
{
	struct jdoc *d = &w->doc;
	const unsigned char *b = (const unsigned char *)s;
	size_t i = 0, j, need, size;
	uint32_t off = d->used;
	char *p;
	int l;

	/* A byte becomes at most three. */
	need = (size_t)d->used + (valid ? n : 3 * n) + 1;
	if (need > d->size) {
		if (need > UINT32_MAX)
			die("output record larger than 4 GB");
		size = d->size != 0 ? d->size : 4096;
		while (size < need)
			size = size > UINT32_MAX / 2 ? UINT32_MAX : size * 2;
		d->arena = xrealloc(d->arena, size);
		d->size = (uint32_t)size;
	}
	p = d->arena + off;
	if (valid) {
		memcpy(p, s, n);
		p += n;
	} else
		while (i < n) {
			j = json_scan(b, i, n);
			memcpy(p, b + i, j - i);
			p += j - i;
			if ((i = j) == n)
				break;
			/* U+0000 as the reader has it, in either form. */
			if (b[i] == '\0' || is_jnul(b, i, n)) {
				memcpy(p, JNUL, 2);
				p += 2;
				i += b[i] == '\0' ? 1 : 2;
				continue;
			}
			if (b[i] < 0x80) {
				*p++ = (char)b[i++];
				continue;
			}
			l = json_utf8_len(b + i, n - i);
			if (l > 0) {
				memcpy(p, b + i, (size_t)l);
				p += l;
				i += (size_t)l;
			} else {
				memcpy(p, "\xef\xbf\xbd", 3);
				p += 3;
				i++;
			}
		}
	*p++ = '\0';
	*len = (uint32_t)(p - (d->arena + off) - 1);
	d->used = (uint32_t)(p - d->arena);
	return off;
}

/*
 * arr, an array of *cap elements of size bytes with used in use, with room
 * for more after them.
 */
static void *
d_room(void *arr, uint32_t *cap, uint32_t used, uint32_t more, size_t size)
{
	if (*cap - used >= more)
		return arr;
	if (more > UINT32_MAX / 2 - used)
		die("output record larger than 4 G nodes");
	if (*cap == 0)
		*cap = 64;
	while (*cap - used < more)
		*cap *= 2;
	return xreallocarray(arr, *cap, size);
}

/*
 * Appends a node of type t, a child of the innermost open container, with
 * the pending member name, and returns its index.
 */
static uint32_t
d_node(struct jw *w, int t)
{
	struct jdoc *d = &w->doc;
	struct jnode *nd;
	uint32_t i;

	d->node = d_room(d->node, &d->cap, d->n, 1, sizeof(*d->node));
	i = d->n++;
	nd = &d->node[i];
	nd->type = (uint8_t)t;
	nd->next = i + 1;
	nd->len = 0;
	nd->off = 0;
	nd->key = w->key;
	nd->keylen = w->key == JNOKEY ? 0 : w->keylen;
	nd->at = 0;
	w->key = JNOKEY;
	if (w->depth > 0)
		d->node[w->open[w->depth]].len++;
	return i;
}

/* A string or number node: n bytes of s, repaired unless valid. */
static void
d_string(struct jw *w, int t, const char *s, size_t n, int valid)
{
	uint32_t i, off, len;

	off = d_text(w, s, n, valid, &len);
	i = d_node(w, t);
	w->doc.node[i].off = off;
	w->doc.node[i].len = len;
}

static void
d_key(struct jw *w, const char *k, size_t n, int valid)
{
	w->key = d_text(w, k, n, valid, &w->keylen);
}

static void
d_open(struct jw *w, int t)
{
	uint32_t i;

	if (w->depth == JR_MAX_DEPTH)
		die("output nested deeper than %d levels", JR_MAX_DEPTH);
	i = d_node(w, t);
	w->open[++w->depth] = i;
}

static void
d_close(struct jw *w)
{
	w->doc.node[w->open[w->depth--]].next = w->doc.n;
}

/*
 * Node i of src and its subtree, copied with their positions.  The first
 * copy of a record gives its position to the nodes the writer made before
 * it, and to those it makes after: theirs is where[0].
 */
static void
d_copy(struct jw *w, const struct jdoc *src, uint32_t i)
{
	struct jdoc *d = &w->doc;
	const struct jnode *sn;
	struct jnode *nd;
	uint32_t j, at, n, len;
	int depth;

	/* The root takes the pending name and counts in its parent. */
	at = d_node(w, src->node[i].type);
	n = src->node[i].next - i;
	d->where = d_room(d->where, &d->wcap, d->nwhere, n,
	    sizeof(*d->where));
	jdoc_where_all(src, i, n, d->where + d->nwhere);
	if (!w->placed) {
		w->placed = 1;
		d->where[0] = d->where[d->nwhere];
	}
	d->node = d_room(d->node, &d->cap, d->n, n - 1, sizeof(*d->node));
	d->n += n - 1;
	/*
	 * Containers are as deep as the text backend would nest them, and
	 * refused where it would be: w->open past the depth holds where
	 * each open one ends, scratch that nothing else reads.
	 */
	depth = w->depth;
	for (j = i; j < i + n; j++) {
		sn = &src->node[j];
		nd = &d->node[at + (j - i)];
		while (depth > w->depth && w->open[depth] <= j)
			depth--;
		if (sn->type == JT_ARRAY || sn->type == JT_OBJECT) {
			if (depth == JR_MAX_DEPTH)
				die("output nested deeper than %d levels",
				    JR_MAX_DEPTH);
			w->open[++depth] = sn->next;
		}
		nd->type = sn->type;
		nd->next = sn->next - i + at;
		nd->len = sn->len;
		nd->at = d->nwhere++;
		if (j != i) {
			nd->key = sn->key == JNOKEY ? JNOKEY :
			    d_text(w, jdoc_key(src, j), sn->keylen, 1, &len);
			nd->keylen = sn->keylen;
		}
		nd->off = sn->type == JT_STRING || sn->type == JT_NUMBER ?
		    d_text(w, jdoc_str(src, j), sn->len, 1, &len) : 0;
	}
}

/* Hands a record to fn, unless it has refused one before. */
static void
d_hand(struct jw *w, const struct jdoc *d)
{
	if (!w->failed && w->fn(w->arg, d) < 0)
		w->failed = 1;
}

/* Closes the record, hands it over and empties the doc for the next. */
static void
d_end(struct jw *w)
{
	d_close(w);
	d_hand(w, &w->doc);
	d_begin(w);
}

/* Empties the doc for a record, which has no position until it is placed. */
static void
d_begin(struct jw *w)
{
	struct jdoc *d = &w->doc;

	jdoc_reset(d);
	d->where = d_room(d->where, &d->wcap, 0, 1, sizeof(*d->where));
	d->where[0].line = d->where[0].col = 0;
	d->nwhere = 1;
	w->key = JNOKEY;
	w->placed = 0;
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
	struct jpos at;
	int rc;

	rc = jr_value(n->r, d);
	if (rc == 1) {
		at = jdoc_where(d, 0);
		n->line = at.line;
		if (d->node[0].type != JT_OBJECT)
			jr_fail(n->r, at.line, at.col,
			    "record is not an object");
		else if (jdoc_get_str(d, 0, "kind", &kind, NULL) < 0)
			jr_fail(n->r, at.line, at.col,
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

uint64_t
ndin_nonfinite(const struct ndin *n)
{
	return jr_repairs(n->r)->nonfinite;
}

void
ndin_close(struct ndin *n)
{
	if (n == NULL)
		return;
	jr_close(n->r);
	free(n);
}
