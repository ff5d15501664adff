/*
 * opcost: FLOPs and bytes per call from an operator's input shapes.  Each
 * model reads the inputs PyTorch's schema puts where it says; a call whose
 * inputs are not there, or do not agree, has no cost rather than a wrong
 * one.
 */
#include <errno.h>
#include <math.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "trace/opcost.h"

#define MAXDIM	8

enum form {
	F_MM, F_ADDMM, F_BMM, F_BADDBMM, F_SCALED_MM,
	F_CONV, F_CONV_BWD,
	F_SDPA_FLASH, F_SDPA_EFF, F_SDPA_CUDNN, F_SDPA_FLASH_BWD,
	F_SDPA_EFF_BWD, F_FLASH_FWD, F_FLASH_BWD,
	F_LAYER_NORM, F_BATCH_NORM, F_GROUP_NORM, F_NATIVE_GROUP_NORM,
	F_RMS_NORM,
	F_BINARY, F_UNARY, F_COPY
};

struct modelled {
	const char	*name;
	enum opmodel	 model;
	enum form	 form;
};

/* Sorted by name, for bsearch(). */
static const struct modelled table[] = {
	{ "aten::_fused_rms_norm", OM_NORM, F_RMS_NORM },
	{ "aten::_scaled_dot_product_cudnn_attention", OM_ATTN, F_SDPA_CUDNN },
	{ "aten::_scaled_dot_product_efficient_attention", OM_ATTN, F_SDPA_EFF },
	{ "aten::_scaled_dot_product_efficient_attention_backward", OM_ATTN,
	    F_SDPA_EFF_BWD },
	{ "aten::_scaled_dot_product_flash_attention", OM_ATTN, F_SDPA_FLASH },
	{ "aten::_scaled_dot_product_flash_attention_backward", OM_ATTN,
	    F_SDPA_FLASH_BWD },
	{ "aten::_scaled_mm", OM_GEMM, F_SCALED_MM },
	{ "aten::add", OM_ELEM, F_BINARY },
	{ "aten::add_", OM_ELEM, F_BINARY },
	{ "aten::addmm", OM_GEMM, F_ADDMM },
	{ "aten::baddbmm", OM_GEMM, F_BADDBMM },
	{ "aten::batch_norm", OM_NORM, F_BATCH_NORM },
	{ "aten::bmm", OM_GEMM, F_BMM },
	{ "aten::clamp_min", OM_ELEM, F_UNARY },
	{ "aten::clamp_min_", OM_ELEM, F_UNARY },
	{ "aten::convolution", OM_CONV, F_CONV },
	{ "aten::convolution_backward", OM_CONV, F_CONV_BWD },
	{ "aten::copy_", OM_ELEM, F_COPY },
	{ "aten::cudnn_batch_norm", OM_NORM, F_BATCH_NORM },
	{ "aten::div", OM_ELEM, F_BINARY },
	{ "aten::div_", OM_ELEM, F_BINARY },
	{ "aten::exp", OM_ELEM, F_UNARY },
	{ "aten::gelu", OM_ELEM, F_UNARY },
	{ "aten::group_norm", OM_NORM, F_GROUP_NORM },
	{ "aten::layer_norm", OM_NORM, F_LAYER_NORM },
	{ "aten::mm", OM_GEMM, F_MM },
	{ "aten::mul", OM_ELEM, F_BINARY },
	{ "aten::mul_", OM_ELEM, F_BINARY },
	{ "aten::native_batch_norm", OM_NORM, F_BATCH_NORM },
	{ "aten::native_group_norm", OM_NORM, F_NATIVE_GROUP_NORM },
	{ "aten::native_layer_norm", OM_NORM, F_LAYER_NORM },
	{ "aten::neg", OM_ELEM, F_UNARY },
	{ "aten::relu", OM_ELEM, F_UNARY },
	{ "aten::relu_", OM_ELEM, F_UNARY },
	{ "aten::rms_norm", OM_NORM, F_RMS_NORM },
	{ "aten::rsqrt", OM_ELEM, F_UNARY },
	{ "aten::sigmoid", OM_ELEM, F_UNARY },
	{ "aten::sigmoid_backward", OM_ELEM, F_BINARY },
	{ "aten::silu", OM_ELEM, F_UNARY },
	{ "aten::silu_", OM_ELEM, F_UNARY },
	{ "aten::sub", OM_ELEM, F_BINARY },
	{ "aten::sub_", OM_ELEM, F_BINARY },
	{ "aten::tanh", OM_ELEM, F_UNARY },
	{ "aten::threshold_backward", OM_ELEM, F_BINARY },
	{ "flash_attn::_flash_attn_backward", OM_ATTN, F_FLASH_BWD },
	{ "flash_attn::_flash_attn_forward", OM_ATTN, F_FLASH_FWD },
};

