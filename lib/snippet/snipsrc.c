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

static char	*name_below(const char *, size_t);
static char	*lexical_path(const char *);
static size_t	parent_end(const char *, size_t);
static int	has_file(const char *, size_t, const char *);
static int	project_dir(const char *, size_t);
static int	same_dir(const char *, size_t, const char *);

/*
 * The definition -n and -l name.  With -l, *first and *last become the
 * widened range, or 0 when it holds the def line (the whole function);
 * SIZE_MAX when -l alone names module-level lines, which *first and *last
 * then hold.
 */
size_t
plan_pick(const struct pysrc *s, const char *qualname, uint32_t *first,
    uint32_t *last)
{
	struct strbuf lines = { 0 };
	size_t i, found = 0, n = 0;
	int d;

	if (*first != 0 && qualname == NULL) {
		uint32_t a, b;

		if (pysrc_select_lines(s, *first, *last, &a, &b) < 0)
			exit(1);
		d = pysrc_enclosing(s, a, b);
		if (d < 0) {
			*first = a;
			*last = b;
			return SIZE_MAX;
		}
		if (s->def[d].type == PD_CLASS)
			die("%s:%u: lines %u-%u are in the body of class %s,"
			    " in no method: give lines of one of its methods,"
			    " or -n %s.METHOD", s->name, a, *first, *last,
			    s->def[d].qualname, s->def[d].qualname);
	}
	if (*first != 0) {
		d = pysrc_select(s, *first, *last, qualname, first, last);
		if (d < 0)
			exit(1);
		if (*first <= s->def[d].header_end)
			*first = *last = 0;
		return (size_t)d;
	}
	for (i = 0; i < s->ndef; i++) {
		if (strcmp(s->def[i].qualname, qualname) != 0)
			continue;
		sb_printf(&lines, "%s%u", n > 0 ? ", " : "", s->def[i].line);
		found = i;
		n++;
	}
	if (n == 0)
		die("%s: no definition named %s", s->name, qualname);
	if (n > 1)
		die("%s: %s is defined %zu times (lines %s): pick one with -l",
		    s->name, qualname, n, lines.s);
	free(lines.s);
	return found;
}

/*
 * -l at module level: lines first-last become the body of a function
 * appended to the source (so that every later step reads it as a def of
 * the module), whose parameters are the names the lines read before they
 * bind them and that the module binds by a value before (not by an
 * import or a def, which come as imports and helpers); it returns
 * locals(), what the lines made.  *src is replaced by the longer source.
 */
