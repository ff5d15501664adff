/*
 * report-svg: draw the records of the report stages as standalone SVG
 * charts, one file per chart, and say on stdout which were written.
 *
 * Every chart is bounded in size whatever the input: curves are bucketed
 * to at most MAX_DRAW points (minimum and maximum per bucket, so that
 * peaks survive), bars and panels are capped, and names are cut short.
 */
#include <getopt.h>
#include <inttypes.h>
#include <math.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "base/err.h"
#include "base/operands.h"
#include "base/strbuf.h"
#include "base/strmap.h"
#include "base/usage.h"
#include "base/xalloc.h"
#include "io/json.h"
#include "io/ndjson.h"
#include "io/publish.h"
#include "io/xmltext.h"

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
#define LABEL_MAX	40	/* characters of a name in a label */
#define MAX_TICKS	20	/* on an axis, however the numbers round */
#define WIDTH		900
#define FONT		12	/* px */

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

/* A ledger record: one window's wall time and its slices' times, µs. */
struct window {
	int64_t	 rank, num;
	char	 kind[16];		/* "step", "iteration" or "trace" */
	double	 wall;
	double	 t[MAX_SLICES];		/* by the index of c->slice */
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
	struct window	 win[MAX_WINDOWS];
	size_t		 nwin;
	uint64_t	 win_dropped;
	char		*slice[MAX_SLICES];	/* the slices' names, as met */
	size_t		 nslice;
	int		 bad;		/* a data error: draw nothing */
};

/* A rect of a segment's bar not yet written: the next may extend it. */
struct pend {
	int	state;
	double	x, w;
};

/* A chart being drawn. */
struct svg {
	struct strbuf	 b;
};

/* A plot area and the ranges it maps. */
struct plot {
	double	x0, y0, w, h;		/* px */
	double	xmin, xmax, ymin, ymax;
};

static const char *const palette[] = {
	"#4c72b0", "#dd8452", "#55a868", "#c44e52", "#8172b3",
	"#937860", "#da8bc3", "#8c8c8c", "#ccb974", "#64b5cd"
};
#define NPALETTE	(sizeof(palette) / sizeof(palette[0]))

/* Block states as mem-segments names them, and as the legend does. */
static const char *const state_key[3] = {
	"active_allocated", "active_pending_free", "inactive"
};
static const char *const state_name[3] = {
	"allocated", "pending free", "inactive"
};
static const char *const state_color[3] = {
	"#4c72b0", "#dd8452", "#d9d9d9"
};

static const char *oflag = ".";

static void	usage(void) __attribute__((noreturn));
static int	read_file(const char *, void *);
static int	take(struct charts *, const char *, const struct jdoc *);
static int	take_timeline(struct charts *, const char *,
		    const struct jdoc *);
static int	num_array(const char *, const struct jdoc *, const char *,
		    int, double **, size_t *);
static int	take_layout(struct charts *, const char *, const struct jdoc *);
static int	take_gpu(struct charts *, const struct jdoc *);
static int	take_step(struct charts *, const struct jdoc *);
static int	take_family(struct charts *, const struct jdoc *);
static int	take_shape(struct charts *, const struct jdoc *);
static int	take_compute(struct charts *, const struct jdoc *);
static int	take_ledger(struct charts *, const char *, const struct jdoc *);
static void	draw_ledger(struct jw *, struct charts *);
static void	draw_roofline(struct jw *, struct charts *);
static double	decade_below(double);
static int64_t	rank_of(const struct jdoc *);
static void	timeline_free(struct timeline *);
static void	charts_free(struct charts *);
static void	emit(struct jw *, struct svg *, const char *, const char *,
		    const char *);
static void	svg_begin(struct svg *, int, int, const char *);
static void	text(struct svg *, double, double, const char *, const char *,
		    const char *);
static void	textn(struct svg *, double, double, const char *,
		    const char *, const char *, size_t);
static void	legend(struct svg *, double, double, const char *const *,
		    const char *const *, size_t);
static int	legend_rows(double, const char *const *, size_t);
static double	nice_step(double);
static double	byte_step(double);
static const char *site_label(const char *, char *, size_t);
static void	axes(struct svg *, const struct plot *, int, int,
		    const char *, const char *);
static void	fmt_bytes(char *, size_t, double, double);
static void	fmt_time(char *, size_t, double, double);
static int	decimals(double, int);
static double	px(const struct plot *, double);
static double	py(const struct plot *, double);
static void	draw_memory(struct jw *, struct tlset *, const char *,
		    const char *, const char *);
static void	draw_panel(struct svg *, const struct timeline *, double,
		    size_t);
static void	draw_segments(struct jw *, struct charts *);
static void	draw_gpu(struct jw *, struct charts *);
static void	draw_steps(struct jw *, struct charts *);
static void	draw_families(struct jw *, struct charts *);
static void	hbars(struct svg *, double, double, double, const char *,
		    char **, const double *, size_t, const char *);
static int	lay_cmp(const void *, const void *);
static int	gpu_cmp(const void *, const void *);
static int	ser_cmp(const void *, const void *);
static void	flush_rect(struct svg *, struct pend *, double, double);
static void	add_rect(struct svg *, struct pend *, int, double, double,
		    double, double);
static void	bar_label(char *, size_t, int64_t, int64_t);
static void	mark_slowest(char *, size_t);
static int	famv_cmp(const void *, const void *);
static size_t	top_families(struct charts *, int, char **, double *);

static const struct optdoc options[] = {
	{ "-o dir", "write the charts into dir" },
	OPTDOC_HELP,
	OPTDOC_END
};
static const struct usage use = {
	"[-o dir] [file ...]",
	"draw profile records as standalone SVG charts",
	options
};

static void
usage(void)
{
	usage_error(&use);
}

int
main(int argc, char *argv[])
{
	static const struct option longopts[] = {
		{ "help", no_argument, NULL, 'h' },
		{ NULL, 0, NULL, 0 }
	};
	struct charts c;
	struct jw *w;
	int ch, status;

	setprogname(argv[0]);
	while ((ch = getopt_long(argc, argv, "o:h", longopts, NULL)) != -1) {
		switch (ch) {
		case 'o':
			oflag = optarg;
			break;
		case 'h':
			usage_help(&use);
		default:
			usage();
		}
	}
	argc -= optind;
	argv += optind;

	memset(&c, 0, sizeof(c));
	status = for_each_operand(argc, argv, read_file, &c);
	/* A data error ends the run before anything is drawn. */
	if (!c.bad) {
		w = jw_new(stdout);
		draw_memory(w, &c.mem, "memory", "Memory over time (snapshot)",
		    "Allocator churn");
		draw_memory(w, &c.memtr, "memory-trace",
		    "Memory over time (trace)", "Resource summary");
		draw_segments(w, &c);
		draw_ledger(w, &c);
		draw_gpu(w, &c);
		draw_steps(w, &c);
		draw_families(w, &c);
		draw_roofline(w, &c);
		jw_free(w);
	}
	charts_free(&c);
	return finish(status);
}

/* Returns 0, 1 when path cannot be opened, -1 after a data error. */
static int
read_file(const char *path, void *arg)
{
	struct ndin *in;
	struct jdoc doc = { 0 };
	int rc;

	if ((in = ndin_open(path)) == NULL) {
		warnmsg("%s:", path);
		return 1;
	}
	while ((rc = ndin_next(in, &doc)) == 1)
		if ((rc = take(arg, ndin_name(in), &doc)) < 0)
			break;
	jdoc_free(&doc);
	ndin_close(in);
	if (rc < 0)
		((struct charts *)arg)->bad = 1;
	return rc < 0 ? -1 : 0;
}

/* Keeps what the charts need of one record; other kinds are ignored. */
static int
take(struct charts *c, const char *file, const struct jdoc *d)
{
	const char *kind = ndin_kind(d);

	if (strcmp(kind, "memory_timeline") == 0)
		return take_timeline(c, file, d);
	if (strcmp(kind, "segment_layout") == 0)
		return take_layout(c, file, d);
	if (strcmp(kind, "gpu_timeline") == 0)
		return take_gpu(c, d);
	if (strcmp(kind, "step") == 0)
		return take_step(c, d);
	if (strcmp(kind, "family_total") == 0)
		return take_family(c, d);
	if (strcmp(kind, "op_shape") == 0)
		return take_shape(c, d);
	if (strcmp(kind, "compute_summary") == 0)
		return take_compute(c, d);
	if (strcmp(kind, "ledger") == 0)
		return take_ledger(c, file, d);
	return 0;
}

static int64_t
rank_of(const struct jdoc *d)
{
	int64_t r;

	return jdoc_get_i64(d, 0, "rank", &r) == 0 ? r : -1;
}

/*
 * The numbers of array member key into a new array (null as NAN when
 * nulls is set).  Returns 0, or -1 after reporting what is wrong.
 */
static int
num_array(const char *file, const struct jdoc *d, const char *key,
    int nulls, double **v, size_t *n)
{
	uint32_t i, k;
	int a;

	*v = NULL;
	*n = 0;
	if ((a = jdoc_get(d, 0, key)) < 0 || d->node[a].type != JT_ARRAY)
		return jdoc_error(file, d, 0, "\"%s\" is not an array", key);
	*v = xreallocarray(NULL, (size_t)d->node[a].len + 1, sizeof(**v));
	for (i = (uint32_t)a + 1, k = 0; i < d->node[a].next;
	    i = d->node[i].next, k++) {
		if (d->node[i].type == JT_NUMBER &&
		    isfinite(jnum_double(jdoc_str(d, i))))
			(*v)[k] = jnum_double(jdoc_str(d, i));
		else if (nulls && d->node[i].type == JT_NULL)
			(*v)[k] = NAN;
		else {
			free(*v);
			*v = NULL;
			return jdoc_error(file, d, i, "\"%s\" holds a value"
			    " that is not a finite number", key);
		}
	}
	*n = k;
	return 0;
}

