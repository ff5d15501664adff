/*
 * spill: fixed-size records gathered under a memory budget and read back
 * in order, as an external sort does.
 *
 * Records go into memory until the spills sharing one pool would hold more
 * than the pool's budget; then the spill being added to sorts what it holds
 * (not when it is in order already, which is checked first) and writes it
 * as one sorted run to the pool's temporary file.  That file is made in
 * $TMPDIR (or /tmp) and unlinked at once, so nothing is left behind
 * whatever ends the process; it is emptied whenever no spill has runs in
 * it, and from then on SIGXFSZ is ignored, so that a file size limit fails
 * a write instead of killing the process.  A pool whose spills never
 * exceed the budget has no file at all.  When it makes the file it also
 * tells glibc's malloc, for the whole process, to keep what is freed, up to
 * twice the budget and 64 MiB at most (mallopt(3)), for the next runs.
 *
 * The first run written, a thread of the pool's own writes the next ones,
 * one at a time, while the caller goes on: the copy into the file costs
 * as much as the sort in a virtual machine.  The spill starts again empty
 * at once, and the records in memory are then held to half the budget, so
 * that they and the run being written stay within the budget; the next
 * run waits for the write before it, and frees its memory, before
 * sorting.  Where no thread can be started, runs are written in turn.
 *
 * Reading merges the runs and what is still in memory; each run's window
 * is cut so that the windows of all runs fit in the budget too.  Runs are
 * sorted with qsort(3), which is not stable: for a deterministic order,
 * cmp must tell every two records apart (end it in a sequence number).
 * A spill given a key (spill_key()) is sorted by it instead, a radix sort
 * in time linear in the records, and cmp orders only records of one key.
 *
 * Ownership: a spill owns its memory and its runs, and a cursor owns its
 * buffers; both are freed by their own *_free().  The pool is the caller's
 * and must outlive every spill in it; spool_free() closes its file.  A
 * spill must not be added to while a cursor reads it; it may be read again
 * from the start with a new cursor.  A temporary file that cannot be made,
 * written or read is fatal (die(), exit 1).
 */
#ifndef SPILL_H
#define SPILL_H

#include <stddef.h>
#include <stdint.h>
#include <sys/types.h>

/*
 * The budget shared by spills: bytes held in memory, all spills together,
 * and the file that holds their runs.  Zero it, then set budget.
 */
struct spool {
	size_t	budget, used;
	int	fd;		/* the file, while open */
	int	open;
	off_t	end;
	size_t	nrun;		/* spills with runs in the file */
	struct runwriter *writer;	/* the file's thread, while open */
};

struct spillrun {
	off_t	off;
	size_t	n;		/* records */
};

struct spill {
	struct spool	 *pool;
	size_t		  size;
	int		(*cmp)(const void *, const void *);
	uint64_t	(*key)(const void *);
	char		 *mem;
	size_t		  n, cap;	/* records in memory, room */
	struct spillrun	 *runs;
	size_t		  nruns;
};

struct spillsrc {
	const char	*p;		/* the current record, NULL: drained */
	char		*buf;		/* a run's window; NULL: the memory */
	size_t		 n, i;		/* records in buf, next one */
	off_t		 off;		/* the run's next unread byte */
	size_t		 left;		/* the run's records not yet in buf */
};

struct spillcur {
	const struct spill	*sp;
	struct spillsrc		*src;
	size_t			*heap;	/* source indices, least first */
	char			*rec;	/* the record last returned */
	size_t			 win;	/* records in a run's window */
	size_t			 nheap, nsrc;
};

/*
 * A pool's budget: the bytes the environment variable env holds, or dflt
 * when it is unset or empty; a value that is not a positive count is a
 * usage error naming env.
 */
size_t	spool_budget(const char *env, size_t dflt);

/* An empty spill of records of size bytes, ordered by cmp, in pool. */
void	spill_init(struct spill *, struct spool *pool, size_t size,
	    int (*cmp)(const void *, const void *));

/*
 * Sorts sp by key first: key(a) < key(b) must mean cmp(a, b) < 0, as the
 * leading member of cmp's order does, made unsigned.
 */
void	spill_key(struct spill *, uint64_t (*key)(const void *));

/* Copies the record rec in; may write a run to the temporary file. */
void	spill_add(struct spill *, const void *rec);

/*
 * Starts reading sp from its first record in order.  The records still in
 * memory are sorted in place by this call.
 */
void	spill_open(struct spillcur *, struct spill *sp);

/*
 * The next record, or NULL after the last; the pointer is the cursor's and
 * stays valid until the next call.  A cursor set to zeros reads as one of
 * an empty spill, and spillcur_free() takes it too.
 */
const void *spill_next(struct spillcur *);

void	spillcur_free(struct spillcur *);

/* Frees the records and returns the memory and the runs to the pool. */
void	spill_free(struct spill *);

/* Closes the pool's file; every spill in it must have been freed. */
void	spool_free(struct spool *);

#endif
