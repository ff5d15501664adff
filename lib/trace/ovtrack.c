/*
 * ovtrack: the overlay's own process, "critical path" (see overlay.h): a
 * track of the path's edges by class, and the findings' markers.
 */
#include <inttypes.h>
#include <stdio.h>

#include "io/ndjson.h"
#include "io/spill.h"
#include "trace/ovcore.h"

static void	put_thread_meta(struct jw *, const char *, int64_t, int64_t,
		    const char *);

/* The process "critical path": its track of edges, and the findings. */
void
ovtrack_write(struct overlay *ov)
{
	struct jw *w = ov->w;
	struct spillcur ec;
	const struct edgerec *e;
	const struct finding *f;
	const struct rankseen *r = NULL;
	int64_t pid = ov->have_pid && ov->max_pid < INT64_MAX ?
	    ov->max_pid + 1 : 1, tid = ov->rank < 0 ? 0 : ov->rank;
	char name[64];
	size_t i;

	if (ov->nedges == 0 && ov->nfindings == 0)
		return;
	for (i = 0; i < ov->nranks; i++)
		if (ov->ranks[i].rank == ov->rank)
			r = &ov->ranks[i];
	put_thread_meta(w, "process_name", pid, tid, "critical path");
	snprintf(name, sizeof(name), "critical path, rank %" PRId64, tid);
	put_thread_meta(w, "thread_name", pid, tid, name);
	spill_open(&ec, &ov->edges);
	while ((e = spill_next(&ec)) != NULL) {
		if (e->rank != ov->rank || !(e->bits & N_CRITICAL) ||
		    e->weight_ns <= 0)
			continue;
		jw_break(w);
		jw_begin_object(w);
		jw_key(w, "ph");
		jw_cstring(w, "X");
		jw_key(w, "name");
		jw_cstring(w, e->cls != NONAME ? ov->name[e->cls] :
		    ov_edge_types[e->type]);
		jw_key(w, "cat");
		jw_cstring(w, "critical_path");
		jw_key(w, "pid");
		jw_int(w, pid);
		jw_key(w, "tid");
		jw_int(w, tid);
		jw_key(w, "ts");
		jw_us(w, ov->origin + e->from_ns);
		jw_key(w, "dur");
		jw_us(w, e->weight_ns);
		jw_key(w, "args");
		jw_begin_object(w);
		/* Not "type": HTA counts flows by it. */
		jw_key(w, "edge");
		jw_cstring(w, ov_edge_types[e->type]);
		jw_key(w, "event");
		jw_cstring_or_null(w, e->event != NONAME ?
		    ov->name[e->event] : NULL);
		jw_end_object(w);
		jw_end_object(w);
	}
	spillcur_free(&ec);
	for (i = 0; i < ov->nfindings; i++) {
		f = &ov->findings[i];
		jw_break(w);
		jw_begin_object(w);
		jw_key(w, "ph");
		jw_cstring(w, "i");
		jw_key(w, "s");
		jw_cstring(w, "g");
		jw_key(w, "name");
		snprintf(name, sizeof(name), "finding %" PRId64, f->place);
		jw_cstring(w, name);
		jw_key(w, "cat");
		jw_cstring(w, "mrp");
		jw_key(w, "pid");
		jw_int(w, pid);
		jw_key(w, "tid");
		jw_int(w, tid);
		jw_key(w, "ts");
		jw_us(w, ov->origin + (r != NULL && r->have_start ?
		    r->start_ns : 0));
		jw_key(w, "args");
		jw_begin_object(w);
		jw_key(w, "place");
		jw_int(w, f->place);
		jw_key(w, "rule");
		jw_cstring(w, f->rule);
		jw_key(w, "area");
		jw_cstring(w, f->area);
		jw_key(w, "observation");
		jw_cstring(w, f->observation);
		jw_end_object(w);
		jw_end_object(w);
	}
}

static void
put_thread_meta(struct jw *w, const char *what, int64_t pid, int64_t tid,
    const char *name)
{
	jw_break(w);
	jw_begin_object(w);
	jw_key(w, "ph");
	jw_cstring(w, "M");
	jw_key(w, "name");
	jw_cstring(w, what);
	jw_key(w, "pid");
	jw_int(w, pid);
	jw_key(w, "tid");
	jw_int(w, tid);
	jw_key(w, "args");
	jw_begin_object(w);
	jw_key(w, "name");
	jw_cstring(w, name);
	jw_end_object(w);
	jw_end_object(w);
}