/*
 * A memory_timeline, its buckets merged further when there are more than
 * MAX_BUCKETS: the lowest minimum, the highest maximum, and the sites'
 * bytes at that maximum.
 */
static int
take_timeline(struct charts *c, const char *file, const struct jdoc *d)
{
	struct timeline *t;
	struct tlset *set;
	double *x = NULL, *amin = NULL, *amax = NULL, *rmax = NULL, v;
	double *xend = NULL;
	size_t nx, n1, n2, n3, n4 = 0, i, b, k, ns = 0;
	const char *s, *src = "";
	size_t len;
	int64_t dev;
	int a, p, m, rc = -1;
	uint32_t j, q;
	char lab[128];

	if (jdoc_get_str(d, 0, "source", &src, &len) < 0 ||
	    (strcmp(src, "snapshot") != 0 && strcmp(src, "trace") != 0))
		return jdoc_error(file, d, 0, "memory_timeline has no"
		    " \"source\" \"snapshot\" or \"trace\"");
	set = strcmp(src, "snapshot") == 0 ? &c->mem : &c->memtr;
	if (set->n == MAX_PANELS) {
		set->dropped++;
		return 0;
	}
	if (num_array(file, d, "x", 0, &x, &nx) < 0 ||
	    num_array(file, d, "allocated_min", 1, &amin, &n1) < 0 ||
	    num_array(file, d, "allocated_max", 1, &amax, &n2) < 0 ||
	    num_array(file, d, "reserved_max", 1, &rmax, &n3) < 0 ||
	    (jdoc_get(d, 0, "x_end") >= 0 &&
	    num_array(file, d, "x_end", 0, &xend, &n4) < 0))
		goto out;
	if (n1 != nx || n2 != nx || n3 != nx || (xend != NULL && n4 != nx)) {
		jdoc_error(file, d, 0, "memory_timeline arrays differ in"
		    " length");
		goto out;
	}
	t = xcalloc(1, sizeof(*t));
	set->tl[set->n++] = t;
	t->timed = jdoc_get_str(d, 0, "x_unit", &s, &len) == 0 &&
	    strcmp(s, "us") == 0;
	if (jdoc_get_i64(d, 0, "device", &dev) == 0)
		snprintf(lab, sizeof(lab), "device %" PRId64, dev);
	else if (jdoc_get_i64(d, 0, "device_id", &dev) == 0) {
		int64_t ty = 1;

		(void)jdoc_get_i64(d, 0, "device_type", &ty);
		if ((t->cpu = ty == 0))
			snprintf(lab, sizeof(lab), "CPU");
		else
			snprintf(lab, sizeof(lab), "device %" PRId64, dev);
	} else
		snprintf(lab, sizeof(lab), "memory");
	t->label = xstrdup(lab);

	/* The sites, "other" last; more than MAX_SITES go into it. */
	if ((a = jdoc_get(d, 0, "sites")) >= 0 && d->node[a].type == JT_ARRAY)
		for (j = (uint32_t)a + 1; j < d->node[a].next;
		    j = d->node[j].next)
			ns++;
	if (ns > 0) {
		for (j = (uint32_t)a + 1, k = 0; j < d->node[a].next &&
		    k < MAX_SITES; j = d->node[j].next, k++)
			t->site[k] = xstrdup(d->node[j].type == JT_STRING ?
			    site_label(jdoc_str(d, j), lab, sizeof(lab)) :
			    "?");
		if (k < ns) {
			free(t->site[k - 1]);
			t->site[k - 1] = xstrdup("other");
		}
		t->nsite = k;
	}
	t->n = nx < MAX_BUCKETS ? nx : MAX_BUCKETS;
	t->sb = xcalloc(t->n * (t->nsite ? t->nsite : 1) + 1,
	    sizeof(*t->sb));
	for (b = 0; b < t->n; b++) {
		t->amin[b] = t->amax[b] = t->rmax[b] = NAN;
		t->x[b] = 0;
	}
	p = jdoc_get(d, 0, "site_bytes");
	q = p >= 0 && d->node[p].type == JT_ARRAY ? (uint32_t)p + 1 : 0;
	for (i = 0; i < nx; i++) {
		uint32_t r;

		b = i * t->n / nx;
		if (i == 0 || (i - 1) * t->n / nx != b)
			t->x[b] = x[i];
		if (!isnan(amin[i]) && (isnan(t->amin[b]) ||
		    amin[i] < t->amin[b]))
			t->amin[b] = amin[i];
		if (!isnan(rmax[i]) && (isnan(t->rmax[b]) ||
		    rmax[i] > t->rmax[b]))
			t->rmax[b] = rmax[i];
		r = q;
		if (q != 0) {
			if (q >= d->node[p].next)
				r = q = 0;
			else
				q = d->node[q].next;
		}
		if (isnan(amax[i]) || (!isnan(t->amax[b]) &&
		    amax[i] <= t->amax[b]))
			continue;
		t->amax[b] = amax[i];
		if (t->nsite == 0)
			continue;
		memset(&t->sb[b * t->nsite], 0, t->nsite * sizeof(*t->sb));
		if (r == 0 || d->node[r].type != JT_ARRAY)
			continue;
		for (j = r + 1, k = 0; j < d->node[r].next;
		    j = d->node[j].next, k++) {
			v = d->node[j].type == JT_NUMBER ?
			    jnum_double(jdoc_str(d, j)) : 0;
			t->sb[b * t->nsite + (k < t->nsite ? k :
			    t->nsite - 1)] += v > 0 && isfinite(v) ? v : 0;
		}
	}
	/* The axis spans every entry, to where the last one ends. */
	for (i = 0; i < nx; i++) {
		v = xend != NULL && xend[i] > x[i] ? xend[i] : x[i];
		if (i == 0 || v > t->x_last)
			t->x_last = v;
	}
	if ((p = jdoc_get(d, 0, "peak")) >= 0 &&
	    d->node[p].type == JT_OBJECT &&
	    jdoc_get_double(d, (uint32_t)p, "x", &t->peak_x) == 0 &&
	    jdoc_get_double(d, (uint32_t)p, "bytes", &t->peak_bytes) == 0 &&
	    isfinite(t->peak_x) && isfinite(t->peak_bytes)) {
		t->has_peak = 1;
		m = jdoc_get(d, (uint32_t)p, "at_least");
		t->at_least = m >= 0 && d->node[m].type == JT_TRUE;
	}
	if ((a = jdoc_get(d, 0, "markers")) >= 0 &&
	    d->node[a].type == JT_ARRAY)
		for (j = (uint32_t)a + 1; j < d->node[a].next &&
		    t->nmark < MAX_MARKS; j = d->node[j].next) {
			if (d->node[j].type != JT_OBJECT ||
			    jdoc_get_double(d, j, "x", &v) < 0 || !isfinite(v) ||
			    jdoc_get_str(d, j, "what", &s, &len) < 0)
				continue;
			t->mark[t->nmark].x = v;
			t->mark[t->nmark].oom = strcmp(s, "oom") == 0;
			t->nmark++;
		}
	rc = 0;
out:
	free(x);
	free(xend);
	free(amin);
	free(amax);
	free(rmax);
	return rc;
}

/*
 * A site "name@/long/path/file.py:12" as "name@file.py:12", in buf: the
 * directories do not fit a legend.
 */
static const char *
site_label(const char *site, char *buf, size_t size)
{
	const char *at, *p, *base;

	if ((at = strchr(site, '@')) == NULL)
		return site;
	for (base = p = at + 1; *p != '\0'; p++)
		if (*p == '/' || *p == '\\')
			base = p + 1;
	snprintf(buf, size, "%.*s%s", (int)(at + 1 - site), site, base);
	return buf;
}

static int
take_layout(struct charts *c, const char *file, const struct jdoc *d)
{
	struct seglay l, *dst;
	size_t i, min = 0;
	uint32_t j;
	int a, k;
	const char *s;

	memset(&l, 0, sizeof(l));
	if (jdoc_get_double(d, 0, "total_size", &l.total) < 0 ||
	    !isfinite(l.total) || l.total < 0)
		return jdoc_error(file, d, 0, "segment_layout has no"
		    " \"total_size\"");
	(void)jdoc_get_i64(d, 0, "device", &l.device);
	if ((a = jdoc_get(d, 0, "runs")) < 0 || d->node[a].type != JT_ARRAY)
		return jdoc_error(file, d, 0, "\"runs\" is not an array");
	l.run = xreallocarray(NULL, (size_t)d->node[a].len + 1,
	    sizeof(*l.run));
	for (j = (uint32_t)a + 1; j < d->node[a].next; j = d->node[j].next) {
		if (d->node[j].type != JT_ARRAY || d->node[j].len != 2 ||
		    d->node[j + 1].type != JT_STRING ||
		    d->node[d->node[j + 1].next].type != JT_NUMBER) {
			free(l.run);
			return jdoc_error(file, d, j, "a run is not"
			    " [state, bytes]");
		}
		s = jdoc_str(d, j + 1);
		for (k = 0; k < 3; k++)
			if (strcmp(s, state_key[k]) == 0)
				break;
		/* A state not known here is drawn as free space. */
		l.run[l.nrun].state = k < 3 ? k : 2;
		l.run[l.nrun].bytes = jnum_double(jdoc_str(d,
		    d->node[j + 1].next));
		if (!isfinite(l.run[l.nrun].bytes))
			l.run[l.nrun].bytes = 0;
		l.nrun++;
	}
	/* The MAX_SEGS largest are kept, the smallest one replaced. */
	if (c->nseg == MAX_SEGS) {
		for (i = 1; i < c->nseg; i++)
			if (lay_cmp(&c->seg[i], &c->seg[min]) > 0)
				min = i;
		c->segs_dropped++;
		if (lay_cmp(&l, &c->seg[min]) >= 0) {
			free(l.run);
			return 0;
		}
		dst = &c->seg[min];
		free(dst->run);
	} else
		dst = &c->seg[c->nseg++];
	*dst = l;
	return 0;
}

