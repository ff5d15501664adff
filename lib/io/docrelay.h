/*
 * docrelay: documents handed from the thread that reads them to a thread
 * of their own that consumes them, in order: analyze-profile's ranking
 * beside its extraction, where the process may use three CPUs or more.
 *
 * The reader copies each document (jdoc_copy(), as the extractor reuses
 * its own), and the bytes put beside it, into the batch it fills; a full
 * batch goes to the consumer, which calls fn on each document in turn.
 * Four batches of 64 documents bound the memory, and a reader that gets
 * ahead waits.
 * When fn fails (after its message), the consumer stops calling it, and
 * the next docrelay_put() or docrelay_finish() says so.
 *
 * Ownership: the relay owns its thread and its copies; fn, arg and each
 * tag are borrowed until docrelay_finish(), which waits for every
 * document put, joins the thread and frees the relay.
 */
#ifndef DOCRELAY_H
#define DOCRELAY_H

#include "io/json.h"

struct docrelay;

/*
 * Starts the consumer's thread, which calls fn(arg, tag, doc, extra) for
 * each document put, with the tag it was put with, and a copy of the
 * extra bytes put beside it (extra of them), or NULL where none were.
 * Returns NULL with errno set when no thread could be started.
 */
struct docrelay *docrelay_start(int (*fn)(void *arg, const char *tag,
    const struct jdoc *doc, const void *extra), void *arg, size_t extra);

/*
 * Puts a copy of doc, and of the relay's extra bytes from extra unless it
 * is NULL: what the consumer needs beside the document (its typed view,
 * whose pointers into the document it points at the copy); 0, or -1 once
 * fn has failed.
 */
int	docrelay_put(struct docrelay *, const char *tag, const struct jdoc *,
	    const void *extra);

/* Waits for fn on every document put, and frees the relay; 0, or -1 as above. */
int	docrelay_finish(struct docrelay *);

#endif
