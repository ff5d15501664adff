/*
 * opshape: the calls of each modelled operator by input shapes and types,
 * with the FLOPs and bytes opcost gives them and the GPU time of the
 * kernels they launched, summed by rank: op_shape records, the rank's
 * compute_summary, and their partials.  The GPU peaks come from
 * rubric/gpu-peaks.tsv, for the GPU the trace's deviceProperties name or
 * -g.
 */
#include <ctype.h>
#include <errno.h>
#include <fnmatch.h>
#include <inttypes.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>

#include "base/err.h"
#include "base/strbuf.h"
#include "base/xalloc.h"
#include "trace/opcore.h"

static int	put_dims(struct strbuf *, const struct jdoc *, int);
static int	put_types(struct strbuf *, const struct jdoc *, int);
static void	copy_shapes(struct shsum *, const struct jdoc *, int, int);
static int	cmpshape(const void *, const void *);
static double	peak_for(const struct gpupeak *, const char *);
static double	decimal(const char *);
static void	put_shape_fields(struct jw *, const struct shsum *);
static const char	*model_name(int);

/*
 * The key of a shape: the operator's name, its inputs' dimensions and
 * types, and its cost, each length-prefixed or numeric so that no two
 * shapes share one.  -1 when a dimension is not a whole number (a list of
 * tensors, say): such calls are not costed by shape.
 */
int
op_shape_key(struct strbuf *key, const char *name, const struct opcost *c,
    const struct jdoc *d, int dims, int types)
{
	sb_truncate(key, 0);
	sb_printf(key, "%zu:%s|", strlen(name), name);
	if (put_dims(key, d, dims) < 0 || put_types(key, d, types) < 0)
		return -1;
	sb_printf(key, "|%a|%a|%d", c->flops, c->bytes, c->causal);
	return 0;
}

