#include <sys/stat.h>

#include <dirent.h>
#include <errno.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include <jv.h>

#include "base/err.h"
#include "base/progdir.h"
#include "base/strbuf.h"
#include "base/xalloc.h"
#include "io/ndjson.h"
#include "io/pyyaml.h"
#include "report/jqx.h"
#include "report/rubric.h"
#include "report/thresholds.h"

const char *const rubric_text_name[RT_N] = {
	"observation", "cause", "action", "metric", "capture"
};

static const char *const areas[] = {
	"memory", "cpu", "gpu", "dataloader", "communication", "optimizer",
	"step", NULL
};
static const char *const confidences[] = { "high", "medium", "low", NULL };
static const char *const bases[] = {
	"step_time", "gpu_time", "reserved_memory", "peak_memory", NULL
};

/*
 * What prefixes the facts: mrp_one, the first value of f or null, as a
 * rule's members are taken, and mrp_text, any value as a template's text.
 */
static const char prelude[] =
    "def mrp_one(f): [f] | .[0];\n"
    "def mrp_text: if type == \"string\" then .\n"
    "  elif type == \"number\" then (if . == floor then tostring\n"
    "    else (. * 1000 | round / 1000 | tostring) end)\n"
    "  elif type == \"null\" then \"n/a\" else tojson end;\n";

/*
 * Put before the main expression of each program compiled from the
 * rubric; it is never run.  libjq 1.6 drops the builtins that a program
 * does not call in passes, and each pass walks the whole program once for
 * every builtin left.  A builtin that only an unused one calls outlives
 * the pass that drops its caller, so chains of them took five passes.
 * These are the ones the second pass and later dropped (or their public
 * callers): called here, they are kept, and the second pass finds nothing
 * to drop.  A tenth of every compile; all are documented builtins.
 */
static const char keep_builtins[] =
    "(if false then [input, halt_error(1), isnormal, isinfinite, isfinite,\n"
    "  paths, paths(.), all(.), arrays, objects, scalars, flatten(1),\n"
    "  range(1), range(1; 2), fromdateiso8601, todateiso8601, mktime,\n"
    "  strftime(\"\"), strptime(\"\"), match(\"\"), test(\"\"; \"\"),\n"
    "  capture(\"\"; \"\"), splits(\"\"; \"\"), until(.; .), limit(1; .),\n"
    "  last(.), combinations, repeat(.), INDEX(.; .)] else . end) |\n";

static void	 load_thresholds(struct thresholds *, const char *dir);
static void	 th_check_rule(const struct rubric *, const struct rule *);
static void	 th_check_one(const struct rubric *, const struct rule *,
		    const char *what, uint32_t line, const char *text);
static void	 put_expr(struct jw *, const struct rubric *, const char *);
static void	 load_file(struct rubric *, const char *dir, const char *name);
static void	 load_rule(struct rubric *, const char *file,
		    const struct ynode *);
static char	*scalar(const char *file, const struct ynode *map,
		    const char *key, int required, uint32_t *line);
static int	 one_of(const char *, const char *const *);
static int	 is_name(const char *);
static int	 yaml_cmp(const void *, const void *);
static void	 template(struct strbuf *, const char *);
static void	 load_cases(struct rule *, int t, const char *where,
		    const struct ynode *);
static void	 text_def(struct strbuf *, const struct rule *, int t);
static void	 expr(struct strbuf *, const char *);
static void	 rule_body(struct strbuf *, const struct rule *);
static char	*head(const struct rubric *);
static int	 try_compile(const struct rubric *, const char *, char **);
static int	 rule_compiles(const struct rubric *, const char *h, size_t i);
static void	 blame(const struct rubric *, const struct rule *,
		    const char *what, uint32_t line, const char *text,
		    int is_template);

char *
rubric_dir(const char *dir)
{
	char *found;

	if (dir != NULL)
		return xstrdup(dir);
	if ((found = rubric_find("facts.jq")) == NULL)
		die_usage("cannot find the rubric in %s: name it with -r or"
		    " MRP_RUBRIC", rubric_places());
	return found;
}