/* A call's inputs as its event gave them. */
struct call {
	const struct jdoc	*d;
	int			 dims, types, concrete;
};

/* One input's shape. */
struct shape {
	int64_t	v[MAXDIM];
	int	n;
};

static const struct modelled	*lookup(const char *);
static int	cmpname(const void *, const void *);
static int	nth(const struct jdoc *, int, int);
static int	shape_of(const struct call *, int, struct shape *);
static const char	*type_of(const struct call *, int);
static const char	*concrete_of(const struct call *, int);
static int	ints_of(const char *, int64_t *, int);
static int	conv_out(int64_t, int64_t, int64_t, int64_t, int64_t, int64_t,
		    int, int64_t *);
static int	bool_of(const char *, int *);
static double	prod(const struct shape *, int);
static int	bpe(const char *);
static const char	*prec(const char *);
static int	gemm(const struct call *, enum form, struct opcost *);
static int	conv(const struct call *, enum form, struct opcost *);
static int	attn(const struct call *, enum form, struct opcost *);
static int	norm(const struct call *, enum form, struct opcost *);
static int	elem(const struct call *, enum form, struct opcost *);
static int	inductor(const char *);
static int	fused(const char *, const struct call *, struct opcost *);

/*
 * A kernel that Inductor generated and fused: its launch is a cpu_op of
 * the kernel's name, "triton_poi_fused_..." (pointwise), "triton_red_..."
 * or "triton_per_..." (reductions), with the kernel's arguments as its
 * inputs.
 */
static int
inductor(const char *name)
{
	return strncmp(name, "triton_poi_", 11) == 0 ||
	    strncmp(name, "triton_red_", 11) == 0 ||
	    strncmp(name, "triton_per_", 11) == 0;
}

enum opmodel
opcost_model(const char *name)
{
	const struct modelled *m = lookup(name);

	if (m == NULL && inductor(name))
		return OM_FUSED;
	return m != NULL ? m->model : OM_NONE;
}

const char *
opcost_bound(enum opmodel m)
{
	return m == OM_NORM || m == OM_ELEM || m == OM_FUSED ? "memory" :
	    "compute";
}

int
opcost_eval(const char *name, const struct jdoc *d, int dims, int types,
    int concrete, struct opcost *c)
{
	const struct modelled *m = lookup(name);
	struct call k = { d, dims, types, concrete };
	int rc;

	memset(c, 0, sizeof(*c));
	if (m == NULL && inductor(name) && dims >= 0 && types >= 0) {
		c->model = OM_FUSED;
		if ((rc = fused(name, &k, c)) < 0)
			return rc;
		return isfinite(c->bytes) ? (c->bytes > 0 ? 0 : -1) :
		    OPCOST_OVERFLOW;
	}
	if (m == NULL || dims < 0 || types < 0)
		return -1;
	c->model = m->model;
	switch (m->model) {
	case OM_GEMM:
		rc = gemm(&k, m->form, c);
		break;
	case OM_CONV:
		rc = conv(&k, m->form, c);
		break;
	case OM_ATTN:
		rc = attn(&k, m->form, c);
		break;
	case OM_NORM:
		rc = norm(&k, m->form, c);
		break;
	default:
		rc = elem(&k, m->form, c);
		break;
	}
	if (rc < 0)
		return rc;
	if (!isfinite(c->flops) || !isfinite(c->bytes))
		return OPCOST_OVERFLOW;
	if (c->flops < 0 || c->bytes <= 0)
		return -1;
	return 0;
}

