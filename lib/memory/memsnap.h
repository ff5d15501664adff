/*
 * memsnap: streaming reader of CUDA caching-allocator memory snapshots
 * (torch.cuda.memory._snapshot() dumped as JSON, every schema era) and of
 * tr-extract's "memory" records, for the tools that summarise them.
 *
 * A snapshot is one JSON document that may be hundreds of MB, so it is never
 * held whole: the top levels are walked token by token, each segment's
 * scalar members are read as tokens and its blocks one at a time, and each
 * trace entry is read into a small jdoc.  Memory is bounded by the largest
 * single block or trace entry plus one struct mblock per block of the
 * current segment, of which there may be MS_MAX_BLOCKS (40 MiB of them).  Everything a callback is handed is borrowed and valid
 * only during the call, except the site strings, which live until
 * msnap_close().
 *
 * Input that cannot be read as a snapshot (bad JSON, a missing or negative
 * size, an unknown block state) is a data error, reported on stderr by the
 * reader itself as "<prog>: <file>:<line>:<col>: <what>"; msnap_read() then
 * returns -1.  A Python pickle is refused with the way to re-export it as
 * JSON.  Sums that disagree with what CUDACachingAllocator.cpp snapshot()
 * computes (block sizes to total_size, the active_allocated blocks to
 * allocated_size, the active blocks' sizes and requested sizes to
 * active_size and requested_size) are only warnings: the analysis can go
 * on with the segment's own figures.  So is an alloc, free or segment trace
 * entry without its size or address, which is then not handed on.  The
 * first MS_MAXWARN are reported on stderr as
 * "<prog>: <file>:<line>:<col>: warning: <what>" and kept for
 * msnap_put_warnings(); the rest are counted.
 *
 * Input whose first object has "kind" as its first member is taken as
 * tr-extract NDJSON: its "memory" records and its "ProfilerStep#N" events
 * are kept compactly (40 bytes a memory record, in file order, since steps
 * may come after the records they contain) for memrec_write().
 */
#ifndef MEMSNAP_H
#define MEMSNAP_H

#include <stddef.h>
#include <stdint.h>

#include "io/json.h"
#include "io/ndjson.h"

/*
 * What to do with a pickled snapshot, which is never read (loading one runs
 * code): mem-segments' and churn-score's error, and the warning of a pickle
 * found in a run directory.
 */
#define MSNAP_PICKLE_ADVICE \
	"Dump the snapshot as JSON instead:" \
	" json.dump(torch.cuda.memory._snapshot()," \
	" open(\"snap.json\", \"w\"))," \
	" or convert a pickle you trust (loading one runs code) where it was" \
	" made: python3 -c 'import pickle, json;" \
	" json.dump(pickle.load(open(\"snap.pickle\", \"rb\"))," \
	" open(\"snap.json\", \"w\"))'"

/* Block states, in the order output lists them. */
enum mstate {
	MS_ALLOCATED,		/* active_allocated */
	MS_PENDING_FREE,	/* active_pending_free, active_awaiting_free */
	MS_INACTIVE,		/* inactive */
	MS_NSTATES
};

extern const char *const mstate_name[MS_NSTATES];

/* Trace actions; MA_OTHER counts any action not known here. */
enum maction {
	MA_ALLOC,
	MA_FREE_REQUESTED,
	MA_FREE_COMPLETED,
	MA_SEGMENT_ALLOC,
	MA_SEGMENT_FREE,
	MA_SEGMENT_MAP,
	MA_SEGMENT_UNMAP,
	MA_SNAPSHOT,
	MA_OOM,
	MA_ANNOTATE,
	MA_OTHER,
	MA_NACTIONS
};

extern const char *const maction_name[MA_NACTIONS];

/* What the input turned out to be. */
enum mform {
	MF_EMPTY,	/* no value at all */
	MF_LIST,	/* 1.13: a bare list of segments */
	MF_OBJECT,	/* 2.0 and later: segments, device_traces, ... */
	MF_RECORDS	/* tr-extract NDJSON */
};

/*
 * Blocks in one segment.  The allocator splits a segment into blocks of at
 * least 512 bytes (small pool, 2 MiB segments: 4096 blocks) or about 1 MiB
 * (large pool): a million is a segment of a TiB.
 */
#define MS_MAX_BLOCKS	(1u << 20)

struct mblock {
	int64_t		 address;	/* given, or derived from the segment */
	int64_t		 size;
	int64_t		 requested;	/* -1 when unknown */
	enum mstate	 state;
	const char	*site;		/* with MS_SITES, live blocks only */
};

struct mseg {
	int64_t		 device;
	int64_t		 address;
	int64_t		 total_size;
	int64_t		 allocated_size;
	int64_t		 active_size;
	int64_t		 requested_size;	/* -1 when absent (1.13) */
	int64_t		 stream;
	int		 pool;		/* 0 small, 1 large, -1 absent */
	int		 has_pool_id;
	int64_t		 pool_id[2];
	int		 expandable;	/* 0, 1, -1 absent */
	struct mblock	*blocks;
	size_t		 nblocks;
	uint64_t	 line, col;	/* where the segment starts */
};

