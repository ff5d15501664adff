/*
 * replay: a snippet that replays one operator call alone; see replay.h.
 * One file: the table, the plan of a call and the two files that say it
 * (target.py and the README) share the kinds and the dtypes, and are
 * short apart.
 */
#include <ctype.h>
#include <errno.h>
#include <inttypes.h>
#include <limits.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "base/err.h"
#include "base/strbuf.h"
#include "base/xalloc.h"
#include "io/tsv.h"
#include "snippet/replay.h"
#include "snippet/snipcfg.h"
#include "snippet/snipout.h"

/* A tensor larger than this is no real call's: refused. */
#define MAX_BYTES	(UINT64_C(1) << 40)
/* Untimed and timed calls in each run(), as target.py says. */
#define WARMUP		10
#define CALLS		20

static const char *const kind_name[RK_N] = {
	"tensor", "out", "int", "float", "bool", "scalar", "int[]", "bool[]",
	"float[]", "dtype", "unrecorded"
};

/*
 * The tensor types traces name ("Input type"), as torch names them and
 * for short, with their ScalarType numbers (a dtype argument's value).
 */
static const struct dtype {
	const char	*trace[3];
	const char	*torch, *brief;
	int		 code, integral, size;
} dtypes[] = {
	{ { "float", NULL, NULL }, "float32", "fp32", 6, 0, 4 },
	{ { "double", NULL, NULL }, "float64", "fp64", 7, 0, 8 },
	{ { "c10::Half", NULL, NULL }, "float16", "fp16", 5, 0, 2 },
	{ { "c10::BFloat16", NULL, NULL }, "bfloat16", "bf16", 15, 0, 2 },
	{ { "c10::complex<float>", NULL, NULL }, "complex64", "c64", 9, 0,
	    8 },
	{ { "c10::complex<double>", NULL, NULL }, "complex128", "c128", 10,
	    0, 16 },
	{ { "c10::Float8_e4m3fn", NULL, NULL }, "float8_e4m3fn", "fp8e4m3",
	    24, 0, 1 },
	{ { "c10::Float8_e5m2", NULL, NULL }, "float8_e5m2", "fp8e5m2", 23,
	    0, 1 },
	{ { "long int", "long", "int64_t" }, "int64", "i64", 4, 1, 8 },
	{ { "int", NULL, NULL }, "int32", "i32", 3, 1, 4 },
	{ { "short int", "short", NULL }, "int16", "i16", 2, 1, 2 },
	{ { "signed char", NULL, NULL }, "int8", "i8", 1, 1, 1 },
	{ { "unsigned char", NULL, NULL }, "uint8", "u8", 0, 1, 1 },
	{ { "bool", NULL, NULL }, "bool", "bool", 11, 1, 1 },
};
#define NDTYPE	(sizeof(dtypes) / sizeof(dtypes[0]))

/* An input as the trace recorded it. */
struct input {
	const char	*type, *con;	/* "" when not recorded */
	const struct jdoc *d;
	int		 dims, strides;	/* nodes, or -1 */
};

static int	identifier(const char *, size_t);
static int	parse_row(struct replay_row *, char *, char *, char *);
static int	dtype_of(const char *);
static int	int_lit(const char *, struct strbuf *);
static int	float_lit(const char *, struct strbuf *);
static int	bool_lit(const char *, struct strbuf *);
static int	list_lit(const char *, int (*)(const char *, struct strbuf *),
		    struct strbuf *);
static int	value_of(int, const struct input *, struct strbuf *);
static int	fits(const struct replay_param *, const struct input *);
static int	make_arg(struct replay *, struct replay_arg *,
		    const struct input *, int, size_t, char **);
static int	read_inputs(const struct jdoc *, struct input **, size_t *,
		    char **);
static void	put_tuple(struct strbuf *, const int64_t *, size_t);
static void	put_input(struct strbuf *, const struct replay_arg *);
static void	put_shape_lines(struct strbuf *, const struct jdoc *);
static void	put_kernels(struct strbuf *, const struct jdoc *);
static void	put_call(struct strbuf *, const struct replay *);


static int
identifier(const char *s, size_t n)
{
	size_t i;

	if (n == 0 || !(isalpha((unsigned char)s[0]) || s[0] == '_'))
		return 0;
	for (i = 1; i < n; i++)
		if (!(isalnum((unsigned char)s[i]) || s[i] == '_'))
			return 0;
	return 1;
}

void
replay_table_load(struct replay_table *t, FILE *f, const char *path)
{
	struct tsv tab = { f, NULL, 0, 0 };
	char *field[3];
	size_t n, lineno;
	struct replay_row r;

	memset(t, 0, sizeof(*t));
	t->path = xstrdup(path);
	while ((n = tsv_next(&tab, field, 3)) > 0) {
		lineno = tab.lineno;
		if (n != 3)
			die_usage("%s:%zu: expected operator<TAB>call<TAB>"
			    "devices", path, lineno);
		if (parse_row(&r, field[0], field[1], field[2]) < 0)
			die_usage("%s:%zu: expected NS::NAME<TAB>"
			    "NAME.OVERLOAD(name:kind, ...)<TAB>any or cuda,"
			    " NAME the operator's, each kind one of tensor,"
			    " out, int, float, bool, scalar, int[], bool[],"
			    " float[], dtype, unrecorded, with ? for None",
			    path, lineno);
		r.line = lineno;
		t->row = xreallocarray(t->row, t->nrow + 1, sizeof(*t->row));
		t->row[t->nrow++] = r;
	}
	if (ferror(f))
		die_usage("%s: %s", path, strerror(errno));
	tsv_free(&tab);
}

