/*
 * snip-lint: check profiling-snippet configs as the roboflow/inference
 * runner reads them (same rules, same error texts) and warn about what the
 * runner accepts but surely does not mean.  One NDJSON "diagnostic" record
 * per finding, or lines for a terminal.
 */
#include <getopt.h>
#include <inttypes.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "base/err.h"
#include "base/usage.h"
#include "base/xalloc.h"
#include "io/ndjson.h"
#include "io/pyyaml.h"
#include "snippet/snipcfg.h"
#include "snippet/snipin.h"

/* A profile config is a page of YAML; anything this big is not one. */
#define MAX_CONFIG	(4 << 20)
#define IGNORED		"is ignored by the runner"
#define PASSED		"is passed to the data source, which ignores it"

struct lint {
	const char		*file;
	struct snipcfg		*c;
	struct sdiags		*d;
};

/* inputs: not the runner's, but the section snip-new's targets read. */
static const char *const top_keys[] = {
	"capture_range", "cuda", "data", "data_source", "device", "inputs",
	"iterations", "output_dir", "profile", "profile_name",
	"record_loading", "seed", "target", "validate_output", "warmup",
	"workload", "write_manifest", NULL
};
static const char *const workload_keys[] = {
	"capture_range", "device", "iterations", "record_loading", "seed",
	"validate_output", "warmup", NULL
};
static const char *const target_keys[] = {
	"import_path", "name", "profile_prepare", NULL
};
static const char *const profile_keys[] = { "name", NULL };
static const char *const dummy_keys[] = {
	"image_shape", "include_image", "limit", "name", "parameters",
	"record_count", "source", "tensor_shape", NULL
};
static const char *const images_keys[] = {
	"decode", "directory", "images_dir", "limit", "name", "parameters",
	"paths", "repeat", "source", NULL
};

static int hflag, jflag, wflag;

static void	usage(void) __attribute__((noreturn));
static int	lint_file(const char *, struct jw *);
static void	checks(struct lint *);
static void	names(struct lint *);
static void	keys(struct lint *, const struct ynode *, const char *const *,
		    const char *, const char *, const char *);
static void	shadowed(struct lint *);
static void	bool_field(struct lint *, const struct ynode *, const char *,
		    int);
static void	int_field(struct lint *, const struct ynode *, const char *);
static void	folders(struct lint *);
static void	import_path(struct lint *);
static void	relay(struct lint *, struct sdiag *, int);
static void	data_source(struct lint *);
static void	dir_path(struct lint *, const struct ynode *, const char *);
static size_t	distance(const char *, const char *);
static void	put(const char *, const struct sdiags *, struct jw *);

static const struct optdoc options[] = {
	{ "-h", "one file:line:col: severity: message line per finding" },
	{ "-j", "NDJSON records even to a terminal" },
	{ "-w", "exit 1 on warnings too" },
	{ "--help", "print this help and exit" },
	OPTDOC_END
};
static const struct usage use = {
	"[-hjw] [file ...]",
	"check profiling-snippet configs as the runner reads them",
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
	enum { OPT_HELP = UCHAR_MAX + 1 };
	static const struct option longopts[] = {
		{ "help", no_argument, NULL, OPT_HELP },
		{ NULL, 0, NULL, 0 }
	};
	struct jw *w = NULL;
	int ch, status = 0;

	setprogname(argv[0]);
	while ((ch = getopt_long(argc, argv, "hjw", longopts, NULL)) != -1) {
		switch (ch) {
		case 'h':
			hflag = 1;
			jflag = 0;
			break;
		case 'j':
			jflag = 1;
			hflag = 0;
			break;
		case 'w':
			wflag = 1;
			break;
		case OPT_HELP:
			usage_help(&use);
		default:
			usage();
		}
	}
	argc -= optind;
	argv += optind;

	/* Lines for a person at a terminal, records for everything else. */
	if (!jflag && !hflag && isatty(STDOUT_FILENO))
		hflag = 1;
	if (!hflag)
		w = jw_new(stdout);
	if (argc == 0)
		status = lint_file(NULL, w);
	for (; argc > 0; argc--, argv++)
		status |= lint_file(*argv, w);
	jw_free(w);
	return finish(status);
}

