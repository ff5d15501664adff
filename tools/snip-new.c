/*
 * snip-new: scaffold a profiling snippet (target.py, config.yaml,
 * README.md) for roboflow/inference's profiling runner from one Python
 * definition.  It reads the source and writes only new files: it never
 * edits the source, never replaces a snippet without -f, never runs
 * anything.  The plan of the snippet is lib/snippet/snipplan's, its files
 * are lib/snippet/snipwrite's; here are the command line, the tables and
 * --from-trace, which reads a trace as op-rank does.
 */
#include <ctype.h>
#include <errno.h>
#include <fnmatch.h>
#include <getopt.h>
#include <limits.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "base/err.h"
#include "base/githead.h"
#include "base/progdir.h"
#include "base/sha256.h"
#include "base/strbuf.h"
#include "base/usage.h"
#include "base/xalloc.h"
#include "io/inputrec.h"
#include "io/ndjson.h"
#include "snippet/pyenv.h"
#include "snippet/pyscope.h"
#include "snippet/pysrc.h"
#include "snippet/replay.h"
#include "snippet/snipcfg.h"
#include "snippet/snipin.h"
#include "snippet/snipout.h"
#include "snippet/snipplan.h"
#include "snippet/snipwrite.h"
#include "trace/callshape.h"
#include "trace/extract.h"
#include "trace/opcalls.h"
#include "trace/opcost.h"
#include "trace/oprank.h"

#define RANGE_TABLE	"snippet-ranges.tsv"
#define REPLAY_TABLE	"replay-ops.tsv"

static int fflag;
static const char *Dflag = "cuda", *iflag, *lflag, *mflag, *nflag;
static const char *oflag = SNIP_DEFAULT_DIR, *pflag, *rflag;
/* --from-trace, --op, --nth: a replay of an operator from a trace. */
static const char *tflag, *opflag;
static long long nthflag = 1;

/* The op_shape records of a trace, of one operator or all, in order. */
struct shapes {
	const char	*name;		/* NULL: every operator's */
	struct jdoc	*v;
	size_t		 n;
};

/* What feeds op-rank in process: its aggregator and the trace's name. */
struct rankfeed {
	struct oprank	*op;
	const char	*file;
};

static void	usage(void) __attribute__((noreturn));
static int	has_control(const char *);
static char	*profile_of(const char *);
static int	valid_profile(const char *);
static char	*class_of(const char *);
static char	*open_table(const char *, FILE **);
static void	load_rules(struct rules *);
static void	put_record(const struct snip *, struct jw *);
static int	from_trace(void);
static void	trace_shapes(const char *, struct shapes *);
static int	feed_rank(void *, const struct jdoc *);
static int	keep_shape(void *, const struct jdoc *);
static int	keep_doc(void *, const struct jdoc *);
static char	*replay_profile(const char *, long long);
static void	put_replay(struct jw *, const char *, const char *,
		    const struct replay *, const struct opcalls *,
		    const struct opgroup *, long long);

