/*
 * replay: a profiling snippet that replays one operator call alone, from
 * what a trace recorded of it (an "op_calls" record: the operator's name,
 * its inputs' dims, types, strides and scalar arguments, and the kernels
 * its calls launched).  The call is made as rubric/replay-ops.tsv says
 * (torch.ops.NS.NAME.OVERLOAD, each input placed by the table), or, for an
 * operator no row fits, through torch._C._jit_get_operation() with its
 * arguments written as data.
 *
 * Nothing of the trace reaches target.py but numbers, checked as numbers,
 * and names: the operator's, which must be NS::NAME of identifiers (on
 * the table's path it is the table's own text), and the dtypes, which are
 * mrp's own names for the types it knows.  Anything else (a string
 * argument, a list of tensors, a number that is no number) refuses the
 * replay, naming the input.  No Python runs here.
 *
 * Ownership: a replay_table owns its text and rows; a replay owns its
 * arguments; replay_free() and replay_table_free() release them.  Records
 * and strings passed in are borrowed for the call.
 */
#ifndef REPLAY_H
#define REPLAY_H

#include <stddef.h>
#include <stdint.h>
#include <stdio.h>

#include "base/strbuf.h"
#include "io/json.h"

/* How an input is made, and how a table row takes it. */
enum {
	RK_TENSOR, RK_OUT, RK_INT, RK_FLOAT, RK_BOOL, RK_SCALAR, RK_INTS,
	RK_BOOLS, RK_FLOATS, RK_DTYPE, RK_UNRECORDED, RK_N
};

struct replay_param {
	char	*name;
	int	 kind;		/* RK_* */
	int	 optional;	/* kind? */
	int	 keyword;	/* after the row's lone '*' */
};

/* A row of replay-ops.tsv. */
struct replay_row {
	char			*op;		/* "aten::addmm" */
	char			*ns, *name, *overload;
	struct replay_param	*p;
	size_t			 np;
	int			 cuda_only;
	size_t			 line;
};

struct replay_table {
	char			*path;
	struct replay_row	*row;
	size_t			 nrow;
};

/*
 * Loads the table f, read from path; f stays the caller's.  A table that
 * cannot be read, or a row that does not parse, is a usage error naming
 * path:line (exit 2).
 */
void replay_table_load(struct replay_table *, FILE *f, const char *path);
void replay_table_free(struct replay_table *);

/* One input of the call, as target.py makes it. */
enum { RA_TENSOR, RA_NONE, RA_VALUE, RA_DTYPE, RA_OMIT };

struct replay_arg {
	int		 what;		/* RA_* */
	const char	*keyword;	/* the table's keyword name, or NULL */
	const char	*param;		/* the table's name for it, or NULL */
	/* RA_TENSOR: dims, strides (NULL: not recorded), type, filled. */
	int64_t		*dims, *strides;
	size_t		 ndim;
	int		 dtype;		/* index into mrp's dtype table */
	int		 fill;		/* 0: an output, made and not filled */
	char		*value;		/* RA_VALUE: a Python literal */
};

struct replay {
	char			*op;		/* checked: NS::NAME */
	const struct replay_row	*row;		/* NULL: the generic path */
	struct replay_arg	*arg;
	size_t			 narg;
	char			*range;		/* the NVTX range's name */
	char			*why;		/* the generic path: why */
	uint64_t		 bytes;		/* of the tensors made */
};

/*
 * Plans the call of the op_calls record rec with table t.  Returns 0, or
 * -1 with *err saying why the call cannot be replayed (a name or an input
 * that is not what it must be); err is the caller's to free.
 */
int replay_plan(struct replay *, const struct replay_table *t,
    const struct jdoc *rec, char **err);
void replay_free(struct replay *);

/* What the README and target.py say of where the call comes from. */
struct replay_src {
	const char		*trace;		/* as given */
	const char		*sha256;
	const char		*gpu;		/* the trace's device, or NULL */
	const struct jdoc	*calls;		/* the op_calls record */
	const struct jdoc	*shape;		/* its op_shape record, or NULL */
	int			 nth;		/* its rank among the shapes */
	const char		*ranked;	/* by what they were ranked */
	const char		*command;	/* the command that made it */
};

/* What the snippet is called and where it goes. */
struct replay_out {
	const char	*profile, *config, *tclass;
};

/* target.py. */
void replay_target_py(struct strbuf *, const struct replay *,
    const struct replay_src *, const struct replay_out *);

/* README.md; cfgtext is config.yaml as written, for the nsys command. */
void replay_readme(struct strbuf *, const struct replay *,
    const struct replay_src *, const struct replay_out *,
    const struct strbuf *cfgtext);

/*
 * The name of the NVTX range target.py times an op_calls record's calls
 * in: the operator, its tensors' dims and their types ("aten::addmm 768
 * 788x768 768x768 bf16"); NULL without shapes.  The caller frees it.
 */
char *replay_range(const struct jdoc *rec);

#endif