static const struct modelled *
lookup(const char *name)
{
	return bsearch(name, table, sizeof(table) / sizeof(table[0]),
	    sizeof(table[0]), cmpname);
}

static int
cmpname(const void *key, const void *ent)
{
	return strcmp(key, ((const struct modelled *)ent)->name);
}

/* The node of element i of array a, or -1. */
static int
nth(const struct jdoc *d, int a, int i)
{
	uint32_t j, k;

	if (a < 0 || d->node[a].type != JT_ARRAY || i < 0 ||
	    (uint32_t)i >= d->node[a].len)
		return -1;
	for (j = (uint32_t)a + 1, k = 0; k < (uint32_t)i; k++)
		j = d->node[j].next;
	return (int)j;
}

/* Input i's dimensions: 0, or -1 when they are not whole numbers. */
static int
shape_of(const struct call *k, int i, struct shape *s)
{
	const struct jdoc *d = k->d;
	int a = nth(d, k->dims, i), j;
	int64_t v;

	s->n = 0;
	if (a < 0 || d->node[a].type != JT_ARRAY || d->node[a].len > MAXDIM)
		return -1;
	for (j = 0; j < (int)d->node[a].len; j++) {
		int e = nth(d, a, j);

		if (d->node[e].type != JT_NUMBER || jnum_int64(jdoc_str(d,
		    (uint32_t)e), d->node[e].len, &v) < 0 || v < 0)
			return -1;
		s->v[s->n++] = v;
	}
	return 0;
}

static const char *
type_of(const struct call *k, int i)
{
	int e = nth(k->d, k->types, i);

	return e >= 0 && k->d->node[e].type == JT_STRING ?
	    jdoc_str(k->d, (uint32_t)e) : NULL;
}

/* Concrete input i's text; "" when absent, as PyTorch writes a tensor. */
static const char *
concrete_of(const struct call *k, int i)
{
	int e = nth(k->d, k->concrete, i);

	return e >= 0 && k->d->node[e].type == JT_STRING ?
	    jdoc_str(k->d, (uint32_t)e) : "";
}

/*
 * An int list as Concrete Inputs write it, "[16, 16]" or "2": the number
 * of values (at most n), -1, or OPCOST_OVERFLOW for one past 64 bits.
 */
static int
ints_of(const char *s, int64_t *v, int n)
{
	char *end;
	int m = 0;

	s += strspn(s, "[ ");
	while (*s != '\0' && *s != ']') {
		if (m == n)
			return -1;
		errno = 0;
		v[m++] = strtoll(s, &end, 10);
		if (end == s)
			return -1;
		if (errno == ERANGE)
			return OPCOST_OVERFLOW;
		s = end + strspn(end, ", ");
	}
	return m;
}

/*
 * A convolution's output size in one dimension, as PyTorch computes it
 * (conv_output_size(), conv_input_size() when transposed), into *o; -1
 * past 64 bits, where a shape of 2^63-1 and its stride would wrap.
 */
static int
conv_out(int64_t in, int64_t k, int64_t stride, int64_t pad, int64_t dil,
    int64_t opad, int transposed, int64_t *o)
{
	int64_t span, twopad, v;

	if (__builtin_sub_overflow(k, 1, &span) ||
	    __builtin_mul_overflow(dil, span, &span) ||
	    __builtin_mul_overflow(pad, 2, &twopad))
		return -1;
	if (transposed) {
		if (__builtin_sub_overflow(in, 1, &v) ||
		    __builtin_mul_overflow(v, stride, &v) ||
		    __builtin_sub_overflow(v, twopad, &v) ||
		    __builtin_add_overflow(v, span, &v) ||
		    __builtin_add_overflow(v, opad, &v) ||
		    __builtin_add_overflow(v, 1, &v))
			return -1;
	} else if (__builtin_add_overflow(in, twopad, &v) ||
	    __builtin_sub_overflow(v, span, &v) ||
	    __builtin_sub_overflow(v, 1, &v) ||
	    __builtin_add_overflow(v / stride, 1, &v))
		return -1;
	*o = v;
	return 0;
}

