/*
 * op-rank: where the time goes in a PyTorch profiler trace, by operator,
 * thread, family, phase, step and GPU kernel, from tr-extract records.
 */
#include <ctype.h>
#include <errno.h>
#include <fnmatch.h>
#include <getopt.h>
#include <inttypes.h>
#include <limits.h>
#include <math.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>
#include <unistd.h>

#include "err.h"
#include "ival.h"
#include "json.h"
#include "ndjson.h"
#include "sha256.h"
#include "strmap.h"
#include "xalloc.h"

#define TABLE_NAME	"op-families.tsv"
#define PREC_NAME	"kernel-precision.tsv"
#define TOP_N		5	/* entries in the summaries' top lists */
#define PARTIAL_VERSION	1	/* of the op_partial records */

/* What a name is; the class is part of the interned key. */
enum { C_OP, C_ANN, C_PY, C_GPU, NCLASS };
static const char clschar[NCLASS] = { 'o', 'a', 'p', 'g' };
static const char *const clsname[NCLASS] = {
	"op", "annotation", "python", "kernel"
};

enum {
	PH_FWD, PH_BWD, PH_OPT, PH_DATA, PH_COMM, PH_OTHER, NPHASE,
	PH_NONE = NPHASE
};
static const char *const phasename[NPHASE] = {
	"forward", "backward", "optimizer", "dataloader", "communication",
	"other"
};

/* GPU time classes, in precedence order for ival_exposed(). */
enum { G_COMP, G_COMM, G_MEMCPY, NGCLS };

/* The precisions of gemm_precision records, in their order. */
static const char *const precname[] = {
	"fp4", "fp8", "bf16", "fp16", "tf32", "fp32", "fp64", "int8"
};
#define NPREC	(sizeof(precname) / sizeof(precname[0]))

enum key { K_TOTAL, K_SELF, K_COUNT, K_MEAN, K_MAX, K_GPU };
static const char *const keyname[] = {
	"total", "self", "count", "mean", "max", "gpu"
};

struct rule {
	int	 gpu;
	int	 family;
	char	*pattern;
};

/*
 * The family table, or the precision table; "other" (or "unknown") is
 * family nfam, after the table's own.
 */
struct table {
	struct rule	*r;
	size_t		 n, cap;
	char		**fam;
	size_t		 nfam, capfam;
};

struct name {
	const char	*s;	/* borrowed from the map's key, past the class */
	int		 cls;
	int		 family;
	int		 mark;	/* the phase the name marks, or PH_NONE */
	int		 gcls;	/* a kernel's timeline class, G_* */
	int		 prec;	/* a kernel's precision: precname[] */
	int		 mm;	/* a kernel in family gemm or conv */
};

struct names {
	struct strmap		 map;
	struct name		*v;
	size_t			 n, cap;
	char			*buf;
	size_t			 bufcap;
	const struct table	*tab, *prec;
	int			 famcomm, fammemcpy, famgemm, famconv;
	int			*precof; /* table family -> precname[] */
};

/* Per name: CPU times in whole µs as key_averages() has them, GPU in ns. */
struct stat {
	int64_t	count, total, self, min, max;
	int64_t	gpu_self, gpu_total;
};

/* A pid or tid as the trace wrote it: a number's text or a string. */
struct jid {
	char	*text;		/* NULL when absent */
	int	 str;
};

struct thsum {
	struct jid	 pid, tid;
	char		*name;
	int64_t		 count, busy;
};

struct step {
	int64_t	num, ts, cpu_end, end;	/* ns from the trace's origin */
};

struct devsum {
	struct jid	dev;
	int64_t		window, busy, comp, comm, memcpy, xcomm, xmemcpy;
	int64_t		events;
};

/* Everything known about a trace, then about a rank. */
struct agg {
	int64_t		 rank;		/* -1: unknown */
	struct stat	*st;		/* by name id */
	struct stat	*pst;		/* by name id, in -p phase */
	size_t		 nst, capst;
	struct strmap	 threads;	/* -> struct thsum */
	struct strmap	 devs;		/* -> struct devsum */
	int64_t		 ph_self[NPHASE], ph_gpu[NPHASE];
	struct step	*steps;
	size_t		 nsteps, capsteps;
	int64_t		 rt_count, rt_total, launch_count, launch;
	int64_t		 sync_count, sync;
	int64_t		 traces, cpu_events, gpu_events;
	int		 have_time;
	int64_t		 start, end, origin;	/* absolute ns */
};

/* A CPU event kept for nesting: exact ns as read. */
struct cev {
	int64_t		ts, dur;
	uint32_t	name, seq;
};

/* A runtime call that may have launched GPU work. */
struct rev {
	int64_t	ts, corr;
};

struct thr {
	struct jid	 pid, tid;
	char		*name;
	struct cev	*ops, *py;
	size_t		 nops, capops, npy, cappy;
	struct rev	*rt;
	size_t		 nrt, caprt;
};

struct dev {
	struct jid	 dev;
	struct ival	*v;
	size_t		 n, cap;
};

/* GPU work by correlation id: what one runtime call launched. */
struct kacc {
	int64_t	corr, sum, comm, end;
	int	used, linked, phase;
};

/* A GPU event kept for -p: its name and what launched it. */
struct gev {
	int64_t		corr, dur;
	uint32_t	name;
	int		hascorr;
};

struct kmap {
	struct kacc	*tab;
	size_t		 cap, count;
};

struct trace {
	int		 any;
	uint32_t	 seq;
	struct strmap	 threads;	/* -> struct thr */
	struct strmap	 devs;		/* -> struct dev */
	struct kmap	 kern;
	struct gev	*gk;
	size_t		 ngk, capgk;
	struct agg	 a;
};

/* The rank and window of a trace read so far, to tell a copy from a window. */
struct seen {
	int64_t		 rank;		/* -1: unknown */
	int64_t		 start, end;	/* absolute ns */
	char		*file;
};

struct run {
	struct names	 names;
	struct table	 tab, prec;
	struct trace	 t;
	struct agg	**ranks, *cur;	/* cur: the rank last looked up */
	size_t		 nranks;
	struct seen	*seen;
	size_t		 nseen;
	struct jdoc	 doc;
	enum key	 key;
	int		 phase;		/* -p, or PH_NONE */
	long long	 limit;
	const char	*file;
	char		 famsum[65], precsum[65];	/* table digests */
};

/* Scratch for nesting one thread, kept across threads. */
struct nest {
	int32_t		*parent, *nchild;
	uint32_t	*stack;
	uint8_t		*del, *mark;
	int64_t		*childsum, *gdir, *gsub;
	size_t		 cap;
};

/* A sort item: a value to rank by and the name that breaks ties. */
struct item {
	double		 v;
	const char	*s;
	size_t		 i;
};

static void	usage(void) __attribute__((noreturn));
static char	*find_table(const char *);
static void	load_table(struct table *, const char *, const char *);
static void	table_free(struct table *);
static int	family_of(const struct table *, int, const char *);
static int	family_index(const struct table *, const char *);
static void	check_prec(struct names *, const struct table *,
		    const char *);
static char	*lower(const char *);
static int	has_nccl(const char *);
static int	prefix(const char *, const char *);
static int	str_is(const char *, const char *, const char *);
static void	build_tree(struct nest *, struct cev *, size_t);
static const char *family_name(const struct run *, int);
static size_t	ranked(const struct run *, const struct agg *,
		    const struct stat *, int, enum key, struct item *);
static size_t	threads_ranked(const struct agg *, struct item *);
static void	put_thread(struct jw *, const struct thsum *);
static void	thsum_free(void *);
static void	devsum_free(void *);
static void	thr_free(void *);
static void	dev_free(void *);
static int	cmpi64(const void *, const void *);
static int	cmprank(const void *, const void *);
static int	mark_of(const char *);
static uint32_t	intern(struct names *, int, const char *, size_t);
static int	run_file(struct run *, const char *);
static int	on_event(struct run *);
static int	on_thread(struct run *);
static void	on_trace(struct run *, int64_t, int, int64_t, int64_t,
		    int64_t);
static int	get_rank(struct run *, int64_t *);
static int	trace_record(struct run *);
static int	get_jid(const struct jdoc *, int, struct jid *);
static struct thr *get_thr(struct trace *, const struct jdoc *, int, int);
static void	jid_copy(struct jid *, const struct jid *);
static size_t	jid_key(char *, size_t, const struct jid *);
static void	jid_free(struct jid *);
static void	put_jid(struct jw *, const char *, const struct jid *);
static void	*grow(void *, size_t *, size_t, size_t);
static void	sortv(void *, size_t, size_t, int (*)(const void *,
		    const void *));
static struct kacc *kmap_put(struct kmap *, int64_t);
static struct kacc *kmap_get(const struct kmap *, int64_t);
static void	stat_add(struct stat *, int64_t, int64_t);
static void	stat_merge(struct stat *, const struct stat *);
static void	agg_fit(struct agg *, size_t);
static struct thsum *thsum_get(struct agg *, const struct jid *,
		    const struct jid *, const char *);
static struct devsum *devsum_get(struct agg *, const struct jid *);
static void	devsum_add(struct devsum *, const struct devsum *);
static void	agg_merge(struct agg *, const struct agg *);
static void	agg_free(struct agg *);
static void	trace_free(struct trace *);
static int64_t	floordiv(int64_t, int64_t);
static int64_t	us_start(const struct cev *);
static int64_t	us_end(const struct cev *);
static int	cmpcev(const void *, const void *);
static int	cmprev(const void *, const void *);
static int	cmpstep(const void *, const void *);
static int	cmpitem(const void *, const void *);
static int	cmpclass(const void *, const void *);
static void	nest_fit(struct nest *, size_t);
static void	nest_free(struct nest *);
static void	nest_cpu(struct run *, struct nest *, struct thr *);
static void	nest_py(struct run *, struct nest *, struct thr *);
static void	link_steps(struct trace *, struct thr *);
static void	timeline(struct trace *, struct dev *);
static struct agg *rank_agg(struct run *, int64_t);
static int	same_window(struct run *, const char *, int64_t, int64_t,
		    int64_t);
static double	keyval(const struct stat *, enum key);
static double	round3(double);
static double	pct(int64_t, int64_t);
static int64_t	self_total(const struct run *, const struct agg *);
static void	put_rank(struct jw *, int64_t);
static void	put_ops(struct run *, struct jw *, const struct agg *, int);
static void	put_threads(struct run *, struct jw *, const struct agg *);
static size_t	families(const struct run *, const struct agg *, int64_t *,
		    int64_t *, int64_t *, struct item *);
static void	put_families(struct run *, struct jw *, const struct agg *);
static void	put_phases(struct jw *, const struct agg *);
static void	put_steps(struct jw *, const struct agg *);
static int	int64_cmp(const void *, const void *);
static void	put_kernels(struct run *, struct jw *, const struct agg *);
static void	put_precision(struct run *, struct jw *, const struct agg *);
static void	phase_kernels(struct run *);
static void	put_devs(struct jw *, const struct agg *);
static void	put_runtime(struct jw *, const struct agg *);
static void	put_summary(struct run *, struct jw *, const struct agg *,
		    size_t);
static void	put_op_ranks(struct run *, struct jw *);
static void	output(struct run *, struct jw *);
static void	put_stat(struct jw *, const struct stat *);
static void	put_i64s(struct jw *, const char *, const int64_t *, size_t);
static int	cmpseen(const void *, const void *);
static size_t	put_rank_partial(struct run *, struct jw *,
		    const struct agg *);
static void	put_partial_head(struct run *, struct jw *);
static void	output_partial(struct run *, struct jw *);
static void	digest_file(const char *, char [65]);
static uint32_t	member(const struct jdoc *, const char *);
static int	get_num(struct run *, uint32_t, const char *, int64_t *);
static int	get_nums(struct run *, const char *, int64_t *, size_t);
static int	get_stat(struct run *, uint32_t, struct stat *);
static int	partial_head(struct run *);
static int	partial_name(struct run *, struct agg *);
static int	partial_record(struct run *, const char *);
static int	merge_file(struct run *, const char *);

static void
usage(void)
{
	fprintf(stderr, "usage: %s [-f table] [-k key] [-n count] [-p phase] "
	    "[--merge] [--partial] [file ...]\n", getprogname());
	exit(2);
}

