#include <inttypes.h>
#include <math.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "base/err.h"
#include "base/strbuf.h"
#include "base/strmap.h"
#include "base/xalloc.h"
#include "io/json.h"
#include "io/ndjson.h"
#include "io/publish.h"
#include "io/xmltext.h"
#include "report/charts.h"
#include "report/svgplot.h"

/* Block states as the legend names and colours them. */
static const char *const state_name[3] = {
	"allocated", "pending free", "inactive"
};
static const char *const state_color[3] = {
	"#4c72b0", "#dd8452", "#d9d9d9"
};


/* A rect of a segment's bar not yet written: the next may extend it. */
struct pend {
	int	state;
	double	x, w;
};

/* The directory charts_draw() writes into, for emit(). */
static const char *chartdir;

static void	emit(struct jw *, struct svg *, const char *, const char *,
		    const char *);
static void	draw_memory(struct jw *, struct tlset *, const char *,
		    const char *, const char *);
static void	draw_panel(struct svg *, const struct timeline *, double,
		    size_t);
static void	flush_rect(struct svg *, struct pend *, double, double);
static void	add_rect(struct svg *, struct pend *, int, double, double,
		    double, double);
static void	draw_segments(struct jw *, struct charts *);
static int	gpu_cmp(const void *, const void *);
static void	bar_label(char *, size_t, int64_t, int64_t);
static void	mark_slowest(char *, size_t);
static void	draw_gpu(struct jw *, struct charts *);
static void	draw_shares(struct jw *, struct barset *, const char *,
		    const char *, const char *, const char *);
static int	ser_cmp(const void *, const void *);
static void	draw_steps(struct jw *, struct charts *);
static int	famv_cmp(const void *, const void *);
static size_t	top_families(struct charts *, int, char **, double *);
static void	draw_families(struct jw *, struct charts *);
static double	decade_below(double);
static void	draw_roofline(struct jw *, struct charts *);

void
charts_draw(struct charts *c, struct jw *w, const char *dir)
{
	chartdir = dir;
	draw_memory(w, &c->mem, "memory", "Memory over time (snapshot)",
	    "Allocator churn");
	draw_memory(w, &c->memtr, "memory-trace",
	    "Memory over time (trace)", "Resource summary");
	draw_segments(w, c);
	draw_shares(w, &c->ledger, "ledger", "Where the time goes, per window",
	    "Where the time goes",
	    "share of the window (its wall time after the bar)");
	/* Of host work alone the ledger says all (report.jq's rule too). */
	if (c->critical_gpu || c->critical.npart > 1 ||
	    (c->critical.npart == 1 &&
	    strcmp(c->critical.part[0], "cpu_bound") != 0))
		draw_shares(w, &c->critical, "critical-path",
		    "The critical path by bound class, per window",
		    "Critical path",
		    "share of the critical path (its length after the bar)");
	draw_gpu(w, c);
	draw_steps(w, c);
	draw_families(w, c);
	draw_roofline(w, c);
	chartdir = NULL;
}