char *
rubric_slurp(const char *dir, const char *name)
{
	char path[PATH_MAX];
	struct strbuf b = { 0 };
	char chunk[65536];
	FILE *fp;
	size_t n;
	int len;

	len = snprintf(path, sizeof(path), "%s/%s", dir, name);
	if (len < 0 || (size_t)len >= sizeof(path))
		die_usage("%s: path is too long", dir);
	if ((fp = fopen(path, "r")) == NULL)
		die_usage("%s:", path);
	while ((n = fread(chunk, 1, sizeof(chunk), fp)) > 0)
		sb_put(&b, chunk, n);
	if (ferror(fp))
		die_usage("%s:", path);
	fclose(fp);
	sb_put(&b, "", 0);
	return b.s;
}

void
rubric_load(struct rubric *r, const char *dir)
{
	DIR *d;
	struct dirent *de;
	char **names = NULL;
	size_t n = 0, cap = 0, i, len;

	r->dir = xstrdup(dir);
	r->facts = rubric_slurp(dir, "facts.jq");
	r->format = rubric_slurp(dir, "format.jq");
	load_thresholds(&r->th, dir);
	th_check_file(&r->th, dir, "facts.jq", r->facts);
	th_check_file(&r->th, dir, "format.jq", r->format);
	if ((d = opendir(dir)) == NULL)
		die_usage("%s:", dir);
	while ((de = readdir(d)) != NULL) {
		len = strlen(de->d_name);
		if (len < 6 || de->d_name[0] == '.' ||
		    strcmp(de->d_name + len - 5, ".yaml") != 0)
			continue;
		if (n == cap) {
			cap = cap ? cap * 2 : 16;
			names = xreallocarray(names, cap, sizeof(*names));
		}
		names[n++] = xstrdup(de->d_name);
	}
	closedir(d);
	xqsort(names, n, sizeof(*names), yaml_cmp);
	for (i = 0; i < n; i++) {
		load_file(r, dir, names[i]);
		free(names[i]);
	}
	free(names);
	if (r->n == 0)
		die_usage("%s: no rules in *.yaml", dir);
	for (i = 0; i < r->n; i++)
		th_check_rule(r, &r->rule[i]);
}

/* dir's thresholds.tsv, which every program of the rubric reads as $th. */
static void
load_thresholds(struct thresholds *t, const char *dir)
{
	struct strbuf path = { 0 };
	char *text;

	text = rubric_slurp(dir, "thresholds.tsv");
	sb_printf(&path, "%s/thresholds.tsv", dir);
	th_parse(t, path.s, text);
	sb_free(&path);
	free(text);
}

static void
th_check_rule(const struct rubric *r, const struct rule *u)
{
	size_t k;
	int t;

	th_check_one(r, u, "when", u->when_line, u->when);
	th_check_one(r, u, "impact", u->impact_line, u->impact);
	th_check_one(r, u, "measure", u->measure_line, u->measure);
	for (k = 0; k < u->nev; k++)
		th_check_one(r, u, u->evname[k], u->evline[k], u->evexpr[k]);
	for (t = 0; t < RT_N; t++) {
		th_check_one(r, u, rubric_text_name[t], u->text_line[t],
		    u->text[t]);
		th_check_one(r, u, rubric_text_name[t], u->text_line[t],
		    u->casex[t]);
		for (k = 0; k < u->ncase[t]; k++)
			th_check_one(r, u, u->casename[t][k],
			    u->caseline[t][k], u->casetext[t][k]);
	}
}

/* As blame() says a member that does not compile. */
static void
th_check_one(const struct rubric *r, const struct rule *u, const char *what,
    uint32_t line, const char *text)
{
	const char *p;
	size_t off;
	char *msg;

	if (text == NULL || (msg = th_bad(&r->th, text, &off)) == NULL)
		return;
	for (p = text; p < text + off; p++)
		if (*p == '\n')
			line++;
	die_usage("%s/%s:%u: rule %s: %s: %s", r->dir, u->file, line, u->id,
	    what, msg);
}