static int
take_gpu(struct charts *c, const struct jdoc *d)
{
	static const char *const key[4] = {
		"computation", "exposed_comm", "exposed_memcpy", "idle"
	};
	struct gpubar *g;
	int k;

	if (c->ngpu == MAX_RANKS) {
		c->gpu_dropped++;
		return 0;
	}
	g = &c->gpu[c->ngpu++];
	g->rank = rank_of(d);
	if (jdoc_get_i64(d, 0, "device", &g->device) < 0)
		g->device = -1;
	for (k = 0; k < 4; k++)
		if (jdoc_get_double(d, 0, key[k], &g->v[k]) < 0 ||
		    !isfinite(g->v[k]) || g->v[k] < 0)
			g->v[k] = 0;
		else if (g->v[k] > 1e300)
			g->v[k] = 1e300;
	return 0;
}

static int
take_step(struct charts *c, const struct jdoc *d)
{
	struct stepser *s = NULL;
	int64_t rank = rank_of(d), step;
	double dur;
	size_t i;

	if (jdoc_get_double(d, 0, "dur", &dur) < 0 || !isfinite(dur) ||
	    dur < 0)
		return 0;
	if (jdoc_get_i64(d, 0, "step", &step) < 0)
		step = -1;
	for (i = 0; i < c->nsteps; i++)
		if (c->steps[i].rank == rank)
			s = &c->steps[i];
	if (s == NULL) {
		if (c->nsteps == MAX_RANKS) {
			c->steps_dropped++;
			return 0;
		}
		s = &c->steps[c->nsteps++];
		s->rank = rank;
	}
	if (s->n == s->cap) {
		s->cap = s->cap ? s->cap * 2 : 64;
		s->dur = xreallocarray(s->dur, s->cap, sizeof(*s->dur));
		s->step = xreallocarray(s->step, s->cap, sizeof(*s->step));
	}
	s->dur[s->n] = dur;
	s->step[s->n] = step;
	s->n++;
	return 0;
}

/*
 * A ledger record, while MAX_WINDOWS are not drawn yet: its slices by
 * name, past MAX_SLICES names into the last one met.
 */
static int
take_ledger(struct charts *c, const char *file, const struct jdoc *d)
{
	struct window *wn;
	const char *kind, *name;
	double t;
	uint32_t i;
	size_t k;
	int a;

	if (c->nwin == MAX_WINDOWS) {
		c->win_dropped++;
		return 0;
	}
	wn = &c->win[c->nwin];
	memset(wn, 0, sizeof(*wn));
	if (jdoc_get_str(d, 0, "window", &kind, NULL) < 0 ||
	    jdoc_get_double(d, 0, "wall", &wn->wall) < 0 ||
	    !isfinite(wn->wall) || wn->wall < 0 ||
	    (a = jdoc_get(d, 0, "slices")) < 0 ||
	    d->node[a].type != JT_ARRAY)
		return jdoc_error(file, d, 0, "\"ledger\" lacks \"window\","
		    " a \"wall\" time or the array \"slices\"");
	snprintf(wn->kind, sizeof(wn->kind), "%s", kind);
	wn->rank = rank_of(d);
	if (jdoc_get_i64(d, 0, kind, &wn->num) < 0)
		wn->num = -1;
	for (i = (uint32_t)a + 1; i < d->node[a].next; i = d->node[i].next) {
		if (d->node[i].type != JT_OBJECT ||
		    jdoc_get_str(d, i, "slice", &name, NULL) < 0 ||
		    jdoc_get_double(d, i, "time", &t) < 0 || !isfinite(t) ||
		    t < 0)
			return jdoc_error(file, d, i, "a slice lacks its"
			    " \"slice\" name or a \"time\"");
		for (k = 0; k < c->nslice && strcmp(c->slice[k], name) != 0;
		    k++)
			;
		if (k == c->nslice && c->nslice < MAX_SLICES)
			c->slice[c->nslice++] = xstrdup(name);
		wn->t[k < MAX_SLICES ? k : MAX_SLICES - 1] += t;
	}
	c->nwin++;
	return 0;
}

static int
take_family(struct charts *c, const struct jdoc *d)
{
	struct strent *e;
	struct family *f;
	const char *name;
	size_t len, i;
	double cpu = 0, gpu = 0;
	int64_t rank = rank_of(d);

	if (jdoc_get_str(d, 0, "family", &name, &len) < 0)
		return 0;
	(void)jdoc_get_double(d, 0, "self", &cpu);
	(void)jdoc_get_double(d, 0, "gpu_self", &gpu);
	for (i = 0; i < c->nfamrank && c->famrank[i] != rank; i++)
		;
	if (i == c->nfamrank && i < MAX_RANKS)
		c->famrank[c->nfamrank++] = rank;
	if ((e = strmap_get(&c->fam, name, len)) == NULL &&
	    c->fam.count >= MAX_FAMNAMES)
		f = &c->fam_other;
	else {
		e = strmap_put(&c->fam, name, len);
		if (e->val == NULL)
			e->val = xcalloc(1, sizeof(struct family));
		f = e->val;
	}
	/* Bounded, so that no sum of them overflows to infinity. */
	f->cpu = fmin(f->cpu + (cpu > 0 && isfinite(cpu) ? cpu : 0), 1e300);
	f->gpu = fmin(f->gpu + (gpu > 0 && isfinite(gpu) ? gpu : 0), 1e300);
	return 0;
}

/*
 * The costed shapes of one rank (the first whose records come), in the
 * order op-rank writes them, by GPU time: the top MAX_SHAPES with a rate.
 */
static int
take_shape(struct charts *c, const struct jdoc *d)
{
	struct shape *sh;
	const char *name, *bound;
	int64_t rank = rank_of(d);

	if (c->nshape == 0)
		c->shaperank = rank;
	if (rank != c->shaperank || c->nshape == MAX_SHAPES)
		return 0;
	sh = &c->shape[c->nshape];
	if (jdoc_get_str(d, 0, "name", &name, NULL) < 0 ||
	    jdoc_get_double(d, 0, "intensity", &sh->intensity) < 0 ||
	    jdoc_get_double(d, 0, "tflops", &sh->tflops) < 0 ||
	    jdoc_get_double(d, 0, "gpu_us", &sh->gpu_us) < 0 ||
	    !(sh->intensity > 0) || !(sh->tflops > 0) ||
	    !isfinite(sh->intensity) || !isfinite(sh->tflops))
		return 0;
	sh->memory = jdoc_get_str(d, 0, "bound", &bound, NULL) == 0 &&
	    strcmp(bound, "memory") == 0;
	if (c->nshape == 0 &&
	    jdoc_get_double(d, 0, "peak_tbps", &c->peak_tbps) < 0)
		c->peak_tbps = NAN;
	sh->name = xstrdup(name);
	c->nshape++;
	return 0;
}

/* The GPU and the peak of the precision with the most FLOPs. */
static int
take_compute(struct charts *c, const struct jdoc *d)
{
	const char *s;

	if (c->gpuname != NULL || rank_of(d) != c->shaperank)
		return 0;
	if (jdoc_get_double(d, 0, "peak_tflops", &c->peak_tflops) < 0)
		c->peak_tflops = NAN;
	c->gpuname = xstrdup(jdoc_get_str(d, 0, "gpu", &s, NULL) == 0 ? s :
	    "an unknown GPU");
	return 0;
}

static void
timeline_free(struct timeline *t)
{
	size_t i;

	free(t->label);
	for (i = 0; i < t->nsite; i++)
		free(t->site[i]);
	free(t->sb);
	free(t);
}

static void
charts_free(struct charts *c)
{
	size_t i;

	for (i = 0; i < c->mem.n; i++)
		timeline_free(c->mem.tl[i]);
	for (i = 0; i < c->memtr.n; i++)
		timeline_free(c->memtr.tl[i]);
	for (i = 0; i < c->nseg; i++)
		free(c->seg[i].run);
	for (i = 0; i < c->nsteps; i++) {
		free(c->steps[i].dur);
		free(c->steps[i].step);
	}
	strmap_free(&c->fam, free);
	for (i = 0; i < c->nshape; i++)
		free(c->shape[i].name);
	free(c->gpuname);
	for (i = 0; i < c->nslice; i++)
		free(c->slice[i]);
}

/*
 * Writes the chart to dir/name.svg, published whole so that a reader never
 * sees half a chart, and says so on stdout.  The chart waits for a stop
 * signal until it is whole: whoever ran this (analyze-profile after
 * SIGINT) cleans up only the charts' own names.
 */
static void
emit(struct jw *w, struct svg *g, const char *name, const char *title,
    const char *section)
{
	char path[4096];
	int n;

	sb_puts(&g->b, "</svg>\n");
	n = snprintf(path, sizeof(path), "%s/%s.svg", oflag, name);
	if (n < 0 || (size_t)n >= sizeof(path))
		die("%s: directory name is too long", oflag);
	if (publish_file(path, g->b.s, g->b.len, 0644) != 0)
		exit(1);
	sb_free(&g->b);
	jw_record(w, "chart");
	jw_key(w, "chart");
	jw_cstring(w, name);
	jw_key(w, "file");
	snprintf(path, sizeof(path), "%s.svg", name);
	jw_cstring(w, path);
	jw_key(w, "title");
	jw_cstring(w, title);
	jw_key(w, "section");
	jw_cstring(w, section);
	jw_end(w);
}

