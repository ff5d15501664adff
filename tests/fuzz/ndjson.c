/*
 * ndjson: the record reader (ndin) and the writer (jw) against each other.
 *
 * Each record ndin_next() accepts is written back with the writer, member
 * by member (jw_ckey, jw_jdoc), followed by one more member holding every
 * number of the record as jw_double(), jw_int() and jw_us() write it.  The
 * output is then read beside the input: each written line must give the
 * same members, the same strings and the same number texts, and each
 * number must convert back to the value that was written: what a tool
 * writes, the next tool reads unchanged.  The same records are then built
 * as documents (jw_new_doc), and each must have the nodes that reading
 * its written line gives: what a stage hands over in-process is what the
 * next stage would have read.
 */
#include "fuzz.h"

#include <stdio.h>
#include <string.h>

#include "io/json.h"
#include "io/ndjson.h"

static FILE	*out;		/* the written record */
static char	 outpath[64];	/* out again, for ndin_open() */

/* The document writer's consumer: the written lines, read back. */
struct docs {
	struct ndin	*again;
	struct jdoc	 back;
};

static int	take(void *, const struct jdoc *);

/* Node a of x and node b of y hold the same value. */
static int
same(const struct jdoc *x, uint32_t a, const struct jdoc *y, uint32_t b)
{
	const struct jnode *p = &x->node[a], *q = &y->node[b];
	uint32_t i, j;

	if (p->type != q->type)
		return 0;
	switch (p->type) {
	case JT_NUMBER:
	case JT_STRING:
		return p->len == q->len &&
		    memcmp(jdoc_str(x, a), jdoc_str(y, b), p->len) == 0;
	case JT_ARRAY:
	case JT_OBJECT:
		if (p->len != q->len)
			return 0;
		for (i = a + 1, j = b + 1; i < p->next;
		    i = x->node[i].next, j = y->node[j].next)
			if ((p->type == JT_OBJECT &&
			    (x->node[i].keylen != y->node[j].keylen ||
			    memcmp(jdoc_key(x, i), jdoc_key(y, j),
			    x->node[i].keylen) != 0)) || !same(x, i, y, j))
				return 0;
		return 1;
	default:
		return 1;
	}
}

/* Writes each number of d as [double, int64 or null, ns as µs or null]. */
static void
put_numbers(struct jw *w, const struct jdoc *d)
{
	int64_t v;
	uint32_t i;

	jw_begin_array(w);
	for (i = 0; i < d->n; i++) {
		if (d->node[i].type != JT_NUMBER)
			continue;
		jw_begin_array(w);
		jw_double(w, jnum_double(jdoc_str(d, i)));
		if (jnum_int64(jdoc_str(d, i), d->node[i].len, &v) == 0)
			jw_int(w, v);
		else
			jw_null(w);
		if (jnum_us_to_ns(jdoc_str(d, i), d->node[i].len, &v) == 0)
			jw_us(w, v);
		else
			jw_null(w);
		jw_end_array(w);
	}
	jw_end_array(w);
}

/* The numbers read back from node k of y are those of d. */
static int
same_numbers(const struct jdoc *d, const struct jdoc *y, uint32_t k)
{
	int64_t v, back;
	uint32_t i, e;
	double x;

	e = k + 1;
	for (i = 0; i < d->n; i++) {
		if (d->node[i].type != JT_NUMBER)
			continue;
		if (e >= y->node[k].next || y->node[e].type != JT_ARRAY ||
		    y->node[e].len != 3)
			return 0;
		x = jnum_double(jdoc_str(d, i));
		if (x - x != 0) {	/* beyond double: written as null */
			if (y->node[e + 1].type != JT_NULL)
				return 0;
		} else if (y->node[e + 1].type != JT_NUMBER ||
		    jnum_double(jdoc_str(y, e + 1)) != x)
			return 0;
		if (jnum_int64(jdoc_str(d, i), d->node[i].len, &v) == 0 &&
		    (y->node[e + 2].type != JT_NUMBER ||
		    jnum_int64(jdoc_str(y, e + 2), y->node[e + 2].len,
		    &back) != 0 || back != v))
			return 0;
		if (jnum_us_to_ns(jdoc_str(d, i), d->node[i].len, &v) == 0 &&
		    (y->node[e + 3].type != JT_NUMBER ||
		    jnum_us_to_ns(jdoc_str(y, e + 3), y->node[e + 3].len,
		    &back) != 0 || back != v))
			return 0;
		e = y->node[e].next;
	}
	return e == y->node[k].next;
}

