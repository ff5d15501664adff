#include <sys/file.h>
#include <sys/stat.h>

#include <errno.h>
#include <fcntl.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "base/err.h"
#include "base/files.h"
#include "base/stages.h"
#include "base/xalloc.h"
#include "io/publish.h"

static int	temp_beside(const char *, char *, size_t);
static int	cmpdir(const void *, const void *);

int
publish_file(const char *path, const char *buf, size_t len, mode_t mode)
{
	sigset_t old;
	char *tmp;
	int rc = -1;

	stages_block(&old);
	if ((tmp = publish_stage(path, buf, len, mode)) != NULL)
		rc = publish_commit(tmp, path);
	stages_restore(&old);
	free(tmp);
	return rc;
}

char *
publish_stage(const char *path, const char *buf, size_t len, mode_t mode)
{
	char tmp[PATH_MAX];
	int fd, rc = -1;

	if ((fd = temp_beside(path, tmp, sizeof(tmp))) < 0) {
		error("%s:", path);
		return NULL;
	}
	if (fchmod(fd, mode) != 0)
		error("%s:", path);
	else if (file_write_all(fd, buf, len) != 0)
		error("%s: write failed:", path);
	else
		rc = 0;
	if (close(fd) != 0 && rc == 0)
		rc = error("%s: write failed:", path);
	if (rc != 0) {
		unlink(tmp);
		return NULL;
	}
	return xstrdup(tmp);
}

int
publish_commit(const char *tmp, const char *path)
{
	if (rename(tmp, path) == 0)
		return 0;
	error("%s:", path);
	unlink(tmp);
	return -1;
}

mode_t
publish_mode(void)
{
	mode_t mask;

	/* umask(2) can only be read by setting it. */
	mask = umask(0);
	umask(mask);
	return 0666 & ~mask;
}

/*
 * Creates ".name.XXXXXX" in the directory of path, as O_EXCL alone makes
 * it: a file or link planted under the name makes mkstemp() draw another.
 * The name is in tmp (size bytes) while the file exists.
 */
static int
temp_beside(const char *path, char *tmp, size_t size)
{
	const char *base;
	int n, fd;

	base = strrchr(path, '/');
	base = base != NULL ? base + 1 : path;
	n = snprintf(tmp, size, "%.*s.%s.XXXXXX", (int)(base - path), path,
	    base);
	if (n < 0 || (size_t)n >= size) {
		errno = ENAMETOOLONG;
		tmp[0] = '\0';
		return -1;
	}
	if ((fd = mkstemp(tmp)) == -1)
		tmp[0] = '\0';
	return fd;
}

void
pubout_open(struct pubout *o, const char *path)
{
	struct stat sb;
	sigset_t old;

	o->path = path;
	o->tmp[0] = '\0';
	o->fd = -1;
	if (path == NULL)
		return;
	if (stat(path, &sb) == 0) {
		if (S_ISDIR(sb.st_mode)) {
			errno = EISDIR;
			die("%s:", path);
		}
		/* A rename would replace a device or fifo: written in place. */
		if (!S_ISREG(sb.st_mode)) {
			if (access(path, W_OK) != 0)
				die("%s:", path);
			return;
		}
	}
	stages_block(&old);
	o->fd = temp_beside(path, o->tmp, sizeof(o->tmp));
	stages_restore(&old);
	if (o->fd == -1)
		die("%s:", path);
	if (fchmod(o->fd, publish_mode() & 0644) != 0 ||
	    fcntl(o->fd, F_SETFD, FD_CLOEXEC) == -1)
		die("%s:", path);
}

int
pubout_fd(struct pubout *o)
{
	int fd;

	if (o->path == NULL)
		return STDOUT_FILENO;
	if (o->fd == -1) {
		if ((fd = open(o->path, O_WRONLY | O_CLOEXEC)) == -1)
			die("%s:", o->path);
		return fd;
	}
	fd = o->fd;
	o->fd = -1;
	return fd;
}

const char *
pubout_path(const struct pubout *o)
{
	return o->tmp[0] != '\0' ? o->tmp : o->path;
}

int
pubout_done(struct pubout *o, int status)
{
	if (o->fd != -1)
		close(o->fd);
	o->fd = -1;
	if (o->tmp[0] == '\0')
		return status;
	if (status != 0)
		unlink(o->tmp);
	else if (publish_commit(o->tmp, o->path) != 0)
		status = 1;
	o->tmp[0] = '\0';
	return status;
}

struct outdir {
	struct stat	 sb;
	int		 fd;
	const char	*path;		/* an output in it, for messages */
};

/*
 * As report.mk takes a run directory for its whole run: none lands inside
 * a report.mk run either.  A directory that cannot be locked (a file
 * system without flock) is published to unlocked.
 */
void
pubouts_lock(const struct pubout *o, size_t n)
{
	struct outdir *dirs;
	char dir[PATH_MAX];
	size_t i, k = 0;

	dirs = xcalloc(n + 1, sizeof(*dirs));
	for (i = 0; i < n; i++) {
		if (o[i].tmp[0] == '\0' ||
		    file_dir(o[i].path, dir, sizeof(dir)) == NULL)
			continue;
		dirs[k].path = o[i].path;
		if ((dirs[k].fd = open(dir, O_RDONLY | O_DIRECTORY |
		    O_CLOEXEC)) == -1)
			continue;
		if (fstat(dirs[k].fd, &dirs[k].sb) != 0) {
			close(dirs[k].fd);
			continue;
		}
		k++;
	}
	xqsort(dirs, k, sizeof(*dirs), cmpdir);
	for (i = 0; i < k; i++) {
		if (i > 0 && cmpdir(&dirs[i - 1], &dirs[i]) == 0) {
			close(dirs[i].fd);
			continue;
		}
		if (flock(dirs[i].fd, LOCK_EX | LOCK_NB) == 0)
			continue;
		if (errno == EWOULDBLOCK) {
			warnmsg("%s: waiting for another run that writes "
			    "beside it to end", dirs[i].path);
			while (flock(dirs[i].fd, LOCK_EX) != 0 &&
			    errno == EINTR)
				;
		}
	}
	/* The descriptors, and so the locks, last until exit. */
	free(dirs);
}

static int
cmpdir(const void *a, const void *b)
{
	const struct outdir *x = a, *y = b;

	if (x->sb.st_dev != y->sb.st_dev)
		return x->sb.st_dev < y->sb.st_dev ? -1 : 1;
	if (x->sb.st_ino != y->sb.st_ino)
		return x->sb.st_ino < y->sb.st_ino ? -1 : 1;
	return 0;
}