/* op "ns::name", call "name.overload(a:k, *, b:k?)", devices. */
static int
parse_row(struct replay_row *r, char *op, char *call, char *devices)
{
	char *colons = strstr(op, "::"), *dot, *open, *close, *item, *next;
	char *colon;
	size_t k, n;
	int keyword = 0;

	memset(r, 0, sizeof(*r));
	if (colons == NULL || !identifier(op, (size_t)(colons - op)) ||
	    !identifier(colons + 2, strlen(colons + 2)) ||
	    (dot = strchr(call, '.')) == NULL ||
	    (open = strchr(dot, '(')) == NULL ||
	    (close = strrchr(open, ')')) == NULL || close[1] != '\0' ||
	    (size_t)(dot - call) != strlen(colons + 2) ||
	    memcmp(call, colons + 2, (size_t)(dot - call)) != 0 ||
	    !identifier(dot + 1, (size_t)(open - dot - 1)))
		return -1;
	if (strcmp(devices, "any") != 0 && strcmp(devices, "cuda") != 0)
		return -1;
	r->op = xstrdup(op);
	r->ns = xmemdup(op, (size_t)(colons - op));
	r->name = xstrdup(colons + 2);
	r->overload = xmemdup(dot + 1, (size_t)(open - dot - 1));
	r->cuda_only = strcmp(devices, "cuda") == 0;
	*close = '\0';
	for (item = open + 1; *item != '\0'; item = next) {
		struct replay_param *p;

		if ((next = strchr(item, ',')) != NULL)
			*next++ = '\0';
		else
			next = item + strlen(item);
		item += strspn(item, " ");
		n = strlen(item);
		while (n > 0 && item[n - 1] == ' ')
			item[--n] = '\0';
		if (strcmp(item, "*") == 0 && !keyword) {
			keyword = 1;
			continue;
		}
		if ((colon = strchr(item, ':')) == NULL ||
		    !identifier(item, (size_t)(colon - item)))
			goto bad;
		r->p = xreallocarray(r->p, r->np + 1, sizeof(*r->p));
		p = &r->p[r->np++];
		p->name = xmemdup(item, (size_t)(colon - item));
		p->keyword = keyword;
		n = strlen(++colon);
		if ((p->optional = n > 0 && colon[n - 1] == '?'))
			colon[--n] = '\0';
		for (k = 0; k < RK_N && strcmp(colon, kind_name[k]) != 0; k++)
			;
		if (k == RK_N)
			goto bad;
		p->kind = (int)k;
	}
	return 0;
bad:
	for (k = 0; k < r->np; k++)
		free(r->p[k].name);
	free(r->p);
	free(r->op);
	free(r->ns);
	free(r->name);
	free(r->overload);
	return -1;
}

void
replay_table_free(struct replay_table *t)
{
	size_t i, j;

	for (i = 0; i < t->nrow; i++) {
		for (j = 0; j < t->row[i].np; j++)
			free(t->row[i].p[j].name);
		free(t->row[i].p);
		free(t->row[i].op);
		free(t->row[i].ns);
		free(t->row[i].name);
		free(t->row[i].overload);
	}
	free(t->row);
	free(t->path);
}

static int
dtype_of(const char *type)
{
	size_t i, j;

	for (i = 0; i < NDTYPE; i++)
		for (j = 0; j < 3 && dtypes[i].trace[j] != NULL; j++)
			if (strcmp(type, dtypes[i].trace[j]) == 0)
				return (int)i;
	return -1;
}

/* A whole number that fits int64, written without leading zeros. */
static int
int_lit(const char *s, struct strbuf *out)
{
	long long v;
	char *end;

	if (!(isdigit((unsigned char)s[0]) || (s[0] == '-' &&
	    isdigit((unsigned char)s[1]))))
		return -1;
	errno = 0;
	v = strtoll(s, &end, 10);
	if (errno != 0 || *end != '\0')
		return -1;
	sb_printf(out, "%lld", v);
	return 0;
}

/*
 * A decimal number as C++ prints a double ("0.", "1e-05",
 * "0.088388347648318433"), written as it is, which Python reads as the
 * same float; inf and nan as float("inf") and float("nan").
 */
static int
float_lit(const char *s, struct strbuf *out)
{
	const char *p = s + (s[0] == '-');
	size_t digits = 0;

	if (strcmp(p, "inf") == 0 || strcmp(p, "nan") == 0) {
		sb_printf(out, "float(\"%s%s\")", s[0] == '-' ? "-" : "", p);
		return 0;
	}
	for (; isdigit((unsigned char)*p); p++)
		digits++;
	if (*p == '.')
		for (p++; isdigit((unsigned char)*p); p++)
			digits++;
	if (digits == 0)
		return -1;
	if (*p == 'e' || *p == 'E') {
		p++;
		p += *p == '+' || *p == '-';
		if (!isdigit((unsigned char)*p))
			return -1;
		while (isdigit((unsigned char)*p))
			p++;
	}
	if (*p != '\0')
		return -1;
	/* A leading zero before a digit is no Python int: 007. */
	if (int_lit(s, out) == 0)
		return 0;
	sb_puts(out, s);
	return 0;
}

static int
bool_lit(const char *s, struct strbuf *out)
{
	if (strcmp(s, "True") == 0 || strcmp(s, "true") == 0)
		sb_puts(out, "True");
	else if (strcmp(s, "False") == 0 || strcmp(s, "false") == 0)
		sb_puts(out, "False");
	else
		return -1;
	return 0;
}

/* "[16, 16]": each item by lit, as a Python list. */
static int
list_lit(const char *s, int (*lit)(const char *, struct strbuf *),
    struct strbuf *out)
{
	size_t n = strlen(s), len;
	char *body, *item, *next;
	int rc = 0, first = 1;

	if (n < 2 || s[0] != '[' || s[n - 1] != ']')
		return -1;
	body = xmemdup(s + 1, n - 2);
	sb_puts(out, "[");
	for (item = body; rc == 0 && item != NULL; item = next) {
		if ((next = strchr(item, ',')) != NULL)
			*next++ = '\0';
		item += strspn(item, " ");
		len = strlen(item);
		while (len > 0 && item[len - 1] == ' ')
			item[--len] = '\0';
		if (len == 0 && first && next == NULL)
			break;
		if (!first)
			sb_puts(out, ", ");
		first = 0;
		rc = lit(item, out);
	}
	sb_puts(out, "]");
	free(body);
	return rc;
}

