#include <sys/stat.h>
#include <sys/wait.h>

#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#include "base/err.h"
#include "base/files.h"
#include "base/progdir.h"
#include "base/stages.h"
#include "base/xalloc.h"

#define COPY_BUFSIZE	(1 << 20)
/* The name a pipe's copy has for a moment in the temporary directory. */
#define PIPE_COPY	"pipe"

static const int stopsigs[] = { SIGHUP, SIGINT, SIGTERM };
#define NSTOPSIGS	(sizeof(stopsigs) / sizeof(stopsigs[0]))

/*
 * The job that a signal or exit() must undo.  A signal handler reaches
 * nothing else, hence this one variable.
 */
static struct stages *live;

static void	on_signal(int);
static void	on_exit_undo(void);
static void	stop_all(struct stages *);
static void	reap_all(struct stages *);
static int	remove_temps(struct stages *);
static void	close_from(const struct stages *, int);
static int	ungated(const struct stages *);

void
stages_start(struct stages *s)
{
	struct sigaction sa, old;
	char *bin;
	size_t i;
	int n;

	memset(s, 0, sizeof(*s));
	s->tmpfd = -1;
	if ((bin = prog_dir()) != NULL) {
		n = snprintf(s->bindir, sizeof(s->bindir), "%s", bin);
		if (n < 0 || (size_t)n >= sizeof(s->bindir))
			s->bindir[0] = '\0';
		free(bin);
	}
	live = s;
	if (atexit(on_exit_undo) != 0)
		die("atexit:");
	memset(&sa, 0, sizeof(sa));
	sa.sa_handler = on_signal;
	sigemptyset(&sa.sa_mask);
	for (i = 0; i < NSTOPSIGS; i++)
		sigaddset(&sa.sa_mask, stopsigs[i]);
	for (i = 0; i < NSTOPSIGS; i++)
		if (sigaction(stopsigs[i], NULL, &old) == 0 &&
		    old.sa_handler != SIG_IGN)
			sigaction(stopsigs[i], &sa, NULL);
}

void
stages_undo_file(struct stages *s, char *path)
{
	if (s->nundo == STAGES_UNDO)
		die("too many files to undo");
	s->undo[s->nundo++] = path;
}

void
stages_tmpdir(struct stages *s, const char *prefix,
    const char *const *names)
{
	const char *tmpdir;
	sigset_t mask;
	int n;

	if ((tmpdir = getenv("TMPDIR")) == NULL || *tmpdir == '\0')
		tmpdir = "/tmp";
	n = snprintf(s->tmp, sizeof(s->tmp), "%s/%s.XXXXXX", tmpdir, prefix);
	if (n < 0 || (size_t)n >= sizeof(s->tmp))
		die("%s: path is too long", tmpdir);
	s->tmpnames = names;
	/* A signal finds the directory made and open, or not made. */
	stages_block(&mask);
	if (mkdtemp(s->tmp) == NULL)
		die("%s:", s->tmp);
	if ((s->tmpfd = open(s->tmp, O_RDONLY | O_DIRECTORY | O_CLOEXEC)) ==
	    -1)
		die("%s:", s->tmp);
	stages_restore(&mask);
	signal(SIGPIPE, SIG_IGN);
}

void
stages_tmpname(const struct stages *s, char *buf, size_t n, const char *name)
{
	snprintf(buf, n, "%s/%s", s->tmp, name);
}

/*
 * Records the descriptor that path names, if any, once; when it is a
 * pipe, its bytes go to a file in the temporary directory, removed at
 * once and open until the end, for every child to read from the start.
 */