static const struct optdoc options[] = {
	{ "-D device", "the config's device, such as cuda:0" },
	{ "-f", "replace the files of an existing snippet" },
	{ "-i images", "the images data source" },
	{ "-l first[-last]", "copy the function holding these lines" },
	{ "-m module", "the production module's import name" },
	{ "-n qualname", "copy the function with this qualified name" },
	{ "-o dir", "the snippets directory" },
	{ "-p profile", "the profile and folder name" },
	{ "-r table",
	    "the range table (with --from-trace, the operator table)" },
	{ "--from-trace trace", "replay one operator shape of a trace" },
	{ "--op name", "the operator to replay (default: the costliest)" },
	{ "--nth k", "its k-th costliest shape (default: 1)" },
	OPTDOC_HELP,
	OPTDOC_END
};
static const struct usage use = {
	"[-f] [-D device] [-i images] [-l lines] [-m module] [-n qualname] "
	    "[-o dir] [-p profile] [-r table] file\n"
	    "[-f] [-D device] [-o dir] [-p profile] [-r table] --from-trace "
	    "trace [--op name] [--nth k]",
	"scaffold a profiling snippet from one Python function, or from one"
	    " operator of a trace",
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
		{ "from-trace", required_argument, NULL, 'T' },
		{ "op", required_argument, NULL, 'O' },
		{ "nth", required_argument, NULL, 'N' },
		{ NULL, 0, NULL, 0 }
	};
	struct pysrc src;
	struct snip sn;
	struct rules rules;
	struct sha256 h;
	struct strbuf py = { 0 }, cfg = { 0 }, md = { 0 };
	struct snipfiles files;
	struct stat st;
	struct jw *w;
	uint32_t first = 0, last = 0;
	char *dir, *slash;
	size_t i;
	int ch, up;

	setprogname(argv[0]);
	while ((ch = getopt_long(argc, argv, "D:fi:l:m:n:o:p:r:h", longopts,
	    NULL)) != -1) {
		switch (ch) {
		case 'D':
			if (*optarg == '\0' || optarg[strspn(optarg,
			    "abcdefghijklmnopqrstuvwxyz0123456789:")] != '\0')
				die_usage("-D: device is invalid: %s", optarg);
			Dflag = optarg;
			break;
		case 'f':
			fflag = 1;
			break;
		case 'i':
			if (has_control(optarg))
				die_usage("-i: the directory has a control"
				    " character");
			iflag = optarg;
			break;
		case 'l':
			lflag = optarg;
			break;
		case 'm':
			if (!plan_dotted(optarg))
				die_usage("-m: module is no dotted Python name:"
				    " %s", optarg);
			mflag = optarg;
			break;
		case 'n':
			nflag = optarg;
			break;
		case 'o':
			if (has_control(optarg))
				die_usage("-o: the directory has a control"
				    " character");
			oflag = optarg;
			break;
		case 'p':
			if (!valid_profile(optarg))
				die_usage("-p: profile name is invalid (letters,"
				    " digits, '.', '_' and '-'): %s", optarg);
			pflag = optarg;
			break;
		case 'r':
			rflag = optarg;
			break;
		case 'T':
			tflag = optarg;
			break;
		case 'O':
			opflag = optarg;
			break;
		case 'N':
			nthflag = parse_num(optarg, 1, INT_MAX, "--nth");
			break;
		case 'h':
			usage_help(&use);
		default:
			usage();
		}
	}
	argc -= optind;
	argv += optind;
	if (tflag != NULL) {
		if (argc != 0 || iflag != NULL || lflag != NULL ||
		    mflag != NULL || nflag != NULL)
			die_usage("--from-trace takes no file and none of -i,"
			    " -l, -m, -n");
		if (*oflag == '\0')
			die_usage("-o: directory is empty");
		return finish(from_trace());
	}
	if (opflag != NULL || nthflag != 1)
		die_usage("--op and --nth go with --from-trace");
	if (argc != 1)
		usage();
	if (nflag == NULL && lflag == NULL)
		die_usage("name the definition with -n or -l");
	if (lflag != NULL) {
		char *dash;

		dir = xstrdup(lflag);
		if ((dash = strchr(dir, '-')) != NULL)
			*dash++ = '\0';
		first = (uint32_t)parse_num(dir, 1, UINT32_MAX,
		    "-l: first line");
		last = dash == NULL ? first : (uint32_t)parse_num(dash, 1,
		    UINT32_MAX, "-l: last line");
		free(dir);
		if (last < first)
			die_usage("-l: line range is invalid: %s", lflag);
	}
	if (*oflag == '\0')
		die_usage("-o: directory is empty");

	memset(&sn, 0, sizeof(sn));
	sn.file = argv[0];
	sn.device = Dflag;
	sn.images = iflag;
	{
		char *m = plan_module_of(sn.file, &sn.root);

		if (mflag != NULL) {
			/* Production's own name: its root is the user's. */
			sn.module = xstrdup(mflag);
			free(m);
			free(sn.root);
			sn.root = NULL;
		} else if ((sn.module = m) == NULL)
			die_usage("%s: no module name in the path (a .py file"
			    " whose folders up to its package root are"
			    " identifiers): give -m", sn.file);
		if (sn.root == NULL)
			sn.root = xstrdup(".");
	}
	load_rules(&rules);
	if (pysrc_read(&src, sn.file) < 0)
		exit(1);
	if (strcmp(sn.root, ".") != 0)
		warnmsg("%s: warning: module %s is imported from %s, its"
		    " package root, not from the current directory: the"
		    " README's commands put %s on PYTHONPATH; if production"
		    " imports it by another name, give -m", sn.file,
		    sn.module, sn.root, sn.root);
	sha256_init(&h);
	sha256_update(&h, src.text, src.len);
	sha256_hex(&h, sn.sha);
	sn.s = &src;
	sn.d = plan_pick(&src, nflag, &first, &last);
	if (sn.d == SIZE_MAX) {
		plan_module_lines(&sn, &src, first, last);
		first = last = 0;
	}
	sn.f = &src.def[sn.d];
	sn.first_line = sn.mod_first != 0 ? sn.mod_first : sn.f->decorator;
	sn.last_line = sn.mod_first != 0 ? sn.mod_last : sn.f->end;
	if (sn.f->type == PD_CLASS)
		die("%s:%u: %s is a class: name one of its methods", src.name,
		    sn.f->line, sn.f->qualname);
	/*
	 * A copy at module level loses the names of the functions around
	 * it, so its closure, defaults or decorators would raise NameError.
	 */
	for (up = sn.f->parent; up >= 0; up = src.def[up].parent)
		if (src.def[up].type != PD_CLASS)
			die("%s:%u: %s is nested in function %s: a copy at"
			    " module level would lose the names of %s;"
			    " profile %s instead", src.name, sn.f->line,
			    sn.f->qualname, src.def[up].qualname,
			    src.def[up].qualname, src.def[up].qualname);
	sn.profile = pflag != NULL ? xstrdup(pflag) :
	    profile_of(sn.f->qualname);
	if (!valid_profile(sn.profile))
		die("%s: no profile name can be made from %s: give -p",
		    src.name, sn.f->qualname);
	sn.tclass = class_of(sn.profile);
	sn.odir = snip_path(oflag);
	sn.folder = snip_path_join(sn.odir, sn.profile);
	sn.config = snip_path_join(sn.folder, "config.yaml");
	sn.target = snip_path_join(sn.folder, "target.py");
	sn.readme = snip_path_join(sn.folder, "README.md");

	dir = xstrdup(sn.file);
	if ((slash = strrchr(dir, '/')) != NULL)
		*slash = '\0';
	sn.git = git_head(slash != NULL ? (*dir ? dir : "/") : ".");
	free(dir);

	{
		const struct pystmt *z = &src.stmt[src.line[sn.f->end].stmt];

		sn.use_first = src.stmt[src.line[sn.f->decorator].stmt].tok;
		sn.use_end = z->tok + z->ntok;
	}
	plan_params(&sn);
	plan_method_kind(&sn);
	plan_inputs(&sn);
	plan_import_blocks(&sn);
	plan_helpers(&sn);
	plan_patch_method(&sn);
	plan_environment(&sn);
	sn.tvar = plan_own_name(&sn, "target");
	sn.devvar = plan_own_name(&sn, "PROFILE_DEVICE");
	{
		char *tclass = plan_own_name(&sn, sn.tclass);

		free(sn.tclass);
		sn.tclass = tclass;
	}
	plan_regions(&sn, &rules, first, last);
	snipw_target(&sn, &py);
	snipw_config(&sn, &cfg);
	snipw_readme(&sn, &cfg, &md);

	files = (struct snipfiles){ sn.odir, sn.profile, sn.folder, sn.target,
	    sn.config, sn.readme, &py, &cfg, &md };
	if (stat(sn.folder, &st) == 0) {
		if (!fflag)
			die("%s: exists; -f replaces its target.py, config.yaml"
			    " and README.md", sn.folder);
		if (snip_replace_files(&files) < 0)
			exit(1);
	} else if (snip_new_folder(&files) < 0)
		exit(1);

	w = jw_new(stdout);
	put_record(&sn, w);
	jw_free(w);

	for (i = 0; i < sn.npar; i++) {
		free(sn.par[i].name);
		free(sn.par[i].ann);
		snipin_free(&sn.in[i]);
	}
	free(sn.in);
	for (i = 0; i < sn.nreg; i++) {
		free(sn.reg[i].label);
		free(sn.reg[i].base);
	}
	for (i = 0; i < sn.nhelpers; i++)
		free(sn.helpers[i]);
	free(sn.par);
	free(sn.reg);
	free(sn.helpers);
	free(sn.blk);
	envlist_free(&sn.env);
	names_free(&sn.modparams);
	free(sn.module);
	free(sn.root);
	free(sn.profile);
	free(sn.odir);
	free(sn.folder);
	free(sn.config);
	free(sn.target);
	free(sn.readme);
	free(sn.tclass);
	free(sn.tvar);
	free(sn.devvar);
	free(sn.git);
	free(sn.strip);
	free(sn.unit);
	free(sn.owner);
	free(sn.dropped.s);
	free(sn.skipped.s);
	free(py.s);
	free(cfg.s);
	free(md.s);
	free(rules.v);
	free(rules.text);
	if (sn.patched != NULL) {
		pysrc_free(sn.patched);
		free(sn.patched);
	}
	pysrc_free(&src);
	return finish(0);
}

