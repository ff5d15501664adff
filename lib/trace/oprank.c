/*
 * oprank: where the time goes in a PyTorch profiler trace, by operator,
 * thread, family, phase, step and GPU kernel, from tr-extract records;
 * op-rank(1) and analyze-profile(1) run it.
 */
#include <ctype.h>
#include <errno.h>
#include <fnmatch.h>
#include <inttypes.h>
#include <limits.h>
#include <math.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>
#include <unistd.h>

#include "base/err.h"
#include "base/ival.h"
#include "base/sha256.h"
#include "base/strmap.h"
#include "base/xalloc.h"
#include "io/gzin.h"
#include "io/json.h"
#include "io/ndjson.h"
#include "io/spill.h"
#include "trace/oprank.h"

#define TABLE_NAME	"op-families.tsv"
#define PREC_NAME	"kernel-precision.tsv"
#define TOP_N		5	/* entries in the summaries' top lists */
#define PARTIAL_VERSION	1	/* of the op_partial records */
#define MEMORY		(16 << 20)	/* bytes of events held, by default */

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

/*
 * A thread's busy time in one rank, when the thread itself is kept in
 * the sum over all ranks only (a merge's pass 1): the rank summary wants
 * the busiest of the rank's threads and nothing else of them.
 */
struct rankthr {
	const struct thsum	*t;	/* in the run's all */
	int64_t			 busy;
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
	/*
	 * Across ranks: self_total(), and by xindex() each operator's and
	 * annotation's op_ranks key (and total, when the key is not the
	 * total), read through kv_get().  A two-pass merge keeps only these
	 * of a rank that is not the primary one, not st.
	 */
	int64_t		 self;
	struct rankthr	*rthr;		/* light: the threads, by busy only */
	size_t		 nrthr, caprthr;
	int32_t		*kv32;		/* while every value fits */
	int64_t		*kv64;		/* once one does not */
	size_t		 nkv;
};

#define ABSENT	INT64_MIN

/* A CPU event kept for nesting: exact ns as read. */
struct cev {
	int64_t		ts, dur;
	uint32_t	name, seq;
};

/* A runtime call as read, to find what it launched. */
struct rcall {
	int64_t		 corr, ts;
	uint32_t	 seq;
	struct thr	*th;
};

/* A runtime call that launched GPU work, and what that work was. */
struct rev {
	int64_t		ts, corr;
	int64_t		sum, comm, end;	/* of its GPU work */
	uint32_t	seq;
};

/* The phase a runtime call gave its GPU work, in the order of the calls. */
struct link {
	int64_t		corr;
	uint64_t	order;
	int		phase;
};

/* One end of a GPU event on its device's timeline. */
struct gedge {
	int64_t	t;
	int32_t	cls, delta;
};

/* A thread's events, in spills: read back in order, whatever their number. */
struct thr {
	struct jid	 pid, tid;
	char		*name;
	struct spill	 ops, py;	/* struct cev, by cmpcev */
	struct spill	 rt;		/* struct rev, by cmprev, at the end */
};

struct dev {
	struct jid	 dev;
	struct spill	 edges;		/* struct gedge, by cmpgedge */
	int64_t		 n, lo, hi;	/* events, their window */
};

/* A GPU event that names the runtime call that launched it. */
struct gev {
	int64_t		corr, dur, end;
	uint32_t	name, seq;
	int		comm;
};

/*
 * A trace's GPU work is joined to the runtime calls that launched it by
 * sorting both by correlation id, not in a table of every id.
 */
struct trace {
	int		 any;
	uint32_t	 seq;
	struct strmap	 threads;	/* -> struct thr */
	struct strmap	 devs;		/* -> struct dev */
	struct spill	 gk;		/* struct gev, by cmpgev */
	struct spill	 rc;		/* struct rcall, by cmprcall */
	struct spill	 links;		/* struct link, by cmplink */
	uint64_t	 order;		/* of the next link */
	struct agg	 a;
};

/* The rank and window of a trace read so far, to tell a copy from a window. */
struct seen {
	int64_t		 rank;		/* -1: unknown */
	int64_t		 start, end;	/* absolute ns */
	char		*file;
};

struct oprank {
	struct spool	 pool;		/* $MRP_OP_RANK_MEMORY */
	struct names	 names;
	struct table	 tab, prec;
	struct trace	 t;
	struct agg	**ranks, *cur;	/* cur: the rank last looked up */
	size_t		 nranks;
	struct agg	 all;		/* light: every rank's st and pst */
	int		 light;		/* merge pass 1: st of ranks not kept */
	int		 pass2;		/* merge pass 2: the primary rank only */
	int64_t		 primary;	/* its rank, in pass 2 */
	int		 every;		/* -a: every rank's detail */
	uint32_t	*xof;		/* name id -> xindex() */
	size_t		 nxof, capxof, nx;
	size_t		 kvw;		/* values per name in kv: 1 or 2 */
	struct seen	*seen;
	size_t		 nseen;
	struct jdoc	 in;		/* what oprank_file() reads into */
	const struct jdoc *doc;		/* the record at hand */
	enum key	 key;
	int		 phase;		/* -p, or PH_NONE */
	long long	 limit;
	const char	*file;
	char		 famsum[65], precsum[65];	/* table digests */
};

/* An operator open on the runtime stack: its exact end, its index. */
struct rtopen {
	int64_t	end;
	size_t	i;
};

/* A Python frame open while nesting. */
struct pyopen {
	int64_t		end, d, childsum;	/* end in truncated µs */
	uint32_t	name;
};

/* A whole call tree in the window: events lo..hi of the thread. */
struct seg {
	size_t	lo, hi;
	int64_t	maxend;		/* the latest exact end in it */
};

/*
 * Nesting one thread, as a stream of its operators in order.  The window
 * holds the call trees not yet finished: events off..off+n of the thread,
 * indexed by their place in the thread (every index here is one).  A tree
 * is finished once no runtime call left can land in it, so memory grows
 * with the largest tree, not with the thread.  Kept across threads.
 */
struct nest {
	struct cev	*v;
	int64_t		*parent;	/* -1: a root */
	int32_t		*nchild;
	uint8_t		*del, *mark;
	int64_t		*childsum, *gdir, *gsub;
	size_t		 off, n, cap;
	size_t		*stack;		/* the tree being built */
	size_t		 sp, capstack;
	struct rtopen	*rs;		/* the runtime calls' stack */
	size_t		 nrs, caprs;
	struct pyopen	*ps;
	size_t		 nps, capps;
	struct seg	*seg;		/* built, not finished */
	size_t		 nseg, capseg;
	size_t		 next;		/* the next operator the runtime sees */
	int64_t		 bs, be, busy, count;	/* the thread's busy time */
	int		 open;
};

/* A sort item: a value to rank by and the name that breaks ties. */
struct item {
	double		 v;
	const char	*s;
	size_t		 i;
};

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
static const char *family_name(const struct oprank *, int);
static size_t	ranked(const struct oprank *, const struct agg *,
		    const struct stat *, int, enum key, struct item *);
static size_t	threads_ranked(const struct agg *, struct item *);
static void	put_thread(struct jw *, const struct thsum *);
static void	thsum_free(void *);
static void	devsum_free(void *);
static void	thr_free(void *);
static void	dev_free(void *);
static int	cmpi64(const void *, const void *);
static double	median(const int64_t *, size_t);
static int	cmprank(const void *, const void *);
static int	mark_of(const char *);
static uint32_t	intern(struct names *, int, const char *, size_t);
static int	on_event(struct oprank *);
static int	on_thread(struct oprank *);
static void	on_trace(struct oprank *, int64_t, int, int64_t, int64_t,
		    int64_t);
static int	get_rank(struct oprank *, int64_t *);
static int	trace_record(struct oprank *);
static int	get_jid(const struct jdoc *, int, struct jid *);
static struct thr *get_thr(struct trace *, struct spool *,
		    const struct jdoc *, int, int);
static void	jid_copy(struct jid *, const struct jid *);
static size_t	jid_key(char *, size_t, const struct jid *);
static void	jid_free(struct jid *);
static void	put_jid(struct jw *, const char *, const struct jid *);
static void	*grow(void *, size_t *, size_t, size_t);
static void	sortv(void *, size_t, size_t, int (*)(const void *,
		    const void *));
