/*
 * pyscope: the names a run of module-level Python statements reads before
 * it binds them, and how the rest of the module binds a name: what a line
 * range needs from around it when it becomes a function's body.
 *
 * Found from tokens, not by running: a statement's reads come before its
 * binds (an assignment's targets, a for or with's, an import's names, a
 * def or class's name, a := target); attributes, keyword arguments, a
 * comprehension's and a lambda's own names are no reads; the bodies of
 * functions and classes defined in the range are not looked into.
 *
 * Ownership: a struct names owns its strings; names_free() releases them.
 */
#ifndef PYSCOPE_H
#define PYSCOPE_H

#include <stddef.h>

#include "snippet/pysrc.h"

struct names {
	char	**v;
	size_t	 n, cap;
};

/* How the module binds a name. */
enum {
	PB_NONE,	/* nowhere: a builtin, or nothing */
	PB_IMPORT,	/* by an import */
	PB_DEF,		/* by a def or a class */
	PB_VALUE	/* by an assignment, a for, a with ... */
};

/*
 * The names statements [first, last] of s read before binding them, in
 * order of first read, into free; the names they bind into bound.
 */
void	pyscope_range(const struct pysrc *s, size_t first, size_t last,
	    struct names *free_names, struct names *bound);

/*
 * How the module-level statements of s outside statements [first, last]
 * bind name; an import wins over a value (try: import x / except: x =
 * None), a def over a value.
 */
int	pyscope_binding(const struct pysrc *s, const char *name, size_t first,
	    size_t last);

int	names_has(const struct names *, const char *);
void	names_free(struct names *);

#endif
