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

/* An environment module read for its constants is smaller than this. */
#define MAX_MODULE	(16 << 20)

static int	copy_uses(const struct snip *, const char *, size_t);
static int	uses_between(const struct pysrc *, size_t, size_t,
		    const char *, size_t);
static int	read_module(const struct snip *, const char *,
		    struct pysrc *);
static int	is_modparam(const struct snip *, const char *, size_t);
static int	import_used(const struct snip *, size_t);
static int	is_keyword(const char *, size_t);
static int	match(const struct snip *, const struct rules *, size_t,
		    size_t, char *, size_t);
static int	is_helper(const struct snip *, const char *);
static int	argument_named(const struct pysrc *, size_t, size_t,
		    const char *);
static int	leaf(const struct snip *, size_t);
static int	is_clause(const struct pysrc *, size_t);
static void	add_region(struct snip *, uint32_t, uint32_t, size_t,
		    const char *);

static int
cmp_str(const void *a, const void *b)
{
	return strcmp(*(char *const *)a, *(char *const *)b);
}

/*
 * Whether the code copied into target.py (the def, and the import blocks
 * copied whole) uses the name: as an identifier, not an attribute.
 */
static int
copy_uses(const struct snip *sn, const char *name, size_t n)
{
	const struct pysrc *s = sn->s;
	size_t k;

	if (uses_between(s, sn->use_first, sn->use_end, name, n))
		return 1;
	for (k = 0; k < sn->nblk; k++)
		if (uses_between(s, s->stmt[sn->blk[k].first].tok,
		    s->stmt[sn->blk[k].last].tok +
		    s->stmt[sn->blk[k].last].ntok, name, n))
			return 1;
	return 0;
}

/* Whether tokens [first, end) use the name, not as an attribute. */
static int
uses_between(const struct pysrc *s, size_t first, size_t end,
    const char *name, size_t n)
{
	size_t t, m;
	const char *u;

	for (t = first; t < end; t++) {
		if (s->tok[t].type != PT_NAME ||
		    (t > first && pysrc_tok_is(s, t - 1, ".")))
			continue;
		u = pysrc_tok(s, t, &m);
		if (m == n && memcmp(u, name, n) == 0)
			return 1;
	}
	return 0;
}

/*
 * What the copy and its direct helpers (the module's functions it calls,
 * and for a method the methods of its class it calls on self or cls) read
 * from the environment: os.getenv and os.environ literals, and constants
 * of environment modules, each traced to the variables its definition
 * reads when the module's file is under the package root.
 */
void
plan_environment(struct snip *sn)
{
	const struct pysrc *s = sn->s;
	struct envlist consts = { 0 };
	size_t i, k, t;
	int d;

	pyenv_reads(s, sn->use_first, sn->use_end, sn->f->name, &sn->env);
	pyenv_constants(s, sn->use_first, sn->use_end, sn->f->name, &consts);
	for (d = 0; d < (int)s->ndef; d++) {
		const struct pydef *h = &s->def[d];
		int direct = 0;

		if (h->type == PD_CLASS || d == (int)sn->d)
			continue;
		if (h->parent < 0)
			for (k = 0; k < sn->nhelpers && !direct; k++)
				direct = strcmp(sn->helpers[k], h->name) == 0;
		else if (sn->method != M_NONE && sn->method != M_STATIC &&
		    h->parent == sn->f->parent)
			for (t = sn->use_first; t + 3 < sn->use_end && !direct;
			    t++)
				direct = (pysrc_tok_is(s, t, "self") ||
				    pysrc_tok_is(s, t, "cls")) &&
				    pysrc_tok_is(s, t + 1, ".") &&
				    pysrc_tok_is(s, t + 2, h->name) &&
				    pysrc_tok_is(s, t + 3, "(");
		if (!direct)
			continue;
		{
			const struct pystmt *z = &s->stmt[s->line[h->end].stmt];
			size_t first = s->stmt[h->stmt].tok;

			pyenv_reads(s, first, z->tok + z->ntok, h->qualname,
			    &sn->env);
			pyenv_constants(s, first, z->tok + z->ntok, h->qualname,
			    &consts);
		}
	}
	envlist_sort(&consts);
	for (i = 0; i < consts.n; i++) {
		const struct envread *c = &consts.v[i];
		struct pysrc envsrc;
		size_t before = sn->env.n;
		uint32_t line = 0;

		char *module = xstrdup(c->module), *from;
		int hops;

		/* An environment module may take it from another: follow. */
		for (hops = 0; hops < 3 && read_module(sn, module, &envsrc) ==
		    0; hops++) {
			line = pyenv_trace(&envsrc, c->constant, module, c->by,
			    &sn->env);
			from = line == 0 ? pyenv_imported_from(&envsrc,
			    c->constant) : NULL;
			pysrc_free(&envsrc);
			if (from == NULL)
				break;
			free(module);
			module = from;
		}
		/* Known as a constant, with no variable found. */
		if (sn->env.n == before)
			envlist_add(&sn->env, NULL, c->constant, module, c->by,
			    line);
		free(module);
	}
	envlist_free(&consts);
	for (i = 0; i < sn->env.n; i++)
		if (sn->env.v[i].constant == NULL)
			sn->env.v[i].line = plan_source_line(sn,
			    sn->env.v[i].line);
	envlist_sort(&sn->env);
}

