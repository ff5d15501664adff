#include <ctype.h>
#include <errno.h>
#include <stdlib.h>
#include <string.h>
#include <sys/types.h>

#include "base/err.h"
#include "base/strbuf.h"
#include "base/xalloc.h"
#include "io/gzin.h"
#include "io/ndjson.h"
#include "report/context.h"

/* What an item holds. */
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

/* The known items, indexed by enum ctx_item. */
static const struct ckey {
	const char		*name;
	enum ctype		 type;
	const char *const	*choices;
	const char		*notone;	/* the message for another */
} ckeys[CTX_NITEMS] = {
	[CTX_MODEL] = { "model", C_STR, NULL, NULL },
	[CTX_BATCH_SIZE] = { "batch_size", C_INT, NULL, NULL },
	[CTX_SEQ_LEN] = { "seq_len", C_INT, NULL, NULL },
	[CTX_PRECISION] = { "precision", C_LOWER, NULL, NULL },
	[CTX_PARALLELISM] = { "parallelism", C_LOWER, NULL, NULL },
	[CTX_WORLD_SIZE] = { "world_size", C_INT, NULL, NULL },
	[CTX_GPU] = { "gpu", C_STR, NULL, NULL },
	[CTX_PHASE] = { "phase", C_CHOICE, phases, "not one of "
	    "forward|backward|optimizer|dataloader|communication" },
	[CTX_OBJECTIVE] = { "objective", C_CHOICE, objectives, "not one of "
	    "throughput|memory|latency" }
};

static int	ckey_find(const char *);
static const char *value_text(const struct ckey *, struct ctx_value *,
		    const char *);
static const char *value_node(const struct ckey *, struct ctx_value *,
		    const struct ynode *);
static struct ynode *extra(struct context *);

void
context_init(struct context *c, const char *file)
{
	memset(c, 0, sizeof(*c));
	c->file = file;
}

/* The index of a known item, or -1; sequence_length is seq_len. */
static int
ckey_find(const char *name)
{
	size_t i;

	if (strcmp(name, "sequence_length") == 0)
		name = "seq_len";
	for (i = 0; i < CTX_NITEMS; i++)
		if (strcmp(name, ckeys[i].name) == 0)
			return (int)i;
	return -1;
}

/*
 * Stores the text s as the item k (an empty s unsets it).  Returns NULL, or
 * what is wrong with s.
 */
static const char *
value_text(const struct ckey *k, struct ctx_value *v, const char *s)
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
value_node(const struct ckey *k, struct ctx_value *v, const struct ynode *n)
{
	if (n->type == Y_NULL)
		return value_text(k, v, "");
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
	return value_text(k, v, n->s);
}

/* The map of the other keys, made on first use, after the file's parse. */
static struct ynode *
extra(struct context *c)
{
	if (c->extra == NULL)
		c->extra = ynode_map(&c->doc);
	return c->extra;
}

void
context_read(struct context *c)
{
	struct strbuf sb = { 0 };
	struct gzin *in;
	struct ynode *root, *key, *val;
	const char *why, *path = c->file;
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
	for (i = 0; i < root->n; i++) {
		key = root->v[2 * i];
		val = root->v[2 * i + 1];
		name = py_str(key);
		if (key->type != Y_STR || (k = ckey_find(name)) == -1)
			ymap_set(&c->doc, extra(c), name, val);
		else if ((why = value_node(&ckeys[k], &c->v[k], val)) != NULL)
			die("%s:%u:%u: %s: %s", path, val->line, val->col,
			    name, why);
		free(name);
	}
	(void)extra(c);
}

void
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
		ymap_set(&c->doc, extra(c), key, ynode_str(&c->doc, eq + 1));
	else
		context_option(c, (enum ctx_item)k, "--set", arg);
	free(key);
}

void
context_option(struct context *c, enum ctx_item k, const char *opt,
    const char *s)
{
	const char *why, *eq;

	/* The text of --set key=value is after the '='. */
	if ((eq = strchr(s, '=')) != NULL && strcmp(opt, "--set") == 0)
		s = eq + 1;
	if ((why = value_text(&ckeys[k], &c->v[k], s)) == NULL)
		return;
	if (eq != NULL && strcmp(opt, "--set") == 0)
		die_usage("%s: %s: %s: %s", opt, ckeys[k].name, why, s);
	die_usage("%s: %s: %s", opt, why, s);
}

const char *
context_text(const struct context *c, enum ctx_item k)
{
	return c->v[k].set && ckeys[k].type != C_INT ? c->v[k].s : NULL;
}

void
context_write(FILE *fp, const struct context *c)
{
	struct jw *w;
	size_t i;

	w = jw_new(fp);
	jw_record(w, "context");
	for (i = 0; i < CTX_NITEMS; i++) {
		jw_ckey(w, ckeys[i].name);
		if (!c->v[i].set)
			jw_null(w);
		else if (ckeys[i].type == C_INT)
			jw_int(w, c->v[i].n);
		else
			jw_cstring(w, c->v[i].s);
	}
	jw_key(w, "extra");
	if (c->extra != NULL)
		ynode_json(w, c->extra);
	else {
		jw_begin_object(w);
		jw_end_object(w);
	}
	jw_key(w, "file");
	jw_cstring_or_null(w, c->file);
	jw_end(w);
	jw_free(w);
}

void
context_free(struct context *c)
{
	size_t i;

	for (i = 0; i < CTX_NITEMS; i++)
		free(c->v[i].s);
	ydoc_free(&c->doc);
}
