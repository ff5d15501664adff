/*
 * trevent: one "event" record of tr-extract (man/mrp-records.5) as its
 * consumers take it in, typed: the nodes of its members and its times
 * read.  The extractor hands one to op-rank's and crit-path's intake in
 * the same process without building the record (extract_opts.event), and
 * a reader of the NDJSON record gets the same from the line
 * (trevent_from_doc), so that both paths run the same intake.
 *
 * The nodes are those of the document the event came from: the record
 * read from a line, or the trace's own event, whose members the record
 * would have copied (its args' included).  Either way a node's type and
 * text are what the record's member holds, and its line and column are
 * where the trace wrote it, as a document writer's copies keep them.
 *
 * Ownership: d and its nodes are borrowed; an event lives no longer than
 * its document.
 */
#ifndef TREVENT_H
#define TREVENT_H

#include <stdint.h>

#include "io/json.h"
#include "io/ndjson.h"

/* How a time member was read. */
enum trtime {
	TRT_READ,	/* into ts or dur */
	TRT_NONE,	/* absent, or not a number */
	TRT_RANGE	/* a number beyond int64 nanoseconds */
};

/* An event record's members, in the record's order; node -1: absent. */
struct trevent {
	const struct jdoc *d;
	int		 name, cat, pid, tid, ts, dur;
	int		 stream, corr, external_id, device, bytes;
	/* What a cuda_sync waits for: crit-path's sync edges. */
	int		 wait_stream, wait_record;
	int		 dims, types, strides, concrete;	/* shapes */
	/* A collective's: what it moves. */
	int		 coll, group, group_size, in_nelems, out_nelems, dtype;
	int		 args;
	/* ns from the trace's origin, when ts_read and dur_read say so */
	int64_t		 ts_ns, dur_ns;
	enum trtime	 ts_read, dur_read;
	/* The rank the extractor knew; has_rank 0: none in the record. */
	int		 has_rank;
	int64_t		 rank;
};

/*
 * The event record d (kind "event") as a typed event: each member's node,
 * the last of a repeated name winning as with jdoc_get(); ts and dur read
 * as jnum_us_to_ns() reads them; rank where it is an integer.
 */
void	trevent_from_doc(const struct jdoc *d, struct trevent *ev);

/* Writes ev as the record tr-extract writes, through w. */
void	trevent_write(struct jw *w, const struct trevent *ev);

#endif