/* Returns 1 when the file has errors (or warnings, with -w). */
static int
lint_file(const char *path, struct jw *w)
{
	struct snipcfg c;
	struct sdiags d = { 0 };
	struct lint l;
	char *buf;
	size_t len;
	int gz, rc, bad;
	const char *name = path == NULL || strcmp(path, "-") == 0 ?
	    "<stdin>" : path;

	if ((rc = snip_slurp(path, MAX_CONFIG, &buf, &len, &gz)) == -1) {
		warnmsg("%s:", path);
		return 1;
	}
	if (rc < 0)
		return 1;
	if (snipcfg_parse(&c, buf, len, &d) < 0 && d.n > 0 &&
	    strcmp(d.v[0].code, "yaml") == 0) {
		/* Not YAML at all: the house message too, as for any tool. */
		if (d.v[0].line > 0)
			warnmsg("%s:%" PRIu32 ":%" PRIu32 ": %s", name,
			    d.v[0].line, d.v[0].col, d.v[0].msg);
		else
			warnmsg("%s: %s", name, d.v[0].msg);
	} else if (c.root != NULL && c.root->type == Y_MAP) {
		l.file = path == NULL || strcmp(path, "-") == 0 ? NULL : path;
		l.c = &c;
		l.d = &d;
		checks(&l);
	}
	sdiag_sort(&d);
	put(name, &d, w);
	bad = sdiag_count(&d, SD_ERROR) > 0 ||
	    (wflag && sdiag_count(&d, SD_WARNING) > 0);
	sdiag_free(&d);
	snipcfg_free(&c);
	free(buf);
	return bad;
}

static void
put(const char *name, const struct sdiags *d, struct jw *w)
{
	const struct sdiag *g;
	size_t i;

	for (i = 0; i < d->n; i++) {
		g = &d->v[i];
		if (w == NULL) {
			if (g->line > 0)
				printf("%s:%" PRIu32 ":%" PRIu32 ": ", name,
				    g->line, g->col);
			else
				printf("%s: ", name);
			printf("%s: %s [%s]\n", g->sev == SD_ERROR ? "error" :
			    "warning", g->msg, g->code);
			continue;
		}
		jw_record(w, "diagnostic");
		jw_key(w, "file");
		jw_cstring(w, name);
		if (g->line > 0) {
			jw_key(w, "line");
			jw_uint(w, g->line);
			jw_key(w, "column");
			jw_uint(w, g->col);
		}
		jw_key(w, "severity");
		jw_cstring(w, g->sev == SD_ERROR ? "error" : "warning");
		jw_key(w, "code");
		jw_cstring(w, g->code);
		jw_key(w, "message");
		jw_cstring(w, g->msg);
		jw_end(w);
	}
}

static void
checks(struct lint *l)
{
	struct snipcfg *c = l->c;
	const struct ynode *v;
	char what[64];
	size_t i;

	keys(l, c->root, top_keys, "", "key", IGNORED);
	keys(l, c->target, target_keys, "target.", "key", IGNORED);
	keys(l, ymap_get(c->root, "profile"), profile_keys, "profile.", "key",
	    IGNORED);
	keys(l, c->workload, workload_keys, "workload.", "key", IGNORED);
	keys(l, c->cuda, snip_cuda_keys, "cuda.", "key", IGNORED);
	shadowed(l);

	bool_field(l, ymap_get(c->target, "profile_prepare"),
	    "target.profile_prepare", 0);
	bool_field(l, ymap_get(c->root, "validate_output"), "validate_output",
	    1);
	bool_field(l, ymap_get(c->workload, "validate_output"),
	    "workload.validate_output", 1);
	bool_field(l, ymap_get(c->root, "write_manifest"), "write_manifest", 1);
	for (i = 0; i < SNIP_NCUDA; i++) {
		snprintf(what, sizeof(what), "cuda.%s", snip_cuda_keys[i]);
		bool_field(l, ymap_get(c->cuda, snip_cuda_keys[i]), what,
		    snip_cuda_default[i]);
	}
	int_field(l, ymap_get(c->root, "warmup"), "warmup");
	int_field(l, ymap_get(c->workload, "warmup"), "warmup");
	int_field(l, ymap_get(c->root, "iterations"), "iterations");
	int_field(l, ymap_get(c->workload, "iterations"), "iterations");
	int_field(l, ymap_get(c->root, "seed"), "seed");
	int_field(l, ymap_get(c->workload, "seed"), "seed");

	if ((v = ymap_get(c->root, "output_dir")) != NULL && v->type == Y_STR &&
	    v->s[0] == '~')
		sdiag_add(l->d, SD_WARNING, v, "tilde", "'~' is not expanded:"
		    " output_dir is taken literally; use an absolute path");
	if (c->record_loading != NULL &&
	    strcmp(c->record_loading, "lazy") == 0 && !c->profile_prepare)
		sdiag_add(l->d, SD_ERROR, c->at_record_loading, "lazy",
		    "Lazy record loading requires target.profile_prepare=true"
		    " because records are not retained for precomputed"
		    " preparation.");
	names(l);
	folders(l);
	import_path(l);
	data_source(l);
	snipin_check(c, l->d);
}

