/*
 * spill: records under a memory budget, sorted runs in an unlinked
 * temporary file, read back by a k-way merge.
 */
#include <errno.h>
#ifdef __GLIBC__
#include <limits.h>
#include <malloc.h>
#endif
#include <pthread.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "base/err.h"
#include "base/keysort.h"
#include "base/xalloc.h"
#include "io/spill.h"

#define READBUF	65536	/* at most, bytes of each run's window */
#define WRITER_STACK	(64u << 10)

/*
 * A pool's thread and the one run it writes at a time.  The run's memory,
 * once written, is freed by the caller's thread (writer_reap(),
 * writer_wait()): glibc gives a thread that frees a malloc arena of its
 * own, 64 MiB of address space, which ulimit -v counts.
 */
struct runwriter {
	pthread_t	 thread;
	pthread_mutex_t	 mu;
	pthread_cond_t	 cv;		/* a run given or written; stop */
	int		 fd;
	char		*run;		/* being written, or NULL */
	char		*written;	/* the run written last, to free */
	size_t		 len;
	off_t		 off;
	int		 err;		/* errno of a write that failed */
	int		 stop;
};

static void	spill_run(struct spill *);
static int	write_run(int, const char *, size_t, off_t);
static void	*write_runs(void *);
static void	writer_start(struct spool *);
static void	writer_reap(struct spool *);
static void	writer_wait(struct spool *);
static void	spool_file(struct spool *);
static size_t	spool_room(const struct spool *);
static void	keep_freed(size_t);
static int	in_order(const struct spill *);
static void	sort_mem(struct spill *);
static void	src_fill(const struct spillcur *, struct spillsrc *);
static int	src_less(const struct spillcur *, size_t, size_t);
static void	heap_down(struct spillcur *, size_t);

size_t
spool_budget(const char *env, size_t dflt)
{
	const char *v = getenv(env);

	if (v == NULL || *v == '\0')
		return dflt;
	return (size_t)parse_num(v, 1, LLONG_MAX, env);
}

void
spill_init(struct spill *sp, struct spool *pool, size_t size,
    int (*cmp)(const void *, const void *))
{
	memset(sp, 0, sizeof(*sp));
	sp->pool = pool;
	sp->size = size;
	sp->cmp = cmp;
}

void
spill_key(struct spill *sp, uint64_t (*key)(const void *))
{
	sp->key = key;
}

/*
 * The bytes records may hold in memory: the budget, or half of it once a
 * thread writes the runs, the other half being the run it writes.
 */
static size_t
spool_room(const struct spool *pool)
{
	return pool->writer != NULL ? pool->budget / 2 : pool->budget;
}

void
spill_add(struct spill *sp, const void *rec)
{
	size_t cap;

	if (sp->n == sp->cap) {
		/* Small at first: a rank of a few steps holds a few. */
		cap = sp->cap ? sp->cap * 2 : 16;
		/* Growing past the room writes a run instead. */
		if (sp->n > 0 && sp->pool->used - sp->cap * sp->size +
		    cap * sp->size > spool_room(sp->pool)) {
			spill_run(sp);
			cap = 256;
		} else
			writer_reap(sp->pool);
		sp->mem = xreallocarray(sp->mem, cap, sp->size);
		sp->pool->used += (cap - sp->cap) * sp->size;
		sp->cap = cap;
	}
	memcpy(sp->mem + sp->n * sp->size, rec, sp->size);
	sp->n++;
}

/* Checking costs one pass; sorting what is in order costs far more. */
static int
in_order(const struct spill *sp)
{
	size_t i;

	for (i = 1; i < sp->n; i++)
		if (sp->cmp(sp->mem + (i - 1) * sp->size,
		    sp->mem + i * sp->size) > 0)
			return 0;
	return 1;
}

static void
sort_mem(struct spill *sp)
{
	if (in_order(sp))
		return;
	if (sp->key != NULL)
		keysort(sp->mem, sp->n, sp->size, sp->key, sp->cmp);
	else
		xqsort(sp->mem, sp->n, sp->size, sp->cmp);
}

