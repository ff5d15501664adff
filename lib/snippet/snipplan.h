/*
 * snipplan: what snip-new makes of one Python definition before it writes
 * anything: the struct snip that the source (snipsrc.c: which def, its
 * module and lines), its arguments (snipargs.c: parameters, the kind of
 * method, where prepare() finds each value) and the rest of the plan
 * (snipplan.c: environment reads, helpers, import blocks, the ranges
 * timed, a method's patched source) fill in, and that snipwrite turns into
 * target.py, config.yaml and README.md.
 *
 * Ownership: a struct snip borrows its source (s, f) and owns every
 * string and array it holds; the program ends with it, as snip-new does.
 * Functions here die with a message on bad input.
 */
#ifndef SNIPPLAN_H
#define SNIPPLAN_H

#include <stddef.h>
#include <stdint.h>

#include "base/strbuf.h"
#include "snippet/pyenv.h"
#include "snippet/pyscope.h"
#include "snippet/pysrc.h"
#include "snippet/snipin.h"

/* What a rule's pattern is matched against. */
enum { R_CALL, R_NAME, R_HELPER };

struct rule {
	const char	*range, *pattern;
	const char	*args;		/* R_CALL: a name among the arguments */
	int		 kind;
};

struct rules {
	char		*text;		/* owns the strings of v */
	struct rule	*v;
	size_t		 n;
};

enum { P_POS, P_KWONLY, P_VARARGS, P_VARKW };

struct param {
	char	*name;
	char	*ann;		/* the annotation, or NULL */
	int	 kind, has_default;
};

struct region {
	uint32_t	 first, last;	/* source lines */
	size_t		 stmt;		/* the last statement in it */
	char		*label;
	char		*base;		/* its indentation, less the def's */
};

enum { M_NONE, M_INSTANCE, M_CLASS, M_STATIC };

struct block {
	size_t		 first, last;	/* statements */
};

struct snip {
	const struct pysrc	*s;
	const struct pydef	*f;
	size_t			 d;
	const char		*file;
	char			*module, *root, *profile, *odir, *folder;
	char			*config, *target, *readme, *tclass;
	/* target.py's own module-level names, clear of the copy's. */
	char			*tvar, *devvar;
	char			 sha[65];
	char			*git;
	struct param		*par;
	size_t			 npar;
	struct snipin		*in;		/* one per parameter */
	size_t			 nin;		/* how many read inputs */
	struct region		*reg;
	size_t			 nreg;
	char			**helpers;
	size_t			 nhelpers;
	/* The tokens of the copied def, and the import blocks copied. */
	size_t			 use_first, use_end;
	struct block		*blk;
	size_t			 nblk;
	/* The source with the method's super() and private names spelt
	 * for module level, or NULL when it needs no change. */
	struct pysrc		*patched;
	size_t			 supers, mangled;
	/* What the copy and its direct helpers read from the environment. */
	struct envlist		 env;
	char			*strip, *unit;
	int			 method, returns, yields;
	/* The source lines copied; with -l at module level, the lines made
	 * the body of a function appended to the source (mod_first != 0):
	 * its line L is source line L - shift, its parameters the names
	 * the lines read from before them. */
	uint32_t		 first_line, last_line;
	uint32_t		 mod_first, mod_last, orig_lines, shift;
	struct names		 modparams;
	char			*owner;		/* the class of a method */
	struct strbuf		 dropped;	/* decorators left out */
	struct strbuf		 skipped;	/* imports not copied */
	const char		*device;	/* the config's, -D */
	const char		*images;	/* the images source, -i */
};

/* snipsrc.c: the definition and where it is. */
size_t	plan_pick(const struct pysrc *, const char *qualname, uint32_t *,
	    uint32_t *);
void	plan_module_lines(struct snip *, struct pysrc *, uint32_t,
	    uint32_t);
uint32_t plan_source_line(const struct snip *, uint32_t);
char	*plan_module_of(const char *, char **);
int	plan_dotted(const char *);

/* snipargs.c: its parameters and what gives each a value. */
void	plan_params(struct snip *);
void	plan_method_kind(struct snip *);
int	plan_dropped_decorator(const struct pysrc *, size_t);
void	plan_inputs(struct snip *);

/* snipplan.c: what the copy reads, calls and imports, and what is timed. */
void	plan_environment(struct snip *);
void	plan_helpers(struct snip *);
void	plan_import_blocks(struct snip *);
int	plan_is_import(const struct pysrc *, size_t);
void	plan_regions(struct snip *, const struct rules *, uint32_t,
	    uint32_t);
void	plan_patch_method(struct snip *);
char	*plan_own_name(const struct snip *, const char *);

#endif