int
main(int argc, char *argv[])
{
	enum { OPT_MERGE = UCHAR_MAX + 1, OPT_PARTIAL };
	static const struct option longopts[] = {
		{ "merge", no_argument, NULL, OPT_MERGE },
		{ "partial", no_argument, NULL, OPT_PARTIAL },
		{ "phase", required_argument, NULL, 'p' },
		{ NULL, 0, NULL, 0 }
	};
	struct run r;
	struct jw *w;
	char *table = NULL, *prec;
	size_t i;
	int ch, rc, status = 0, merge = 0, partial = 0;
	int (*input)(struct run *, const char *);

	setprogname(argv[0]);
	memset(&r, 0, sizeof(r));
	r.key = K_TOTAL;
	r.phase = PH_NONE;
	while ((ch = getopt_long(argc, argv, "f:k:n:p:", longopts,
	    NULL)) != -1) {
		switch (ch) {
		case 'f':
			free(table);
			table = xstrdup(optarg);
			break;
		case 'k':
			for (i = 0; i < sizeof(keyname) / sizeof(keyname[0]); i++)
				if (strcmp(optarg, keyname[i]) == 0)
					break;
			if (i == sizeof(keyname) / sizeof(keyname[0])) {
				warnmsg("-k: unknown key: %s", optarg);
				usage();
			}
			r.key = (enum key)i;
			break;
		case 'n':
			r.limit = parse_num(optarg, 0, LLONG_MAX, "count");
			break;
		case 'p':
			/* "other" is what no operator marks: not a focus. */
			for (i = 0; i < PH_OTHER; i++)
				if (strcmp(optarg, phasename[i]) == 0)
					break;
			if (i == PH_OTHER) {
				warnmsg("-p: unknown phase: %s", optarg);
				usage();
			}
			r.phase = (int)i;
			break;
		case OPT_MERGE:
			merge = 1;
			break;
		case OPT_PARTIAL:
			partial = 1;
			break;
		default:
			usage();
		}
	}
	argc -= optind;
	argv += optind;

	if (table == NULL)
		table = find_table(TABLE_NAME);
	load_table(&r.tab, table, "other");
	digest_file(table, r.famsum);
	free(table);
	prec = find_table(PREC_NAME);
	load_table(&r.prec, prec, "unknown");
	digest_file(prec, r.precsum);
	r.names.tab = &r.tab;
	r.names.prec = &r.prec;
	r.names.famcomm = family_index(&r.tab, "communication");
	r.names.fammemcpy = family_index(&r.tab, "memcpy");
	r.names.famgemm = family_index(&r.tab, "gemm");
	r.names.famconv = family_index(&r.tab, "conv");
	check_prec(&r.names, &r.prec, prec);
	free(prec);

	input = merge ? merge_file : run_file;
	rc = 0;
	if (argc == 0)
		rc = input(&r, NULL);
	for (; argc > 0 && rc >= 0; argc--, argv++) {
		rc = input(&r, *argv);
		if (rc > 0)
			status = 1;
	}
	if (rc < 0)
		status = 1;
	else {
		w = jw_new(stdout);
		if (partial)
			output_partial(&r, w);
		else
			output(&r, w);
		jw_free(w);
	}

	for (i = 0; i < r.nranks; i++) {
		agg_free(r.ranks[i]);
		free(r.ranks[i]);
	}
	free(r.ranks);
	for (i = 0; i < r.nseen; i++)
		free(r.seen[i].file);
	free(r.seen);
	trace_free(&r.t);
	jdoc_free(&r.doc);
	strmap_free(&r.names.map, NULL);
	free(r.names.v);
	free(r.names.buf);
	free(r.names.precof);
	table_free(&r.tab);
	table_free(&r.prec);
	return finish(status);
}

/*
 * A table beside the tools: $MRP_RUBRIC, then rubric/ or share/mrp/rubric/
 * next to the directory that holds this program.
 */
static char *
find_table(const char *name)
{
	char exe[PATH_MAX], path[PATH_MAX + 64], *slash;
	const char *env;
	ssize_t n;
	int len;

	if ((env = getenv("MRP_RUBRIC")) != NULL && *env != '\0') {
		len = snprintf(path, sizeof(path), "%s/%s", env, name);
		if (len < 0 || (size_t)len >= sizeof(path))
			die_usage("MRP_RUBRIC is too long");
		return xstrdup(path);
	}
	if ((n = readlink("/proc/self/exe", exe, sizeof(exe) - 1)) > 0) {
		exe[n] = '\0';
		if ((slash = strrchr(exe, '/')) != NULL)
			*slash = '\0';
		snprintf(path, sizeof(path), "%s/../rubric/%s", exe, name);
		if (access(path, R_OK) == 0)
			return xstrdup(path);
		snprintf(path, sizeof(path), "%s/../share/mrp/rubric/%s", exe,
		    name);
		if (access(path, R_OK) == 0)
			return xstrdup(path);
	}
	die_usage("cannot find %s: name %s MRP_RUBRIC", name,
	    strcmp(name, TABLE_NAME) == 0 ? "it with -f or the directory in" :
	    "the directory in");
}

/* none is the family of what matches no rule, which no rule may name. */
static void
load_table(struct table *t, const char *path, const char *none)
{
	FILE *fp;
	char *line = NULL, *scope, *fam, *pat;
	const char *p;
	size_t cap = 0, i, lineno = 0;
	ssize_t len;

	if ((fp = fopen(path, "r")) == NULL)
		die_usage("%s:", path);
	while ((len = getline(&line, &cap, fp)) != -1) {
		lineno++;
		while (len > 0 && (line[len - 1] == '\n' ||
		    line[len - 1] == '\r'))
			line[--len] = '\0';
		if (len == 0 || line[0] == '#')
			continue;
		scope = line;
		if ((fam = strchr(scope, '\t')) == NULL ||
		    (pat = strchr(fam + 1, '\t')) == NULL) {
			fclose(fp);
			die_usage("%s:%zu: expected scope, family and pattern"
			    " separated by tabs", path, lineno);
		}
		*fam++ = '\0';
		*pat++ = '\0';
		if ((strcmp(scope, "cpu") != 0 && strcmp(scope, "gpu") != 0) ||
		    *fam == '\0' || *pat == '\0' || strchr(pat, '\t') != NULL ||
		    strcmp(fam, none) == 0) {
			p = strcmp(scope, "cpu") != 0 &&
			    strcmp(scope, "gpu") != 0 ? "scope is not cpu or gpu" :
			    strcmp(fam, none) == 0 ?
			    "is what matches no rule" :
			    "empty family or pattern, or a fourth column";
			fclose(fp);
			if (strcmp(fam, none) == 0)
				die_usage("%s:%zu: \"%s\" %s", path, lineno,
				    none, p);
			die_usage("%s:%zu: %s", path, lineno, p);
		}
		for (i = 0; i < t->nfam; i++)
			if (strcmp(t->fam[i], fam) == 0)
				break;
		if (i == t->nfam) {
			t->fam = grow(t->fam, &t->capfam, t->nfam,
			    sizeof(*t->fam));
			t->fam[t->nfam++] = xstrdup(fam);
		}
		t->r = grow(t->r, &t->cap, t->n, sizeof(*t->r));
		t->r[t->n].gpu = scope[0] == 'g';
		t->r[t->n].family = (int)i;
		t->r[t->n].pattern = lower(pat);
		t->n++;
	}
	if (ferror(fp)) {
		fclose(fp);
		die_usage("%s:", path);
	}
	free(line);
	fclose(fp);
}

static void
table_free(struct table *t)
{
	size_t i;

	for (i = 0; i < t->n; i++)
		free(t->r[i].pattern);
	for (i = 0; i < t->nfam; i++)
		free(t->fam[i]);
	free(t->r);
	free(t->fam);
}

/* The family index; t->nfam is "other". */
static int
family_of(const struct table *t, int gpu, const char *name)
{
	char *s = lower(name);
	size_t i;
	int f = (int)t->nfam;

	for (i = 0; i < t->n; i++)
		if (t->r[i].gpu == gpu &&
		    fnmatch(t->r[i].pattern, s, 0) == 0)
		{
			f = t->r[i].family;
			break;
		}
	free(s);
	return f;
}

/* The index of the family named s, or -1 when the table has none. */
static int
family_index(const struct table *t, const char *s)
{
	size_t i;

	for (i = 0; i < t->nfam; i++)
		if (strcmp(t->fam[i], s) == 0)
			return (int)i;
	return -1;
}

/* Every precision the table names is one of precname[]. */
static void
check_prec(struct names *nm, const struct table *t, const char *path)
{
	size_t i, j;

	nm->precof = xreallocarray(NULL, t->nfam + 1, sizeof(*nm->precof));
	for (i = 0; i < t->nfam; i++) {
		for (j = 0; j < NPREC; j++)
			if (strcmp(t->fam[i], precname[j]) == 0)
				break;
		if (j == NPREC)
			die_usage("%s: unknown precision: %s", path, t->fam[i]);
		nm->precof[i] = (int)j;
	}
	nm->precof[t->nfam] = (int)NPREC;	/* unknown */
}

/* A copy in lower case: patterns and names match ignoring case. */
static char *
lower(const char *s)
{
	char *p = xstrdup(s), *q;

	for (q = p; *q != '\0'; q++)
		*q = (char)tolower((unsigned char)*q);
	return p;
}

static int
has_nccl(const char *s)
{
	for (; *s != '\0'; s++)
		if (strncasecmp(s, "nccl", 4) == 0)
			return 1;
	return 0;
}

static int
prefix(const char *s, const char *p)
{
	return strncmp(s, p, strlen(p)) == 0;
}

/* The phase an operator or annotation marks for itself and what it calls. */
static int
mark_of(const char *s)
{
	if (prefix(s, "nccl:") || prefix(s, "gloo:") || prefix(s, "c10d::") ||
	    prefix(s, "record_param_comms"))
		return PH_COMM;
	if (prefix(s, "autograd::engine::evaluate_function") ||
	    prefix(s, "## backward ##") || strstr(s, "Backward") != NULL)
		return PH_BWD;
	if (prefix(s, "Optimizer.") || prefix(s, "## optimizer ##") ||
	    prefix(s, "## zero_grad ##"))
		return PH_OPT;
	if (prefix(s, "enumerate(DataLoader)") ||
	    prefix(s, "enumerate(DataPipe)") || prefix(s, "## load_batch ##"))
		return PH_DATA;
	if (prefix(s, "## forward ##") ||
	    prefix(s, "DistributedDataParallel.forward"))
		return PH_FWD;
	return PH_NONE;
}

static uint32_t
intern(struct names *nm, int cls, const char *s, size_t len)
{
	struct strent *e;
	struct name *n;

	if (nm->bufcap < len + 1) {
		nm->bufcap = len + 64;
		nm->buf = xrealloc(nm->buf, nm->bufcap);
	}
	nm->buf[0] = clschar[cls];
	memcpy(nm->buf + 1, s, len);
	e = strmap_put(&nm->map, nm->buf, len + 1);
	if (e->val != NULL)
		return (uint32_t)(uintptr_t)e->val - 1;
	nm->v = grow(nm->v, &nm->cap, nm->n, sizeof(*nm->v));
	n = &nm->v[nm->n];
	n->s = e->key + 1;
	n->cls = cls;
	n->family = family_of(nm->tab, cls == C_GPU, n->s);
	n->mark = cls == C_OP || cls == C_ANN ? mark_of(n->s) : PH_NONE;
	/* The family says what the hardware does; "nccl" always counts. */
	n->gcls = G_COMP;
	n->prec = (int)NPREC;
	n->mm = 0;
	if (cls == C_GPU) {
		if (has_nccl(n->s) || n->family == nm->famcomm)
			n->gcls = G_COMM;
		else if (n->family == nm->fammemcpy)
			n->gcls = G_MEMCPY;
		n->mm = n->family == nm->famgemm || n->family == nm->famconv;
		if (n->mm)
			n->prec = nm->precof[family_of(nm->prec, 1, n->s)];
	}
	e->val = (void *)(uintptr_t)(nm->n + 1);
	return (uint32_t)nm->n++;
}

/* qsort(3), which must not be given a null array even when it is empty. */
static void
sortv(void *p, size_t n, size_t size, int (*cmp)(const void *, const void *))
{
	if (n > 1)
		qsort(p, n, size, cmp);
}

static void *
grow(void *p, size_t *cap, size_t n, size_t size)
{
	if (n < *cap)
		return p;
	*cap = *cap ? *cap * 2 : 16;
	return xreallocarray(p, *cap, size);
}

/*
 * Returns 0, 1 when the file could not be opened, or -1 after a data
 * error, which ends the run.
 */
static int
run_file(struct run *r, const char *path)
{
	struct ndin *in;
	const char *kind;
	int rc;

	if ((in = ndin_open(path)) == NULL) {
		warnmsg("%s:", path);
		return 1;
	}
	r->file = ndin_name(in);
	while ((rc = ndin_next(in, &r->doc)) == 1) {
		kind = ndin_kind(&r->doc);
		if (strcmp(kind, "event") == 0)
			rc = on_event(r);
		else if (strcmp(kind, "thread") == 0)
			rc = on_thread(r);
		else if (strcmp(kind, "trace") == 0)
			rc = trace_record(r);
		else if (strcmp(kind, "op_partial") == 0)
			rc = jdoc_error(r->file, &r->doc, 0, "a partial:"
			    " merge it with --merge");
		else
			rc = 0;
		if (rc < 0)
			break;
	}
	if (rc == 0 && r->t.any) {
		warnmsg("%s: input ends inside a trace: no \"trace\" record"
		    " after its events", r->file);
		on_trace(r, -1, 0, 0, 0, 0);
		rc = 1;
	}
	ndin_close(in);
	return rc;
}

static int
get_jid(const struct jdoc *d, int i, struct jid *id)
{
	id->text = NULL;
	id->str = 0;
	if (i < 0)
		return 0;
	if (d->node[i].type == JT_STRING)
		id->str = 1;
	else if (d->node[i].type != JT_NUMBER)
		return -1;
	id->text = (char *)jdoc_str(d, (uint32_t)i);
	return 0;
}

static void
jid_copy(struct jid *dst, const struct jid *src)
{
	dst->text = src->text != NULL ? xstrdup(src->text) : NULL;
	dst->str = src->str;
}

static void
jid_free(struct jid *id)
{
	free(id->text);
}

