/*
 * publish: a file published whole, as git's lockfile publishes one: its
 * bytes are written into a new temporary file beside its name
 * (".name.XXXXXX", made with O_EXCL) and renamed onto the name once closed
 * without error.  A reader sees the old file or the new one, never half
 * of one; a name that is a symbolic link is replaced, not followed; a
 * failure leaves the name as it was and no temporary file.  Messages name
 * the file published, never its temporary name.
 *
 * Ownership: every argument is borrowed for the call; the name
 * publish_stage() returns is the caller's to free.
 */
#ifndef PUBLISH_H
#define PUBLISH_H

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

#endif