/*
 * What the runner accepts but surely does not mean: a profile name that is
 * not one folder name puts runs outside the snippet tree (snip-run refuses
 * it), and whitespace in capture_range splits the runner's printed nsys
 * command, which leaves --nvtx-capture unquoted, into two shell words.
 */
static void
names(struct lint *l)
{
	struct snipcfg *c = l->c;
	const char *why, *r;

	if ((why = snipcfg_profile_problem(c)) != NULL)
		sdiag_add(l->d, SD_WARNING, c->at_profile_name, "path",
		    "profile_name '%s' %s:"
		    " runs would go to %s/%s/runs/, not to one folder of the"
		    " snippet tree (snip-run refuses it)", c->profile_name,
		    why, c->output_dir, c->profile_name);
	if (c->capture_range == NULL)
		return;
	for (r = c->capture_range; *r != '\0'; r++)
		if (strchr(" \t\n\r\f\v", *r) != NULL)
			break;
	if (*r != '\0')
		sdiag_add(l->d, SD_WARNING, c->at_capture_range,
		    "capture-range", "capture_range '%s' has whitespace: the"
		    " runner prints --nvtx-capture=%s@* unquoted, two shell"
		    " words when pasted (snip-run -p quotes it)",
		    c->capture_range, c->capture_range);
}

/* Unknown and repeated keys of one mapping: "unknown <noun> ... <fate>". */
static void
keys(struct lint *l, const struct ynode *m, const char *const *known,
    const char *prefix, const char *noun, const char *fate)
{
	const struct ynode *k;
	const char *best;
	size_t i, j, dist, bestd;
	char *s;

	if (m == NULL || m->type != Y_MAP)
		return;
	for (i = 0; i < m->n; i++) {
		k = m->v[2 * i];
		/* Keys a merge brings in may repeat: later ones override. */
		if (k->type == Y_STR && i >= m->nmerged &&
		    ymap_key(m, k->s) != k) {
			sdiag_add(l->d, SD_WARNING, k, "duplicate", "duplicate"
			    " key '%s%s': the last one wins", prefix, k->s);
			continue;
		}
		if (k->type == Y_STR)
			for (j = 0; known[j] != NULL; j++)
				if (strcmp(known[j], k->s) == 0)
					break;
		if (k->type == Y_STR && known[j] != NULL)
			continue;
		s = py_str(k);
		best = NULL;
		bestd = 3;
		for (j = 0; known[j] != NULL; j++)
			if ((dist = distance(s, known[j])) < bestd) {
				bestd = dist;
				best = known[j];
			}
		if (k->type != Y_STR)
			sdiag_add(l->d, SD_WARNING, k, "unknown-key", "%s %s%s"
			    " is a %s, not a string, and %s", noun, prefix, s,
			    ytype_name(k), fate);
		else if (best != NULL)
			sdiag_add(l->d, SD_WARNING, k, "unknown-key", "unknown"
			    " %s '%s%s' %s; did you mean '%s%s'?", noun,
			    prefix, s, fate, prefix, best);
		else
			sdiag_add(l->d, SD_WARNING, k, "unknown-key", "unknown"
			    " %s '%s%s' %s", noun, prefix, s, fate);
		free(s);
	}
}

