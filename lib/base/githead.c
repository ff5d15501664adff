#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

#include "base/githead.h"
#include "base/xalloc.h"

static char	*first_line(const char *, const char *);
static char	*join(const char *, const char *);
static char	*packed_ref(const char *, const char *);

/* "a/b", or b alone when it is absolute. */
static char *
join(const char *a, const char *b)
{
	size_t n;
	char *s;

	if (b[0] == '/')
		return xstrdup(b);
	n = strlen(a) + strlen(b) + 2;
	s = xmalloc(n);
	snprintf(s, n, "%s/%s", a, b);
	return s;
}

/* The first line of dir/name without its newline, or NULL. */
static char *
first_line(const char *dir, const char *name)
{
	char buf[4096], *path;
	FILE *f;

	path = join(dir, name);
	f = fopen(path, "r");
	free(path);
	if (f == NULL)
		return NULL;
	if (fgets(buf, sizeof(buf), f) == NULL) {
		fclose(f);
		return NULL;
	}
	fclose(f);
	buf[strcspn(buf, "\r\n")] = '\0';
	return xstrdup(buf);
}

static char *
packed_ref(const char *common, const char *ref)
{
	char line[4096], *path, *sp, *sha = NULL;
	FILE *f;

	path = join(common, "packed-refs");
	f = fopen(path, "r");
	free(path);
	if (f == NULL)
		return NULL;
	while (sha == NULL && fgets(line, sizeof(line), f) != NULL) {
		line[strcspn(line, "\r\n")] = '\0';
		if ((sp = strchr(line, ' ')) != NULL && strcmp(sp + 1, ref) == 0) {
			*sp = '\0';
			sha = xstrdup(line);
		}
	}
	fclose(f);
	return sha;
}

char *
git_head(const char *start)
{
	char dir[PATH_MAX], *gitdir, *s, *common, *head, *sha = NULL;
	struct stat st;
	size_t n;

	if (realpath(start, dir) == NULL)
		return NULL;
	for (;;) {
		gitdir = join(dir, ".git");
		if (stat(gitdir, &st) == 0)
			break;
		free(gitdir);
		if ((s = strrchr(dir, '/')) == NULL || dir[1] == '\0')
			return NULL;
		s[s == dir ? 1 : 0] = '\0';
	}
	if (!S_ISDIR(st.st_mode)) {
		s = first_line(dir, ".git");
		free(gitdir);
		if (s == NULL || strncmp(s, "gitdir: ", 8) != 0) {
			free(s);
			return NULL;
		}
		gitdir = join(dir, s + 8);
		free(s);
	}
	s = first_line(gitdir, "commondir");
	common = join(gitdir, s != NULL ? s : ".");
	free(s);
	head = first_line(gitdir, "HEAD");
	if (head != NULL && strncmp(head, "ref: ", 5) == 0) {
		if ((sha = first_line(gitdir, head + 5)) == NULL &&
		    (sha = first_line(common, head + 5)) == NULL)
			sha = packed_ref(common, head + 5);
		free(head);
	} else
		sha = head;
	free(gitdir);
	free(common);
	if (sha != NULL) {
		n = strspn(sha, "0123456789abcdef");
		if (sha[n] != '\0' || (n != 40 && n != 64)) {
			free(sha);
			sha = NULL;
		}
	}
	return sha;
}
