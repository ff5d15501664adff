/*
 * pyenv: the environment variables Python code reads, found in a pysrc's
 * tokens without running it: os.getenv("X"), os.environ.get("X"),
 * os.environ["X"] (and environ or getenv imported bare) with a string
 * literal, and the constants of an environment module (a module whose
 * last part is "env", such as inference.core.env) traced to the variables
 * their definitions read.
 *
 * Ownership: a struct envlist owns its entries and their strings;
 * envlist_free() releases them.  Sources are borrowed.
 */
#ifndef PYENV_H
#define PYENV_H

#include <stddef.h>
#include <stdint.h>

#include "snippet/pysrc.h"

struct envread {
	char		*var;		/* the environment variable, or NULL */
	char		*constant;	/* a constant of module, or NULL */
	char		*module;	/* its module */
	char		*by;		/* who reads it: a function's name */
	uint32_t	 line;		/* where: the read, or the constant's
					   definition in its module (0: not
					   found) */
};

struct envlist {
	struct envread	*v;
	size_t		 n, cap;
};

/*
 * Adds each literal os.getenv / os.environ read in tokens [first, end) of
 * s, by the function named by.
 */
void	pyenv_reads(const struct pysrc *s, size_t first, size_t end,
	    const char *by, struct envlist *out);

/*
 * Adds each name of tokens [first, end) (not an attribute) that the module
 * s imports from an environment module, and each NAME of env.NAME where env
 * is such a module imported whole, as a constant of that module.
 */
void	pyenv_constants(const struct pysrc *s, size_t first, size_t end,
	    const char *by, struct envlist *out);

/*
 * The environment variables that the definition of constant in the
 * environment module envsrc reads, directly or through other constants it
 * names (three deep), added to out as reads of constant by the function
 * by, at their lines in envsrc; returns the line of its definition, or 0
 * when the module does not define it.
 */
uint32_t pyenv_trace(const struct pysrc *envsrc, const char *constant,
	    const char *module, const char *by, struct envlist *out);

/*
 * The module that s imports name from at its top (from M import name),
 * for a constant an environment module takes from another; NULL when
 * none does.  The caller frees it.
 */
char	*pyenv_imported_from(const struct pysrc *s, const char *name);

/* Adds a read; the strings are copied, NULL ones stay NULL. */
void	envlist_add(struct envlist *, const char *var, const char *constant,
	    const char *module, const char *by, uint32_t line);

/* Sorts by variable, then constant, then reader, and drops repeats. */
void	envlist_sort(struct envlist *);

void	envlist_free(struct envlist *);

#endif