/* "True" or "False", as Python prints a bool; "" or "None": false. */
static int
bool_of(const char *s, int *b)
{
	if (strcmp(s, "True") == 0 || strcmp(s, "true") == 0)
		*b = 1;
	else if (*s == '\0' || strcmp(s, "False") == 0 ||
	    strcmp(s, "false") == 0 || strcmp(s, "None") == 0)
		*b = 0;
	else
		return -1;
	return 0;
}

/* The product of s's dimensions from the from'th. */
static double
prod(const struct shape *s, int from)
{
	double p = 1;
	int i;

	for (i = from; i < s->n; i++)
		p *= (double)s->v[i];
	return p;
}

/*
 * Bytes per element of a type as "Input type" names it: perf_model.py's
 * name2bpe(), and the names older PyTorch and other compilers give int64
 * and int16.
 */
static int
bpe(const char *t)
{
	static const struct {
		const char	*t;
		int		 n;
	} size[] = {
		{ "double", 8 }, { "long int", 8 }, { "long", 8 },
		{ "float", 4 }, { "short int", 2 }, { "short", 2 },
		{ "Scalar", 4 }, { "int", 4 }, { "c10::Half", 2 },
		{ "c10::BFloat16", 2 }, { "c10::Float8_e4m3fn", 1 },
		{ "c10::Float8_e4m3fnuz", 1 }, { "c10::Float8_e5m2", 1 },
		{ "c10::Float8_e5m2fnuz", 1 }, { "c10::Float8_e8m0fnu", 1 },
		{ "unsigned char", 1 }, { "signed char", 1 },
		{ "c10::Float4_e2m1fn_x2", 1 }, { "bool", 1 },
	};
	size_t i;

	for (i = 0; t != NULL && i < sizeof(size) / sizeof(size[0]); i++)
		if (strcmp(t, size[i].t) == 0)
			return size[i].n;
	return 0;
}

/* The precision a type computes in, as op-rank's records name it. */
static const char *
prec(const char *t)
{
	if (t == NULL)
		return NULL;
	if (strcmp(t, "c10::BFloat16") == 0)
		return "bf16";
	if (strcmp(t, "c10::Half") == 0)
		return "fp16";
	if (strcmp(t, "float") == 0)
		return "fp32";
	if (strcmp(t, "double") == 0)
		return "fp64";
	if (strncmp(t, "c10::Float8_", 12) == 0)
		return "fp8";
	if (strcmp(t, "c10::Float4_e2m1fn_x2") == 0)
		return "fp4";
	if (strcmp(t, "signed char") == 0 || strcmp(t, "unsigned char") == 0)
		return "int8";
	return NULL;
}

/*
 * GEMMs: 2·M·N·K, and M·N more for the added bias; bytes: A, B, the output
 * and a 1×N bias, all in A's type (perf_model.py's GEMM).  Batched forms
 * times the batch.
 */
static int
gemm(const struct call *k, enum form f, struct opcost *c)
{
	struct shape a, b;
	int bias = f == F_ADDMM || f == F_BADDBMM;
	int first = bias ? 1 : 0, batched = f == F_BMM || f == F_BADDBMM;
	double m, n, kk, nb = 1;
	int e;

	if (shape_of(k, first, &a) < 0 || shape_of(k, first + 1, &b) < 0)
		return -1;
	if (batched) {
		if (a.n != 3 || b.n != 3 || a.v[0] != b.v[0] ||
		    a.v[2] != b.v[1])
			return -1;
		nb = (double)a.v[0];
		m = (double)a.v[1], kk = (double)a.v[2], n = (double)b.v[2];
	} else {
		if (a.n != 2 || b.n != 2 || a.v[1] != b.v[0])
			return -1;
		m = (double)a.v[0], kk = (double)a.v[1], n = (double)b.v[1];
	}
	if ((e = bpe(type_of(k, first))) == 0)
		return -1;
	c->prec = prec(type_of(k, first));
	c->flops = nb * (2 * m * n * kk + (bias ? m * n : 0));
	if (f == F_SCALED_MM)
		/* fp8 in, a 16-bit output; wider inputs, an output as wide. */
		c->bytes = (m * kk + kk * n) * e + m * n * (e == 1 ? 2 : e);
	else
		c->bytes = nb * (m * kk + kk * n + m * n + (bias ? n : 0)) * e;
	return 0;
}

