/*
 * pattern: an fnmatch(3) pattern (flags 0, the C locale) made ready for
 * many names, as op-rank classifies each name it meets by the rubric's
 * tables, and crit-path by its calls table: a million distinct kernel
 * names spent a third of op-rank's time in fnmatch.  A pattern of text and
 * '*' alone (most of them) is matched by its pieces, the text between its
 * stars: the first a prefix, the last a suffix, each other the leftmost
 * after the one before, which is where a '*' alone can put it.  One with
 * '?', '[' or '\' goes to fnmatch.  The answers are fnmatch's.
 *
 * Ownership: a pattern owns a copy of its text and its pieces;
 * pattern_free() frees them.
 */
#ifndef PATTERN_H
#define PATTERN_H

#include <stddef.h>

struct pattern {
	char	 *text;		/* the pattern as given */
	char	 *pieces;	/* plain: the text, each '*' made a NUL */
	size_t	 *at, *len;	/* plain: each piece's offset and length */
	size_t	  npiece;	/* plain: stars plus one; 0 for fnmatch */
};

void	pattern_init(struct pattern *, const char *text);

/*
 * Whether s, of length len, matches, as fnmatch(text, s, 0) == 0 says: a
 * name tried against a table's patterns is measured once for them all.
 */
int	pattern_match(const struct pattern *, const char *s, size_t len);

void	pattern_free(struct pattern *);

#endif
