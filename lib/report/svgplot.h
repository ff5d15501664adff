/*
 * svgplot: the drawing of report-svg's charts: a chart's text, its axes
 * with ticks that read as round numbers of bytes or time, legends, bars,
 * and the publishing of the whole chart.  Every name drawn is escaped for
 * SVG and cut to SVG_LABEL_MAX characters.
 *
 * Ownership: a struct svg owns its text until svg_emit() publishes and
 * frees it; strings are borrowed for the call.
 */
#ifndef SVGPLOT_H
#define SVGPLOT_H

#include <stddef.h>

#include "base/strbuf.h"

struct jw;

#define SVG_LABEL_MAX	40	/* characters of a name in a label */
#define SVG_WIDTH	900
#define SVG_FONT	12	/* px */
#define SVG_BAR		18	/* a bar's height, px */
#define SVG_BAR_GAP	8	/* between bars */

/* A chart being drawn. */
struct svg {
	struct strbuf	 b;
};

/* A plot area and the ranges it maps. */
struct plot {
	double	x0, y0, w, h;		/* px */
	double	xmin, xmax, ymin, ymax;
};

/* The series colours, in order. */
extern const char *const svg_palette[];
#define SVG_NPALETTE	10

/*
 * Writes the chart to dir/name.svg, published whole, and says so on w as
 * a "chart" record with its title and the report section it belongs to.
 */
void	svg_emit(struct jw *, struct svg *, const char *dir,
	    const char *name, const char *title, const char *section);
void	svg_begin(struct svg *, int, int, const char *);
void	svg_text(struct svg *, double, double, const char *, const char *,
	    const char *);
void	svg_textn(struct svg *, double, double, const char *,
	    const char *, const char *, size_t);
void	svg_legend(struct svg *, double, double, const char *const *,
	    const char *const *, size_t);
int	svg_legend_rows(double, const char *const *, size_t);
double	svg_px(const struct plot *, double);
double	svg_py(const struct plot *, double);
void	svg_fmt_bytes(char *, size_t, double, double);
void	svg_fmt_time(char *, size_t, double, double);
void	svg_axes(struct svg *, const struct plot *, int, int,
	    const char *, const char *);
void	svg_hbars(struct svg *, double, double, double, const char *,
	    char **, const double *, size_t, const char *);

#endif
