/*
 * json: the streaming reader and the jdoc that json.h describes.
 * One file: the tokenizer, jr_value()'s own loop and the scanning kernels
 * are one hot path over the reader's state and its static inline helpers,
 * and the compiler inlines across them only within one translation unit;
 * the reader's speed (README, "Reading JSON") rests on that.
 */
#include <errno.h>
#include <inttypes.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#if defined(__x86_64__) && defined(__SSE2__)
#include <immintrin.h>
#define JSON_X86	1
#endif

#include "base/err.h"
#include "base/xalloc.h"
#include "io/json.h"
#include "io/magic.h"

/*
 * Bytes of input buffered.  The fuzzing build makes it small (-DJR_BUFCAP=)
 * so that short inputs reach the refill paths; need() wants room for the
 * longest number and its lookahead.
 */
#ifndef JR_BUFCAP
#define JR_BUFCAP	(256u * 1024)
#endif
#if JR_BUFCAP < 2 * JR_MAX_NUMBER
#error "JR_BUFCAP must hold two of the longest numbers"
#endif
#define BUFCAP	JR_BUFCAP
/* Slack after the buffer, for the kernels' whole-block loads past its end. */
#define PAD	32

enum state {
	S_VALUE,		/* a value: at the start, after ':' or ',' */
	S_FIRST_VALUE_OR_END,	/* just after '[' */
	S_FIRST_KEY_OR_END,	/* just after '{' */
	S_KEY,			/* after ',' in an object */
	S_COMMA_OR_END,		/* after a value inside a container */
	S_AFTER_TOP		/* after a complete top-level value */
};

struct kernel;

struct jreader {
	struct gzin	*in;
	const struct kernel *k;
	int		 flags;
	unsigned char	*buf;
	size_t		 pos, end;
	int		 eof;
	uint64_t	 base;		/* input offset of buf[0] */
	uint64_t	 line;		/* line of buf[pos] */
	uint64_t	 line_start;	/* input offset where that line starts */
	uint64_t	 top_end_line;	/* line where the last top-level value ended */
	char		 stack[JR_MAX_DEPTH];
	int		 depth;
	enum state	 state;
	int		 seen_value;
	int		 unclosed;
	char		*scratch;
	size_t		 slen, scap;
	struct jrepairs	 rep;
	enum jerr	 errkind;
	char		 err[256];
	uint64_t	 eline, ecol;
	/*
	 * While jr_value() reads into doc: the input from text_start on is
	 * the value's text, copied to doc's text up to buf[mark] when fill()
	 * is about to drop it, and the rest when the value is complete.
	 */
	struct jdoc	*doc;
	size_t		 mark;
	uint64_t	 text_start;
};

/* JTEXT is free in an offset: a jdoc is at most JR_MAX_VALUE bytes. */
#if JR_MAX_VALUE > JTEXT
#error "JTEXT must lie above every offset"
#endif

/* The repaired N/A's string, which is not in the input. */
static const char na_text[] = "N/A";

static const struct kernel *kernel(void);
static int	fill(struct jreader *, size_t *);
static int	need(struct jreader *, size_t);
static int	skip_ws(struct jreader *);
static void	fail_here(struct jreader *, enum jerr, size_t, const char *, ...)
		    __attribute__((format(printf, 4, 5)));
static void	repaired(struct jreader *, uint64_t *, size_t);
static void	sputc(struct jreader *, int);
static void	sput(struct jreader *, const void *, size_t);
static int	lex_string(struct jreader *, struct jtoken *);
static int	lex_string_slow(struct jreader *, struct jtoken *, size_t,
		    size_t);
static int	string_too_long(struct jreader *, const struct jtoken *);
static void	keep_key(struct jreader *, struct jtoken *);
static int	lex_escape(struct jreader *);
static enum jtok lex_number(struct jreader *, struct jtoken *);
static enum jtok lex_word(struct jreader *, struct jtoken *);
static enum jtok lex_value(struct jreader *, struct jtoken *);
static enum jtok value_done(struct jreader *, enum jtok);
static enum jtok at_eof(struct jreader *, struct jtoken *);
static enum magic magic_here(struct jreader *);
static void	buf_room(char **, uint32_t *, size_t);
static int	keep_text(struct jreader *, size_t);
static uint32_t	arena_put(struct jdoc *, const char *, size_t);
static int	add_node(struct jreader *, struct jdoc *, const struct jtoken *,
		    enum jtype, uint32_t, uint32_t);
static size_t	number_len(const unsigned char *);
static inline size_t string_end(const struct jreader *, size_t);
static inline uint32_t arena_put_buf(struct jdoc *, const unsigned char *,
		    size_t);
static int	read_value(struct jreader *, struct jdoc *);
static int	fast_value(struct jreader *, struct jdoc *, uint32_t *, int *,
		    uint32_t *, uint32_t *);
static int	us_to_ns_short(const char *, size_t, int64_t *);

struct jreader *
jr_open(struct gzin *in, int flags)
{
	struct jreader *r;

	r = xcalloc(1, sizeof(*r));
	r->in = in;
	r->flags = flags;
	/*
	 * Not calloc: zeroing reused heap would make every byte of the buffer
	 * resident for a small input.  fill() keeps the PAD bytes after the
	 * data defined instead.
	 */
	r->buf = xmalloc(BUFCAP + PAD);
	memset(r->buf, 0, PAD);
	r->k = kernel();
	r->line = 1;
	r->state = S_VALUE;
	return r;
}

void
jr_close(struct jreader *r)
{
	if (r == NULL)
		return;
	gzin_close(r->in);
	free(r->buf);
	free(r->scratch);
	free(r);
}

const char *
jr_name(const struct jreader *r)
{
	return gzin_name(r->in);
}

const char *
jr_error(const struct jreader *r)
{
	return r->err;
}

enum jerr
jr_errkind(const struct jreader *r)
{
	return r->errkind;
}

uint64_t
jr_errline(const struct jreader *r)
{
	return r->eline;
}

uint64_t
jr_errcol(const struct jreader *r)
{
	return r->ecol;
}

int
jr_unclosed(const struct jreader *r)
{
	return r->unclosed;
}

const struct jrepairs *
jr_repairs(const struct jreader *r)
{
	return &r->rep;
}

uint64_t
jr_offset(const struct jreader *r)
{
	return r->base + r->pos;
}

void
jr_fail(struct jreader *r, uint64_t line, uint64_t col, const char *fmt, ...)
{
	va_list ap;

	if (r->errkind != JE_NONE)
		return;
	va_start(ap, fmt);
	vsnprintf(r->err, sizeof(r->err), fmt, ap);
	va_end(ap);
	r->errkind = JE_SYNTAX;
	r->eline = line;
	r->ecol = col;
}

/* Records the first error only: later ones are consequences. */
static void
fail_here(struct jreader *r, enum jerr kind, size_t at, const char *fmt, ...)
{
	va_list ap;

	if (r->errkind != JE_NONE)
		return;
	va_start(ap, fmt);
	vsnprintf(r->err, sizeof(r->err), fmt, ap);
	va_end(ap);
	r->errkind = kind;
	r->eline = r->line;
	r->ecol = r->base + at - r->line_start + 1;
}

/*
 * Moves the bytes from *keep on to the front of the buffer and reads more
 * after them.  *keep becomes 0; the caller shifts its other indices by the
 * old *keep.  Returns the bytes read, 0 at the end, -1 on error.
 */
static int
fill(struct jreader *r, size_t *keep)
{
	ssize_t n;
	size_t k = *keep;

	if (k > 0) {
		if (r->doc != NULL) {
			if (keep_text(r, k) < 0)
				return -1;
			r->mark = 0;
		}
		memmove(r->buf, r->buf + k, r->end - k);
		r->base += k;
		r->end -= k;
		r->pos -= k < r->pos ? k : r->pos;
		*keep = 0;
		memset(r->buf + r->end, 0, PAD);
	}
	if (r->eof || r->end == BUFCAP)
		return 0;
	n = gzin_read(r->in, r->buf + r->end, BUFCAP - r->end);
	if (n < 0) {
		fail_here(r, JE_IO, r->end, "%s", gzin_error(r->in));
		return -1;
	}
	if (n == 0)
		r->eof = 1;
	r->end += (size_t)n;
	memset(r->buf + r->end, 0, PAD);
	return (int)(n > 0);
}

