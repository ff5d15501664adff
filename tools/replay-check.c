/*
 * replay-check: compare a replay of one operator (what snip-new
 * --from-trace makes, profiled under Nsight Systems or torch.profiler)
 * with the calls of that operator in the trace it came from, kernel by
 * kernel, and give a verdict.  Markdown, or with -j one "replay_check"
 * record.
 */
#include <ctype.h>
#include <getopt.h>
#include <limits.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "base/err.h"
#include "base/strbuf.h"
#include "base/usage.h"
#include "base/xalloc.h"
#include "io/magic.h"
#include "io/ndjson.h"
#include "snippet/replay.h"
#include "snippet/snipout.h"
#include "trace/callshape.h"
#include "trace/extract.h"
#include "trace/nsys.h"
#include "trace/opcalls.h"

/* One side of the comparison: a trace read for the operator's calls. */
struct side {
	const char		*file;
	int			 nsys;
	struct opcalls_opts	 o;
	struct opcalls		 oc;
	const struct opgroup	*g;	/* the calls compared */
	struct jdoc		 rec;	/* g as an op_calls record */
	char			*range;	/* replay_range() of rec */
	int64_t			 events;
};

/* A kernel of either side, by normalised name. */
struct kpair {
	const char		*norm;
	const struct opkernel	*k[2];	/* the trace's, the replay's */
};

enum { V_SAME, V_SLOWER, V_FASTER, V_DIFFERENT, V_NOGPU };
static const char *const verdict_name[] = {
	"same", "slower", "faster", "different", "no-gpu"
};

/* What the comparison found. */
struct check {
	const char	*op;
	struct side	 s[2];		/* the trace, the replay */
	struct kpair	*k;
	size_t		 nk;
	int		 verdict;
	double		 change;	/* replay over trace, less 1; NAN */
	int		 same_shape;	/* -1: the replay recorded none */
	const char	*matched;	/* how the trace's calls were chosen */
	struct strbuf	 summary, reasons;
	size_t		 nreasons;
	/* The kernels only one side launched: how many, the costliest. */
	size_t		 only[2];
	const char	*first[2];
};

static int	jflag;
static long long kflag;
static double	tflag = 10;

static void	usage(void) __attribute__((noreturn));
static int	is_sqlite(const char *);
static int	count_events(void *, const struct jdoc *);
static int	find_range(void *, const struct jdoc *);
static char	*replay_operator(const char *, int, char **, int64_t *);
static void	read_side(struct side *, const char *, const char *);
static int	keep_doc(void *, const struct jdoc *);
static void	record_of(struct side *);
static void	pick_trace_calls(struct check *, const char *);
static int	same_shape(const struct callshape *, const struct callshape *);
static void	pair_kernels(struct check *);
static void	judge(struct check *);
static void	put_chosen(struct strbuf *, const struct check *, int);
static void	reason(struct check *, const char *);
static void	put_markdown(const struct check *);
static void	put_json(const struct check *);
static void	put_side(struct jw *, const struct side *);
static void	put_stats(struct jw *, const struct opgroup *,
		    const struct opkernel *);
static double	pct(double);