/*
 * Hands the records in memory, sorted, to the pool's thread as a run (or
 * writes them: the first run, or where no thread could be started); the
 * spill starts again from empty.
 */
static void
spill_run(struct spill *sp)
{
	struct spool *pool = sp->pool;
	struct runwriter *w;
	size_t len;
	int first = !pool->open;

	if (first)
		spool_file(pool);
	/* Its memory back before the sort takes as much again. */
	writer_wait(pool);
	sort_mem(sp);
	len = sp->n * sp->size;
	if ((w = pool->writer) != NULL) {
		pthread_mutex_lock(&w->mu);
		w->run = sp->mem;
		w->len = len;
		w->off = pool->end;
		pthread_cond_broadcast(&w->cv);
		pthread_mutex_unlock(&w->mu);
	} else {
		if ((errno = write_run(pool->fd, sp->mem, len, pool->end)) != 0)
			die("temporary file: write:");
		free(sp->mem);
	}
	if (sp->nruns == 0)
		pool->nrun++;
	sp->runs = xreallocarray(sp->runs, sp->nruns + 1, sizeof(*sp->runs));
	sp->runs[sp->nruns].off = pool->end;
	sp->runs[sp->nruns++].n = sp->n;
	pool->end += (off_t)len;
	sp->mem = NULL;
	sp->pool->used -= sp->cap * sp->size;
	sp->n = sp->cap = 0;
	/*
	 * This run took the whole budget; the later ones, half of it each,
	 * are written beside the records that come meanwhile.
	 */
	if (first)
		writer_start(pool);
}

/* Returns 0, or the errno of the write that failed. */
static int
write_run(int fd, const char *p, size_t left, off_t off)
{
	ssize_t w;

	while (left > 0) {
		if ((w = pwrite(fd, p, left, off)) < 0) {
			if (errno == EINTR)
				continue;
			return errno;
		}
		if (w == 0)
			return EIO;
		p += w;
		left -= (size_t)w;
		off += w;
	}
	return 0;
}

static void *
write_runs(void *arg)
{
	struct runwriter *w = arg;
	char *run;
	int err;

	pthread_mutex_lock(&w->mu);
	for (;;) {
		while (w->run == NULL && !w->stop)
			pthread_cond_wait(&w->cv, &w->mu);
		if ((run = w->run) == NULL)
			break;
		pthread_mutex_unlock(&w->mu);
		err = write_run(w->fd, run, w->len, w->off);
		pthread_mutex_lock(&w->mu);
		if (w->err == 0)
			w->err = err;
		w->written = run;
		w->run = NULL;
		pthread_cond_broadcast(&w->cv);
	}
	pthread_mutex_unlock(&w->mu);
	return NULL;
}

/* Without a thread, runs are written by spill_run() itself. */
static void
writer_start(struct spool *pool)
{
	struct runwriter *w;
	pthread_attr_t attr;
	int rc;

	w = xcalloc(1, sizeof(*w));
	w->fd = pool->fd;
	pthread_mutex_init(&w->mu, NULL);
	pthread_cond_init(&w->cv, NULL);
	/*
	 * It calls pwrite(), no more: a stack of the default size (8 MiB of
	 * address space) would count against ulimit -v as half the budget
	 * does.
	 */
	if ((rc = pthread_attr_init(&attr)) == 0) {
		if ((rc = pthread_attr_setstacksize(&attr, WRITER_STACK)) == 0)
			rc = pthread_create(&w->thread, &attr, write_runs, w);
		(void)pthread_attr_destroy(&attr);
	}
	if (rc != 0) {
		pthread_cond_destroy(&w->cv);
		pthread_mutex_destroy(&w->mu);
		free(w);
		return;
	}
	pool->writer = w;
}

/*
 * Frees the run written last, if the thread is done with it, so that the
 * memory that grows next can take its place.
 */