/*
 * Reads and scans the source of module (a.b.env) from under the package
 * root: a/b/env.py or a/b/env/__init__.py.  Returns 0, or -1 (quietly:
 * the README says what was not found).
 */
static int
read_module(const struct snip *sn, const char *module, struct pysrc *out)
{
	static const char *const tails[] = { ".py", "/__init__.py", NULL };
	struct strbuf path = { 0 };
	char *buf;
	size_t len, i;
	int gz, rc = -1;

	for (i = 0; tails[i] != NULL && rc < 0; i++) {
		const char *c;

		path.len = 0;
		if (strcmp(sn->root, ".") != 0)
			sb_printf(&path, "%s/", sn->root);
		for (c = module; *c != '\0'; c++)
			sb_put(&path, *c == '.' ? "/" : c, 1);
		sb_puts(&path, tails[i]);
		if (snip_slurp(path.s, MAX_MODULE, &buf, &len, &gz) != 0)
			continue;
		if (pysrc_scan(out, module, buf, len) == 0)
			rc = 0;
		else
			pysrc_free(out);
	}
	free(path.s);
	return rc;
}

/*
 * Module-level names of the source (defs, classes, assignments) that the
 * copied code uses: they are imported from the production module, so
 * helper calls keep going to production code.
 */
void
plan_helpers(struct snip *sn)
{
	const struct pysrc *s = sn->s;
	const struct pydef *f = sn->f;
	size_t i, n, k;
	const char *name;

	sn->helpers = xreallocarray(NULL, s->nstmt + 2, sizeof(char *));
	if (sn->owner != NULL) {
		n = strcspn(sn->owner, ".");
		sn->helpers[sn->nhelpers++] = xmemdup(sn->owner, n);
	}
	for (i = 0; i < s->nstmt; i++) {
		const struct pystmt *st = &s->stmt[i];
		size_t at = st->tok;

		if (st->cols != 0 || st->ntok < 2 || (sn->mod_first != 0 &&
		    st->first >= sn->mod_first && st->first <= sn->mod_last))
			continue;
		if (pysrc_tok_is(s, at, "def") || pysrc_tok_is(s, at, "class"))
			at++;
		else if (pysrc_tok_is(s, at, "async"))
			at += 2;
		else if (!(s->tok[at].type == PT_NAME &&
		    (pysrc_tok_is(s, at + 1, "=") ||
		    pysrc_tok_is(s, at + 1, ":"))))
			continue;
		if (at >= st->tok + st->ntok || s->tok[at].type != PT_NAME)
			continue;
		name = pysrc_tok(s, at, &n);
		if (is_keyword(name, n) || (f->parent < 0 &&
		    strlen(f->name) == n && memcmp(f->name, name, n) == 0))
			continue;
		if (!copy_uses(sn, name, n) || is_modparam(sn, name, n))
			continue;
		for (k = 0; k < sn->nhelpers; k++)
			if (strlen(sn->helpers[k]) == n &&
			    memcmp(sn->helpers[k], name, n) == 0)
				break;
		if (k == sn->nhelpers)
			sn->helpers[sn->nhelpers++] = xmemdup(name, n);
	}
	xqsort(sn->helpers, sn->nhelpers, sizeof(char *), cmp_str);
}

/* Whether name is a parameter of the function plan_module_lines() made. */
static int
is_modparam(const struct snip *sn, const char *name, size_t n)
{
	size_t i;

	for (i = 0; i < sn->modparams.n; i++)
		if (strlen(sn->modparams.v[i]) == n &&
		    memcmp(sn->modparams.v[i], name, n) == 0)
			return 1;
	return 0;
}