static const struct optdoc options[] = {
	{ "-j", "write one replay_check record, not Markdown" },
	{ "-k nth", "compare with the nth costliest shape of the trace's calls" },
	{ "-o operator", "the operator (default: the one the replay's range names)" },
	{ "-t pct", "the change within which the time is the same (default 10)" },
	OPTDOC_HELP,
	OPTDOC_END
};
static const struct usage use = {
	"[-j] [-k nth] [-o operator] [-t pct] trace replay",
	"compare a replayed operator's kernels with the trace it came from",
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
	struct check c;
	const char *oflag = NULL;
	char *op, *range = NULL, *end;
	size_t i;
	int ch;

	setprogname(argv[0]);
	while ((ch = getopt_long(argc, argv, "jk:o:t:h", longopts, NULL)) !=
	    -1) {
		switch (ch) {
		case 'j':
			jflag = 1;
			break;
		case 'k':
			kflag = parse_num(optarg, 1, INT_MAX, "-k");
			break;
		case 'o':
			oflag = optarg;
			break;
		case 't':
			tflag = strtod(optarg, &end);
			if (end == optarg || (*end != '\0' &&
			    strcmp(end, "%") != 0) || !(tflag >= 0) ||
			    tflag > 1000)
				die_usage("-t: not a percentage from 0 to 1000:"
				    " %s", optarg);
			break;
		case 'h':
			usage_help(&use);
		default:
			usage();
		}
	}
	argc -= optind;
	argv += optind;
	if (argc != 2)
		usage();

	memset(&c, 0, sizeof(c));
	c.change = NAN;
	c.s[0].file = argv[0];
	c.s[1].file = argv[1];
	for (i = 0; i < 2; i++)
		c.s[i].nsys = is_sqlite(c.s[i].file);
	op = replay_operator(c.s[1].file, c.s[1].nsys, &range,
	    &c.s[1].events);
	/* -o names the operator; the range says its shape only if its. */
	if (oflag != NULL && (op == NULL || strcmp(op, oflag) != 0)) {
		free(op);
		free(range);
		range = NULL;
		op = xstrdup(oflag);
	}
	if (op == NULL) {
		/* Nothing to compare in two empty inputs: no output. */
		if (c.s[1].events == 0) {
			struct jw *w = jw_new_doc(count_events, &c.s[0].events);

			if ((c.s[0].nsys ? nsys_extract(c.s[0].file, w, NULL) :
			    extract_trace(c.s[0].file, w,
			    &(struct extract_opts){ .args = 0 })) != 0)
				exit(1);
			jw_free(w);
			if (c.s[0].events == 0)
				return finish(0);
		}
		die("%s: no range of snip-new's names the operator: give it"
		    " with -o", c.s[1].file);
	}
	c.op = op;
	read_side(&c.s[1], c.s[1].file, op);
	if (c.s[1].oc.ng == 0)
		die("%s: no call of %s", c.s[1].file, op);
	/* The replay's costliest shape: the replayed one. */
	c.s[1].g = &c.s[1].oc.g[0];
	record_of(&c.s[1]);
	read_side(&c.s[0], c.s[0].file, op);
	if (c.s[0].oc.ng == 0)
		die("%s: no call of %s", c.s[0].file, op);
	pick_trace_calls(&c, range);
	pair_kernels(&c);
	judge(&c);
	if (jflag)
		put_json(&c);
	else
		put_markdown(&c);

	for (i = 0; i < 2; i++) {
		opcalls_free(&c.s[i].oc);
		jdoc_free(&c.s[i].rec);
		free(c.s[i].range);
	}
	free(c.k);
	free(c.summary.s);
	free(c.reasons.s);
	free(op);
	free(range);
	return finish(0);
}

/* Whether the file is an SQLite database (an nsys export), by its bytes. */
static int
is_sqlite(const char *path)
{
	char b[MAGIC_LEN];
	size_t n;
	FILE *f;

	if ((f = fopen(path, "rb")) == NULL)
		die("%s:", path);
	n = fread(b, 1, sizeof(b), f);
	fclose(f);
	return magic_of(b, n, 0) == MAGIC_SQLITE;
}

static int
count_events(void *arg, const struct jdoc *d)
{
	int64_t *events = arg, n;
	const char *kind;

	if (jdoc_get_str(d, 0, "kind", &kind, NULL) == 0 &&
	    strcmp(kind, "trace") == 0 && jdoc_get_i64(d, 0, "events", &n) == 0)
		*events += n;
	return 0;
}

/* What the replay's records say of its range and its events. */
struct found {
	char	*op, *range;
	int64_t	 events;
};

/*
 * The first range (an annotation, or an NVTX range) named as target.py
 * names its own: "NS::NAME" and the dims and types after it.
 */
static int
find_range(void *arg, const struct jdoc *d)
{
	struct found *f = arg;
	const char *kind, *cat, *name, *sp, *colons;

	count_events(&f->events, d);
	if (f->op != NULL || jdoc_get_str(d, 0, "kind", &kind, NULL) < 0 ||
	    strcmp(kind, "event") != 0 ||
	    jdoc_get_str(d, 0, "cat", &cat, NULL) < 0 ||
	    strcmp(cat, "user_annotation") != 0 ||
	    jdoc_get_str(d, 0, "name", &name, NULL) < 0 ||
	    (sp = strchr(name, ' ')) == NULL ||
	    (colons = strstr(name, "::")) == NULL || colons > sp)
		return 0;
	for (kind = name; kind < sp; kind++)
		if (!(isalnum((unsigned char)*kind) || *kind == '_' ||
		    *kind == ':'))
			return 0;
	f->op = xmemdup(name, (size_t)(sp - name));
	f->range = xstrdup(name);
	return 0;
}

