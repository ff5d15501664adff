/*
 * callshape: what a trace recorded with record_shapes=True says of one
 * operator call's inputs: their dimensions ("Input Dims"), types ("Input
 * type"), strides ("Input Strides", PyTorch 2.1 and later) and scalar
 * arguments ("Concrete Inputs"), as op-rank's op_shape records and the
 * replay tools group calls by them, TraceLens's grouping.
 *
 * A record gives them under the names tr-extract writes (input_dims,
 * input_types, input_strides, concrete_inputs), under those of op-rank's
 * op_shape records (dims, types, strides, concrete), or in its "args"
 * object as the trace spells them (tr-extract -a).
 *
 * Ownership: a struct callshape owns its arrays and strings;
 * callshape_free() releases them.  Records are borrowed for the call.
 */
#ifndef CALLSHAPE_H
#define CALLSHAPE_H

#include <stddef.h>
#include <stdint.h>

#include "base/strbuf.h"
#include "io/json.h"
#include "io/ndjson.h"

/* The nodes of a call's four lists in its record, -1 where absent. */
struct shapenodes {
	int	dims, types, strides, concrete;
};

struct callshape {
	size_t	 nin, ntype;
	int	*rank;		/* dimensions of each input */
	int64_t	*dim;		/* every input's, in a row */
	char	**type;
	/* The strides as the dims, and the scalars, where the trace has them. */
	int	 has_str, has_con;
	size_t	 nstr, ncon;
	int	*srank;
	int64_t	*stride;
	char	**con;
};

/*
 * The nodes of object obj of d: the members named as tr-extract or
 * op_shape names them, else those of its "args".
 */
void callshape_nodes(const struct jdoc *d, uint32_t obj, struct shapenodes *);

/*
 * Appends the shapes' key to key: the four lists, each length-prefixed
 * or numeric, so that no two calls with other shapes share one.  Returns
 * -1 when the dims are not lists of whole numbers (a list of tensors) or
 * the types not strings: such a call has no shape.  Strides or scalars
 * that are absent or cannot be read are left out, the same way.
 */
int callshape_key(struct strbuf *key, const struct jdoc *d,
    const struct shapenodes *);

/* The shapes of a call whose key could be made. */
void callshape_copy(struct callshape *, const struct jdoc *d,
    const struct shapenodes *);

void callshape_dup(struct callshape *dst, const struct callshape *src);
void callshape_free(struct callshape *);

/* Writes "dims", "types", then "strides" and "concrete" where there are. */
void callshape_put(struct jw *, const struct callshape *);

#endif