static void
put_jid(struct jw *w, const char *key, const struct jid *id)
{
	if (id->text == NULL)
		return;
	jw_ckey(w, key);
	if (id->str)
		jw_cstring(w, id->text);
	else
		jw_number(w, id->text, strlen(id->text));
}

/* Writes id as a kind letter and its text, cut to fit in n bytes (n > 0). */
static size_t
jid_key(char *buf, size_t n, const struct jid *id)
{
	size_t len;

	if (id->text == NULL) {
		buf[0] = '-';
		return 1;
	}
	buf[0] = id->str ? 's' : 'n';
	if ((len = strlen(id->text)) > n - 1)
		len = n - 1;
	memcpy(buf + 1, id->text, len);
	return len + 1;
}

/* The thread of pid/tid nodes, created on first sight. */
static struct thr *
get_thr(struct trace *t, const struct jdoc *d, int pid, int tid)
{
	struct jid p, q;
	struct strent *e;
	struct thr *th;
	char key[512];
	size_t n;

	get_jid(d, pid, &p);
	get_jid(d, tid, &q);
	/* Every CPU event comes here: no snprintf. */
	n = jid_key(key, sizeof(key) - 2, &p);
	key[n++] = '\n';
	n += jid_key(key + n, sizeof(key) - n, &q);
	e = strmap_put(&t->threads, key, n);
	if ((th = e->val) == NULL) {
		th = e->val = xcalloc(1, sizeof(*th));
		jid_copy(&th->pid, &p);
		jid_copy(&th->tid, &q);
	}
	return th;
}

static int
str_is(const char *s, const char *a, const char *b)
{
	return strcmp(s, a) == 0 || (b != NULL && strcmp(s, b) == 0);
}

static int
on_event(struct run *r)
{
	const struct jdoc *d = &r->doc;
	struct trace *t = &r->t;
	int name = -1, cat = -1, pid = -1, tid = -1, ts = -1, dur = -1;
	int corr = -1, device = -1, cls, gcls = -1;
	const char *k, *c, *s;
	int64_t tsns, durns, cv = 0;
	struct jid dv;
	struct thr *th;
	struct strent *e;
	struct dev *dev;
	struct kacc *ka;
	uint32_t i, id;
	size_t len;

	/* One pass over the keys, by first letter: this runs per record. */
	for (i = 1; i < d->node[0].next; i = d->node[i].next) {
		k = jdoc_key(d, i);
		switch (k[0]) {
		case 'n':
			if (strcmp(k, "name") == 0)
				name = (int)i;
			break;
		case 'c':
			if (strcmp(k, "cat") == 0)
				cat = (int)i;
			else if (strcmp(k, "correlation") == 0)
				corr = (int)i;
			break;
		case 'p':
			if (strcmp(k, "pid") == 0)
				pid = (int)i;
			break;
		case 't':
			if (strcmp(k, "tid") == 0)
				tid = (int)i;
			else if (strcmp(k, "ts") == 0)
				ts = (int)i;
			break;
		case 'd':
			if (strcmp(k, "dur") == 0)
				dur = (int)i;
			else if (strcmp(k, "device") == 0)
				device = (int)i;
			break;
		}
	}
	c = cat >= 0 && d->node[cat].type == JT_STRING ?
	    jdoc_str(d, (uint32_t)cat) : NULL;
	if (c == NULL || str_is(c, "cpu_op", "Operator") ||
	    strcmp(c, "user_annotation") == 0)
		cls = C_OP;
	else if (strcmp(c, "python_function") == 0)
		cls = C_PY;
	else if (str_is(c, "kernel", "Kernel") ||
	    strcmp(c, "mtia_ccp_events") == 0) {
		cls = C_GPU;
		gcls = G_COMP;
	} else if (str_is(c, "gpu_memset", "Memset")) {
		cls = C_GPU;
		gcls = G_COMP;
	} else if (str_is(c, "gpu_memcpy", "Memcpy")) {
		cls = C_GPU;
		gcls = G_MEMCPY;
	} else if (str_is(c, "cuda_runtime", "Runtime") ||
	    str_is(c, "cuda_driver", "mtia_runtime") ||
	    str_is(c, "xpu_runtime", "privateuse1_runtime"))
		cls = -1;
	else
		return 0;

	if (ts < 0 || d->node[ts].type != JT_NUMBER)
		return jdoc_error(r->file, d, ts < 0 ? 0 : (uint32_t)ts,
		    "event has no \"ts\" number");
	if (dur < 0 || d->node[dur].type != JT_NUMBER)
		return jdoc_error(r->file, d, dur < 0 ? 0 : (uint32_t)dur,
		    "event has no \"dur\" number");
	if (jnum_us_to_ns(jdoc_str(d, (uint32_t)ts), d->node[ts].len,
	    &tsns) < 0)
		return jdoc_error(r->file, d, (uint32_t)ts, "\"ts\" is out of range");
	if (jnum_us_to_ns(jdoc_str(d, (uint32_t)dur), d->node[dur].len,
	    &durns) < 0)
		return jdoc_error(r->file, d, (uint32_t)dur, "\"dur\" is out of range");
	if (durns < 0)
		durns = 0;
	if (tsns > INT64_MAX - durns)
		return jdoc_error(r->file, d, (uint32_t)dur, "\"dur\" is out of range");
	if ((pid >= 0 && d->node[pid].type != JT_NUMBER &&
	    d->node[pid].type != JT_STRING) ||
	    (tid >= 0 && d->node[tid].type != JT_NUMBER &&
	    d->node[tid].type != JT_STRING))
		return jdoc_error(r->file, d, (uint32_t)(pid >= 0 &&
		    d->node[pid].type != JT_NUMBER &&
		    d->node[pid].type != JT_STRING ? pid : tid),
		    "\"pid\" and \"tid\" must be numbers or strings");
	if (corr >= 0 && (d->node[corr].type != JT_NUMBER ||
	    jnum_int64(jdoc_str(d, (uint32_t)corr), d->node[corr].len,
	    &cv) < 0))
		corr = -1;
	if (name >= 0 && d->node[name].type == JT_STRING) {
		s = jdoc_str(d, (uint32_t)name);
		len = d->node[name].len;
	} else {
		s = "(no name)";
		len = strlen(s);
	}
	t->any = 1;

	if (cls == -1) {
		t->a.rt_count++;
		t->a.rt_total += durns;
		if (strstr(s, "Launch") != NULL) {
			t->a.launch_count++;
			t->a.launch += durns;
		} else if (str_is(s, "cudaDeviceSynchronize",
		    "cudaStreamSynchronize") ||
		    str_is(s, "cudaEventSynchronize", "cudaMemcpy") ||
		    str_is(s, "hipDeviceSynchronize", "hipStreamSynchronize") ||
		    str_is(s, "hipEventSynchronize", "hipMemcpy")) {
			t->a.sync_count++;
			t->a.sync += durns;
		}
		if (corr >= 0) {
			th = get_thr(t, d, pid, tid);
			th->rt = grow(th->rt, &th->caprt, th->nrt,
			    sizeof(*th->rt));
			th->rt[th->nrt].ts = tsns;
			th->rt[th->nrt++].corr = cv;
		}
		return 0;
	}

	if (cls == C_GPU) {
		id = intern(&r->names, C_GPU, s, len);
		agg_fit(&t->a, r->names.n);
		stat_add(&t->a.st[id], durns, durns);
		t->a.gpu_events++;
		if (gcls == G_COMP)
			gcls = r->names.v[id].gcls;
		if (r->phase != PH_NONE) {
			t->gk = grow(t->gk, &t->capgk, t->ngk, sizeof(*t->gk));
			t->gk[t->ngk++] = (struct gev){ cv, durns, id,
			    corr >= 0 };
		}
		if (corr >= 0) {
			ka = kmap_put(&t->kern, cv);
			ka->sum += durns;
			if (gcls == G_COMM)
				ka->comm += durns;
			if (tsns + durns > ka->end)
				ka->end = tsns + durns;
		}
		if (device >= 0 && d->node[device].type == JT_NUMBER)
			get_jid(d, device, &dv);
		else
			get_jid(d, pid, &dv);
		e = strmap_put(&t->devs, dv.text != NULL ? dv.text : "",
		    dv.text != NULL ? strlen(dv.text) : 0);
		if ((dev = e->val) == NULL) {
			dev = e->val = xcalloc(1, sizeof(*dev));
			jid_copy(&dev->dev, &dv);
		}
		dev->v = grow(dev->v, &dev->cap, dev->n, sizeof(*dev->v));
		dev->v[dev->n].start = tsns;
		dev->v[dev->n].end = tsns + durns;
		dev->v[dev->n++].cls = gcls;
		return 0;
	}

	th = get_thr(t, d, pid, tid);
	if (cls == C_PY) {
		th->py = grow(th->py, &th->cappy, th->npy, sizeof(*th->py));
		th->py[th->npy++] = (struct cev){ tsns, durns,
		    intern(&r->names, C_PY, s, len), t->seq++ };
		return 0;
	}
	/* record_function labels: "Optimizer.step#SGD.step", steps. */
	if ((c != NULL && strcmp(c, "user_annotation") == 0) ||
	    (memchr(s, '#', len) != NULL && strstr(s, "::") == NULL))
		cls = C_ANN;
	if (cls == C_ANN && prefix(s, "ProfilerStep#")) {
		struct step *sp;

		t->a.steps = grow(t->a.steps, &t->a.capsteps, t->a.nsteps,
		    sizeof(*t->a.steps));
		sp = &t->a.steps[t->a.nsteps++];
		sp->num = strtoll(s + 13, NULL, 10);
		sp->ts = tsns;
		sp->cpu_end = sp->end = tsns + durns;
		/* key_averages() groups every step under one name. */
		s = "ProfilerStep*";
		len = strlen(s);
	}
	t->a.cpu_events++;
	th->ops = grow(th->ops, &th->capops, th->nops, sizeof(*th->ops));
	th->ops[th->nops++] = (struct cev){ tsns, durns,
	    intern(&r->names, cls, s, len), t->seq++ };
	return 0;
}

static int
on_thread(struct run *r)
{
	const struct jdoc *d = &r->doc;
	struct thr *th;
	const char *s;

	if (jdoc_get_str(d, 0, "name", &s, NULL) < 0)
		return 0;
	th = get_thr(&r->t, d, jdoc_get(d, 0, "pid"), jdoc_get(d, 0, "tid"));
	free(th->name);
	th->name = xstrdup(s);
	return 0;
}

/* The record's "rank"; absent or null: none, -1. */
static int
get_rank(struct run *r, int64_t *rank)
{
	const struct jdoc *d = &r->doc;
	int i;

	*rank = -1;
	i = jdoc_get(d, 0, "rank");
	if (i >= 0 && d->node[i].type != JT_NULL &&
	    (jdoc_get_i64(d, 0, "rank", rank) < 0 || *rank < 0))
		return jdoc_error(r->file, d, (uint32_t)i,
		    "\"rank\" is not a rank number");
	return 0;
}

static int
trace_record(struct run *r)
{
	const struct jdoc *d = &r->doc;
	int64_t rank, origin = 0, start = 0, end = 0, events;
	int k;

	if (get_rank(r, &rank) < 0)
		return -1;
	if (jdoc_get_i64(d, 0, "origin_ns", &origin) < 0 ||
	    jdoc_get_ns(d, 0, "start", &start) < 0 ||
	    jdoc_get_ns(d, 0, "end", &end) < 0)
		return jdoc_error(r->file, d, 0, "\"trace\" record lacks \"origin_ns\","
		    " \"start\" or \"end\"");
	/* A trace without events has no window. */
	if ((jdoc_get_i64(d, 0, "events", &events) < 0 || events != 0) &&
	    same_window(r, (k = jdoc_get(d, 0, "file")) >= 0 &&
	    d->node[k].type == JT_STRING ? jdoc_str(d, (uint32_t)k) : r->file,
	    rank, origin + start, origin + end) != 0)
		return -1;
	r->t.any = 1;
	on_trace(r, rank, 1, origin, origin + start, origin + end);
	return 0;
}

/*
 * Refuses a trace whose rank (or lack of one) an earlier trace had over an
 * overlapping window: the same file twice, or two files of one process.
 * Windows that only touch, or are apart, are parts of one run.  A merge
 * checks the windows its partials carry the same way.
 */
static int
same_window(struct run *r, const char *file, int64_t rank, int64_t start,
    int64_t end)
{
	const struct seen *s;
	char rs[32];
	size_t i;

	for (i = 0; i < r->nseen; i++) {
		s = &r->seen[i];
		if (s->rank != rank)
			continue;
		if ((start < s->end && s->start < end) ||
		    (start == s->start && end == s->end)) {
			if (rank >= 0)
				snprintf(rs, sizeof(rs), "rank %" PRId64, rank);
			else
				snprintf(rs, sizeof(rs), "without a rank");
			return error("%s and %s: both %s, same window", s->file,
			    file, rs);
		}
	}
	r->seen = xreallocarray(r->seen, r->nseen + 1, sizeof(*r->seen));
	r->seen[r->nseen].rank = rank;
	r->seen[r->nseen].start = start;
	r->seen[r->nseen].end = end;
	r->seen[r->nseen].file = xstrdup(file);
	r->nseen++;
	return 0;
}

