/*
 * opstep: the steps (ProfilerStep#N) in the memory budget, however many
 * a trace has.  A trace's steps are spilled as they are read.  What
 * nesting finds of each, the last GPU work that runtime calls in it
 * launched (its end) and the FLOPs of the costed calls that started in
 * it, is spilled as updates keyed by the time they happened, and applied
 * at the trace's end in two merges: one gives each update its step (the
 * last to start by then, if it had not ended on the CPU), the other adds
 * each step's updates in the order they were made, as an array of steps
 * once did, so that the sums are the same to the last bit.  A rank's
 * steps are a spill in start order, read as often as its records need;
 * their statistics come from spills too: the durations in the order the
 * steps ran, and sorted for the median.
 */
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "base/xalloc.h"
#include "trace/opbase.h"
#include "trace/opcore.h"
#include "trace/opstep.h"
#include "trace/opsums.h"

/* What nesting found of the step at ts: an end, or FLOPs. */
struct stepup {
	int64_t		ts;
	uint64_t	seq;
	int64_t		end;		/* INT64_MIN: none */
	double		flops;
};

/* An update given its step: the k-th in start order. */
struct stepfix {
	uint64_t	k, seq;
	int64_t		end;
	double		flops;
};

/* One of a sequence of step durations. */
struct sdur {
	uint64_t	i;
	int64_t		num, dur;
};

static int	cmpstepup(const void *, const void *);
static int	cmpstepfix(const void *, const void *);
static int	cmpsdur(const void *, const void *);

/*
 * Steps in start order; steps that start together, by number, and so on,
 * so that the order holds whatever order they came in.
 */
int
op_cmpstep(const void *a, const void *b)
{
	const struct step *x = a, *y = b;

	if (x->ts != y->ts)
		return x->ts < y->ts ? -1 : 1;
	if (x->num != y->num)
		return x->num < y->num ? -1 : 1;
	if (x->cpu_end != y->cpu_end)
		return x->cpu_end < y->cpu_end ? -1 : 1;
	if (x->end != y->end)
		return x->end < y->end ? -1 : 1;
	return (x->flops > y->flops) - (x->flops < y->flops);
}

static int
cmpstepup(const void *a, const void *b)
{
	const struct stepup *x = a, *y = b;

	if (x->ts != y->ts)
		return x->ts < y->ts ? -1 : 1;
	return (x->seq > y->seq) - (x->seq < y->seq);
}

static int
cmpstepfix(const void *a, const void *b)
{
	const struct stepfix *x = a, *y = b;

	if (x->k != y->k)
		return x->k < y->k ? -1 : 1;
	return (x->seq > y->seq) - (x->seq < y->seq);
}

static int
cmpsdur(const void *a, const void *b)
{
	const struct sdur *x = a, *y = b;

	return (x->i > y->i) - (x->i < y->i);
}

/* A trace's step, as read: in its time, ending when its CPU range does. */
void
op_step_read(struct trace *t, int64_t num, int64_t ts, int64_t end)
{
	struct step s = { num, ts, end, end, 0 };

	if (t->nraw++ == 0) {
		spill_init(&t->steps, t->a.pool, sizeof(struct step),
		    op_cmpstep);
		spill_init(&t->stepup, t->a.pool, sizeof(struct stepup),
		    cmpstepup);
	}
	spill_add(&t->steps, &s);
}

/*
 * What nesting found at ts: GPU work that ends at end (INT64_MIN: none),
 * or a costed call's flops, for the step that holds ts.
 */
void
op_step_touch(struct trace *t, int64_t ts, int64_t end, double flops)
{
	if (t->nraw == 0)
		return;
	spill_add(&t->stepup, &(struct stepup){ ts, t->nstepup++, end,
	    flops });
}

/*
 * The trace's steps with their updates applied, shifted by origin into
 * the rank's time, into t->a's steps in start order.  A step ends at the
 * last GPU work that runtime calls in it launched; an update belongs to
 * the last step to start by its time, unless that step's CPU range ended
 * before it.
 */
