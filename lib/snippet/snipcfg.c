/*
 * snipcfg: a profiling snippet's config as the roboflow/inference runner
 * reads it, and what the runner makes of it (snipcfg.h).
 * One file: loading, validation, overrides, the run directory, the nsys
 * command and the manifest are one contract with the runner
 * (../shared/contracts), checked against it in one place.
 */
#include <dirent.h>
#include <errno.h>
#include <inttypes.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "base/err.h"
#include "base/xalloc.h"
#include "io/gzin.h"
#include "io/magic.h"
#include "io/pyyaml.h"
#include "snippet/pysrc.h"
#include "snippet/snipcfg.h"

#define DEFAULT_OUTPUT_DIR	"inference_profiling/snippets"
#define DEFAULT_CAPTURE_RANGE	"profile-target"
/* Python's str.strip() set, as far as ASCII goes. */
#define PY_SPACE		" \t\n\r\v\f\x1c\x1d\x1e\x1f"
/*
 * More records than this is not a profiling snippet; refuse to plan it.
 * The fuzz build lowers it, as it shrinks buffers: the refusal is then one
 * short input away, and no input spends seconds building a million ids.
 */
#ifndef SNIP_MAX_RECORDS
#define SNIP_MAX_RECORDS	1000000
#endif

const char *const snip_cuda_keys[SNIP_NCUDA + 1] = {
	"synchronize_before_warmup", "synchronize_after_warmup",
	"synchronize_before_capture", "synchronize_after_capture",
	"synchronize_each_iteration", NULL
};
const int snip_cuda_default[SNIP_NCUDA] = { 1, 1, 1, 1, 0 };

/* A diagnostic and its place in the list, for a stable qsort. */
struct sdiag_at {
	struct sdiag	 g;
	size_t		 i;
};

static const char *const image_suffixes[] = {
	".bmp", ".jpeg", ".jpg", ".png", ".tif", ".tiff", ".webp"
};

static const struct ynode *optional_map(const struct ynode *, const char *,
		    struct sdiags *);
static const struct ynode *coalesce(const struct snipcfg *, const char *);
static int	to_int(const struct ynode *, int64_t *, struct sdiags *);
static char	*strip(char *);
static int	validate(struct snipcfg *, struct sdiags *);
static void	set_str(char **, const char *);
static int	cmp_str(const void *, const void *);
static int	cmp_sdiag(const void *, const void *);
static int	image_paths(struct snipcfg *, char ***, size_t *,
		    struct sdiags *);
static const char *suffix_of(const char *, size_t *);
static void	path_error(const struct ynode *, struct sdiags *);

void
sdiag_add(struct sdiags *d, int sev, const struct ynode *at,
    const char *code, const char *fmt, ...)
{
	struct sdiag *g;
	va_list ap;
	int n;

	if (d->n == d->cap) {
		d->cap = d->cap ? d->cap * 2 : 16;
		d->v = xreallocarray(d->v, d->cap, sizeof(*d->v));
	}
	g = &d->v[d->n++];
	g->sev = sev;
	g->line = at != NULL ? at->line : 0;
	g->col = at != NULL ? at->col : 0;
	g->code = code;
	va_start(ap, fmt);
	n = vsnprintf(NULL, 0, fmt, ap);
	va_end(ap);
	g->msg = xmalloc((size_t)n + 1);
	va_start(ap, fmt);
	vsnprintf(g->msg, (size_t)n + 1, fmt, ap);
	va_end(ap);
}

static int
cmp_sdiag(const void *x, const void *y)
{
	const struct sdiag_at *a = x, *b = y;

	if (a->g.line != b->g.line)
		return a->g.line < b->g.line ? -1 : 1;
	if (a->g.col != b->g.col)
		return a->g.col < b->g.col ? -1 : 1;
	return a->i < b->i ? -1 : a->i > b->i;
}

/* A config with many keys makes many diagnostics: n log n, not n^2. */
void
sdiag_sort(struct sdiags *d)
{
	struct sdiag_at *t;
	size_t i;

	if (d->n < 2)
		return;
	t = xreallocarray(NULL, d->n, sizeof(*t));
	for (i = 0; i < d->n; i++) {
		t[i].g = d->v[i];
		t[i].i = i;
	}
	xqsort(t, d->n, sizeof(*t), cmp_sdiag);
	for (i = 0; i < d->n; i++)
		d->v[i] = t[i].g;
	free(t);
}

size_t
sdiag_count(const struct sdiags *d, int sev)
{
	size_t i, n = 0;

	for (i = 0; i < d->n; i++)
		n += d->v[i].sev == sev;
	return n;
}

void
sdiag_free(struct sdiags *d)
{
	size_t i;

	for (i = 0; i < d->n; i++)
		free(d->v[i].msg);
	free(d->v);
	d->v = NULL;
	d->n = d->cap = 0;
}