void
plan_module_lines(struct snip *sn, struct pysrc *src, uint32_t first,
    uint32_t last)
{
	struct names reads = { 0 }, bound = { 0 };
	struct strbuf text = { 0 }, strip = { 0 }, name = { 0 };
	struct pysrc longer;
	const struct pyline *fl;
	uint32_t k, i0 = UINT32_MAX, i1 = 0;
	size_t i;
	const char *stem;
	int d;

	for (k = first; k <= last; k++)
		if (src->line[k].stmt != UINT32_MAX) {
			if (i0 == UINT32_MAX)
				i0 = src->line[k].stmt;
			i1 = src->line[k].stmt;
		}
	if (i0 == UINT32_MAX)
		die("%s: lines %u-%u hold no statement", src->name, first,
		    last);
	pyscope_range(src, i0, i1, &reads, &bound);
	for (i = 0; i < reads.n; i++)
		if (pyscope_binding(src, reads.v[i], i0, i1) == PB_VALUE) {
			sn->modparams.v = xreallocarray(sn->modparams.v,
			    sn->modparams.n + 1, sizeof(char *));
			sn->modparams.v[sn->modparams.n++] =
			    xstrdup(reads.v[i]);
		}
	stem = strrchr(sn->module, '.');
	stem = stem != NULL ? stem + 1 : sn->module;
	sb_printf(&name, "%s_lines_%u_%u", stem, first, last);
	fl = &src->line[src->stmt[i0].first];
	sb_put(&strip, src->text + fl->off, fl->ws);
	if (strip.s == NULL)
		sb_puts(&strip, "");

	sb_put(&text, src->text, src->len);
	if (text.len > 0 && text.s[text.len - 1] != '\n' &&
	    text.s[text.len - 1] != '\r')
		sb_puts(&text, "\n");
	sb_printf(&text, "\n\ndef %s(", name.s);
	for (i = 0; i < sn->modparams.n; i++)
		sb_printf(&text, "%s%s", i > 0 ? ", " : "",
		    sn->modparams.v[i]);
	sb_puts(&text, "):\n");
	pysrc_copy_lines(src, first, last, strip.s, "", "    ", &text.s,
	    &text.len, &text.cap);
	sb_puts(&text, "    return locals()\n");

	sn->mod_first = first;
	sn->mod_last = last;
	sn->orig_lines = src->nline;
	if (pysrc_scan(&longer, src->name, text.s, text.len) < 0)
		die("%s: lines %u-%u as a function's body do not scan: %s",
		    src->name, first, last, longer.err);
	for (d = (int)longer.ndef - 1; d >= 0; d--)
		if (longer.def[d].parent < 0 &&
		    strcmp(longer.def[d].name, name.s) == 0)
			break;
	if (d < 0)
		die("%s: lines %u-%u: the function made of them is lost",
		    src->name, first, last);
	sn->shift = longer.def[d].line + 1 - first;
	sn->d = (size_t)d;
	pysrc_free(src);
	*src = longer;
	names_free(&reads);
	names_free(&bound);
	free(strip.s);
	free(name.s);
}

/* The source's line number of line L of the source snip-new reads. */
uint32_t
plan_source_line(const struct snip *sn, uint32_t line)
{
	return sn->mod_first != 0 && line > sn->orig_lines ? line - sn->shift :
	    line;
}

/*
 * The import name of a source file, from its package root: the nearest
 * directory above it without __init__.py (a/b/c.py in a package a is
 * a.b.c, a/b/__init__.py is a.b).  Where that directory is a namespace
 * package's folder (no project file in it, and not the current
 * directory), the root is the project's: the nearest directory above it
 * with pyproject.toml, setup.py or setup.cfg, or its src/ when the file is
 * under that.  *root gets the root, relative to the current directory (".")
 * when it is inside it, else absolute.  NULL when a part of the name is no
 * identifier, the file is no .py file or the path is too deep.
 */
char *
plan_module_of(const char *path, char **root)
{
	char cwd[PATH_MAX], *abs, *top, *m;
	struct strbuf b = { 0 };
	size_t n, cut, k, proj;
	const char *stem;
	int inside;

	*root = NULL;
	n = strlen(path);
	if (n < 4 || strcmp(path + n - 3, ".py") != 0 ||
	    getcwd(cwd, sizeof(cwd)) == NULL)
		return NULL;
	if (path[0] == '/')
		sb_puts(&b, path);
	else
		sb_printf(&b, "%s/%s", cwd, path);
	abs = lexical_path(b.s);
	free(b.s);
	/* abs is /.../dir/stem.py; cut marks the root's end in it. */
	stem = strrchr(abs, '/') + 1;
	cut = (size_t)(stem - abs) - 1;
	for (k = 0; k < 64 && cut > 0 && has_file(abs, cut, "__init__.py");
	    k++)
		cut = parent_end(abs, cut);
	if (k == 64) {
		free(abs);
		return NULL;
	}
	/*
	 * A namespace package's folder: the root is the project's (or the
	 * current directory, which the runner has on its path), when the
	 * name from there is one.
	 */
	if (!same_dir(abs, cut, cwd) && !project_dir(abs, cut)) {
		n = strlen(cwd);
		inside = strncmp(abs, cwd, n) == 0 && abs[n] == '/' && cut > n;
		for (proj = cut; !project_dir(abs, proj) &&
		    !(inside && same_dir(abs, proj, cwd)) && proj > 0; )
			proj = parent_end(abs, proj);
		if (project_dir(abs, proj) || (inside && same_dir(abs, proj,
		    cwd))) {
			if (has_file(abs, proj, "src") &&
			    strncmp(abs + proj, "/src/", 5) == 0)
				proj += 4;
			if ((m = name_below(abs, proj)) != NULL)
				cut = proj;
			free(m);
		}
	}
	if ((m = name_below(abs, cut)) == NULL) {
		free(abs);
		return NULL;
	}
	n = strlen(cwd);
	top = xmemdup(abs, cut == 0 ? 1 : cut);
	if (strcmp(top, cwd) == 0)
		*root = xstrdup(".");
	else if (strncmp(top, cwd, n) == 0 && top[n] == '/')
		*root = xstrdup(top + n + 1);
	else
		*root = xstrdup(top);
	free(top);
	free(abs);
	return m;
}

