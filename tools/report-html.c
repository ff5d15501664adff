/*
 * report-html: turn the Markdown that report-md and report-diff write into
 * one self-contained HTML file, with the SVG charts it names inline.
 *
 * Only the Markdown those tools emit is understood: headings, pipe tables
 * with alignment, paragraphs, bullet and numbered lists, fenced code,
 * **strong**, _emphasis_, `code`, links and images.  Everything else is
 * text, escaped: names in the report are data, never markup.  The page
 * needs nothing but itself: the style is inline, there is no script, and
 * a Content-Security-Policy forbids every fetch, so a chart that slipped
 * past the checks of lib/report/svgsafe still could not reach the network.
 */
#include <sys/stat.h>

#include <ctype.h>
#include <errno.h>
#include <fcntl.h>
#include <getopt.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "base/err.h"
#include "base/strbuf.h"
#include "base/usage.h"
#include "base/xalloc.h"
#include "io/gzin.h"
#include "io/json.h"
#include "report/svgsafe.h"

/* A chart above this is not one of ours (report-svg bounds its output). */
#define SVG_MAX		(2 * 1024 * 1024)
/* Inline markup nests at most strong in emphasis in a link. */
#define INLINE_DEPTH	4
/* What a backslash escapes, as in CommonMark. */
#define PUNCT		"!\"#$%&'()*+,-./:;<=>?@[\\]^_`{|}~"

struct line {
	const char	*s;
	size_t		 n;
	size_t		 no;		/* line number, from 1 */
};

/*
 * The page is written as it is converted, a block at a time, once its
 * head is known (the title is the first top heading), so that memory
 * follows the largest block, not the report: body holds what is not
 * written yet.
 */
struct doc {
	struct strbuf	 body;
	struct strbuf	 title;
	const char	*name;		/* input, for messages */
	const char	*dir;		/* where its charts are */
	int		 charts;	/* inlined so far, for id prefixes */
	int		 started;	/* the head is written */
};

static const char *cflag;

static void	usage(void);
static int	convert_file(struct doc *, const char *);
static void	check_text(const char *, const char *, size_t);
static void	convert(struct doc *, const struct line *, size_t);
static size_t	fence(struct doc *, const struct line *, size_t);
static size_t	table(struct doc *, const struct line *, size_t);
static size_t	list(struct doc *, const struct line *, size_t);
static size_t	paragraph(struct doc *, const struct line *, size_t);
static void	figure(struct doc *, const char *alt, size_t an,
		    const char *src, size_t sn, size_t lineno);
static struct gzin *open_chart(const char *, const char **);
static void	inline_md(struct strbuf *, const char *, size_t, int);
static size_t	inline_link(struct strbuf *, const char *, size_t, int);
static int	bracket(const char *, size_t, size_t *, size_t *, size_t *,
		    size_t *);
static int	safe_ref(const char *, size_t);
static int	is_svg_name(const char *, size_t);
static void	escape(struct strbuf *, const char *, size_t);
static int	is_blank(const struct line *);
static int	heading_level(const struct line *);
static int	is_fence(const struct line *);
static int	list_item(const struct line *, int *ordered, long *num);
static int	is_table_head(const struct line *, const struct line *);
static size_t	cells(const char *, size_t, struct line *, size_t);
static void	trim(const char **, size_t *);
static void	put_head(struct doc *);
static void	put_body(struct doc *);

