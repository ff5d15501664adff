/*
 * magic: what a file is by its first bytes, not its name, for every
 * reader that inflates, refuses or names a file by what it is: gzip
 * (lib/io/gzin inflates it), a zip archive (torch.save()'s format), an
 * SQLite database (an Nsight Systems export) and a Python pickle.  The
 * caller's bytes are only read; nothing is kept.
 */
#ifndef MAGIC_H
#define MAGIC_H

#include <stddef.h>

enum magic {
	MAGIC_NONE,	/* none of these, or too few bytes to tell */
	MAGIC_GZIP,	/* 1f 8b: a gzip member */
	MAGIC_ZIP,	/* "PK\3\4": a zip archive's first local header */
	MAGIC_SQLITE,	/* "SQLite format 3\0": an SQLite database */
	MAGIC_PICKLE	/* a pickle: PROTO (0x80) and a protocol up to 5 */
};

/* The bytes that settle every answer of magic_of(). */
#define MAGIC_LEN	64

/*
 * Flags of magic_of().  MAGIC_PICKLE01: pickles of protocols 0 and 1 too,
 * which begin with the value's first opcode, a printable byte ('(', '}',
 * ']', 'c'), checked with what follows it as pickle.dumps() writes it;
 * only for a reader whose own text never begins with those bytes (JSON).
 */
#define MAGIC_PICKLE01	0x1

/*
 * What the len bytes at buf begin as.  Give it the first MAGIC_LEN bytes
 * of the input, or all of a shorter one.
 */
enum magic magic_of(const void *buf, size_t len, int flags);

/*
 * Whether an input whose first byte is c may be any of them (with
 * flags): only then need a reader of a stream wait for MAGIC_LEN bytes
 * before it asks magic_of(), as a pipe may be slow to fill.
 */
int magic_may(int c, int flags);

#endif