static int
yaml_cmp(const void *a, const void *b)
{
	return strcmp(*(char *const *)a, *(char *const *)b);
}

static void
load_file(struct rubric *r, const char *dir, const char *name)
{
	struct ydoc doc = { 0 };
	const struct ynode *rules;
	char *text;
	size_t i, j;
	int rc;

	text = rubric_slurp(dir, name);
	rc = ydoc_parse(&doc, text, strlen(text));
	free(text);
	if (rc != 0) {
		ydoc_free(&doc);
		die_usage("%s/%s:%u:%u: %s", dir, name, doc.errline,
		    doc.errcol, doc.err);
	}
	if (doc.root == NULL || doc.root->type != Y_MAP ||
	    (rules = ymap_get(doc.root, "rules")) == NULL ||
	    rules->type != Y_SEQ)
		die_usage("%s/%s: not a mapping with a \"rules\" sequence",
		    dir, name);
	for (i = 0; i < rules->n; i++) {
		load_rule(r, name, rules->v[i]);
		for (j = 0; j + 1 < r->n; j++)
			if (strcmp(r->rule[j].id, r->rule[r->n - 1].id) == 0)
				die_usage("%s/%s:%u: rule %s: the id is taken "
				    "by %s:%u", dir, name, rules->v[i]->line,
				    r->rule[j].id, r->rule[j].file,
				    r->rule[j].line);
	}
	ydoc_free(&doc);
}

