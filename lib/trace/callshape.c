/*
 * callshape: a call's input shapes, types, strides and scalar arguments
 * as a trace records them; see callshape.h.
 */
#include <inttypes.h>
#include <stdlib.h>
#include <string.h>

#include "base/strbuf.h"
#include "base/xalloc.h"
#include "trace/callshape.h"

static int	put_ints(struct strbuf *, const struct jdoc *, int);
static int	put_strings(struct strbuf *, const struct jdoc *, int);
static void	put_optional(struct strbuf *, const struct jdoc *, int,
		    int (*)(struct strbuf *, const struct jdoc *, int));
static size_t	copy_ints(const struct jdoc *, int, int **, int64_t **);
static size_t	copy_strings(const struct jdoc *, int, char ***);
static void	dup_ints(size_t, const int *, const int64_t *, int **,
		    int64_t **);
static char	**dup_strings(size_t, char *const *);
static void	write_ints(struct jw *, size_t, const int *, const int64_t *);
static void	write_strings(struct jw *, size_t, char *const *);

void
callshape_nodes(const struct jdoc *d, uint32_t obj, struct shapenodes *in)
{
	int args;

	in->dims = jdoc_get(d, obj, "input_dims");
	in->types = jdoc_get(d, obj, "input_types");
	in->strides = jdoc_get(d, obj, "input_strides");
	in->concrete = jdoc_get(d, obj, "concrete_inputs");
	if (in->dims < 0 && (in->dims = jdoc_get(d, obj, "dims")) >= 0) {
		in->types = jdoc_get(d, obj, "types");
		in->strides = jdoc_get(d, obj, "strides");
		in->concrete = jdoc_get(d, obj, "concrete");
	}
	if (in->dims >= 0 || (args = jdoc_get(d, obj, "args")) < 0 ||
	    d->node[args].type != JT_OBJECT)
		return;
	in->dims = jdoc_get(d, (uint32_t)args, "Input Dims");
	in->types = jdoc_get(d, (uint32_t)args, "Input type");
	in->strides = jdoc_get(d, (uint32_t)args, "Input Strides");
	in->concrete = jdoc_get(d, (uint32_t)args, "Concrete Inputs");
}

int
callshape_key(struct strbuf *key, const struct jdoc *d,
    const struct shapenodes *in)
{
	if (put_ints(key, d, in->dims) < 0 || (in->types >= 0 &&
	    put_strings(key, d, in->types) < 0))
		return -1;
	if (in->types < 0)
		sb_puts(key, "|");
	put_optional(key, d, in->strides, put_ints);
	put_optional(key, d, in->concrete, put_strings);
	return 0;
}

/* Lists of whole numbers: each list bracketed, each number with a ','. */
static int
put_ints(struct strbuf *key, const struct jdoc *d, int at)
{
	uint32_t i, j;
	int64_t v;

	if (at < 0 || d->node[at].type != JT_ARRAY)
		return -1;
	for (i = (uint32_t)at + 1; i < d->node[at].next;
	    i = d->node[i].next) {
		if (d->node[i].type != JT_ARRAY)
			return -1;
		sb_puts(key, "[");
		for (j = i + 1; j < d->node[i].next; j = d->node[j].next) {
			if (d->node[j].type != JT_NUMBER ||
			    jnum_int64(jdoc_str(d, j), d->node[j].len, &v) < 0)
				return -1;
			sb_printf(key, "%" PRId64 ",", v);
		}
		sb_puts(key, "]");
	}
	return 0;
}

/* '|', then each string length-prefixed. */
static int
put_strings(struct strbuf *key, const struct jdoc *d, int at)
{
	uint32_t i;

	sb_puts(key, "|");
	if (d->node[at].type != JT_ARRAY)
		return -1;
	for (i = (uint32_t)at + 1; i < d->node[at].next;
	    i = d->node[i].next) {
		if (d->node[i].type != JT_STRING)
			return -1;
		sb_printf(key, "%" PRIu32 ":", d->node[i].len);
		sb_put(key, jdoc_str(d, i), d->node[i].len);
	}
	return 0;
}

/* "|-" for what is absent or cannot be read, else what put() writes. */
static void
put_optional(struct strbuf *key, const struct jdoc *d, int at,
    int (*put)(struct strbuf *, const struct jdoc *, int))
{
	size_t len = key->len;

	sb_puts(key, "|");
	if (at >= 0 && put(key, d, at) == 0)
		return;
	sb_truncate(key, len);
	sb_puts(key, "|-");
}

/*
 * The lists of whole numbers in node at, their lengths in *rank and their
 * numbers in a row in *num: how many lists.  put_ints() checked them.
 */
