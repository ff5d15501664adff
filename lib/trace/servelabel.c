/*
 * servelabel: serving engines' step labels against the patterns of
 * rubric/serve-steps.tsv (servelabel.h).  A pattern is compiled into
 * pieces of text and fields once; a label is matched piece by piece, with
 * no backtracking: the table's rules (no field after a field or a digit,
 * a mode or pairs never followed by what they could take) leave each
 * piece one way to match.  Then the numbers must add up, or the label is
 * no step.
 */
#include <ctype.h>
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "base/err.h"
#include "base/xalloc.h"
#include "io/tsv.h"
#include "trace/servelabel.h"

#define MAXPIECE	64	/* pieces of one pattern */

const char *const serve_fieldname[NSFIELD] = {
	"bs", "toks", "c", "g", "c_sq", "c_sk", "c_sqsq", "c_sqsk", "g_sq",
	"g_sk", "g_sqsq", "g_sqsk"
};

const char *const serve_phasename[NSPHASE] = {
	"prefill", "decode", "mixed", "capture"
};

/* A piece of a pattern: text, a field, an unkept integer, a mode, pairs. */
enum { P_TEXT, P_FIELD, P_ANON, P_MODE, P_PAIRS };
struct piece {
	int	 kind;
	int	 field;		/* P_FIELD: SF_*; P_ANON: its place */
	char	*text;		/* P_TEXT */
	size_t	 len;
};

struct row {
	int		 engine, phase;	/* phase: SP_*, or -1: by requests */
	struct piece	*p;
	size_t		 np;
	int		 lead;		/* the pattern's start makes a label like */
};

struct servetab {
	struct row	*rows;
	size_t		 nrows;
	char		**engines;
	size_t		 nengines;
};

static int	is_word(int);
static int	field_of(const char *, size_t);
static void	compile(struct row *, char *, const char *, unsigned long);
static int	get_int(const char *, size_t, size_t *, int64_t *);
static int	match(const struct row *, const char *, size_t,
		    struct servestep *, size_t *);
static int	adds_up(struct servestep *, int);
static int	side_adds_up(int64_t, int64_t, int64_t, int64_t, int64_t);
static int64_t	both(int64_t, int64_t);

static int
is_word(int c)
{
	return isalnum((unsigned char)c) || c == '_';
}

static int
field_of(const char *s, size_t n)
{
	int i;

	for (i = 0; i < NSFIELD; i++)
		if (strlen(serve_fieldname[i]) == n &&
		    memcmp(serve_fieldname[i], s, n) == 0)
			return i;
	return -1;
}

/*
 * The pattern s of row w, into pieces; a pattern the matcher could read
 * two ways, or that names no field, is a usage error at path:lineno.
 */
static void
compile(struct row *w, char *s, const char *path, unsigned long lineno)
{
	struct piece p;
	char *end;
	int seen[NSFIELD] = { 0 }, nanon = 0;
	size_t i;

	w->p = xcalloc(MAXPIECE, sizeof(*w->p));
	while (*s != '\0') {
		if (w->np == MAXPIECE)
			die_usage("%s:%lu: more than %d pieces in the pattern",
			    path, lineno, MAXPIECE);
		memset(&p, 0, sizeof(p));
		if (*s == '{') {
			if ((end = strchr(s, '}')) == NULL)
				die_usage("%s:%lu: a '{' without its '}'",
				    path, lineno);
			*end = '\0';
			if (strcmp(s + 1, "mode") == 0)
				p.kind = P_MODE;
			else if (strcmp(s + 1, "pairs") == 0)
				p.kind = P_PAIRS;
			else if (strcmp(s + 1, "n") == 0) {
				if (nanon == SERVE_ANON)
					die_usage("%s:%lu: more than %d {n}",
					    path, lineno, SERVE_ANON);
				p.kind = P_ANON;
				p.field = nanon++;
			} else if ((p.field = field_of(s + 1,
			    strlen(s + 1))) >= 0) {
				p.kind = P_FIELD;
				if (seen[p.field]++)
					die_usage("%s:%lu: {%s} twice", path,
					    lineno, s + 1);
			} else
				die_usage("%s:%lu: no field {%s}", path,
				    lineno, s + 1);
			s = end + 1;
		} else {
			p.kind = P_TEXT;
			p.len = strcspn(s, "{}");
			if (s[p.len] == '}')
				die_usage("%s:%lu: a '}' without its '{'",
				    path, lineno);
			p.text = xmalloc(p.len + 1);
			memcpy(p.text, s, p.len);
			p.text[p.len] = '\0';
			s += p.len;
		}
		w->p[w->np++] = p;
	}
	if (w->np == 0 || w->p[0].kind != P_TEXT)
		die_usage("%s:%lu: the pattern does not start with text",
		    path, lineno);
	for (i = 1; i < w->np; i++) {
		const struct piece *a = &w->p[i - 1], *b = &w->p[i];
		int c = b->kind == P_TEXT ? (unsigned char)b->text[0] : -1;

		/* Pairs start with a space, which no other field takes. */
		if (a->kind == P_TEXT || (b->kind == P_PAIRS &&
		    a->kind != P_MODE && a->kind != P_PAIRS))
			continue;
		if (b->kind != P_TEXT)
			die_usage("%s:%lu: a field after a field", path,
			    lineno);
		if ((a->kind == P_FIELD || a->kind == P_ANON) && isdigit(c))
			die_usage("%s:%lu: a digit after a field", path,
			    lineno);
		if (a->kind == P_MODE && is_word(c))
			die_usage("%s:%lu: {mode} followed by a letter, digit"
			    " or underscore", path, lineno);
		if (a->kind == P_PAIRS && c == ' ')
			die_usage("%s:%lu: {pairs} followed by a space", path,
			    lineno);
	}
	/* Text of letters and digits alone says little: "execute_model". */
	w->lead = 0;
	for (i = 0; i < w->p[0].len; i++)
		if (!is_word(w->p[0].text[i]))
			w->lead = 1;
}

