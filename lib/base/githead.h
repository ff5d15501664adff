/*
 * githead: the commit a work tree has checked out, as `git rev-parse HEAD`
 * prints it, read from the repository's files instead of running git.
 */
#ifndef GITHEAD_H
#define GITHEAD_H

/*
 * Looks for .git (a directory, or a file "gitdir: <path>" as in worktrees
 * and submodules) in dir and its parents, then follows HEAD to a loose or
 * packed ref.  Returns the hex commit id, which the caller frees, or NULL
 * when dir is not in a work tree or the ref cannot be read.
 */
char	*git_head(const char *dir);

#endif