static const char style[] =
	"@page{size:A4;margin:14mm 12mm}\n"
	"body{margin:0;color:#1b1b1b;background:#fff;"
	"font:14px/1.45 system-ui,-apple-system,\"Segoe UI\",sans-serif}\n"
	"main{max-width:64rem;margin:0 auto;padding:1rem 1.5rem 3rem}\n"
	"h1{font-size:1.7rem;margin:.6rem 0 1rem}\n"
	"h2{font-size:1.3rem;margin:2rem 0 .6rem;padding-bottom:.2rem;"
	"border-bottom:1px solid #ccc}\n"
	"h3{font-size:1.08rem;margin:1.4rem 0 .5rem}\n"
	".tw{overflow-x:auto}\n"
	"table{border-collapse:collapse;margin:.3rem 0 .8rem;font-size:13px;"
	"font-variant-numeric:tabular-nums}\n"
	"th,td{border:1px solid #d4d4d4;padding:.18rem .5rem;text-align:left;"
	"vertical-align:top}\n"
	"th{background:#f0f0f0}\n"
	"tbody tr:nth-child(even){background:#fafafa}\n"
	"th.r,td.r{text-align:right}\n"
	"th.c,td.c{text-align:center}\n"
	"code{font:12.5px ui-monospace,\"DejaVu Sans Mono\",monospace;"
	"background:#f3f3f3;padding:0 .2em;border-radius:3px}\n"
	"pre{background:#f3f3f3;padding:.6rem .8rem;overflow-x:auto}\n"
	"pre code{padding:0}\n"
	"figure{margin:.8rem 0 1.2rem}\n"
	"figure svg{display:block;max-width:100%;height:auto}\n"
	"@media print{\n"
	"body{font-size:9.5pt}\n"
	"main{max-width:none;padding:0}\n"
	".tw{overflow:visible}\n"
	"table{font-size:8pt}\n"
	"td,th{overflow-wrap:anywhere}\n"
	"pre{white-space:pre-wrap}\n"
	"table,figure,pre,li{break-inside:avoid}\n"
	"h1,h2,h3,h4{break-after:avoid}\n"
	"}\n";

static const struct optdoc options[] = {
	{ "-C dir", "look for the charts in dir" },
	OPTDOC_HELP,
	OPTDOC_END
};
static const struct usage use = {
	"[-C dir] [file ...]",
	"turn a Markdown report into one self-contained HTML page with its "
	    "charts",
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
	struct doc d;
	int ch, i, status = 0;

	setprogname(argv[0]);
	while ((ch = getopt_long(argc, argv, "C:h", longopts, NULL)) != -1) {
		switch (ch) {
		case 'C':
			cflag = optarg;
			break;
		case 'h':
			usage_help(&use);
		default:
			usage();
		}
	}
	argc -= optind;
	argv += optind;

	memset(&d, 0, sizeof(d));
	if (argc == 0)
		status |= convert_file(&d, NULL);
	for (i = 0; i < argc; i++)
		status |= convert_file(&d, argv[i]);
	/* No Markdown, no page: an empty report stays empty. */
	if (d.started || d.body.len > 0) {
		put_head(&d);
		put_body(&d);
		fputs("</main>\n</body>\n</html>\n", stdout);
	}
	sb_free(&d.body);
	sb_free(&d.title);
	return finish(status);
}

/*
 * Converts one Markdown file into d's body.  Returns 0, or 1 when it
 * could not be read (after a warning); malformed text is fatal.
 */
static int
convert_file(struct doc *d, const char *path)
{
	struct strbuf text = { 0 }, dir = { 0 };
	struct line *lines = NULL;
	struct gzin *in;
	const char *p, *end, *nl, *slash;
	size_t n = 0, cap = 0;
	ssize_t r;
	char buf[65536];

	if ((in = gzin_open(path)) == NULL) {
		warnmsg("%s:", path);
		return 1;
	}
	while ((r = gzin_read(in, buf, sizeof(buf))) > 0)
		sb_put(&text, buf, (size_t)r);
	if (r < 0)
		die("%s: %s", gzin_name(in), gzin_error(in));
	d->name = gzin_name(in);
	check_text(d->name, text.s, text.len);

	/* Charts live beside their Markdown unless -C says otherwise. */
	if (cflag != NULL)
		sb_puts(&dir, cflag);
	else if (path != NULL && strcmp(path, "-") != 0 &&
	    (slash = strrchr(path, '/')) != NULL)
		sb_put(&dir, path, (size_t)(slash - path) + 1);
	else
		sb_puts(&dir, ".");
	d->dir = dir.s;

	for (p = text.s, end = p + text.len; p != NULL && p < end; p = nl) {
		if (n == cap) {
			cap = cap ? cap * 2 : 256;
			lines = xreallocarray(lines, cap, sizeof(*lines));
		}
		lines[n].s = p;
		lines[n].no = n + 1;
		if ((nl = memchr(p, '\n', (size_t)(end - p))) != NULL) {
			lines[n].n = (size_t)(nl - p);
			nl++;
		} else
			lines[n].n = (size_t)(end - p);
		if (lines[n].n > 0 && lines[n].s[lines[n].n - 1] == '\r')
			lines[n].n--;
		n++;
	}
	convert(d, lines, n);
	free(lines);
	sb_free(&dir);
	sb_free(&text);
	d->dir = NULL;
	gzin_close(in);
	return 0;
}