/*
 * The operator the replay's range names, or NULL; its range in *range,
 * and in *events how many events the replay has.
 */
static char *
replay_operator(const char *path, int nsys, char **range, int64_t *events)
{
	struct found f = { NULL, NULL, 0 };
	struct jw *w = jw_new_doc(find_range, &f);

	if ((nsys ? nsys_extract(path, w, NULL) : extract_trace(path, w,
	    &(struct extract_opts){ .args = 0 })) != 0)
		exit(1);
	jw_free(w);
	*range = f.range;
	*events = f.events;
	return f.op;
}

static void
read_side(struct side *s, const char *path, const char *op)
{
	s->o.name = op;
	s->o.nsys = s->nsys;
	if (opcalls_read(&s->oc, path, &s->o) != 0)
		exit(1);
}

static int
keep_doc(void *arg, const struct jdoc *d)
{
	jdoc_copy(arg, d);
	return 0;
}

static void
record_of(struct side *s)
{
	struct jw *w = jw_new_doc(keep_doc, &s->rec);

	opcalls_put(w, &s->oc, s->g);
	jw_free(w);
	s->range = replay_range(&s->rec);
}

/*
 * The trace's calls to compare with: -k's shape; else those of the
 * replay's shape (dims, types, strides, scalars); else those whose range
 * name the replay's range has (an nsys export records no shapes); else
 * the costliest, said so.
 */
static void
pick_trace_calls(struct check *c, const char *range)
{
	struct side *t = &c->s[0], *r = &c->s[1];
	const struct opgroup *g = NULL;
	size_t i;

	c->same_shape = r->g->has_shape ? 0 : -1;
	if (kflag > 0) {
		if ((size_t)kflag > t->oc.ng)
			die("%s: %s has %zu shape%s; -k %lld is past them",
			    t->file, c->op, t->oc.ng, t->oc.ng == 1 ? "" : "s",
			    kflag);
		g = &t->oc.g[kflag - 1];
		c->matched = "the shape -k names";
	} else if (r->g->has_shape &&
	    (g = opcalls_find(&t->oc, r->g->key, r->g->keylen)) != NULL)
		c->matched = "the replay's shape: the same dims, types, strides"
		    " and scalar arguments";
	if (g == NULL && range != NULL)
		for (i = 0; i < t->oc.ng && g == NULL; i++) {
			t->g = &t->oc.g[i];
			jdoc_free(&t->rec);
			memset(&t->rec, 0, sizeof(t->rec));
			free(t->range);
			record_of(t);
			if (t->range != NULL && strcmp(t->range, range) == 0) {
				g = t->g;
				c->matched = "the shape the replay's range names"
				    " (its dims and types)";
			}
		}
	if (g == NULL) {
		g = &t->oc.g[0];
		c->matched = r->g->has_shape ? "the trace's costliest shape:"
		    " none is the replay's" : "the trace's costliest shape:"
		    " the replay recorded none";
	}
	t->g = g;
	jdoc_free(&t->rec);
	memset(&t->rec, 0, sizeof(t->rec));
	free(t->range);
	record_of(t);
	if (r->g->has_shape && t->g->has_shape)
		c->same_shape = same_shape(&t->g->shape, &r->g->shape);
}

static int
same_ints(size_t n, const int *ra, const int64_t *a, const int *rb,
    const int64_t *b)
{
	size_t i, total = 0;

	for (i = 0; i < n; i++) {
		if (ra[i] != rb[i])
			return 0;
		total += (size_t)ra[i];
	}
	return total == 0 || memcmp(a, b, total * sizeof(*a)) == 0;
}

static int
same_strings(size_t n, char *const *a, char *const *b)
{
	size_t i;

	for (i = 0; i < n; i++)
		if (strcmp(a[i], b[i]) != 0)
			return 0;
	return 1;
}

/*
 * Whether two calls had the same shape: dims and types, and the strides
 * and scalars where both traces record them (PyTorch before 2.1 records
 * neither).
 */