static void
load_rule(struct rubric *r, const char *file, const struct ynode *m)
{
	static const char *const keys[] = {
		"id", "area", "confidence", "needs", "when", "impact",
		"basis", "recovers", "pool", "blocking", "evidence",
		"measure", "better", "observation",
		"cause", "action", "metric", "capture", NULL
	};
	const struct ynode *needs, *ev;
	struct rule *u;
	char where[PATH_MAX + 32], *p;
	size_t i;
	int t;

	snprintf(where, sizeof(where), "%s/%s", r->dir, file);
	if (m->type != Y_MAP)
		die_usage("%s:%u:%u: a rule must be a mapping", where,
		    m->line, m->col);
	for (i = 0; i < m->n; i++) {
		const struct ynode *k = m->v[2 * i];

		if (k->type != Y_STR || !one_of(k->s, keys))
			die_usage("%s:%u:%u: unknown rule member \"%s\"",
			    where, k->line, k->col, k->s != NULL ? k->s : "");
	}
	if (r->n == r->cap) {
		r->cap = r->cap ? r->cap * 2 : 32;
		r->rule = xreallocarray(r->rule, r->cap, sizeof(*r->rule));
	}
	u = &r->rule[r->n++];
	memset(u, 0, sizeof(*u));
	u->file = xstrdup(file);
	u->line = m->line;
	u->id = scalar(where, m, "id", 1, NULL);
	if (!is_name(u->id))
		die_usage("%s:%u: rule id \"%s\" is not lowercase letters, "
		    "digits and '-'", where, m->line, u->id);
	u->area = scalar(where, m, "area", 1, NULL);
	if (!one_of(u->area, areas))
		die_usage("%s:%u: rule %s: area \"%s\" is not memory, cpu, "
		    "gpu, dataloader, communication, optimizer or step",
		    where, m->line, u->id, u->area);
	u->confidence = scalar(where, m, "confidence", 1, NULL);
	if (!one_of(u->confidence, confidences))
		die_usage("%s:%u: rule %s: confidence \"%s\" is not high, "
		    "medium or low", where, m->line, u->id, u->confidence);
	u->when = scalar(where, m, "when", 1, &u->when_line);
	u->impact = scalar(where, m, "impact", 1, &u->impact_line);
	/* An estimate is a fraction of something: say of what. */
	u->basis = scalar(where, m, "basis", strcmp(u->impact, "null") != 0,
	    NULL);
	if (u->basis != NULL && !one_of(u->basis, bases))
		die_usage("%s:%u: rule %s: basis \"%s\" is not step_time, "
		    "gpu_time, reserved_memory or peak_memory", where,
		    m->line, u->id, u->basis);
	/* ... and why that fraction, for the rubric's reference. */
	u->recovers = scalar(where, m, "recovers", u->basis != NULL, NULL);
	u->pool = scalar(where, m, "pool", 0, NULL);
	if (u->pool != NULL && !is_name(u->pool))
		die_usage("%s:%u: rule %s: pool \"%s\" is not lowercase "
		    "letters, digits and '-'", where, m->line, u->id, u->pool);
	/* The metric's value, and which way is better. */
	u->measure = scalar(where, m, "measure", 0, &u->measure_line);
	u->better = scalar(where, m, "better", u->measure != NULL, NULL);
	if (u->better != NULL && (u->measure == NULL ||
	    (strcmp(u->better, "lower") != 0 &&
	    strcmp(u->better, "higher") != 0)))
		die_usage("%s:%u: rule %s: better must be lower or higher, "
		    "with a measure", where, m->line, u->id);
	if ((p = scalar(where, m, "blocking", 0, NULL)) != NULL) {
		if (strcmp(p, "true") != 0 && strcmp(p, "false") != 0)
			die_usage("%s:%u: rule %s: blocking must be true or "
			    "false", where, m->line, u->id);
		u->blocking = strcmp(p, "true") == 0;
		free(p);
	}
	for (t = 0; t < RT_N; t++) {
		const struct ynode *v = ymap_get(m, rubric_text_name[t]);

		if (v != NULL && v->type == Y_MAP)
			load_cases(u, t, where, v);
		else
			u->text[t] = scalar(where, m, rubric_text_name[t],
			    t != RT_CAPTURE, &u->text_line[t]);
	}
	if ((needs = ymap_get(m, "needs")) != NULL) {
		if (needs->type != Y_SEQ)
			die_usage("%s:%u:%u: rule %s: needs must be a "
			    "sequence of fact names", where, needs->line,
			    needs->col, u->id);
		u->needs = xcalloc(needs->n + 1, sizeof(*u->needs));
		for (i = 0; i < needs->n; i++) {
			const struct ynode *v = needs->v[i];

			if (v->type != Y_STR || !is_name(v->s) ||
			    strchr(v->s, '-') != NULL)
				die_usage("%s:%u:%u: rule %s: \"%s\" is not "
				    "a fact name", where, v->line, v->col,
				    u->id, v->s != NULL ? v->s : "");
			u->needs[u->nneeds++] = xstrdup(v->s);
		}
	}
	if ((ev = ymap_get(m, "evidence")) != NULL) {
		if (ev->type != Y_MAP)
			die_usage("%s:%u:%u: rule %s: evidence must map "
			    "names to jq expressions", where, ev->line,
			    ev->col, u->id);
		u->evname = xcalloc(ev->n + 1, sizeof(char *));
		u->evexpr = xcalloc(ev->n + 1, sizeof(char *));
		u->evline = xcalloc(ev->n + 1, sizeof(uint32_t));
		for (i = 0; i < ev->n; i++) {
			const struct ynode *k = ev->v[2 * i];

			if (k->type != Y_STR)
				die_usage("%s:%u:%u: rule %s: an evidence "
				    "name must be a string", where, k->line,
				    k->col, u->id);
			u->evname[i] = xstrdup(k->s);
			u->evexpr[i] = scalar(where, ev, k->s, 1,
			    &u->evline[i]);
			u->nev++;
		}
	}
}

/*
 * A text as cases: "case" (a jq expression) and the template of each
 * case's name, so that a rule picks among texts written out whole
 * instead of branching inside one.
 */
