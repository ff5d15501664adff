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
 *     return -1;
 *  4. as analyze-profile reads a trace: with the event hook
 *     (extract_opts.event), the memory records through a text writer of
 *     their own and the kinds it skips not made.  Each event, typed, must
 *     be what trevent_from_doc() makes of pass 1's line (each member's
 *     node, below it the same nodes as the line's, the times, the rank),
 *     the other records as in pass 2, pass 1's lines of the kinds skipped
 *     passed over, and the memory records' text pass 1's memory lines;
 *  5. as pass 4, refusing the middle record, typed or not, as in pass 3.
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
#include <stddef.h>
#include <string.h>

#include "io/json.h"
#include "io/ndjson.h"
#include "trace/extract.h"
#include "trace/trevent.h"

struct pass {
	const char	*name;		/* for messages */
	struct ndin	*text;		/* pass 1's records, read back */
	struct jdoc	 want;
	struct jw	*out;		/* the records written out again */
	uint64_t	 records;
	uint64_t	 refuse_at;	/* pass 3: refuse this record (from 1) */
	/*
	 * Not NULL: pass 4's, pass 1's lines of the kinds skipped passed
	 * over, and of "memory" written here.
	 */
	struct jw	*apart;
	int		 bad;
};

/* What pass 4 skips. */
#define SKIP	(XR_INSTANT | XR_COUNTER | XR_FLOW | XR_PROCESS)

static FILE	*check_text;	/* pass 1's output */
static FILE	*check_again;	/* pass 2's records written out again */
static FILE	*check_memory;	/* pass 4's memory records */
static FILE	*check_memory_text;	/* pass 1's memory lines */

static int	take(void *, const struct jdoc *);
static int	take_event(void *, const struct trevent *);
static int	refuse(void *, const struct jdoc *);
static int	refuse_event(void *, const struct trevent *);
static void	rewrite(struct jw *, const struct jdoc *);
static void	mismatch(struct pass *, const char *, ...)
		    __attribute__((format(printf, 2, 3)));
static char	*slurp(FILE *, size_t *);
static int	next_want(struct pass *);
static void	against_text(struct pass *, const char *, const uint8_t *,
		    size_t, struct extract_opts *, struct jw *, int,
		    const char *);
static void	same_text(struct pass *, FILE *, FILE *, const char *);
static void	empty(FILE *);
static void	refusal(struct pass *, const char *, const uint8_t *, size_t,
		    struct extract_opts *, uint64_t);
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
	if (next_want(p) != 1)
		mismatch(p, "one more record than the text has");
	else if ((k = fuzz_diff_nodes(&p->want, d)) >= 0)
		mismatch(p, "node %ld differs (%u nodes read, %u built)", k,
		    p->want.n, d->n);
	rewrite(p->out, d);
	return 0;
}

/*
 * Where node ia of a and node ib of b begin subtrees that differ (the
 * offset of the first node that does), or -1: types, lengths, shapes,
 * texts, and member names below the roots, which are the members' own.
 */
static long
diff_tree(const struct jdoc *a, uint32_t ia, const struct jdoc *b,
    uint32_t ib)
{
	const struct jnode *x, *y;
	uint32_t k, n = a->node[ia].next - ia;

	if (b->node[ib].next - ib != n)
		return 0;
	for (k = 0; k < n; k++) {
		x = &a->node[ia + k];
		y = &b->node[ib + k];
		if (x->type != y->type || x->len != y->len ||
		    x->next - ia != y->next - ib ||
		    (k > 0 && ((x->key == JNOKEY) != (y->key == JNOKEY) ||
		    (x->key != JNOKEY && (x->keylen != y->keylen ||
		    memcmp(jdoc_key(a, ia + k), jdoc_key(b, ib + k),
		    x->keylen) != 0)))) ||
		    ((x->type == JT_STRING || x->type == JT_NUMBER) &&
		    memcmp(jdoc_str(a, ia + k), jdoc_str(b, ib + k),
		    x->len + 1) != 0))
			return (long)k;
	}
	return -1;
}