static void	stat_add(struct stat *, int64_t, int64_t);
static void	stat_merge(struct stat *, const struct stat *);
static void	agg_fit(struct agg *, size_t);
static struct thsum *thsum_get(struct agg *, const struct jid *,
		    const struct jid *, const char *);
static void	rankthr_add(struct agg *, const struct thsum *, int64_t);
static int64_t	rank_busy(const struct agg *);
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
static int	cmprcall(const void *, const void *);
static int	cmplink(const void *, const void *);
static int	cmpgev(const void *, const void *);
static int	cmpgedge(const void *, const void *);
static int	cmpstep(const void *, const void *);
static int	cmpitem(const void *, const void *);
static int	cmpclass(const void *, const void *);
static void	nest_fit(struct nest *, size_t);
static void	nest_free(struct nest *);
static void	nest_add(struct nest *, const struct cev *);
static void	nest_built(struct oprank *, struct nest *, size_t);
static void	nest_runtime(struct oprank *, struct nest *, int,
		    struct spillcur *, const struct rev **, int64_t, int);
static void	nest_finish(struct oprank *, struct nest *, int);
static void	nest_cpu(struct oprank *, struct nest *, struct thr *);
static void	nest_py(struct oprank *, struct nest *, struct thr *);
static void	link_step(struct trace *, const struct rev *);
static void	gpu_join(struct trace *);
static void	gpu_phases(struct oprank *);
static void	trace_init(struct trace *, struct spool *);
static void	timeline(struct trace *, struct dev *);
static struct agg *rank_agg(struct oprank *, int64_t);
static int	same_window(struct oprank *, const char *, int64_t, int64_t,
		    int64_t);
static double	keyval(const struct stat *, enum key);
static double	round3(double);
static double	pct(int64_t, int64_t);
static int64_t	self_total(const struct oprank *, const struct agg *);
static void	put_rank(struct jw *, int64_t);
static void	put_ops(struct oprank *, struct jw *, const struct agg *, int);
static void	put_threads(struct oprank *, struct jw *, const struct agg *);
static size_t	families(const struct oprank *, const struct agg *, int64_t *,
		    int64_t *, int64_t *, struct item *);
static void	put_families(struct oprank *, struct jw *, const struct agg *);
static void	put_phases(struct jw *, const struct agg *);
static void	put_steps(struct jw *, const struct agg *, int);
static int	int64_cmp(const void *, const void *);
static void	put_kernels(struct oprank *, struct jw *, const struct agg *);
static void	put_precision(struct oprank *, struct jw *, const struct agg *);
static void	put_devs(struct jw *, const struct agg *);
static void	put_runtime(struct jw *, const struct agg *);
static void	put_summary(struct oprank *, struct jw *, const struct agg *,
		    size_t);
static void	put_op_ranks(struct oprank *, struct jw *);
static void	output(struct oprank *, struct jw *);
static void	put_stat(struct jw *, const struct stat *);
static void	put_i64s(struct jw *, const char *, const int64_t *, size_t);
static int	cmpseen(const void *, const void *);
static size_t	put_rank_partial(struct oprank *, struct jw *,
		    const struct agg *);
static void	put_partial_head(struct oprank *, struct jw *);
static void	output_partial(struct oprank *, struct jw *);
static void	digest_file(const char *, char [65]);
static uint32_t	member(const struct jdoc *, const char *);
static int	get_num(struct oprank *, uint32_t, const char *, int64_t *);
static int	get_nums(struct oprank *, const char *, int64_t *, size_t);
static int	get_stat(struct oprank *, uint32_t, struct stat *);
static int	partial_head(struct oprank *);
static int	partial_name(struct oprank *, struct agg *);
static int	partial_record(struct oprank *, const char *);
static int	merge_file(struct oprank *, const char *);
static int	reread(int, char *[]);
static int	merge_again(struct oprank *, int, char *[]);
static void	kv_add(struct oprank *, struct agg *, size_t, const struct stat *);
static size_t	primary(const struct oprank *);
static void	put_detail(struct oprank *, struct jw *, struct agg *);
static size_t	xindex(struct oprank *, size_t);
static int64_t	kv_get(const struct oprank *, const struct agg *, size_t,
		    size_t);
static void	kv_put(const struct oprank *, struct agg *, size_t, size_t,
		    int64_t);
static int64_t	rank_key(struct oprank *, const struct agg *, size_t);
static int64_t	rank_total(struct oprank *, const struct agg *, size_t);
static void	put_rank_summaries(struct oprank *, struct jw *);
static void	put_wall_steps(struct oprank *, struct jw *);

int
oprank_key(const char *s)
{
	size_t i;

	for (i = 0; i < sizeof(keyname) / sizeof(keyname[0]); i++)
		if (strcmp(s, keyname[i]) == 0)
			return (int)i;
	return -1;
}

int
oprank_phase(const char *s)
{
	int i;

	/* "other" is what no operator marks: not a focus. */
	for (i = 0; i < PH_OTHER; i++)
		if (strcmp(s, phasename[i]) == 0)
			return i;
	return -1;
}

struct oprank *
oprank_new(const struct oprank_opts *o)
{
	struct oprank *r;
	char *table, *prec;
	const char *env;

	r = xcalloc(1, sizeof(*r));
	r->key = o->key >= 0 ? (enum key)o->key : K_TOTAL;
	r->phase = o->phase >= 0 ? o->phase : PH_NONE;
	r->limit = o->limit;
	r->every = o->every;
	r->pool.budget = MEMORY;
	if ((env = getenv("MRP_OP_RANK_MEMORY")) != NULL && *env != '\0')
		r->pool.budget = (size_t)parse_num(env, 1, LLONG_MAX,
		    "MRP_OP_RANK_MEMORY");
	trace_init(&r->t, &r->pool);

	table = o->table != NULL ? xstrdup(o->table) : find_table(TABLE_NAME);
	load_table(&r->tab, table, "other");
	digest_file(table, r->famsum);
	free(table);
	prec = find_table(PREC_NAME);
	load_table(&r->prec, prec, "unknown");
	digest_file(prec, r->precsum);
	r->names.tab = &r->tab;
	r->names.prec = &r->prec;
	r->names.famcomm = family_index(&r->tab, "communication");
	r->names.fammemcpy = family_index(&r->tab, "memcpy");
	r->names.famgemm = family_index(&r->tab, "gemm");
	r->names.famconv = family_index(&r->tab, "conv");
	check_prec(&r->names, &r->prec, prec);
	free(prec);
	r->kvw = r->key == K_TOTAL || r->key == K_MEAN ? 1 : 2;
	return r;
}

int
oprank_merge(struct oprank *r, int n, char *paths[], int partial)
{
	int i, rc = 0, status = 0;

	r->light = !partial && !r->every && reread(n, paths);
	if (n == 0)
		rc = merge_file(r, NULL);
	for (i = 0; i < n && rc >= 0; i++) {
		rc = merge_file(r, paths[i]);
		if (rc > 0)
			status = 1;
	}
	if (rc >= 0 && r->light)
		rc = merge_again(r, n, paths);
	return rc < 0 ? -1 : status;
}

void
oprank_write(struct oprank *r, struct jw *w, int partial)
{
	if (partial)
		output_partial(r, w);
	else
		output(r, w);
}

