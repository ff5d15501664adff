#include <errno.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "base/err.h"
#include "base/strbuf.h"
#include "io/publish.h"

static int	write_all(int fd, const char *buf, size_t len);

int
publish_file(const char *path, const char *buf, size_t len, mode_t mode)
{
	sigset_t stop, old;
	char *tmp;
	int rc = -1;

	sigemptyset(&stop);
	sigaddset(&stop, SIGHUP);
	sigaddset(&stop, SIGINT);
	sigaddset(&stop, SIGTERM);
	sigprocmask(SIG_BLOCK, &stop, &old);
	if ((tmp = publish_stage(path, buf, len, mode)) != NULL)
		rc = publish_commit(tmp, path);
	sigprocmask(SIG_SETMASK, &old, NULL);
	free(tmp);
	return rc;
}

char *
publish_stage(const char *path, const char *buf, size_t len, mode_t mode)
{
	struct strbuf tmp = { 0 };
	const char *base;
	int fd, rc = -1;

	base = strrchr(path, '/');
	base = base != NULL ? base + 1 : path;
	sb_put(&tmp, path, (size_t)(base - path));
	sb_printf(&tmp, ".%s.XXXXXX", base);
	if ((fd = mkstemp(tmp.s)) < 0) {
		error("%s:", path);
		sb_free(&tmp);
		return NULL;
	}
	if (fchmod(fd, mode) != 0)
		error("%s:", path);
	else if (write_all(fd, buf, len) != 0)
		error("%s: write failed:", path);
	else
		rc = 0;
	if (close(fd) != 0 && rc == 0)
		rc = error("%s: write failed:", path);
	if (rc != 0) {
		unlink(tmp.s);
		sb_free(&tmp);
		return NULL;
	}
	return tmp.s;
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

static int
write_all(int fd, const char *buf, size_t len)
{
	ssize_t k;

	while (len > 0) {
		if ((k = write(fd, buf, len)) < 0) {
			if (errno == EINTR)
				continue;
			return -1;
		}
		buf += k;
		len -= (size_t)k;
	}
	return 0;
}
