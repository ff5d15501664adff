/*
 * pyyaml: the YAML loader that pyyaml.h describes.
 * One file: libyaml's events, PyYAML's resolvers and constructors, and
 * the Python conversions of the values (str(), int(), repr(), JSON) all
 * work on one node type, built and freed only here.
 */
#include <errno.h>
#include <inttypes.h>
#include <math.h>
#include <regex.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <yaml.h>

#include "base/err.h"
#include "base/strmap.h"
#include "base/xalloc.h"
#include "io/ndjson.h"
#include "io/pyyaml.h"

#define TAG		"tag:yaml.org,2002:"
#define MAX_DEPTH	256
/* A map with more pairs than this gets a hash index of its keys. */
#define INDEX_MIN	8
/* str() of a deeply aliased value stops growing here. */
#define MAX_REPR	(1 << 20)

static const char b64[] =
    "ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789+/";

/* PyYAML's implicit resolvers, in the order it tries them. */
enum { RE_BOOL, RE_FLOAT, RE_INT, RE_NULL, RE_TIME, NRE };

static const char *const re_text[NRE] = {
	"^(yes|Yes|YES|no|No|NO|true|True|TRUE|false|False|FALSE"
	    "|on|On|ON|off|Off|OFF)$",
	"^([-+]?[0-9][0-9_]*\\.[0-9_]*([eE][-+][0-9]+)?"
	    "|\\.[0-9][0-9_]*([eE][-+][0-9]+)?"
	    "|[-+]?[0-9][0-9_]*(:[0-5]?[0-9])+\\.[0-9_]*"
	    "|[-+]?\\.(inf|Inf|INF)|\\.(nan|NaN|NAN))$",
	"^([-+]?0b[0-1_]+|[-+]?0[0-7_]+|[-+]?(0|[1-9][0-9_]*)"
	    "|[-+]?0x[0-9a-fA-F_]+|[-+]?[1-9][0-9_]*(:[0-5]?[0-9])+)$",
	"^(~|null|Null|NULL|)$",
	"^([0-9]{4}-[0-9]{2}-[0-9]{2}"
	    "|[0-9]{4}-[0-9]{1,2}-[0-9]{1,2}([Tt]|[ \t]+)[0-9]{1,2}:[0-9]{2}"
	    ":[0-9]{2}(\\.[0-9]*)?([ \t]*Z|[-+][0-9]{1,2}(:[0-9]{2})?)?)$",
};

/* What a collection's tag makes of it; scalars are K_SCALAR. */
enum { K_SCALAR, K_SEQ, K_MAP, K_SET, K_OMAP, K_PAIRS };

/*
 * The standard tags: the node each takes and PyYAML's words for another
 * (its problem, after its context where it has one).
 */
static const struct stdtag {
	const char	*name;
	int		 shape;		/* K_SCALAR, K_SEQ or K_MAP */
	int		 kind;
	const char	*want;
} stdtags[] = {
	{ "str", K_SCALAR, K_SCALAR, "expected a scalar node" },
	{ "null", K_SCALAR, K_SCALAR, "expected a scalar node" },
	{ "bool", K_SCALAR, K_SCALAR, "expected a scalar node" },
	{ "int", K_SCALAR, K_SCALAR, "expected a scalar node" },
	{ "float", K_SCALAR, K_SCALAR, "expected a scalar node" },
	{ "timestamp", K_SCALAR, K_SCALAR, "expected a scalar node" },
	{ "binary", K_SCALAR, K_SCALAR, "expected a scalar node" },
	{ "seq", K_SEQ, K_SEQ, "expected a sequence node" },
	{ "map", K_MAP, K_MAP, "expected a mapping node" },
	{ "set", K_MAP, K_SET, "expected a mapping node" },
	{ "omap", K_SEQ, K_OMAP,
	    "while constructing an ordered map expected a sequence" },
	{ "pairs", K_SEQ, K_PAIRS,
	    "while constructing pairs expected a sequence" },
};

struct frame {
	struct ynode	*node;
	struct ynode	*key;		/* a map's key waiting for its value */
	int		 kind;
};

struct builder {
	struct ydoc	*doc;
	struct strmap	 anchors;
	struct frame	 stack[MAX_DEPTH];
	size_t		 depth;
	size_t		 expand;	/* what aliases repeated so far */
	int		 docs;
	const regex_t	*re;
};

static struct ynode	*node_new(struct ydoc *, enum ytype, uint32_t, uint32_t);
static int	fail(struct ydoc *, uint32_t, uint32_t, const char *, ...)
		    __attribute__((format(printf, 4, 5)));
static int	event(struct builder *, yaml_event_t *);
static int	scalar(struct builder *, yaml_event_t *, struct ynode **);
static int	construct(struct builder *, struct ynode *, const char *);
static int	tag_kind(struct ydoc *, const struct ynode *, const char *,
		    int);
static int	make_int(struct ynode *);
static int	make_bytes(struct ydoc *, struct ynode *);
static void	make_set(struct ynode *);
static int	hashable_keys(struct ydoc *, const struct ynode *);
static int	pair_item(struct builder *, struct frame *, struct ynode *,
		    int);
static struct ynode *make_tuple(struct ydoc *, struct ynode *, struct ynode *,
		    const struct ynode *);
static int	make_float(struct ynode *);
static int	attach(struct builder *, struct ynode *, const char *);
static int	flatten(struct ydoc *, struct ynode *);
static void	add_pair(struct ynode *, struct ynode *, struct ynode *);
static void	close_node(struct ynode *);
static void	index_map(struct ynode *);
static long	find_key(const struct ynode *, const char *, size_t);
static void	put_str(FILE *, const struct ynode *, int);
static void	put_float(FILE *, double);
static void	put_bytes(FILE *, const char *, size_t);
static const struct ynode *map_find(const struct ynode *,
		    const struct ynode *);
static int	cmp_keys(const void *, const void *);
static char	*base64(const char *, size_t);
static int	cmp_items(const void *, const void *);
static int	cmp_value(const struct ynode *, const struct ynode *);
static int	is_merge(const struct ynode *);
static int	is_num(const struct ynode *);
static int	str_int(const char *, size_t, int, int64_t *);
static uint32_t	utf8_at(const unsigned char *, size_t, size_t *);
static const regex_t *resolvers(void);

static int
fail(struct ydoc *doc, uint32_t line, uint32_t col, const char *fmt, ...)
{
	va_list ap;

	va_start(ap, fmt);
	vsnprintf(doc->err, sizeof(doc->err), fmt, ap);
	va_end(ap);
	doc->errline = line;
	doc->errcol = col;
	return -1;
}

static struct ynode *
node_new(struct ydoc *doc, enum ytype t, uint32_t line, uint32_t col)
{
	struct ynode *n;

	if (doc->nall == doc->capall) {
		doc->capall = doc->capall ? doc->capall * 2 : 64;
		doc->all = xreallocarray(doc->all, doc->capall,
		    sizeof(*doc->all));
	}
	n = xcalloc(1, sizeof(*n));
	n->type = t;
	n->line = line;
	n->col = col;
	doc->all[doc->nall++] = n;
	return n;
}

