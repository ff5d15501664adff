/*
 * ndjson: the one writer of output records.
 *
 * Output is compact JSON, one record per line, deterministic: members come
 * in the order the caller writes them, numbers are printed the same way
 * every time, and strings are escaped as RFC 8259 requires, with invalid
 * UTF-8 replaced by U+FFFD so that every line is valid JSON.  JNUL, the
 * reader's U+0000 (see json.h), and a NUL byte are both written \u0000;
 * a document writer holds both as JNUL, as the reader would.  Every record
 * starts with jw_record(), which writes its "kind".
 *
 * A writer has one of two backends: text to a FILE (jw_new), or documents
 * handed to a function as each record ends (jw_new_doc), so that a stage
 * run in-process gives its consumer the records without printing and
 * parsing them again.
 *
 * The text writer buffers output and writes whole records; a failed write is
 * fatal (exit 1, "<prog>: <stdout>: <reason>", or the name jw_name() gave),
 * so no tool carries on writing into a full disk.  The FILE is borrowed; jw_free() flushes but
 * does not close it (finish() does).  String arguments are borrowed for the
 * duration of the call.
 *
 * The hot path is the writing of what a reader read: jw_key() and
 * jw_record() take string literals and write them as one fragment built at
 * compile time, and strings a jdoc holds (jw_jdoc(), jw_string_valid()) are
 * not checked for UTF-8 a second time, since the reader already repaired
 * them.  Their clean spans (no byte that needs an escape) are copied whole.
 */
#ifndef NDJSON_H
#define NDJSON_H

#include <stdint.h>
#include <stdio.h>

#include "io/json.h"

struct jw;

/* A writer of NDJSON text to fp. */
struct jw *jw_new(FILE *fp);

/* Names fp (borrowed) in the message of a failed write. */
void jw_name(struct jw *, const char *name);

/*
 * A writer of documents instead of text, for a consumer in the same
 * process: each record (jw_record() or jw_crecord() up to jw_end()) is
 * built as the jdoc that ndin_next() would read from the line the text
 * writer writes (the same node types, member names in the same order,
 * string bytes with jw_string()'s repairs made, number texts, len and
 * next), and jw_end() hands it to fn(arg, doc); no text is made.  Every
 * jw_* call works as in text mode, and a record nested too deep is fatal
 * alike.
 *
 * Nodes that jw_jdoc() copies keep their source's line and col, so that
 * jdoc_error() on them points into the file the source was read from;
 * the nodes the writer makes itself take those of the record's first
 * copied node, or 0 and 0 when it has none.
 *
 * The doc passed to fn is the writer's, valid only during the call, and
 * its memory is reused for the next record.  fn returns 0, or -1 to
 * refuse the record (having reported why): the writer then drops every
 * later record unseen, and jw_failed() says so.
 */
struct jw *jw_new_doc(int (*fn)(void *arg, const struct jdoc *doc),
    void *arg);

/* 1 once a document writer's fn refused a record; 0 for a text writer. */
int jw_failed(const struct jw *);

/* Flushes what is buffered and frees the writer; NULL is allowed. */
void jw_free(struct jw *);

/* Writes buffered output now; nothing for a document writer. */
void jw_flush(struct jw *);

/*
 * Begins a record: '{' and "kind":kind.  jw_end() closes it.  kind must be
 * a string literal (anything else does not compile) that needs no escape:
 * no '"', '\\' or control character, which in C source all take a
 * backslash or are a raw tab (tests/ndjson.bats holds the sources to that).
 */
#define jw_record(w, kind) \
	jw_record_frag((w), "{\"kind\":\"" kind "\"", \
	    sizeof("{\"kind\":\"" kind "\"") - 1)

/* jw_record() for a kind known only at run time: checked and escaped. */
void jw_crecord(struct jw *, const char *kind);

/* Closes the record's object and ends the line. */
void jw_end(struct jw *);

void jw_begin_object(struct jw *);
void jw_end_object(struct jw *);
void jw_begin_array(struct jw *);
void jw_end_array(struct jw *);
/*
 * A line break before the next value of the array being written, after
 * its comma: for a long array (a trace's events) that line tools read one
 * value a line.  A document writer has no lines and ignores it.
 */
void jw_break(struct jw *);

/*
 * A member name; the value follows with one of the calls below.  Like
 * jw_record()'s kind, k must be a string literal that needs no escape.
 */