/* Makes at least n bytes available at pos unless the input ends first. */
static int
need(struct jreader *r, size_t n)
{
	size_t keep;

	while (r->end - r->pos < n && !r->eof) {
		keep = r->pos;
		if (fill(r, &keep) < 0)
			return -1;
	}
	return 0;
}

/*
 * Stage 1 kernels: find the next byte that ends a plain stretch of a
 * string ('"', '\\', a control character or non-ASCII), or the next byte
 * that is not a blank (counting the newlines passed and where the last one
 * ends), a block at a time.  Each CPU gets the widest it has: AVX2 (chosen
 * at run time), SSE2 (the x86-64 baseline), or words of 8 bytes in plain C
 * elsewhere.  $MRP_SIMD ("avx2", "sse2" or "c") forces one, so that each
 * is tested on a machine that has them all.
 */
struct kernel {
	const char	*name;
	/* Both may read a block past end: the reader's buffer has room. */
	size_t		(*string)(const unsigned char *, size_t, size_t);
	size_t		(*blank)(const unsigned char *, size_t, size_t, size_t *,
			    size_t *);
};

static int
is_blank(unsigned char c)
{
	return c == ' ' || c == '\n' || c == '\t' || c == '\r';
}

/* The bytes from i on, one at a time: the tail after the blocks. */
static size_t
blank_tail(const unsigned char *b, size_t i, size_t end, size_t *nl,
    size_t *after)
{
	for (; i < end && is_blank(b[i]); i++)
		if (b[i] == '\n') {
			(*nl)++;
			*after = i + 1;
		}
	return i;
}

static size_t
string_tail(const unsigned char *b, size_t i, size_t end)
{
	while (i < end && b[i] != '"' && b[i] != '\\' && b[i] >= 0x20 &&
	    b[i] < 0x80)
		i++;
	return i;
}

#define ONES	0x0101010101010101ULL
#define HIGHS	0x8080808080808080ULL

/*
 * Nonzero when a byte of w is below c (at most 0x80): the lowest such byte
 * has its high bit set, the ones after it may be marked falsely.
 */
static uint64_t
below(uint64_t w, unsigned char c)
{
	return (w - ONES * c) & ~w & HIGHS;
}

static size_t
string_c(const unsigned char *b, size_t i, size_t end)
{
	uint64_t w;

	/* A hit may mark later bytes falsely: the tail finds the first. */
	for (; i + 8 <= end; i += 8) {
		memcpy(&w, b + i, 8);
		if ((below(w ^ ONES * '"', 1) | below(w ^ ONES * '\\', 1) |
		    below(w, 0x20) | (w & HIGHS)) != 0)
			break;
	}
	return string_tail(b, i, end);
}

static size_t
blank_c(const unsigned char *b, size_t i, size_t end, size_t *nl,
    size_t *after)
{
	return blank_tail(b, i, end, nl, after);
}

#ifdef JSON_X86
/* Newlines of a block before its first non-blank; mask is non-blanks. */
static void
count_lines(uint32_t nlmask, uint32_t mask, size_t i, size_t *nl,
    size_t *after)
{
	if (mask != 0)
		nlmask &= (1u << __builtin_ctz(mask)) - 1;
	if (nlmask != 0) {
		*nl += (size_t)__builtin_popcount(nlmask);
		*after = i + 32 - (size_t)__builtin_clz(nlmask);
	}
}

/* Reads whole blocks past end: the reader's buffer has PAD bytes more. */
static size_t
blank_sse2(const unsigned char *b, size_t i, size_t end, size_t *nl,
    size_t *after)
{
	__m128i v, lf;
	uint32_t mask;

	for (;; i += 16) {
		v = _mm_loadu_si128((const __m128i *)(const void *)(b + i));
		lf = _mm_cmpeq_epi8(v, _mm_set1_epi8('\n'));
		mask = ~(uint32_t)_mm_movemask_epi8(_mm_or_si128(
		    _mm_or_si128(_mm_cmpeq_epi8(v, _mm_set1_epi8(' ')), lf),
		    _mm_or_si128(_mm_cmpeq_epi8(v, _mm_set1_epi8('\t')),
		    _mm_cmpeq_epi8(v, _mm_set1_epi8('\r'))))) & 0xffff;
		if (end - i < 16)
			mask |= 1u << (end - i);
		count_lines((uint32_t)_mm_movemask_epi8(lf), mask, i, nl,
		    after);
		if (mask != 0)
			return i + (size_t)__builtin_ctz(mask);
	}
}

/* The bytes of the 16 at p that end a plain stretch of a string. */
static uint32_t
string_mask16(const unsigned char *p)
{
	__m128i v = _mm_loadu_si128((const __m128i *)(const void *)p);

	/* Signed compare: bytes >= 0x80 are negative, so < 0x20 too. */
	return (uint32_t)_mm_movemask_epi8(_mm_or_si128(_mm_or_si128(
	    _mm_cmpeq_epi8(v, _mm_set1_epi8('"')),
	    _mm_cmpeq_epi8(v, _mm_set1_epi8('\\'))),
	    _mm_cmplt_epi8(v, _mm_set1_epi8(0x20))));
}

static size_t
string_sse2(const unsigned char *b, size_t i, size_t end)
{
	uint32_t mask;

	for (;; i += 16) {
		mask = string_mask16(b + i);
		if (end - i < 16)
			mask |= 1u << (end - i);
		if (mask != 0)
			return i + (size_t)__builtin_ctz(mask);
	}
}

__attribute__((target("avx2")))
static size_t
blank_avx2(const unsigned char *b, size_t i, size_t end, size_t *nl,
    size_t *after)
{
	__m256i v, lf;
	uint32_t mask;

	for (;; i += 32) {
		v = _mm256_loadu_si256((const __m256i *)(const void *)(b + i));
		lf = _mm256_cmpeq_epi8(v, _mm256_set1_epi8('\n'));
		mask = ~(uint32_t)_mm256_movemask_epi8(_mm256_or_si256(
		    _mm256_or_si256(_mm256_cmpeq_epi8(v,
		    _mm256_set1_epi8(' ')), lf),
		    _mm256_or_si256(_mm256_cmpeq_epi8(v,
		    _mm256_set1_epi8('\t')), _mm256_cmpeq_epi8(v,
		    _mm256_set1_epi8('\r')))));
		if (end - i < 32)
			mask |= 1u << (end - i);
		count_lines((uint32_t)_mm256_movemask_epi8(lf), mask, i, nl,
		    after);
		if (mask != 0)
			return i + (size_t)__builtin_ctz(mask);
	}
}

__attribute__((target("avx2")))
static size_t
string_avx2(const unsigned char *b, size_t i, size_t end)
{
	const __m256i quote = _mm256_set1_epi8('"');
	const __m256i bslash = _mm256_set1_epi8('\\');
	const __m256i space = _mm256_set1_epi8(0x20);
	__m256i v, m;
	uint32_t mask;

	for (;; i += 32) {
		v = _mm256_loadu_si256((const __m256i *)(const void *)(b + i));
		m = _mm256_or_si256(_mm256_or_si256(
		    _mm256_cmpeq_epi8(v, quote), _mm256_cmpeq_epi8(v, bslash)),
		    _mm256_cmpgt_epi8(space, v));
		mask = (uint32_t)_mm256_movemask_epi8(m);
		if (end - i < 32)
			mask |= 1u << (end - i);
		if (mask != 0)
			return i + (size_t)__builtin_ctz(mask);
	}
}
#endif

static const struct kernel kernels[] = {
#ifdef JSON_X86
	{ "avx2", string_avx2, blank_avx2 },
	{ "sse2", string_sse2, blank_sse2 },
#endif
	{ "c", string_c, blank_c },
};

static int
kernel_runs(const struct kernel *k)
{
#ifdef JSON_X86
	if (k->blank == blank_avx2)
		return __builtin_cpu_supports("avx2");
#else
	(void)k;
#endif
	return 1;
}