/*
 * The module's top-level if and try statements (with their clauses) that
 * import a name the copy uses: "if USE_TORCH: import torch" or a try
 * whose except binds a fallback.  They are copied whole, as production
 * runs them; the imports of other such blocks are listed as not copied.
 */
void
plan_import_blocks(struct snip *sn)
{
	const struct pysrc *s = sn->s;
	size_t i, j, k;
	int needed;

	sn->blk = xreallocarray(NULL, s->nstmt + 1, sizeof(*sn->blk));
	for (i = 0; i < s->nstmt; i = j + 1) {
		j = i;
		if (s->stmt[i].cols != 0 || !(pysrc_tok_is(s, s->stmt[i].tok,
		    "if") || pysrc_tok_is(s, s->stmt[i].tok, "try")))
			continue;
		while (j + 1 < s->nstmt && (s->stmt[j + 1].cols > 0 ||
		    is_clause(s, j + 1)))
			j++;
		/* The lines copied, or a script's main block: not imports. */
		if ((sn->mod_first != 0 && s->stmt[i].first <= sn->mod_last &&
		    s->stmt[j].last >= sn->mod_first) ||
		    pysrc_tok_is(s, s->stmt[i].tok + 1, "__name__"))
			continue;
		needed = 0;
		for (k = i + 1; k <= j && !needed; k++)
			needed = plan_is_import(s, k) &&
			    pysrc_enclosing(s, s->stmt[k].first,
			    s->stmt[k].first) < 0 && import_used(sn, k);
		if (needed) {
			sn->blk[sn->nblk].first = i;
			sn->blk[sn->nblk].last = j;
			sn->nblk++;
		}
	}
}

int
plan_is_import(const struct pysrc *s, size_t i)
{
	return pysrc_tok_is(s, s->stmt[i].tok, "import") ||
	    pysrc_tok_is(s, s->stmt[i].tok, "from");
}

/*
 * Whether import statement i binds a name the def uses: "import a.b"
 * binds a, "import a as b" and "from x import a as b" bind b, and
 * "from x import *" anything.
 */
static int
import_used(const struct snip *sn, size_t i)
{
	const struct pysrc *s = sn->s;
	size_t t = s->stmt[i].tok, end = t + s->stmt[i].ntok, n, item;
	const char *name;

	if (pysrc_tok_is(s, t, "from"))
		while (t < end && !pysrc_tok_is(s, t, "import"))
			t++;
	for (item = ++t; t <= end; t++) {
		if (t < end && !pysrc_tok_is(s, t, ",") &&
		    !(s->tok[t].depth == 1 && pysrc_tok_is(s, t, ")")))
			continue;
		/* One item: [item, t), less brackets and comments. */
		while (item < t && (s->tok[item].type == PT_COMMENT ||
		    pysrc_tok_is(s, item, "(")))
			item++;
		if (item < t && pysrc_tok_is(s, item, "*"))
			return 1;
		for (n = item; n + 1 < t && !pysrc_tok_is(s, n, "as"); n++)
			;
		if (n + 1 < t && s->tok[n + 1].type == PT_NAME)
			item = n + 1;
		if (item < t && s->tok[item].type == PT_NAME) {
			name = pysrc_tok(s, item, &n);
			if (uses_between(s, sn->use_first, sn->use_end, name,
			    n))
				return 1;
		}
		item = t + 1;
	}
	return 0;
}

static int
is_keyword(const char *s, size_t n)
{
	static const char *const kw[] = {
		"False", "None", "True", "and", "as", "assert", "async",
		"await", "break", "class", "continue", "def", "del", "elif",
		"else", "except", "finally", "for", "from", "global", "if",
		"import", "in", "is", "lambda", "nonlocal", "not", "or",
		"pass", "raise", "return", "try", "while", "with", "yield",
		NULL
	};
	size_t i;

	for (i = 0; kw[i] != NULL; i++)
		if (strlen(kw[i]) == n && memcmp(kw[i], s, n) == 0)
			return 1;
	return 0;
}

/*
 * The range of the first rule that tokens [from, to) match, written to out
 * (a helper rule named "*" names it after the helper called); 0 when none
 * matches.
 */