/* A trace is complete: nest its threads and add it to its rank. */
static void
on_trace(struct run *r, int64_t rank, int timed, int64_t origin,
    int64_t start, int64_t end)
{
	struct trace *t = &r->t;
	struct strent **ent;
	struct nest nb;
	struct agg *ra;
	size_t i;

	memset(&nb, 0, sizeof(nb));
	agg_fit(&t->a, r->names.n);
	sortv(t->a.steps, t->a.nsteps, sizeof(*t->a.steps), cmpstep);
	ent = strmap_sorted(&t->threads);
	for (i = 0; i < t->threads.count; i++) {
		nest_cpu(r, &nb, ent[i]->val);
		nest_py(r, &nb, ent[i]->val);
		link_steps(t, ent[i]->val);
	}
	free(ent);
	nest_free(&nb);
	if (r->phase != PH_NONE)
		phase_kernels(r);
	/* GPU work no runtime call on a CPU thread accounts for. */
	for (i = 0; i < t->kern.cap; i++) {
		struct kacc *k = &t->kern.tab[i];

		if (!k->used || k->linked)
			continue;
		t->a.ph_gpu[PH_COMM] += k->comm;
		t->a.ph_gpu[PH_OTHER] += k->sum - k->comm;
	}
	ent = strmap_sorted(&t->devs);
	for (i = 0; i < t->devs.count; i++)
		timeline(t, ent[i]->val);
	free(ent);

	/* Steps leave the trace's time base for the rank's. */
	for (i = 0; i < t->a.nsteps; i++) {
		t->a.steps[i].ts += origin;
		t->a.steps[i].cpu_end += origin;
		t->a.steps[i].end += origin;
	}
	t->a.traces = 1;
	if (timed) {
		t->a.have_time = 1;
		t->a.start = start;
		t->a.end = end;
		t->a.origin = origin;
	}
	ra = rank_agg(r, rank);
	agg_merge(ra, &t->a);
	trace_free(t);
	memset(t, 0, sizeof(*t));
}

static struct agg *
rank_agg(struct run *r, int64_t rank)
{
	struct agg *a;
	size_t i, cap = r->nranks;

	/* A partial's records come rank by rank. */
	if (r->cur != NULL && r->cur->rank == rank)
		return r->cur;
	for (i = 0; i < r->nranks; i++)
		if (r->ranks[i]->rank == rank)
			return r->cur = r->ranks[i];
	r->ranks = xreallocarray(r->ranks, cap + 1, sizeof(*r->ranks));
	a = r->ranks[r->nranks++] = xcalloc(1, sizeof(*a));
	a->rank = rank;
	return r->cur = a;
}

static int64_t
floordiv(int64_t a, int64_t b)
{
	int64_t q = a / b;

	return (a % b != 0 && (a < 0) != (b < 0)) ? q - 1 : q;
}

/* key_averages() truncates start and duration to µs separately. */
static int64_t
us_start(const struct cev *e)
{
	return floordiv(e->ts, 1000);
}

static int64_t
us_end(const struct cev *e)
{
	return floordiv(e->ts, 1000) + e->dur / 1000;
}

static int
cmpcev(const void *a, const void *b)
{
	const struct cev *x = a, *y = b;
	int64_t xs = us_start(x), ys = us_start(y), xe, ye;

	if (xs != ys)
		return xs < ys ? -1 : 1;
	xe = us_end(x);
	ye = us_end(y);
	if (xe != ye)
		return xe > ye ? -1 : 1;
	return (x->seq > y->seq) - (x->seq < y->seq);
}

static int
cmprev(const void *a, const void *b)
{
	const struct rev *x = a, *y = b;

	return (x->ts > y->ts) - (x->ts < y->ts);
}

static int
cmpstep(const void *a, const void *b)
{
	const struct step *x = a, *y = b;

	if (x->ts != y->ts)
		return x->ts < y->ts ? -1 : 1;
	return (x->num > y->num) - (x->num < y->num);
}

static void
nest_fit(struct nest *nb, size_t n)
{
	if (n <= nb->cap)
		return;
	nb->cap = n;
	nb->parent = xreallocarray(nb->parent, n, sizeof(*nb->parent));
	nb->nchild = xreallocarray(nb->nchild, n, sizeof(*nb->nchild));
	nb->stack = xreallocarray(nb->stack, n, sizeof(*nb->stack));
	nb->del = xreallocarray(nb->del, n, sizeof(*nb->del));
	nb->mark = xreallocarray(nb->mark, n, sizeof(*nb->mark));
	nb->childsum = xreallocarray(nb->childsum, n, sizeof(*nb->childsum));
	nb->gdir = xreallocarray(nb->gdir, n, sizeof(*nb->gdir));
	nb->gsub = xreallocarray(nb->gsub, n, sizeof(*nb->gsub));
}

static void
nest_free(struct nest *nb)
{
	free(nb->parent);
	free(nb->nchild);
	free(nb->stack);
	free(nb->del);
	free(nb->mark);
	free(nb->childsum);
	free(nb->gdir);
	free(nb->gsub);
}

/*
 * Builds the call tree of v[0..n) as torch's EventList does: stable sort
 * by (start, -end) in truncated µs, then a stack where an event pops every
 * open event it does not fit inside.  Fills nb->parent and nb->nchild.
 */
static void
build_tree(struct nest *nb, struct cev *v, size_t n)
{
	size_t i, sp = 0;
	int64_t s, e;

	sortv(v, n, sizeof(*v), cmpcev);
	for (i = 0; i < n; i++) {
		s = us_start(&v[i]);
		e = us_end(&v[i]);
		while (sp > 0 && (s >= us_end(&v[nb->stack[sp - 1]]) ||
		    e > us_end(&v[nb->stack[sp - 1]])))
			sp--;
		nb->parent[i] = sp > 0 ? (int32_t)nb->stack[sp - 1] : -1;
		nb->nchild[i] = 0;
		nb->del[i] = 0;
		nb->childsum[i] = 0;
		nb->gdir[i] = 0;
		nb->gsub[i] = 0;
		if (nb->parent[i] >= 0)
			nb->nchild[nb->parent[i]]++;
		nb->stack[sp++] = (uint32_t)i;
	}
}

static void
nest_cpu(struct run *r, struct nest *nb, struct thr *th)
{
	struct trace *t = &r->t;
	struct agg *a = &t->a;
	const struct name *nm = r->names.v;
	struct cev *v = th->ops;
	struct thsum *ts;
	struct kacc *k;
	size_t i, j, n = th->nops, sp;
	int64_t self, bs = 0, be = 0, busy = 0, count = 0;
	int32_t p;
	int bwd, ph, open = 0;

	bwd = th->name != NULL && strstr(th->name, "autograd") != NULL;
	nest_fit(nb, n);
	build_tree(nb, v, n);
	/*
	 * _remove_dup_nodes: an only child with its parent's name goes, and
	 * the parent adopts its children.  Parents sort before children, so
	 * one pass in order settles every chain.
	 */
	for (i = 0; i < n; i++) {
		p = nb->parent[i];
		if (p >= 0 && nb->del[p])
			p = nb->parent[i] = nb->parent[p];
		if (p >= 0 && v[p].name == v[i].name && nb->nchild[p] == 1) {
			nb->del[i] = 1;
			nb->nchild[p] = nb->nchild[i];
		}
		if (nb->del[i])
			continue;
		nb->mark[i] = (uint8_t)(nm[v[i].name].mark != PH_NONE ?
		    nm[v[i].name].mark : p >= 0 ? nb->mark[p] : PH_NONE);
		if (p >= 0)
			nb->childsum[p] += us_end(&v[i]) - us_start(&v[i]);
	}

	/* Runtime calls to the innermost operator open at their start. */
	sortv(th->rt, th->nrt, sizeof(*th->rt), cmprev);
	for (i = j = sp = 0; j < th->nrt; j++) {
		for (; i < n && v[i].ts <= th->rt[j].ts; i++) {
			if (nb->del[i])
				continue;
			while (sp > 0 && v[nb->stack[sp - 1]].ts +
			    v[nb->stack[sp - 1]].dur < v[i].ts)
				sp--;
			nb->stack[sp++] = (uint32_t)i;
		}
		while (sp > 0 && v[nb->stack[sp - 1]].ts +
		    v[nb->stack[sp - 1]].dur < th->rt[j].ts)
			sp--;
		if ((k = kmap_get(&t->kern, th->rt[j].corr)) == NULL)
			continue;
		k->linked = 1;
		if (sp > 0) {
			size_t o = nb->stack[sp - 1];

			nb->gdir[o] += k->sum;
			ph = nb->mark[o] != PH_NONE ? nb->mark[o] :
			    bwd ? PH_BWD : nm[v[o].name].cls == C_OP ?
			    PH_FWD : PH_OTHER;
		} else
			ph = bwd ? PH_BWD : PH_OTHER;
		k->phase = ph;
		a->ph_gpu[PH_COMM] += k->comm;
		a->ph_gpu[ph] += k->sum - k->comm;
	}

	for (i = n; i-- > 0;) {
		if (nb->del[i])
			continue;
		nb->gsub[i] += nb->gdir[i];
		if (nb->parent[i] >= 0)
			nb->gsub[nb->parent[i]] += nb->gsub[i];
	}
	for (i = 0; i < n; i++) {
		int64_t s = us_start(&v[i]), d = us_end(&v[i]) - s;

		if (nb->del[i])
			continue;
		count++;
		self = d - nb->childsum[i];
		stat_add(&a->st[v[i].name], d, self);
		a->st[v[i].name].gpu_self += nb->gdir[i];
		a->st[v[i].name].gpu_total += nb->gsub[i];
		ph = nb->mark[i] != PH_NONE ? nb->mark[i] : bwd ? PH_BWD :
		    nm[v[i].name].cls == C_OP ? PH_FWD : PH_OTHER;
		a->ph_self[ph] += self;
		if (ph == r->phase) {
			struct stat *ps = &a->pst[v[i].name];

			stat_add(ps, d, self);
			ps->gpu_self += nb->gdir[i];
			ps->gpu_total += nb->gsub[i];
		}
		if (open && s <= be) {
			if (s + d > be)
				be = s + d;
		} else {
			if (open)
				busy += be - bs;
			bs = s;
			be = s + d;
			open = 1;
		}
	}
	if (open)
		busy += be - bs;
	if (count == 0)
		return;
	ts = thsum_get(a, &th->pid, &th->tid, th->name);
	ts->count += count;
	ts->busy += busy;
}

/* Python frames nest among themselves; no duplicates to remove. */
static void
nest_py(struct run *r, struct nest *nb, struct thr *th)
{
	struct agg *a = &r->t.a;
	struct cev *v = th->py;
	size_t i, n = th->npy;
	int64_t d;

	nest_fit(nb, n);
	build_tree(nb, v, n);
	for (i = 0; i < n; i++)
		if (nb->parent[i] >= 0)
			nb->childsum[nb->parent[i]] += us_end(&v[i]) -
			    us_start(&v[i]);
	for (i = 0; i < n; i++) {
		d = us_end(&v[i]) - us_start(&v[i]);
		stat_add(&a->st[v[i].name], d, d - nb->childsum[i]);
	}
}

/* A step ends at the last GPU work that runtime calls in it launched. */
static void
link_steps(struct trace *t, struct thr *th)
{
	struct agg *a = &t->a;
	struct kacc *k;
	size_t j, lo, hi, mid;

	if (a->nsteps == 0)
		return;
	for (j = 0; j < th->nrt; j++) {
		if ((k = kmap_get(&t->kern, th->rt[j].corr)) == NULL)
			continue;
		for (lo = 0, hi = a->nsteps; lo < hi;) {
			mid = lo + (hi - lo) / 2;
			if (a->steps[mid].ts <= th->rt[j].ts)
				lo = mid + 1;
			else
				hi = mid;
		}
		if (lo == 0 || th->rt[j].ts >= a->steps[lo - 1].cpu_end)
			continue;
		if (k->end > a->steps[lo - 1].end)
			a->steps[lo - 1].end = k->end;
	}
}

static void
timeline(struct trace *t, struct dev *dev)
{
	struct devsum *ds;
	struct ival *sub;
	int64_t out[NGCLS], lo, hi;
	size_t i, m;
	int c;

	if (dev->n == 0)
		return;
	lo = dev->v[0].start;
	hi = dev->v[0].end;
	for (i = 1; i < dev->n; i++) {
		if (dev->v[i].start < lo)
			lo = dev->v[i].start;
		if (dev->v[i].end > hi)
			hi = dev->v[i].end;
	}
	ds = devsum_get(&t->a, &dev->dev);
	ds->events += (int64_t)dev->n;
	ds->window += hi - lo;
	ds->busy += ival_exposed(dev->v, dev->n, NGCLS, out);
	ds->comp += out[G_COMP];
	ds->xcomm += out[G_COMM];
	ds->xmemcpy += out[G_MEMCPY];
	sub = xreallocarray(NULL, dev->n, sizeof(*sub));
	for (c = G_COMM; c <= G_MEMCPY; c++) {
		for (i = m = 0; i < dev->n; i++)
			if (dev->v[i].cls == c)
				sub[m++] = dev->v[i];
		if (c == G_COMM)
			ds->comm += ival_union(sub, m);
		else
			ds->memcpy += ival_union(sub, m);
	}
	free(sub);
}

static struct kacc *
kmap_get(const struct kmap *m, int64_t corr)
{
	size_t i;

	if (m->cap == 0)
		return NULL;
	for (i = ((uint64_t)corr * 0x9e3779b97f4a7c15ULL) >> 20 &
	    (m->cap - 1); m->tab[i].used; i = (i + 1) & (m->cap - 1))
		if (m->tab[i].corr == corr)
			return &m->tab[i];
	return NULL;
}

