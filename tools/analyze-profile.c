/*
 * analyze-profile: the whole report from a memory snapshot and/or profiler
 * traces, with the interface of the original analyze_profile.py.  It runs
 * the mrp tools as a pipeline (lib/base/stages): the trace branch (the
 * extractor of tr-extract feeding the aggregator of op-rank and crit-path
 * in one process, lib/trace/tracefeed, and mem-segments on what it reads
 * of a trace) and the memory branch (mem-segments and churn-score) in
 * parallel, then rubric-apply and report-md on what they wrote into a
 * private temporary directory (with --html-out also report-svg, and
 * report-html on the charted Markdown; with --overlay-out trace-overlay
 * beside report-md); those two start at once and compile their programs
 * meanwhile.  What the user says of the run
 * (--context, --set, --phase, --objective) reaches those two as one
 * "context" record (lib/report/context).  The first stage to fail, or a
 * signal, stops all of them, and nothing they made is left behind; the
 * reports are published whole (lib/io/publish).
 */
#include <sys/resource.h>
#include <sys/stat.h>

#include <errno.h>
#include <fcntl.h>
#include <fnmatch.h>
#include <getopt.h>
#include <limits.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "base/err.h"
#include "base/files.h"
#include "base/stages.h"
#include "base/strbuf.h"
#include "base/usage.h"
#include "base/xalloc.h"
#include "io/inputrec.h"
#include "io/ndjson.h"
#include "io/publish.h"
#include "io/runnames.h"
#include "memory/memsnap.h"
#include "report/context.h"
#include "report/jqx.h"
#include "report/recset.h"
#include "trace/tracefeed.h"

/* The trace stage's exit status when a trace has no events. */
#define NOEVENTS	3

/*
 * The traces, in the order they are read; the names are owned.  nsys[i]
 * says that v[i] is an Nsight Systems export, read by nsys-extract's
 * reader, not tr-extract's.
 */
struct traces {
	char		**v;
	unsigned char	 *nsys;
	size_t		  n;
	char		**pickles;	/* found beside them, never read */
	size_t		  npickles;
};

/* A --cpu-trace or --nsys-sqlite, in the order given. */
struct targ {
	const char	*path;
	int		 nsys;
};

/* The files between the stages, in the temporary directory. */
enum file {
	F_TRACE, F_TRACE_MEMORY, F_MEMORY, F_CHURN, F_INPUTS, F_FINDINGS,
	F_CONTEXT, F_EMPTY, F_TRACE_INPUTS, F_OTHER_INPUTS, F_BASELINE,
	F_CHARTS, F_CRITPATH, F_CRITICAL, NFILES
};

/* Their names, by enum file, then the charts report-svg draws there. */
static const char *const tmpnames[] = {
	"trace.ndjson", "trace-memory.ndjson", "memory.ndjson",
	"churn.ndjson", "inputs.ndjson", "findings.ndjson", "context.ndjson",
	"empty.txt", "trace-inputs.ndjson", "other-inputs.ndjson",
	"baseline.ndjson", "charts.ndjson", "critpath.ndjson",
	"critical.ndjson",
	"memory.svg", "memory-trace.svg", "segments.svg", "ledger.svg",
	"gpu-timeline.svg", "steps.svg", "families.svg", "roofline.svg",
	"critical-path.svg", NULL
};

enum { OUT_MD, OUT_JSON, OUT_HTML, OUT_OVERLAY, NOUT };

/* What the command line asked for. */
struct args {
	const char	*mem, *base, *phase;
	const char	*out[NOUT];	/* NULL: not asked for (md: stdout) */
	int		 hasctx;	/* a context record is written */
	char		*gpu;
	const char	*overlaid;	/* the trace --overlay-out draws on */
};

/* A run of the stages, and the argument vectors they are given. */
struct run {
	struct stages	 st;
	struct pubout	 out[NOUT];
	char		 f[NFILES][PATH_MAX + 32];
	const struct args *a;
	const struct traces *tr;
	jv		 baseline;	/* the --baseline report, or null */
	const char	**ops;		/* the stage files, context first */
	size_t		 nops;
	const char	**av;		/* report-md's, for the charted one */
	int		 nav;
	pid_t		 rubric, md;	/* behind their gates */
};

static void	usage(void);
static const char *option_for(const char *);
static int	run_report(struct run *, struct context *);
static void	start_readers(struct run *);
static void	start_report(struct run *);
static int	check_read(struct run *);
static void	start_html(struct run *, int charts);
static void	start_overlay(struct run *);
static void	trace_stage(const struct run *, int out, int mem)
		    __attribute__((noreturn));
