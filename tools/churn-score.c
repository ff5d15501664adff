/*
 * churn-score: replay the device_traces of CUDA memory snapshots and say how
 * hard the caching allocator churns: one "churn" record per device.  The
 * replay is lib/memory/churn's; here are its records.
 */
#include <getopt.h>
#include <inttypes.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "base/err.h"
#include "base/operands.h"
#include "base/usage.h"
#include "base/xalloc.h"
#include "io/ndjson.h"
#include "memory/churn.h"
#include "memory/memsnap.h"
#include "memory/memtl.h"

static void	usage(void) __attribute__((noreturn));
static int	score(const char *, void *);
static void	put_dev(struct jw *, struct msnap *,
		    const struct churn_dev *);
static int	is_complete(struct msnap *, const struct churn_dev *);
static void	put_timeline(struct jw *, struct msnap *,
		    const struct churn_dev *);
static void	put_growth(struct jw *, struct msnap *,
		    const struct churn_dev *);

static const struct optdoc options[] = {
	OPTDOC_HELP,
	OPTDOC_END
};
static const struct usage use = {
	"[file ...]",
	"replay CUDA memory snapshot traces and score allocator churn",
	options
};

static void
usage(void)
{
	usage_error(&use);
}

int
main(int argc, char *argv[])
{
	static const struct option longopts[] = {
		{ "help", no_argument, NULL, 'h' },
		{ NULL, 0, NULL, 0 }
	};
	struct jw *w;
	int ch, status = 0;

	setprogname(argv[0]);
	while ((ch = getopt_long(argc, argv, "h", longopts, NULL)) != -1) {
		switch (ch) {
		case 'h':
			usage_help(&use);
		default:
			usage();
		}
	}
	argc -= optind;
	argv += optind;

	w = jw_new(stdout);
	status = for_each_operand(argc, argv, score, w);
	jw_free(w);
	return finish(status);
}

/*
 * Returns 0, 1 when the file could not be opened (the others still run),
 * or -1 after a data error, which ends the run.
 */
static int
score(const char *path, void *arg)
{
	struct jw *w = arg;
	struct msnap *ms;
	struct churn rp;
	size_t i;
	int rc, traced = 0;

	if ((ms = msnap_open(path, MS_SITES)) == NULL) {
		warnmsg("%s:", path);
		return 1;
	}
	rc = churn_read(&rp, ms);
	if (rc == 0)
		msnap_put_warnings(ms, w);
	if (rc == 0 && msnap_form(ms) == MF_RECORDS)
		memrec_write(ms, w);
	else if (rc == 0 && msnap_form(ms) != MF_EMPTY) {
		for (i = 0; i < rp.ndev; i++) {
			if (!rp.dev[i].traced)
				continue;
			if ((rc = churn_place(ms, &rp.dev[i])) < 0)
				break;
			put_dev(w, ms, &rp.dev[i]);
			put_timeline(w, ms, &rp.dev[i]);
			put_growth(w, ms, &rp.dev[i]);
			traced = 1;
		}
		if (rc == 0 && !traced)
			warnmsg("%s: no trace entries to replay; record them"
			    " with torch.cuda.memory._record_memory_history()"
			    " before taking the snapshot", msnap_name(ms));
	}
	churn_free(&rp);
	msnap_close(ms);
	return rc == 0 ? 0 : -1;
}