/* The Python literal of a scalar or list input for kind, in out. */
static int
value_of(int kind, const struct input *in, struct strbuf *out)
{
	switch (kind) {
	case RK_INT:
		return strcmp(in->type, "Scalar") == 0 ?
		    int_lit(in->con, out) : -1;
	case RK_FLOAT:
	case RK_SCALAR:
		return strcmp(in->type, "Scalar") == 0 ?
		    float_lit(in->con, out) : -1;
	case RK_BOOL:
		return strcmp(in->type, "Scalar") == 0 ?
		    bool_lit(in->con, out) : -1;
	case RK_INTS:
		return strcmp(in->type, "ScalarList") == 0 ?
		    list_lit(in->con, int_lit, out) : -1;
	case RK_BOOLS:
		return strcmp(in->type, "ScalarList") == 0 ?
		    list_lit(in->con, bool_lit, out) : -1;
	case RK_FLOATS:
		return strcmp(in->type, "ScalarList") == 0 ?
		    list_lit(in->con, float_lit, out) : -1;
	}
	return -1;
}

/* Whether parameter p of a row takes input in. */
static int
fits(const struct replay_param *p, const struct input *in)
{
	struct strbuf lit = { 0 };
	long long code;
	int ok;
	size_t i;

	if (p->optional && in->type[0] == '\0')
		return 1;
	switch (p->kind) {
	case RK_TENSOR:
	case RK_OUT:
		return dtype_of(in->type) >= 0 && in->dims >= 0;
	case RK_DTYPE:
		if (strcmp(in->type, "Scalar") != 0 ||
		    int_lit(in->con, &lit) < 0) {
			free(lit.s);
			return 0;
		}
		code = strtoll(lit.s, NULL, 10);
		free(lit.s);
		for (i = 0; i < NDTYPE; i++)
			if (dtypes[i].code == code)
				return 1;
		return 0;
	case RK_UNRECORDED:
		return in->con[0] == '\0' ||
		    identifier(in->con, strlen(in->con));
	}
	ok = value_of(p->kind, in, &lit) == 0;
	free(lit.s);
	return ok;
}

/* The int64s of an array of numbers at node i, checked: -1 if not. */
static int
ints_of(const struct jdoc *d, int i, int64_t **v, size_t *n)
{
	uint32_t j;

	*v = NULL;
	*n = 0;
	if (d->node[i].type != JT_ARRAY)
		return -1;
	*v = xreallocarray(NULL, d->node[i].len + 1, sizeof(**v));
	for (j = (uint32_t)i + 1; j < d->node[i].next; j = d->node[j].next)
		if (d->node[j].type != JT_NUMBER || jnum_int64(jdoc_str(d, j),
		    d->node[j].len, &(*v)[(*n)++]) < 0)
			return -1;
	return 0;
}

/*
 * Input i of the call as argument a: with param (NULL: the generic path's
 * choice by the input alone).  Returns 0, or -1 with *err.
 */
static int
make_arg(struct replay *rp, struct replay_arg *a, const struct input *in,
    int kind, size_t i, char **err)
{
	struct strbuf lit = { 0 }, e = { 0 };
	uint64_t elems = 1, span = 1;
	size_t k, ns;
	int64_t *st;

	if (kind == RK_UNRECORDED) {
		if (in->con[0] == '\0') {
			a->what = RA_OMIT;
			return 0;
		}
		sb_printf(&lit, "\"%s\"", in->con);
		a->what = RA_VALUE;
		a->value = lit.s;
		return 0;
	}
	if (in->type[0] == '\0') {
		a->what = RA_NONE;
		return 0;
	}
	if (kind == RK_TENSOR || kind == RK_OUT) {
		a->what = RA_TENSOR;
		a->dtype = dtype_of(in->type);
		a->fill = kind == RK_TENSOR;
		if (ints_of(in->d, in->dims, &a->dims, &a->ndim) < 0) {
			sb_printf(&e, "input %zu: its dims are not whole"
			    " numbers", i);
			goto refuse;
		}
		for (k = 0; k < a->ndim; k++) {
			if (a->dims[k] < 0 || (a->dims[k] > 0 &&
			    elems > MAX_BYTES / (uint64_t)a->dims[k])) {
				sb_printf(&e, "input %zu: dims out of range", i);
				goto refuse;
			}
			elems *= (uint64_t)a->dims[k];
		}
		span = elems;
		if (in->strides >= 0 && ints_of(in->d, in->strides, &st,
		    &ns) == 0 && ns == a->ndim) {
			a->strides = st;
			/* What empty_strided() allocates: the furthest element. */
			for (k = 0, span = 1; k < ns && elems > 0; k++) {
				if (st[k] < 0 || (uint64_t)st[k] >
				    MAX_BYTES / (uint64_t)a->dims[k]) {
					sb_printf(&e, "input %zu: strides out of"
					    " range", i);
					goto refuse;
				}
				span += (uint64_t)(a->dims[k] - 1) *
				    (uint64_t)st[k];
			}
			if (elems == 0)
				span = 0;
		} else if (in->strides >= 0)
			free(st);
		if (span > MAX_BYTES / 16) {
			sb_printf(&e, "input %zu: a tensor of more than 64 GiB",
			    i);
			goto refuse;
		}
		rp->bytes += span * (uint64_t)dtypes[a->dtype].size;
		return 0;
	}
	if (kind == RK_DTYPE) {
		long long code;

		int_lit(in->con, &lit);
		code = strtoll(lit.s, NULL, 10);
		free(lit.s);
		for (k = 0; k < NDTYPE && dtypes[k].code != code; k++)
			;
		a->what = RA_DTYPE;
		a->dtype = (int)k;
		return 0;
	}
	if (value_of(kind, in, &lit) < 0) {
		free(lit.s);
		sb_printf(&e, "input %zu: ", i);
		snip_py_text(&e, in->type);
		sb_puts(&e, " \"");
		snip_py_text(&e, in->con);
		sb_puts(&e, "\" is no number, bool or list of them");
		goto refuse;
	}
	a->what = RA_VALUE;
	a->value = lit.s;
	return 0;
refuse:
	*err = e.s;
	return -1;
}