static void	report_empty(const struct traces *, const char *);
static void	traces_add(struct traces *, const char *);
static void	traces_push(struct traces *, char *, int);
static void	traces_free(struct traces *);
static int	snapshot_empty(const char *);
static void	hash_inputs(const char *, const struct traces *,
		    const char *);
static void	inputs_join(const char *, const struct traces *,
		    const char *, const char *);
static void	progress(const struct stages *, void *);
static void	check_input(const char *, int anypipe);
static void	check_outputs(const struct args *, const struct traces *,
		    const char *ctx);
static int	open_out(const char *);
static jv	baseline_read(const char *);
static void	baseline_write(const char *, jv);

static const struct optdoc options[] = {
	{ "--baseline file", "an earlier run's JSON report, to compare with" },
	{ "--context file", "what is known of the run, a YAML mapping" },
	{ "--cpu-trace file",
	    "a profiler trace, or a directory of them (repeatable)" },
	{ "--html-out file", "also write the report as one HTML page" },
	{ "--json-out file", "also write the JSON report" },
	{ "--md-out file", "write the Markdown report here, not to stdout" },
	{ "--memory-json file", "a CUDA memory snapshot, JSON or gzip" },
	{ "--nsys-sqlite file",
	    "an Nsight Systems SQLite export (repeatable)" },
	{ "--objective objective", "throughput, memory or latency" },
	{ "--overlay-out file", "also write the first trace back with its"
	    " critical path on it (gzip)" },
	{ "--phase phase",
	    "forward, backward, optimizer, dataloader or communication" },
	{ "--set key=value", "one item of the context (repeatable)" },
	OPTDOC_HELP,
	OPTDOC_END
};
static const struct usage use = {
	"[--baseline file] [--context file] [--cpu-trace file] "
	    "[--html-out file] [--json-out file] [--md-out file] "
	    "[--memory-json file] [--nsys-sqlite file] [--objective objective] "
	    "[--overlay-out file] [--phase phase] "
	    "[--set key=value]",
	"the whole report from a CUDA memory snapshot and profiler traces",
	options
};

static void
usage(void)
{
	usage_error(&use);
}

/*
 * The option an operand was probably meant for, by its name alone: the
 * file is not opened before the command line is right.  The first glob
 * that matches decides; a trace is the guess for anything else.
 */
static const char *
option_for(const char *operand)
{
	static const struct {
		const char	*glob, *option;
	} guess[] = {
		{ "*snap*", "--memory-json" }, { "*memory*", "--memory-json" },
		{ "?*.pickle", "--memory-json" }, { "?*.pkl", "--memory-json" },
		{ "?*.yaml", "--context" }, { "?*.yml", "--context" },
		{ "?*.sqlite", "--nsys-sqlite" }, { "?*.nsys-rep",
		    "--nsys-sqlite" },
		{ "*report*.json", "--baseline" }
	};
	const char *base = strrchr(operand, '/');
	size_t i;

	base = base != NULL && base[1] != '\0' ? base + 1 : operand;
	for (i = 0; i < sizeof(guess) / sizeof(guess[0]); i++)
		if (fnmatch(guess[i].glob, base, 0) == 0)
			return guess[i].option;
	return "--cpu-trace";
}

