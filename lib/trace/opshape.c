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
#include "trace/opbase.h"
#include "trace/opcore.h"
#include "trace/opdevice.h"
#include "trace/opfield.h"
#include "trace/opshape.h"
#include "trace/opstep.h"
#include "trace/opsums.h"

static int	cmpshape(const void *, const void *);
static double	peak_for(const struct gpupeak *, const char *);
static void	put_shape_fields(struct jw *, const struct shsum *);
static const char	*model_name(int);

/*
 * The key of a shape: the operator's name, its call's shapes (callshape.h)
 * and its cost, so that no two shapes share one.  -1 when the call has no
 * shape (a list of tensors, say): such calls are not costed by shape.
 */
int
op_shape_key(struct strbuf *key, const char *name, const struct opcost *c,
    const struct jdoc *d, const struct shapenodes *in)
{
	sb_truncate(key, 0);
	sb_printf(key, "%zu:%s|", strlen(name), name);
	if (callshape_key(key, d, in) < 0)
		return -1;
	sb_printf(key, "|%a|%a|%d", c->flops, c->bytes, c->causal);
	return 0;
}

/*
 * The sums of shape key in a, made from the call's shapes when new; NULL
 * when a holds r->maxshape shapes already.
 */
struct shsum *
op_shape_get(struct oprank *r, struct agg *a, const struct strbuf *key,
    const char *name, const struct opcost *c, const struct jdoc *d,
    const struct shapenodes *in)
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
	callshape_copy(&sh->shape, d, in);
	return sh;
}

void
op_shape_free(void *p)
{
	struct shsum *sh = p;

	callshape_free(&sh->shape);
	free(sh->name);
	free(sh);
}

static struct shsum *
shape_dup(const struct shsum *s)
{
	struct shsum *t = xcalloc(1, sizeof(*t));

	*t = *s;
	t->name = xstrdup(s->name);
	t->idx = NOSHAPE;
	t->count = t->gpu = t->self = 0;
	callshape_dup(&t->shape, &s->shape);
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
		t->self = op_sat_add(t->self, s->self);
	}
	dst->unshaped = op_sat_add(dst->unshaped, src->unshaped);
	free(ent);
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

/* By GPU time, then self CPU time, FLOPs, name and key: a total order. */
static int
cmpshape(const void *a, const void *b)
{
	const struct strent *x = *(struct strent *const *)a;
	const struct strent *y = *(struct strent *const *)b;
	const struct shsum *s = x->val, *t = y->val;
	double fs = s->flops * (double)s->count, ft = t->flops * (double)t->count;

	if (s->gpu != t->gpu)
		return s->gpu > t->gpu ? -1 : 1;
	/* On the CPU alone, the costliest is that which holds it longest. */
	if (s->self != t->self)
		return s->self > t->self ? -1 : 1;
	if (fs != ft)
		return fs > ft ? -1 : 1;
	return x->len != y->len || memcmp(x->key, y->key, x->len) != 0 ?
	    (x->len < y->len ? -1 : x->len > y->len ? 1 :
	    memcmp(x->key, y->key, x->len)) : 0;
}

/*
 * name, model, dims, types, strides and concrete (callshape_put()),
 * precision, causal, flops, bytes.
 */
static void
put_shape_fields(struct jw *w, const struct shsum *sh)
{
	jw_key(w, "name");
	jw_cstring(w, sh->name);
	jw_key(w, "model");
	jw_cstring(w, model_name(sh->model));
	callshape_put(w, &sh->shape);
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
		/* Summed as key_averages() sums it; less than nothing is 0. */
		jw_key(w, "self_us");
		jw_us(w, sh->self > 0 ? sh->self * 1000 : 0);
		jw_key(w, "tflops");
		jw_ratio3(w, f / 1e6, us);
		jw_key(w, "tbps");
		jw_ratio3(w, b / 1e6, us);
		jw_key(w, "intensity");
		jw_ratio3(w, sh->flops, sh->bytes);
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
			jw_ratio3(w, b / 1e6 / us, g != NULL ? g->tbps : NAN);
		else
			jw_ratio3(w, ach, pk);
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
	jw_ratio3(w, total / 1e6, gpu);
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
	jw_ratio3(w, nsteps > 0 ? mfu / (double)nsteps : NAN, peak);
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
		jw_key(w, "self");
		jw_int(w, sh->self);
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
	struct shapenodes in;
	const char *name, *s;
	int64_t count, gpu, self;
	int i;

	memset(&c, 0, sizeof(c));
	if (jdoc_get_str(d, 0, "name", &name, NULL) < 0 ||
	    jdoc_get_str(d, 0, "model", &s, NULL) < 0 ||
	    jdoc_get_double(d, 0, "flops", &c.flops) < 0 ||
	    jdoc_get_double(d, 0, "bytes", &c.bytes) < 0 ||
	    jdoc_get(d, 0, "count") < 0 || jdoc_get(d, 0, "gpu") < 0 ||
	    jdoc_get(d, 0, "self") < 0 ||
	    (callshape_nodes(d, 0, &in), in.dims) < 0 || in.types < 0)
		return jdoc_error(r->file, d, 0, "\"op_partial_shape\" lacks"
		    " \"name\", \"model\", \"dims\", \"types\", \"flops\","
		    " \"bytes\", \"count\", \"gpu\" or \"self\"");
	if (op_get_num(r, 0, "count", P_SIZE, &count) < 0 ||
	    op_get_num(r, 0, "gpu", P_SIZE, &gpu) < 0 ||
	    op_get_num(r, 0, "self", P_SIZE, &self) < 0)
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
	if (op_shape_key(&r->shapekey, name, &c, d, &in) < 0)
		return jdoc_error(r->file, d, (uint32_t)in.dims, "\"dims\" is"
		    " not a list of lists of whole numbers, or \"types\" not"
		    " one of strings");
	if ((sh = op_shape_get(r, a, &r->shapekey, name, &c, d, &in)) ==
	    NULL) {
		a->unshaped = op_sat_add(a->unshaped, count);
		return 0;
	}
	sh->count = op_sat_add(sh->count, count);
	sh->gpu = op_sat_add(sh->gpu, gpu);
	sh->self = op_sat_add(sh->self, self);
	return 0;
}