/* The inputs of rec, with the node of its dims and strides each. */
static int
read_inputs(const struct jdoc *d, struct input **out, size_t *n, char **err)
{
	int dims, types, strides, con;
	uint32_t i, di, si = 0, ci = 0;
	struct input *v;
	size_t k = 0;

	if ((dims = jdoc_get(d, 0, "dims")) < 0 ||
	    (types = jdoc_get(d, 0, "types")) < 0 ||
	    d->node[dims].type != JT_ARRAY ||
	    d->node[types].type != JT_ARRAY ||
	    d->node[dims].len != d->node[types].len) {
		*err = xstrdup("the trace recorded no input shapes of this"
		    " operator (record_shapes=True)");
		return -1;
	}
	strides = jdoc_get(d, 0, "strides");
	con = jdoc_get(d, 0, "concrete");
	if (strides >= 0 && (d->node[strides].type != JT_ARRAY ||
	    d->node[strides].len != d->node[dims].len))
		strides = -1;
	if (con >= 0 && (d->node[con].type != JT_ARRAY ||
	    d->node[con].len != d->node[dims].len))
		con = -1;
	v = xcalloc(d->node[dims].len + 1, sizeof(*v));
	if (strides >= 0)
		si = (uint32_t)strides + 1;
	if (con >= 0)
		ci = (uint32_t)con + 1;
	for (di = (uint32_t)dims + 1, i = (uint32_t)types + 1;
	    i < d->node[types].next; i = d->node[i].next,
	    di = d->node[di].next, k++) {
		v[k].d = d;
		v[k].dims = (int)di;
		v[k].strides = strides >= 0 ? (int)si : -1;
		v[k].type = d->node[i].type == JT_STRING ? jdoc_str(d, i) : "?";
		v[k].con = con >= 0 && d->node[ci].type == JT_STRING ?
		    jdoc_str(d, ci) : "";
		if (strides >= 0)
			si = d->node[si].next;
		if (con >= 0)
			ci = d->node[ci].next;
	}
	*out = v;
	*n = k;
	return 0;
}

int
replay_plan(struct replay *rp, const struct replay_table *t,
    const struct jdoc *rec, char **err)
{
	struct input *in = NULL;
	struct strbuf e = { 0 };
	const struct replay_row *row = NULL;
	const char *name, *colons;
	size_t i, n = 0, r;
	int kind;

	memset(rp, 0, sizeof(*rp));
	*err = NULL;
	if (jdoc_get_str(rec, 0, "name", &name, NULL) < 0)
		name = "";
	colons = strstr(name, "::");
	if (colons == NULL || !identifier(name, (size_t)(colons - name)) ||
	    !identifier(colons + 2, strlen(colons + 2))) {
		sb_puts(&e, "the operator's name \"");
		snip_py_text(&e, name);
		sb_puts(&e, "\" is not NAMESPACE::NAME of Python identifiers");
		*err = e.s;
		return -1;
	}
	rp->op = xstrdup(name);
	if (read_inputs(rec, &in, &n, err) < 0)
		return -1;
	for (r = 0; r < t->nrow && row == NULL; r++) {
		if (strcmp(t->row[r].op, name) != 0 || t->row[r].np != n)
			continue;
		for (i = 0; i < n && fits(&t->row[r].p[i], &in[i]); i++)
			;
		if (i == n)
			row = &t->row[r];
	}
	rp->row = row;
	rp->arg = xcalloc(n + 1, sizeof(*rp->arg));
	rp->narg = n;
	for (i = 0; i < n; i++) {
		struct replay_arg *a = &rp->arg[i];

		if (row != NULL) {
			kind = row->p[i].kind;
			a->param = row->p[i].name;
			a->keyword = row->p[i].keyword ? row->p[i].name : NULL;
		} else if (dtype_of(in[i].type) >= 0)
			kind = RK_TENSOR;
		else if (strcmp(in[i].type, "ScalarList") == 0)
			kind = strstr(in[i].con, "True") != NULL ||
			    strstr(in[i].con, "False") != NULL ? RK_BOOLS :
			    strpbrk(in[i].con, ".eEn") != NULL ? RK_FLOATS :
			    RK_INTS;
		else if (strcmp(in[i].type, "Scalar") == 0)
			kind = strcmp(in[i].con, "True") == 0 ||
			    strcmp(in[i].con, "False") == 0 ? RK_BOOL :
			    RK_SCALAR;
		else if (in[i].type[0] == '\0')
			kind = RK_TENSOR;	/* None, whatever it was */
		else {
			sb_printf(&e, "input %zu: ", i);
			snip_py_text(&e, in[i].type);
			sb_puts(&e, " is not replayed (only tensors, numbers,"
			    " bools and lists of them are)");
			*err = e.s;
			free(in);
			return -1;
		}
		if (make_arg(rp, a, &in[i], kind, i, err) < 0) {
			free(in);
			return -1;
		}
	}
	if (row == NULL) {
		for (r = 0; r < t->nrow && strcmp(t->row[r].op, name) != 0;
		    r++)
			;
		sb_puts(&e, r < t->nrow ? "no row of the operator table"
		    " takes these inputs" : "the operator table has no row"
		    " for it");
		rp->why = e.s;
	}
	rp->range = replay_range(rec);
	free(in);
	return 0;
}

void
replay_free(struct replay *rp)
{
	size_t i;

	for (i = 0; i < rp->narg; i++) {
		free(rp->arg[i].dims);
		free(rp->arg[i].strides);
		free(rp->arg[i].value);
	}
	free(rp->arg);
	free(rp->op);
	free(rp->range);
	free(rp->why);
}

/*
 * "aten::addmm 768 788x768 768x768 bf16": the operator, the dims of its
 * tensor inputs and their types.
 */
char *
replay_range(const struct jdoc *rec)
{
	struct strbuf b = { 0 };
	int seen[NDTYPE] = { 0 }, dims, types, t, any = 0;
	uint32_t i, j, k;
	const char *name;

	if (jdoc_get_str(rec, 0, "name", &name, NULL) < 0 ||
	    (dims = jdoc_get(rec, 0, "dims")) < 0 ||
	    (types = jdoc_get(rec, 0, "types")) < 0 ||
	    rec->node[dims].type != JT_ARRAY ||
	    rec->node[types].type != JT_ARRAY)
		return NULL;
	sb_puts(&b, name);
	for (i = (uint32_t)types + 1, j = (uint32_t)dims + 1;
	    i < rec->node[types].next && j < rec->node[dims].next;
	    i = rec->node[i].next, j = rec->node[j].next) {
		if (rec->node[i].type != JT_STRING ||
		    dtype_of(jdoc_str(rec, i)) < 0 ||
		    rec->node[j].type != JT_ARRAY)
			continue;
		sb_puts(&b, rec->node[j].len == 0 ? " ()" : " ");
		for (k = j + 1; k < rec->node[j].next; k = rec->node[k].next) {
			sb_puts(&b, k > j + 1 ? "x" : "");
			sb_put(&b, jdoc_str(rec, k), rec->node[k].len);
		}
	}
	for (i = (uint32_t)types + 1; i < rec->node[types].next;
	    i = rec->node[i].next) {
		if (rec->node[i].type != JT_STRING ||
		    (t = dtype_of(jdoc_str(rec, i))) < 0 || seen[t]++)
			continue;
		sb_printf(&b, "%s%s", any ? "/" : " ", dtypes[t].brief);
		any = 1;
	}
	return b.s;
}