int
main(int argc, char *argv[])
{
	static const struct option longopts[] = {
		{ "help", no_argument, NULL, 'h' },
		{ "baseline", required_argument, NULL, 'B' },
		{ "context", required_argument, NULL, 'C' },
		{ "cpu-trace", required_argument, NULL, 't' },
		{ "html-out", required_argument, NULL, 'H' },
		{ "json-out", required_argument, NULL, 'j' },
		{ "md-out", required_argument, NULL, 'm' },
		{ "memory-json", required_argument, NULL, 'M' },
		{ "nsys-sqlite", required_argument, NULL, 'N' },
		{ "objective", required_argument, NULL, 'O' },
		{ "overlay-out", required_argument, NULL, 'V' },
		{ "phase", required_argument, NULL, 'P' },
		{ "set", required_argument, NULL, 'S' },
		{ NULL, 0, NULL, 0 }
	};
	/* Static: a usage error exits while they are held, still reachable. */
	static struct args a;
	static const char **sets;
	static struct targ *targs;
	struct run r;
	struct context ctx;
	struct traces tr = { NULL, NULL, 0, NULL, 0 };
	const char *objective = NULL, *ctxfile = NULL, *s;
	char phasebuf[32];
	int ch, status, i, nsets = 0, ntargs = 0;
	size_t k;

	setprogname(argv[0]);
	sets = xcalloc((size_t)argc, sizeof(*sets));
	targs = xcalloc((size_t)argc, sizeof(*targs));
	while ((ch = getopt_long(argc, argv, "h", longopts, NULL)) != -1) {
		switch (ch) {
		case 'B':
			a.base = optarg;
			break;
		case 'C':
			ctxfile = optarg;
			break;
		case 'H':
			a.out[OUT_HTML] = optarg;
			break;
		case 'M':
			a.mem = optarg;
			break;
		case 'O':
			objective = optarg;
			break;
		case 'V':
			a.out[OUT_OVERLAY] = optarg;
			break;
		case 'P':
			a.phase = optarg;
			break;
		case 'S':
			sets[nsets++] = optarg;
			break;
		case 'j':
			a.out[OUT_JSON] = optarg;
			break;
		case 'm':
			a.out[OUT_MD] = optarg;
			break;
		case 'N':
			targs[ntargs].nsys = 1;
			targs[ntargs++].path = optarg;
			break;
		case 't':
			targs[ntargs++].path = optarg;
			break;
		case 'h':
			usage_help(&use);
		default:
			usage();
		}
	}
	argc -= optind;
	argv += optind;
	a.hasctx = ctxfile != NULL || nsets > 0 || a.phase != NULL ||
	    objective != NULL;
	/* A context alone, without inputs, is its record on stdout. */
	if (argc > 0)
		die_usage("%s: not an option; did you mean %s %s?", argv[0],
		    option_for(argv[0]), argv[0]);
	if (ntargs == 0 && a.mem == NULL && (!a.hasctx ||
	    a.out[OUT_MD] != NULL || a.out[OUT_JSON] != NULL ||
	    a.out[OUT_HTML] != NULL || a.out[OUT_OVERLAY] != NULL ||
	    a.base != NULL))
		usage();
	/* A directory is every trace in it; every trace is checked alike. */
	for (i = 0; i < ntargs; i++) {
		if (targs[i].nsys)
			traces_push(&tr, xstrdup(targs[i].path), 1);
		else
			traces_add(&tr, targs[i].path);
	}
	free(targs);
	for (k = 0; k < tr.n; k++)
		check_input(tr.v[k], 0);
	for (k = 0; k < tr.n && a.overlaid == NULL; k++)
		if (!tr.nsys[k])
			a.overlaid = tr.v[k];
	if (a.out[OUT_OVERLAY] != NULL && a.overlaid == NULL)
		die_usage("--overlay-out draws on a profiler trace: give one"
		    " with --cpu-trace");
	if (a.mem != NULL)
		check_input(a.mem, 0);
	if (ctxfile != NULL)
		check_input(ctxfile, 1);
	if (a.base != NULL)
		check_input(a.base, 1);
	check_outputs(&a, &tr, ctxfile);
	memset(&r, 0, sizeof(r));
	r.a = &a;
	r.tr = &tr;
	/* A baseline that is no report is refused before any work. */
	r.baseline = a.base != NULL ? baseline_read(a.base) : jv_null();

	/* The file, then --set in order, then --phase and --objective. */
	context_init(&ctx, ctxfile);
	if (ctxfile != NULL)
		context_read(&ctx);
	for (i = 0; i < nsets; i++)
		context_set(&ctx, sets[i]);
	free(sets);
	if (a.phase != NULL)
		context_option(&ctx, CTX_PHASE, "--phase", a.phase);
	if (objective != NULL)
		context_option(&ctx, CTX_OBJECTIVE, "--objective", objective);
	if ((s = context_text(&ctx, CTX_PHASE)) != NULL) {
		snprintf(phasebuf, sizeof(phasebuf), "%s", s);
		a.phase = phasebuf;
	}
	/* gpu= names the GPU whose peaks op-rank judges FLOPs against. */
	if ((s = context_text(&ctx, CTX_GPU)) != NULL)
		a.gpu = xstrdup(s);
	if (tr.n == 0 && a.mem == NULL) {
		context_write(stdout, &ctx);
		context_free(&ctx);
		status = 0;
	} else
		status = run_report(&r, &ctx);
	traces_free(&tr);
	jv_free(r.baseline);
	free(a.gpu);
	a.gpu = NULL;
	return finish(status);
}

