/*
 * opfamily: the names an operator, annotation, Python frame or kernel can
 * have, and what each means.  Owns the class, phase and precision names;
 * reads the families table (rubric/op-families.tsv) and the precision
 * table (kernel-precision.tsv), found as the tools find the rubric, and
 * their digests; interns every name once, with its class, family, the
 * phase it marks and, for a kernel, its timeline class and precision.
 * Past the names' budget, a new name goes to its class's fold name.
 */
#include <ctype.h>
#include <limits.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "base/err.h"
#include "base/progdir.h"
#include "base/sha256.h"
#include "base/strbuf.h"
#include "base/xalloc.h"
#include "io/tsv.h"
#include "trace/opbase.h"
#include "trace/opcore.h"
#include "trace/opnames.h"
#include "trace/opsums.h"

static const char clschar[NCLASS] = { 'o', 'a', 'p', 'g', 'r' };

const char *const op_clsname[NCLASS] = {
	"op", "annotation", "python", "kernel", "runtime"
};

/*
 * The names that sum what did not fit the names' budget, by class.  A
 * kernel's timeline class, family and precision are read from its name,
 * so kernels fold by those: kernel_fold() names the sum.
 */
static const char *const foldname[NCLASS] = {
	"(other operators)", "(other annotations)", "(other Python frames)",
	"(other kernels)", RT_OTHER
};

const char *const op_phasename[NPHASE] = {
	"forward", "backward", "optimizer", "dataloader", "communication",
	"other"
};

const char *const op_precname[NPREC] = {
	"fp4", "fp8", "bf16", "fp16", "tf32", "fp32", "fp64", "int8"
};

const char *const op_keyname[NKEY] = {
	"total", "self", "count", "mean", "max", "gpu"
};

static int	scope_of(const char *);
static int	family_of(const struct table *, int, const char *);
static char	*lower(const char *);
static int	has_nccl(const char *);
static int	mark_of(const char *);
static int	fold(const struct names *, int, const char *, size_t);
static int	pyframe_kind(const struct names *, const char *);
static void	describe(const struct names *, struct name *);
static void	describe_fold(const struct names *, struct name *);
static uint32_t	add(struct names *, size_t, int);
static uint32_t	kernel_fold(struct names *, const char *);

/* A table of the rubric, where rubric_find() finds it. */
char *
op_find_table(const char *name)
{
	struct strbuf path = { 0 };
	char *dir;

	if ((dir = rubric_find(name)) == NULL)
		die_usage("cannot find %s in %s: name %s MRP_RUBRIC", name,
		    rubric_places(), strcmp(name, TABLE_NAME) == 0 ?
		    "it with -f or the directory in" : "the directory in");
	sb_printf(&path, "%s/%s", dir, name);
	free(dir);
	return path.s;
}

/* A rule's scope as family_of() takes it: 0 cpu, 1 gpu, 2 python; or -1. */
static int
scope_of(const char *s)
{
	if (strcmp(s, "cpu") == 0)
		return 0;
	if (strcmp(s, "gpu") == 0)
		return 1;
	return strcmp(s, "python") == 0 ? 2 : -1;
}

/* none is the family of what matches no rule, which no rule may name. */
void
op_load_table(struct table *t, const char *path, const char *none)
{
	struct tsv tab = { 0 };
	char *f[3], *scope, *fam, *pat;
	const char *p;
	size_t i, n;
	unsigned long lineno;

	if ((tab.fp = fopen(path, "r")) == NULL)
		die_usage("%s:", path);
	while ((n = tsv_next(&tab, f, 3)) > 0) {
		lineno = tab.lineno;
		if (n < 3)
			die_usage("%s:%lu: expected scope, family and pattern"
			    " separated by tabs", path, lineno);
		scope = f[0];
		fam = f[1];
		pat = f[2];
		if (scope_of(scope) < 0 ||
		    *fam == '\0' || *pat == '\0' || n > 3 ||
		    strcmp(fam, none) == 0) {
			p = scope_of(scope) < 0 ?
			    "scope is not cpu, gpu or python" :
			    strcmp(fam, none) == 0 ?
			    "is what matches no rule" :
			    "empty family or pattern, or a fourth column";
			if (strcmp(fam, none) == 0)
				die_usage("%s:%lu: \"%s\" %s", path, lineno,
				    none, p);
			die_usage("%s:%lu: %s", path, lineno, p);
		}
		for (i = 0; i < t->nfam; i++)
			if (strcmp(t->fam[i], fam) == 0)
				break;
		if (i == t->nfam) {
			t->fam = op_grow(t->fam, &t->capfam, t->nfam,
			    sizeof(*t->fam));
			t->fam[t->nfam++] = xstrdup(fam);
		}
		t->r = op_grow(t->r, &t->cap, t->n, sizeof(*t->r));
		t->r[t->n].gpu = scope_of(scope);
		t->r[t->n].family = (int)i;
		pat = lower(pat);
		pattern_init(&t->r[t->n].pattern, pat);
		free(pat);
		t->n++;
	}
	if (ferror(tab.fp))
		die_usage("%s:", path);
	tsv_free(&tab);
	fclose(tab.fp);
}

