#include <stdlib.h>

#include "ival.h"
#include "xalloc.h"

/* One end of an interval in the sweep: +1 at a start, -1 at an end. */
struct edge {
	int64_t	t;
	int	cls;
	int	delta;
};

static int	cmpival(const void *, const void *);
static int	cmpedge(const void *, const void *);

static int
cmpival(const void *a, const void *b)
{
	const struct ival *x = a, *y = b;

	if (x->start != y->start)
		return x->start < y->start ? -1 : 1;
	return (x->end > y->end) - (x->end < y->end);
}

static int
cmpedge(const void *a, const void *b)
{
	const struct edge *x = a, *y = b;

	return (x->t > y->t) - (x->t < y->t);
}

int64_t
ival_union(struct ival *v, size_t n)
{
	int64_t sum = 0, s = 0, e = 0;
	int open = 0;
	size_t i;

	if (n > 1)
		qsort(v, n, sizeof(*v), cmpival);
	for (i = 0; i < n; i++) {
		if (v[i].end <= v[i].start)
			continue;
		if (open && v[i].start <= e) {
			if (v[i].end > e)
				e = v[i].end;
			continue;
		}
		if (open)
			sum += e - s;
		s = v[i].start;
		e = v[i].end;
		open = 1;
	}
	if (open)
		sum += e - s;
	return sum;
}

int64_t
ival_exposed(struct ival *v, size_t n, int ncls, int64_t *out)
{
	struct edge *ed;
	int64_t active[IVAL_MAXCLS] = { 0 }, sum = 0;
	size_t i, m = 0;
	int c;

	if (ncls > IVAL_MAXCLS)
		ncls = IVAL_MAXCLS;
	for (c = 0; c < ncls; c++)
		out[c] = 0;
	if (n > 1)
		qsort(v, n, sizeof(*v), cmpival);
	ed = xreallocarray(NULL, n > 0 ? 2 * n : 1, sizeof(*ed));
	for (i = 0; i < n; i++) {
		if (v[i].end <= v[i].start || v[i].cls < 0 ||
		    v[i].cls >= ncls)
			continue;
		ed[m++] = (struct edge){ v[i].start, v[i].cls, 1 };
		ed[m++] = (struct edge){ v[i].end, v[i].cls, -1 };
	}
	if (m > 1)
		qsort(ed, m, sizeof(*ed), cmpedge);
	/* Between two edges the lowest active class owns the time. */
	for (i = 0; i < m; i++) {
		active[ed[i].cls] += ed[i].delta;
		if (i + 1 == m || ed[i + 1].t == ed[i].t)
			continue;
		for (c = 0; c < ncls && active[c] == 0; c++)
			;
		if (c < ncls) {
			out[c] += ed[i + 1].t - ed[i].t;
			sum += ed[i + 1].t - ed[i].t;
		}
	}
	free(ed);
	return sum;
}
