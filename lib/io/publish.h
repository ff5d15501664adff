/*
 * publish: a file published whole, as git's lockfile publishes one: its
 * bytes are written into a new temporary file beside its name
 * (".name.XXXXXX", made with O_EXCL) and renamed onto the name once closed
 * without error.  A reader sees the old file or the new one, never half
 * of one; a name that is a symbolic link is replaced, not followed; a
 * failure leaves the name as it was and no temporary file.  Messages name
 * the file published, never its temporary name.
 *
 * A struct pubout is the same for a file that other processes write
 * (analyze-profile's reports): its temporary file is made before they
 * start, so that an output that cannot be written fails first.
 *
 * Ownership: every argument is borrowed for the call; the name
 * publish_stage() returns is the caller's to free.  A pubout borrows its
 * path and owns its descriptor and temporary file until pubout_done().
 */
#ifndef PUBLISH_H
#define PUBLISH_H

#include <limits.h>
#include <stddef.h>
#include <sys/types.h>

/*
 * Publishes the len bytes of buf as path, with the permissions mode.
 * SIGHUP, SIGINT and SIGTERM wait for the few calls between making the
 * temporary file and renaming it, so that a stop leaves nothing behind.
 * Returns 0, or -1 after a message naming path ("dir/a.md: write failed:
 * File too large").
 */
int publish_file(const char *path, const char *buf, size_t len,
    mode_t mode);

/*
 * publish_file() in two halves, for files that must all be written before
 * any is renamed, so that a failure leaves every one as it was.  Signals
 * are the caller's to hold.
 *
 * publish_stage() writes buf into a new temporary file beside path and
 * returns its name, which the caller frees, or NULL after a message, with
 * nothing left behind.
 */
char *publish_stage(const char *path, const char *buf, size_t len,
    mode_t mode);

/*
 * Renames tmp, a whole file beside path (publish_stage()'s, or one a
 * caller made and had written elsewhere), onto path.  Returns 0, or -1
 * after a message, with tmp removed; the caller still frees the name.
 */
int publish_commit(const char *tmp, const char *path);

/* The mode of a new file: 0666 less the umask. */
mode_t publish_mode(void);

/*
 * A file written whole by others: tmp, beside path, renamed over path by
 * pubout_done().  A path that exists and is not a regular file
 * (/dev/null, a fifo, a terminal) is written in place and has no tmp.
 */
struct pubout {
	const char	*path;		/* NULL: standard output */
	char		 tmp[PATH_MAX];	/* "" when none, or once done */
	int		 fd;		/* tmp, open until taken; -1 */
};

/*
 * Makes o's temporary file for path (NULL: standard output), mode 0644
 * less the umask, or dies: path is a directory, or cannot be written.
 * tmp holds its name from when it exists, and only then, the stop signals
 * held meanwhile, so that a signal's undo can remove it.
 */
void pubout_open(struct pubout *o, const char *path);

/* The descriptor to write, once; the caller closes it. */
int pubout_fd(struct pubout *o);

/* The name a writer that opens the file itself is given. */
const char *pubout_path(const struct pubout *o);

/*
 * Renames the temporary file over path when status is 0, else removes
 * it.  Returns status, or 1 when the rename failed.
 */
int pubout_done(struct pubout *o, int status);

/*
 * Takes the directories of the n outputs still to be renamed with
 * flock(2), in the order of their device and inode numbers, until exit:
 * two runs with the same outputs publish one whole set each, never the
 * Markdown of one beside the JSON of the other.
 */
void pubouts_lock(const struct pubout *o, size_t n);

#endif