static void
load_cases(struct rule *u, int t, const char *where, const struct ynode *v)
{
	const char *name = rubric_text_name[t];
	size_t i, n = 0;

	u->text_line[t] = v->line;
	u->casex[t] = scalar(where, v, "case", 1, NULL);
	u->casename[t] = xcalloc(v->n, sizeof(char *));
	u->casetext[t] = xcalloc(v->n, sizeof(char *));
	u->caseline[t] = xcalloc(v->n, sizeof(uint32_t));
	for (i = 0; i < v->n; i++) {
		const struct ynode *k = v->v[2 * i];

		if (k->type != Y_STR || !is_name(k->s))
			die_usage("%s:%u:%u: rule %s: %s: a case name is "
			    "lowercase letters, digits, '-' and '_'", where,
			    k->line, k->col, u->id, name);
		if (strcmp(k->s, "case") == 0)
			continue;
		u->casename[t][n] = xstrdup(k->s);
		u->casetext[t][n] = scalar(where, v, k->s, 1,
		    &u->caseline[t][n]);
		n++;
	}
	if (n == 0)
		die_usage("%s:%u:%u: rule %s: %s: no case has a text", where,
		    v->line, v->col, u->id, name);
	u->ncase[t] = n;
}

/*
 * A scalar member's text as written: jq expressions and templates are
 * taken verbatim, whatever type YAML would give them.
 */
static char *
scalar(const char *where, const struct ynode *map, const char *key,
    int required, uint32_t *line)
{
	const struct ynode *v;

	v = ymap_get(map, key);
	if (v == NULL || v->type == Y_NULL) {
		if (required)
			die_usage("%s:%u:%u: rule lacks \"%s\"", where,
			    map->line, map->col, key);
		return NULL;
	}
	if (v->type == Y_SEQ || v->type == Y_MAP || v->type == Y_SET ||
	    v->type == Y_BYTES)
		die_usage("%s:%u:%u: \"%s\" must be a string", where,
		    v->line, v->col, key);
	if (line != NULL)
		*line = v->line;
	return xmemdup(v->s, v->len);
}

static int
one_of(const char *s, const char *const *list)
{
	for (; *list != NULL; list++)
		if (strcmp(s, *list) == 0)
			return 1;
	return 0;
}

static int
is_name(const char *s)
{
	if (*s < 'a' || *s > 'z')
		return 0;
	for (; *s != '\0'; s++)
		if (!((*s >= 'a' && *s <= 'z') || (*s >= '0' && *s <= '9') ||
		    *s == '-' || *s == '_'))
			return 0;
	return 1;
}

/* An expression on lines of its own, so that a '#' comment ends with it. */
static void
expr(struct strbuf *b, const char *e)
{
	sb_puts(b, "(\n");
	sb_puts(b, e);
	sb_puts(b, "\n)");
}

/*
 * A template's literal text becomes a JSON string (a valid jq string) and
 * each {{ expression }} its value through mrp_text, all concatenated.  An
 * unclosed {{ is kept as literal text.
 */
static void
template(struct strbuf *b, const char *t)
{
	const char *open, *close;
	jv lit;
	char *e;

	sb_puts(b, "(\"\"");
	while (*t != '\0') {
		open = strstr(t, "{{");
		if (open == NULL || (close = strstr(open + 2, "}}")) == NULL)
			open = close = t + strlen(t);
		if (open > t) {
			lit = jv_dump_string(jv_string_sized(t, (int)(open - t)),
			    0);
			sb_puts(b, " + ");
			sb_puts(b, jqx_str(lit));
			jv_free(lit);
		}
		if (*open == '\0')
			break;
		e = xmemdup(open + 2, (size_t)(close - open - 2));
		sb_puts(b, " + (");
		expr(b, e);
		sb_puts(b, " | mrp_text)");
		free(e);
		t = close + 2;
	}
	sb_puts(b, ")");
}

/*
 * Text t of rule u: its template, or the template of the case its
 * expression names; a case without a text is the rule's error.
 */
static void
text_def(struct strbuf *b, const struct rule *u, int t)
{
	size_t k;
	jv s;

	if (u->casex[t] == NULL) {
		template(b, u->text[t]);
		return;
	}
	sb_puts(b, "(");
	expr(b, u->casex[t]);
	sb_puts(b, " as $mrp_case | ");
	for (k = 0; k < u->ncase[t]; k++) {
		s = jv_dump_string(jv_string(u->casename[t][k]), 0);
		sb_puts(b, k > 0 ? " elif" : "if");
		sb_puts(b, " $mrp_case == ");
		sb_puts(b, jqx_str(s));
		jv_free(s);
		sb_puts(b, " then ");
		template(b, u->casetext[t][k]);
	}
	s = jv_dump_string(jv_string(rubric_text_name[t]), 0);
	sb_puts(b, " else error(");
	sb_puts(b, jqx_str(s));
	jv_free(s);
	sb_puts(b, " + \": no text for the case \" + ($mrp_case | tojson))"
	    " end)");
}

