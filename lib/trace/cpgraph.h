/*
 * cpgraph: one window's dependency graph, built as HTA's CPGraph builds
 * it, and its longest path (cpgraph.c).
 *
 * Ownership: a struct graph borrows its critpath and rank and owns its
 * arrays, its events too, until cpg_free().  Events are named by their
 * place in ev (nodes, edges, frames); links inside them by idx.
 */
#ifndef CPGRAPH_H
#define CPGRAPH_H

#include "trace/cpcore.h"

enum { E_OP, E_DEP, E_LAUNCH, E_KK, E_SYNC };

enum { B_CPU, B_DATA, B_GPU, B_COMM, B_KK, B_LAUNCH, B_SYNC, B_GRAPH,
	NBOUND, B_NONE = NBOUND };

/* One window's graph. */
struct node {
	int64_t		 ts;
	uint32_t	 ev;		/* the rank's event */
	unsigned char	 start;
};

struct edge {
	uint32_t	 u, v;
	int64_t		 w;
	int32_t		 attr;		/* the rank's event, or -1 */
	unsigned char	 type;
};

struct graph {
	struct critpath	*cp;
	struct rank	*r;
	const char	*label;
	long		 instance;
	int64_t		 ws, we;
	struct ev	*ev;		/* the window's events, by idx */
	size_t		 nin;
	int32_t		*snode, *enode;	/* by place in the window */
	int32_t		*sync_src;	/* by place: a GPU event to wait on */
	int32_t		*frame;		/* by place: the user's Python frame
					   it ran in, or -1 */
	struct node	*node;
	size_t		 nnode;
	struct edge	*edge;
	size_t		 nedge, capedge;
	uint32_t	*hash;		/* edge index + 1 by (u, v) */
	size_t		 hashcap;
	uint32_t	*path;		/* nodes of the longest path */
	size_t		 npath;
	int64_t		 length;
	const char	*failed;
};

/*
 * Builds g's graph over the window g->ws to g->we of g->r and finds its
 * path; where there is none for a cycle or a bad edge, g->failed says
 * why, after a warning naming the events.
 */
void	cpg_build(struct graph *);
void	cpg_free(struct graph *);

struct edge *cpg_edge_of(struct graph *, uint32_t u, uint32_t v);
/* An edge's bound class (B_*), B_NONE for those that weigh nothing. */
int	cpg_bound_of(const struct graph *, const struct edge *);
/* The user's Python frame an event ran in (a kernel: its launch), or -1. */
int32_t	cpg_frame_of(const struct graph *, int32_t ev);
/* An event's name; "ROOT" for -1, the top of a call stack. */
const char *cpg_ev_name(const struct graph *, int32_t ev);

#endif
