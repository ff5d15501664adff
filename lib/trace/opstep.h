/*
 * opstep: the steps of a trace and of a rank (opstep.c): each step's
 * bounds as read, its ends and FLOPs once nesting has seen its calls,
 * the rank's steps through a spill, and step-time statistics in the
 * order the steps ran.
 *
 * Ownership: the spills are their struct agg's or struct trace's; a
 * struct durs owns its spill until op_durs_free().
 */
#ifndef OPSTEP_H
#define OPSTEP_H

#include <stddef.h>
#include <stdint.h>

#include "io/spill.h"

struct agg;
struct trace;

struct step {
	int64_t	num, ts, cpu_end, end;	/* ns from the trace's origin */
	double	flops;			/* of the modelled calls in it */
};

/* A step-time summary of put_sstat(). */
struct sstat {
	size_t	n;
	int64_t	slowest;		/* its number */
	int64_t	total, min, max, med2, above;
	double	mean, std;
};

/* Step times in the order the steps ran (opstep.c). */
struct durs {
	struct spill	sp;
	uint64_t	n;
};

/* opstep.c */
int	op_cmpstep(const void *a, const void *b);
void	op_step_read(struct trace *t, int64_t num, int64_t ts, int64_t end);
void	op_step_touch(struct trace *t, int64_t ts, int64_t end, double flops);
void	op_steps_resolve(struct trace *t, int64_t origin);
void	op_steps_add(struct agg *a, const struct step *s);
void	op_steps_open(struct spillcur *c, struct agg *a);
void	op_steps_merge(struct agg *dst, struct agg *src);
void	op_steps_free(struct agg *a);
double	op_mean_step(struct agg *a);
void	op_durs_init(struct durs *d, struct spool *pool);
void	op_durs_add(struct durs *d, int64_t num, int64_t dur);
void	op_durs_free(struct durs *d);
void	op_step_stats(struct durs *d, struct sstat *s);

#endif