/*
 * Rule u over the facts: its finding, or null when a fact it needs is
 * missing or it does not fire.
 */
static void
rule_body(struct strbuf *b, const struct rule *u)
{
	size_t k;
	int t;
	jv s;

	sb_puts(b, u->nneeds > 0 ? "(if " : "(if true");
	for (k = 0; k < u->nneeds; k++) {
		sb_puts(b, k > 0 ? " and ." : ".");
		sb_puts(b, u->needs[k]);
		sb_puts(b, " != null");
	}
	sb_puts(b, " then (if ");
	expr(b, u->when);
	sb_puts(b, " then {impact: mrp_one(");
	expr(b, u->impact);
	sb_puts(b, "), evidence: {");
	for (k = 0; k < u->nev; k++) {
		s = jv_dump_string(jv_string(u->evname[k]), 0);
		sb_puts(b, k > 0 ? ", " : "");
		sb_puts(b, jqx_str(s));
		jv_free(s);
		sb_puts(b, ": mrp_one(");
		expr(b, u->evexpr[k]);
		sb_puts(b, ")");
	}
	sb_puts(b, "}");
	for (t = 0; t < RT_N; t++) {
		if (u->text[t] == NULL && u->casex[t] == NULL)
			continue;
		sb_puts(b, ", ");
		sb_puts(b, rubric_text_name[t]);
		sb_puts(b, ": ");
		text_def(b, u, t);
	}
	sb_puts(b, "} else null end) else null end)");
}

static char *
head(const struct rubric *r)
{
	struct strbuf b = { 0 };

	sb_puts(&b, prelude);
	sb_puts(&b, r->facts);
	sb_puts(&b, "\n");
	sb_puts(&b, r->format);
	sb_puts(&b, "\n");
	return b.s;
}

char *
rubric_program(const struct rubric *r)
{
	struct strbuf b = { 0 };
	char *h;
	size_t i;

	h = head(r);
	sb_puts(&b, h);
	free(h);
	sb_puts(&b, keep_builtins);
	/* Nothing gathered is nothing to diagnose, not every artifact missing. */
	sb_puts(&b, "if (.counts | length) == 0 then {objective: null, "
	    "phase: null, results: [], measures: []} else facts | "
	    "{objective: .objective, phase: .phase, results: [");
	/*
	 * The rules are written in place, not as defs: libjq 1.6 walks the
	 * rest of the program once for each def (to bind it), and the rules
	 * are nearly half of the program.
	 */
	for (i = 0; i < r->n; i++) {
		sb_puts(&b, i > 0 ? ",\n" : "\n");
		sb_puts(&b, "(try mrp_one(");
		rule_body(&b, &r->rule[i]);
		sb_puts(&b, ") catch {mrp_error: .})");
	}
	sb_puts(&b, "], measures: [");
	for (i = 0; i < r->n; i++) {
		sb_puts(&b, i > 0 ? ",\n" : "\n");
		if (r->rule[i].measure == NULL) {
			sb_puts(&b, "null");
			continue;
		}
		sb_puts(&b, "(try mrp_one(");
		expr(&b, r->rule[i].measure);
		sb_puts(&b, ") catch null)");
	}
	sb_puts(&b, "]} end\n");
	return b.s;
}

static int
try_compile(const struct rubric *r, const char *prog, char **msg)
{
	struct jqx *x;

	if ((x = jqx_compile(prog, th_args(&r->th), msg)) == NULL)
		return -1;
	jqx_free(x);
	return 0;
}