void
op_table_free(struct table *t)
{
	size_t i;

	for (i = 0; i < t->n; i++)
		pattern_free(&t->r[i].pattern);
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
	size_t i, len = strlen(s);
	int f = (int)t->nfam;

	for (i = 0; i < t->n; i++)
		if (t->r[i].gpu == gpu &&
		    pattern_match(&t->r[i].pattern, s, len))
		{
			f = t->r[i].family;
			break;
		}
	free(s);
	return f;
}

/* The index of the family named s, or -1 when the table has none. */
int
op_family_index(const struct table *t, const char *s)
{
	size_t i;

	for (i = 0; i < t->nfam; i++)
		if (strcmp(t->fam[i], s) == 0)
			return (int)i;
	return -1;
}

/* Every precision the table names is one of op_precname[]. */
void
op_check_prec(struct names *nm, const struct table *t, const char *path)
{
	size_t i, j;

	nm->precof = xreallocarray(NULL, t->nfam + 1, sizeof(*nm->precof));
	for (i = 0; i < t->nfam; i++) {
		for (j = 0; j < NPREC; j++)
			if (strcmp(t->fam[i], op_precname[j]) == 0)
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

/* The phase an operator or annotation marks for itself and what it calls. */
static int
mark_of(const char *s)
{
	if (op_prefix(s, "nccl:") || op_prefix(s, "gloo:") ||
	    op_prefix(s, "c10d::") || op_prefix(s, "record_param_comms"))
		return PH_COMM;
	if (op_prefix(s, "autograd::engine::evaluate_function") ||
	    op_prefix(s, "## backward ##") || strstr(s, "Backward") != NULL)
		return PH_BWD;
	if (op_prefix(s, "Optimizer.") || op_prefix(s, "## optimizer ##") ||
	    op_prefix(s, "## zero_grad ##"))
		return PH_OPT;
	if (op_prefix(s, "enumerate(DataLoader)") ||
	    op_prefix(s, "enumerate(DataPipe)") ||
	    op_prefix(s, "## load_batch ##"))
		return PH_DATA;
	if (op_prefix(s, "## forward ##") ||
	    op_prefix(s, "DistributedDataParallel.forward"))
		return PH_FWD;
	return PH_NONE;
}

uint32_t
op_intern(struct names *nm, int cls, const char *s, size_t len)
{
	struct strent *e;

	if (nm->bufcap < len + 2) {
		nm->bufcap = len + 64;
		nm->buf = xrealloc(nm->buf, nm->bufcap);
	}
	nm->buf[0] = clschar[cls];
	memcpy(nm->buf + 1, s, len);
	nm->buf[len + 1] = '\0';
	if ((e = strmap_get(&nm->map, nm->buf, len + 1)) != NULL)
		return (uint32_t)(uintptr_t)e->val - 1;
	if (fold(nm, cls, s, len))
		return cls == C_GPU ? kernel_fold(nm, nm->buf + 1) :
		    op_intern(nm, cls, foldname[cls], strlen(foldname[cls]));
	nm->used += NAME_COST + len;
	return add(nm, len, cls);
}

/*
 * A Python frame's kind: the user's, a library's, the profiler's, or a
 * module's call ("nn.Module: Linear_0", PyTorch's own name for it).
 */
static int
pyframe_kind(const struct names *nm, const char *s)
{
	return op_pyframe_kind(nm->frames, nm->famlib, nm->famprof, s);
}

int
op_pyframe_kind(const struct table *frames, int famlib, int famprof,
    const char *s)
{
	int f;

	if (op_prefix(s, "nn.Module: "))
		return PYK_MODULE;
	f = family_of(frames, 2, s);
	return f == famprof ? PYK_PROF : f == famlib ? PYK_LIB : PYK_USER;
}

/* What name n->s of class n->cls is: its family, phase mark and more. */
static void
describe(const struct names *nm, struct name *n)
{
	n->mark = n->cls == C_OP || n->cls == C_ANN ? mark_of(n->s) : PH_NONE;
	n->prec = (int)NPREC;
	n->mm = 0;
	n->pyk = n->cls != C_PY ? PYK_LIB : pyframe_kind(nm, n->s);
	if (n->cls == C_GPU && op_folded(n)) {
		describe_fold(nm, n);
		return;
	}
	n->family = n->cls == C_RT && nm->famrt >= 0 ? nm->famrt :
	    family_of(nm->tab, n->cls == C_GPU, n->s);
	/* The family says what the hardware does; "nccl" always counts. */
	n->gcls = G_COMP;
	if (n->cls == C_GPU) {
		if (has_nccl(n->s) || n->family == nm->famcomm)
			n->gcls = G_COMM;
		else if (n->family == nm->fammemcpy)
			n->gcls = G_MEMCPY;
		n->mm = n->family == nm->famgemm || n->family == nm->famconv;
		if (n->mm)
			n->prec = nm->precof[family_of(nm->prec, 1, n->s)];
	}
}

/*
 * A sum of kernels that did not fit is what its name says, so that a
 * merge of partials reads it back as it was: "(other kernels: FAMILY",
 * then the precision of a GEMM or convolution family, then
 * "communication" where NCCL named a kernel of another family, ")".
 */
static void
describe_fold(const struct names *nm, struct name *n)
{
	const char *p = n->s + strlen(foldname[C_GPU]) + 1;
	size_t len = strcspn(p, ",)"), i;

	n->family = (int)nm->tab->nfam;
	for (i = 0; i < nm->tab->nfam; i++)
		if (strlen(nm->tab->fam[i]) == len &&
		    memcmp(nm->tab->fam[i], p, len) == 0)
			n->family = (int)i;
	n->mm = n->family == nm->famgemm || n->family == nm->famconv;
	n->gcls = n->family == nm->famcomm ? G_COMM :
	    n->family == nm->fammemcpy ? G_MEMCPY : G_COMP;
	for (p += len; *p == ','; p += len) {
		p += strspn(p, ", ");
		len = strcspn(p, ",)");
		for (i = 0; i < NPREC; i++)
			if (n->mm && strlen(op_precname[i]) == len &&
			    memcmp(op_precname[i], p, len) == 0)
				n->prec = (int)i;
		if (len == 13 && memcmp(p, "communication", 13) == 0)
			n->gcls = G_COMM;
	}
}

/* Adds the name in nm->buf, len bytes past its class, and describes it. */
static uint32_t
add(struct names *nm, size_t len, int cls)
{
	struct strent *e;
	struct name *n;

	e = strmap_put(&nm->map, nm->buf, len + 1);
	nm->v = op_grow(nm->v, &nm->cap, nm->n, sizeof(*nm->v));
	n = &nm->v[nm->n];
	n->s = e->key + 1;
	n->cls = cls;
	describe(nm, n);
	e->val = (void *)(uintptr_t)(nm->n + 1);
	return (uint32_t)nm->n++;
}

/*
 * The sum of the kernels that did not fit whose family, timeline class
 * and precision are those of kernel s: "(other kernels: gemm, bf16)".
 * There are few such sums, and fold() lets them all in.
 */
static uint32_t
kernel_fold(struct names *nm, const char *s)
{
	struct name n;
	char text[256];
	int len;

	n.s = s;
	n.cls = C_GPU;
	describe(nm, &n);
	len = snprintf(text, sizeof(text), "%.*s: %s%s%s%s)",
	    (int)strlen(foldname[C_GPU]) - 1, foldname[C_GPU],
	    (size_t)n.family < nm->tab->nfam ? nm->tab->fam[n.family] :
	    "other", n.mm ? ", " : "", !n.mm ? "" : n.prec < (int)NPREC ?
	    op_precname[n.prec] : "unknown",
	    n.gcls == G_COMM && n.family != nm->famcomm ?
	    ", communication" : "");
	return op_intern(nm, C_GPU, text, (size_t)len);
}

/*
 * Whether a new name s of class cls goes to its class's fold name: when
 * the names would take more than their budget, but never a name that
 * marks a phase, so that the phases' sums stay whole.  Every name known
 * before keeps its own sums.
 */
static int
fold(const struct names *nm, int cls, const char *s, size_t len)
{
	if (nm->used + NAME_COST + len <= nm->budget)
		return 0;
	if (cls == C_GPU)
		return strncmp(s, foldname[C_GPU], strlen(foldname[C_GPU]) - 1)
		    != 0;
	if (len == strlen(foldname[cls]) && memcmp(s, foldname[cls], len) == 0)
		return 0;
	return mark_of(s) == PH_NONE;
}

/* Whether n is a fold name, which sums names that did not fit. */
int
op_folded(const struct name *n)
{
	size_t len = strlen(foldname[n->cls]);

	if (n->cls == C_GPU)
		return strncmp(n->s, foldname[C_GPU], len - 1) == 0 &&
		    strncmp(n->s + len - 1, ": ", 2) == 0;
	return strcmp(n->s, foldname[n->cls]) == 0;
}

const char *
op_family_name(const struct oprank *r, int f)
{
	return (size_t)f < r->tab.nfam ? r->tab.fam[f] : "other";
}

/* The digest of a table, which a partial's aggregates depend on. */
void
op_digest_file(const char *path, char hex[65])
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