int
ydoc_parse(struct ydoc *doc, const char *buf, size_t len)
{
	struct builder b;
	yaml_parser_t p;
	yaml_event_t ev;
	int rc = 0, done = 0;

	memset(&b, 0, sizeof(b));
	b.doc = doc;
	b.re = resolvers();
	doc->root = NULL;
	doc->err[0] = '\0';
	if (!yaml_parser_initialize(&p))
		die("out of memory");
	yaml_parser_set_input_string(&p, (const unsigned char *)buf, len);
	while (rc == 0 && !done) {
		if (!yaml_parser_parse(&p, &ev)) {
			size_t k, line = 1, col = 1;

			if (p.error == YAML_READER_ERROR) {
				for (k = 0; k < p.problem_offset && k < len;
				    k++, col++)
					if (buf[k] == '\n') {
						line++;
						col = 0;
					}
			} else {
				line = p.problem_mark.line + 1;
				col = p.problem_mark.column + 1;
			}
			if (p.context != NULL)
				rc = fail(doc, (uint32_t)line, (uint32_t)col,
				    "%s %s", p.context,
				    p.problem ? p.problem : "syntax error");
			else
				rc = fail(doc, (uint32_t)line, (uint32_t)col,
				    "%s", p.problem ? p.problem :
				    "syntax error");
			break;
		}
		done = ev.type == YAML_STREAM_END_EVENT;
		rc = event(&b, &ev);
		yaml_event_delete(&ev);
	}
	yaml_parser_delete(&p);
	strmap_free(&b.anchors, NULL);
	if (rc < 0)
		doc->root = NULL;
	return rc;
}

/*
 * Compiled on first use and kept for the life of the process: compiling
 * them cost more than parsing a whole config, and a linter or a fuzzer
 * parses thousands.
 */
static const regex_t *
resolvers(void)
{
	static regex_t re[NRE];
	static int compiled;
	int i;

	if (!compiled) {
		for (i = 0; i < NRE; i++)
			if (regcomp(&re[i], re_text[i],
			    REG_EXTENDED | REG_NOSUB))
				die("cannot compile a YAML resolver");
		compiled = 1;
	}
	return re;
}

static int
event(struct builder *b, yaml_event_t *ev)
{
	struct ydoc *doc = b->doc;
	uint32_t line = (uint32_t)ev->start_mark.line + 1;
	uint32_t col = (uint32_t)ev->start_mark.column + 1;
	struct ynode *n, *seq;
	struct strent *e;
	struct frame *f;
	const char *anchor = NULL, *tag = NULL;
	int kind;

	switch (ev->type) {
	case YAML_DOCUMENT_START_EVENT:
		if (b->docs++ > 0)
			return fail(doc, line, col,
			    "expected a single document in the stream");
		return 0;
	case YAML_ALIAS_EVENT:
		anchor = (const char *)ev->data.alias.anchor;
		e = strmap_get(&b->anchors, anchor, strlen(anchor));
		if (e == NULL)
			return fail(doc, line, col,
			    "found undefined alias '%s'", anchor);
		n = e->val;
		if (n->open)
			return fail(doc, line, col,
			    "recursive alias '%s' is not supported", anchor);
		/*
		 * Checked here, before anything is copied: a merge of this
		 * alias copies no more pairs than it counts.
		 */
		if (n->size > YAML_MAX_EXPAND - b->expand)
			return fail(doc, line, col, "aliases expand to more"
			    " than %d bytes", YAML_MAX_EXPAND);
		b->expand += n->size;
		return attach(b, n, NULL);
	case YAML_SCALAR_EVENT:
		if (scalar(b, ev, &n) < 0)
			return -1;
		return attach(b, n, (const char *)ev->data.scalar.anchor);
	case YAML_SEQUENCE_START_EVENT:
	case YAML_MAPPING_START_EVENT:
		if (ev->type == YAML_SEQUENCE_START_EVENT) {
			tag = (const char *)ev->data.sequence_start.tag;
			anchor = (const char *)ev->data.sequence_start.anchor;
			n = node_new(doc, Y_SEQ, line, col);
			kind = tag_kind(doc, n, tag, K_SEQ);
		} else {
			tag = (const char *)ev->data.mapping_start.tag;
			anchor = (const char *)ev->data.mapping_start.anchor;
			n = node_new(doc, Y_MAP, line, col);
			kind = tag_kind(doc, n, tag, K_MAP);
		}
		/* Open before attach(): an item of !!omap waits for its end. */
		n->open = 1;
		if (kind < 0 || attach(b, n, anchor) < 0)
			return -1;
		if (b->depth == MAX_DEPTH)
			return fail(doc, line, col,
			    "nesting is deeper than %d levels", MAX_DEPTH);
		b->stack[b->depth].node = n;
		b->stack[b->depth].key = NULL;
		b->stack[b->depth].kind = kind;
		b->depth++;
		return 0;
	case YAML_SEQUENCE_END_EVENT:
	case YAML_MAPPING_END_EVENT:
		f = &b->stack[--b->depth];
		n = f->node;
		n->open = 0;
		/*
		 * An item of !!omap or !!pairs is read as its pairs are
		 * written: no merge, no hashing, whatever its own tag.
		 */
		if (n->type == Y_MAP && b->depth > 0 &&
		    f[-1].kind >= K_OMAP && (seq = f[-1].node)->n > 0 &&
		    seq->v[seq->n - 1] == n) {
			close_node(n);
			return pair_item(b, &f[-1], n, 1);
		}
		if (n->type == Y_MAP && (flatten(doc, n) < 0 ||
		    hashable_keys(doc, n) < 0))
			return -1;
		if (f->kind == K_SET)
			make_set(n);
		close_node(n);
		return 0;
	default:
		return 0;
	}
}

/* Hangs n under the open collection, or makes it the root. */
static int
attach(struct builder *b, struct ynode *n, const char *anchor)
{
	struct frame *f;

	if (anchor != NULL)
		strmap_put(&b->anchors, anchor, strlen(anchor))->val = n;
	if (b->depth == 0) {
		b->doc->root = n;
		return 0;
	}
	f = &b->stack[b->depth - 1];
	if (f->kind >= K_OMAP && !(n->type == Y_MAP && n->open))
		return pair_item(b, f, n, 0);
	if (f->node->type == Y_SEQ)
		yseq_push(f->node, n);
	else if (f->key == NULL)
		f->key = n;
	else {
		add_pair(f->node, f->key, n);
		f->key = NULL;
	}
	return 0;
}

static void
add_pair(struct ynode *map, struct ynode *k, struct ynode *v)
{
	if (2 * map->n + 2 > map->cap) {
		map->cap = map->cap ? map->cap * 2 : 8;
		map->v = xreallocarray(map->v, map->cap, sizeof(*map->v));
	}
	map->v[2 * map->n] = k;
	map->v[2 * map->n + 1] = v;
	map->n++;
}