static struct kacc *
kmap_put(struct kmap *m, int64_t corr)
{
	struct kacc *k, *old;
	size_t i, oldcap;

	if ((k = kmap_get(m, corr)) != NULL)
		return k;
	if (2 * (m->count + 1) > m->cap) {
		old = m->tab;
		oldcap = m->cap;
		m->cap = oldcap ? oldcap * 2 : 1024;
		m->tab = xcalloc(m->cap, sizeof(*m->tab));
		m->count = 0;
		for (i = 0; i < oldcap; i++)
			if (old[i].used)
				*kmap_put(m, old[i].corr) = old[i];
		free(old);
	}
	for (i = ((uint64_t)corr * 0x9e3779b97f4a7c15ULL) >> 20 &
	    (m->cap - 1); m->tab[i].used; i = (i + 1) & (m->cap - 1))
		;
	k = &m->tab[i];
	memset(k, 0, sizeof(*k));
	k->corr = corr;
	k->end = INT64_MIN;
	k->used = 1;
	m->count++;
	return k;
}

static void
stat_add(struct stat *s, int64_t total, int64_t self)
{
	if (s->count == 0 || total < s->min)
		s->min = total;
	if (s->count == 0 || total > s->max)
		s->max = total;
	s->count++;
	s->total += total;
	s->self += self;
}

static void
stat_merge(struct stat *d, const struct stat *s)
{
	if (s->count == 0)
		return;
	if (d->count == 0 || s->min < d->min)
		d->min = s->min;
	if (d->count == 0 || s->max > d->max)
		d->max = s->max;
	d->count += s->count;
	d->total += s->total;
	d->self += s->self;
	d->gpu_self += s->gpu_self;
	d->gpu_total += s->gpu_total;
}

/*
 * For -p: each kernel's time in the phase of what launched it, as
 * phase_total counts it; communication kernels are communication.
 */
static void
phase_kernels(struct run *r)
{
	struct trace *t = &r->t;
	const struct kacc *k;
	size_t i;
	int ph;

	for (i = 0; i < t->ngk; i++) {
		const struct gev *g = &t->gk[i];

		k = g->hascorr ? kmap_get(&t->kern, g->corr) : NULL;
		ph = r->names.v[g->name].gcls == G_COMM ? PH_COMM :
		    k != NULL && k->linked ? k->phase : PH_OTHER;
		if (ph == r->phase)
			stat_add(&t->a.pst[g->name], g->dur, g->dur);
	}
}

/*
 * Makes room for names below n.  The room grows by doubling, as a merge
 * fits a rank to each new name it reads; nst stays exact, for the loops
 * over names.
 */
static void
agg_fit(struct agg *a, size_t n)
{
	size_t cap;

	if (n <= a->nst)
		return;
	if (n > a->capst) {
		cap = a->capst * 2 > n ? a->capst * 2 : n;
		a->st = xreallocarray(a->st, cap, sizeof(*a->st));
		memset(a->st + a->capst, 0, (cap - a->capst) *
		    sizeof(*a->st));
		a->pst = xreallocarray(a->pst, cap, sizeof(*a->pst));
		memset(a->pst + a->capst, 0, (cap - a->capst) *
		    sizeof(*a->pst));
		a->capst = cap;
	}
	a->nst = n;
}

/*
 * A rank's sum for a thread; the key is what tells threads apart, here and
 * in a merge of partials.  Of the names a thread had in the windows of its
 * rank, the one that sorts first stays, whatever order they come in.
 */
static struct thsum *
thsum_get(struct agg *a, const struct jid *pid, const struct jid *tid,
    const char *name)
{
	struct thsum *ts;
	struct strent *e;
	char key[512];
	int len;

	len = snprintf(key, sizeof(key), "%c%s\n%c%s",
	    pid->text == NULL ? '-' : pid->str ? 's' : 'n',
	    pid->text ? pid->text : "",
	    tid->text == NULL ? '-' : tid->str ? 's' : 'n',
	    tid->text ? tid->text : "");
	if (len < 0 || (size_t)len >= sizeof(key))
		len = (int)sizeof(key) - 1;
	e = strmap_put(&a->threads, key, (size_t)len);
	if ((ts = e->val) == NULL) {
		ts = e->val = xcalloc(1, sizeof(*ts));
		jid_copy(&ts->pid, pid);
		jid_copy(&ts->tid, tid);
	}
	if (name != NULL && (ts->name == NULL || strcmp(name, ts->name) < 0)) {
		free(ts->name);
		ts->name = xstrdup(name);
	}
	return ts;
}

static struct devsum *
devsum_get(struct agg *a, const struct jid *dev)
{
	struct devsum *ds;
	struct strent *e;

	e = strmap_put(&a->devs, dev->text ? dev->text : "",
	    dev->text ? strlen(dev->text) : 0);
	if ((ds = e->val) == NULL) {
		ds = e->val = xcalloc(1, sizeof(*ds));
		jid_copy(&ds->dev, dev);
	}
	return ds;
}

static void
devsum_add(struct devsum *dd, const struct devsum *ds)
{
	dd->window += ds->window;
	dd->busy += ds->busy;
	dd->comp += ds->comp;
	dd->comm += ds->comm;
	dd->memcpy += ds->memcpy;
	dd->xcomm += ds->xcomm;
	dd->xmemcpy += ds->xmemcpy;
	dd->events += ds->events;
}

static void
agg_merge(struct agg *dst, const struct agg *src)
{
	struct strent **ent;
	struct thsum *ts, *tt;
	size_t i;
	int p;

	agg_fit(dst, src->nst);
	for (i = 0; i < src->nst; i++) {
		stat_merge(&dst->st[i], &src->st[i]);
		stat_merge(&dst->pst[i], &src->pst[i]);
	}
	ent = strmap_sorted(&src->threads);
	for (i = 0; i < src->threads.count; i++) {
		ts = ent[i]->val;
		tt = thsum_get(dst, &ts->pid, &ts->tid, ts->name);
		tt->count += ts->count;
		tt->busy += ts->busy;
	}
	free(ent);
	ent = strmap_sorted(&src->devs);
	for (i = 0; i < src->devs.count; i++)
		devsum_add(devsum_get(dst, &((struct devsum *)ent[i]->val)->dev),
		    ent[i]->val);
	free(ent);
	for (p = 0; p < NPHASE; p++) {
		dst->ph_self[p] += src->ph_self[p];
		dst->ph_gpu[p] += src->ph_gpu[p];
	}
	for (i = 0; i < src->nsteps; i++) {
		dst->steps = grow(dst->steps, &dst->capsteps, dst->nsteps,
		    sizeof(*dst->steps));
		dst->steps[dst->nsteps++] = src->steps[i];
	}
	dst->rt_count += src->rt_count;
	dst->rt_total += src->rt_total;
	dst->launch_count += src->launch_count;
	dst->launch += src->launch;
	dst->sync_count += src->sync_count;
	dst->sync += src->sync;
	dst->traces += src->traces;
	dst->cpu_events += src->cpu_events;
	dst->gpu_events += src->gpu_events;
	if (src->have_time) {
		if (!dst->have_time || src->start < dst->start)
			dst->start = src->start;
		if (!dst->have_time || src->end > dst->end)
			dst->end = src->end;
		if (!dst->have_time || src->origin < dst->origin)
			dst->origin = src->origin;
		dst->have_time = 1;
	}
}

static void
thsum_free(void *p)
{
	struct thsum *t = p;

	jid_free(&t->pid);
	jid_free(&t->tid);
	free(t->name);
	free(t);
}

static void
devsum_free(void *p)
{
	struct devsum *d = p;

	jid_free(&d->dev);
	free(d);
}

static void
agg_free(struct agg *a)
{
	free(a->st);
	free(a->pst);
	free(a->steps);
	strmap_free(&a->threads, thsum_free);
	strmap_free(&a->devs, devsum_free);
}

static void
thr_free(void *p)
{
	struct thr *t = p;

	jid_free(&t->pid);
	jid_free(&t->tid);
	free(t->name);
	free(t->ops);
	free(t->py);
	free(t->rt);
	free(t);
}

static void
dev_free(void *p)
{
	struct dev *d = p;

	jid_free(&d->dev);
	free(d->v);
	free(d);
}

static void
trace_free(struct trace *t)
{
	strmap_free(&t->threads, thr_free);
	strmap_free(&t->devs, dev_free);
	free(t->kern.tab);
	free(t->gk);
	agg_free(&t->a);
}

/* Output. */

static double
keyval(const struct stat *s, enum key k)
{
	switch (k) {
	case K_SELF:
		return (double)s->self;
	case K_COUNT:
		return (double)s->count;
	case K_MEAN:
		return s->count > 0 ? (double)s->total / (double)s->count : 0;
	case K_MAX:
		return (double)s->max;
	case K_GPU:
		return (double)s->gpu_total;
	case K_TOTAL:
		break;
	}
	return (double)s->total;
}

static int
cmpitem(const void *a, const void *b)
{
	const struct item *x = a, *y = b;

	if (x->v != y->v)
		return x->v > y->v ? -1 : 1;
	return strcmp(x->s, y->s);
}

/*
 * cmpitem() for operators and annotations together, where an operator and
 * an annotation may share a name: the interned key before the name holds
 * the class letter, and settles the order whatever order names came in.
 */
static int
cmpclass(const void *a, const void *b)
{
	const struct item *x = a, *y = b;
	int c;

	if ((c = cmpitem(a, b)) != 0)
		return c;
	return (x->s[-1] > y->s[-1]) - (x->s[-1] < y->s[-1]);
}

static double
round3(double x)
{
	return round(x * 1000) / 1000;
}

/* A percentage with two decimals, as key_averages().table() prints. */
static double
pct(int64_t part, int64_t whole)
{
	return whole != 0 ? round((double)part * 10000 / (double)whole) / 100 :
	    0;
}

static int64_t
self_total(const struct run *r, const struct agg *a)
{
	int64_t sum = 0;
	size_t i;

	for (i = 0; i < a->nst; i++)
		if (r->names.v[i].cls == C_OP || r->names.v[i].cls == C_ANN)
			sum += a->st[i].self;
	return sum;
}

static void
put_rank(struct jw *w, int64_t rank)
{
	if (rank < 0)
		return;
	jw_key(w, "rank");
	jw_int(w, rank);
}

static const char *
family_name(const struct run *r, int f)
{
	return (size_t)f < r->tab.nfam ? r->tab.fam[f] : "other";
}

/*
 * The names of class cls in a, ranked by the key on their stats st (a->st,
 * or a->pst for the -p phase); returns how many.
 */
static size_t
ranked(const struct run *r, const struct agg *a, const struct stat *st,
    int cls, enum key key, struct item *it)
{
	size_t i, n = 0;

	for (i = 0; i < a->nst; i++) {
		if (r->names.v[i].cls != cls || st[i].count == 0)
			continue;
		it[n].v = keyval(&st[i], key);
		it[n].s = r->names.v[i].s;
		it[n++].i = i;
	}
	sortv(it, n, sizeof(*it), cmpitem);
	return n;
}

static void
put_ops(struct run *r, struct jw *w, const struct agg *a, int cls)
{
	struct item *it;
	const struct stat *st = r->phase != PH_NONE ? a->pst : a->st;
	int64_t total;
	size_t i, n;

	/* Python frames belong to no phase. */
	if (r->phase != PH_NONE && cls == C_PY)
		return;
	it = xreallocarray(NULL, a->nst + 1, sizeof(*it));
	total = self_total(r, a);
	/* Python frames launch nothing themselves: rank them by total. */
	n = ranked(r, a, st, cls, cls == C_PY && r->key == K_GPU ? K_TOTAL :
	    r->key, it);
	if (r->limit > 0 && (size_t)r->limit < n)
		n = (size_t)r->limit;
	for (i = 0; i < n; i++) {
		const struct stat *s = &st[it[i].i];

		jw_record(w, "op");
		put_rank(w, a->rank);
		if (r->phase != PH_NONE) {
			jw_key(w, "phase");
			jw_cstring(w, phasename[r->phase]);
		}
		jw_key(w, "class");
		jw_cstring(w, clsname[cls]);
		jw_key(w, "place");
		jw_uint(w, i + 1);
		jw_key(w, "name");
		jw_cstring(w, it[i].s);
		jw_key(w, "family");
		jw_cstring(w, family_name(r, r->names.v[it[i].i].family));
		jw_key(w, "count");
		jw_int(w, s->count);
		jw_key(w, "total");
		jw_int(w, s->total);
		jw_key(w, "self");
		jw_int(w, s->self);
		jw_key(w, "mean");
		jw_double(w, round3((double)s->total / (double)s->count));
		jw_key(w, "min");
		jw_int(w, s->min);
		jw_key(w, "max");
		jw_int(w, s->max);
		if (cls != C_PY) {
			jw_key(w, "self_pct");
			jw_double(w, pct(s->self, total));
			jw_key(w, "total_pct");
			jw_double(w, pct(s->total, total));
		}
		if (cls != C_PY && a->gpu_events > 0) {
			jw_key(w, "gpu_self");
			jw_us(w, s->gpu_self);
			jw_key(w, "gpu_total");
			jw_us(w, s->gpu_total);
		}
		jw_end(w);
	}
	free(it);
}

