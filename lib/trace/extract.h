/*
 * extract: a PyTorch profiler trace (Chrome trace JSON, plain or gzip) as
 * records: one per event it keeps ("event", "memory", "instant",
 * "counter", "flow", "process", "thread"), 'B' and 'E' paired into
 * "event", then one "trace" record that sums the file up.  man/tr-extract.1
 * and man/mrp-records.5 describe the records.
 *
 * The trace is read with bounded memory whatever its size: one event at a
 * time, plus the 'B' events still waiting for their 'E'.  Records are
 * written through the caller's writer, which stays the caller's; a text
 * writer (jw_new) gives tr-extract's NDJSON, a document writer
 * (jw_new_doc) hands each record to an in-process consumer as a jdoc whose
 * copied nodes point into the trace file, and the event hook hands it the
 * events without a record built.  Nothing is kept between calls.
 */
#ifndef EXTRACT_H
#define EXTRACT_H

#include <stdint.h>

#include "io/json.h"
#include "io/ndjson.h"

struct trevent;

/* What the trace file is, byte for byte, found as it was read. */
struct extract_digest {
	int		hashed;		/* 0: the file could not be read ahead */
	uint64_t	size;
	char		sha256[65];
};

/*
 * What a hook sees of one event of traceEvents, as the file holds it:
 * before a 'B' is paired with its 'E', and whether or not it makes a
 * record.
 */
struct extract_seen {
	char	ph;		/* its letter; '\0' when not one letter */
	int	timed;		/* 0: no "ts" (metadata); the times unset */
	int64_t	start_ns;	/* "ts" from the origin, as records' ts */
	int64_t	dur_ns;		/* "dur"; 0 when absent */
	int64_t	origin_ns;	/* the origin, in the trace's own clock */
};

/* Kinds of record a consumer may do without (extract_opts.skip). */
enum {
	XR_INSTANT = 1 << 0,
	XR_COUNTER = 1 << 1,
	XR_FLOW = 1 << 2,
	XR_PROCESS = 1 << 3
};

struct extract_opts {
	int	args;	/* -a: keep every event's args */
	/*
	 * Not NULL: a thread reads the file ahead and hashes it as it goes
	 * (gzin_hash), and its size and SHA-256 land here once the trace
	 * was read whole.
	 */
	struct extract_digest *digest;
	/*
	 * Not NULL: called with every event in file order, after its
	 * checks and before its record; and top with each top-level member
	 * that records carry (deviceProperties, distributedInfo,
	 * schemaVersion, baseTimeNanoseconds, displayTimeUnit), by its key.
	 * A hook returns 0, or -1 after its own message to stop the read.
	 */
	int	(*each)(void *arg, const struct jdoc *event,
		    const struct extract_seen *);
	int	(*top)(void *arg, const char *key, const struct jdoc *value);
	/*
	 * Not NULL: each "event" record goes here, typed, instead of through
	 * the writer: an in-process consumer reads no document built for it.
	 * The event and its nodes are valid only during the call.
	 */
	int	(*event)(void *arg, const struct trevent *);
	/*
	 * Not NULL: the "memory" records go through this writer instead of
	 * the others' (analyze-profile's stream for mem-segments, as text).
	 */
	struct jw *memory;
	unsigned skip;	/* XR_* kinds that no consumer reads: not made */
	void	*hook_arg;
	int	hooks_only;	/* the hooks see the events; no records */
	int	quiet;		/* no warnings: a trace read once already */
};

/*
 * Reads the trace at path (NULL or "-": stdin) and writes its records
 * through w.  Returns 0; 1 when it could not be opened (reported); -1
 * after a data error (reported, "file:line:col: message"), or once w's
 * consumer has refused a record (jw_failed; the consumer reports why).
 * The path, w and o are borrowed.
 */
int extract_trace(const char *path, struct jw *w,
    const struct extract_opts *o);

#endif