/*
 * Writes record d member by member with jw_ckey() and jw_jdoc(), then "n":
 * its numbers.  A key is a C string: the reader holds U+0000 as JNUL.
 */
static void
put_record(struct jw *w, const struct jdoc *d)
{
	uint32_t c;

	jw_begin_object(w);
	for (c = 1; c < d->node[0].next; c = d->node[c].next) {
		jw_ckey(w, jdoc_key(d, c));
		jw_jdoc(w, d, c);
	}
	jw_key(w, "n");
	put_numbers(w, d);
	jw_end(w);
}

/* back is what put_record() wrote for d, read again. */
static int
same_record(const struct jdoc *d, const struct jdoc *back)
{
	uint32_t c, k;

	if (back->node[0].len != d->node[0].len + 1)
		return 0;
	for (c = 1, k = 1; c < d->node[0].next;
	    c = d->node[c].next, k = back->node[k].next)
		if (d->node[c].keylen != back->node[k].keylen ||
		    memcmp(jdoc_key(d, c), jdoc_key(back, k),
		    d->node[c].keylen) != 0 || !same(d, c, back, k))
			return 0;
	return strcmp(ndin_kind(d), ndin_kind(back)) == 0 &&
	    same_numbers(d, back, k);
}

/* Each document is the next written line, read back. */
static int
take(void *arg, const struct jdoc *doc)
{
	struct docs *p = arg;

	if (ndin_next(p->again, &p->back) != 1 ||
	    fuzz_diff_nodes(&p->back, doc) >= 0)
		abort();
	return 0;
}

int
LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	struct jdoc d = { 0 }, back = { 0 };
	struct ndin *in, *again;
	struct jw *w;
	struct docs docs = { 0 };
	uint64_t n = 0, m;

	fuzz_init("fuzz-ndjson");
	if (out == NULL) {
		out = fuzz_memfile("out");
		snprintf(outpath, sizeof(outpath), "/proc/self/fd/%d",
		    fileno(out));
	}
	fuzz_stdin(data, size);
	if (ftruncate(fileno(out), 0) == -1 || fseek(out, 0, SEEK_SET) != 0 ||
	    (in = ndin_open(NULL)) == NULL)
		abort();
	w = jw_new(out);
	while (ndin_next(in, &d) == 1) {
		if (ndin_line(in) == 0 || jdoc_get(&d, 0, "kind") < 0)
			abort();
		put_record(w, &d);
		n++;
	}
	jw_free(w);
	(void)ndin_name(in);
	ndin_close(in);
	/* The input again, through its own descriptor, beside the output. */
	if ((in = ndin_open("/proc/self/fd/0")) == NULL ||
	    (again = ndin_open(outpath)) == NULL)
		abort();
	for (m = n; m > 0; m--)
		if (ndin_next(in, &d) != 1 || ndin_next(again, &back) != 1 ||
		    !same_record(&d, &back))
			abort();
	if (ndin_next(again, &back) != 0)
		abort();
	ndin_close(in);
	ndin_close(again);
	/* The records once more, built as documents. */
	if ((in = ndin_open("/proc/self/fd/0")) == NULL ||
	    (docs.again = ndin_open(outpath)) == NULL)
		abort();
	w = jw_new_doc(take, &docs);
	for (m = n; m > 0; m--)
		if (ndin_next(in, &d) != 1)
			abort();
		else
			put_record(w, &d);
	if (jw_failed(w) || ndin_next(docs.again, &docs.back) != 0)
		abort();
	jw_free(w);
	ndin_close(in);
	ndin_close(docs.again);
	jdoc_free(&docs.back);
	jdoc_free(&d);
	jdoc_free(&back);
	return 0;
}