void
op_steps_resolve(struct trace *t, int64_t origin)
{
	struct spillcur sc, uc, fc;
	struct spill fix;
	const struct step *p;
	const struct stepup *u;
	const struct stepfix *f;
	struct step cur, next;
	struct stepfix fx;
	uint64_t k = 0;
	int have = 0, more;

	if (t->nraw == 0)
		return;
	spill_init(&fix, t->a.pool, sizeof(struct stepfix), cmpstepfix);
	spill_open(&sc, &t->steps);
	spill_open(&uc, &t->stepup);
	if ((more = (p = spill_next(&sc)) != NULL))
		next = *p;
	while ((u = spill_next(&uc)) != NULL) {
		for (; more && next.ts <= u->ts; k += have, have = 1) {
			cur = next;
			if ((more = (p = spill_next(&sc)) != NULL))
				next = *p;
		}
		if (!have || u->ts >= cur.cpu_end)
			continue;
		fx = (struct stepfix){ k, u->seq, u->end, u->flops };
		spill_add(&fix, &fx);
	}
	spillcur_free(&uc);
	spillcur_free(&sc);
	spill_open(&sc, &t->steps);
	spill_open(&fc, &fix);
	f = spill_next(&fc);
	for (k = 0; (p = spill_next(&sc)) != NULL; k++) {
		cur = *p;
		for (; f != NULL && f->k == k; f = spill_next(&fc)) {
			if (f->end > cur.end)
				cur.end = f->end;
			cur.flops += f->flops;
		}
		cur.ts += origin;
		cur.cpu_end += origin;
		cur.end += origin;
		op_steps_add(&t->a, &cur);
	}
	spillcur_free(&fc);
	spillcur_free(&sc);
	spill_free(&fix);
	spill_free(&t->stepup);
	spill_free(&t->steps);
	t->nraw = 0;
}

/* Adds a step, in the rank's time, to a's. */
void
op_steps_add(struct agg *a, const struct step *s)
{
	if (a->nsteps++ == 0)
		spill_init(&a->steps, a->pool, sizeof(struct step),
		    op_cmpstep);
	spill_add(&a->steps, s);
}

/* Starts reading a's steps in start order; none: the cursor ends at once. */
void
op_steps_open(struct spillcur *c, struct agg *a)
{
	if (a->nsteps == 0)
		memset(c, 0, sizeof(*c));
	else
		spill_open(c, &a->steps);
}

/* Adds src's steps to dst's. */
void
op_steps_merge(struct agg *dst, struct agg *src)
{
	struct spillcur c;
	const struct step *s;

	op_steps_open(&c, src);
	while ((s = spill_next(&c)) != NULL)
		op_steps_add(dst, s);
	spillcur_free(&c);
}

void
op_steps_free(struct agg *a)
{
	if (a->nsteps > 0)
		spill_free(&a->steps);
	a->nsteps = 0;
}

/* A rank's mean step in ns; 0 without steps. */
double
op_mean_step(struct agg *a)
{
	struct spillcur c;
	const struct step *s;
	double sum = 0;

	op_steps_open(&c, a);
	while ((s = spill_next(&c)) != NULL)
		sum += (double)(s->end - s->ts);
	spillcur_free(&c);
	return a->nsteps > 0 ? sum / (double)a->nsteps : 0;
}

void
op_durs_init(struct durs *d, struct spool *pool)
{
	spill_init(&d->sp, pool, sizeof(struct sdur), cmpsdur);
	d->n = 0;
}

/* Adds the duration of step num, the next to run. */
void
op_durs_add(struct durs *d, int64_t num, int64_t dur)
{
	spill_add(&d->sp, &(struct sdur){ d->n++, num, dur });
}

void
op_durs_free(struct durs *d)
{
	spill_free(&d->sp);
	d->n = 0;
}

/*
 * Statistics of d's step times (at least one), in the order the steps
 * ran: the slowest is the first of the longest.  Two passes over them
 * (the mean, then the spread about it) and one over them sorted (the
 * median).
 */
void
op_step_stats(struct durs *d, struct sstat *s)
{
	struct spill sorted;
	struct spillcur c;
	const struct sdur *x;
	const int64_t *v;
	double var = 0, dd;
	uint64_t i;

	memset(s, 0, sizeof(*s));
	s->n = (size_t)d->n;
	spill_init(&sorted, d->sp.pool, sizeof(int64_t), op_cmpi64);
	spill_open(&c, &d->sp);
	for (i = 0; (x = spill_next(&c)) != NULL; i++) {
		if (i == 0 || x->dur < s->min)
			s->min = x->dur;
		if (i == 0 || x->dur > s->max) {
			s->max = x->dur;
			s->slowest = x->num;
		}
		s->total = op_sat_add(s->total, x->dur);
		spill_add(&sorted, &x->dur);
	}
	spillcur_free(&c);
	s->mean = (double)s->total / (double)s->n;
	spill_open(&c, &sorted);
	for (i = 0; i <= d->n / 2 && (v = spill_next(&c)) != NULL; i++) {
		if (i == (d->n - 1) / 2)
			s->med2 += *v;
		if (i == d->n / 2)
			s->med2 += *v;
	}
	spillcur_free(&c);
	spill_free(&sorted);
	/*
	 * The time above the median step is what steadier steps could give
	 * back at most; the standard deviation says nothing of that.
	 */
	spill_open(&c, &d->sp);
	while ((x = spill_next(&c)) != NULL) {
		dd = (double)x->dur - s->mean;
		var += dd * dd;
		if (2 * x->dur > s->med2)
			s->above += 2 * x->dur - s->med2;
	}
	spillcur_free(&c);
	s->std = sqrt(var / (double)s->n);
}