static void
put_dev(struct jw *w, struct msnap *ms, const struct churn_dev *d)
{
	static const char *const partial[] = {
		"actions", "bytes_allocated", "bytes_freed", "size_histogram",
		"short_lived_share", "top_at_peak", "churn"
	};
	const struct jdoc *set = msnap_settings(ms);
	uint64_t allocs = d->actions[MA_ALLOC], segev, k;
	int64_t at_start = d->static_bytes + d->unmatched_bytes;
	double window = 0, pressure, turnover, sp, st, churn;
	int i, overflowed = 0, complete;
	int t;

	if (set != NULL &&
	    (t = jdoc_get(set, 0, "trace_alloc_overflowed")) >= 0)
		overflowed = set->node[t].type == JT_TRUE;
	complete = is_complete(ms, d);
	if (d->has_time)
		window = (double)(d->t_last - d->t_first) / 1e6;
	segev = d->actions[MA_SEGMENT_ALLOC] + d->actions[MA_SEGMENT_FREE] +
	    d->actions[MA_SEGMENT_MAP] + d->actions[MA_SEGMENT_UNMAP];

	jw_record(w, "churn");
	jw_key(w, "file");
	jw_cstring(w, msnap_name(ms));
	jw_key(w, "device");
	jw_int(w, d->device);
	jw_key(w, "entries");
	jw_uint(w, d->entries);
	jw_key(w, "actions");
	jw_begin_object(w);
	for (i = 0; i < MA_NACTIONS; i++) {
		jw_ckey(w, maction_name[i]);
		jw_uint(w, d->actions[i]);
	}
	jw_end_object(w);
	jw_key(w, "start_time_us");
	jw_int_or_null(w, d->has_time, d->t_first);
	jw_key(w, "window_s");
	if (d->has_time)
		jw_double(w, window);
	else
		jw_null(w);
	jw_key(w, "bytes_allocated");
	jw_int(w, d->bytes_allocated);
	jw_key(w, "bytes_freed");
	jw_int(w, d->bytes_freed);
	jw_key(w, "segment_bytes_allocated");
	jw_int(w, d->seg_bytes[0]);
	jw_key(w, "segment_bytes_freed");
	jw_int(w, d->seg_bytes[1]);
	jw_key(w, "bytes_mapped");
	jw_int(w, d->seg_bytes[2]);
	jw_key(w, "bytes_unmapped");
	jw_int(w, d->seg_bytes[3]);
	jw_key(w, "allocs_per_s");
	jw_ratio(w, (double)allocs, window);
	jw_key(w, "device_calls");
	jw_uint(w, segev);
	jw_key(w, "device_calls_per_1000_allocs");
	jw_ratio(w, 1000.0 * (double)segev, (double)allocs);
	jw_key(w, "device_calls_per_s");
	jw_ratio(w, (double)segev, window);

	jw_key(w, "peak");
	jw_int(w, at_start + d->max_delta);
	jw_key(w, "peak_lower_bound");
	jw_bool(w, !complete);
	jw_key(w, "peak_in_window");
	jw_int(w, d->max_delta);
	jw_key(w, "peak_seq");
	jw_int_or_null(w, d->has_peak, (int64_t)d->peak_seq);
	jw_key(w, "peak_time_us");
	jw_int_or_null(w, d->has_peak && d->peak_has_time, d->peak_time);
	jw_key(w, "live_at_start");
	jw_int(w, at_start);
	jw_key(w, "static_bytes");
	jw_int(w, d->static_bytes);
	jw_key(w, "segments_before_window");
	jw_uint(w, d->unplaced);
	jw_key(w, "snapshot_live");
	jw_int(w, d->snap_live);
	jw_key(w, "live_at_end_replayed");
	jw_int(w, d->live_end);
	jw_key(w, "live_blocks_at_end_replayed");
	jw_uint(w, d->live_blocks_end);
	jw_key(w, "unmatched_frees");
	jw_uint(w, d->unmatched);
	jw_key(w, "unmatched_free_bytes");
	jw_int(w, d->unmatched_bytes);
	jw_key(w, "double_allocs");
	jw_uint(w, d->double_allocs);
	jw_key(w, "top_at_peak");
	jw_begin_array(w);
	for (i = 0; i < d->ntop; i++) {
		jw_begin_object(w);
		jw_key(w, "addr");
		jw_int(w, d->top[i].addr);
		jw_key(w, "size");
		jw_int(w, d->top[i].size);
		jw_key(w, "site");
		jw_cstring_or_null(w, d->top[i].site);
		jw_key(w, "origin");
		jw_cstring(w, d->top[i].before ? "before_window" : "window");
		jw_end_object(w);
	}
	jw_end_array(w);
	jw_key(w, "short_lived");
	jw_uint(w, d->short_lived);
	jw_key(w, "short_lived_share");
	jw_ratio(w, (double)d->short_lived, (double)allocs);
	jw_key(w, "size_histogram");
	jw_begin_array(w);
	for (i = 0; i < NCLASS; i++) {
		if (d->hist[i] == 0)
			continue;
		jw_begin_object(w);
		jw_key(w, "from");
		jw_int(w, i == 0 ? 0 : (int64_t)1 << i);
		jw_key(w, "to");
		if (i < 62)
			jw_int(w, (int64_t)2 << i);
		else
			jw_null(w);
		jw_key(w, "allocs");
		jw_uint(w, d->hist[i]);
		jw_key(w, "bytes");
		jw_int(w, d->hist_bytes[i]);
		jw_end_object(w);
	}
	jw_end_array(w);
	jw_key(w, "ooms");
	jw_uint(w, d->actions[MA_OOM]);
	jw_key(w, "oom_events");
	jw_begin_array(w);
	for (k = 0; k < d->actions[MA_OOM] && k < MAX_OOMS; k++) {
		const struct oom *o = &d->ooms[k];

		jw_begin_object(w);
		jw_key(w, "seq");
		jw_uint(w, o->seq);
		jw_key(w, "time_us");
		jw_int_or_null(w, o->has_time, o->time_us);
		jw_key(w, "size");
		jw_int(w, o->size);
		jw_key(w, "device_free");
		jw_int_or_null(w, o->device_free >= 0, o->device_free);
		jw_end_object(w);
	}
	jw_end_array(w);
	jw_key(w, "segment_free_bursts");
	jw_uint(w, d->bursts);
	jw_key(w, "retry_bursts");
	jw_uint(w, d->retry_bursts);
	jw_key(w, "burst_segments");
	jw_uint(w, d->burst_segments);
	jw_key(w, "largest_burst");
	jw_uint(w, d->largest_burst);
	jw_key(w, "free_then_alloc");
	jw_uint(w, d->free_then_alloc);
	jw_key(w, "empty_cache_calls");
	jw_uint(w, d->empty_cache_calls);
	jw_key(w, "empty_cache_segments");
	jw_uint(w, d->empty_cache_segments);
	jw_key(w, "empty_cache_bytes");
	jw_int(w, d->empty_cache_bytes);
	jw_key(w, "retries_succeeded");
	jw_uint(w, d->retries_succeeded);
	jw_key(w, "retries_failed");
	jw_uint(w, d->retries_failed);
	jw_key(w, "retry_segments");
	jw_uint(w, d->retry_segments);
	jw_key(w, "retry_bytes");
	jw_int(w, d->retry_bytes);
	jw_key(w, "unattributed_bursts");
	jw_uint(w, d->unattributed_bursts);
	jw_key(w, "ring_overflowed");
	jw_bool(w, overflowed);
	jw_key(w, "window_complete");
	jw_bool(w, complete);
	jw_key(w, "partial");
	jw_begin_array(w);
	for (i = 0; !complete && i < (int)(sizeof(partial) /
	    sizeof(partial[0])); i++)
		jw_cstring(w, partial[i]);
	jw_end_array(w);

	/* The score: see churn-score(1), "The churn score". */
	pressure = allocs > 0 ? 1000.0 * (double)segev / (double)allocs : 0;
	sp = fmin(pressure / 50.0, 1.0);
	turnover = (double)d->bytes_allocated /
	    (double)(at_start + d->max_delta > 0 ? at_start + d->max_delta : 1);
	st = fmin(log2(1.0 + turnover) / 8.0, 1.0);
	churn = 100.0 * (0.5 * sp + 0.25 * (allocs > 0 ?
	    (double)d->short_lived / (double)allocs : 0) + 0.25 * st);
	jw_key(w, "turnover");
	jw_double(w, turnover);
	jw_key(w, "churn");
	jw_int(w, (int64_t)lround(churn));
	jw_end(w);
}

