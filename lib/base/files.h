/*
 * files: what several programs ask of paths and descriptors: a small
 * file read whole, a write that writes everything, the directory of a
 * path, whether two paths name one file, and the descriptor a path such
 * as /dev/fd/3 names.
 *
 * Ownership: every argument is borrowed for the call.  file_slurp()'s
 * text is the caller's to free; nothing else here allocates but
 * file_same(), which frees what it made; file_write_all() is
 * async-signal-safe.
 */
#ifndef FILES_H
#define FILES_H

#include <stddef.h>

/*
 * The whole of a small file (a list, a plan), NUL-terminated, its length
 * in *lenp; a file that cannot be read is a message and exit 1.
 */
char	*file_slurp(const char *path, size_t *lenp);

/* Writes all n bytes of buf to fd, through EINTR; 0, or -1 (errno). */
int	file_write_all(int fd, const void *buf, size_t n);

/*
 * The directory of path into dir ("." when path names none, "/" for the
 * root); returns path's last name, or NULL when dir is too small.
 */
const char *file_dir(const char *path, char *dir, size_t size);

/*
 * Whether a and b name one file: the same path, the same device and
 * inode, or, for a file not made yet, the same name in the same directory.
 */
int	file_same(const char *a, const char *b);

/* Whether path is a character device (/dev/null, a terminal). */
int	file_is_chardev(const char *path);

/*
 * The descriptor N that path names as /dev/fd/N, /proc/self/fd/N or
 * /dev/stdin, which a child of this process opens as its own N; -1 for any
 * other path, and for standard output and error.
 */
int	file_fd_named(const char *path);

#endif
