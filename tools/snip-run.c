/*
 * snip-run: plan a profiling-snippet run as the roboflow/inference runner
 * will do it (run directory, record ids, manifest fields, the nsys
 * command), run the runner with the run directory made first and its logs
 * kept there, and check the manifest it wrote against the plan.
 */
#include <errno.h>
#include <fcntl.h>
#include <getopt.h>
#include <inttypes.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#include "base/err.h"
#include "base/githead.h"
#include "base/usage.h"
#include "base/xalloc.h"
#include "io/ndjson.h"
#include "io/pyyaml.h"
#include "snippet/snipcfg.h"

#define MAX_CONFIG	(4 << 20)
#define MAX_MANIFEST	(64 << 20)
#define DEFAULT_RUNNER	"uv run python development/profiling/main.py"

/* Long options without a short form, numbered past any char. */
enum {
	O_CAPTURE = 256, O_DATA, O_DEVICE, O_ITER, O_LOADING, O_SEED, O_TARGET,
	O_WARMUP
};

struct plan {
	const char	*config;	/* as given */
	struct snipcfg	 c;
	char		*run_id, *run_dir, *git;
	char		**argv;		/* the runner's command */
	size_t		 argc, nfixed;	/* nfixed: the runner's own words */
	struct ynode	*manifest;
};

static int fflag, nflag, pflag;

static void	usage(void) __attribute__((noreturn));
static int	load(struct plan *, const struct snipover *);
static int	profile_folder(const struct snipcfg *, struct sdiags *);
static int	make_plan(struct plan *);
static void	report(const char *, const struct sdiags *);
static void	make_argv(struct plan *, const char *, const struct snipover *);
static void	add_arg(struct plan *, const char *);
static char	*command_line(const struct plan *, size_t);
static int	mkdirs(const char *);
static void	put_plan(struct jw *, const struct plan *);
static int	run(struct plan *, struct jw *);
static int	check(struct plan *, const char *, int *);
static int	sorted_keys(const char *, const struct ynode *);
static void	free_plan(struct plan *);