/*
 * The text must be UTF-8 without NUL bytes: the page declares UTF-8, and
 * a browser would otherwise show replacement characters or cut the text.
 */
static void
check_text(const char *name, const char *s, size_t n)
{
	size_t bad, i, line = 1, bol = 0;

	if ((bad = svgsafe_bad_text(s, n)) == n)
		return;
	for (i = 0; i < bad; i++)
		if (s[i] == '\n') {
			line++;
			bol = i + 1;
		}
	die("%s:%zu:%zu: %s", name, line, bad - bol + 1,
	    s[bad] == '\0' ? "NUL byte in the text" : "invalid UTF-8");
}

/* The blocks of one input, in order. */
static void
convert(struct doc *d, const struct line *l, size_t n)
{
	size_t i = 0, lvl;
	const char *s;
	size_t sn;

	while (i < n) {
		if (is_blank(&l[i])) {
			i++;
		} else if (is_fence(&l[i])) {
			i += fence(d, l + i, n - i);
		} else if ((lvl = (size_t)heading_level(&l[i])) != 0) {
			s = l[i].s + lvl;
			sn = l[i].n - lvl;
			trim(&s, &sn);
			/* The page's title is its first top heading. */
			if (lvl == 1 && d->title.len == 0)
				escape(&d->title, s, sn);
			sb_printf(&d->body, "<h%zu>", lvl);
			inline_md(&d->body, s, sn, 0);
			sb_printf(&d->body, "</h%zu>\n", lvl);
			i++;
		} else if (i + 1 < n && is_table_head(&l[i], &l[i + 1])) {
			i += table(d, l + i, n - i);
		} else if (list_item(&l[i], NULL, NULL)) {
			i += list(d, l + i, n - i);
		} else
			i += paragraph(d, l + i, n - i);
		if (d->title.len > 0)
			put_head(d);
		if (d->started)
			put_body(d);
	}
}

/* A fenced code block, up to its closing fence or the end of the input. */
static size_t
fence(struct doc *d, const struct line *l, size_t n)
{
	const char *info = l[0].s + 3;
	size_t i, in = l[0].n - 3;

	trim(&info, &in);
	sb_puts(&d->body, "<pre><code");
	if (in > 0) {
		sb_puts(&d->body, " class=\"language-");
		escape(&d->body, info, in);
		sb_puts(&d->body, "\"");
	}
	sb_puts(&d->body, ">");
	for (i = 1; i < n && !is_fence(&l[i]); i++) {
		escape(&d->body, l[i].s, l[i].n);
		sb_puts(&d->body, "\n");
	}
	sb_puts(&d->body, "</code></pre>\n");
	return i < n ? i + 1 : i;
}

/* A pipe table: header, alignment row, then rows while lines start with |. */
static size_t
table(struct doc *d, const struct line *l, size_t n)
{
	static const char *const cls[] = { "", " class=\"r\"", " class=\"c\"" };
	struct line c[64];
	int align[64];
	size_t i, j, nc, ncols, k;
	const char *s;

	ncols = cells(l[1].s, l[1].n, c, 64);
	for (j = 0; j < ncols; j++) {
		s = c[j].s;
		k = c[j].n;
		if (k > 1 && s[0] == ':' && s[k - 1] == ':')
			align[j] = 2;
		else if (k > 0 && s[k - 1] == ':')
			align[j] = 1;
		else
			align[j] = 0;
	}
	sb_puts(&d->body, "<div class=\"tw\"><table>\n<thead>\n");
	for (i = 0; i < n; i++) {
		if (i == 1) {
			sb_puts(&d->body, "</thead>\n<tbody>\n");
			continue;
		}
		if (i > 1 && (l[i].n == 0 || l[i].s[0] != '|'))
			break;
		nc = cells(l[i].s, l[i].n, c, 64);
		sb_puts(&d->body, "<tr>");
		/* Short rows are padded and long ones cut, as GFM does. */
		for (j = 0; j < ncols; j++) {
			sb_printf(&d->body, "<%s%s>", i == 0 ? "th" : "td",
			    cls[align[j]]);
			if (j < nc)
				inline_md(&d->body, c[j].s, c[j].n, 0);
			sb_printf(&d->body, "</%s>", i == 0 ? "th" : "td");
		}
		sb_puts(&d->body, "</tr>\n");
	}
	sb_puts(&d->body, "</tbody>\n</table></div>\n");
	return i;
}

