#include <sys/stat.h>

#include <ctype.h>
#include <errno.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "base/err.h"
#include "base/files.h"
#include "base/strbuf.h"
#include "base/xalloc.h"

static char	*canonical(const char *);

char *
file_slurp(const char *path, size_t *lenp)
{
	struct strbuf b = { 0 };
	char chunk[BUFSIZ];
	FILE *fp;
	size_t n;

	if ((fp = fopen(path, "r")) == NULL)
		die("%s:", path);
	while ((n = fread(chunk, 1, sizeof(chunk), fp)) > 0)
		sb_put(&b, chunk, n);
	if (ferror(fp))
		die("%s:", path);
	fclose(fp);
	sb_put(&b, "", 0);
	*lenp = b.len;
	return b.s;
}

int
file_write_all(int fd, const void *buf, size_t n)
{
	const char *p = buf;
	ssize_t w;

	while (n > 0) {
		if ((w = write(fd, p, n)) == -1) {
			if (errno == EINTR)
				continue;
			return -1;
		}
		p += w;
		n -= (size_t)w;
	}
	return 0;
}

const char *
file_dir(const char *path, char *dir, size_t size)
{
	const char *slash;
	size_t n;

	if ((slash = strrchr(path, '/')) == NULL) {
		snprintf(dir, size, ".");
		return path;
	}
	n = (size_t)(slash - path);
	if (n >= size)
		return NULL;
	memcpy(dir, path, n);
	dir[n] = '\0';
	if (n == 0)
		snprintf(dir, size, "/");
	return slash + 1;
}

int
file_same(const char *a, const char *b)
{
	struct stat sa, sb;
	char *ca, *cb;
	int same;

	if (strcmp(a, b) == 0)
		return 1;
	if (stat(a, &sa) == 0 && stat(b, &sb) == 0)
		return sa.st_dev == sb.st_dev && sa.st_ino == sb.st_ino;
	ca = canonical(a);
	cb = canonical(b);
	same = ca != NULL && cb != NULL && strcmp(ca, cb) == 0;
	free(ca);
	free(cb);
	return same;
}

/* The real path of path's directory, then its last name; NULL if unknown. */
static char *
canonical(const char *path)
{
	char dir[PATH_MAX], real[PATH_MAX], *s;
	const char *base;
	size_t n;

	if ((base = file_dir(path, dir, sizeof(dir))) == NULL ||
	    realpath(dir, real) == NULL)
		return NULL;
	n = strlen(real) + strlen(base) + 2;
	s = xmalloc(n);
	snprintf(s, n, "%s/%s", real, base);
	return s;
}

int
file_is_chardev(const char *path)
{
	struct stat sb;

	return stat(path, &sb) == 0 && S_ISCHR(sb.st_mode);
}

int
file_fd_named(const char *path)
{
	static const char *const prefixes[] = {
		"/dev/fd/", "/proc/self/fd/", NULL
	};
	const char *p;
	char *end;
	long n;
	int i;

	if (strcmp(path, "/dev/stdin") == 0)
		return STDIN_FILENO;
	for (i = 0; prefixes[i] != NULL; i++) {
		if (strncmp(path, prefixes[i], strlen(prefixes[i])) != 0)
			continue;
		p = path + strlen(prefixes[i]);
		if (!isdigit((unsigned char)*p))
			return -1;
		errno = 0;
		n = strtol(p, &end, 10);
		if (*end != '\0' || errno != 0 || n > INT_MAX ||
		    n == STDOUT_FILENO || n == STDERR_FILENO)
			return -1;
		return (int)n;
	}
	return -1;
}