static const struct optdoc options[] = {
	{ "-f", "remove an old manifest.yaml of the same run id" },
	{ "-i, --run-id run-id", "the run id, one folder name" },
	{ "-n", "plan only: write the plan record" },
	{ "-p, --print-nsys-command", "print the Nsight Systems command" },
	{ "-r runner", "the runner command, split at blanks" },
	{ "--capture-range value", "the runner's override of capture_range" },
	{ "--data-source value", "the runner's override of data_source" },
	{ "--device value", "the runner's override of device" },
	{ "--iterations n", "the runner's override of iterations" },
	{ "--record-loading value", "eager or lazy" },
	{ "--seed n", "the runner's override of seed" },
	{ "--target value", "the runner's override of target" },
	{ "--warmup n", "the runner's override of warmup" },
	OPTDOC_HELP,
	OPTDOC_END
};
static const struct usage use = {
	"[-fn] [-i run-id] [-r runner] [--option value ...] config\n"
	    "-p [-i run-id] [--option value ...] config",
	"plan and run a profiling snippet and check its manifest",
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
		{ "capture-range", required_argument, NULL, O_CAPTURE },
		{ "data-source", required_argument, NULL, O_DATA },
		{ "device", required_argument, NULL, O_DEVICE },
		{ "iterations", required_argument, NULL, O_ITER },
		{ "print-nsys-command", no_argument, NULL, 'p' },
		{ "record-loading", required_argument, NULL, O_LOADING },
		{ "run-id", required_argument, NULL, 'i' },
		{ "seed", required_argument, NULL, O_SEED },
		{ "target", required_argument, NULL, O_TARGET },
		{ "warmup", required_argument, NULL, O_WARMUP },
		{ NULL, 0, NULL, 0 }
	};
	struct snipover o;
	struct plan p;
	struct jw *w;
	const char *runner = getenv("SNIP_RUNNER"), *id = NULL, *why;
	char *nsys;
	int ch, status;

	setprogname(argv[0]);
	memset(&o, 0, sizeof(o));
	memset(&p, 0, sizeof(p));
	while ((ch = getopt_long(argc, argv, "fi:npr:h", longopts, NULL)) !=
	    -1) {
		switch (ch) {
		case 'f':
			fflag = 1;
			break;
		case 'i':
			id = optarg;
			break;
		case 'n':
			nflag = 1;
			break;
		case 'p':
			pflag = 1;
			break;
		case 'r':
			runner = optarg;
			break;
		case O_CAPTURE:
			o.capture_range = optarg;
			break;
		case O_DATA:
			o.data_source = optarg;
			break;
		case O_DEVICE:
			o.device = optarg;
			break;
		case O_ITER:
			o.has_iterations = 1;
			o.iterations = parse_num(optarg, INT64_MIN, INT64_MAX,
			    "--iterations");
			break;
		case O_LOADING:
			if (strcmp(optarg, "eager") != 0 &&
			    strcmp(optarg, "lazy") != 0)
				die_usage("--record-loading: must be eager or"
				    " lazy: %s", optarg);
			o.record_loading = optarg;
			break;
		case O_SEED:
			o.has_seed = 1;
			o.seed = parse_num(optarg, INT64_MIN, INT64_MAX,
			    "--seed");
			break;
		case O_TARGET:
			o.target = optarg;
			break;
		case O_WARMUP:
			o.has_warmup = 1;
			o.warmup = parse_num(optarg, INT64_MIN, INT64_MAX,
			    "--warmup");
			break;
		case 'h':
			usage_help(&use);
		default:
			usage();
		}
	}
	argc -= optind;
	argv += optind;
	if (argc != 1 || (pflag && nflag))
		usage();
	if (runner == NULL || runner[strspn(runner, " \t")] == '\0')
		runner = DEFAULT_RUNNER;

	if (id != NULL && *id != '\0' &&
	    (why = snip_name_problem(id, strlen(id))) != NULL)
		die_usage("-i: run id '%s' %s: it must be one folder name",
		    id, why);
	p.config = argv[0];
	if (load(&p, &o) < 0) {
		free_plan(&p);
		return finish(1);
	}
	p.run_id = id != NULL && *id != '\0' ? xstrdup(id) : NULL;
	if (p.run_id == NULL) {
		char buf[32];
		time_t now = time(NULL);

		strftime(buf, sizeof(buf), "%Y%m%dT%H%M%SZ", gmtime(&now));
		p.run_id = xstrdup(buf);
	}
	p.run_dir = snipcfg_run_dir(&p.c, p.run_id);
	if (pflag) {
		/* As the runner: no data source is built, nothing is run. */
		nsys = snipcfg_nsys(&p.c, p.run_dir, p.config);
		fputs(nsys, stdout);
		free(nsys);
		free_plan(&p);
		return finish(0);
	}
	make_argv(&p, runner, &o);
	if (make_plan(&p) < 0) {
		free_plan(&p);
		return finish(1);
	}
	status = 0;
	w = jw_new(stdout);
	if (nflag)
		put_plan(w, &p);
	else
		status = run(&p, w);
	jw_free(w);
	free_plan(&p);
	return finish(status);
}

/*
 * What run_profile() checks before it runs anything (lazy loading, the
 * data source, the target), then the manifest to expect.
 */
static int
make_plan(struct plan *p)
{
	struct sdiags d = { 0 };
	struct ynode *ids, *desc;
	char *cl;

	if (strcmp(p->c.record_loading, "lazy") == 0 && !p->c.profile_prepare)
		sdiag_add(&d, SD_ERROR, p->c.at_record_loading, "lazy", "Lazy"
		    " record loading requires target.profile_prepare=true"
		    " because records are not retained for precomputed"
		    " preparation.");
	ids = snipcfg_records(&p->c, &desc, &d);
	snipcfg_target(&p->c, &d);
	if (d.n > 0) {
		report(p->config, &d);
		sdiag_free(&d);
		return -1;
	}
	p->git = git_head(".");
	cl = command_line(p, p->nfixed - 1);
	p->manifest = snipcfg_manifest(&p->c, p->run_id, p->run_dir, cl,
	    p->git, ids, desc);
	free(cl);
	return 0;
}

/* Reads, parses and validates the config, then applies the overrides. */
static int
load(struct plan *p, const struct snipover *o)
{
	struct sdiags d = { 0 };
	char *buf;
	size_t len;
	int gz, rc;

	if ((rc = snip_slurp(p->config, MAX_CONFIG, &buf, &len, &gz)) == -1) {
		warnmsg("%s:", p->config);
		return -1;
	}
	if (rc < 0)
		return -1;
	if (gz) {
		free(buf);
		warnmsg("%s: compressed; the runner reads plain YAML",
		    p->config);
		return -1;
	}
	rc = snipcfg_parse(&p->c, buf, len, &d);
	free(buf);
	if (rc == 0)
		rc = snipcfg_override(&p->c, o, &d);
	if (rc == 0)
		rc = profile_folder(&p->c, &d);
	report(p->config, &d);
	sdiag_free(&d);
	return rc;
}