/*
 * The report, in four steps: the readers of the inputs and the report
 * stages start; once the readers end, what they found is checked and
 * rubric-apply goes on (report-svg beside it for --html-out); then
 * report-md (with report-html); the outputs are published last.  The
 * first failure ends it; nothing made is left behind but what is
 * published.  Frees ctx once it is written.
 */
static int
run_report(struct run *r, struct context *ctx)
{
	size_t k, nav;
	int i, status;
	FILE *fp;

	/* Nothing is made before the outputs are known to be writable. */
	stages_start(&r->st);
	/* Each output's temporary file is undone from the moment it exists. */
	for (i = 0; i < NOUT; i++) {
		stages_undo_file(&r->st, r->out[i].tmp);
		pubout_open(&r->out[i], r->a->out[i]);
	}
	stages_tmpdir(&r->st, "analyze-profile", tmpnames);
	for (k = 0; k < r->tr->n; k++)
		stages_take_input(&r->st, r->tr->v[k]);
	if (r->a->mem != NULL)
		stages_take_input(&r->st, r->a->mem);
	for (i = 0; i < NFILES; i++)
		stages_tmpname(&r->st, r->f[i], sizeof(r->f[i]), tmpnames[i]);
	if (r->a->hasctx) {
		if ((fp = fopen(r->f[F_CONTEXT], "w")) == NULL)
			die("%s:", r->f[F_CONTEXT]);
		context_write(fp, ctx);
		if (fclose(fp) != 0)
			die("%s:", r->f[F_CONTEXT]);
	}
	/* The stages are forked from here on: they inherit nothing to free. */
	context_free(ctx);
	nav = 16 + 2 * r->tr->npickles;
	r->av = xcalloc(nav, sizeof(*r->av));
	r->ops = xcalloc(nav, sizeof(*r->ops));

	start_readers(r);
	status = stages_wait(&r->st, progress, r) != 0;
	if (status == 0)
		status = check_read(r);
	if (status == 0) {
		stages_gate_open(&r->st, r->rubric);
		start_html(r, 1);
		status = stages_wait(&r->st, NULL, NULL) != 0;
	}
	if (status == 0) {
		stages_gate_open(&r->st, r->md);
		start_html(r, 0);
		start_overlay(r);
		status = stages_wait(&r->st, NULL, NULL) != 0;
	}
	if (status == 0)
		pubouts_lock(r->out, NOUT);
	for (i = 0; i < NOUT; i++)
		status = pubout_done(&r->out[i], status);
	stages_end(&r->st);
	free(r->av);
	free(r->ops);
	return status;
}

/*
 * The trace branch, the memory branch and the hashing of what they do not
 * hash, then the report stages behind their gates.  The trace branch is
 * the critical path: the trace stage reads every trace, then sorts and
 * nests what remains once they end, with mem-segments beside it.  The
 * snapshot branch, the hashing and the compiling give way to it and run
 * on the time it leaves idle instead of slowing it.  Where the priority
 * cannot be changed they merely compete.
 */
static void
start_readers(struct run *r)
{
	const struct traces *tr = r->tr;
	const char *mem = r->a->mem, *av[4];
	int memp[2], out, behind, i;
	size_t k;

	if (tr->n > 0) {
		if (pipe(memp) == -1)
			die("pipe:");
		widen_pipe(memp[0]);
		out = open_out(r->f[F_TRACE]);
		if (stages_fork(&r->st, "the trace stage", NOEVENTS) == 0) {
			/*
			 * A stage that fails ends in exit(): it keeps nothing
			 * of ours that it does not use, to leak then.
			 */
			free(r->av);
			free(r->ops);
			close(memp[0]);
			trace_stage(r, out, memp[1]);
		}
		close(out);
		close(memp[1]);
		av[0] = "mem-segments";
		av[1] = NULL;
		out = open_out(r->f[F_TRACE_MEMORY]);
		stages_spawn(&r->st, "mem-segments (trace)", av, memp[0], out);
		close(out);
		close(memp[0]);
	}
	behind = r->st.np;
	if (mem != NULL) {
		av[0] = "mem-segments";
		av[1] = mem;
		av[2] = NULL;
		out = open_out(r->f[F_MEMORY]);
		stages_spawn(&r->st, "mem-segments", av, -1, out);
		close(out);
		av[0] = "churn-score";
		out = open_out(r->f[F_CHURN]);
		stages_spawn(&r->st, "churn-score", av, -1, out);
		close(out);
	}
	/* The trace stage hashes the traces it reads; this, the rest. */
	for (k = 0; k < tr->n && !tr->nsys[k]; k++)
		continue;
	if ((mem != NULL || k < tr->n) &&
	    stages_fork(&r->st, "sha256", -1) == 0) {
		free(r->av);
		free(r->ops);
		hash_inputs(r->f[F_OTHER_INPUTS], tr, mem);
	}
	start_report(r);
	if (tr->n > 0)
		for (i = behind; i < r->st.np; i++)
			(void)setpriority(PRIO_PROCESS, (id_t)r->st.p[i].pid,
			    19);
}