/*
 * The import name of the .py file abs below the directory abs[0, cut):
 * its parts, less .py and __init__; NULL when one is no identifier.
 */
static char *
name_below(const char *abs, size_t cut)
{
	char *m = xstrdup(abs + cut + 1), *p;
	size_t n;

	m[strlen(m) - 3] = '\0';
	n = strlen(m);
	if (n >= 9 && strcmp(m + n - 9, "/__init__") == 0)
		m[n - 9] = '\0';
	for (p = m; *p != '\0'; p++)
		if (*p == '/')
			*p = '.';
	if (!plan_dotted(m)) {
		free(m);
		return NULL;
	}
	return m;
}

/* An absolute path with "." and ".." parts and repeated '/' resolved. */
static char *
lexical_path(const char *path)
{
	char *out = xmalloc(strlen(path) + 2);
	size_t o = 0, n;
	const char *p = path;

	while (*p != '\0') {
		while (*p == '/')
			p++;
		n = strcspn(p, "/");
		if (n == 0)
			break;
		if (n == 1 && p[0] == '.')
			;
		else if (n == 2 && p[0] == '.' && p[1] == '.') {
			while (o > 0 && out[o - 1] != '/')
				o--;
			if (o > 0)
				o--;
		} else {
			out[o++] = '/';
			memcpy(out + o, p, n);
			o += n;
		}
		p += n;
	}
	if (o == 0)
		out[o++] = '/';
	out[o] = '\0';
	return out;
}

/* The end of the parent of the directory abs[0, end). */
static size_t
parent_end(const char *abs, size_t end)
{
	while (end > 0 && abs[end - 1] != '/')
		end--;
	return end > 0 ? end - 1 : 0;
}

/* Whether the directory abs[0, end) ("/" for end 0) holds name. */
static int
has_file(const char *abs, size_t end, const char *name)
{
	struct strbuf b = { 0 };
	int yes;

	sb_printf(&b, "%.*s/%s", (int)end, abs, name);
	yes = access(b.s, F_OK) == 0;
	free(b.s);
	return yes;
}

static int
project_dir(const char *abs, size_t end)
{
	return has_file(abs, end, "pyproject.toml") ||
	    has_file(abs, end, "setup.py") || has_file(abs, end, "setup.cfg");
}

static int
same_dir(const char *abs, size_t end, const char *dir)
{
	return end == 0 ? strcmp(dir, "/") == 0 :
	    strlen(dir) == end && strncmp(abs, dir, end) == 0;
}

/* a.b.c with every part an identifier (non-ASCII letters allowed). */
int
plan_dotted(const char *m)
{
	const char *p = m;

	for (;;) {
		if (*p == '.' || *p == '\0' || (*p >= '0' && *p <= '9'))
			return 0;
		for (; *p != '\0' && *p != '.'; p++)
			if (!(*p == '_' || (*p >= 'a' && *p <= 'z') ||
			    (*p >= 'A' && *p <= 'Z') || (*p >= '0' &&
			    *p <= '9') || (unsigned char)*p >= 0x80))
				return 0;
		if (*p == '\0')
			return 1;
		p++;
	}
}
