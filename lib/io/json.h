/*
 * json: a streaming JSON reader with bounded memory, for inputs of any
 * size (multi-GB traces, hundreds of MB of snapshot, NDJSON streams).
 *
 * Two levels share one reader:
 *  - jr_next() pulls one token at a time; its string is borrowed and valid
 *    only until the next call on the same reader.
 *  - jr_value() reads the next complete value into a jdoc, a flat array of
 *    nodes whose strings live in the jdoc's own memory (most of them where
 *    they lie in its copy of the value's text); the jdoc stays valid until
 *    it is reused or freed.  jr_skip() reads past the next value.
 * Memory is one input buffer, one string scratch and whatever the caller's
 * jdocs hold; all of it is limited (JR_MAX_*), so hostile input is refused
 * with a message instead of exhausting memory.
 *
 * Input is repaired, not refused, in the ways real PyTorch traces need and
 * counted in struct jrepairs: raw control characters inside strings are kept
 * (the writer escapes them), invalid UTF-8 becomes U+FFFD, a bare N/A value
 * becomes the string "N/A", and NaN/Infinity become null.  Everything else
 * that is not RFC 8259 JSON is an error with the line and column (1-based,
 * the column in bytes) of the offending token.
 *
 * Strings are UTF-8 and hold no NUL, so that every consumer can take them
 * as C strings: U+0000 (an escaped "\u0000", or a raw NUL byte inside a
 * string) is read as the two bytes JNUL, C0 80, the "modified UTF-8" of
 * Java's DataInput.  No valid UTF-8 holds them and the reader makes raw C0
 * 80 in its input U+FFFD, so they stand for U+0000 alone: names that
 * differ only after a NUL stay whole and distinct.  lib/io/ndjson writes
 * them back as \u0000, and lib/report/jqx turns them into the U+0000 that
 * jq's strings hold and back.
 *
 * Ownership: jr_open() takes the gzin; jr_close() closes it.  The name is
 * borrowed from the gzin.
 *
 * Strings and blanks are scanned a block at a time by the widest kernel the
 * CPU runs (AVX2, SSE2, or plain C words); $MRP_SIMD set to "avx2", "sse2"
 * or "c" forces one, for testing each on one machine, and the first reader
 * opened dies when it names none this CPU runs.
 */
#ifndef JSON_H
#define JSON_H

#include <stddef.h>
#include <stdint.h>
#include <string.h>

#include "io/gzin.h"

#define JR_MAX_DEPTH	512		/* nesting levels */
#define JR_MAX_STRING	(16u << 20)	/* bytes in one string */
#define JR_MAX_NUMBER	256		/* characters in one number */
#define JR_MAX_VALUE	(64u << 20)	/* bytes of a jdoc: text, arena, nodes */

enum jtok {
	J_ERROR = -1,
	J_EOF = 0,
	J_BEGIN_OBJECT,
	J_END_OBJECT,
	J_BEGIN_ARRAY,
	J_END_ARRAY,
	J_KEY,
	J_STRING,
	J_NUMBER,
	J_TRUE,
	J_FALSE,
	J_NULL
};

/* Node kinds of a jdoc; containers and scalars. */
enum jtype {
	JT_NULL,
	JT_FALSE,
	JT_TRUE,
	JT_NUMBER,
	JT_STRING,
	JT_ARRAY,
	JT_OBJECT
};

/* What kind of error stopped the reader. */
enum jerr {
	JE_NONE,
	JE_SYNTAX,	/* not JSON, or JSON broken off */
	JE_LIMIT,	/* a JR_MAX_* limit was hit */
	JE_IO,		/* read error, truncated or corrupt gzip */
	JE_PICKLE,	/* the input is a Python pickle */
	JE_SQLITE	/* the input is an SQLite database */
};

/* Flags for jr_open(). */
#define JR_STREAM	0x1	/* many top-level values, one per line */
#define JR_OPEN_ARRAY	0x2	/* a top-level array may lack its ']' */

