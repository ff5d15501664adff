/*
 * snipin: the "inputs" section of a snippet's config.yaml, which the
 * runner ignores and the target.py snip-new writes reads in prepare(): for
 * each argument of the copied function, where its value comes from.  One
 * of
 *	from: FIELD		a field of the data source's record: image,
 *				path, bytes (the file's), id, record, or
 *				metadata.KEY (dummy: tensor, scores, boxes)
 *	shape: [...]		a tensor of random values, the same for each
 *	dtype: NAME		record id, made in prepare()
 *	value: ...		taken as written
 *	call: NAME		an object made once, calling a name target.py
 *	kwargs: {...}		imports with these keyword arguments
 * where null is unset: prepare() refuses to run, snip-lint reports it.
 *
 * Here are the choice snip-new makes for a parameter (by its name and its
 * annotation) and the checks snip-lint makes of a config's section against
 * its data source (what the upstream dummy and images sources put in a
 * record).
 *
 * Ownership: a struct snipin owns its strings; snipin_free() releases them.
 */
#ifndef SNIPIN_H
#define SNIPIN_H

#include "snippet/snipcfg.h"

/* How prepare() gives a parameter its value. */
enum {
	SI_NONE,	/* *args, **kwargs: nothing */
	SI_DEFAULT,	/* its default */
	SI_DEVICE,	/* the run's device */
	SI_FIELD,	/* from: a record field */
	SI_TENSOR,	/* shape and dtype */
	SI_VALUE,	/* value */
	SI_OBJECT	/* call and kwargs */
};

struct snipin {
	int	 kind;
	/* SI_FIELD: the field; SI_OBJECT: what to call, or NULL (unset). */
	char	*field, *call;
	/* How the copy takes arrays: "torch" (on the device), "numpy",
	 * "list-torch" or "list-numpy" (a list of one), "str" or "any" (as
	 * the source gives it, a tensor moved to the device). */
	const char *want;
	int	 kwargs_set;	/* SI_OBJECT: known to need no arguments */
	/* What the user must supply, for a comment and the README; NULL
	 * when nothing. */
	char	*hint;
};

/*
 * The choice for a parameter named name, annotated annotation (NULL: none),
 * with or without a default, when the config's data source is source
 * ("dummy" or "images").
 */
void snipin_classify(struct snipin *, const char *name,
    const char *annotation, int has_default, const char *source);

void snipin_free(struct snipin *);

/* Whether a parameter of this name and annotation is a device. */
int snipin_is_device(const char *name, const char *annotation);

/* The dtypes a shape entry may name, then NULL. */
extern const char *const snipin_dtypes[];

/*
 * The checks of a config's inputs section (none when it has none): the
 * form of each entry, values left unset and record fields the data source
 * does not supply.  Adds errors (and warnings for unknown keys) to d.
 */
void snipin_check(const struct snipcfg *, struct sdiags *d);

#endif
