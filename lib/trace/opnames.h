/*
 * opnames: the operator aggregator's names (opfamily.c): what each name
 * is (an operator, annotation, Python frame, kernel or runtime call), the
 * class, phase, family and precision tables it is looked up in, and the
 * names interned once, with what they are, into struct names.
 *
 * Ownership: a struct names owns its map, its names and their text; the
 * tables own their rules and families; struct oprank owns both.
 */
#ifndef OPNAMES_H
#define OPNAMES_H

#include <stddef.h>
#include <stdint.h>

#include "base/pattern.h"
#include "base/strmap.h"

struct oprank;

#define TABLE_NAME	"op-families.tsv"
#define PREC_NAME	"kernel-precision.tsv"
#define FRAMES_NAME	"python-frames.tsv"
#define NAME_COST	256	/* bytes a name takes, besides its text */

/* What a name is; the class is part of the interned key. */
enum { C_OP, C_ANN, C_PY, C_GPU, C_RT, NCLASS };
extern const char *const op_clsname[NCLASS];

enum {
	PH_FWD, PH_BWD, PH_OPT, PH_DATA, PH_COMM, PH_OTHER, NPHASE,
	PH_NONE = NPHASE
};
extern const char *const op_phasename[NPHASE];

/* GPU time classes, in precedence order for ival_exposed(). */
enum { G_COMP, G_COMM, G_MEMCPY, NGCLS };

/* What a Python frame is, by rubric/python-frames.tsv. */
enum { PYK_USER, PYK_LIB, PYK_PROF, PYK_MODULE };

/* The precisions of gemm_precision records, in their order. */
#define NPREC	8
extern const char *const op_precname[NPREC];

struct rule {
	int		 gpu;		/* the scope: 0 cpu, 1 gpu, 2 python */
	int		 family;
	struct pattern	 pattern;	/* lower case, as the names it meets */
};

/*
 * The family table, or the precision table; "other" (or "unknown") is
 * family nfam, after the table's own.
 */
struct table {
	struct rule	*r;
	size_t		 n, cap;
	char		**fam;
	size_t		 nfam, capfam;
};

struct name {
	const char	*s;	/* borrowed from the map's key, past the class */
	int		 cls;
	int		 family;
	int		 mark;	/* the phase the name marks, or PH_NONE */
	int		 gcls;	/* a kernel's timeline class, G_* */
	int		 prec;	/* a kernel's precision: op_precname[] */
	int		 mm;	/* a kernel in family gemm or conv */
	int		 pyk;	/* a Python frame's PYK_* */
};

struct names {
	struct strmap		 map;
	struct name		*v;
	size_t			 n, cap;
	char			*buf;
	size_t			 bufcap;
	const struct table	*tab, *prec, *frames;
	int			 famcomm, fammemcpy, famgemm, famconv;
	int			 famattn, fammemset, famrt;
	int			 famlib, famprof;	/* of frames */
	int			*precof; /* table family -> op_precname[] */
	/*
	 * What the names may take, NAME_COST and its text each; a new
	 * name beyond it folds into its class's (other ...) name.
	 */
	size_t			 budget, used;
};

/* opfamily.c */
char	*op_find_table(const char *name);
void	op_load_table(struct table *t, const char *path, const char *none);
void	op_table_free(struct table *t);
int	op_family_index(const struct table *t, const char *s);
/*
 * A Python frame's kind (PYK_*) by the frames table and the indices of its
 * "library" and "profiler" kinds.
 */
int	op_pyframe_kind(const struct table *frames, int famlib, int famprof,
	    const char *s);
void	op_check_prec(struct names *nm, const struct table *t,
	    const char *path);
uint32_t	op_intern(struct names *nm, int cls, const char *s, size_t len);
int	op_folded(const struct name *n);
const char	*op_family_name(const struct oprank *r, int f);
void	op_digest_file(const char *path, char hex[65]);

#endif