/*
 * rubric-apply and report-md start now and compile their jq programs,
 * which takes them longer than reading a report's records, while the
 * inputs are read; each reads its standard input ("-", no records) first,
 * a gate this process opens once their files are whole.  The files come
 * in a fixed order, context first, known before they are written.
 */
static void
start_report(struct run *r)
{
	const char **av = r->av, **jav;
	size_t k;
	int n, out;

	r->nops = 0;
	if (r->a->hasctx)
		r->ops[r->nops++] = r->f[F_CONTEXT];
	if (r->tr->n > 0) {
		r->ops[r->nops++] = r->f[F_TRACE];
		r->ops[r->nops++] = r->f[F_CRITICAL];
		r->ops[r->nops++] = r->f[F_TRACE_MEMORY];
	}
	if (r->a->mem != NULL) {
		r->ops[r->nops++] = r->f[F_MEMORY];
		r->ops[r->nops++] = r->f[F_CHURN];
	}
	r->ops[r->nops++] = r->f[F_INPUTS];
	n = 0;
	av[n++] = "rubric-apply";
	av[n++] = "-";
	memcpy(av + n, r->ops, r->nops * sizeof(*av));
	n += (int)r->nops;
	av[n] = NULL;
	out = open_out(r->f[F_FINDINGS]);
	r->rubric = stages_spawn_gated(&r->st, "rubric-apply", av, out);
	close(out);
	av[0] = "report-md";
	av[n++] = r->f[F_FINDINGS];
	for (k = 0; k < r->tr->npickles; k++) {
		av[n++] = "-i";
		av[n++] = r->tr->pickles[k];
	}
	if (r->a->base != NULL) {
		baseline_write(r->f[F_BASELINE], r->baseline);
		r->baseline = jv_null();
		av[n++] = r->f[F_BASELINE];
	}
	av[n] = NULL;
	r->nav = n;
	/* "report-md -J json - file ...": one program writes both reports. */
	jav = xcalloc((size_t)n + 3, sizeof(*jav));
	memcpy(jav, av, ((size_t)n + 1) * sizeof(*av));
	if (r->a->out[OUT_JSON] != NULL) {
		jav[1] = "-J";
		jav[2] = pubout_path(&r->out[OUT_JSON]);
		memcpy(jav + 3, av + 1, (size_t)n * sizeof(*av));
	}
	out = pubout_fd(&r->out[OUT_MD]);
	r->md = stages_spawn_gated(&r->st, "report-md", jav, out);
	if (out != STDOUT_FILENO)
		close(out);
	free(jav);
}

/*
 * After the readers: an empty input is no all-clear, and a report of
 * nothing is refused.  Else the input records are joined in the report's
 * order.  Returns the status.
 */
static int
check_read(struct run *r)
{
	int status = 0;

	if (r->st.noted) {
		report_empty(r->tr, r->f[F_EMPTY]);
		status = 1;
	}
	if (r->a->mem != NULL && snapshot_empty(r->f[F_MEMORY])) {
		warnmsg("%s: no events", r->a->mem);
		status = 1;
	}
	if (status == 0)
		inputs_join(r->f[F_INPUTS], r->tr, r->f[F_TRACE_INPUTS],
		    r->f[F_OTHER_INPUTS]);
	return status;
}

/*
 * --html-out in two steps: the charts (report-svg), drawn from the stage
 * files beside rubric-apply; then the page, the same Markdown with the
 * charts linked, which report-html finds beside it in the temporary
 * directory and inlines.
 */