/* A closed collection: its expanded size, and a map's index. */
static void
close_node(struct ynode *n)
{
	size_t i, items = n->type == Y_MAP ? 2 * n->n : n->n;

	/* No sum overflows: each item's size was held to the budget. */
	n->size = 1;
	for (i = 0; i < items; i++)
		n->size += n->v[i]->size;
	if (n->type == Y_MAP && n->n > INDEX_MIN)
		index_map(n);
}

/* Indexes every string key of map; of equal keys the last pair wins. */
static void
index_map(struct ynode *map)
{
	struct ynode *k;
	size_t i;

	if (map->index == NULL)
		map->index = xcalloc(1, sizeof(*map->index));
	for (i = 0; i < map->n; i++) {
		k = map->v[2 * i];
		if (k->type == Y_STR)
			strmap_put(map->index, k->s, k->len)->n = i;
	}
}

/* The index of the last pair whose key is the string key, or -1. */
static long
find_key(const struct ynode *map, const char *key, size_t len)
{
	struct strent *e;
	size_t i;

	if (map == NULL || map->type != Y_MAP)
		return -1;
	if (map->index != NULL) {
		e = strmap_get(map->index, key, len);
		return e != NULL ? (long)e->n : -1;
	}
	for (i = map->n; i-- > 0;)
		if (map->v[2 * i]->type == Y_STR && map->v[2 * i]->len == len &&
		    memcmp(map->v[2 * i]->s, key, len) == 0)
			return (long)i;
	return -1;
}

static int
is_merge(const struct ynode *k)
{
	return k->plain && k->type == Y_STR && strcmp(k->s, "<<") == 0;
}

/*
 * PyYAML's flatten_mapping: the pairs of merged maps come first (of a list
 * of maps, the first one last, so that it wins), then the map's own.
 */
static int
flatten(struct ydoc *doc, struct ynode *map)
{
	struct ynode **old = map->v, *val, *src;
	size_t i, j, k, n = map->n, merges = 0;

	for (i = 0; i < n; i++)
		merges += is_merge(old[2 * i]);
	if (merges == 0)
		return 0;
	map->v = NULL;
	map->n = map->cap = 0;
	for (i = 0; i < n; i++) {
		if (!is_merge(old[2 * i]))
			continue;
		val = old[2 * i + 1];
		if (val->type == Y_MAP) {
			for (j = 0; j < val->n; j++)
				add_pair(map, val->v[2 * j], val->v[2 * j + 1]);
			continue;
		}
		if (val->type != Y_SEQ) {
			free(old);
			return fail(doc, val->line, val->col, "expected a"
			    " mapping or list of mappings for merging");
		}
		for (k = val->n; k-- > 0;) {
			src = val->v[k];
			if (src->type != Y_MAP) {
				free(old);
				return fail(doc, src->line, src->col,
				    "expected a mapping for merging");
			}
			for (j = 0; j < src->n; j++)
				add_pair(map, src->v[2 * j], src->v[2 * j + 1]);
		}
	}
	map->nmerged = map->n;
	for (i = 0; i < n; i++)
		if (!is_merge(old[2 * i]))
			add_pair(map, old[2 * i], old[2 * i + 1]);
	free(old);
	return 0;
}

static int
scalar(struct builder *b, yaml_event_t *ev, struct ynode **out)
{
	struct ynode *n;
	const char *tag = (const char *)ev->data.scalar.tag;
	int i;

	n = node_new(b->doc, Y_STR, (uint32_t)ev->start_mark.line + 1,
	    (uint32_t)ev->start_mark.column + 1);
	n->s = xmemdup(ev->data.scalar.value, ev->data.scalar.length);
	n->len = ev->data.scalar.length;
	n->size = 1 + n->len;
	*out = n;
	if (tag == NULL && ev->data.scalar.plain_implicit) {
		n->plain = 1;
		for (i = 0; i < NRE; i++)
			if (strlen(n->s) == n->len &&
			    regexec(&b->re[i], n->s, 0, NULL, 0) == 0)
				break;
		switch (i) {
		case RE_BOOL:
			n->type = Y_BOOL;
			n->i = strchr("yYtT", n->s[0]) != NULL ||
			    (n->s[1] == 'n' || n->s[1] == 'N');
			return 0;
		case RE_FLOAT:
			return make_float(n);
		case RE_INT:
			return make_int(n);
		case RE_NULL:
			n->type = Y_NULL;
			return 0;
		case RE_TIME:
			n->type = Y_TIME;
			return 0;
		default:
			return 0;
		}
	}
	if (tag == NULL || strcmp(tag, "!") == 0 || strcmp(tag, TAG "str") == 0)
		return 0;
	return construct(b, n, tag);
}

/* An explicitly tagged scalar: safe_load's constructors, or its error. */
static int
construct(struct builder *b, struct ynode *n, const char *tag)
{
	struct ydoc *doc = b->doc;

	if (tag_kind(doc, n, tag, K_SCALAR) < 0)
		return -1;
	if (strcmp(tag, TAG "null") == 0) {
		n->type = Y_NULL;
		return 0;
	}
	if (strcmp(tag, TAG "bool") == 0) {
		if (strcasecmp(n->s, "yes") != 0 &&
		    strcasecmp(n->s, "no") != 0 &&
		    strcasecmp(n->s, "true") != 0 &&
		    strcasecmp(n->s, "false") != 0 &&
		    strcasecmp(n->s, "on") != 0 &&
		    strcasecmp(n->s, "off") != 0)
			return fail(doc, n->line, n->col,
			    "'%s' is not a boolean", n->s);
		n->type = Y_BOOL;
		n->i = strchr("yYtT", n->s[0]) != NULL ||
		    (n->s[1] == 'n' || n->s[1] == 'N');
		return 0;
	}
	if (strcmp(tag, TAG "int") == 0) {
		if (regexec(&b->re[RE_INT], n->s, 0, NULL, 0) != 0)
			return fail(doc, n->line, n->col,
			    "'%s' is not an integer", n->s);
		return make_int(n);
	}
	if (strcmp(tag, TAG "float") == 0) {
		if (regexec(&b->re[RE_FLOAT], n->s, 0, NULL, 0) != 0 &&
		    regexec(&b->re[RE_INT], n->s, 0, NULL, 0) != 0)
			return fail(doc, n->line, n->col,
			    "'%s' is not a float", n->s);
		return make_float(n);
	}
	if (strcmp(tag, TAG "timestamp") == 0) {
		if (regexec(&b->re[RE_TIME], n->s, 0, NULL, 0) != 0)
			return fail(doc, n->line, n->col,
			    "'%s' is not a timestamp", n->s);
		n->type = Y_TIME;
		return 0;
	}
	/* tag_kind() left one scalar tag: !!binary. */
	return make_bytes(doc, n);
}

/*
 * The kind of node an explicit tag makes of a node of the given shape, or
 * -1 with PyYAML's error: a standard tag on a node of another shape, or a
 * tag that safe_load has no constructor for.
 */