/*
 * A list: items of one kind, each a marker line and the indented lines
 * that continue it.
 */
static size_t
list(struct doc *d, const struct line *l, size_t n)
{
	size_t i = 0, k;
	long num;
	int ordered, o;
	const char *s;
	size_t sn;

	list_item(&l[0], &ordered, &num);
	if (!ordered)
		sb_puts(&d->body, "<ul>\n");
	else if (num != 1)
		sb_printf(&d->body, "<ol start=\"%ld\">\n", num);
	else
		sb_puts(&d->body, "<ol>\n");
	while (i < n && list_item(&l[i], &o, NULL) && o == ordered) {
		s = l[i].s;
		sn = l[i].n;
		while (sn > 0 && *s != ' ') {
			s++;
			sn--;
		}
		trim(&s, &sn);
		sb_puts(&d->body, "<li>");
		inline_md(&d->body, s, sn, 0);
		for (i++; i < n && l[i].n > 1 && l[i].s[0] == ' ' &&
		    !is_blank(&l[i]); i++) {
			s = l[i].s;
			k = l[i].n;
			trim(&s, &k);
			sb_puts(&d->body, "\n");
			inline_md(&d->body, s, k, 0);
		}
		sb_puts(&d->body, "</li>\n");
	}
	sb_puts(&d->body, ordered ? "</ol>\n" : "</ul>\n");
	return i;
}

/*
 * A paragraph runs to a blank line or the start of another block.  One
 * that is a lone image is a figure: the chart, inline.
 */
static size_t
paragraph(struct doc *d, const struct line *l, size_t n)
{
	size_t i, ts, tn, us, un;
	const char *s = l[0].s;
	size_t sn = l[0].n;

	for (i = 1; i < n; i++)
		if (is_blank(&l[i]) || is_fence(&l[i]) ||
		    heading_level(&l[i]) != 0 ||
		    list_item(&l[i], NULL, NULL) ||
		    (i + 1 < n && is_table_head(&l[i], &l[i + 1])))
			break;
	trim(&s, &sn);
	if (i == 1 && sn > 1 && s[0] == '!' &&
	    bracket(s + 1, sn - 1, &ts, &tn, &us, &un) &&
	    1 + us + un + 1 == sn) {
		figure(d, s + 1 + ts, tn, s + 1 + us, un, l[0].no);
		return 1;
	}
	sb_puts(&d->body, "<p>");
	inline_md(&d->body, s, (size_t)(l[i - 1].s + l[i - 1].n - s), 0);
	sb_puts(&d->body, "</p>\n");
	return i;
}

/*
 * A lone image: the SVG file it names, checked and inline, or, when that
 * cannot be, a warning and the image's title and file name as text.
 */
static void
figure(struct doc *d, const char *alt, size_t an, const char *src, size_t sn,
    size_t lineno)
{
	struct strbuf path = { 0 }, svg = { 0 }, prefix = { 0 };
	struct gzin *in;
	const char *why = NULL;
	char buf[65536], reason[256];
	ssize_t r = 0;
	size_t mark = d->body.len;

	if (!is_svg_name(src, sn))
		why = "not a bare .svg file name";
	else {
		sb_printf(&path, "%s/%.*s", d->dir, (int)sn, src);
		if ((in = open_chart(path.s, &why)) != NULL) {
			while (svg.len <= SVG_MAX &&
			    (r = gzin_read(in, buf, sizeof(buf))) > 0)
				sb_put(&svg, buf, (size_t)r);
			if (r < 0) {
				snprintf(reason, sizeof(reason), "%s",
				    gzin_error(in));
				why = reason;
			} else if (svg.len > SVG_MAX)
				why = "larger than 2 MiB";
			gzin_close(in);
		}
	}
	if (why == NULL) {
		sb_printf(&prefix, "c%d-", d->charts + 1);
		/* The chart draws its title: no caption to repeat it. */
		sb_puts(&d->body, "<figure aria-label=\"");
		escape(&d->body, alt, an);
		sb_puts(&d->body, "\">\n");
		if (svgsafe_inline(&d->body, svg.s, svg.len, prefix.s,
		    &why) == 0) {
			d->charts++;
			sb_puts(&d->body, "\n</figure>\n");
		} else
			sb_truncate(&d->body, mark);
	}
	if (why != NULL) {
		warnmsg("%s:%zu: %.*s: chart not inlined: %s", d->name,
		    lineno, (int)sn, src, why);
		/* No link: a refused chart is not one to open either. */
		sb_puts(&d->body, "<p>Chart not inlined: <em>");
		escape(&d->body, alt, an);
		sb_puts(&d->body, "</em> (<code>");
		escape(&d->body, src, sn);
		sb_puts(&d->body, "</code>)</p>\n");
	}
	sb_free(&prefix);
	sb_free(&svg);
	sb_free(&path);
}