void
oprank_free(struct oprank *r)
{
	size_t i;

	if (r == NULL)
		return;
	for (i = 0; i < r->nranks; i++) {
		agg_free(r->ranks[i]);
		free(r->ranks[i]);
	}
	free(r->ranks);
	agg_free(&r->all);
	free(r->xof);
	for (i = 0; i < r->nseen; i++)
		free(r->seen[i].file);
	free(r->seen);
	trace_free(&r->t);
	spool_free(&r->pool);
	jdoc_free(&r->in);
	strmap_free(&r->names.map, NULL);
	free(r->names.v);
	free(r->names.buf);
	free(r->names.precof);
	table_free(&r->tab);
	table_free(&r->prec);
	free(r);
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

int
oprank_record(struct oprank *r, const char *file, const struct jdoc *d)
{
	const char *kind = ndin_kind(d);

	r->file = file;
	r->doc = d;
	if (strcmp(kind, "event") == 0)
		return on_event(r);
	if (strcmp(kind, "thread") == 0)
		return on_thread(r);
	if (strcmp(kind, "trace") == 0)
		return trace_record(r);
	if (strcmp(kind, "op_partial") == 0)
		return jdoc_error(file, d, 0, "a partial: merge it with --merge");
	return 0;
}

int
oprank_input_end(struct oprank *r, const char *file)
{
	if (!r->t.any)
		return 0;
	warnmsg("%s: input ends inside a trace: no \"trace\" record after"
	    " its events", file);
	on_trace(r, -1, 0, 0, 0, 0);
	return 1;
}

int
oprank_file(struct oprank *r, const char *path)
{
	struct ndin *in;
	const char *file;
	int rc;

	if ((in = ndin_open(path)) == NULL) {
		warnmsg("%s:", path);
		return 1;
	}
	file = ndin_name(in);
	while ((rc = ndin_next(in, &r->in)) == 1)
		if ((rc = oprank_record(r, file, &r->in)) < 0)
			break;
	if (rc == 0)
		rc = oprank_input_end(r, file);
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
get_thr(struct trace *t, struct spool *pool, const struct jdoc *d, int pid,
    int tid)
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
		spill_init(&th->ops, pool, sizeof(struct cev), cmpcev);
		spill_init(&th->py, pool, sizeof(struct cev), cmpcev);
		spill_init(&th->rt, pool, sizeof(struct rev), cmprev);
	}
	return th;
}

static int
str_is(const char *s, const char *a, const char *b)
{
	return strcmp(s, a) == 0 || (b != NULL && strcmp(s, b) == 0);
}

static int
on_event(struct oprank *r)
{
	const struct jdoc *d = r->doc;
	struct trace *t = &r->t;
	int name = -1, cat = -1, pid = -1, tid = -1, ts = -1, dur = -1;
	int corr = -1, device = -1, cls, gcls = -1;
	const char *k, *c, *s;
	int64_t tsns, durns, cv = 0;
	struct jid dv;
	struct thr *th;
	struct strent *e;
	struct dev *dev;
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
			th = get_thr(t, &r->pool, d, pid, tid);
			spill_add(&t->rc, &(struct rcall){ cv, tsns, t->seq++,
			    th });
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
		if (corr >= 0)
			spill_add(&t->gk, &(struct gev){ cv, durns,
			    tsns + durns, id, t->seq++, gcls == G_COMM });
		else if (r->phase == (r->names.v[id].gcls == G_COMM ?
		    PH_COMM : PH_OTHER))
			stat_add(&t->a.pst[id], durns, durns);
		if (device >= 0 && d->node[device].type == JT_NUMBER)
			get_jid(d, device, &dv);
		else
			get_jid(d, pid, &dv);
		e = strmap_put(&t->devs, dv.text != NULL ? dv.text : "",
		    dv.text != NULL ? strlen(dv.text) : 0);
		if ((dev = e->val) == NULL) {
			dev = e->val = xcalloc(1, sizeof(*dev));
			jid_copy(&dev->dev, &dv);
			spill_init(&dev->edges, &r->pool, sizeof(struct gedge),
			    cmpgedge);
			dev->lo = tsns;
			dev->hi = tsns + durns;
		}
		dev->n++;
		if (tsns < dev->lo)
			dev->lo = tsns;
		if (tsns + durns > dev->hi)
			dev->hi = tsns + durns;
		if (durns > 0) {
			spill_add(&dev->edges, &(struct gedge){ tsns, gcls, 1 });
			spill_add(&dev->edges, &(struct gedge){ tsns + durns,
			    gcls, -1 });
		}
		return 0;
	}

	th = get_thr(t, &r->pool, d, pid, tid);
	if (cls == C_PY) {
		spill_add(&th->py, &(struct cev){ tsns, durns,
		    intern(&r->names, C_PY, s, len), t->seq++ });
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
	spill_add(&th->ops, &(struct cev){ tsns, durns,
	    intern(&r->names, cls, s, len), t->seq++ });
	return 0;
}

static int
on_thread(struct oprank *r)
{
	const struct jdoc *d = r->doc;
	struct thr *th;
	const char *s;

	if (jdoc_get_str(d, 0, "name", &s, NULL) < 0)
		return 0;
	th = get_thr(&r->t, &r->pool, d, jdoc_get(d, 0, "pid"),
	    jdoc_get(d, 0, "tid"));
	free(th->name);
	th->name = xstrdup(s);
	return 0;
}