struct jrepairs {
	uint64_t	control;	/* raw control characters in strings */
	uint64_t	utf8;		/* invalid UTF-8 sequences */
	uint64_t	na;		/* bare N/A values */
	uint64_t	nonfinite;	/* NaN, Infinity, -Infinity */
	uint64_t	first_line;	/* where the first repair was */
	uint64_t	first_col;
};

struct jreader;

/* A token from jr_next(); s and len are borrowed. */
struct jtoken {
	enum jtok	 type;
	const char	*s;	/* key or string (UTF-8), number text */
	size_t		 len;
	uint64_t	 off;	/* input offset of its first byte */
	uint64_t	 line;
	uint64_t	 col;
};

struct jnode {
	uint8_t		type;	/* enum jtype */
	uint32_t	next;	/* index just past this value's subtree */
	uint32_t	len;	/* string/number bytes; children of a container */
	uint32_t	off;	/* string/number text: see jdoc_str() */
	uint32_t	key;	/* member name (see jdoc_key()), or JNOKEY */
	uint32_t	keylen;
	uint32_t	at;	/* where the value starts: see jdoc_where() */
};

/* A line and column (1-based, the column in bytes), or 0:0 for none. */
struct jpos {
	uint64_t	line;
	uint64_t	col;
};

#define JNOKEY	UINT32_MAX

/* U+0000 in a string the reader returns; see the top of this file. */
#define JNUL	"\xc0\x80"

/*
 * A parsed value: node 0 is the root; the children of a container at i are
 * i + 1, then each child's next, up to node[i].next.  Strings and number
 * texts are NUL-terminated.
 *
 * jr_value() copies the value's input text to text as it reads, a block
 * at a time, and leaves each string without an escape where it lies in that
 * copy, its closing quote made a NUL: its off or key is then JTEXT and the
 * offset in the text.  Numbers, and strings it had to rewrite (escapes,
 * repairs), are copied to the arena.  A node's at is its offset in the
 * text, which starts at line and column start; the line and column of a
 * node are counted from there only when asked for.  A jdoc made another
 * way (the writer's) has no text and keeps its nodes' positions in where,
 * at being the index.
 */
struct jdoc {
	struct jnode	*node;
	uint32_t	 n, cap;
	char		*arena;
	uint32_t	 used, size;
	char		*text;
	uint32_t	 textlen, textsize;
	struct jpos	 start;
	struct jpos	*where;
	uint32_t	 nwhere, wcap;
};

/* The bit of off and key that places them in the text; see struct jdoc. */
#define JTEXT	0x80000000u

/* Takes ownership of in; flags are JR_* above. */
struct jreader *jr_open(struct gzin *in, int flags);

/* Closes the input and frees everything; NULL is allowed. */
void jr_close(struct jreader *);

/* The input's name for messages; borrowed. */
const char *jr_name(const struct jreader *);

/* Pulls the next token; J_EOF once the input is done, J_ERROR on error. */
enum jtok jr_next(struct jreader *, struct jtoken *);

/*
 * Reads the value that starts with the next token into doc (reset first).
 * Returns 1 on success, 0 at the end of the input (or of the enclosing
 * container, whose closing token is consumed), -1 on error.
 */
int jr_value(struct jreader *, struct jdoc *doc);

/*
 * Reads past the next value without keeping it; after a J_BEGIN_* token has
 * been pulled, pass inside = 1 to read past the rest of that container.
 * Returns 0, or -1 on error.
 */
int jr_skip(struct jreader *, int inside);

/* The error message (no position), its kind and where it happened. */
const char *jr_error(const struct jreader *);
enum jerr jr_errkind(const struct jreader *);
uint64_t jr_errline(const struct jreader *);
uint64_t jr_errcol(const struct jreader *);

/* Sets an error at the given position, for callers that find the data bad. */
__attribute__((format(printf, 4, 5)))
void jr_fail(struct jreader *, uint64_t line, uint64_t col,
    const char *fmt, ...);

/* 1 when a JR_OPEN_ARRAY input ended without its ']'. */
int jr_unclosed(const struct jreader *);

/* Repairs made so far; borrowed. */
const struct jrepairs *jr_repairs(const struct jreader *);

