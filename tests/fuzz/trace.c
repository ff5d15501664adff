/*
 * trace: lib/trace/extract on any input, through both of the writer's backends.
 *
 * Each input is extracted three times, on stdin as tr-extract reads it:
 *  1. to text, as tr-extract writes it;
 *  2. to documents (jw_new_doc), each record checked as it comes against
 *     the next line of pass 1 read back by ndin_next(): the same nodes
 *     (type, len, next, member names, string and number texts), and
 *     written out again with jw_jdoc(), one record a line, which must give
 *     pass 1's text byte for byte; both passes must return the same;
 *  3. to documents again, the consumer refusing the middle record: the
 *     writer must hand over no record after it and extract_trace() must
 *     return -1.
 * A difference aborts, which libFuzzer reports.  An odd-sized input also
 * sets -a (args copied whole).  The input is a trace file as it is: a
 * crash replays with "tr-extract FILE".
 *
 * tests/bin/trace-check.c includes this file to run the same check on
 * named files, for tests/tr-extract.bats.
 */
#include "fuzz.h"

#include <inttypes.h>
#include <stdarg.h>
#include <string.h>

#include "io/json.h"
#include "io/ndjson.h"
#include "trace/extract.h"

struct pass {
	const char	*name;		/* for messages */
	struct ndin	*text;		/* pass 1's records, read back */
	struct jdoc	 want;
	struct jw	*out;		/* the records written out again */
	uint64_t	 records;
	uint64_t	 refuse_at;	/* pass 3: refuse this record (from 1) */
	int		 bad;
};

static FILE	*check_text;	/* pass 1's output */
static FILE	*check_again;	/* pass 2's records written out again */

static int	take(void *, const struct jdoc *);
static int	refuse(void *, const struct jdoc *);
static void	rewrite(struct jw *, const struct jdoc *);
static void	mismatch(struct pass *, const char *, ...)
		    __attribute__((format(printf, 2, 3)));
static char	*slurp(FILE *, size_t *);
static int	trace_check(const char *, const uint8_t *, size_t, int);

static void
mismatch(struct pass *p, const char *fmt, ...)
{
	va_list ap;

	fprintf(stderr, "%s: %s: record %" PRIu64 ": ", getprogname(),
	    p->name, p->records);
	va_start(ap, fmt);
	vfprintf(stderr, fmt, ap);
	va_end(ap);
	fputc('\n', stderr);
	p->bad = 1;
}

/* A record as one line: its members after "kind", each by jw_jdoc(). */
static void
rewrite(struct jw *w, const struct jdoc *d)
{
	uint32_t c;

	jw_crecord(w, jdoc_str(d, 1));
	for (c = d->node[1].next; c < d->node[0].next; c = d->node[c].next) {
		jw_ckey(w, jdoc_key(d, c));
		jw_jdoc(w, d, c);
	}
	jw_end(w);
}

/* Pass 2's consumer. */
static int
take(void *arg, const struct jdoc *d)
{
	struct pass *p = arg;
	struct jpos root, at;
	uint32_t i;
	long k;

	p->records++;
	if (d->n < 2 || d->node[0].type != JT_OBJECT ||
	    d->node[1].type != JT_STRING || d->node[1].keylen != 4 ||
	    strcmp(jdoc_key(d, 1), "kind") != 0) {
		mismatch(p, "not an object that starts with \"kind\"");
		return 0;
	}
	/*
	 * The writer's own nodes take the first copied node's position, and
	 * the copies come from a file, at line 1 or later: a record is placed
	 * all over or (nothing copied) not at all.
	 */
	root = jdoc_where(d, 0);
	for (i = 1; i < d->n; i++)
		if (((at = jdoc_where(d, i)).line == 0) != (root.line == 0))
			mismatch(p, "node %u is at %" PRIu64 ":%" PRIu64
			    ", the record at %" PRIu64 ":%" PRIu64, i,
			    at.line, at.col, root.line, root.col);
	if (ndin_next(p->text, &p->want) != 1)
		mismatch(p, "one more record than the text has");
	else if ((k = fuzz_diff_nodes(&p->want, d)) >= 0)
		mismatch(p, "node %ld differs (%u nodes read, %u built)", k,
		    p->want.n, d->n);
	rewrite(p->out, d);
	return 0;
}