/*
 * Whether s has a control character: a path with one would end a line of
 * the README's commands.
 */
static int
has_control(const char *s)
{
	for (; *s != '\0'; s++)
		if ((unsigned char)*s < 0x20 || *s == 0x7f)
			return 1;
	return 0;
}

/* Detector.post_process -> detector-post-process */
static char *
profile_of(const char *qualname)
{
	char *p = xstrdup(qualname), *c;

	for (c = p; *c != '\0'; c++) {
		if (*c == '_' || *c == '.')
			*c = '-';
		else if (*c >= 'A' && *c <= 'Z')
			*c = (char)(*c - 'A' + 'a');
	}
	c = p;
	while (*c == '-')
		c++;
	memmove(p, c, strlen(c) + 1);
	return p;
}

/* A name that is safe as a folder name and as a plain YAML scalar. */
static int
valid_profile(const char *p)
{
	return p[0] != '\0' && p[0] != '.' && p[0] != '-' &&
	    p[strspn(p, "abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ"
	    "0123456789._-")] == '\0';
}

/* nms-fast -> NmsFastTarget */
static char *
class_of(const char *profile)
{
	struct strbuf b = { 0 };
	int up = 1;

	if (*profile >= '0' && *profile <= '9')
		sb_puts(&b, "Profile");
	for (; *profile != '\0'; profile++) {
		char c = *profile;

		if (c == '-' || c == '_' || c == '.') {
			up = 1;
			continue;
		}
		if (up && c >= 'a' && c <= 'z')
			c = (char)(c - 'a' + 'A');
		sb_put(&b, &c, 1);
		up = 0;
	}
	sb_puts(&b, "Target");
	return b.s;
}

