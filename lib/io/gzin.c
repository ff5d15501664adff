/* F_SETPIPE_SZ is Linux's; elsewhere pipes keep their size. */
#define _GNU_SOURCE

#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <fcntl.h>
#include <limits.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>
#include <zlib.h>

#include "base/xalloc.h"
#include "io/gzin.h"
#include "io/magic.h"
#include "io/readahead.h"

/* The input buffer; the fuzzing build makes it small (-DGZIN_BUFCAP=). */
#ifndef GZIN_BUFCAP
#define GZIN_BUFCAP	(256u * 1024)
#endif

struct gzin {
	int		 fd;
	const char	*name;
	int		 gzip;		/* 1 gzip, 0 plain, -1 not known yet */
	int		 eof;		/* read(2) said so */
	int		 done;		/* the last member ended the input */
	int		 err;		/* errno, or one of the GZ_* below */
	z_stream	 zs;
	unsigned char	*ibuf;
	size_t		 ilen;		/* plain input still at zs.next_in */
	struct readahead *ahead;	/* gzin_hash(): reads the file */
	char		 errbuf[128];
};

/* Errors of the data, kept in err beside errno values (all positive). */
#define GZ_TRUNCATED	(-1)
#define GZ_CORRUPT	(-2)
#define GZ_GARBAGE	(-3)
#define GZ_NOMEM	(-4)

static ssize_t	raw_read(struct gzin *, void *, size_t);
static int	fill(struct gzin *);
static ssize_t	inflate_some(struct gzin *, unsigned char *, size_t);

struct gzin *
gzin_open(const char *path)
{
	int fd;

	if (path == NULL || strcmp(path, "-") == 0) {
		/* gzin_close() closes its descriptor; stdin must stay open. */
		if ((fd = dup(STDIN_FILENO)) == -1)
			return NULL;
		path = "<stdin>";
	} else if ((fd = open(path, O_RDONLY | O_CLOEXEC)) == -1)
		return NULL;
	return gzin_fdopen(fd, path);
}

struct gzin *
gzin_fdopen(int fd, const char *name)
{
	struct gzin *in;

	widen_pipe(fd);
	in = xcalloc(1, sizeof(*in));
	in->fd = fd;
	in->name = name;
	in->gzip = -1;
	/* Large: few read(2) calls per MB. */
	in->ibuf = xmalloc(GZIN_BUFCAP);
	return in;
}

void
widen_pipe(int fd)
{
#ifdef F_SETPIPE_SZ
	struct stat st;

	if (fstat(fd, &st) == 0 && S_ISFIFO(st.st_mode) &&
	    fcntl(fd, F_GETPIPE_SZ) < (1 << 20))
		(void)fcntl(fd, F_SETPIPE_SZ, 1 << 20);
#else
	(void)fd;
#endif
}

int
gzin_hash(struct gzin *in)
{
	if (in->gzip != -1 || in->ahead != NULL) {
		errno = EINVAL;
		return -1;
	}
	return (in->ahead = readahead_start(in->fd)) != NULL ? 0 : -1;
}

int
gzin_digest(struct gzin *in, uint64_t *size, char hex[65])
{
	if (in->ahead == NULL) {
		errno = EINVAL;
		return -1;
	}
	return readahead_digest(in->ahead, size, hex);
}

/* read(2) from the file, or from the thread reading it ahead. */
static ssize_t
raw_read(struct gzin *in, void *buf, size_t n)
{
	ssize_t got;

	if (in->ahead != NULL)
		return readahead_read(in->ahead, buf, n);
	do
		got = read(in->fd, buf, n);
	while (got == -1 && errno == EINTR);
	return got;
}

int
gzin_rereadable(const char *path)
{
	struct stat st;

	return path != NULL && strcmp(path, "-") != 0 &&
	    stat(path, &st) == 0 && S_ISREG(st.st_mode);
}

const char *
gzin_name(const struct gzin *in)
{
	return in->name;
}

/*
 * Reads more input behind what zs has not used yet.  Returns 1, 0 at the
 * end of the file, or -1 with err set.
 */