struct servetab *
servetab_load(const char *path)
{
	struct servetab *t = xcalloc(1, sizeof(*t));
	struct tsv tab = { 0 };
	char *f[4];
	size_t i;
	unsigned long lineno;
	struct row *w;

	if ((tab.fp = fopen(path, "r")) == NULL)
		die_usage("%s: %s", path, strerror(errno));
	while ((i = tsv_next(&tab, f, 4)) > 0) {
		lineno = tab.lineno;
		if (i != 4)
			die_usage("%s:%lu: want 4 tab-separated fields", path,
			    lineno);
		if (f[0][0] == '\0' || f[2][0] == '\0')
			die_usage("%s:%lu: no engine or no pattern", path,
			    lineno);
		t->rows = xreallocarray(t->rows, t->nrows + 1,
		    sizeof(*t->rows));
		w = &t->rows[t->nrows++];
		memset(w, 0, sizeof(*w));
		if (strcmp(f[1], "requests") == 0)
			w->phase = -1;
		else if (strcmp(f[1], "none") == 0)
			w->phase = SP_NONE;
		else {
			for (w->phase = 0; w->phase < NSPHASE &&
			    strcmp(f[1], serve_phasename[w->phase]) != 0;
			    w->phase++)
				;
			if (w->phase == NSPHASE)
				die_usage("%s:%lu: no phase %s: prefill,"
				    " decode, mixed, capture, requests or"
				    " none", path, lineno, f[1]);
		}
		for (i = 0; i < t->nengines && strcmp(t->engines[i], f[0]);
		    i++)
			;
		if (i == t->nengines) {
			t->engines = xreallocarray(t->engines, i + 1,
			    sizeof(*t->engines));
			t->engines[t->nengines++] = xstrdup(f[0]);
		}
		w->engine = (int)i;
		compile(w, f[2], path, lineno);
	}
	if (ferror(tab.fp))
		die("%s: %s", path, strerror(errno));
	tsv_free(&tab);
	fclose(tab.fp);
	return t;
}

void
servetab_free(struct servetab *t)
{
	size_t i, j;

	if (t == NULL)
		return;
	for (i = 0; i < t->nrows; i++) {
		for (j = 0; j < t->rows[i].np; j++)
			free(t->rows[i].p[j].text);
		free(t->rows[i].p);
	}
	free(t->rows);
	for (i = 0; i < t->nengines; i++)
		free(t->engines[i]);
	free(t->engines);
	free(t);
}

const char *
servetab_engine(const struct servetab *t, int engine)
{
	return t->engines[engine];
}

int
servetab_engine_index(const struct servetab *t, const char *s)
{
	size_t i;

	for (i = 0; i < t->nengines; i++)
		if (strcmp(t->engines[i], s) == 0)
			return (int)i;
	return -1;
}

/* A field's digits at s[*i], below SERVE_MAXV, no leading zero: 0 or -1. */
static int
get_int(const char *s, size_t n, size_t *i, int64_t *v)
{
	size_t k = *i;

	if (k >= n || !isdigit((unsigned char)s[k]))
		return -1;
	if (s[k] == '0' && k + 1 < n && isdigit((unsigned char)s[k + 1]))
		return -1;
	for (*v = 0; k < n && isdigit((unsigned char)s[k]); k++) {
		*v = *v * 10 + (s[k] - '0');
		if (*v >= SERVE_MAXV)
			return -1;
	}
	*i = k;
	return 0;
}

