/*
 * gzout: gzip compression under a stdio stream, with fopencookie(3).
 */
#define _GNU_SOURCE
#include <errno.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <zlib.h>

#include "base/err.h"
#include "base/xalloc.h"
#include "io/gzout.h"

#define CHUNK	(256u << 10)

struct gzcookie {
	FILE		*dst;
	z_stream	 z;
	unsigned char	 out[CHUNK];
};

static ssize_t	cookie_write(void *, const char *, size_t);
static int	cookie_close(void *);
static int	deflate_to(struct gzcookie *, int);

FILE *
gzout_open(FILE *dst)
{
	static const cookie_io_functions_t io = {
		NULL, cookie_write, NULL, cookie_close
	};
	struct gzcookie *c;
	FILE *fp;

	c = xcalloc(1, sizeof(*c));
	c->dst = dst;
	/* 15 + 16: a gzip header and trailer, not zlib's. */
	if (deflateInit2(&c->z, Z_BEST_SPEED, Z_DEFLATED, 15 + 16, 8,
	    Z_DEFAULT_STRATEGY) != Z_OK)
		die("gzip: %s", c->z.msg != NULL ? c->z.msg : "out of memory");
	if ((fp = fopencookie(c, "w", io)) == NULL)
		die("fopencookie:");
	return fp;
}

int
gzout_close(FILE *fp)
{
	return fclose(fp);
}

/* Compresses what is pending in z; flush as deflate(3) takes it. */
static int
deflate_to(struct gzcookie *c, int flush)
{
	size_t n;
	int rc;

	do {
		c->z.next_out = c->out;
		c->z.avail_out = CHUNK;
		rc = deflate(&c->z, flush);
		if (rc == Z_STREAM_ERROR) {
			errno = EIO;
			return -1;
		}
		n = CHUNK - c->z.avail_out;
		if (n > 0 && fwrite(c->out, 1, n, c->dst) != n)
			return -1;
	} while (c->z.avail_out == 0);
	/* Room left over: deflate took all input (and finished, if told). */
	return 0;
}

static ssize_t
cookie_write(void *arg, const char *buf, size_t n)
{
	struct gzcookie *c = arg;

	if (n > UINT32_MAX) {
		errno = EFBIG;
		return -1;
	}
	c->z.next_in = (unsigned char *)(uintptr_t)buf;
	c->z.avail_in = (uInt)n;
	if (deflate_to(c, Z_NO_FLUSH) < 0)
		return -1;
	return (ssize_t)n;
}

static int
cookie_close(void *arg)
{
	struct gzcookie *c = arg;
	int rc;

	c->z.next_in = NULL;
	c->z.avail_in = 0;
	rc = deflate_to(c, Z_FINISH);
	deflateEnd(&c->z);
	free(c);
	return rc < 0 ? EOF : 0;
}