/*
 * Convolutions: 2·prod(weight[1:]) per output element (per input element
 * when transposed), which counts groups as weight[1] is C_in/groups; the
 * bias adds one per output element when its input has dimensions.
 * Backward: the input's and the weight's gradients, each one forward
 * convolution, and the bias's.  Bytes: input, weight, bias and output in
 * the input's type; backward reads and writes them as perf_model.py's
 * CONV.bytes_bwd_func() does.
 */
static int
conv(const struct call *k, enum form f, struct opcost *c)
{
	struct shape x, w, bs, o;
	int64_t stride[MAXDIM], pad[MAXDIM], dil[MAXDIM], opad[MAXDIM];
	int bwd = f == F_CONV_BWD, xi = bwd ? 1 : 0, ci = bwd ? 4 : 3;
	int nd, i, transposed, bias, e, ns, np, ndl, nop;
	double per, oel, xel;

	if (shape_of(k, xi, &x) < 0 || shape_of(k, xi + 1, &w) < 0 ||
	    x.n < 3 || w.n != x.n)
		return -1;
	nd = x.n - 2;
	bias = shape_of(k, xi + 2, &bs) == 0 && bs.n > 0;
	ns = ints_of(concrete_of(k, ci), stride, MAXDIM);
	np = ints_of(concrete_of(k, ci + 1), pad, MAXDIM);
	ndl = ints_of(concrete_of(k, ci + 2), dil, MAXDIM);
	nop = ints_of(concrete_of(k, ci + 4), opad, MAXDIM);
	if (ns == OPCOST_OVERFLOW || np == OPCOST_OVERFLOW ||
	    ndl == OPCOST_OVERFLOW || nop == OPCOST_OVERFLOW)
		return OPCOST_OVERFLOW;
	if (bool_of(concrete_of(k, ci + 3), &transposed) < 0 || ns < 0 ||
	    np < 0 || ndl < 0 || nop < 0)
		return -1;
	for (i = 0; i < nd; i++) {
		/* One value stands for every spatial dimension. */
		stride[i] = ns == 0 ? 1 : stride[ns == 1 ? 0 : i];
		pad[i] = np == 0 ? 0 : pad[np == 1 ? 0 : i];
		dil[i] = ndl == 0 ? 1 : dil[ndl == 1 ? 0 : i];
		opad[i] = nop == 0 ? 0 : opad[nop == 1 ? 0 : i];
		if ((ns > 1 && ns != nd) || (np > 1 && np != nd) ||
		    (ndl > 1 && ndl != nd) || stride[i] <= 0)
			return -1;
	}
	o.n = x.n;
	o.v[0] = x.v[0];
	o.v[1] = transposed ? w.v[1] : w.v[0];
	for (i = 0; i < nd; i++) {
		if (conv_out(x.v[i + 2], w.v[i + 2], stride[i], pad[i], dil[i],
		    opad[i], transposed, &o.v[i + 2]) < 0)
			return OPCOST_OVERFLOW;
		if (o.v[i + 2] <= 0)
			return -1;
	}
	if ((e = bpe(type_of(k, xi))) == 0)
		return -1;
	c->prec = prec(type_of(k, xi));
	per = 2 * prod(&w, 1);
	oel = prod(&o, 0);
	xel = prod(&x, 0);
	if (!bwd) {
		c->flops = (transposed ? xel : oel) * per + (bias ? oel : 0);
		c->bytes = (xel + prod(&w, 0) + (bias ? (double)o.v[1] : 0) +
		    oel) * e;
		return 0;
	}
	/*
	 * The input's gradient is the transposed convolution of the output's
	 * (the plain one when transposed); the weight's, one over the batch:
	 * 2·prod(weight)·(N·prod(out spatial)) for either.
	 */
	c->flops = (transposed ? xel : oel) * per +
	    2 * prod(&w, 0) * (transposed ? xel / (double)x.v[1] :
	    oel / (double)o.v[1]) + (bias ? oel : 0);
	c->bytes = (2 * (oel + prod(&w, 0) + xel) +
	    (bias ? oel + (double)o.v[1] : 0)) * e;
	return 0;
}