/*
 * Label s against row w: 0 when it matches whole, into st; else -1, with
 * *got the pieces it matched before it failed.
 */
static int
match(const struct row *w, const char *s, size_t n, struct servestep *st,
    size_t *got)
{
	size_t i = 0, j, k, m;
	int f;

	for (j = 0; j < w->np; j++) {
		const struct piece *p = &w->p[j];

		*got = j;
		switch (p->kind) {
		case P_TEXT:
			if (n - i < p->len || memcmp(s + i, p->text, p->len))
				return -1;
			i += p->len;
			break;
		case P_FIELD:
			if (get_int(s, n, &i, &st->f[p->field]) < 0)
				return -1;
			break;
		case P_ANON:
			if (get_int(s, n, &i, &st->anon[p->field]) < 0)
				return -1;
			break;
		case P_MODE:
			if (i >= n || !isalpha((unsigned char)s[i]))
				return -1;
			for (k = i; k < n && is_word(s[k]); k++)
				if (k - i == SERVE_MODE - 1)
					return -1;
			memcpy(st->mode, s + i, k - i);
			st->mode[k - i] = '\0';
			i = k;
			break;
		case P_PAIRS:
			while (i < n && s[i] == ' ') {
				for (k = ++i; k < n && s[k] != '='; k++)
					;
				if (k == n || (f = field_of(s + i,
				    k - i)) < 0 || st->f[f] >= 0)
					return -1;
				for (m = 0; m < w->np; m++)
					if (w->p[m].kind == P_FIELD &&
					    w->p[m].field == f)
						return -1;
				i = k + 1;
				if (get_int(s, n, &i, &st->f[f]) < 0)
					return -1;
				st->order[st->npairs++] = f;
			}
			break;
		}
	}
	*got = j;
	return i == n ? 0 : -1;
}

/*
 * One kind of request adds up: n requests of sq query tokens in all, sk
 * key/value tokens, sqsq and sqsk the sums of sq_i^2 and sq_i*sk_i; -1
 * where unknown.  Each request has a query token and sees its own.
 */
static int
side_adds_up(int64_t n, int64_t sq, int64_t sk, int64_t sqsq, int64_t sqsk)
{
	if (n >= 0 && sq >= 0 && (n > sq || (n == 0) != (sq == 0)))
		return 0;
	if (sq >= 0 && sk >= 0 && sq > sk)
		return 0;
	if (sq >= 0 && sqsq >= 0 && (sqsq < sq ||
	    (sq > 0 && sqsq / sq > sq) || (sq == 0 && sqsq != 0)))
		return 0;
	if (sqsq >= 0 && sqsk >= 0 && sqsk < sqsq)
		return 0;
	if (sq >= 0 && sk >= 0 && sqsk >= 0 && ((sq == 0 && sqsk != 0) ||
	    (sq > 0 && sqsk / sq > sk)))
		return 0;
	return 1;
}

/* Known or -1: a + b. */
static int64_t
both(int64_t a, int64_t b)
{
	return a >= 0 && b >= 0 ? a + b : -1;
}

/*
 * The step's phase and counts from its fields, phase the row's (-1: by
 * its requests); 0 when they do not add up.
 */