/* Pass 3's consumer. */
static int
refuse(void *arg, const struct jdoc *d)
{
	struct pass *p = arg;

	(void)d;
	if (p->records++ == p->refuse_at - 1)
		return -1;
	if (p->records > p->refuse_at)
		mismatch(p, "handed over after a refusal");
	return 0;
}

/* The whole of f, NUL-terminated; the caller frees it. */
static char *
slurp(FILE *f, size_t *len)
{
	long n;
	char *b;

	if (fflush(f) == EOF || (n = ftell(f)) < 0 ||
	    (b = malloc((size_t)n + 1)) == NULL ||
	    pread(fileno(f), b, (size_t)n, 0) != (ssize_t)n) {
		perror("slurp");
		abort();
	}
	b[n] = '\0';
	*len = (size_t)n;
	return b;
}

/* The input on stdin again, when path is NULL. */
#define REWIND(path, data, size) do {					\
	if ((path) == NULL)						\
		fuzz_stdin((data), (size));				\
} while (0)

/*
 * Runs the three passes on path, or on data as stdin when path is NULL.
 * Returns 0, or -1 after reporting a difference on stderr.
 */
static int
trace_check(const char *path, const uint8_t *data, size_t size, int args)
{
	struct extract_opts o = { .args = args };
	struct pass p;
	struct jw *w;
	char name[64], *a, *b;
	size_t alen, blen;
	int rc1, rc2, rc3;

	if (check_text == NULL) {
		check_text = fuzz_memfile("text");
		check_again = fuzz_memfile("again");
	}
	if (ftruncate(fileno(check_text), 0) == -1 ||
	    ftruncate(fileno(check_again), 0) == -1) {
		perror("ftruncate");
		abort();
	}
	rewind(check_text);
	rewind(check_again);

	REWIND(path, data, size);
	w = jw_new(check_text);
	rc1 = extract_trace(path, w, &o);
	jw_free(w);

	memset(&p, 0, sizeof(p));
	p.name = path != NULL ? path : "<stdin>";
	snprintf(name, sizeof(name), "/proc/self/fd/%d", fileno(check_text));
	if ((p.text = ndin_open(name)) == NULL) {
		perror(name);
		abort();
	}
	p.out = jw_new(check_again);
	REWIND(path, data, size);
	w = jw_new_doc(take, &p);
	rc2 = extract_trace(path, w, &o);
	jw_free(w);
	jw_free(p.out);
	if (rc1 != rc2)
		mismatch(&p, "text gives %d, documents %d", rc1, rc2);
	if (!p.bad && ndin_next(p.text, &p.want) != 0)
		mismatch(&p, "the text has more records");
	ndin_close(p.text);
	jdoc_free(&p.want);
	a = slurp(check_text, &alen);
	b = slurp(check_again, &blen);
	if (!p.bad && (alen != blen || memcmp(a, b, alen) != 0))
		mismatch(&p, "the documents written out differ from the"
		    " text");
	free(a);
	free(b);

	if (!p.bad && p.records > 0) {
		p.refuse_at = p.records / 2 + 1;
		p.records = 0;
		REWIND(path, data, size);
		w = jw_new_doc(refuse, &p);
		rc3 = extract_trace(path, w, &o);
		if (rc3 != -1 || !jw_failed(w))
			mismatch(&p, "a refused record gives %d", rc3);
		jw_free(w);
	}
	return p.bad ? -1 : 0;
}

#ifndef TRACE_CHECK_MAIN
int
LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	fuzz_init("tr-extract");
	if (trace_check(NULL, data, size, (int)(size & 1)) < 0)
		abort();
	return 0;
}
#endif