struct mtrace {
	int64_t		 device;	/* index in device_traces */
	uint64_t	 seq;		/* 0-based index in that device's list */
	enum maction	 action;
	const char	*action_text;	/* as written */
	int64_t		 addr;		/* 0 when absent */
	int64_t		 size;		/* 0 when absent */
	int64_t		 device_free;	/* oom only; -1 when absent */
	int64_t		 stream;
	int		 has_time;
	int64_t		 time_us;
	const struct jdoc *doc;		/* the entry, node 0 */
	int		 frames;	/* node of its frames, or -1 */
	uint64_t	 line, col;
};

struct msnap;

/*
 * Callbacks; any may be NULL.  Each returns 0, or -1 after reporting an
 * error (msnap_fail), which stops the reading.  trace_end is called after
 * each device's list, with the number of entries it had.
 */
struct msnap_ops {
	int	(*segment)(void *, struct msnap *, const struct mseg *);
	int	(*trace)(void *, struct msnap *, const struct mtrace *);
	int	(*trace_end)(void *, struct msnap *, int64_t device,
		    uint64_t entries);
};

/* Flags for msnap_open(). */
#define MS_SITES	0x1	/* give live blocks their allocation site */

/* Opens path (stdin for NULL or "-"); NULL with errno set on failure. */
struct msnap *msnap_open(const char *path, int flags);

/* Reads the whole input; 0, or -1 after reporting an error. */
int msnap_read(struct msnap *, const struct msnap_ops *, void *arg);

/* Frees everything, interned sites included; NULL is allowed. */
void msnap_close(struct msnap *);

/* The input's name for messages ("<stdin>" for stdin); borrowed. */
const char *msnap_name(const struct msnap *);

/* Warnings written one by one; the others are counted. */
#define MS_MAXWARN	16

/* Reports "<file>:<line>:<col>: <what>" and returns -1. */
__attribute__((format(printf, 4, 5)))
int msnap_fail(struct msnap *, uint64_t line, uint64_t col,
    const char *fmt, ...);

/*
 * Adds v to *acc; or reports at line:col that the sum is beyond int64 and
 * returns -1, leaving *acc undefined.
 */
int msnap_add(struct msnap *, uint64_t line, uint64_t col, int64_t *acc,
    int64_t v);

/*
 * Reports "<file>:<line>:<col>: warning: <what>" on stderr and keeps it for
 * msnap_put_warnings(), or only counts it past MS_MAXWARN.
 */
__attribute__((format(printf, 4, 5)))
void msnap_warn(struct msnap *, uint64_t line, uint64_t col,
    const char *fmt, ...);

/* How many warnings there were, the ones not shown included. */
uint64_t msnap_warnings(const struct msnap *);

/*
 * Writes one "warning" record per warning kept, then, when some were cut,
 * one saying how many.
 */
void msnap_put_warnings(const struct msnap *, struct jw *);

enum mform msnap_form(const struct msnap *);

/*
 * The oldest PyTorch era whose fields the input has ("1.13", "2.0", "2.1",
 * "2.2", "2.5", "2.7", "2.11"): a lower bound, as fields only accumulate.
 * NULL for NDJSON or empty input.
 */
const char *msnap_era(const struct msnap *);

/* allocator_settings, or NULL; borrowed, valid until msnap_close(). */
const struct jdoc *msnap_settings(const struct msnap *);

/*
 * The allocator statistics the snapshot carries under "stats" or
 * "memory_stats" (a torch.cuda.memory_stats() object, or a list of them
 * indexed by device) for device, as an object node of *doc; -1 when there
 * are none.  A single object is taken to describe device 0.
 */
int msnap_stats(const struct msnap *, int64_t device, const struct jdoc **doc);

/*
 * The allocation site of a frames list: "name@file:line" of the first
 * Python frame outside torch's own files, else of the first Python frame,
 * else "NllLossBackward0 (autograd)" for the innermost autograd node a C++
 * frame runs; NULL when there is none.  Interned: valid until
 * msnap_close().
 */
const char *msnap_site(struct msnap *, const struct jdoc *, int frames);

/*
 * Whether a frames list stands under torch.cuda.empty_cache(): a Python
 * frame "empty_cache" of torch/cuda/memory.py, or, with C++ stacks, the
 * caching allocator's emptyCache().  The allocator records a segment_free
 * with the stack of what released it, so this tells the user's call from
 * the allocator's own release before a retried cudaMalloc, which carries
 * the failed allocation's stack (CUDACachingAllocator.cpp, release_block()).
 * With context="alloc" or "state" emptyCache() records no stack and the
 * entry gets the stack that made the segment: then this is 0.
 */
int msnap_empty_cache(const struct jdoc *, int frames);

/*
 * For MF_RECORDS input: writes one "memory_profile" record per device and
 * one "memory_phase" record per device and ProfilerStep, from the memory
 * records read.  Writes nothing when there were none.
 */
void memrec_write(struct msnap *, struct jw *);

/*
 * For MF_RECORDS input: writes one "memory_timeline" record per device,
 * the curve of total_allocated and total_reserved over the memory records
 * read (see memtl.h).  Writes nothing when there were none.
 */
void memrec_timeline(struct msnap *, struct jw *);

#endif