static int
same_shape(const struct callshape *a, const struct callshape *b)
{
	return a->nin == b->nin && a->ntype == b->ntype &&
	    same_ints(a->nin, a->rank, a->dim, b->rank, b->dim) &&
	    same_strings(a->ntype, a->type, b->type) &&
	    (!a->has_str || !b->has_str || (a->nstr == b->nstr &&
	    same_ints(a->nstr, a->srank, a->stride, b->srank, b->stride))) &&
	    (!a->has_con || !b->has_con || (a->ncon == b->ncon &&
	    same_strings(a->ncon, a->con, b->con)));
}

/* The kernels of both sides, the trace's first, each by normalised name. */
static void
pair_kernels(struct check *c)
{
	size_t i, j, side;

	for (side = 0; side < 2; side++)
		for (i = 0; i < c->s[side].g->nk; i++) {
			const struct opkernel *k = &c->s[side].g->k[i];

			for (j = 0; j < c->nk && strcmp(c->k[j].norm, k->norm)
			    != 0; j++)
				;
			if (j == c->nk) {
				c->k = xreallocarray(c->k, c->nk + 1,
				    sizeof(*c->k));
				memset(&c->k[j], 0, sizeof(c->k[j]));
				c->k[j].norm = k->norm;
				c->nk++;
			}
			c->k[j].k[side] = k;
		}
}

static void
reason(struct check *c, const char *text)
{
	sb_puts(&c->reasons, text);
	sb_puts(&c->reasons, "\n");
	c->nreasons++;
}

static double
pct(double v)
{
	return round(fabs(v) * 1000) / 10;
}

/*
 * The verdict: no GPU work on a side; another kernel chosen; else the
 * change of the median GPU time of a call: within -t, slower or faster.
 * And the reasons that may explain a difference.
 */
static void
judge(struct check *c)
{
	const struct opgroup *t = c->s[0].g, *r = c->s[1].g;
	const char *gt = c->s[0].oc.gpu, *gr = c->s[1].oc.gpu;
	int64_t mt, mr;
	size_t i, side;

	/* The costliest kernel only one side launched, and how many more. */
	for (i = 0; i < c->nk; i++)
		for (side = 0; side < 2; side++)
			if (c->k[i].k[side] != NULL &&
			    c->k[i].k[1 - side] == NULL &&
			    c->only[side]++ == 0)
				c->first[side] = c->k[i].k[side]->name;
	mt = opcalls_median(t->call_gpu, (size_t)t->calls);
	mr = opcalls_median(r->call_gpu, (size_t)r->calls);
	if (t->nk == 0 || r->nk == 0) {
		c->verdict = V_NOGPU;
		sb_printf(&c->summary, "not compared: no GPU work in the %s%s",
		    t->nk == 0 && r->nk == 0 ? "trace or the replay" :
		    r->nk == 0 ? "replay" : "trace", t->nk > 0 && gr == NULL ?
		    " (it ran on the CPU)" : "");
		return;
	}
	if (c->only[0] > 0 || c->only[1] > 0) {
		c->verdict = V_DIFFERENT;
		sb_puts(&c->summary, c->only[0] > 0 && c->only[1] > 0 ?
		    "different kernel chosen" : "different kernels");
	} else {
		c->change = (double)mr / (double)mt - 1;
		if (pct(c->change) <= tflag) {
			c->verdict = V_SAME;
			sb_printf(&c->summary, "same kernels, within %.1f %%",
			    pct(c->change));
			return;
		}
		c->verdict = c->change > 0 ? V_SLOWER : V_FASTER;
		sb_printf(&c->summary, "same kernels, %s by %.1f %%",
		    c->change > 0 ? "slower" : "faster", pct(c->change));
	}
	{
		struct strbuf gpu = { 0 };

		if (gt != NULL && gr != NULL && strcmp(gt, gr) != 0)
			sb_printf(&gpu, "another GPU: %s in the trace, %s in"
			    " the replay", gt, gr);
		else if (gt != NULL && gr != NULL)
			sb_printf(&gpu, "the same GPU, %s", gt);
		else
			sb_printf(&gpu, "the GPU of the %s is not recorded",
			    gt == NULL ? "trace" : "replay");
		/* A name with a line break would make two reasons. */
		for (i = 0; i < gpu.len; i++)
			if (gpu.s[i] == '\n')
				gpu.s[i] = ' ';
		reason(c, gpu.s);
		free(gpu.s);
	}
	reason(c, "another library version: cuBLAS, cuDNN, hipBLASLt and"
	    " MIOpen choose kernels by version and by heuristics, and neither"
	    " trace records theirs");
	if (c->same_shape == 0)
		reason(c, "the shape differs (dims, types, strides or scalar"
		    " arguments: padded, transposed or cast otherwise), so"
		    " another kernel may fit it");
	else if (c->same_shape == -1)
		reason(c, "the replay recorded no shapes: its calls are taken"
		    " to be of the shape compared with");
	if (c->verdict == V_SLOWER || c->verdict == V_FASTER)
		reason(c, "the trace's calls ran among the model's other work"
		    " (other streams, caches, clocks); the replay's run alone,"
		    " one after another");
}