/* Pass 4's consumer of events: the typed event against the line's. */
static int
take_event(void *arg, const struct trevent *ev)
{
	static const struct {
		const char	*name;
		size_t		 off;
	} member[] = {
#define M(f)	{ #f, offsetof(struct trevent, f) }
		M(name), M(cat), M(pid), M(tid), M(stream), M(corr),
		M(external_id), M(device), M(bytes), M(wait_stream),
		M(wait_record), M(dims), M(types), M(strides), M(concrete),
		M(coll), M(group), M(group_size), M(in_nelems),
		M(out_nelems), M(dtype), M(args)
#undef M
	};
	struct pass *p = arg;
	struct trevent want;
	size_t i;
	long k;
	int a, b;

	p->records++;
	if (next_want(p) != 1) {
		mismatch(p, "one more event than the text has");
		return 0;
	}
	if (strcmp(ndin_kind(&p->want), "event") != 0) {
		mismatch(p, "an event where the text has \"%s\"",
		    ndin_kind(&p->want));
		return 0;
	}
	trevent_from_doc(&p->want, &want);
	for (i = 0; i < sizeof(member) / sizeof(member[0]); i++) {
		a = *(const int *)(const void *)((const char *)ev +
		    member[i].off);
		b = *(const int *)(const void *)((const char *)&want +
		    member[i].off);
		if ((a < 0) != (b < 0))
			mismatch(p, "%s is %s in the typed event",
			    member[i].name, a < 0 ? "absent" : "present");
		else if (a >= 0 && (k = diff_tree(ev->d, (uint32_t)a,
		    want.d, (uint32_t)b)) >= 0)
			mismatch(p, "%s differs at its node %ld",
			    member[i].name, k);
	}
	if (ev->ts_read != want.ts_read || ev->dur_read != want.dur_read ||
	    ev->ts_ns != want.ts_ns || ev->dur_ns != want.dur_ns)
		mismatch(p, "ts %" PRId64 " dur %" PRId64 ", the text's %"
		    PRId64 " and %" PRId64, ev->ts_ns, ev->dur_ns, want.ts_ns,
		    want.dur_ns);
	if (ev->has_rank != want.has_rank || ev->rank != want.rank)
		mismatch(p, "rank %" PRId64 ", the text's %" PRId64, ev->rank,
		    want.rank);
	return 0;
}

/* Pass 3's consumer, and pass 5's of the records that are not events. */
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

