#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "io/tsv.h"

size_t
tsv_next(struct tsv *t, char **f, size_t max)
{
	char *p;
	size_t n;

	for (;;) {
		if (getline(&t->line, &t->cap, t->fp) == -1)
			return 0;
		t->lineno++;
		t->line[strcspn(t->line, "\r\n")] = '\0';
		if (t->line[0] != '#' &&
		    t->line[strspn(t->line, " \t")] != '\0')
			break;
	}
	for (n = 0, p = t->line; n < max; n++) {
		f[n] = p;
		if ((p = strchr(p, '\t')) == NULL)
			return n + 1;
		*p++ = '\0';
	}
	return max + 1;
}

void
tsv_free(struct tsv *t)
{
	free(t->line);
	t->line = NULL;
	t->cap = 0;
}
