/*
 * forkpool: a batch of items, each made into bytes by forked workers, one
 * for each CPU this process may use (base/cpus.h), and handed back to the
 * parent in item order with the messages that making it wrote to stderr:
 * a batch on several CPUs says and writes what one on a single CPU does,
 * in the same order.
 *
 * The workers are forked once the caller holds what every item shares
 * (rubric-apply's and report-md's compiled jq programs), which they read
 * copy-on-write: nothing is set up again.  Worker w of W makes the items
 * w, w + W, w + 2W and so on; the parent makes none, and takes each in
 * turn.  With one CPU or one item no worker is forked: the process makes
 * and takes each item in turn itself.
 *
 * make() runs in a worker: it makes item i, writes its messages to
 * stderr, and returns the item's status, its bytes in *buf (from malloc,
 * or NULL) and their count in *len.  take() runs in the parent, once an
 * item in order, after that item's messages have reached stderr; it owns
 * buf, and returns 0 to go on or -1 to end the batch, which stops the
 * workers: no later item is taken.  A worker that exits or is killed in
 * the middle of an item (a die(): out of memory) ends the batch as it
 * would have ended the process: its messages are passed on, the other
 * workers are stopped, and the parent exits with its status.
 *
 * Ownership: arg is the caller's; nothing outlives forkpool_run().
 */
#ifndef FORKPOOL_H
#define FORKPOOL_H

#include <stddef.h>

/* Returns 0 once every item is taken; -1 when take() ended the batch. */
int	forkpool_run(size_t n,
	    int (*make)(void *arg, size_t i, char **buf, size_t *len),
	    int (*take)(void *arg, size_t i, int status, char *buf,
	    size_t len), void *arg);

#endif
