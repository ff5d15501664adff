/*
 * context: what the user says of a run (analyze-profile's --context file,
 * --set key=value, --phase, --objective) as the one "context" record that
 * rubric-apply and report-md read.  The known items are typed and checked
 * here, once; any other key is kept under "extra" as it was given.
 *
 * Ownership: a struct context owns its items and the YAML nodes of extra
 * until context_free(); the file name given to context_init() is
 * borrowed and must outlive it.
 */
#ifndef CONTEXT_H
#define CONTEXT_H

#include <stdint.h>
#include <stdio.h>

#include "io/pyyaml.h"

/* The known items, in the record's order. */
enum ctx_item {
	CTX_MODEL, CTX_BATCH_SIZE, CTX_SEQ_LEN, CTX_PRECISION,
	CTX_PARALLELISM, CTX_WORLD_SIZE, CTX_GPU, CTX_PHASE, CTX_OBJECTIVE,
	CTX_NITEMS
};

struct ctx_value {
	int		 set;
	char		*s;		/* the text items */
	int64_t		 n;		/* the integer items */
};

struct context {
	const char	*file;		/* --context, or NULL */
	struct ctx_value v[CTX_NITEMS];
	struct ydoc	 doc;		/* owns the nodes of extra */
	struct ynode	*extra;		/* a map */
};

/* An empty context, from the file path (NULL: none) once it is read. */
void	context_init(struct context *, const char *file);

/*
 * Reads c->file, a YAML (or JSON) mapping; a bad file or item is fatal,
 * a data error at its line and column.
 */
void	context_read(struct context *);

/* One --set key=value; anything else is a usage error. */
void	context_set(struct context *, const char *arg);

/* Sets the item from the option opt's text s, or dies of a usage error. */
void	context_option(struct context *, enum ctx_item, const char *opt,
	    const char *s);

/* The text of a set text item, else NULL; kept until context_free(). */
const char *context_text(const struct context *, enum ctx_item);

/* Writes the context record: every item, null when unknown. */
void	context_write(FILE *, const struct context *);

void	context_free(struct context *);

#endif
