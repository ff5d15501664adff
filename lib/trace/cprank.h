/*
 * cprank: what HTA finds over a rank's whole dataframe before it cuts a
 * window, found here in passes over spill files (cprank.c), so that memory
 * holds the pool's budget and one window, not the trace: which events a
 * correlation links, each stream's queue as work is launched and starts,
 * and what the event syncs wait for.
 *
 * Ownership: cpr_add() copies the event into the rank's spills;
 * cpr_prepare() reads them, frees them and fills r->bysel and r->waits,
 * which the rank owns (critpath_free()).
 */
#ifndef CPRANK_H
#define CPRANK_H

#include "trace/cpcore.h"

/* Takes e, with its idx set, into the rank's passes. */
void	cpr_add(struct critpath *, struct rank *, const struct ev *e);

/*
 * Links, queues and the syncs' waits for every event taken, then each
 * event a window may take into r->bysel, by (sel, idx), and every Stream
 * Wait Event into r->waits.
 */
void	cpr_prepare(struct critpath *, struct rank *);

#endif
