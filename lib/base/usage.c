#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "base/err.h"
#include "base/usage.h"

/* Options narrower than this line their descriptions up in one column. */
#define OPTION_COLUMN	24

static void
synopsis(FILE *fp, const char *s)
{
	const char *nl;
	int first = 1;

	do {
		nl = strchr(s, '\n');
		fprintf(fp, "%s %s %.*s\n", first ? "usage:" : "      ",
		    getprogname(), (int)(nl ? nl - s : (long)strlen(s)), s);
		first = 0;
		s = nl + 1;
	} while (nl != NULL);
}

void
usage_error(const struct usage *u)
{
	synopsis(stderr, u->synopsis);
	exit(2);
}

void
usage_help(const struct usage *u)
{
	const struct optdoc *o;
	int w;

	synopsis(stdout, u->synopsis);
	printf("%s: %s.\n\n", getprogname(), u->purpose);
	for (o = u->options; o->option != NULL; o++) {
		w = (int)strlen(o->option);
		if (w < OPTION_COLUMN - 4)
			printf("  %-*s  %s\n", OPTION_COLUMN - 4, o->option,
			    o->what);
		else
			printf("  %s\n  %*s  %s\n", o->option,
			    OPTION_COLUMN - 4, "", o->what);
	}
	printf("\nSee %s(1) for the whole manual.\n", getprogname());
	exit(finish(0));
}
