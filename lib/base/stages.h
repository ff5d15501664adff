/*
 * stages: child processes run as one job, as a shell runs a pipeline,
 * with a private temporary directory for the files between them.  The
 * first stage to fail stops the others; a die(), an exit() or SIGHUP,
 * SIGINT or SIGTERM in the middle stops every stage and removes the
 * directory and the files registered for undoing (outputs not yet
 * published), then dies of the signal as the caller's shell expects.
 * An input named by a descriptor (/dev/fd/N, as <(...) gives it) is read
 * once and each stage finds its copy under the same N.
 *
 * Ownership: one struct stages per process, the caller's, from
 * stages_start() to stages_end(); names, argv and the tmpnames table are
 * borrowed and must outlive it.  The stage list is changed with the stop
 * signals blocked, as their handler reads it.
 */
#ifndef STAGES_H
#define STAGES_H

#include <limits.h>
#include <signal.h>
#include <sys/types.h>

#define STAGES_MAX	16
#define STAGES_UNDO	4

struct stage {
	pid_t		 pid;
	const char	*name;
	int		 note;		/* an exit status that is no failure */
	int		 gate;		/* the pipe it waits on, or -1 */
};

struct stages_fdin {
	int		 fd;		/* the N of /dev/fd/N */
	int		 copy;		/* its copy, or -1: N is a file */
};

struct stages {
	char		 bindir[PATH_MAX];	/* "" when unknown */
	char		 tmp[PATH_MAX];	/* the temporary directory */
	int		 tmpfd;		/* tmp, open for unlinkat(); -1 */
	const char *const *tmpnames;	/* what stages may make in tmp */
	char		*undo[STAGES_UNDO];	/* files to remove, "" none */
	int		 nundo;
	struct stage	 p[STAGES_MAX];
	int		 np;
	int		 noted;		/* a stage ended with its note */
	struct stages_fdin *in;
	size_t		 nin;
};

/*
 * Makes s the job that a signal or exit() undoes until stages_end():
 * SIGHUP, SIGINT and SIGTERM stop it unless they were ignored when it
 * started (nohup(1), a shell's background without job control).  The
 * stages are the programs beside this one (prog_dir()), else on PATH.
 */
void	stages_start(struct stages *);

/*
 * Registers path, a buffer of PATH_MAX bytes that holds a file's name or
 * "", as a file to remove when the job is undone.
 */
void	stages_undo_file(struct stages *, char *path);

/*
 * Makes the temporary directory $TMPDIR/prefix.XXXXXX; names (NULL ended)
 * are every file a stage may make there, which the undo removes.
 */
void	stages_tmpdir(struct stages *, const char *prefix,
	    const char *const *names);

/* "tmp/name" into buf. */
void	stages_tmpname(const struct stages *, char *buf, size_t,
	    const char *name);

/*
 * Takes in the input path names, when it is a descriptor: a pipe's bytes
 * go to an unlinked file in the directory, for each stage to read from
 * the start.
 */
void	stages_take_input(struct stages *, const char *path);

/*
 * Forks a stage named name; returns 0 in the child, which has the default
 * action on the stop signals and its inputs' descriptors.  An exit status
 * note (-1: none) is no failure: stages_wait() sets noted.
 */
pid_t	stages_fork(struct stages *, const char *name, int note);

/*
 * Runs argv[0] with in and out (-1: inherited) as its standard input and
 * output, every other descriptor but the inputs' closed.
 */
pid_t	stages_spawn(struct stages *, const char *name, const char *argv[],
	    int in, int out);

/*
 * stages_spawn() with a standard input that stays open and empty until
 * stages_gate_open(): a stage that reads it first waits there, and
 * stages_wait() leaves it be.
 */
pid_t	stages_spawn_gated(struct stages *, const char *name,
	    const char *argv[], int out);
void	stages_gate_open(struct stages *, pid_t);

/*
 * Waits for every stage not behind its gate; the first failure stops the
 * rest, those behind gates too.  progress (may be NULL) is called every
 * second while waiting, on a terminal.  Returns 0 when all succeeded.
 */
int	stages_wait(struct stages *, void (*progress)(const struct stages *,
	    void *), void *arg);

/* How far a stage has read path, from /proc; -1 when none has it open. */
long long stages_read_pos(const struct stages *, const char *path);

/* Blocks the stop signals; old gets the mask to restore. */
void	stages_block(sigset_t *old);
void	stages_restore(const sigset_t *old);

/*
 * Stops every stage still running, removes the directory and the
 * registered files, and ends the job: a signal from now on undoes nothing.
 */
void	stages_end(struct stages *);

#endif
