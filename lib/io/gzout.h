/*
 * gzout: a stdio stream that gzip-compresses what is written to it into
 * another stream, so that a writer of text (lib/io/ndjson) writes .gz
 * files unchanged.
 *
 * Compression is zlib's fastest level: the outputs it serves (traces of
 * gigabytes written back) are read by viewers, not archived, and the
 * fastest level keeps the write near the read's speed.
 *
 * Ownership: gzout_open() borrows dst, which must outlive the stream;
 * gzout_close() ends the gzip member, writes it out, frees the stream and
 * leaves dst open (unflushed).  A write to dst that fails fails the
 * stream's write, as a full disk fails fwrite(3).
 */
#ifndef GZOUT_H
#define GZOUT_H

#include <stdio.h>

/* A stream whose bytes go to dst gzip-compressed. */
FILE	*gzout_open(FILE *dst);

/* Ends the stream; returns 0, or EOF when a write failed (errno set). */
int	 gzout_close(FILE *);

#endif
