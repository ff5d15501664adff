/*
 * opout: the records op-rank writes (opout.c, opranks.c): one rank's, op
 * to cpu_summary, then those across ranks, in the order of all output.
 *
 * Ownership: the records are written; nothing here is kept.
 */
#ifndef OPOUT_H
#define OPOUT_H

#include <stddef.h>
#include <stdint.h>

struct agg;
struct jw;
struct oprank;
struct sstat;
struct thsum;

#define TOP_N		5	/* entries in the summaries' top lists */
#define TOP_RT		10	/* runtime_call records a rank writes */

/* A sort item: a value to rank by and the name that breaks ties. */
struct item {
	double		 v;
	const char	*s;
	size_t		 i;
};

/* opout.c */
int	op_cmpclass(const void *a, const void *b);
void	op_put_ops(struct oprank *r, struct jw *w, const struct agg *a,
	    int cls);
void	op_put_thread(struct jw *w, const struct thsum *ts);
void	op_put_threads(struct oprank *r, struct jw *w, const struct agg *a);
void	op_put_families(struct oprank *r, struct jw *w, const struct agg *a);
void	op_put_phases(struct jw *w, const struct agg *a);
void	op_put_sstat(struct jw *w, const struct sstat *s);
void	op_put_steps(struct jw *w, struct agg *a, int stats);
void	op_put_kernels(struct oprank *r, struct jw *w, const struct agg *a);
void	op_put_precision(struct oprank *r, struct jw *w, const struct agg *a);
void	op_put_devs(struct jw *w, const struct agg *a);
void	op_put_runtime(struct oprank *r, struct jw *w, const struct agg *a);
void	op_put_folds(struct oprank *r, struct jw *w, const struct agg *a);
void	op_put_summary(struct oprank *r, struct jw *w, const struct agg *a,
	    size_t nranks);

/* opranks.c */
int	op_cmprank(const void *a, const void *b);
void	op_output(struct oprank *r, struct jw *w);

#endif