static void
put_tuple(struct strbuf *b, const int64_t *v, size_t n)
{
	size_t i;

	sb_puts(b, "(");
	for (i = 0; i < n; i++)
		sb_printf(b, "%s%" PRId64, i > 0 ? ", " : "", v[i]);
	sb_puts(b, n == 1 ? ",)" : ")");
}

static void
put_input(struct strbuf *b, const struct replay_arg *a)
{
	sb_puts(b, "    (");
	switch (a->what) {
	case RA_TENSOR:
		sb_puts(b, "\"tensor\", ");
		put_tuple(b, a->dims, a->ndim);
		sb_puts(b, ", ");
		if (a->strides != NULL)
			put_tuple(b, a->strides, a->ndim);
		else
			sb_puts(b, "None");
		sb_printf(b, ", \"%s\", \"%s\"", dtypes[a->dtype].torch,
		    !a->fill ? "none" : dtypes[a->dtype].integral ? "zeros" :
		    "normal");
		break;
	case RA_NONE:
		sb_puts(b, "\"none\",");
		break;
	case RA_VALUE:
		sb_printf(b, "\"value\", %s", a->value);
		break;
	case RA_DTYPE:
		sb_printf(b, "\"dtype\", \"%s\"", dtypes[a->dtype].torch);
		break;
	}
	sb_puts(b, "),");
	if (a->param != NULL)
		sb_printf(b, "  # %s", a->param);
	sb_puts(b, "\n");
}

/* The call as a Python expression, for comments and the README. */
static void
put_call(struct strbuf *b, const struct replay *rp)
{
	size_t i;
	int first = 1;

	if (rp->row == NULL) {
		sb_printf(b, "torch._C._jit_get_operation(\"%s\")(*INPUTS)",
		    rp->op);
		return;
	}
	sb_printf(b, "torch.ops.%s.%s.%s(", rp->row->ns, rp->row->name,
	    rp->row->overload);
	for (i = 0; i < rp->narg; i++) {
		if (rp->arg[i].what == RA_OMIT)
			continue;
		sb_printf(b, "%s", first ? "" : ", ");
		if (rp->arg[i].keyword != NULL)
			sb_printf(b, "%s=", rp->arg[i].keyword);
		sb_puts(b, rp->arg[i].param);
		first = 0;
	}
	sb_puts(b, ")");
}

static const char target_helpers[] =
"\n"
"def _tensor(dims: Any, strides: Any, dtype: str, fill: str, device: Any) -> Any:\n"
"    \"\"\"A tensor laid out as the trace's: empty_strided() to its dims and\n"
"    strides, its whole storage filled (an output is left as it is).\"\"\"\n"
"    kind = getattr(torch, dtype)\n"
"    if strides is None:\n"
"        strides, step = [], 1\n"
"        for d in reversed(dims):\n"
"            strides.insert(0, step)\n"
"            step *= max(d, 1)\n"
"    t = torch.empty_strided(dims, strides, dtype=kind, device=device)\n"
"    size = 0\n"
"    if all(d > 0 for d in dims):\n"
"        size = 1 + sum((d - 1) * s for d, s in zip(dims, strides))\n"
"    flat = t.as_strided((size,), (1,))\n"
"    if fill == \"normal\":\n"
"        flat.copy_(torch.randn(size, device=device))\n"
"    elif fill == \"zeros\":\n"
"        flat.zero_()\n"
"    return t\n"
"\n"
"\n"
"def _make(spec: tuple[Any, ...], device: Any, output: bool) -> Any:\n"
"    if spec[0] == \"tensor\":\n"
"        _, dims, strides, dtype, fill = spec\n"
"        return _tensor(dims, strides, dtype, \"none\" if output else fill,"
" device)\n"
"    if spec[0] == \"dtype\":\n"
"        return getattr(torch, spec[1])\n"
"    if spec[0] == \"value\":\n"
"        return spec[1]\n"
"    return None\n"
"\n"
"\n";

static const char target_timed[] =
"def _timed(op: Any, args: list[Any], kwargs: dict[str, Any], device: Any) -> dict[str, Any]:\n"
"    \"\"\"CALLS calls, each timed: between CUDA events on a GPU, inside\n"
"    the range named for the operator and shape, each call an operator\n"
"    range for nsys (emit_nvtx); else by the CPU's clock.\"\"\"\n"
"    out = None\n"
"    times: list[float] = []\n"
"    if device.type == \"cuda\":\n"
"        marks = [torch.cuda.Event(enable_timing=True) for _ in range(CALLS + 1)]\n"
"        ops = contextlib.nullcontext()\n"
"        if not torch.autograd._profiler_enabled():\n"
"            ops = torch.autograd.profiler.emit_nvtx(record_shapes=True)\n"
"        with profiling_range_if_cuda(RANGE, device=device), ops:\n"
"            marks[0].record()\n"
"            for i in range(CALLS):\n"
"                out = op(*args, **kwargs)\n"
"                marks[i + 1].record()\n"
"        torch.cuda.synchronize(device)\n"
"        times = [marks[i].elapsed_time(marks[i + 1]) * 1000.0 for i in range(CALLS)]\n"
"        return {\"output\": out, \"times_us\": times, \"timer\": \"cuda events\"}\n"
"    with profiling_range_if_cuda(RANGE, device=device):\n"
"        for _ in range(CALLS):\n"
"            start = time.perf_counter()\n"
"            out = op(*args, **kwargs)\n"
"            times.append((time.perf_counter() - start) * 1e6)\n"
"    return {\"output\": out, \"times_us\": times,\n"
"            \"timer\": \"the CPU's clock: this ran on the CPU, not a GPU\"}\n"
"\n"
"\n";

