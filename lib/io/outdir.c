#include <errno.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

#include "base/err.h"
#include "base/files.h"
#include "base/strbuf.h"
#include "base/xalloc.h"
#include "io/outdir.h"
#include "io/publish.h"

/* A name and the output it belongs to, for sorting. */
struct named {
	const char	*name;
	size_t		 i;
};

/* A file, by device and inode, its name and the output it is a field of. */
struct fileid {
	dev_t		 dev;
	ino_t		 ino;
	const char	*name;
	size_t		 i;
};

static char	*output_path(const char *dir, size_t dirlen,
		    const char *input, const char *suffix);
static void	 add_output(struct outdir *, char *path, char **args,
		    int nargs, char *where);
static void	 refuse_collisions(const struct outdir *);
static void	 refuse_replacing(const struct outdir *);
static void	 refuse(const struct outdir *, const char *fmt, ...)
		    __attribute__((format(printf, 2, 3), noreturn));
static int	 named_cmp(const void *, const void *);
static int	 fileid_cmp(const void *, const void *);

void
outdir_init(struct outdir *o, const char *dir, char *inputs[], size_t n,
    const char *suffix)
{
	struct stat st;
	size_t i, dirlen;

	memset(o, 0, sizeof(*o));
	for (i = 0; i < n; i++)
		if (strcmp(inputs[i], "-") == 0)
			die_usage("-: standard input has no name to name its "
			    "output after");
	if (stat(dir, &st) != 0)
		die("%s:", dir);
	if (!S_ISDIR(st.st_mode)) {
		errno = ENOTDIR;
		die("%s:", dir);
	}
	/* "out/" names out/a.md, not out//a.md. */
	for (dirlen = strlen(dir); dirlen > 1 && dir[dirlen - 1] == '/';)
		dirlen--;
	for (i = 0; i < n; i++)
		add_output(o, output_path(dir, dirlen, inputs[i], suffix),
		    (void *)xmemdup(&inputs[i], sizeof(inputs[i])), 1,
		    xstrdup(inputs[i]));
	refuse_collisions(o);
	refuse_replacing(o);
	o->mode = publish_mode();
}

void
outdir_plan(struct outdir *o, const char *plan)
{
	struct strbuf where = { 0 };
	size_t len, line;
	char *p, *end, *nl, *tab, *path, **f;
	int nf, k;

	memset(o, 0, sizeof(*o));
	o->plan = file_slurp(plan, &len);
	for (p = o->plan, end = p + len, line = 1; p < end; p = nl + 1,
	    line++) {
		if ((nl = memchr(p, '\n', (size_t)(end - p))) == NULL)
			nl = end;
		*nl = '\0';
		sb_truncate(&where, 0);
		sb_printf(&where, "%s:%zu", plan, line);
		if (strlen(p) != (size_t)(nl - p))
			die("%s:%zu: a NUL in a name", where.s, strlen(p) + 1);
		if (p[strspn(p, " \t")] == '\0')
			continue;
		/* The fields, each made a string where it lies. */
		path = p;
		for (nf = 0; (tab = strchr(p, '\t')) != NULL; nf++) {
			*tab = '\0';
			p = tab + 1;
		}
		if (*path == '\0' || nf == 0)
			die("%s: an output, then a tab and each of its files",
			    where.s);
		for (p = path, k = 0; k <= nf; p += strlen(p) + 1, k++) {
			if (*p == '\0')
				die("%s: an empty field", where.s);
			if (strcmp(p, "-") == 0)
				die("%s: -: standard input has no name in a "
				    "plan", where.s);
		}
		f = xcalloc((size_t)nf, sizeof(*f));
		for (p = path + strlen(path) + 1, k = 0; k < nf;
		    p += strlen(p) + 1)
			f[k++] = p;
		add_output(o, xstrdup(path), f, nf, xstrdup(where.s));
	}
	sb_free(&where);
	refuse_collisions(o);
	refuse_replacing(o);
	o->mode = publish_mode();
}

/* Output n: its path, its fields and its name in messages, all owned. */
static void
add_output(struct outdir *o, char *path, char **args, int nargs,
    char *where)
{
	size_t n = o->n + 1;

	o->path = xreallocarray(o->path, n, sizeof(*o->path));
	o->args = xreallocarray(o->args, n, sizeof(*o->args));
	o->nargs = xreallocarray(o->nargs, n, sizeof(*o->nargs));
	o->where = xreallocarray(o->where, n, sizeof(*o->where));
	o->path[o->n] = path;
	o->args[o->n] = args;
	o->nargs[o->n] = nargs;
	o->where[o->n] = where;
	o->n = n;
}

/* dir (its first dirlen bytes), '/', the input's stem and suffix. */
static char *
output_path(const char *dir, size_t dirlen, const char *input,
    const char *suffix)
{
	struct strbuf b = { 0 };
	const char *base, *dot;
	size_t n;

	base = strrchr(input, '/');
	base = base != NULL ? base + 1 : input;
	n = strlen(base);
	if (n == 0)
		die_usage("%s: names a directory, not a file", input);
	if (n > 3 && memcmp(base + n - 3, ".gz", 3) == 0)
		n -= 3;
	for (dot = base + n; dot > base + 1 && dot[-1] != '.'; dot--)
		;
	if (dot > base + 1)
		n = (size_t)(dot - 1 - base);
	sb_put(&b, dir, dirlen);
	if (dirlen == 0 || dir[dirlen - 1] != '/')
		sb_puts(&b, "/");
	sb_put(&b, base, n);
	sb_puts(&b, suffix);
	return b.s;
}