/* The record's "rank"; absent or null: none, -1. */
static int
get_rank(struct oprank *r, int64_t *rank)
{
	const struct jdoc *d = r->doc;
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
trace_record(struct oprank *r)
{
	const struct jdoc *d = r->doc;
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
same_window(struct oprank *r, const char *file, int64_t rank, int64_t start,
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
on_trace(struct oprank *r, int64_t rank, int timed, int64_t origin,
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
	gpu_join(t);
	ent = strmap_sorted(&t->threads);
	for (i = 0; i < t->threads.count; i++) {
		nest_cpu(r, &nb, ent[i]->val);
		nest_py(r, &nb, ent[i]->val);
	}
	free(ent);
	nest_free(&nb);
	gpu_phases(r);
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
	trace_init(t, &r->pool);
}

static struct agg *
rank_agg(struct oprank *r, int64_t rank)
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

	if (x->ts != y->ts)
		return x->ts < y->ts ? -1 : 1;
	return (x->seq > y->seq) - (x->seq < y->seq);
}

static int
cmprcall(const void *a, const void *b)
{
	const struct rcall *x = a, *y = b;

	if (x->corr != y->corr)
		return x->corr < y->corr ? -1 : 1;
	return (x->seq > y->seq) - (x->seq < y->seq);
}

static int
cmplink(const void *a, const void *b)
{
	const struct link *x = a, *y = b;

	if (x->corr != y->corr)
		return x->corr < y->corr ? -1 : 1;
	return (x->order > y->order) - (x->order < y->order);
}

static int
cmpgev(const void *a, const void *b)
{
	const struct gev *x = a, *y = b;

	if (x->corr != y->corr)
		return x->corr < y->corr ? -1 : 1;
	return (x->seq > y->seq) - (x->seq < y->seq);
}

/* Edges at one time may come in any order: this order is only a total one. */
static int
cmpgedge(const void *a, const void *b)
{
	const struct gedge *x = a, *y = b;

	if (x->t != y->t)
		return x->t < y->t ? -1 : 1;
	if (x->cls != y->cls)
		return x->cls < y->cls ? -1 : 1;
	return (x->delta > y->delta) - (x->delta < y->delta);
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
	nb->cap = n > 2 * nb->cap ? n : 2 * nb->cap;
	nb->v = xreallocarray(nb->v, nb->cap, sizeof(*nb->v));
	nb->parent = xreallocarray(nb->parent, nb->cap, sizeof(*nb->parent));
	nb->nchild = xreallocarray(nb->nchild, nb->cap, sizeof(*nb->nchild));
	nb->del = xreallocarray(nb->del, nb->cap, sizeof(*nb->del));
	nb->mark = xreallocarray(nb->mark, nb->cap, sizeof(*nb->mark));
	nb->childsum = xreallocarray(nb->childsum, nb->cap,
	    sizeof(*nb->childsum));
	nb->gdir = xreallocarray(nb->gdir, nb->cap, sizeof(*nb->gdir));
	nb->gsub = xreallocarray(nb->gsub, nb->cap, sizeof(*nb->gsub));
}

static void
nest_free(struct nest *nb)
{
	free(nb->v);
	free(nb->parent);
	free(nb->nchild);
	free(nb->del);
	free(nb->mark);
	free(nb->childsum);
	free(nb->gdir);
	free(nb->gsub);
	free(nb->stack);
	free(nb->rs);
	free(nb->ps);
	free(nb->seg);
}

/*
 * Adds the next event in (start, -end) order to the tree being built, as
 * torch's EventList does: an event pops every open event it does not fit
 * inside, in truncated µs, and the remaining top is its parent.
 */
static void
nest_add(struct nest *nb, const struct cev *e)
{
	size_t i = nb->off + nb->n, w = nb->n;
	int64_t p;

	nest_fit(nb, nb->n + 1);
	nb->v[w] = *e;
	p = nb->sp > 0 ? (int64_t)nb->stack[nb->sp - 1] : -1;
	nb->parent[w] = p;
	nb->nchild[w] = 0;
	nb->del[w] = 0;
	nb->childsum[w] = 0;
	nb->gdir[w] = 0;
	nb->gsub[w] = 0;
	if (p >= 0)
		nb->nchild[p - (int64_t)nb->off]++;
	nb->stack = grow(nb->stack, &nb->capstack, nb->sp,
	    sizeof(*nb->stack));
	nb->stack[nb->sp++] = i;
	nb->n++;
}

/*
 * The tree from lo to the window's end is built.  _remove_dup_nodes: an
 * only child with its parent's name goes, and the parent adopts its
 * children.  Parents sort before children, so one pass in order settles
 * every chain.
 */
static void
nest_built(struct oprank *r, struct nest *nb, size_t lo)
{
	const struct name *nm = r->names.v;
	struct cev *v = nb->v;
	struct seg *sg;
	size_t i, w;
	int64_t p, q;

	nb->seg = grow(nb->seg, &nb->capseg, nb->nseg, sizeof(*nb->seg));
	sg = &nb->seg[nb->nseg++];
	sg->lo = lo;
	sg->hi = nb->off + nb->n;
	sg->maxend = INT64_MIN;
	for (i = lo; i < sg->hi; i++) {
		w = i - nb->off;
		if (v[w].ts + v[w].dur > sg->maxend)
			sg->maxend = v[w].ts + v[w].dur;
		p = nb->parent[w];
		q = p - (int64_t)nb->off;
		if (p >= 0 && nb->del[q]) {
			p = nb->parent[w] = nb->parent[q];
			q = p - (int64_t)nb->off;
		}
		if (p >= 0 && v[q].name == v[w].name && nb->nchild[q] == 1) {
			nb->del[w] = 1;
			nb->nchild[q] = nb->nchild[w];
		}
		if (nb->del[w])
			continue;
		nb->mark[w] = (uint8_t)(nm[v[w].name].mark != PH_NONE ?
		    nm[v[w].name].mark : p >= 0 ? nb->mark[q] : PH_NONE);
		if (p >= 0)
			nb->childsum[q] += us_end(&v[w]) - us_start(&v[w]);
	}
}

/*
 * Runtime calls in time order to the innermost operator open at their
 * start: every call before until, or all when last.  Then finishes the
 * trees that no call left can land in.  *cur is the next call, or NULL.
 */
static void
nest_runtime(struct oprank *r, struct nest *nb, int bwd, struct spillcur *rc,
    const struct rev **cur, int64_t until, int last)
{
	struct trace *t = &r->t;
	struct agg *a = &t->a;
	const struct name *nm = r->names.v;
	const struct rev *c;
	struct cev *v = nb->v;
	size_t hi = nb->off + nb->n, w, o;
	int ph;

	for (; (c = *cur) != NULL && (last || c->ts < until);
	    *cur = spill_next(rc)) {
		/*
		 * Operators of finished trees all ended before this call:
		 * the stack would only push and pop them again.
		 */
		if (nb->next < nb->off)
			nb->next = nb->off;
		for (; nb->next < hi && v[nb->next - nb->off].ts <= c->ts;
		    nb->next++) {
			w = nb->next - nb->off;
			if (nb->del[w])
				continue;
			while (nb->nrs > 0 && nb->rs[nb->nrs - 1].end < v[w].ts)
				nb->nrs--;
			nb->rs = grow(nb->rs, &nb->caprs, nb->nrs,
			    sizeof(*nb->rs));
			nb->rs[nb->nrs].end = v[w].ts + v[w].dur;
			nb->rs[nb->nrs++].i = nb->next;
		}
		/* Such an operator (i < off) ended before c too. */
		while (nb->nrs > 0 && (nb->rs[nb->nrs - 1].end < c->ts ||
		    nb->rs[nb->nrs - 1].i < nb->off))
			nb->nrs--;
		if (nb->nrs > 0) {
			o = nb->rs[nb->nrs - 1].i - nb->off;
			nb->gdir[o] += c->sum;
			ph = nb->mark[o] != PH_NONE ? nb->mark[o] :
			    bwd ? PH_BWD : nm[v[o].name].cls == C_OP ?
			    PH_FWD : PH_OTHER;
		} else
			ph = bwd ? PH_BWD : PH_OTHER;
		spill_add(&t->links, &(struct link){ c->corr, t->order++,
		    ph });
		a->ph_gpu[PH_COMM] += c->comm;
		a->ph_gpu[ph] += c->sum - c->comm;
		link_step(t, c);
	}
	while (nb->nseg > 0 && (*cur == NULL ||
	    (*cur)->ts > nb->seg[0].maxend))
		nest_finish(r, nb, bwd);
}

/* Adds the window's first tree to the trace and drops it from the window. */
static void
nest_finish(struct oprank *r, struct nest *nb, int bwd)
{
	struct agg *a = &r->t.a;
	const struct name *nm = r->names.v;
	const struct seg sg = nb->seg[0];
	struct cev *v = nb->v;
	size_t i, w, n;
	int64_t self, s, d;
	int ph;

	for (i = sg.hi; i-- > sg.lo;) {
		w = i - nb->off;
		if (nb->del[w])
			continue;
		nb->gsub[w] += nb->gdir[w];
		if (nb->parent[w] >= 0)
			nb->gsub[nb->parent[w] - (int64_t)nb->off] += nb->gsub[w];
	}
	for (i = sg.lo; i < sg.hi; i++) {
		w = i - nb->off;
		if (nb->del[w])
			continue;
		s = us_start(&v[w]);
		d = us_end(&v[w]) - s;
		nb->count++;
		self = d - nb->childsum[w];
		stat_add(&a->st[v[w].name], d, self);
		a->st[v[w].name].gpu_self += nb->gdir[w];
		a->st[v[w].name].gpu_total += nb->gsub[w];
		ph = nb->mark[w] != PH_NONE ? nb->mark[w] : bwd ? PH_BWD :
		    nm[v[w].name].cls == C_OP ? PH_FWD : PH_OTHER;
		a->ph_self[ph] += self;
		if (ph == r->phase) {
			struct stat *ps = &a->pst[v[w].name];

			stat_add(ps, d, self);
			ps->gpu_self += nb->gdir[w];
			ps->gpu_total += nb->gsub[w];
		}
		if (nb->open && s <= nb->be) {
			if (s + d > nb->be)
				nb->be = s + d;
		} else {
			if (nb->open)
				nb->busy += nb->be - nb->bs;
			nb->bs = s;
			nb->be = s + d;
			nb->open = 1;
		}
	}
	n = sg.hi - nb->off;
	nb->n -= n;
	memmove(nb->v, nb->v + n, nb->n * sizeof(*nb->v));
	memmove(nb->parent, nb->parent + n, nb->n * sizeof(*nb->parent));
	memmove(nb->nchild, nb->nchild + n, nb->n * sizeof(*nb->nchild));
	memmove(nb->del, nb->del + n, nb->n * sizeof(*nb->del));
	memmove(nb->mark, nb->mark + n, nb->n * sizeof(*nb->mark));
	memmove(nb->childsum, nb->childsum + n, nb->n *
	    sizeof(*nb->childsum));
	memmove(nb->gdir, nb->gdir + n, nb->n * sizeof(*nb->gdir));
	memmove(nb->gsub, nb->gsub + n, nb->n * sizeof(*nb->gsub));
	nb->off = sg.hi;
	memmove(nb->seg, nb->seg + 1, --nb->nseg * sizeof(*nb->seg));
}

/*
 * A thread's operators: trees built as they stream in, runtime calls
 * linked, then self time and GPU time by name, phase and thread.
 */
static void
nest_cpu(struct oprank *r, struct nest *nb, struct thr *th)
{
	struct spillcur oc, rc;
	const struct cev *e, *top;
	const struct rev *cur;
	struct thsum *ts;
	size_t lo = 0;
	int64_t s, en;
	int bwd;

	bwd = th->name != NULL && strstr(th->name, "autograd") != NULL;
	nb->off = nb->n = nb->sp = nb->nrs = nb->nseg = nb->next = 0;
	nb->bs = nb->be = nb->busy = nb->count = 0;
	nb->open = 0;
	spill_open(&oc, &th->ops);
	spill_open(&rc, &th->rt);
	cur = spill_next(&rc);
	while ((e = spill_next(&oc)) != NULL) {
		s = us_start(e);
		en = us_end(e);
		while (nb->sp > 0) {
			top = &nb->v[nb->stack[nb->sp - 1] - nb->off];
			if (s < us_end(top) && en <= us_end(top))
				break;
			nb->sp--;
		}
		/* A root: the tree before it is whole. */
		if (nb->sp == 0 && nb->off + nb->n > lo) {
			nest_built(r, nb, lo);
			nest_runtime(r, nb, bwd, &rc, &cur, e->ts, 0);
			lo = nb->off + nb->n;
		}
		nest_add(nb, e);
	}
	if (nb->off + nb->n > lo)
		nest_built(r, nb, lo);
	nest_runtime(r, nb, bwd, &rc, &cur, 0, 1);
	spillcur_free(&oc);
	spillcur_free(&rc);
	if (nb->open)
		nb->busy += nb->be - nb->bs;
	if (nb->count == 0)
		return;
	ts = thsum_get(&r->t.a, &th->pid, &th->tid, th->name);
	ts->count += nb->count;
	ts->busy += nb->busy;
}

/*
 * Python frames nest among themselves, with no duplicates to remove: a
 * frame's self time is known when it closes, so only open ones are kept.
 */
static void
nest_py(struct oprank *r, struct nest *nb, struct thr *th)
{
	struct agg *a = &r->t.a;
	struct spillcur pc;
	const struct cev *e;
	struct pyopen *f;
	int64_t s, en;

	nb->nps = 0;
	spill_open(&pc, &th->py);
	for (;;) {
		e = spill_next(&pc);
		s = e != NULL ? us_start(e) : 0;
		en = e != NULL ? us_end(e) : 0;
		while (nb->nps > 0 && (e == NULL ||
		    s >= nb->ps[nb->nps - 1].end ||
		    en > nb->ps[nb->nps - 1].end)) {
			f = &nb->ps[--nb->nps];
			stat_add(&a->st[f->name], f->d, f->d - f->childsum);
		}
		if (e == NULL)
			break;
		if (nb->nps > 0)
			nb->ps[nb->nps - 1].childsum += en - s;
		nb->ps = grow(nb->ps, &nb->capps, nb->nps, sizeof(*nb->ps));
		nb->ps[nb->nps++] = (struct pyopen){ en, en - s, 0, e->name };
	}
	spillcur_free(&pc);
}

/* A step ends at the last GPU work that runtime calls in it launched. */
static void
link_step(struct trace *t, const struct rev *c)
{
	struct agg *a = &t->a;
	size_t lo, hi, mid;

	if (a->nsteps == 0)
		return;
	for (lo = 0, hi = a->nsteps; lo < hi;) {
		mid = lo + (hi - lo) / 2;
		if (a->steps[mid].ts <= c->ts)
			lo = mid + 1;
		else
			hi = mid;
	}
	if (lo == 0 || c->ts >= a->steps[lo - 1].cpu_end)
		return;
	if (c->end > a->steps[lo - 1].end)
		a->steps[lo - 1].end = c->end;
}

static void
timeline(struct trace *t, struct dev *dev)
{
	struct devsum *ds;
	struct ivsweep sw;
	struct spillcur ec;
	const struct gedge *e;

	ival_init(&sw, NGCLS);
	spill_open(&ec, &dev->edges);
	while ((e = spill_next(&ec)) != NULL)
		ival_edge(&sw, e->t, e->cls, e->delta);
	spillcur_free(&ec);
	ds = devsum_get(&t->a, &dev->dev);
	ds->events += dev->n;
	ds->window += dev->hi - dev->lo;
	ds->busy += sw.sum;
	ds->comp += sw.out[G_COMP];
	ds->xcomm += sw.out[G_COMM];
	ds->xmemcpy += sw.out[G_MEMCPY];
	ds->comm += sw.cover[G_COMM];
	ds->memcpy += sw.cover[G_MEMCPY];
}

/*
 * Gives each runtime call the sum, communication share and end of the GPU
 * work with its correlation id, and files it under its thread.
 */
static void
gpu_join(struct trace *t)
{
	struct spillcur gc, cc;
	const struct gev *g;
	const struct rcall *c;
	struct rev k;
	int have = 0;

	spill_open(&gc, &t->gk);
	spill_open(&cc, &t->rc);
	g = spill_next(&gc);
	while ((c = spill_next(&cc)) != NULL) {
		if (!have || k.corr != c->corr) {
			have = 0;
			while (g != NULL && g->corr < c->corr)
				g = spill_next(&gc);
			if (g == NULL || g->corr != c->corr)
				continue;
			k = (struct rev){ 0, c->corr, 0, 0, INT64_MIN, 0 };
			for (; g != NULL && g->corr == k.corr;
			    g = spill_next(&gc)) {
				k.sum += g->dur;
				if (g->comm)
					k.comm += g->dur;
				if (g->end > k.end)
					k.end = g->end;
			}
			have = 1;
		}
		k.ts = c->ts;
		k.seq = c->seq;
		spill_add(&c->th->rt, &k);
	}
	spillcur_free(&gc);
	spillcur_free(&cc);
}

/*
 * GPU work goes to the phase that the last runtime call to launch it gave
 * it; what none launched is communication or "other".  For -p, each
 * kernel's time in that phase, as phase_total counts it.
 */
static void
gpu_phases(struct oprank *r)
{
	struct trace *t = &r->t;
	struct spillcur gc, lc;
	const struct gev *g;
	const struct link *l;
	int64_t corr, sum, comm;
	int linked, ph, gph;

	spill_open(&gc, &t->gk);
	spill_open(&lc, &t->links);
	g = spill_next(&gc);
	l = spill_next(&lc);
	while (g != NULL) {
		corr = g->corr;
		while (l != NULL && l->corr < corr)
			l = spill_next(&lc);
		linked = 0;
		ph = PH_OTHER;
		for (; l != NULL && l->corr == corr; l = spill_next(&lc)) {
			linked = 1;
			ph = l->phase;
		}
		sum = comm = 0;
		for (; g != NULL && g->corr == corr; g = spill_next(&gc)) {
			sum += g->dur;
			if (g->comm)
				comm += g->dur;
			gph = r->names.v[g->name].gcls == G_COMM ? PH_COMM : ph;
			if (gph == r->phase)
				stat_add(&t->a.pst[g->name], g->dur, g->dur);
		}
		if (!linked) {
			t->a.ph_gpu[PH_COMM] += comm;
			t->a.ph_gpu[PH_OTHER] += sum - comm;
		}
	}
	spillcur_free(&gc);
	spillcur_free(&lc);
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

/* Adds busy time of thread t, which all holds, to rank a's own. */
static void
rankthr_add(struct agg *a, const struct thsum *t, int64_t busy)
{
	size_t i;

	for (i = 0; i < a->nrthr && a->rthr[i].t != t; i++)
		;
	if (i == a->nrthr) {
		if (a->nrthr == a->caprthr) {
			a->caprthr = a->caprthr ? 2 * a->caprthr : 2;
			a->rthr = xreallocarray(a->rthr, a->caprthr,
			    sizeof(*a->rthr));
		}
		a->rthr[a->nrthr++] = (struct rankthr){ t, 0 };
	}
	a->rthr[i].busy += busy;
}

/* The busy time of the rank's busiest thread, or -1 without threads. */
static int64_t
rank_busy(const struct agg *a)
{
	struct strent **ent = strmap_sorted(&a->threads);
	int64_t busy = -1;
	size_t i;

	for (i = 0; i < a->threads.count; i++)
		if (((struct thsum *)ent[i]->val)->busy > busy)
			busy = ((struct thsum *)ent[i]->val)->busy;
	free(ent);
	for (i = 0; i < a->nrthr; i++)
		if (a->rthr[i].busy > busy)
			busy = a->rthr[i].busy;
	return busy;
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
	free(a->rthr);
	free(a->kv32);
	free(a->kv64);
}

static void
thr_free(void *p)
{
	struct thr *t = p;

	jid_free(&t->pid);
	jid_free(&t->tid);
	free(t->name);
	spill_free(&t->ops);
	spill_free(&t->py);
	spill_free(&t->rt);
	free(t);
}

static void
dev_free(void *p)
{
	struct dev *d = p;

	jid_free(&d->dev);
	spill_free(&d->edges);
	free(d);
}

static void
trace_init(struct trace *t, struct spool *pool)
{
	memset(t, 0, sizeof(*t));
	spill_init(&t->gk, pool, sizeof(struct gev), cmpgev);
	spill_init(&t->rc, pool, sizeof(struct rcall), cmprcall);
	spill_init(&t->links, pool, sizeof(struct link), cmplink);
}

static void
trace_free(struct trace *t)
{
	strmap_free(&t->threads, thr_free);
	strmap_free(&t->devs, dev_free);
	spill_free(&t->gk);
	spill_free(&t->rc);
	spill_free(&t->links);
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
self_total(const struct oprank *r, const struct agg *a)
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
family_name(const struct oprank *r, int f)
{
	return (size_t)f < r->tab.nfam ? r->tab.fam[f] : "other";
}

/*
 * The names of class cls in a, ranked by the key on their stats st (a->st,
 * or a->pst for the -p phase); returns how many.
 */
static size_t
ranked(const struct oprank *r, const struct agg *a, const struct stat *st,
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
put_ops(struct oprank *r, struct jw *w, const struct agg *a, int cls)
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
put_threads(struct oprank *r, struct jw *w, const struct agg *a)
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
families(const struct oprank *r, const struct agg *a, int64_t *self,
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
put_families(struct oprank *r, struct jw *w, const struct agg *a)
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

/* Statistics of n step times, in the order the steps ran. */
struct sstat {
	size_t	n, slow;
	int64_t	total, min, max, med2, above;
	double	mean, std;
};

static void
step_stats(const int64_t *dur, size_t n, struct sstat *s)
{
	double var = 0, dd;
	int64_t *durs;
	size_t i;

	memset(s, 0, sizeof(*s));
	s->n = n;
	for (i = 0; i < n; i++) {
		if (i == 0 || dur[i] < s->min)
			s->min = dur[i];
		if (i == 0 || dur[i] > s->max) {
			s->max = dur[i];
			s->slow = i;
		}
		s->total += dur[i];
	}
	s->mean = (double)s->total / (double)n;
	for (i = 0; i < n; i++) {
		dd = (double)dur[i] - s->mean;
		var += dd * dd;
	}
	s->std = sqrt(var / (double)n);
	/*
	 * The time above the median step is what steadier steps could give
	 * back at most; the standard deviation says nothing of that.
	 */
	durs = xreallocarray(NULL, n, sizeof(*durs));
	memcpy(durs, dur, n * sizeof(*durs));
	qsort(durs, n, sizeof(*durs), int64_cmp);
	s->med2 = durs[(n - 1) / 2] + durs[n / 2];
	for (i = 0; i < n; i++)
		if (2 * durs[i] > s->med2)
			s->above += 2 * durs[i] - s->med2;
	free(durs);
}

/* A step_stats record's members after its kind and rank. */
static void
put_sstat(struct jw *w, const struct sstat *s, int64_t slowest)
{
	jw_key(w, "steps");
	jw_uint(w, s->n);
	jw_key(w, "total");
	jw_us(w, s->total);
	jw_key(w, "mean");
	jw_double(w, round3(s->mean / 1000));
	jw_key(w, "min");
	jw_us(w, s->min);
	jw_key(w, "max");
	jw_us(w, s->max);
	jw_key(w, "std");
	jw_double(w, round3(s->std / 1000));
	jw_key(w, "median");
	jw_double(w, round3((double)s->med2 / 2000));
	jw_key(w, "above_median");
	jw_double(w, round3((double)s->above / 2000));
	jw_key(w, "slowest_step");
	jw_int(w, slowest);
}

static int64_t *
step_durs(const struct agg *a)
{
	int64_t *d = xreallocarray(NULL, a->nsteps + 1, sizeof(*d));
	size_t i;

	for (i = 0; i < a->nsteps; i++)
		d[i] = a->steps[i].end - a->steps[i].ts;
	return d;
}

/* The step records, and with stats set the step_stats record. */
static void
put_steps(struct jw *w, const struct agg *a, int stats)
{
	struct sstat ss;
	int64_t *durs;
	size_t i;
	char name[48];

	if (a->nsteps == 0)
		return;
	for (i = 0; i < a->nsteps; i++) {
		const struct step *s = &a->steps[i];

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
		jw_us(w, s->end - s->ts);
		jw_end(w);
	}
	if (!stats)
		return;
	durs = step_durs(a);
	step_stats(durs, a->nsteps, &ss);
	free(durs);
	jw_record(w, "step_stats");
	put_rank(w, a->rank);
	put_sstat(w, &ss, a->steps[ss.slow].num);
	jw_end(w);
}

static void
put_kernels(struct oprank *r, struct jw *w, const struct agg *a)
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
put_precision(struct oprank *r, struct jw *w, const struct agg *a)
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
put_summary(struct oprank *r, struct jw *w, const struct agg *a, size_t nranks)
{
	size_t nf = r->tab.nfam + 1, n, i, m;
	int64_t *self = xreallocarray(NULL, 3 * nf, sizeof(*self));
	int64_t *count = self + nf, *gpu = self + 2 * nf, kt = 0;
	struct item *it = xreallocarray(NULL, (a->nst > nf ? a->nst : nf) +
	    a->threads.count + 1, sizeof(*it));

	jw_record(w, "cpu_summary");
	if (nranks > 1) {
		jw_key(w, "ranks");
		jw_uint(w, nranks);
		if (r->ranks[primary(r)]->rank >= 0) {
			jw_key(w, "slowest_rank");
			jw_int(w, r->ranks[primary(r)]->rank);
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

/* The median of m > 0 sorted values: halfway between two when m is even. */
static double
median(const int64_t *v, size_t m)
{
	return m % 2 ? (double)v[m / 2] :
	    ((double)v[m / 2 - 1] + (double)v[m / 2]) / 2;
}

/* Per op across ranks: the spread of the key and the slowest rank. */
static void
put_op_ranks(struct oprank *r, struct jw *w)
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
			if (rank_key(r, r->ranks[j], i) != ABSENT) {
				double x = (double)rank_key(r, r->ranks[j], i);

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

			if ((x = rank_key(r, a, it[i].i)) == ABSENT)
				continue;
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
			jw_double(w, median(v, m));
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

/*
 * The index of name id among the operators and annotations, which is
 * what a rank keeps of each across ranks; SIZE_MAX for other names.
 */
static size_t
xindex(struct oprank *r, size_t id)
{
	int cls;

	for (; r->nxof < r->names.n; r->nxof++) {
		r->xof = grow(r->xof, &r->capxof, r->nxof, sizeof(*r->xof));
		cls = r->names.v[r->nxof].cls;
		r->xof[r->nxof] = cls == C_OP || cls == C_ANN ?
		    (uint32_t)r->nx++ : UINT32_MAX;
	}
	return r->xof[id] == UINT32_MAX ? SIZE_MAX : r->xof[id];
}

#define KV_NONE	INT32_MIN	/* ABSENT in kv32 */

/* A rank's value t (0: the key, 1: the total) of xindex x, or ABSENT. */
static int64_t
kv_get(const struct oprank *r, const struct agg *a, size_t x, size_t t)
{
	size_t i = x * r->kvw + t;

	if (x >= a->nkv)
		return ABSENT;
	if (a->kv64 != NULL)
		return a->kv64[i];
	return a->kv32[i] == KV_NONE ? ABSENT : a->kv32[i];
}

/*
 * Stores a value of a name the rank has room for.  Values take 32 bits
 * while they fit, as most do (CPU totals to 35 minutes): a merge keeps
 * them of every rank; the first that does not widens the rank's all.
 */
static void
kv_put(const struct oprank *r, struct agg *a, size_t x, size_t t, int64_t v)
{
	size_t i, n;

	if (a->kv64 == NULL && (v <= KV_NONE || v > INT32_MAX)) {
		n = a->nkv * r->kvw;
		a->kv64 = xreallocarray(NULL, n, sizeof(*a->kv64));
		for (i = 0; i < n; i++)
			a->kv64[i] = a->kv32[i] == KV_NONE ? ABSENT :
			    a->kv32[i];
		free(a->kv32);
		a->kv32 = NULL;
	}
	i = x * r->kvw + t;
	if (a->kv64 != NULL)
		a->kv64[i] = v;
	else
		a->kv32[i] = (int32_t)v;
}

/*
 * Adds a stat of name id to the rank's op_ranks key and total: windows of
 * one rank add up, but for the key max.
 */
static void
kv_add(struct oprank *r, struct agg *a, size_t id, const struct stat *s)
{
	enum key key = r->key == K_MEAN ? K_TOTAL : r->key;
	size_t cap, i, x;
	int64_t v, cur;

	if (s->count == 0 || (x = xindex(r, id)) == SIZE_MAX)
		return;
	if (x >= a->nkv) {
		/*
		 * Those known so far, in steps of 16: a merge keeps this of
		 * every rank, and meets its names one by one.
		 */
		cap = (x >= r->nx ? x + 1 : r->nx) + 15;
		cap -= cap % 16;
		if (a->kv64 != NULL) {
			a->kv64 = xreallocarray(a->kv64, cap * r->kvw,
			    sizeof(*a->kv64));
			for (i = a->nkv * r->kvw; i < cap * r->kvw; i++)
				a->kv64[i] = ABSENT;
		} else {
			a->kv32 = xreallocarray(a->kv32, cap * r->kvw,
			    sizeof(*a->kv32));
			for (i = a->nkv * r->kvw; i < cap * r->kvw; i++)
				a->kv32[i] = KV_NONE;
		}
		a->nkv = cap;
	}
	v = (int64_t)keyval(s, key);
	if ((cur = kv_get(r, a, x, 0)) != ABSENT)
		v = key == K_MAX ? (v > cur ? v : cur) : cur + v;
	kv_put(r, a, x, 0, v);
	if (r->kvw == 2) {
		cur = kv_get(r, a, x, 1);
		kv_put(r, a, x, 1, cur == ABSENT ? s->total : cur + s->total);
	}
}

/* The rank's op_ranks key of name id, or ABSENT. */
static int64_t
rank_key(struct oprank *r, const struct agg *a, size_t id)
{
	size_t x = xindex(r, id);

	return x == SIZE_MAX ? ABSENT : kv_get(r, a, x, 0);
}

/* The rank's total of name id, or ABSENT. */
static int64_t
rank_total(struct oprank *r, const struct agg *a, size_t id)
{
	size_t x = xindex(r, id);

	return x == SIZE_MAX ? ABSENT : kv_get(r, a, x, r->kvw - 1);
}

/*
 * The primary rank, whose detail the output holds: the one with the most
 * CPU self time, the first of those in rank order.
 */
static size_t
primary(const struct oprank *r)
{
	size_t i, best = 0;

	for (i = 1; i < r->nranks; i++)
		if (r->ranks[i]->self > r->ranks[best]->self)
			best = i;
	return best;
}

/* A rank's detail: what one rank's output holds. */
static void
put_detail(struct oprank *r, struct jw *w, struct agg *a)
{
	int c;

	agg_fit(a, r->names.n);
	for (c = C_OP; c <= C_PY; c++)
		put_ops(r, w, a, c);
	put_threads(r, w, a);
	put_families(r, w, a);
	put_phases(w, a);
	put_steps(w, a, 1);
	put_kernels(r, w, a);
	put_precision(r, w, a);
	put_devs(w, a);
	put_runtime(w, a);
	put_summary(r, w, a, 1);
}

struct offmed {
	size_t	id;
	double	diff;
};

/* One of a rank_summary's operators: its total against the median's. */
static void
put_offmed(struct oprank *r, struct jw *w, struct jwkey key,
    const struct agg *a, const struct offmed *o, const double *med)
{
	jw_put_key(w, key);
	if (o->id == SIZE_MAX) {
		jw_null(w);
		return;
	}
	jw_begin_object(w);
	jw_key(w, "name");
	jw_cstring(w, r->names.v[o->id].s);
	jw_key(w, "total");
	jw_int(w, rank_total(r, a, o->id));
	jw_key(w, "median");
	jw_double(w, med[o->id]);
	jw_key(w, "diff");
	jw_double(w, o->diff);
	jw_end_object(w);
}

/* Whether x, off the median by d, goes before the best so far. */
static int
offmed_better(const struct oprank *r, const struct offmed *best, size_t id,
    double d, double bd)
{
	if (best->id == SIZE_MAX || d > bd)
		return 1;
	return d == bd && strcmp(r->names.v[id].s,
	    r->names.v[best->id].s) < 0;
}

/*
 * Per rank: its steps, CPU and GPU busy times, and the operator whose
 * total differs most from the median of the ranks that ran it, over all
 * of the rank's operators (ties: the first name).
 */
static void
put_rank_summaries(struct oprank *r, struct jw *w)
{
	size_t nn = r->names.n, i, j, m;
	double *med = xreallocarray(NULL, nn + 1, sizeof(*med));
	int64_t *v = xreallocarray(NULL, r->nranks + 1, sizeof(*v)), *durs;
	struct strent **ent;
	struct offmed off, slower;
	struct sstat ss;

	for (i = 0; i < nn; i++) {
		if (r->names.v[i].cls != C_OP)
			continue;
		for (j = m = 0; j < r->nranks; j++)
			if ((v[m] = rank_total(r, r->ranks[j], i)) != ABSENT)
				m++;
		sortv(v, m, sizeof(*v), cmpi64);
		med[i] = m == 0 ? 0 : median(v, m);
	}
	for (j = 0; j < r->nranks; j++) {
		const struct agg *a = r->ranks[j];
		struct devsum g;
		int64_t busy;

		if (a->rank < 0)
			continue;
		jw_record(w, "rank_summary");
		put_rank(w, a->rank);
		jw_key(w, "steps");
		jw_uint(w, a->nsteps);
		if (a->nsteps > 0) {
			durs = step_durs(a);
			step_stats(durs, a->nsteps, &ss);
			free(durs);
			jw_key(w, "mean_step");
			jw_double(w, round3(ss.mean / 1000));
			jw_key(w, "max_step");
			jw_us(w, ss.max);
		}
		if ((busy = rank_busy(a)) >= 0) {
			jw_key(w, "cpu_busy");
			jw_int(w, busy);
		}
		memset(&g, 0, sizeof(g));
		ent = strmap_sorted(&a->devs);
		for (i = 0; i < a->devs.count; i++)
			devsum_add(&g, ent[i]->val);
		free(ent);
		if (a->devs.count > 0) {
			jw_key(w, "gpu_busy");
			jw_us(w, g.busy);
			jw_key(w, "computation");
			jw_us(w, g.comp);
			jw_key(w, "exposed_comm");
			jw_us(w, g.xcomm);
			jw_key(w, "exposed_memcpy");
			jw_us(w, g.xmemcpy);
			jw_key(w, "idle");
			jw_us(w, g.window - g.busy);
		}
		off.id = slower.id = SIZE_MAX;
		off.diff = slower.diff = 0;
		for (i = 0; i < nn; i++) {
			int64_t t;
			double d;

			if (r->names.v[i].cls != C_OP ||
			    (t = rank_total(r, a, i)) == ABSENT)
				continue;
			d = (double)t - med[i];
			if (offmed_better(r, &off, i, fabs(d), fabs(off.diff))) {
				off.id = i;
				off.diff = d;
			}
			if (d > 0 && offmed_better(r, &slower, i, d,
			    slower.diff)) {
				slower.id = i;
				slower.diff = d;
			}
		}
		put_offmed(r, w, JW_KEY("operator"), a, &off, med);
		put_offmed(r, w, JW_KEY("slower_operator"), a, &slower, med);
		jw_end(w);
	}
	free(med);
	free(v);
}

struct wstep {
	int64_t	num, dur;
};

static int
cmpwstep(const void *a, const void *b)
{
	const struct wstep *x = a, *y = b;

	if (x->num != y->num)
		return (x->num > y->num) - (x->num < y->num);
	return (x->dur < y->dur) - (x->dur > y->dur);
}

/*
 * Step statistics across ranks: each step (by number) at its slowest
 * rank, the step's wall time.
 */
static void
put_wall_steps(struct oprank *r, struct jw *w)
{
	struct wstep *v = NULL;
	struct sstat ss;
	int64_t *durs;
	size_t i, j, n = 0, cap = 0, m;

	for (i = 0; i < r->nranks; i++) {
		const struct agg *a = r->ranks[i];

		for (j = 0; a->rank >= 0 && j < a->nsteps; j++) {
			v = grow(v, &cap, n, sizeof(*v));
			v[n].num = a->steps[j].num;
			v[n++].dur = a->steps[j].end - a->steps[j].ts;
		}
	}
	if (n == 0)
		return;
	sortv(v, n, sizeof(*v), cmpwstep);
	for (i = m = 0; i < n; i++)
		if (i == 0 || v[i].num != v[m - 1].num)
			v[m++] = v[i];
	durs = xreallocarray(NULL, m, sizeof(*durs));
	for (i = 0; i < m; i++)
		durs[i] = v[i].dur;
	step_stats(durs, m, &ss);
	jw_record(w, "step_stats");
	jw_key(w, "wall");
	jw_bool(w, 1);
	put_sstat(w, &ss, v[ss.slow].num);
	jw_end(w);
	free(durs);
	free(v);
}

/*
 * One rank: its detail.  Several: the primary rank's detail (every
 * rank's with -a), and of the others their steps and GPU timelines, which
 * the charts draw per rank; then the rows of every rank, the steps across
 * ranks, the operators across ranks and the summary of all.
 */
static void
output(struct oprank *r, struct jw *w)
{
	size_t i, j, p;

	sortv(r->ranks, r->nranks, sizeof(*r->ranks), cmprank);
	for (i = 0; i < r->nranks; i++) {
		struct agg *a = r->ranks[i];

		sortv(a->steps, a->nsteps, sizeof(*a->steps), cmpstep);
		if (r->light)
			continue;
		agg_fit(a, r->names.n);
		a->self = self_total(r, a);
		for (j = 0; j < a->nst; j++)
			kv_add(r, a, j, &a->st[j]);
		agg_merge(&r->all, a);
	}
	if (r->nranks < 2) {
		for (i = 0; i < r->nranks; i++)
			put_detail(r, w, r->ranks[i]);
		return;
	}
	p = primary(r);
	for (i = 0; i < r->nranks; i++)
		if (r->every || i == p)
			put_detail(r, w, r->ranks[i]);
		else {
			put_steps(w, r->ranks[i], 0);
			put_devs(w, r->ranks[i]);
		}
	put_rank_summaries(r, w);
	put_wall_steps(r, w);
	put_op_ranks(r, w);
	r->all.rank = -1;
	agg_fit(&r->all, r->names.n);
	put_summary(r, w, &r->all, r->nranks);
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
put_rank_partial(struct oprank *r, struct jw *w, const struct agg *a)
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
put_partial_head(struct oprank *r, struct jw *w)
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
output_partial(struct oprank *r, struct jw *w)
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
get_num(struct oprank *r, uint32_t obj, const char *key, int64_t *v)
{
	const struct jdoc *d = r->doc;
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
get_nums(struct oprank *r, const char *key, int64_t *v, size_t n)
{
	const struct jdoc *d = r->doc;
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
get_stat(struct oprank *r, uint32_t obj, struct stat *s)
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
		return jdoc_error(r->file, r->doc, obj, "negative \"count\"");
	return 0;
}

/*
 * The header must match this run: the same format, the same options (so
 * that every partial of a merge was made alike) and the same tables.
 */
static int
partial_head(struct oprank *r)
{
	const struct jdoc *d = r->doc;
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
partial_name(struct oprank *r, struct agg *a)
{
	const struct jdoc *d = r->doc;
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
	if (r->light && !r->pass2) {
		/* Of a rank, what crosses ranks; the stats go to all. */
		if (c == C_OP || c == C_ANN)
			a->self += st.self;
		kv_add(r, a, id, &st);
		a = &r->all;
	}
	agg_fit(a, r->names.n);
	stat_merge(&a->st[id], &st);
	stat_merge(&a->pst[id], &ps);
	return 0;
}

static int
partial_record(struct oprank *r, const char *kind)
{
	const struct jdoc *d = r->doc;
	struct agg *a, one;
	struct thsum *ts;
	struct jid pid, tid;
	struct devsum ds;
	struct step st;
	const char *s;
	int64_t rank, v[6];

	if (get_rank(r, &rank) < 0)
		return -1;
	/* Pass 2 reads the primary rank, whose windows pass 1 checked. */
	if (r->pass2 && (rank != r->primary ||
	    strcmp(kind, "op_partial_window") == 0))
		return 0;
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
		if (r->light && !r->pass2) {
			ts = thsum_get(&r->all, &pid, &tid, s);
			rankthr_add(a, ts, v[1]);
		} else
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
		/* From one: a merge keeps the steps of every rank. */
		if (a->nsteps == a->capsteps) {
			a->capsteps = a->capsteps ? a->capsteps * 2 : 1;
			a->steps = xreallocarray(a->steps, a->capsteps,
			    sizeof(*a->steps));
		}
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
 * shows it whole.  Returns as oprank_file() does.
 */
static int
merge_file(struct oprank *r, const char *path)
{
	struct ndin *in;
	const char *kind;
	uint64_t n = 0;
	int64_t want;
	int rc, state = 0;	/* 0: before the header, 1: in, 2: ended */

	if ((in = ndin_open(path)) == NULL) {
		/* Pass 1 has said so. */
		if (!r->pass2)
			warnmsg("%s:", path);
		return 1;
	}
	r->file = ndin_name(in);
	r->doc = &r->in;
	while ((rc = ndin_next(in, &r->in)) == 1) {
		kind = ndin_kind(r->doc);
		if (state == 0) {
			rc = partial_head(r);
			state = 1;
		} else if (state == 2)
			rc = jdoc_error(r->file, r->doc, 0, "\"%s\" record"
			    " after \"op_partial_end\"", kind);
		else if (strcmp(kind, "op_partial_end") == 0) {
			if ((rc = get_num(r, 0, "records", &want)) == 0 &&
			    (uint64_t)want != n)
				rc = jdoc_error(r->file, r->doc, 0, "partial"
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

/* Whether a merge may read its operands twice: files, not stdin or pipes. */
static int
reread(int argc, char *argv[])
{
	int i;

	for (i = 0; i < argc; i++)
		if (!gzin_rereadable(argv[i]))
			return 0;
	return argc > 0;
}

/*
 * Pass 2 of a merge: pass 1 kept of each rank what crosses ranks and
 * summed the stats of all; this pass reads the primary rank's records
 * again, so that memory does not grow with the number of ranks.
 */
static int
merge_again(struct oprank *r, int argc, char *argv[])
{
	struct agg *a, keep;
	size_t i;
	int rc = 0;

	if (r->nranks == 0)
		return 0;
	sortv(r->ranks, r->nranks, sizeof(*r->ranks), cmprank);
	for (i = 0; i < r->nranks; i++)
		agg_merge(&r->all, r->ranks[i]);
	a = r->ranks[primary(r)];
	keep = *a;
	keep.st = keep.pst = NULL;
	keep.steps = NULL;
	keep.rthr = NULL;
	keep.nrthr = keep.caprthr = 0;
	memset(&keep.threads, 0, sizeof(keep.threads));
	memset(&keep.devs, 0, sizeof(keep.devs));
	keep.nst = keep.capst = keep.nsteps = keep.capsteps = 0;
	keep.rt_count = keep.rt_total = keep.launch_count = keep.launch = 0;
	keep.sync_count = keep.sync = 0;
	keep.traces = keep.cpu_events = keep.gpu_events = 0;
	keep.have_time = 0;
	keep.start = keep.end = keep.origin = 0;
	memset(keep.ph_self, 0, sizeof(keep.ph_self));
	memset(keep.ph_gpu, 0, sizeof(keep.ph_gpu));
	a->kv32 = NULL;
	a->kv64 = NULL;
	agg_free(a);
	*a = keep;
	r->pass2 = 1;
	r->primary = a->rank;
	r->cur = NULL;
	for (i = 0; i < (size_t)argc && rc >= 0; i++)
		rc = merge_file(r, argv[i]);
	return rc;
}
