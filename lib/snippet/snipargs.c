#include <ctype.h>
#include <errno.h>
#include <fnmatch.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "base/err.h"
#include "base/strbuf.h"
#include "base/xalloc.h"
#include "snippet/snipcfg.h"
#include "snippet/snipin.h"
#include "snippet/snipout.h"
#include "snippet/snipplan.h"

static size_t	def_params(const struct pysrc *, const struct pydef *,
		    struct param **);
static char	*token_text(const struct pysrc *, size_t, size_t);
static int	ctor_free(const struct pysrc *, int, struct strbuf *, int);
static int	is_dataclass(const struct pysrc *, int);
static void	dataclass_fields(const struct pysrc *, int, struct strbuf *);

/* The parameters of the def, from its parenthesized list. */
void
plan_params(struct snip *sn)
{
	sn->npar = def_params(sn->s, sn->f, &sn->par);
}

/*
 * The parameters of definition f into *out (which the caller frees, with
 * each name and annotation); returns how many.
 */
static size_t
def_params(const struct pysrc *s, const struct pydef *f, struct param **out)
{
	const struct pystmt *st = &s->stmt[f->stmt];
	struct param *par;
	size_t t, end = f->colon, item, npar = 0;
	int kwonly = 0;

	for (t = st->tok; t < end; t++)
		if (s->tok[t].depth == 0 && pysrc_tok_is(s, t, "("))
			break;
	par = xreallocarray(NULL, end - t + 1, sizeof(*par));
	for (item = ++t; t < end; t++) {
		const struct pytok *k = &s->tok[t];
		struct param *p;
		size_t i, n, colon = 0;
		const char *name;

		if (k->type == PT_COMMENT)
			continue;
		/* Items end at a ',' inside the list or at its ')'. */
		if (!((k->depth == 1 && pysrc_tok_is(s, t, ",")) ||
		    (k->depth == 0 && pysrc_tok_is(s, t, ")"))))
			continue;
		/* One item: tokens [item, t). */
		while (item < t && s->tok[item].type == PT_COMMENT)
			item++;
		if (item < t) {
			p = &par[npar];
			p->kind = kwonly ? P_KWONLY : P_POS;
			p->has_default = 0;
			p->ann = NULL;
			i = item;
			if (pysrc_tok_is(s, i, "*")) {
				kwonly = 1;
				p->kind = P_VARARGS;
				i++;
			} else if (pysrc_tok_is(s, i, "**")) {
				p->kind = P_VARKW;
				i++;
			}
			while (i < t && s->tok[i].type == PT_COMMENT)
				i++;
			if (i < t && s->tok[i].type == PT_NAME) {
				name = pysrc_tok(s, i, &n);
				p->name = xmemdup(name, n);
				for (; i < t; i++) {
					if (s->tok[i].depth != 1)
						continue;
					if (pysrc_tok_is(s, i, ":") &&
					    colon == 0)
						colon = i;
					if (pysrc_tok_is(s, i, "=")) {
						p->has_default = 1;
						break;
					}
				}
				if (colon != 0)
					p->ann = token_text(s, colon + 1, i);
				npar++;
			}
		}
		item = t + 1;
		if (pysrc_tok_is(s, t, ")"))
			break;
	}
	*out = par;
	return npar;
}

/*
 * The text of tokens [from, to), comments left out and each run of
 * blanks and line breaks between them one space; NULL when empty.
 */
static char *
token_text(const struct pysrc *s, size_t from, size_t to)
{
	struct strbuf b = { 0 };
	size_t t, n;
	const char *tx;

	for (t = from; t < to; t++) {
		if (s->tok[t].type == PT_COMMENT)
			continue;
		tx = pysrc_tok(s, t, &n);
		if (b.len > 0 && s->tok[t].off > s->tok[t - 1].off +
		    s->tok[t - 1].len)
			sb_puts(&b, " ");
		sb_put(&b, tx, n);
	}
	return b.s;
}

