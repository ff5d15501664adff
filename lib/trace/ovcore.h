/*
 * ovcore: what the overlay's parts share (overlay.c reads the records and
 * the trace and writes its events and flows, ovtrack.c the critical-path
 * process, ovcount.c the counters): the spills' records and the state of
 * one overlay.
 *
 * Ownership: struct overlay owns its names, findings, ranks, spills and
 * pool (overlay_free()).
 */
#ifndef OVCORE_H
#define OVCORE_H

#include <stddef.h>
#include <stdint.h>

#include "base/strmap.h"
#include "io/json.h"
#include "io/spill.h"
#include "trace/ovcount.h"

struct flowend;
struct jw;
struct overlay_opts;

/* The edge types of crit-path's records, by E_*; HTA's add a prefix. */
extern const char *const ov_edge_types[];
enum { E_OPERATOR, E_DEPENDENCY, E_LAUNCH, E_KERNEL, E_SYNC, E_NTYPES };

/* No name: an edge without a class or an attributed event. */
#define NONAME	UINT32_MAX

/* A node's bits. */
enum {
	N_END = 1,		/* the event's end, not its start */
	N_TO = 2,		/* the edge's last node */
	N_CRITICAL = 4,		/* the edge is on the path */
	N_FLOW = 8		/* the edge gets a flow */
};

/* The records' edges, in a spill in their order. */
struct edgerec {
	uint64_t	seq;
	int64_t		rank, from_ns, weight_ns;
	uint32_t	type, bits;	/* N_CRITICAL, N_FLOW */
	uint32_t	cls, event;	/* names, or NONAME */
};
struct finding {
	int64_t	 place;
	char	*rule, *area, *observation;
};

/* A rank the records name, and its first window's start. */
struct rankseen {
	int64_t	rank;
	int	have_start;
	int64_t	start_ns;
};

struct overlay {
	const struct overlay_opts *o;
	struct strmap	 names;		/* name -> its id + 1 in n */
	char		**name;		/* by id */
	size_t		 nnames, namecap;
	uint64_t	 nedges;
	struct rankseen	*ranks;
	size_t		 nranks;
	int64_t		 rank;		/* the one drawn */
	struct finding	*findings;
	size_t		 nfindings, findcap;
	struct spool	 pool;
	struct spill	 edges, nodes, events, marks, flowends, flowouts;
	struct ovcount	 counters;

	/* Reading the trace. */
	int		 writing;	/* the second read */
	uint64_t	 index;		/* the event being read */
	int64_t		 origin;
	int64_t		 max_pid;
	int		 have_pid;
	struct jdoc	 top[5];	/* the top-level members kept */
	int		 have_top[5];	/* 1: before the events, 2: after */
	uint64_t	 marked;
	struct spillcur	 markcur, flowcur;
	const uint64_t	*mark;
	const struct flowend *flow;
	struct jw	*w;
};

/* The process "critical path": its track of the path, and the findings. */
void	ovtrack_write(struct overlay *);

#endif
