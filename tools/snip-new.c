/*
 * snip-new: scaffold a profiling snippet (target.py, config.yaml,
 * README.md) for roboflow/inference's profiling runner from one Python
 * definition.  It reads the source and writes only new files: it never
 * edits the source, never replaces a snippet without -f, never runs
 * anything.
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
#include "trace/callshape.h"
#include "trace/extract.h"
#include "trace/opcalls.h"
#include "trace/opcost.h"
#include "trace/oprank.h"

#define DEFAULT_DIR	"inference_profiling/snippets"
#define RANGE_TABLE	"snippet-ranges.tsv"
#define REPLAY_TABLE	"replay-ops.tsv"
/* An environment module read for its constants is smaller than this. */
#define MAX_MODULE	(16 << 20)

/* What a rule's pattern is matched against. */
enum { R_CALL, R_NAME, R_HELPER };

struct rule {
	const char	*range, *pattern;
	const char	*args;		/* R_CALL: a name among the arguments */
	int		 kind;
};

struct rules {
	char		*text;		/* owns the strings of v */
	struct rule	*v;
	size_t		 n;
};

enum { P_POS, P_KWONLY, P_VARARGS, P_VARKW };

struct param {
	char	*name;
	char	*ann;		/* the annotation, or NULL */
	int	 kind, has_default;
};

struct region {
	uint32_t	 first, last;	/* source lines */
	size_t		 stmt;		/* the last statement in it */
	char		*label;
	char		*base;		/* its indentation, less the def's */
};

enum { M_NONE, M_INSTANCE, M_CLASS, M_STATIC };

struct block {
	size_t		 first, last;	/* statements */
};

struct snip {
	const struct pysrc	*s;
	const struct pydef	*f;
	size_t			 d;
	const char		*file;
	char			*module, *root, *profile, *odir, *folder;
	char			*config, *target, *readme, *tclass;
	/* target.py's own module-level names, clear of the copy's. */
	char			*tvar, *devvar;
	char			 sha[65];
	char			*git;
	struct param		*par;
	size_t			 npar;
	struct snipin		*in;		/* one per parameter */
	size_t			 nin;		/* how many read inputs */
	struct region		*reg;
	size_t			 nreg;
	char			**helpers;
	size_t			 nhelpers;
	/* The tokens of the copied def, and the import blocks copied. */
	size_t			 use_first, use_end;
	struct block		*blk;
	size_t			 nblk;
	/* The source with the method's super() and private names spelt
	 * for module level, or NULL when it needs no change. */
	struct pysrc		*patched;
	size_t			 supers, mangled;
	/* What the copy and its direct helpers read from the environment. */
	struct envlist		 env;
	char			*strip, *unit;
	int			 method, returns, yields;
	/* The source lines copied; with -l at module level, the lines made
	 * the body of a function appended to the source (mod_first != 0):
	 * its line L is source line L - shift, its parameters the names
	 * the lines read from before them. */
	uint32_t		 first_line, last_line;
	uint32_t		 mod_first, mod_last, orig_lines, shift;
	struct names		 modparams;
	char			*owner;		/* the class of a method */
	struct strbuf		 dropped;	/* decorators left out */
	struct strbuf		 skipped;	/* imports not copied */
};

static int fflag;
static const char *Dflag = "cuda", *iflag, *lflag, *mflag, *nflag;
static const char *oflag = DEFAULT_DIR, *pflag, *rflag;
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
static size_t	pick(const struct pysrc *, uint32_t *, uint32_t *);
static void	module_lines(struct snip *, struct pysrc *, uint32_t,
		    uint32_t);
static uint32_t	source_line(const struct snip *, uint32_t);
static char	*module_of(const char *, char **);
static char	*name_below(const char *, size_t);
static char	*lexical_path(const char *);
static size_t	parent_end(const char *, size_t);
static int	has_file(const char *, size_t, const char *);
static int	project_dir(const char *, size_t);
static int	same_dir(const char *, size_t, const char *);
static int	dotted_identifiers(const char *);
static int	has_control(const char *);
static char	*profile_of(const char *);
static int	valid_profile(const char *);
static char	*class_of(const char *);
static void	load_rules(struct rules *);
static void	params(struct snip *);
static size_t	def_params(const struct pysrc *, const struct pydef *,
		    struct param **);
static char	*token_text(const struct pysrc *, size_t, size_t);
static void	method_kind(struct snip *);
static int	dropped_decorator(const struct pysrc *, size_t);
static void	helpers(struct snip *);
static void	environment(struct snip *);
static int	read_module(const struct snip *, const char *,
		    struct pysrc *);
static char	*own_name(const struct snip *, const char *);
static int	is_keyword(const char *, size_t);
static int	match(const struct snip *, const struct rules *, size_t,
		    size_t, char *, size_t);
static int	is_helper(const struct snip *, const char *);
static int	argument_named(const struct pysrc *, size_t, size_t,
		    const char *);
static int	leaf(const struct snip *, size_t);
static int	is_clause(const struct pysrc *, size_t);
static void	regions(struct snip *, const struct rules *, uint32_t,
		    uint32_t);
static void	add_region(struct snip *, uint32_t, uint32_t, size_t,
		    const char *);
static void	imports(struct snip *, struct strbuf *, struct strbuf *,
		    struct strbuf *);
static void	put_import(const struct snip *, size_t, struct strbuf *,
		    struct strbuf *);
static void	import_blocks(struct snip *);
static int	is_modparam(const struct snip *, const char *, size_t);
static int	is_import(const struct pysrc *, size_t);
static int	import_used(const struct snip *, size_t);
static int	copy_uses(const struct snip *, const char *, size_t);
static int	uses_between(const struct pysrc *, size_t, size_t,
		    const char *, size_t);
static void	target_py(struct snip *, struct strbuf *);
static void	coding(const struct pysrc *, struct strbuf *);
static int	is_utf8_name(const char *, size_t);
static void	copy_def(const struct snip *, struct strbuf *);
static void	patch_method(struct snip *);
static void	target_class(const struct snip *, struct strbuf *);
static void	inputs(struct snip *);
static int	ctor_free(const struct pysrc *, int, struct strbuf *, int);
static int	is_dataclass(const struct pysrc *, int);
static void	dataclass_fields(const struct pysrc *, int, struct strbuf *);
static void	put_argument(const struct snip *, size_t, struct strbuf *);
static void	config_yaml(const struct snip *, struct strbuf *);
static void	inputs_yaml(const struct snip *, struct strbuf *);
static void	readme(const struct snip *, const struct strbuf *,
		    struct strbuf *);