static int
tag_kind(struct ydoc *doc, const struct ynode *n, const char *tag, int shape)
{
	static const char *const shapes[] = {
		"scalar", "sequence", "mapping"
	};
	size_t i, plen = sizeof(TAG) - 1;

	if (tag == NULL || strcmp(tag, "!") == 0)
		return shape;
	for (i = 0; i < sizeof(stdtags) / sizeof(stdtags[0]); i++) {
		if (strncmp(tag, TAG, plen) != 0 ||
		    strcmp(tag + plen, stdtags[i].name) != 0)
			continue;
		if (stdtags[i].shape != shape)
			return fail(doc, n->line, n->col, "%s, but found %s",
			    stdtags[i].want, shapes[shape]);
		return stdtags[i].kind;
	}
	return fail(doc, n->line, n->col,
	    "could not determine a constructor for the tag '%s'", tag);
}

/*
 * PyYAML's construct_yaml_binary: the text as ASCII, then
 * base64.decodebytes(), which skips what is not in the alphabet and stops
 * at a pad that ends a group of four.  The errors are binascii's.
 */
static int
make_bytes(struct ydoc *doc, struct ynode *n)
{
	const unsigned char *u = (const unsigned char *)n->s;
	unsigned char *out;
	const char *p;
	size_t i, j, k, o = 0, pos = 0, run;
	unsigned left = 0;
	int quad = 0, pads = 0;
	uint32_t c;

	for (i = 0; i < n->len; i += k, pos++) {
		c = utf8_at(u + i, n->len - i, &k);
		if (c < 0x80)
			continue;
		/* Python's codec names the whole run it cannot encode. */
		for (run = 1, j = i + k; j < n->len && u[j] >= 0x80; run++) {
			(void)utf8_at(u + j, n->len - j, &k);
			j += k;
		}
		if (run > 1)
			return fail(doc, n->line, n->col, "failed to convert"
			    " base64 data into ascii: 'ascii' codec can't"
			    " encode characters in position %zu-%zu: ordinal"
			    " not in range(128)", pos, pos + run - 1);
		return fail(doc, n->line, n->col, "failed to convert base64"
		    " data into ascii: 'ascii' codec can't encode character"
		    " '\\%s%0*x' in position %zu: ordinal not in range(128)",
		    c < 0x100 ? "x" : c < 0x10000 ? "u" : "U",
		    c < 0x100 ? 2 : c < 0x10000 ? 4 : 8, (unsigned)c, pos);
	}
	out = xmalloc(n->len / 4 * 3 + 4);
	for (i = 0; i < n->len; i++) {
		if (u[i] == '=') {
			if (quad >= 2 && quad + ++pads >= 4)
				break;
			continue;
		}
		if (u[i] == '\0' || (p = strchr(b64, u[i])) == NULL)
			continue;
		c = (uint32_t)(p - b64);
		pads = 0;
		switch (quad) {
		case 0:
			left = c;
			break;
		case 1:
			out[o++] = (unsigned char)(left << 2 | c >> 4);
			left = c & 0x0f;
			break;
		case 2:
			out[o++] = (unsigned char)(left << 4 | c >> 2);
			left = c & 0x03;
			break;
		default:
			out[o++] = (unsigned char)(left << 6 | c);
			break;
		}
		quad = (quad + 1) % 4;
	}
	if (i == n->len && quad != 0) {
		free(out);
		if (quad == 1)
			return fail(doc, n->line, n->col, "failed to decode"
			    " base64 data: Invalid base64-encoded string:"
			    " number of data characters (%zu) cannot be 1 more"
			    " than a multiple of 4", o / 3 * 4 + 1);
		return fail(doc, n->line, n->col, "failed to decode base64"
		    " data: Incorrect padding");
	}
	out[o] = '\0';
	free(n->s);
	n->s = (char *)out;
	n->len = o;
	n->type = Y_BYTES;
	return 0;
}

/*
 * PyYAML's construct_mapping takes only hashable keys: a list, a dict or
 * a set as a key is an error at that key.
 */
static int
hashable_keys(struct ydoc *doc, const struct ynode *map)
{
	const struct ynode *k;
	size_t i;

	for (i = 0; i < map->n; i++) {
		k = map->v[2 * i];
		if (k->type == Y_SEQ || k->type == Y_MAP || k->type == Y_SET)
			return fail(doc, k->line, k->col, "while constructing"
			    " a mapping found unhashable key");
	}
	return 0;
}

struct item {
	struct ynode	*node;
	size_t		 at;
};

/* The order of a set's items (pyyaml.h); equal ones in document order. */
static int
cmp_items(const void *x, const void *y)
{
	const struct item *a = x, *b = y;
	int c = cmp_value(a->node, b->node);

	if (c != 0)
		return c;
	return a->at < b->at ? -1 : a->at > b->at;
}

/*
 * PyYAML's construct_yaml_set: the keys of a (merged) map, one of each
 * group of equal ones, the first; they take the order of pyyaml.h.
 */
static void
make_set(struct ynode *n)
{
	struct item *it;
	size_t i, m = 0;

	it = xreallocarray(NULL, n->n + 1, sizeof(*it));
	for (i = 0; i < n->n; i++) {
		it[i].node = n->v[2 * i];
		it[i].at = i;
	}
	xqsort(it, n->n, sizeof(*it), cmp_items);
	for (i = 0; i < n->n; i++) {
		/* A NaN equals no other, but an alias is the same one. */
		if (m > 0 && cmp_value(n->v[m - 1], it[i].node) == 0 &&
		    ynode_equal(n->v[m - 1], it[i].node))
			continue;
		n->v[m++] = it[i].node;
	}
	free(it);
	n->n = m;
	n->nmerged = 0;
	n->type = Y_SET;
}

/*
 * One item of !!omap or !!pairs as a (key, value) tuple: a mapping of one
 * pair.  The item as written (written set, already the sequence's last)
 * is counted before merges, and a merge key is not read as one; one that
 * an alias names is counted as read, and a set's item pairs with None.
 */
static int
pair_item(struct builder *b, struct frame *f, struct ynode *n, int written)
{
	struct ydoc *doc = b->doc;
	struct ynode *seq = f->node, *t;
	const char *ctx = f->kind == K_OMAP ?
	    "while constructing an ordered map" : "while constructing pairs";

	if (n->type != Y_MAP && n->type != Y_SET)
		return fail(doc, n->line, n->col, "%s expected a mapping of"
		    " length 1, but found %s", ctx, n->type == Y_SEQ ?
		    "sequence" : "scalar");
	if (n->n != 1)
		return fail(doc, n->line, n->col, "%s expected a single"
		    " mapping item, but found %zu items", ctx, n->n);
	if (written && is_merge(n->v[0]))
		return fail(doc, n->v[0]->line, n->v[0]->col, "could not"
		    " determine a constructor for the tag '" TAG "merge'");
	t = make_tuple(doc, n->v[0], n->type == Y_MAP ? n->v[1] :
	    ynode_null(doc), n);
	if (written)
		seq->v[seq->n - 1] = t;
	else
		yseq_push(seq, t);
	return 0;
}

