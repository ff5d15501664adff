/*
 * critpath: the critical path of a window of a trace: the dependency graph
 * of its CPU operators, runtime calls and GPU work, built as HTA's
 * critical_path_analysis builds it (two nodes per event; call nesting,
 * the runtime lock, kernel launch and kernel-to-kernel delays, CUDA
 * synchronisation), with what HTA lacks: CUDA and HIP graph launches,
 * traces without cuda_sync events (ROCm), stream 0.  The longest path is
 * found by dynamic programming over a topological order, as networkx's
 * dag_longest_path finds it, so that ties fall as HTA's do.
 *
 * Memory holds the names, threads and streams, the events that may bound
 * windows and one window's graph; the events themselves go through spill
 * files under $MRP_CRIT_PATH_MEMORY (cprank.h).
 *
 * Ownership: a struct critpath owns its copies of the events it was
 * given, the names interned from them and the tables it read, and its
 * temporary file; critpath_free() frees them.  The options are borrowed
 * until critpath_free().
 */
#ifndef CRITPATH_H
#define CRITPATH_H

#include <stdint.h>

struct jdoc;
struct jw;
struct trevent;

#define CALLS_NAME	"cuda-calls.tsv"

/* The critical_edge records written: none, the path's, every edge's. */
enum { CP_EDGES_NONE, CP_EDGES_PATH, CP_EDGES_ALL };

struct critpath_opts {
	const char	*window;	/* annotation substring, or NULL */
	long		 instance;	/* its instance, or -1 for every one */
	int		 whole;		/* the whole trace as one window */
	int		 edges;		/* which critical_edge records */
	const char	*calls;		/* the calls table's path */
};

struct critpath;

struct critpath	*critpath_new(const struct critpath_opts *);

/*
 * One record of tr-extract: an "event" is kept where the graph may need
 * it; other kinds are passed over.  Returns 0, or -1 after a message
 * naming file and line (a record without the members an event needs).
 */
int	critpath_add(struct critpath *, const struct jdoc *,
	    const char *file, uint64_t line);

/* An "event" record, typed (trace/trevent.h), as critpath_add() takes it. */
int	critpath_event(struct critpath *, const struct trevent *,
	    const char *file, uint64_t line);

/*
 * Builds the graph of every window of every rank read and writes its
 * "critical_path" and "critical_edge" records.  A window whose graph has
 * a cycle or a negative edge gets a warning naming its events and a
 * record without a path.  Returns 0, or 1 where a window had no path.
 */
int	critpath_write(struct critpath *, struct jw *);

void	critpath_free(struct critpath *);

#endif
