#define _GNU_SOURCE		/* memfd_create() */
#include <errno.h>
#include <signal.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/stat.h>
#include <sys/types.h>
#include <sys/wait.h>
#include <unistd.h>

#include "base/cpus.h"
#include "base/err.h"
#include "base/files.h"
#include "base/forkpool.h"
#include "base/xalloc.h"

/* What a worker sends of an item before its messages and its bytes. */
struct head {
	uint64_t	msglen, len;
	int32_t		status;
};

struct worker {
	pid_t	pid;
	int	fd;		/* the read end of its pipe */
	int	msgfd;		/* its stderr: a file in memory */
};

static void	work(size_t w, size_t nw, size_t n, int out,
		    int (*)(void *, size_t, char **, size_t *), void *)
		    __attribute__((noreturn));
static size_t	read_at(int fd, char *buf, size_t len);
static int	read_all(int fd, void *buf, size_t len);
static void	stop(struct worker *, size_t nw);
static void	lost(struct worker *, size_t nw, size_t w)
		    __attribute__((noreturn));

int
forkpool_run(size_t n, int (*make)(void *, size_t, char **, size_t *),
    int (*take)(void *, size_t, int, char *, size_t), void *arg)
{
	struct worker *wk;
	struct head h;
	char *buf, *msg;
	size_t i, w, k, nw, len;
	int p[2], status;

	nw = (size_t)cpus_usable();
	if (nw > n)
		nw = n;
	if (nw <= 1) {
		for (i = 0; i < n; i++) {
			buf = NULL;
			len = 0;
			status = make(arg, i, &buf, &len);
			if (take(arg, i, status, buf, len) != 0)
				return -1;
		}
		return 0;
	}

	wk = xcalloc(nw, sizeof(*wk));
	fflush(NULL);
	for (w = 0; w < nw; w++) {
		if (pipe(p) == -1)
			die("pipe:");
		if ((wk[w].msgfd = memfd_create("forkpool", MFD_CLOEXEC)) == -1)
			die("memfd_create:");
		if ((wk[w].pid = fork()) == -1)
			die("fork:");
		if (wk[w].pid == 0) {
			close(p[0]);
			for (k = 0; k < w; k++) {
				close(wk[k].fd);
				close(wk[k].msgfd);
			}
			if (dup2(wk[w].msgfd, STDERR_FILENO) == -1)
				_exit(127);
			free(wk);
			work(w, nw, n, p[1], make, arg);
		}
		close(p[1]);
		wk[w].fd = p[0];
	}

	for (i = 0; i < n; i++) {
		w = i % nw;
		if (read_all(wk[w].fd, &h, sizeof(h)) != 0)
			lost(wk, nw, w);
		msg = xmalloc(h.msglen + 1);
		buf = xmalloc(h.len + 1);
		if (read_all(wk[w].fd, msg, h.msglen) != 0 ||
		    read_all(wk[w].fd, buf, h.len) != 0) {
			free(msg);
			free(buf);
			lost(wk, nw, w);
		}
		fwrite(msg, 1, h.msglen, stderr);
		free(msg);
		if (take(arg, i, h.status, buf, h.len) != 0) {
			stop(wk, nw);
			free(wk);
			return -1;
		}
	}
	/* Each has sent its last item and is exiting: stop() reaps it. */
	stop(wk, nw);
	free(wk);
	return 0;
}

/*
 * Worker w of nw: makes its items and sends each down out, its messages
 * first, taken from its stderr, which is emptied for the next.
 */
static void
work(size_t w, size_t nw, size_t n, int out,
    int (*make)(void *, size_t, char **, size_t *), void *arg)
{
	struct head h;
	char *buf, *msg;
	size_t i, len;
	off_t end;

	for (i = w; i < n; i += nw) {
		buf = NULL;
		len = 0;
		memset(&h, 0, sizeof(h));
		h.status = make(arg, i, &buf, &len);
		fflush(stderr);
		if ((end = lseek(STDERR_FILENO, 0, SEEK_CUR)) == -1)
			_exit(1);
		msg = xmalloc((size_t)end + 1);
		end = (off_t)read_at(STDERR_FILENO, msg, (size_t)end);
		if (ftruncate(STDERR_FILENO, 0) == -1 ||
		    lseek(STDERR_FILENO, 0, SEEK_SET) == -1)
			_exit(1);
		h.msglen = (uint64_t)end;
		h.len = len;
		/* Only a parent gone away fails these: nobody to tell. */
		if (file_write_all(out, &h, sizeof(h)) != 0 ||
		    file_write_all(out, msg, (size_t)end) != 0 ||
		    file_write_all(out, buf, len) != 0)
			_exit(1);
		free(msg);
		free(buf);
	}
	_exit(0);
}

/* Reads the first len bytes of the file fd, or what it holds of them. */
static size_t
read_at(int fd, char *buf, size_t len)
{
	size_t got = 0;
	ssize_t r;

	while (got < len) {
		r = pread(fd, buf + got, len - got, (off_t)got);
		if (r == -1 && errno == EINTR)
			continue;
		if (r <= 0)
			break;
		got += (size_t)r;
	}
	return got;
}

/* Reads all len bytes; -1 when the pipe ends or fails first. */
static int
read_all(int fd, void *buf, size_t len)
{
	char *p = buf;
	ssize_t r;

	while (len > 0) {
		r = read(fd, p, len);
		if (r == -1 && errno == EINTR)
			continue;
		if (r <= 0)
			return -1;
		p += r;
		len -= (size_t)r;
	}
	return 0;
}

static void
stop(struct worker *wk, size_t nw)
{
	size_t w;

	for (w = 0; w < nw; w++) {
		if (wk[w].pid > 0)
			kill(wk[w].pid, SIGKILL);
		close(wk[w].fd);
		close(wk[w].msgfd);
	}
	for (w = 0; w < nw; w++)
		while (wk[w].pid > 0 && waitpid(wk[w].pid, NULL, 0) == -1 &&
		    errno == EINTR)
			;
}

/*
 * Worker w ended in the middle of an item: what it said of that item
 * (all its stderr holds), then the process ends as the worker did.
 */
static void
lost(struct worker *wk, size_t nw, size_t w)
{
	struct stat st;
	char *msg;
	int status;

	if (waitpid(wk[w].pid, &status, 0) == -1)
		status = 0;
	if (fstat(wk[w].msgfd, &st) == 0 && st.st_size > 0) {
		msg = xmalloc((size_t)st.st_size);
		fwrite(msg, 1, read_at(wk[w].msgfd, msg, (size_t)st.st_size),
		    stderr);
		free(msg);
	}
	wk[w].pid = -1;
	stop(wk, nw);
	free(wk);
	if (WIFEXITED(status) && WEXITSTATUS(status) != 0)
		exit(WEXITSTATUS(status));
	if (WIFSIGNALED(status))
		die("a worker was killed: %s", strsignal(WTERMSIG(status)));
	die("a worker ended before its items were made");
}