static void
svg_begin(struct svg *g, int w, int h, const char *title)
{
	memset(g, 0, sizeof(*g));
	sb_printf(&g->b, "<?xml version=\"1.0\" encoding=\"UTF-8\"?>\n"
	    "<svg xmlns=\"http://www.w3.org/2000/svg\" width=\"%d\""
	    " height=\"%d\" viewBox=\"0 0 %d %d\" font-family=\"sans-serif\""
	    " font-size=\"%d\">\n<title>", w, h, w, h, FONT);
	xml_text(&g->b, title, LABEL_MAX * 3);
	sb_puts(&g->b, "</title>\n<rect width=\"100%\" height=\"100%\""
	    " fill=\"#ffffff\"/>\n");
	textn(g, 10, 22, "start\" font-size=\"15\" font-weight=\"bold", title,
	    NULL, LABEL_MAX * 3);
}

/*
 * A text at x, y; anchor is the text-anchor value (our own literal, which
 * may carry further attributes); the text is data and escaped.  fill NULL
 * is black.
 */
static void
text(struct svg *g, double x, double y, const char *anchor, const char *s,
    const char *fill)
{
	textn(g, x, y, anchor, s, fill, LABEL_MAX);
}

/* text() with at most max characters of s. */
static void
textn(struct svg *g, double x, double y, const char *anchor, const char *s,
    const char *fill, size_t max)
{
	sb_printf(&g->b, "<text x=\"%.1f\" y=\"%.1f\" text-anchor=\"%s\"",
	    x, y, anchor);
	if (fill != NULL)
		sb_printf(&g->b, " fill=\"%s\"", fill);
	sb_puts(&g->b, ">");
	xml_text(&g->b, s, max);
	sb_puts(&g->b, "</text>\n");
}

/* Swatches and names in rows from x, y; returns nothing, uses 18 px a row. */
static void
legend(struct svg *g, double x, double y, const char *const *name,
    const char *const *color, size_t n)
{
	double cx = x, wd;
	size_t i, len;

	for (i = 0; i < n; i++) {
		len = strlen(name[i]);
		wd = 24 + 7.0 * (double)(len < LABEL_MAX ? len : LABEL_MAX + 1);
		if (cx > x && cx + wd > WIDTH - 10) {
			cx = x;
			y += 18;
		}
		sb_printf(&g->b, "<rect x=\"%.1f\" y=\"%.1f\" width=\"12\""
		    " height=\"12\" fill=\"%s\"/>\n", cx, y - 10, color[i]);
		text(g, cx + 16, y, "start", name[i], NULL);
		cx += wd;
	}
}

/* The rows legend() will take for n names from x. */
static int
legend_rows(double x, const char *const *name, size_t n)
{
	double cx = x, wd;
	size_t i, len;
	int rows = n > 0;

	for (i = 0; i < n; i++) {
		len = strlen(name[i]);
		wd = 24 + 7.0 * (double)(len < LABEL_MAX ? len : LABEL_MAX + 1);
		if (cx > x && cx + wd > WIDTH - 10) {
			cx = x;
			rows++;
		}
		cx += wd;
	}
	return rows;
}

/* 1, 2 or 5 times a power of ten, about range / 5. */
static double
nice_step(double range)
{
	double p, f;

	if (!(range > 0))
		return 1;
	p = pow(10, floor(log10(range / 5)));
	f = range / 5 / p;
	return (f < 1.5 ? 1 : f < 3.5 ? 2 : f < 7.5 ? 5 : 10) * p;
}

/* nice_step() in the binary unit that fmt_bytes() will show. */
static double
byte_step(double range)
{
	double d = 1;

	while (d < 0x1p40 && range >= d * 1024)
		d *= 1024;
	return nice_step(range / d) * d;
}

static double
px(const struct plot *p, double x)
{
	if (p->xmax <= p->xmin)
		return p->x0 + p->w / 2;
	return p->x0 + (x - p->xmin) / (p->xmax - p->xmin) * p->w;
}

static double
py(const struct plot *p, double y)
{
	if (p->ymax <= p->ymin)
		return p->y0 + p->h;
	return p->y0 + p->h - (y - p->ymin) / (p->ymax - p->ymin) * p->h;
}

/*
 * The decimals that show v (in its unit) with at least want of them, and
 * more when fewer would round a value that is not 0 to 0.
 */
static int
decimals(double v, int want)
{
	while (want < 6 && v != 0 && fabs(v) * pow(10, want) < 1)
		want++;
	return want;
}

/* Bytes with the unit that suits scale: "1.5 GiB". */
static void
fmt_bytes(char *buf, size_t size, double v, double scale)
{
	static const char *const unit[] = { "B", "KiB", "MiB", "GiB", "TiB" };
	int u = 0;
	double d = 1;

	while (u < 4 && scale >= d * 1024) {
		d *= 1024;
		u++;
	}
	snprintf(buf, size, "%.*f %s", decimals(v / d, u == 0 ? 0 : 1), v / d,
	    unit[u]);
}

/* Microseconds as s, ms or µs, as scale suits. */
static void
fmt_time(char *buf, size_t size, double us, double scale)
{
	if (scale >= 1e7)
		snprintf(buf, size, "%.*f s", decimals(us / 1e6, 1), us / 1e6);
	else if (scale >= 1e4)
		snprintf(buf, size, "%.*f ms", decimals(us / 1e3, 0),
		    us / 1e3);
	else if (scale >= 1e3)
		snprintf(buf, size, "%.*f ms", decimals(us / 1e3, 2),
		    us / 1e3);
	else
		snprintf(buf, size, "%.*f \xc2\xb5s", decimals(us, 1), us);
}

/*
 * The frame, grid and tick labels of p: y in bytes (ybytes) or time, x in
 * time (xtime), entries or none (xtime < 0), and the axis titles.
 */
static void
axes(struct svg *g, const struct plot *p, int xtime, int ybytes,
    const char *xtitle, const char *ytitle)
{
	char buf[64];
	double s, v, v0;
	int i;

	sb_printf(&g->b, "<rect x=\"%.1f\" y=\"%.1f\" width=\"%.1f\""
	    " height=\"%.1f\" fill=\"none\" stroke=\"#888888\"/>\n",
	    p->x0, p->y0, p->w, p->h);
	s = ybytes ? byte_step(p->ymax - p->ymin) :
	    nice_step(p->ymax - p->ymin);
	v0 = ceil(p->ymin / s) * s;
	for (i = 0, v = v0; i < MAX_TICKS && v <= p->ymax + s * 1e-9;
	    v = v0 + s * ++i) {
		sb_printf(&g->b, "<line x1=\"%.1f\" y1=\"%.1f\" x2=\"%.1f\""
		    " y2=\"%.1f\" stroke=\"#e5e5e5\"/>\n", p->x0, py(p, v),
		    p->x0 + p->w, py(p, v));
		if (ybytes)
			fmt_bytes(buf, sizeof(buf), v, p->ymax);
		else
			fmt_time(buf, sizeof(buf), v, p->ymax);
		text(g, p->x0 - 6, py(p, v) + 4, "end", buf, NULL);
	}
	if (xtime >= 0) {
		s = nice_step(p->xmax - p->xmin);
		/* Entries and steps are counted: no fractional ticks. */
		if (!xtime && s < 1)
			s = 1;
		v0 = ceil(p->xmin / s) * s;
		for (i = 0, v = v0; i < MAX_TICKS && v <= p->xmax + s * 1e-9;
		    v = v0 + s * ++i) {
			sb_printf(&g->b, "<line x1=\"%.1f\" y1=\"%.1f\""
			    " x2=\"%.1f\" y2=\"%.1f\" stroke=\"#888888\"/>\n",
			    px(p, v), p->y0 + p->h, px(p, v),
			    p->y0 + p->h + 4);
			if (xtime)
				fmt_time(buf, sizeof(buf), v, p->xmax -
				    p->xmin);
			else
				snprintf(buf, sizeof(buf), "%.0f", v);
			text(g, px(p, v), p->y0 + p->h + 17, "middle", buf,
			    NULL);
		}
	}
	if (xtitle != NULL)
		text(g, p->x0 + p->w / 2, p->y0 + p->h + 34, "middle", xtitle,
		    NULL);
	if (ytitle != NULL) {
		sb_printf(&g->b, "<text x=\"0\" y=\"0\" text-anchor=\"middle\""
		    " transform=\"translate(%.1f %.1f) rotate(-90)\">",
		    p->x0 - 70, p->y0 + p->h / 2);
		xml_text(&g->b, ytitle, LABEL_MAX);
		sb_puts(&g->b, "</text>\n");
	}
}

/* Panel height and the room around it, in px. */
#define PANEL_H		220
#define PANEL_GAP	84	/* label, x axis, the legend's first row */

static void
draw_memory(struct jw *w, struct tlset *set, const char *name,
    const char *title, const char *section)
{
	struct svg g;
	const char *lname[MAX_SITES + 4], *lcolor[MAX_SITES + 4];
	const struct timeline *t;
	size_t i, k, n = 0, rows = 0, per;
	int oom = 0, burst = 0, h;
	char note[96];

	/* Host memory only where there is no device memory to show. */
	for (i = 0, k = 0; i < set->n; i++)
		if (!set->tl[i]->cpu)
			k++;
	if (k > 0 && k < set->n) {
		for (i = 0, k = 0; i < set->n; i++)
			if (set->tl[i]->cpu)
				timeline_free(set->tl[i]);
			else
				set->tl[k++] = set->tl[i];
		set->n = k;
	}
	if (set->n == 0)
		return;
	/* The legend lists the first panel's sites; each panel its own. */
	for (i = 0; i < set->n; i++) {
		t = set->tl[i];
		for (k = 0; k < t->nmark; k++) {
			oom |= t->mark[k].oom;
			burst |= !t->mark[k].oom;
		}
		k = (size_t)legend_rows(90, (const char *const *)t->site,
		    t->nsite);
		if (k > rows)
			rows = k;
	}
	h = 50 + (int)set->n * (PANEL_H + PANEL_GAP + (int)rows * 18) + 20;
	svg_begin(&g, WIDTH, h, title);
	per = MAX_DRAW / 4 / set->n;
	for (i = 0; i < set->n; i++)
		draw_panel(&g, set->tl[i], 68 + (double)i * (PANEL_H +
		    PANEL_GAP + (double)rows * 18), per);
	lname[n] = "reserved";
	lcolor[n++] = "#222222";
	lname[n] = "allocated, lowest in bucket";
	lcolor[n++] = "#9a9a9a";
	if (oom) {
		lname[n] = "OOM";
		lcolor[n++] = "#d62728";
	}
	if (burst) {
		lname[n] = "segments released";
		lcolor[n++] = "#ff9f1c";
	}
	legend(&g, 90, h - 16, lname, lcolor, n);
	if (set->dropped > 0) {
		snprintf(note, sizeof(note), "%" PRIu64 " more timelines"
		    " not drawn", set->dropped);
		text(&g, WIDTH - 10, 22, "end", note, NULL);
	}
	emit(w, &g, name, title, section);
}