int
snip_slurp(const char *path, size_t max, char **buf, size_t *len, int *gzip)
{
	struct gzin *in;
	size_t cap = 8192, n = 0;
	ssize_t r;
	char *p;

	if ((in = gzin_open(path)) == NULL)
		return -1;
	p = xmalloc(cap + 1);
	for (;;) {
		if (n == cap) {
			if (cap > max)
				break;
			cap *= 2;
			p = xrealloc(p, cap + 1);
		}
		if ((r = gzin_read(in, p + n, cap - n)) <= 0)
			break;
		n += (size_t)r;
	}
	if (n > max || r < 0) {
		/* Both ways out of the loop can end past max: say so here. */
		if (r < 0)
			warnmsg("%s: %s", gzin_name(in), gzin_error(in));
		else
			warnmsg("%s: larger than %zu bytes; not a profile"
			    " config", gzin_name(in), max);
		gzin_close(in);
		free(p);
		return -2;
	}
	p[n] = '\0';
	*gzip = gzin_is_gzip(in);
	gzin_close(in);
	*buf = p;
	*len = n;
	return 0;
}

static void
set_str(char **slot, const char *s)
{
	free(*slot);
	*slot = s != NULL ? xstrdup(s) : NULL;
}

/* _optional_mapping(): absent or null is {}, anything else must be a map. */
static const struct ynode *
optional_map(const struct ynode *m, const char *key, struct sdiags *d)
{
	const struct ynode *v = ymap_get(m, key);

	if (v == NULL || v->type == Y_NULL)
		return NULL;
	if (v->type != Y_MAP) {
		sdiag_add(d, SD_ERROR, v, "type",
		    "Profile config field '%s' must be a mapping.", key);
		return NULL;
	}
	return v;
}

/* _coalesce(): the top level first, then workload:, else the default. */
static const struct ynode *
coalesce(const struct snipcfg *c, const char *key)
{
	const struct ynode *v = ymap_get(c->root, key);

	return v != NULL ? v : ymap_get(c->workload, key);
}

static int
to_int(const struct ynode *v, int64_t *out, struct sdiags *d)
{
	char err[200];

	if (py_int(v, out, err, sizeof(err)) == 0)
		return 0;
	sdiag_add(d, SD_ERROR, v, "int", "%s", err);
	return -1;
}

int
snipcfg_parse(struct snipcfg *c, const char *buf, size_t len,
    struct sdiags *d)
{
	const struct ynode *v, *w, *k;
	struct ynode *fake;
	enum magic magic;
	size_t errs = sdiag_count(d, SD_ERROR), i;
	char *s;

	memset(c, 0, sizeof(*c));
	/* Never handed to a loader: say what it is instead of a YAML error. */
	magic = magic_of(buf, len, 0);
	if (magic == MAGIC_PICKLE) {
		sdiag_add(d, SD_ERROR, NULL, "yaml", "not YAML but pickle data,"
		    " which is never loaded");
		return -1;
	}
	if (magic == MAGIC_ZIP) {
		sdiag_add(d, SD_ERROR, NULL, "yaml", "not YAML but a zip"
		    " archive (torch.save?), which is never loaded");
		return -1;
	}
	if (ydoc_parse(&c->doc, buf, len) < 0) {
		sdiag_add(d, SD_ERROR, NULL, "yaml", "%s", c->doc.err);
		d->v[d->n - 1].line = c->doc.errline;
		d->v[d->n - 1].col = c->doc.errcol;
		return -1;
	}
	/* yaml.safe_load(file) or {}: any false root is an empty mapping. */
	if (c->doc.root == NULL || !py_bool(c->doc.root)) {
		fake = ynode_map(&c->doc);
		fake->line = fake->col = 1;
		c->root = fake;
	} else
		c->root = c->doc.root;
	if (c->root->type != Y_MAP) {
		sdiag_add(d, SD_ERROR, c->root, "type",
		    "Profile config must be a YAML mapping.");
		return -1;
	}

	v = ymap_get(c->root, "target");
	if (v == NULL || v->type != Y_MAP)
		sdiag_add(d, SD_ERROR, v != NULL ? v : c->root, "required",
		    "Profile config requires mapping 'target'.");
	else
		c->target = v;
	k = ymap_key(c->root, "data_source");
	if (k == NULL)
		k = ymap_key(c->root, "data");
	if (k == NULL)
		sdiag_add(d, SD_ERROR, c->root, "required",
		    "Profile config requires 'data_source' or 'data'.");
	else if ((v = ymap_get(c->root, k->s))->type != Y_MAP)
		sdiag_add(d, SD_ERROR, v, "required",
		    "Profile config requires mapping '%s'.", k->s);
	else
		c->data = v;
	c->cuda = optional_map(c->root, "cuda", d);

	/* raw.profile_name or raw.profile.name or target.name */
	v = ymap_get(c->root, "profile_name");
	if (v == NULL || !py_bool(v)) {
		c->profile = optional_map(c->root, "profile", d);
		v = ymap_get(c->profile, "name");
		if (v == NULL || !py_bool(v))
			v = ymap_get(c->target, "name");
	}
	if (v == NULL || !py_bool(v))
		sdiag_add(d, SD_ERROR, c->root, "required", "Profile config"
		    " requires 'profile_name' or 'profile.name'.");
	else {
		c->profile_name = py_str(v);
		c->at_profile_name = v;
	}

