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
 * copied nodes point into the trace file.  Nothing is kept between calls.
 */
#ifndef EXTRACT_H
#define EXTRACT_H

#include <stdint.h>

#include "io/ndjson.h"

/* What the trace file is, byte for byte, found as it was read. */
struct extract_digest {
	int		hashed;		/* 0: the file could not be read ahead */
	uint64_t	size;
	char		sha256[65];
};

struct extract_opts {
	int	args;	/* -a: keep every event's args */
	/*
	 * Not NULL: a thread reads the file ahead and hashes it as it goes
	 * (gzin_hash), and its size and SHA-256 land here once the trace
	 * was read whole.
	 */
	struct extract_digest *digest;
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
