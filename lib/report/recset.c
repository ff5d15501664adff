#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "base/err.h"
#include "base/forkpool.h"
#include "base/xalloc.h"
#include "io/json.h"
#include "io/ndjson.h"
#include "io/outdir.h"
#include "report/jqx.h"
#include "report/recset.h"

static struct reckind *keep(struct recset *, const char *, const char *,
		    const char *);
static void	append(struct reckind *, jv);
static void	drop_kinds(struct recset *);
static void	add(struct recset *, const struct jdoc *);

void
recset_init(struct recset *rs, size_t cap)
{
	memset(rs, 0, sizeof(*rs));
	rs->cap = cap;
}

int
recset_read(struct recset *rs, const char *path)
{
	struct ndin *in;
	struct jdoc doc = { 0 };
	int rc;

	if ((in = ndin_open(path)) == NULL) {
		warnmsg("%s:", path);
		return 1;
	}
	while ((rc = ndin_next(in, &doc)) == 1)
		add(rs, &doc);
	rs->nonfinite += ndin_nonfinite(in);
	jdoc_free(&doc);
	ndin_close(in);
	return rc;
}

int
recset_read_operands(struct recset *rs, int argc, char *argv[])
{
	int rc, status = 0;

	if (argc == 0)
		return recset_read(rs, NULL);
	for (; argc > 0; argc--, argv++) {
		if ((rc = recset_read(rs, *argv)) < 0)
			return -1;
		status |= rc;
	}
	return status;
}

/* What recset_each() does an output with, for forkpool_run(). */
struct each {
	struct outdir	*od;
	size_t		 cap;
	int		(*gather)(void *, struct recset *, int, char *[],
			    const char *);
	int		(*fn)(void *, jv, FILE *, const char *, const char *);
	void		*arg;
	int		 status;
};

static int
make_output(void *arg, size_t i, char **buf, size_t *len)
{
	struct each *e = arg;
	struct outdir *od = e->od;
	struct recset rs;
	int rc;

	recset_init(&rs, e->cap);
	rc = e->gather != NULL ? e->gather(e->arg, &rs, od->nargs[i],
	    od->args[i], od->where[i]) :
	    recset_read_operands(&rs, od->nargs[i], od->args[i]);
	if (rc == 0)
		rc = e->fn(e->arg, recset_take(&rs), outdir_begin(od),
		    od->path[i], od->where[i]);
	recset_free(&rs);
	if (rc != 0) {
		outdir_discard(od);
		return 1;
	}
	outdir_end(od, buf, len);
	return 0;
}

static int
take_output(void *arg, size_t i, int status, char *buf, size_t len)
{
	struct each *e = arg;
	int rc = 0;

	if (status != 0)
		e->status = 1;
	else
		rc = outdir_publish(e->od, i, buf, len);
	free(buf);
	return rc;
}

int
recset_each(struct outdir *od, size_t cap,
    int (*gather)(void *, struct recset *, int, char *[], const char *),
    int (*fn)(void *, jv, FILE *, const char *, const char *), void *arg)
{
	struct each e = { od, cap, gather, fn, arg, 0 };

	if (forkpool_run(od->n, make_output, take_output, &e) != 0)
		return -1;
	return e.status;
}

/*
 * Counts a record and returns its kind's records when it is to be kept,
 * else NULL.  The group key is the kind, the rank's text and the class's
 * text, so that every rank keeps its own top records of each class.
 */
static struct reckind *
keep(struct recset *rs, const char *kind, const char *rank, const char *cls)
{
	char key[512];
	struct strent *e;
	struct reckind *k;
	size_t lk, lr, lc, len;

	rs->total++;
	lk = strlen(kind);
	e = strmap_put(&rs->kinds, kind, lk);
	if (e->n == 0) {
		if (rs->nkind == rs->kindcap) {
			rs->kindcap = rs->kindcap ? 2 * rs->kindcap : 16;
			rs->kind = xreallocarray(rs->kind, rs->kindcap,
			    sizeof(*rs->kind));
		}
		k = &rs->kind[rs->nkind++];
		k->name = xstrdup(kind);
		k->recs = jv_null();
		k->count = 0;
		e->n = rs->nkind;
	}
	k = &rs->kind[e->n - 1];
	k->count++;
	lr = strlen(rank);
	lc = strlen(cls);
	if (lk + lr + lc + 2 < sizeof(key)) {
		memcpy(key, kind, lk + 1);
		memcpy(key + lk + 1, rank, lr + 1);
		memcpy(key + lk + lr + 2, cls, lc);
		len = lk + lr + lc + 2;
	} else {
		memcpy(key, kind, lk < sizeof(key) ? lk : sizeof(key));
		len = lk < sizeof(key) ? lk : sizeof(key);
	}
	e = strmap_put(&rs->groups, key, len);
	return e->n++ < rs->cap ? k : NULL;
}