	c->workload = optional_map(c->root, "workload", d);
	if (c->data != NULL) {
		v = ymap_get(c->data, "name");
		if (v == NULL || !py_bool(v))
			v = ymap_get(c->data, "source");
		if (v == NULL || v->type == Y_NULL)
			sdiag_add(d, SD_ERROR, c->data, "required",
			    "Data source config requires 'name' or 'source'.");
		else {
			c->ds_name = py_str(v);
			c->at_ds_name = v;
		}
	}

	if (c->target != NULL) {
		v = ymap_get(c->target, "name");
		if (v == NULL || v->type == Y_NULL)
			sdiag_add(d, SD_ERROR, c->target, "required",
			    "Profile config requires 'name'.");
		else {
			c->target_name = py_str(v);
			c->at_target_name = v;
		}
		v = ymap_get(c->target, "import_path");
		if (v != NULL && v->type != Y_NULL)
			c->import_path = py_str(v);
		v = ymap_get(c->target, "profile_prepare");
		c->profile_prepare = v != NULL && py_bool(v);
	}

	c->params = ynode_map(&c->doc);
	if (c->data != NULL) {
		v = ymap_key(c->data, "parameters");
		w = ymap_get(c->data, "parameters");
		if (w != NULL && w->type != Y_MAP)
			sdiag_add(d, SD_ERROR, w, "type", "data source"
			    " 'parameters' must be a mapping (the runner fails"
			    " with a TypeError)");
		else if (w != NULL)
			for (i = 0; i < w->n; i++)
				if (w->v[2 * i]->type == Y_STR)
					ymap_set(&c->doc, c->params,
					    w->v[2 * i]->s, w->v[2 * i + 1]);
		/* Flat keys are merged on top of parameters: they win. */
		for (i = 0; i < c->data->n; i++) {
			k = c->data->v[2 * i];
			if (k->type == Y_STR && strcmp(k->s, "name") != 0 &&
			    strcmp(k->s, "source") != 0 &&
			    strcmp(k->s, "parameters") != 0)
				ymap_set(&c->doc, c->params, k->s,
				    c->data->v[2 * i + 1]);
		}
	}

	if ((v = coalesce(c, "device")) != NULL) {
		c->device = py_str(v);
		c->at_device = v;
	} else
		c->device = xstrdup("cpu");
	c->warmup = 1;
	if ((v = coalesce(c, "warmup")) != NULL) {
		c->at_warmup = v;
		to_int(v, &c->warmup, d);
	}
	c->iterations = 1;
	if ((v = coalesce(c, "iterations")) != NULL) {
		c->at_iterations = v;
		to_int(v, &c->iterations, d);
	}
	if ((v = coalesce(c, "record_loading")) != NULL) {
		c->at_record_loading = v;
		s = py_str(v);
		if (strcmp(s, "eager") == 0 || strcmp(s, "lazy") == 0)
			c->record_loading = s;
		else {
			free(s);
			sdiag_add(d, SD_ERROR, v, "value", "record_loading"
			    " must be either 'eager' or 'lazy'.");
		}
	} else
		c->record_loading = xstrdup("eager");
	if ((v = coalesce(c, "seed")) != NULL && v->type != Y_NULL) {
		c->at_seed = v;
		c->has_seed = to_int(v, &c->seed, d) == 0;
	}
	v = coalesce(c, "validate_output");
	c->validate_output = v == NULL || py_bool(v);
	if ((v = coalesce(c, "capture_range")) != NULL) {
		c->capture_range = py_str(v);
		c->at_capture_range = v;
	} else
		c->capture_range = xstrdup(DEFAULT_CAPTURE_RANGE);
	if ((v = ymap_get(c->root, "output_dir")) != NULL) {
		s = py_str(v);
		c->output_dir = snip_path(s);
		free(s);
	} else
		c->output_dir = xstrdup(DEFAULT_OUTPUT_DIR);
	v = ymap_get(c->root, "write_manifest");
	c->write_manifest = v == NULL || py_bool(v);
	for (i = 0; i < SNIP_NCUDA; i++) {
		v = ymap_get(c->cuda, snip_cuda_keys[i]);
		c->cuda_flags[i] = v != NULL ? py_bool(v) :
		    snip_cuda_default[i];
	}
	validate(c, d);
	return sdiag_count(d, SD_ERROR) > errs ? -1 : 0;
}

static char *
strip(char *s)
{
	size_t n;

	if (s == NULL)
		return NULL;
	n = strlen(s);
	while (n > 0 && strchr(PY_SPACE, s[n - 1]) != NULL)
		s[--n] = '\0';
	n = strspn(s, PY_SPACE);
	memmove(s, s + n, strlen(s + n) + 1);
	return s;
}