static void	input_line(const struct snip *, size_t, struct strbuf *);
static int	secret_name(const char *);
static int	model_name(const char *);
static void	env_line(const struct envread *, struct strbuf *);
static void	models(const struct snip *, struct strbuf *);
static void	environment_md(const struct snip *, struct strbuf *);
static void	api_keys(const struct snip *, struct strbuf *);
static void	needs(const struct snip *, struct strbuf *);
static int	needs_images(const struct snip *);
static const char *user_sets(const struct snipin *);
static void	put_record(const struct snip *, struct jw *);
static char	*open_table(const char *, FILE **);
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
	{ "-r table", "the range table (with --from-trace, the operator table)" },
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
			if (!dotted_identifiers(optarg))
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
	{
		char *m = module_of(sn.file, &sn.root);

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
	sn.d = pick(&src, &first, &last);
	if (sn.d == SIZE_MAX) {
		module_lines(&sn, &src, first, last);
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
	sn.profile = pflag != NULL ? xstrdup(pflag) : profile_of(sn.f->qualname);
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
	params(&sn);
	method_kind(&sn);
	inputs(&sn);
	import_blocks(&sn);
	helpers(&sn);
	patch_method(&sn);
	environment(&sn);
	sn.tvar = own_name(&sn, "target");
	sn.devvar = own_name(&sn, "PROFILE_DEVICE");
	{
		char *tclass = own_name(&sn, sn.tclass);

		free(sn.tclass);
		sn.tclass = tclass;
	}
	regions(&sn, &rules, first, last);
	target_py(&sn, &py);
	config_yaml(&sn, &cfg);
	readme(&sn, &cfg, &md);

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
 * The definition -n and -l name.  With -l, *first and *last become the
 * widened range, or 0 when it holds the def line (the whole function);
 * SIZE_MAX when -l alone names module-level lines, which *first and *last
 * then hold.
 */
static size_t
pick(const struct pysrc *s, uint32_t *first, uint32_t *last)
{
	struct strbuf lines = { 0 };
	size_t i, found = 0, n = 0;
	int d;

	if (*first != 0 && nflag == NULL) {
		uint32_t a, b;

		if (pysrc_select_lines(s, *first, *last, &a, &b) < 0)
			exit(1);
		d = pysrc_enclosing(s, a, b);
		if (d < 0) {
			*first = a;
			*last = b;
			return SIZE_MAX;
		}
		if (s->def[d].type == PD_CLASS)
			die("%s:%u: lines %u-%u are in the body of class %s,"
			    " in no method: give lines of one of its methods,"
			    " or -n %s.METHOD", s->name, a, *first, *last,
			    s->def[d].qualname, s->def[d].qualname);
	}
	if (*first != 0) {
		d = pysrc_select(s, *first, *last, nflag, first, last);
		if (d < 0)
			exit(1);
		if (*first <= s->def[d].header_end)
			*first = *last = 0;
		return (size_t)d;
	}
	for (i = 0; i < s->ndef; i++) {
		if (strcmp(s->def[i].qualname, nflag) != 0)
			continue;
		sb_printf(&lines, "%s%u", n > 0 ? ", " : "", s->def[i].line);
		found = i;
		n++;
	}
	if (n == 0)
		die("%s: no definition named %s", s->name, nflag);
	if (n > 1)
		die("%s: %s is defined %zu times (lines %s): pick one with -l",
		    s->name, nflag, n, lines.s);
	free(lines.s);
	return found;
}

/*
 * -l at module level: lines first-last become the body of a function
 * appended to the source (so that every later step reads it as a def of
 * the module), whose parameters are the names the lines read before they
 * bind them and that the module binds by a value before (not by an
 * import or a def, which come as imports and helpers); it returns
 * locals(), what the lines made.  *src is replaced by the longer source.
 */
static void
module_lines(struct snip *sn, struct pysrc *src, uint32_t first,
    uint32_t last)
{
	struct names reads = { 0 }, bound = { 0 };
	struct strbuf text = { 0 }, strip = { 0 }, name = { 0 };
	struct pysrc longer;
	const struct pyline *fl;
	uint32_t k, i0 = UINT32_MAX, i1 = 0;
	size_t i;
	const char *stem;
	int d;

	for (k = first; k <= last; k++)
		if (src->line[k].stmt != UINT32_MAX) {
			if (i0 == UINT32_MAX)
				i0 = src->line[k].stmt;
			i1 = src->line[k].stmt;
		}
	if (i0 == UINT32_MAX)
		die("%s: lines %u-%u hold no statement", src->name, first,
		    last);
	pyscope_range(src, i0, i1, &reads, &bound);
	for (i = 0; i < reads.n; i++)
		if (pyscope_binding(src, reads.v[i], i0, i1) == PB_VALUE) {
			sn->modparams.v = xreallocarray(sn->modparams.v,
			    sn->modparams.n + 1, sizeof(char *));
			sn->modparams.v[sn->modparams.n++] =
			    xstrdup(reads.v[i]);
		}
	stem = strrchr(sn->module, '.');
	stem = stem != NULL ? stem + 1 : sn->module;
	sb_printf(&name, "%s_lines_%u_%u", stem, first, last);
	fl = &src->line[src->stmt[i0].first];
	sb_put(&strip, src->text + fl->off, fl->ws);
	if (strip.s == NULL)
		sb_puts(&strip, "");

	sb_put(&text, src->text, src->len);
	if (text.len > 0 && text.s[text.len - 1] != '\n' &&
	    text.s[text.len - 1] != '\r')
		sb_puts(&text, "\n");
	sb_printf(&text, "\n\ndef %s(", name.s);
	for (i = 0; i < sn->modparams.n; i++)
		sb_printf(&text, "%s%s", i > 0 ? ", " : "",
		    sn->modparams.v[i]);
	sb_puts(&text, "):\n");
	pysrc_copy_lines(src, first, last, strip.s, "", "    ", &text.s,
	    &text.len, &text.cap);
	sb_puts(&text, "    return locals()\n");

	sn->mod_first = first;
	sn->mod_last = last;
	sn->orig_lines = src->nline;
	if (pysrc_scan(&longer, src->name, text.s, text.len) < 0)
		die("%s: lines %u-%u as a function's body do not scan: %s",
		    src->name, first, last, longer.err);
	for (d = (int)longer.ndef - 1; d >= 0; d--)
		if (longer.def[d].parent < 0 &&
		    strcmp(longer.def[d].name, name.s) == 0)
			break;
	if (d < 0)
		die("%s: lines %u-%u: the function made of them is lost",
		    src->name, first, last);
	sn->shift = longer.def[d].line + 1 - first;
	sn->d = (size_t)d;
	pysrc_free(src);
	*src = longer;
	names_free(&reads);
	names_free(&bound);
	free(strip.s);
	free(name.s);
}

/* The source's line number of line L of the source snip-new reads. */
static uint32_t
source_line(const struct snip *sn, uint32_t line)
{
	return sn->mod_first != 0 && line > sn->orig_lines ? line - sn->shift :
	    line;
}

/*
 * The import name of a source file, from its package root: the nearest
 * directory above it without __init__.py (a/b/c.py in a package a is
 * a.b.c, a/b/__init__.py is a.b).  Where that directory is a namespace
 * package's folder (no project file in it, and not the current
 * directory), the root is the project's: the nearest directory above it
 * with pyproject.toml, setup.py or setup.cfg, or its src/ when the file is
 * under that.  *root gets the root, relative to the current directory (".")
 * when it is inside it, else absolute.  NULL when a part of the name is no
 * identifier, the file is no .py file or the path is too deep.
 */
static char *
module_of(const char *path, char **root)
{
	char cwd[PATH_MAX], *abs, *top, *m;
	struct strbuf b = { 0 };
	size_t n, cut, k, proj;
	const char *stem;
	int inside;

	*root = NULL;
	n = strlen(path);
	if (n < 4 || strcmp(path + n - 3, ".py") != 0 ||
	    getcwd(cwd, sizeof(cwd)) == NULL)
		return NULL;
	if (path[0] == '/')
		sb_puts(&b, path);
	else
		sb_printf(&b, "%s/%s", cwd, path);
	abs = lexical_path(b.s);
	free(b.s);
	/* abs is /.../dir/stem.py; cut marks the root's end in it. */
	stem = strrchr(abs, '/') + 1;
	cut = (size_t)(stem - abs) - 1;
	for (k = 0; k < 64 && cut > 0 && has_file(abs, cut, "__init__.py");
	    k++)
		cut = parent_end(abs, cut);
	if (k == 64) {
		free(abs);
		return NULL;
	}
	/*
	 * A namespace package's folder: the root is the project's (or the
	 * current directory, which the runner has on its path), when the
	 * name from there is one.
	 */
	if (!same_dir(abs, cut, cwd) && !project_dir(abs, cut)) {
		n = strlen(cwd);
		inside = strncmp(abs, cwd, n) == 0 && abs[n] == '/' && cut > n;
		for (proj = cut; !project_dir(abs, proj) &&
		    !(inside && same_dir(abs, proj, cwd)) && proj > 0; )
			proj = parent_end(abs, proj);
		if (project_dir(abs, proj) || (inside && same_dir(abs, proj,
		    cwd))) {
			if (has_file(abs, proj, "src") &&
			    strncmp(abs + proj, "/src/", 5) == 0)
				proj += 4;
			if ((m = name_below(abs, proj)) != NULL)
				cut = proj;
			free(m);
		}
	}
	if ((m = name_below(abs, cut)) == NULL) {
		free(abs);
		return NULL;
	}
	n = strlen(cwd);
	top = xmemdup(abs, cut == 0 ? 1 : cut);
	if (strcmp(top, cwd) == 0)
		*root = xstrdup(".");
	else if (strncmp(top, cwd, n) == 0 && top[n] == '/')
		*root = xstrdup(top + n + 1);
	else
		*root = xstrdup(top);
	free(top);
	free(abs);
	return m;
}

/*
 * The import name of the .py file abs below the directory abs[0, cut):
 * its parts, less .py and __init__; NULL when one is no identifier.
 */
static char *
name_below(const char *abs, size_t cut)
{
	char *m = xstrdup(abs + cut + 1), *p;
	size_t n;

	m[strlen(m) - 3] = '\0';
	n = strlen(m);
	if (n >= 9 && strcmp(m + n - 9, "/__init__") == 0)
		m[n - 9] = '\0';
	for (p = m; *p != '\0'; p++)
		if (*p == '/')
			*p = '.';
	if (!dotted_identifiers(m)) {
		free(m);
		return NULL;
	}
	return m;
}

/* An absolute path with "." and ".." parts and repeated '/' resolved. */
static char *
lexical_path(const char *path)
{
	char *out = xmalloc(strlen(path) + 2);
	size_t o = 0, n;
	const char *p = path;

	while (*p != '\0') {
		while (*p == '/')
			p++;
		n = strcspn(p, "/");
		if (n == 0)
			break;
		if (n == 1 && p[0] == '.')
			;
		else if (n == 2 && p[0] == '.' && p[1] == '.') {
			while (o > 0 && out[o - 1] != '/')
				o--;
			if (o > 0)
				o--;
		} else {
			out[o++] = '/';
			memcpy(out + o, p, n);
			o += n;
		}
		p += n;
	}
	if (o == 0)
		out[o++] = '/';
	out[o] = '\0';
	return out;
}

/* The end of the parent of the directory abs[0, end). */
static size_t
parent_end(const char *abs, size_t end)
{
	while (end > 0 && abs[end - 1] != '/')
		end--;
	return end > 0 ? end - 1 : 0;
}

/* Whether the directory abs[0, end) ("/" for end 0) holds name. */
static int
has_file(const char *abs, size_t end, const char *name)
{
	struct strbuf b = { 0 };
	int yes;

	sb_printf(&b, "%.*s/%s", (int)end, abs, name);
	yes = access(b.s, F_OK) == 0;
	free(b.s);
	return yes;
}

static int
project_dir(const char *abs, size_t end)
{
	return has_file(abs, end, "pyproject.toml") ||
	    has_file(abs, end, "setup.py") || has_file(abs, end, "setup.cfg");
}

static int
same_dir(const char *abs, size_t end, const char *dir)
{
	return end == 0 ? strcmp(dir, "/") == 0 :
	    strlen(dir) == end && strncmp(abs, dir, end) == 0;
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

/* a.b.c with every part an identifier (non-ASCII letters allowed). */
static int
dotted_identifiers(const char *m)
{
	const char *p = m;

	for (;;) {
		if (*p == '.' || *p == '\0' || (*p >= '0' && *p <= '9'))
			return 0;
		for (; *p != '\0' && *p != '.'; p++)
			if (!(*p == '_' || (*p >= 'a' && *p <= 'z') ||
			    (*p >= 'A' && *p <= 'Z') || (*p >= '0' &&
			    *p <= '9') || (unsigned char)*p >= 0x80))
				return 0;
		if (*p == '\0')
			return 1;
		p++;
	}
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

/* The parameters of the def, from its parenthesized list. */
static void
params(struct snip *sn)
{
	sn->npar = def_params(sn->s, sn->f, &sn->par);
}

/*
 * The parameters of definition f into *out (which the caller frees, with
 * each name and annotation); returns how many.
 */
static size_t
def_params(const struct pysrc *s, const struct pydef *f, struct param **out)
{
	const struct pystmt *st = &s->stmt[f->stmt];
	struct param *par;
	size_t t, end = f->colon, item, npar = 0;
	int kwonly = 0;

	for (t = st->tok; t < end; t++)
		if (s->tok[t].depth == 0 && pysrc_tok_is(s, t, "("))
			break;
	par = xreallocarray(NULL, end - t + 1, sizeof(*par));
	for (item = ++t; t < end; t++) {
		const struct pytok *k = &s->tok[t];
		struct param *p;
		size_t i, n, colon = 0;
		const char *name;

		if (k->type == PT_COMMENT)
			continue;
		/* Items end at a ',' inside the list or at its ')'. */
		if (!((k->depth == 1 && pysrc_tok_is(s, t, ",")) ||
		    (k->depth == 0 && pysrc_tok_is(s, t, ")"))))
			continue;
		/* One item: tokens [item, t). */
		while (item < t && s->tok[item].type == PT_COMMENT)
			item++;
		if (item < t) {
			p = &par[npar];
			p->kind = kwonly ? P_KWONLY : P_POS;
			p->has_default = 0;
			p->ann = NULL;
			i = item;
			if (pysrc_tok_is(s, i, "*")) {
				kwonly = 1;
				p->kind = P_VARARGS;
				i++;
			} else if (pysrc_tok_is(s, i, "**")) {
				p->kind = P_VARKW;
				i++;
			}
			while (i < t && s->tok[i].type == PT_COMMENT)
				i++;
			if (i < t && s->tok[i].type == PT_NAME) {
				name = pysrc_tok(s, i, &n);
				p->name = xmemdup(name, n);
				for (; i < t; i++) {
					if (s->tok[i].depth != 1)
						continue;
					if (pysrc_tok_is(s, i, ":") &&
					    colon == 0)
						colon = i;
					if (pysrc_tok_is(s, i, "=")) {
						p->has_default = 1;
						break;
					}
				}
				if (colon != 0)
					p->ann = token_text(s, colon + 1, i);
				npar++;
			}
		}
		item = t + 1;
		if (pysrc_tok_is(s, t, ")"))
			break;
	}
	*out = par;
	return npar;
}

/*
 * The text of tokens [from, to), comments left out and each run of
 * blanks and line breaks between them one space; NULL when empty.
 */
static char *
token_text(const struct pysrc *s, size_t from, size_t to)
{
	struct strbuf b = { 0 };
	size_t t, n;
	const char *tx;

	for (t = from; t < to; t++) {
		if (s->tok[t].type == PT_COMMENT)
			continue;
		tx = pysrc_tok(s, t, &n);
		if (b.len > 0 && s->tok[t].off > s->tok[t - 1].off +
		    s->tok[t - 1].len)
			sb_puts(&b, " ");
		sb_put(&b, tx, n);
	}
	return b.s;
}

/* Whether the def is a method, and of what kind; its class. */
static void
method_kind(struct snip *sn)
{
	const struct pysrc *s = sn->s;
	const struct pydef *f = sn->f;
	size_t i;
	int p;

	for (i = 0; i < f->stmt; i++)
		if (s->stmt[i].first >= f->decorator &&
		    dropped_decorator(s, i)) {
			char *text = token_text(s, s->stmt[i].tok,
			    s->stmt[i].tok + s->stmt[i].ntok);

			if (sn->dropped.len > 0)
				sb_puts(&sn->dropped, ", ");
			snip_md_code(&sn->dropped, text);
			free(text);
		}
	if (f->parent < 0 || s->def[f->parent].type != PD_CLASS)
		return;
	for (p = f->parent; p >= 0; p = s->def[p].parent)
		if (s->def[p].type != PD_CLASS)
			die("%s:%u: %s is a method of a class defined inside a"
			    " function; copy it by hand", s->name, f->line,
			    f->qualname);
	sn->owner = xstrdup(s->def[f->parent].qualname);
	sn->method = M_INSTANCE;
	for (i = 0; i < f->stmt; i++) {
		if (s->stmt[i].first < f->decorator)
			continue;
		if (pysrc_tok_is(s, s->stmt[i].tok + 1, "staticmethod"))
			sn->method = M_STATIC;
		else if (pysrc_tok_is(s, s->stmt[i].tok + 1, "classmethod"))
			sn->method = M_CLASS;
	}
}

/*
 * Decorators that only make sense inside a class (or mark a declaration)
 * are left out of the module-level copy: a bare dotted name ending in one
 * of these.
 */
static int
dropped_decorator(const struct pysrc *s, size_t i)
{
	static const char *const names[] = {
		"staticmethod", "classmethod", "property", "setter", "getter",
		"deleter", "abstractmethod", "overload", "cached_property", NULL
	};
	const struct pystmt *st = &s->stmt[i];
	size_t t, last = st->tok + st->ntok - 1, k;

	for (t = st->tok + 1; t <= last; t++)
		if (s->tok[t].type != PT_COMMENT &&
		    s->tok[t].type != PT_NAME && !pysrc_tok_is(s, t, "."))
			return 0;
	while (last > st->tok && s->tok[last].type == PT_COMMENT)
		last--;
	for (k = 0; names[k] != NULL; k++)
		if (pysrc_tok_is(s, last, names[k]))
			return 1;
	return 0;
}

static int
cmp_str(const void *a, const void *b)
{
	return strcmp(*(char *const *)a, *(char *const *)b);
}

/*
 * Whether the code copied into target.py (the def, and the import blocks
 * copied whole) uses the name: as an identifier, not an attribute.
 */
static int
copy_uses(const struct snip *sn, const char *name, size_t n)
{
	const struct pysrc *s = sn->s;
	size_t k;

	if (uses_between(s, sn->use_first, sn->use_end, name, n))
		return 1;
	for (k = 0; k < sn->nblk; k++)
		if (uses_between(s, s->stmt[sn->blk[k].first].tok,
		    s->stmt[sn->blk[k].last].tok +
		    s->stmt[sn->blk[k].last].ntok, name, n))
			return 1;
	return 0;
}

/* Whether tokens [first, end) use the name, not as an attribute. */
static int
uses_between(const struct pysrc *s, size_t first, size_t end,
    const char *name, size_t n)
{
	size_t t, m;
	const char *u;

	for (t = first; t < end; t++) {
		if (s->tok[t].type != PT_NAME ||
		    (t > first && pysrc_tok_is(s, t - 1, ".")))
			continue;
		u = pysrc_tok(s, t, &m);
		if (m == n && memcmp(u, name, n) == 0)
			return 1;
	}
	return 0;
}

/*
 * What the copy and its direct helpers (the module's functions it calls,
 * and for a method the methods of its class it calls on self or cls) read
 * from the environment: os.getenv and os.environ literals, and constants
 * of environment modules, each traced to the variables its definition
 * reads when the module's file is under the package root.
 */
static void
environment(struct snip *sn)
{
	const struct pysrc *s = sn->s;
	struct envlist consts = { 0 };
	size_t i, k, t;
	int d;

	pyenv_reads(s, sn->use_first, sn->use_end, sn->f->name, &sn->env);
	pyenv_constants(s, sn->use_first, sn->use_end, sn->f->name, &consts);
	for (d = 0; d < (int)s->ndef; d++) {
		const struct pydef *h = &s->def[d];
		int direct = 0;

		if (h->type == PD_CLASS || d == (int)sn->d)
			continue;
		if (h->parent < 0)
			for (k = 0; k < sn->nhelpers && !direct; k++)
				direct = strcmp(sn->helpers[k], h->name) == 0;
		else if (sn->method != M_NONE && sn->method != M_STATIC &&
		    h->parent == sn->f->parent)
			for (t = sn->use_first; t + 3 < sn->use_end && !direct;
			    t++)
				direct = (pysrc_tok_is(s, t, "self") ||
				    pysrc_tok_is(s, t, "cls")) &&
				    pysrc_tok_is(s, t + 1, ".") &&
				    pysrc_tok_is(s, t + 2, h->name) &&
				    pysrc_tok_is(s, t + 3, "(");
		if (!direct)
			continue;
		{
			const struct pystmt *z = &s->stmt[s->line[h->end].stmt];
			size_t first = s->stmt[h->stmt].tok;

			pyenv_reads(s, first, z->tok + z->ntok, h->qualname,
			    &sn->env);
			pyenv_constants(s, first, z->tok + z->ntok, h->qualname,
			    &consts);
		}
	}
	envlist_sort(&consts);
	for (i = 0; i < consts.n; i++) {
		const struct envread *c = &consts.v[i];
		struct pysrc envsrc;
		size_t before = sn->env.n;
		uint32_t line = 0;

		char *module = xstrdup(c->module), *from;
		int hops;

		/* An environment module may take it from another: follow. */
		for (hops = 0; hops < 3 && read_module(sn, module, &envsrc) ==
		    0; hops++) {
			line = pyenv_trace(&envsrc, c->constant, module, c->by,
			    &sn->env);
			from = line == 0 ? pyenv_imported_from(&envsrc,
			    c->constant) : NULL;
			pysrc_free(&envsrc);
			if (from == NULL)
				break;
			free(module);
			module = from;
		}
		/* Known as a constant, with no variable found. */
		if (sn->env.n == before)
			envlist_add(&sn->env, NULL, c->constant, module, c->by,
			    line);
		free(module);
	}
	envlist_free(&consts);
	for (i = 0; i < sn->env.n; i++)
		if (sn->env.v[i].constant == NULL)
			sn->env.v[i].line = source_line(sn, sn->env.v[i].line);
	envlist_sort(&sn->env);
}

/*
 * Reads and scans the source of module (a.b.env) from under the package
 * root: a/b/env.py or a/b/env/__init__.py.  Returns 0, or -1 (quietly:
 * the README says what was not found).
 */
static int
read_module(const struct snip *sn, const char *module, struct pysrc *out)
{
	static const char *const tails[] = { ".py", "/__init__.py", NULL };
	struct strbuf path = { 0 };
	char *buf;
	size_t len, i;
	int gz, rc = -1;

	for (i = 0; tails[i] != NULL && rc < 0; i++) {
		const char *c;

		path.len = 0;
		if (strcmp(sn->root, ".") != 0)
			sb_printf(&path, "%s/", sn->root);
		for (c = module; *c != '\0'; c++)
			sb_put(&path, *c == '.' ? "/" : c, 1);
		sb_puts(&path, tails[i]);
		if (snip_slurp(path.s, MAX_MODULE, &buf, &len, &gz) != 0)
			continue;
		if (pysrc_scan(out, module, buf, len) == 0)
			rc = 0;
		else
			pysrc_free(out);
	}
	free(path.s);
	return rc;
}

/*
 * Module-level names of the source (defs, classes, assignments) that the
 * copied code uses: they are imported from the production module, so
 * helper calls keep going to production code.
 */
static void
helpers(struct snip *sn)
{
	const struct pysrc *s = sn->s;
	const struct pydef *f = sn->f;
	size_t i, n, k;
	const char *name;

	sn->helpers = xreallocarray(NULL, s->nstmt + 2, sizeof(char *));
	if (sn->owner != NULL) {
		n = strcspn(sn->owner, ".");
		sn->helpers[sn->nhelpers++] = xmemdup(sn->owner, n);
	}
	for (i = 0; i < s->nstmt; i++) {
		const struct pystmt *st = &s->stmt[i];
		size_t at = st->tok;

		if (st->cols != 0 || st->ntok < 2 || (sn->mod_first != 0 &&
		    st->first >= sn->mod_first && st->first <= sn->mod_last))
			continue;
		if (pysrc_tok_is(s, at, "def") || pysrc_tok_is(s, at, "class"))
			at++;
		else if (pysrc_tok_is(s, at, "async"))
			at += 2;
		else if (!(s->tok[at].type == PT_NAME &&
		    (pysrc_tok_is(s, at + 1, "=") ||
		    pysrc_tok_is(s, at + 1, ":"))))
			continue;
		if (at >= st->tok + st->ntok || s->tok[at].type != PT_NAME)
			continue;
		name = pysrc_tok(s, at, &n);
		if (is_keyword(name, n) || (f->parent < 0 &&
		    strlen(f->name) == n && memcmp(f->name, name, n) == 0))
			continue;
		if (!copy_uses(sn, name, n) || is_modparam(sn, name, n))
			continue;
		for (k = 0; k < sn->nhelpers; k++)
			if (strlen(sn->helpers[k]) == n &&
			    memcmp(sn->helpers[k], name, n) == 0)
				break;
		if (k == sn->nhelpers)
			sn->helpers[sn->nhelpers++] = xmemdup(name, n);
	}
	xqsort(sn->helpers, sn->nhelpers, sizeof(char *), cmp_str);
}

/* Whether name is a parameter of the function module_lines() made. */
static int
is_modparam(const struct snip *sn, const char *name, size_t n)
{
	size_t i;

	for (i = 0; i < sn->modparams.n; i++)
		if (strlen(sn->modparams.v[i]) == n &&
		    memcmp(sn->modparams.v[i], name, n) == 0)
			return 1;
	return 0;
}

/*
 * The module's top-level if and try statements (with their clauses) that
 * import a name the copy uses: "if USE_TORCH: import torch" or a try
 * whose except binds a fallback.  They are copied whole, as production
 * runs them; the imports of other such blocks are listed as not copied.
 */
static void
import_blocks(struct snip *sn)
{
	const struct pysrc *s = sn->s;
	size_t i, j, k;
	int needed;

	sn->blk = xreallocarray(NULL, s->nstmt + 1, sizeof(*sn->blk));
	for (i = 0; i < s->nstmt; i = j + 1) {
		j = i;
		if (s->stmt[i].cols != 0 || !(pysrc_tok_is(s, s->stmt[i].tok,
		    "if") || pysrc_tok_is(s, s->stmt[i].tok, "try")))
			continue;
		while (j + 1 < s->nstmt && (s->stmt[j + 1].cols > 0 ||
		    is_clause(s, j + 1)))
			j++;
		/* The lines copied, or a script's main block: not imports. */
		if ((sn->mod_first != 0 && s->stmt[i].first <= sn->mod_last &&
		    s->stmt[j].last >= sn->mod_first) ||
		    pysrc_tok_is(s, s->stmt[i].tok + 1, "__name__"))
			continue;
		needed = 0;
		for (k = i + 1; k <= j && !needed; k++)
			needed = is_import(s, k) &&
			    pysrc_enclosing(s, s->stmt[k].first,
			    s->stmt[k].first) < 0 && import_used(sn, k);
		if (needed) {
			sn->blk[sn->nblk].first = i;
			sn->blk[sn->nblk].last = j;
			sn->nblk++;
		}
	}
}

static int
is_import(const struct pysrc *s, size_t i)
{
	return pysrc_tok_is(s, s->stmt[i].tok, "import") ||
	    pysrc_tok_is(s, s->stmt[i].tok, "from");
}

/*
 * Whether import statement i binds a name the def uses: "import a.b"
 * binds a, "import a as b" and "from x import a as b" bind b, and
 * "from x import *" anything.
 */
static int
import_used(const struct snip *sn, size_t i)
{
	const struct pysrc *s = sn->s;
	size_t t = s->stmt[i].tok, end = t + s->stmt[i].ntok, n, item;
	const char *name;

	if (pysrc_tok_is(s, t, "from"))
		while (t < end && !pysrc_tok_is(s, t, "import"))
			t++;
	for (item = ++t; t <= end; t++) {
		if (t < end && !pysrc_tok_is(s, t, ",") &&
		    !(s->tok[t].depth == 1 && pysrc_tok_is(s, t, ")")))
			continue;
		/* One item: [item, t), less brackets and comments. */
		while (item < t && (s->tok[item].type == PT_COMMENT ||
		    pysrc_tok_is(s, item, "(")))
			item++;
		if (item < t && pysrc_tok_is(s, item, "*"))
			return 1;
		for (n = item; n + 1 < t && !pysrc_tok_is(s, n, "as"); n++)
			;
		if (n + 1 < t && s->tok[n + 1].type == PT_NAME)
			item = n + 1;
		if (item < t && s->tok[item].type == PT_NAME) {
			name = pysrc_tok(s, item, &n);
			if (uses_between(s, sn->use_first, sn->use_end, name,
			    n))
				return 1;
		}
		item = t + 1;
	}
	return 0;
}

static int
is_keyword(const char *s, size_t n)
{
	static const char *const kw[] = {
		"False", "None", "True", "and", "as", "assert", "async",
		"await", "break", "class", "continue", "def", "del", "elif",
		"else", "except", "finally", "for", "from", "global", "if",
		"import", "in", "is", "lambda", "nonlocal", "not", "or",
		"pass", "raise", "return", "try", "while", "with", "yield",
		NULL
	};
	size_t i;

	for (i = 0; kw[i] != NULL; i++)
		if (strlen(kw[i]) == n && memcmp(kw[i], s, n) == 0)
			return 1;
	return 0;
}

/*
 * The range of the first rule that tokens [from, to) match, written to out
 * (a helper rule named "*" names it after the helper called); 0 when none
 * matches.
 */
static int
match(const struct snip *sn, const struct rules *r, size_t from, size_t to,
    char *out, size_t outsz)
{
	const struct pysrc *s = sn->s;
	struct strbuf name = { 0 };
	const char *hit = NULL, *last, *tx;
	size_t i, t, u, n;

	for (i = 0; i < r->n && hit == NULL; i++) {
		for (t = from; t < to && hit == NULL; t++) {
			if (s->tok[t].type != PT_NAME)
				continue;
			tx = pysrc_tok(s, t, &n);
			if (r->v[i].kind == R_NAME) {
				name.len = 0;
				sb_put(&name, tx, n);
				if (fnmatch(r->v[i].pattern, name.s, 0) == 0)
					hit = r->v[i].range;
				continue;
			}
			/* A dotted name starts where no '.' name precedes. */
			if (is_keyword(tx, n) || (t > from &&
			    pysrc_tok_is(s, t - 1, ".") && t - 1 > from &&
			    s->tok[t - 2].type == PT_NAME))
				continue;
			name.len = 0;
			sb_put(&name, tx, n);
			for (u = t + 1; u + 1 < to && pysrc_tok_is(s, u, ".") &&
			    s->tok[u + 1].type == PT_NAME; u += 2) {
				tx = pysrc_tok(s, u + 1, &n);
				sb_puts(&name, ".");
				sb_put(&name, tx, n);
			}
			if (u >= to || !pysrc_tok_is(s, u, "("))
				continue;
			last = strrchr(name.s, '.');
			last = last != NULL ? last + 1 : name.s;
			if (r->v[i].kind == R_HELPER) {
				if (is_helper(sn, name.s) &&
				    fnmatch(r->v[i].pattern, last, 0) == 0)
					hit = strcmp(r->v[i].range, "*") == 0 ?
					    last : r->v[i].range;
				continue;
			}
			if ((fnmatch(r->v[i].pattern, name.s, 0) == 0 ||
			    fnmatch(r->v[i].pattern, last, 0) == 0) &&
			    (r->v[i].args == NULL ||
			    argument_named(s, u, to, r->v[i].args)))
				hit = r->v[i].range;
		}
	}
	if (hit != NULL)
		snprintf(out, outsz, "%s", hit);
	free(name.s);
	return hit != NULL;
}

/*
 * Whether a called dotted name is a direct helper of the copy: a function
 * defined at the top of the module (called bare), or for a method one of
 * its class's methods called on self or cls.
 */
static int
is_helper(const struct snip *sn, const char *called)
{
	const struct pysrc *s = sn->s;
	const char *dot = strchr(called, '.'), *m;
	size_t i;

	if (dot == NULL) {
		for (i = 0; i < s->ndef; i++)
			if (s->def[i].parent < 0 && s->def[i].type != PD_CLASS &&
			    strcmp(s->def[i].name, called) == 0)
				return 1;
		return 0;
	}
	if (sn->method == M_NONE || sn->method == M_STATIC ||
	    strchr(dot + 1, '.') != NULL ||
	    !((dot - called == 4 && strncmp(called, "self", 4) == 0) ||
	    (dot - called == 3 && strncmp(called, "cls", 3) == 0)))
		return 0;
	m = dot + 1;
	for (i = 0; i < s->ndef; i++)
		if (s->def[i].parent == sn->f->parent &&
		    s->def[i].type != PD_CLASS && strcmp(s->def[i].name, m) == 0)
			return 1;
	return 0;
}

/*
 * Whether the arguments of the call whose '(' is token open (before token
 * to) hold an identifier that glob matches: .to(device), .to(self.device).
 */
static int
argument_named(const struct pysrc *s, size_t open, size_t to,
    const char *glob)
{
	struct strbuf name = { 0 };
	uint16_t inside = (uint16_t)(s->tok[open].depth + 1);
	size_t t, n;
	const char *tx;
	int hit = 0;

	for (t = open + 1; t < to && !hit; t++) {
		if (s->tok[t].depth == inside && pysrc_tok_is(s, t, ")"))
			break;
		if (s->tok[t].type != PT_NAME)
			continue;
		tx = pysrc_tok(s, t, &n);
		name.len = 0;
		sb_put(&name, tx, n);
		hit = fnmatch(glob, name.s, 0) == 0;
	}
	free(name.s);
	return hit;
}

/*
 * Whether statement i of the def is one the ranges may wrap: a simple
 * statement of its body, at any depth of compound statements, or a
 * compound one written on one line.  Headers are not (their blocks' own
 * statements are), nor clauses, nor what a function nested in it holds,
 * nor validation and declarations (assert, raise, global ...), nor the
 * docstring; nor a one-line if whose else follows, which a range would
 * part from it.
 */
static int
leaf(const struct snip *sn, size_t i)
{
	static const char *const quiet[] = {
		"assert", "raise", "global", "nonlocal", "pass", "del",
		"import", "from", "@", NULL
	};
	const struct pysrc *s = sn->s;
	const struct pystmt *st = &s->stmt[i];
	size_t k;

	if (pysrc_enclosing(s, st->first, st->first) != (int)sn->d)
		return 0;
	if (i == sn->f->stmt + 1 && st->ntok == 1 &&
	    s->tok[st->tok].type == PT_STRING)
		return 0;
	if (i + 1 < s->nstmt && s->stmt[i + 1].first <= sn->f->end &&
	    s->stmt[i + 1].cols > st->cols)
		return 0;
	for (k = 0; quiet[k] != NULL; k++)
		if (pysrc_tok_is(s, st->tok, quiet[k]))
			return 0;
	return !is_clause(s, i) && !(i + 1 < s->nstmt &&
	    s->stmt[i + 1].cols == st->cols && is_clause(s, i + 1));
}

/* Whether statement i starts with else, elif, except or finally. */
static int
is_clause(const struct pysrc *s, size_t i)
{
	static const char *const clauses[] = {
		"else", "elif", "except", "finally", NULL
	};
	size_t k;

	for (k = 0; clauses[k] != NULL; k++)
		if (pysrc_tok_is(s, s->stmt[i].tok, clauses[k]))
			return 1;
	return 0;
}

/*
 * Where the NVTX ranges go.  With -l lines (first != 0): one range around
 * them.  Otherwise each statement that leaf() allows and a rule matches,
 * inside loops, with, try and if blocks too; neighbours in one block with
 * the same range share one.  Also notes whether the def returns a value
 * or yields.
 */
static void
regions(struct snip *sn, const struct rules *r, uint32_t first,
    uint32_t last)
{
	const struct pysrc *s = sn->s;
	const struct pydef *f = sn->f;
	const struct pyline *hl = &s->line[f->line];
	size_t i, t, body = f->stmt + 1;
	char label[256];

	sn->strip = xmemdup(s->text + hl->off, hl->ws);
	sn->reg = xreallocarray(NULL, s->nstmt + 1, sizeof(*sn->reg));
	for (t = s->stmt[f->stmt].tok; t < s->ntok &&
	    s->tok[t].line <= f->end; t++) {
		if (pysrc_tok_is(s, t, "yield"))
			sn->yields = 1;
		if (pysrc_tok_is(s, t, "return") && t + 1 < s->ntok &&
		    s->tok[t + 1].type != PT_NEWLINE &&
		    s->tok[t + 1].type != PT_COMMENT)
			sn->returns = 1;
	}
	if (f->oneline || body >= s->nstmt) {
		sn->unit = xstrdup("    ");
		return;
	}
	{
		const struct pyline *bl = &s->line[s->stmt[body].first];

		sn->unit = bl->ws > hl->ws ?
		    xmemdup(s->text + bl->off + hl->ws, bl->ws - hl->ws) :
		    xstrdup("    ");
	}
	if (first != 0) {
		while (first < last && s->line[first].stmt == UINT32_MAX)
			first++;
		while (last > first && s->line[last].stmt == UINT32_MAX)
			last--;
		snprintf(label, sizeof(label), "%s lines %u-%u", f->name,
		    first, last);
		add_region(sn, first, last, s->line[last].stmt, label);
		return;
	}
	for (i = body; i < s->nstmt && s->stmt[i].first <= f->end; i++) {
		char range[128];
		struct region *prev;

		/* A range named "-" is validation's: none. */
		if (!leaf(sn, i) || !match(sn, r, s->stmt[i].tok,
		    s->stmt[i].tok + s->stmt[i].ntok, range, sizeof(range)) ||
		    strcmp(range, "-") == 0)
			continue;
		snprintf(label, sizeof(label), "%s %s", f->name, range);
		prev = sn->nreg > 0 ? &sn->reg[sn->nreg - 1] : NULL;
		if (prev != NULL && prev->stmt + 1 == i &&
		    s->stmt[prev->stmt].cols == s->stmt[i].cols &&
		    strcmp(prev->label, label) == 0) {
			prev->last = s->stmt[i].last;
			prev->stmt = i;
			continue;
		}
		add_region(sn, s->stmt[i].first, s->stmt[i].last, i, label);
	}
}

static void
add_region(struct snip *sn, uint32_t first, uint32_t last, size_t stmt,
    const char *label)
{
	const struct pysrc *s = sn->s;
	const struct pyline *l = &s->line[first];
	size_t strip = strlen(sn->strip);
	struct region *g = &sn->reg[sn->nreg++];

	g->first = first;
	g->last = last;
	g->stmt = stmt;
	g->label = xstrdup(label);
	g->base = l->ws > strip ? xmemdup(s->text + l->off + strip,
	    l->ws - strip) : xstrdup("");
}

/*
 * The source's module-level imports, relative ones made absolute; a
 * "from __future__" import goes to future, which must come first.  The
 * import blocks import_blocks() chose go to blocks, whole.
 */
static void
imports(struct snip *sn, struct strbuf *future, struct strbuf *out,
    struct strbuf *blocks)
{
	const struct pysrc *s = sn->s;
	size_t i, k, b = 0;

	for (i = 0; i < s->nstmt; i++) {
		const struct pystmt *st = &s->stmt[i];

		if (b < sn->nblk && sn->blk[b].first == i) {
			for (k = i; k <= sn->blk[b].last; k++) {
				if (is_import(s, k))
					put_import(sn, k, future, blocks);
				else
					pysrc_copy_lines(s, s->stmt[k].first,
					    s->stmt[k].last, "", "", "",
					    &blocks->s, &blocks->len,
					    &blocks->cap);
			}
			i = sn->blk[b++].last;
			continue;
		}
		if (!is_import(s, i))
			continue;
		if (st->cols == 0)
			put_import(sn, i, future, out);
		else if (pysrc_enclosing(s, st->first, st->first) < 0 &&
		    !(sn->mod_first != 0 && st->first >= sn->mod_first &&
		    st->first <= sn->mod_last))
			sb_printf(&sn->skipped, "%s%u",
			    sn->skipped.len ? ", " : "", st->first);
	}
}

/*
 * Import statement i, at its own indentation, a relative one made
 * absolute; "from __future__" to future.
 */
static void
put_import(const struct snip *sn, size_t i, struct strbuf *future,
    struct strbuf *out)
{
	const struct pysrc *s = sn->s;
	const struct pystmt *st = &s->stmt[i];
	const struct pyline *ll = &s->line[st->last];
	const struct pyline *fl = &s->line[st->first];
	size_t t = st->tok + 1, end = st->tok + st->ntok, n;
	const char *tx;
	char *pkg, *dot;
	int level = 0;

	if (pysrc_tok_is(s, st->tok, "from")) {
		for (; t < end && (pysrc_tok_is(s, t, ".") ||
		    pysrc_tok_is(s, t, "...")); t++)
			level += (int)s->tok[t].len;
		if (t < end && pysrc_tok_is(s, t, "__future__")) {
			pysrc_copy_lines(s, st->first, st->last, "", "", "",
			    &future->s, &future->len, &future->cap);
			return;
		}
	}
	if (level == 0) {
		pysrc_copy_lines(s, st->first, st->last, "", "", "", &out->s,
		    &out->len, &out->cap);
		return;
	}
	/* from ..x import y: the package, less level - 1 parts. */
	pkg = xstrdup(sn->module);
	if (strcmp(sn->file + strlen(sn->file) - (strlen(sn->file) >= 11 ?
	    11 : 0), "__init__.py") != 0)
		level++;
	for (; level > 1 && (dot = strrchr(pkg, '.')) != NULL; level--)
		*dot = '\0';
	sb_printf(out, "%.*sfrom %s", (int)fl->ws, s->text + fl->off,
	    level > 1 ? "" : pkg);
	free(pkg);
	for (; t < end && !pysrc_tok_is(s, t, "import"); t++) {
		tx = pysrc_tok(s, t, &n);
		sb_printf(out, ".%.*s", (int)n, tx);
	}
	if (t == end)
		return;
	tx = pysrc_tok(s, t, &n);
	sb_printf(out, " %.*s\n", (int)(ll->off + ll->len - s->tok[t].off),
	    tx);
}

/*
 * The source's encoding declaration (PEP 263: a comment on line 1, or on
 * line 2 after a comment or blank line 1, matching
 * coding[:=][ \t]*([-\w.]+)), written as target.py's first line unless it
 * names UTF-8, Python's default: the copied bytes are in that encoding.
 */
static void
coding(const struct pysrc *s, struct strbuf *b)
{
	uint32_t k;
	size_t i, j, n;
	const char *t, *name;

	for (k = 1; k <= 2 && k <= s->nline; k++) {
		t = s->text + s->line[k].off;
		n = s->line[k].len;
		for (i = 0; i < n && (t[i] == ' ' || t[i] == '\t' ||
		    t[i] == '\f'); i++)
			;
		if (i == n)
			continue;
		if (t[i] != '#')
			return;
		for (j = i; j + 6 < n; j++) {
			if (memcmp(t + j, "coding", 6) != 0 ||
			    (t[j + 6] != ':' && t[j + 6] != '='))
				continue;
			for (name = t + j + 7; name < t + n &&
			    (*name == ' ' || *name == '\t'); name++)
				;
			for (i = 0; name + i < t + n && (name[i] == '-' ||
			    name[i] == '_' || name[i] == '.' ||
			    isalnum((unsigned char)name[i])); i++)
				;
			if (i == 0)
				continue;
			if (!is_utf8_name(name, i))
				sb_printf(b, "# -*- coding: %.*s -*-\n", (int)i,
				    name);
			return;
		}
	}
}

/* Whether an encoding name is UTF-8 as CPython normalises it. */
static int
is_utf8_name(const char *name, size_t n)
{
	char low[8];
	size_t i;

	if (n < 4)
		return 0;
	for (i = 0; i < n && i < sizeof(low); i++)
		low[i] = name[i] == '_' ? '-' :
		    (char)tolower((unsigned char)name[i]);
	if (n == 4 && memcmp(low, "utf8", 4) == 0)
		return 1;
	return n >= 5 && memcmp(low, "utf-8", 5) == 0 &&
	    (n == 5 || low[5] == '-');
}

static void
target_py(struct snip *sn, struct strbuf *b)
{
	const struct pysrc *s = sn->s;
	const struct pydef *f = sn->f;
	struct strbuf future = { 0 }, imp = { 0 }, blocks = { 0 };
	size_t i;

	imports(sn, &future, &imp, &blocks);
	coding(s, b);
	sb_puts(b, "\"\"\"Profiling target for ");
	snip_py_text(b, f->qualname);
	sb_puts(b, ".\n\nCopied from ");
	snip_py_text(b, s->name);
	sb_printf(b, " lines %u-%u by snip-new;\nREADME.md says where the code"
	    " comes from and what was assumed.  The\nproduction module is"
	    " imported, never edited.\n\"\"\"\n", sn->first_line,
	    sn->last_line);
	if (future.len > 0)
		sb_put(b, future.s, future.len);
	sb_puts(b, "\n");
	if (f->type == PD_ASYNC)
		sb_puts(b, "import asyncio\n");
	sb_puts(b, "from typing import Any\n\nfrom development.profiling.nvtx"
	    " import profiling_range_if_cuda\n\n");
	if (imp.len > 0) {
		sb_printf(b, "# The imports of %s, relative ones made"
		    " absolute.\n", sn->module);
		sb_put(b, imp.s, imp.len);
		sb_puts(b, "\n");
	}
	if (sn->nhelpers > 0) {
		struct strbuf line = { 0 };

		sb_puts(b, "# Helpers stay in their production module.\n");
		sb_printf(&line, "from %s import ", sn->module);
		for (i = 0; i < sn->nhelpers; i++)
			sb_printf(&line, "%s%s", i > 0 ? ", " : "",
			    sn->helpers[i]);
		if (line.len <= 79)
			sb_printf(b, "%s\n", line.s);
		else {
			sb_printf(b, "from %s import (\n", sn->module);
			for (i = 0; i < sn->nhelpers; i++)
				sb_printf(b, "    %s,\n", sn->helpers[i]);
			sb_puts(b, ")\n");
		}
		sb_puts(b, "\n");
		free(line.s);
	}
	if (blocks.len > 0) {
		sb_printf(b, "# Import blocks of %s that the copy needs, copied"
		    " whole.\n", sn->module);
		sb_put(b, blocks.s, blocks.len);
		sb_puts(b, "\n");
	}
	sb_printf(b, "# The device the NVTX ranges below are recorded for;"
	    " prepare() sets it.\n%s: Any = None\n\n\n", sn->devvar);
	sb_puts(b, "# Copied from ");
	snip_py_text(b, s->name);
	sb_printf(b, " lines %u-%u", sn->first_line, sn->last_line);
	sb_puts(b, sn->nreg > 0 ? "; NVTX ranges added.\n" : ".\n");
	copy_def(sn, b);
	sb_puts(b, "\n\n");
	target_class(sn, b);
	free(future.s);
	free(imp.s);
	free(blocks.s);
}

/*
 * The def, dedented to column 0 (never inside a string), decorators that
 * need a class left out, and each region inside a profiling range.
 */
static void
copy_def(const struct snip *sn, struct strbuf *b)
{
	const struct pysrc *s = sn->s;
	/* The text, as patch_method() left it; the same lines. */
	const struct pysrc *c = sn->patched != NULL ? sn->patched : s;
	const struct pydef *f = sn->f;
	uint32_t k, last;
	size_t r = 0, i;

	for (k = f->decorator; k < f->line; ) {
		i = s->line[k].stmt;
		if (i != UINT32_MAX && dropped_decorator(s, i)) {
			k = s->stmt[i].last + 1;
			continue;
		}
		pysrc_copy_lines(c, k, k, sn->strip, "", "", &b->s, &b->len,
		    &b->cap);
		k++;
	}
	last = s->stmt[s->line[f->end].stmt].last;
	for (k = f->line; k <= last; ) {
		if (r < sn->nreg && sn->reg[r].first == k) {
			const struct region *g = &sn->reg[r++];

			sb_printf(b, "%swith profiling_range_if_cuda(\"%s\","
			    " device=%s):\n", g->base, g->label, sn->devvar);
			pysrc_copy_lines(c, g->first, g->last, sn->strip,
			    g->base, sn->unit, &b->s, &b->len, &b->cap);
			k = g->last + 1;
			continue;
		}
		pysrc_copy_lines(c, k, k, sn->strip, "", "", &b->s, &b->len,
		    &b->cap);
		k++;
	}
}

/*
 * What a method means only inside its class, spelt for module level:
 * super() becomes super(Owner, self) and __class__ Owner (the class is
 * imported from production, so the lookup is the same), and a private
 * name __x becomes _Owner__x, as the class body mangles it.  The lines
 * stay as they are, so sn->patched is read with the original's line
 * numbers.  Counts what it changed in sn->supers and sn->mangled.
 */
static void
patch_method(struct snip *sn)
{
	const struct pysrc *s = sn->s;
	struct strbuf out = { 0 }, cls = { 0 };
	const struct pydef *owner;
	size_t t, at = 0, n;
	const char *tx, *self = NULL;
	size_t selflen = 0;

	if (sn->method == M_NONE || sn->method == M_STATIC)
		return;
	owner = &s->def[sn->f->parent];
	for (tx = owner->name; *tx == '_'; tx++)
		;
	sb_puts(&cls, tx);
	if (sn->npar > 0) {
		self = sn->par[0].name;
		selflen = strlen(self);
	}
	for (t = sn->use_first; t < sn->use_end; t++) {
		if (s->tok[t].type != PT_NAME ||
		    pysrc_enclosing(s, s->tok[t].line, s->tok[t].line) !=
		    (int)sn->d)
			continue;
		tx = pysrc_tok(s, t, &n);
		if (n == 5 && memcmp(tx, "super", 5) == 0 && self != NULL &&
		    (t == 0 || !pysrc_tok_is(s, t - 1, ".")) &&
		    t + 2 < sn->use_end && pysrc_tok_is(s, t + 1, "(") &&
		    pysrc_tok_is(s, t + 2, ")")) {
			sb_put(&out, s->text + at, s->tok[t + 1].off + 1 - at);
			sb_printf(&out, "%s, %.*s", sn->owner, (int)selflen,
			    self);
			at = s->tok[t + 1].off + 1;
			sn->supers++;
			continue;
		}
		if (n == 9 && memcmp(tx, "__class__", 9) == 0 &&
		    (t == 0 || !pysrc_tok_is(s, t - 1, "."))) {
			sb_put(&out, s->text + at, s->tok[t].off - at);
			sb_puts(&out, sn->owner);
			at = s->tok[t].off + n;
			sn->supers++;
			continue;
		}
		if (cls.len > 0 && n > 2 && tx[0] == '_' && tx[1] == '_' &&
		    !(tx[n - 1] == '_' && tx[n - 2] == '_')) {
			sb_put(&out, s->text + at, s->tok[t].off - at);
			sb_printf(&out, "_%s", cls.s);
			at = s->tok[t].off;
			sn->mangled++;
		}
	}
	free(cls.s);
	if (sn->supers + sn->mangled == 0) {
		free(out.s);
		return;
	}
	sb_put(&out, s->text + at, s->len - at);
	sn->patched = xcalloc(1, sizeof(*sn->patched));
	if (pysrc_scan(sn->patched, s->name, out.s, out.len) < 0)
		die("%s: the method spelt for module level does not scan: %s",
		    s->name, sn->patched->err);
}

/*
 * What prepare() gives each parameter: snipin's choice by name and
 * annotation; a method's self is an instance of its production class,
 * made by the call config.yaml's inputs.self names, with no arguments
 * only when the constructor is known to need none.
 */
static void
inputs(struct snip *sn)
{
	const char *source = iflag != NULL ? "images" : "dummy";
	struct strbuf why = { 0 };
	size_t i;

	sn->in = xreallocarray(NULL, sn->npar + 1, sizeof(*sn->in));
	for (i = 0; i < sn->npar; i++) {
		const struct param *p = &sn->par[i];
		struct snipin *in = &sn->in[i];

		if (i == 0 && (sn->method == M_INSTANCE ||
		    sn->method == M_CLASS)) {
			memset(in, 0, sizeof(*in));
			in->want = "any";
			in->kind = sn->method == M_CLASS ? SI_NONE : SI_OBJECT;
			if (sn->method == M_CLASS)
				continue;
			in->call = xstrdup(sn->owner);
			why.len = 0;
			in->kwargs_set = ctor_free(sn->s, sn->f->parent, &why,
			    0) != 0;
			if (!in->kwargs_set)
				in->hint = xstrdup(why.s);
			continue;
		}
		if (p->kind == P_VARARGS || p->kind == P_VARKW) {
			memset(in, 0, sizeof(*in));
			in->kind = SI_NONE;
			in->want = "any";
			continue;
		}
		snipin_classify(in, p->name, p->ann, p->has_default, source);
		if (in->kind != SI_NONE && in->kind != SI_DEFAULT &&
		    in->kind != SI_DEVICE)
			sn->nin++;
	}
	if (sn->method == M_INSTANCE && sn->npar > 0)
		sn->nin++;
	free(why.s);
}

/*
 * Whether calling class c with no arguments is known to work: 1 when its
 * __init__ (its own, or the first a base defined in this file has) takes
 * no required argument, or a dataclass has no field without a default, or
 * no class up to object defines one; 0 when it needs some or a base from
 * another module decides, with the reason in why.  -1: no __init__ in c
 * or its bases here, so object's.
 */
static int
ctor_free(const struct pysrc *s, int c, struct strbuf *why, int depth)
{
	const struct pydef *k = &s->def[c];
	const struct pystmt *st = &s->stmt[k->stmt];
	struct strbuf need = { 0 }, base = { 0 };
	struct param *par;
	size_t i, t, npar, item;
	int r;

	for (i = s->ndef; i-- > 0; )
		if (s->def[i].parent == c && s->def[i].type == PD_DEF &&
		    strcmp(s->def[i].name, "__init__") == 0)
			break;
	if (i != SIZE_MAX) {
		npar = def_params(s, &s->def[i], &par);
		for (t = 1; t < npar; t++) {
			if ((par[t].kind == P_POS || par[t].kind == P_KWONLY) &&
			    !par[t].has_default)
				sb_printf(&need, "%s%s", need.len > 0 ? ", " :
				    "", par[t].name);
			free(par[t].name);
			free(par[t].ann);
		}
		if (npar > 0) {
			free(par[0].name);
			free(par[0].ann);
		}
		free(par);
		r = need.len == 0;
		if (!r)
			sb_printf(why, "%s() needs %s: give them as kwargs",
			    k->qualname, need.s);
		free(need.s);
		return r;
	}
	if (is_dataclass(s, c)) {
		dataclass_fields(s, c, &need);
		r = need.len == 0;
		if (!r)
			sb_printf(why, "the dataclass %s() needs %s: give them"
			    " as kwargs", k->qualname, need.s);
		free(need.s);
		return r;
	}
	/* The bases, in order: the first with an __init__ decides. */
	for (t = st->tok; t < k->colon && !(s->tok[t].depth == 0 &&
	    pysrc_tok_is(s, t, "(")); t++)
		;
	for (item = ++t; t < k->colon; t++) {
		int b;

		if (!((s->tok[t].depth == 1 && pysrc_tok_is(s, t, ",")) ||
		    (s->tok[t].depth == 0 && pysrc_tok_is(s, t, ")"))))
			continue;
		base.len = 0;
		if (base.s != NULL)
			base.s[0] = '\0';
		for (; item < t; item++)
			if (s->tok[item].type != PT_COMMENT) {
				size_t n;
				const char *tx = pysrc_tok(s, item, &n);

				sb_put(&base, tx, n);
			}
		item = t + 1;
		if (base.len == 0 || strchr(base.s, '=') != NULL ||
		    strcmp(base.s, "object") == 0)
			continue;
		for (b = 0; b < (int)s->ndef; b++)
			if (s->def[b].type == PD_CLASS && s->def[b].parent ==
			    -1 && strcmp(s->def[b].qualname, base.s) == 0)
				break;
		if (b == (int)s->ndef || depth >= 8) {
			sb_printf(why, "%s's constructor comes from %s, which"
			    " %s defines: give its keyword arguments",
			    k->qualname, base.s, b == (int)s->ndef ?
			    "another module" : "this module too deep down");
			free(base.s);
			return 0;
		}
		if ((r = ctor_free(s, b, why, depth + 1)) >= 0) {
			free(base.s);
			return r;
		}
	}
	free(base.s);
	return depth == 0 ? 1 : -1;
}

/* Whether class c is decorated with dataclass (or dataclasses.dataclass). */
static int
is_dataclass(const struct pysrc *s, int c)
{
	const struct pydef *k = &s->def[c];
	size_t t;

	for (t = s->stmt[s->line[k->decorator].stmt].tok;
	    t < s->stmt[k->stmt].tok; t++)
		if (pysrc_tok_is(s, t, "dataclass"))
			return 1;
	return 0;
}

/* The fields of a dataclass without a default: "name: type" lines. */
static void
dataclass_fields(const struct pysrc *s, int c, struct strbuf *need)
{
	const struct pydef *k = &s->def[c];
	size_t i, t, end;
	uint32_t cols;

	if (k->stmt + 1 >= s->nstmt || k->oneline)
		return;
	cols = s->stmt[k->stmt + 1].cols;
	for (i = k->stmt + 1; i < s->nstmt && s->stmt[i].first <= k->end;
	    i++) {
		const struct pystmt *st = &s->stmt[i];

		if (st->cols != cols || st->ntok < 3 ||
		    s->tok[st->tok].type != PT_NAME ||
		    !pysrc_tok_is(s, st->tok + 1, ":"))
			continue;
		end = st->tok + st->ntok;
		for (t = st->tok + 2; t < end; t++)
			if (s->tok[t].depth == 0 && pysrc_tok_is(s, t, "="))
				break;
		if (t == end && !pysrc_tok_is(s, st->tok + 2, "ClassVar")) {
			size_t n;
			const char *tx = pysrc_tok(s, st->tok, &n);

			sb_printf(need, "%s%.*s", need->len > 0 ? ", " : "",
			    (int)n, tx);
		}
	}
}

/*
 * The generic part of a target that reads config.yaml's inputs, in pieces
 * of the length C promises a string literal.
 */
static const char *const input_methods[] = {
"    # What prepare() gives the arguments: config.yaml's inputs section.\n"
"    # The runner passes the target no config, so it is the config.yaml\n"
"    # beside this file, read once.\n"
"\n"
"    def _spec(self, name: str) -> dict[str, Any]:\n"
"        if self._inputs is None:\n"
"            import yaml\n"
"            from pathlib import Path\n"
"\n"
"            path = Path(__file__).with_name(\"config.yaml\")\n"
"            with open(path, encoding=\"utf-8\") as f:\n"
"                self._inputs = (yaml.safe_load(f) or {}).get(\"inputs\") or {}\n"
"        spec = self._inputs.get(name)\n"
"        if not isinstance(spec, dict):\n"
"            raise ValueError(f\"config.yaml: inputs.{name} is missing;\"\n"
"                             \" snip-lint checks the section\")\n"
"        return spec\n"
"\n"
"    def _input(self, name: str, record: Any, device: Any,\n"
"               want: str = \"any\") -> Any:\n"
"        spec = self._spec(name)\n"
"        form = next((k for k in (\"from\", \"shape\", \"value\", \"call\")\n"
"                     if k in spec), \"from\")\n"
"        if spec.get(form) is None:\n"
"            raise ValueError(f\"config.yaml: inputs.{name}.{form} is unset;\"\n"
"                             \" snip-lint says what it needs\")\n"
"        if form == \"value\":\n"
"            return spec[\"value\"]\n"
"        if form == \"call\":\n"
"            return self._object(name, spec)\n"
"        if form == \"shape\":\n"
"            return self._placed(self._tensor(name, spec, record), device, want)\n"
"        return self._placed(self._field(name, str(spec[\"from\"]), record),\n"
"                            device, want)\n"
"\n"
"    def _field(self, name: str, field: str, record: Any) -> Any:\n"
"        if field == \"record\":\n"
"            return record\n"
"        if field == \"id\":\n"
"            return record.id\n"
"        if field in (\"path\", \"bytes\") and record.path is not None:\n"
"            return record.path.read_bytes() if field == \"bytes\" else record.path\n"
"        if field == \"image\" and record.image is not None:\n"
"            return record.image\n"
"        key = field.partition(\"metadata.\")[2]\n"
"        if field.startswith(\"metadata.\") and key in record.metadata:\n"
"            return record.metadata[key]\n"
"        raise ValueError(f\"inputs.{name}: record {record.id} has no {field}\"\n"
"                         \" (the images data source has a path and, with\"\n"
"                         \" decode, an image; dummy has metadata tensor,\"\n"
"                         \" scores and boxes)\")\n"
"\n",
"    def _tensor(self, name: str, spec: dict[str, Any], record: Any) -> Any:\n"
"        import zlib\n"
"\n"
"        import torch\n"
"\n"
"        dtype = getattr(torch, str(spec.get(\"dtype\") or \"float32\"))\n"
"        shape = [int(d) for d in spec[\"shape\"]]\n"
"        # The same values for a record id in every pass and every run.\n"
"        gen = torch.Generator().manual_seed(\n"
"            zlib.crc32(f\"{name} {record.id}\".encode()))\n"
"        if dtype.is_floating_point:\n"
"            return torch.rand(shape, generator=gen).to(dtype)\n"
"        if dtype == torch.bool:\n"
"            return torch.rand(shape, generator=gen) < 0.5\n"
"        return torch.randint(0, 128, shape, generator=gen).to(dtype)\n"
"\n"
"    def _placed(self, value: Any, device: Any, want: str) -> Any:\n"
"        \"\"\"value as the copy takes it; a tensor on the run's device.\"\"\"\n"
"        import numpy as np\n"
"        import torch\n"
"\n"
"        if want == \"str\":\n"
"            return str(value)\n"
"        if want.startswith(\"list-\"):\n"
"            return [self._placed(value, device, want[5:])]\n"
"        if want == \"numpy\" and isinstance(value, torch.Tensor):\n"
"            value = value.detach().cpu().numpy()\n"
"        if isinstance(value, np.ndarray):\n"
"            # torch.from_numpy() and in-place work need both; the dtype\n"
"            # stays.\n"
"            value = np.ascontiguousarray(value)\n"
"            if not value.flags.writeable:\n"
"                value = value.copy()\n"
"            if want == \"torch\":\n"
"                value = torch.from_numpy(value)\n"
"        if isinstance(value, torch.Tensor) and want != \"numpy\":\n"
"            value = value.to(device)\n"
"        return value\n"
"\n"
"    def _object(self, name: str, spec: dict[str, Any]) -> Any:\n"
"        if name not in self._objects:\n"
"            kwargs = spec.get(\"kwargs\")\n"
"            if not isinstance(kwargs, dict):\n"
"                raise ValueError(f\"config.yaml: inputs.{name}.kwargs is unset;\"\n"
"                                 \" snip-lint says what it needs\")\n"
"            self._objects[name] = self._named(str(spec[\"call\"]))(**kwargs)\n"
"        return self._objects[name]\n"
"\n",
	NULL
};

/* Finds a name target.py imports, by its dotted spelling. */
static const char named_method[] =
"    @staticmethod\n"
"    def _named(dotted: str) -> Any:\n"
"        import builtins\n"
"\n"
"        head, _, rest = dotted.partition(\".\")\n"
"        value = globals().get(head, getattr(builtins, head, None))\n"
"        if value is None:\n"
"            raise ValueError(f\"{dotted}: target.py imports no {head}\")\n"
"        for part in rest.split(\".\") if rest else ():\n"
"            value = getattr(value, part)\n"
"        return value\n"
"\n";

/* How prepare() writes the argument of parameter i. */
static void
put_argument(const struct snip *sn, size_t i, struct strbuf *b)
{
	const struct snipin *in = &sn->in[i];

	if (in->kind == SI_DEVICE)
		sb_puts(b, "device");
	else if (sn->method == M_CLASS && i == 0)
		sb_printf(b, "self._named(\"%s\")", sn->owner);
	else if (strcmp(in->want, "any") == 0)
		sb_printf(b, "self._input(\"%s\", record, device)",
		    sn->par[i].name);
	else
		sb_printf(b, "self._input(\"%s\", record, device, \"%s\")",
		    sn->par[i].name, in->want);
}

static void
target_class(const struct snip *sn, struct strbuf *b)
{
	const struct pydef *f = sn->f;
	size_t i;
	int any = 0;

	sb_printf(b, "class %s:\n    \"\"\"Runs the copied %s on one data"
	    " record per call.\"\"\"\n\n    name = \"%s\"\n\n", sn->tclass,
	    f->name, sn->profile);
	if (sn->nin > 0)
		sb_puts(b, "    def __init__(self) -> None:\n"
		    "        self._inputs: Any = None\n"
		    "        self._objects: dict[str, Any] = {}\n\n");
	sb_printf(b, "    def prepare(self, record: Any, *, device: Any) -> Any:\n"
	    "        global %s\n        %s = device\n", sn->devvar, sn->devvar);
	sb_puts(b, "        args = (");
	for (i = 0; i < sn->npar; i++) {
		const struct param *p = &sn->par[i];
		const struct snipin *in = &sn->in[i];

		if (p->kind != P_POS || in->kind == SI_DEFAULT ||
		    (in->kind == SI_NONE && !(sn->method == M_CLASS &&
		    i == 0)) || (in->kind == SI_DEVICE && p->has_default))
			continue;
		sb_puts(b, "\n            ");
		put_argument(sn, i, b);
		sb_puts(b, ",");
		any = 1;
	}
	sb_puts(b, any ? "\n        )\n" : ")\n");
	any = 0;
	sb_puts(b, "        kwargs = {");
	for (i = 0; i < sn->npar; i++) {
		const struct param *p = &sn->par[i];
		const struct snipin *in = &sn->in[i];

		if (in->kind == SI_DEFAULT || in->kind == SI_NONE ||
		    !(p->kind == P_KWONLY || (in->kind == SI_DEVICE &&
		    p->has_default)))
			continue;
		sb_printf(b, "\n            \"%s\": ", p->name);
		put_argument(sn, i, b);
		sb_puts(b, ",");
		any = 1;
	}
	sb_puts(b, any ? "\n        }\n" : "}\n");
	sb_puts(b, "        return args, kwargs\n\n"
	    "    def run(self, prepared: Any) -> Any:\n"
	    "        args, kwargs = prepared\n");
	/* An async generator is no coroutine: asyncio.run() refuses it. */
	if (f->type == PD_ASYNC && sn->yields)
		sb_printf(b, "\n        async def collect() -> list[Any]:\n"
		    "            return [item async for item in %s(*args,"
		    " **kwargs)]\n\n        return asyncio.run(collect())\n",
		    f->name);
	else if (f->type == PD_ASYNC)
		sb_printf(b, "        return asyncio.run(%s(*args, **kwargs))\n",
		    f->name);
	else if (sn->yields)
		sb_printf(b, "        return list(%s(*args, **kwargs))\n",
		    f->name);
	else
		sb_printf(b, "        return %s(*args, **kwargs)\n", f->name);
	sb_puts(b, "\n    def validate(self, output: Any) -> None:\n");
	if (sn->returns || sn->yields)
		sb_printf(b, "        if output is None:\n"
		    "            raise ValueError(\"%s returned None\")\n",
		    f->name);
	else
		sb_printf(b, "        # %s returns nothing; there is no output to"
		    " check.\n        return None\n", f->name);
	sb_printf(b, "\n    def summarize(self, output: Any) -> dict[str, Any]:\n"
	    "        \"\"\"A small, manifest-safe description of the output."
	    "\"\"\"\n"
	    "        summary: dict[str, Any] = {\"type\":"
	    " type(output).__name__}\n"
	    "        shape = getattr(output, \"shape\", None)\n"
	    "        if shape is not None:\n"
	    "            summary[\"shape\"] = [int(d) for d in shape]\n"
	    "            summary[\"dtype\"] = str(getattr(output, \"dtype\","
	    " \"\"))\n"
	    "        elif isinstance(output, (list, tuple, dict)):\n"
	    "            summary[\"len\"] = len(output)\n"
	    "        elif isinstance(output, (bool, int, float, str)):\n"
	    "            summary[\"value\"] = output\n"
	    "        return summary\n\n");
	for (i = 0; sn->nin > 0 && input_methods[i] != NULL; i++)
		sb_puts(b, input_methods[i]);
	if (sn->nin > 0 || sn->method == M_CLASS)
		sb_puts(b, named_method);
	b->len -= 1;
	sb_printf(b, "\n\n%s = %s()\n", sn->tvar, sn->tclass);
}

static void
config_yaml(const struct snip *sn, struct strbuf *b)
{
	struct snipconf c = { sn->profile, NULL, Dflag, NULL, NULL, 10, 100 };
	struct strbuf ip = { 0 }, p = { 0 };
	char cwd[PATH_MAX], *images = NULL;
	const char *home = getenv("HOME");

	sb_printf(&ip, "%s:%s", sn->target, sn->tvar);
	c.import_path = ip.s;
	if (iflag != NULL) {
		/* The runner expands neither "~" nor a relative path well. */
		if (strncmp(iflag, "~/", 2) == 0 && home != NULL)
			sb_printf(&p, "%s/%s", home, iflag + 2);
		else if (iflag[0] != '/' && getcwd(cwd, sizeof(cwd)) != NULL)
			sb_printf(&p, "%s/%s", cwd, iflag);
		else
			sb_puts(&p, iflag);
		c.images = images = snip_path(p.s);
	}
	if (strcmp(sn->odir, DEFAULT_DIR) != 0)
		c.output_dir = sn->odir;
	snip_config_yaml(b, &c);
	if (sn->nin > 0)
		inputs_yaml(sn, b);
	free(images);
	free(ip.s);
	free(p.s);
}

/* The inputs section: see snipin.h. */
static void
inputs_yaml(const struct snip *sn, struct strbuf *b)
{
	size_t i;

	sb_printf(b, "# What prepare() gives each argument of %s; target.py"
	    " reads this\n# section, the runner ignores it.  from: a field of"
	    " the data source's\n# record (image, path, bytes, id, record,"
	    " metadata.KEY); shape and dtype:\n# a tensor of random values,"
	    " the same for a record id; value: as written;\n# call and kwargs:"
	    " an object made once by calling a name target.py\n# imports."
	    "  null is unset: prepare() refuses to run and snip-lint says so.\n"
	    "inputs:\n", sn->f->name);
	for (i = 0; i < sn->npar; i++) {
		const struct snipin *in = &sn->in[i];

		if (in->kind == SI_NONE || in->kind == SI_DEFAULT ||
		    in->kind == SI_DEVICE)
			continue;
		sb_puts(b, "  ");
		snip_yaml_scalar(b, sn->par[i].name);
		sb_puts(b, ":\n");
		switch (in->kind) {
		case SI_FIELD:
			sb_puts(b, "    from: ");
			snip_yaml_scalar(b, in->field);
			break;
		case SI_TENSOR:
			sb_puts(b, "    shape: null");
			break;
		case SI_VALUE:
			sb_puts(b, "    value: null");
			break;
		case SI_OBJECT:
			sb_puts(b, "    call: ");
			if (in->call != NULL)
				snip_yaml_scalar(b, in->call);
			else
				sb_puts(b, "null");
			break;
		}
		if (in->hint != NULL) {
			sb_puts(b, "  # ");
			snip_yaml_comment(b, in->hint);
		}
		sb_puts(b, "\n");
		if (in->kind == SI_TENSOR)
			sb_puts(b, "    dtype: float32\n");
		if (in->kind == SI_OBJECT)
			sb_puts(b, in->kwargs_set ? "    kwargs: {}\n" :
			    "    kwargs: null\n");
	}
}

static void
readme(const struct snip *sn, const struct strbuf *cfgtext, struct strbuf *b)
{
	const struct pysrc *s = sn->s;
	const struct pydef *f = sn->f;
	struct snipcfg c;
	struct sdiags d = { 0 };
	char *rundir, *nsys, *q, *pyq, *pythonpath;
	struct strbuf cmd = { 0 };
	size_t i;
	const char *a;

	if (snipcfg_parse(&c, cfgtext->s, cfgtext->len, &d) < 0)
		die("the config written does not read back: %s",
		    d.n > 0 ? d.v[0].msg : "?");
	rundir = snipcfg_run_dir(&c, "nsys");
	nsys = snipcfg_nsys(&c, rundir, sn->config);
	q = snip_quote(sn->config);
	pyq = snip_quote(sn->root);
	{
		struct strbuf pp = { 0 }, env = { 0 };
		char *quoted;

		sb_puts(&pp, "./");
		if (strcmp(sn->root, ".") != 0)
			sb_printf(&pp, ":%s", sn->root);
		quoted = snip_quote(pp.s);
		sb_printf(&env, "PYTHONPATH=%s", quoted);
		pythonpath = env.s;
		free(quoted);
		free(pp.s);
	}

	sb_printf(b, "# %s\n\nProfiles `%s` from ", sn->profile, f->qualname);
	snip_md_code(b, s->name);
	sb_puts(b, " in isolation, with the roboflow/inference\nprofiling"
	    " runner (`development/profiling/main.py`).\n\n## Provenance\n\n"
	    "- source: ");
	snip_md_code(b, s->name);
	sb_printf(b, " (module `%s`, package root ", sn->module);
	snip_md_code(b, sn->root);
	sb_puts(b, ")\n");
	if (sn->mod_first != 0)
		sb_printf(b, "- lines: %u-%u, at module level, made the body of"
		    " `%s`\n", sn->mod_first, sn->mod_last, f->name);
	else
		sb_printf(b, "- definition: `%s`, %s, lines %u-%u (def line"
		    " %u)\n", f->qualname, f->type == PD_DEF ? "def" :
		    "async def", f->decorator, f->end, f->line);
	sb_printf(b, "- sha256 of the source: `%s`\n"
	    "- git commit: %s%s%s\n"
	    "- generated by: snip-new\n\n", sn->sha,
	    sn->git != NULL ? "`" : "", sn->git != NULL ? sn->git :
	    "unknown (the source is not in a git work tree)",
	    sn->git != NULL ? "`" : "");
	if (sn->mod_first != 0) {
		sb_printf(b, "## What target.py holds\n\n- Source lines %u-%u,"
		    " as the body of a function `%s`, which\n  returns"
		    " `locals()`: what the lines made.  ", sn->mod_first,
		    sn->mod_last, f->name);
		if (sn->modparams.n == 0)
			sb_puts(b, "They read no value from the module above"
			    " them.\n");
		else {
			sb_puts(b, "Its parameters are the values\n  they read"
			    " from the module above them:");
			for (i = 0; i < sn->modparams.n; i++)
				sb_printf(b, "%s `%s`", i > 0 ? "," : "",
				    sn->modparams.v[i]);
			sb_puts(b, ".\n");
		}
	} else
		sb_printf(b, "## What target.py holds\n\n"
		    "- `%s` copied with its direct control flow, dedented to"
		    " the top level.\n", f->name);
	for (i = 0; i < sn->nreg; i++)
		sb_printf(b, "- NVTX range `%s` around source lines %u-%u.\n",
		    sn->reg[i].label, source_line(sn, sn->reg[i].first),
		    source_line(sn, sn->reg[i].last));
	if (sn->nreg == 0)
		sb_puts(b, "- No NVTX ranges inside the function: no statement"
		    " matched the range table.\n  The runner's `profile-target`"
		    " and `iteration N` ranges still apply.\n");
	if (sn->nhelpers > 0) {
		sb_puts(b, "- Helpers called from production:");
		for (i = 0; i < sn->nhelpers; i++)
			sb_printf(b, " `%s`%s", sn->helpers[i],
			    i + 1 < sn->nhelpers ? "," : "");
		sb_printf(b, ", imported from `%s`.\n", sn->module);
	}
	sb_printf(b, "- `%s` implements the ProfileTarget protocol (`name`,"
	    " `prepare`, `run`,\n  `validate`, `summarize`); `%s` is its"
	    " instance.\n\n", sn->tclass, sn->tvar);
	sb_puts(b, "## Assumptions and differences from production\n\n");
	for (i = 0; i < sn->npar; i++)
		input_line(sn, i, b);
	if (sn->mod_first != 0 && sn->nhelpers > 0)
		sb_printf(b, "- Importing `%s` for its helpers runs its"
		    " module-level code, these lines'\n  surroundings included,"
		    " as any import of it does.\n", sn->module);
	if (f->parent >= 0 && s->def[f->parent].type != PD_CLASS)
		sb_printf(b, "- `%s` is nested in `%s`; names it takes from"
		    " there must be supplied.\n", f->name,
		    s->def[f->parent].qualname);
	if (strcmp(sn->tvar, "target") != 0)
		sb_printf(b, "- The copy uses production's own `target`, so the"
		    " profiling target is `%s`.\n", sn->tvar);
	if (strcmp(sn->devvar, "PROFILE_DEVICE") != 0)
		sb_printf(b, "- The copy uses production's own `PROFILE_DEVICE`,"
		    " so the ranges' device is `%s`.\n", sn->devvar);
	if (sn->dropped.len > 0)
		sb_printf(b, "- Decorators left out: %s.\n", sn->dropped.s);
	if (sn->supers > 0)
		sb_printf(b, "- `super()` is spelt `super(%s, %s)` and `__class__`"
		    " `%s`: at module level\n  the zero-argument form finds no"
		    " class (`RuntimeError: super(): __class__\n  cell not"
		    " found`).\n", sn->owner, sn->par[0].name, sn->owner);
	if (sn->mangled > 0)
		sb_printf(b, "- Private names (`__x`) are spelt `_%s__x`, as the"
		    " class body mangles them.\n", s->def[f->parent].name +
		    strspn(s->def[f->parent].name, "_"));
	for (i = 0; i < sn->nblk; i++)
		sb_printf(b, "- The `%s` block of source lines %u-%u imports"
		    " what the copy uses; it is\n  copied whole, after the"
		    " helpers.\n", pysrc_tok_is(s, s->stmt[sn->blk[i].first].tok,
		    "if") ? "if" : "try", s->stmt[sn->blk[i].first].first,
		    s->stmt[sn->blk[i].last].last);
	if (sn->skipped.len > 0)
		sb_printf(b, "- Imports inside other `if` or `try` blocks, which"
		    " the copy does not use, are\n  not copied (source lines:"
		    " %s).\n", sn->skipped.s);
	if (f->oneline)
		sb_puts(b, "- The body is on the def line, so it has no ranges"
		    " of its own.\n");
	sb_puts(b, "- `validate` only checks that there is an output: compare"
	    " with production\n  on a tiny fixture before trusting the"
	    " numbers.\n\n");
	needs(sn, b);
	sb_puts(b, "## Required files\n\n");
	if (iflag != NULL) {
		sb_puts(b, "- The image directory named in `config.yaml` (");
		snip_md_code(b, iflag);
		sb_puts(b, ").\n");
	} else if (!needs_images(sn))
		sb_puts(b, "- None for the `dummy` data source.\n");
	else
		sb_puts(b, "- Image files: a parameter takes a file's path or"
		    " bytes, which only the\n  `images` data source has"
		    " (`snip-new -i DIR`, or its keys in `config.yaml`).\n");
	if (strcmp(sn->root, ".") == 0)
		sb_printf(b, "- The production module `%s` importable from the"
		    " repository root\n  (`uv pip install -e .`).\n\n",
		    sn->module);
	else
	{
		sb_printf(b, "- The production module `%s`, importable from its"
		    " package root ", sn->module);
		snip_md_code(b, sn->root);
		sb_puts(b, ",\n  which the commands below put on `PYTHONPATH`"
		    " (or install it: ");
		sb_printf(&cmd, "uv pip install -e %s", pyq);
		snip_md_code(b, cmd.s);
		sb_puts(b, ").\n\n");
	}
	models(sn, b);
	environment_md(sn, b);
	api_keys(sn, b);
	sb_printf(b, "## Smoke run (no Nsight)\n\nFrom the repository root;"
	    " the runner imports `development.profiling`,\nwhich is not"
	    " installed, so the repository root goes on `PYTHONPATH`:\n\n"
	    "    %s uv run python development/profiling/main.py --config %s"
	    " --run-id smoke\n\n", pythonpath, q);
	sb_puts(b, "## Nsight Systems\n\nWith ");
	snip_md_code(b, pythonpath);
	sb_puts(b, " exported, as for the smoke run:\n\n");
	for (a = nsys; *a != '\0'; ) {
		size_t n = strcspn(a, "\n");

		sb_printf(b, "    %.*s\n", (int)n, a);
		a += n + (a[n] == '\n');
	}
	free(q);
	free(pyq);
	free(cmd.s);
	free(pythonpath);
	free(nsys);
	free(rundir);
	sdiag_free(&d);
	snipcfg_free(&c);
}

/* Whether name looks like a secret's: an API key, a token, a password. */
static int
secret_name(const char *name)
{
	static const char *const words[] = {
		"api_key", "apikey", "token", "secret", "password",
		"credential", NULL
	};
	char low[128];
	size_t i;

	if (name == NULL)
		return 0;
	for (i = 0; name[i] != '\0' && i + 1 < sizeof(low); i++)
		low[i] = (char)tolower((unsigned char)name[i]);
	low[i] = '\0';
	for (i = 0; words[i] != NULL; i++)
		if (strstr(low, words[i]) != NULL)
			return 1;
	return 0;
}

/* Whether name looks like a model's: a model, its id, weights. */
static int
model_name(const char *name)
{
	char low[128];
	size_t i;

	if (name == NULL)
		return 0;
	for (i = 0; name[i] != '\0' && i + 1 < sizeof(low); i++)
		low[i] = (char)tolower((unsigned char)name[i]);
	low[i] = '\0';
	return strstr(low, "model") != NULL || strstr(low, "weights") != NULL ||
	    strstr(low, "checkpoint") != NULL;
}

/* One environment read, as a README line. */
static void
env_line(const struct envread *e, struct strbuf *b)
{
	if (e->var != NULL && e->constant != NULL)
		sb_printf(b, "- `%s`: sets `%s` of `%s` (its line %u), which"
		    " `%s` reads.\n", e->var, e->constant, e->module, e->line,
		    e->by);
	else if (e->var != NULL)
		sb_printf(b, "- `%s`: read by `%s` (line %u of the source).\n",
		    e->var, e->by, e->line);
	else
		sb_printf(b, "- `%s` of `%s`, which `%s` reads: %s.\n",
		    e->constant, e->module, e->by, e->line > 0 ? "no"
		    " environment variable found in its definition" :
		    "that module is not under the package root; see it for"
		    " the variable that sets it");
}

/* Models: parameters that take one or its id, and their variables. */
static void
models(const struct snip *sn, struct strbuf *b)
{
	size_t i, n = 0;

	sb_puts(b, "## Models\n\n");
	for (i = 0; i < sn->npar; i++) {
		const struct snipin *in = &sn->in[i];

		if (!model_name(sn->par[i].name) || (in->kind != SI_VALUE &&
		    in->kind != SI_OBJECT))
			continue;
		sb_printf(b, "- `%s`: `inputs.%s` in `config.yaml`.\n",
		    sn->par[i].name, sn->par[i].name);
		n++;
	}
	for (i = 0; i < sn->env.n; i++)
		if (model_name(sn->env.v[i].var) ||
		    model_name(sn->env.v[i].constant)) {
			env_line(&sn->env.v[i], b);
			n++;
		}
	if (n == 0)
		sb_puts(b, "- None that a parameter or an environment variable"
		    " names.\n");
	sb_puts(b, "\n");
}

/* Environment variables the copy and its direct helpers read. */
static void
environment_md(const struct snip *sn, struct strbuf *b)
{
	size_t i;

	sb_puts(b, "## Environment variables\n\nWhat the copied code and its"
	    " direct helpers read from the environment;\na run reads them as"
	    " production does, so set them as the service would:\n\n");
	for (i = 0; i < sn->env.n; i++)
		env_line(&sn->env.v[i], b);
	if (sn->env.n == 0)
		sb_puts(b, "- None found in the copied code or its direct"
		    " helpers.\n");
	sb_puts(b, "\n");
}

/* API keys: parameters and variables named like secrets. */
static void
api_keys(const struct snip *sn, struct strbuf *b)
{
	size_t i, n = 0;

	sb_puts(b, "## API keys\n\n");
	for (i = 0; i < sn->npar; i++)
		if (secret_name(sn->par[i].name) &&
		    sn->in[i].kind == SI_VALUE) {
			sb_printf(b, "- `%s`: `inputs.%s.value`.\n",
			    sn->par[i].name, sn->par[i].name);
			n++;
		}
	for (i = 0; i < sn->env.n; i++)
		if (secret_name(sn->env.v[i].var) ||
		    secret_name(sn->env.v[i].constant)) {
			env_line(&sn->env.v[i], b);
			n++;
		}
	if (n == 0)
		sb_puts(b, "- None that a parameter or an environment variable"
		    " names.\n\n");
	else
		sb_puts(b, "\nKeep them in the environment: a key written into"
		    " `config.yaml` ends up in\nevery copy of the snippet.\n\n");
}

/* The README's line on what prepare() gives parameter i. */
static void
input_line(const struct snip *sn, size_t i, struct strbuf *b)
{
	const struct param *p = &sn->par[i];
	const struct snipin *in = &sn->in[i];
	static const char *const wants[][2] = {
		{ "torch", ", as a torch tensor on the device" },
		{ "numpy", ", as a numpy array" },
		{ "list-torch", ", in a list of one, as a torch tensor on the"
		    " device" },
		{ "list-numpy", ", in a list of one, as a numpy array" },
		{ "str", ", as a string" },
		{ "any", ", a tensor moved to the device" },
	};
	const char *how = "";
	size_t k;

	for (k = 0; k < sizeof(wants) / sizeof(wants[0]); k++)
		if (strcmp(in->want, wants[k][0]) == 0)
			how = wants[k][1];
	switch (in->kind) {
	case SI_NONE:
		if (sn->method == M_CLASS && i == 0)
			sb_printf(b, "- `%s` is the production class `%s`.\n",
			    p->name, sn->owner);
		break;
	case SI_DEFAULT:
		sb_printf(b, "- `%s` keeps its default.\n", p->name);
		break;
	case SI_DEVICE:
		sb_printf(b, "- `%s` is the run's device (`device` in"
		    " `config.yaml`, or `--device`).\n", p->name);
		break;
	case SI_FIELD:
		sb_printf(b, "- `%s` is the record's %s (`inputs.%s.from`)%s.\n",
		    p->name, in->field, p->name, how);
		break;
	case SI_TENSOR:
		sb_printf(b, "- `%s` is a tensor of random values that"
		    " `prepare()` makes from\n  `inputs.%s` (its shape and"
		    " dtype; the same values for a record id)%s.\n", p->name,
		    p->name, how);
		break;
	case SI_VALUE:
		sb_printf(b, "- `%s` is `inputs.%s.value`, as written.\n",
		    p->name, p->name);
		break;
	case SI_OBJECT:
		if (i == 0 && sn->method == M_INSTANCE)
			sb_printf(b, "- `%s` is an instance of `%s` made once, by"
			    " `%s(**kwargs)` with\n  `inputs.%s.kwargs`%s.\n",
			    p->name, sn->owner, sn->owner, p->name,
			    in->kwargs_set ? " (none: its constructor needs"
			    " none)" : "");
		else
			sb_printf(b, "- `%s` is made once by calling"
			    " `inputs.%s.call` with `inputs.%s.kwargs`.\n",
			    p->name, p->name, p->name);
		break;
	}
}

/*
 * What the user must supply before a run: each input left unset, and the
 * record fields the dummy data source does not have.
 */
static void
needs(const struct snip *sn, struct strbuf *b)
{
	size_t i, n = 0;

	for (i = 0; i < sn->npar; i++) {
		const struct snipin *in = &sn->in[i];
		const char *name = sn->par[i].name, *key = NULL;

		if ((key = user_sets(in)) == NULL)
			continue;
		if (n++ == 0)
			sb_puts(b, "## What you must supply\n\n"
			    "`prepare()` refuses to run, and `snip-lint` reports"
			    " the config, until\neach of these is set in"
			    " `config.yaml`:\n\n");
		sb_printf(b, "- `inputs.%s.%s`", name, key);
		if (in->hint != NULL) {
			sb_puts(b, ": ");
			snip_md_text(b, in->hint);
		}
		sb_puts(b, ".\n");
	}
	if (n > 0)
		sb_puts(b, "\n");
}

/*
 * The key of inputs the user must set for this parameter (the data
 * source's field, when the dummy source lacks it), or NULL.
 */
static const char *
user_sets(const struct snipin *in)
{
	if (in->kind == SI_TENSOR)
		return "shape";
	if (in->kind == SI_VALUE)
		return "value";
	if (in->kind == SI_OBJECT && in->call == NULL)
		return "call";
	if (in->kind == SI_OBJECT && !in->kwargs_set)
		return "kwargs";
	if (in->kind == SI_FIELD && in->hint != NULL)
		return "from";
	return NULL;
}

/* Whether a parameter takes a file's path or bytes. */
static int
needs_images(const struct snip *sn)
{
	size_t i;

	for (i = 0; i < sn->npar; i++)
		if (sn->in[i].kind == SI_FIELD && (strcmp(sn->in[i].field,
		    "path") == 0 || strcmp(sn->in[i].field, "bytes") == 0))
			return 1;
	return 0;
}

/*
 * base, or base with underscores after it, so that it is none of the
 * production names the copy takes from its module: target.py's own
 * `target` must not hide the module's `target`, which the copy means.
 */
static char *
own_name(const struct snip *sn, const char *base)
{
	struct strbuf b = { 0 };
	size_t i;

	sb_puts(&b, base);
	for (;;) {
		for (i = 0; i < sn->nhelpers &&
		    strcmp(sn->helpers[i], b.s) != 0; i++)
			;
		if (i == sn->nhelpers)
			return b.s;
		sb_puts(&b, "_");
	}
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
		jw_bool(w, !user_sets(in));
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
		jw_uint(w, source_line(sn, sn->reg[i].first));
		jw_key(w, "last");
		jw_uint(w, source_line(sn, sn->reg[i].last));
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
	if (strcmp(odir, DEFAULT_DIR) != 0)
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
	struct extract_opts xo = { 0, NULL };
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