/*
 * One timeline at top y: the sites stacked up to the highest allocated
 * bytes of each bucket (drawn at most per buckets), the lowest as a line,
 * reserved as a line, the peak and the markers.
 */
static void
draw_panel(struct svg *g, const struct timeline *t, double y, size_t per)
{
	struct plot p;
	char buf[160], val[32];
	double x0, *cum, v, s;
	size_t b, k, nb, i, from, to, at;
	const char *lname[MAX_SITES + 1], *lcolor[MAX_SITES + 1];

	memset(&p, 0, sizeof(p));
	p.x0 = 90;
	p.y0 = y;
	p.w = WIDTH - 110;
	p.h = PANEL_H;
	x0 = t->n > 0 ? t->x[0] : 0;
	for (b = 0; b < t->n; b++) {
		v = t->x[b] - x0;
		if (b == 0 || v < p.xmin)
			p.xmin = v;
		if (b == 0 || v > p.xmax)
			p.xmax = v;
		if (!isnan(t->amax[b]) && t->amax[b] > p.ymax)
			p.ymax = t->amax[b];
		if (!isnan(t->rmax[b]) && t->rmax[b] > p.ymax)
			p.ymax = t->rmax[b];
	}
	if (t->n > 0 && t->x_last - x0 > p.xmax)
		p.xmax = t->x_last - x0;
	for (k = 0; k < t->nmark; k++)
		if (t->mark[k].x - x0 > p.xmax)
			p.xmax = t->mark[k].x - x0;
	if (p.ymax <= 0)
		p.ymax = 1;
	p.ymax *= 1.08;
	text(g, p.x0, y - 8, "start", t->label, NULL);
	axes(g, &p, t->timed, 1, t->timed ? "time since the first entry" :
	    "trace entry", "bytes");
	if (t->n == 0)
		return;

	/* Buckets of buckets, so that the panel stays within per points. */
	nb = t->n < per ? t->n : per;
	cum = xcalloc(nb * (MAX_SITES + 1) + 1, sizeof(*cum));
	for (b = 0; b < nb; b++) {
		from = b * t->n / nb;
		to = (b + 1) * t->n / nb;
		at = from;
		for (i = from; i < to; i++)
			if (!isnan(t->amax[i]) && (isnan(t->amax[at]) ||
			    t->amax[i] > t->amax[at]))
				at = i;
		for (k = 0, s = 0; k < t->nsite; k++) {
			s += t->sb[at * t->nsite + k];
			cum[b * (MAX_SITES + 1) + k] = s;
		}
		if (t->nsite == 0)
			cum[b * (MAX_SITES + 1)] = isnan(t->amax[at]) ? 0 :
			    t->amax[at];
	}
	/* Top layer first: each later one paints over the ones below. */
	for (k = t->nsite > 0 ? t->nsite : 1; k-- > 0;) {
		sb_printf(&g->b, "<polygon fill=\"%s\" fill-opacity=\"0.85\""
		    " points=\"%.1f,%.1f", palette[k % NPALETTE],
		    px(&p, t->x[0] - x0), py(&p, 0));
		/* Steps: a value holds until the next bucket's. */
		for (b = 0; b < nb; b++) {
			if (b > 0)
				sb_printf(&g->b, " %.1f,%.1f",
				    px(&p, t->x[b * t->n / nb] - x0),
				    py(&p, cum[(b - 1) * (MAX_SITES + 1) + k]));
			sb_printf(&g->b, " %.1f,%.1f",
			    px(&p, t->x[b * t->n / nb] - x0),
			    py(&p, cum[b * (MAX_SITES + 1) + k]));
		}
		/* The last value holds to where the last entry ends. */
		sb_printf(&g->b, " %.1f,%.1f %.1f,%.1f\"/>\n",
		    px(&p, t->x_last - x0),
		    py(&p, cum[(nb - 1) * (MAX_SITES + 1) + k]),
		    px(&p, t->x_last - x0), py(&p, 0));
	}
	for (i = 0; i < 2; i++) {
		double last = 0;
		int any = 0;

		for (b = 0; b < nb; b++) {
			from = b * t->n / nb;
			to = (b + 1) * t->n / nb;
			v = NAN;
			for (k = from; k < to; k++) {
				s = i == 0 ? t->rmax[k] : t->amin[k];
				if (!isnan(s) && (isnan(v) || (i == 0 ?
				    s > v : s < v)))
					v = s;
			}
			if (isnan(v))
				continue;
			if (!any)
				sb_printf(&g->b, "<polyline fill=\"none\""
				    " stroke=\"%s\"%s points=\"",
				    i == 0 ? "#222222" : "#9a9a9a", i == 0 ?
				    " stroke-width=\"1.5\"" :
				    " stroke-dasharray=\"3 2\"");
			else
				sb_printf(&g->b, " %.1f,%.1f",
				    px(&p, t->x[from] - x0), py(&p, last));
			sb_printf(&g->b, any ? " %.1f,%.1f" : "%.1f,%.1f",
			    px(&p, t->x[from] - x0), py(&p, v));
			last = v;
			any = 1;
		}
		if (any)
			sb_puts(&g->b, "\"/>\n");
	}
	free(cum);
	for (k = 0; k < t->nmark; k++)
		sb_printf(&g->b, "<line x1=\"%.1f\" y1=\"%.1f\" x2=\"%.1f\""
		    " y2=\"%.1f\" stroke=\"%s\" stroke-width=\"1.5\"%s/>\n",
		    px(&p, t->mark[k].x - x0), p.y0, px(&p, t->mark[k].x - x0),
		    p.y0 + p.h, t->mark[k].oom ? "#d62728" : "#ff9f1c",
		    t->mark[k].oom ? "" : " stroke-dasharray=\"4 3\"");
	if (t->has_peak) {
		fmt_bytes(val, sizeof(val), t->peak_bytes, t->peak_bytes);
		snprintf(buf, sizeof(buf), t->at_least ? "peak: at least %s"
		    " (partial window)" : "peak: %s", val);
		sb_printf(&g->b, "<circle cx=\"%.1f\" cy=\"%.1f\" r=\"4\""
		    " fill=\"none\" stroke=\"#d62728\" stroke-width=\"2\"/>\n",
		    px(&p, t->peak_x - x0), py(&p, t->peak_bytes));
		text(g, p.x0 + p.w, y - 8, "end", buf, "#d62728");
	}
	for (k = 0; k < t->nsite; k++) {
		lname[k] = t->site[k];
		lcolor[k] = palette[k % NPALETTE];
	}
	if (t->nsite == 0) {
		lname[0] = "allocated";
		lcolor[0] = palette[0];
	}
	legend(g, p.x0, y + p.h + 52, lname, lcolor,
	    t->nsite > 0 ? t->nsite : 1);
}

static int
lay_cmp(const void *a, const void *b)
{
	const struct seglay *x = a, *y = b;

	if (x->total != y->total)
		return x->total > y->total ? -1 : 1;
	return x->device < y->device ? -1 : x->device > y->device;
}

static void
flush_rect(struct svg *g, struct pend *r, double y, double h)
{
	if (r->state >= 0 && r->w > 0)
		sb_printf(&g->b, "<rect x=\"%.1f\" y=\"%.1f\" width=\"%.1f\""
		    " height=\"%.1f\" fill=\"%s\"/>\n", r->x, y, r->w, h,
		    state_color[r->state]);
	r->state = -1;
	r->w = 0;
}

static void
add_rect(struct svg *g, struct pend *r, int state, double x, double w,
    double y, double h)
{
	if (r->state == state) {
		r->w = x + w - r->x;
		return;
	}
	flush_rect(g, r, y, h);
	r->state = state;
	r->x = x;
	r->w = w;
}

#define SEG_BAR		16
#define SEG_GAP		6
#define MIN_PX		6.0	/* narrower runs are drawn together */