/* Pass 5's consumer of events. */
static int
refuse_event(void *arg, const struct trevent *ev)
{
	return refuse(arg, ev->d);
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

/* The next of pass 1's records that the pass at hand makes: ndin_next(). */
static int
next_want(struct pass *p)
{
	const char *kind;
	int rc;

	while ((rc = ndin_next(p->text, &p->want)) == 1 && p->apart != NULL) {
		kind = ndin_kind(&p->want);
		if (strcmp(kind, "memory") == 0)
			jw_jdoc_record(p->apart, &p->want);
		else if (strcmp(kind, "instant") != 0 &&
		    strcmp(kind, "counter") != 0 &&
		    strcmp(kind, "flow") != 0 && strcmp(kind, "process") != 0)
			break;
	}
	return rc;
}

/*
 * Extracts path (or data, as stdin) through take, and its events through
 * o's hook where it has one, each checked against the next record of
 * pass 1's text, with apart as in struct pass; the extraction must return
 * rc1, as pass 1 did.
 */
static void
against_text(struct pass *p, const char *path, const uint8_t *data,
    size_t size, struct extract_opts *o, struct jw *apart, int rc1,
    const char *as)
{
	struct jw *w;
	char name[64];
	int rc;

	memset(p, 0, sizeof(*p));
	p->apart = apart;
	p->name = path != NULL ? path : "<stdin>";
	snprintf(name, sizeof(name), "/proc/self/fd/%d", fileno(check_text));
	if ((p->text = ndin_open(name)) == NULL) {
		perror(name);
		abort();
	}
	p->out = jw_new(check_again);
	o->hook_arg = p;
	REWIND(path, data, size);
	w = jw_new_doc(take, p);
	rc = extract_trace(path, w, o);
	jw_free(w);
	jw_free(p->out);
	if (rc != rc1)
		mismatch(p, "text gives %d, %s %d", rc1, as, rc);
	if (!p->bad && next_want(p) != 0)
		mismatch(p, "the text has more records");
	ndin_close(p->text);
	jdoc_free(&p->want);
}

/* Extracts again, refusing record refuse_at (from 1), typed or not. */
static void
refusal(struct pass *p, const char *path, const uint8_t *data, size_t size,
    struct extract_opts *o, uint64_t refuse_at)
{
	struct jw *w;
	int rc;

	p->refuse_at = refuse_at;
	p->records = 0;
	o->hook_arg = p;
	REWIND(path, data, size);
	w = jw_new_doc(refuse, p);
	rc = extract_trace(path, w, o);
	/* A hook that refuses stops the read, not the writer. */
	if (rc != -1 || (o->event == NULL && !jw_failed(w)))
		mismatch(p, "a refused record gives %d", rc);
	jw_free(w);
}

/* Whether files a and b, written by the pass at hand, hold the same bytes. */
static void
same_text(struct pass *p, FILE *a, FILE *b, const char *what)
{
	char *x, *y;
	size_t xlen, ylen;

	x = slurp(a, &xlen);
	y = slurp(b, &ylen);
	if (!p->bad && (xlen != ylen || memcmp(x, y, xlen) != 0))
		mismatch(p, "%s", what);
	free(x);
	free(y);
}

/* Empties f, a file of the passes'. */
static void
empty(FILE *f)
{
	if (ftruncate(fileno(f), 0) == -1) {
		perror("ftruncate");
		abort();
	}
	rewind(f);
}

/*
 * Runs the five passes on path, or on data as stdin when path is NULL.
 * Returns 0, or -1 after reporting a difference on stderr.
 */
static int
trace_check(const char *path, const uint8_t *data, size_t size, int args)
{
	struct extract_opts o = { .args = args },
	    typed = { .args = args, .event = take_event, .skip = SKIP };
	struct pass p;
	struct jw *w, *apart;
	int rc1;

	if (check_text == NULL) {
		check_text = fuzz_memfile("text");
		check_again = fuzz_memfile("again");
		check_memory = fuzz_memfile("memory");
		check_memory_text = fuzz_memfile("memory-text");
	}
	empty(check_text);
	empty(check_again);
	empty(check_memory);
	empty(check_memory_text);

	REWIND(path, data, size);
	w = jw_new(check_text);
	rc1 = extract_trace(path, w, &o);
	jw_free(w);

	against_text(&p, path, data, size, &o, NULL, rc1, "documents");
	same_text(&p, check_text, check_again,
	    "the documents written out differ from the text");
	if (!p.bad && p.records > 0)
		refusal(&p, path, data, size, &o, p.records / 2 + 1);
	if (p.bad)
		return -1;

	typed.memory = jw_new(check_memory);
	apart = jw_new(check_memory_text);
	against_text(&p, path, data, size, &typed, apart, rc1,
	    "typed events");
	jw_free(typed.memory);
	jw_free(apart);
	p.apart = NULL;
	same_text(&p, check_memory, check_memory_text,
	    "the memory records written apart differ from the text's");
	if (!p.bad && p.records > 0) {
		typed.event = refuse_event;
		typed.memory = jw_new(check_memory);
		refusal(&p, path, data, size, &typed, p.records / 2 + 1);
		jw_free(typed.memory);
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
