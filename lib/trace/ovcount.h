/*
 * ovcount: the counters of an overlay (lib/trace/overlay): each GPU
 * stream's queue length, HTA's (the kernels, copies and sets launched and
 * not yet finished; a graph launch queues all it launches), and whether
 * one runs, as Chrome trace counter events where each changes.
 *
 * The launches and the GPU work are joined on their correlation and swept
 * in time through spill files, so memory holds the pool's budget and one
 * entry per stream.
 *
 * Ownership: a struct ovcount owns its spills and streams (ovcount_free());
 * the pool is the caller's and must outlive it.
 */
#ifndef OVCOUNT_H
#define OVCOUNT_H

#include <stddef.h>
#include <stdint.h>

#include "io/spill.h"

struct jdoc;
struct jw;
struct extract_seen;

struct ovstream;

struct ovcount {
	struct spill	 launches, gpu, deltas;
	uint64_t	 seq;
	struct ovstream	*streams;
	size_t		 nstreams, streamcap;
};

void	ovcount_init(struct ovcount *, struct spool *);

/* An 'X' event of the trace, as read: GPU work or a runtime call. */
void	ovcount_see(struct ovcount *, const struct jdoc *,
	    const struct extract_seen *);

/*
 * The counter events, each after a jw_break(): times from the trace's
 * origin (ns, in its own clock) plus the events' own.
 */
void	ovcount_write(struct ovcount *, struct jw *, int64_t origin);

void	ovcount_free(struct ovcount *);

#endif