#define jw_key(w, k)	jw_put_key((w), JW_KEY(k))

/*
 * The same name as a value, for helpers that take the name as an argument:
 * put(w, JW_KEY("bytes"), ...) and then jw_put_key(w, key).  frag is the
 * name quoted and followed by ':', len its length.
 */
struct jwkey {
	const char	*frag;
	size_t		 len;
};
#define JW_KEY(k) \
	((struct jwkey){ "\"" k "\":", sizeof("\"" k "\":") - 1 })
void jw_put_key(struct jw *, struct jwkey);

/* A member name known only at run time: checked and escaped. */
void jw_ckey(struct jw *, const char *);
/* n bytes of k as jw_ckey(), for a name that may hold a NUL (jq's). */
void jw_ckey_sized(struct jw *, const char *k, size_t n);

/* What jw_record() calls: n bytes of frag, written as they are. */
void jw_record_frag(struct jw *, const char *frag, size_t n);

/* n bytes of s; invalid UTF-8 becomes U+FFFD, JNUL and NUL \u0000. */
void jw_string(struct jw *, const char *, size_t);
void jw_cstring(struct jw *, const char *);
/*
 * n bytes of s, which must be valid UTF-8, as every string a jdoc holds is
 * (the reader repairs what is not): no sequence is checked again, only the
 * bytes that need an escape are looked at.  Bytes from anywhere else (a
 * file name, an argument, text cut at a byte count) go to jw_string().
 */
void jw_string_valid(struct jw *, const char *, size_t);
/* s, or null when s is NULL. */
void jw_cstring_or_null(struct jw *, const char *);
void jw_int(struct jw *, int64_t);
/* v, or null when known is 0: a count or time the input may not give. */
void jw_int_or_null(struct jw *, int known, int64_t v);
void jw_uint(struct jw *, uint64_t);
/* The shortest text that reads back as the same double; null if not finite. */
void jw_double(struct jw *, double);
/*
 * n / d as jw_double() writes it, or null when d is not above 0 (a share
 * of nothing, a rate over no time).  Counts are divided as doubles.
 */
void jw_ratio(struct jw *, double n, double d);
/*
 * jw_ratio() rounded to three decimals (round-half-away of n / d * 1000,
 * over 1000), the precision of the operator tables' derived numbers.
 */
void jw_ratio3(struct jw *, double n, double d);
/* A number's JSON text as the reader gave it, kept digit for digit. */
void jw_number(struct jw *, const char *, size_t);
void jw_bool(struct jw *, int);
void jw_null(struct jw *);
/* Nanoseconds written as microseconds with at most three decimals. */
void jw_us(struct jw *, int64_t ns);
/* Node i of doc and everything below it; its strings as jw_string_valid(). */
void jw_jdoc(struct jw *, const struct jdoc *, uint32_t i);
/*
 * The member as, with node i of doc as jw_jdoc() writes it; nothing when
 * i is negative: a member the source did not have.
 */
void jw_member(struct jw *, const struct jdoc *, int i, struct jwkey as);
/*
 * A whole record read or built elsewhere (an object at node 0 with its
 * "kind" first), passed on as it is: one line of text, or the same
 * document handed to a document writer's fn.
 */
void jw_jdoc_record(struct jw *, const struct jdoc *);

/*
 * Reading records: ndin reads NDJSON (plain or gzip) one record per line
 * into a caller's jdoc.  Each record must be an object with a string
 * "kind"; anything else is a data error.  Errors are reported on stderr as
 * "<prog>: <file>:<line>:<col>: <message>" by ndin_next() itself.
 */
struct ndin;

/* Opens path, or stdin for NULL or "-"; NULL with errno set on failure. */
struct ndin *ndin_open(const char *path);

/*
 * Reads the next record into doc.  Returns 1, 0 at the end of the input, or
 * -1 after reporting an error.
 */
int ndin_next(struct ndin *, struct jdoc *doc);

/* The record's kind; borrowed from doc. */
const char *ndin_kind(const struct jdoc *doc);

/* The input's name for messages ("<stdin>" for stdin); borrowed. */
const char *ndin_name(const struct ndin *);

/* Where the last record read starts. */
uint64_t ndin_line(const struct ndin *);

/* How many NaN and Infinity values were read so far, each as null. */
uint64_t ndin_nonfinite(const struct ndin *);

/* Closes the input; NULL is allowed. */
void ndin_close(struct ndin *);

#endif