static void
emit(struct jw *w, struct svg *g, const char *name, const char *title,
    const char *section)
{
	svg_emit(w, g, chartdir, name, title, section);
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
				charts_timeline_free(set->tl[i]);
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
		k = (size_t)svg_legend_rows(90, (const char *const *)t->site,
		    t->nsite);
		if (k > rows)
			rows = k;
	}
	h = 50 + (int)set->n * (PANEL_H + PANEL_GAP + (int)rows * 18) + 20;
	svg_begin(&g, SVG_WIDTH, h, title);
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
	svg_legend(&g, 90, h - 16, lname, lcolor, n);
	if (set->dropped > 0) {
		snprintf(note, sizeof(note), "%" PRIu64 " more timelines"
		    " not drawn", set->dropped);
		svg_text(&g, SVG_WIDTH - 10, 22, "end", note, NULL);
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
	p.w = SVG_WIDTH - 110;
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
	svg_text(g, p.x0, y - 8, "start", t->label, NULL);
	svg_axes(g, &p, t->timed, 1, t->timed ? "time since the first entry" :
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
		    " points=\"%.1f,%.1f", svg_palette[k % SVG_NPALETTE],
		    svg_px(&p, t->x[0] - x0), svg_py(&p, 0));
		/* Steps: a value holds until the next bucket's. */
		for (b = 0; b < nb; b++) {
			if (b > 0)
				sb_printf(&g->b, " %.1f,%.1f",
				    svg_px(&p, t->x[b * t->n / nb] - x0),
				    svg_py(&p,
				    cum[(b - 1) * (MAX_SITES + 1) + k]));
			sb_printf(&g->b, " %.1f,%.1f",
			    svg_px(&p, t->x[b * t->n / nb] - x0),
			    svg_py(&p, cum[b * (MAX_SITES + 1) + k]));
		}
		/* The last value holds to where the last entry ends. */
		sb_printf(&g->b, " %.1f,%.1f %.1f,%.1f\"/>\n",
		    svg_px(&p, t->x_last - x0),
		    svg_py(&p, cum[(nb - 1) * (MAX_SITES + 1) + k]),
		    svg_px(&p, t->x_last - x0), svg_py(&p, 0));
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
				    svg_px(&p, t->x[from] - x0),
				    svg_py(&p, last));
			sb_printf(&g->b, any ? " %.1f,%.1f" : "%.1f,%.1f",
			    svg_px(&p, t->x[from] - x0), svg_py(&p, v));
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
		    svg_px(&p, t->mark[k].x - x0), p.y0,
		    svg_px(&p, t->mark[k].x - x0), p.y0 + p.h,
		    t->mark[k].oom ? "#d62728" : "#ff9f1c",
		    t->mark[k].oom ? "" : " stroke-dasharray=\"4 3\"");
	if (t->has_peak) {
		svg_fmt_bytes(val, sizeof(val), t->peak_bytes, t->peak_bytes);
		snprintf(buf, sizeof(buf), t->at_least ? "peak: at least %s"
		    " (partial window)" : "peak: %s", val);
		sb_printf(&g->b, "<circle cx=\"%.1f\" cy=\"%.1f\" r=\"4\""
		    " fill=\"none\" stroke=\"#d62728\" stroke-width=\"2\"/>\n",
		    svg_px(&p, t->peak_x - x0), svg_py(&p, t->peak_bytes));
		svg_text(g, p.x0 + p.w, y - 8, "end", buf, "#d62728");
	}
	for (k = 0; k < t->nsite; k++) {
		lname[k] = t->site[k];
		lcolor[k] = svg_palette[k % SVG_NPALETTE];
	}
	if (t->nsite == 0) {
		lname[0] = "allocated";
		lcolor[0] = svg_palette[0];
	}
	svg_legend(g, p.x0, y + p.h + 52, lname, lcolor,
	    t->nsite > 0 ? t->nsite : 1);
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
	double x0 = 160, wmax = SVG_WIDTH - 180, y, pos, x, acc[3], accx, wd;
	size_t i, k;
	int h, s, devs = 0;
	char buf[96], val[32];

	if (c->nseg == 0)
		return;
	xqsort(c->seg, c->nseg, sizeof(*c->seg), charts_seglay_cmp);
	for (i = 1; i < c->nseg; i++)
		devs |= c->seg[i].device != c->seg[0].device;
	h = 60 + (int)c->nseg * (SEG_BAR + SEG_GAP) + 40;
	svg_begin(&g, SVG_WIDTH, h, title);
	svg_textn(&g, x0, 42, "start",
	    "bar length: the segment's size, relative to the largest",
	    "#555555", SVG_LABEL_MAX * 3);
	for (i = 0; i < c->nseg; i++) {
		l = &c->seg[i];
		y = 56 + (double)i * (SEG_BAR + SEG_GAP);
		svg_fmt_bytes(val, sizeof(val), l->total, l->total);
		if (devs)
			snprintf(buf, sizeof(buf), "dev %" PRId64 ": %s",
			    l->device, val);
		else
			snprintf(buf, sizeof(buf), "%s", val);
		svg_text(&g, x0 - 8, y + SEG_BAR - 4, "end", buf, NULL);
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
	svg_legend(&g, x0, h - 16, state_name, state_color, 3);
	if (c->segs_dropped > 0) {
		snprintf(buf, sizeof(buf), "%" PRIu64 " smaller segments not"
		    " drawn", c->segs_dropped);
		svg_text(&g, SVG_WIDTH - 10, 22, "end", buf, NULL);
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
	p.w = SVG_WIDTH - 200;
	p.h = (double)c->ngpu * (SVG_BAR + SVG_BAR_GAP) + SVG_BAR_GAP;
	p.xmax = 1;
	h = (int)(p.y0 + p.h) + 80;
	svg_begin(&g, SVG_WIDTH, h, title);
	sb_printf(&g.b, "<rect x=\"%.1f\" y=\"%.1f\" width=\"%.1f\""
	    " height=\"%.1f\" fill=\"none\" stroke=\"#888888\"/>\n",
	    p.x0, p.y0, p.w, p.h);
	for (k = 0; k <= 5; k++) {
		x = k / 5.0;
		sb_printf(&g.b, "<line x1=\"%.1f\" y1=\"%.1f\" x2=\"%.1f\""
		    " y2=\"%.1f\" stroke=\"#e5e5e5\"/>\n", svg_px(&p, x), p.y0,
		    svg_px(&p, x), p.y0 + p.h);
		snprintf(buf, sizeof(buf), "%d %%", k * 20);
		svg_text(&g, svg_px(&p, x), p.y0 + p.h + 17, "middle", buf,
		    NULL);
	}
	svg_textn(&g, p.x0 + p.w / 2, p.y0 + p.h + 34, "middle", c->ngpu > 1 ?
	    "share of the rank's GPU window (its length after the bar)" :
	    "share of the GPU window (its length after the bar)", NULL,
	    SVG_LABEL_MAX * 3);
	for (i = 0; i < c->ngpu; i++) {
		y = p.y0 + SVG_BAR_GAP + (double)i * (SVG_BAR + SVG_BAR_GAP);
		bar_label(buf, sizeof(buf), c->gpu[i].rank, c->gpu[i].device);
		svg_text(&g, p.x0 - 8, y + SVG_BAR - 5, "end", buf, NULL);
		for (win = 0, k = 0; k < 4; k++)
			win += c->gpu[i].v[k];
		for (x = 0, k = 0; win > 0 && k < 4; k++) {
			if (c->gpu[i].v[k] > 0)
				sb_printf(&g.b, "<rect x=\"%.1f\" y=\"%.1f\""
				    " width=\"%.1f\" height=\"%d\""
				    " fill=\"%s\"/>\n", svg_px(&p, x), y,
				    svg_px(&p, x + c->gpu[i].v[k] / win) -
				    svg_px(&p, x), SVG_BAR, color[k]);
			x += c->gpu[i].v[k] / win;
		}
		svg_fmt_time(buf, sizeof(buf), win, win);
		svg_text(&g, p.x0 + p.w + 6, y + SVG_BAR - 5, "start", buf,
		    NULL);
	}
	svg_legend(&g, p.x0, h - 16, part, color, 4);
	if (c->gpu_dropped > 0) {
		snprintf(buf, sizeof(buf), "%" PRIu64 " more ranks not drawn",
		    c->gpu_dropped);
		svg_text(&g, SVG_WIDTH - 10, 22, "end", buf, NULL);
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
 * One bar per window, each part a share of the window, whose length ends
 * the bar: op-rank's time ledger (its slices), crit-path's critical path
 * (its bound classes).  The SLICE_COLORS parts with the most time get a
 * colour each; the rest share one grey.
 */
static void
draw_shares(struct jw *w, struct barset *c, const char *name,
    const char *title, const char *section, const char *axis)
{
	struct slicev sv[MAX_SLICES];
	size_t lw;
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
	for (k = 0; k < c->npart; k++) {
		sv[k] = (struct slicev){ k, 0 };
		for (i = 0; i < c->nwin; i++)
			sv[k].v += c->win[i].t[k];
	}
	xqsort(sv, c->npart, sizeof(*sv), slicev_cmp);
	ncol = c->npart <= SLICE_COLORS + 1 ? c->npart : SLICE_COLORS;
	for (k = 0; k < c->npart; k++)
		colour[sv[k].i] = k < ncol ? (int)k : -1;
	/* "data loading", not "data_loading": the legend is for people. */
	for (nleg = 0; nleg < ncol; nleg++) {
		lname[nleg] = label[nleg] = xstrdup(c->part[sv[nleg].i]);
		for (u = label[nleg]; (u = strchr(u, '_')) != NULL; u++)
			*u = ' ';
		lcolor[nleg] = svg_palette[nleg % SVG_NPALETTE];
	}
	if (ncol < c->npart) {
		lname[nleg] = "other";
		lcolor[nleg++] = "#d9d9d9";
	}
	/* Room for the longest label, as far as a third of the width. */
	for (lw = 0, i = 0; i < c->nwin; i++)
		if (strlen(c->win[i].label) > lw)
			lw = strlen(c->win[i].label);
	memset(&p, 0, sizeof(p));
	p.x0 = fmin(fmax(150, 16 + 7 * (double)lw), SVG_WIDTH / 3);
	p.y0 = 50;
	p.w = SVG_WIDTH - p.x0 - 90;
	p.h = (double)c->nwin * (SVG_BAR + SVG_BAR_GAP) + SVG_BAR_GAP;
	p.xmax = 1;
	rows = svg_legend_rows(p.x0, lname, nleg);
	h = (int)(p.y0 + p.h) + 54 + rows * 18;
	svg_begin(&g, SVG_WIDTH, h, title);
	sb_printf(&g.b, "<rect x=\"%.1f\" y=\"%.1f\" width=\"%.1f\""
	    " height=\"%.1f\" fill=\"none\" stroke=\"#888888\"/>\n",
	    p.x0, p.y0, p.w, p.h);
	for (k = 0; k <= 5; k++) {
		x = (double)k / 5.0;
		snprintf(buf, sizeof(buf), "%d %%", (int)k * 20);
		svg_text(&g, svg_px(&p, x), p.y0 + p.h + 17, "middle", buf,
		    NULL);
	}
	svg_textn(&g, p.x0 + p.w / 2, p.y0 + p.h + 34, "middle", axis, NULL,
	    SVG_LABEL_MAX * 3);
	for (i = 0; i < c->nwin; i++) {
		const struct window *wn = &c->win[i];
		double other = 0;

		y = p.y0 + SVG_BAR_GAP + (double)i * (SVG_BAR + SVG_BAR_GAP);
		svg_text(&g, p.x0 - 8, y + SVG_BAR - 5, "end", wn->label,
		    NULL);
		x = 0;
		for (k = 0; wn->wall > 0 && k < c->npart; k++) {
			if (colour[sv[k].i] < 0) {
				other += wn->t[sv[k].i];
				continue;
			}
			share = wn->t[sv[k].i] / wn->wall;
			if (share > 0)
				sb_printf(&g.b, "<rect x=\"%.1f\" y=\"%.1f\""
				    " width=\"%.1f\" height=\"%d\""
				    " fill=\"%s\"/>\n", svg_px(&p, x), y,
				    svg_px(&p, x + share) - svg_px(&p, x),
				    SVG_BAR, svg_palette[colour[sv[k].i] %
				    (int)SVG_NPALETTE]);
			x += share;
		}
		if (other > 0 && wn->wall > 0)
			sb_printf(&g.b, "<rect x=\"%.1f\" y=\"%.1f\""
			    " width=\"%.1f\" height=\"%d\" fill=\"#d9d9d9\"/>\n",
			    svg_px(&p, x), y, svg_px(&p, x + other / wn->wall) -
			    svg_px(&p, x), SVG_BAR);
		svg_fmt_time(buf, sizeof(buf), wn->wall, wn->wall);
		svg_text(&g, p.x0 + p.w + 6, y + SVG_BAR - 5, "start", buf,
		    NULL);
	}
	svg_legend(&g, p.x0, h - 16 - (rows - 1) * 18, lname, lcolor, nleg);
	for (k = 0; k < ncol; k++)
		free(label[k]);
	if (c->dropped > 0) {
		snprintf(buf, sizeof(buf), "%" PRIu64 " more windows not drawn",
		    c->dropped);
		svg_text(&g, SVG_WIDTH - 10, 22, "end", buf, NULL);
	}
	emit(w, &g, name, title, section);
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
		h = 60 + (int)c->nsteps * (SVG_BAR + SVG_BAR_GAP) + 30;
		svg_begin(&g, SVG_WIDTH, h, title);
		svg_hbars(&g, 10, 48, SVG_WIDTH - 20,
		    "step time (the slowest in red)", name, v, c->nsteps, NULL);
		for (i = 0; i < c->nsteps; i++)
			free(name[i]);
	} else {
		memset(&p, 0, sizeof(p));
		p.x0 = 90;
		p.y0 = 50;
		p.w = SVG_WIDTH - 110;
		p.h = 260;
		/* With several ranks, the slowest on average is named. */
		for (i = 0, slow = 0, worst = -1; i < c->nsteps; i++) {
			for (j = 0, m = 0; j < c->steps[i].n; j++)
				m += c->steps[i].dur[j];
			if (c->nsteps > 1 &&
			    m / (double)c->steps[i].n > worst) {
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
			lcolor[i] = svg_palette[i % SVG_NPALETTE];
			for (j = 0; j < c->steps[i].n; j++)
				if (c->steps[i].dur[j] > p.ymax)
					p.ymax = c->steps[i].dur[j];
		}
		p.ymax = p.ymax > 0 ? p.ymax * 1.08 : 1;
		p.xmin = 1;
		p.xmax = (double)most;
		/* One rank's line needs no legend. */
		rows = c->nsteps > 1 ? svg_legend_rows(p.x0, lname, c->nsteps) :
		    0;
		h = (int)(p.y0 + p.h) + 50 + rows * 18;
		svg_begin(&g, SVG_WIDTH, h, title);
		svg_axes(&g, &p, 0, 0,
		    "step, in the order recorded (1 = first)", "step time");
		per = MAX_DRAW / c->nsteps;
		if (per > MAX_STEPS)
			per = MAX_STEPS;
		for (i = 0; i < c->nsteps; i++) {
			const struct stepser *s = &c->steps[i];

			nb = s->n < per ? s->n : per;
			sb_printf(&g.b, "<polyline fill=\"none\" stroke=\"%s\""
			    " stroke-width=\"%s\" points=\"",
			    svg_palette[i % SVG_NPALETTE],
			    worst >= 0 && i == slow ? "3" : "1.5");
			/* The longest step of each bucket: stragglers stay. */
			for (j = 0; j < nb; j++) {
				from = j * s->n / nb;
				to = (j + 1) * s->n / nb;
				for (m = 0, k = from; k < to; k++)
					if (s->dur[k] > m)
						m = s->dur[k];
				sb_printf(&g.b, j ? " %.1f,%.1f" : "%.1f,%.1f",
				    svg_px(&p, (double)from + 1),
				    svg_py(&p, m));
			}
			sb_puts(&g.b, "\"/>\n");
			/* Few steps: each one marked. */
			for (j = 0; nb == s->n && nb <= 60 && j < nb; j++)
				sb_printf(&g.b, "<circle cx=\"%.1f\""
				    " cy=\"%.1f\" r=\"3\" fill=\"%s\"/>\n",
				    svg_px(&p, (double)j + 1),
				    svg_py(&p, s->dur[j]),
				    svg_palette[i % SVG_NPALETTE]);
		}
		if (rows > 0)
			svg_legend(&g, p.x0, h - 14 - (rows - 1) * 18, lname,
			    lcolor, c->nsteps);
		for (i = 0; i < c->nsteps; i++)
			free(name[i]);
	}
	if (c->steps_dropped > 0) {
		snprintf(buf, sizeof(buf), "%" PRIu64 " steps of further"
		    " ranks not drawn", c->steps_dropped);
		svg_text(&g, SVG_WIDTH - 10, 22, "end", buf, NULL);
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
	h = 70 + (int)(most > 0 ? most : 1) * (SVG_BAR + SVG_BAR_GAP) + 20;
	svg_begin(&g, SVG_WIDTH, h, title);
	if (c->nfamrank > 1) {
		snprintf(buf, sizeof(buf), "summed over %zu ranks",
		    c->nfamrank);
		svg_text(&g, SVG_WIDTH - 10, 22, "end", buf, "#555555");
	}
	svg_hbars(&g, 10, 50, SVG_WIDTH / 2 - 10, "self CPU time", cname, cv,
	    nc, svg_palette[0]);
	if (ng > 0)
		svg_hbars(&g, SVG_WIDTH / 2, 50, SVG_WIDTH / 2 - 10, "GPU time",
		    gname, gv, ng, svg_palette[2]);
	else
		svg_text(&g, SVG_WIDTH / 2, 50, "start", "no GPU time",
		    "#555555");
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
	struct plot p = { 90, 60, SVG_WIDTH - 130, 380, 0, 0, 0, 0 };
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
	svg_begin(&g, SVG_WIDTH, 520, title);
	snprintf(buf, sizeof(buf), "on %s", c->gpuname != NULL ? c->gpuname :
	    "an unknown GPU");
	svg_text(&g, SVG_WIDTH - 10, 22, "end", buf, "#555555");
	sb_printf(&g.b, "<rect x=\"%.1f\" y=\"%.1f\" width=\"%.1f\""
	    " height=\"%.1f\" fill=\"none\" stroke=\"#888888\"/>\n",
	    p.x0, p.y0, p.w, p.h);
	for (v = p.ymin; v <= p.ymax + 1e-9; v++) {
		sb_printf(&g.b, "<line x1=\"%.1f\" y1=\"%.1f\" x2=\"%.1f\""
		    " y2=\"%.1f\" stroke=\"#e5e5e5\"/>\n", p.x0, svg_py(&p, v),
		    p.x0 + p.w, svg_py(&p, v));
		snprintf(buf, sizeof(buf), "%g", pow(10, v));
		svg_text(&g, p.x0 - 6, svg_py(&p, v) + 4, "end", buf, NULL);
	}
	for (v = p.xmin; v <= p.xmax + 1e-9; v++) {
		sb_printf(&g.b, "<line x1=\"%.1f\" y1=\"%.1f\" x2=\"%.1f\""
		    " y2=\"%.1f\" stroke=\"#e5e5e5\"/>\n", svg_px(&p, v), p.y0,
		    svg_px(&p, v), p.y0 + p.h);
		snprintf(buf, sizeof(buf), "%g", pow(10, v));
		svg_text(&g, svg_px(&p, v), p.y0 + p.h + 17, "middle", buf,
		    NULL);
	}
	svg_text(&g, p.x0 + p.w / 2, p.y0 + p.h + 34, "middle",
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
		    " %.1f,%.1f\"/>\n", svg_px(&p, x),
		    svg_py(&p, fmax(p.ymin, x + log10(c->peak_tbps))),
		    svg_px(&p, log10(ridge)), svg_py(&p, log10(c->peak_tflops)),
		    svg_px(&p, p.xmax), svg_py(&p, log10(c->peak_tflops)));
		snprintf(buf, sizeof(buf), "peak %g TFLOPS, %g TB/s",
		    c->peak_tflops, c->peak_tbps);
		svg_text(&g, p.x0 + p.w - 4,
		    svg_py(&p, log10(c->peak_tflops)) - 6, "end", buf,
		    "#c44e52");
	}
	/* Area by GPU time: the shapes that cost most stand out. */
	for (i = 0; i < c->nshape; i++) {
		const struct shape *sh = &c->shape[i];

		x = svg_px(&p,
		    fmax(p.xmin, fmin(p.xmax, log10(sh->intensity))));
		y = svg_py(&p, fmax(p.ymin, fmin(p.ymax, log10(sh->tflops))));
		r = 3 + 9 * sqrt(sh->gpu_us / fmax(c->shape[0].gpu_us, 1e-9));
		sb_printf(&g.b, "<circle cx=\"%.1f\" cy=\"%.1f\" r=\"%.1f\""
		    " fill=\"%s\" fill-opacity=\"0.6\"><title>", x, y,
		    fmin(r, 12), kcolor[sh->memory]);
		xml_text(&g.b, sh->name, SVG_LABEL_MAX);
		sb_printf(&g.b, ": %.3g TFLOPS at %.3g FLOPs/byte</title>"
		    "</circle>\n", sh->tflops, sh->intensity);
		if (i < 5)
			svg_text(&g, x + 8, y - 6, "start", sh->name,
			    "#333333");
	}
	svg_legend(&g, p.x0, 500, kind, kcolor, 2);
	emit(w, &g, "roofline", title, "Compute efficiency");
}