/*
 * The runner joins profile_name to output_dir as it is: "../x" or "/abs"
 * would put the run outside the snippet tree.
 */
static int
profile_folder(const struct snipcfg *c, struct sdiags *d)
{
	const char *why;

	if ((why = snipcfg_profile_problem(c)) == NULL)
		return 0;
	sdiag_add(d, SD_ERROR, c->at_profile_name, "path", "profile_name"
	    " '%s' %s: it must be one folder name, or the run goes outside %s",
	    c->profile_name, why, c->output_dir);
	return -1;
}

static void
report(const char *file, const struct sdiags *d)
{
	size_t i;

	for (i = 0; i < d->n; i++)
		if (d->v[i].line > 0)
			warnmsg("%s:%" PRIu32 ":%" PRIu32 ": %s", file,
			    d->v[i].line, d->v[i].col, d->v[i].msg);
		else
			warnmsg("%s: %s", file, d->v[i].msg);
}

static void
add_arg(struct plan *p, const char *s)
{
	p->argv = xreallocarray(p->argv, p->argc + 2, sizeof(*p->argv));
	p->argv[p->argc++] = xstrdup(s);
	p->argv[p->argc] = NULL;
}

/*
 * The runner's words (split at blanks, no shell), then --config and
 * --run-id and each override given, spelt as the runner spells them.
 */
static void
make_argv(struct plan *p, const char *runner, const struct snipover *o)
{
	char *words = xstrdup(runner), *tok, *save = NULL, num[24];

	for (tok = strtok_r(words, " \t", &save); tok != NULL;
	    tok = strtok_r(NULL, " \t", &save))
		add_arg(p, tok);
	free(words);
	p->nfixed = p->argc;
	add_arg(p, "--config");
	add_arg(p, p->config);
	add_arg(p, "--run-id");
	add_arg(p, p->run_id);
	if (o->target != NULL) {
		add_arg(p, "--target");
		add_arg(p, o->target);
	}
	if (o->data_source != NULL) {
		add_arg(p, "--data-source");
		add_arg(p, o->data_source);
	}
	if (o->device != NULL) {
		add_arg(p, "--device");
		add_arg(p, o->device);
	}
	if (o->has_warmup) {
		snprintf(num, sizeof(num), "%" PRId64, o->warmup);
		add_arg(p, "--warmup");
		add_arg(p, num);
	}
	if (o->has_iterations) {
		snprintf(num, sizeof(num), "%" PRId64, o->iterations);
		add_arg(p, "--iterations");
		add_arg(p, num);
	}
	if (o->capture_range != NULL) {
		add_arg(p, "--capture-range");
		add_arg(p, o->capture_range);
	}
	if (o->record_loading != NULL) {
		add_arg(p, "--record-loading");
		add_arg(p, o->record_loading);
	}
	if (o->has_seed) {
		snprintf(num, sizeof(num), "%" PRId64, o->seed);
		add_arg(p, "--seed");
		add_arg(p, num);
	}
}

/* " ".join(argv[from:]): the runner's sys.argv starts at its script. */
static char *
command_line(const struct plan *p, size_t from)
{
	char *s = NULL;
	size_t n = 0, i;
	FILE *f;

	if ((f = open_memstream(&s, &n)) == NULL)
		die("out of memory");
	for (i = from; i < p->argc; i++)
		fprintf(f, "%s%s", i > from ? " " : "", p->argv[i]);
	if (fclose(f) != 0)
		die("out of memory");
	return s;
}

static void
put_plan(struct jw *w, const struct plan *p)
{
	char *nsys = snipcfg_nsys(&p->c, p->run_dir, p->config);
	size_t i;

	jw_record(w, "plan");
	jw_key(w, "config");
	jw_cstring(w, p->config);
	jw_key(w, "run_dir");
	jw_cstring(w, p->run_dir);
	jw_key(w, "command");
	jw_begin_array(w);
	for (i = 0; i < p->argc; i++)
		jw_cstring(w, p->argv[i]);
	jw_end_array(w);
	jw_key(w, "write_manifest");
	jw_bool(w, p->c.write_manifest);
	jw_key(w, "manifest");
	ynode_json(w, p->manifest);
	jw_key(w, "nsys_command");
	jw_string(w, nsys, strlen(nsys) - 1);
	jw_end(w);
	free(nsys);
}

