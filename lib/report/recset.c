#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "base/err.h"
#include "base/forkpool.h"
#include "io/json.h"
#include "io/ndjson.h"
#include "io/outdir.h"
#include "report/jqx.h"
#include "report/recset.h"

static int	keep(struct recset *, const char *, const char *,
		    const char *);
static void	append(struct recset *, const char *, jv);
static void	add(struct recset *, const struct jdoc *);

void
recset_init(struct recset *rs, size_t cap)
{
	memset(rs, 0, sizeof(*rs));
	rs->records = jv_object();
	rs->counts = jv_object();
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
 * Counts a record and says whether to keep it.  The group key is the kind,
 * the rank's text and the class's text, so that every rank keeps its own
 * top records of each class.
 */
static int
keep(struct recset *rs, const char *kind, const char *rank, const char *cls)
{
	char key[512];
	struct strent *e;
	jv k, n;
	int len;

	len = snprintf(key, sizeof(key), "%s%c%s%c%s", kind, 0, rank, 0, cls);
	if (len < 0 || (size_t)len >= sizeof(key))
		len = (int)strlen(kind);
	rs->total++;
	k = jv_string(kind);
	n = jv_object_get(jv_copy(rs->counts), jv_copy(k));
	rs->counts = jv_object_set(rs->counts, k,
	    jv_number((jv_get_kind(n) == JV_KIND_NUMBER ?
	    jv_number_value(n) : 0) + 1));
	jv_free(n);
	e = strmap_put(&rs->groups, key, (size_t)len);
	return e->n++ < rs->cap;
}

static void
append(struct recset *rs, const char *kind, jv rec)
{
	jv k, a;

	k = jv_string(kind);
	a = jv_object_get(jv_copy(rs->records), jv_copy(k));
	if (jv_get_kind(a) != JV_KIND_ARRAY) {
		jv_free(a);
		a = jv_array();
	}
	/* Taking the array out first leaves it unshared, so appending is cheap. */
	rs->records = jv_object_delete(rs->records, jv_copy(k));
	a = jv_array_append(a, rec);
	rs->records = jv_object_set(rs->records, k, a);
}

static void
add(struct recset *rs, const struct jdoc *doc)
{
	const char *kind, *rank, *cls;
	int r, c;

	kind = ndin_kind(doc);
	r = jdoc_get(doc, 0, "rank");
	c = jdoc_get(doc, 0, "class");
	rank = r >= 0 && doc->node[r].type == JT_NUMBER ? jdoc_str(doc, r) : "";
	cls = c >= 0 && doc->node[c].type == JT_STRING ? jdoc_str(doc, c) : "";
	if (keep(rs, kind, rank, cls))
		append(rs, kind, jqx_from_jdoc(doc, 0));
}

void
recset_add(struct recset *rs, jv rec)
{
	jv kind;

	kind = jv_object_get(jv_copy(rec), jv_string("kind"));
	if (jv_get_kind(kind) == JV_KIND_STRING &&
	    keep(rs, jv_string_value(kind), "", ""))
		append(rs, jv_string_value(kind), rec);
	else
		jv_free(rec);
	jv_free(kind);
}

jv
recset_take(struct recset *rs)
{
	jv v;

	v = jv_object();
	v = jv_object_set(v, jv_string("records"), rs->records);
	v = jv_object_set(v, jv_string("counts"), rs->counts);
	rs->records = jv_object();
	rs->counts = jv_object();
	return v;
}

void
recset_free(struct recset *rs)
{
	jv_free(rs->records);
	jv_free(rs->counts);
	strmap_free(&rs->groups, NULL);
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