static void
start_html(struct run *r, int charts)
{
	const char **av;
	int hp[2], out;

	if (r->a->out[OUT_HTML] == NULL)
		return;
	av = xcalloc(r->nops + (size_t)r->nav + 4, sizeof(*av));
	if (charts) {
		av[0] = "report-svg";
		av[1] = "-o";
		av[2] = r->st.tmp;
		memcpy(av + 3, r->ops, r->nops * sizeof(*av));
		out = open_out(r->f[F_CHARTS]);
		stages_spawn(&r->st, "report-svg", av, -1, out);
		close(out);
		free(av);
		return;
	}
	if (pipe(hp) == -1)
		die("pipe:");
	/* report-md's files, without the "-" that waited for them. */
	av[0] = r->av[0];
	memcpy(av + 1, r->av + 2, (size_t)(r->nav - 2) * sizeof(*av));
	av[r->nav - 1] = r->f[F_CHARTS];
	stages_spawn(&r->st, "report-md (charts)", av, -1, hp[1]);
	close(hp[1]);
	av[0] = "report-html";
	av[1] = "-C";
	av[2] = r->st.tmp;
	av[3] = NULL;
	out = pubout_fd(&r->out[OUT_HTML]);
	stages_spawn(&r->st, "report-html", av, hp[0], out);
	close(hp[0]);
	close(out);
	free(av);
}

/*
 * --overlay-out: the trace branch wrote crit-path's records of the trace
 * it draws on, its path's edges with them; with the findings, the overlay
 * (trace-overlay), beside report-md.
 */
static void
start_overlay(struct run *r)
{
	const char *av[5];
	int out;

	if (r->a->out[OUT_OVERLAY] == NULL)
		return;
	av[0] = "trace-overlay";
	av[1] = r->a->overlaid;
	av[2] = r->f[F_CRITPATH];
	av[3] = r->f[F_FINDINGS];
	av[4] = NULL;
	out = pubout_fd(&r->out[OUT_OVERLAY]);
	stages_spawn(&r->st, "trace-overlay", av, -1, out);
	close(out);
}

/*
 * The trace branch (lib/trace/tracefeed) in this child: op-rank's records
 * to out, crit-path's to F_CRITICAL (with --overlay-out those of the trace
 * it draws on, edges too, to F_CRITPATH), what mem-segments reads to mem,
 * each trace's "input" record to F_TRACE_INPUTS, and the index of each
 * trace without events to F_EMPTY, for report_empty(), which make the
 * exit status NOEVENTS.
 */
static void
trace_stage(const struct run *r, int out, int mem)
{
	const struct traces *tr = r->tr;
	const char *empty = r->f[F_EMPTY], *inputs = r->f[F_TRACE_INPUTS],
	    *critical = r->f[F_CRITICAL];
	struct tracefeed f = { .paths = tr->v, .nsys = tr->nsys, .n = tr->n,
	    .phase = r->a->phase, .gpu = r->a->gpu };

	/* mem-segments stopped and says why: end as a pipe's writer would. */
	signal(SIGPIPE, SIG_DFL);
	if ((f.memory = fdopen(mem, "w")) == NULL ||
	    (f.ranked = fdopen(out, "w")) == NULL)
		die("fdopen:");
	if ((f.empty = fopen(empty, "w")) == NULL)
		die("%s:", empty);
	if ((f.inputs = fopen(inputs, "w")) == NULL)
		die("%s:", inputs);
	if ((f.critical = fopen(critical, "w")) == NULL)
		die("%s:", critical);
	if (r->a->out[OUT_OVERLAY] != NULL) {
		while (tr->v[f.overlaid] != r->a->overlaid)
			f.overlaid++;
		if ((f.overlay = fopen(r->f[F_CRITPATH], "w")) == NULL)
			die("%s:", r->f[F_CRITPATH]);
	}
	_exit(tracefeed_run(&f) ? NOEVENTS : 0);
}

/* Names each trace the trace stage found without events. */
static void
report_empty(const struct traces *tr, const char *empty)
{
	size_t i;
	FILE *fp;

	if ((fp = fopen(empty, "r")) == NULL)
		die("%s:", empty);
	while (fscanf(fp, "%zu", &i) == 1)
		if (i < tr->n)
			warnmsg("%s: no events", tr->v[i]);
	fclose(fp);
}

/*
 * Adds the trace arg, or, when arg is a directory, the traces in it in
 * sorted order: the regular files whose names runnames calls traces.  A
 * pickle there is named on stderr and, by report-md -i, in the report;
 * never read.  A directory without a trace is an error.
 */