/* Levenshtein distance, for "did you mean"; keys are short. */
static size_t
distance(const char *a, const char *b)
{
	size_t la = strlen(a), lb = strlen(b), i, j, prev, cur, t;
	size_t row[64];

	if (la >= 64 || lb >= 64)
		return SIZE_MAX;
	for (j = 0; j <= lb; j++)
		row[j] = j;
	for (i = 1; i <= la; i++) {
		prev = row[0];
		row[0] = i;
		for (j = 1; j <= lb; j++) {
			cur = row[j];
			t = prev + (a[i - 1] != b[j - 1]);
			if (row[j] + 1 < t)
				t = row[j] + 1;
			if (row[j - 1] + 1 < t)
				t = row[j - 1] + 1;
			row[j] = t;
			prev = cur;
		}
	}
	return row[lb];
}

/* Keys the runner reads from two places, where one hides the other. */
static void
shadowed(struct lint *l)
{
	static const char *const work[] = {
		"capture_range", "device", "iterations", "record_loading",
		"seed", "validate_output", "warmup", NULL
	};
	struct snipcfg *c = l->c;
	const struct ynode *v, *k, *p;
	size_t i;

	if (ymap_key(c->root, "data_source") != NULL &&
	    (k = ymap_key(c->root, "data")) != NULL)
		sdiag_add(l->d, SD_WARNING, k, "shadowed", "'data' is ignored:"
		    " 'data_source' takes precedence");
	if ((v = ymap_get(c->root, "profile_name")) != NULL && py_bool(v) &&
	    (k = ymap_key(ymap_get(c->root, "profile"), "name")) != NULL)
		sdiag_add(l->d, SD_WARNING, k, "shadowed", "'profile.name' is"
		    " ignored: 'profile_name' takes precedence");
	if (c->data != NULL && (v = ymap_get(c->data, "name")) != NULL &&
	    py_bool(v) && (k = ymap_key(c->data, "source")) != NULL)
		sdiag_add(l->d, SD_WARNING, k, "shadowed", "'source' is"
		    " ignored: 'name' takes precedence");
	for (i = 0; work[i] != NULL; i++)
		if (ymap_key(c->root, work[i]) != NULL &&
		    (k = ymap_key(c->workload, work[i])) != NULL)
			sdiag_add(l->d, SD_WARNING, k, "shadowed", "workload.%s"
			    " is ignored: the top-level %s takes precedence",
			    work[i], work[i]);
	p = c->data != NULL ? ymap_get(c->data, "parameters") : NULL;
	if (p != NULL && p->type == Y_MAP)
		for (i = 0; i < p->n; i++) {
			k = p->v[2 * i];
			if (k->type == Y_STR && strcmp(k->s, "name") != 0 &&
			    strcmp(k->s, "source") != 0 &&
			    strcmp(k->s, "parameters") != 0 &&
			    ymap_key(c->data, k->s) != NULL)
				sdiag_add(l->d, SD_WARNING, k, "shadowed",
				    "parameters.%s is ignored: the flat key %s"
				    " takes precedence", k->s, k->s);
		}
}

/* A value the runner passes through bool(). */
static void
bool_field(struct lint *l, const struct ynode *v, const char *what, int def)
{
	char *r;

	if (v == NULL)
		return;
	if (v->type == Y_STR) {
		r = py_repr_str(v->s, v->len);
		sdiag_add(l->d, SD_WARNING, v, "quoted-bool", "%s: the string"
		    " %s is %s to the runner, which applies bool() (true for"
		    " any non-empty string); write true or false unquoted",
		    what, r, v->len > 0 ? "true" : "false");
		free(r);
	} else if (v->type == Y_NULL && def)
		sdiag_add(l->d, SD_WARNING, v, "null-bool", "%s: an empty"
		    " value is null, which the runner reads as false, not as"
		    " the default true", what);
	else if (v->type != Y_BOOL && v->type != Y_NULL)
		sdiag_add(l->d, SD_WARNING, v, "not-bool", "%s: a value of"
		    " type %s where a boolean belongs is %s to the runner",
		    what, ytype_name(v), py_bool(v) ? "true" : "false");
}