/* Whether the window provably covers the whole run: see put_dev(). */
static int
is_complete(struct msnap *ms, const struct churn_dev *d)
{
	const struct jdoc *set = msnap_settings(ms);
	int t;

	if (set != NULL && (t = jdoc_get(set, 0, "trace_alloc_overflowed")) >= 0
	    && set->node[t].type == JT_TRUE)
		return 0;
	return d->unmatched == 0 && d->double_allocs == 0 &&
	    d->static_bytes == 0 && d->unmatched_bytes == 0 &&
	    d->unplaced == 0;
}

/*
 * The device's memory_timeline: allocated is what was live at the start
 * plus the replay's running total; reserved starts at what makes it end at
 * the snapshot's segments, or, where the snapshot disagrees, at the least
 * that keeps it from going below zero.
 */
static void
put_timeline(struct jw *w, struct msnap *ms, const struct churn_dev *d)
{
	int64_t base, low = 0;
	size_t i;

	if (d->tl.n == 0)
		return;
	for (i = 0; i < d->tl.n; i++)
		if (d->tl.p[i].reserved < low)
			low = d->tl.p[i].reserved;
	base = mtl_sub(d->snap_reserved, d->reserved);
	if (base < mtl_sub(0, low))
		base = mtl_sub(0, low);
	jw_record(w, "memory_timeline");
	jw_key(w, "source");
	jw_cstring(w, "snapshot");
	jw_key(w, "file");
	jw_cstring(w, msnap_name(ms));
	jw_key(w, "device");
	jw_int(w, d->device);
	mtl_put(w, &d->tl, mtl_add(d->static_bytes, d->unmatched_bytes), base,
	    !is_complete(ms, d));
	jw_end(w);
}