static void
draw_segments(struct jw *w, struct charts *c)
{
	static const char *const title = "Segment map: largest segments,"
	    " blocks by state";
	struct svg g;
	struct pend r;
	const struct seglay *l;
	double x0 = 160, wmax = WIDTH - 180, y, pos, x, acc[3], accx, wd;
	size_t i, k;
	int h, s, devs = 0;
	char buf[96], val[32];

	if (c->nseg == 0)
		return;
	xqsort(c->seg, c->nseg, sizeof(*c->seg), lay_cmp);
	for (i = 1; i < c->nseg; i++)
		devs |= c->seg[i].device != c->seg[0].device;
	h = 60 + (int)c->nseg * (SEG_BAR + SEG_GAP) + 40;
	svg_begin(&g, WIDTH, h, title);
	textn(&g, x0, 42, "start", "bar length: the segment's size, relative"
	    " to the largest", "#555555", LABEL_MAX * 3);
	for (i = 0; i < c->nseg; i++) {
		l = &c->seg[i];
		y = 56 + (double)i * (SEG_BAR + SEG_GAP);
		fmt_bytes(val, sizeof(val), l->total, l->total);
		if (devs)
			snprintf(buf, sizeof(buf), "dev %" PRId64 ": %s",
			    l->device, val);
		else
			snprintf(buf, sizeof(buf), "%s", val);
		text(&g, x0 - 8, y + SEG_BAR - 4, "end", buf, NULL);
		r.state = -1;
		r.x = r.w = 0;
		pos = 0;
		accx = x0;
		acc[0] = acc[1] = acc[2] = 0;
		for (k = 0; k < l->nrun; k++) {
			if (!(l->run[k].bytes > 0) || !(c->seg[0].total > 0))
				continue;
			x = x0 + pos / c->seg[0].total * wmax;
			wd = l->run[k].bytes / c->seg[0].total * wmax;
			pos += l->run[k].bytes;
			if (wd >= MIN_PX || acc[0] + acc[1] + acc[2] > 0) {
				if (acc[0] + acc[1] + acc[2] > 0 &&
				    (wd >= MIN_PX || x - accx >= MIN_PX)) {
					s = acc[0] >= acc[1] && acc[0] >=
					    acc[2] ? 0 : acc[1] >= acc[2] ?
					    1 : 2;
					add_rect(&g, &r, s, accx, x - accx, y,
					    SEG_BAR);
					acc[0] = acc[1] = acc[2] = 0;
				}
			}
			if (wd >= MIN_PX && acc[0] + acc[1] + acc[2] == 0)
				add_rect(&g, &r, l->run[k].state, x, wd, y,
				    SEG_BAR);
			else {
				if (acc[0] + acc[1] + acc[2] == 0)
					accx = x;
				acc[l->run[k].state] += l->run[k].bytes;
			}
		}
		if (acc[0] + acc[1] + acc[2] > 0) {
			s = acc[0] >= acc[1] && acc[0] >= acc[2] ? 0 :
			    acc[1] >= acc[2] ? 1 : 2;
			add_rect(&g, &r, s, accx, x0 + pos /
			    c->seg[0].total * wmax - accx, y, SEG_BAR);
		}
		flush_rect(&g, &r, y, SEG_BAR);
		sb_printf(&g.b, "<rect x=\"%.1f\" y=\"%.1f\" width=\"%.1f\""
		    " height=\"%d\" fill=\"none\" stroke=\"#555555\"/>\n",
		    x0, y, c->seg[0].total > 0 ? l->total / c->seg[0].total *
		    wmax : 0, SEG_BAR);
	}
	legend(&g, x0, h - 16, state_name, state_color, 3);
	if (c->segs_dropped > 0) {
		snprintf(buf, sizeof(buf), "%" PRIu64 " smaller segments not"
		    " drawn", c->segs_dropped);
		text(&g, WIDTH - 10, 22, "end", buf, NULL);
	}
	emit(w, &g, "segments", title, "Fragmentation risk");
}

static int
gpu_cmp(const void *a, const void *b)
{
	const struct gpubar *x = a, *y = b;

	if (x->rank != y->rank)
		return x->rank < y->rank ? -1 : 1;
	return x->device < y->device ? -1 : x->device > y->device;
}

static void
bar_label(char *buf, size_t size, int64_t rank, int64_t device)
{
	if (rank >= 0)
		snprintf(buf, size, "rank %" PRId64, rank);
	else if (device >= 0)
		snprintf(buf, size, "device %" PRId64, device);
	else
		snprintf(buf, size, "trace");
}

/* Appends " (slowest)" to the label in buf, as far as it fits. */
static void
mark_slowest(char *buf, size_t size)
{
	size_t n = strlen(buf);

	snprintf(buf + n, size - n, " (slowest)");
}

#define BAR	18
#define BAR_GAP	8

/*
 * Each rank's GPU window as one bar of shares: computation, exposed
 * communication, exposed memcpy and idle, each a share of that rank's own
 * window, whose length ends the bar.  The ranks' windows differ, and a
 * time axis would pretend they were laid end to end.
 */
static void
draw_gpu(struct jw *w, struct charts *c)
{
	static const char *const part[4] = {
		"computation", "exposed communication", "exposed memcpy", "idle"
	};
	static const char *const color[4] = {
		"#4c72b0", "#c44e52", "#8172b3", "#d9d9d9"
	};
	const char *title;
	struct svg g;
	struct plot p;
	double y, x, win;
	size_t i;
	int k, h;
	char buf[64];

	if (c->ngpu == 0)
		return;
	title = c->ngpu > 1 ? "GPU time per rank, as shares of its window" :
	    "GPU time, as shares of the trace window";
	xqsort(c->gpu, c->ngpu, sizeof(*c->gpu), gpu_cmp);
	memset(&p, 0, sizeof(p));
	p.x0 = 110;
	p.y0 = 50;
	p.w = WIDTH - 200;
	p.h = (double)c->ngpu * (BAR + BAR_GAP) + BAR_GAP;
	p.xmax = 1;
	h = (int)(p.y0 + p.h) + 80;
	svg_begin(&g, WIDTH, h, title);
	sb_printf(&g.b, "<rect x=\"%.1f\" y=\"%.1f\" width=\"%.1f\""
	    " height=\"%.1f\" fill=\"none\" stroke=\"#888888\"/>\n",
	    p.x0, p.y0, p.w, p.h);
	for (k = 0; k <= 5; k++) {
		x = k / 5.0;
		sb_printf(&g.b, "<line x1=\"%.1f\" y1=\"%.1f\" x2=\"%.1f\""
		    " y2=\"%.1f\" stroke=\"#e5e5e5\"/>\n", px(&p, x), p.y0,
		    px(&p, x), p.y0 + p.h);
		snprintf(buf, sizeof(buf), "%d %%", k * 20);
		text(&g, px(&p, x), p.y0 + p.h + 17, "middle", buf, NULL);
	}
	textn(&g, p.x0 + p.w / 2, p.y0 + p.h + 34, "middle", c->ngpu > 1 ?
	    "share of the rank's GPU window (its length after the bar)" :
	    "share of the GPU window (its length after the bar)", NULL,
	    LABEL_MAX * 3);
	for (i = 0; i < c->ngpu; i++) {
		y = p.y0 + BAR_GAP + (double)i * (BAR + BAR_GAP);
		bar_label(buf, sizeof(buf), c->gpu[i].rank, c->gpu[i].device);
		text(&g, p.x0 - 8, y + BAR - 5, "end", buf, NULL);
		for (win = 0, k = 0; k < 4; k++)
			win += c->gpu[i].v[k];
		for (x = 0, k = 0; win > 0 && k < 4; k++) {
			if (c->gpu[i].v[k] > 0)
				sb_printf(&g.b, "<rect x=\"%.1f\" y=\"%.1f\""
				    " width=\"%.1f\" height=\"%d\""
				    " fill=\"%s\"/>\n", px(&p, x), y,
				    px(&p, x + c->gpu[i].v[k] / win) -
				    px(&p, x), BAR, color[k]);
			x += c->gpu[i].v[k] / win;
		}
		fmt_time(buf, sizeof(buf), win, win);
		text(&g, p.x0 + p.w + 6, y + BAR - 5, "start", buf, NULL);
	}
	legend(&g, p.x0, h - 16, part, color, 4);
	if (c->gpu_dropped > 0) {
		snprintf(buf, sizeof(buf), "%" PRIu64 " more ranks not drawn",
		    c->gpu_dropped);
		text(&g, WIDTH - 10, 22, "end", buf, NULL);
	}
	emit(w, &g, "gpu-timeline", title, "GPU timeline");
}

/* Slices by their time over every window drawn, largest first. */
struct slicev {
	size_t	i;
	double	v;
};

static int
slicev_cmp(const void *a, const void *b)
{
	const struct slicev *x = a, *y = b;

	if (x->v != y->v)
		return x->v > y->v ? -1 : 1;
	return (x->i > y->i) - (x->i < y->i);
}

/*
 * The time ledger: one bar per window and rank, as op-rank's ledger
 * records cut it, each slice a share of the window, whose length ends
 * the bar.  The SLICE_COLORS slices with the most time get a colour each;
 * the rest share one grey.
 */