static void
writer_reap(struct spool *pool)
{
	struct runwriter *w = pool->writer;
	char *run = NULL;

	if (w == NULL)
		return;
	pthread_mutex_lock(&w->mu);
	if (w->run == NULL) {
		run = w->written;
		w->written = NULL;
	}
	pthread_mutex_unlock(&w->mu);
	free(run);
}

/*
 * Waits until the run given last is in the file: before it is read, the
 * file cut, or the next run sorted.  A failed write is fatal here.
 */
static void
writer_wait(struct spool *pool)
{
	struct runwriter *w = pool->writer;
	int err;

	if (w == NULL)
		return;
	pthread_mutex_lock(&w->mu);
	while (w->run != NULL)
		pthread_cond_wait(&w->cv, &w->mu);
	err = w->err;
	pthread_mutex_unlock(&w->mu);
	/* Only this thread gives runs: the thread stays idle meanwhile. */
	writer_reap(pool);
	if (err != 0) {
		errno = err;
		die("temporary file: write:");
	}
}

/*
 * Unlinked at once: no name to clean up after any signal.  A file size
 * limit (ulimit -f) must fail the write, not kill the process.
 */
static void
spool_file(struct spool *pool)
{
	const char *dir;
	char path[4096];
	int len;

	if ((dir = getenv("TMPDIR")) == NULL || *dir == '\0')
		dir = "/tmp";
	len = snprintf(path, sizeof(path), "%s/spill.XXXXXX", dir);
	if (len < 0 || (size_t)len >= sizeof(path))
		die("TMPDIR is too long");
	if ((pool->fd = mkstemp(path)) < 0)
		die("%s: cannot make a temporary file:", dir);
	if (unlink(path) < 0)
		die("%s:", path);
	pool->open = 1;
	pool->end = 0;
	signal(SIGXFSZ, SIG_IGN);
	keep_freed(pool->budget);
}

/*
 * From its first run on, a spill frees and grows again a buffer of up to
 * the budget once a run, and sorts it with as much again.  glibc would map
 * the larger ones afresh and hand them back each time, trimming its heap
 * too, and each page comes back as a fault: 40,000 of them on a 250 MB
 * trace, a third of op-rank's time in a virtual machine.  Kept, 8,000; the
 * budget bounds them as before, so the peak is the same.  The threshold
 * stays within glibc's: no lower than its first, no higher than its most.
 */
static void
keep_freed(size_t budget)
{
#ifdef __GLIBC__
	size_t least = (size_t)128 << 10, most = (size_t)32 << 20, keep;

	keep = budget < least ? least : budget > most ? most : budget;
	(void)mallopt(M_MMAP_THRESHOLD, (int)keep);
	(void)mallopt(M_TRIM_THRESHOLD, (int)(2 * keep));
#else
	(void)budget;
#endif
}

void
spill_open(struct spillcur *c, struct spill *sp)
{
	struct spillsrc *s;
	size_t i;

	writer_wait(sp->pool);
	sort_mem(sp);
	memset(c, 0, sizeof(*c));
	c->sp = sp;
	c->nsrc = sp->nruns + 1;
	c->src = xcalloc(c->nsrc, sizeof(*c->src));
	c->heap = xreallocarray(NULL, c->nsrc, sizeof(*c->heap));
	c->rec = xmalloc(sp->size);
	/* The windows of many runs must fit in the budget too. */
	c->win = sp->pool->budget / c->nsrc / sp->size;
	if (c->win > READBUF / sp->size)
		c->win = READBUF / sp->size;
	if (c->win == 0)
		c->win = 1;
	for (i = 0; i < sp->nruns; i++) {
		s = &c->src[i];
		s->off = sp->runs[i].off;
		s->left = sp->runs[i].n;
		src_fill(c, s);
	}
	/* Memory comes last: it holds the latest records. */
	s = &c->src[sp->nruns];
	s->n = sp->n;
	src_fill(c, s);
	for (i = 0; i < c->nsrc; i++)
		if (c->src[i].p != NULL)
			c->heap[c->nheap++] = i;
	for (i = c->nheap / 2; i-- > 0;)
		heap_down(c, i);
}

