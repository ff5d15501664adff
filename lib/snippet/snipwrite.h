/*
 * snipwrite: a snippet's files from snip-new's plan (snipplan.h):
 * target.py (the copied definition, its imports and helpers, and the
 * target class the runner calls) and config.yaml (with the inputs section
 * prepare() reads) in snipwrite.c, README.md in snipreadme.c.  Each is
 * built in a strbuf, for snipout to publish together.
 *
 * Ownership: the plan is borrowed; the text is appended to the caller's
 * strbuf.
 */
#ifndef SNIPWRITE_H
#define SNIPWRITE_H

#include "base/strbuf.h"
#include "snippet/snipin.h"
#include "snippet/snipplan.h"

/* Where snippets go unless -o says otherwise. */
#define SNIP_DEFAULT_DIR	"inference_profiling/snippets"

/* target.py; it may patch a method's source first (plan_patch_method()). */
void	snipw_target(struct snip *, struct strbuf *);

void	snipw_config(const struct snip *, struct strbuf *);

/* README.md, quoting config.yaml's text cfgtext. */
void	snipw_readme(const struct snip *, const struct strbuf *cfgtext,
	    struct strbuf *);

/* What the user must set in an input, or NULL when nothing. */
const char *snipw_user_sets(const struct snipin *);

#endif
