/*
 * analyze-profile: the whole report from a memory snapshot and/or profiler
 * traces, with the interface of the original analyze_profile.py.
 * It runs the mrp tools as a pipeline: the trace branch (the extractor of
 * tr-extract feeding the aggregator of op-rank in one process, with no
 * NDJSON between them, and mem-segments on what it reads of a trace) and
 * the memory branch (mem-segments and churn-score) in parallel, then
 * rubric-apply and report-md on what they wrote into a private temporary
 * directory (with --html-out also report-svg, and report-html on the
 * charted Markdown); those two start at once and compile their programs
 * meanwhile.  What the user says of the run (--context, --set,
 * --phase, --objective) reaches those two as one "context" record.  The
 * first stage to fail, or a signal, stops all of them, and nothing they
 * made is left behind.
 */
#include <sys/file.h>
#include <sys/resource.h>
#include <sys/stat.h>
#include <sys/wait.h>

#include <ctype.h>
#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <fnmatch.h>
#include <getopt.h>
#include <limits.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#include "base/err.h"
#include "base/progdir.h"
#include "base/strbuf.h"
#include "base/usage.h"
#include "base/xalloc.h"
#include "io/gzin.h"
#include "io/inputrec.h"
#include "io/ndjson.h"
#include "io/publish.h"
#include "io/pyyaml.h"
#include "io/runnames.h"
#include "memory/memsnap.h"
#include "report/jqx.h"
#include "report/recset.h"
#include "trace/extract.h"
#include "trace/nsys.h"
#include "trace/oprank.h"

#define MAXPROC		16
#define COPY_BUFSIZE	(1 << 20)
/* The trace stage's exit status when a trace has no events. */
#define NOEVENTS	3
/* The name a pipe's copy has for a moment in the temporary directory. */
#define PIPE_COPY	"pipe"

/* The signals that stop a run and undo it. */
static const int stopsigs[] = { SIGHUP, SIGINT, SIGTERM };
#define NSTOPSIGS	(sizeof(stopsigs) / sizeof(stopsigs[0]))

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

/* What a context item holds. */
enum ctype {
	C_STR,		/* text */
	C_LOWER,	/* text, lowercased */
	C_INT,		/* a positive integer */
	C_CHOICE	/* one of choices */
};

static const char *const phases[] = {
	"forward", "backward", "optimizer", "dataloader", "communication",
	NULL
};
static const char *const objectives[] = {
	"throughput", "memory", "latency", NULL
};

/* The known items of a context record, in the record's order. */
static const struct ckey {
	const char		*name;
	enum ctype		 type;
	const char *const	*choices;
	const char		*notone;	/* the message for another */
} ckeys[] = {
	{ "model", C_STR, NULL, NULL },
	{ "batch_size", C_INT, NULL, NULL },
	{ "seq_len", C_INT, NULL, NULL },
	{ "precision", C_LOWER, NULL, NULL },
	{ "parallelism", C_LOWER, NULL, NULL },
	{ "world_size", C_INT, NULL, NULL },
	{ "gpu", C_STR, NULL, NULL },
	{ "phase", C_CHOICE, phases, "not one of "
	    "forward|backward|optimizer|dataloader|communication" },
	{ "objective", C_CHOICE, objectives, "not one of "
	    "throughput|memory|latency" }
};
#define NCKEYS		(sizeof(ckeys) / sizeof(ckeys[0]))
#define CK_GPU		6
#define CK_PHASE	7
#define CK_OBJECTIVE	8

struct cval {
	int		 set;
	char		*s;
	int64_t		 n;
};

/* The run's context: the known items, and the others under extra. */
struct context {
	const char	*file;		/* --context, or NULL */
	struct cval	 v[NCKEYS];
	struct ydoc	 doc;		/* owns the nodes of extra */
	struct ynode	*extra;		/* a map */
};

/* A --cpu-trace or --nsys-sqlite, in the order given. */
struct targ {
	const char	*path;
	int		 nsys;
};

struct proc {
	pid_t		 pid;
	const char	*name;
	int		 traces;	/* the trace stage: may exit NOEVENTS */
	int		 gate;		/* the pipe it waits on, or -1 */
};

/* The trace stage's sink for the extractor's records. */
struct tracesink {
	struct oprank	*op;
	struct jw	*mem;		/* to mem-segments */
	const char	*file;		/* the trace being read */
	int		 events;	/* its trace record counts some */
};

/*
 * A report file: written to tmp, an unpredictable name beside path, and
 * renamed over path once the report is whole.  A path that exists and is
 * not a regular file (/dev/null, a fifo, a terminal) is written in place
 * and has no tmp.
 */
struct output {
	const char	*path;		/* NULL: standard output */
	char		 tmp[PATH_MAX];	/* "" when none, or once published */
	int		 fd;		/* tmp, open until a stage has it; -1 */
};
#define OUT_MD		0
#define OUT_JSON	1
#define OUT_HTML	2
#define NOUT		3

/*
 * An input named by a descriptor of this process, /dev/fd/N as <(...)
 * gives it: each child gets N again, as a copy of what came through the
 * pipe, so that the stages and the hashing read the same bytes.
 */
struct fdin {
	int		 fd;		/* N */
	int		 copy;		/* the copy, or -1: N is a file */
};

struct run {
	char		 bindir[PATH_MAX];
	char		 tmp[PATH_MAX];	/* the temporary directory, once made */
	int		 tmpfd;		/* tmp, open for unlinkat(); -1 */
	struct proc	 p[MAXPROC];
	int		 np;
	int		 noevents;	/* a trace without events was seen */
	const struct traces *tr;	/* for the progress line */
	struct output	 out[NOUT];
	struct fdin	*in;
	size_t		 nin;
	jv		 baseline;	/* the --baseline report, or null */
};

/*
 * The run that a signal or exit() in the middle of it must undo: its
 * stages are stopped and its temporary files removed.  A signal handler
 * reaches nothing else, hence this one variable beside the option flags.
 */
static struct run *live;

static void	usage(void);
static int	ckey_find(const char *);
static const char *cval_text(const struct ckey *, struct cval *,
		    const char *);
static const char *cval_node(const struct ckey *, struct cval *,
		    const struct ynode *);
static void	context_read(struct context *, const char *);
static void	context_set(struct context *, const char *);
static void	context_option(struct context *, size_t, const char *,
		    const char *);
static void	context_write(FILE *, const struct context *);
static void	context_free(struct context *);
static void	tmpname(const struct run *, char *, size_t, const char *);
static int	open_out(const char *);
static void	run_start(struct run *);
static void	on_signal(int);
static void	on_exit_undo(void);
static void	signals_block(sigset_t *);
static void	signals_restore(const sigset_t *);
static void	stop_stages(struct run *);
static void	reap_stages(struct run *);
static int	remove_temps(struct run *);
static void	check_input(const char *, int anypipe);
static int	fd_name(const char *);
static void	copy_pipes(struct run *, const struct traces *, const char *);
static void	copy_pipe(struct run *, const char *);
static void	output_open(struct output *, const char *);
static int	output_fd(struct output *);
static const char *output_path(const struct output *);
static int	output_publish(struct output *, int);
static void	outputs_lock(const struct output *, int);
static int	cmpdir(const void *, const void *);
static int	open_temp(const char *, char *, size_t);
static pid_t	spawn(struct run *, const char *name, const char *argv[],
		    int in, int out);
static pid_t	fork_child(struct run *, const char *name);
static pid_t	spawn_gated(struct run *, const char *name,
		    const char *argv[], int out);
static void	gate_open(struct run *, pid_t);
static void	close_from(const struct run *, int);
static void	traces_add(struct traces *, const char *);
static void	traces_push(struct traces *, char *, int);
static int	cmpname(const void *, const void *);
static void	traces_free(struct traces *);
static void	trace_stage(const struct traces *, const char *phase,
		    const char *gpu, int out, int mem, const char *empty,
		    const char *inputs) __attribute__((noreturn));