/*
 * A chart beside the report, only as a regular file reached without a
 * symbolic link: a link could lead out of the directory, and a FIFO or a
 * device would block the page or never end.  NULL with *why set.
 */
static struct gzin *
open_chart(const char *path, const char **why)
{
	struct stat sb;
	int fd;

	/*
	 * Non-blocking, so that opening a FIFO cannot wait for a writer; a
	 * regular file reads the same either way.
	 */
	if ((fd = open(path, O_RDONLY | O_NOFOLLOW | O_NONBLOCK |
	    O_CLOEXEC)) == -1) {
		*why = errno == ELOOP ? "a symbolic link" : strerror(errno);
		return NULL;
	}
	if (fstat(fd, &sb) == -1 || !S_ISREG(sb.st_mode)) {
		*why = "not a regular file";
		close(fd);
		return NULL;
	}
	return gzin_fdopen(fd, path);
}

/* Inline markup of one block's text. */
static void
inline_md(struct strbuf *o, const char *s, size_t n, int depth)
{
	size_t i = 0, j, k, m, run, a, b;
	/*
	 * A closer that is not there for one opener is not there for a later
	 * one either: remembering that keeps a line of a thousand unmatched
	 * "**" or backticks linear.
	 */
	uint64_t nocode = 0;
	int nostrong = 0, noem = 0;

	while (i < n) {
		for (j = i; j < n && strchr("\\`*_[!", s[j]) == NULL; j++)
			;
		escape(o, s + i, j - i);
		if ((i = j) == n)
			break;
		switch (s[i]) {
		case '\\':
			if (i + 1 < n && s[i + 1] != '\0' &&
			    strchr(PUNCT, s[i + 1]) != NULL) {
				escape(o, s + i + 1, 1);
				i += 2;
				continue;
			}
			break;
		case '`':
			for (run = 0; i + run < n && s[i + run] == '`'; run++)
				;
			/* The closing run is exactly as long as the opening. */
			j = run >= 64 || (nocode & (UINT64_C(1) << run)) ? n :
			    i + run;
			for (; j < n; j = k) {
				for (k = j; k < n && s[k] != '`'; k++)
					;
				for (m = k; m < n && s[m] == '`'; m++)
					;
				if (k < n && m - k == run)
					break;
				k = m;
			}
			if (j >= n) {
				if (run < 64)
					nocode |= UINT64_C(1) << run;
				escape(o, s + i, run);
				i += run;
				continue;
			}
			a = i + run;
			b = k;
			if (b - a >= 2 && s[a] == ' ' && s[b - 1] == ' ') {
				a++;
				b--;
			}
			sb_puts(o, "<code>");
			escape(o, s + a, b - a);
			sb_puts(o, "</code>");
			i = k + run;
			continue;
		case '*':
			if (depth >= INLINE_DEPTH || nostrong || i + 2 >= n ||
			    s[i + 1] != '*' || s[i + 2] == ' ')
				break;
			for (j = i + 3; j + 1 < n; j++)
				if (s[j] == '*' && s[j + 1] == '*' &&
				    s[j - 1] != ' ')
					break;
			if (j + 1 >= n) {
				nostrong = 1;
				break;
			}
			sb_puts(o, "<strong>");
			inline_md(o, s + i + 2, j - i - 2, depth + 1);
			sb_puts(o, "</strong>");
			i = j + 2;
			continue;
		case '_':
			/* Only around words: snake_case stays as it is. */
			if (depth >= INLINE_DEPTH || noem || i + 1 >= n ||
			    (i > 0 && strchr(" \n(", s[i - 1]) == NULL) ||
			    strchr(" \n_", s[i + 1]) != NULL)
				break;
			for (j = i + 2; j < n; j++)
				if (s[j] == '_' && s[j - 1] != ' ' &&
				    (j + 1 == n ||
				    strchr(" \n.,;:!?)", s[j + 1]) != NULL))
					break;
			if (j >= n) {
				noem = 1;
				break;
			}
			sb_puts(o, "<em>");
			inline_md(o, s + i + 1, j - i - 1, depth + 1);
			sb_puts(o, "</em>");
			i = j + 1;
			continue;
		case '[':
		case '!':
			if (depth < INLINE_DEPTH &&
			    (k = inline_link(o, s + i, n - i, depth)) > 0) {
				i += k;
				continue;
			}
			break;
		}
		escape(o, s + i, 1);
		i++;
	}
}

