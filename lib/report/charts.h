/*
 * charts: what report-svg keeps of the report stages' records to draw
 * its charts, bounded whatever the input: curves are bucketed to at most
 * MAX_BUCKETS points (minimum and maximum per bucket, so that peaks
 * survive), bars and panels are capped, names are cut short.  charts.c
 * takes the records in; chartdraw.c draws each chart through svgplot.
 *
 * Ownership: a struct charts owns every string and array in it until
 * charts_free(); records are borrowed for the call.
 */
#ifndef CHARTS_H
#define CHARTS_H

#include <stddef.h>
#include <stdint.h>

#include "base/strmap.h"

struct jdoc;
struct jw;

#define MAX_DRAW	2000	/* points drawn per chart, all panels */
#define MAX_BUCKETS	500	/* buckets kept of one timeline */
#define MAX_SITES	8	/* stacked series of one timeline */
#define MAX_MARKS	32	/* markers kept of one timeline */
#define MAX_PANELS	8	/* timelines drawn in one chart */
#define MAX_SEGS	32	/* segments drawn */
#define MAX_RANKS	64	/* ranks drawn (GPU timeline, steps) */
#define MAX_STEPS	500	/* steps drawn per rank */
#define MAX_FAMILIES	12	/* families drawn; the rest is "other" */
#define MAX_FAMNAMES	1024	/* families told apart */
#define MAX_SHAPES	40	/* operator shapes on the roofline */
#define MAX_WINDOWS	40	/* ledger windows drawn, one bar each */
#define MAX_SLICES	64	/* ledger slices told apart */
#define SLICE_COLORS	9	/* slices with a colour; the rest "other" */

/* One memory_timeline record, bucketed down to MAX_BUCKETS. */
struct timeline {
	char	*label;
	int	 cpu;			/* a trace's host memory */
	int	 timed;			/* x in microseconds, else entries */
	size_t	 n;
	double	 x[MAX_BUCKETS], amin[MAX_BUCKETS], amax[MAX_BUCKETS];
	double	 rmax[MAX_BUCKETS];
	double	 x_last;		/* where the last entry ends */
	char	*site[MAX_SITES + 1];
	size_t	 nsite;			/* with "other" */
	double	*sb;			/* n x nsite bytes at each maximum */
	int	 has_peak, at_least;
	double	 peak_x, peak_bytes;
	struct {
		double	 x;
		int	 oom;
	}	 mark[MAX_MARKS];
	size_t	 nmark;
};

struct tlset {
	struct timeline	*tl[MAX_PANELS];
	size_t		 n;
	uint64_t	 dropped;
};

/* A run of blocks in one state. */
struct segrun {
	int	state;			/* 0 allocated, 1 pending, 2 inactive */
	double	bytes;
};

struct seglay {
	int64_t		 device;
	double		 total;
	struct segrun	*run;
	size_t		 nrun;
};

struct gpubar {
	int64_t	rank, device;
	double	v[4];			/* compute, comm, memcpy, idle */
};

struct stepser {
	int64_t	 rank;
	double	*dur;			/* µs */
	int64_t	*step;
	size_t	 n, cap;
};

struct family {
	double	cpu, gpu;
};

/*
 * One bar of shares: a window's length and its parts' times, µs (a ledger
 * record's wall and slices, a critical_path record's length and classes).
 */
struct window {
	char	 label[80];
	double	 wall;
	double	 t[MAX_SLICES];		/* by the index of its set's part */
};

/* The bars of one chart of shares, and the parts' names as met. */
struct barset {
	struct window	 win[MAX_WINDOWS];
	size_t		 nwin;
	uint64_t	 dropped;
	char		*part[MAX_SLICES];
	size_t		 npart;
};

/* An op_shape record as the roofline draws it. */
struct shape {
	char	*name;
	double	 intensity, tflops, gpu_us;
	int	 memory;		/* bound by bytes */
};

struct charts {
	struct tlset	 mem, memtr;
	struct seglay	 seg[MAX_SEGS];
	size_t		 nseg;
	uint64_t	 segs_dropped;
	struct gpubar	 gpu[MAX_RANKS];
	size_t		 ngpu;
	uint64_t	 gpu_dropped;
	struct stepser	 steps[MAX_RANKS];
	size_t		 nsteps;
	uint64_t	 steps_dropped;
	struct strmap	 fam;
	struct family	 fam_other;	/* beyond MAX_FAMNAMES */
	size_t		 nfamrank;
	int64_t		 famrank[MAX_RANKS];
	struct shape	 shape[MAX_SHAPES];	/* the first rank's first */
	size_t		 nshape;
	int64_t		 shaperank;
	double		 peak_tflops, peak_tbps;	/* NAN: unknown */
	char		*gpuname;
	struct barset	 ledger;	/* op-rank's ledger records */
	struct barset	 critical;	/* crit-path's critical_path */
	int		 critical_gpu;	/* a window's graph holds GPU work */
	int		 bad;		/* a data error: draw nothing */
};

/*
 * Keeps what the charts need of one record of file; other kinds are
 * ignored.  Returns 0, or -1 after a data error ("file:line: what"), which
 * sets bad: nothing is drawn then.
 */
int	charts_take(struct charts *, const char *file, const struct jdoc *);

/* qsort(3) order of segment layouts: largest first, then by device. */
int	charts_seglay_cmp(const void *, const void *);

void	charts_timeline_free(struct timeline *);
void	charts_free(struct charts *);

/*
 * Draws every chart the records allow into dir, each published whole as
 * dir/NAME.svg, with a "chart" record on w naming it.
 */
void	charts_draw(struct charts *, struct jw *, const char *dir);

#endif