/* A (k, v) tuple placed where at is. */
static struct ynode *
make_tuple(struct ydoc *doc, struct ynode *k, struct ynode *v,
    const struct ynode *at)
{
	struct ynode *t = node_new(doc, Y_TUPLE, at->line, at->col);

	yseq_push(t, k);
	yseq_push(t, v);
	t->size = 1 + k->size + v->size;
	return t;
}

/*
 * PyYAML's construct_yaml_int: 0b, 0x, a leading 0 for octal, base-60
 * parts separated by ':'.  Beyond 64 bits only the text is kept.
 */
static int
make_int(struct ynode *n)
{
	const char *p = n->s;
	int neg = 0, base = 10, ok = 1;
	uint64_t v = 0, d, part;
	double approx = 0;

	n->type = Y_INT;
	if (*p == '-' || *p == '+')
		neg = *p++ == '-';
	if (strchr(p, ':') != NULL) {
		while (*p != '\0') {
			for (part = 0; *p != '\0' && *p != ':'; p++)
				if (*p != '_')
					part = part * 10 + (uint64_t)(*p - '0');
			if (*p == ':')
				p++;
			approx = approx * 60 + (double)part;
			ok = ok && !__builtin_mul_overflow(v, 60, &v) &&
			    !__builtin_add_overflow(v, part, &v);
		}
	} else {
		if (p[0] == '0' && p[1] == 'b')
			base = 2, p += 2;
		else if (p[0] == '0' && p[1] == 'x')
			base = 16, p += 2;
		else if (p[0] == '0')
			base = 8;
		for (; *p != '\0'; p++) {
			if (*p == '_')
				continue;
			d = (uint64_t)(*p >= 'a' ? *p - 'a' + 10 :
			    *p >= 'A' ? *p - 'A' + 10 : *p - '0');
			approx = approx * base + (double)d;
			ok = ok &&
			    !__builtin_mul_overflow(v, (uint64_t)base, &v) &&
			    !__builtin_add_overflow(v, d, &v);
		}
	}
	if (ok && v <= (uint64_t)INT64_MAX + (uint64_t)neg)
		n->i = neg ? (int64_t)(0 - v) : (int64_t)v;
	else {
		n->big = 1;
		/* Near enough to order it among numbers in a set. */
		n->d = neg ? -approx : approx;
	}
	return 0;
}

/* PyYAML's construct_yaml_float; base-60 parts fold left to right. */
static int
make_float(struct ynode *n)
{
	char t[128], *p, *colon;
	size_t k = 0;
	const char *s;
	double sign = 1, v = 0;

	n->type = Y_FLOAT;
	for (s = n->s; *s != '\0' && k + 1 < sizeof(t); s++)
		if (*s != '_')
			t[k++] = (char)(*s >= 'A' && *s <= 'Z' ? *s + 32 : *s);
	t[k] = '\0';
	p = t;
	if (*p == '-' || *p == '+')
		sign = *p++ == '-' ? -1 : 1;
	if (strcmp(p, ".inf") == 0)
		n->d = sign * INFINITY;
	else if (strcmp(p, ".nan") == 0)
		n->d = NAN;
	else {
		while ((colon = strchr(p, ':')) != NULL) {
			*colon = '\0';
			v = v * 60 + strtod(p, NULL);
			p = colon + 1;
		}
		n->d = sign * (v * 60 + strtod(p, NULL));
	}
	return 0;
}

void
ydoc_free(struct ydoc *doc)
{
	size_t i;

	for (i = 0; i < doc->nall; i++) {
		if (doc->all[i]->index != NULL) {
			strmap_free(doc->all[i]->index, NULL);
			free(doc->all[i]->index);
		}
		free(doc->all[i]->s);
		free(doc->all[i]->v);
		free(doc->all[i]);
	}
	free(doc->all);
	doc->all = NULL;
	doc->nall = doc->capall = 0;
	doc->root = NULL;
}

struct ynode *
ynode_null(struct ydoc *doc)
{
	return node_new(doc, Y_NULL, 0, 0);
}

struct ynode *
ynode_bool(struct ydoc *doc, int b)
{
	struct ynode *n = node_new(doc, Y_BOOL, 0, 0);

	n->i = b != 0;
	return n;
}

struct ynode *
ynode_int(struct ydoc *doc, int64_t i)
{
	struct ynode *n = node_new(doc, Y_INT, 0, 0);

	n->i = i;
	return n;
}

struct ynode *
ynode_str(struct ydoc *doc, const char *s)
{
	struct ynode *n = node_new(doc, Y_STR, 0, 0);

	n->s = xstrdup(s);
	n->len = strlen(s);
	return n;
}

struct ynode *
ynode_seq(struct ydoc *doc)
{
	return node_new(doc, Y_SEQ, 0, 0);
}

struct ynode *
ynode_map(struct ydoc *doc)
{
	return node_new(doc, Y_MAP, 0, 0);
}

void
yseq_push(struct ynode *seq, struct ynode *v)
{
	if (seq->n == seq->cap) {
		seq->cap = seq->cap ? seq->cap * 2 : 8;
		seq->v = xreallocarray(seq->v, seq->cap, sizeof(*seq->v));
	}
	seq->v[seq->n++] = v;
}

void
ymap_set(struct ydoc *doc, struct ynode *map, const char *key,
    struct ynode *v)
{
	long i;

	if ((i = find_key(map, key, strlen(key))) >= 0) {
		map->v[2 * i + 1] = v;
		return;
	}
	add_pair(map, ynode_str(doc, key), v);
	if (map->index != NULL)
		strmap_put(map->index, key, strlen(key))->n = map->n - 1;
	else if (map->n > INDEX_MIN)
		index_map(map);
}

struct ynode *
ymap_key(const struct ynode *map, const char *key)
{
	long i = find_key(map, key, strlen(key));

	return i >= 0 ? map->v[2 * i] : NULL;
}

struct ynode *
ymap_get(const struct ynode *map, const char *key)
{
	long i = find_key(map, key, strlen(key));

	return i >= 0 ? map->v[2 * i + 1] : NULL;
}

const char *
ytype_name(const struct ynode *n)
{
	static const char *const names[] = {
		"NoneType", "bool", "int", "float", "str", "bytes",
		"datetime.date", "list", "tuple", "set", "dict"
	};

	if (n->type == Y_TIME && n->len > 10)
		return "datetime.datetime";
	return names[n->type];
}