void
stages_take_input(struct stages *s, const char *path)
{
	struct stat sb;
	char *buf;
	ssize_t n;
	size_t i;
	int fd, copy;

	if ((fd = file_fd_named(path)) == -1)
		return;
	for (i = 0; i < s->nin; i++)
		if (s->in[i].fd == fd)
			return;
	s->in = xreallocarray(s->in, s->nin + 1, sizeof(*s->in));
	s->in[s->nin].fd = fd;
	s->in[s->nin].copy = -1;
	s->nin++;
	if (fstat(fd, &sb) != 0)
		die("%s:", path);
	if (!S_ISFIFO(sb.st_mode))
		return;
	if ((copy = openat(s->tmpfd, PIPE_COPY, O_RDWR | O_CREAT | O_EXCL |
	    O_CLOEXEC, 0600)) == -1)
		die("%s/%s:", s->tmp, PIPE_COPY);
	if (unlinkat(s->tmpfd, PIPE_COPY, 0) != 0)
		die("%s/%s:", s->tmp, PIPE_COPY);
	s->in[s->nin - 1].copy = copy;
	buf = xmalloc(COPY_BUFSIZE);
	while ((n = read(fd, buf, COPY_BUFSIZE)) != 0) {
		if (n == -1) {
			if (errno == EINTR)
				continue;
			die("%s:", path);
		}
		if (file_write_all(copy, buf, (size_t)n) != 0)
			die("%s/%s:", s->tmp, PIPE_COPY);
	}
	free(buf);
}

/*
 * Until its pid is known a signal waits, so that no stage outlives the
 * job.  The child undoes nothing of the job's.
 */
pid_t
stages_fork(struct stages *s, const char *name, int note)
{
	struct sigaction sa;
	sigset_t mask;
	size_t i;
	pid_t pid;

	fflush(NULL);
	if (s->np == STAGES_MAX)
		die("too many stages");
	stages_block(&mask);
	if ((pid = fork()) == -1)
		die("fork:");
	if (pid > 0) {
		s->p[s->np].pid = pid;
		s->p[s->np].name = name;
		s->p[s->np].note = note;
		s->p[s->np].gate = -1;
		s->np++;
		stages_restore(&mask);
		return pid;
	}
	live = NULL;
	/* SIGTERM is how stop_all() ends a stage, even one ignoring it. */
	for (i = 0; i < NSTOPSIGS; i++)
		if (stopsigs[i] == SIGTERM || (sigaction(stopsigs[i], NULL,
		    &sa) == 0 && sa.sa_handler == on_signal))
			signal(stopsigs[i], SIG_DFL);
	stages_restore(&mask);
	for (i = 0; i < s->nin; i++)
		if (s->in[i].copy != -1 &&
		    dup2(s->in[i].copy, s->in[i].fd) == -1)
			_exit(127);
	return 0;
}

pid_t
stages_spawn(struct stages *s, const char *name, const char *argv[], int in,
    int out)
{
	char path[PATH_MAX + 64];
	pid_t pid;

	if ((pid = stages_fork(s, name, -1)) != 0)
		return pid;
	if (in != -1 && in != STDIN_FILENO && dup2(in, STDIN_FILENO) == -1)
		_exit(127);
	if (out != -1 && out != STDOUT_FILENO &&
	    dup2(out, STDOUT_FILENO) == -1)
		_exit(127);
	close_from(s, 3);
	/* Our own SIG_IGN would survive exec; a stage dies of EPIPE as usual. */
	signal(SIGPIPE, SIG_DFL);
	snprintf(path, sizeof(path), "%s/%s", s->bindir, argv[0]);
	if (s->bindir[0] != '\0' && access(path, X_OK) == 0)
		execv(path, (char *const *)argv);
	else
		execvp(argv[0], (char *const *)argv);
	warnmsg("%s:", argv[0]);
	_exit(127);
}

pid_t
stages_spawn_gated(struct stages *s, const char *name, const char *argv[],
    int out)
{
	int p[2];
	pid_t pid;

	if (pipe(p) == -1)
		die("pipe:");
	/* Later stages must not hold the pipe open. */
	(void)fcntl(p[1], F_SETFD, FD_CLOEXEC);
	pid = stages_spawn(s, name, argv, p[0], out);
	close(p[0]);
	s->p[s->np - 1].gate = p[1];
	return pid;
}