/*
 * A table of the rubric: -r when given, else name where rubric_find()
 * finds it.  Opens it into *f; returns its path, which the caller frees.
 */
static char *
open_table(const char *name, FILE **f)
{
	struct strbuf path = { 0 };
	char *dir;

	*f = NULL;
	if (rflag != NULL) {
		if ((*f = fopen(rflag, "r")) == NULL)
			die("%s:", rflag);
		return xstrdup(rflag);
	}
	if ((dir = rubric_find(name)) == NULL)
		die("no %s found in %s: give -r or set MRP_RUBRIC", name,
		    rubric_places());
	sb_printf(&path, "%s/%s", dir, name);
	free(dir);
	if ((*f = fopen(path.s, "r")) == NULL)
		die("%s:", path.s);
	return path.s;
}

/* The range table: see open_table(). */
static void
load_rules(struct rules *r)
{
	char *line, *next, *paren, *tried;
	struct strbuf text = { 0 };
	FILE *f;
	size_t lineno = 0, got, plen;
	char chunk[4096];

	memset(r, 0, sizeof(*r));
	tried = open_table(RANGE_TABLE, &f);
	while ((got = fread(chunk, 1, sizeof(chunk), f)) > 0)
		sb_put(&text, chunk, got);
	if (ferror(f))
		die("%s:", tried);
	fclose(f);
	if (text.s == NULL)
		sb_puts(&text, "");
	r->text = text.s;
	r->v = xreallocarray(NULL, text.len / 4 + 1, sizeof(*r->v));
	for (line = text.s; line != NULL && *line != '\0'; line = next) {
		char *tab1, *tab2;

		lineno++;
		if ((next = strchr(line, '\n')) != NULL)
			*next++ = '\0';
		line[strcspn(line, "\r")] = '\0';
		if (line[0] == '#' || line[strspn(line, " \t")] == '\0')
			continue;
		if ((tab1 = strchr(line, '\t')) == NULL ||
		    (tab2 = strchr(tab1 + 1, '\t')) == NULL ||
		    strchr(tab2 + 1, '\t') != NULL || tab1 == line ||
		    tab2[1] == '\0')
			die_usage("%s:%zu: expected range<TAB>match<TAB>pattern",
			    tried, lineno);
		*tab1 = *tab2 = '\0';
		if (strcmp(tab1 + 1, "call") == 0)
			r->v[r->n].kind = R_CALL;
		else if (strcmp(tab1 + 1, "name") == 0)
			r->v[r->n].kind = R_NAME;
		else if (strcmp(tab1 + 1, "helper") == 0)
			r->v[r->n].kind = R_HELPER;
		else
			die_usage("%s:%zu: match is \"call\", \"name\" or"
			    " \"helper\", not \"%s\"", tried, lineno, tab1 + 1);
		if (strcmp(line, "*") == 0 ? r->v[r->n].kind != R_HELPER :
		    line[strspn(line, "abcdefghijklmnopqrstuvwxyz"
		    "ABCDEFGHIJKLMNOPQRSTUVWXYZ0123456789_ .:-")] != '\0')
			die_usage("%s:%zu: range name has a character other"
			    " than letters, digits, ' ', '.', ':', '_', '-'"
			    " (or is *, for a helper rule)", tried, lineno);
		r->v[r->n].range = line;
		r->v[r->n].pattern = tab2 + 1;
		r->v[r->n].args = NULL;
		/* to(*device*): a call of to with a name like that inside. */
		if ((paren = strchr(tab2 + 1, '(')) != NULL) {
			plen = strlen(paren);
			if (r->v[r->n].kind != R_CALL || paren == tab2 + 1 ||
			    plen < 3 || paren[plen - 1] != ')')
				die_usage("%s:%zu: a pattern with '(' is"
				    " call<TAB>name(argument), as"
				    " to(*device*)", tried, lineno);
			*paren = paren[plen - 1] = '\0';
			r->v[r->n].args = paren + 1;
		}
		r->n++;
	}
	free(tried);
}

