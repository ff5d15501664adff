#include <math.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include <jv.h>

#include "base/err.h"
#include "base/strbuf.h"
#include "base/xalloc.h"
#include "report/thresholds.h"

static int		 is_number(const char *);
static int		 is_ident(int, int first);
static const char	*th_next(const char *, const char **name, size_t *len);
static const char	*th_value(const struct thresholds *, const char *name,
			    size_t len);

/*
 * A bad row is a usage error at its line and column, as a bad rule is:
 * the rules that name it could not be read otherwise.
 */
void
th_parse(struct thresholds *t, const char *path, char *text)
{
	static const char *const cols[] = { "name", "value", "unit", "source" };
	char *line, *next, *f[4], *p;
	uint32_t lineno = 0, *lines = NULL;
	size_t nf, len, i, cap = 0;
	jv v;

	for (line = text; *line != '\0'; line = next) {
		lineno++;
		if ((next = strchr(line, '\n')) != NULL)
			*next++ = '\0';
		else
			next = line + strlen(line);
		len = strlen(line);
		if (len > 0 && line[len - 1] == '\r')
			line[--len] = '\0';
		if (len == 0 || line[0] == '#')
			continue;
		for (nf = 0, p = line; nf < 4; nf++) {
			f[nf] = p;
			if ((p = strchr(p, '\t')) == NULL)
				break;
			*p++ = '\0';
		}
		if (nf < 3)
			die_usage("%s:%u:%zu: no %s column: a row is name, "
			    "value, unit and source, separated by tabs", path,
			    lineno, len + 1, cols[nf + 1]);
		if (nf == 4)
			die_usage("%s:%u:%zu: more than four columns: a row is "
			    "name, value, unit and source, separated by tabs",
			    path, lineno, (size_t)(p - line) + 1);
		for (i = 0; i < 4; i++)
			if (*f[i] == '\0')
				die_usage("%s:%u:%zu: empty %s", path, lineno,
				    (size_t)(f[i] - line) + 1, cols[i]);
		for (p = f[0]; is_ident(*p, p == f[0]); p++)
			;
		if (*p != '\0')
			die_usage("%s:%u:1: \"%s\" is not a name: letters, "
			    "digits and '_', not starting with a digit", path,
			    lineno, f[0]);
		for (i = 0; i < t->n; i++)
			if (strcmp(t->name[i], f[0]) == 0)
				die_usage("%s:%u:1: threshold %s is already on "
				    "line %u", path, lineno, f[0], lines[i]);
		/* jq's own reading of the number, as a rule's would be. */
		v = is_number(f[1]) ? jv_parse(f[1]) : jv_invalid();
		if (jv_get_kind(v) != JV_KIND_NUMBER ||
		    !isfinite(jv_number_value(v)))
			die_usage("%s:%u:%zu: %s: \"%s\" is not a finite "
			    "decimal number", path, lineno,
			    (size_t)(f[1] - line) + 1, f[0], f[1]);
		jv_free(v);
		if (t->n == cap) {
			cap = cap ? cap * 2 : 32;
			t->name = xreallocarray(t->name, cap, sizeof(*t->name));
			t->value = xreallocarray(t->value, cap,
			    sizeof(*t->value));
			lines = xreallocarray(lines, cap, sizeof(*lines));
		}
		t->name[t->n] = xstrdup(f[0]);
		t->value[t->n] = xstrdup(f[1]);
		lines[t->n++] = lineno;
	}
	free(lines);
}

/*
 * A number as JSON writes it: no "nan", ".5" or "0x10", which jq's reader
 * would take or a reader of the table would not.
 */