/*
 * The device's memory_growth record, when some site grows.  The trace
 * names no iteration, so the growing site that kept the fewest blocks is
 * taken to keep one per iteration: the others' rates are per that cycle.
 */
static void
put_growth(struct jw *w, struct msnap *ms, const struct churn_dev *d)
{
	const struct grow *g = d->growth.v;
	size_t i;

	if (d->growth.n == 0)
		return;
	jw_record(w, "memory_growth");
	jw_key(w, "file");
	jw_cstring(w, msnap_name(ms));
	jw_key(w, "device");
	jw_int(w, d->device);
	jw_key(w, "allocs");
	jw_uint(w, d->actions[MA_ALLOC]);
	jw_key(w, "iterations");
	jw_uint(w, d->iterations);
	jw_key(w, "iterations_inferred");
	jw_bool(w, 1);
	jw_key(w, "blocks");
	jw_uint(w, d->growth_blocks);
	jw_key(w, "bytes");
	jw_int(w, d->growth_bytes);
	jw_key(w, "live_at_end_replayed");
	jw_int(w, d->live_end);
	jw_key(w, "sites");
	jw_begin_array(w);
	for (i = 0; i < d->growth.n; i++) {
		jw_begin_object(w);
		jw_key(w, "site");
		jw_cstring(w, g[i].site);
		jw_key(w, "blocks");
		jw_uint(w, g[i].blocks);
		jw_key(w, "bytes");
		jw_int(w, g[i].bytes);
		jw_key(w, "blocks_per_iteration");
		jw_double(w, (double)g[i].blocks / (double)d->iterations);
		jw_key(w, "bytes_per_iteration");
		jw_double(w, (double)g[i].bytes / (double)d->iterations);
		jw_key(w, "smallest");
		jw_int(w, g[i].smallest);
		jw_key(w, "largest");
		jw_int(w, g[i].largest);
		jw_key(w, "first_alloc");
		jw_uint(w, g[i].first_alloc);
		jw_key(w, "last_alloc");
		jw_uint(w, g[i].last_alloc);
		jw_end_object(w);
	}
	jw_end_array(w);
	jw_end(w);
}