/* The model's validators: strip the names, check them and the counts. */
static int
validate(struct snipcfg *c, struct sdiags *d)
{
	size_t errs = sdiag_count(d, SD_ERROR);

	if (c->target_name != NULL && *strip(c->target_name) == '\0')
		sdiag_add(d, SD_ERROR, c->at_target_name, "empty",
		    "target.name must not be empty.");
	if (c->ds_name != NULL && *strip(c->ds_name) == '\0')
		sdiag_add(d, SD_ERROR, c->at_ds_name, "empty",
		    "data_source.name must not be empty.");
	if (c->profile_name != NULL && *strip(c->profile_name) == '\0')
		sdiag_add(d, SD_ERROR, c->at_profile_name, "empty",
		    "String config values must not be empty.");
	if (*strip(c->device) == '\0')
		sdiag_add(d, SD_ERROR, c->at_device, "empty",
		    "String config values must not be empty.");
	if (*strip(c->capture_range) == '\0')
		sdiag_add(d, SD_ERROR, c->at_capture_range, "empty",
		    "String config values must not be empty.");
	if (c->warmup < 0)
		sdiag_add(d, SD_ERROR, c->at_warmup, "range",
		    "warmup must be greater than or equal to 0.");
	if (c->iterations < 1)
		sdiag_add(d, SD_ERROR, c->at_iterations, "range",
		    "iterations must be greater than or equal to 1.");
	return sdiag_count(d, SD_ERROR) > errs ? -1 : 0;
}

int
snipcfg_override(struct snipcfg *c, const struct snipover *o,
    struct sdiags *d)
{
	/* Names apply with "or" (an empty string is no override). */
	if (o->target != NULL && *o->target != '\0') {
		set_str(&c->target_name, o->target);
		c->at_target_name = NULL;
	}
	if (o->data_source != NULL && *o->data_source != '\0') {
		set_str(&c->ds_name, o->data_source);
		c->at_ds_name = NULL;
	}
	if (o->device != NULL && *o->device != '\0') {
		set_str(&c->device, o->device);
		c->at_device = NULL;
	}
	if (o->capture_range != NULL && *o->capture_range != '\0') {
		set_str(&c->capture_range, o->capture_range);
		c->at_capture_range = NULL;
	}
	if (o->record_loading != NULL) {
		set_str(&c->record_loading, o->record_loading);
		c->at_record_loading = NULL;
	}
	/* Numbers apply when given, so 0 is honoured. */
	if (o->has_warmup) {
		c->warmup = o->warmup;
		c->at_warmup = NULL;
	}
	if (o->has_iterations) {
		c->iterations = o->iterations;
		c->at_iterations = NULL;
	}
	if (o->has_seed) {
		c->seed = o->seed;
		c->has_seed = 1;
		c->at_seed = NULL;
	}
	return validate(c, d);
}

void
snipcfg_free(struct snipcfg *c)
{
	free(c->profile_name);
	free(c->target_name);
	free(c->import_path);
	free(c->ds_name);
	free(c->device);
	free(c->record_loading);
	free(c->capture_range);
	free(c->output_dir);
	ydoc_free(&c->doc);
	memset(c, 0, sizeof(*c));
}

char *
snip_path(const char *s)
{
	char *out = xmalloc(strlen(s) + 2), *o = out;
	const char *p = s, *e;
	size_t n;

	if (s[0] == '/') {
		*o++ = '/';
		/* POSIX leaves the meaning of exactly two slashes open. */
		if (s[1] == '/' && s[2] != '/')
			*o++ = '/';
	}
	while (*p != '\0') {
		while (*p == '/')
			p++;
		e = strchr(p, '/');
		n = e != NULL ? (size_t)(e - p) : strlen(p);
		if (n > 0 && !(n == 1 && p[0] == '.')) {
			if (o > out && o[-1] != '/')
				*o++ = '/';
			memcpy(o, p, n);
			o += n;
		}
		p += n;
	}
	if (o == out)
		*o++ = '.';
	*o = '\0';
	return out;
}

char *
snip_path_join(const char *a, const char *b)
{
	char *t, *r;
	size_t n;

	if (b[0] == '/')
		return snip_path(b);
	n = strlen(a) + strlen(b) + 2;
	t = xmalloc(n);
	snprintf(t, n, "%s/%s", a, b);
	r = snip_path(t);
	free(t);
	return r;
}

const char *
snip_path_name(const char *s)
{
	const char *slash = strrchr(s, '/');

	if (strcmp(s, ".") == 0)
		return "";
	return slash != NULL ? slash + 1 : s;
}

const char *
snip_name_problem(const char *s, size_t len)
{
	size_t i;

	if (len == 0)
		return "is empty";
	if ((len == 1 && s[0] == '.') || (len == 2 && s[0] == '.' &&
	    s[1] == '.'))
		return "is . or ..";
	for (i = 0; i < len; i++) {
		if (s[i] == '/')
			return "has a '/'";
		if (s[i] == '\0')
			return "has a NUL";
		if ((unsigned char)s[i] < 0x20 || s[i] == 0x7f)
			return "has a control character";
	}
	return NULL;
}

const char *
snipcfg_profile_problem(const struct snipcfg *c)
{
	const struct ynode *at = c->at_profile_name;

	if (c->profile_name == NULL || *c->profile_name == '\0')
		return NULL;
	if (at != NULL && at->type == Y_STR && at->s != NULL &&
	    memchr(at->s, '\0', at->len) != NULL)
		return "has a NUL";
	return snip_name_problem(c->profile_name, strlen(c->profile_name));
}