/* mkdir -p */
static int
mkdirs(const char *path)
{
	char *s = xstrdup(path), *p, c;
	int rc = 0;

	for (p = s + 1; rc == 0; p++) {
		if (*p != '/' && *p != '\0')
			continue;
		c = *p;
		*p = '\0';
		if (mkdir(s, 0777) != 0 && errno != EEXIST)
			rc = -1;
		*p = c;
		if (c == '\0')
			break;
	}
	free(s);
	return rc;
}

/* Runs the runner and writes the "run" record; returns the exit status. */
static int
run(struct plan *p, struct jw *w)
{
	char *manifest, *out, *err, *rec;
	struct timespec t0, t1;
	struct stat st;
	pid_t pid;
	int fo, fe, fn, wst, status = 0, mismatches = -1;
	double wall;
	FILE *f;
	struct jw *rw;
	size_t i, k;

	manifest = snip_path_join(p->run_dir, "manifest.yaml");
	out = snip_path_join(p->run_dir, "stdout.log");
	err = snip_path_join(p->run_dir, "stderr.log");
	rec = snip_path_join(p->run_dir, "snip-run.ndjson");
	if (mkdirs(p->run_dir) < 0)
		die("%s:", p->run_dir);
	if (stat(manifest, &st) == 0) {
		if (!fflag)
			die("%s: exists; give another run id or -f",
			    manifest);
		if (unlink(manifest) != 0)
			die("%s:", manifest);
	}
	if ((fo = open(out, O_WRONLY | O_CREAT | O_TRUNC, 0666)) < 0)
		die("%s:", out);
	if ((fe = open(err, O_WRONLY | O_CREAT | O_TRUNC, 0666)) < 0)
		die("%s:", err);
	if ((fn = open("/dev/null", O_RDONLY)) < 0)
		die("/dev/null:");
	fflush(stdout);
	clock_gettime(CLOCK_MONOTONIC, &t0);
	if ((pid = fork()) < 0)
		die("fork:");
	if (pid == 0) {
		dup2(fn, 0);
		dup2(fo, 1);
		dup2(fe, 2);
		execvp(p->argv[0], p->argv);
		dprintf(2, "%s: %s: %s\n", getprogname(), p->argv[0],
		    strerror(errno));
		_exit(127);
	}
	close(fn);
	close(fo);
	close(fe);
	while (waitpid(pid, &wst, 0) < 0)
		if (errno != EINTR)
			die("waitpid:");
	clock_gettime(CLOCK_MONOTONIC, &t1);
	wall = (double)(t1.tv_sec - t0.tv_sec) +
	    (double)(t1.tv_nsec - t0.tv_nsec) / 1e9;
	if (WIFEXITED(wst) && WEXITSTATUS(wst) == 0) {
		if (p->c.write_manifest)
			status = check(p, manifest, &mismatches);
	} else {
		if (WIFEXITED(wst))
			warnmsg("%s exited with status %d; see %s",
			    p->argv[0], WEXITSTATUS(wst), err);
		else
			warnmsg("%s was killed by signal %d; see %s",
			    p->argv[0], WTERMSIG(wst), err);
		status = 1;
	}

	/* The record goes to stdout and into the run directory. */
	if ((f = fopen(rec, "w")) == NULL)
		die("%s:", rec);
	rw = jw_new(f);
	jw_name(rw, rec);
	put_plan(rw, p);
	for (i = 0; i < 2; i++) {
		struct jw *j = i == 0 ? w : rw;

		jw_record(j, "run");
		jw_key(j, "run_id");
		jw_cstring(j, p->run_id);
		jw_key(j, "run_dir");
		jw_cstring(j, p->run_dir);
		jw_key(j, "command");
		jw_begin_array(j);
		for (k = 0; k < p->argc; k++)
			jw_cstring(j, p->argv[k]);
		jw_end_array(j);
		if (WIFEXITED(wst)) {
			jw_key(j, "exit_status");
			jw_int(j, WEXITSTATUS(wst));
		} else {
			jw_key(j, "signal");
			jw_int(j, WTERMSIG(wst));
		}
		jw_key(j, "wall_s");
		jw_double(j, wall);
		jw_key(j, "stdout_log");
		jw_cstring(j, out);
		jw_key(j, "stderr_log");
		jw_cstring(j, err);
		jw_key(j, "manifest");
		if (mismatches >= 0)
			jw_cstring(j, manifest);
		else
			jw_null(j);
		jw_key(j, "manifest_ok");
		if (mismatches >= 0)
			jw_bool(j, mismatches == 0);
		else
			jw_null(j);
		jw_end(j);
	}
	jw_free(rw);
	if (fclose(f) != 0)
		die("%s:", rec);
	free(manifest);
	free(out);
	free(err);
	free(rec);
	return status;
}