/*
 * What differs, for the summary: "X in the trace, Y in the replay", or
 * what one side alone launched; a name as a code span in Markdown.
 */
static void
put_chosen(struct strbuf *b, const struct check *c, int md)
{
	static const char *const where[] = { "the trace", "the replay" };
	size_t side;
	int any = 0;

	for (side = 0; side < 2 && c->verdict == V_DIFFERENT; side++) {
		if (c->only[side] == 0)
			continue;
		sb_puts(b, any ? ", " : ": ");
		if (c->only[1 - side] == 0)
			sb_printf(b, "%s also launched ", where[side]);
		if (md)
			snip_md_code(b, c->first[side]);
		else
			sb_puts(b, c->first[side]);
		if (c->only[side] > 1)
			sb_printf(b, " and %zu more", c->only[side] - 1);
		if (c->only[1 - side] > 0)
			sb_printf(b, " in %s", where[side]);
		any = 1;
	}
}

static void
put_markdown(const struct check *c)
{
	struct strbuf b = { 0 };
	const char *p, *end;
	size_t i, side;

	sb_puts(&b, "# Replay check: ");
	snip_md_code(&b, c->op);
	sb_puts(&b, "\n\n");
	for (side = 0; side < 2; side++) {
		const struct side *s = &c->s[side];
		const struct opgroup *g = s->g;

		sb_puts(&b, side == 0 ? "- trace: " : "- replay: ");
		snip_md_code(&b, s->file);
		if (s->oc.gpu != NULL) {
			sb_puts(&b, " on ");
			snip_md_text(&b, s->oc.gpu);
		}
		sb_printf(&b, ", %lld call%s", (long long)g->calls,
		    g->calls == 1 ? "" : "s");
		if (s->range != NULL) {
			sb_puts(&b, " of ");
			snip_md_code(&b, s->range);
		}
		sb_printf(&b, "; GPU time of a call: median %.3f µs\n",
		    (double)opcalls_median(g->call_gpu, (size_t)g->calls) /
		    1000);
	}
	sb_puts(&b, "- compared with: ");
	snip_md_text(&b, c->matched);
	sb_puts(&b, "\n\n**");
	snip_md_text(&b, c->summary.s);
	sb_puts(&b, "**");
	put_chosen(&b, c, 1);
	sb_puts(&b, ".\n\n");
	if (c->nk > 0) {
		sb_puts(&b, "| kernel | launches per call, trace | replay |"
		    " median, trace | replay | ratio |\n| --- | ---: | ---: |"
		    " ---: | ---: | ---: |\n");
		for (i = 0; i < c->nk; i++) {
			const struct kpair *k = &c->k[i];
			struct strbuf cell = { 0 };
			size_t j;

			snip_md_code(&cell, k->k[0] != NULL ? k->k[0]->name :
			    k->k[1]->name);
			sb_puts(&b, "| ");
			for (j = 0; j < cell.len; j++) {
				if (cell.s[j] == '|')
					sb_puts(&b, "\\");
				sb_put(&b, cell.s + j, 1);
			}
			free(cell.s);
			for (side = 0; side < 2; side++)
				if (k->k[side] != NULL)
					sb_printf(&b, " | %.3g", (double)
					    k->k[side]->n / (double)
					    c->s[side].g->calls);
				else
					sb_puts(&b, " | -");
			for (side = 0; side < 2; side++)
				if (k->k[side] != NULL)
					sb_printf(&b, " | %.3f µs", (double)
					    opcalls_median(k->k[side]->dur,
					    k->k[side]->n) / 1000);
				else
					sb_puts(&b, " | -");
			if (k->k[0] != NULL && k->k[1] != NULL)
				sb_printf(&b, " | %.3f |\n", (double)
				    opcalls_median(k->k[1]->dur, k->k[1]->n) /
				    (double)opcalls_median(k->k[0]->dur,
				    k->k[0]->n));
			else
				sb_puts(&b, " | - |\n");
		}
		sb_puts(&b, "\n");
	}
	if (c->nreasons > 0) {
		sb_puts(&b, "What may explain it:\n\n");
		for (p = c->reasons.s; *p != '\0'; p = end + 1) {
			end = strchr(p, '\n');
			sb_puts(&b, "- ");
			{
				char *line = xmemdup(p, (size_t)(end - p));

				snip_md_text(&b, line);
				free(line);
			}
			sb_puts(&b, "\n");
		}
	}
	if (fwrite(b.s, 1, b.len, stdout) != b.len)
		die("<stdout>: write failed:");
	free(b.s);
}