/* The kernel for this CPU, or the one $MRP_SIMD names; chosen once. */
static const struct kernel *
kernel(void)
{
	static const struct kernel *chosen;
	const char *want;
	size_t i, n = sizeof(kernels) / sizeof(kernels[0]);

	if (chosen != NULL)
		return chosen;
	if ((want = getenv("MRP_SIMD")) != NULL && *want != '\0') {
		for (i = 0; i < n && strcmp(kernels[i].name, want) != 0; i++)
			;
		if (i == n)
			die("MRP_SIMD: no kernel %s here", want);
		if (!kernel_runs(&kernels[i]))
			die("MRP_SIMD: this CPU cannot run %s", want);
		return chosen = &kernels[i];
	}
	for (i = 0; !kernel_runs(&kernels[i]); i++)
		;
	return chosen = &kernels[i];
}

/* The value's text starts at pos. */
static void
mark_text(struct jreader *r)
{
	r->mark = r->pos;
	r->text_start = r->base + r->pos;
	r->doc->start.line = r->line;
	r->doc->start.col = r->text_start - r->line_start + 1;
}

static int
skip_ws(struct jreader *r)
{
	size_t keep, nl, after;

	for (;;) {
		nl = 0;
		r->pos = r->k->blank(r->buf, r->pos, r->end, &nl, &after);
		if (nl > 0) {
			r->line += nl;
			r->line_start = r->base + after;
		}
		/* Blanks before a value are not its text. */
		if (r->doc != NULL && r->doc->n == 0)
			mark_text(r);
		if (r->pos < r->end || r->eof)
			return 0;
		keep = r->pos;
		if (fill(r, &keep) < 0)
			return -1;
	}
}

/*
 * For the writer's strings, most a few bytes long: one SSE2 block at a time
 * where there is one, no dispatch, no reading past end.
 */
size_t
json_scan(const unsigned char *b, size_t i, size_t end)
{
#ifdef JSON_X86
	uint32_t mask;

	for (; i + 16 <= end; i += 16)
		if ((mask = string_mask16(b + i)) != 0)
			return i + (size_t)__builtin_ctz(mask);
#endif
	return string_tail(b, i, end);
}

int
json_utf8_len(const unsigned char *b, size_t n)
{
	unsigned char c = b[0];
	int len, i;

	if (c < 0x80)
		return 1;
	if (c >= 0xc2 && c <= 0xdf)
		len = 2;
	else if (c >= 0xe0 && c <= 0xef)
		len = 3;
	else if (c >= 0xf0 && c <= 0xf4)
		len = 4;
	else
		return 0;
	for (i = 1; i < len; i++) {
		if ((size_t)i >= n)
			return -1;
		if ((b[i] & 0xc0) != 0x80)
			return 0;
	}
	/* Overlong forms, surrogates and code points beyond U+10FFFF. */
	if ((c == 0xe0 && b[1] < 0xa0) || (c == 0xed && b[1] > 0x9f) ||
	    (c == 0xf0 && b[1] < 0x90) || (c == 0xf4 && b[1] > 0x8f))
		return 0;
	return len;
}

static void
repaired(struct jreader *r, uint64_t *counter, size_t at)
{
	const struct jrepairs *p = &r->rep;

	if (p->control + p->utf8 + p->na + p->nonfinite == 0) {
		r->rep.first_line = r->line;
		r->rep.first_col = r->base + at - r->line_start + 1;
	}
	(*counter)++;
}

static void
sput(struct jreader *r, const void *p, size_t n)
{
	if (r->slen + n + 1 > r->scap) {
		while (r->slen + n + 1 > r->scap)
			r->scap = r->scap ? r->scap * 2 : 4096;
		r->scratch = xrealloc(r->scratch, r->scap);
	}
	memcpy(r->scratch + r->slen, p, n);
	r->slen += n;
}

static void
sputc(struct jreader *r, int c)
{
	char ch = (char)c;

	sput(r, &ch, 1);
}

/* pos is at the opening quote. */
static int
lex_string(struct jreader *r, struct jtoken *t)
{
	size_t start = r->pos + 1, i = start, keep;
	int n;

	for (;;) {
		i = r->k->string(r->buf, i, r->end);
		if (i == r->end) {
			if (r->eof) {
				jr_fail(r, t->line, t->col,
				    "unterminated string");
				return -1;
			}
			if (r->pos == 0 && r->end == BUFCAP)
				return lex_string_slow(r, t, start, i);
			keep = r->pos;
			i -= keep;
			if (fill(r, &keep) < 0)
				return -1;
			start = r->pos + 1;
			continue;
		}
		if (r->buf[i] == '"') {
			t->s = (const char *)r->buf + start;
			t->len = i - start;
			r->pos = i + 1;
			return 0;
		}
		if (r->buf[i] < 0x80)
			return lex_string_slow(r, t, start, i);
		n = json_utf8_len(r->buf + i, r->end - i);
		if (n > 0) {
			i += (size_t)n;
			continue;
		}
		if (n == 0 || r->eof || (r->pos == 0 && r->end == BUFCAP))
			return lex_string_slow(r, t, start, i);
		/* A sequence cut by the buffer end: read on and look again. */
		keep = r->pos;
		i -= keep;
		if (fill(r, &keep) < 0)
			return -1;
		start = r->pos + 1;
	}
}

/*
 * Moves a member name that lies in the input buffer to the scratch buffer,
 * before the blanks up to its ':' are skipped: a refill would move the
 * buffer's bytes under it.
 */
static void
keep_key(struct jreader *r, struct jtoken *t)
{
	if (t->s == r->scratch)
		return;
	r->slen = 0;
	sput(r, t->s, t->len);
	r->scratch[r->slen] = '\0';
	t->s = r->scratch;
}

/* Refuses the string that starts at t, placing the error at its start. */
static int
string_too_long(struct jreader *r, const struct jtoken *t)
{
	jr_fail(r, t->line, t->col, "string longer than %u bytes",
	    JR_MAX_STRING);
	r->errkind = JE_LIMIT;
	return -1;
}

/*
 * Decodes into the scratch buffer: the bytes [start, i) are plain, i is the
 * first byte that needs work.
 */
static int
lex_string_slow(struct jreader *r, struct jtoken *t, size_t start, size_t i)
{
	size_t keep;
	unsigned char c;
	int n;

	r->slen = 0;
	sput(r, r->buf + start, i - start);
	r->pos = i;
	for (;;) {
		if (r->slen > JR_MAX_STRING)
			return string_too_long(r, t);
		if (r->pos == r->end) {
			if (r->eof) {
				jr_fail(r, t->line, t->col,
				    "unterminated string");
				return -1;
			}
			keep = r->pos;
			if (fill(r, &keep) < 0)
				return -1;
			continue;
		}
		i = r->k->string(r->buf, r->pos, r->end);
		sput(r, r->buf + r->pos, i - r->pos);
		r->pos = i;
		if (i == r->end)
			continue;
		c = r->buf[i];
		if (c == '"') {
			r->pos++;
			break;
		}
		if (c == '\\') {
			if (lex_escape(r) < 0)
				return -1;
			continue;
		}
		if (c < 0x20) {
			repaired(r, &r->rep.control, i);
			/* A NUL would end the C string: see json.h. */
			if (c == '\0')
				sput(r, JNUL, 2);
			else
				sputc(r, c);
			r->pos++;
			if (c == '\n') {
				r->line++;
				r->line_start = r->base + r->pos;
			}
			continue;
		}
		if (r->end - i < 4 && !r->eof) {
			if (need(r, 4) < 0)
				return -1;
			continue;
		}
		n = json_utf8_len(r->buf + i, r->end - i);
		if (n > 0) {
			sput(r, r->buf + i, (size_t)n);
			r->pos += (size_t)n;
		} else {
			repaired(r, &r->rep.utf8, i);
			sput(r, "\xef\xbf\xbd", 3);
			r->pos++;
		}
	}
	/* The last piece read may be the one that goes past the limit. */
	if (r->slen > JR_MAX_STRING)
		return string_too_long(r, t);
	r->scratch[r->slen] = '\0';
	t->s = r->scratch;
	t->len = r->slen;
	return 0;
}

static int
hex4(const unsigned char *p)
{
	int v = 0, i, d;

	for (i = 0; i < 4; i++) {
		if (p[i] >= '0' && p[i] <= '9')
			d = p[i] - '0';
		else if (p[i] >= 'a' && p[i] <= 'f')
			d = p[i] - 'a' + 10;
		else if (p[i] >= 'A' && p[i] <= 'F')
			d = p[i] - 'A' + 10;
		else
			return -1;
		v = v << 4 | d;
	}
	return v;
}