/*
 * Two outputs of one name would lose one: refused, the sorted names freed
 * first, as refuse() exits and LeakSanitizer counts what is left.
 */
static void
refuse_collisions(const struct outdir *o)
{
	struct named *v;
	size_t i, a, b;

	v = xcalloc(o->n, sizeof(*v));
	for (i = 0; i < o->n; i++) {
		v[i].name = o->path[i];
		v[i].i = i;
	}
	xqsort(v, o->n, sizeof(*v), named_cmp);
	for (i = 1; i < o->n; i++)
		if (strcmp(v[i - 1].name, v[i].name) == 0) {
			a = v[i - 1].i;
			b = v[i].i;
			free(v);
			if (o->plan != NULL)
				refuse(o, "%s: %s: %s writes it too",
				    o->where[b], o->path[b], o->where[a]);
			refuse(o, "%s and %s would both be written to %s",
			    o->where[a], o->where[b], o->path[a]);
		}
	free(v);
}

/*
 * An output whose name is an input (the same directory entry, or the
 * file an input leads to) is refused: the input would be replaced.  A
 * name that is a symbolic link to an input is no input: the link is
 * replaced, not the file.
 */
static void
refuse_replacing(const struct outdir *o)
{
	struct fileid *id, key, *hit;
	struct stat st;
	const char *name;
	size_t i, j, n = 0;
	int k;

	for (i = 0; i < o->n; i++)
		n += (size_t)o->nargs[i];
	id = xcalloc(2 * n + 1, sizeof(*id));
	for (i = 0, n = 0; i < o->n; i++)
		for (k = 0; k < o->nargs[i]; k++) {
			if (lstat(o->args[i][k], &st) == 0)
				id[n++] = (struct fileid){ st.st_dev,
				    st.st_ino, o->args[i][k], i };
			if (stat(o->args[i][k], &st) == 0)
				id[n++] = (struct fileid){ st.st_dev,
				    st.st_ino, o->args[i][k], i };
		}
	if (n > 0)
		xqsort(id, n, sizeof(*id), fileid_cmp);
	for (i = 0; i < o->n; i++) {
		if (lstat(o->path[i], &st) != 0)
			continue;
		key = (struct fileid){ st.st_dev, st.st_ino, NULL, 0 };
		if (n == 0 || (hit = bsearch(&key, id, n, sizeof(*id),
		    fileid_cmp)) == NULL)
			continue;
		/* Freed first, as above: refuse() exits. */
		name = hit->name;
		j = hit->i;
		free(id);
		if (o->plan != NULL && j == i)
			refuse(o, "%s: its output, %s, is its file %s",
			    o->where[i], o->path[i], name);
		if (o->plan != NULL)
			refuse(o, "%s: its output, %s, is %s's file %s",
			    o->where[i], o->path[i], o->where[j], name);
		if (j == i)
			refuse(o, "%s: its output, %s, would be written over "
			    "it", o->where[i], o->path[i]);
		refuse(o, "%s: the output of %s, %s, would be written over "
		    "it", name, o->where[i], o->path[i]);
	}
	free(id);
}

/*
 * The outputs' names refused: operands under -o (a usage error, exit 2),
 * the plan's lines under -O (bad input, exit 1).
 */
static void
refuse(const struct outdir *o, const char *fmt, ...)
{
	va_list ap;
	char *msg;
	int len;

	va_start(ap, fmt);
	len = vsnprintf(NULL, 0, fmt, ap);
	va_end(ap);
	msg = xmalloc(len < 0 ? 1 : (size_t)len + 1);
	va_start(ap, fmt);
	if (vsnprintf(msg, (size_t)len + 1, fmt, ap) < 0)
		*msg = '\0';
	va_end(ap);
	if (o->plan != NULL)
		die("%s", msg);
	die_usage("%s", msg);
}

static int
named_cmp(const void *a, const void *b)
{
	const struct named *x = a, *y = b;
	int c;

	if ((c = strcmp(x->name, y->name)) != 0)
		return c;
	return x->i < y->i ? -1 : x->i > y->i;
}

static int
fileid_cmp(const void *a, const void *b)
{
	const struct fileid *x = a, *y = b;

	if (x->dev != y->dev)
		return x->dev < y->dev ? -1 : 1;
	return x->ino < y->ino ? -1 : x->ino > y->ino;
}

FILE *
outdir_begin(struct outdir *o)
{
	if ((o->fp = open_memstream(&o->buf, &o->len)) == NULL)
		die("out of memory");
	return o->fp;
}

void
outdir_end(struct outdir *o, char **buf, size_t *len)
{
	/* A stream into memory fails only for want of it. */
	if (fclose(o->fp) != 0)
		die("out of memory");
	o->fp = NULL;
	*buf = o->buf;
	*len = o->len;
	o->buf = NULL;
}

int
outdir_publish(const struct outdir *o, size_t i, const char *buf, size_t len)
{
	return publish_file(o->path[i], buf, len, o->mode);
}

void
outdir_discard(struct outdir *o)
{
	if (o->fp != NULL)
		fclose(o->fp);
	o->fp = NULL;
	free(o->buf);
	o->buf = NULL;
}

void
outdir_free(struct outdir *o)
{
	size_t i;

	outdir_discard(o);
	for (i = 0; i < o->n; i++) {
		free(o->path[i]);
		free(o->args[i]);
		free(o->where[i]);
	}
	free(o->path);
	free(o->args);
	free(o->nargs);
	free(o->where);
	free(o->plan);
}
