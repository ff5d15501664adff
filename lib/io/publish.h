/*
 * publish: a file published whole, as git's lockfile publishes one: its
 * bytes are written into a new temporary file beside its name
 * (".name.XXXXXX", made with O_EXCL) and renamed onto the name once closed
 * without error.  A reader sees the old file or the new one, never half
 * of one; a name that is a symbolic link is replaced, not followed; a
 * failure leaves the name as it was and no temporary file.  SIGHUP,
 * SIGINT and SIGTERM wait for the few calls between making the temporary
 * file and renaming it, so that a stop leaves nothing behind either.
 *
 * Ownership: every argument is borrowed for the call.
 */
#ifndef PUBLISH_H
#define PUBLISH_H

#include <stddef.h>
#include <sys/types.h>

/*
 * Publishes the len bytes of buf as path, with the permissions mode.
 * Returns 0, or -1 after a message naming path ("dir/a.md: write failed:
 * File too large").
 */
int publish_file(const char *path, const char *buf, size_t len,
    mode_t mode);

#endif