static void
put_utf8(struct jreader *r, unsigned long cp)
{
	char b[4];

	if (cp == 0) {
		/* A NUL would end the C string: see json.h. */
		sput(r, JNUL, 2);
	} else if (cp < 0x80) {
		sputc(r, (int)cp);
	} else if (cp < 0x800) {
		b[0] = (char)(0xc0 | cp >> 6);
		b[1] = (char)(0x80 | (cp & 0x3f));
		sput(r, b, 2);
	} else if (cp < 0x10000) {
		b[0] = (char)(0xe0 | cp >> 12);
		b[1] = (char)(0x80 | (cp >> 6 & 0x3f));
		b[2] = (char)(0x80 | (cp & 0x3f));
		sput(r, b, 3);
	} else {
		b[0] = (char)(0xf0 | cp >> 18);
		b[1] = (char)(0x80 | (cp >> 12 & 0x3f));
		b[2] = (char)(0x80 | (cp >> 6 & 0x3f));
		b[3] = (char)(0x80 | (cp & 0x3f));
		sput(r, b, 4);
	}
}

/* pos is at a backslash; at most a surrogate pair (12 bytes) is read. */
static int
lex_escape(struct jreader *r)
{
	const unsigned char *p;
	int hi, lo;
	unsigned char c;

	if (need(r, 12) < 0)
		return -1;
	if (r->end - r->pos < 2) {
		fail_here(r, JE_SYNTAX, r->pos, "unterminated string");
		return -1;
	}
	p = r->buf + r->pos;
	c = p[1];
	switch (c) {
	case '"': case '\\': case '/':
		sputc(r, c);
		break;
	case 'b': sputc(r, '\b'); break;
	case 'f': sputc(r, '\f'); break;
	case 'n': sputc(r, '\n'); break;
	case 'r': sputc(r, '\r'); break;
	case 't': sputc(r, '\t'); break;
	case 'u':
		if (r->end - r->pos < 6 || (hi = hex4(p + 2)) < 0) {
			fail_here(r, JE_SYNTAX, r->pos,
			    "invalid \\u escape in string");
			return -1;
		}
		if (hi >= 0xd800 && hi <= 0xdbff && r->end - r->pos >= 12 &&
		    p[6] == '\\' && p[7] == 'u' && (lo = hex4(p + 8)) >= 0xdc00 &&
		    lo <= 0xdfff) {
			put_utf8(r, 0x10000 + ((unsigned long)(hi - 0xd800) << 10) +
			    (unsigned long)(lo - 0xdc00));
			r->pos += 12;
			return 0;
		}
		if (hi >= 0xd800 && hi <= 0xdfff) {
			repaired(r, &r->rep.utf8, r->pos);
			put_utf8(r, 0xfffd);
		} else
			put_utf8(r, (unsigned long)hi);
		r->pos += 6;
		return 0;
	default:
		if (c >= 0x20 && c < 0x7f)
			fail_here(r, JE_SYNTAX, r->pos,
			    "invalid escape '\\%c' in string", c);
		else
			fail_here(r, JE_SYNTAX, r->pos,
			    "invalid escape in string");
		return -1;
	}
	r->pos += 2;
	return 0;
}

static int
isdigit_(unsigned char c)
{
	return c >= '0' && c <= '9';
}

/*
 * Whether a number or word may end before c: "12h" is not 12 and then
 * junk, while what follows "12" in "12[" is the next token's to refuse.
 */
static inline int
token_end(unsigned char c)
{
	switch (c) {
	case ' ': case '\t': case '\r': case '\n':
	case ',': case ':': case '[': case ']': case '{': case '}': case '"':
		return 1;
	default:
		return 0;
	}
}

static enum jtok
lex_number(struct jreader *r, struct jtoken *t)
{
	const unsigned char *b;
	size_t i, n;

	if (need(r, JR_MAX_NUMBER + 2) < 0)
		return J_ERROR;
	b = r->buf + r->pos;
	n = r->end - r->pos;
	i = 0;
	if (b[i] == '-')
		i++;
	if (i < n && b[i] == '0')
		i++;
	else if (i < n && isdigit_(b[i]))
		while (i < n && isdigit_(b[i]))
			i++;
	else
		goto bad;
	if (i < n && b[i] == '.') {
		if (++i >= n || !isdigit_(b[i]))
			goto bad;
		while (i < n && isdigit_(b[i]))
			i++;
	}
	if (i < n && (b[i] == 'e' || b[i] == 'E')) {
		i++;
		if (i < n && (b[i] == '+' || b[i] == '-'))
			i++;
		if (i >= n || !isdigit_(b[i]))
			goto bad;
		while (i < n && isdigit_(b[i]))
			i++;
	}
	if (i > JR_MAX_NUMBER) {
		fail_here(r, JE_LIMIT, r->pos,
		    "number longer than %d characters", JR_MAX_NUMBER);
		return J_ERROR;
	}
	if (i < n && !token_end(b[i]))
		goto bad;
	t->s = (const char *)b;
	t->len = i;
	r->pos += i;
	return J_NUMBER;
bad:
	if (i > JR_MAX_NUMBER)
		fail_here(r, JE_LIMIT, r->pos,
		    "number longer than %d characters", JR_MAX_NUMBER);
	else
		fail_here(r, JE_SYNTAX, r->pos, "invalid number");
	return J_ERROR;
}

/* true, false, null, and the repaired N/A, NaN, Infinity, -Infinity. */
static enum jtok
lex_word(struct jreader *r, struct jtoken *t)
{
	static const struct {
		const char	*word;
		enum jtok	 tok;
	} words[] = {
		{ "true", J_TRUE }, { "false", J_FALSE }, { "null", J_NULL },
		{ "N/A", J_STRING }, { "NaN", J_NULL }, { "Infinity", J_NULL },
		{ "-Infinity", J_NULL },
	};
	const unsigned char *b;
	size_t i, len, n;

	if (need(r, 16) < 0)
		return J_ERROR;
	b = r->buf + r->pos;
	n = r->end - r->pos;
	for (i = 0; i < sizeof(words) / sizeof(words[0]); i++) {
		len = strlen(words[i].word);
		if (n < len || memcmp(b, words[i].word, len) != 0)
			continue;
		if (n > len && !token_end(b[len]))
			continue;
		if (words[i].tok == J_STRING) {
			repaired(r, &r->rep.na, r->pos);
			t->s = na_text;
			t->len = 3;
		} else if (i >= 4)
			repaired(r, &r->rep.nonfinite, r->pos);
		r->pos += len;
		return words[i].tok;
	}
	if (b[0] >= 0x20 && b[0] < 0x7f)
		fail_here(r, JE_SYNTAX, r->pos, "unexpected character '%c'",
		    b[0]);
	else
		fail_here(r, JE_SYNTAX, r->pos, "unexpected byte 0x%02x",
		    b[0]);
	return J_ERROR;
}

static enum jtok
lex_value(struct jreader *r, struct jtoken *t)
{
	unsigned char c = r->buf[r->pos];

	switch (c) {
	case '{':
	case '[':
		if (r->depth == JR_MAX_DEPTH) {
			fail_here(r, JE_LIMIT, r->pos,
			    "nesting deeper than %d levels", JR_MAX_DEPTH);
			return J_ERROR;
		}
		r->stack[r->depth++] = (char)c;
		r->pos++;
		r->state = c == '{' ? S_FIRST_KEY_OR_END :
		    S_FIRST_VALUE_OR_END;
		return c == '{' ? J_BEGIN_OBJECT : J_BEGIN_ARRAY;
	case '"':
		if (lex_string(r, t) < 0)
			return J_ERROR;
		return value_done(r, J_STRING);
	case '-':
		/* "-Infinity" may be cut by the buffer's end after its '-'. */
		if (need(r, 2) < 0)
			return J_ERROR;
		if (r->end - r->pos > 1 && r->buf[r->pos + 1] == 'I')
			return value_done(r, lex_word(r, t));
		return value_done(r, lex_number(r, t));
	default:
		if (isdigit_(c))
			return value_done(r, lex_number(r, t));
		return value_done(r, lex_word(r, t));
	}
}

