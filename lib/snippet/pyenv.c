/*
 * pyenv: environment reads found in Python tokens.  Only literal names
 * count: os.getenv(name) with a computed name is not a variable anyone
 * can list.
 */
#include <string.h>
#include <stdlib.h>

#include "base/strbuf.h"
#include "base/xalloc.h"
#include "snippet/pyenv.h"

/* An environment module's constants go this deep through each other. */
#define TRACE_DEPTH	3

static char	*literal(const struct pysrc *, size_t);
static int	env_module(const char *, size_t);
static int	at_module_level(const struct pysrc *, size_t);
static uint32_t	trace(const struct pysrc *, const char *, const char *,
		    const char *, const char *, struct envlist *, int);

/*
 * The text of string token t when it is a plain literal (no f, no b, no
 * escapes) that can name a variable: letters, digits, '_', '.', '-'.
 */
static char *
literal(const struct pysrc *s, size_t t)
{
	size_t n, i = 0, q;
	const char *tx;

	if (t >= s->ntok || s->tok[t].type != PT_STRING)
		return NULL;
	tx = pysrc_tok(s, t, &n);
	while (i < n && strchr("rRuU", tx[i]) != NULL)
		i++;
	if (i >= n || (tx[i] != '"' && tx[i] != '\''))
		return NULL;
	q = n - i >= 6 && tx[i + 1] == tx[i] && tx[i + 2] == tx[i] ? 3 : 1;
	if (n - i < 2 * q + 1)
		return NULL;
	tx += i + q;
	n -= i + 2 * q;
	for (i = 0; i < n; i++)
		if (!(tx[i] == '_' || tx[i] == '.' || tx[i] == '-' ||
		    (tx[i] >= 'a' && tx[i] <= 'z') ||
		    (tx[i] >= 'A' && tx[i] <= 'Z') ||
		    (tx[i] >= '0' && tx[i] <= '9')))
			return NULL;
	return xmemdup(tx, n);
}

void
envlist_add(struct envlist *out, const char *var, const char *constant,
    const char *module, const char *by, uint32_t line)
{
	struct envread *e;

	if (out->n == out->cap) {
		out->cap = out->cap ? out->cap * 2 : 16;
		out->v = xreallocarray(out->v, out->cap, sizeof(*out->v));
	}
	e = &out->v[out->n++];
	e->var = var != NULL ? xstrdup(var) : NULL;
	e->constant = constant != NULL ? xstrdup(constant) : NULL;
	e->module = module != NULL ? xstrdup(module) : NULL;
	e->by = xstrdup(by);
	e->line = line;
}

void
pyenv_reads(const struct pysrc *s, size_t first, size_t end, const char *by,
    struct envlist *out)
{
	size_t t, at;
	char *var;

	for (t = first; t < end; t++) {
		at = 0;
		if (pysrc_tok_is(s, t, "getenv") && t + 2 < end &&
		    pysrc_tok_is(s, t + 1, "("))
			at = t + 2;
		else if (pysrc_tok_is(s, t, "environ") && t + 2 < end &&
		    pysrc_tok_is(s, t + 1, "["))
			at = t + 2;
		else if (pysrc_tok_is(s, t, "environ") && t + 4 < end &&
		    pysrc_tok_is(s, t + 1, ".") &&
		    (pysrc_tok_is(s, t + 2, "get") ||
		    pysrc_tok_is(s, t + 2, "setdefault") ||
		    pysrc_tok_is(s, t + 2, "pop")) &&
		    pysrc_tok_is(s, t + 3, "("))
			at = t + 4;
		if (at == 0 || (var = literal(s, at)) == NULL)
			continue;
		envlist_add(out, var, NULL, NULL, by, s->tok[at].line);
		free(var);
	}
}

/* Whether the dotted module name of n bytes at m ends in "env". */
static int
env_module(const char *m, size_t n)
{
	return (n == 3 && memcmp(m, "env", 3) == 0) ||
	    (n > 4 && memcmp(m + n - 4, ".env", 4) == 0);
}

/* Whether statement i is outside every def and class. */
static int
at_module_level(const struct pysrc *s, size_t i)
{
	return pysrc_enclosing(s, s->stmt[i].first, s->stmt[i].first) < 0;
}

