/*
 * pyyaml: a YAML document as Python's yaml.safe_load() sees it, read with
 * libyaml's event parser, and the Python builtins (str, int, bool) that
 * runner code applies to its values.
 *
 * Plain scalars are resolved by PyYAML's YAML 1.1 rules (yes/no/on/off are
 * booleans, 010 is octal, 1e3 is a string, ~ is null, 2001-02-03 is a date);
 * quoted and block scalars are strings; explicit !!str, !!int, !!float,
 * !!bool, !!null, !!timestamp, !!map and !!seq tags are honoured, as are the
 * ones that make values JSON has no word for: !!binary is bytes (base64
 * decoded as base64.decodebytes does), !!set a set (a mapping's keys; its
 * values are dropped) and !!omap and !!pairs a list of (key, value) tuples
 * (each item a mapping of one pair).  Any other tag, or a standard one on
 * the wrong kind of node, is an error in PyYAML's words, as is an
 * unhashable key (a list, dict or set) of a mapping or set.  A set keeps one
 * of each group of equal items (1 == 1.0 == true), the first written, and
 * holds them in one order: None, then numbers by value, strings by code
 * point, bytes, dates by their text.  Python orders a set by hash, which
 * for strings changes from one process to the next; this order is what
 * repr() and JSON show instead.  Anchors and aliases share
 * one node; merge keys (<<) are flattened as PyYAML does; an alias to a
 * collection that is still open (a recursive structure) is an error.  A
 * stream with more than one document is an error.  What aliases and merge
 * keys repeat is counted, each node as one byte plus the length of its text,
 * and a document where they repeat more than YAML_MAX_EXPAND is an error:
 * shared nodes are cheap here, but every reader that walks the tree (str(),
 * JSON, the manifest) pays for each repetition.  A map of more than a few
 * pairs keeps a hash index of its string keys, so that lookups stay cheap in
 * a map with many keys.
 *
 * Ownership: a ydoc owns every node made for it (parsed or made with the
 * ynode_* constructors) and frees them all in ydoc_free().  Node pointers
 * stay valid until then.  Strings passed in are copied.
 */
#ifndef PYYAML_H
#define PYYAML_H

#include <stddef.h>
#include <stdint.h>

struct jw;
struct strmap;

/* What aliases and merge keys may repeat, in bytes (see above). */
#define YAML_MAX_EXPAND	(1 << 20)

enum ytype {
	Y_NULL, Y_BOOL, Y_INT, Y_FLOAT, Y_STR, Y_BYTES, Y_TIME, Y_SEQ,
	Y_TUPLE, Y_SET, Y_MAP
};

struct ynode {
	enum ytype	 type;
	int		 plain;		/* an untagged plain scalar */
	int		 big;		/* Y_INT beyond 64 bits: s is kept, and
					   d is near it */
	char		*s;		/* scalar text as written, NUL-ended;
					   Y_BYTES: the decoded bytes */
	size_t		 len;
	int64_t		 i;		/* Y_INT, Y_BOOL */
	double		 d;		/* Y_FLOAT; a big Y_INT, near */
	uint32_t	 line, col;	/* 1-based; 0 for made nodes */
	struct ynode	**v;		/* Y_SEQ, Y_TUPLE, Y_SET: n items;
					   Y_MAP: n (key, value) pairs */
	size_t		 n, cap;
	size_t		 nmerged;	/* Y_MAP: the first pairs came from << */
	size_t		 size;		/* expanded size */
	struct strmap	*index;		/* Y_MAP: keys */
	int		 open;		/* being built */
};

struct ydoc {
	struct ynode	**all;
	size_t		 nall, capall;
	struct ynode	*root;		/* NULL for an empty stream */
	char		 err[256];	/* why ydoc_parse() failed */
	uint32_t	 errline, errcol;
};

/* An empty ydoc needs no allocation: struct ydoc d = { 0 }. */

/*
 * Parses len bytes of YAML into doc.  Returns 0, or -1 with the reason and
 * its 1-based position in doc->err, errline and errcol.
 */
int ydoc_parse(struct ydoc *, const char *buf, size_t len);

/* Frees every node of doc; the ydoc can be parsed into again. */
void ydoc_free(struct ydoc *);

/* New nodes owned by doc; strings are copied. */
struct ynode *ynode_null(struct ydoc *);
struct ynode *ynode_bool(struct ydoc *, int);
struct ynode *ynode_int(struct ydoc *, int64_t);
struct ynode *ynode_str(struct ydoc *, const char *);
struct ynode *ynode_seq(struct ydoc *);
struct ynode *ynode_map(struct ydoc *);

/* Appends v to a sequence; v stays owned by the doc. */
void yseq_push(struct ynode *seq, struct ynode *v);

/* Sets key in a map (replacing an earlier value); key is copied. */
void ymap_set(struct ydoc *, struct ynode *map, const char *key,
    struct ynode *v);

/* The key node of the last pair whose key is the string key, or NULL. */
struct ynode *ymap_key(const struct ynode *map, const char *key);

/* The value for the string key (the last one wins, as in a dict), or NULL. */
struct ynode *ymap_get(const struct ynode *map, const char *key);

/* Python's type name for the value: "NoneType", "int", "bytes", ... */
const char *ytype_name(const struct ynode *);

/*
 * str(v) in Python: repr() inside collections, b'...' for bytes, a set's
 * items in the order above; the caller frees the result.
 */
char *py_str(const struct ynode *);

/*
 * repr(s) of a Python str: ASCII controls, and the non-ASCII blanks, C1
 * controls and format characters that hide or reorder text, escaped; the
 * caller frees the result.
 */
char *py_repr_str(const char *, size_t);

/*
 * int(v) in Python, Unicode digits and blanks in a string included (bytes
 * take ASCII ones only).
 * Returns 0, or -1 with Python's message in err (or ours when the value does
 * not fit in 64 bits).
 */
int py_int(const struct ynode *, int64_t *out, char *err, size_t errsz);

/* bool(v) in Python. */
int py_bool(const struct ynode *);

/*
 * Python's == on two values (1 == 1.0 == true; maps compare as dicts; a
 * tuple never equals a list, nor bytes a string).
 */
int ynode_equal(const struct ynode *, const struct ynode *);

/*
 * Writes v as JSON: maps with string keys in sorted order (yaml.safe_dump's
 * sort_keys), a key that is not a string as str() of it, a date as its
 * text, a float NaN or infinity as null, bytes as their base64 text (one
 * line, padded), a set as an array in the order above, a tuple as an array.
 */
void ynode_json(struct jw *, const struct ynode *);

#endif
