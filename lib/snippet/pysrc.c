/*
 * pysrc: Python source scanned without Python (pysrc.h).
 * One file: the line index, the tokenizer with its indentation and bracket
 * checks, and the definition finder share the lexer's state, and together
 * must give the lines, statements and errors CPython's tokenizer and ast
 * give; they are one contract, tested as one (tests/py-defs.bats).
 */
#include <errno.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "base/err.h"
#include "base/xalloc.h"
#include "io/gzin.h"
#include "io/magic.h"
#include "snippet/pysrc.h"

/*
 * CPython's own limits: MAXLEVEL parentheses, MAXFSTRINGLEVEL nesting and
 * MAXINDENT levels of indentation, column 0 included.  The last one also
 * bounds how many definitions nest, so that the records py-defs writes,
 * each with its qualname and text, repeat no byte more than 100 times.
 */
#define MAX_DEPTH	200
#define MAX_FSTRING	150
#define MAX_INDENT	100
/* A Python module this large is not source code anyone profiles. */
#define MAX_SOURCE	((size_t)64 << 20)
#define NO_STMT		UINT32_MAX

struct lex {
	struct pysrc	*s;
	size_t		 p;
	uint32_t	 line;
	int		 depth;
	char		 brk[MAX_DEPTH];
	uint32_t	 brkline[MAX_DEPTH], brkcol[MAX_DEPTH];
	int		 fnest;
	uint32_t	 indent[MAX_INDENT];	/* open levels' columns */
	uint32_t	 altindent[MAX_INDENT];	/* the same, a tab as 1 */
	int		 nindent;
};

static int	indent(struct lex *, const struct pyline *, size_t);
static int	fail(struct lex *, uint32_t, size_t, const char *, ...)
		    __attribute__((format(printf, 4, 5)));
static size_t	eol_at(const struct pysrc *, size_t);
static void	next_line(struct lex *, uint8_t);
static uint32_t	col_of(const struct lex *, size_t);
static void	add_tok(struct lex *, int, size_t, uint32_t);
static int	is_name_byte(unsigned char);
static int	string_prefix(const char *, size_t, int *, int *);
static int	scan_string(struct lex *, size_t, int, int);
static int	scan_fexpr(struct lex *, size_t, uint32_t, int, int);
static int	scan_code(struct lex *);
static void	end_stmt(struct lex *, struct pystmt *);
static void	index_lines(struct pysrc *);
static void	find_defs(struct pysrc *);
static void	close_def(struct pysrc *, size_t, size_t);
static size_t	skip_comments(const struct pysrc *, size_t, size_t);

static int
fail(struct lex *lx, uint32_t line, size_t off, const char *fmt, ...)
{
	struct pysrc *s = lx->s;
	va_list ap;

	if (s->errline != 0)
		return -1;
	va_start(ap, fmt);
	vsnprintf(s->err, sizeof(s->err), fmt, ap);
	va_end(ap);
	s->errline = line;
	s->errcol = off >= s->line[line].off ?
	    (uint32_t)(off - s->line[line].off) + 1 : 1;
	return -1;
}

/* The length of the line terminator at off: \n, \r\n or a lone \r. */
static size_t
eol_at(const struct pysrc *s, size_t off)
{
	if (off >= s->len)
		return 0;
	if (s->text[off] == '\n')
		return 1;
	if (s->text[off] == '\r')
		return off + 1 < s->len && s->text[off + 1] == '\n' ? 2 : 1;
	return 0;
}

/* Steps over the terminator at p onto the next line, which gets flags. */
static void
next_line(struct lex *lx, uint8_t flags)
{
	lx->p += eol_at(lx->s, lx->p);
	lx->line++;
	if (lx->line <= lx->s->nline)
		lx->s->line[lx->line].flags |= flags;
}

static uint32_t
col_of(const struct lex *lx, size_t off)
{
	return (uint32_t)(off - lx->s->line[lx->line].off);
}

static void
add_tok(struct lex *lx, int type, size_t off, uint32_t line)
{
	struct pysrc *s = lx->s;
	struct pytok *t;

	if (s->ntok == s->captok) {
		s->captok = s->captok ? s->captok * 2 : 1024;
		s->tok = xreallocarray(s->tok, s->captok, sizeof(*s->tok));
	}
	t = &s->tok[s->ntok++];
	t->off = off;
	t->len = (uint32_t)(lx->p - off);
	t->line = line;
	t->endline = lx->line;
	t->depth = (uint16_t)lx->depth;
	t->type = (uint8_t)type;
}