static const char target_methods[] =
"    def prepare(self, record: Any, *, device: Any) -> Any:\n"
"        device = torch.device(device)\n"
"        if CUDA_ONLY and device.type != \"cuda\":\n"
"            raise ValueError(f\"{OPERATOR} has no CPU kernel: run it on a\"\n"
"                             f\" CUDA device (--device cuda), not {device}\")\n"
"        op, keywords, outputs = _operator()\n"
"        torch.manual_seed(0)\n"
"        values = [_make(spec, device, out) for spec, out in zip(INPUTS, outputs)]\n"
"        args = [v for v, k in zip(values, keywords) if k is None]\n"
"        kwargs = {k: v for v, k in zip(values, keywords) if k is not None}\n"
"        return op, args, kwargs, device\n"
"\n"
"    def run(self, prepared: Any) -> Any:\n"
"        op, args, kwargs, device = prepared\n"
"        for _ in range(WARMUP):\n"
"            op(*args, **kwargs)\n"
"        return _timed(op, args, kwargs, device)\n"
"\n"
"    def validate(self, output: Any) -> None:\n"
"        times = output[\"times_us\"]\n"
"        if len(times) != CALLS or not all(t >= 0 for t in times):\n"
"            raise ValueError(f\"{OPERATOR}: {len(times)} timed calls, not {CALLS}\")\n"
"\n"
"    def summarize(self, output: Any) -> dict[str, Any]:\n"
"        \"\"\"The calls' times, and what the last returned.\"\"\"\n"
"        times = output[\"times_us\"]\n"
"        summary: dict[str, Any] = {\n"
"            \"operator\": OPERATOR,\n"
"            \"range\": RANGE,\n"
"            \"timer\": output[\"timer\"],\n"
"            \"calls\": len(times),\n"
"            \"median_us\": round(statistics.median(times), 3),\n"
"            \"min_us\": round(min(times), 3),\n"
"            \"max_us\": round(max(times), 3),\n"
"        }\n"
"        first = output[\"output\"]\n"
"        if isinstance(first, (tuple, list)) and first:\n"
"            first = first[0]\n"
"        if isinstance(first, torch.Tensor):\n"
"            summary[\"shape\"] = [int(d) for d in first.shape]\n"
"            summary[\"dtype\"] = str(first.dtype)\n"
"        return summary\n";

static const char generic_operator[] =
"\n"
"def _operator() -> tuple[Any, list[Any], list[bool]]:\n"
"    \"\"\"No row of mrp's operator table takes these inputs: the operator\n"
"    as TorchScript registers it, its inputs placed by the first schema\n"
"    of it that takes them, as TraceLens's event replay places them (an\n"
"    out= tensor is made and not filled).\"\"\"\n"
"    op = torch._C._jit_get_operation(OPERATOR)\n"
"    if isinstance(op, tuple):\n"
"        op = op[0]\n"
"    for schema in torch._C._jit_get_schemas_for_operator(OPERATOR):\n"
"        params = schema.arguments\n"
"        if len(params) != len(INPUTS):\n"
"            continue\n"
"        tensors = [\"Tensor\" in str(p.type) for p in params]\n"
"        if any(spec[0] == \"tensor\" and not t for spec, t in zip(INPUTS, tensors)):\n"
"            continue\n"
"        keywords = [p.name if p.kwarg_only else None for p in params]\n"
"        outputs = [p.kwarg_only and p.alias_info is not None and p.alias_info.is_write\n"
"                   for p in params]\n"
"        return op, keywords, outputs\n"
"    raise ValueError(f\"no schema of {OPERATOR} in torch {torch.__version__}\"\n"
"                     f\" takes these {len(INPUTS)} inputs\")\n";

void
replay_target_py(struct strbuf *b, const struct replay *rp,
    const struct replay_src *src, const struct replay_out *out)
{
	size_t i;
	int any;

	sb_puts(b, "\"\"\"Replays ");
	snip_py_text(b, rp->op);
	sb_puts(b, " alone, with the inputs of one shape of its calls.\n\n"
	    "Made by snip-new --from-trace from ");
	snip_py_text(b, src->trace);
	sb_puts(b, ";\nREADME.md says which calls, what their kernels took,"
	    " and how to compare a\nreplay with them (replay-check)."
	    "  Nothing here comes from the trace but\nnumbers and the"
	    " names mrp's operator table checks.\n\"\"\"\n"
	    "from __future__ import annotations\n\n"
	    "import contextlib\nimport statistics\nimport time\n"
	    "from typing import Any\n\nimport torch\n\n"
	    "from development.profiling.nvtx import profiling_range_if_cuda\n\n");
	sb_printf(b, "OPERATOR = \"%s\"\n", rp->op);
	sb_puts(b, "# The NVTX range around the timed calls, named for the"
	    " operator and shape.\n");
	sb_printf(b, "RANGE = \"%s\"\n", rp->range);
	sb_printf(b, "# Each run(): untimed calls, then timed ones.\n"
	    "WARMUP = %d\nCALLS = %d\n", WARMUP, CALLS);
	sb_printf(b, "# %s\nCUDA_ONLY = %s\n", rp->row != NULL &&
	    rp->row->cuda_only ? "The operator has no CPU kernel." :
	    "The operator runs on the CPU too, as slowly as it does there.",
	    rp->row != NULL && rp->row->cuda_only ? "True" : "False");
	sb_puts(b, "\n# The inputs as the trace recorded them, in order:"
	    " (\"tensor\", dims, strides,\n# dtype, fill) with fill"
	    " \"normal\", \"zeros\" or \"none\" (an output the operator\n"
	    "# overwrites), (\"value\", v), (\"dtype\", name) or"
	    " (\"none\",).\nINPUTS: list[tuple[Any, ...]] = [\n");
	for (i = 0; i < rp->narg; i++)
		if (rp->arg[i].what != RA_OMIT)
			put_input(b, &rp->arg[i]);
	sb_puts(b, "]\n\n");
	if (rp->row == NULL)
		sb_puts(b, generic_operator);
	else {
		sb_printf(b, "# From mrp's operator table (%s):\n# ",
		    "rubric/replay-ops.tsv");
		put_call(b, rp);
		sb_puts(b, "\nKEYWORDS: list[Any] = [");
		for (i = any = 0; i < rp->narg; i++) {
			if (rp->arg[i].what == RA_OMIT)
				continue;
			sb_puts(b, any ? ", " : "");
			if (rp->arg[i].keyword != NULL)
				sb_printf(b, "\"%s\"", rp->arg[i].keyword);
			else
				sb_puts(b, "None");
			any = 1;
		}
		sb_puts(b, "]\nOUTPUTS: list[bool] = [False] * len(INPUTS)\n\n\n"
		    "def _operator() -> tuple[Any, list[Any], list[bool]]:\n");
		sb_printf(b, "    return torch.ops.%s.%s.%s, KEYWORDS, OUTPUTS\n",
		    rp->row->ns, rp->row->name, rp->row->overload);
	}
	sb_puts(b, "\n");
	sb_puts(b, target_helpers);
	sb_puts(b, target_timed);
	sb_printf(b, "class %s:\n    \"\"\"Calls the operator WARMUP times, then"
	    " CALLS times timed, per record.\"\"\"\n\n    name = \"%s\"\n\n",
	    out->tclass, out->profile);
	sb_puts(b, target_methods);
	sb_printf(b, "\n\ntarget = %s()\n", out->tclass);
}