/* Python's float repr: the shortest round trip, 'r' style. */
static void
put_float(FILE *f, double d)
{
	char buf[40], digits[24], *e;
	int prec, exp, nd, i;

	if (isnan(d)) {
		fputs("nan", f);
		return;
	}
	if (isinf(d)) {
		fputs(d < 0 ? "-inf" : "inf", f);
		return;
	}
	for (prec = 0; prec < 17; prec++) {
		snprintf(buf, sizeof(buf), "%.*e", prec, d);
		if (strtod(buf, NULL) == d)
			break;
	}
	/* buf is [-]d[.ddd]e[+-]xx: split it into digits and exponent. */
	e = strchr(buf, 'e');
	exp = atoi(e + 1);
	*e = '\0';
	nd = 0;
	for (i = 0; buf[i] != '\0'; i++)
		if (buf[i] >= '0' && buf[i] <= '9')
			digits[nd++] = buf[i];
	digits[nd] = '\0';
	while (nd > 1 && digits[nd - 1] == '0')
		digits[--nd] = '\0';
	if (signbit(d))
		fputc('-', f);
	if (exp < -4 || exp >= 16) {
		fputc(digits[0], f);
		if (nd > 1)
			fprintf(f, ".%s", digits + 1);
		fprintf(f, "e%c%02d", exp < 0 ? '-' : '+', abs(exp));
	} else if (exp < 0) {
		fputs("0.", f);
		for (i = -1; i > exp; i--)
			fputc('0', f);
		fputs(digits, f);
	} else {
		for (i = 0; i <= exp; i++)
			fputc(i < nd ? digits[i] : '0', f);
		fputc('.', f);
		fputs(nd > exp + 1 ? digits + exp + 1 : "0", f);
	}
}

/*
 * repr() of bytes: quoted as a str is, and every byte that is not
 * printable ASCII escaped.
 */
static void
put_bytes(FILE *f, const char *s, size_t len)
{
	const unsigned char *u = (const unsigned char *)s;
	int q = '\'';
	size_t i;

	if (memchr(s, '\'', len) != NULL && memchr(s, '"', len) == NULL)
		q = '"';
	fprintf(f, "b%c", q);
	for (i = 0; i < len; i++) {
		if (u[i] == '\\' || u[i] == q)
			fprintf(f, "\\%c", u[i]);
		else if (u[i] == '\n')
			fputs("\\n", f);
		else if (u[i] == '\r')
			fputs("\\r", f);
		else if (u[i] == '\t')
			fputs("\\t", f);
		else if (u[i] < 0x20 || u[i] >= 0x7f)
			fprintf(f, "\\x%02x", u[i]);
		else
			fputc(u[i], f);
	}
	fputc(q, f);
}

/* str(n), or repr(n) when repr is set; f counts toward MAX_REPR. */
static void
put_str(FILE *f, const struct ynode *n, int repr)
{
	size_t i;
	char *r;

	if (ftell(f) > MAX_REPR) {
		fputs("...", f);
		return;
	}
	switch (n->type) {
	case Y_NULL:
		fputs("None", f);
		break;
	case Y_BOOL:
		fputs(n->i ? "True" : "False", f);
		break;
	case Y_INT:
		if (n->big) {
			for (i = 0; i < n->len; i++)
				if (n->s[i] != '_' && n->s[i] != '+')
					fputc(n->s[i], f);
		} else
			fprintf(f, "%" PRId64, n->i);
		break;
	case Y_FLOAT:
		put_float(f, n->d);
		break;
	case Y_STR:
		if (repr) {
			r = py_repr_str(n->s, n->len);
			fputs(r, f);
			free(r);
		} else
			fwrite(n->s, 1, n->len, f);
		break;
	case Y_BYTES:
		put_bytes(f, n->s, n->len);
		break;
	case Y_TIME:
		if (repr)
			fprintf(f, "datetime(%s)", n->s);
		else
			fputs(n->s, f);
		break;
	case Y_SEQ:
	case Y_TUPLE:
	case Y_SET:
		if (n->type == Y_SET && n->n == 0) {
			fputs("set()", f);
			break;
		}
		fputc(n->type == Y_SEQ ? '[' : n->type == Y_SET ? '{' : '(',
		    f);
		for (i = 0; i < n->n; i++) {
			if (i > 0)
				fputs(", ", f);
			put_str(f, n->v[i], 1);
		}
		if (n->type == Y_TUPLE && n->n == 1)
			fputc(',', f);
		fputc(n->type == Y_SEQ ? ']' : n->type == Y_SET ? '}' : ')',
		    f);
		break;
	case Y_MAP:
		fputc('{', f);
		for (i = 0; i < n->n; i++) {
			if (i > 0)
				fputs(", ", f);
			put_str(f, n->v[2 * i], 1);
			fputs(": ", f);
			put_str(f, n->v[2 * i + 1], 1);
		}
		fputc('}', f);
		break;
	}
}

char *
py_str(const struct ynode *n)
{
	char *p = NULL;
	size_t len = 0;
	FILE *f;

	if ((f = open_memstream(&p, &len)) == NULL)
		die("out of memory");
	put_str(f, n, 0);
	if (fclose(f) != 0)
		die("out of memory");
	return p;
}

/*
 * The first code points of Unicode's decimal digit runs (category Nd, each
 * 0 to 9 in a row), as unicodedata 14.0 (Python 3.11) has them.
 */
static const uint32_t nd_zero[] = {
	0x30, 0x660, 0x6f0, 0x7c0, 0x966, 0x9e6, 0xa66, 0xae6, 0xb66, 0xbe6,
	0xc66, 0xce6, 0xd66, 0xde6, 0xe50, 0xed0, 0xf20, 0x1040, 0x1090,
	0x17e0, 0x1810, 0x1946, 0x19d0, 0x1a80, 0x1a90, 0x1b50, 0x1bb0, 0x1c40,
	0x1c50, 0xa620, 0xa8d0, 0xa900, 0xa9d0, 0xa9f0, 0xaa50, 0xabf0, 0xff10,
	0x104a0, 0x10d30, 0x11066, 0x110f0, 0x11136, 0x111d0, 0x112f0, 0x11450,
	0x114d0, 0x11650, 0x116c0, 0x11730, 0x118e0, 0x11950, 0x11c50, 0x11d50,
	0x11da0, 0x16a60, 0x16ac0, 0x16b50, 0x1d7ce, 0x1d7d8, 0x1d7e2, 0x1d7ec,
	0x1d7f6, 0x1e140, 0x1e2f0, 0x1e950, 0x1fbf0
};

/* Non-ASCII white space, as Python's str.isspace() has it. */
static int
uni_space(uint32_t c)
{
	return c == 0x85 || c == 0xa0 || c == 0x1680 ||
	    (c >= 0x2000 && c <= 0x200a) || c == 0x2028 || c == 0x2029 ||
	    c == 0x202f || c == 0x205f || c == 0x3000;
}

/*
 * The code point at s (UTF-8, as libyaml has checked it) and its length;
 * a byte that starts no sequence counts as itself.
 */
static uint32_t
utf8_at(const unsigned char *s, size_t n, size_t *len)
{
	uint32_t c = s[0];
	size_t k, i;

	k = c >= 0xf0 ? 4 : c >= 0xe0 ? 3 : c >= 0xc0 ? 2 : 1;
	if (k > n)
		k = 1;
	if (k > 1)
		c &= 0x3f >> (k - 1);
	for (i = 1; i < k; i++)
		c = c << 6 | (s[i] & 0x3f);
	*len = k;
	return c;
}

/*
 * What repr() escapes beyond ASCII and the non-ASCII blanks: the C1
 * controls, the soft hyphen, and Unicode's format characters that reorder
 * or hide text (bidi controls, zero widths, the byte order mark), which
 * Python's str.isprintable() refuses as category Cf.  Python escapes every
 * unprintable code point; these are the ones that change what is shown.
 */