static enum jtok
value_done(struct jreader *r, enum jtok tok)
{
	if (tok == J_ERROR)
		return tok;
	if (r->depth == 0) {
		r->state = S_AFTER_TOP;
		r->top_end_line = r->line;
	} else
		r->state = S_COMMA_OR_END;
	return tok;
}

/*
 * What the input at pos begins as, reading up to MAGIC_LEN bytes only
 * when its first byte may begin one: a pipe may be slow to fill.
 */
static enum magic
magic_here(struct jreader *r)
{
	if (!magic_may(r->buf[r->pos], MAGIC_PICKLE01) ||
	    need(r, MAGIC_LEN) < 0)
		return MAGIC_NONE;
	return magic_of(r->buf + r->pos, r->end - r->pos, MAGIC_PICKLE01);
}

static enum jtok
at_eof(struct jreader *r, struct jtoken *t)
{
	if (r->depth == 0 && (r->state == S_AFTER_TOP || !r->seen_value))
		return J_EOF;
	if (r->depth == 1 && r->stack[0] == '[' &&
	    (r->flags & JR_OPEN_ARRAY) && r->state != S_KEY) {
		r->depth = 0;
		r->unclosed = 1;
		t->s = NULL;
		t->len = 0;
		return value_done(r, J_END_ARRAY);
	}
	fail_here(r, JE_SYNTAX, r->pos, "unexpected end of input%s",
	    r->depth > 0 ? " (the JSON is cut off)" : "");
	return J_ERROR;
}

/* jr_next(), inlined into jr_value()'s loop: one call per value, not token. */
static inline __attribute__((always_inline)) enum jtok
next_token(struct jreader *r, struct jtoken *t)
{
	enum magic magic;
	unsigned char c;
	char top;

	for (;;) {
		if (r->errkind != JE_NONE)
			return J_ERROR;
		/* Most tokens follow no whitespace at all, or one space. */
		if (r->pos < r->end && r->buf[r->pos] == ' ')
			r->pos++;
		if ((r->pos == r->end || r->buf[r->pos] <= ' ') &&
		    skip_ws(r) < 0)
			return J_ERROR;
		t->off = r->base + r->pos;
		t->line = r->line;
		t->col = t->off - r->line_start + 1;
		t->s = NULL;
		t->len = 0;
		if (r->pos == r->end)
			return at_eof(r, t);
		c = r->buf[r->pos];
		top = r->depth > 0 ? r->stack[r->depth - 1] : 0;
		switch (r->state) {
		case S_COMMA_OR_END:
			if (c == ',') {
				r->pos++;
				r->state = top == '{' ? S_KEY : S_VALUE;
				continue;
			}
			if ((c == '}' && top == '{') || (c == ']' && top == '[')) {
				r->pos++;
				r->depth--;
				return value_done(r, c == '}' ? J_END_OBJECT :
				    J_END_ARRAY);
			}
			fail_here(r, JE_SYNTAX, r->pos, "expected ',' or '%c'",
			    top == '{' ? '}' : ']');
			return J_ERROR;
		case S_FIRST_KEY_OR_END:
			if (c == '}') {
				r->pos++;
				r->depth--;
				return value_done(r, J_END_OBJECT);
			}
			/* FALLTHROUGH */
		case S_KEY:
			if (c != '"') {
				fail_here(r, JE_SYNTAX, r->pos,
				    "expected a member name in quotes");
				return J_ERROR;
			}
			if (lex_string(r, t) < 0)
				return J_ERROR;
			if (r->pos == r->end || r->buf[r->pos] != ':') {
				keep_key(r, t);
				if (skip_ws(r) < 0)
					return J_ERROR;
			}
			if (r->pos == r->end || r->buf[r->pos] != ':') {
				fail_here(r, JE_SYNTAX, r->pos,
				    "expected ':' after member name");
				return J_ERROR;
			}
			r->pos++;
			r->state = S_VALUE;
			return J_KEY;
		case S_FIRST_VALUE_OR_END:
			if (c == ']') {
				r->pos++;
				r->depth--;
				return value_done(r, J_END_ARRAY);
			}
			return lex_value(r, t);
		case S_AFTER_TOP:
			if (!(r->flags & JR_STREAM)) {
				fail_here(r, JE_SYNTAX, r->pos,
				    "unexpected data after the JSON value");
				return J_ERROR;
			}
			if (r->line == r->top_end_line) {
				fail_here(r, JE_SYNTAX, r->pos,
				    "expected a newline after the record");
				return J_ERROR;
			}
			r->state = S_VALUE;
			/* FALLTHROUGH */
		case S_VALUE:
			if (!r->seen_value) {
				r->seen_value = 1;
				if (r->base + r->pos == 0 && c == 0xef &&
				    need(r, 3) == 0 && r->end >= 3 &&
				    memcmp(r->buf, "\xef\xbb\xbf", 3) == 0) {
					/* A UTF-8 byte order mark. */
					r->pos += 3;
					r->seen_value = 0;
					continue;
				}
				magic = magic_here(r);
				if (magic == MAGIC_PICKLE) {
					fail_here(r, JE_PICKLE, r->pos,
					    "this is a Python pickle, not JSON");
					return J_ERROR;
				}
				/* A database is one from its first byte. */
				if (magic == MAGIC_SQLITE &&
				    r->base + r->pos == 0) {
					fail_here(r, JE_SQLITE, r->pos,
					    "this is an SQLite database, not"
					    " JSON");
					return J_ERROR;
				}
			}
			if (r->depth == 0 && top == 0 &&
			    r->state == S_VALUE && c != '{' && c != '[' &&
			    !(r->flags & JR_STREAM) && c != '"' &&
			    c != '-' && !isdigit_(c) && c != 't' && c != 'f' &&
			    c != 'n') {
				fail_here(r, JE_SYNTAX, r->pos,
				    c >= 0x20 && c < 0x7f ?
				    "not JSON: unexpected character '%c'" :
				    "not JSON: unexpected byte 0x%02x", c);
				return J_ERROR;
			}
			return lex_value(r, t);
		}
	}
}

enum jtok
jr_next(struct jreader *r, struct jtoken *t)
{
	return next_token(r, t);
}

void
jdoc_reset(struct jdoc *d)
{
	d->n = 0;
	d->used = 0;
	d->textlen = 0;
	d->start.line = d->start.col = 0;
	d->nwhere = 0;
}

void
jdoc_free(struct jdoc *d)
{
	free(d->node);
	free(d->arena);
	free(d->text);
	free(d->where);
	memset(d, 0, sizeof(*d));
}

void
jdoc_copy(struct jdoc *dst, const struct jdoc *src)
{
	if (dst->cap < src->n) {
		dst->cap = src->n;
		dst->node = xreallocarray(dst->node, dst->cap,
		    sizeof(*dst->node));
	}
	buf_room(&dst->arena, &dst->size, src->used);
	buf_room(&dst->text, &dst->textsize, src->textlen);
	if (dst->wcap < src->nwhere) {
		dst->wcap = src->nwhere;
		dst->where = xreallocarray(dst->where, dst->wcap,
		    sizeof(*dst->where));
	}
	memcpy(dst->node, src->node, src->n * sizeof(*src->node));
	/* A writer's document (jw_new_doc) may have no arena or no text. */
	if (src->used > 0)
		memcpy(dst->arena, src->arena, src->used);
	if (src->textlen > 0)
		memcpy(dst->text, src->text, src->textlen);
	if (src->nwhere > 0)
		memcpy(dst->where, src->where,
		    src->nwhere * sizeof(*src->where));
	dst->n = src->n;
	dst->used = src->used;
	dst->textlen = src->textlen;
	dst->start = src->start;
	dst->nwhere = src->nwhere;
}

struct jpos
jdoc_where(const struct jdoc *d, uint32_t i)
{
	struct jpos at;

	jdoc_where_all(d, i, 1, &at);
	return at;
}

void
jdoc_where_all(const struct jdoc *d, uint32_t i, uint32_t n,
    struct jpos *pos)
{
	const char *text = d->text, *nl;
	uint64_t line = d->start.line;
	uint32_t k, seen = 0, after = 0, at;