static size_t
threads_ranked(const struct agg *a, struct item *it)
{
	struct strent **ent = strmap_sorted(&a->threads);
	size_t i;

	for (i = 0; i < a->threads.count; i++) {
		it[i].v = (double)((struct thsum *)ent[i]->val)->busy;
		it[i].s = ent[i]->key;
		it[i].i = (size_t)(uintptr_t)ent[i]->val;
	}
	free(ent);
	sortv(it, a->threads.count, sizeof(*it), cmpitem);
	return a->threads.count;
}

static void
put_thread(struct jw *w, const struct thsum *ts)
{
	put_jid(w, "pid", &ts->pid);
	put_jid(w, "tid", &ts->tid);
	if (ts->name != NULL) {
		jw_key(w, "name");
		jw_cstring(w, ts->name);
	}
}

static void
put_threads(struct run *r, struct jw *w, const struct agg *a)
{
	struct item *it = xreallocarray(NULL, a->threads.count + 1,
	    sizeof(*it));
	size_t i, n;

	n = threads_ranked(a, it);
	if (r->limit > 0 && (size_t)r->limit < n)
		n = (size_t)r->limit;
	for (i = 0; i < n; i++) {
		const struct thsum *ts = (const struct thsum *)it[i].i;

		jw_record(w, "thread_total");
		put_rank(w, a->rank);
		put_thread(w, ts);
		jw_key(w, "count");
		jw_int(w, ts->count);
		jw_key(w, "busy");
		jw_int(w, ts->busy);
		jw_end(w);
	}
	free(it);
}

/*
 * CPU self time, event counts and launched GPU time by family, and the
 * families ranked by self time in it (table order breaks ties).
 */
static size_t
families(const struct run *r, const struct agg *a, int64_t *self,
    int64_t *count, int64_t *gpu, struct item *it)
{
	size_t i, f, nf = r->tab.nfam + 1, n = 0;

	for (f = 0; f < nf; f++)
		self[f] = count[f] = gpu[f] = 0;
	for (i = 0; i < a->nst; i++) {
		const struct name *nm = &r->names.v[i];

		if ((nm->cls != C_OP && nm->cls != C_ANN) ||
		    a->st[i].count == 0)
			continue;
		self[nm->family] += a->st[i].self;
		count[nm->family] += a->st[i].count;
		gpu[nm->family] += a->st[i].gpu_self;
	}
	for (f = 0; f < nf; f++) {
		if (count[f] == 0)
			continue;
		it[n].v = (double)self[f];
		it[n].s = "";
		it[n++].i = f;
	}
	/* Equal self times keep table order: the sort is not stable. */
	for (i = 1; i < n; i++) {
		struct item x = it[i];
		size_t j = i;

		for (; j > 0 && it[j - 1].v < x.v; j--)
			it[j] = it[j - 1];
		it[j] = x;
	}
	return n;
}

static void
put_families(struct run *r, struct jw *w, const struct agg *a)
{
	size_t nf = r->tab.nfam + 1, i, n;
	int64_t *self = xreallocarray(NULL, 3 * nf, sizeof(*self));
	int64_t *count = self + nf, *gpu = self + 2 * nf;
	struct item *it = xreallocarray(NULL, nf, sizeof(*it));
	int64_t total = self_total(r, a);

	n = families(r, a, self, count, gpu, it);
	for (i = 0; i < n; i++) {
		jw_record(w, "family_total");
		put_rank(w, a->rank);
		jw_key(w, "family");
		jw_cstring(w, family_name(r, (int)it[i].i));
		jw_key(w, "count");
		jw_int(w, count[it[i].i]);
		jw_key(w, "self");
		jw_int(w, self[it[i].i]);
		jw_key(w, "self_pct");
		jw_double(w, pct(self[it[i].i], total));
		if (a->gpu_events > 0) {
			jw_key(w, "gpu_self");
			jw_us(w, gpu[it[i].i]);
		}
		jw_end(w);
	}
	free(self);
	free(it);
}

static void
put_phases(struct jw *w, const struct agg *a)
{
	int p;

	for (p = 0; p < NPHASE; p++) {
		jw_record(w, "phase_total");
		put_rank(w, a->rank);
		jw_key(w, "phase");
		jw_cstring(w, phasename[p]);
		jw_key(w, "self");
		jw_int(w, a->ph_self[p]);
		if (a->gpu_events > 0) {
			jw_key(w, "gpu");
			jw_us(w, a->ph_gpu[p]);
		}
		jw_end(w);
	}
}

static int
int64_cmp(const void *a, const void *b)
{
	int64_t x = *(const int64_t *)a, y = *(const int64_t *)b;

	return (x > y) - (x < y);
}

static void
put_steps(struct jw *w, const struct agg *a)
{
	double mean = 0, var = 0, dd;
	size_t i, slow = 0;
	int64_t d, mn = 0, mx = 0, sum = 0, med2, above = 0, *durs;
	char name[48];

	if (a->nsteps == 0)
		return;
	for (i = 0; i < a->nsteps; i++) {
		const struct step *s = &a->steps[i];

		d = s->end - s->ts;
		jw_record(w, "step");
		put_rank(w, a->rank);
		snprintf(name, sizeof(name), "ProfilerStep#%" PRId64, s->num);
		jw_key(w, "name");
		jw_cstring(w, name);
		jw_key(w, "step");
		jw_int(w, s->num);
		jw_key(w, "ts");
		jw_us(w, s->ts - a->origin);
		jw_key(w, "cpu_dur");
		jw_us(w, s->cpu_end - s->ts);
		jw_key(w, "dur");
		jw_us(w, d);
		jw_end(w);
		if (i == 0 || d < mn)
			mn = d;
		if (i == 0 || d > mx) {
			mx = d;
			slow = i;
		}
		sum += d;
	}
	mean = (double)sum / (double)a->nsteps;
	for (i = 0; i < a->nsteps; i++) {
		dd = (double)(a->steps[i].end - a->steps[i].ts) - mean;
		var += dd * dd;
	}
	var /= (double)a->nsteps;
	/*
	 * The time above the median step is what steadier steps could give
	 * back at most; the standard deviation says nothing of that.
	 */
	durs = xreallocarray(NULL, a->nsteps, sizeof(*durs));
	for (i = 0; i < a->nsteps; i++)
		durs[i] = a->steps[i].end - a->steps[i].ts;
	qsort(durs, a->nsteps, sizeof(*durs), int64_cmp);
	med2 = durs[(a->nsteps - 1) / 2] + durs[a->nsteps / 2];
	for (i = 0; i < a->nsteps; i++)
		if (2 * durs[i] > med2)
			above += 2 * durs[i] - med2;
	free(durs);
	jw_record(w, "step_stats");
	put_rank(w, a->rank);
	jw_key(w, "steps");
	jw_uint(w, a->nsteps);
	jw_key(w, "total");
	jw_us(w, sum);
	jw_key(w, "mean");
	jw_double(w, round3(mean / 1000));
	jw_key(w, "min");
	jw_us(w, mn);
	jw_key(w, "max");
	jw_us(w, mx);
	jw_key(w, "std");
	jw_double(w, round3(sqrt(var) / 1000));
	jw_key(w, "median");
	jw_double(w, round3((double)med2 / 2000));
	jw_key(w, "above_median");
	jw_double(w, round3((double)above / 2000));
	jw_key(w, "slowest_step");
	jw_int(w, a->steps[slow].num);
	jw_end(w);
}

static void
put_kernels(struct run *r, struct jw *w, const struct agg *a)
{
	struct item *it = xreallocarray(NULL, a->nst + 1, sizeof(*it));
	const struct stat *st = r->phase != PH_NONE ? a->pst : a->st;
	enum key key = r->key == K_SELF || r->key == K_GPU ? K_TOTAL : r->key;
	int64_t total = 0;
	size_t i, n;

	/* pct stays a share of all GPU event time, in a phase or not. */
	for (i = 0; i < a->nst; i++)
		if (r->names.v[i].cls == C_GPU)
			total += a->st[i].total;
	n = ranked(r, a, st, C_GPU, key, it);
	if (r->limit > 0 && (size_t)r->limit < n)
		n = (size_t)r->limit;
	for (i = 0; i < n; i++) {
		const struct stat *s = &st[it[i].i];
		const char *fam = family_name(r,
		    r->names.v[it[i].i].family);

		jw_record(w, "kernel");
		put_rank(w, a->rank);
		if (r->phase != PH_NONE) {
			jw_key(w, "phase");
			jw_cstring(w, phasename[r->phase]);
		}
		jw_key(w, "place");
		jw_uint(w, i + 1);
		jw_key(w, "name");
		jw_cstring(w, it[i].s);
		jw_key(w, "family");
		jw_cstring(w, fam);
		jw_key(w, "count");
		jw_int(w, s->count);
		jw_key(w, "total");
		jw_us(w, s->total);
		jw_key(w, "mean");
		jw_double(w, round3((double)s->total / (double)s->count /
		    1000));
		jw_key(w, "min");
		jw_us(w, s->min);
		jw_key(w, "max");
		jw_us(w, s->max);
		jw_key(w, "pct");
		jw_double(w, pct(s->total, total));
		jw_end(w);
	}
	free(it);
}

/*
 * GEMM and convolution kernel time by the precision their names give,
 * over every kernel, whatever -n and -p say.
 */
static void
put_precision(struct run *r, struct jw *w, const struct agg *a)
{
	int64_t count[NPREC + 1], time[NPREC + 1], all = 0;
	size_t i;

	memset(count, 0, sizeof(count));
	memset(time, 0, sizeof(time));
	for (i = 0; i < a->nst; i++) {
		const struct name *nm = &r->names.v[i];

		if (nm->cls != C_GPU || !nm->mm || a->st[i].count == 0)
			continue;
		count[nm->prec] += a->st[i].count;
		time[nm->prec] += a->st[i].total;
		all += a->st[i].total;
	}
	for (i = 0; i <= NPREC; i++) {
		if (count[i] == 0)
			continue;
		jw_record(w, "gemm_precision");
		put_rank(w, a->rank);
		jw_key(w, "precision");
		jw_cstring(w, i < NPREC ? precname[i] : "unknown");
		jw_key(w, "kernels");
		jw_int(w, count[i]);
		jw_key(w, "gpu_time");
		jw_us(w, time[i]);
		jw_key(w, "share");
		jw_double(w, all != 0 ? round((double)time[i] * 10000 /
		    (double)all) / 10000 : 0);
		jw_end(w);
	}
}

static void
put_devs(struct jw *w, const struct agg *a)
{
	struct strent **ent = strmap_sorted(&a->devs);
	size_t i;

	for (i = 0; i < a->devs.count; i++) {
		const struct devsum *d = ent[i]->val;

		jw_record(w, "gpu_timeline");
		put_rank(w, a->rank);
		put_jid(w, "device", &d->dev);
		jw_key(w, "events");
		jw_int(w, d->events);
		jw_key(w, "window");
		jw_us(w, d->window);
		jw_key(w, "busy");
		jw_us(w, d->busy);
		jw_key(w, "idle");
		jw_us(w, d->window - d->busy);
		jw_key(w, "computation");
		jw_us(w, d->comp);
		jw_key(w, "exposed_comm");
		jw_us(w, d->xcomm);
		jw_key(w, "exposed_memcpy");
		jw_us(w, d->xmemcpy);
		jw_key(w, "comm");
		jw_us(w, d->comm);
		jw_key(w, "memcpy");
		jw_us(w, d->memcpy);
		jw_end(w);
	}
	free(ent);
}

static void
put_runtime(struct jw *w, const struct agg *a)
{
	if (a->rt_count == 0)
		return;
	jw_record(w, "runtime_total");
	put_rank(w, a->rank);
	jw_key(w, "count");
	jw_int(w, a->rt_count);
	jw_key(w, "total");
	jw_us(w, a->rt_total);
	jw_key(w, "launch_count");
	jw_int(w, a->launch_count);
	jw_key(w, "launch");
	jw_us(w, a->launch);
	jw_key(w, "sync_count");
	jw_int(w, a->sync_count);
	jw_key(w, "sync");
	jw_us(w, a->sync);
	jw_end(w);
}