/*
 * Attention: per head, 2·Nq·Nkv·d_qk for the scores and 2·Nq·Nkv·d_v for
 * their product with V, halved when causal (Nq = Nkv); the softmax is
 * left out.  Backward: the gradients of V, P, Q and K, each as large, and
 * the scores recomputed by a flash kernel.  Bytes: Q, K, V and the output
 * once (backward: Q, K, V and dO read, dQ, dK, dV written).  The layout
 * is (B, H, N, d) for aten's, (B, N, H, d) for flash_attn's.
 */
static int
attn(const struct call *k, enum form f, struct opcost *c)
{
	struct shape q, kk, v;
	int bwd = f == F_SDPA_FLASH_BWD || f == F_SDPA_EFF_BWD ||
	    f == F_FLASH_BWD;
	int qi = bwd ? 1 : 0, hn = f == F_FLASH_FWD || f == F_FLASH_BWD;
	int ci, e, causal;
	double b, hq, hkv, nq, nkv, dqk, dv, fl, el;

	if (shape_of(k, qi, &q) < 0 || shape_of(k, qi + 1, &kk) < 0 ||
	    shape_of(k, qi + 2, &v) < 0 || q.n != 4 || kk.n != 4 || v.n != 4)
		return -1;
	b = (double)q.v[0];
	hq = (double)q.v[hn ? 2 : 1], nq = (double)q.v[hn ? 1 : 2];
	hkv = (double)kk.v[hn ? 2 : 1], nkv = (double)kk.v[hn ? 1 : 2];
	dqk = (double)q.v[3], dv = (double)v.v[3];
	if (q.v[0] != kk.v[0] || q.v[0] != v.v[0] || kk.v[1] != v.v[1] ||
	    kk.v[2] != v.v[2] || q.v[3] != kk.v[3] || hkv == 0)
		return -1;
	/* Where is_causal is among the Concrete Inputs. */
	switch (f) {
	case F_SDPA_FLASH:
		ci = 4;
		break;
	case F_SDPA_EFF:
	case F_SDPA_CUDNN:
		ci = 6;
		break;
	case F_FLASH_FWD:
		ci = 5;
		break;
	default:
		ci = 11;
		break;
	}
	if (bool_of(concrete_of(k, ci), &causal) < 0)
		causal = 0;
	if (causal && nq != nkv)
		return -1;
	if ((e = bpe(type_of(k, qi))) == 0)
		return -1;
	c->prec = prec(type_of(k, qi));
	c->causal = causal;
	if (!bwd) {
		fl = b * hq * (2 * nq * nkv * dqk + 2 * nq * nkv * dv);
		el = b * (nq * hq * dqk + nkv * hkv * dqk + nkv * hkv * dv +
		    nq * hq * dv);
	} else {
		fl = f != F_SDPA_EFF_BWD ? b * hq * 2 * nq * nkv * dqk : 0;
		fl += b * hq * 2 * nkv * nq * dv +
		    b * nkv * dv * (hq / hkv - 1);
		fl += b * hq * 2 * nq * nkv * dv;
		fl += b * hq * 2 * nq * nkv * dqk;
		fl += b * hq * 2 * nkv * nq * dqk +
		    b * nkv * dqk * (hq / hkv - 1);
		el = b * (2 * nq * hq * dqk + 2 * nkv * hkv * dqk +
		    2 * nkv * hkv * dv + nq * hq * dv);
	}
	c->flops = causal ? fl / 2 : fl;
	c->bytes = el * e;
	return 0;
}

/*
 * Norms, by the bytes they move: the input read and the output written,
 * and the weight and bias when given.  FLOPs as perf_model.py's
 * Normalization with its statistics computed: 5 per element, 6 per
 * channel.
 */
