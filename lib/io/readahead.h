/*
 * readahead: a regular file read on a thread of its own, a few buffers
 * ahead of its reader, and hashed (SHA-256) as it is read, so that naming
 * an input in a report costs its reader neither a second read of the file
 * nor the hashing's time.
 *
 * Only a regular file is read ahead: a pipe's read may never end, and the
 * thread must always be able to stop.  Its reader takes the bytes with
 * readahead_read() instead of read(2), in order, from one thread.
 *
 * Ownership: the descriptor is borrowed; it must stay open, and be read by
 * nothing else, until readahead_free(), which stops and joins the thread
 * and frees the buffers.
 */
#ifndef READAHEAD_H
#define READAHEAD_H

#include <stdint.h>
#include <sys/types.h>

struct readahead;

/*
 * Starts reading fd from where it stands.  Returns NULL with errno set
 * when fd is no regular file (EINVAL) or no thread could be started.
 */
struct readahead *readahead_start(int fd);

/* As read(2): up to n bytes, 0 at the end, -1 with errno set. */
ssize_t	readahead_read(struct readahead *, void *buf, size_t n);

/*
 * Reads whatever is left to the end, throwing it away, and stores the size
 * and SHA-256 (64 hex digits) of all that was read.  Returns 0, or -1 with
 * errno set when a read failed.
 */
int	readahead_digest(struct readahead *, uint64_t *size, char hex[65]);

void	readahead_free(struct readahead *);

#endif