/* nranks > 1 for the summary across ranks, which carries no rank. */
static void
put_summary(struct run *r, struct jw *w, const struct agg *a, size_t nranks)
{
	size_t nf = r->tab.nfam + 1, n, i, m;
	int64_t *self = xreallocarray(NULL, 3 * nf, sizeof(*self));
	int64_t *count = self + nf, *gpu = self + 2 * nf, kt = 0;
	struct item *it = xreallocarray(NULL, (a->nst > nf ? a->nst : nf) +
	    a->threads.count + 1, sizeof(*it));

	jw_record(w, "cpu_summary");
	if (nranks > 1) {
		int64_t best = -1, bv = 0;

		jw_key(w, "ranks");
		jw_uint(w, nranks);
		for (i = 0; i < r->nranks; i++) {
			int64_t v = self_total(r, r->ranks[i]);

			if (best == -1 || v > bv) {
				best = (int64_t)i;
				bv = v;
			}
		}
		if (r->ranks[best]->rank >= 0) {
			jw_key(w, "slowest_rank");
			jw_int(w, r->ranks[best]->rank);
		}
	} else
		put_rank(w, a->rank);
	jw_key(w, "traces");
	jw_int(w, a->traces);
	jw_key(w, "events");
	jw_int(w, a->cpu_events);
	if (a->have_time) {
		jw_key(w, "start");
		jw_us(w, a->start - a->origin);
		jw_key(w, "end");
		jw_us(w, a->end - a->origin);
		jw_key(w, "window");
		jw_us(w, a->end - a->start);
	}
	jw_key(w, "self_total");
	jw_int(w, self_total(r, a));

	jw_key(w, "top_ops");
	jw_begin_array(w);
	n = ranked(r, a, a->st, C_OP, r->key, it);
	for (i = 0; i < n && i < TOP_N; i++) {
		jw_begin_object(w);
		jw_key(w, "name");
		jw_cstring(w, it[i].s);
		jw_key(w, "total");
		jw_int(w, a->st[it[i].i].total);
		jw_key(w, "self");
		jw_int(w, a->st[it[i].i].self);
		jw_end_object(w);
	}
	jw_end_array(w);

	jw_key(w, "top_threads");
	jw_begin_array(w);
	n = threads_ranked(a, it);
	for (i = 0; i < n && i < TOP_N; i++) {
		const struct thsum *ts = (const struct thsum *)it[i].i;

		jw_begin_object(w);
		put_thread(w, ts);
		jw_key(w, "busy");
		jw_int(w, ts->busy);
		jw_end_object(w);
	}
	jw_end_array(w);

	n = families(r, a, self, count, gpu, it);
	jw_key(w, "families");
	jw_begin_object(w);
	for (i = 0; i < n; i++) {
		jw_ckey(w, family_name(r, (int)it[i].i));
		jw_int(w, self[it[i].i]);
	}
	jw_end_object(w);
	if (n > 0) {
		jw_key(w, "dominant_family");
		jw_cstring(w, family_name(r, (int)it[0].i));
	}
	if (a->gpu_events > 0) {
		for (m = 0; m < a->nst; m++)
			if (r->names.v[m].cls == C_GPU)
				kt += a->st[m].total;
		jw_key(w, "gpu_events");
		jw_int(w, a->gpu_events);
		jw_key(w, "gpu_total");
		jw_us(w, kt);
	}
	jw_end(w);
	free(self);
	free(it);
}

static int
cmpi64(const void *a, const void *b)
{
	const int64_t *x = a, *y = b;

	return (*x > *y) - (*x < *y);
}

/* Per op across ranks: the spread of the key and the slowest rank. */
static void
put_op_ranks(struct run *r, struct jw *w)
{
	size_t nn = r->names.n, i, j, n = 0, m;
	struct item *it = xreallocarray(NULL, nn + 1, sizeof(*it));
	int64_t *v = xreallocarray(NULL, r->nranks, sizeof(*v));
	enum key key = r->key == K_MEAN ? K_TOTAL : r->key;

	for (i = 0; i < nn; i++) {
		double mx = 0;
		int seen = 0;

		if (r->names.v[i].cls != C_OP && r->names.v[i].cls != C_ANN)
			continue;
		for (j = 0; j < r->nranks; j++)
			if (i < r->ranks[j]->nst &&
			    r->ranks[j]->st[i].count > 0) {
				double x = keyval(&r->ranks[j]->st[i], key);

				if (!seen || x > mx)
					mx = x;
				seen = 1;
			}
		if (!seen)
			continue;
		it[n].v = mx;
		it[n].s = r->names.v[i].s;
		it[n++].i = i;
	}
	sortv(it, n, sizeof(*it), cmpclass);
	if (r->limit > 0 && (size_t)r->limit < n)
		n = (size_t)r->limit;
	for (i = 0; i < n; i++) {
		int64_t slow = -1, sv = 0;

		for (j = m = 0; j < r->nranks; j++) {
			const struct agg *a = r->ranks[j];
			int64_t x;

			if (it[i].i >= a->nst || a->st[it[i].i].count == 0)
				continue;
			x = (int64_t)keyval(&a->st[it[i].i], key);
			v[m++] = x;
			if (slow == -1 || x > sv) {
				slow = (int64_t)j;
				sv = x;
			}
		}
		sortv(v, m, sizeof(*v), cmpi64);
		jw_record(w, "op_ranks");
		jw_key(w, "class");
		jw_cstring(w, clsname[r->names.v[it[i].i].cls]);
		jw_key(w, "name");
		jw_cstring(w, it[i].s);
		jw_key(w, "key");
		jw_cstring(w, keyname[key]);
		jw_key(w, "ranks");
		jw_uint(w, m);
		if (key == K_GPU) {
			jw_key(w, "min");
			jw_us(w, v[0]);
			jw_key(w, "median");
			jw_us(w, m % 2 ? v[m / 2] : (v[m / 2 - 1] + v[m / 2]) /
			    2);
			jw_key(w, "max");
			jw_us(w, v[m - 1]);
		} else {
			jw_key(w, "min");
			jw_int(w, v[0]);
			jw_key(w, "median");
			jw_double(w, m % 2 ? (double)v[m / 2] :
			    ((double)v[m / 2 - 1] + (double)v[m / 2]) / 2);
			jw_key(w, "max");
			jw_int(w, v[m - 1]);
		}
		if (r->ranks[slow]->rank >= 0) {
			jw_key(w, "slowest_rank");
			jw_int(w, r->ranks[slow]->rank);
		}
		jw_end(w);
	}
	free(it);
	free(v);
}

static int
cmprank(const void *a, const void *b)
{
	const struct agg *x = *(struct agg *const *)a;
	const struct agg *y = *(struct agg *const *)b;

	return (x->rank > y->rank) - (x->rank < y->rank);
}

static void
output(struct run *r, struct jw *w)
{
	struct agg all;
	size_t i;
	int c;

	sortv(r->ranks, r->nranks, sizeof(*r->ranks), cmprank);
	for (i = 0; i < r->nranks; i++) {
		struct agg *a = r->ranks[i];

		agg_fit(a, r->names.n);
		sortv(a->steps, a->nsteps, sizeof(*a->steps), cmpstep);
		for (c = C_OP; c <= C_PY; c++)
			put_ops(r, w, a, c);
		put_threads(r, w, a);
		put_families(r, w, a);
		put_phases(w, a);
		put_steps(w, a);
		put_kernels(r, w, a);
		put_precision(r, w, a);
		put_devs(w, a);
		put_runtime(w, a);
		put_summary(r, w, a, 1);
	}
	if (r->nranks < 2)
		return;
	put_op_ranks(r, w);
	memset(&all, 0, sizeof(all));
	all.rank = -1;
	for (i = 0; i < r->nranks; i++)
		agg_merge(&all, r->ranks[i]);
	agg_fit(&all, r->names.n);
	put_summary(r, w, &all, r->nranks);
	agg_free(&all);
}

/*
 * Partials: a rank's aggregates as records, so that files can be ranked
 * apart and merged into what one run over all of them writes.  Everything
 * in them adds up or combines as min and max, so merging is associative
 * and order-independent; the output sorts what it writes.
 */

static void
put_stat(struct jw *w, const struct stat *s)
{
	jw_key(w, "count");
	jw_int(w, s->count);
	jw_key(w, "total");
	jw_int(w, s->total);
	jw_key(w, "self");
	jw_int(w, s->self);
	jw_key(w, "min");
	jw_int(w, s->min);
	jw_key(w, "max");
	jw_int(w, s->max);
	jw_key(w, "gpu_self");
	jw_int(w, s->gpu_self);
	jw_key(w, "gpu_total");
	jw_int(w, s->gpu_total);
}

static void
put_i64s(struct jw *w, const char *key, const int64_t *v, size_t n)
{
	size_t i;

	jw_ckey(w, key);
	jw_begin_array(w);
	for (i = 0; i < n; i++)
		jw_int(w, v[i]);
	jw_end_array(w);
}

static int
cmpseen(const void *a, const void *b)
{
	const struct seen *x = a, *y = b;

	if (x->rank != y->rank)
		return x->rank < y->rank ? -1 : 1;
	if (x->start != y->start)
		return x->start < y->start ? -1 : 1;
	if (x->end != y->end)
		return x->end < y->end ? -1 : 1;
	return strcmp(x->file, y->file);
}

/* The rank's aggregates, in an order fixed by their keys. */
static size_t
put_rank_partial(struct run *r, struct jw *w, const struct agg *a)
{
	struct strent **ent;
	size_t i, n = 0;

	jw_record(w, "op_partial_rank");
	put_rank(w, a->rank);
	jw_key(w, "traces");
	jw_int(w, a->traces);
	jw_key(w, "events");
	jw_int(w, a->cpu_events);
	jw_key(w, "gpu_events");
	jw_int(w, a->gpu_events);
	if (a->have_time) {
		jw_key(w, "start");
		jw_int(w, a->start);
		jw_key(w, "end");
		jw_int(w, a->end);
		jw_key(w, "origin");
		jw_int(w, a->origin);
	}
	put_i64s(w, "phase_self", a->ph_self, NPHASE);
	put_i64s(w, "phase_gpu", a->ph_gpu, NPHASE);
	jw_key(w, "runtime");
	jw_begin_array(w);
	jw_int(w, a->rt_count);
	jw_int(w, a->rt_total);
	jw_int(w, a->launch_count);
	jw_int(w, a->launch);
	jw_int(w, a->sync_count);
	jw_int(w, a->sync);
	jw_end_array(w);
	jw_end(w);
	n++;

	ent = strmap_sorted(&r->names.map);
	for (i = 0; i < r->names.map.count; i++) {
		size_t id = (size_t)(uintptr_t)ent[i]->val - 1;
		const struct name *nm = &r->names.v[id];

		if (id >= a->nst || (a->st[id].count == 0 &&
		    a->pst[id].count == 0))
			continue;
		jw_record(w, "op_partial_name");
		put_rank(w, a->rank);
		jw_key(w, "class");
		jw_cstring(w, clsname[nm->cls]);
		jw_key(w, "name");
		jw_cstring(w, nm->s);
		put_stat(w, &a->st[id]);
		if (a->pst[id].count > 0) {
			jw_key(w, "in_phase");
			jw_begin_object(w);
			put_stat(w, &a->pst[id]);
			jw_end_object(w);
		}
		jw_end(w);
		n++;
	}
	free(ent);

	ent = strmap_sorted(&a->threads);
	for (i = 0; i < a->threads.count; i++) {
		const struct thsum *ts = ent[i]->val;

		jw_record(w, "op_partial_thread");
		put_rank(w, a->rank);
		put_thread(w, ts);
		jw_key(w, "count");
		jw_int(w, ts->count);
		jw_key(w, "busy");
		jw_int(w, ts->busy);
		jw_end(w);
		n++;
	}
	free(ent);

	ent = strmap_sorted(&a->devs);
	for (i = 0; i < a->devs.count; i++) {
		const struct devsum *d = ent[i]->val;

		jw_record(w, "op_partial_device");
		put_rank(w, a->rank);
		put_jid(w, "device", &d->dev);
		jw_key(w, "events");
		jw_int(w, d->events);
		jw_key(w, "window");
		jw_int(w, d->window);
		jw_key(w, "busy");
		jw_int(w, d->busy);
		jw_key(w, "computation");
		jw_int(w, d->comp);
		jw_key(w, "comm");
		jw_int(w, d->comm);
		jw_key(w, "memcpy");
		jw_int(w, d->memcpy);
		jw_key(w, "exposed_comm");
		jw_int(w, d->xcomm);
		jw_key(w, "exposed_memcpy");
		jw_int(w, d->xmemcpy);
		jw_end(w);
		n++;
	}
	free(ent);

	for (i = 0; i < a->nsteps; i++) {
		const struct step *st = &a->steps[i];

		jw_record(w, "op_partial_step");
		put_rank(w, a->rank);
		jw_key(w, "step");
		jw_int(w, st->num);
		jw_key(w, "ts");
		jw_int(w, st->ts);
		jw_key(w, "cpu_end");
		jw_int(w, st->cpu_end);
		jw_key(w, "end");
		jw_int(w, st->end);
		jw_end(w);
		n++;
	}
	return n;
}

static void
put_partial_head(struct run *r, struct jw *w)
{
	jw_record(w, "op_partial");
	jw_key(w, "version");
	jw_int(w, PARTIAL_VERSION);
	jw_key(w, "key");
	jw_cstring(w, keyname[r->key]);
	jw_key(w, "limit");
	jw_int(w, r->limit);
	jw_key(w, "phase");
	jw_cstring_or_null(w, r->phase != PH_NONE ? phasename[r->phase] :
	    NULL);
	jw_key(w, "families");
	jw_cstring(w, r->famsum);
	jw_key(w, "precisions");
	jw_cstring(w, r->precsum);
	jw_end(w);
}

static void
output_partial(struct run *r, struct jw *w)
{
	size_t i, n = 0;

	put_partial_head(r, w);
	sortv(r->seen, r->nseen, sizeof(*r->seen), cmpseen);
	for (i = 0; i < r->nseen; i++) {
		jw_record(w, "op_partial_window");
		put_rank(w, r->seen[i].rank);
		jw_key(w, "file");
		jw_cstring(w, r->seen[i].file);
		jw_key(w, "start");
		jw_int(w, r->seen[i].start);
		jw_key(w, "end");
		jw_int(w, r->seen[i].end);
		jw_end(w);
		n++;
	}
	sortv(r->ranks, r->nranks, sizeof(*r->ranks), cmprank);
	for (i = 0; i < r->nranks; i++) {
		agg_fit(r->ranks[i], r->names.n);
		sortv(r->ranks[i]->steps, r->ranks[i]->nsteps,
		    sizeof(*r->ranks[i]->steps), cmpstep);
		n += put_rank_partial(r, w, r->ranks[i]);
	}
	jw_record(w, "op_partial_end");
	jw_key(w, "records");
	jw_uint(w, n);
	jw_end(w);
}