void
pyenv_constants(const struct pysrc *s, size_t first, size_t end,
    const char *by, struct envlist *out)
{
	/* local name -> (module, name there); a module alias has no name */
	struct bind {
		char	*local, *module, *name;
	} *b = NULL;
	size_t nb = 0, i, t, e, n, k;
	const char *tx;

	for (i = 0; i < s->nstmt; i++) {
		const struct pystmt *st = &s->stmt[i];
		char *mod;
		size_t mlen = 0, from;

		if (!at_module_level(s, i) || st->ntok < 2)
			continue;
		e = st->tok + st->ntok;
		mod = NULL;
		if (pysrc_tok_is(s, st->tok, "from")) {
			/* from M import a [as b], ... */
			struct strbuf m = { 0 };

			for (t = st->tok + 1; t < e &&
			    !pysrc_tok_is(s, t, "import"); t++) {
				tx = pysrc_tok(s, t, &n);
				sb_put(&m, tx, n);
			}
			mod = m.s;
			mlen = m.len;
			if (mod == NULL || t == e) {
				free(mod);
				continue;
			}
			for (from = t + 1; from < e; from = t + 1) {
				size_t name, local;

				for (t = from; t < e && !pysrc_tok_is(s, t,
				    ","); t++)
					;
				for (name = from; name < t &&
				    s->tok[name].type != PT_NAME; name++)
					;
				if (name == t)
					continue;
				local = name;
				if (name + 2 < t && pysrc_tok_is(s, name + 1,
				    "as"))
					local = name + 2;
				b = xreallocarray(b, nb + 1, sizeof(*b));
				tx = pysrc_tok(s, local, &n);
				b[nb].local = xmemdup(tx, n);
				tx = pysrc_tok(s, name, &n);
				if (env_module(mod, mlen)) {
					b[nb].module = xstrdup(mod);
					b[nb].name = xmemdup(tx, n);
				} else if (n == 3 && memcmp(tx, "env", 3) == 0) {
					/* from P import env: the module */
					b[nb].module = xmalloc(mlen + 5);
					memcpy(b[nb].module, mod, mlen);
					memcpy(b[nb].module + mlen, ".env", 5);
					b[nb].name = NULL;
				} else {
					free(b[nb].local);
					continue;
				}
				nb++;
			}
			free(mod);
		} else if (pysrc_tok_is(s, st->tok, "import")) {
			/* import M as E: a module alias */
			for (t = st->tok + 1; t + 2 < e; t++) {
				size_t m0 = t;

				while (t + 2 < e && pysrc_tok_is(s, t + 1, "."))
					t += 2;
				if (!pysrc_tok_is(s, t + 1, "as"))
					continue;
				mlen = s->tok[t].off + s->tok[t].len -
				    s->tok[m0].off;
				if (!env_module(s->text + s->tok[m0].off, mlen))
					continue;
				b = xreallocarray(b, nb + 1, sizeof(*b));
				tx = pysrc_tok(s, t + 2, &n);
				b[nb].local = xmemdup(tx, n);
				b[nb].module = xmemdup(s->text + s->tok[m0].off,
				    mlen);
				b[nb].name = NULL;
				nb++;
			}
		}
	}
	for (t = first; t < end && nb > 0; t++) {
		if (s->tok[t].type != PT_NAME || (t > first &&
		    pysrc_tok_is(s, t - 1, ".")))
			continue;
		tx = pysrc_tok(s, t, &n);
		for (k = 0; k < nb; k++) {
			if (strlen(b[k].local) != n ||
			    memcmp(b[k].local, tx, n) != 0)
				continue;
			if (b[k].name != NULL)
				envlist_add(out, NULL, b[k].name, b[k].module, by,
				    s->tok[t].line);
			else if (t + 2 < end && pysrc_tok_is(s, t + 1, ".") &&
			    s->tok[t + 2].type == PT_NAME) {
				const char *c;
				size_t cn;
				char *name;

				c = pysrc_tok(s, t + 2, &cn);
				name = xmemdup(c, cn);
				envlist_add(out, NULL, name, b[k].module, by,
				    s->tok[t].line);
				free(name);
			}
		}
	}
	for (k = 0; k < nb; k++) {
		free(b[k].local);
		free(b[k].module);
		free(b[k].name);
	}
	free(b);
}

uint32_t
pyenv_trace(const struct pysrc *envsrc, const char *constant,
    const char *module, const char *by, struct envlist *out)
{
	return trace(envsrc, constant, module, constant, by, out, 0);
}

