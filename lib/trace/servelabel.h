/*
 * servelabel: the step labels of serving engines, read by the patterns of
 * rubric/serve-steps.tsv: vLLM's "execute_<n>_context_<c>(...)_generation_
 * <g>(...)", SGLang's "step[DECODE bs=... toks=...]" and the capture steps
 * "capture_<bs>_<mode>".  A label parses whole and adds up (its requests,
 * tokens and the sums of their lengths agree), or it is no step: a label
 * that starts as one of the patterns and then does not is said to be bad,
 * so that a hostile, truncated or unknown label is warned about and never
 * becomes a wrong step.
 *
 * Ownership: servetab_load() returns a table the caller frees with
 * servetab_free(); nothing else allocates but servelabel_render(), which
 * appends to the caller's strbuf.  A struct servestep is a plain value.
 */
#ifndef SERVELABEL_H
#define SERVELABEL_H

#include <stddef.h>
#include <stdint.h>

#include "base/strbuf.h"

/*
 * The integer fields a label may carry, named as the engines write them:
 * requests in the batch (bs), tokens computed (toks), prefill (context)
 * and decode (generation) requests (c, g), and of each kind the sums of
 * the requests' query lengths (sq), key/value lengths (sk), squared query
 * lengths (sqsq) and query times key/value lengths (sqsk).
 */
enum {
	SF_BS, SF_TOKS, SF_C, SF_G, SF_C_SQ, SF_C_SK, SF_C_SQSQ, SF_C_SQSK,
	SF_G_SQ, SF_G_SK, SF_G_SQSQ, SF_G_SQSK, NSFIELD
};
extern const char *const serve_fieldname[NSFIELD];

/* A step's phase; SP_NONE is a table row's "none": a label, no step. */
enum { SP_PREFILL, SP_DECODE, SP_MIXED, SP_CAPTURE, NSPHASE, SP_NONE };
extern const char *const serve_phasename[NSPHASE];

#define SERVE_MAXV	INT64_C(1000000000000000)	/* a field's bound */
#define SERVE_MODE	24	/* a capture mode's bytes, NUL included */
#define SERVE_ANON	4	/* {n} integers of one pattern */

/*
 * A label read: its row, the fields it carries (-1: not in it) and the
 * order its key=value pairs came in, its unkept integers, a capture's
 * mode, and what follows from them (-1: unknown).
 */
struct servestep {
	int	 row, engine, phase;
	int64_t	 f[NSFIELD];
	int	 order[NSFIELD];	/* the pairs' fields, in order */
	int	 npairs;
	int64_t	 anon[SERVE_ANON];
	char	 mode[SERVE_MODE];
	int64_t	 requests, prefill_requests, decode_requests;
	int64_t	 tokens, prefill_tokens, decode_tokens;
};

struct servetab;

/*
 * Loads the table at path; a bad row ends the program with a usage error
 * naming path:line (exit 2), as the other tables of rubric/ do.
 */
struct servetab	*servetab_load(const char *path);
void		 servetab_free(struct servetab *);

/* The engine named by a step's engine index; borrowed from the table. */
const char	*servetab_engine(const struct servetab *, int engine);

/* The index of the engine named s, or -1 when no row names it. */
int		 servetab_engine_index(const struct servetab *, const char *s);

/*
 * What the label s (len bytes, not NUL-terminated) is: SL_STEP, a step,
 * into *st; SL_NONE, a label of a row whose phase is "none"; SL_OTHER,
 * like no row's; SL_BAD, like a row's (it starts as the row's pattern
 * does: its text up to the first field, and that field's first digit when
 * the text is letters, digits and underscores only) but not one whole, or
 * its numbers do not add up.
 */
enum { SL_OTHER, SL_STEP, SL_NONE, SL_BAD };
int	servelabel_parse(const struct servetab *, const char *s, size_t len,
	    struct servestep *st);

/* Appends the label st was read from, by its row's pattern, to sb. */
void	servelabel_render(const struct servetab *, const struct servestep *st,
	    struct strbuf *sb);

#endif