static void
draw_ledger(struct jw *w, struct charts *c)
{
	static const char *const title = "Where the time goes, per window";
	struct slicev sv[MAX_SLICES];
	const char *lname[SLICE_COLORS + 1], *lcolor[SLICE_COLORS + 1];
	char *label[SLICE_COLORS + 1], *u;
	int colour[MAX_SLICES];
	struct svg g;
	struct plot p;
	double y, x, share;
	size_t i, k, ncol, nleg;
	int h, rows;
	char buf[96];

	if (c->nwin == 0)
		return;
	for (k = 0; k < c->nslice; k++) {
		sv[k] = (struct slicev){ k, 0 };
		for (i = 0; i < c->nwin; i++)
			sv[k].v += c->win[i].t[k];
	}
	xqsort(sv, c->nslice, sizeof(*sv), slicev_cmp);
	ncol = c->nslice <= SLICE_COLORS + 1 ? c->nslice : SLICE_COLORS;
	for (k = 0; k < c->nslice; k++)
		colour[sv[k].i] = k < ncol ? (int)k : -1;
	/* "data loading", not "data_loading": the legend is for people. */
	for (nleg = 0; nleg < ncol; nleg++) {
		lname[nleg] = label[nleg] = xstrdup(c->slice[sv[nleg].i]);
		for (u = label[nleg]; (u = strchr(u, '_')) != NULL; u++)
			*u = ' ';
		lcolor[nleg] = palette[nleg % NPALETTE];
	}
	if (ncol < c->nslice) {
		lname[nleg] = "other";
		lcolor[nleg++] = "#d9d9d9";
	}
	memset(&p, 0, sizeof(p));
	p.x0 = 150;
	p.y0 = 50;
	p.w = WIDTH - 240;
	p.h = (double)c->nwin * (BAR + BAR_GAP) + BAR_GAP;
	p.xmax = 1;
	rows = legend_rows(p.x0, lname, nleg);
	h = (int)(p.y0 + p.h) + 54 + rows * 18;
	svg_begin(&g, WIDTH, h, title);
	sb_printf(&g.b, "<rect x=\"%.1f\" y=\"%.1f\" width=\"%.1f\""
	    " height=\"%.1f\" fill=\"none\" stroke=\"#888888\"/>\n",
	    p.x0, p.y0, p.w, p.h);
	for (k = 0; k <= 5; k++) {
		x = (double)k / 5.0;
		snprintf(buf, sizeof(buf), "%d %%", (int)k * 20);
		text(&g, px(&p, x), p.y0 + p.h + 17, "middle", buf, NULL);
	}
	textn(&g, p.x0 + p.w / 2, p.y0 + p.h + 34, "middle",
	    "share of the window (its wall time after the bar)", NULL,
	    LABEL_MAX * 3);
	for (i = 0; i < c->nwin; i++) {
		const struct window *wn = &c->win[i];
		double other = 0;

		y = p.y0 + BAR_GAP + (double)i * (BAR + BAR_GAP);
		if (wn->num >= 0 && wn->rank >= 0)
			snprintf(buf, sizeof(buf), "rank %" PRId64 ", %s %"
			    PRId64, wn->rank, wn->kind, wn->num);
		else if (wn->num >= 0)
			snprintf(buf, sizeof(buf), "%s %" PRId64, wn->kind,
			    wn->num);
		else
			bar_label(buf, sizeof(buf), wn->rank, -1);
		text(&g, p.x0 - 8, y + BAR - 5, "end", buf, NULL);
		x = 0;
		for (k = 0; wn->wall > 0 && k < c->nslice; k++) {
			if (colour[sv[k].i] < 0) {
				other += wn->t[sv[k].i];
				continue;
			}
			share = wn->t[sv[k].i] / wn->wall;
			if (share > 0)
				sb_printf(&g.b, "<rect x=\"%.1f\" y=\"%.1f\""
				    " width=\"%.1f\" height=\"%d\""
				    " fill=\"%s\"/>\n", px(&p, x), y,
				    px(&p, x + share) - px(&p, x), BAR,
				    palette[colour[sv[k].i] % (int)NPALETTE]);
			x += share;
		}
		if (other > 0 && wn->wall > 0)
			sb_printf(&g.b, "<rect x=\"%.1f\" y=\"%.1f\""
			    " width=\"%.1f\" height=\"%d\" fill=\"#d9d9d9\"/>\n",
			    px(&p, x), y, px(&p, x + other / wn->wall) -
			    px(&p, x), BAR);
		fmt_time(buf, sizeof(buf), wn->wall, wn->wall);
		text(&g, p.x0 + p.w + 6, y + BAR - 5, "start", buf, NULL);
	}
	legend(&g, p.x0, h - 16 - (rows - 1) * 18, lname, lcolor, nleg);
	for (k = 0; k < ncol; k++)
		free(label[k]);
	if (c->win_dropped > 0) {
		snprintf(buf, sizeof(buf), "%" PRIu64 " more windows not drawn",
		    c->win_dropped);
		text(&g, WIDTH - 10, 22, "end", buf, NULL);
	}
	emit(w, &g, "ledger", title, "Where the time goes");
}

/*
 * Horizontal bars of times in a panel at x, y, wd px wide: name and value
 * per bar, bar hi (or none for -1) in red.
 */
static void
hbars(struct svg *g, double x, double y, double wd, const char *ptitle,
    char **name, const double *v, size_t n, const char *color)
{
	struct plot p;
	double max = 0, by;
	size_t i, hi = SIZE_MAX;
	char buf[64];

	for (i = 0; i < n; i++)
		if (v[i] > max) {
			max = v[i];
			hi = i;
		}
	memset(&p, 0, sizeof(p));
	p.x0 = x + 150;
	p.w = wd - 150 - 70;
	p.xmax = max > 0 ? max : 1;
	text(g, x, y, "start\" font-weight=\"bold", ptitle, NULL);
	for (i = 0; i < n; i++) {
		by = y + 12 + (double)i * (BAR + BAR_GAP);
		text(g, p.x0 - 6, by + BAR - 5, "end", name[i], NULL);
		sb_printf(&g->b, "<rect x=\"%.1f\" y=\"%.1f\" width=\"%.1f\""
		    " height=\"%d\" fill=\"%s\"/>\n", p.x0, by,
		    px(&p, v[i] > 0 ? v[i] : 0) - p.x0, BAR,
		    color == NULL && i == hi ? "#c44e52" : color != NULL ?
		    color : palette[0]);
		fmt_time(buf, sizeof(buf), v[i], max);
		text(g, px(&p, v[i] > 0 ? v[i] : 0) + 4, by + BAR - 5, "start",
		    buf, NULL);
	}
}

static int
ser_cmp(const void *a, const void *b)
{
	const struct stepser *x = a, *y = b;

	return x->rank < y->rank ? -1 : x->rank > y->rank;
}

/*
 * Step times: with several ranks, a bar per rank (one step each) or a line
 * per rank over the steps; with one rank, its line over the steps, and no
 * chart for one step, which the report's table says.
 */
static void
draw_steps(struct jw *w, struct charts *c)
{
	const char *title = c->nsteps > 1 ? "Step times per rank" :
	    "Step times";
	struct svg g;
	struct plot p;
	char *name[MAX_RANKS], buf[64];
	const char *lname[MAX_RANKS], *lcolor[MAX_RANKS];
	double v[MAX_RANKS], m, worst;
	size_t i, j, k, most = 0, per, nb, from, to, slow;
	int h, rows;

	if (c->nsteps == 0)
		return;
	xqsort(c->steps, c->nsteps, sizeof(*c->steps), ser_cmp);
	for (i = 0; i < c->nsteps; i++)
		if (c->steps[i].n > most)
			most = c->steps[i].n;
	if (c->nsteps == 1 && most == 1)
		return;
	if (most == 1) {
		/* One step each: a bar per rank, the slowest in red. */
		for (i = 0; i < c->nsteps; i++) {
			bar_label(buf, sizeof(buf), c->steps[i].rank, -1);
			name[i] = xstrdup(buf);
			v[i] = c->steps[i].dur[0];
		}
		h = 60 + (int)c->nsteps * (BAR + BAR_GAP) + 30;
		svg_begin(&g, WIDTH, h, title);
		hbars(&g, 10, 48, WIDTH - 20, "step time (the slowest in red)",
		    name, v, c->nsteps, NULL);
		for (i = 0; i < c->nsteps; i++)
			free(name[i]);
	} else {
		memset(&p, 0, sizeof(p));
		p.x0 = 90;
		p.y0 = 50;
		p.w = WIDTH - 110;
		p.h = 260;
		/* With several ranks, the slowest on average is named. */
		for (i = 0, slow = 0, worst = -1; i < c->nsteps; i++) {
			for (j = 0, m = 0; j < c->steps[i].n; j++)
				m += c->steps[i].dur[j];
			if (c->nsteps > 1 && m / (double)c->steps[i].n > worst) {
				worst = m / (double)c->steps[i].n;
				slow = i;
			}
		}
		for (i = 0; i < c->nsteps; i++) {
			bar_label(buf, sizeof(buf), c->steps[i].rank, -1);
			if (worst >= 0 && i == slow)
				mark_slowest(buf, sizeof(buf));
			name[i] = xstrdup(buf);
			lname[i] = name[i];
			lcolor[i] = palette[i % NPALETTE];
			for (j = 0; j < c->steps[i].n; j++)
				if (c->steps[i].dur[j] > p.ymax)
					p.ymax = c->steps[i].dur[j];
		}
		p.ymax = p.ymax > 0 ? p.ymax * 1.08 : 1;
		p.xmin = 1;
		p.xmax = (double)most;
		/* One rank's line needs no legend. */
		rows = c->nsteps > 1 ? legend_rows(p.x0, lname, c->nsteps) : 0;
		h = (int)(p.y0 + p.h) + 50 + rows * 18;
		svg_begin(&g, WIDTH, h, title);
		axes(&g, &p, 0, 0, "step, in the order recorded (1 = first)",
		    "step time");
		per = MAX_DRAW / c->nsteps;
		if (per > MAX_STEPS)
			per = MAX_STEPS;
		for (i = 0; i < c->nsteps; i++) {
			const struct stepser *s = &c->steps[i];

			nb = s->n < per ? s->n : per;
			sb_printf(&g.b, "<polyline fill=\"none\" stroke=\"%s\""
			    " stroke-width=\"%s\" points=\"",
			    palette[i % NPALETTE], worst >= 0 && i == slow ?
			    "3" : "1.5");
			/* The longest step of each bucket: stragglers stay. */
			for (j = 0; j < nb; j++) {
				from = j * s->n / nb;
				to = (j + 1) * s->n / nb;
				for (m = 0, k = from; k < to; k++)
					if (s->dur[k] > m)
						m = s->dur[k];
				sb_printf(&g.b, j ? " %.1f,%.1f" : "%.1f,%.1f",
				    px(&p, (double)from + 1), py(&p, m));
			}
			sb_puts(&g.b, "\"/>\n");
			/* Few steps: each one marked. */
			for (j = 0; nb == s->n && nb <= 60 && j < nb; j++)
				sb_printf(&g.b, "<circle cx=\"%.1f\""
				    " cy=\"%.1f\" r=\"3\" fill=\"%s\"/>\n",
				    px(&p, (double)j + 1), py(&p, s->dur[j]),
				    palette[i % NPALETTE]);
		}
		if (rows > 0)
			legend(&g, p.x0, h - 14 - (rows - 1) * 18, lname,
			    lcolor, c->nsteps);
		for (i = 0; i < c->nsteps; i++)
			free(name[i]);
	}
	if (c->steps_dropped > 0) {
		snprintf(buf, sizeof(buf), "%" PRIu64 " steps of further"
		    " ranks not drawn", c->steps_dropped);
		text(&g, WIDTH - 10, 22, "end", buf, NULL);
	}
	emit(w, &g, "steps", title, "Slowest steps");
}