static int
norm(const struct call *k, enum form f, struct opcost *c)
{
	struct shape x, wt;
	int wi, e, affine;
	double n, ch;

	switch (f) {
	case F_BATCH_NORM:
	case F_NATIVE_GROUP_NORM:
		wi = 1;
		break;
	default:
		wi = 2;
		break;
	}
	if (shape_of(k, 0, &x) < 0 || x.n == 0 ||
	    (e = bpe(type_of(k, 0))) == 0)
		return -1;
	n = prod(&x, 0);
	affine = shape_of(k, wi, &wt) == 0 && wt.n > 0;
	ch = affine ? prod(&wt, 0) : f == F_BATCH_NORM && x.n > 1 ?
	    (double)x.v[1] : 1;
	c->prec = prec(type_of(k, 0));
	c->flops = 5 * n + 6 * ch;
	c->bytes = (2 * n + (affine ? 2 * ch : 0)) * e;
	return 0;
}

/*
 * Elementwise, by the bytes they move: a binary one reads both inputs and
 * writes their broadcast shape in the wider type, one FLOP per output
 * element (perf_model.py's BinaryElementwise); a unary one reads and
 * writes its input; a copy reads the source and writes the destination.
 */
static int
elem(const struct call *k, enum form f, struct opcost *c)
{
	struct shape a, b;
	int ea, eb, i, ia, ib;
	int64_t da, db;
	double out = 1;

	if (shape_of(k, 0, &a) < 0 || (ea = bpe(type_of(k, 0))) == 0)
		return -1;
	c->prec = prec(type_of(k, 0));
	if (f == F_UNARY) {
		c->flops = prod(&a, 0);
		c->bytes = 2 * prod(&a, 0) * ea;
		return 0;
	}
	if (shape_of(k, 1, &b) < 0 || (eb = bpe(type_of(k, 1))) == 0)
		return -1;
	if (f == F_COPY) {
		c->prec = prec(type_of(k, 1));
		c->flops = 0;
		c->bytes = prod(&a, 0) * ea + prod(&b, 0) * eb;
		return 0;
	}
	for (i = 0; i < (a.n > b.n ? a.n : b.n); i++) {
		ia = a.n - 1 - i;
		ib = b.n - 1 - i;
		da = ia >= 0 ? a.v[ia] : 1;
		db = ib >= 0 ? b.v[ib] : 1;

		if (da != db && da != 1 && db != 1)
			return -1;
		out *= (double)(da > db ? da : db);
	}
	c->flops = out;
	c->bytes = prod(&a, 0) * ea + prod(&b, 0) * eb +
	    out * (a.n > 0 && b.n > 0 && eb > ea ? eb : ea);
	return 0;
}

/*
 * An Inductor kernel's bytes, as TraceLens's TritonCompiledPerfModel reads
 * them from the trace (its "V2"): every tensor argument's elements times
 * its size, scalars and 0-d arguments aside, and for a pointwise kernel,
 * whose output may reuse an input's buffer (in_out_ptr), one more write of
 * the first's type over its xnumel, the last integer among the concrete
 * inputs.  No FLOPs: they would need the ATen ops fused into it.
 */
static int
fused(const char *name, const struct call *k, struct opcost *c)
{
	const struct jdoc *d = k->d;
	struct shape s;
	const char *t, *v;
	char *end;
	long long x;
	int i, n, e, first = 0;
	double xnumel = -1;

	n = (int)d->node[k->dims].len;
	for (i = 0; i < n; i++) {
		t = type_of(k, i);
		if (t == NULL || strcmp(t, "Scalar") == 0)
			continue;
		if (shape_of(k, i, &s) < 0)
			return -1;
		if (s.n == 0)
			continue;
		if ((e = bpe(t)) == 0)
			return -1;
		if (first == 0) {
			first = e;
			c->prec = prec(t);
		}
		c->bytes += prod(&s, 0) * e;
	}
	for (i = 0; k->concrete >= 0 &&
	    i < (int)d->node[k->concrete].len; i++) {
		if ((v = concrete_of(k, i)) == NULL || *v == '\0')
			continue;
		errno = 0;
		x = strtoll(v, &end, 10);
		if (*end == '\0' && errno == 0 && x >= 0)
			xnumel = (double)x;
	}
	if (first == 0)
		return -1;
	if (strncmp(name, "triton_poi_", 11) == 0) {
		if (xnumel < 0)
			return -1;
		c->bytes += first * xnumel;
	}
	c->flops = 0;
	return 0;
}