static int
match(const struct snip *sn, const struct rules *r, size_t from, size_t to,
    char *out, size_t outsz)
{
	const struct pysrc *s = sn->s;
	struct strbuf name = { 0 };
	const char *hit = NULL, *last, *tx;
	size_t i, t, u, n;

	for (i = 0; i < r->n && hit == NULL; i++) {
		for (t = from; t < to && hit == NULL; t++) {
			if (s->tok[t].type != PT_NAME)
				continue;
			tx = pysrc_tok(s, t, &n);
			if (r->v[i].kind == R_NAME) {
				name.len = 0;
				sb_put(&name, tx, n);
				if (fnmatch(r->v[i].pattern, name.s, 0) == 0)
					hit = r->v[i].range;
				continue;
			}
			/* A dotted name starts where no '.' name precedes. */
			if (is_keyword(tx, n) || (t > from &&
			    pysrc_tok_is(s, t - 1, ".") && t - 1 > from &&
			    s->tok[t - 2].type == PT_NAME))
				continue;
			name.len = 0;
			sb_put(&name, tx, n);
			for (u = t + 1; u + 1 < to && pysrc_tok_is(s, u, ".") &&
			    s->tok[u + 1].type == PT_NAME; u += 2) {
				tx = pysrc_tok(s, u + 1, &n);
				sb_puts(&name, ".");
				sb_put(&name, tx, n);
			}
			if (u >= to || !pysrc_tok_is(s, u, "("))
				continue;
			last = strrchr(name.s, '.');
			last = last != NULL ? last + 1 : name.s;
			if (r->v[i].kind == R_HELPER) {
				if (is_helper(sn, name.s) &&
				    fnmatch(r->v[i].pattern, last, 0) == 0)
					hit = strcmp(r->v[i].range, "*") == 0 ?
					    last : r->v[i].range;
				continue;
			}
			if ((fnmatch(r->v[i].pattern, name.s, 0) == 0 ||
			    fnmatch(r->v[i].pattern, last, 0) == 0) &&
			    (r->v[i].args == NULL ||
			    argument_named(s, u, to, r->v[i].args)))
				hit = r->v[i].range;
		}
	}
	if (hit != NULL)
		snprintf(out, outsz, "%s", hit);
	free(name.s);
	return hit != NULL;
}

/*
 * Whether a called dotted name is a direct helper of the copy: a function
 * defined at the top of the module (called bare), or for a method one of
 * its class's methods called on self or cls.
 */
static int
is_helper(const struct snip *sn, const char *called)
{
	const struct pysrc *s = sn->s;
	const char *dot = strchr(called, '.'), *m;
	size_t i;

	if (dot == NULL) {
		for (i = 0; i < s->ndef; i++)
			if (s->def[i].parent < 0 &&
			    s->def[i].type != PD_CLASS &&
			    strcmp(s->def[i].name, called) == 0)
				return 1;
		return 0;
	}
	if (sn->method == M_NONE || sn->method == M_STATIC ||
	    strchr(dot + 1, '.') != NULL ||
	    !((dot - called == 4 && strncmp(called, "self", 4) == 0) ||
	    (dot - called == 3 && strncmp(called, "cls", 3) == 0)))
		return 0;
	m = dot + 1;
	for (i = 0; i < s->ndef; i++)
		if (s->def[i].parent == sn->f->parent &&
		    s->def[i].type != PD_CLASS &&
		    strcmp(s->def[i].name, m) == 0)
			return 1;
	return 0;
}

/*
 * Whether the arguments of the call whose '(' is token open (before token
 * to) hold an identifier that glob matches: .to(device), .to(self.device).
 */
static int
argument_named(const struct pysrc *s, size_t open, size_t to,
    const char *glob)
{
	struct strbuf name = { 0 };
	uint16_t inside = (uint16_t)(s->tok[open].depth + 1);
	size_t t, n;
	const char *tx;
	int hit = 0;

	for (t = open + 1; t < to && !hit; t++) {
		if (s->tok[t].depth == inside && pysrc_tok_is(s, t, ")"))
			break;
		if (s->tok[t].type != PT_NAME)
			continue;
		tx = pysrc_tok(s, t, &n);
		name.len = 0;
		sb_put(&name, tx, n);
		hit = fnmatch(glob, name.s, 0) == 0;
	}
	free(name.s);
	return hit;
}