/*
 * The reads of each module-level assignment to name, added as reads of
 * constant; where one reads none, the module's other constants it names.
 */
static uint32_t
trace(const struct pysrc *s, const char *name, const char *module,
    const char *constant, const char *by, struct envlist *out, int depth)
{
	size_t i, t, e, n, before;
	uint32_t line = 0;
	const char *tx;

	for (i = 0; i < s->nstmt; i++) {
		const struct pystmt *st = &s->stmt[i];

		if (st->ntok < 3 || !at_module_level(s, i) ||
		    !pysrc_tok_is(s, st->tok, name) ||
		    !(pysrc_tok_is(s, st->tok + 1, "=") ||
		    pysrc_tok_is(s, st->tok + 1, ":")))
			continue;
		if (line == 0)
			line = st->first;
		e = st->tok + st->ntok;
		before = out->n;
		pyenv_reads(s, st->tok + 2, e, by, out);
		for (t = before; t < out->n; t++) {
			out->v[t].constant = xstrdup(constant);
			out->v[t].module = xstrdup(module);
		}
		if (out->n > before || depth >= TRACE_DEPTH)
			continue;
		for (t = st->tok + 2; t < e; t++) {
			char *other;

			if (s->tok[t].type != PT_NAME ||
			    pysrc_tok_is(s, t - 1, "."))
				continue;
			tx = pysrc_tok(s, t, &n);
			other = xmemdup(tx, n);
			if (strcmp(other, name) != 0)
				trace(s, other, module, constant, by, out,
				    depth + 1);
			free(other);
		}
	}
	return line;
}

static int
cmp_str(const char *a, const char *b)
{
	if (a == NULL || b == NULL)
		return (a == NULL) - (b == NULL);
	return strcmp(a, b);
}

static int
cmp_read(const void *pa, const void *pb)
{
	const struct envread *a = pa, *b = pb;
	int c;

	if ((c = cmp_str(a->var, b->var)) != 0 ||
	    (c = cmp_str(a->constant, b->constant)) != 0 ||
	    (c = cmp_str(a->by, b->by)) != 0)
		return c;
	return (a->line > b->line) - (a->line < b->line);
}

void
envlist_sort(struct envlist *l)
{
	size_t i, o = 0;

	if (l->n == 0)
		return;
	xqsort(l->v, l->n, sizeof(*l->v), cmp_read);
	for (i = 0; i < l->n; i++) {
		if (o > 0 && cmp_str(l->v[o - 1].var, l->v[i].var) == 0 &&
		    cmp_str(l->v[o - 1].constant, l->v[i].constant) == 0 &&
		    cmp_str(l->v[o - 1].by, l->v[i].by) == 0) {
			free(l->v[i].var);
			free(l->v[i].constant);
			free(l->v[i].module);
			free(l->v[i].by);
			continue;
		}
		l->v[o++] = l->v[i];
	}
	l->n = o;
}

void
envlist_free(struct envlist *l)
{
	size_t i;

	for (i = 0; i < l->n; i++) {
		free(l->v[i].var);
		free(l->v[i].constant);
		free(l->v[i].module);
		free(l->v[i].by);
	}
	free(l->v);
	l->v = NULL;
	l->n = l->cap = 0;
}

char *
pyenv_imported_from(const struct pysrc *s, const char *name)
{
	struct strbuf m = { 0 };
	size_t i, t, e, n;
	const char *tx;

	for (i = 0; i < s->nstmt; i++) {
		const struct pystmt *st = &s->stmt[i];

		if (!at_module_level(s, i) || !pysrc_tok_is(s, st->tok, "from"))
			continue;
		e = st->tok + st->ntok;
		m.len = 0;
		for (t = st->tok + 1; t < e && !pysrc_tok_is(s, t, "import");
		    t++) {
			tx = pysrc_tok(s, t, &n);
			sb_put(&m, tx, n);
		}
		for (; t < e; t++)
			if (pysrc_tok_is(s, t, name) && !pysrc_tok_is(s, t - 1,
			    "as") && !(t + 2 < e && pysrc_tok_is(s, t + 1,
			    "as")) && m.len > 0 && m.s[0] != '.')
				return m.s;
	}
	free(m.s);
	return NULL;
}