char *
snip_quote(const char *s)
{
	static const char safe[] = "abcdefghijklmnopqrstuvwxyz"
	    "ABCDEFGHIJKLMNOPQRSTUVWXYZ0123456789_@%+=:,./-";
	char *p = NULL;
	size_t n = 0;
	FILE *f;

	if (*s != '\0' && s[strspn(s, safe)] == '\0')
		return xstrdup(s);
	if ((f = open_memstream(&p, &n)) == NULL)
		die("out of memory");
	fputc('\'', f);
	for (; *s != '\0'; s++)
		if (*s == '\'')
			fputs("'\"'\"'", f);
		else
			fputc(*s, f);
	fputc('\'', f);
	if (fclose(f) != 0)
		die("out of memory");
	return p;
}

char *
snipcfg_run_dir(const struct snipcfg *c, const char *run_id)
{
	char *a, *b, *r;

	a = snip_path_join(c->output_dir, c->profile_name);
	b = snip_path_join(a, "runs");
	r = snip_path_join(b, run_id);
	free(a);
	free(b);
	return r;
}

/* Token i of src is a string whose text, quotes and prefix aside, is t. */
static int
string_is(const struct pysrc *src, size_t i, const char *t)
{
	const char *s;
	size_t len, n = strlen(t);

	if (src->tok[i].type != PT_STRING)
		return 0;
	s = pysrc_tok(src, i, &len);
	while (len > 0 && strchr("rRbBuUfF", *s) != NULL) {
		s++;
		len--;
	}
	return len == n + 2 && (s[0] == '"' || s[0] == '\'') &&
	    s[len - 1] == s[0] && memcmp(s + 1, t, n) == 0;
}

int
snipcfg_uses_graphs(const struct snipcfg *c)
{
	struct pysrc src;
	struct stat st;
	const char *colon;
	char *path, *text = NULL;
	size_t len = 0, i;
	int gz, found = 0;

	if (c->import_path == NULL ||
	    (colon = strchr(c->import_path, ':')) == NULL)
		return 0;
	path = xmemdup(c->import_path, (size_t)(colon - c->import_path));
	memset(&src, 0, sizeof(src));
	/* A regular file only: "-" is no stdin here, and a FIFO no wait. */
	if (stat(path, &st) != 0 || !S_ISREG(st.st_mode) ||
	    snip_slurp(path, 64 << 20, &text, &len, &gz) != 0) {
		free(path);
		return 0;
	}
	if (pysrc_scan(&src, path, text, len) == 0)
		for (i = 0; i < src.ntok && !found; i++)
			found = pysrc_tok_is(&src, i, "CUDAGraph") ||
			    pysrc_tok_is(&src, i, "make_graphed_callables") ||
			    string_is(&src, i, "reduce-overhead") ||
			    (i >= 2 && i + 1 < src.ntok &&
			    pysrc_tok_is(&src, i, "graph") &&
			    pysrc_tok_is(&src, i - 1, ".") &&
			    pysrc_tok_is(&src, i - 2, "cuda") &&
			    pysrc_tok_is(&src, i + 1, "("));
	pysrc_free(&src);
	free(path);
	return found;
}

char *
snipcfg_nsys(const struct snipcfg *c, const char *run_dir,
    const char *config_path)
{
	char warmup[24], iterations[24], seed[24], *trace, *cfg, *capture;
	const char *tok[48];
	char *p = NULL, *q;
	size_t n = 0, k = 0, i, len;
	FILE *f;

	trace = snip_path_join(run_dir, "trace");
	cfg = snip_path(config_path);
	len = strlen(c->capture_range) + 32;
	capture = xmalloc(len);
	snprintf(capture, len, "--nvtx-capture=%s@*", c->capture_range);
	snprintf(warmup, sizeof(warmup), "%" PRId64, c->warmup);
	snprintf(iterations, sizeof(iterations), "%" PRId64, c->iterations);
	snprintf(seed, sizeof(seed), "%" PRId64, c->seed);
	tok[k++] = "nsys";
	tok[k++] = "profile";
	tok[k++] = "-o";
	tok[k++] = trace;
	tok[k++] = "--trace=cuda,osrt,nvtx";
	if (snipcfg_uses_graphs(c))
		tok[k++] = "--cuda-graph-trace=node";
	tok[k++] = "--sample=cpu";
	tok[k++] = "--cpuctxsw=process-tree";
	tok[k++] = "--capture-range=nvtx";
	tok[k++] = "--capture-range-end=stop";
	tok[k++] = capture;
	tok[k++] = "-e";
	tok[k++] = "NSYS_NVTX_PROFILER_REGISTER_ONLY=0";
	tok[k++] = "--trace-fork-before-exec=true";
	tok[k++] = "uv";
	tok[k++] = "run";
	tok[k++] = "python";
	tok[k++] = "development/profiling/main.py";
	tok[k++] = "--target";
	tok[k++] = c->target_name;
	tok[k++] = "--data-source";
	tok[k++] = c->ds_name;
	tok[k++] = "--config";
	tok[k++] = cfg;
	tok[k++] = "--device";
	tok[k++] = c->device;
	tok[k++] = "--warmup";
	tok[k++] = warmup;
	tok[k++] = "--iterations";
	tok[k++] = iterations;
	tok[k++] = "--record-loading";
	tok[k++] = c->record_loading;
	tok[k++] = "--capture-range";
	tok[k++] = c->capture_range;
	tok[k++] = "--run-id";
	tok[k++] = snip_path_name(run_dir);
	if (c->has_seed) {
		tok[k++] = "--seed";
		tok[k++] = seed;
	}
	if ((f = open_memstream(&p, &n)) == NULL)
		die("out of memory");
	for (i = 0; i < k; i++) {
		if (i > 0)
			fputs(" \\\n  ", f);
		/*
		 * shlex.quote quotes the capture token for its '*' (the
		 * runner prints it raw, and zsh stops at "no matches
		 * found"), but leaves a leading '=', which zsh replaces
		 * with a command's path.
		 */
		q = snip_quote(tok[i]);
		fprintf(f, q[0] == '=' ? "'%s'" : "%s", q);
		free(q);
	}
	fputc('\n', f);
	if (fclose(f) != 0)
		die("out of memory");
	free(trace);
	free(cfg);
	free(capture);
	return p;
}