/* A value the runner passes through int(). */
static void
int_field(struct lint *l, const struct ynode *v, const char *what)
{
	int64_t i;
	char err[200], *s;

	if (v == NULL || v->type == Y_INT || v->type == Y_NULL ||
	    py_int(v, &i, err, sizeof(err)) < 0)
		return;
	/* A string as repr() shows it: its blanks and digits may be any. */
	s = v->type == Y_STR ? py_repr_str(v->s, v->len) : py_str(v);
	sdiag_add(l->d, SD_WARNING, v, "int-coerce", "%s: %s %s becomes"
	    " %" PRId64 " through int(); write an integer", what,
	    v->type == Y_FLOAT ? "the float" : v->type == Y_BOOL ?
	    "the boolean" : v->type == Y_BYTES ? "the bytes" : "the string",
	    s, i);
	free(s);
}

/*
 * Runs land in output_dir/profile_name/runs/: a snippet folder named
 * otherwise (my_profile for my-profile) never holds its runs.
 */
static void
folders(struct lint *l)
{
	struct snipcfg *c = l->c;
	char *norm, *slash, cwd[PATH_MAX], *ip, *prefix;
	const char *base, *dirname = NULL, *e;
	size_t n;

	if (c->profile_name == NULL || *c->profile_name == '\0')
		return;
	if (l->file != NULL) {
		norm = snip_path(l->file);
		base = snip_path_name(norm);
		if (strcmp(base, "config.yaml") == 0 ||
		    strcmp(base, "config.yml") == 0) {
			if ((slash = strrchr(norm, '/')) != NULL) {
				*slash = '\0';
				dirname = snip_path_name(norm);
			} else if (getcwd(cwd, sizeof(cwd)) != NULL)
				dirname = snip_path_name(cwd);
			if (dirname != NULL && *dirname != '\0' &&
			    strcmp(dirname, c->profile_name) != 0)
				sdiag_add(l->d, SD_WARNING, c->at_profile_name,
				    "folder", "profile_name '%s' differs from"
				    " this config's folder '%s': runs go to"
				    " %s/%s/runs/, not beside the config",
				    c->profile_name, dirname, c->output_dir,
				    c->profile_name);
		}
		free(norm);
	}
	if (c->import_path == NULL)
		return;
	n = strcspn(c->import_path, ":");
	ip = xmemdup(c->import_path, n);
	norm = snip_path(ip);
	n = strlen(c->output_dir) + 2;
	prefix = xmalloc(n);
	snprintf(prefix, n, "%s/", c->output_dir);
	if (strncmp(norm, prefix, n - 1) == 0) {
		base = norm + n - 1;
		e = strchr(base, '/');
		if (e != NULL && ((size_t)(e - base) != strlen(c->profile_name) ||
		    strncmp(base, c->profile_name, (size_t)(e - base)) != 0))
			sdiag_add(l->d, SD_WARNING, ymap_get(c->target,
			    "import_path"), "folder", "import_path is in"
			    " folder '%.*s' but profile_name is '%s': runs go"
			    " to %s/%s/runs/, not beside the target",
			    (int)(e - base), base, c->profile_name,
			    c->output_dir, c->profile_name);
	}
	free(prefix);
	free(norm);
	free(ip);
}

/* resolve_target() and what it cannot see: the attribute, '~', .py. */
static void
import_path(struct lint *l)
{
	struct snipcfg *c = l->c;
	const struct ynode *at = ymap_get(c->target, "import_path");
	struct sdiags d = { 0 };
	const char *colon, *attr;
	size_t i, n;

	snipcfg_target(c, &d);
	/* Relative to where the runner starts, not to here: a warning. */
	for (i = 0; i < d.n; i++)
		if (strcmp(d.v[i].code, "import-missing") == 0 &&
		    c->import_path[0] == '~')
			free(d.v[i].msg);	/* the '~' warning says why */
		else
			relay(l, &d.v[i], strcmp(d.v[i].code,
			    "import-missing") == 0 ? SD_WARNING : d.v[i].sev);
	free(d.v);
	if (c->import_path == NULL ||
	    (colon = strchr(c->import_path, ':')) == NULL)
		return;
	attr = colon + 1;
	for (i = 0; attr[i] != '\0'; i++)
		if (!(attr[i] == '_' || (attr[i] >= 'a' && attr[i] <= 'z') ||
		    (attr[i] >= 'A' && attr[i] <= 'Z') ||
		    (i > 0 && attr[i] >= '0' && attr[i] <= '9')))
			break;
	if (attr[i] != '\0')
		sdiag_add(l->d, SD_WARNING, at, "import-path", "'%s' is not a"
		    " Python identifier; the target file cannot expose it",
		    attr);
	if (c->import_path[0] == '~')
		sdiag_add(l->d, SD_WARNING, at, "tilde", "'~' is not expanded:"
		    " import_path is taken literally; use an absolute path");
	n = (size_t)(colon - c->import_path);
	if (n < 3 || strncmp(colon - 3, ".py", 3) != 0)
		sdiag_add(l->d, SD_WARNING, at, "import-path", "import_path"
		    " names '%.*s', not a .py file", (int)n, c->import_path);
}