/* Whether the def is a method, and of what kind; its class. */
void
plan_method_kind(struct snip *sn)
{
	const struct pysrc *s = sn->s;
	const struct pydef *f = sn->f;
	size_t i;
	int p;

	for (i = 0; i < f->stmt; i++)
		if (s->stmt[i].first >= f->decorator &&
		    plan_dropped_decorator(s, i)) {
			char *text = token_text(s, s->stmt[i].tok,
			    s->stmt[i].tok + s->stmt[i].ntok);

			if (sn->dropped.len > 0)
				sb_puts(&sn->dropped, ", ");
			snip_md_code(&sn->dropped, text);
			free(text);
		}
	if (f->parent < 0 || s->def[f->parent].type != PD_CLASS)
		return;
	for (p = f->parent; p >= 0; p = s->def[p].parent)
		if (s->def[p].type != PD_CLASS)
			die("%s:%u: %s is a method of a class defined inside a"
			    " function; copy it by hand", s->name, f->line,
			    f->qualname);
	sn->owner = xstrdup(s->def[f->parent].qualname);
	sn->method = M_INSTANCE;
	for (i = 0; i < f->stmt; i++) {
		if (s->stmt[i].first < f->decorator)
			continue;
		if (pysrc_tok_is(s, s->stmt[i].tok + 1, "staticmethod"))
			sn->method = M_STATIC;
		else if (pysrc_tok_is(s, s->stmt[i].tok + 1, "classmethod"))
			sn->method = M_CLASS;
	}
}

/*
 * Decorators that only make sense inside a class (or mark a declaration)
 * are left out of the module-level copy: a bare dotted name ending in one
 * of these.
 */
int
plan_dropped_decorator(const struct pysrc *s, size_t i)
{
	static const char *const names[] = {
		"staticmethod", "classmethod", "property", "setter", "getter",
		"deleter", "abstractmethod", "overload", "cached_property", NULL
	};
	const struct pystmt *st = &s->stmt[i];
	size_t t, last = st->tok + st->ntok - 1, k;

	for (t = st->tok + 1; t <= last; t++)
		if (s->tok[t].type != PT_COMMENT &&
		    s->tok[t].type != PT_NAME && !pysrc_tok_is(s, t, "."))
			return 0;
	while (last > st->tok && s->tok[last].type == PT_COMMENT)
		last--;
	for (k = 0; names[k] != NULL; k++)
		if (pysrc_tok_is(s, last, names[k]))
			return 1;
	return 0;
}

/*
 * What prepare() gives each parameter: snipin's choice by name and
 * annotation; a method's self is an instance of its production class,
 * made by the call config.yaml's inputs.self names, with no arguments
 * only when the constructor is known to need none.
 */
void
plan_inputs(struct snip *sn)
{
	const char *source = sn->images != NULL ? "images" : "dummy";
	struct strbuf why = { 0 };
	size_t i;

	sn->in = xreallocarray(NULL, sn->npar + 1, sizeof(*sn->in));
	for (i = 0; i < sn->npar; i++) {
		const struct param *p = &sn->par[i];
		struct snipin *in = &sn->in[i];

		if (i == 0 && (sn->method == M_INSTANCE ||
		    sn->method == M_CLASS)) {
			memset(in, 0, sizeof(*in));
			in->want = "any";
			in->kind = sn->method == M_CLASS ? SI_NONE : SI_OBJECT;
			if (sn->method == M_CLASS)
				continue;
			in->call = xstrdup(sn->owner);
			why.len = 0;
			in->kwargs_set = ctor_free(sn->s, sn->f->parent, &why,
			    0) != 0;
			if (!in->kwargs_set)
				in->hint = xstrdup(why.s);
			continue;
		}
		if (p->kind == P_VARARGS || p->kind == P_VARKW) {
			memset(in, 0, sizeof(*in));
			in->kind = SI_NONE;
			in->want = "any";
			continue;
		}
		snipin_classify(in, p->name, p->ann, p->has_default, source);
		if (in->kind != SI_NONE && in->kind != SI_DEFAULT &&
		    in->kind != SI_DEVICE)
			sn->nin++;
	}
	if (sn->method == M_INSTANCE && sn->npar > 0)
		sn->nin++;
	free(why.s);
}

/*
 * Whether calling class c with no arguments is known to work: 1 when its
 * __init__ (its own, or the first a base defined in this file has) takes
 * no required argument, or a dataclass has no field without a default, or
 * no class up to object defines one; 0 when it needs some or a base from
 * another module decides, with the reason in why.  -1: no __init__ in c
 * or its bases here, so object's.
 */