static void
append(struct reckind *k, jv rec)
{
	if (jv_get_kind(k->recs) != JV_KIND_ARRAY) {
		jv_free(k->recs);
		k->recs = jv_array();
	}
	k->recs = jv_array_append(k->recs, rec);
}

static void
add(struct recset *rs, const struct jdoc *doc)
{
	const char *rank, *cls;
	struct reckind *k;
	int r, c;

	r = jdoc_get(doc, 0, "rank");
	c = jdoc_get(doc, 0, "class");
	rank = r >= 0 && doc->node[r].type == JT_NUMBER ? jdoc_str(doc, r) : "";
	cls = c >= 0 && doc->node[c].type == JT_STRING ? jdoc_str(doc, c) : "";
	if ((k = keep(rs, ndin_kind(doc), rank, cls)) != NULL)
		append(k, jqx_from_jdoc(doc, 0, &rs->names));
}

void
recset_add(struct recset *rs, jv rec)
{
	struct reckind *k;
	jv kind;

	kind = jv_object_get(jv_copy(rec), jv_string("kind"));
	if (jv_get_kind(kind) == JV_KIND_STRING &&
	    (k = keep(rs, jv_string_value(kind), "", "")) != NULL)
		append(k, rec);
	else
		jv_free(rec);
	jv_free(kind);
}

/* Empties the kinds: their records are handed on, or freed. */
static void
drop_kinds(struct recset *rs)
{
	size_t i;

	for (i = 0; i < rs->nkind; i++) {
		free(rs->kind[i].name);
		jv_free(rs->kind[i].recs);
	}
	rs->nkind = 0;
	strmap_free(&rs->kinds, NULL);
}

jv
recset_take(struct recset *rs)
{
	struct reckind *k;
	jv records, counts, v;
	size_t i;

	records = jv_object();
	counts = jv_object();
	for (i = 0; i < rs->nkind; i++) {
		k = &rs->kind[i];
		if (jv_get_kind(k->recs) == JV_KIND_ARRAY) {
			records = jv_object_set(records, jv_string(k->name),
			    k->recs);
			k->recs = jv_null();
		}
		counts = jv_object_set(counts, jv_string(k->name),
		    jv_number((double)k->count));
	}
	drop_kinds(rs);
	v = jv_object();
	v = jv_object_set(v, jv_string("records"), records);
	v = jv_object_set(v, jv_string("counts"), counts);
	return v;
}

void
recset_free(struct recset *rs)
{
	drop_kinds(rs);
	free(rs->kind);
	strmap_free(&rs->groups, NULL);
	strmap_free(&rs->names, jqx_free_name);
}

int
recset_report(const char *path, jv *rep, uint64_t *nonfinite)
{
	struct recset rs;
	jv all, r;
	int n;

	recset_init(&rs, 1);
	if (recset_read(&rs, path) != 0)
		exit(1);
	all = recset_take(&rs);
	*nonfinite = rs.nonfinite;
	recset_free(&rs);
	n = jv_object_length(jv_get(jv_copy(all), jv_string("counts")));
	r = jv_get(jv_get(jv_get(all, jv_string("records")),
	    jv_string("report")), jv_number(0));
	if (n == 0) {
		jv_free(r);
		*rep = jv_null();
		return 0;
	}
	if (jv_get_kind(r) != JV_KIND_OBJECT)
		die("%s: not an analyze-profile report",
		    strcmp(path, "-") == 0 ? "<stdin>" : path);
	*rep = r;
	return 1;
}