struct jqx *
rubric_compile(const struct rubric *r)
{
	struct jqx *x;
	struct strbuf b;
	char *prog, *msg, *h;
	size_t i, k;
	int t;

	prog = rubric_program(r);
	x = jqx_compile(prog, th_args(&r->th), &msg);
	free(prog);
	if (x != NULL)
		return x;
	free(msg);
	/* The slow path: compile piece by piece to say which one is wrong. */
	memset(&b, 0, sizeof(b));
	sb_puts(&b, prelude);
	sb_puts(&b, r->facts);
	sb_puts(&b, "\n.");
	if (try_compile(r, b.s, &msg) != 0)
		die_usage("%s/facts.jq: %s", r->dir, msg);
	free(b.s);
	h = head(r);
	memset(&b, 0, sizeof(b));
	sb_puts(&b, h);
	sb_puts(&b, ".");
	if (try_compile(r, b.s, &msg) != 0)
		die_usage("%s/format.jq: %s", r->dir, msg);
	free(b.s);
	for (i = 0; i < r->n; i++) {
		const struct rule *u = &r->rule[i];

		/* One compile a rule, not one a member, where it holds. */
		if (rule_compiles(r, h, i))
			continue;
		blame(r, u, "when", u->when_line, u->when, 0);
		blame(r, u, "impact", u->impact_line, u->impact, 0);
		if (u->measure != NULL)
			blame(r, u, "measure", u->measure_line, u->measure,
			    0);
		for (k = 0; k < u->nev; k++)
			blame(r, u, u->evname[k], u->evline[k], u->evexpr[k],
			    0);
		for (t = 0; t < RT_N; t++) {
			if (u->text[t] != NULL)
				blame(r, u, rubric_text_name[t],
				    u->text_line[t], u->text[t], 1);
			if (u->casex[t] != NULL)
				blame(r, u, rubric_text_name[t],
				    u->text_line[t], u->casex[t], 0);
			for (k = 0; k < u->ncase[t]; k++)
				blame(r, u, u->casename[t][k],
				    u->caseline[t][k], u->casetext[t][k], 1);
		}
	}
	free(h);
	die_usage("%s: the rubric does not compile", r->dir);
}

struct jqx *
rubric_compile_files(const char *dir, const char *const *files,
    const char *call, jv args)
{
	struct strbuf prog = { 0 };
	struct thresholds th = { 0 };
	struct jqx *x;
	char *text, *msg;
	size_t i;

	load_thresholds(&th, dir);
	for (i = 0; files[i] != NULL; i++) {
		text = rubric_slurp(dir, files[i]);
		th_check_file(&th, dir, files[i], text);
		sb_puts(&prog, text);
		sb_puts(&prog, "\n");
		free(text);
	}
	sb_puts(&prog, keep_builtins);
	sb_puts(&prog, call);
	sb_puts(&prog, "\n");
	args = jv_object_merge(args, th_args(&th));
	th_free(&th);
	if ((x = jqx_compile(prog.s, args, &msg)) == NULL)
		die_usage("%s/%s: %s", dir, files[i - 1], msg);
	sb_free(&prog);
	return x;
}

/* Whether rule i compiles whole, its measure too, after head h. */
static int
rule_compiles(const struct rubric *r, const char *h, size_t i)
{
	struct strbuf b = { 0 };
	char *msg;
	int ok;

	sb_puts(&b, h);
	rule_body(&b, &r->rule[i]);
	if (r->rule[i].measure != NULL) {
		sb_puts(&b, ", ");
		expr(&b, r->rule[i].measure);
	}
	if (!(ok = try_compile(r, b.s, &msg) == 0))
		free(msg);
	free(b.s);
	return ok;
}

/* Exits 2 naming the rule member when text does not compile on its own. */
static void
blame(const struct rubric *r, const struct rule *u, const char *what,
    uint32_t line, const char *text, int is_template)
{
	struct strbuf b = { 0 };
	char *h, *msg;

	h = head(r);
	sb_puts(&b, h);
	free(h);
	if (is_template)
		template(&b, text);
	else
		expr(&b, text);
	if (try_compile(r, b.s, &msg) != 0)
		die_usage("%s/%s:%u: rule %s: %s: %s", r->dir, u->file, line,
		    u->id, what, msg);
	free(b.s);
}

