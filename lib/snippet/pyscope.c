/*
 * pyscope: reads and binds of module-level statements, from tokens.
 */
#include <stdlib.h>
#include <string.h>

#include "base/xalloc.h"
#include "snippet/pyscope.h"

static const char *const keywords[] = {
	"False", "None", "True", "and", "as", "assert", "async", "await",
	"break", "class", "continue", "def", "del", "elif", "else", "except",
	"finally", "for", "from", "global", "if", "import", "in", "is",
	"lambda", "nonlocal", "not", "or", "pass", "raise", "return", "try",
	"while", "with", "yield", NULL
};

/* What one statement does with its names: token indices, in order. */
struct use {
	size_t	*reads, nreads;
	size_t	*binds, nbinds;
	int	 kind;		/* PB_IMPORT, PB_DEF or PB_VALUE */
};

static int	is_keyword(const struct pysrc *, size_t);
static void	stmt_use(const struct pysrc *, size_t, struct use *);
static int	header_of(const struct pysrc *, size_t);
static void	add_name(struct names *, const struct pysrc *, size_t);

static int
is_keyword(const struct pysrc *s, size_t t)
{
	size_t i;

	for (i = 0; keywords[i] != NULL; i++)
		if (pysrc_tok_is(s, t, keywords[i]))
			return 1;
	return 0;
}

static int
same_name(const struct pysrc *s, size_t a, size_t b)
{
	size_t na, nb;
	const char *ta = pysrc_tok(s, a, &na), *tb = pysrc_tok(s, b, &nb);

	return na == nb && memcmp(ta, tb, na) == 0;
}

/*
 * The def or class whose header statement i is, at module level, or -1.
 */
static int
header_of(const struct pysrc *s, size_t i)
{
	size_t d;

	for (d = 0; d < s->ndef; d++)
		if (s->def[d].stmt == i)
			return (int)d;
	return -1;
}

/* Whether token t (a name) is local to a comprehension or lambda in [a, e). */
static int
scoped(const struct pysrc *s, size_t a, size_t e, size_t t)
{
	size_t u, v;

	for (u = a; u < e; u++) {
		if (pysrc_tok_is(s, u, "for") && s->tok[u].depth > 0) {
			for (v = u + 1; v < e && !pysrc_tok_is(s, v, "in"); v++)
				if (s->tok[v].type == PT_NAME &&
				    same_name(s, v, t))
					return 1;
		} else if (pysrc_tok_is(s, u, "lambda")) {
			for (v = u + 1; v < e && !(pysrc_tok_is(s, v, ":") &&
			    s->tok[v].depth == s->tok[u].depth); v++)
				if (s->tok[v].type == PT_NAME &&
				    same_name(s, v, t))
					return 1;
		}
	}
	return 0;
}

static void
push(size_t **v, size_t *n, size_t t)
{
	*v = xreallocarray(*v, *n + 1, sizeof(**v));
	(*v)[(*n)++] = t;
}

/* The reads and binds of statement i. */
static void
stmt_use(const struct pysrc *s, size_t i, struct use *u)
{
	const struct pystmt *st = &s->stmt[i];
	size_t a = st->tok, e = st->tok + st->ntok, t, target_end = a, k;
	size_t *bound = NULL, nbound = 0;
	int d, augmented;

	memset(u, 0, sizeof(*u));
	u->kind = PB_VALUE;
	while (a < e && s->tok[a].type == PT_COMMENT)
		a++;
	if (a == e)
		return;
	if (pysrc_tok_is(s, a, "import") || pysrc_tok_is(s, a, "from")) {
		u->kind = PB_IMPORT;
		for (t = a; t < e && !pysrc_tok_is(s, t, "import"); t++)
			;
		for (k = ++t; t <= e; t++) {
			size_t as;

			if (t < e && !pysrc_tok_is(s, t, ","))
				continue;
			while (k < t && (pysrc_tok_is(s, k, "(") ||
			    s->tok[k].type == PT_COMMENT))
				k++;
			for (as = k; as < t && !pysrc_tok_is(s, as, "as"); as++)
				;
			if (as + 1 < t && s->tok[as + 1].type == PT_NAME)
				push(&u->binds, &u->nbinds, as + 1);
			else if (k < t && s->tok[k].type == PT_NAME)
				push(&u->binds, &u->nbinds, k);
			k = t + 1;
		}
		return;
	}
	if ((d = header_of(s, i)) >= 0) {
		u->kind = PB_DEF;
		for (t = a; t < e && !(s->tok[t].type == PT_NAME &&
		    !is_keyword(s, t)); t++)
			;
		if (t < e)
			push(&u->binds, &u->nbinds, t);
		return;
	}
	/* The targets: before the last '=' (or augmented) at depth 0. */
	for (t = a; t < e; t++) {
		size_t n;
		const char *tx;

		if (s->tok[t].depth != 0 || s->tok[t].type != PT_OP)
			continue;
		tx = pysrc_tok(s, t, &n);
		if ((n == 1 && tx[0] == '=') || (n >= 2 && tx[n - 1] == '=' &&
		    strchr("+-*/%&|^<>@", tx[0]) != NULL && !(n == 2 &&
		    (tx[0] == '<' || tx[0] == '>'))))
			target_end = t;
	}
	/* x: T = v and x: T: only x is a target. */
	if (a + 1 < e && s->tok[a].type == PT_NAME && !is_keyword(s, a) &&
	    pysrc_tok_is(s, a + 1, ":"))
		target_end = a + 1;
	augmented = target_end > a && !pysrc_tok_is(s, target_end, "=") &&
	    !pysrc_tok_is(s, target_end, ":");
	for (t = a; t < target_end; t++)
		if (s->tok[t].type == PT_NAME && !is_keyword(s, t) &&
		    !(t > a && pysrc_tok_is(s, t - 1, ".")) &&
		    !(t + 1 < e && (pysrc_tok_is(s, t + 1, ".") ||
		    pysrc_tok_is(s, t + 1, "[") || pysrc_tok_is(s, t + 1, "("))))
			push(&bound, &nbound, t);
	/* for T in, with E as T, except E as T, (T := v). */
	if (pysrc_tok_is(s, a, "for") || (pysrc_tok_is(s, a, "async") &&
	    pysrc_tok_is(s, a + 1, "for"))) {
		for (t = a; t < e && !pysrc_tok_is(s, t, "for"); t++)
			;
		for (t++; t < e && !(pysrc_tok_is(s, t, "in") &&
		    s->tok[t].depth == 0); t++)
			if (s->tok[t].type == PT_NAME)
				push(&bound, &nbound, t);
	}
	for (t = a; t + 1 < e; t++) {
		if (pysrc_tok_is(s, t, "as") && s->tok[t + 1].type == PT_NAME &&
		    (pysrc_tok_is(s, a, "with") || pysrc_tok_is(s, a, "async") ||
		    pysrc_tok_is(s, a, "except")))
			push(&bound, &nbound, t + 1);
		if (s->tok[t].type == PT_NAME && pysrc_tok_is(s, t + 1, ":="))
			push(&bound, &nbound, t);
	}
	for (t = a; t < e; t++) {
		if (s->tok[t].type != PT_NAME || is_keyword(s, t) ||
		    (t > a && pysrc_tok_is(s, t - 1, ".")))
			continue;
		/* f(key=value): the key is no read. */
		if (s->tok[t].depth > 0 && t + 1 < e &&
		    pysrc_tok_is(s, t + 1, "="))
			continue;
		/* A target is no read, but for x += 1's. */
		for (k = 0; k < nbound && bound[k] != t; k++)
			;
		if (k < nbound && !augmented)
			continue;
		if (scoped(s, a, e, t))
			continue;
		push(&u->reads, &u->nreads, t);
	}
	u->binds = bound;
	u->nbinds = nbound;
}