/*
 * A link or an image at s; returns the length taken, or 0 when there is
 * none.  Only in-page anchors and bare file names become links: anything
 * else is shown as text, so the page never points off itself unasked.
 */
static size_t
inline_link(struct strbuf *o, const char *s, size_t n, int depth)
{
	size_t img = s[0] == '!', ts, tn, us, un;
	const char *t, *u;

	if (img && (n < 2 || s[1] != '['))
		return 0;
	if (!bracket(s + img, n - img, &ts, &tn, &us, &un))
		return 0;
	t = s + img + ts;
	u = s + img + us;
	if (safe_ref(u, un)) {
		sb_puts(o, "<a href=\"");
		escape(o, u, un);
		sb_puts(o, "\">");
	}
	if (img)
		escape(o, tn > 0 ? t : u, tn > 0 ? tn : un);
	else
		inline_md(o, t, tn, depth + 1);
	if (safe_ref(u, un))
		sb_puts(o, "</a>");
	else if (!img) {
		sb_puts(o, " (");
		escape(o, u, un);
		sb_puts(o, ")");
	}
	return img + us + un + 1;
}

/*
 * Parses "[text](url)" at s: sets the offsets and lengths of text and url
 * and returns 1, or returns 0.  The url has no blanks or parentheses.
 */
static int
bracket(const char *s, size_t n, size_t *ts, size_t *tn, size_t *us,
    size_t *un)
{
	size_t i, j;

	if (n == 0 || s[0] != '[')
		return 0;
	for (i = 1; i < n && s[i] != ']'; i++) {
		if (s[i] == '[')
			return 0;
		if (s[i] == '\\' && i + 1 < n)
			i++;
	}
	if (i + 1 >= n || s[i + 1] != '(')
		return 0;
	for (j = i + 2; j < n && strchr(" \t\n()", s[j]) == NULL; j++)
		;
	if (j == n || s[j] != ')' || j == i + 2)
		return 0;
	*ts = 1;
	*tn = i - 1;
	*us = i + 2;
	*un = j - (i + 2);
	return 1;
}

/* An in-page anchor, or a file name in the page's own directory. */
static int
safe_ref(const char *s, size_t n)
{
	size_t i = 0;

	if (n > 0 && s[0] == '#')
		i = 1;
	else if (n == 0 || s[0] == '.')
		return 0;
	for (; i < n; i++)
		if (strchr("._-", s[i]) == NULL &&
		    !((s[i] >= 'a' && s[i] <= 'z') ||
		    (s[i] >= 'A' && s[i] <= 'Z') ||
		    (s[i] >= '0' && s[i] <= '9')))
			return 0;
	return 1;
}

static int
is_svg_name(const char *s, size_t n)
{
	return n > 4 && s[0] != '#' && safe_ref(s, n) &&
	    memcmp(s + n - 4, ".svg", 4) == 0;
}

/* Appends text as HTML character data or a double-quoted attribute value. */
static void
escape(struct strbuf *o, const char *s, size_t n)
{
	size_t i, j;
	const char *e;

	for (i = j = 0; i < n; i++) {
		switch (s[i]) {
		case '&':
			e = "&amp;";
			break;
		case '<':
			e = "&lt;";
			break;
		case '>':
			e = "&gt;";
			break;
		case '"':
			e = "&quot;";
			break;
		default:
			continue;
		}
		sb_put(o, s + j, i - j);
		sb_puts(o, e);
		j = i + 1;
	}
	sb_put(o, s + j, n - j);
}