/* Per kernel: launches per call, median, least and greatest; or null. */
static void
put_stats(struct jw *w, const struct opgroup *g, const struct opkernel *k)
{
	if (k == NULL)
		jw_null(w);
	else
		opcalls_put_kernel(w, g, k, 0);
}

static void
put_side(struct jw *w, const struct side *s)
{
	const struct opgroup *g = s->g;

	jw_begin_object(w);
	jw_key(w, "file");
	jw_cstring(w, s->file);
	jw_key(w, "gpu");
	jw_cstring_or_null(w, s->oc.gpu);
	jw_key(w, "range");
	jw_cstring_or_null(w, s->range);
	if (g->has_shape)
		callshape_put(w, &g->shape);
	jw_key(w, "calls");
	jw_int(w, g->calls);
	jw_key(w, "gpu_median_us");
	jw_us(w, opcalls_median(g->call_gpu, (size_t)g->calls));
	jw_key(w, "gpu_min_us");
	jw_us(w, g->call_gpu[0]);
	jw_key(w, "gpu_max_us");
	jw_us(w, g->call_gpu[g->calls - 1]);
	jw_end_object(w);
}

static void
put_json(const struct check *c)
{
	struct jw *w = jw_new(stdout);
	const char *p, *end;
	size_t i;

	jw_record(w, "replay_check");
	jw_key(w, "operator");
	jw_cstring(w, c->op);
	jw_key(w, "trace");
	put_side(w, &c->s[0]);
	jw_key(w, "replay");
	put_side(w, &c->s[1]);
	jw_key(w, "matched");
	jw_cstring(w, c->matched);
	jw_key(w, "same_shape");
	if (c->same_shape < 0)
		jw_null(w);
	else
		jw_bool(w, c->same_shape);
	jw_key(w, "verdict");
	jw_cstring(w, verdict_name[c->verdict]);
	jw_key(w, "summary");
	{
		struct strbuf text = { 0 };

		sb_puts(&text, c->summary.s);
		put_chosen(&text, c, 0);
		jw_cstring(w, text.s);
		free(text.s);
	}
	jw_key(w, "change");
	jw_double(w, isnan(c->change) ? NAN : round(c->change * 1000) / 1000);
	jw_key(w, "kernels");
	jw_begin_array(w);
	for (i = 0; i < c->nk; i++) {
		jw_begin_object(w);
		jw_key(w, "trace");
		put_stats(w, c->s[0].g, c->k[i].k[0]);
		jw_key(w, "replay");
		put_stats(w, c->s[1].g, c->k[i].k[1]);
		jw_key(w, "ratio");
		if (c->k[i].k[0] != NULL && c->k[i].k[1] != NULL)
			jw_ratio3(w, opcalls_median(c->k[i].k[1]->dur,
			    c->k[i].k[1]->n), opcalls_median(c->k[i].k[0]->dur,
			    c->k[i].k[0]->n));
		else
			jw_null(w);
		jw_end_object(w);
	}
	jw_end_array(w);
	jw_key(w, "reasons");
	jw_begin_array(w);
	for (p = c->reasons.s; p != NULL && *p != '\0'; p = end + 1) {
		end = strchr(p, '\n');
		jw_string(w, p, (size_t)(end - p));
	}
	jw_end_array(w);
	jw_end(w);
	jw_free(w);
}
