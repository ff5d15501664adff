#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

#include "base/err.h"
#include "base/strbuf.h"
#include "base/xalloc.h"
#include "io/outdir.h"
#include "io/publish.h"

/* A name and the input it belongs to, for sorting. */
struct named {
	const char	*name;
	size_t		 i;
};

/* A file, by device and inode, and the input that names it. */
struct fileid {
	dev_t		 dev;
	ino_t		 ino;
	size_t		 i;
};

static char	*output_path(const char *dir, size_t dirlen,
		    const char *input, const char *suffix);
static void	 refuse_collisions(const struct outdir *,
		    char *const inputs[]);
static void	 refuse_replacing(const struct outdir *, char *const inputs[]);
static int	 named_cmp(const void *, const void *);
static int	 fileid_cmp(const void *, const void *);

void
outdir_init(struct outdir *o, const char *dir, char *const inputs[],
    size_t n, const char *suffix)
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
	o->n = n;
	o->path = xcalloc(n, sizeof(*o->path));
	for (i = 0; i < n; i++)
		o->path[i] = output_path(dir, dirlen, inputs[i], suffix);
	refuse_collisions(o, inputs);
	refuse_replacing(o, inputs);
	o->mode = publish_mode();
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

/* Two inputs that one output would hold are a usage error. */
static void
refuse_collisions(const struct outdir *o, char *const inputs[])
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
			die_usage("%s and %s would both be written to %s",
			    inputs[a], inputs[b], o->path[a]);
		}
	free(v);
}

/*
 * An output whose name is an input (the same directory entry, or the
 * file an input leads to) is a usage error: the input would be replaced.
 * A name that is a symbolic link to an input is no input: the link is
 * replaced, not the file.
 */
static void
refuse_replacing(const struct outdir *o, char *const inputs[])
{
	struct fileid *id, key, *hit;
	struct stat st;
	size_t i, n = 0;

	id = xcalloc(2 * o->n, sizeof(*id));
	for (i = 0; i < o->n; i++) {
		if (lstat(inputs[i], &st) == 0)
			id[n++] = (struct fileid){ st.st_dev, st.st_ino, i };
		if (stat(inputs[i], &st) == 0)
			id[n++] = (struct fileid){ st.st_dev, st.st_ino, i };
	}
	xqsort(id, n, sizeof(*id), fileid_cmp);
	for (i = 0; i < o->n; i++) {
		if (lstat(o->path[i], &st) != 0)
			continue;
		key = (struct fileid){ st.st_dev, st.st_ino, 0 };
		if (n == 0 || (hit = bsearch(&key, id, n, sizeof(*id),
		    fileid_cmp)) == NULL)
			continue;
		if (hit->i == i)
			die_usage("%s: its output, %s, would be written over "
			    "it", inputs[i], o->path[i]);
		die_usage("%s: the output of %s, %s, would be written over "
		    "it", inputs[hit->i], inputs[i], o->path[i]);
	}
	free(id);
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

int
outdir_commit(struct outdir *o, size_t i)
{
	int rc;

	/* A stream into memory fails only for want of it. */
	if (fclose(o->fp) != 0)
		die("out of memory");
	o->fp = NULL;
	rc = publish_file(o->path[i], o->buf, o->len, o->mode);
	free(o->buf);
	o->buf = NULL;
	return rc;
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
	for (i = 0; i < o->n; i++)
		free(o->path[i]);
	free(o->path);
}
