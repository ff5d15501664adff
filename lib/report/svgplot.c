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
#include "report/svgplot.h"

#define MAX_TICKS	20	/* on an axis, however the numbers round */

const char *const svg_palette[] = {
	"#4c72b0", "#dd8452", "#55a868", "#c44e52", "#8172b3",
	"#937860", "#da8bc3", "#8c8c8c", "#ccb974", "#64b5cd"
};


static double	legend_width(const char *);
static double	nice_step(double);
static double	byte_step(double);
static int	decimals(double, int);

/*
 * Writes the chart to dir/name.svg, published whole so that a reader never
 * sees half a chart, and says so on stdout.  The chart waits for a stop
 * signal until it is whole: whoever ran this (analyze-profile after
 * SIGINT) cleans up only the charts' own names.
 */
void
svg_emit(struct jw *w, struct svg *g, const char *dir, const char *name,
    const char *title, const char *section)
{
	char path[4096];
	int n;

	sb_puts(&g->b, "</svg>\n");
	n = snprintf(path, sizeof(path), "%s/%s.svg", dir, name);
	if (n < 0 || (size_t)n >= sizeof(path))
		die("%s: directory name is too long", dir);
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

void
svg_begin(struct svg *g, int w, int h, const char *title)
{
	memset(g, 0, sizeof(*g));
	sb_printf(&g->b, "<?xml version=\"1.0\" encoding=\"UTF-8\"?>\n"
	    "<svg xmlns=\"http://www.w3.org/2000/svg\" width=\"%d\""
	    " height=\"%d\" viewBox=\"0 0 %d %d\" font-family=\"sans-serif\""
	    " font-size=\"%d\">\n<title>", w, h, w, h, SVG_FONT);
	xml_text(&g->b, title, SVG_LABEL_MAX * 3);
	sb_puts(&g->b, "</title>\n<rect width=\"100%\" height=\"100%\""
	    " fill=\"#ffffff\"/>\n");
	svg_textn(g, 10, 22, "start\" font-size=\"15\" font-weight=\"bold",
	    title, NULL, SVG_LABEL_MAX * 3);
}

/*
 * A text at x, y; anchor is the text-anchor value (our own literal, which
 * may carry further attributes); the text is data and escaped.  fill NULL
 * is black.
 */
void
svg_text(struct svg *g, double x, double y, const char *anchor, const char *s,
    const char *fill)
{
	svg_textn(g, x, y, anchor, s, fill, SVG_LABEL_MAX);
}

/* svg_text() with at most max characters of s. */
void
svg_textn(struct svg *g, double x, double y, const char *anchor, const char *s,
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

/* The width a legend entry takes: its swatch and its name, cut short. */
static double
legend_width(const char *name)
{
	size_t len = strlen(name);

	return 24 + 7.0 *
	    (double)(len < SVG_LABEL_MAX ? len : SVG_LABEL_MAX + 1);
}

/* Swatches and names in rows from x, y; returns nothing, uses 18 px a row. */
void
svg_legend(struct svg *g, double x, double y, const char *const *name,
    const char *const *color, size_t n)
{
	double cx = x, wd;
	size_t i;

	for (i = 0; i < n; i++) {
		wd = legend_width(name[i]);
		if (cx > x && cx + wd > SVG_WIDTH - 10) {
			cx = x;
			y += 18;
		}
		sb_printf(&g->b, "<rect x=\"%.1f\" y=\"%.1f\" width=\"12\""
		    " height=\"12\" fill=\"%s\"/>\n", cx, y - 10, color[i]);
		svg_text(g, cx + 16, y, "start", name[i], NULL);
		cx += wd;
	}
}

/* The rows svg_legend() will take for n names from x. */
int
svg_legend_rows(double x, const char *const *name, size_t n)
{
	double cx = x, wd;
	size_t i;
	int rows = n > 0;

	for (i = 0; i < n; i++) {
		wd = legend_width(name[i]);
		if (cx > x && cx + wd > SVG_WIDTH - 10) {
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

/* nice_step() in the binary unit that svg_fmt_bytes() will show. */
static double
byte_step(double range)
{
	double d = 1;

	while (d < 0x1p40 && range >= d * 1024)
		d *= 1024;
	return nice_step(range / d) * d;
}

double
svg_px(const struct plot *p, double x)
{
	if (p->xmax <= p->xmin)
		return p->x0 + p->w / 2;
	return p->x0 + (x - p->xmin) / (p->xmax - p->xmin) * p->w;
}

double
svg_py(const struct plot *p, double y)
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
void
svg_fmt_bytes(char *buf, size_t size, double v, double scale)
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
void
svg_fmt_time(char *buf, size_t size, double us, double scale)
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
void
svg_axes(struct svg *g, const struct plot *p, int xtime, int ybytes,
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
		    " y2=\"%.1f\" stroke=\"#e5e5e5\"/>\n", p->x0, svg_py(p, v),
		    p->x0 + p->w, svg_py(p, v));
		if (ybytes)
			svg_fmt_bytes(buf, sizeof(buf), v, p->ymax);
		else
			svg_fmt_time(buf, sizeof(buf), v, p->ymax);
		svg_text(g, p->x0 - 6, svg_py(p, v) + 4, "end", buf, NULL);
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
			    svg_px(p, v), p->y0 + p->h, svg_px(p, v),
			    p->y0 + p->h + 4);
			if (xtime)
				svg_fmt_time(buf, sizeof(buf), v, p->xmax -
				    p->xmin);
			else
				snprintf(buf, sizeof(buf), "%.0f", v);
			svg_text(g, svg_px(p, v), p->y0 + p->h + 17, "middle",
			    buf, NULL);
		}
	}
	if (xtitle != NULL)
		svg_text(g, p->x0 + p->w / 2, p->y0 + p->h + 34, "middle",
		    xtitle, NULL);
	if (ytitle != NULL) {
		sb_printf(&g->b, "<text x=\"0\" y=\"0\" text-anchor=\"middle\""
		    " transform=\"translate(%.1f %.1f) rotate(-90)\">",
		    p->x0 - 70, p->y0 + p->h / 2);
		xml_text(&g->b, ytitle, SVG_LABEL_MAX);
		sb_puts(&g->b, "</text>\n");
	}
}

/*
 * Horizontal bars of times in a panel at x, y, wd px wide: name and value
 * per bar, bar hi (or none for -1) in red.
 */
void
svg_hbars(struct svg *g, double x, double y, double wd, const char *ptitle,
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
	svg_text(g, x, y, "start\" font-weight=\"bold", ptitle, NULL);
	for (i = 0; i < n; i++) {
		by = y + 12 + (double)i * (SVG_BAR + SVG_BAR_GAP);
		svg_text(g, p.x0 - 6, by + SVG_BAR - 5, "end", name[i], NULL);
		sb_printf(&g->b, "<rect x=\"%.1f\" y=\"%.1f\" width=\"%.1f\""
		    " height=\"%d\" fill=\"%s\"/>\n", p.x0, by,
		    svg_px(&p, v[i] > 0 ? v[i] : 0) - p.x0, SVG_BAR,
		    color == NULL && i == hi ? "#c44e52" : color != NULL ?
		    color : svg_palette[0]);
		svg_fmt_time(buf, sizeof(buf), v[i], max);
		svg_text(g, svg_px(&p, v[i] > 0 ? v[i] : 0) + 4,
		    by + SVG_BAR - 5, "start", buf, NULL);
	}
}
