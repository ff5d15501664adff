/*
 * gzin: one read path for plain and gzip input.
 *
 * Input that starts with the gzip magic is inflated with zlib, every member
 * of a multi-member file (as pigz and "cat a.gz b.gz" write) in turn;
 * anything else is copied through unchanged, so callers never look at file
 * names.  Bytes after the last member that are not another member are an
 * error (zlib's gzread() would drop them without a word), as are a
 * truncated or corrupt member.  A gzin owns its descriptor: gzin_close() closes
 * it and frees the gzin.  The name is borrowed from the caller and must
 * outlive the gzin; stdin is called "<stdin>".
 */
#ifndef GZIN_H
#define GZIN_H

#include <stddef.h>
#include <stdint.h>
#include <sys/types.h>

struct gzin;

/*
 * Opens path, or stdin when path is NULL or "-".  Returns NULL with errno
 * set when the file cannot be opened.
 */
struct gzin *gzin_open(const char *path);

/*
 * Reads the open descriptor fd, which the gzin then owns, under name.
 * Never fails.
 */
struct gzin *gzin_fdopen(int fd, const char *name);

/* The name to use in messages: the path or "<stdin>". */
const char *gzin_name(const struct gzin *);

/*
 * Reads up to n bytes of decompressed data.  Returns the count, 0 at the end
 * of the data, or -1 on an I/O or format error (truncated or corrupt gzip,
 * trailing garbage), with the reason in gzin_error(); every later call
 * returns -1 too.
 */
ssize_t gzin_read(struct gzin *, void *buf, size_t n);

/*
 * Before the first read: from now on a thread reads the file ahead and
 * hashes what it reads (io/readahead.h), so that gzin_digest() can name
 * the input without reading it twice.  Returns 0, or -1 with errno set
 * when the input is no regular file or no thread could be started; the
 * gzin then reads as before.
 */
int	gzin_hash(struct gzin *);

/*
 * Once, after gzin_hash(): reads what is left of the file to its end
 * without inflating it, and stores the size and SHA-256 of the file's
 * bytes as they are on disk.  Returns 0, or -1 with errno set.
 */
int	gzin_digest(struct gzin *, uint64_t *size, char hex[65]);

/* A description of the last error; borrowed, valid until the next call. */
const char *gzin_error(struct gzin *);

/* 1 when the input turned out to be gzip, known after the first read. */
int gzin_is_gzip(const struct gzin *);

/*
 * Grows the pipe behind fd, if it is one, to hold a whole buffer of records
 * (1 MiB): with the 64 KiB default, a filter writing 256 KiB blocks and one
 * reading them take turns instead of running side by side.  Best effort.
 */
void widen_pipe(int fd);

/*
 * 1 when path names a regular file, which a second pass can read again
 * (not stdin, a pipe or a terminal); 0 otherwise, or when it cannot be
 * looked at.
 */
int gzin_rereadable(const char *path);

/* Closes the input and frees the gzin; NULL is allowed. */
void gzin_close(struct gzin *);

#endif