static int
cmp_str(const void *a, const void *b)
{
	return strcmp(*(char *const *)a, *(char *const *)b);
}

/* Path.suffix of a file name ("" for ".bashrc" or "a."). */
static const char *
suffix_of(const char *name, size_t *stem)
{
	const char *dot = strrchr(name, '.');
	size_t n = strlen(name);

	if (dot == NULL || dot == name || (size_t)(dot - name) == n - 1) {
		*stem = n;
		return "";
	}
	*stem = (size_t)(dot - name);
	return dot;
}

/*
 * Path(v)'s TypeError for a value that is not a str (Python 3.11's words):
 * os.fspath() refuses what is not a path, and Path then refuses bytes.
 */
static void
path_error(const struct ynode *v, struct sdiags *d)
{
	if (v->type == Y_BYTES)
		sdiag_add(d, SD_ERROR, v, "type", "argument should be a str"
		    " object or an os.PathLike object returning str, not"
		    " <class 'bytes'>");
	else
		sdiag_add(d, SD_ERROR, v, "type", "expected str, bytes or"
		    " os.PathLike object, not %s", ytype_name(v));
}

/* _resolve_paths(): the paths list, or the directory's images, sorted. */
static int
image_paths(struct snipcfg *c, char ***out, size_t *np, struct sdiags *d)
{
	const struct ynode *v = ymap_get(c->params, "paths"), *it;
	char **paths = NULL, *dir, *s;
	size_t n = 0, i, stem;
	DIR *dp;
	struct dirent *de;
	struct stat st;

	*out = NULL;
	*np = 0;
	if (v != NULL && v->type != Y_NULL) {
		/* Bytes iterate as ints; a set in the order of pyyaml.h. */
		if (v->type == Y_BYTES && v->len > 0) {
			sdiag_add(d, SD_ERROR, v, "type", "expected str, bytes"
			    " or os.PathLike object, not int");
			return -1;
		}
		if (v->type != Y_STR && v->type != Y_SEQ &&
		    v->type != Y_SET && v->type != Y_BYTES) {
			sdiag_add(d, SD_ERROR, v, "type", "'%s' object is not"
			    " iterable", ytype_name(v));
			return -1;
		}
		n = v->type == Y_STR ? 1 : v->n;
		paths = xreallocarray(NULL, n + 1, sizeof(*paths));
		for (i = 0; i < n; i++) {
			it = v->type == Y_STR ? v : v->v[i];
			if (it->type != Y_STR) {
				path_error(it, d);
				while (i-- > 0)
					free(paths[i]);
				free(paths);
				return -1;
			}
			paths[i] = snip_path(it->s);
		}
	} else {
		v = ymap_get(c->params, "directory");
		if (v == NULL || !py_bool(v))
			v = ymap_get(c->params, "images_dir");
		if (v == NULL || v->type == Y_NULL) {
			sdiag_add(d, SD_ERROR, c->data, "images", "Image data"
			    " source requires 'directory' or 'paths'.");
			return -1;
		}
		if (v->type != Y_STR) {
			path_error(v, d);
			return -1;
		}
		dir = snip_path(v->s);
		if (stat(dir, &st) != 0) {
			sdiag_add(d, SD_ERROR, v, "images-dir", "Image"
			    " directory does not exist: %s", dir);
			free(dir);
			return -1;
		}
		if ((dp = opendir(dir)) == NULL) {
			sdiag_add(d, SD_ERROR, v, "images-dir", "%s: %s", dir,
			    strerror(errno));
			free(dir);
			return -1;
		}
		while ((de = readdir(dp)) != NULL) {
			if (strcmp(de->d_name, ".") == 0 ||
			    strcmp(de->d_name, "..") == 0)
				continue;
			s = snip_path_join(dir, de->d_name);
			if (stat(s, &st) == 0 && S_ISREG(st.st_mode)) {
				const char *suf = suffix_of(de->d_name, &stem);

				for (i = 0; i < sizeof(image_suffixes) /
				    sizeof(image_suffixes[0]); i++)
					if (strcasecmp(suf, image_suffixes[i])
					    == 0)
						break;
				if (i < sizeof(image_suffixes) /
				    sizeof(image_suffixes[0])) {
					paths = xreallocarray(paths, n + 1,
					    sizeof(*paths));
					paths[n++] = s;
					continue;
				}
			}
			free(s);
		}
		closedir(dp);
		free(dir);
		xqsort(paths, n, sizeof(*paths), cmp_str);
	}
	if (n == 0) {
		free(paths);
		sdiag_add(d, SD_ERROR, v, v->type == Y_STR &&
		    v != ymap_get(c->params, "paths") ? "images-dir" : "images",
		    "Image data source did not resolve any image paths.");
		return -1;
	}
	*out = paths;
	*np = n;
	return 0;
}