static void
put_record(const struct snip *sn, struct jw *w)
{
	size_t i;

	jw_record(w, "snippet");
	jw_key(w, "dir");
	jw_cstring(w, sn->folder);
	jw_key(w, "profile_name");
	jw_cstring(w, sn->profile);
	jw_key(w, "config");
	jw_cstring(w, sn->config);
	jw_key(w, "target");
	jw_cstring(w, sn->target);
	jw_key(w, "readme");
	jw_cstring(w, sn->readme);
	jw_key(w, "source");
	jw_cstring(w, sn->s->name);
	jw_key(w, "module");
	jw_cstring(w, sn->module);
	jw_key(w, "package_root");
	jw_cstring(w, sn->root);
	jw_key(w, "qualname");
	jw_cstring(w, sn->f->qualname);
	jw_key(w, "first_line");
	jw_uint(w, sn->first_line);
	jw_key(w, "last_line");
	jw_uint(w, sn->last_line);
	jw_key(w, "sha256");
	jw_cstring(w, sn->sha);
	jw_key(w, "git_commit");
	jw_cstring_or_null(w, sn->git);
	jw_key(w, "inputs");
	jw_begin_array(w);
	for (i = 0; i < sn->npar; i++) {
		static const char *const given[] = {
			"none", "default", "device", "from", "shape", "value",
			"call"
		};
		const struct snipin *in = &sn->in[i];

		jw_begin_object(w);
		jw_key(w, "name");
		jw_cstring(w, sn->par[i].name);
		jw_key(w, "given");
		jw_cstring(w, sn->method == M_CLASS && i == 0 ? "class" :
		    given[in->kind]);
		jw_key(w, "set");
		jw_bool(w, !snipw_user_sets(in));
		jw_end_object(w);
	}
	jw_end_array(w);
	jw_key(w, "environment");
	jw_begin_array(w);
	for (i = 0; i < sn->env.n; i++)
		if (sn->env.v[i].var != NULL && (i == 0 ||
		    sn->env.v[i - 1].var == NULL ||
		    strcmp(sn->env.v[i - 1].var, sn->env.v[i].var) != 0))
			jw_cstring(w, sn->env.v[i].var);
	jw_end_array(w);
	jw_key(w, "ranges");
	jw_begin_array(w);
	for (i = 0; i < sn->nreg; i++) {
		jw_begin_object(w);
		jw_key(w, "name");
		jw_cstring(w, sn->reg[i].label);
		jw_key(w, "first");
		jw_uint(w, plan_source_line(sn, sn->reg[i].first));
		jw_key(w, "last");
		jw_uint(w, plan_source_line(sn, sn->reg[i].last));
		jw_end_object(w);
	}
	jw_end_array(w);
	jw_end(w);
}