static int
ctor_free(const struct pysrc *s, int c, struct strbuf *why, int depth)
{
	const struct pydef *k = &s->def[c];
	const struct pystmt *st = &s->stmt[k->stmt];
	struct strbuf need = { 0 }, base = { 0 };
	struct param *par;
	size_t i, t, npar, item;
	int r;

	for (i = s->ndef; i-- > 0; )
		if (s->def[i].parent == c && s->def[i].type == PD_DEF &&
		    strcmp(s->def[i].name, "__init__") == 0)
			break;
	if (i != SIZE_MAX) {
		npar = def_params(s, &s->def[i], &par);
		for (t = 1; t < npar; t++) {
			if ((par[t].kind == P_POS || par[t].kind == P_KWONLY) &&
			    !par[t].has_default)
				sb_printf(&need, "%s%s", need.len > 0 ? ", " :
				    "", par[t].name);
			free(par[t].name);
			free(par[t].ann);
		}
		if (npar > 0) {
			free(par[0].name);
			free(par[0].ann);
		}
		free(par);
		r = need.len == 0;
		if (!r)
			sb_printf(why, "%s() needs %s: give them as kwargs",
			    k->qualname, need.s);
		free(need.s);
		return r;
	}
	if (is_dataclass(s, c)) {
		dataclass_fields(s, c, &need);
		r = need.len == 0;
		if (!r)
			sb_printf(why, "the dataclass %s() needs %s: give them"
			    " as kwargs", k->qualname, need.s);
		free(need.s);
		return r;
	}
	/* The bases, in order: the first with an __init__ decides. */
	for (t = st->tok; t < k->colon && !(s->tok[t].depth == 0 &&
	    pysrc_tok_is(s, t, "(")); t++)
		;
	for (item = ++t; t < k->colon; t++) {
		int b;

		if (!((s->tok[t].depth == 1 && pysrc_tok_is(s, t, ",")) ||
		    (s->tok[t].depth == 0 && pysrc_tok_is(s, t, ")"))))
			continue;
		base.len = 0;
		if (base.s != NULL)
			base.s[0] = '\0';
		for (; item < t; item++)
			if (s->tok[item].type != PT_COMMENT) {
				size_t n;
				const char *tx = pysrc_tok(s, item, &n);

				sb_put(&base, tx, n);
			}
		item = t + 1;
		if (base.len == 0 || strchr(base.s, '=') != NULL ||
		    strcmp(base.s, "object") == 0)
			continue;
		for (b = 0; b < (int)s->ndef; b++)
			if (s->def[b].type == PD_CLASS && s->def[b].parent ==
			    -1 && strcmp(s->def[b].qualname, base.s) == 0)
				break;
		if (b == (int)s->ndef || depth >= 8) {
			sb_printf(why, "%s's constructor comes from %s, which"
			    " %s defines: give its keyword arguments",
			    k->qualname, base.s, b == (int)s->ndef ?
			    "another module" : "this module too deep down");
			free(base.s);
			return 0;
		}
		if ((r = ctor_free(s, b, why, depth + 1)) >= 0) {
			free(base.s);
			return r;
		}
	}
	free(base.s);
	return depth == 0 ? 1 : -1;
}

/* Whether class c is decorated with dataclass (or dataclasses.dataclass). */
static int
is_dataclass(const struct pysrc *s, int c)
{
	const struct pydef *k = &s->def[c];
	size_t t;

	for (t = s->stmt[s->line[k->decorator].stmt].tok;
	    t < s->stmt[k->stmt].tok; t++)
		if (pysrc_tok_is(s, t, "dataclass"))
			return 1;
	return 0;
}

/* The fields of a dataclass without a default: "name: type" lines. */
static void
dataclass_fields(const struct pysrc *s, int c, struct strbuf *need)
{
	const struct pydef *k = &s->def[c];
	size_t i, t, end;
	uint32_t cols;

	if (k->stmt + 1 >= s->nstmt || k->oneline)
		return;
	cols = s->stmt[k->stmt + 1].cols;
	for (i = k->stmt + 1; i < s->nstmt && s->stmt[i].first <= k->end;
	    i++) {
		const struct pystmt *st = &s->stmt[i];

		if (st->cols != cols || st->ntok < 3 ||
		    s->tok[st->tok].type != PT_NAME ||
		    !pysrc_tok_is(s, st->tok + 1, ":"))
			continue;
		end = st->tok + st->ntok;
		for (t = st->tok + 2; t < end; t++)
			if (s->tok[t].depth == 0 && pysrc_tok_is(s, t, "="))
				break;
		if (t == end && !pysrc_tok_is(s, st->tok + 2, "ClassVar")) {
			size_t n;
			const char *tx = pysrc_tok(s, st->tok, &n);

			sb_printf(need, "%s%.*s", need->len > 0 ? ", " : "",
			    (int)n, tx);
		}
	}
}