/*
 * Whether statement i of the def is one the ranges may wrap: a simple
 * statement of its body, at any depth of compound statements, or a
 * compound one written on one line.  Headers are not (their blocks' own
 * statements are), nor clauses, nor what a function nested in it holds,
 * nor validation and declarations (assert, raise, global ...), nor the
 * docstring; nor a one-line if whose else follows, which a range would
 * part from it.
 */
static int
leaf(const struct snip *sn, size_t i)
{
	static const char *const quiet[] = {
		"assert", "raise", "global", "nonlocal", "pass", "del",
		"import", "from", "@", NULL
	};
	const struct pysrc *s = sn->s;
	const struct pystmt *st = &s->stmt[i];
	size_t k;

	if (pysrc_enclosing(s, st->first, st->first) != (int)sn->d)
		return 0;
	if (i == sn->f->stmt + 1 && st->ntok == 1 &&
	    s->tok[st->tok].type == PT_STRING)
		return 0;
	if (i + 1 < s->nstmt && s->stmt[i + 1].first <= sn->f->end &&
	    s->stmt[i + 1].cols > st->cols)
		return 0;
	for (k = 0; quiet[k] != NULL; k++)
		if (pysrc_tok_is(s, st->tok, quiet[k]))
			return 0;
	return !is_clause(s, i) && !(i + 1 < s->nstmt &&
	    s->stmt[i + 1].cols == st->cols && is_clause(s, i + 1));
}

/* Whether statement i starts with else, elif, except or finally. */
static int
is_clause(const struct pysrc *s, size_t i)
{
	static const char *const clauses[] = {
		"else", "elif", "except", "finally", NULL
	};
	size_t k;

	for (k = 0; clauses[k] != NULL; k++)
		if (pysrc_tok_is(s, s->stmt[i].tok, clauses[k]))
			return 1;
	return 0;
}

/*
 * Where the NVTX ranges go.  With -l lines (first != 0): one range around
 * them.  Otherwise each statement that leaf() allows and a rule matches,
 * inside loops, with, try and if blocks too; neighbours in one block with
 * the same range share one.  Also notes whether the def returns a value
 * or yields.
 */
void
plan_regions(struct snip *sn, const struct rules *r, uint32_t first,
    uint32_t last)
{
	const struct pysrc *s = sn->s;
	const struct pydef *f = sn->f;
	const struct pyline *hl = &s->line[f->line];
	size_t i, t, body = f->stmt + 1;
	char label[256];

	sn->strip = xmemdup(s->text + hl->off, hl->ws);
	sn->reg = xreallocarray(NULL, s->nstmt + 1, sizeof(*sn->reg));
	for (t = s->stmt[f->stmt].tok; t < s->ntok &&
	    s->tok[t].line <= f->end; t++) {
		if (pysrc_tok_is(s, t, "yield"))
			sn->yields = 1;
		if (pysrc_tok_is(s, t, "return") && t + 1 < s->ntok &&
		    s->tok[t + 1].type != PT_NEWLINE &&
		    s->tok[t + 1].type != PT_COMMENT)
			sn->returns = 1;
	}
	if (f->oneline || body >= s->nstmt) {
		sn->unit = xstrdup("    ");
		return;
	}
	{
		const struct pyline *bl = &s->line[s->stmt[body].first];

		sn->unit = bl->ws > hl->ws ?
		    xmemdup(s->text + bl->off + hl->ws, bl->ws - hl->ws) :
		    xstrdup("    ");
	}
	if (first != 0) {
		while (first < last && s->line[first].stmt == UINT32_MAX)
			first++;
		while (last > first && s->line[last].stmt == UINT32_MAX)
			last--;
		snprintf(label, sizeof(label), "%s lines %u-%u", f->name,
		    first, last);
		add_region(sn, first, last, s->line[last].stmt, label);
		return;
	}
	for (i = body; i < s->nstmt && s->stmt[i].first <= f->end; i++) {
		char range[128];
		struct region *prev;

		/* A range named "-" is validation's: none. */
		if (!leaf(sn, i) || !match(sn, r, s->stmt[i].tok,
		    s->stmt[i].tok + s->stmt[i].ntok, range, sizeof(range)) ||
		    strcmp(range, "-") == 0)
			continue;
		snprintf(label, sizeof(label), "%s %s", f->name, range);
		prev = sn->nreg > 0 ? &sn->reg[sn->nreg - 1] : NULL;
		if (prev != NULL && prev->stmt + 1 == i &&
		    s->stmt[prev->stmt].cols == s->stmt[i].cols &&
		    strcmp(prev->label, label) == 0) {
			prev->last = s->stmt[i].last;
			prev->stmt = i;
			continue;
		}
		add_region(sn, s->stmt[i].first, s->stmt[i].last, i, label);
	}
}

