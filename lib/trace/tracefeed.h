/*
 * tracefeed: analyze-profile's trace branch in one process.  The
 * extractor of tr-extract hands each event of each trace to the
 * aggregator of op-rank and to crit-path's graph (each input's own) as a
 * typed event (trace/trevent.h) over the trace's own members, and each
 * other record (and each record of an Nsight Systems export) as a jdoc,
 * with no text between them; what mem-segments needs of a trace (the
 * "memory" records, the "ProfilerStep#" slices and the "trace" records)
 * goes on to it as NDJSON.  Where the process may use three CPUs or more
 * (base/cpus.h), op-rank's intake runs on a thread of its own, the
 * records and events relayed to it in batches (io/docrelay.h); its
 * records are the same bytes.
 *
 * Ownership: the paths and flags are borrowed; the streams become the
 * feed's, closed before tracefeed_run() returns: the memory stream
 * first, so that its reader finishes while the ranking is written.
 */
#ifndef TRACEFEED_H
#define TRACEFEED_H

#include <stddef.h>
#include <stdio.h>

struct tracefeed {
	char		*const *paths;
	const unsigned char *nsys;	/* nsys[i]: paths[i] is an export */
	size_t		 n;
	const char	*phase;		/* op-rank's -p, or NULL */
	const char	*gpu;		/* op-rank's -g, or NULL */
	FILE		*ranked;	/* op-rank's records */
	FILE		*critical;	/* crit-path -s's, of each input */
	/*
	 * Not NULL: crit-path's records of input overlaid, its path's
	 * edges with them, for trace-overlay.
	 */
	FILE		*overlay;
	size_t		 overlaid;
	FILE		*memory;	/* for mem-segments */
	FILE		*inputs;	/* each trace's "input" record */
	FILE		*empty;		/* the index of each trace without
					   events, one per line */
};

/*
 * Reads every input and writes the streams.  Returns 1 when an input had
 * no events, else 0; a failure is fatal (exit status 1) after a message.
 */
int	tracefeed_run(const struct tracefeed *);

#endif