/* The digest of a table, which a partial's aggregates depend on. */
static void
digest_file(const char *path, char hex[65])
{
	struct sha256 c;
	char buf[8192];
	size_t n;
	FILE *fp;

	if ((fp = fopen(path, "rb")) == NULL)
		die_usage("%s:", path);
	sha256_init(&c);
	while ((n = fread(buf, 1, sizeof(buf), fp)) > 0)
		sha256_update(&c, buf, n);
	if (ferror(fp))
		die("%s:", path);
	fclose(fp);
	sha256_hex(&c, hex);
}

/* The node of the record's member key for messages, or the record's. */
static uint32_t
member(const struct jdoc *d, const char *key)
{
	int i = jdoc_get(d, 0, key);

	return i >= 0 ? (uint32_t)i : 0;
}

/* Member key of the record as an integer, which it must have. */
static int
get_num(struct run *r, uint32_t obj, const char *key, int64_t *v)
{
	const struct jdoc *d = &r->doc;
	int i;

	if (jdoc_get_i64(d, obj, key, v) == 0)
		return 0;
	i = jdoc_get(d, obj, key);
	return jdoc_error(r->file, d, i >= 0 ? (uint32_t)i : obj,
	    "\"%s\" record %s \"%s\" as an integer", ndin_kind(d),
	    i >= 0 ? "does not have" : "lacks", key);
}

/* An array member of n integers. */
static int
get_nums(struct run *r, const char *key, int64_t *v, size_t n)
{
	const struct jdoc *d = &r->doc;
	uint32_t c;
	size_t m = 0;
	int i;

	if ((i = jdoc_get(d, 0, key)) < 0 || d->node[i].type != JT_ARRAY)
		return jdoc_error(r->file, d, member(d, key),
		    "\"%s\" record lacks the array \"%s\"", ndin_kind(d), key);
	if (d->node[i].len != n)
		return jdoc_error(r->file, d, (uint32_t)i, "\"%s\" does not"
		    " hold %zu integers", key, n);
	for (c = (uint32_t)i + 1; m < n; c = d->node[c].next, m++)
		if (d->node[c].type != JT_NUMBER ||
		    jnum_int64(jdoc_str(d, c), d->node[c].len, &v[m]) < 0)
			return jdoc_error(r->file, d, c, "\"%s\" holds a"
			    " non-integer", key);
	return 0;
}

static int
get_stat(struct run *r, uint32_t obj, struct stat *s)
{
	if (get_num(r, obj, "count", &s->count) < 0 ||
	    get_num(r, obj, "total", &s->total) < 0 ||
	    get_num(r, obj, "self", &s->self) < 0 ||
	    get_num(r, obj, "min", &s->min) < 0 ||
	    get_num(r, obj, "max", &s->max) < 0 ||
	    get_num(r, obj, "gpu_self", &s->gpu_self) < 0 ||
	    get_num(r, obj, "gpu_total", &s->gpu_total) < 0)
		return -1;
	if (s->count < 0)
		return jdoc_error(r->file, &r->doc, obj, "negative \"count\"");
	return 0;
}

/*
 * The header must match this run: the same format, the same options (so
 * that every partial of a merge was made alike) and the same tables.
 */
static int
partial_head(struct run *r)
{
	const struct jdoc *d = &r->doc;
	const char *s, *ph;
	int64_t v;
	int i;

	if (strcmp(ndin_kind(d), "op_partial") != 0)
		return jdoc_error(r->file, d, 0, "not an op-rank partial:"
		    " \"%s\" record before \"op_partial\"", ndin_kind(d));
	if (get_num(r, 0, "version", &v) < 0)
		return -1;
	if (v != PARTIAL_VERSION)
		return jdoc_error(r->file, d, member(d, "version"),
		    "partial of version %" PRId64 ", not %d", v,
		    PARTIAL_VERSION);
	if (jdoc_get_str(d, 0, "key", &s, NULL) < 0)
		return jdoc_error(r->file, d, member(d, "key"),
		    "\"op_partial\" record lacks \"key\"");
	if (strcmp(s, keyname[r->key]) != 0)
		return jdoc_error(r->file, d, member(d, "key"),
		    "partial made with -k %s, not -k %s", s, keyname[r->key]);
	if (get_num(r, 0, "limit", &v) < 0)
		return -1;
	if (v != r->limit)
		return jdoc_error(r->file, d, member(d, "limit"),
		    "partial made with -n %" PRId64 ", not -n %lld", v,
		    r->limit);
	ph = r->phase != PH_NONE ? phasename[r->phase] : "none";
	if ((i = jdoc_get(d, 0, "phase")) < 0 ||
	    (d->node[i].type != JT_NULL && d->node[i].type != JT_STRING))
		return jdoc_error(r->file, d, member(d, "phase"),
		    "\"op_partial\" record lacks \"phase\"");
	s = d->node[i].type == JT_NULL ? "none" : jdoc_str(d, (uint32_t)i);
	/* "none" is no phase name: -p refuses it. */
	if (strcmp(s, ph) != 0)
		return jdoc_error(r->file, d, (uint32_t)i, "partial made with"
		    " -p %s, not -p %s", s, ph);
	if (jdoc_get_str(d, 0, "families", &s, NULL) < 0 ||
	    strcmp(s, r->famsum) != 0)
		return jdoc_error(r->file, d, member(d, "families"),
		    "partial made with another family table");
	if (jdoc_get_str(d, 0, "precisions", &s, NULL) < 0 ||
	    strcmp(s, r->precsum) != 0)
		return jdoc_error(r->file, d, member(d, "precisions"),
		    "partial made with another precision table");
	return 0;
}

static int
partial_name(struct run *r, struct agg *a)
{
	const struct jdoc *d = &r->doc;
	struct stat st, ps;
	const char *cls, *name;
	size_t len;
	uint32_t id;
	int c, i;

	if (jdoc_get_str(d, 0, "class", &cls, NULL) < 0)
		return jdoc_error(r->file, d, 0, "\"op_partial_name\" lacks"
		    " \"class\"");
	for (c = 0; c < NCLASS; c++)
		if (strcmp(cls, clsname[c]) == 0)
			break;
	if (c == NCLASS)
		return jdoc_error(r->file, d, member(d, "class"),
		    "unknown class: %s", cls);
	if (jdoc_get_str(d, 0, "name", &name, &len) < 0)
		return jdoc_error(r->file, d, 0, "\"op_partial_name\" lacks"
		    " \"name\"");
	memset(&ps, 0, sizeof(ps));
	if (get_stat(r, 0, &st) < 0)
		return -1;
	if ((i = jdoc_get(d, 0, "in_phase")) >= 0 &&
	    (d->node[i].type != JT_OBJECT || get_stat(r, (uint32_t)i,
	    &ps) < 0))
		return d->node[i].type != JT_OBJECT ? jdoc_error(r->file, d,
		    (uint32_t)i, "\"in_phase\" is not an object") : -1;
	id = intern(&r->names, c, name, len);
	agg_fit(a, r->names.n);
	stat_merge(&a->st[id], &st);
	stat_merge(&a->pst[id], &ps);
	return 0;
}

static int
partial_record(struct run *r, const char *kind)
{
	const struct jdoc *d = &r->doc;
	struct agg *a, one;
	struct thsum *ts;
	struct jid pid, tid;
	struct devsum ds;
	struct step st;
	const char *s;
	int64_t rank, v[6];

	if (get_rank(r, &rank) < 0)
		return -1;
	a = rank_agg(r, rank);
	if (strcmp(kind, "op_partial_name") == 0)
		return partial_name(r, a);
	if (strcmp(kind, "op_partial_rank") == 0) {
		memset(&one, 0, sizeof(one));
		if (get_num(r, 0, "traces", &one.traces) < 0 ||
		    get_num(r, 0, "events", &one.cpu_events) < 0 ||
		    get_num(r, 0, "gpu_events", &one.gpu_events) < 0 ||
		    get_nums(r, "phase_self", one.ph_self, NPHASE) < 0 ||
		    get_nums(r, "phase_gpu", one.ph_gpu, NPHASE) < 0 ||
		    get_nums(r, "runtime", v, 6) < 0)
			return -1;
		one.rt_count = v[0];
		one.rt_total = v[1];
		one.launch_count = v[2];
		one.launch = v[3];
		one.sync_count = v[4];
		one.sync = v[5];
		if (jdoc_get(d, 0, "start") >= 0) {
			if (get_num(r, 0, "start", &one.start) < 0 ||
			    get_num(r, 0, "end", &one.end) < 0 ||
			    get_num(r, 0, "origin", &one.origin) < 0)
				return -1;
			one.have_time = 1;
		}
		agg_merge(a, &one);
		return 0;
	}
	if (strcmp(kind, "op_partial_thread") == 0) {
		if (get_jid(d, jdoc_get(d, 0, "pid"), &pid) < 0 ||
		    get_jid(d, jdoc_get(d, 0, "tid"), &tid) < 0)
			return jdoc_error(r->file, d, 0, "\"pid\" or \"tid\""
			    " is not a number or a string");
		if (get_num(r, 0, "count", &v[0]) < 0 ||
		    get_num(r, 0, "busy", &v[1]) < 0)
			return -1;
		if (jdoc_get_str(d, 0, "name", &s, NULL) < 0)
			s = NULL;
		ts = thsum_get(a, &pid, &tid, s);
		ts->count += v[0];
		ts->busy += v[1];
		return 0;
	}
	if (strcmp(kind, "op_partial_device") == 0) {
		memset(&ds, 0, sizeof(ds));
		if (get_jid(d, jdoc_get(d, 0, "device"), &ds.dev) < 0)
			return jdoc_error(r->file, d, 0, "\"device\" is not"
			    " a number or a string");
		if (get_num(r, 0, "events", &ds.events) < 0 ||
		    get_num(r, 0, "window", &ds.window) < 0 ||
		    get_num(r, 0, "busy", &ds.busy) < 0 ||
		    get_num(r, 0, "computation", &ds.comp) < 0 ||
		    get_num(r, 0, "comm", &ds.comm) < 0 ||
		    get_num(r, 0, "memcpy", &ds.memcpy) < 0 ||
		    get_num(r, 0, "exposed_comm", &ds.xcomm) < 0 ||
		    get_num(r, 0, "exposed_memcpy", &ds.xmemcpy) < 0)
			return -1;
		devsum_add(devsum_get(a, &ds.dev), &ds);
		return 0;
	}
	if (strcmp(kind, "op_partial_step") == 0) {
		if (get_num(r, 0, "step", &st.num) < 0 ||
		    get_num(r, 0, "ts", &st.ts) < 0 ||
		    get_num(r, 0, "cpu_end", &st.cpu_end) < 0 ||
		    get_num(r, 0, "end", &st.end) < 0)
			return -1;
		a->steps = grow(a->steps, &a->capsteps, a->nsteps,
		    sizeof(*a->steps));
		a->steps[a->nsteps++] = st;
		return 0;
	}
	if (strcmp(kind, "op_partial_window") == 0) {
		if (jdoc_get_str(d, 0, "file", &s, NULL) < 0)
			return jdoc_error(r->file, d, 0, "\"op_partial_window\""
			    " lacks \"file\"");
		if (get_num(r, 0, "start", &v[0]) < 0 ||
		    get_num(r, 0, "end", &v[1]) < 0)
			return -1;
		return same_window(r, s, rank, v[0], v[1]);
	}
	return jdoc_error(r->file, d, 0, "not a partial record: \"%s\"",
	    kind);
}

/*
 * Adds a partial: its header, its records and the "op_partial_end" that
 * shows it whole.  Returns as run_file() does.
 */
static int
merge_file(struct run *r, const char *path)
{
	struct ndin *in;
	const char *kind;
	uint64_t n = 0;
	int64_t want;
	int rc, state = 0;	/* 0: before the header, 1: in, 2: ended */

	if ((in = ndin_open(path)) == NULL) {
		warnmsg("%s:", path);
		return 1;
	}
	r->file = ndin_name(in);
	while ((rc = ndin_next(in, &r->doc)) == 1) {
		kind = ndin_kind(&r->doc);
		if (state == 0) {
			rc = partial_head(r);
			state = 1;
		} else if (state == 2)
			rc = jdoc_error(r->file, &r->doc, 0, "\"%s\" record"
			    " after \"op_partial_end\"", kind);
		else if (strcmp(kind, "op_partial_end") == 0) {
			if ((rc = get_num(r, 0, "records", &want)) == 0 &&
			    (uint64_t)want != n)
				rc = jdoc_error(r->file, &r->doc, 0, "partial"
				    " of %" PRId64 " records has %" PRIu64,
				    want, n);
			state = 2;
		} else {
			rc = partial_record(r, kind);
			n++;
		}
		if (rc < 0)
			break;
	}
	if (rc == 0 && state != 2)
		rc = error("%s:%" PRIu64 ":1: partial ends without its"
		    " \"op_partial_end\" record: cut short", r->file,
		    state == 0 ? 1 : ndin_line(in) + 1);
	ndin_close(in);
	return rc;
}