	if (d->nwhere > 0) {
		for (k = 0; k < n; k++)
			pos[k] = d->where[d->node[i + k].at];
		return;
	}
	/*
	 * The text is as read but for NULs, put where quotes were, and its
	 * nodes are in the order of their offsets: one pass counts the lines.
	 */
	for (k = 0; k < n; k++) {
		at = d->node[i + k].at;
		while ((nl = memchr(text + seen, '\n', at - seen)) != NULL) {
			line++;
			seen = after = (uint32_t)(nl - text) + 1;
		}
		seen = at;
		pos[k].line = line;
		pos[k].col = after == 0 ? d->start.col + at : at - after + 1;
	}
}

/* Room in buf, which has *size bytes, for want bytes and PAD bytes more. */
static void
buf_room(char **buf, uint32_t *size, size_t want)
{
	if (want + PAD > *size) {
		while (want + PAD > *size)
			*size = *size ? *size * 2 : 4096;
		*buf = xrealloc(*buf, *size);
	}
}

/*
 * Copies the text from buf[mark] up to buf[k], which fill() is about to
 * drop, or jr_value() to leave.
 */
static int
keep_text(struct jreader *r, size_t k)
{
	struct jdoc *d = r->doc;
	size_t n = k - r->mark;

	if ((size_t)d->textlen + n > JR_MAX_VALUE) {
		fail_here(r, JE_LIMIT, r->pos, "value larger than %u bytes",
		    JR_MAX_VALUE);
		return -1;
	}
	buf_room(&d->text, &d->textsize, (size_t)d->textlen + n);
	memcpy(d->text + d->textlen, r->buf + r->mark, n);
	d->textlen += (uint32_t)n;
	return 0;
}

static uint32_t
arena_put(struct jdoc *d, const char *s, size_t len)
{
	uint32_t off = d->used;

	buf_room(&d->arena, &d->size, (size_t)off + len + 1);
	memcpy(d->arena + off, s, len);
	d->arena[off + len] = '\0';
	d->used += (uint32_t)(len + 1);
	return off;
}

/* The offset in the value's text of buf[i]. */
static inline uint32_t
text_at(const struct jreader *r, size_t i)
{
	return (uint32_t)(r->base + i - r->text_start);
}

/*
 * Whether the value read into d would pass JR_MAX_VALUE with its text up
 * to buf[p], one more node and len more bytes of arena.
 */
static inline int
too_large(const struct jreader *r, const struct jdoc *d, size_t p,
    size_t len)
{
	return r->base + p - r->text_start + d->used +
	    ((uint64_t)d->n + 1) * sizeof(struct jnode) + len > JR_MAX_VALUE;
}

/*
 * Where the string of t goes: where it lies in the text, when it lies in
 * the buffer as it was written, its closing quote made the NUL (the reader
 * is past it); else a copy in the arena.
 */
static uint32_t
text_or_arena(struct jreader *r, struct jdoc *d, const struct jtoken *t)
{
	size_t i;

	if (t->s == r->scratch || t->s == na_text)
		return arena_put(d, t->s, t->len);
	i = (size_t)((const unsigned char *)t->s - r->buf);
	r->buf[i + t->len] = '\0';
	return JTEXT | text_at(r, i);
}

static int
add_node(struct jreader *r, struct jdoc *d, const struct jtoken *t,
    enum jtype type, uint32_t key, uint32_t keylen)
{
	struct jnode *nd;

	if (too_large(r, d, r->pos, t->len)) {
		jr_fail(r, t->line, t->col, "value larger than %u bytes",
		    JR_MAX_VALUE);
		r->errkind = JE_LIMIT;
		return -1;
	}
	if (d->n == d->cap) {
		d->cap = d->cap ? d->cap * 2 : 64;
		d->node = xreallocarray(d->node, d->cap, sizeof(*d->node));
	}
	nd = &d->node[d->n++];
	nd->type = (uint8_t)type;
	nd->next = d->n;
	nd->len = (uint32_t)t->len;
	nd->off = 0;
	nd->key = key;
	nd->keylen = keylen;
	nd->at = (uint32_t)(t->off - r->text_start);
	if (type == JT_STRING)
		nd->off = text_or_arena(r, d, t);
	else if (type == JT_NUMBER)
		nd->off = arena_put(d, t->s, t->len);
	else
		nd->len = 0;
	return 0;
}

/*
 * Bytes that must lie ahead for fast_value() to take a number or a word
 * as lex_number() and lex_word() would, without a refill: the longest
 * number and the byte after it.
 */
#define FAST_ROOM	(JR_MAX_NUMBER + 2)

/*
 * The length of the number at b when it is valid and ends as lex_number()
 * wants, or 0 for anything else, which lex_number() then refuses itself.
 * The buffer's zeroed PAD stops the digit loops past the data.
 */
static size_t
number_len(const unsigned char *b)
{
	size_t i = b[0] == '-';

	if (b[i] == '0')
		i++;
	else if (isdigit_(b[i]))
		while (isdigit_(b[i]))
			i++;
	else
		return 0;
	if (b[i] == '.') {
		if (!isdigit_(b[++i]))
			return 0;
		while (isdigit_(b[i]))
			i++;
	}
	if (b[i] == 'e' || b[i] == 'E') {
		i++;
		if (b[i] == '+' || b[i] == '-')
			i++;
		if (!isdigit_(b[i]))
			return 0;
		while (isdigit_(b[i]))
			i++;
	}
	if (i > JR_MAX_NUMBER || !token_end(b[i]))
		return 0;
	return i;
}

/*
 * The index of the quote that ends the string whose text starts at i, or
 * 0 when it needs lex_string_slow() (escapes, control characters, invalid
 * UTF-8) or runs past the data.
 */
static inline size_t
string_end(const struct jreader *r, size_t i)
{
	const unsigned char *b = r->buf;
	int n;
#if __BYTE_ORDER__ == __ORDER_LITTLE_ENDIAN__
	uint64_t w, m;

	/*
	 * Most names and values are a few bytes long: a word of them first,
	 * inline.  The lowest byte marked is exact (see below()), and one
	 * past end is the PAD's zero.
	 */
	memcpy(&w, b + i, 8);
	m = below(w ^ ONES * '"', 1) | below(w ^ ONES * '\\', 1) |
	    below(w, 0x20) | (w & HIGHS);
	i = m != 0 ? i + (size_t)__builtin_ctzll(m) / 8 :
	    r->k->string(b, i + 8, r->end);
#else
	i = r->k->string(b, i, r->end);
#endif
	for (;;) {
		if (b[i] == '"' && i < r->end)
			return i;
		if (b[i] < 0x80 || (n = json_utf8_len(b + i, r->end - i)) <= 0)
			return 0;
		i = r->k->string(b, i + (size_t)n, r->end);
	}
}

/*
 * arena_put() for a text in the reader's buffer: a short one is copied as
 * one 32-byte block, which the PAD after the data allows on the source
 * side and buf_room()'s slack on the arena's.
 */
static inline uint32_t
arena_put_buf(struct jdoc *d, const unsigned char *s, size_t len)
{
	uint32_t off = d->used;

	buf_room(&d->arena, &d->size, (size_t)off + len + 1);
	if (len < PAD)
		memcpy(d->arena + off, s, PAD);
	else
		memcpy(d->arena + off, s, len);
	d->arena[off + len] = '\0';
	d->used += (uint32_t)(len + 1);
	return off;
}

/*
 * Skips the blanks at *p for fast_value(), with skip_ws() for any but one
 * space, which moves the buffer when it refills it.  Returns 1 when a
 * token starts at *p with FAST_ROOM bytes after it, 0 when there is not
 * that room, -1 on error.
 */
static inline __attribute__((always_inline)) int
fast_blank(struct jreader *r, unsigned char **b, size_t *p,
    size_t *end)
{
	if (*end - *p <= FAST_ROOM)
		return 0;
	if ((*b)[*p] == ' ')
		++*p;
	if ((*b)[*p] <= ' ') {
		r->pos = *p;
		if (skip_ws(r) < 0)
			return -1;
		*b = r->buf;
		*p = r->pos;
		*end = r->end;
	}
	return *end - *p > FAST_ROOM;
}