/*
 * An expression or a text of a rule for the listing, with the values of
 * the thresholds it names: the reference says what a rule fires at, as
 * the rule read before its thresholds had names.  NULL is written null.
 */
static void
put_expr(struct jw *w, const struct rubric *r, const char *s)
{
	char *t;

	if (s == NULL) {
		jw_cstring_or_null(w, NULL);
		return;
	}
	t = th_subst(&r->th, s);
	jw_cstring(w, t);
	free(t);
}

void
rubric_write_rule(struct jw *w, const struct rubric *r, size_t i)
{
	const struct rule *u = &r->rule[i];
	size_t k;
	int t;

	jw_record(w, "rule");
	jw_key(w, "id");
	jw_cstring(w, u->id);
	jw_key(w, "area");
	jw_cstring(w, u->area);
	jw_key(w, "confidence");
	jw_cstring(w, u->confidence);
	jw_key(w, "file");
	jw_cstring(w, u->file);
	jw_key(w, "line");
	jw_uint(w, u->line);
	jw_key(w, "needs");
	jw_begin_array(w);
	for (k = 0; k < u->nneeds; k++)
		jw_cstring(w, u->needs[k]);
	jw_end_array(w);
	jw_key(w, "when");
	put_expr(w, r, u->when);
	jw_key(w, "impact");
	put_expr(w, r, u->impact);
	jw_key(w, "basis");
	jw_cstring_or_null(w, u->basis);
	jw_key(w, "recovers");
	jw_cstring_or_null(w, u->recovers);
	jw_key(w, "pool");
	jw_cstring_or_null(w, u->pool);
	jw_key(w, "blocking");
	jw_bool(w, u->blocking);
	jw_key(w, "measure");
	put_expr(w, r, u->measure);
	jw_key(w, "better");
	jw_cstring_or_null(w, u->better);
	jw_key(w, "evidence");
	jw_begin_object(w);
	for (k = 0; k < u->nev; k++) {
		jw_ckey(w, u->evname[k]);
		put_expr(w, r, u->evexpr[k]);
	}
	jw_end_object(w);
	for (t = 0; t < RT_N; t++) {
		if (u->text[t] != NULL) {
			jw_ckey(w, rubric_text_name[t]);
			put_expr(w, r, u->text[t]);
		} else if (u->casex[t] != NULL) {
			jw_ckey(w, rubric_text_name[t]);
			jw_begin_object(w);
			jw_key(w, "case");
			put_expr(w, r, u->casex[t]);
			jw_key(w, "cases");
			jw_begin_object(w);
			for (k = 0; k < u->ncase[t]; k++) {
				jw_ckey(w, u->casename[t][k]);
				put_expr(w, r, u->casetext[t][k]);
			}
			jw_end_object(w);
			jw_end_object(w);
		}
	}
	jw_end(w);
}

void
rubric_free(struct rubric *r)
{
	size_t i, k;
	int t;

	for (i = 0; i < r->n; i++) {
		struct rule *u = &r->rule[i];

		free(u->id);
		free(u->area);
		free(u->confidence);
		free(u->file);
		free(u->when);
		free(u->impact);
		free(u->basis);
		free(u->measure);
		free(u->better);
		free(u->recovers);
		free(u->pool);
		for (k = 0; k < u->nneeds; k++)
			free(u->needs[k]);
		free(u->needs);
		for (k = 0; k < u->nev; k++) {
			free(u->evname[k]);
			free(u->evexpr[k]);
		}
		free(u->evname);
		free(u->evexpr);
		free(u->evline);
		for (t = 0; t < RT_N; t++) {
			free(u->text[t]);
			free(u->casex[t]);
			for (k = 0; k < u->ncase[t]; k++) {
				free(u->casename[t][k]);
				free(u->casetext[t][k]);
			}
			free(u->casename[t]);
			free(u->casetext[t]);
			free(u->caseline[t]);
		}
	}
	free(r->rule);
	free(r->facts);
	free(r->format);
	th_free(&r->th);
	free(r->dir);
}
