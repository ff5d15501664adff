/*
 * fuzz.h: what every libFuzzer harness in tests/fuzz shares.
 *
 * The readers under test take a path or stdin and read it through gzin
 * (plain or gzip), so fuzz_stdin() makes each input the contents of stdin,
 * an in-memory file (memfd: a file on disk is written back when it is
 * truncated and closed, which costs more than the run), rather than adding
 * a second read path that real files never take: the bytes go through the
 * same code as a user's file, gzip detection and inflation included.
 * fuzz_init() also points stdout at /dev/null, where the tools' records go.
 *
 * Every harness includes this header first, calls fuzz_init() once and
 * fuzz_stdin() per input.  A
 * harness that ends in exit() (die(), usage()) is a finding: libFuzzer
 * reports "fuzz target exited".
 */
#ifndef FUZZ_H
#define FUZZ_H

#define _GNU_SOURCE	/* memfd_create() */
#include <sys/mman.h>

#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "base/err.h"
#include "io/json.h"

int	LLVMFuzzerTestOneInput(const uint8_t *, size_t);

static FILE *fuzz_file;

/* An in-memory file open for reading and writing. */
static inline FILE *
fuzz_memfile(const char *name)
{
	FILE *f;
	int fd;

	if ((fd = memfd_create(name, 0)) == -1 ||
	    (f = fdopen(fd, "w+")) == NULL) {
		perror(name);
		abort();
	}
	return f;
}

static inline void
fuzz_init(const char *name)
{
	if (fuzz_file != NULL)
		return;
	setprogname(name);
	fuzz_file = fuzz_memfile(name);
	if (dup2(fileno(fuzz_file), STDIN_FILENO) == -1 ||
	    freopen("/dev/null", "w", stdout) == NULL) {
		perror(name);
		abort();
	}
}

/* Makes data the whole of stdin, read from its start. */
static inline void
fuzz_stdin(const uint8_t *data, size_t size)
{
	int fd = fileno(fuzz_file);

	/* stdin and fd share one file offset: rewinding one rewinds both. */
	if (ftruncate(fd, 0) == -1 ||
	    (size > 0 && pwrite(fd, data, size, 0) != (ssize_t)size) ||
	    lseek(fd, 0, SEEK_SET) == -1) {
		perror("fuzz_stdin");
		abort();
	}
}

/*
 * Whether the n bytes at s are one JSON number:
 * -?(0|[1-9][0-9]*)(\.[0-9]+)?([eE][+-]?[0-9]+)?
 */
static inline int
grammar_ok(const char *s, size_t n)
{
	size_t i = 0, d;

	if (i < n && s[i] == '-')
		i++;
	if (i < n && s[i] == '0')
		i++;
	else {
		for (d = i; i < n && s[i] >= '0' && s[i] <= '9'; i++)
			;
		if (i == d)
			return 0;
	}
	if (i < n && s[i] == '.') {
		for (d = ++i; i < n && s[i] >= '0' && s[i] <= '9'; i++)
			;
		if (i == d)
			return 0;
	}
	if (i < n && (s[i] == 'e' || s[i] == 'E')) {
		i++;
		if (i < n && (s[i] == '+' || s[i] == '-'))
			i++;
		for (d = i; i < n && s[i] >= '0' && s[i] <= '9'; i++)
			;
		if (i == d)
			return 0;
	}
	return i == n;
}

/*
 * The first node where a and b differ in type, len, next, member name or
 * text, or -1 when none does: a document the writer built (jw_new_doc)
 * against what the reader reads from the text the writer writes.
 * Positions and arena offsets are not compared.
 */
static inline long
fuzz_diff_nodes(const struct jdoc *a, const struct jdoc *b)
{
	const struct jnode *x, *y;
	uint32_t i;

	for (i = 0; i < a->n && i < b->n; i++) {
		x = &a->node[i];
		y = &b->node[i];
		if (x->type != y->type || x->len != y->len ||
		    x->next != y->next ||
		    (x->key == JNOKEY) != (y->key == JNOKEY) ||
		    (x->key != JNOKEY && (x->keylen != y->keylen ||
		    memcmp(jdoc_key(a, i), jdoc_key(b, i), x->keylen) != 0)) ||
		    ((x->type == JT_STRING || x->type == JT_NUMBER) &&
		    memcmp(jdoc_str(a, i), jdoc_str(b, i), x->len + 1) != 0))
			return (long)i;
	}
	return a->n == b->n ? -1 : (long)i;
}

#endif
