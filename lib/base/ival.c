#include <string.h>

#include "base/ival.h"

void
ival_init(struct ivsweep *s, int ncls)
{
	memset(s, 0, sizeof(*s));
	s->ncls = ncls > IVAL_MAXCLS ? IVAL_MAXCLS : ncls;
}

/* Between two edges the lowest active class owns the time. */
void
ival_edge(struct ivsweep *s, int64_t t, int cls, int delta)
{
	int64_t dt;
	int c, low = -1;

	if (s->started && t > s->t) {
		dt = t - s->t;
		for (c = 0; c < s->ncls; c++) {
			if (s->active[c] == 0)
				continue;
			if (low < 0)
				low = c;
			s->cover[c] += dt;
		}
		if (low >= 0) {
			s->out[low] += dt;
			s->sum += dt;
		}
	}
	s->started = 1;
	s->t = t;
	if (cls >= 0 && cls < s->ncls)
		s->active[cls] += delta;
}