static int
fill(struct gzin *in)
{
	ssize_t n;

	if (in->zs.avail_in > 0 && in->zs.next_in != in->ibuf)
		memmove(in->ibuf, in->zs.next_in, in->zs.avail_in);
	in->zs.next_in = in->ibuf;
	n = raw_read(in, in->ibuf + in->zs.avail_in,
	    GZIN_BUFCAP - in->zs.avail_in);
	if (n == -1) {
		in->err = errno;
		return -1;
	}
	if (n == 0)
		in->eof = 1;
	in->zs.avail_in += (uInt)n;
	return n > 0;
}

/*
 * Inflates into buf.  A member that ends is followed by the end of the
 * file or by another member (pigz, cat a.gz b.gz); anything else is an
 * error, which zlib's gzread() would have dropped without a word.
 */
static ssize_t
inflate_some(struct gzin *in, unsigned char *buf, size_t n)
{
	int rc;

	in->zs.next_out = buf;
	in->zs.avail_out = (uInt)n;
	while (in->zs.avail_out > 0 && !in->done) {
		if (in->zs.avail_in == 0 && !in->eof && fill(in) < 0)
			return -1;
		rc = inflate(&in->zs, Z_NO_FLUSH);
		if (rc == Z_STREAM_END) {
			while (in->zs.avail_in < 2 && !in->eof)
				if (fill(in) < 0)
					return -1;
			if (in->zs.avail_in == 0) {
				in->done = 1;
				break;
			}
			if (magic_of(in->zs.next_in, in->zs.avail_in, 0) !=
			    MAGIC_GZIP) {
				in->err = GZ_GARBAGE;
				return -1;
			}
			if (inflateReset(&in->zs) != Z_OK) {
				in->err = GZ_CORRUPT;
				return -1;
			}
			continue;
		}
		if (rc == Z_MEM_ERROR) {
			in->err = GZ_NOMEM;
			return -1;
		}
		if (rc != Z_OK && rc != Z_BUF_ERROR) {
			in->err = GZ_CORRUPT;
			return -1;
		}
		/* No progress is possible: the input ended inside a member. */
		if (rc == Z_BUF_ERROR && in->zs.avail_in == 0 && in->eof) {
			in->err = GZ_TRUNCATED;
			return -1;
		}
	}
	return (ssize_t)(n - in->zs.avail_out);
}

ssize_t
gzin_read(struct gzin *in, void *buf, size_t n)
{
	ssize_t got;

	if (in->err != 0)
		return -1;
	if (n > INT_MAX)
		n = INT_MAX;
	if (in->gzip < 0) {
		in->zs.next_in = in->ibuf;
		while (in->zs.avail_in < 2 && !in->eof)
			if (fill(in) < 0)
				return -1;
		in->gzip = magic_of(in->ibuf, in->zs.avail_in, 0) ==
		    MAGIC_GZIP;
		if (!in->gzip)
			in->ilen = in->zs.avail_in;
		else if (inflateInit2(&in->zs, 16 + MAX_WBITS) != Z_OK) {
			in->err = GZ_NOMEM;
			return -1;
		}
	}
	if (in->gzip)
		return inflate_some(in, buf, n);
	if (in->ilen > 0) {
		if (n > in->ilen)
			n = in->ilen;
		memcpy(buf, in->zs.next_in, n);
		in->zs.next_in += n;
		in->ilen -= n;
		return (ssize_t)n;
	}
	if ((got = raw_read(in, buf, n)) == -1)
		in->err = errno;
	return got;
}

const char *
gzin_error(struct gzin *in)
{
	const char *msg;

	switch (in->err) {
	case GZ_TRUNCATED:
		msg = "truncated gzip data";
		break;
	case GZ_CORRUPT:
		msg = "corrupt gzip data";
		break;
	case GZ_GARBAGE:
		msg = "trailing garbage after gzip stream";
		break;
	case GZ_NOMEM:
		msg = "out of memory";
		break;
	default:
		msg = strerror(in->err);
		break;
	}
	snprintf(in->errbuf, sizeof(in->errbuf), "%s", msg);
	return in->errbuf;
}

int
gzin_is_gzip(const struct gzin *in)
{
	return in->gzip == 1;
}

void
gzin_close(struct gzin *in)
{
	if (in == NULL)
		return;
	if (in->gzip == 1)
		inflateEnd(&in->zs);
	readahead_free(in->ahead);
	close(in->fd);
	free(in->ibuf);
	free(in);
}