static int
is_number(const char *s)
{
	if (*s == '-')
		s++;
	if (*s == '0')
		s++;
	else if (*s >= '1' && *s <= '9')
		while (*s >= '0' && *s <= '9')
			s++;
	else
		return 0;
	if (*s == '.') {
		if (*++s < '0' || *s > '9')
			return 0;
		while (*s >= '0' && *s <= '9')
			s++;
	}
	if (*s == 'e' || *s == 'E') {
		if (*++s == '+' || *s == '-')
			s++;
		if (*s < '0' || *s > '9')
			return 0;
		while (*s >= '0' && *s <= '9')
			s++;
	}
	return *s == '\0';
}

/* A character of a jq identifier; first: its first, which is no digit. */
static int
is_ident(int c, int first)
{
	return (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') || c == '_' ||
	    (!first && c >= '0' && c <= '9');
}

/*
 * The next $th in s (not $thing), or NULL: *name and *len are the NAME
 * of $th.NAME, *len 0 where it is read otherwise.
 */
static const char *
th_next(const char *s, const char **name, size_t *len)
{
	const char *p, *q;

	for (p = s; (p = strstr(p, "$th")) != NULL; p += 3) {
		if (is_ident(p[3], 0))
			continue;
		*name = p + 4;
		*len = 0;
		if (p[3] == '.' && is_ident(p[4], 1)) {
			for (q = p + 4; is_ident(*q, 0); q++)
				;
			*len = (size_t)(q - *name);
		}
		return p;
	}
	return NULL;
}

/* The value as written of the threshold name (len bytes), or NULL. */
static const char *
th_value(const struct thresholds *t, const char *name, size_t len)
{
	size_t i;

	for (i = 0; i < t->n; i++)
		if (strlen(t->name[i]) == len &&
		    memcmp(t->name[i], name, len) == 0)
			return t->value[i];
	return NULL;
}

/*
 * Comments and strings are read as the rest: a name must exist there too,
 * and no rule reads null for a misspelt name.
 */
char *
th_bad(const struct thresholds *t, const char *text, size_t *off)
{
	struct strbuf b = { 0 };
	const char *p, *name;
	size_t len;

	for (p = text; (p = th_next(p, &name, &len)) != NULL; p += 3) {
		*off = (size_t)(p - text);
		if (len > 0 && th_value(t, name, len) == NULL) {
			sb_puts(&b, "$th.");
			sb_put(&b, name, len);
			sb_puts(&b, ": no such threshold in thresholds.tsv");
			return b.s;
		}
	}
	return NULL;
}

void
th_check_file(const struct thresholds *t, const char *dir, const char *name,
    const char *text)
{
	const char *p, *bol;
	uint32_t line = 1;
	size_t off;
	char *msg;

	if ((msg = th_bad(t, text, &off)) == NULL)
		return;
	for (p = bol = text; p < text + off; p++)
		if (*p == '\n') {
			line++;
			bol = p + 1;
		}
	die_usage("%s/%s:%u:%zu: %s", dir, name, line,
	    (size_t)(text + off - bol) + 1, msg);
}

/* $th read otherwise than $th.NAME of a threshold stays as it is. */
char *
th_subst(const struct thresholds *t, const char *s)
{
	struct strbuf b = { 0 };
	const char *p, *name, *v;
	size_t len;

	while ((p = th_next(s, &name, &len)) != NULL) {
		v = len > 0 ? th_value(t, name, len) : NULL;
		sb_put(&b, s, (size_t)(p - s));
		sb_puts(&b, v != NULL ? v : "$th");
		s = v != NULL ? name + len : p + 3;
	}
	sb_puts(&b, s);
	sb_put(&b, "", 0);
	return b.s;
}

jv
th_args(const struct thresholds *t)
{
	jv o;
	size_t i;

	o = jv_object();
	for (i = 0; i < t->n; i++)
		o = jv_object_set(o, jv_string(t->name[i]),
		    jv_parse(t->value[i]));
	return jv_object_set(jv_object(), jv_string("th"), o);
}

void
th_free(struct thresholds *t)
{
	size_t i;

	for (i = 0; i < t->n; i++) {
		free(t->name[i]);
		free(t->value[i]);
	}
	free(t->name);
	free(t->value);
}
