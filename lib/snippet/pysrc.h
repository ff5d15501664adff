/*
 * pysrc: Python source scanned without Python.
 *
 * A tokenizer-lite pass over the whole file finds physical lines, logical
 * lines (statements), tokens and every def, async def and class with the
 * line numbers CPython's ast reports.  Strings of every kind (raw, bytes,
 * f-strings with nested replacement fields, triple-quoted) are single
 * tokens, so text inside strings and comments never opens a block.
 *
 * A struct pysrc owns everything it points to: the source text, the line,
 * token, statement and definition arrays and the definitions' names.
 * pysrc_free() releases them all.  Line numbers are 1-based; the line array
 * is indexed by line number (entry 0 is unused).
 */
#ifndef PYSRC_H
#define PYSRC_H

#include <stddef.h>
#include <stdint.h>

/* Token types. */
enum {
	PT_NAME,
	PT_NUMBER,
	PT_STRING,
	PT_OP,
	PT_COMMENT,
	PT_NEWLINE		/* the end of a logical line */
};

struct pytok {
	size_t		 off;		/* into text */
	uint32_t	 len;
	uint32_t	 line;		/* where the token starts */
	uint32_t	 endline;	/* where it ends (strings span lines) */
	uint16_t	 depth;		/* bracket depth before the token */
	uint8_t		 type;
};

/* Physical line flags. */
#define PL_INSTR	0x01	/* begins inside a string */
#define PL_CONT		0x02	/* continues a logical line */
#define PL_BLANK	0x04	/* only whitespace or a comment, not continued */
#define PL_START	0x08	/* begins a logical line */

struct pyline {
	size_t		 off;		/* into text */
	uint32_t	 len;		/* without the line terminator */
	uint32_t	 eol;		/* terminator length: 0, 1 or 2 */
	uint32_t	 ws;		/* leading whitespace bytes */
	uint32_t	 cols;		/* indentation: tabs to 8, form feed resets */
	uint32_t	 stmt;		/* the statement it belongs to, if not blank */
	uint8_t		 flags;
};

struct pystmt {
	uint32_t	 first, last;	/* physical lines */
	uint32_t	 end;		/* the last token's last line (ast) */
	size_t		 tok;		/* first token */
	size_t		 ntok;		/* tokens up to, not counting, NEWLINE */
	uint32_t	 cols;		/* indentation in columns */
	uint32_t	 ws;		/* and in bytes */
};

/* Definition types. */
enum {
	PD_DEF,
	PD_ASYNC,
	PD_CLASS
};

struct pydef {
	char		*qualname;	/* Class.method, outer.inner */
	const char	*name;		/* the last component of qualname */
	int		 type;
	int		 parent;	/* index of the enclosing def, or -1 */
	uint32_t	 stmt;		/* the header statement */
	uint32_t	 decorator;	/* first decorator line (or def line) */
	uint32_t	 line;		/* the def or class line */
	uint32_t	 header_end;	/* the line of the header's ':' */
	uint32_t	 end;		/* last line, as ast's end_lineno */
	uint32_t	 end_comments;	/* with trailing comments (inspect) */
	size_t		 colon;		/* token index of the header's ':' */
	int		 oneline;	/* the body follows the ':' */
};

struct pysrc {
	const char	*name;		/* borrowed, for messages */
	char		*text;		/* the source, NUL-terminated */
	size_t		 len;
	size_t		 start;		/* 3 after a UTF-8 BOM, else 0 */
	struct pyline	*line;
	uint32_t	 nline;
	struct pytok	*tok;
	size_t		 ntok, captok;
	struct pystmt	*stmt;
	size_t		 nstmt, capstmt;
	struct pydef	*def;
	size_t		 ndef, capdef;
	/* The first error. */
	char		 err[160];
	uint32_t	 errline, errcol;
};

/*
 * Reads path (stdin for NULL or "-"; gzip is inflated) and scans it.
 * Returns 0; or -1 after printing "<name>:<line>:<col>: <message>" for a
 * scan error, or "<name>: <reason>" for a read error (then errline is 0).
 * The caller frees src with pysrc_free() in both cases.
 */
int	pysrc_read(struct pysrc *src, const char *path);

/*
 * Scans len bytes of text, which must be followed by a NUL; after the call
 * src owns text.  Returns 0 or -1 with err, errline and errcol set.
 */
int	pysrc_scan(struct pysrc *src, const char *name, char *text, size_t len);

void	pysrc_free(struct pysrc *src);

/* Token text as a NUL-free span: pointer into text and length. */
const char *pysrc_tok(const struct pysrc *, size_t i, size_t *len);

/* 1 when token i is a NAME or OP spelled s. */
int	pysrc_tok_is(const struct pysrc *, size_t i, const char *s);

/*
 * Widens lines [*first, *last] to whole statements: a line inside a
 * multi-line statement or string moves to that statement's first (or last)
 * line; blank lines stay.  Returns 0, or -1 when a line is out of range.
 */
int	pysrc_widen(const struct pysrc *, uint32_t *first, uint32_t *last);

/*
 * The innermost definition whose lines [decorator, end] hold both first
 * and last, or -1.
 */
int	pysrc_enclosing(const struct pysrc *, uint32_t first, uint32_t last);

/*
 * Widens lines [from, to] to whole statements and whole blocks (a compound
 * statement's header brings its body) into *first and *last.  A range that
 * leaves the block it starts in or starts at an else, elif, except or
 * finally clause is rejected: -1 after a message "<name>:<line>: ...";
 * else 0.
 */
int	pysrc_select_lines(const struct pysrc *, uint32_t from, uint32_t to,
	    uint32_t *first, uint32_t *last);

/*
 * pysrc_select_lines(), then the innermost definition
 * that holds them, named qualname when that is not NULL, with the widened
 * range in *first and *last.  A range that leaves the block it starts in,
 * starts at an else, elif, except or finally clause, or is in no such
 * definition is rejected: -1 after a message "<name>:<line>: ...".
 */
int	pysrc_select(const struct pysrc *, uint32_t from, uint32_t to,
	    const char *qualname, uint32_t *first, uint32_t *last);

/*
 * Appends lines [first, last] to *buf (grown with xrealloc; *len and *cap
 * track it), each ended by "\n".  From each line it removes the longest
 * prefix it shares with strip; then, when add is not empty and what is left
 * begins with base, it inserts add after base.  Lines that begin inside a
 * string are copied untouched, so string contents never change;
 * whitespace-only lines become empty.
 */
void	pysrc_copy_lines(const struct pysrc *, uint32_t first, uint32_t last,
	    const char *strip, const char *base, const char *add, char **buf,
	    size_t *len, size_t *cap);

#endif
