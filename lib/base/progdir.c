#include <limits.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "base/progdir.h"
#include "base/strbuf.h"
#include "base/xalloc.h"

char *
prog_dir(void)
{
	char exe[PATH_MAX], *slash;
	ssize_t n;

	if ((n = readlink("/proc/self/exe", exe, sizeof(exe) - 1)) <= 0)
		return NULL;
	exe[n] = '\0';
	if ((slash = strrchr(exe, '/')) == NULL)
		return NULL;
	*slash = '\0';
	return xstrdup(exe);
}

/* The directories rubric_find() tries after $MRP_RUBRIC, in order. */
static size_t
candidates(char *dir[3])
{
	struct strbuf tree = { 0 }, moved = { 0 };
	char *bin;
	size_t n = 0;

	if ((bin = prog_dir()) != NULL) {
		sb_printf(&tree, "%s/../rubric", bin);
		sb_printf(&moved, "%s/../share/mrp/rubric", bin);
		free(bin);
		dir[n++] = tree.s;
	}
	if (mrp_rubricdir[0] != '\0')
		dir[n++] = xstrdup(mrp_rubricdir);
	if (moved.s != NULL)
		dir[n++] = moved.s;
	return n;
}

char *
rubric_find(const char *name)
{
	struct strbuf path = { 0 };
	const char *env;
	char *dir[3], *found = NULL;
	size_t i, n;

	if ((env = getenv("MRP_RUBRIC")) != NULL && *env != '\0')
		return xstrdup(env);
	n = candidates(dir);
	for (i = 0; i < n; i++) {
		sb_truncate(&path, 0);
		sb_printf(&path, "%s/%s", dir[i], name);
		if (found == NULL && access(path.s, R_OK) == 0)
			found = dir[i];
		else
			free(dir[i]);
	}
	sb_free(&path);
	return found;
}

/* Kept for the program's life: a message quotes it as the program ends. */
const char *
rubric_places(void)
{
	static struct strbuf b;
	char *dir[3];
	size_t i, n;

	if (b.s != NULL)
		return b.s;
	n = candidates(dir);
	for (i = 0; i < n; i++) {
		if (i > 0)
			sb_puts(&b, i + 1 < n ? ", " : " or ");
		sb_puts(&b, dir[i]);
		free(dir[i]);
	}
	return b.s != NULL ? b.s : "nowhere";
}