/* Moves a diagnostic from a list of the library's into the lint's. */
static void
relay(struct lint *l, struct sdiag *g, int sev)
{
	sdiag_add(l->d, sev, NULL, g->code, "%s", g->msg);
	l->d->v[l->d->n - 1].line = g->line;
	l->d->v[l->d->n - 1].col = g->col;
	free(g->msg);
}

/* The data source as the runner would build it, and its parameters. */
static void
data_source(struct lint *l)
{
	struct snipcfg *c = l->c;
	struct sdiags d = { 0 };
	struct ynode *desc;
	const struct ynode *p, *v;
	const char *const *known = NULL;
	size_t i;

	if (c->ds_name == NULL || *c->ds_name == '\0')
		return;
	if (strcmp(c->ds_name, "dummy") == 0) {
		known = dummy_keys;
		int_field(l, ymap_get(c->params, "record_count"),
		    "record_count");
		int_field(l, ymap_get(c->params, "limit"), "limit");
		bool_field(l, ymap_get(c->params, "include_image"),
		    "include_image", 1);
	} else if (strcmp(c->ds_name, "images") == 0) {
		known = images_keys;
		int_field(l, ymap_get(c->params, "limit"), "limit");
		int_field(l, ymap_get(c->params, "repeat"), "repeat");
		bool_field(l, ymap_get(c->params, "decode"), "decode", 1);
		dir_path(l, ymap_get(c->params, "directory"), "directory");
		dir_path(l, ymap_get(c->params, "images_dir"), "images_dir");
		v = ymap_get(c->params, "paths");
		if (v != NULL && (v->type == Y_SEQ || v->type == Y_SET))
			for (i = 0; i < v->n; i++)
				dir_path(l, v->v[i], "paths");
		else
			dir_path(l, v, "paths");
		if (v != NULL && v->type == Y_SET && v->n > 1)
			sdiag_add(l->d, SD_WARNING, v, "set-order", "paths is"
			    " a set (!!set): the runner takes its items in hash"
			    " order, which changes from one process to the"
			    " next, and so does the order of the records; write"
			    " a list");
	}
	if (known != NULL) {
		keys(l, c->data, known, "", "parameter", PASSED);
		p = ymap_get(c->data, "parameters");
		keys(l, p, known, "parameters.", "parameter", PASSED);
	}
	snipcfg_records(c, &desc, &d);
	/* Facts of this machine, not of the config: warnings. */
	for (i = 0; i < d.n; i++) {
		if (strcmp(d.v[i].code, "too-many") == 0)
			free(d.v[i].msg);
		else
			relay(l, &d.v[i], strcmp(d.v[i].code, "images-dir") ==
			    0 ? SD_WARNING : d.v[i].sev);
	}
	free(d.v);
}

static void
dir_path(struct lint *l, const struct ynode *v, const char *what)
{
	if (v == NULL || v->type != Y_STR || v->len == 0)
		return;
	if (v->s[0] == '~')
		sdiag_add(l->d, SD_WARNING, v, "tilde", "'~' is not expanded:"
		    " %s '%s' is taken literally; use an absolute path", what,
		    v->s);
	else if (v->s[0] != '/')
		sdiag_add(l->d, SD_WARNING, v, "relative-path", "%s '%s' is"
		    " relative: it is taken from the directory the runner"
		    " starts in (the repository root), not from this config's",
		    what, v->s);
}