/* Each mapping's keys in sorted order, as sort_keys=True writes them. */
static int
sorted_keys(const char *file, const struct ynode *n)
{
	size_t i;
	int bad = 0;

	if (n->type == Y_SEQ)
		for (i = 0; i < n->n; i++)
			bad |= sorted_keys(file, n->v[i]);
	if (n->type != Y_MAP)
		return bad;
	for (i = 0; i < n->n; i++) {
		if (i > 0 && n->v[2 * i - 2]->type == Y_STR &&
		    n->v[2 * i]->type == Y_STR &&
		    strcmp(n->v[2 * i - 2]->s, n->v[2 * i]->s) >= 0) {
			warnmsg("%s:%" PRIu32 ":%" PRIu32 ": key '%s' is out"
			    " of order: the manifest was not written with"
			    " sort_keys", file, n->v[2 * i]->line,
			    n->v[2 * i]->col, n->v[2 * i]->s);
			bad = 1;
		}
		bad |= sorted_keys(file, n->v[2 * i + 1]);
	}
	return bad;
}

/*
 * The manifest against the plan: sorted keys, every planned field equal
 * (command_line ending in the arguments passed, git_commit only when
 * known), one output summary per record.
 */
static int
check(struct plan *p, const char *path, int *mismatches)
{
	struct ydoc doc = { 0 };
	const struct ynode *m, *v, *want, *at;
	const struct ynode *plan = p->manifest;
	char *buf, *a, *b, *tail;
	size_t len, i, tl, vl;
	int gz, rc, bad = 0;

	*mismatches = 1;
	if ((rc = snip_slurp(path, MAX_MANIFEST, &buf, &len, &gz)) == -1) {
		warnmsg("%s: the runner wrote no manifest:", path);
		return 1;
	}
	if (rc < 0)
		return 1;
	if (ydoc_parse(&doc, buf, len) < 0) {
		warnmsg("%s:%" PRIu32 ":%" PRIu32 ": %s", path, doc.errline,
		    doc.errcol, doc.err);
		ydoc_free(&doc);
		free(buf);
		return 1;
	}
	free(buf);
	m = doc.root;
	if (m == NULL || m->type != Y_MAP) {
		warnmsg("%s: the manifest is not a mapping", path);
		ydoc_free(&doc);
		return 1;
	}
	bad += sorted_keys(path, m);
	for (i = 0; i < plan->n; i++) {
		const char *key = plan->v[2 * i]->s;

		want = plan->v[2 * i + 1];
		v = ymap_get(m, key);
		at = v != NULL ? v : m;
		if (v == NULL) {
			warnmsg("%s: no %s", path, key);
			bad++;
			continue;
		}
		if (strcmp(key, "git_commit") == 0 && want->type == Y_NULL)
			continue;
		if (strcmp(key, "command_line") == 0) {
			tail = command_line(p, p->nfixed);
			tl = strlen(tail);
			vl = v->type == Y_STR ? v->len : 0;
			if (vl < tl + 1 || memcmp(v->s + vl - tl, tail, tl) != 0
			    || v->s[vl - tl - 1] != ' ') {
				warnmsg("%s:%" PRIu32 ":%" PRIu32 ":"
				    " command_line does not end with the"
				    " arguments passed: %s", path, at->line,
				    at->col, tail);
				bad++;
			}
			free(tail);
			continue;
		}
		if (!ynode_equal(v, want)) {
			a = py_str(v);
			b = py_str(want);
			warnmsg("%s:%" PRIu32 ":%" PRIu32 ": %s is %s; the"
			    " plan says %s", path, at->line, at->col, key, a,
			    b);
			free(a);
			free(b);
			bad++;
		}
	}
	v = ymap_get(m, "output_summaries");
	want = ymap_get(plan, "record_ids");
	if (v == NULL || v->type != Y_SEQ || v->n != want->n) {
		at = v != NULL ? v : m;
		warnmsg("%s:%" PRIu32 ":%" PRIu32 ": output_summaries is not"
		    " a list of %zu summaries, one per record", path, at->line,
		    at->col, want->n);
		bad++;
	}
	ydoc_free(&doc);
	*mismatches = bad;
	return bad > 0;
}

static void
free_plan(struct plan *p)
{
	size_t i;

	for (i = 0; i < p->argc; i++)
		free(p->argv[i]);
	free(p->argv);
	free(p->run_id);
	free(p->run_dir);
	free(p->git);
	snipcfg_free(&p->c);
}