static size_t
copy_ints(const struct jdoc *d, int at, int **rank, int64_t **num)
{
	uint32_t i, j;
	size_t nl = 0, n = 0;

	*rank = NULL;
	*num = NULL;
	for (i = (uint32_t)at + 1; i < d->node[at].next;
	    i = d->node[i].next) {
		*rank = xreallocarray(*rank, nl + 1, sizeof(**rank));
		(*rank)[nl++] = (int)d->node[i].len;
		for (j = i + 1; j < d->node[i].next; j = d->node[j].next) {
			*num = xreallocarray(*num, n + 1, sizeof(**num));
			jnum_int64(jdoc_str(d, j), d->node[j].len, &(*num)[n++]);
		}
	}
	return nl;
}

/* The strings of node at (put_strings() checked them): how many. */
static size_t
copy_strings(const struct jdoc *d, int at, char ***v)
{
	uint32_t i;
	size_t n = 0;

	*v = NULL;
	for (i = (uint32_t)at + 1; i < d->node[at].next;
	    i = d->node[i].next) {
		*v = xreallocarray(*v, n + 1, sizeof(**v));
		(*v)[n++] = xstrdup(jdoc_str(d, i));
	}
	return n;
}

void
callshape_copy(struct callshape *cs, const struct jdoc *d,
    const struct shapenodes *in)
{
	struct strbuf check = { 0 };

	memset(cs, 0, sizeof(*cs));
	cs->nin = copy_ints(d, in->dims, &cs->rank, &cs->dim);
	if (in->types >= 0)
		cs->ntype = copy_strings(d, in->types, &cs->type);
	/* What the key left out stays out. */
	if (in->strides >= 0 && put_ints(&check, d, in->strides) == 0) {
		cs->has_str = 1;
		cs->nstr = copy_ints(d, in->strides, &cs->srank, &cs->stride);
	}
	sb_truncate(&check, 0);
	if (in->concrete >= 0 && put_strings(&check, d, in->concrete) == 0) {
		cs->has_con = 1;
		cs->ncon = copy_strings(d, in->concrete, &cs->con);
	}
	free(check.s);
}

/* n lists of rank[i] numbers from num: a copy, never NULL. */
static void
dup_ints(size_t n, const int *rank, const int64_t *num, int **trank,
    int64_t **tnum)
{
	size_t i, total = 0;

	for (i = 0; i < n; i++)
		total += (size_t)rank[i];
	/* A call may have no inputs, or inputs of no dimensions. */
	*trank = xreallocarray(NULL, n + 1, sizeof(**trank));
	if (n > 0)
		memcpy(*trank, rank, n * sizeof(**trank));
	*tnum = xreallocarray(NULL, total + 1, sizeof(**tnum));
	if (total > 0)
		memcpy(*tnum, num, total * sizeof(**tnum));
}

static char **
dup_strings(size_t n, char *const *v)
{
	char **t = xreallocarray(NULL, n + 1, sizeof(*t));
	size_t i;

	for (i = 0; i < n; i++)
		t[i] = xstrdup(v[i]);
	return t;
}

void
callshape_dup(struct callshape *dst, const struct callshape *src)
{
	*dst = *src;
	dup_ints(src->nin, src->rank, src->dim, &dst->rank, &dst->dim);
	dst->type = dup_strings(src->ntype, src->type);
	dst->srank = NULL;
	dst->stride = NULL;
	dst->con = NULL;
	if (src->has_str)
		dup_ints(src->nstr, src->srank, src->stride, &dst->srank,
		    &dst->stride);
	if (src->has_con)
		dst->con = dup_strings(src->ncon, src->con);
}

void
callshape_free(struct callshape *cs)
{
	size_t i;

	for (i = 0; i < cs->ntype; i++)
		free(cs->type[i]);
	for (i = 0; i < cs->ncon; i++)
		free(cs->con[i]);
	free(cs->type);
	free(cs->con);
	free(cs->rank);
	free(cs->dim);
	free(cs->srank);
	free(cs->stride);
	memset(cs, 0, sizeof(*cs));
}

void
callshape_put(struct jw *w, const struct callshape *cs)
{
	jw_key(w, "dims");
	write_ints(w, cs->nin, cs->rank, cs->dim);
	jw_key(w, "types");
	write_strings(w, cs->ntype, cs->type);
	if (cs->has_str) {
		jw_key(w, "strides");
		write_ints(w, cs->nstr, cs->srank, cs->stride);
	}
	if (cs->has_con) {
		jw_key(w, "concrete");
		write_strings(w, cs->ncon, cs->con);
	}
}

/* n lists of rank[i] numbers from num, as an array of arrays. */
static void
write_ints(struct jw *w, size_t n, const int *rank, const int64_t *num)
{
	size_t i, k = 0;
	int j;

	jw_begin_array(w);
	for (i = 0; i < n; i++) {
		jw_begin_array(w);
		for (j = 0; j < rank[i]; j++)
			jw_int(w, num[k++]);
		jw_end_array(w);
	}
	jw_end_array(w);
}

static void
write_strings(struct jw *w, size_t n, char *const *v)
{
	size_t i;

	jw_begin_array(w);
	for (i = 0; i < n; i++)
		jw_string_valid(w, v[i], strlen(v[i]));
	jw_end_array(w);
}