static int
adds_up(struct servestep *st, int phase)
{
	const int64_t *f = st->f;
	int64_t ph_c, ph_g;

	if (phase == SP_CAPTURE) {
		/* The padded batch a graph is captured for: no request. */
		st->phase = SP_CAPTURE;
		st->requests = f[SF_BS];
		return f[SF_BS] >= 1;
	}
	if (!side_adds_up(f[SF_C], f[SF_C_SQ], f[SF_C_SK], f[SF_C_SQSQ],
	    f[SF_C_SQSK]) || !side_adds_up(f[SF_G], f[SF_G_SQ], f[SF_G_SK],
	    f[SF_G_SQSQ], f[SF_G_SQSK]))
		return 0;
	if (f[SF_BS] >= 0 && both(f[SF_C], f[SF_G]) >= 0 &&
	    f[SF_BS] != f[SF_C] + f[SF_G])
		return 0;
	if (f[SF_TOKS] >= 0 && both(f[SF_C_SQ], f[SF_G_SQ]) >= 0 &&
	    f[SF_TOKS] != f[SF_C_SQ] + f[SF_G_SQ])
		return 0;
	/* Each kind's requests, from the counts or from their tokens. */
	ph_c = f[SF_C] >= 0 ? f[SF_C] : f[SF_C_SQ] == 0 ? 0 : -1;
	ph_g = f[SF_G] >= 0 ? f[SF_G] : f[SF_G_SQ] == 0 ? 0 : -1;
	switch (phase) {
	case -1:
		if (ph_c < 0 || ph_g < 0 || ph_c + ph_g == 0)
			return 0;
		phase = ph_c > 0 && ph_g > 0 ? SP_MIXED : ph_c > 0 ?
		    SP_PREFILL : SP_DECODE;
		break;
	case SP_PREFILL:
		if (ph_g > 0 || f[SF_G_SQ] > 0 || ph_c == 0)
			return 0;
		ph_g = 0;
		break;
	case SP_DECODE:
		if (ph_c > 0 || f[SF_C_SQ] > 0 || ph_g == 0)
			return 0;
		ph_c = 0;
		break;
	case SP_MIXED:
		if (ph_c == 0 || ph_g == 0)
			return 0;
		break;
	}
	st->phase = phase;
	st->requests = f[SF_BS] >= 0 ? f[SF_BS] : both(ph_c, ph_g);
	if (st->requests < 1)
		return 0;
	st->prefill_requests = ph_c >= 0 ? ph_c : phase == SP_PREFILL ?
	    st->requests : -1;
	st->decode_requests = ph_g >= 0 ? ph_g : phase == SP_DECODE ?
	    st->requests : -1;
	if (both(st->prefill_requests, st->decode_requests) >= 0 &&
	    st->prefill_requests + st->decode_requests != st->requests)
		return 0;
	st->prefill_tokens = f[SF_C_SQ] >= 0 ? f[SF_C_SQ] : ph_c == 0 ? 0 :
	    phase == SP_PREFILL ? f[SF_TOKS] : -1;
	st->decode_tokens = f[SF_G_SQ] >= 0 ? f[SF_G_SQ] : ph_g == 0 ? 0 :
	    phase == SP_DECODE ? (f[SF_TOKS] >= 0 ? f[SF_TOKS] :
	    st->decode_requests) : -1;
	st->tokens = f[SF_TOKS] >= 0 ? f[SF_TOKS] :
	    both(st->prefill_tokens, st->decode_tokens);
	if (st->tokens >= 0 && both(st->prefill_tokens,
	    st->decode_tokens) >= 0 &&
	    st->tokens != st->prefill_tokens + st->decode_tokens)
		return 0;
	if ((st->prefill_requests > 0 && st->prefill_tokens >= 0 &&
	    st->prefill_tokens < st->prefill_requests) ||
	    (st->decode_requests > 0 && st->decode_tokens >= 0 &&
	    st->decode_tokens < st->decode_requests))
		return 0;
	return 1;
}

int
servelabel_parse(const struct servetab *t, const char *s, size_t len,
    struct servestep *st)
{
	const struct row *w;
	size_t r, got;
	int like = 0, i;

	for (r = 0; r < t->nrows; r++) {
		w = &t->rows[r];
		if (len < w->p[0].len || memcmp(s, w->p[0].text, w->p[0].len))
			continue;
		memset(st, 0, sizeof(*st));
		for (i = 0; i < NSFIELD; i++)
			st->f[i] = -1;
		st->row = (int)r;
		st->engine = w->engine;
		st->requests = st->prefill_requests = st->decode_requests =
		    st->tokens = st->prefill_tokens = st->decode_tokens = -1;
		if (match(w, s, len, st, &got) == 0) {
			if (w->phase == SP_NONE)
				return SL_NONE;
			if (adds_up(st, w->phase))
				return SL_STEP;
			like = 1;
			continue;
		}
		if (w->lead || got > 1 || (got == 1 && w->np > 1 &&
		    len > w->p[0].len &&
		    isdigit((unsigned char)s[w->p[0].len]) &&
		    (w->p[1].kind == P_FIELD || w->p[1].kind == P_ANON)))
			like = 1;
	}
	return like ? SL_BAD : SL_OTHER;
}

void
servelabel_render(const struct servetab *t, const struct servestep *st,
    struct strbuf *sb)
{
	const struct row *w = &t->rows[st->row];
	size_t j;
	int k;

	for (j = 0; j < w->np; j++) {
		const struct piece *p = &w->p[j];

		switch (p->kind) {
		case P_TEXT:
			sb_put(sb, p->text, p->len);
			break;
		case P_FIELD:
			sb_printf(sb, "%lld", (long long)st->f[p->field]);
			break;
		case P_ANON:
			sb_printf(sb, "%lld", (long long)st->anon[p->field]);
			break;
		case P_MODE:
			sb_puts(sb, st->mode);
			break;
		case P_PAIRS:
			for (k = 0; k < st->npairs; k++)
				sb_printf(sb, " %s=%lld",
				    serve_fieldname[st->order[k]],
				    (long long)st->f[st->order[k]]);
			break;
		}
	}
}