/*
 * --from-trace: a snippet that replays one shape of an operator's calls.
 * The shape is op-rank's: the nth op_shape record (of --op), ranked by
 * GPU time and then self CPU time, as the report's Compute efficiency
 * table ranks them; an operator op-rank does not cost is ranked by the
 * same among the shapes of its calls.  Its kernels come from the calls
 * themselves (opcalls).  Returns the exit status.
 */
static int
from_trace(void)
{
	struct replay_table tab;
	struct replay rp;
	struct opcalls oc;
	struct opcalls_opts oo = { NULL, NULL, 0, 0 };
	struct shapes sh = { opflag, NULL, 0 };
	struct shapenodes in;
	struct jdoc calls, *shape = NULL;
	struct strbuf key = { 0 }, py = { 0 }, cfg = { 0 }, md = { 0 };
	struct strbuf cmd = { 0 }, ip = { 0 }, ranked = { 0 };
	struct snipfiles files;
	struct snipconf conf;
	struct replay_src src;
	struct replay_out out;
	const struct opgroup *g;
	const char *name = opflag;
	char *table, *err, *profile, *odir, *folder, *config, *target, *readme;
	char *q, sha[65];
	uint64_t size;
	struct stat st;
	struct jw *w;
	FILE *f;
	double us;
	size_t i;
	int rc, gpu;

	table = open_table(REPLAY_TABLE, &f);
	replay_table_load(&tab, f, table);
	fclose(f);
	if (inputrec_hash(tflag, &size, sha) < 0)
		die("%s:", tflag);
	/* An operator op-rank costs is ranked as the report ranks it. */
	if (opflag == NULL || opcost_model(opflag) != OM_NONE) {
		trace_shapes(tflag, &sh);
		if (sh.n == 0)
			die("%s: no shapes of %s%s: op-rank costs the calls of"
			    " a trace recorded with record_shapes=True", tflag,
			    opflag != NULL ? opflag : "the operators op-rank"
			    " costs", opflag != NULL ? " to cost" : "");
		if ((size_t)nthflag > sh.n)
			die("%s: %s has %zu shape%s; --nth %lld is past them",
			    tflag, opflag != NULL ? opflag : "the trace", sh.n,
			    sh.n == 1 ? "" : "s", nthflag);
		shape = &sh.v[nthflag - 1];
		jdoc_get_str(shape, 0, "name", &name, NULL);
		callshape_nodes(shape, 0, &in);
		if (callshape_key(&key, shape, &in) < 0)
			die("%s: op_shape record without shapes", tflag);
		oo.key = key.s;
		oo.keylen = key.len;
	}
	oo.name = name;
	if ((rc = opcalls_read(&oc, tflag, &oo)) != 0)
		exit(1);
	if (oc.ng == 0)
		die("%s: no call of %s%s", tflag, name, shape != NULL ?
		    " with that shape" : "");
	if (shape == NULL && (size_t)nthflag > oc.ng)
		die("%s: %s has %zu shape%s; --nth %lld is past them", tflag,
		    name, oc.ng, oc.ng == 1 ? "" : "s", nthflag);
	g = shape != NULL ? &oc.g[0] : &oc.g[nthflag - 1];
	memset(&calls, 0, sizeof(calls));
	w = jw_new_doc(keep_doc, &calls);
	opcalls_put(w, &oc, g);
	jw_free(w);
	if (replay_plan(&rp, &tab, &calls, &err) < 0)
		die("%s: %s cannot be replayed: %s", tflag, name, err);

	profile = pflag != NULL ? xstrdup(pflag) :
	    replay_profile(name, nthflag);
	odir = snip_path(oflag);
	folder = snip_path_join(odir, profile);
	config = snip_path_join(folder, "config.yaml");
	target = snip_path_join(folder, "target.py");
	readme = snip_path_join(folder, "README.md");
	sb_printf(&ip, "%s:target", target);
	/* The runner's passes: each run() makes WARMUP and CALLS calls. */
	conf = (struct snipconf){ profile, ip.s, Dflag, NULL, NULL, 1, 5 };
	if (strcmp(odir, SNIP_DEFAULT_DIR) != 0)
		conf.output_dir = odir;
	snip_config_yaml(&cfg, &conf);

	q = snip_quote(tflag);
	sb_printf(&cmd, "snip-new --from-trace %s", q);
	free(q);
	if (opflag != NULL) {
		q = snip_quote(opflag);
		sb_printf(&cmd, " --op %s", q);
		free(q);
	}
	sb_printf(&cmd, " --nth %lld", nthflag);
	for (i = 0, gpu = 0; i < sh.n; i++)
		gpu |= jdoc_get_double(&sh.v[i], 0, "gpu_us", &us) == 0 &&
		    us > 0;
	for (i = 0; i < oc.ng; i++)
		gpu |= shape == NULL && oc.g[i].gpu > 0;
	sb_printf(&ranked, "%s among %s", gpu ? "GPU time" : "self CPU time"
	    " (the trace has no GPU work)", shape == NULL ? "the shapes of"
	    " its calls" : opflag == NULL ? "the shapes of every operator"
	    " op-rank costs" : "its shapes op-rank costs");
	src = (struct replay_src){ tflag, sha, oc.gpu, &calls, shape,
	    (int)nthflag, ranked.s, cmd.s };
	{
		char *tclass = class_of(profile);

		out = (struct replay_out){ profile, config, tclass };
		replay_target_py(&py, &rp, &src, &out);
		replay_readme(&md, &rp, &src, &out, &cfg);
		files = (struct snipfiles){ odir, profile, folder, target,
		    config, readme, &py, &cfg, &md };
		if (stat(folder, &st) == 0) {
			if (!fflag)
				die("%s: exists; -f replaces its target.py,"
				    " config.yaml and README.md", folder);
			if (snip_replace_files(&files) < 0)
				exit(1);
		} else if (snip_new_folder(&files) < 0)
			exit(1);
		free(tclass);
	}
	w = jw_new(stdout);
	put_replay(w, folder, sha, &rp, &oc, g, nthflag);
	jw_free(w);

	replay_free(&rp);
	opcalls_free(&oc);
	replay_table_free(&tab);
	for (i = 0; i < sh.n; i++)
		jdoc_free(&sh.v[i]);
	free(sh.v);
	jdoc_free(&calls);
	free(key.s);
	free(py.s);
	free(cfg.s);
	free(md.s);
	free(cmd.s);
	free(ip.s);
	free(ranked.s);
	free(table);
	free(profile);
	free(odir);
	free(folder);
	free(config);
	free(target);
	free(readme);
	return 0;
}

