/*
 * overlay: a profiler trace written back with its critical path on it, for
 * the trace viewers (Perfetto, chrome://tracing, speedscope): every event
 * of the input unchanged and in file order, with "critical": 1 added to
 * the args of each event on the path, then what was found:
 *  - HTA's flow events for the path's edges (cat and name
 *    "critical_path", 's' at the edge's first node, 'f' with bp "e" at
 *    its last, args weight, critical and type), as HTA's
 *    overlay_critical_path_analysis writes them, so that HTA's counts
 *    apply;
 *  - a process "critical path" (its pid one above the trace's largest),
 *    a track per rank holding one slice per edge of weight on the path,
 *    named by its bound class;
 *  - counters per GPU stream: "queue length (stream N)", the kernels
 *    launched and not yet finished, and "GPU busy (stream N)", 1 while
 *    one runs, each where it changes;
 *  - an instant marker per finding of the report, at the start of the
 *    first window the path covers.
 * Of the top-level members only those that records carry are written
 * (deviceProperties, distributedInfo, schemaVersion, baseTimeNanoseconds,
 * displayTimeUnit): a trace's name (a path) and members no reader of
 * mrp's looks at stay out.
 *
 * Events are found by crit-path's nodes: an event's name and the time of
 * its start or end, from the trace's origin, as tr-extract's records give
 * them.  The path's nodes and edges are held in memory; the counters go
 * through spill files ($MRP_CRIT_PATH_MEMORY, as crit-path's), so the
 * trace is read once with bounded memory.
 *
 * Ownership: a struct overlay owns what it copied from the records;
 * overlay_free() frees it.  The options are borrowed until then.
 */
#ifndef OVERLAY_H
#define OVERLAY_H

#include <stdint.h>
#include <stdio.h>

struct jdoc;

struct overlay_opts {
	int	all_edges;	/* flows for every edge read, not the path's */
	int64_t	rank;		/* the records' rank to draw; -1: the only one */
};

struct overlay;

struct overlay	*overlay_new(const struct overlay_opts *);

/*
 * One record: critical_path, critical_edge (crit-path's) and finding
 * (rubric-apply's) are kept, others passed over.  Returns 0, or -1 after
 * a message naming file and line.
 */
int	overlay_add(struct overlay *, const struct jdoc *, const char *file,
	    uint64_t line);

/*
 * Reads the trace at path (NULL or "-": stdin) and writes the overlay to
 * out, named outname in messages, as Chrome trace JSON, one event a line.
 * Returns 0; 1 when the trace could not be opened; -1 after a data error
 * (reported).  A failed write is fatal (lib/io/ndjson).
 */
int	overlay_write(struct overlay *, const char *path, FILE *out,
	    const char *outname);

void	overlay_free(struct overlay *);

#endif
