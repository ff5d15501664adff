#include <limits.h>
#include <stddef.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "base/err.h"
#include "base/files.h"
#include "base/operands.h"
#include "base/xalloc.h"

int
for_each_operand(int argc, char *argv[],
    int (*fn)(const char *path, void *arg), void *arg)
{
	int rc, status = 0;

	if (argc == 0)
		return fn(NULL, arg) != 0;
	for (; argc > 0; argc--, argv++) {
		if ((rc = fn(*argv, arg)) < 0)
			return 1;
		status |= rc;
	}
	return status;
}

void
oplist_read(struct oplist *l, int argc, char *argv[], const char *list)
{
	size_t len, cap, line = 1;
	char *p, *end, *nl;

	l->text = list != NULL ? file_slurp(list, &len) : NULL;
	cap = (size_t)argc + 16;
	l->argv = xreallocarray(NULL, cap, sizeof(*l->argv));
	memcpy(l->argv, argv, (size_t)argc * sizeof(*argv));
	l->argc = argc;
	if (l->text == NULL) {
		l->argv[l->argc] = NULL;
		return;
	}
	for (p = l->text, end = l->text + len; p < end; p = nl + 1, line++) {
		if ((nl = memchr(p, '\n', (size_t)(end - p))) == NULL)
			nl = end;
		*nl = '\0';
		if (strlen(p) != (size_t)(nl - p))
			die("%s:%zu:%zu: a NUL in a name", list, line,
			    strlen(p) + 1);
		if (*p == '\0')
			continue;
		if (l->argc == INT_MAX - 1)
			die("%s:%zu:1: too many names", list, line);
		if ((size_t)l->argc + 1 >= cap) {
			cap *= 2;
			l->argv = xreallocarray(l->argv, cap,
			    sizeof(*l->argv));
		}
		l->argv[l->argc++] = p;
	}
	l->argv[l->argc] = NULL;
}

void
oplist_free(struct oplist *l)
{
	free(l->text);
	free(l->argv);
}