static void
traces_add(struct traces *tr, const char *arg)
{
	struct stat sb;
	char **v = NULL;
	size_t n = 0, i;

	if (stat(arg, &sb) != 0 || !S_ISDIR(sb.st_mode)) {
		traces_push(tr, xstrdup(arg), 0);
		return;
	}
	runname_dir(arg, MSNAP_PICKLE_ADVICE, &v, &n, &tr->pickles,
	    &tr->npickles);
	for (i = 0; i < n; i++)
		traces_push(tr, v[i], 0);
	free(v);
}

/* Adds path, which tr now owns: an nsys export when nsys is set. */
static void
traces_push(struct traces *tr, char *path, int nsys)
{
	tr->v = xreallocarray(tr->v, tr->n + 1, sizeof(*tr->v));
	tr->nsys = xreallocarray(tr->nsys, tr->n + 1, sizeof(*tr->nsys));
	tr->nsys[tr->n] = (unsigned char)nsys;
	tr->v[tr->n++] = path;
}

static void
traces_free(struct traces *tr)
{
	size_t i;

	for (i = 0; i < tr->n; i++)
		free(tr->v[i]);
	free(tr->v);
	free(tr->nsys);
	tr->v = NULL;
	tr->nsys = NULL;
	tr->n = 0;
	for (i = 0; i < tr->npickles; i++)
		free(tr->pickles[i]);
	free(tr->pickles);
	tr->pickles = NULL;
	tr->npickles = 0;
}

/*
 * Whether the records of mem-segments in path describe an empty snapshot:
 * no segments and no trace entries in any summary.
 */
static int
snapshot_empty(const char *path)
{
	struct ndin *in;
	struct jdoc d = { 0 };
	int64_t v;
	int rc = 0, empty = 1;

	if ((in = ndin_open(path)) == NULL)
		die("%s:", path);
	while (empty && (rc = ndin_next(in, &d)) == 1) {
		if (strcmp(ndin_kind(&d), "memory_summary") != 0)
			continue;
		if ((jdoc_get_i64(&d, 0, "segments", &v) == 0 && v > 0) ||
		    (jdoc_get_i64(&d, 0, "trace_entries", &v) == 0 && v > 0))
			empty = 0;
	}
	ndin_close(in);
	jdoc_free(&d);
	return empty && rc != -1;
}

/*
 * The child that names the inputs the trace stage does not hash as it
 * reads them: the Nsight Systems exports, which SQLite reads, and the
 * snapshot, which other programs read.
 */
static void
hash_inputs(const char *out, const struct traces *tr, const char *mem)
{
	struct jw *w;
	FILE *fp;
	size_t i;
	int rc = 0;

	if ((fp = fopen(out, "w")) == NULL)
		_exit(1);
	w = jw_new(fp);
	for (i = 0; i < tr->n; i++)
		if (tr->nsys[i] &&
		    inputrec_write(w, tr->v[i], "nsys_export") != 0) {
			warnmsg("%s:", tr->v[i]);
			rc = 1;
		}
	if (mem != NULL && inputrec_write(w, mem, "memory_snapshot") != 0) {
		warnmsg("%s:", mem);
		rc = 1;
	}
	jw_free(w);
	if (fclose(fp) != 0)
		rc = 1;
	_exit(rc);
}

/*
 * The input records in one file, as the report lists them: the traces'
 * in order, each from the trace stage (read) or the hashing child (nsys
 * exports), then the snapshot's, last of the child's.
 */
static void
inputs_join(const char *out, const struct traces *tr, const char *read,
    const char *hashed)
{
	FILE *o, *r, *h, *fp;
	char *line = NULL;
	size_t cap = 0, i;

	if ((o = fopen(out, "w")) == NULL)
		die("%s:", out);
	r = fopen(read, "r");
	h = fopen(hashed, "r");
	for (i = 0; i <= tr->n; i++) {
		fp = i == tr->n || tr->nsys[i] ? h : r;
		while (fp != NULL && getline(&line, &cap, fp) > 0) {
			fputs(line, o);
			if (i < tr->n)
				break;
		}
	}
	free(line);
	if (r != NULL)
		fclose(r);
	if (h != NULL)
		fclose(h);
	if (fclose(o) != 0)
		die("%s:", out);
}

static int
open_out(const char *path)
{
	int fd;

	if ((fd = open(path, O_WRONLY | O_CREAT | O_TRUNC, 0644)) == -1)
		die("%s:", path);
	return fd;
}

