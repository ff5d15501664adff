/*
 * pysrc: the Python definition finder (lib/snippet/pysrc), on the text of
 * a file as py-defs and snip-new scan it.
 *
 * A file that scans must give a consistent picture: every token lies in
 * the text and on its lines, statements cover their lines in order, every
 * definition's lines nest (decorator <= def line <= header end <= end)
 * inside its parent's, and the enclosing definition of a def's own lines
 * is that def or one inside it.  Then lines are widened to statements and
 * each definition's text is copied out, dedented, as the tools do.
 * Definitions nest no deeper than CPython's 100 levels of indentation
 * allow, so that the text and qualnames py-defs writes repeat no byte of
 * the input more than 100 times.  Then what snip-new reads from the same
 * text: the names the whole module reads and binds and how it binds each
 * (pyscope), and its environment reads, traced through itself as an
 * environment module (pyenv).  The input is a file as it is: a crash
 * replays with "py-defs FILE".
 */
#include "fuzz.h"

#include <string.h>

#include "base/xalloc.h"
#include "snippet/pyenv.h"
#include "snippet/pyscope.h"
#include "snippet/pysrc.h"

/* snip-new's reading of the module: no read outside the text. */
static void
check_names(const struct pysrc *s)
{
	struct names reads = { 0 }, bound = { 0 };
	struct envlist env = { 0 }, traced = { 0 };
	size_t i;

	if (s->nstmt == 0)
		return;
	pyscope_range(s, 0, s->nstmt - 1, &reads, &bound);
	for (i = 0; i < reads.n && i < 64; i++)
		if (pyscope_binding(s, reads.v[i], 0, 0) > PB_VALUE)
			abort();
	pyenv_reads(s, 0, s->ntok, "f", &env);
	pyenv_constants(s, 0, s->ntok, "f", &env);
	for (i = 0; i < env.n && i < 64; i++) {
		if (env.v[i].constant != NULL) {
			(void)pyenv_trace(s, env.v[i].constant, "m", "f",
			    &traced);
			free(pyenv_imported_from(s, env.v[i].constant));
		} else if (env.v[i].var == NULL)
			abort();
	}
	envlist_sort(&env);
	envlist_free(&env);
	envlist_free(&traced);
	names_free(&reads);
	names_free(&bound);
}

static void
check_defs(const struct pysrc *s)
{
	const struct pydef *p, *q;
	char *buf = NULL;
	char indent[256];
	size_t i, ws, len = 0, cap = 0, text = 0, names = 0;
	uint32_t first, last;
	int e, depth;

	for (i = 0; i < s->ndef; i++) {
		p = &s->def[i];
		for (depth = 0, e = p->parent; e >= 0; e = s->def[e].parent)
			depth++;
		if (depth >= 99)
			abort();
		text += s->line[p->end].off + s->line[p->end].len -
		    s->line[p->decorator].off;
		names += strlen(p->qualname);
		if (p->qualname == NULL || p->name == NULL ||
		    p->decorator < 1 || p->decorator > p->line ||
		    p->line > p->header_end || p->header_end > p->end ||
		    p->end > s->nline || p->end_comments < p->end ||
		    p->end_comments > s->nline || p->stmt >= s->nstmt ||
		    p->colon >= s->ntok || p->parent >= (int)i ||
		    strcmp(p->name, strrchr(p->qualname, '.') != NULL ?
		    strrchr(p->qualname, '.') + 1 : p->qualname) != 0)
			abort();
		if (p->parent >= 0) {
			q = &s->def[p->parent];
			if (p->decorator < q->line || p->end > q->end)
				abort();
		}
		e = pysrc_enclosing(s, p->decorator, p->end);
		if (e < (int)i)
			abort();
		first = p->decorator;
		last = p->end;
		if (pysrc_widen(s, &first, &last) != 0 ||
		    first > p->decorator || last < p->end)
			abort();
		if (pysrc_select(s, p->line, p->line, NULL, &first,
		    &last) == 0 && (first > p->line || last < p->line))
			abort();
		/* Dedented by the def line's indentation, as py-defs does. */
		ws = s->line[p->line].ws < sizeof(indent) - 1 ?
		    s->line[p->line].ws : sizeof(indent) - 1;
		memcpy(indent, s->text + s->line[p->line].off, ws);
		indent[ws] = '\0';
		len = 0;
		pysrc_copy_lines(s, p->decorator, p->end, indent, "", "    ",
		    &buf, &len, &cap);
	}
	if (text > 100 * s->len || names > 100 * s->len)
		abort();
	free(buf);
}

int
LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	struct pysrc s;
	char *buf;
	const char *t;
	size_t i, n;
	uint32_t k, first, last;

	fuzz_init("py-defs");
	/* pysrc_scan(), not pysrc_read(): the copy is all the reading does. */
	buf = xmalloc(size + 1);
	memcpy(buf, data, size);
	buf[size] = '\0';
	if (pysrc_scan(&s, "<stdin>", buf, size) == 0) {
		for (i = 0; i < s.ntok; i++) {
			t = pysrc_tok(&s, i, &n);
			if (t < s.text || s.tok[i].off + n > s.len ||
			    s.tok[i].line < 1 || s.tok[i].line >
			    s.tok[i].endline || s.tok[i].endline > s.nline)
				abort();
			(void)pysrc_tok_is(&s, i, "def");
		}
		for (i = 0; i < s.nstmt; i++)
			if (s.stmt[i].first > s.stmt[i].last ||
			    s.stmt[i].last > s.nline || (i > 0 &&
			    s.stmt[i].first <= s.stmt[i - 1].last))
				abort();
		for (k = 1; k <= s.nline; k++) {
			first = last = k;
			if (pysrc_widen(&s, &first, &last) != 0 ||
			    first > k || last < k)
				abort();
		}
		first = 0;
		last = s.nline + 1;
		if (pysrc_widen(&s, &first, &last) != -1)
			abort();
		check_defs(&s);
		check_names(&s);
	}
	pysrc_free(&s);
	return 0;
}