static int
is_blank(const struct line *l)
{
	size_t i;

	for (i = 0; i < l->n; i++)
		if (l->s[i] != ' ' && l->s[i] != '\t')
			return 0;
	return 1;
}

/* The level of an ATX heading ("## Title"), or 0. */
static int
heading_level(const struct line *l)
{
	size_t i;

	for (i = 0; i < l->n && i < 7 && l->s[i] == '#'; i++)
		;
	if (i == 0 || i > 6 || (i < l->n && l->s[i] != ' '))
		return 0;
	return (int)i;
}

static int
is_fence(const struct line *l)
{
	return l->n >= 3 && memcmp(l->s, "```", 3) == 0;
}

/* Whether l starts a list item: "- ", "* " or "12. ". */
static int
list_item(const struct line *l, int *ordered, long *num)
{
	size_t i;

	if (l->n >= 2 && (l->s[0] == '-' || l->s[0] == '*') &&
	    l->s[1] == ' ') {
		if (ordered != NULL)
			*ordered = 0;
		return 1;
	}
	for (i = 0; i < l->n && i < 9 && l->s[i] >= '0' && l->s[i] <= '9'; i++)
		;
	if (i == 0 || i + 1 >= l->n || l->s[i] != '.' || l->s[i + 1] != ' ')
		return 0;
	if (ordered != NULL)
		*ordered = 1;
	if (num != NULL)
		*num = strtol(l->s, NULL, 10);
	return 1;
}

/* A header row over an alignment row of as many cells. */
static int
is_table_head(const struct line *h, const struct line *r)
{
	struct line c[64];
	size_t i;

	if (h->n == 0 || h->s[0] != '|' || r->n == 0 || r->s[0] != '|' ||
	    memchr(r->s, '-', r->n) == NULL)
		return 0;
	for (i = 0; i < r->n; i++)
		if (strchr("|-: ", r->s[i]) == NULL)
			return 0;
	return cells(h->s, h->n, c, 64) == cells(r->s, r->n, c, 64);
}

/*
 * Splits a table row at the pipes that are not escaped; stores at most max
 * cells, trimmed, and returns how many it stored.
 */
static size_t
cells(const char *s, size_t n, struct line *c, size_t max)
{
	size_t i, start, nc = 0;

	trim(&s, &n);
	if (n > 0 && s[0] == '|') {
		s++;
		n--;
	}
	if (n > 0 && s[n - 1] == '|' && (n < 2 || s[n - 2] != '\\'))
		n--;
	for (i = start = 0; nc < max; i++) {
		if (i + 1 < n && s[i] == '\\') {
			i++;
			continue;
		}
		if (i < n && s[i] != '|')
			continue;
		c[nc].s = s + start;
		c[nc].n = i - start;
		trim(&c[nc].s, &c[nc].n);
		nc++;
		start = i + 1;
		if (i >= n)
			break;
	}
	return nc;
}

static void
trim(const char **s, size_t *n)
{
	while (*n > 0 && (**s == ' ' || **s == '\t')) {
		(*s)++;
		(*n)--;
	}
	while (*n > 0 && ((*s)[*n - 1] == ' ' || (*s)[*n - 1] == '\t'))
		(*n)--;
}

/* The page: head with title, policy and style, then the converted body. */
static void
put_head(struct doc *d)
{
	if (d->started)
		return;
	d->started = 1;
	printf("<!DOCTYPE html>\n<html lang=\"en\">\n<head>\n"
	    "<meta charset=\"utf-8\">\n"
	    "<meta http-equiv=\"Content-Security-Policy\" "
	    "content=\"default-src 'none'; style-src 'unsafe-inline'\">\n"
	    "<meta name=\"viewport\" "
	    "content=\"width=device-width, initial-scale=1\">\n"
	    "<title>%s</title>\n<style>\n%s</style>\n</head>\n<body>\n"
	    "<main>\n", d->title.len > 0 ? d->title.s : "Report", style);
}

static void
put_body(struct doc *d)
{
	fwrite(d->body.s, 1, d->body.len, stdout);
	sb_truncate(&d->body, 0);
}