void
stages_gate_open(struct stages *s, pid_t pid)
{
	int i;

	for (i = 0; i < s->np; i++)
		if (s->p[i].pid == pid && s->p[i].gate != -1) {
			close(s->p[i].gate);
			s->p[i].gate = -1;
		}
}

/* Closes every descriptor from lo on but those inputs are named by. */
static void
close_from(const struct stages *s, int lo)
{
	long max;
	size_t i;
	int fd;

	max = sysconf(_SC_OPEN_MAX);
	if (max < 0 || max > 4096)
		max = 4096;
	for (fd = lo; fd < max; fd++) {
		for (i = 0; i < s->nin && s->in[i].fd != fd; i++)
			continue;
		if (i == s->nin)
			close(fd);
	}
}

/* The stages running that wait on no gate. */
static int
ungated(const struct stages *s)
{
	int i, n = 0;

	for (i = 0; i < s->np; i++)
		n += s->p[i].gate == -1;
	return n;
}

int
stages_wait(struct stages *s, void (*progress)(const struct stages *, void *),
    void *arg)
{
	struct timespec tick = { 0, 200000000 };
	int st, rc = 0, tty, i, ticks = 0, failed;
	sigset_t mask;
	pid_t pid;

	tty = progress != NULL && isatty(STDERR_FILENO);
	while (ungated(s) > 0) {
		pid = waitpid(-1, &st, tty ? WNOHANG : 0);
		if (pid == -1) {
			if (errno == EINTR)
				continue;
			die("waitpid:");
		}
		if (pid == 0) {
			nanosleep(&tick, NULL);
			if (++ticks % 5 == 0)
				progress(s, arg);
			continue;
		}
		for (i = 0; i < s->np; i++)
			if (s->p[i].pid == pid)
				break;
		if (i == s->np)
			continue;
		failed = 1;
		if (s->p[i].note != -1 && WIFEXITED(st) &&
		    WEXITSTATUS(st) == s->p[i].note) {
			s->noted = 1;
			failed = 0;
		} else if (WIFEXITED(st) && WEXITSTATUS(st) != 0) {
			warnmsg("%s failed (exit status %d)", s->p[i].name,
			    WEXITSTATUS(st));
		} else if (WIFSIGNALED(st) && (WTERMSIG(st) == SIGPIPE ||
		    (rc != 0 && WTERMSIG(st) == SIGTERM))) {
			/*
			 * The reader went away, as with "| head", or this
			 * stage was stopped below: no news.
			 */
		} else if (WIFSIGNALED(st)) {
			warnmsg("%s was killed by signal %d", s->p[i].name,
			    WTERMSIG(st));
		} else
			failed = 0;
		/*
		 * Off the list, which on_signal() may read at any time: the
		 * list stays whole, and in the order the stages started.
		 */
		stages_block(&mask);
		memmove(&s->p[i], &s->p[i + 1],
		    (size_t)(s->np - i - 1) * sizeof(s->p[0]));
		s->np--;
		stages_restore(&mask);
		/* The first failure stops the rest: none reads on in vain. */
		if (failed && rc == 0)
			stop_all(s);
		rc |= failed;
	}
	if (tty && ticks >= 5)
		fprintf(stderr, "\r\033[K");
	return rc;
}