static int
uni_hidden(uint32_t c)
{
	return (c >= 0x80 && c <= 0x9f) || c == 0xad || uni_space(c) ||
	    c == 0x61c || c == 0x180e || (c >= 0x200b && c <= 0x200f) ||
	    (c >= 0x202a && c <= 0x202e) || (c >= 0x2060 && c <= 0x206f) ||
	    c == 0xfeff || (c >= 0xfff9 && c <= 0xfffb);
}

char *
py_repr_str(const char *s, size_t len)
{
	char *p = NULL;
	size_t n = 0, i;
	FILE *f;
	int q = '\'';
	const unsigned char *u = (const unsigned char *)s;

	if (memchr(s, '\'', len) != NULL && memchr(s, '"', len) == NULL)
		q = '"';
	if ((f = open_memstream(&p, &n)) == NULL)
		die("out of memory");
	fputc(q, f);
	for (i = 0; i < len; i++) {
		if (u[i] == '\\' || u[i] == q)
			fprintf(f, "\\%c", u[i]);
		else if (u[i] == '\n')
			fputs("\\n", f);
		else if (u[i] == '\r')
			fputs("\\r", f);
		else if (u[i] == '\t')
			fputs("\\t", f);
		else if (u[i] < 0x20 || u[i] == 0x7f)
			fprintf(f, "\\x%02x", u[i]);
		else if (u[i] < 0x80)
			fputc(u[i], f);
		else {
			size_t k;
			uint32_t c = utf8_at(u + i, len - i, &k);

			if (!uni_hidden(c))
				fwrite(u + i, 1, k, f);
			else if (c < 0x100)
				fprintf(f, "\\x%02x", (unsigned)c);
			else
				fprintf(f, "\\u%04x", (unsigned)c);
			i += k - 1;
		}
	}
	fputc(q, f);
	if (fclose(f) != 0)
		die("out of memory");
	return p;
}

/*
 * Python's int(str): blanks around, one sign, digits with single '_'
 * between them.  CPython first turns every Unicode decimal digit into its
 * ASCII twin and other white space into a blank
 * (_PyUnicode_TransformDecimalAndSpaceToASCII), then takes the blanks of
 * C's isspace(), so that int("\uff11\uff12") is 12 and a U+001C around
 * the digits is an error.  int(bytes) takes ASCII only (bytes set).
 * Returns 0, -1 for no integer, -2 past 64 bits.
 */
static int
str_int(const char *s, size_t len, int bytes, int64_t *out)
{
	char *a = xmalloc(len + 1);
	size_t i = 0, j = 0, k, n;
	int neg = 0, digits = 0, rc = -1;
	uint64_t v = 0;
	uint32_t c;

	while (i < len) {
		c = utf8_at((const unsigned char *)s + i, len - i, &n);
		i += n;
		if (c < 0x80) {
			a[j++] = (char)c;
			continue;
		}
		if (bytes)
			goto out;
		if (uni_space(c)) {
			a[j++] = ' ';
			continue;
		}
		for (k = 0; k < sizeof(nd_zero) / sizeof(nd_zero[0]) &&
		    !(c >= nd_zero[k] && c < nd_zero[k] + 10); k++)
			;
		if (k == sizeof(nd_zero) / sizeof(nd_zero[0]))
			goto out;
		a[j++] = (char)('0' + (c - nd_zero[k]));
	}
	i = 0;
	while (i < j && a[i] != '\0' && strchr(" \t\n\r\v\f", a[i]) != NULL)
		i++;
	while (j > i && a[j - 1] != '\0' &&
	    strchr(" \t\n\r\v\f", a[j - 1]) != NULL)
		j--;
	if (i < j && (a[i] == '-' || a[i] == '+'))
		neg = a[i++] == '-';
	for (; i < j; i++) {
		if (a[i] == '_' && digits > 0 && i + 1 < j &&
		    a[i + 1] >= '0' && a[i + 1] <= '9')
			continue;
		if (a[i] < '0' || a[i] > '9')
			goto out;
		digits++;
		if (__builtin_mul_overflow(v, 10, &v) ||
		    __builtin_add_overflow(v, (uint64_t)(a[i] - '0'), &v)) {
			rc = -2;
			goto out;
		}
	}
	if (digits == 0)
		goto out;
	if (v > (uint64_t)INT64_MAX + (uint64_t)neg) {
		rc = -2;
		goto out;
	}
	*out = neg ? (int64_t)(0 - v) : (int64_t)v;
	rc = 0;
out:
	free(a);
	return rc;
}

int
py_int(const struct ynode *n, int64_t *out, char *err, size_t errsz)
{
	char *r;
	int rc;

	switch (n->type) {
	case Y_BOOL:
		*out = n->i;
		return 0;
	case Y_INT:
		if (n->big)
			break;
		*out = n->i;
		return 0;
	case Y_FLOAT:
		if (isnan(n->d)) {
			snprintf(err, errsz, "cannot convert float NaN to"
			    " integer");
			return -1;
		}
		if (isinf(n->d)) {
			snprintf(err, errsz, "cannot convert float infinity"
			    " to integer");
			return -1;
		}
		if (n->d >= 0x1p63 || n->d < -0x1p63)
			break;
		*out = (int64_t)n->d;
		return 0;
	case Y_STR:
	case Y_BYTES:
		rc = str_int(n->s, n->len, n->type == Y_BYTES, out);
		if (rc == 0)
			return 0;
		if (rc == -2)
			break;
		r = n->type == Y_STR ? py_repr_str(n->s, n->len) : py_str(n);
		snprintf(err, errsz, "invalid literal for int() with base 10:"
		    " %s", r);
		free(r);
		return -1;
	default:
		snprintf(err, errsz, "int() argument must be a string, a"
		    " bytes-like object or a real number, not '%s'",
		    ytype_name(n));
		return -1;
	}
	snprintf(err, errsz, "integer is out of range for this tool");
	return -1;
}

int
py_bool(const struct ynode *n)
{
	switch (n->type) {
	case Y_NULL:
		return 0;
	case Y_BOOL:
		return n->i != 0;
	case Y_INT:
		return n->i != 0 || n->big;
	case Y_FLOAT:
		return n->d != 0;
	case Y_STR:
	case Y_BYTES:
		return n->len > 0;
	case Y_TIME:
		return 1;
	default:
		return n->n > 0;
	}
}

/* A value's place among a set's items: None, numbers, str, bytes, dates. */
static int
rank(const struct ynode *n)
{
	switch (n->type) {
	case Y_NULL:
		return 0;
	case Y_BOOL:
	case Y_INT:
	case Y_FLOAT:
		return 1;
	case Y_STR:
		return 2;
	case Y_BYTES:
		return 3;
	default:
		return 4;
	}
}

/* An int64 against a double, exactly, as Python compares them. */
static int
cmp_int_float(int64_t x, double d)
{
	double t;

	if (d >= 0x1p63)
		return -1;
	if (d < -0x1p63)
		return 1;
	t = trunc(d);
	if (x != (int64_t)t)
		return x < (int64_t)t ? -1 : 1;
	return t < d ? -1 : t > d;
}