static void
add_region(struct snip *sn, uint32_t first, uint32_t last, size_t stmt,
    const char *label)
{
	const struct pysrc *s = sn->s;
	const struct pyline *l = &s->line[first];
	size_t strip = strlen(sn->strip);
	struct region *g = &sn->reg[sn->nreg++];

	g->first = first;
	g->last = last;
	g->stmt = stmt;
	g->label = xstrdup(label);
	g->base = l->ws > strip ? xmemdup(s->text + l->off + strip,
	    l->ws - strip) : xstrdup("");
}

/*
 * What a method means only inside its class, spelt for module level:
 * super() becomes super(Owner, self) and __class__ Owner (the class is
 * imported from production, so the lookup is the same), and a private
 * name __x becomes _Owner__x, as the class body mangles it.  The lines
 * stay as they are, so sn->patched is read with the original's line
 * numbers.  Counts what it changed in sn->supers and sn->mangled.
 */
void
plan_patch_method(struct snip *sn)
{
	const struct pysrc *s = sn->s;
	struct strbuf out = { 0 }, cls = { 0 };
	const struct pydef *owner;
	size_t t, at = 0, n;
	const char *tx, *self = NULL;
	size_t selflen = 0;

	if (sn->method == M_NONE || sn->method == M_STATIC)
		return;
	owner = &s->def[sn->f->parent];
	for (tx = owner->name; *tx == '_'; tx++)
		;
	sb_puts(&cls, tx);
	if (sn->npar > 0) {
		self = sn->par[0].name;
		selflen = strlen(self);
	}
	for (t = sn->use_first; t < sn->use_end; t++) {
		if (s->tok[t].type != PT_NAME ||
		    pysrc_enclosing(s, s->tok[t].line, s->tok[t].line) !=
		    (int)sn->d)
			continue;
		tx = pysrc_tok(s, t, &n);
		if (n == 5 && memcmp(tx, "super", 5) == 0 && self != NULL &&
		    (t == 0 || !pysrc_tok_is(s, t - 1, ".")) &&
		    t + 2 < sn->use_end && pysrc_tok_is(s, t + 1, "(") &&
		    pysrc_tok_is(s, t + 2, ")")) {
			sb_put(&out, s->text + at, s->tok[t + 1].off + 1 - at);
			sb_printf(&out, "%s, %.*s", sn->owner, (int)selflen,
			    self);
			at = s->tok[t + 1].off + 1;
			sn->supers++;
			continue;
		}
		if (n == 9 && memcmp(tx, "__class__", 9) == 0 &&
		    (t == 0 || !pysrc_tok_is(s, t - 1, "."))) {
			sb_put(&out, s->text + at, s->tok[t].off - at);
			sb_puts(&out, sn->owner);
			at = s->tok[t].off + n;
			sn->supers++;
			continue;
		}
		if (cls.len > 0 && n > 2 && tx[0] == '_' && tx[1] == '_' &&
		    !(tx[n - 1] == '_' && tx[n - 2] == '_')) {
			sb_put(&out, s->text + at, s->tok[t].off - at);
			sb_printf(&out, "_%s", cls.s);
			at = s->tok[t].off;
			sn->mangled++;
		}
	}
	free(cls.s);
	if (sn->supers + sn->mangled == 0) {
		free(out.s);
		return;
	}
	sb_put(&out, s->text + at, s->len - at);
	sn->patched = xcalloc(1, sizeof(*sn->patched));
	if (pysrc_scan(sn->patched, s->name, out.s, out.len) < 0)
		die("%s: the method spelt for module level does not scan: %s",
		    s->name, sn->patched->err);
}

/*
 * base, or base with underscores after it, so that it is none of the
 * production names the copy takes from its module: target.py's own
 * `target` must not hide the module's `target`, which the copy means.
 */
char *
plan_own_name(const struct snip *sn, const char *base)
{
	struct strbuf b = { 0 };
	size_t i;

	sb_puts(&b, base);
	for (;;) {
		for (i = 0; i < sn->nhelpers &&
		    strcmp(sn->helpers[i], b.s) != 0; i++)
			;
		if (i == sn->nhelpers)
			return b.s;
		sb_puts(&b, "_");
	}
}