long long
stages_read_pos(const struct stages *s, const char *path)
{
	char link[PATH_MAX + 64], target[PATH_MAX], want[PATH_MAX], line[128];
	long long pos = -1;
	ssize_t n;
	FILE *fp;
	int fd, i;

	if (realpath(path, want) == NULL)
		return -1;
	for (i = 0; i < s->np && pos < 0; i++)
		for (fd = 0; fd < 64 && pos < 0; fd++) {
			snprintf(link, sizeof(link), "/proc/%ld/fd/%d",
			    (long)s->p[i].pid, fd);
			if ((n = readlink(link, target,
			    sizeof(target) - 1)) <= 0)
				continue;
			target[n] = '\0';
			if (strcmp(target, want) != 0)
				continue;
			snprintf(link, sizeof(link), "/proc/%ld/fdinfo/%d",
			    (long)s->p[i].pid, fd);
			if ((fp = fopen(link, "r")) == NULL)
				continue;
			while (fgets(line, sizeof(line), fp) != NULL)
				if (sscanf(line, "pos: %lld", &pos) == 1)
					break;
			fclose(fp);
		}
	return pos;
}

void
stages_end(struct stages *s)
{
	size_t i;
	int k;

	/* Stages behind their gates never get to read the files. */
	stop_all(s);
	for (k = 0; k < s->np; k++)
		if (s->p[k].gate != -1)
			close(s->p[k].gate);
	reap_all(s);
	if (remove_temps(s) != 0)
		warnmsg("%s:", s->tmp);
	if (s->tmpfd != -1)
		close(s->tmpfd);
	s->tmpfd = -1;
	for (i = 0; i < s->nin; i++)
		if (s->in[i].copy != -1)
			close(s->in[i].copy);
	free(s->in);
	s->in = NULL;
	s->nin = 0;
	live = NULL;
}

/*
 * Undoes the job and dies of sig, so that the caller sees it did: a shell
 * stops a loop on SIGINT only then.  Only async-signal-safe calls here.
 */
static void
on_signal(int sig)
{
	sigset_t set;

	on_exit_undo();
	signal(sig, SIG_DFL);
	sigemptyset(&set);
	sigaddset(&set, sig);
	raise(sig);
	sigprocmask(SIG_UNBLOCK, &set, NULL);
	/* Not reached, as the default action of sig ends the process. */
	_exit(128 + sig);
}

/* A die() in the middle of the job, or a signal; async-signal-safe. */
static void
on_exit_undo(void)
{
	if (live == NULL)
		return;
	stop_all(live);
	reap_all(live);
	(void)remove_temps(live);
	live = NULL;
}

void
stages_block(sigset_t *old)
{
	sigset_t set;
	size_t i;

	sigemptyset(&set);
	for (i = 0; i < NSTOPSIGS; i++)
		sigaddset(&set, stopsigs[i]);
	sigprocmask(SIG_BLOCK, &set, old);
}

void
stages_restore(const sigset_t *old)
{
	sigprocmask(SIG_SETMASK, old, NULL);
}

/*
 * SIGTERM to every running stage, the last started first: a reader goes
 * before its writer, so none of them reads a cut stream and says so.
 */
static void
stop_all(struct stages *s)
{
	int i;

	for (i = s->np - 1; i >= 0; i--)
		kill(s->p[i].pid, SIGTERM);
}

/* Waits for every stage, whatever its end; async-signal-safe. */
static void
reap_all(struct stages *s)
{
	while (s->np > 0) {
		if (waitpid(s->p[s->np - 1].pid, NULL, 0) == -1 &&
		    errno == EINTR)
			continue;
		s->np--;
	}
}

/*
 * Removes the registered files and the temporary directory with every
 * file a stage may have made there.  Async-signal-safe: on_signal() calls
 * it.  Returns -1 when the directory is left.
 */
static int
remove_temps(struct stages *s)
{
	int i;

	for (i = 0; i < s->nundo; i++)
		if (s->undo[i][0] != '\0') {
			unlink(s->undo[i]);
			s->undo[i][0] = '\0';
		}
	if (s->tmpfd == -1)
		return 0;
	unlinkat(s->tmpfd, PIPE_COPY, 0);
	for (i = 0; s->tmpnames != NULL && s->tmpnames[i] != NULL; i++)
		unlinkat(s->tmpfd, s->tmpnames[i], 0);
	return rmdir(s->tmp);
}
