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
	struct strbuf tmp = { 0 };
	sigset_t stop, old;
	const char *base;
	int fd, rc = -1;

	base = strrchr(path, '/');
	base = base != NULL ? base + 1 : path;
	sb_put(&tmp, path, (size_t)(base - path));
	sb_printf(&tmp, ".%s.XXXXXX", base);
	sigemptyset(&stop);
	sigaddset(&stop, SIGHUP);
	sigaddset(&stop, SIGINT);
	sigaddset(&stop, SIGTERM);
	sigprocmask(SIG_BLOCK, &stop, &old);
	if ((fd = mkstemp(tmp.s)) < 0)
		error("%s:", path);
	else {
		if (fchmod(fd, mode) != 0)
			error("%s:", path);
		else if (write_all(fd, buf, len) != 0)
			error("%s: write failed:", path);
		else
			rc = 0;
		if (close(fd) != 0 && rc == 0)
			rc = error("%s: write failed:", path);
		if (rc == 0 && rename(tmp.s, path) != 0)
			rc = error("%s:", path);
		if (rc != 0)
			unlink(tmp.s);
	}
	sigprocmask(SIG_SETMASK, &old, NULL);
	sb_free(&tmp);
	return rc;
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