struct ynode *
snipcfg_records(struct snipcfg *c, struct ynode **desc, struct sdiags *d)
{
	const struct ynode *v;
	struct ynode *ids = ynode_seq(&c->doc), *ps;
	char **paths = NULL, buf[64], *id;
	size_t npaths = 0, nsel, i, stem;
	int64_t count = 1, limit = 0, repeat = 0, j;
	int has_limit = 0, has_repeat = 0, decode;
	size_t errs = sdiag_count(d, SD_ERROR);

	*desc = ynode_map(&c->doc);
	if (c->ds_name == NULL)
		return NULL;
	if (strcmp(c->ds_name, "dummy") == 0) {
		v = ymap_get(c->params, "record_count");
		if (v == NULL)
			v = ymap_get(c->params, "limit");
		if (v != NULL && to_int(v, &count, d) < 0)
			return NULL;
		ymap_set(&c->doc, *desc, "type", ynode_str(&c->doc, "dummy"));
		ymap_set(&c->doc, *desc, "record_count",
		    ynode_int(&c->doc, count));
		v = ymap_get(c->params, "image_shape");
		if (v == NULL) {
			ps = ynode_seq(&c->doc);
			yseq_push(ps, ynode_int(&c->doc, 64));
			yseq_push(ps, ynode_int(&c->doc, 64));
			yseq_push(ps, ynode_int(&c->doc, 3));
			v = ps;
		} else if (v->type != Y_SEQ)
			sdiag_add(d, SD_ERROR, v, "type", "image_shape must be"
			    " a list, not %s", ytype_name(v));
		ymap_set(&c->doc, *desc, "image_shape", (struct ynode *)v);
		v = ymap_get(c->params, "tensor_shape");
		if (v == NULL) {
			ps = ynode_seq(&c->doc);
			yseq_push(ps, ynode_int(&c->doc, 4));
			yseq_push(ps, ynode_int(&c->doc, 4));
			v = ps;
		} else if (v->type != Y_SEQ)
			sdiag_add(d, SD_ERROR, v, "type", "tensor_shape must"
			    " be a list, not %s", ytype_name(v));
		ymap_set(&c->doc, *desc, "tensor_shape", (struct ynode *)v);
		v = ymap_get(c->params, "include_image");
		ymap_set(&c->doc, *desc, "include_image",
		    ynode_bool(&c->doc, v == NULL || py_bool(v)));
		if (count > SNIP_MAX_RECORDS) {
			sdiag_add(d, SD_ERROR, ymap_get(c->params,
			    "record_count"), "too-many", "%" PRId64 " records are"
			    " more than this tool plans (%d)", count,
			    SNIP_MAX_RECORDS);
			return NULL;
		}
		for (j = 0; j < count; j++) {
			snprintf(buf, sizeof(buf), "dummy-%" PRId64, j);
			yseq_push(ids, ynode_str(&c->doc, buf));
		}
	} else if (strcmp(c->ds_name, "images") == 0) {
		if (image_paths(c, &paths, &npaths, d) < 0)
			return NULL;
		v = ymap_get(c->params, "decode");
		decode = v == NULL || py_bool(v);
		if ((v = ymap_get(c->params, "limit")) != NULL &&
		    v->type != Y_NULL)
			has_limit = to_int(v, &limit, d) == 0;
		if ((v = ymap_get(c->params, "repeat")) != NULL &&
		    v->type != Y_NULL)
			has_repeat = to_int(v, &repeat, d) == 0;
		ymap_set(&c->doc, *desc, "type", ynode_str(&c->doc, "images"));
		ps = ynode_seq(&c->doc);
		for (i = 0; i < npaths; i++)
			yseq_push(ps, ynode_str(&c->doc, paths[i]));
		ymap_set(&c->doc, *desc, "paths", ps);
		ymap_set(&c->doc, *desc, "decode", ynode_bool(&c->doc, decode));
		ymap_set(&c->doc, *desc, "limit", has_limit ?
		    ynode_int(&c->doc, limit) : ynode_null(&c->doc));
		ymap_set(&c->doc, *desc, "repeat", has_repeat ?
		    ynode_int(&c->doc, repeat) : ynode_null(&c->doc));
		ymap_set(&c->doc, *desc, "decoded_format", decode ?
		    ynode_str(&c->doc, "rgb_numpy_array") :
		    ynode_null(&c->doc));
		/* paths[:limit], with Python's slice rules. */
		nsel = npaths;
		if (has_limit && limit >= 0 && (uint64_t)limit < npaths)
			nsel = (size_t)limit;
		else if (has_limit && limit < 0)
			nsel = (uint64_t)-limit >= npaths ? 0 :
			    npaths - (size_t)-limit;
		/* repeat is the number of records, cycling the paths. */
		count = has_repeat ? (repeat > 0 ? repeat : 0) : (int64_t)nsel;
		if (nsel == 0)
			count = 0;
		if (count > SNIP_MAX_RECORDS) {
			sdiag_add(d, SD_ERROR, ymap_get(c->params, "repeat"),
			    "too-many", "%" PRId64 " records are more than this"
			    " tool plans (%d)", count, SNIP_MAX_RECORDS);
			count = 0;
		}
		for (j = 0; j < count; j++) {
			const char *name = snip_path_name(paths[(size_t)j %
			    nsel]);
			size_t k = (size_t)j / nsel, len;

			suffix_of(name, &stem);
			len = stem + 32;
			id = xmalloc(len);
			if (k == 0)
				snprintf(id, len, "%.*s", (int)stem, name);
			else
				snprintf(id, len, "%.*s-repeat-%zu", (int)stem,
				    name, k);
			yseq_push(ids, ynode_str(&c->doc, id));
			free(id);
		}
		for (i = 0; i < npaths; i++)
			free(paths[i]);
		free(paths);
	} else {
		sdiag_add(d, SD_ERROR, c->at_ds_name, "source", "Unknown data"
		    " source '%s'. Available data sources: dummy, images",
		    c->ds_name);
		return NULL;
	}
	if (sdiag_count(d, SD_ERROR) > errs)
		return NULL;
	if (ids->n == 0) {
		sdiag_add(d, SD_ERROR, c->data, "empty",
		    "Data source yielded no records.");
		return NULL;
	}
	return ids;
}