/* Families by one of their times, largest first, then by name. */
struct famv {
	const char	*name;
	double		 v;
};

static int
famv_cmp(const void *a, const void *b)
{
	const struct famv *x = a, *y = b;

	if (x->v != y->v)
		return x->v > y->v ? -1 : 1;
	return strcmp(x->name, y->name);
}

/* The MAX_FAMILIES largest by CPU (gpu 0) or GPU time, then "other". */
static size_t
top_families(struct charts *c, int gpu, char **name, double *v)
{
	struct strent **e;
	struct famv *f;
	size_t i, n = c->fam.count, k;
	double rest;

	e = strmap_sorted(&c->fam);
	f = xreallocarray(NULL, n + 1, sizeof(*f));
	for (i = 0; i < n; i++) {
		const struct family *fm = e[i]->val;

		f[i].name = e[i]->key;
		f[i].v = gpu ? fm->gpu : fm->cpu;
	}
	xqsort(f, n, sizeof(*f), famv_cmp);
	rest = gpu ? c->fam_other.gpu : c->fam_other.cpu;
	for (i = 0, k = 0; i < n; i++) {
		if (k < MAX_FAMILIES && f[i].v > 0 &&
		    strcmp(f[i].name, "other") != 0) {
			name[k] = xstrdup(f[i].name);
			v[k++] = f[i].v;
		} else
			rest += f[i].v;
	}
	if (rest > 0) {
		name[k] = xstrdup("other");
		v[k++] = rest;
	}
	free(f);
	free(e);
	return k;
}

static void
draw_families(struct jw *w, struct charts *c)
{
	static const char *const title = "Operator families: self CPU time"
	    " and GPU time";
	struct svg g;
	char *cname[MAX_FAMILIES + 1], *gname[MAX_FAMILIES + 1], buf[96];
	double cv[MAX_FAMILIES + 1], gv[MAX_FAMILIES + 1];
	size_t nc, ng, i, most;
	int h;

	if (c->fam.count == 0)
		return;
	nc = top_families(c, 0, cname, cv);
	ng = top_families(c, 1, gname, gv);
	most = nc > ng ? nc : ng;
	h = 70 + (int)(most > 0 ? most : 1) * (BAR + BAR_GAP) + 20;
	svg_begin(&g, WIDTH, h, title);
	if (c->nfamrank > 1) {
		snprintf(buf, sizeof(buf), "summed over %zu ranks",
		    c->nfamrank);
		text(&g, WIDTH - 10, 22, "end", buf, "#555555");
	}
	hbars(&g, 10, 50, WIDTH / 2 - 10, "self CPU time", cname, cv, nc,
	    palette[0]);
	if (ng > 0)
		hbars(&g, WIDTH / 2, 50, WIDTH / 2 - 10, "GPU time", gname,
		    gv, ng, palette[2]);
	else
		text(&g, WIDTH / 2, 50, "start", "no GPU time", "#555555");
	for (i = 0; i < nc; i++)
		free(cname[i]);
	for (i = 0; i < ng; i++)
		free(gname[i]);
	emit(w, &g, "families", title, "Operator families");
}

/* The power of ten at or below v > 0. */
static double
decade_below(double v)
{
	return pow(10, floor(log10(v) + 1e-9));
}

/*
 * The roofline: each costed shape at its FLOPs per byte and achieved
 * TFLOPS, on log scales, under the GPU's roof, min(peak, intensity x
 * bandwidth), where the peaks are known.
 */
static void
draw_roofline(struct jw *w, struct charts *c)
{
	static const char *const title = "Roofline: costed operators";
	static const char *const kind[2] = { "compute-bound", "memory-bound" };
	static const char *const kcolor[2] = { "#4c72b0", "#dd8452" };
	struct plot p = { 90, 60, WIDTH - 130, 380, 0, 0, 0, 0 };
	struct svg g;
	char buf[160];
	double lx0, lx1, ly0, ly1, v, x, y, r, ridge;
	int roof;
	size_t i;

	if (c->nshape == 0)
		return;
	roof = isfinite(c->peak_tflops) && c->peak_tflops > 0 &&
	    isfinite(c->peak_tbps) && c->peak_tbps > 0;
	lx0 = 0.1, lx1 = 1000, ly0 = 1e-3, ly1 = roof ? c->peak_tflops : 1;
	for (i = 0; i < c->nshape; i++) {
		lx0 = fmin(lx0, c->shape[i].intensity);
		lx1 = fmax(lx1, c->shape[i].intensity);
		ly0 = fmin(ly0, c->shape[i].tflops);
		ly1 = fmax(ly1, c->shape[i].tflops);
	}
	/* Whole decades, bounded: a log axis of at most 12 of them. */
	p.xmin = log10(decade_below(lx0));
	p.xmax = log10(decade_below(lx1) * 10);
	p.ymin = log10(decade_below(ly0));
	p.ymax = log10(decade_below(ly1) * 10);
	p.xmin = fmax(p.xmin, p.xmax - 12);
	p.ymin = fmax(p.ymin, p.ymax - 12);
	svg_begin(&g, WIDTH, 520, title);
	snprintf(buf, sizeof(buf), "on %s", c->gpuname != NULL ? c->gpuname :
	    "an unknown GPU");
	text(&g, WIDTH - 10, 22, "end", buf, "#555555");
	sb_printf(&g.b, "<rect x=\"%.1f\" y=\"%.1f\" width=\"%.1f\""
	    " height=\"%.1f\" fill=\"none\" stroke=\"#888888\"/>\n",
	    p.x0, p.y0, p.w, p.h);
	for (v = p.ymin; v <= p.ymax + 1e-9; v++) {
		sb_printf(&g.b, "<line x1=\"%.1f\" y1=\"%.1f\" x2=\"%.1f\""
		    " y2=\"%.1f\" stroke=\"#e5e5e5\"/>\n", p.x0, py(&p, v),
		    p.x0 + p.w, py(&p, v));
		snprintf(buf, sizeof(buf), "%g", pow(10, v));
		text(&g, p.x0 - 6, py(&p, v) + 4, "end", buf, NULL);
	}
	for (v = p.xmin; v <= p.xmax + 1e-9; v++) {
		sb_printf(&g.b, "<line x1=\"%.1f\" y1=\"%.1f\" x2=\"%.1f\""
		    " y2=\"%.1f\" stroke=\"#e5e5e5\"/>\n", px(&p, v), p.y0,
		    px(&p, v), p.y0 + p.h);
		snprintf(buf, sizeof(buf), "%g", pow(10, v));
		text(&g, px(&p, v), p.y0 + p.h + 17, "middle", buf, NULL);
	}
	text(&g, p.x0 + p.w / 2, p.y0 + p.h + 34, "middle",
	    "FLOPs per byte", NULL);
	sb_printf(&g.b, "<text x=\"0\" y=\"0\" text-anchor=\"middle\""
	    " transform=\"translate(%.1f %.1f) rotate(-90)\">TFLOPS</text>\n",
	    p.x0 - 60, p.y0 + p.h / 2);
	if (roof) {
		/* Bandwidth up to the ridge, then the peak. */
		ridge = c->peak_tflops / c->peak_tbps;
		x = fmax(p.xmin, log10(ridge) - (p.ymax - p.ymin));
		sb_printf(&g.b, "<polyline fill=\"none\" stroke=\"#c44e52\""
		    " stroke-width=\"2\" points=\"%.1f,%.1f %.1f,%.1f"
		    " %.1f,%.1f\"/>\n", px(&p, x),
		    py(&p, fmax(p.ymin, x + log10(c->peak_tbps))),
		    px(&p, log10(ridge)), py(&p, log10(c->peak_tflops)),
		    px(&p, p.xmax), py(&p, log10(c->peak_tflops)));
		snprintf(buf, sizeof(buf), "peak %g TFLOPS, %g TB/s",
		    c->peak_tflops, c->peak_tbps);
		text(&g, p.x0 + p.w - 4, py(&p, log10(c->peak_tflops)) - 6,
		    "end", buf, "#c44e52");
	}
	/* Area by GPU time: the shapes that cost most stand out. */
	for (i = 0; i < c->nshape; i++) {
		const struct shape *sh = &c->shape[i];

		x = px(&p, fmax(p.xmin, fmin(p.xmax, log10(sh->intensity))));
		y = py(&p, fmax(p.ymin, fmin(p.ymax, log10(sh->tflops))));
		r = 3 + 9 * sqrt(sh->gpu_us / fmax(c->shape[0].gpu_us, 1e-9));
		sb_printf(&g.b, "<circle cx=\"%.1f\" cy=\"%.1f\" r=\"%.1f\""
		    " fill=\"%s\" fill-opacity=\"0.6\"><title>", x, y,
		    fmin(r, 12), kcolor[sh->memory]);
		xml_text(&g.b, sh->name, LABEL_MAX);
		sb_printf(&g.b, ": %.3g TFLOPS at %.3g FLOPs/byte</title>"
		    "</circle>\n", sh->tflops, sh->intensity);
		if (i < 5)
			text(&g, x + 8, y - 6, "start", sh->name, "#333333");
	}
	legend(&g, p.x0, 500, kind, kcolor, 2);
	emit(w, &g, "roofline", title, "Compute efficiency");
}