/* The bytes read so far, after decompression. */
uint64_t jr_offset(const struct jreader *);

/* Empties a jdoc for reuse, keeping its memory. */
void jdoc_reset(struct jdoc *);

/* Frees a jdoc's memory; the struct itself is the caller's. */
void jdoc_free(struct jdoc *);

/* Makes dst a copy of src, reusing dst's memory. */
void jdoc_copy(struct jdoc *dst, const struct jdoc *src);

/* Where node i starts in the input. */
struct jpos jdoc_where(const struct jdoc *, uint32_t i);

/* Where nodes i to i + n - 1 start, into pos[0] to pos[n - 1]. */
void jdoc_where_all(const struct jdoc *, uint32_t i, uint32_t n,
    struct jpos *pos);

/* The member of object node obj named key (the last one, if repeated). */
int jdoc_get(const struct jdoc *, uint32_t obj, const char *key);

/*
 * Typed member lookups on object node obj.  Each returns -1 when the member
 * is absent or of another type (or, for integers, not integral or beyond
 * int64), and 0 with the value stored otherwise.
 */
int jdoc_get_str(const struct jdoc *, uint32_t obj, const char *key,
    const char **s, size_t *len);
int jdoc_get_i64(const struct jdoc *, uint32_t obj, const char *key,
    int64_t *v);
int jdoc_get_double(const struct jdoc *, uint32_t obj, const char *key,
    double *v);
/* A number of microseconds as integral nanoseconds (jnum_us_to_ns). */
int jdoc_get_ns(const struct jdoc *, uint32_t obj, const char *key,
    int64_t *ns);

/*
 * Reports a data error at node i of d as "<prog>: file:line:col: message"
 * and returns -1, so that callers can "return jdoc_error(...)".
 */
__attribute__((format(printf, 4, 5)))
int jdoc_error(const char *file, const struct jdoc *d, uint32_t i,
    const char *fmt, ...);

/* A NUL-terminated string of d at off, a node's off or key; borrowed. */
static inline const char *
jdoc_at(const struct jdoc *d, uint32_t off)
{
	return off & JTEXT ? d->text + (off & ~JTEXT) : d->arena + off;
}

/*
 * The text of a string or number node; borrowed.  Inline, as this and
 * jdoc_key() are called for every member a tool looks at.
 */
static inline const char *
jdoc_str(const struct jdoc *d, uint32_t i)
{
	return jdoc_at(d, d->node[i].off);
}

/* The name of a member node; borrowed. */
static inline const char *
jdoc_key(const struct jdoc *d, uint32_t i)
{
	return d->node[i].key == JNOKEY ? "" : jdoc_at(d, d->node[i].key);
}

/*
 * Whether member node i of d is named lit, a string literal: the length
 * first, as a scan of every member's name for a few wants.
 */
#define JKEY_IS(d, i, lit) ((d)->node[i].keylen == sizeof(lit) - 1 && \
	memcmp(jdoc_key(d, i), lit, sizeof(lit) - 1) == 0)

/*
 * Parses an integral JSON number text into *v.  Returns 0, or -1 when it has
 * a fraction or exponent or lies beyond int64.
 */
int jnum_int64(const char *s, size_t len, int64_t *v);

/*
 * Parses a JSON number text of microseconds into integral nanoseconds,
 * exactly: digits past the third decimal are truncated, never rounded
 * through a double.  Returns 0, or -1 when the result lies beyond int64.
 */
int jnum_us_to_ns(const char *s, size_t len, int64_t *ns);

/*
 * The index of the first byte at or after i that is '"', '\\', a control
 * character or non-ASCII, or end; for scanning strings fast.
 */
size_t json_scan(const unsigned char *b, size_t i, size_t end);

/*
 * The length of the valid UTF-8 sequence at b (1 to 4), 0 when it is
 * invalid, or -1 when it may be valid but n is too short to tell.
 */
int json_utf8_len(const unsigned char *b, size_t n);

/* The number's value as a double (strtod). */
double jnum_double(const char *s);

#endif