/*
 * Numbers by value, a NaN after them all; an int past 64 bits is past
 * every smaller one on its side of zero, and among floats and its kind is
 * placed by its approximation, then its text.
 */
static int
cmp_num(const struct ynode *a, const struct ynode *b)
{
	int na = a->type == Y_FLOAT && isnan(a->d);
	int nb = b->type == Y_FLOAT && isnan(b->d);
	int ia = a->type != Y_FLOAT && !a->big;
	int ib = b->type != Y_FLOAT && !b->big;

	if (na || nb)
		return na - nb;
	if (ia && ib)
		return a->i < b->i ? -1 : a->i > b->i;
	if (ia && b->type == Y_FLOAT)
		return cmp_int_float(a->i, b->d);
	if (ib && a->type == Y_FLOAT)
		return -cmp_int_float(b->i, a->d);
	if (ib)
		return a->d < 0 ? -1 : 1;
	if (ia)
		return b->d < 0 ? 1 : -1;
	if (a->d != b->d)
		return a->d < b->d ? -1 : 1;
	return a->big && b->big ? strcmp(a->s, b->s) : 0;
}

/*
 * The order of a set's items (pyyaml.h); items that Python holds equal
 * compare 0, and so do two NaNs, which make_set() tells apart.
 */
static int
cmp_value(const struct ynode *a, const struct ynode *b)
{
	int ra = rank(a), rb = rank(b), c;
	size_t n;

	if (ra != rb)
		return ra < rb ? -1 : 1;
	switch (ra) {
	case 0:
		return 0;
	case 1:
		return cmp_num(a, b);
	default:
		n = a->len < b->len ? a->len : b->len;
		if ((c = memcmp(a->s, b->s, n)) != 0)
			return c;
		return a->len < b->len ? -1 : a->len > b->len;
	}
}

static int
is_num(const struct ynode *n)
{
	return (n->type == Y_INT && !n->big) || n->type == Y_BOOL ||
	    n->type == Y_FLOAT;
}

static const struct ynode *
map_find(const struct ynode *map, const struct ynode *key)
{
	size_t i;

	for (i = map->n; i-- > 0;)
		if (ynode_equal(map->v[2 * i], key))
			return map->v[2 * i + 1];
	return NULL;
}

int
ynode_equal(const struct ynode *a, const struct ynode *b)
{
	const struct ynode *v;
	size_t i, na = 0, nb = 0;

	if (a == b)
		return a->type != Y_FLOAT || !isnan(a->d);
	if (is_num(a) && is_num(b)) {
		if (a->type == Y_FLOAT || b->type == Y_FLOAT)
			return (a->type == Y_FLOAT ? a->d : (double)a->i) ==
			    (b->type == Y_FLOAT ? b->d : (double)b->i);
		return a->i == b->i;
	}
	if (a->type != b->type)
		return 0;
	switch (a->type) {
	case Y_NULL:
		return 1;
	case Y_INT:
	case Y_STR:
	case Y_BYTES:
	case Y_TIME:
		return a->len == b->len && memcmp(a->s, b->s, a->len) == 0;
	case Y_SEQ:
	case Y_TUPLE:
	case Y_SET:
		/* A set's items are in one order: item by item too. */
		if (a->n != b->n)
			return 0;
		for (i = 0; i < a->n; i++)
			if (!ynode_equal(a->v[i], b->v[i]))
				return 0;
		return 1;
	case Y_MAP:
		/* Distinct keys only: a repeated key counts once. */
		for (i = 0; i < a->n; i++) {
			if (map_find(a, a->v[2 * i]) != a->v[2 * i + 1])
				continue;
			na++;
			v = map_find(b, a->v[2 * i]);
			if (v == NULL || !ynode_equal(a->v[2 * i + 1], v))
				return 0;
		}
		for (i = 0; i < b->n; i++)
			nb += map_find(b, b->v[2 * i]) == b->v[2 * i + 1];
		return na == nb;
	default:
		return 0;
	}
}

struct sortkey {
	char	*key;
	size_t	 pair;
};

static int
cmp_keys(const void *x, const void *y)
{
	const struct sortkey *a = x, *b = y;
	int c = strcmp(a->key, b->key);

	if (c != 0)
		return c;
	return a->pair < b->pair ? -1 : a->pair > b->pair;
}

/* base64.b64encode(): padded, on one line; the caller frees it. */
static char *
base64(const char *s, size_t len)
{
	const unsigned char *u = (const unsigned char *)s;
	char *out = xmalloc((len + 2) / 3 * 4 + 1), *o = out;
	uint32_t v;
	size_t i;

	for (i = 0; i < len; i += 3) {
		v = (uint32_t)u[i] << 16;
		if (i + 1 < len)
			v |= (uint32_t)u[i + 1] << 8;
		if (i + 2 < len)
			v |= u[i + 2];
		*o++ = b64[v >> 18];
		*o++ = b64[v >> 12 & 0x3f];
		*o++ = i + 1 < len ? b64[v >> 6 & 0x3f] : '=';
		*o++ = i + 2 < len ? b64[v & 0x3f] : '=';
	}
	*o = '\0';
	return out;
}

void
ynode_json(struct jw *w, const struct ynode *n)
{
	struct sortkey *k;
	size_t i;
	char *s;

	switch (n->type) {
	case Y_NULL:
		jw_null(w);
		break;
	case Y_BOOL:
		jw_bool(w, n->i != 0);
		break;
	case Y_INT:
		if (n->big) {
			s = py_str(n);
			jw_cstring(w, s);
			free(s);
		} else
			jw_int(w, n->i);
		break;
	case Y_FLOAT:
		jw_double(w, n->d);
		break;
	case Y_STR:
	case Y_TIME:
		jw_string(w, n->s, n->len);
		break;
	case Y_BYTES:
		s = base64(n->s, n->len);
		jw_cstring(w, s);
		free(s);
		break;
	case Y_SEQ:
	case Y_TUPLE:
	case Y_SET:
		jw_begin_array(w);
		for (i = 0; i < n->n; i++)
			ynode_json(w, n->v[i]);
		jw_end_array(w);
		break;
	case Y_MAP:
		k = xreallocarray(NULL, n->n + 1, sizeof(*k));
		for (i = 0; i < n->n; i++) {
			k[i].key = py_str(n->v[2 * i]);
			k[i].pair = i;
		}
		xqsort(k, n->n, sizeof(*k), cmp_keys);
		jw_begin_object(w);
		for (i = 0; i < n->n; i++) {
			/* Of equal keys the last one wins, as in a dict. */
			if (i + 1 < n->n && strcmp(k[i].key, k[i + 1].key) == 0)
				continue;
			jw_ckey(w, k[i].key);
			ynode_json(w, n->v[2 * k[i].pair + 1]);
		}
		jw_end_object(w);
		for (i = 0; i < n->n; i++)
			free(k[i].key);
		free(k);
		break;
	}
}