/* op-rank over the trace, in process: its op_shape records, in order. */
static void
trace_shapes(const char *path, struct shapes *sh)
{
	struct oprank_opts o = { NULL, 0, 0, -1, 0, NULL };
	struct extract_opts xo = { .args = 0 };
	struct rankfeed feed = { NULL, path };
	struct jw *w;

	feed.op = oprank_new(&o);
	w = jw_new_doc(feed_rank, &feed);
	if (extract_trace(path, w, &xo) != 0)
		exit(1);
	jw_free(w);
	w = jw_new_doc(keep_shape, sh);
	oprank_write(feed.op, w, 0);
	jw_free(w);
	oprank_free(feed.op);
}

static int
feed_rank(void *arg, const struct jdoc *d)
{
	struct rankfeed *feed = arg;

	return oprank_record(feed->op, feed->file, d);
}

static int
keep_shape(void *arg, const struct jdoc *d)
{
	struct shapes *sh = arg;
	const char *kind, *name;

	if (jdoc_get_str(d, 0, "kind", &kind, NULL) < 0 ||
	    strcmp(kind, "op_shape") != 0 ||
	    jdoc_get_str(d, 0, "name", &name, NULL) < 0 ||
	    (sh->name != NULL && strcmp(name, sh->name) != 0))
		return 0;
	sh->v = xreallocarray(sh->v, sh->n + 1, sizeof(*sh->v));
	memset(&sh->v[sh->n], 0, sizeof(sh->v[sh->n]));
	jdoc_copy(&sh->v[sh->n++], d);
	return 0;
}