/*
 * jr_value()'s loop for the tokens that need no refill, repair or message,
 * which are nearly all of them: punctuation, and strings, numbers and words
 * that end well inside the buffer.  Where it is in the grammar is where it
 * is in the code, so there is no state to switch on per token; r->state is
 * set only when it stops.  It stops before any other token, and
 * next_token() takes that one, so that each error, limit and repair is
 * still made in one place with its position.  open and *depth are
 * jr_value()'s containers, *key and *keylen its pending member name.
 * Returns 1 when the value is complete, 0 for next_token() to go on, -1 on
 * error.
 */
static int
fast_value(struct jreader *r, struct jdoc *d, uint32_t *open, int *depthp,
    uint32_t *key, uint32_t *keylen)
{
	unsigned char *b = r->buf;
	size_t p = r->pos, end = r->end, i, len, next;
	enum state st;
	enum jtype type;
	struct jnode *nd;
	int depth = *depthp, rc;
	unsigned char c;
	char top = r->stack[r->depth - 1];

	switch (r->state) {
	case S_COMMA_OR_END:
		goto comma_or_end;
	case S_FIRST_KEY_OR_END:
		goto first_key_or_end;
	case S_KEY:
		goto member;
	case S_FIRST_VALUE_OR_END:
		goto first_value_or_end;
	case S_VALUE:
		goto value;
	default:
		return 0;
	}

comma_or_end:
	st = S_COMMA_OR_END;
	if ((rc = fast_blank(r, &b, &p, &end)) <= 0)
		goto out;
	if (b[p] == ',') {
		p++;
		if (top == '{')
			goto member;
		goto value;
	}
	if (b[p] == (top == '{' ? '}' : ']'))
		goto close;
	goto stop;

first_key_or_end:
	st = S_FIRST_KEY_OR_END;
	if ((rc = fast_blank(r, &b, &p, &end)) <= 0)
		goto out;
	if (b[p] == '}')
		goto close;
	goto member_here;
member:
	st = S_KEY;
	if ((rc = fast_blank(r, &b, &p, &end)) <= 0)
		goto out;
member_here:
	/* A blank before the ':' is next_token()'s. */
	if (b[p] != '"' || (i = string_end(r, p + 1)) == 0 || b[i + 1] != ':')
		goto stop;
	*keylen = (uint32_t)(i - p - 1);
	*key = JTEXT | text_at(r, p + 1);
	b[i] = '\0';
	p = i + 2;
	goto value;

first_value_or_end:
	st = S_FIRST_VALUE_OR_END;
	if ((rc = fast_blank(r, &b, &p, &end)) <= 0)
		goto out;
	if (b[p] == ']')
		goto close;
	goto value_here;
value:
	st = S_VALUE;
	if ((rc = fast_blank(r, &b, &p, &end)) <= 0)
		goto out;
value_here:
	/* len is what add_node() would count. */
	len = 0;
	switch (c = b[p]) {
	case '{':
	case '[':
		if (r->depth == JR_MAX_DEPTH)
			goto stop;
		type = c == '{' ? JT_OBJECT : JT_ARRAY;
		next = p + 1;
		break;
	case '"':
		if ((i = string_end(r, p + 1)) == 0)
			goto stop;
		type = JT_STRING;
		len = i - p - 1;
		next = i + 1;
		break;
	case 't':
		if (memcmp(b + p, "true", 4) != 0 || !token_end(b[p + 4]))
			goto stop;
		type = JT_TRUE;
		next = p + 4;
		break;
	case 'f':
		if (memcmp(b + p, "false", 5) != 0 || !token_end(b[p + 5]))
			goto stop;
		type = JT_FALSE;
		next = p + 5;
		break;
	case 'n':
		if (memcmp(b + p, "null", 4) != 0 || !token_end(b[p + 4]))
			goto stop;
		type = JT_NULL;
		next = p + 4;
		break;
	default:
		if ((len = number_len(b + p)) == 0)
			goto stop;
		type = JT_NUMBER;
		next = p + len;
		break;
	}
	if (too_large(r, d, next, len))
		goto stop;
	if (d->n == d->cap) {
		d->cap = d->cap ? d->cap * 2 : 64;
		d->node = xreallocarray(d->node, d->cap, sizeof(*d->node));
	}
	d->node[open[depth - 1]].len++;
	nd = &d->node[d->n++];
	nd->type = (uint8_t)type;
	nd->next = d->n;
	nd->len = (uint32_t)len;
	nd->off = 0;
	nd->key = *key;
	nd->keylen = *keylen;
	nd->at = text_at(r, p);
	*key = JNOKEY;
	*keylen = 0;
	switch (type) {
	case JT_STRING:
		nd->off = JTEXT | (nd->at + 1);
		b[next - 1] = '\0';
		break;
	case JT_NUMBER:
		nd->off = arena_put_buf(d, b + p, len);
		break;
	case JT_OBJECT:
	case JT_ARRAY:
		r->stack[r->depth++] = top = (char)c;
		open[depth++] = d->n - 1;
		p = next;
		if (c == '{')
			goto first_key_or_end;
		goto first_value_or_end;
	default:
		break;
	}
	p = next;
	goto comma_or_end;

close:
	p++;
	d->node[open[--depth]].next = d->n;
	if (--r->depth > 0)
		top = r->stack[r->depth - 1];
	if (depth > 0)
		goto comma_or_end;
	if (r->depth == 0) {
		st = S_AFTER_TOP;
		r->top_end_line = r->line;
	} else
		st = S_COMMA_OR_END;
	rc = 1;
	goto out;
stop:
	rc = 0;
out:
	r->pos = p;
	r->state = st;
	*depthp = depth;
	return rc;
}

int
jr_value(struct jreader *r, struct jdoc *d)
{
	int rc;

	jdoc_reset(d);
	r->doc = d;
	mark_text(r);
	if ((rc = read_value(r, d)) == 1 && keep_text(r, r->pos) < 0)
		rc = -1;
	if (rc != 1)
		jdoc_reset(d);
	r->doc = NULL;
	return rc;
}

static int
read_value(struct jreader *r, struct jdoc *d)
{
	uint32_t open[JR_MAX_DEPTH];
	uint32_t key = JNOKEY, keylen = 0;
	int depth = 0, rc;
	struct jtoken t;
	enum jtok tok;
	enum jtype type;

	for (;;) {
		if (depth > 0 && (rc = fast_value(r, d, open, &depth, &key,
		    &keylen)) != 0)
			return rc;
		tok = next_token(r, &t);
		switch (tok) {
		case J_ERROR:
			return -1;
		case J_EOF:
			if (depth == 0)
				return 0;
			jr_fail(r, t.line, t.col, "unexpected end of input");
			return -1;
		case J_KEY:
			if (depth == 0) {
				jr_fail(r, t.line, t.col,
				    "expected a value, not a member name");
				return -1;
			}
			keylen = (uint32_t)t.len;
			key = text_or_arena(r, d, &t);
			continue;
		case J_END_OBJECT:
		case J_END_ARRAY:
			if (depth == 0)
				return 0;
			d->node[open[--depth]].next = d->n;
			if (depth == 0)
				return 1;
			continue;
		case J_BEGIN_OBJECT: type = JT_OBJECT; break;
		case J_BEGIN_ARRAY: type = JT_ARRAY; break;
		case J_STRING: type = JT_STRING; break;
		case J_NUMBER: type = JT_NUMBER; break;
		case J_TRUE: type = JT_TRUE; break;
		case J_FALSE: type = JT_FALSE; break;
		case J_NULL: type = JT_NULL; break;
		default:
			return -1;
		}
		if (depth > 0)
			d->node[open[depth - 1]].len++;
		if (add_node(r, d, &t, type, key, keylen) < 0)
			return -1;
		key = JNOKEY;
		keylen = 0;
		if (type == JT_OBJECT || type == JT_ARRAY)
			open[depth++] = d->n - 1;
		else if (depth == 0)
			return 1;
	}
}

int
jr_skip(struct jreader *r, int inside)
{
	int target = r->depth - (inside ? 1 : 0);
	struct jtoken t;
	enum jtok tok;

	for (;;) {
		tok = jr_next(r, &t);
		if (tok == J_ERROR)
			return -1;
		if (tok == J_EOF)
			return 0;
		if (tok == J_KEY)
			continue;
		if (r->depth <= target)
			return 0;
	}
}