static int
put_dims(struct strbuf *key, const struct jdoc *d, int dims)
{
	uint32_t i, j;
	int64_t v;

	if (dims < 0 || d->node[dims].type != JT_ARRAY)
		return -1;
	for (i = (uint32_t)dims + 1; i < d->node[dims].next;
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

static int
put_types(struct strbuf *key, const struct jdoc *d, int types)
{
	uint32_t i;

	sb_puts(key, "|");
	if (types < 0)
		return 0;
	if (d->node[types].type != JT_ARRAY)
		return -1;
	for (i = (uint32_t)types + 1; i < d->node[types].next;
	    i = d->node[i].next) {
		if (d->node[i].type != JT_STRING)
			return -1;
		sb_printf(key, "%" PRIu32 ":", d->node[i].len);
		sb_put(key, jdoc_str(d, i), d->node[i].len);
	}
	return 0;
}

/*
 * The sums of shape key in a, made from the call's dims and types when
 * new; NULL when a holds r->maxshape shapes already.
 */
struct shsum *
op_shape_get(struct oprank *r, struct agg *a, const struct strbuf *key,
    const char *name, const struct opcost *c, const struct jdoc *d, int dims,
    int types)
{
	struct strent *e;
	struct shsum *sh;

	if ((e = strmap_get(&a->shapes, key->s, key->len)) != NULL)
		return e->val;
	if (a->shapes.count >= r->maxshape)
		return NULL;
	e = strmap_put(&a->shapes, key->s, key->len);
	sh = e->val = xcalloc(1, sizeof(*sh));
	sh->name = xstrdup(name);
	sh->idx = NOSHAPE;
	sh->model = c->model;
	sh->prec = c->prec;
	sh->causal = c->causal;
	sh->flops = c->flops;
	sh->bytes = c->bytes;
	copy_shapes(sh, d, dims, types);
	return sh;
}

static void
copy_shapes(struct shsum *sh, const struct jdoc *d, int dims, int types)
{
	uint32_t i, j;
	size_t n = 0;

	for (i = (uint32_t)dims + 1; i < d->node[dims].next;
	    i = d->node[i].next) {
		sh->rank = xreallocarray(sh->rank, sh->nin + 1,
		    sizeof(*sh->rank));
		sh->rank[sh->nin++] = (int)d->node[i].len;
		for (j = i + 1; j < d->node[i].next; j = d->node[j].next) {
			sh->dim = xreallocarray(sh->dim, n + 1,
			    sizeof(*sh->dim));
			jnum_int64(jdoc_str(d, j), d->node[j].len, &sh->dim[n++]);
		}
	}
	if (types < 0)
		return;
	for (i = (uint32_t)types + 1; i < d->node[types].next;
	    i = d->node[i].next) {
		sh->type = xreallocarray(sh->type, sh->ntype + 1,
		    sizeof(*sh->type));
		sh->type[sh->ntype++] = xstrdup(jdoc_str(d, i));
	}
}

void
op_shape_free(void *p)
{
	struct shsum *sh = p;
	size_t i;

	for (i = 0; i < sh->ntype; i++)
		free(sh->type[i]);
	free(sh->type);
	free(sh->rank);
	free(sh->dim);
	free(sh->name);
	free(sh);
}

static struct shsum *
shape_dup(const struct shsum *s)
{
	struct shsum *t = xcalloc(1, sizeof(*t));
	size_t i, n = 0;

	*t = *s;
	t->name = xstrdup(s->name);
	t->idx = NOSHAPE;
	t->count = t->gpu = 0;
	for (i = 0; i < s->nin; i++)
		n += (size_t)s->rank[i];
	/* A call may have no inputs, or inputs of no dimensions: NULL. */
	t->rank = xreallocarray(NULL, s->nin + 1, sizeof(*t->rank));
	if (s->nin > 0)
		memcpy(t->rank, s->rank, s->nin * sizeof(*t->rank));
	t->dim = xreallocarray(NULL, n + 1, sizeof(*t->dim));
	if (n > 0)
		memcpy(t->dim, s->dim, n * sizeof(*t->dim));
	t->type = xreallocarray(NULL, s->ntype + 1, sizeof(*t->type));
	for (i = 0; i < s->ntype; i++)
		t->type[i] = xstrdup(s->type[i]);
	return t;
}

/* Adds the shapes of src to dst, by key; past max of them, uncosted. */
void
op_shape_merge(struct agg *dst, const struct agg *src, size_t max)
{
	struct strent **ent = strmap_sorted(&src->shapes);
	struct strent *e;
	struct shsum *s, *t;
	size_t i;

	for (i = 0; i < src->shapes.count; i++) {
		s = ent[i]->val;
		if ((e = strmap_get(&dst->shapes, ent[i]->key,
		    ent[i]->len)) == NULL) {
			if (dst->shapes.count >= max) {
				dst->unshaped = op_sat_add(dst->unshaped,
				    s->count);
				continue;
			}
			e = strmap_put(&dst->shapes, ent[i]->key, ent[i]->len);
			e->val = shape_dup(s);
		}
		t = e->val;
		t->count = op_sat_add(t->count, s->count);
		t->gpu = op_sat_add(t->gpu, s->gpu);
	}
	dst->unshaped = op_sat_add(dst->unshaped, src->unshaped);
	free(ent);
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

/*
 * rubric/gpu-peaks.tsv: pattern, gpu, then the dense peak TFLOPS of each
 * of op_peakname[] ("-": none), the memory bandwidth in TB/s and the
 * source.  Lines starting with '#' and blank lines are comments.
 */
const char *const op_peakname[NPEAK] = {
	"fp64", "fp32", "tf32", "fp16", "bf16", "fp8", "fp4", "int8"
};

/*
 * Cuts a table's line at its tabs into at most max fields, in place: how
 * many.
 */
size_t
op_tab_split(char *line, char **f, size_t max)
{
	size_t nf;
	char *p;

	for (nf = 0, p = line; nf < max; nf++) {
		f[nf] = p;
		if ((p = strchr(p, '\t')) == NULL)
			return nf + 1;
		*p++ = '\0';
	}
	return nf;
}

void
op_load_peaks(struct oprank *r, const char *path)
{
	FILE *fp;
	char *line = NULL, *f[NPEAK + 4];
	size_t cap = 0;
	unsigned long lineno = 0;
	struct gpupeak *g;
	int i;

	if ((fp = fopen(path, "r")) == NULL)
		die_usage("%s: %s", path, strerror(errno));
	while (getline(&line, &cap, fp) != -1) {
		lineno++;
		line[strcspn(line, "\r\n")] = '\0';
		if (line[0] == '#' || line[0] == '\0')
			continue;
		if (op_tab_split(line, f, NPEAK + 4) != NPEAK + 4)
			die_usage("%s:%lu: want %d tab-separated fields", path,
			    lineno, NPEAK + 4);
		r->peaks = xreallocarray(r->peaks, r->npeaks + 1,
		    sizeof(*r->peaks));
		g = &r->peaks[r->npeaks++];
		/* Matched ignoring case: both sides lower case. */
		g->pattern = op_lower_dup(f[0]);
		g->gpu = xstrdup(f[1]);
		for (i = 0; i <= NPEAK; i++) {
			double *v = i < NPEAK ? &g->tflops[i] : &g->tbps;

			*v = NAN;
			if (strcmp(f[i + 2], "-") == 0)
				continue;
			if ((*v = decimal(f[i + 2])) <= 0)
				die_usage("%s:%lu: not a peak (a finite positive"
				    " decimal, or -): %s", path, lineno,
				    f[i + 2]);
		}
	}
	if (ferror(fp))
		die_usage("%s: %s", path, strerror(errno));
	free(line);
	fclose(fp);
}

/*
 * A peak as the table writes it: digits, and a fraction after one point;
 * no sign, exponent, hex, inf or nan, which strtod() takes.  0 or less
 * (the caller refuses it) for anything else, or a value past a double.
 */
static double
decimal(const char *s)
{
	size_t n = strspn(s, "0123456789"), m = 0;
	double v;

	if (n == 0)
		return 0;
	if (s[n] == '.' && (m = strspn(s + n + 1, "0123456789")) == 0)
		return 0;
	if (s[n + (m > 0 ? m + 1 : 0)] != '\0')
		return 0;
	v = strtod(s, NULL);
	return isfinite(v) ? v : 0;
}

void
op_peaks_free(struct oprank *r)
{
	size_t i;

	for (i = 0; i < r->npeaks; i++) {
		free(r->peaks[i].pattern);
		free(r->peaks[i].gpu);
	}
	free(r->peaks);
}

/* The row for a GPU named by -g (its id or name) or by the trace. */
const struct gpupeak *
op_peak_of(const struct oprank *r, const char *name)
{
	const struct gpupeak *g = NULL;
	char *low;
	size_t i;

	if (r->gpu != NULL)
		name = r->gpu;
	if (name == NULL)
		return NULL;
	low = op_lower_dup(name);
	for (i = 0; i < r->npeaks && g == NULL; i++)
		if (strcasecmp(name, r->peaks[i].gpu) == 0 ||
		    fnmatch(r->peaks[i].pattern, low, 0) == 0)
			g = &r->peaks[i];
	free(low);
	return g;
}

char *
op_lower_dup(const char *s)
{
	char *t = xstrdup(s), *p;

	for (p = t; *p != '\0'; p++)
		*p = (char)tolower((unsigned char)*p);
	return t;
}

/*
 * The peak for work in precision prec: fp32 GEMMs may run as TF32, which
 * is judged against TF32's peak only when the fp32 one is beaten.
 */
static double
peak_for(const struct gpupeak *g, const char *prec)
{
	int i;

	if (g == NULL || prec == NULL)
		return NAN;
	for (i = 0; i < NPEAK; i++)
		if (strcmp(prec, op_peakname[i]) == 0)
			return g->tflops[i];
	return NAN;
}

static const char *
model_name(int m)
{
	static const char *const name[] = {
		"none", "gemm", "conv", "attention", "norm", "elementwise",
		"fused"
	};

	return name[m];
}

/* By GPU time, then FLOPs, then name and key: a total order. */
static int
cmpshape(const void *a, const void *b)
{
	const struct strent *x = *(struct strent *const *)a;
	const struct strent *y = *(struct strent *const *)b;
	const struct shsum *s = x->val, *t = y->val;
	double fs = s->flops * (double)s->count, ft = t->flops * (double)t->count;

	if (s->gpu != t->gpu)
		return s->gpu > t->gpu ? -1 : 1;
	if (fs != ft)
		return fs > ft ? -1 : 1;
	return x->len != y->len || memcmp(x->key, y->key, x->len) != 0 ?
	    (x->len < y->len ? -1 : x->len > y->len ? 1 :
	    memcmp(x->key, y->key, x->len)) : 0;
}

/* name, model, dims, types, precision, causal, flops, bytes. */
static void
put_shape_fields(struct jw *w, const struct shsum *sh)
{
	size_t i, n = 0;
	int j;

	jw_key(w, "name");
	jw_cstring(w, sh->name);
	jw_key(w, "model");
	jw_cstring(w, model_name(sh->model));
	jw_key(w, "dims");
	jw_begin_array(w);
	for (i = 0; i < sh->nin; i++) {
		jw_begin_array(w);
		for (j = 0; j < sh->rank[i]; j++)
			jw_int(w, sh->dim[n++]);
		jw_end_array(w);
	}
	jw_end_array(w);
	jw_key(w, "types");
	jw_begin_array(w);
	for (i = 0; i < sh->ntype; i++)
		jw_string_valid(w, sh->type[i], strlen(sh->type[i]));
	jw_end_array(w);
	jw_key(w, "precision");
	jw_cstring_or_null(w, sh->prec);
	if (sh->model == OM_ATTN) {
		jw_key(w, "causal");
		jw_bool(w, sh->causal);
	}
	jw_key(w, "flops");
	jw_double(w, sh->flops);
	jw_key(w, "bytes");
	jw_double(w, sh->bytes);
}

static void
put_ratio(struct jw *w, double num, double den)
{
	if (den > 0 && isfinite(num / den))
		jw_double(w, op_round3(num / den));
	else
		jw_null(w);
}

/*
 * A rank's op_shape records, by GPU time, then its compute_summary: the
 * modelled FLOPs and their rate, and MFU per step over the modelled
 * operators against the peak of the precision with the most FLOPs.
 */
void
op_put_shapes(struct oprank *r, struct jw *w, struct agg *a)
{
	struct strent **ent;
	struct spillcur c;
	const struct step *s;
	const struct gpupeak *g = op_rank_peak(r, a);
	const struct gpumodel *m = op_model_of(r, a);
	double fl[NPEAK + 1] = { 0 }, total = 0, gpu = 0, peak, pk, ach;
	double mfu = 0;
	size_t i, nsteps = 0, n = 0;
	int j, best = -1;

	if (a->shapes.count == 0 && a->unshaped == 0)
		return;
	ent = strmap_sorted(&a->shapes);
	xqsort(ent, a->shapes.count, sizeof(*ent), cmpshape);
	for (i = 0; i < a->shapes.count; i++) {
		const struct shsum *sh = ent[i]->val;
		double us = (double)sh->gpu / 1000, f = sh->flops *
		    (double)sh->count, b = sh->bytes * (double)sh->count;
		int mem = sh->model == OM_NORM || sh->model == OM_ELEM ||
		    sh->model == OM_FUSED;

		/* Every call of it ran inside another costed one. */
		if (sh->count == 0)
			continue;
		total += f;
		gpu += us;
		if (!mem && sh->prec != NULL)
			for (j = 0; j < NPEAK; j++)
				if (strcmp(sh->prec, op_peakname[j]) == 0)
					fl[j] += f;
		if (r->limit > 0 && n++ >= (size_t)r->limit)
			continue;
		jw_record(w, "op_shape");
		op_put_rank(w, a->rank);
		put_shape_fields(w, sh);
		jw_key(w, "count");
		jw_int(w, sh->count);
		jw_key(w, "gpu_us");
		jw_us(w, sh->gpu);
		jw_key(w, "tflops");
		put_ratio(w, f / 1e6, us);
		jw_key(w, "tbps");
		put_ratio(w, b / 1e6, us);
		jw_key(w, "intensity");
		put_ratio(w, sh->flops, sh->bytes);
		jw_key(w, "bound");
		jw_cstring(w, opcost_bound(sh->model));
		pk = peak_for(g, sh->prec);
		ach = us > 0 ? f / 1e6 / us : NAN;
		/* fp32 faster than fp32 can go was TF32. */
		if (sh->prec != NULL && strcmp(sh->prec, "fp32") == 0 &&
		    g != NULL && ach > pk && isfinite(g->tflops[2]))
			pk = g->tflops[2];
		jw_key(w, "peak_tflops");
		jw_double(w, pk);
		jw_key(w, "peak_tbps");
		jw_double(w, g != NULL ? g->tbps : NAN);
		jw_key(w, "of_peak");
		if (mem)
			put_ratio(w, b / 1e6 / us, g != NULL ? g->tbps : NAN);
		else
			put_ratio(w, ach, pk);
		jw_end(w);
	}
	free(ent);
	for (j = 0; j < NPEAK; j++)
		if (fl[j] > 0 && (best < 0 || fl[j] > fl[best]))
			best = j;
	peak = best >= 0 && g != NULL ? g->tflops[best] : NAN;
	op_steps_open(&c, a);
	while ((s = spill_next(&c)) != NULL) {
		double d = (double)(s->end - s->ts) / 1e3;

		if (s->flops > 0 && d > 0) {
			mfu += s->flops / 1e6 / d;
			nsteps++;
		}
	}
	spillcur_free(&c);
	jw_record(w, "compute_summary");
	op_put_rank(w, a->rank);
	jw_key(w, "gpu");
	jw_cstring_or_null(w, g != NULL ? g->gpu : a->gpu != NULL &&
	    a->gpu[0] != '\0' ? a->gpu : NULL);
	jw_key(w, "device_name");
	jw_cstring_or_null(w, a->gpu != NULL && a->gpu[0] != '\0' ? a->gpu :
	    NULL);
	if (m != NULL) {
		jw_key(w, "device_inferred");
		jw_cstring(w, m->name);
	}
	jw_key(w, "precision");
	jw_cstring_or_null(w, best >= 0 ? op_peakname[best] : NULL);
	jw_key(w, "peak_tflops");
	jw_double(w, peak);
	jw_key(w, "flops");
	jw_double(w, total);
	jw_key(w, "gpu_us");
	jw_double(w, op_round3(gpu));
	jw_key(w, "tflops");
	put_ratio(w, total / 1e6, gpu);
	/* What the GPU can do, null where it cannot: precision advice reads it. */
	jw_key(w, "peaks");
	jw_begin_object(w);
	for (j = 0; j < NPEAK; j++) {
		jw_ckey(w, op_peakname[j]);
		jw_double(w, g != NULL ? g->tflops[j] : NAN);
	}
	jw_end_object(w);
	jw_key(w, "steps");
	jw_uint(w, nsteps);
	/* Of the modelled operators only: the rest of the step adds none. */
	jw_key(w, "mfu");
	put_ratio(w, nsteps > 0 ? mfu / (double)nsteps : NAN, peak);
	jw_key(w, "uncosted");
	jw_int(w, a->unshaped);
	jw_end(w);
}

/* The rank's shapes as op_partial_shape records, in key order: how many. */
size_t
op_put_shape_partials(struct jw *w, const struct agg *a)
{
	struct strent **ent = strmap_sorted(&a->shapes);
	size_t i, n = 0;

	for (i = 0; i < a->shapes.count; i++) {
		const struct shsum *sh = ent[i]->val;

		if (sh->count == 0)
			continue;
		jw_record(w, "op_partial_shape");
		op_put_rank(w, a->rank);
		put_shape_fields(w, sh);
		jw_key(w, "count");
		jw_int(w, sh->count);
		jw_key(w, "gpu");
		jw_int(w, sh->gpu);
		jw_end(w);
		n++;
	}
	free(ent);
	return n;
}

/* An op_partial_shape record of r->doc into rank a. */
int
op_shape_partial(struct oprank *r, struct agg *a)
{
	const struct jdoc *d = r->doc;
	struct opcost c;
	struct shsum *sh;
	const char *name, *s;
	int64_t count, gpu;
	int i, dims, types;

	memset(&c, 0, sizeof(c));
	if (jdoc_get_str(d, 0, "name", &name, NULL) < 0 ||
	    jdoc_get_str(d, 0, "model", &s, NULL) < 0 ||
	    jdoc_get_double(d, 0, "flops", &c.flops) < 0 ||
	    jdoc_get_double(d, 0, "bytes", &c.bytes) < 0 ||
	    jdoc_get(d, 0, "count") < 0 || jdoc_get(d, 0, "gpu") < 0 ||
	    (dims = jdoc_get(d, 0, "dims")) < 0 ||
	    (types = jdoc_get(d, 0, "types")) < 0)
		return jdoc_error(r->file, d, 0, "\"op_partial_shape\" lacks"
		    " \"name\", \"model\", \"dims\", \"types\", \"flops\","
		    " \"bytes\", \"count\" or \"gpu\"");
	if (op_get_num(r, 0, "count", P_SIZE, &count) < 0 ||
	    op_get_num(r, 0, "gpu", P_SIZE, &gpu) < 0)
		return -1;
	if (!isfinite(c.flops) || c.flops < 0 || !isfinite(c.bytes) ||
	    c.bytes < 0)
		return jdoc_error(r->file, d, 0, "\"op_partial_shape\" record's"
		    " \"%s\" is not a finite number of 0 or more",
		    !isfinite(c.flops) || c.flops < 0 ? "flops" : "bytes");
	for (c.model = OM_GEMM; c.model <= OM_FUSED; c.model++)
		if (strcmp(s, model_name(c.model)) == 0)
			break;
	if (c.model > OM_FUSED)
		return jdoc_error(r->file, d, 0, "unknown model: %s", s);
	if (jdoc_get_str(d, 0, "precision", &s, NULL) == 0)
		for (i = 0; i < NPEAK; i++)
			if (strcmp(s, op_peakname[i]) == 0)
				c.prec = op_peakname[i];
	i = jdoc_get(d, 0, "causal");
	c.causal = i >= 0 && d->node[i].type == JT_TRUE;
	if (op_shape_key(&r->shapekey, name, &c, d, dims, types) < 0)
		return jdoc_error(r->file, d, (uint32_t)dims, "\"dims\" is not"
		    " a list of lists of whole numbers, or \"types\" not one"
		    " of strings");
	if ((sh = op_shape_get(r, a, &r->shapekey, name, &c, d, dims,
	    types)) == NULL) {
		a->unshaped = op_sat_add(a->unshaped, count);
		return 0;
	}
	sh->count = op_sat_add(sh->count, count);
	sh->gpu = op_sat_add(sh->gpu, gpu);
	return 0;
}