/* Points s->p at the run's next record, reading a window when needed. */
static void
src_fill(const struct spillcur *c, struct spillsrc *s)
{
	const struct spill *sp = c->sp;
	size_t want, got;
	ssize_t r;

	if (s->i < s->n) {
		s->p = (s->buf != NULL ? s->buf : sp->mem) + s->i++ * sp->size;
		return;
	}
	if (s->left == 0) {
		s->p = NULL;
		return;
	}
	want = c->win < s->left ? c->win : s->left;
	if (s->buf == NULL)
		s->buf = xreallocarray(NULL, c->win, sp->size);
	for (got = 0; got < want * sp->size; got += (size_t)r) {
		r = pread(sp->pool->fd, s->buf + got, want * sp->size - got,
		    s->off + (off_t)got);
		if (r < 0 && errno == EINTR) {
			r = 0;
			continue;
		}
		if (r <= 0)
			die("temporary file: read:");
	}
	s->off += (off_t)(want * sp->size);
	s->left -= want;
	s->n = want;
	s->i = 1;
	s->p = s->buf;
}

/* Equal records: the earlier source, which holds the earlier records. */
static int
src_less(const struct spillcur *c, size_t a, size_t b)
{
	int r = c->sp->cmp(c->src[a].p, c->src[b].p);

	return r < 0 || (r == 0 && a < b);
}

static void
heap_down(struct spillcur *c, size_t i)
{
	size_t l, m, t;

	for (;;) {
		m = i;
		l = 2 * i + 1;
		if (l < c->nheap && src_less(c, c->heap[l], c->heap[m]))
			m = l;
		if (l + 1 < c->nheap && src_less(c, c->heap[l + 1],
		    c->heap[m]))
			m = l + 1;
		if (m == i)
			return;
		t = c->heap[i];
		c->heap[i] = c->heap[m];
		c->heap[m] = t;
		i = m;
	}
}

const void *
spill_next(struct spillcur *c)
{
	struct spillsrc *s;
	size_t size;

	if (c->nheap == 0)
		return NULL;
	size = c->sp->size;
	/* A copy: refilling the window would overwrite the record. */
	s = &c->src[c->heap[0]];
	memcpy(c->rec, s->p, size);
	src_fill(c, s);
	if (s->p == NULL)
		c->heap[0] = c->heap[--c->nheap];
	heap_down(c, 0);
	return c->rec;
}

void
spillcur_free(struct spillcur *c)
{
	size_t i;

	for (i = 0; i < c->nsrc; i++)
		free(c->src[i].buf);
	free(c->src);
	free(c->heap);
	free(c->rec);
	memset(c, 0, sizeof(*c));
}

void
spill_free(struct spill *sp)
{
	struct spool *pool = sp->pool;

	free(sp->mem);
	pool->used -= sp->cap * sp->size;
	/* The last runs gone, the file starts again from nothing. */
	if (sp->nruns > 0 && --pool->nrun == 0) {
		writer_wait(pool);
		if (ftruncate(pool->fd, 0) < 0)
			die("temporary file: truncate:");
		pool->end = 0;
	}
	free(sp->runs);
	memset(sp, 0, sizeof(*sp));
}

void
spool_free(struct spool *pool)
{
	struct runwriter *w = pool->writer;

	if (w != NULL) {
		writer_wait(pool);
		pthread_mutex_lock(&w->mu);
		w->stop = 1;
		pthread_cond_broadcast(&w->cv);
		pthread_mutex_unlock(&w->mu);
		pthread_join(w->thread, NULL);
		pthread_cond_destroy(&w->cv);
		pthread_mutex_destroy(&w->mu);
		free(w);
		pool->writer = NULL;
	}
	if (pool->open)
		close(pool->fd);
	pool->open = 0;
}
