/*
 * opbase: the helpers every part of the operator aggregator uses; it
 * calls none of them (opbase.h).
 */
#include <ctype.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "base/xalloc.h"
#include "io/json.h"
#include "io/ndjson.h"
#include "trace/opbase.h"

void *
op_grow(void *p, size_t *cap, size_t n, size_t size)
{
	if (n < *cap)
		return p;
	*cap = *cap ? *cap * 2 : 16;
	return xreallocarray(p, *cap, size);
}

int
op_cmpi64(const void *a, const void *b)
{
	const int64_t *x = a, *y = b;

	return (*x > *y) - (*x < *y);
}

/* The median of m > 0 sorted values: halfway between two when m is even. */
double
op_median(const int64_t *v, size_t m)
{
	return m % 2 ? (double)v[m / 2] :
	    ((double)v[m / 2 - 1] + (double)v[m / 2]) / 2;
}

int
op_prefix(const char *s, const char *p)
{
	return strncmp(s, p, strlen(p)) == 0;
}

void
op_put_rank(struct jw *w, int64_t rank)
{
	if (rank < 0)
		return;
	jw_key(w, "rank");
	jw_int(w, rank);
}

/* A warning record of op-rank's about rank (-1: none or all). */
void
op_put_warning(struct jw *w, int64_t rank, const char *msg)
{
	jw_record(w, "warning");
	op_put_rank(w, rank);
	/* op-rank's records, whichever process runs the aggregator. */
	jw_key(w, "tool");
	jw_cstring(w, "op-rank");
	jw_key(w, "file");
	jw_null(w);
	jw_key(w, "line");
	jw_null(w);
	jw_key(w, "col");
	jw_null(w);
	jw_key(w, "message");
	jw_cstring(w, msg);
	jw_end(w);
}

double
op_round3(double x)
{
	return round(x * 1000) / 1000;
}

/*
 * Keeps in *dst the least of its GPU name and src's, so that a rank whose
 * traces name two GPUs names the same one however they are merged.
 */
void
op_gpu_keep(char **dst, const char *src)
{
	if (src == NULL || (*dst != NULL && strcmp(*dst, src) <= 0))
		return;
	free(*dst);
	*dst = xstrdup(src);
}

char *
op_lower_dup(const char *s)
{
	char *t = xstrdup(s), *p;

	for (p = t; *p != '\0'; p++)
		*p = (char)tolower((unsigned char)*p);
	return t;
}

int
op_get_jid(const struct jdoc *d, int i, struct jid *id)
{
	id->text = NULL;
	id->str = 0;
	if (i < 0)
		return 0;
	if (d->node[i].type == JT_STRING)
		id->str = 1;
	else if (d->node[i].type != JT_NUMBER)
		return -1;
	id->text = (char *)jdoc_str(d, (uint32_t)i);
	return 0;
}

void
op_jid_copy(struct jid *dst, const struct jid *src)
{
	dst->text = src->text != NULL ? xstrdup(src->text) : NULL;
	dst->str = src->str;
}

void
op_jid_free(struct jid *id)
{
	free(id->text);
}

void
op_put_jid(struct jw *w, const char *key, const struct jid *id)
{
	if (id->text == NULL)
		return;
	jw_ckey(w, key);
	if (id->str)
		jw_cstring(w, id->text);
	else
		jw_number(w, id->text, strlen(id->text));
}