static int
keep_doc(void *arg, const struct jdoc *d)
{
	jdoc_copy(arg, d);
	return 0;
}

/* "replay-addmm-1": the operator's name after "::", as a profile name. */
static char *
replay_profile(const char *name, long long nth)
{
	const char *colons = strstr(name, "::");
	struct strbuf b = { 0 };
	size_t len;
	char *p;

	sb_puts(&b, "replay-");
	for (p = (char *)(colons != NULL ? colons + 2 : name); *p != '\0';
	    p++) {
		if (isalnum((unsigned char)*p))
			sb_printf(&b, "%c", tolower((unsigned char)*p));
		else if (b.s[b.len - 1] != '-')
			sb_puts(&b, "-");
	}
	len = b.len;
	while (len > 0 && b.s[len - 1] == '-')
		len--;
	sb_truncate(&b, len);
	sb_printf(&b, "-%lld", nth);
	return b.s;
}

/* The "snippet" record of a replay. */
static void
put_replay(struct jw *w, const char *folder, const char *sha,
    const struct replay *rp, const struct opcalls *oc,
    const struct opgroup *g, long long nth)
{
	struct strbuf call = { 0 };
	size_t i;

	jw_record(w, "snippet");
	jw_key(w, "dir");
	jw_cstring(w, folder);
	jw_key(w, "profile_name");
	jw_cstring(w, snip_path_name(folder));
	jw_key(w, "config");
	{
		char *p = snip_path_join(folder, "config.yaml");

		jw_cstring(w, p);
		free(p);
		p = snip_path_join(folder, "target.py");
		jw_key(w, "target");
		jw_cstring(w, p);
		free(p);
		p = snip_path_join(folder, "README.md");
		jw_key(w, "readme");
		jw_cstring(w, p);
		free(p);
	}
	jw_key(w, "trace");
	jw_cstring(w, tflag);
	jw_key(w, "sha256");
	jw_cstring(w, sha);
	jw_key(w, "operator");
	jw_cstring(w, rp->op);
	jw_key(w, "nth");
	jw_int(w, nth);
	jw_key(w, "call");
	if (rp->row != NULL) {
		sb_printf(&call, "torch.ops.%s.%s.%s", rp->row->ns,
		    rp->row->name, rp->row->overload);
		jw_cstring(w, call.s);
	} else
		jw_null(w);
	jw_key(w, "range");
	jw_cstring(w, rp->range);
	if (g->has_shape)
		callshape_put(w, &g->shape);
	jw_key(w, "calls");
	jw_int(w, g->calls);
	jw_key(w, "gpu_us");
	jw_us(w, g->gpu);
	jw_key(w, "self_us");
	jw_us(w, g->self > 0 ? g->self : 0);
	jw_key(w, "gpu");
	jw_cstring_or_null(w, oc->gpu);
	jw_key(w, "kernels");
	jw_begin_array(w);
	for (i = 0; i < g->nk; i++)
		jw_cstring(w, g->k[i].name);
	jw_end_array(w);
	jw_end(w);
	free(call.s);
}