/* On a terminal: how far the readers of the inputs got. */
static void
progress(const struct stages *st, void *arg)
{
	const struct run *r = arg;
	const struct traces *tr = r->tr;
	struct stat sb;
	long long pos, size, done, total;
	int open;
	size_t k;

	fprintf(stderr, "\r%s:", getprogname());
	/* The traces are read in turn: those before the open one are read. */
	if (tr->n > 0) {
		done = total = 0;
		open = 0;
		for (k = 0; k < tr->n; k++) {
			if (stat(tr->v[k], &sb) != 0)
				continue;
			size = (long long)sb.st_size;
			total += size;
			if (open)
				continue;
			if ((pos = stages_read_pos(st, tr->v[k])) >= 0) {
				done += pos;
				open = 1;
			} else
				done += size;
		}
		if (!open)
			fprintf(stderr, " trace read");
		else
			fprintf(stderr, " trace %lld%%",
			    total > 0 ? done * 100 / total : 100);
	}
	if (r->a->mem != NULL && stat(r->a->mem, &sb) == 0) {
		size = (long long)sb.st_size;
		if ((pos = stages_read_pos(st, r->a->mem)) < 0)
			fprintf(stderr, " memory read");
		else
			fprintf(stderr, " memory %lld%%",
			    size > 0 ? pos * 100 / size : 100);
	}
	fprintf(stderr, "\033[K");
}

/*
 * Refuses, before anything runs, an output that is an input or another
 * output: pubout_open() then finds out whether it can be written.
 */
static void
check_outputs(const struct args *a, const struct traces *tr,
    const char *ctx)
{
	static const char *const oname[NOUT] = {
		"--md-out", "--json-out", "--html-out", "--overlay-out"
	};
	const char *const *out = a->out;
	const char *in[2] = { a->mem, ctx }, *iname[2] = { "--memory-json",
	    "--context" };
	size_t k;
	int i, j;

	/* Two reports into one device such as /dev/null do no harm. */
	for (i = 0; i < NOUT; i++)
		for (j = i + 1; j < NOUT; j++)
			if (out[i] != NULL && out[j] != NULL &&
			    file_same(out[i], out[j]) &&
			    !file_is_chardev(out[i]))
				die_usage("%s and %s are the same file: %s",
				    oname[i], oname[j], out[i]);
	for (i = 0; i < NOUT; i++) {
		if (out[i] == NULL)
			continue;
		for (k = 0; k < tr->n; k++)
			if (file_same(out[i], tr->v[k]))
				die_usage("%s is the --cpu-trace file: %s",
				    oname[i], out[i]);
		for (j = 0; j < 2; j++)
			if (in[j] != NULL && file_same(out[i], in[j]))
				die_usage("%s is the %s file: %s", oname[i],
				    iname[j], out[i]);
	}
}

/*
 * Refuses an input that is not a regular file before anything runs: a
 * device such as /dev/zero would be read for ever, a directory or a socket
 * not at all.  A pipe is read once: the stages and the hashing each open
 * a trace or snapshot, so one is taken only as /dev/fd/N and copied, and
 * the --context and --baseline files (anypipe), which this process alone
 * reads, may be any fifo.
 */
static void
check_input(const char *path, int anypipe)
{
	struct stat sb;

	if (stat(path, &sb) != 0)
		die("%s:", path);
	if (!S_ISREG(sb.st_mode) && !(S_ISFIFO(sb.st_mode) &&
	    (anypipe || file_fd_named(path) != -1)))
		die("%s: not a regular file", path);
	if (access(path, R_OK) != 0)
		die("%s:", path);
}

/*
 * The report record of the --baseline file path, as a new jv; a file that
 * cannot be read or holds no report is fatal.
 */
static jv
baseline_read(const char *path)
{
	uint64_t nonfinite;
	jv r;

	if (recset_report(path, &r, &nonfinite) == 0)
		die("%s: not an analyze-profile report", path);
	return r;
}

/*
 * Writes report (consumed) to path as one {"kind":"baseline","report":...}
 * record for report-md.
 */
static void
baseline_write(const char *path, jv report)
{
	struct jw *w;
	FILE *fp;
	jv rec;

	if ((fp = fopen(path, "w")) == NULL)
		die("%s:", path);
	rec = jv_object_set(jv_object(), jv_string("report"), report);
	w = jw_new(fp);
	jqx_write_record(w, "baseline", rec);
	jw_free(w);
	jv_free(rec);
	if (ferror(fp) || fclose(fp) != 0)
		die("%s:", path);
}