struct ynode *
snipcfg_manifest(struct snipcfg *c, const char *run_id, const char *run_dir,
    const char *command_line, const char *git_commit,
    struct ynode *record_ids, struct ynode *desc)
{
	struct ydoc *doc = &c->doc;
	struct ynode *m = ynode_map(doc), *t, *s;
	char *trace;
	size_t i;

	ymap_set(doc, m, "capture_range", ynode_str(doc, c->capture_range));
	ymap_set(doc, m, "command_line", ynode_str(doc, command_line));
	t = ynode_map(doc);
	for (i = 0; i < SNIP_NCUDA; i++)
		ymap_set(doc, t, snip_cuda_keys[i],
		    ynode_bool(doc, c->cuda_flags[i]));
	ymap_set(doc, m, "cuda", t);
	t = ynode_map(doc);
	ymap_set(doc, t, "description", desc);
	ymap_set(doc, t, "name", ynode_str(doc, c->ds_name));
	ymap_set(doc, m, "data_source", t);
	ymap_set(doc, m, "device", ynode_str(doc, c->device));
	trace = snip_path_join(run_dir, "trace.nsys-rep");
	ymap_set(doc, m, "expected_trace_path", ynode_str(doc, trace));
	free(trace);
	ymap_set(doc, m, "git_commit", git_commit != NULL ?
	    ynode_str(doc, git_commit) : ynode_null(doc));
	ymap_set(doc, m, "profile_name", ynode_str(doc, c->profile_name));
	ymap_set(doc, m, "record_ids", record_ids);
	ymap_set(doc, m, "run_id", ynode_str(doc, run_id));
	t = ynode_map(doc);
	ymap_set(doc, t, "import_path", c->import_path != NULL ?
	    ynode_str(doc, c->import_path) : ynode_null(doc));
	ymap_set(doc, t, "name", ynode_str(doc, c->target_name));
	ymap_set(doc, t, "profile_prepare", ynode_bool(doc,
	    c->profile_prepare));
	ymap_set(doc, m, "target", t);
	t = ynode_map(doc);
	ymap_set(doc, t, "iterations", ynode_int(doc, c->iterations));
	ymap_set(doc, t, "record_loading", ynode_str(doc, c->record_loading));
	s = c->has_seed ? ynode_int(doc, c->seed) : ynode_null(doc);
	ymap_set(doc, t, "seed", s);
	ymap_set(doc, t, "validate_output", ynode_bool(doc,
	    c->validate_output));
	ymap_set(doc, t, "warmup", ynode_int(doc, c->warmup));
	ymap_set(doc, m, "workload", t);
	return m;
}

int
snipcfg_target(const struct snipcfg *c, struct sdiags *d)
{
	const struct ynode *at = ymap_get(c->target, "import_path");
	const char *colon;
	char *path;
	int rc = 0;

	if (c->import_path == NULL) {
		if (c->target_name == NULL || *c->target_name == '\0' ||
		    strcmp(c->target_name, "smoke-tensor") == 0)
			return 0;
		sdiag_add(d, SD_ERROR, c->at_target_name, "target", "Unknown"
		    " target '%s'. Provide target.import_path or use one of:"
		    " smoke-tensor", c->target_name);
		return -1;
	}
	colon = strchr(c->import_path, ':');
	if (colon == NULL || colon[1] == '\0' || colon == c->import_path) {
		sdiag_add(d, SD_ERROR, at, "import-path", "Generated target"
		    " import_path must use '<path-to-file.py>:<attribute>'.");
		return -1;
	}
	path = xmemdup(c->import_path, (size_t)(colon - c->import_path));
	if (access(path, F_OK) != 0) {
		sdiag_add(d, SD_ERROR, at, "import-missing", "Target import"
		    " file does not exist: %s", path);
		rc = -1;
	}
	free(path);
	return rc;
}
