#include <errno.h>
#include <pthread.h>
#include <stdlib.h>
#include <string.h>

#include "base/xalloc.h"
#include "io/docrelay.h"
#include "io/json.h"

/*
 * Small enough that the consumer starts early and the copies stay in the
 * cache (a record's copy keeps the largest it held: at 256 a batch, 8 MB
 * more resident on a 1 GB trace), large enough that the lock is taken
 * once in dozens of records.
 */
#define BATCH	64
#define NBATCH	4

struct batch {
	struct jdoc	 doc[BATCH];
	const char	*tag[BATCH];
	unsigned char	 typed[BATCH];	/* extra bytes beside the doc */
	unsigned char	*extra;		/* BATCH of them, in a row */
	size_t		 n;
};

struct docrelay {
	pthread_t	 thread;
	pthread_mutex_t	 mu;
	pthread_cond_t	 cv;		/* a batch handed over or consumed */
	struct batch	 b[NBATCH];	/* a ring, in the order put */
	size_t		 fill;		/* the reader's batch */
	size_t		 head;		/* the consumer's next batch */
	size_t		 handed;	/* batches handed, not yet consumed */
	int		 done;		/* the reader has handed its last */
	int		 failed;	/* fn failed */
	int		(*fn)(void *, const char *, const struct jdoc *,
			    const void *);
	void		*arg;
	size_t		 extra;
};

static void	*consume(void *);
static int	 hand(struct docrelay *, int last);

struct docrelay *
docrelay_start(int (*fn)(void *, const char *, const struct jdoc *,
    const void *), void *arg, size_t extra)
{
	struct docrelay *r;
	size_t i;
	int rc;

	r = xcalloc(1, sizeof(*r));
	r->fn = fn;
	r->arg = arg;
	r->extra = extra;
	for (i = 0; i < NBATCH; i++)
		r->b[i].extra = xreallocarray(NULL, BATCH, extra ? extra : 1);
	pthread_mutex_init(&r->mu, NULL);
	pthread_cond_init(&r->cv, NULL);
	if ((rc = pthread_create(&r->thread, NULL, consume, r)) != 0) {
		pthread_cond_destroy(&r->cv);
		pthread_mutex_destroy(&r->mu);
		for (i = 0; i < NBATCH; i++)
			free(r->b[i].extra);
		free(r);
		errno = rc;
		return NULL;
	}
	return r;
}

int
docrelay_put(struct docrelay *r, const char *tag, const struct jdoc *doc,
    const void *extra)
{
	struct batch *b = &r->b[r->fill];

	jdoc_copy(&b->doc[b->n], doc);
	if ((b->typed[b->n] = extra != NULL))
		memcpy(b->extra + b->n * r->extra, extra, r->extra);
	b->tag[b->n++] = tag;
	return b->n < BATCH ? 0 : hand(r, 0);
}

int
docrelay_finish(struct docrelay *r)
{
	size_t i, k;
	int rc;

	(void)hand(r, 1);
	pthread_join(r->thread, NULL);
	rc = r->failed ? -1 : 0;
	pthread_cond_destroy(&r->cv);
	pthread_mutex_destroy(&r->mu);
	for (i = 0; i < NBATCH; i++) {
		for (k = 0; k < BATCH; k++)
			jdoc_free(&r->b[i].doc[k]);
		free(r->b[i].extra);
	}
	free(r);
	return rc;
}

/*
 * Hands the reader's batch over (the last: and says so) and, unless last,
 * takes the next, once the consumer is done with it.  Returns -1 once fn
 * has failed.
 */
static int
hand(struct docrelay *r, int last)
{
	int failed;

	pthread_mutex_lock(&r->mu);
	if (r->b[r->fill].n > 0)
		r->handed++;
	r->done = last;
	pthread_cond_signal(&r->cv);
	while (!last && r->handed == NBATCH && !r->failed)
		pthread_cond_wait(&r->cv, &r->mu);
	failed = r->failed;
	pthread_mutex_unlock(&r->mu);
	if (!last) {
		r->fill = (r->fill + 1) % NBATCH;
		r->b[r->fill].n = 0;
	}
	return failed ? -1 : 0;
}

/*
 * The consumer: each batch in turn, fn on each document, until the reader
 * is done.  After a failure the batches are only given back, so that the
 * reader never waits for ever.
 */
static void *
consume(void *arg)
{
	struct docrelay *r = arg;
	struct batch *b;
	size_t i;
	int failed = 0;

	pthread_mutex_lock(&r->mu);
	for (;;) {
		while (r->handed == 0 && !r->done)
			pthread_cond_wait(&r->cv, &r->mu);
		if (r->handed == 0)
			break;
		b = &r->b[r->head];
		pthread_mutex_unlock(&r->mu);
		for (i = 0; i < b->n && !failed; i++)
			failed = r->fn(r->arg, b->tag[i], &b->doc[i],
			    b->typed[i] ? b->extra + i * r->extra : NULL) != 0;
		pthread_mutex_lock(&r->mu);
		r->head = (r->head + 1) % NBATCH;
		r->handed--;
		r->failed = failed;
		pthread_cond_signal(&r->cv);
	}
	pthread_mutex_unlock(&r->mu);
	return NULL;
}