static void
use_free(struct use *u)
{
	free(u->reads);
	free(u->binds);
}

static void
add_name(struct names *l, const struct pysrc *s, size_t t)
{
	size_t n;
	const char *tx = pysrc_tok(s, t, &n);
	char *name = xmemdup(tx, n);

	if (names_has(l, name)) {
		free(name);
		return;
	}
	if (l->n == l->cap) {
		l->cap = l->cap ? l->cap * 2 : 16;
		l->v = xreallocarray(l->v, l->cap, sizeof(*l->v));
	}
	l->v[l->n++] = name;
}

/*
 * Whether statement i is the range's own: at module level, or a def or
 * class header there, or a decorator of one.
 */
static int
range_level(const struct pysrc *s, size_t i)
{
	int d = pysrc_enclosing(s, s->stmt[i].first, s->stmt[i].first);

	if (d < 0)
		return 1;
	return s->def[d].parent < 0 && (s->def[d].stmt == i ||
	    s->stmt[i].first < s->def[d].line);
}

void
pyscope_range(const struct pysrc *s, size_t first, size_t last,
    struct names *free_names, struct names *bound)
{
	struct use u;
	size_t i, k, n;
	const char *tx;
	char *name;

	for (i = first; i <= last && i < s->nstmt; i++) {
		if (!range_level(s, i))
			continue;
		stmt_use(s, i, &u);
		for (k = 0; k < u.nreads; k++) {
			tx = pysrc_tok(s, u.reads[k], &n);
			name = xmemdup(tx, n);
			if (!names_has(bound, name))
				add_name(free_names, s, u.reads[k]);
			free(name);
		}
		for (k = 0; k < u.nbinds; k++)
			add_name(bound, s, u.binds[k]);
		use_free(&u);
	}
}

int
pyscope_binding(const struct pysrc *s, const char *name, size_t first,
    size_t last)
{
	struct use u;
	size_t i, k, n;
	const char *tx;
	int best = PB_NONE;

	for (i = 0; i < s->nstmt; i++) {
		if ((i >= first && i <= last) || !range_level(s, i))
			continue;
		stmt_use(s, i, &u);
		for (k = 0; k < u.nbinds; k++) {
			tx = pysrc_tok(s, u.binds[k], &n);
			if (strlen(name) != n || memcmp(tx, name, n) != 0)
				continue;
			if (u.kind == PB_IMPORT || (u.kind == PB_DEF &&
			    best != PB_IMPORT) || best == PB_NONE)
				best = u.kind;
		}
		use_free(&u);
	}
	return best;
}

int
names_has(const struct names *l, const char *name)
{
	size_t i;

	for (i = 0; i < l->n; i++)
		if (strcmp(l->v[i], name) == 0)
			return 1;
	return 0;
}

void
names_free(struct names *l)
{
	size_t i;

	for (i = 0; i < l->n; i++)
		free(l->v[i]);
	free(l->v);
	l->v = NULL;
	l->n = l->cap = 0;
}