static int	on_record(void *, const struct jdoc *);
static void	report_empty(const struct traces *, const char *);
static int	snapshot_empty(const char *);
static int	same_file(const char *, const char *);
static const char *split_path(const char *, char *, size_t);
static char	*canonical(const char *);
static int	is_chardev(const char *);
static void	check_outputs(const char *md, const char *json,
		    const char *html, const struct traces *, const char *mem,
		    const char *ctx);
static int	write_all(int, const char *, size_t);
static void	inputs_join(const char *, const struct traces *,
		    const char *, const char *);
static void	hash_inputs(const char *, const struct traces *,
		    const char *);
static int	ungated(const struct run *);
static int	wait_all(struct run *, int inputs, const char *mem);
static void	progress(const struct run *, const char *mem);
static long long child_pos(pid_t, const char *);
static void	cleanup(struct run *);
static jv	baseline_read(const char *);
static void	baseline_write(const char *, jv);
static const char *option_for(const char *);

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
	    "[--phase phase] "
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
		{ "?*.sqlite", "--nsys-sqlite" }, { "?*.nsys-rep", "--nsys-sqlite" },
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
		{ "phase", required_argument, NULL, 'P' },
		{ "set", required_argument, NULL, 'S' },
		{ NULL, 0, NULL, 0 }
	};
	struct run r;
	struct context ctx;
	struct traces tr = { NULL, NULL, 0, NULL, 0 };
	const char *mem = NULL, *mdout = NULL, *jsonout = NULL, *base = NULL;
	const char *htmlout = NULL, **hav, **jav, **mdav, *ops[8];
	const char *phase = NULL, *objective = NULL;
	/* Static: a usage error exits while they are held, still reachable. */
	static const char **sets;
	static struct targ *targs;
	static char *gpu;
	char f[10][PATH_MAX + 32], btmp[PATH_MAX + 32], charts[PATH_MAX + 32];
	char *bin, phasebuf[32];
	const char **av;
	int ch, memp[2], hp[2], out, status = 0, n, i, behind;
	int nsets = 0, ntargs = 0, hasctx;
	sigset_t mask;
	size_t k, nav, nops;
	pid_t rubric, md;
	const char *tmpdir;
	FILE *fp;

	setprogname(argv[0]);
	memset(&ctx, 0, sizeof(ctx));
	memset(&r, 0, sizeof(r));
	r.tmpfd = -1;
	r.baseline = jv_null();
	sets = xcalloc((size_t)argc, sizeof(*sets));
	targs = xcalloc((size_t)argc, sizeof(*targs));
	while ((ch = getopt_long(argc, argv, "h", longopts, NULL)) != -1) {
		switch (ch) {
		case 'B':
			base = optarg;
			break;
		case 'C':
			ctx.file = optarg;
			break;
		case 'H':
			htmlout = optarg;
			break;
		case 'M':
			mem = optarg;
			break;
		case 'O':
			objective = optarg;
			break;
		case 'P':
			phase = optarg;
			break;
		case 'S':
			sets[nsets++] = optarg;
			break;
		case 'j':
			jsonout = optarg;
			break;
		case 'm':
			mdout = optarg;
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
	hasctx = ctx.file != NULL || nsets > 0 || phase != NULL ||
	    objective != NULL;
	/* A context alone, without inputs, is its record on stdout. */
	if (argc > 0)
		die_usage("%s: not an option; did you mean %s %s?", argv[0],
		    option_for(argv[0]), argv[0]);
	if ((ntargs == 0 && mem == NULL && (!hasctx ||
	    mdout != NULL || jsonout != NULL || htmlout != NULL ||
	    base != NULL)))
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
	if (mem != NULL)
		check_input(mem, 0);
	if (ctx.file != NULL)
		check_input(ctx.file, 1);
	if (base != NULL)
		check_input(base, 1);
	check_outputs(mdout, jsonout, htmlout, &tr, mem, ctx.file);
	/* A baseline that is no report is refused before any work. */
	if (base != NULL)
		r.baseline = baseline_read(base);

	/* The file, then --set in order, then --phase and --objective. */
	if (ctx.file != NULL)
		context_read(&ctx, ctx.file);
	if (ctx.extra == NULL)
		ctx.extra = ynode_map(&ctx.doc);
	for (i = 0; i < nsets; i++)
		context_set(&ctx, sets[i]);
	free(sets);
	if (phase != NULL)
		context_option(&ctx, CK_PHASE, "--phase", phase);
	if (objective != NULL)
		context_option(&ctx, CK_OBJECTIVE, "--objective", objective);
	if (ctx.v[CK_PHASE].set) {
		snprintf(phasebuf, sizeof(phasebuf), "%s", ctx.v[CK_PHASE].s);
		phase = phasebuf;
	}
	/* gpu= names the GPU whose peaks op-rank judges FLOPs against. */
	if (ctx.v[CK_GPU].set)
		gpu = xstrdup(ctx.v[CK_GPU].s);
	if (tr.n == 0 && mem == NULL) {
		context_write(stdout, &ctx);
		context_free(&ctx);
		return finish(0);
	}

	/* The stages' command lines: files and options, -i for each pickle. */
	nav = 16 + 2 * tr.npickles;
	av = xcalloc(3 * nav, sizeof(*av));
	hav = av + nav;
	jav = hav + nav;

	r.tr = &tr;
	/* Nothing is made before the outputs are known to be writable. */
	run_start(&r);
	output_open(&r.out[OUT_MD], mdout);
	output_open(&r.out[OUT_JSON], jsonout);
	output_open(&r.out[OUT_HTML], htmlout);
	/* The stages are the tools installed beside this one. */
	if ((bin = prog_dir()) != NULL) {
		n = snprintf(r.bindir, sizeof(r.bindir), "%s", bin);
		if (n < 0 || (size_t)n >= sizeof(r.bindir))
			r.bindir[0] = '\0';
		free(bin);
	}
	if ((tmpdir = getenv("TMPDIR")) == NULL || *tmpdir == '\0')
		tmpdir = "/tmp";
	n = snprintf(r.tmp, sizeof(r.tmp), "%s/analyze-profile.XXXXXX",
	    tmpdir);
	if (n < 0 || (size_t)n >= sizeof(r.tmp))
		die("%s: path is too long", tmpdir);
	/* A signal finds the directory made and open, or not made. */
	signals_block(&mask);
	if (mkdtemp(r.tmp) == NULL)
		die("%s:", r.tmp);
	if ((r.tmpfd = open(r.tmp, O_RDONLY | O_DIRECTORY | O_CLOEXEC)) == -1)
		die("%s:", r.tmp);
	signals_restore(&mask);
	signal(SIGPIPE, SIG_IGN);
	copy_pipes(&r, &tr, mem);

	tmpname(&r, f[0], sizeof(f[0]), "trace.ndjson");
	tmpname(&r, f[1], sizeof(f[1]), "trace-memory.ndjson");
	tmpname(&r, f[2], sizeof(f[2]), "memory.ndjson");
	tmpname(&r, f[3], sizeof(f[3]), "churn.ndjson");
	tmpname(&r, f[4], sizeof(f[4]), "inputs.ndjson");
	tmpname(&r, f[5], sizeof(f[5]), "findings.ndjson");
	tmpname(&r, f[6], sizeof(f[6]), "context.ndjson");
	tmpname(&r, f[7], sizeof(f[7]), "empty.txt");
	tmpname(&r, f[8], sizeof(f[8]), "trace-inputs.ndjson");
	tmpname(&r, f[9], sizeof(f[9]), "other-inputs.ndjson");
	if (hasctx) {
		if ((fp = fopen(f[6], "w")) == NULL)
			die("%s:", f[6]);
		context_write(fp, &ctx);
		if (fclose(fp) != 0)
			die("%s:", f[6]);
	}
	/* The stages are forked from here on: they inherit nothing to free. */
	context_free(&ctx);

	if (tr.n > 0) {
		if (pipe(memp) == -1)
			die("pipe:");
		widen_pipe(memp[0]);
		out = open_out(f[0]);
		if (fork_child(&r, "the trace stage") == 0) {
			/*
			 * A stage that fails ends in exit(): it keeps nothing
			 * of ours that it does not use, to leak then.
			 */
			free(av);
			close(memp[0]);
			trace_stage(&tr, phase, gpu, out, memp[1], f[7],
			    f[8]);
		}
		r.p[r.np - 1].traces = 1;
		close(out);
		close(memp[1]);
		av[0] = "mem-segments";
		av[1] = NULL;
		out = open_out(f[1]);
		spawn(&r, "mem-segments (trace)", av, memp[0], out);
		close(out);
		close(memp[0]);
	}
	behind = r.np;
	if (mem != NULL) {
		av[0] = "mem-segments";
		av[1] = mem;
		av[2] = NULL;
		out = open_out(f[2]);
		spawn(&r, "mem-segments", av, -1, out);
		close(out);
		av[0] = "churn-score";
		out = open_out(f[3]);
		spawn(&r, "churn-score", av, -1, out);
		close(out);
	}
	/* The trace stage hashes the traces it reads; this, the rest. */
	for (k = 0; k < tr.n && !tr.nsys[k]; k++)
		continue;
	if ((mem != NULL || k < tr.n) && fork_child(&r, "sha256") == 0) {
		free(av);
		hash_inputs(f[9], &tr, mem);
	}

	/*
	 * The files the later stages read, in a fixed order, context first,
	 * known before they are written.  rubric-apply and report-md start
	 * now and compile their jq programs, which takes them longer than
	 * reading a report's records, while the inputs are read; each reads
	 * its standard input ("-", no records) first, a pipe that this
	 * process closes once their files are whole.
	 */
	nops = 0;
	if (hasctx)
		ops[nops++] = f[6];
	if (tr.n > 0) {
		ops[nops++] = f[0];
		ops[nops++] = f[1];
	}
	if (mem != NULL) {
		ops[nops++] = f[2];
		ops[nops++] = f[3];
	}
	ops[nops++] = f[4];
	n = 0;
	av[n++] = "rubric-apply";
	av[n++] = "-";
	memcpy(av + n, ops, nops * sizeof(*av));
	n += (int)nops;
	av[n] = NULL;
	out = open_out(f[5]);
	rubric = spawn_gated(&r, "rubric-apply", av, out);
	close(out);
	av[0] = "report-md";
	av[n++] = f[5];
	for (k = 0; k < tr.npickles; k++) {
		av[n++] = "-i";
		av[n++] = tr.pickles[k];
	}
	if (base != NULL) {
		tmpname(&r, btmp, sizeof(btmp), "baseline.ndjson");
		baseline_write(btmp, r.baseline);
		r.baseline = jv_null();
		av[n++] = btmp;
	}
	av[n] = NULL;
	/* "report-md -J json - file ...": one program writes both reports. */
	mdav = av;
	if (jsonout != NULL) {
		jav[0] = "report-md";
		jav[1] = "-J";
		jav[2] = output_path(&r.out[OUT_JSON]);
		memcpy(jav + 3, av + 1, (size_t)n * sizeof(*av));
		mdav = jav;
	}
	out = output_fd(&r.out[OUT_MD]);
	md = spawn_gated(&r, "report-md", mdav, out);
	if (out != STDOUT_FILENO)
		close(out);
	/*
	 * The trace branch is the critical path: the trace stage reads every
	 * trace, then sorts and nests what remains once they end, with
	 * mem-segments beside it.  The snapshot branch, the hashing and the
	 * compiling give way to it and run on the time it leaves idle instead
	 * of slowing it.  Where the priority cannot be changed they merely
	 * compete.
	 */
	if (tr.n > 0)
		for (i = behind; i < r.np; i++)
			(void)setpriority(PRIO_PROCESS, (id_t)r.p[i].pid, 19);
	if (wait_all(&r, 1, mem) != 0) {
		cleanup(&r);
		traces_free(&tr);
		free(av);
		return finish(1);
	}
	/* An empty input is no all-clear: a report of nothing is refused. */
	if (r.noevents) {
		report_empty(&tr, f[7]);
		status = 1;
	}
	if (mem != NULL && snapshot_empty(f[2])) {
		warnmsg("%s: no events", mem);
		status = 1;
	}
	if (status != 0) {
		cleanup(&r);
		traces_free(&tr);
		free(av);
		return finish(status);
	}
	inputs_join(f[4], &tr, f[8], f[9]);

	gate_open(&r, rubric);
	/* The HTML's charts, drawn from the stage files meanwhile. */
	if (htmlout != NULL) {
		hav[0] = "report-svg";
		hav[1] = "-o";
		hav[2] = r.tmp;
		memcpy(hav + 3, ops, nops * sizeof(*ops));
		hav[nops + 3] = NULL;
		tmpname(&r, charts, sizeof(charts), "charts.ndjson");
		out = open_out(charts);
		spawn(&r, "report-svg", hav, -1, out);
		close(out);
	}
	if (wait_all(&r, 0, NULL) != 0) {
		cleanup(&r);
		traces_free(&tr);
		free(av);
		return finish(1);
	}
	gate_open(&r, md);
	/*
	 * The HTML: the same Markdown with the charts linked, which
	 * report-html finds beside it in the temporary directory and inlines.
	 */
	if (htmlout != NULL) {
		if (pipe(hp) == -1)
			die("pipe:");
		/* report-md's files, without the "-" that waited for them. */
		hav[0] = av[0];
		memcpy(hav + 1, av + 2, (size_t)(n - 2) * sizeof(*av));
		hav[n - 1] = charts;
		hav[n] = NULL;
		spawn(&r, "report-md (charts)", hav, -1, hp[1]);
		close(hp[1]);
		hav[0] = "report-html";
		hav[1] = "-C";
		hav[2] = r.tmp;
		hav[3] = NULL;
		out = output_fd(&r.out[OUT_HTML]);
		spawn(&r, "report-html", hav, hp[0], out);
		close(hp[0]);
		close(out);
	}
	status = wait_all(&r, 0, NULL);
	if (status == 0)
		outputs_lock(r.out, NOUT);
	for (i = 0; i < NOUT; i++)
		status = output_publish(&r.out[i], status);
	cleanup(&r);
	traces_free(&tr);
	free(av);
	return finish(status);
}

static void
tmpname(const struct run *r, char *buf, size_t n, const char *name)
{
	snprintf(buf, n, "%s/%s", r->tmp, name);
}

static int
open_out(const char *path)
{
	int fd;

	if ((fd = open(path, O_WRONLY | O_CREAT | O_TRUNC, 0644)) == -1)
		die("%s:", path);
	return fd;
}

/*
 * Forks a stage.  Until its pid is known a signal waits, so that no stage
 * outlives the run.  The child takes the default action on the signals the
 * run catches, undoes nothing of the run's, and finds each input named by
 * a descriptor there.
 */
static pid_t
fork_child(struct run *r, const char *name)
{
	struct sigaction sa;
	sigset_t mask;
	size_t i;
	pid_t pid;

	fflush(NULL);
	if (r->np == MAXPROC)
		die("too many stages");
	signals_block(&mask);
	if ((pid = fork()) == -1)
		die("fork:");
	if (pid > 0) {
		r->p[r->np].pid = pid;
		r->p[r->np].name = name;
		r->p[r->np].traces = 0;
		r->p[r->np].gate = -1;
		r->np++;
		signals_restore(&mask);
		return pid;
	}
	live = NULL;
	/* SIGTERM is how stop_stages() ends a stage, even one ignoring it. */
	for (i = 0; i < NSTOPSIGS; i++)
		if (stopsigs[i] == SIGTERM || (sigaction(stopsigs[i], NULL,
		    &sa) == 0 && sa.sa_handler == on_signal))
			signal(stopsigs[i], SIG_DFL);
	signals_restore(&mask);
	for (i = 0; i < r->nin; i++)
		if (r->in[i].copy != -1 &&
		    dup2(r->in[i].copy, r->in[i].fd) == -1)
			_exit(127);
	return 0;
}

/*
 * Runs argv[0] from the directory of this program, else from PATH, with
 * in and out (-1: inherited) as its standard input and output.
 */
static pid_t
spawn(struct run *r, const char *name, const char *argv[], int in, int out)
{
	char path[PATH_MAX + 64];
	pid_t pid;

	if ((pid = fork_child(r, name)) != 0)
		return pid;
	if (in != -1 && in != STDIN_FILENO && dup2(in, STDIN_FILENO) == -1)
		_exit(127);
	if (out != -1 && out != STDOUT_FILENO &&
	    dup2(out, STDOUT_FILENO) == -1)
		_exit(127);
	close_from(r, 3);
	/* Our own SIG_IGN would survive exec; a stage dies of EPIPE as usual. */
	signal(SIGPIPE, SIG_DFL);
	snprintf(path, sizeof(path), "%s/%s", r->bindir, argv[0]);
	if (r->bindir[0] != '\0' && access(path, X_OK) == 0)
		execv(path, (char *const *)argv);
	else
		execvp(argv[0], (char *const *)argv);
	warnmsg("%s:", argv[0]);
	_exit(127);
}

/*
 * Runs a stage whose standard input is a pipe that stays open, and empty,
 * until gate_open(): one that reads it first waits there.  wait_all()
 * leaves it be until then.
 */
static pid_t
spawn_gated(struct run *r, const char *name, const char *argv[], int out)
{
	int p[2];
	pid_t pid;

	if (pipe(p) == -1)
		die("pipe:");
	/* Later stages must not hold the pipe open. */
	(void)fcntl(p[1], F_SETFD, FD_CLOEXEC);
	pid = spawn(r, name, argv, p[0], out);
	close(p[0]);
	r->p[r->np - 1].gate = p[1];
	return pid;
}

static void
gate_open(struct run *r, pid_t pid)
{
	int i;

	for (i = 0; i < r->np; i++)
		if (r->p[i].pid == pid && r->p[i].gate != -1) {
			close(r->p[i].gate);
			r->p[i].gate = -1;
		}
}

/* Closes every descriptor from lo on but those inputs are named by. */
static void
close_from(const struct run *r, int lo)
{
	long max;
	size_t i;
	int fd;

	max = sysconf(_SC_OPEN_MAX);
	if (max < 0 || max > 4096)
		max = 4096;
	for (fd = lo; fd < max; fd++) {
		for (i = 0; i < r->nin && r->in[i].fd != fd; i++)
			continue;
		if (i == r->nin)
			close(fd);
	}
}

/*
 * The trace branch in one process: the extractor of tr-extract builds each
 * record as a jdoc and hands it to the aggregator of op-rank, with no text
 * between them, and writes to mem-segments (mem) the records it reads of a
 * trace: the "memory" records, the "ProfilerStep#" slices and the "trace"
 * records, and each trace's "input" record to inputs.  op-rank's records go
 * to out.  The traces without events are
 * listed by index in empty, for report_empty(), and make the exit status
 * NOEVENTS.
 */
static void
trace_stage(const struct traces *tr, const char *phase, const char *gpu,
    int out, int mem, const char *empty, const char *inputs)
{
	struct oprank_opts o = { NULL, 0, 0, -1, 0, gpu };
	struct extract_digest digest;
	struct extract_opts xo = { 0, &digest };
	struct tracesink sink = { 0 };
	struct jw *w, *inw;
	FILE *memfp, *outfp, *fp, *infp;
	size_t i;
	int none = 0;

	/* mem-segments stopped and says why: end as a pipe's writer would. */
	signal(SIGPIPE, SIG_DFL);
	if ((memfp = fdopen(mem, "w")) == NULL ||
	    (outfp = fdopen(out, "w")) == NULL)
		die("fdopen:");
	if ((fp = fopen(empty, "w")) == NULL)
		die("%s:", empty);
	if ((infp = fopen(inputs, "w")) == NULL)
		die("%s:", inputs);
	inw = jw_new(infp);
	if (phase != NULL)
		o.phase = oprank_phase(phase);
	sink.op = oprank_new(&o);
	sink.mem = jw_new(memfp);
	w = jw_new_doc(on_record, &sink);
	for (i = 0; i < tr->n; i++) {
		sink.file = tr->v[i];
		sink.events = 0;
		if ((tr->nsys[i] ? nsys_extract(tr->v[i], w, NULL) :
		    extract_trace(tr->v[i], w, &xo)) != 0)
			_exit(1);
		/* Hashed as it was read; else, rarely, read again. */
		if (!tr->nsys[i] && digest.hashed)
			inputrec_put(inw, tr->v[i], "trace", digest.size,
			    digest.sha256);
		else if (!tr->nsys[i] &&
		    inputrec_write(inw, tr->v[i], "trace") != 0)
			die("%s:", tr->v[i]);
		if (!sink.events) {
			fprintf(fp, "%zu\n", i);
			none = 1;
		}
	}
	jw_free(w);
	jw_free(sink.mem);
	jw_free(inw);
	if (fclose(fp) != 0)
		die("%s:", empty);
	if (fclose(infp) != 0)
		die("%s:", inputs);
	if (fclose(memfp) != 0)
		die("mem-segments: write:");
	w = jw_new(outfp);
	oprank_write(sink.op, w, 0);
	jw_free(w);
	if (fclose(outfp) != 0)
		die("trace.ndjson: write:");
	oprank_free(sink.op);
	_exit(none ? NOEVENTS : 0);
}

static int
on_record(void *arg, const struct jdoc *rec)
{
	struct tracesink *sink = arg;
	const char *kind = ndin_kind(rec), *name;
	int64_t events;
	int trace = strcmp(kind, "trace") == 0;

	if (trace && jdoc_get_i64(rec, 0, "events", &events) == 0 &&
	    events > 0)
		sink->events = 1;
	if (trace || strcmp(kind, "memory") == 0 ||
	    (strcmp(kind, "event") == 0 &&
	    jdoc_get_str(rec, 0, "name", &name, NULL) == 0 &&
	    strncmp(name, "ProfilerStep#", 13) == 0))
		jw_jdoc_record(sink->mem, rec);
	return oprank_record(sink->op, sink->file, rec);
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
	struct strbuf pat = { 0 };
	struct dirent *de;
	struct stat sb;
	char **v = NULL, *path;
	size_t n = 0, i, len;
	enum runname what;
	DIR *dir;

	if (stat(arg, &sb) != 0 || !S_ISDIR(sb.st_mode)) {
		traces_push(tr, xstrdup(arg), 0);
		return;
	}
	if ((dir = opendir(arg)) == NULL)
		die("%s:", arg);
	len = strlen(arg);
	for (;;) {
		errno = 0;
		if ((de = readdir(dir)) == NULL)
			break;
		what = runname_of(de->d_name);
		if (what != RN_TRACE && what != RN_PICKLE)
			continue;
		path = xmalloc(len + strlen(de->d_name) + 2);
		/* The name is data: joined, never interpreted. */
		memcpy(path, arg, len);
		i = len;
		if (len > 0 && arg[len - 1] != '/')
			path[i++] = '/';
		memcpy(path + i, de->d_name, strlen(de->d_name) + 1);
		/* A link that leads nowhere is left for access() to refuse. */
		if (stat(path, &sb) == 0 && !S_ISREG(sb.st_mode)) {
			free(path);
			continue;
		}
		if (what == RN_PICKLE) {
			warnmsg("%s: a pickle is never read.  "
			    MSNAP_PICKLE_ADVICE, path);
			tr->pickles = xreallocarray(tr->pickles,
			    tr->npickles + 1, sizeof(*tr->pickles));
			tr->pickles[tr->npickles++] = path;
			continue;
		}
		v = xreallocarray(v, n + 1, sizeof(*v));
		v[n++] = path;
	}
	if (errno != 0)
		die("%s:", arg);
	closedir(dir);
	if (n == 0) {
		for (i = 0; runname_trace_patterns[i] != NULL; i++) {
			if (i > 0)
				sb_puts(&pat, ", ");
			sb_puts(&pat, runname_trace_patterns[i]);
		}
		die("%s: no trace in the directory (none of %s)", arg, pat.s);
	}
	xqsort(v, n, sizeof(*v), cmpname);
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

/* Byte order, as make's $(sort) has it. */
static int
cmpname(const void *a, const void *b)
{
	return strcmp(*(char *const *)a, *(char *const *)b);
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

static int
write_all(int fd, const char *p, size_t n)
{
	ssize_t w;

	while (n > 0) {
		if ((w = write(fd, p, n)) == -1) {
			if (errno == EINTR)
				continue;
			return -1;
		}
		p += w;
		n -= (size_t)w;
	}
	return 0;
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

/* The stages running that wait on no gate. */
static int
ungated(const struct run *r)
{
	int i, n = 0;

	for (i = 0; i < r->np; i++)
		n += r->p[i].gate == -1;
	return n;
}

/*
 * Waits for every running stage but those still behind their gates, which
 * a failure stops all the same; returns 0 when all succeeded.  On a
 * terminal, a progress line shows how far the readers of the inputs got.
 */
static int
wait_all(struct run *r, int inputs, const char *mem)
{
	struct timespec tick = { 0, 200000000 };
	int st, rc = 0, tty, i, ticks = 0, failed;
	sigset_t mask;
	pid_t pid;

	tty = isatty(STDERR_FILENO) && inputs &&
	    (r->tr->n > 0 || mem != NULL);
	while (ungated(r) > 0) {
		pid = waitpid(-1, &st, tty ? WNOHANG : 0);
		if (pid == -1) {
			if (errno == EINTR)
				continue;
			die("waitpid:");
		}
		if (pid == 0) {
			nanosleep(&tick, NULL);
			if (++ticks % 5 == 0)
				progress(r, mem);
			continue;
		}
		for (i = 0; i < r->np; i++)
			if (r->p[i].pid == pid)
				break;
		if (i == r->np)
			continue;
		failed = 1;
		if (r->p[i].traces && WIFEXITED(st) &&
		    WEXITSTATUS(st) == NOEVENTS) {
			r->noevents = 1;
			failed = 0;
		} else if (WIFEXITED(st) && WEXITSTATUS(st) != 0) {
			warnmsg("%s failed (exit status %d)", r->p[i].name,
			    WEXITSTATUS(st));
		} else if (WIFSIGNALED(st) && (WTERMSIG(st) == SIGPIPE ||
		    (rc != 0 && WTERMSIG(st) == SIGTERM))) {
			/*
			 * The reader went away, as with "| head", or this
			 * stage was stopped below: no news.
			 */
		} else if (WIFSIGNALED(st)) {
			warnmsg("%s was killed by signal %d", r->p[i].name,
			    WTERMSIG(st));
		} else
			failed = 0;
		/*
		 * Off the list, which on_signal() may read at any time: the
		 * list stays whole, and in the order the stages started.
		 */
		signals_block(&mask);
		memmove(&r->p[i], &r->p[i + 1],
		    (size_t)(r->np - i - 1) * sizeof(r->p[0]));
		r->np--;
		signals_restore(&mask);
		/* The first failure stops the rest: none reads on in vain. */
		if (failed && rc == 0)
			stop_stages(r);
		rc |= failed;
	}
	if (tty && ticks >= 5)
		fprintf(stderr, "\r\033[K");
	return rc;
}

static void
progress(const struct run *r, const char *mem)
{
	struct stat sb;
	long long pos, size, done, total;
	int i, open;
	size_t k;

	fprintf(stderr, "\r%s:", getprogname());
	/* The traces are read in turn: those before the open one are read. */
	if (r->tr->n > 0) {
		done = total = 0;
		open = 0;
		for (k = 0; k < r->tr->n; k++) {
			if (stat(r->tr->v[k], &sb) != 0)
				continue;
			size = (long long)sb.st_size;
			total += size;
			if (open)
				continue;
			pos = -1;
			for (i = 0; i < r->np && pos < 0; i++)
				pos = child_pos(r->p[i].pid, r->tr->v[k]);
			if (pos >= 0) {
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
	if (mem != NULL && stat(mem, &sb) == 0) {
		size = (long long)sb.st_size;
		pos = -1;
		for (i = 0; i < r->np && pos < 0; i++)
			pos = child_pos(r->p[i].pid, mem);
		if (pos < 0)
			fprintf(stderr, " memory read");
		else
			fprintf(stderr, " memory %lld%%",
			    size > 0 ? pos * 100 / size : 100);
	}
	fprintf(stderr, "\033[K");
}

/* How far the process pid has read path, from /proc; -1 if unknown. */
static long long
child_pos(pid_t pid, const char *path)
{
	char link[PATH_MAX + 64], target[PATH_MAX], want[PATH_MAX], line[128];
	long long pos = -1;
	ssize_t n;
	FILE *fp;
	int fd;

	if (realpath(path, want) == NULL)
		return -1;
	for (fd = 0; fd < 64 && pos < 0; fd++) {
		snprintf(link, sizeof(link), "/proc/%ld/fd/%d", (long)pid, fd);
		if ((n = readlink(link, target, sizeof(target) - 1)) <= 0)
			continue;
		target[n] = '\0';
		if (strcmp(target, want) != 0)
			continue;
		snprintf(link, sizeof(link), "/proc/%ld/fdinfo/%d", (long)pid,
		    fd);
		if ((fp = fopen(link, "r")) == NULL)
			continue;
		while (fgets(line, sizeof(line), fp) != NULL)
			if (sscanf(line, "pos: %lld", &pos) == 1)
				break;
		fclose(fp);
	}
	return pos;
}

/*
 * Removes the temporary files once every stage has ended, and ends the
 * run: a signal from now on has nothing to undo.
 */
static void
cleanup(struct run *r)
{
	size_t i;

	/* Stages behind their gates never get to read the files. */
	stop_stages(r);
	for (i = 0; i < (size_t)r->np; i++)
		if (r->p[i].gate != -1)
			close(r->p[i].gate);
	reap_stages(r);
	if (remove_temps(r) != 0)
		warnmsg("%s:", r->tmp);
	if (r->tmpfd != -1)
		close(r->tmpfd);
	r->tmpfd = -1;
	for (i = 0; i < NOUT; i++)
		if (r->out[i].fd != -1)
			close(r->out[i].fd);
	for (i = 0; i < r->nin; i++)
		if (r->in[i].copy != -1)
			close(r->in[i].copy);
	free(r->in);
	r->in = NULL;
	r->nin = 0;
	jv_free(r->baseline);
	r->baseline = jv_null();
	live = NULL;
}

/*
 * Makes r the run that a signal or exit() undoes, until cleanup() ends it,
 * which main() calls before it returns: SIGHUP, SIGINT and SIGTERM stop it
 * unless they were ignored when it started, as under nohup(1) or in the
 * background of a shell without job control.
 */
static void
run_start(struct run *r)
{
	struct sigaction sa, old;
	size_t i;

	live = r;
	if (atexit(on_exit_undo) != 0)
		die("atexit:");
	memset(&sa, 0, sizeof(sa));
	sa.sa_handler = on_signal;
	sigemptyset(&sa.sa_mask);
	for (i = 0; i < NSTOPSIGS; i++)
		sigaddset(&sa.sa_mask, stopsigs[i]);
	for (i = 0; i < NSTOPSIGS; i++)
		if (sigaction(stopsigs[i], NULL, &old) == 0 &&
		    old.sa_handler != SIG_IGN)
			sigaction(stopsigs[i], &sa, NULL);
}

/*
 * Undoes the run and dies of sig, so that the caller sees it did: a shell
 * stops a loop on SIGINT only then.  Only async-signal-safe calls here.
 */
static void
on_signal(int sig)
{
	sigset_t set;

	on_exit_undo();
	signal(sig, SIG_DFL);
	sigemptyset(&set);
	sigaddset(&set, sig);
	raise(sig);
	sigprocmask(SIG_UNBLOCK, &set, NULL);
	/* Not reached, as the default action of sig ends the process. */
	_exit(128 + sig);
}

/*
 * A die() in the middle of the run, or a signal, leaves neither stages nor
 * files; async-signal-safe.
 */
static void
on_exit_undo(void)
{
	if (live == NULL)
		return;
	stop_stages(live);
	reap_stages(live);
	(void)remove_temps(live);
	live = NULL;
}

/* Blocks the signals that stop a run; old gets the mask to restore. */
static void
signals_block(sigset_t *old)
{
	sigset_t set;
	size_t i;

	sigemptyset(&set);
	for (i = 0; i < NSTOPSIGS; i++)
		sigaddset(&set, stopsigs[i]);
	sigprocmask(SIG_BLOCK, &set, old);
}

static void
signals_restore(const sigset_t *old)
{
	sigprocmask(SIG_SETMASK, old, NULL);
}

/*
 * Sends SIGTERM to every running stage, the last started first: a reader
 * goes before its writer, so none of them reads a cut stream and says so.
 */
static void
stop_stages(struct run *r)
{
	int i;

	for (i = r->np - 1; i >= 0; i--)
		kill(r->p[i].pid, SIGTERM);
}

/* Waits for every stage, whatever its end; async-signal-safe. */
static void
reap_stages(struct run *r)
{
	while (r->np > 0) {
		if (waitpid(r->p[r->np - 1].pid, NULL, 0) == -1 &&
		    errno == EINTR)
			continue;
		r->np--;
	}
}

/*
 * Removes the outputs not yet published and the temporary directory with
 * every file a stage may have made there.  Async-signal-safe: on_signal()
 * calls it.  Returns -1 when the directory is left.
 */
static int
remove_temps(struct run *r)
{
	static const char *const names[] = {
		"trace.ndjson", "trace-memory.ndjson", "memory.ndjson",
		"churn.ndjson", "inputs.ndjson", "trace-inputs.ndjson",
		"other-inputs.ndjson", "findings.ndjson",
		"context.ndjson", "empty.txt", "baseline.ndjson", PIPE_COPY,
		/* --html-out: report-svg's records and charts. */
		"charts.ndjson", "memory.svg", "memory-trace.svg",
		"segments.svg", "ledger.svg", "gpu-timeline.svg", "steps.svg",
		"families.svg", "roofline.svg",
		NULL
	};
	int i;

	for (i = 0; i < NOUT; i++)
		if (r->out[i].tmp[0] != '\0') {
			unlink(r->out[i].tmp);
			r->out[i].tmp[0] = '\0';
		}
	if (r->tmpfd == -1)
		return 0;
	for (i = 0; names[i] != NULL; i++)
		unlinkat(r->tmpfd, names[i], 0);
	return rmdir(r->tmp);
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
	    (anypipe || fd_name(path) != -1)))
		die("%s: not a regular file", path);
	if (access(path, R_OK) != 0)
		die("%s:", path);
}

/*
 * The descriptor N that path names as /dev/fd/N, /proc/self/fd/N or
 * /dev/stdin, which a child opens as its own N; -1 for any other path,
 * and for standard output and error, which the stages write.
 */
static int
fd_name(const char *path)
{
	static const char *const prefixes[] = {
		"/dev/fd/", "/proc/self/fd/", NULL
	};
	const char *p;
	char *end;
	long n;
	int i;

	if (strcmp(path, "/dev/stdin") == 0)
		return STDIN_FILENO;
	for (i = 0; prefixes[i] != NULL; i++) {
		if (strncmp(path, prefixes[i], strlen(prefixes[i])) != 0)
			continue;
		p = path + strlen(prefixes[i]);
		if (!isdigit((unsigned char)*p))
			return -1;
		errno = 0;
		n = strtol(p, &end, 10);
		if (*end != '\0' || errno != 0 || n > INT_MAX ||
		    n == STDOUT_FILENO || n == STDERR_FILENO)
			return -1;
		return (int)n;
	}
	return -1;
}

/* Takes in each trace and the snapshot that a descriptor names. */
static void
copy_pipes(struct run *r, const struct traces *tr, const char *mem)
{
	size_t i;

	for (i = 0; i < tr->n; i++)
		copy_pipe(r, tr->v[i]);
	if (mem != NULL)
		copy_pipe(r, mem);
}

/*
 * Records the descriptor that path names, if any, once; when it is a
 * pipe, its bytes go to a file in the temporary directory, removed at
 * once and open until the end, for every child to read from the start.
 */
static void
copy_pipe(struct run *r, const char *path)
{
	struct stat sb;
	char *buf;
	ssize_t n;
	size_t i;
	int fd, copy;

	if ((fd = fd_name(path)) == -1)
		return;
	for (i = 0; i < r->nin; i++)
		if (r->in[i].fd == fd)
			return;
	r->in = xreallocarray(r->in, r->nin + 1, sizeof(*r->in));
	r->in[r->nin].fd = fd;
	r->in[r->nin].copy = -1;
	r->nin++;
	if (fstat(fd, &sb) != 0)
		die("%s:", path);
	if (!S_ISFIFO(sb.st_mode))
		return;
	if ((copy = openat(r->tmpfd, PIPE_COPY, O_RDWR | O_CREAT | O_EXCL |
	    O_CLOEXEC, 0600)) == -1)
		die("%s/%s:", r->tmp, PIPE_COPY);
	if (unlinkat(r->tmpfd, PIPE_COPY, 0) != 0)
		die("%s/%s:", r->tmp, PIPE_COPY);
	r->in[r->nin - 1].copy = copy;
	buf = xmalloc(COPY_BUFSIZE);
	while ((n = read(fd, buf, COPY_BUFSIZE)) != 0) {
		if (n == -1) {
			if (errno == EINTR)
				continue;
			die("%s:", path);
		}
		if (write_all(copy, buf, (size_t)n) != 0)
			die("%s/%s:", r->tmp, PIPE_COPY);
	}
	free(buf);
}

/*
 * Prepares where a report goes, before anything runs, so that one that
 * could not be written fails first: a new file with an unpredictable
 * name beside path, made there by this process alone, never through a
 * link, for output_publish() to rename over path.  A path that is a
 * device or fifo is written in place, as a rename would replace it.
 */
static void
output_open(struct output *o, const char *path)
{
	struct stat sb;

	o->path = path;
	o->tmp[0] = '\0';
	o->fd = -1;
	if (path == NULL)
		return;
	if (stat(path, &sb) == 0) {
		if (S_ISDIR(sb.st_mode)) {
			errno = EISDIR;
			die("%s:", path);
		}
		if (!S_ISREG(sb.st_mode)) {
			if (access(path, W_OK) != 0)
				die("%s:", path);
			return;
		}
	}
	o->fd = open_temp(path, o->tmp, sizeof(o->tmp));
}

/* The descriptor a report stage writes; the caller closes it. */
static int
output_fd(struct output *o)
{
	int fd;

	if (o->path == NULL)
		return STDOUT_FILENO;
	if (o->fd == -1) {
		if ((fd = open(o->path, O_WRONLY | O_CLOEXEC)) == -1)
			die("%s:", o->path);
		return fd;
	}
	fd = o->fd;
	o->fd = -1;
	return fd;
}

/* The file a report stage opens itself to write the report. */
static const char *
output_path(const struct output *o)
{
	return o->tmp[0] != '\0' ? o->tmp : o->path;
}

/*
 * Moves a finished output into place, or removes it when status says the
 * run failed, so no half-written file is left.  Returns the new status.
 */
static int
output_publish(struct output *o, int status)
{
	if (o->fd != -1)
		close(o->fd);
	o->fd = -1;
	if (o->tmp[0] == '\0')
		return status;
	if (status != 0)
		unlink(o->tmp);
	else if (publish_commit(o->tmp, o->path) != 0)
		status = 1;
	o->tmp[0] = '\0';
	return status;
}

struct outdir {
	struct stat	 sb;
	int		 fd;
	const char	*path;		/* an output in it, for messages */
};

/*
 * Takes the directories of the outputs to be renamed into place with
 * flock(2), as report.mk takes a run directory for its whole run, in the
 * order of their device and inode numbers so that two runs cannot each
 * hold what the other waits for.  Two runs with the same outputs then
 * publish one whole set each, one after the other, never the Markdown of
 * one beside the JSON of the other; and none lands inside a report.mk
 * run.  The locks last until exit.  A directory that cannot be locked (a
 * file system without flock) is published to unlocked, as before.
 */
static void
outputs_lock(const struct output *o, int n)
{
	struct outdir dirs[NOUT];
	char dir[PATH_MAX];
	int i, k = 0;

	for (i = 0; i < n; i++) {
		if (o[i].tmp[0] == '\0' ||
		    split_path(o[i].path, dir, sizeof(dir)) == NULL)
			continue;
		dirs[k].path = o[i].path;
		if ((dirs[k].fd = open(dir, O_RDONLY | O_DIRECTORY |
		    O_CLOEXEC)) == -1)
			continue;
		if (fstat(dirs[k].fd, &dirs[k].sb) != 0) {
			close(dirs[k].fd);
			continue;
		}
		k++;
	}
	xqsort(dirs, (size_t)k, sizeof(*dirs), cmpdir);
	for (i = 0; i < k; i++) {
		if (i > 0 && cmpdir(&dirs[i - 1], &dirs[i]) == 0) {
			close(dirs[i].fd);
			continue;
		}
		if (flock(dirs[i].fd, LOCK_EX | LOCK_NB) == 0)
			continue;
		if (errno == EWOULDBLOCK) {
			warnmsg("%s: waiting for another run that writes "
			    "beside it to end", dirs[i].path);
			while (flock(dirs[i].fd, LOCK_EX) != 0 &&
			    errno == EINTR)
				;
		}
	}
}

static int
cmpdir(const void *a, const void *b)
{
	const struct outdir *x = a, *y = b;

	if (x->sb.st_dev != y->sb.st_dev)
		return x->sb.st_dev < y->sb.st_dev ? -1 : 1;
	if (x->sb.st_ino != y->sb.st_ino)
		return x->sb.st_ino < y->sb.st_ino ? -1 : 1;
	return 0;
}

/*
 * Creates ".name.XXXXXX" in the directory of path, the X random, as
 * O_EXCL alone makes it: a file or link planted under a name it could get
 * makes it draw another.  Its name is in tmp once it exists, and only then,
 * for remove_temps() after a signal.  A failure names path.
 */
static int
open_temp(const char *path, char *tmp, size_t size)
{
	static const char chars[] = "ABCDEFGHIJKLMNOPQRSTUVWXYZ"
	    "abcdefghijklmnopqrstuvwxyz0123456789";
	unsigned char rnd[6];
	char name[PATH_MAX];
	const char *base;
	sigset_t mask;
	size_t i;
	int n, try, fd;

	base = strrchr(path, '/');
	base = base != NULL ? base + 1 : path;
	for (try = 0; try < 100; try++) {
		if (getentropy(rnd, sizeof(rnd)) != 0)
			die("getentropy:");
		n = snprintf(name, sizeof(name), "%.*s.%s.XXXXXX",
		    (int)(base - path), path, base);
		if (n < 0 || (size_t)n >= sizeof(name) || (size_t)n >= size)
			die("%s: path is too long", path);
		for (i = 0; i < sizeof(rnd); i++)
			name[n - sizeof(rnd) + i] = chars[rnd[i] %
			    (sizeof(chars) - 1)];
		signals_block(&mask);
		fd = open(name, O_WRONLY | O_CREAT | O_EXCL | O_NOFOLLOW |
		    O_CLOEXEC, 0644);
		if (fd != -1)
			memcpy(tmp, name, (size_t)n + 1);
		signals_restore(&mask);
		if (fd != -1)
			return fd;
		if (errno != EEXIST)
			die("%s:", path);
	}
	die("%s: no free temporary name", path);
}

/*
 * Refuses, before anything runs, an output that is an input or the other
 * output: output_open() then finds out whether it can be written.
 */
static void
check_outputs(const char *md, const char *json, const char *html,
    const struct traces *tr, const char *mem, const char *ctx)
{
	const char *out[NOUT] = { md, json, html };
	const char *oname[NOUT] = { "--md-out", "--json-out", "--html-out" };
	const char *in[2] = { mem, ctx }, *iname[2] = { "--memory-json",
	    "--context" };
	size_t k;
	int i, j;

	/* Two reports into one device such as /dev/null do no harm. */
	for (i = 0; i < NOUT; i++)
		for (j = i + 1; j < NOUT; j++)
			if (out[i] != NULL && out[j] != NULL &&
			    same_file(out[i], out[j]) && !is_chardev(out[i]))
				die_usage("%s and %s are the same file: %s",
				    oname[i], oname[j], out[i]);
	for (i = 0; i < NOUT; i++) {
		if (out[i] == NULL)
			continue;
		for (k = 0; k < tr->n; k++)
			if (same_file(out[i], tr->v[k]))
				die_usage("%s is the --cpu-trace file: %s",
				    oname[i], out[i]);
		for (j = 0; j < 2; j++)
			if (in[j] != NULL && same_file(out[i], in[j]))
				die_usage("%s is the %s file: %s", oname[i],
				    iname[j], out[i]);
	}
}

/*
 * Whether a and b name one file: the same path, the same device and inode,
 * or, for a file not made yet, the same name in the same directory.
 */
static int
same_file(const char *a, const char *b)
{
	struct stat sa, sb;
	char *ca, *cb;
	int same;

	if (strcmp(a, b) == 0)
		return 1;
	if (stat(a, &sa) == 0 && stat(b, &sb) == 0)
		return sa.st_dev == sb.st_dev && sa.st_ino == sb.st_ino;
	ca = canonical(a);
	cb = canonical(b);
	same = ca != NULL && cb != NULL && strcmp(ca, cb) == 0;
	free(ca);
	free(cb);
	return same;
}

/*
 * The directory of path into dir ("." when path names none, "/" for the
 * root); returns path's last name, or NULL when dir is too small.
 */
static const char *
split_path(const char *path, char *dir, size_t size)
{
	const char *slash;
	size_t n;

	if ((slash = strrchr(path, '/')) == NULL) {
		snprintf(dir, size, ".");
		return path;
	}
	n = (size_t)(slash - path);
	if (n >= size)
		return NULL;
	memcpy(dir, path, n);
	dir[n] = '\0';
	if (n == 0)
		snprintf(dir, size, "/");
	return slash + 1;
}

/* The real path of path's directory, then its last name; NULL if unknown. */
static char *
canonical(const char *path)
{
	char dir[PATH_MAX], real[PATH_MAX], *s;
	const char *base;
	size_t n;

	if ((base = split_path(path, dir, sizeof(dir))) == NULL ||
	    realpath(dir, real) == NULL)
		return NULL;
	n = strlen(real) + strlen(base) + 2;
	s = xmalloc(n);
	snprintf(s, n, "%s/%s", real, base);
	return s;
}

static int
is_chardev(const char *path)
{
	struct stat sb;

	return stat(path, &sb) == 0 && S_ISCHR(sb.st_mode);
}

/* The index of a known context item, or -1; sequence_length is seq_len. */
static int
ckey_find(const char *name)
{
	size_t i;

	if (strcmp(name, "sequence_length") == 0)
		name = "seq_len";
	for (i = 0; i < NCKEYS; i++)
		if (strcmp(name, ckeys[i].name) == 0)
			return (int)i;
	return -1;
}

/*
 * Stores the text s as the item k (an empty s unsets it).  Returns NULL, or
 * what is wrong with s.
 */
static const char *
cval_text(const struct ckey *k, struct cval *v, const char *s)
{
	long long n;
	char *end, *p;
	size_t i;

	free(v->s);
	memset(v, 0, sizeof(*v));
	if (*s == '\0')
		return NULL;
	switch (k->type) {
	case C_INT:
		errno = 0;
		n = strtoll(s, &end, 10);
		if (!isdigit((unsigned char)*s) || *end != '\0' ||
		    errno == ERANGE)
			return "not an integer";
		if (n < 1)
			return "not a positive integer";
		v->n = n;
		break;
	case C_CHOICE:
		for (i = 0; k->choices[i] != NULL; i++)
			if (strcmp(s, k->choices[i]) == 0)
				break;
		if (k->choices[i] == NULL)
			return k->notone;
		v->s = xstrdup(s);
		break;
	case C_LOWER:
		v->s = xstrdup(s);
		for (p = v->s; *p != '\0'; p++)
			*p = (char)tolower((unsigned char)*p);
		break;
	case C_STR:
		v->s = xstrdup(s);
		break;
	}
	v->set = 1;
	return NULL;
}

/* Stores the YAML value n as the item k; null unsets it. */
static const char *
cval_node(const struct ckey *k, struct cval *v, const struct ynode *n)
{
	if (n->type == Y_NULL)
		return cval_text(k, v, "");
	if (k->type == C_INT) {
		if (n->type != Y_INT || n->big)
			return "not an integer";
		if (n->i < 1)
			return "not a positive integer";
		free(v->s);
		memset(v, 0, sizeof(*v));
		v->n = n->i;
		v->set = 1;
		return NULL;
	}
	/*
	 * Text may look like a number to YAML: gpu: 4090 is text here.
	 * Bytes (!!binary) are not text.
	 */
	if ((n->type != Y_STR && n->type != Y_INT && n->type != Y_FLOAT &&
	    n->type != Y_TIME) || n->len == 0)
		return "not a string";
	return cval_text(k, v, n->s);
}

/*
 * Reads the --context file: a YAML (or JSON, which YAML reads too)
 * mapping.  A bad file is a data error at its line and column.
 */
static void
context_read(struct context *c, const char *path)
{
	struct strbuf sb = { 0 };
	struct gzin *in;
	struct ynode *root, *key, *val;
	const char *why;
	char buf[8192], *name;
	ssize_t n;
	size_t i;
	int k;

	if ((in = gzin_open(path)) == NULL)
		die("%s:", path);
	while ((n = gzin_read(in, buf, sizeof(buf))) > 0)
		sb_put(&sb, buf, (size_t)n);
	if (n == -1)
		die("%s: %s", path, gzin_error(in));
	gzin_close(in);
	if (ydoc_parse(&c->doc, sb.s != NULL ? sb.s : "", sb.len) != 0)
		die("%s:%u:%u: %s", path, c->doc.errline, c->doc.errcol,
		    c->doc.err);
	sb_free(&sb);
	if ((root = c->doc.root) == NULL)
		die("%s: not a mapping", path);
	if (root->type != Y_MAP)
		die("%s:%u:%u: not a mapping", path, root->line, root->col);
	c->extra = ynode_map(&c->doc);
	for (i = 0; i < root->n; i++) {
		key = root->v[2 * i];
		val = root->v[2 * i + 1];
		name = py_str(key);
		if (key->type != Y_STR || (k = ckey_find(name)) == -1)
			ymap_set(&c->doc, c->extra, name, val);
		else if ((why = cval_node(&ckeys[k], &c->v[k], val)) != NULL)
			die("%s:%u:%u: %s: %s", path, val->line, val->col,
			    name, why);
		free(name);
	}
}

/* One --set key=value: a usage error when it is not one. */
static void
context_set(struct context *c, const char *arg)
{
	const char *eq;
	char *key;
	int k;

	if ((eq = strchr(arg, '=')) == NULL || eq == arg)
		die_usage("--set: not key=value: %s", arg);
	key = xmalloc((size_t)(eq - arg) + 1);
	memcpy(key, arg, (size_t)(eq - arg));
	key[eq - arg] = '\0';
	if ((k = ckey_find(key)) == -1)
		ymap_set(&c->doc, c->extra, key, ynode_str(&c->doc, eq + 1));
	else
		context_option(c, (size_t)k, "--set", arg);
	free(key);
}

/* Sets item k from an option's text s, or makes it a usage error. */
static void
context_option(struct context *c, size_t k, const char *opt, const char *s)
{
	const char *why, *eq;

	/* The text of --set key=value is after the '='. */
	if ((eq = strchr(s, '=')) != NULL && strcmp(opt, "--set") == 0)
		s = eq + 1;
	if ((why = cval_text(&ckeys[k], &c->v[k], s)) == NULL)
		return;
	if (eq != NULL && strcmp(opt, "--set") == 0)
		die_usage("%s: %s: %s: %s", opt, ckeys[k].name, why, s);
	die_usage("%s: %s: %s", opt, why, s);
}

/* Writes the context record; every item is there, null when unknown. */
static void
context_write(FILE *fp, const struct context *c)
{
	struct jw *w;
	size_t i;

	w = jw_new(fp);
	jw_record(w, "context");
	for (i = 0; i < NCKEYS; i++) {
		jw_ckey(w, ckeys[i].name);
		if (!c->v[i].set)
			jw_null(w);
		else if (ckeys[i].type == C_INT)
			jw_int(w, c->v[i].n);
		else
			jw_cstring(w, c->v[i].s);
	}
	jw_key(w, "extra");
	ynode_json(w, c->extra);
	jw_key(w, "file");
	jw_cstring_or_null(w, c->file);
	jw_end(w);
	jw_free(w);
}

static void
context_free(struct context *c)
{
	size_t i;

	for (i = 0; i < NCKEYS; i++)
		free(c->v[i].s);
	ydoc_free(&c->doc);
}

/*
 * The report record of the --baseline file path, as a new jv; a file that
 * cannot be read or holds no report is fatal.
 */
static jv
baseline_read(const char *path)
{
	struct recset rs;
	jv r;

	recset_init(&rs, 1);
	if (recset_read(&rs, path) != 0)
		exit(1);
	r = jv_get(jv_get(jv_get(recset_take(&rs), jv_string("records")),
	    jv_string("report")), jv_number(0));
	recset_free(&rs);
	if (jv_get_kind(r) != JV_KIND_OBJECT)
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