/* One line each of an op_calls or op_shape record's four lists. */
static void
put_shape_lines(struct strbuf *b, const struct jdoc *d)
{
	static const char *const key[] = {
		"dims", "types", "strides", "concrete"
	};
	static const char *const label[] = {
		"input dims", "input types", "input strides",
		"concrete inputs"
	};
	struct strbuf t = { 0 };
	uint32_t j;
	int i, n;

	for (i = 0; i < 4; i++) {
		sb_printf(b, "- %s: ", label[i]);
		if ((n = jdoc_get(d, 0, key[i])) < 0) {
			sb_puts(b, "not recorded\n");
			continue;
		}
		sb_truncate(&t, 0);
		if (d->node[n].type == JT_ARRAY) {
			sb_puts(&t, "[");
			for (j = (uint32_t)n + 1; j < d->node[n].next;
			    j = d->node[j].next) {
				uint32_t k;

				sb_puts(&t, j > (uint32_t)n + 1 ? ", " : "");
				if (d->node[j].type == JT_STRING) {
					sb_puts(&t, "\"");
					sb_put(&t, jdoc_str(d, j),
					    d->node[j].len);
					sb_puts(&t, "\"");
					continue;
				}
				sb_puts(&t, "[");
				for (k = j + 1; k < d->node[j].next;
				    k = d->node[k].next) {
					sb_puts(&t, k > j + 1 ? ", " : "");
					sb_put(&t, jdoc_str(d, k),
					    d->node[k].len);
				}
				sb_puts(&t, "]");
			}
			sb_puts(&t, "]");
		}
		snip_md_code(b, t.s != NULL ? t.s : "");
		sb_puts(b, "\n");
	}
	free(t.s);
}

/* The kernels of an op_calls record, as a table. */
static void
put_kernels(struct strbuf *b, const struct jdoc *d)
{
	int ks = jdoc_get(d, 0, "kernels");
	struct strbuf cell = { 0 };
	uint32_t k;
	const char *name;
	double v;

	if (ks < 0 || d->node[ks].type != JT_ARRAY || d->node[ks].len == 0) {
		sb_puts(b, "The trace records no GPU work under these calls"
		    " (a trace of the CPU alone).\n\n");
		return;
	}
	sb_puts(b, "| kernel | launches per call | median | min | max |\n"
	    "| --- | ---: | ---: | ---: | ---: |\n");
	for (k = (uint32_t)ks + 1; k < d->node[ks].next; k = d->node[k].next) {
		sb_puts(b, "| ");
		if (jdoc_get_str(d, k, "name", &name, NULL) == 0) {
			size_t i;

			/* A '|' would end the cell, even in a code span. */
			sb_truncate(&cell, 0);
			snip_md_code(&cell, name);
			for (i = 0; i < cell.len; i++) {
				if (cell.s[i] == '|')
					sb_puts(b, "\\");
				sb_put(b, cell.s + i, 1);
			}
		}
		sb_puts(b, " | ");
		if (jdoc_get_double(d, k, "per_call", &v) == 0)
			sb_printf(b, "%g", v);
		if (jdoc_get_double(d, k, "median_us", &v) == 0)
			sb_printf(b, " | %.3f µs", v);
		if (jdoc_get_double(d, k, "min_us", &v) == 0)
			sb_printf(b, " | %.3f µs", v);
		if (jdoc_get_double(d, k, "max_us", &v) == 0)
			sb_printf(b, " | %.3f µs", v);
		sb_puts(b, " |\n");
	}
	sb_puts(b, "\n");
	free(cell.s);
}