/* Identifiers are ASCII letters, digits, '_' and any non-ASCII character. */
static int
is_name_byte(unsigned char c)
{
	return (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') ||
	    (c >= '0' && c <= '9') || c == '_' || c >= 0x80;
}

/* 1 when the name is a string prefix (any case): r u b f t and pairs. */
static int
string_prefix(const char *p, size_t n, int *raw, int *fmt)
{
	size_t i;
	int r = 0, u = 0, b = 0, f = 0;

	if (n == 0 || n > 2)
		return 0;
	for (i = 0; i < n; i++) {
		switch (p[i] | 0x20) {
		case 'r': r++; break;
		case 'u': u++; break;
		case 'b': b++; break;
		case 'f': case 't': f++; break;
		default: return 0;
		}
	}
	if (r > 1 || u > 1 || b > 1 || f > 1 || (u && n > 1) || (b && f))
		return 0;
	*raw = r;
	*fmt = f;
	return 1;
}

/*
 * A string whose prefix starts at start and whose quote is at lx->p.  In
 * every kind, raw included, a backslash and the next character are one
 * unit for finding the end.
 */
static int
scan_string(struct lex *lx, size_t start, int raw, int fmt)
{
	struct pysrc *s = lx->s;
	uint32_t line = lx->line;
	char q = s->text[lx->p];
	int triple;

	triple = lx->p + 2 < s->len && s->text[lx->p + 1] == q &&
	    s->text[lx->p + 2] == q;
	lx->p += triple ? 3 : 1;
	for (;;) {
		char c;

		if (lx->p >= s->len)
			return fail(lx, line, start, "unterminated %sstring"
			    " literal (detected at line %u)",
			    triple ? "triple-quoted " : "", lx->line);
		c = s->text[lx->p];
		if (c == '\0')
			return fail(lx, lx->line, lx->p,
			    "source code cannot contain null bytes");
		if (c == '\\') {
			lx->p++;
			if (lx->p >= s->len)
				continue;	/* unterminated, above */
			if (eol_at(s, lx->p)) {
				next_line(lx, PL_INSTR | PL_CONT);
				continue;
			}
			if (fmt && !raw && s->text[lx->p] == 'N' &&
			    lx->p + 1 < s->len && s->text[lx->p + 1] == '{') {
				while (lx->p < s->len && s->text[lx->p] != '}' &&
				    !eol_at(s, lx->p))
					lx->p++;
				if (lx->p < s->len && s->text[lx->p] == '}')
					lx->p++;
				continue;
			}
			if (fmt && (s->text[lx->p] == '{' ||
			    s->text[lx->p] == '}'))
				continue;
			lx->p++;
			continue;
		}
		if (eol_at(s, lx->p)) {
			if (!triple)
				return fail(lx, line, start, "unterminated"
				    " string literal (detected at line %u)",
				    lx->line);
			next_line(lx, PL_INSTR | PL_CONT);
			continue;
		}
		if (c == q) {
			if (!triple) {
				lx->p++;
				return 0;
			}
			if (lx->p + 2 < s->len && s->text[lx->p + 1] == q &&
			    s->text[lx->p + 2] == q) {
				lx->p += 3;
				return 0;
			}
			lx->p++;
			continue;
		}
		if (fmt && (c == '{' || c == '}')) {
			if (lx->p + 1 < s->len && s->text[lx->p + 1] == c) {
				lx->p += 2;
				continue;
			}
			lx->p++;
			if (c == '{' && scan_fexpr(lx, start, line, q, triple) < 0)
				return -1;
			continue;
		}
		lx->p++;
	}
}

/*
 * A replacement field of an f-string, after its '{': an expression (which
 * may hold strings, the same quote included since 3.12), then an optional
 * conversion and format spec with nested fields, up to the closing '}'.
 */
static int
scan_fexpr(struct lex *lx, size_t start, uint32_t line, int q, int triple)
{
	struct pysrc *s = lx->s;
	int depth = 0, spec = 0;

	if (++lx->fnest > MAX_FSTRING)
		return fail(lx, lx->line, lx->p, "too many nested f-strings");
	for (;;) {
		unsigned char c;

		if (lx->p >= s->len)
			return fail(lx, line, start, "unterminated %sstring"
			    " literal (detected at line %u)",
			    triple ? "triple-quoted " : "", lx->line);
		c = (unsigned char)s->text[lx->p];
		if (eol_at(s, lx->p)) {
			if (spec && !triple)
				return fail(lx, line, start, "unterminated"
				    " string literal (detected at line %u)",
				    lx->line);
			next_line(lx, PL_INSTR | PL_CONT);
			continue;
		}
		if (spec) {
			/* Format spec text: literal, but fields nest. */
			if (c == '{') {
				lx->p++;
				if (scan_fexpr(lx, start, line, q, triple) < 0)
					return -1;
				continue;
			}
			if (c == '}')
				break;
			if (c == q && !triple)
				break;	/* the string ends here; so does this */
			lx->p++;
			continue;
		}
		if (c == '\0')
			return fail(lx, lx->line, lx->p,
			    "source code cannot contain null bytes");
		if (c == '#') {
			while (lx->p < s->len && !eol_at(s, lx->p))
				lx->p++;
			continue;
		}
		if (c == '\'' || c == '"') {
			if (scan_string(lx, lx->p, 0, 0) < 0)
				return -1;
			continue;
		}
		if (is_name_byte(c) && !(c >= '0' && c <= '9')) {
			size_t b = lx->p;
			int raw, fmt;

			while (lx->p < s->len &&
			    is_name_byte((unsigned char)s->text[lx->p]))
				lx->p++;
			if (lx->p < s->len && (s->text[lx->p] == '\'' ||
			    s->text[lx->p] == '"') &&
			    string_prefix(s->text + b, lx->p - b, &raw, &fmt) &&
			    scan_string(lx, b, raw, fmt) < 0)
				return -1;
			continue;
		}
		if (c == '(' || c == '[' || c == '{')
			depth++;
		else if ((c == ')' || c == ']' || c == '}') && depth > 0)
			depth--;
		else if (c == '}')
			break;
		else if (c == ':' && depth == 0)
			spec = 1;
		lx->p++;
	}
	if (s->text[lx->p] == '}')
		lx->p++;
	lx->fnest--;
	return 0;
}

/*
 * A logical line's indentation against the open levels, as CPython's
 * tokenizer takes it: columns with tabs to 8 decide the level, and the
 * same columns with a tab as 1 must agree, or the source depends on the
 * tab size (TabError).  A dedent must land on an open level.
 */
static int
indent(struct lex *lx, const struct pyline *l, size_t b)
{
	const char *t = lx->s->text + l->off;
	uint32_t alt = 0, top, alttop, i;
	int dedent = 0;

	for (i = 0; i < l->ws; i++)
		alt = t[i] == '\f' ? 0 : alt + 1;
	while (lx->nindent > 0 && lx->indent[lx->nindent - 1] > l->cols) {
		lx->nindent--;
		dedent = 1;
	}
	top = lx->nindent > 0 ? lx->indent[lx->nindent - 1] : 0;
	alttop = lx->nindent > 0 ? lx->altindent[lx->nindent - 1] : 0;
	if (dedent && l->cols != top)
		return fail(lx, lx->line, b, "unindent does not match any"
		    " outer indentation level");
	if (l->cols > top) {
		if (alt <= alttop)
			return fail(lx, lx->line, b, "inconsistent use of tabs"
			    " and spaces in indentation");
		if (lx->nindent + 1 >= MAX_INDENT)
			return fail(lx, lx->line, b,
			    "too many levels of indentation");
		lx->altindent[lx->nindent] = alt;
		lx->indent[lx->nindent++] = l->cols;
	} else if (alt != alttop)
		return fail(lx, lx->line, b, "inconsistent use of tabs and"
		    " spaces in indentation");
	return 0;
}

/* The whole file: tokens, logical lines and their statements. */
static int
scan_code(struct lex *lx)
{
	struct pysrc *s = lx->s;
	struct pystmt *st = NULL;
	int bol = 1, cont = 0;

	lx->p = s->start;
	lx->line = 1;
	while (lx->p < s->len || st != NULL) {
		unsigned char c;
		size_t b;

		if (bol) {
			struct pyline *l = &s->line[lx->line];
			const char *t = s->text + l->off;

			b = l->off + l->ws;
			if (b >= s->len || eol_at(s, b) || t[l->ws] == '#') {
				l->flags |= PL_BLANK;
				lx->p = b;
				if (b < s->len && t[l->ws] == '#') {
					lx->p = l->off + l->len;
					add_tok(lx, PT_COMMENT, b, lx->line);
				}
				if (lx->p >= s->len)
					break;
				next_line(lx, 0);
				continue;
			}
			l->flags |= PL_START;
			if (indent(lx, l, b) < 0)
				return -1;
			if (s->nstmt == s->capstmt) {
				s->capstmt = s->capstmt ? s->capstmt * 2 : 256;
				s->stmt = xreallocarray(s->stmt, s->capstmt,
				    sizeof(*s->stmt));
			}
			st = &s->stmt[s->nstmt++];
			st->first = lx->line;
			st->tok = s->ntok;
			st->cols = l->cols;
			st->ws = l->ws;
			lx->p = b;
			bol = 0;
		}
		if (lx->p >= s->len) {
			/* A file without a final newline. */
			if (cont)
				return fail(lx, lx->line, lx->p,
				    "unexpected EOF while parsing");
			if (lx->depth > 0)
				break;
			end_stmt(lx, st);
			st = NULL;
			break;
		}
		cont = 0;
		c = (unsigned char)s->text[lx->p];
		b = lx->p;
		if (c == ' ' || c == '\t' || c == '\f') {
			lx->p++;
			continue;
		}
		if (eol_at(s, lx->p)) {
			if (lx->depth > 0) {
				next_line(lx, PL_CONT);
				continue;
			}
			end_stmt(lx, st);
			st = NULL;
			next_line(lx, 0);
			bol = 1;
			continue;
		}
		if (c == '#') {
			while (lx->p < s->len && !eol_at(s, lx->p))
				lx->p++;
			add_tok(lx, PT_COMMENT, b, lx->line);
			continue;
		}
		if (c == '\\') {
			lx->p++;
			if (lx->p >= s->len)
				return fail(lx, lx->line, b,
				    "unexpected EOF while parsing");
			if (!eol_at(s, lx->p))
				return fail(lx, lx->line, b, "unexpected"
				    " character after line continuation"
				    " character");
			next_line(lx, PL_CONT);
			cont = 1;
			continue;
		}
		if (c == '\0')
			return fail(lx, lx->line, b,
			    "source code cannot contain null bytes");
		if (c == '\'' || c == '"') {
			uint32_t line = lx->line;

			if (scan_string(lx, b, 0, 0) < 0)
				return -1;
			add_tok(lx, PT_STRING, b, line);
			continue;
		}
		if (c >= '0' && c <= '9') {
number:
			while (lx->p < s->len) {
				c = (unsigned char)s->text[lx->p];
				if ((c == '+' || c == '-') &&
				    (s->text[lx->p - 1] | 0x20) == 'e' &&
				    lx->p + 1 < s->len &&
				    s->text[lx->p + 1] >= '0' &&
				    s->text[lx->p + 1] <= '9') {
					lx->p++;
					continue;
				}
				if (!is_name_byte(c) && c != '.')
					break;
				lx->p++;
			}
			add_tok(lx, PT_NUMBER, b, lx->line);
			continue;
		}
		if (is_name_byte(c)) {
			int raw, fmt;

			while (lx->p < s->len &&
			    is_name_byte((unsigned char)s->text[lx->p]))
				lx->p++;
			if (lx->p < s->len && (s->text[lx->p] == '\'' ||
			    s->text[lx->p] == '"') &&
			    string_prefix(s->text + b, lx->p - b, &raw, &fmt)) {
				uint32_t line = lx->line;

				if (scan_string(lx, b, raw, fmt) < 0)
					return -1;
				add_tok(lx, PT_STRING, b, line);
				continue;
			}
			add_tok(lx, PT_NAME, b, lx->line);
			continue;
		}
		if (c == '.' && lx->p + 1 < s->len &&
		    s->text[lx->p + 1] >= '0' && s->text[lx->p + 1] <= '9')
			goto number;
		if (c == '(' || c == '[' || c == '{') {
			if (lx->depth == MAX_DEPTH)
				return fail(lx, lx->line, b,
				    "too many nested parentheses");
			lx->brk[lx->depth] = (char)c;
			lx->brkline[lx->depth] = lx->line;
			lx->brkcol[lx->depth] = col_of(lx, b);
			lx->p++;
			add_tok(lx, PT_OP, b, lx->line);
			lx->depth++;
			continue;
		}
		if (c == ')' || c == ']' || c == '}') {
			char open;

			if (lx->depth == 0)
				return fail(lx, lx->line, b, "unmatched '%c'",
				    c);
			open = lx->brk[lx->depth - 1];
			if ((open == '(' && c != ')') ||
			    (open == '[' && c != ']') ||
			    (open == '{' && c != '}')) {
				if (lx->brkline[lx->depth - 1] != lx->line)
					return fail(lx, lx->line, b, "closing"
					    " parenthesis '%c' does not match"
					    " opening parenthesis '%c' on line"
					    " %u", c, open,
					    lx->brkline[lx->depth - 1]);
				return fail(lx, lx->line, b, "closing"
				    " parenthesis '%c' does not match opening"
				    " parenthesis '%c'", c, open);
			}
			lx->depth--;
			lx->p++;
			add_tok(lx, PT_OP, b, lx->line);
			continue;
		}
		{
			static const char *const ops[] = {
				"**=", "//=", ">>=", "<<=", "...", "->", ":=",
				"==", "!=", "<=", ">=", "**", "//", "<<", ">>",
				"+=", "-=", "*=", "/=", "%=", "&=", "|=", "^=",
				"@=", NULL
			};
			size_t k, n = 1;

			for (k = 0; ops[k] != NULL; k++) {
				size_t m = strlen(ops[k]);

				if (lx->p + m <= s->len &&
				    memcmp(s->text + lx->p, ops[k], m) == 0) {
					n = m;
					break;
				}
			}
			lx->p += n;
			add_tok(lx, PT_OP, b, lx->line);
		}
	}
	if (lx->depth > 0) {
		int d = lx->depth - 1;

		s->errline = 0;
		snprintf(s->err, sizeof(s->err), "'%c' was never closed",
		    lx->brk[d]);
		s->errline = lx->brkline[d];
		s->errcol = lx->brkcol[d] + 1;
		return -1;
	}
	return 0;
}

/*
 * Closes a statement with a NEWLINE token.  A comment line after a
 * backslash belongs to it, but ast ends it at its last real token.
 */
static void
end_stmt(struct lex *lx, struct pystmt *st)
{
	struct pysrc *s = lx->s;
	size_t t;

	st->last = lx->line;
	st->ntok = s->ntok - st->tok;
	st->end = st->first;
	for (t = s->ntok; t > st->tok; t--)
		if (s->tok[t - 1].type != PT_COMMENT) {
			st->end = s->tok[t - 1].endline;
			break;
		}
	add_tok(lx, PT_NEWLINE, lx->p, lx->line);
}

/* Splits the text into physical lines and measures their indentation. */
static void
index_lines(struct pysrc *s)
{
	size_t p = s->start, cap = 256;
	uint32_t n = 0;

	s->line = xreallocarray(NULL, cap, sizeof(*s->line));
	memset(&s->line[0], 0, sizeof(s->line[0]));
	for (;;) {
		struct pyline *l;
		size_t e = p;
		uint32_t i;

		if (n + 2 >= cap) {
			cap *= 2;
			s->line = xreallocarray(s->line, cap, sizeof(*s->line));
		}
		l = &s->line[++n];
		memset(l, 0, sizeof(*l));
		l->off = p;
		l->stmt = NO_STMT;
		while (e < s->len && s->text[e] != '\n' && s->text[e] != '\r')
			e++;
		l->len = (uint32_t)(e - p);
		l->eol = (uint32_t)eol_at(s, e);
		for (i = 0; i < l->len; i++) {
			char c = s->text[p + i];

			if (c == ' ')
				l->cols++;
			else if (c == '\t')
				l->cols = (l->cols / 8 + 1) * 8;
			else if (c == '\f')
				l->cols = 0;
			else
				break;
		}
		l->ws = i;
		p = e + l->eol;
		if (l->eol == 0 || p >= s->len)
			break;
	}
	s->nline = n;
}

int
pysrc_scan(struct pysrc *s, const char *name, char *text, size_t len)
{
	struct lex *lx;
	size_t i;
	uint32_t k;
	int rc;

	memset(s, 0, sizeof(*s));
	s->name = name;
	s->text = text;
	s->len = len;
	if (len >= 3 && memcmp(text, "\xef\xbb\xbf", 3) == 0)
		s->start = 3;
	index_lines(s);
	lx = xcalloc(1, sizeof(*lx));
	lx->s = s;
	if (magic_of(text, len, 0) == MAGIC_PICKLE)
		rc = fail(lx, 1, 0, "pickle data, not Python source");
	else
		rc = scan_code(lx);
	free(lx);
	if (rc < 0)
		return -1;
	for (i = 0; i < s->nstmt; i++)
		for (k = s->stmt[i].first; k <= s->stmt[i].last; k++)
			s->line[k].stmt = (uint32_t)i;
	find_defs(s);
	return 0;
}

int
pysrc_read(struct pysrc *s, const char *path)
{
	struct gzin *in;
	char *buf = NULL;
	size_t len = 0, cap = 0;
	ssize_t n;
	const char *name;

	memset(s, 0, sizeof(*s));
	if ((in = gzin_open(path)) == NULL) {
		warnmsg("%s:", path);
		return -1;
	}
	name = gzin_name(in);
	s->name = name;
	for (;;) {
		if (cap - len < 65536) {
			cap = cap ? cap * 2 : 65536;
			buf = xrealloc(buf, cap + 1);
		}
		n = gzin_read(in, buf + len, cap - len);
		if (n < 0) {
			warnmsg("%s: %s", name, gzin_error(in));
			goto bad;
		}
		if (n == 0)
			break;
		len += (size_t)n;
		if (len > MAX_SOURCE) {
			warnmsg("%s: larger than %zu MiB: not a Python source"
			    " file", name, MAX_SOURCE >> 20);
			goto bad;
		}
	}
	gzin_close(in);
	buf[len] = '\0';
	if (pysrc_scan(s, name, buf, len) < 0) {
		warnmsg("%s:%u:%u: %s", name, s->errline, s->errcol, s->err);
		return -1;
	}
	return 0;
bad:
	gzin_close(in);
	free(buf);
	s->name = path == NULL ? "<stdin>" : path;
	return -1;
}

void
pysrc_free(struct pysrc *s)
{
	size_t i;

	for (i = 0; i < s->ndef; i++)
		free(s->def[i].qualname);
	free(s->def);
	free(s->stmt);
	free(s->tok);
	free(s->line);
	free(s->text);
	memset(s, 0, sizeof(*s));
}

const char *
pysrc_tok(const struct pysrc *s, size_t i, size_t *len)
{
	*len = s->tok[i].len;
	return s->text + s->tok[i].off;
}

int
pysrc_tok_is(const struct pysrc *s, size_t i, const char *str)
{
	const struct pytok *t = &s->tok[i];

	return (t->type == PT_NAME || t->type == PT_OP) &&
	    t->len == strlen(str) && memcmp(s->text + t->off, str, t->len) == 0;
}

/* The index of the first token at or after i that is not a comment. */
static size_t
skip_comments(const struct pysrc *s, size_t i, size_t end)
{
	while (i < end && s->tok[i].type == PT_COMMENT)
		i++;
	return i;
}

/*
 * Ends the block of def d: its body is every statement from its header up
 * to, not including, statement next.
 */
static void
close_def(struct pysrc *s, size_t d, size_t next)
{
	struct pydef *f = &s->def[d];
	uint32_t body_ws, stop, k;

	if (next <= f->stmt + 1) {
		f->end = f->end_comments = s->stmt[f->stmt].end;
		return;
	}
	f->end = s->stmt[next - 1].end;
	f->end_comments = f->end;
	/*
	 * inspect.getblock() also takes comment-only lines indented at least
	 * as far as the body's first line, up to the next statement.
	 */
	body_ws = s->stmt[f->stmt + 1].ws;
	stop = next < s->nstmt ? s->stmt[next].first : s->nline + 1;
	for (k = f->end + 1; k < stop; k++) {
		const struct pyline *l = &s->line[k];

		if ((l->flags & PL_BLANK) && l->ws < l->len &&
		    s->text[l->off + l->ws] == '#' && l->ws >= body_ws)
			f->end_comments = k;
	}
}

static void
find_defs(struct pysrc *s)
{
	size_t *stack, nstack = 0, i;
	uint32_t deco = 0, deco_cols = 0;

	stack = xreallocarray(NULL, s->nstmt + 1, sizeof(*stack));
	for (i = 0; i < s->nstmt; i++) {
		const struct pystmt *st = &s->stmt[i];
		size_t end = st->tok + st->ntok, t, k;
		int type, lambdas = 0;
		struct pydef *f;
		size_t nlen, plen;
		const char *name;

		while (nstack > 0 && s->def[stack[nstack - 1]].stmt < i &&
		    s->stmt[s->def[stack[nstack - 1]].stmt].cols >= st->cols)
			close_def(s, stack[--nstack], i);
		t = skip_comments(s, st->tok, end);
		if (t < end && pysrc_tok_is(s, t, "@")) {
			if (deco == 0 || deco_cols != st->cols) {
				deco = st->first;
				deco_cols = st->cols;
			}
			continue;
		}
		type = -1;
		if (t < end && pysrc_tok_is(s, t, "def"))
			type = PD_DEF;
		else if (t < end && pysrc_tok_is(s, t, "class"))
			type = PD_CLASS;
		else if (t < end && pysrc_tok_is(s, t, "async")) {
			t = skip_comments(s, t + 1, end);
			if (t < end && pysrc_tok_is(s, t, "def"))
				type = PD_ASYNC;
		}
		t = skip_comments(s, t + 1, end);
		if (type < 0 || t >= end || s->tok[t].type != PT_NAME) {
			deco = 0;
			continue;
		}
		/* The header's ':' is the first at depth 0 not a lambda's. */
		for (k = t + 1; k < end; k++) {
			if (s->tok[k].depth != 0)
				continue;
			if (pysrc_tok_is(s, k, "lambda"))
				lambdas++;
			else if (pysrc_tok_is(s, k, ":") && lambdas-- == 0)
				break;
		}
		if (k >= end) {
			deco = 0;
			continue;
		}
		if (s->ndef == s->capdef) {
			s->capdef = s->capdef ? s->capdef * 2 : 64;
			s->def = xreallocarray(s->def, s->capdef,
			    sizeof(*s->def));
		}
		f = &s->def[s->ndef];
		memset(f, 0, sizeof(*f));
		f->type = type;
		f->stmt = (uint32_t)i;
		f->line = st->first;
		f->decorator = deco != 0 && deco_cols == st->cols ? deco :
		    st->first;
		f->colon = k;
		f->header_end = s->tok[k].line;
		f->oneline = skip_comments(s, k + 1, end) < end;
		f->parent = nstack > 0 ? (int)stack[nstack - 1] : -1;
		name = s->text + s->tok[t].off;
		nlen = s->tok[t].len;
		plen = f->parent >= 0 ? strlen(s->def[f->parent].qualname) + 1 :
		    0;
		f->qualname = xmalloc(plen + nlen + 1);
		if (plen > 0) {
			memcpy(f->qualname, s->def[f->parent].qualname,
			    plen - 1);
			f->qualname[plen - 1] = '.';
		}
		memcpy(f->qualname + plen, name, nlen);
		f->qualname[plen + nlen] = '\0';
		f->name = f->qualname + plen;
		if (f->oneline)
			f->end = f->end_comments = st->end;
		else
			stack[nstack++] = s->ndef;
		s->ndef++;
		deco = 0;
	}
	while (nstack > 0)
		close_def(s, stack[--nstack], s->nstmt);
	free(stack);
}

int
pysrc_widen(const struct pysrc *s, uint32_t *first, uint32_t *last)
{
	if (*first < 1 || *last > s->nline || *first > *last)
		return -1;
	if (s->line[*first].stmt != NO_STMT)
		*first = s->stmt[s->line[*first].stmt].first;
	if (s->line[*last].stmt != NO_STMT)
		*last = s->stmt[s->line[*last].stmt].last;
	return 0;
}

int
pysrc_enclosing(const struct pysrc *s, uint32_t first, uint32_t last)
{
	size_t i;
	int best = -1;

	for (i = 0; i < s->ndef; i++)
		if (s->def[i].decorator <= first &&
		    last <= s->def[i].end_comments)
			best = (int)i;
	return best;
}

int
pysrc_select_lines(const struct pysrc *s, uint32_t from, uint32_t to,
    uint32_t *first, uint32_t *last)
{
	uint32_t k, base = UINT32_MAX, st = UINT32_MAX;

	*first = from;
	*last = to;
	if (pysrc_widen(s, first, last) < 0) {
		warnmsg("%s: lines %u-%u: the file has %u lines", s->name,
		    from, to, s->nline);
		return -1;
	}
	for (k = *first; k <= *last; k++) {
		uint32_t i = s->line[k].stmt;

		if (i == UINT32_MAX || i == st)
			continue;
		if (st == UINT32_MAX) {
			static const char *const clauses[] = {
				"else", "elif", "except", "finally", NULL
			};
			int c;

			base = s->stmt[i].cols;
			for (c = 0; clauses[c] != NULL; c++)
				if (pysrc_tok_is(s, s->stmt[i].tok, clauses[c])) {
					warnmsg("%s:%u: lines %u-%u start at"
					    " an '%s' clause, not a statement",
					    s->name, k, from, to,
					    clauses[c]);
					return -1;
				}
		} else if (s->stmt[i].cols < base) {
			warnmsg("%s:%u: lines %u-%u leave the block that line"
			    " %u is in", s->name, k, from, to,
			    *first);
			return -1;
		}
		st = i;
	}
	/* A compound statement's header brings its whole body. */
	while (st != UINT32_MAX && st + 1 < s->nstmt &&
	    s->stmt[st + 1].cols > base)
		st++;
	if (st != UINT32_MAX && s->stmt[st].last > *last)
		*last = s->stmt[st].last;
	return 0;
}

int
pysrc_select(const struct pysrc *s, uint32_t from, uint32_t to,
    const char *qualname, uint32_t *first, uint32_t *last)
{
	int d;

	if (pysrc_select_lines(s, from, to, first, last) < 0)
		return -1;
	d = pysrc_enclosing(s, *first, *last);
	while (d >= 0 && qualname != NULL &&
	    strcmp(s->def[d].qualname, qualname) != 0)
		d = s->def[d].parent;
	if (d < 0) {
		warnmsg("%s: lines %u-%u are not inside a definition%s%s",
		    s->name, from, to,
		    qualname != NULL ? " named " : "",
		    qualname != NULL ? qualname : "");
		return -1;
	}
	return d;
}

void
pysrc_copy_lines(const struct pysrc *s, uint32_t first, uint32_t last,
    const char *strip, const char *base, const char *add, char **buf,
    size_t *len, size_t *cap)
{
	size_t striplen = strlen(strip), baselen = strlen(base);
	size_t addlen = strlen(add);
	uint32_t k;

	for (k = first; k <= last && k <= s->nline; k++) {
		const struct pyline *l = &s->line[k];
		const char *t = s->text + l->off;
		size_t n = l->len, skip = 0, at = 0, ins = 0;

		if ((l->flags & PL_INSTR) == 0) {
			while (skip < striplen && skip < n &&
			    t[skip] == strip[skip])
				skip++;
			if (l->ws == n)
				skip = n;
			if (addlen > 0 && skip < n && n - skip >= baselen &&
			    memcmp(t + skip, base, baselen) == 0) {
				at = baselen;
				ins = addlen;
			}
		}
		if (*cap - *len < n - skip + ins + 2) {
			*cap = (*len + n - skip + ins + 2) * 2;
			*buf = xrealloc(*buf, *cap);
		}
		memcpy(*buf + *len, t + skip, at);
		memcpy(*buf + *len + at, add, ins);
		memcpy(*buf + *len + at + ins, t + skip + at, n - skip - at);
		*len += n - skip + ins;
		(*buf)[(*len)++] = '\n';
		(*buf)[*len] = '\0';
	}
}
