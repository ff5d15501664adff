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

#include "gzin.h"
#include "xalloc.h"

/* zlib's buffer; the fuzzing build makes it small (-DGZIN_BUFCAP=). */
#ifndef GZIN_BUFCAP
#define GZIN_BUFCAP	(256u * 1024)
#endif

struct gzin {
	gzFile		 gz;
	const char	*name;
	int		 gzip;
	char		 errbuf[128];
};

struct gzin *
gzin_open(const char *path)
{
	struct gzin *in;
	int fd;

	if (path == NULL || strcmp(path, "-") == 0) {
		/* gzclose() closes its descriptor; stdin must stay open. */
		if ((fd = dup(STDIN_FILENO)) == -1)
			return NULL;
		path = "<stdin>";
	} else if ((fd = open(path, O_RDONLY | O_CLOEXEC)) == -1)
		return NULL;
	widen_pipe(fd);
	in = xcalloc(1, sizeof(*in));
	in->name = path;
	if ((in->gz = gzdopen(fd, "rb")) == NULL) {
		close(fd);
		free(in);
		errno = ENOMEM;
		return NULL;
	}
	/* Larger than zlib's 8 KiB default: fewer read(2) calls per MB. */
	gzbuffer(in->gz, GZIN_BUFCAP);
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

const char *
gzin_name(const struct gzin *in)
{
	return in->name;
}

static int
gzin_error_code(struct gzin *in)
{
	int code;

	gzerror(in->gz, &code);
	return code;
}

ssize_t
gzin_read(struct gzin *in, void *buf, size_t n)
{
	int got;

	if (n > INT_MAX)
		n = INT_MAX;
	got = gzread(in->gz, buf, (unsigned)n);
	/* zlib reports a cut-off stream as a clean end; it is an error. */
	if (got == 0 && gzin_error_code(in) == Z_BUF_ERROR)
		return -1;
	if (!in->gzip && got > 0)
		in->gzip = !gzdirect(in->gz);
	return got;
}

const char *
gzin_error(struct gzin *in)
{
	int code;
	const char *msg;

	msg = gzerror(in->gz, &code);
	if (code == Z_ERRNO)
		msg = strerror(errno);
	else if (code == Z_BUF_ERROR)
		msg = "truncated gzip data";
	else if (code == Z_DATA_ERROR)
		msg = "corrupt gzip data";
	snprintf(in->errbuf, sizeof(in->errbuf), "%s", msg);
	return in->errbuf;
}

int
gzin_is_gzip(const struct gzin *in)
{
	return in->gzip;
}

void
gzin_close(struct gzin *in)
{
	if (in == NULL)
		return;
	gzclose(in->gz);
	free(in);
}
