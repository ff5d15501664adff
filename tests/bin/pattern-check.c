/*
 * pattern-check: base/pattern's answers against fnmatch(3)'s.  Each
 * pattern of the named tables (the last field of each line, lower case,
 * as op-rank reads them) meets a few hundred thousand names: the pattern
 * with its stars filled in a few ways, and names of the patterns' own
 * characters drawn at random (a fixed seed).  Then patterns of "a", "b"
 * and "*" drawn at random meet names of "a" and "b", where pieces overlap
 * and repeat as the tables' seldom do.  Exits 1 after reporting the first
 * name on which the two disagree.  Built by "make check" into
 * $(BUILD)/testbin for tests/op-rank.bats.
 */
#include <ctype.h>
#include <fnmatch.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "base/err.h"
#include "base/pattern.h"
#include "base/xalloc.h"

#define NRANDOM	2000
#define NSMALL	100000

static char	**pats;
static size_t	  npat;
static unsigned long long seed = 88172645463325252ULL;

static unsigned
draw(unsigned n)
{
	seed ^= seed << 13;
	seed ^= seed >> 7;
	seed ^= seed << 17;
	return (unsigned)(seed % n);
}

/* 1 after a message when p and fnmatch disagree on s. */
static int
differ(const struct pattern *p, const char *s)
{
	int want = fnmatch(p->text, s, 0) == 0;

	if (pattern_match(p, s, strlen(s)) == want)
		return 0;
	fprintf(stderr, "pattern-check: \"%s\" on \"%s\": fnmatch %s\n",
	    p->text, s, want ? "matches" : "does not match");
	return 1;
}

static void
load(const char *path)
{
	char *line = NULL, *f, *c;
	size_t cap = 0;
	ssize_t n;
	FILE *fp;

	if ((fp = fopen(path, "r")) == NULL)
		die("%s:", path);
	while ((n = getline(&line, &cap, fp)) > 0) {
		if (line[n - 1] == '\n')
			line[--n] = '\0';
		if (*line == '#' || *line == '\0')
			continue;
		f = (f = strrchr(line, '\t')) != NULL ? f + 1 : line;
		for (c = f; *c != '\0'; c++)
			*c = (char)tolower((unsigned char)*c);
		pats = xreallocarray(pats, npat + 1, sizeof(*pats));
		pats[npat++] = xstrdup(f);
	}
	free(line);
	fclose(fp);
}

int
main(int argc, char *argv[])
{
	static const char *const fill[] = { "", "x", "ab", "*", "nccl", "_" };
	struct pattern p;
	char alpha[256], s[64], *t;
	size_t i, j, k, na = 0, len, checked = 0;
	const char *c;

	setprogname(argv[0]);
	for (i = 1; i < (size_t)argc; i++)
		load(argv[i]);
	/* The characters of every pattern, and a few of no pattern. */
	for (c = "zq9.-:/ "; *c != '\0'; c++)
		alpha[na++] = *c;
	for (i = 0; i < npat; i++)
		for (c = pats[i]; *c != '\0'; c++)
			if (memchr(alpha, *c, na) == NULL && na < sizeof(alpha))
				alpha[na++] = *c;
	for (i = 0; i < npat; i++) {
		pattern_init(&p, pats[i]);
		/* The pattern itself, its stars filled each way. */
		for (j = 0; j < sizeof(fill) / sizeof(fill[0]); j++) {
			t = xcalloc(strlen(pats[i]) * 4 + 1, 1);
			for (c = pats[i]; *c != '\0'; c++)
				if (*c == '*')
					strcat(t, fill[j]);
				else
					strncat(t, c, 1);
			checked++;
			if (differ(&p, t))
				return 1;
			free(t);
		}
		/* Every pattern's names against this one. */
		for (j = 0; j < npat; j++, checked++)
			if (differ(&p, pats[j]))
				return 1;
		for (k = 0; k < NRANDOM; k++, checked++) {
			len = draw(sizeof(s));
			for (j = 0; j < len; j++)
				s[j] = alpha[draw((unsigned)na)];
			s[len] = '\0';
			if (differ(&p, s))
				return 1;
		}
		pattern_free(&p);
	}
	for (i = 0; i < NSMALL; i++) {
		len = 1 + draw(8);
		for (j = 0; j < len; j++)
			s[j] = "ab*"[draw(3)];
		s[len] = '\0';
		pattern_init(&p, s);
		for (k = 0; k < 64; k++, checked++) {
			len = draw(12);
			for (j = 0; j < len; j++)
				s[j] = "ab"[draw(2)];
			s[len] = '\0';
			if (differ(&p, s))
				return 1;
		}
		pattern_free(&p);
	}
	printf("%zu patterns, %zu names: fnmatch's answers\n", npat + NSMALL,
	    checked);
	return 0;
}