void
replay_readme(struct strbuf *b, const struct replay *rp,
    const struct replay_src *src, const struct replay_out *out,
    const struct strbuf *cfgtext)
{
	const struct jdoc *c = src->calls, *s = src->shape;
	struct snipcfg cfg;
	struct sdiags diags = { 0 };
	char *rundir, *nsys, *q, *tq, *sqlite, *sq;
	struct strbuf t = { 0 };
	double v, w;
	int64_t calls = 0;
	const char *a;
	size_t i;

	if (snipcfg_parse(&cfg, cfgtext->s, cfgtext->len, &diags) < 0)
		die("the config written does not read back: %s",
		    diags.n > 0 ? diags.v[0].msg : "?");
	rundir = snipcfg_run_dir(&cfg, "nsys");
	nsys = snipcfg_nsys(&cfg, rundir, out->config);
	q = snip_quote(out->config);
	tq = snip_quote(src->trace);
	sb_printf(&t, "%s/trace.sqlite", rundir);
	sqlite = t.s;
	sq = snip_quote(sqlite);

	sb_printf(b, "# %s\n\nReplays `%s` alone, with the inputs of one shape"
	    " of its calls in\n", out->profile, rp->op);
	snip_md_code(b, src->trace);
	sb_puts(b, ", under the roboflow/inference profiling runner\n"
	    "(`development/profiling/main.py`), so that its kernels can be"
	    " profiled and\nchanged on their own.\n\n## Provenance\n\n- trace: ");
	snip_md_code(b, src->trace);
	sb_printf(b, "\n- sha256 of the trace: `%s`\n", src->sha256);
	if (src->gpu != NULL) {
		sb_puts(b, "- GPU: ");
		snip_md_text(b, src->gpu);
		sb_puts(b, "\n");
	}
	sb_printf(b, "- operator: `%s`, the shape ranked %d by %s\n", rp->op,
	    src->nth, src->ranked);
	jdoc_get_i64(c, 0, "calls", &calls);
	sb_printf(b, "- calls of this shape: %" PRId64, calls);
	if (jdoc_get_double(c, 0, "first", &v) == 0) {
		sb_printf(b, "; the first at %.3f µs of the trace", v);
		if (jdoc_get_double(c, 0, "external_id", &w) == 0)
			sb_printf(b, ", External id %.0f", w);
	}
	sb_puts(b, "\n");
	if (jdoc_get_double(c, 0, "gpu_us", &v) == 0 && v > 0) {
		sb_printf(b, "- GPU time of a call: median %.3f µs",
		    jdoc_get_double(c, 0, "gpu_median_us", &w) == 0 ? w : 0);
		if (jdoc_get_double(c, 0, "gpu_min_us", &w) == 0)
			sb_printf(b, ", min %.3f µs", w);
		if (jdoc_get_double(c, 0, "gpu_max_us", &w) == 0)
			sb_printf(b, ", max %.3f µs", w);
		sb_printf(b, "; %.3f µs in all\n", v);
	}
	if (jdoc_get_double(c, 0, "self_us", &v) == 0)
		sb_printf(b, "- self CPU time of the calls: %.3f µs\n", v);
	if (s != NULL && jdoc_get_double(s, 0, "flops", &v) == 0) {
		sb_printf(b, "- FLOPs per call: %.0f", v);
		if (jdoc_get_double(s, 0, "tflops", &v) == 0)
			sb_printf(b, "; %.3f TFLOPS", v);
		if (jdoc_get_double(s, 0, "of_peak", &v) == 0)
			sb_printf(b, ", %.1f %% of the GPU's peak", v * 100);
		sb_puts(b, " (op-rank's op_shape record)\n");
	}
	put_shape_lines(b, c);
	sb_puts(b, "- made by: ");
	snip_md_code(b, src->command);
	sb_puts(b, "\n\n## The kernels its calls launched\n\n");
	put_kernels(b, c);
	sb_puts(b, "## What target.py does\n\n- `prepare()` makes each tensor"
	    " input with `torch.empty_strided()` to the\n  trace's dims and"
	    " strides and its type, and fills its whole storage with\n"
	    "  normal values (integer and bool tensors with zeros), seeded:"
	    " the same\n  inputs every run.\n");
	for (i = 0; i < rp->narg; i++) {
		const struct replay_arg *x = &rp->arg[i];

		if (x->what == RA_TENSOR && !x->fill)
			sb_printf(b, "- Input %zu (`%s`) is an output the operator"
			    " overwrites: made, not filled.\n", i, x->param);
		if (x->what == RA_OMIT)
			sb_printf(b, "- Input %zu (`%s`) is not recorded by the"
			    " profiler: it is left out, and\n  the operator's"
			    " default applies.\n", i, x->param);
		if (x->what == RA_TENSOR && x->strides == NULL)
			sb_printf(b, "- Input %zu has no strides in the trace"
			    " (PyTorch before 2.1): it is made\n  contiguous.\n",
			    i);
	}
	sb_printf(b, "- The tensors take %.1f MiB.\n",
	    (double)rp->bytes / 1048576);
	sb_puts(b, "- `run()` calls it `WARMUP` times, then `CALLS` times"
	    " inside the NVTX range\n  ");
	snip_md_code(b, rp->range);
	sb_puts(b, ", each call timed between CUDA events and each an"
	    " operator\n  range for nsys (`emit_nvtx`); on a machine without"
	    " a GPU it runs on the\n  CPU, timed by its clock, and the"
	    " manifest's summary says so.\n- The call: `");
	put_call(b, rp);
	sb_puts(b, "`");
	if (rp->row != NULL)
		sb_printf(b, ",\n  from mrp's operator table (`%s`, line %zu)",
		    "rubric/replay-ops.tsv", rp->row->line);
	else
		sb_printf(b, ":\n  %s, so target.py finds the operator through"
		    " `torch._C._jit_get_operation()`\n  and places the inputs"
		    " by its schema, as TraceLens's event replay does",
		    rp->why);
	sb_puts(b, ".\n");
	if (rp->row != NULL && rp->row->cuda_only)
		sb_puts(b, "- The operator has no CPU kernel: `prepare()`"
		    " refuses a device other than CUDA.\n");
	sb_puts(b, "- `summarize()` gives the median, least and greatest time"
	    " of the timed calls.\n\n## Smoke run (no Nsight)\n\nFrom the"
	    " repository root:\n\n");
	sb_printf(b, "    PYTHONPATH=./ uv run python development/profiling/"
	    "main.py --config %s --run-id smoke\n\n", q);
	sb_puts(b, "## Nsight Systems\n\nWith `PYTHONPATH=./` exported:\n\n");
	for (a = nsys; *a != '\0'; ) {
		size_t n = strcspn(a, "\n");

		sb_printf(b, "    %.*s\n", (int)n, a);
		a += n + (a[n] == '\n');
	}
	sb_puts(b, "\n## Compare the replay with the trace\n\nExport the"
	    " capture and give both to replay-check, which says whether the\n"
	    "same kernels ran, and how fast against the trace's:\n\n");
	sb_printf(b, "    nsys export --type sqlite -o %s %s/trace.nsys-rep\n",
	    sq, rundir);
	sb_printf(b, "    replay-check %s %s\n\n", tq, sq);
	snipcfg_free(&cfg);
	sdiag_free(&diags);
	free(rundir);
	free(nsys);
	free(q);
	free(tq);
	free(sq);
	free(sqlite);
}
