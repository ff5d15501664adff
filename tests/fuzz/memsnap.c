/*
 * memsnap: the CUDA memory snapshot reader (lib/memory/memsnap), every form it
 * takes (1.13 list, 2.x object, tr-extract records), gzip included.
 *
 * An odd-sized input goes through mem-segments' own summarize(), compiled
 * in with its main() renamed (main() would close stdout in finish()): the
 * reader with MS_SITES and the tool's arithmetic on what it hands over.
 * An even-sized one is read with flags 0, as churn-score reads, by
 * callbacks that check what the header promises: block sizes add up to
 * total_size, the allocated and active blocks to their sizes, unless the
 * reader warned that they do not; every trace entry comes in order with a
 * known action, a gap only where the reader warned that it skipped one; the allocation sites, the
 * statistics, the settings and the era are looked up as the tools do.  The
 * input is a file as it is: a crash replays with "mem-segments FILE" or
 * "churn-score FILE".
 */
#include "fuzz.h"

int	mem_segments_main(int, char *[]);

#define main	mem_segments_main
#include "mem-segments.c"
#undef main

struct check {
	int64_t		device;
	uint64_t	next;		/* the seq expected next */
};

static int
check_segment(void *arg, struct msnap *ms, const struct mseg *s)
{
	int64_t total = 0, allocated = 0, active = 0;
	size_t i;

	(void)arg;
	/*
	 * An accepted segment's sums fit in int64, and match its sizes or
	 * have been warned about.
	 */
	for (i = 0; i < s->nblocks; i++) {
		if (s->blocks[i].size < 0 ||
		    (unsigned)s->blocks[i].state >= MS_NSTATES ||
		    s->blocks[i].site != NULL ||
		    __builtin_add_overflow(total, s->blocks[i].size, &total) ||
		    (s->blocks[i].state == MS_ALLOCATED &&
		    __builtin_add_overflow(allocated, s->blocks[i].size,
		    &allocated)) ||
		    (s->blocks[i].state != MS_INACTIVE &&
		    __builtin_add_overflow(active, s->blocks[i].size, &active)))
			abort();
	}
	if (s->line == 0 || s->col == 0)
		abort();
	if ((total != s->total_size || allocated != s->allocated_size ||
	    active != s->active_size) && msnap_warnings(ms) == 0)
		abort();
	return 0;
}

static int
check_trace(void *arg, struct msnap *ms, const struct mtrace *t)
{
	struct check *c = arg;

	if (t->device != c->device) {
		c->device = t->device;
		c->next = 0;
	}
	/* An entry may be skipped, with a warning, never repeated. */
	if (t->seq < c->next || (t->seq > c->next && msnap_warnings(ms) == 0))
		abort();
	c->next = t->seq + 1;
	if ((unsigned)t->action >= MA_NACTIONS ||
	    t->action_text == NULL || t->line == 0 || t->col == 0 ||
	    t->doc == NULL || t->doc->n == 0 ||
	    (t->frames >= 0 && (uint32_t)t->frames >= t->doc->n))
		abort();
	(void)msnap_site(ms, t->doc, t->frames);
	return 0;
}

static int
check_trace_end(void *arg, struct msnap *ms, int64_t device,
    uint64_t entries)
{
	struct check *c = arg;

	/* Entries that never reached check_trace() were warned about. */
	if (entries > c->next && msnap_warnings(ms) == 0)
		abort();
	if (c->next > 0 && (device != c->device || entries < c->next))
		abort();
	c->device = -1;
	c->next = 0;
	return 0;
}

static void
read_checked(void)
{
	static const struct msnap_ops ops = {
		check_segment, check_trace, check_trace_end
	};
	struct check c = { -1, 0 };
	const struct jdoc *doc;
	struct msnap *ms;
	struct jw *w;
	int64_t dev;

	if ((ms = msnap_open(NULL, 0)) == NULL)
		abort();
	if (msnap_read(ms, &ops, &c) == 0) {
		(void)msnap_era(ms);
		(void)msnap_settings(ms);
		for (dev = -1; dev < 4; dev++)
			if (msnap_stats(ms, dev, &doc) >= 0 &&
			    (doc == NULL || doc->n == 0))
				abort();
		if (msnap_form(ms) == MF_RECORDS) {
			w = jw_new(stdout);
			memrec_write(ms, w);
			jw_free(w);
		}
	}
	msnap_close(ms);
}

int
LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	struct jw *w;

	fuzz_init("mem-segments");
	fuzz_stdin(data, size);
	if (size & 1) {
		w = jw_new(stdout);
		(void)summarize(NULL, w);
		jw_free(w);
	} else
		read_checked();
	return 0;
}