int
jdoc_get(const struct jdoc *d, uint32_t obj, const char *key)
{
	size_t len = strlen(key);
	uint32_t i;
	int found = -1;

	if (obj >= d->n || d->node[obj].type != JT_OBJECT)
		return -1;
	for (i = obj + 1; i < d->node[obj].next; i = d->node[i].next)
		if (d->node[i].keylen == len &&
		    memcmp(jdoc_key(d, i), key, len) == 0)
			found = (int)i;
	return found;
}

/* The member's node index when it exists and has the given type. */
static int
typed(const struct jdoc *d, uint32_t obj, const char *key, enum jtype type)
{
	int i = jdoc_get(d, obj, key);

	return i >= 0 && d->node[i].type == type ? i : -1;
}

int
jdoc_get_str(const struct jdoc *d, uint32_t obj, const char *key,
    const char **s, size_t *len)
{
	int i = typed(d, obj, key, JT_STRING);

	if (i < 0)
		return -1;
	*s = jdoc_str(d, (uint32_t)i);
	if (len != NULL)
		*len = d->node[i].len;
	return 0;
}

int
jdoc_get_i64(const struct jdoc *d, uint32_t obj, const char *key, int64_t *v)
{
	int i = typed(d, obj, key, JT_NUMBER);

	if (i < 0)
		return -1;
	return jnum_int64(jdoc_str(d, (uint32_t)i), d->node[i].len, v);
}

int
jdoc_get_double(const struct jdoc *d, uint32_t obj, const char *key,
    double *v)
{
	int i = typed(d, obj, key, JT_NUMBER);

	if (i < 0)
		return -1;
	*v = jnum_double(jdoc_str(d, (uint32_t)i));
	return 0;
}

int
jdoc_get_ns(const struct jdoc *d, uint32_t obj, const char *key, int64_t *ns)
{
	int i = typed(d, obj, key, JT_NUMBER);

	if (i < 0)
		return -1;
	return jnum_us_to_ns(jdoc_str(d, (uint32_t)i), d->node[i].len, ns);
}

int
jdoc_error(const char *file, const struct jdoc *d, uint32_t i,
    const char *fmt, ...)
{
	char msg[256];
	struct jpos at;
	va_list ap;

	va_start(ap, fmt);
	vsnprintf(msg, sizeof(msg), fmt, ap);
	va_end(ap);
	at = jdoc_where(d, i);
	warnmsg("%s:%" PRIu64 ":%" PRIu64 ": %s", file, at.line, at.col, msg);
	return -1;
}

int
jnum_int64(const char *s, size_t len, int64_t *v)
{
	size_t i = 0;
	int neg = 0;
	int64_t acc = 0;

	if (i < len && s[i] == '-') {
		neg = 1;
		i++;
	}
	if (i == len)
		return -1;
	for (; i < len; i++) {
		if (!isdigit_((unsigned char)s[i]))
			return -1;
		/* Accumulate negatively: INT64_MIN has no positive twin. */
		if (__builtin_mul_overflow(acc, 10, &acc) ||
		    __builtin_sub_overflow(acc, s[i] - '0', &acc))
			return -1;
	}
	if (!neg) {
		if (acc == INT64_MIN)
			return -1;
		acc = -acc;
	}
	*v = acc;
	return 0;
}

/*
 * jnum_us_to_ns() for what traces hold, digits with a fraction or without:
 * at most 15 of them before the point, so that the nanoseconds fit in
 * int64 without a check.  Returns -1 for anything else, which the general
 * code takes.
 */
static int
us_to_ns_short(const char *s, size_t len, int64_t *ns)
{
	size_t i, nf = 0;
	int64_t acc = 0;

	for (i = 0; i < len && i < 16 && isdigit_((unsigned char)s[i]); i++)
		acc = acc * 10 + (s[i] - '0');
	if (i == 0 || i == 16)
		return -1;
	if (i < len && s[i] == '.') {
		/* Digits past the third decimal are truncated. */
		for (i++; i < len && isdigit_((unsigned char)s[i]); i++, nf++)
			if (nf < 3)
				acc = acc * 10 + (s[i] - '0');
		if (nf > 3)
			nf = 3;
	}
	if (i != len)
		return -1;
	for (; nf < 3; nf++)
		acc *= 10;
	*ns = acc;
	return 0;
}

int
jnum_us_to_ns(const char *s, size_t len, int64_t *ns)
{
	char digits[JR_MAX_NUMBER + 1];
	size_t i = 0, nd = 0;
	long exp10 = 3, e = 0;
	int neg = 0, eneg = 0;
	int64_t acc = 0;

	if (i < len && s[i] == '-') {
		neg = 1;
		i++;
	}
	if (us_to_ns_short(s + i, len - i, &acc) == 0) {
		*ns = neg ? -acc : acc;
		return 0;
	}
	for (; i < len && isdigit_((unsigned char)s[i]); i++)
		if (nd < JR_MAX_NUMBER)
			digits[nd++] = s[i];
	if (i < len && s[i] == '.')
		for (i++; i < len && isdigit_((unsigned char)s[i]); i++)
			if (nd < JR_MAX_NUMBER) {
				digits[nd++] = s[i];
				exp10--;
			}
	if (i < len && (s[i] == 'e' || s[i] == 'E')) {
		i++;
		if (i < len && (s[i] == '+' || s[i] == '-'))
			eneg = s[i++] == '-';
		for (; i < len && isdigit_((unsigned char)s[i]); i++)
			if (e < 100000)
				e = e * 10 + (s[i] - '0');
		exp10 += eneg ? -e : e;
	}
	if (i != len || nd == 0)
		return -1;
	/* Drop the digits below a nanosecond; then scale up what is left. */
	if (exp10 < 0)
		nd = (long)nd + exp10 > 0 ? nd - (size_t)-exp10 : 0;
	for (i = 0; i < nd; i++)
		if (__builtin_mul_overflow(acc, 10, &acc) ||
		    __builtin_add_overflow(acc, digits[i] - '0', &acc))
			return -1;
	for (; exp10 > 0 && acc != 0; exp10--)
		if (__builtin_mul_overflow(acc, 10, &acc))
			return -1;
	*ns = neg ? -acc : acc;
	return 0;
}

/*
 * Up to 15 digits make an integer that a double holds exactly, and so
 * does a power of ten up to 1e22: one product or quotient of the two is
 * then correctly rounded, strtod()'s value (Clinger's fast path).  Other
 * numbers go to strtod().
 */
double
jnum_double(const char *s)
{
	static const double pow10[] = {
		1e0, 1e1, 1e2, 1e3, 1e4, 1e5, 1e6, 1e7, 1e8, 1e9, 1e10, 1e11,
		1e12, 1e13, 1e14, 1e15, 1e16, 1e17, 1e18, 1e19, 1e20, 1e21,
		1e22
	};
	const char *p = s;
	uint64_t m = 0;
	int neg = 0, ndigits = 0, nd = 0, dot = 0, exp10 = 0, e = 0, eneg = 0;
	double d;

	if (*p == '-') {
		neg = 1;
		p++;
	}
	/* The digits, before and after the point: m and its scale. */
	for (;; p++) {
		if (*p == '.' && !dot) {
			dot = 1;
			continue;
		}
		if (*p < '0' || *p > '9')
			break;
		ndigits++;
		exp10 -= dot;
		if ((m = m * 10 + (uint64_t)(*p - '0')) != 0 && ++nd > 15)
			return strtod(s, NULL);
	}
	if (ndigits == 0)
		return strtod(s, NULL);
	if (*p == 'e' || *p == 'E') {
		p++;
		if (*p == '-' || *p == '+')
			eneg = *p++ == '-';
		for (; *p >= '0' && *p <= '9'; p++)
			if ((e = e * 10 + (*p - '0')) > 400)
				return strtod(s, NULL);
		exp10 += eneg ? -e : e;
	}
	if (*p != '\0' || exp10 < -22 || exp10 > 22)
		return strtod(s, NULL);
	d = (double)m;
	d = exp10 < 0 ? d / pow10[-exp10] : d * pow10[exp10];
	return neg ? -d : d;
}
