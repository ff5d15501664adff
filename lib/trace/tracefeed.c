#include <stdint.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "base/cpus.h"
#include "base/err.h"
#include "io/docrelay.h"
#include "io/inputrec.h"
#include "io/json.h"
#include "io/ndjson.h"
#include "trace/critpath.h"
#include "trace/extract.h"
#include "trace/nsys.h"
#include "trace/opnames.h"
#include "trace/oprank.h"
#include "trace/tracefeed.h"
#include "trace/trevent.h"

/* Where the extractor's records go while one input is read. */
struct sink {
	struct oprank	*op;
	struct docrelay	*relay;		/* to op, on a thread, or NULL */
	struct critpath	*cp;		/* the input's critical path */
	struct jw	*mem;
	const char	*file;		/* the input being read */
	int		 events;	/* its trace record counts some */
};

/* crit-path's records of the overlaid input: all of them, and the report's. */
struct route {
	struct jw	*all, *report;
};

static int	on_record(void *, const struct jdoc *);
static int	on_event(void *, const struct trevent *);
static int	take_event(struct sink *, const struct trevent *,
		    const struct jdoc *);
static int	rank_record(void *, const char *, const struct jdoc *,
		    const void *);
static int	route_record(void *, const struct jdoc *);

int
tracefeed_run(const struct tracefeed *f)
{
	struct oprank_opts o = { NULL, 0, 0, -1, 0, f->gpu };
	struct extract_digest digest;
	struct sink sink = { 0 };
	/*
	 * Events typed; memory records to mem-segments as text; and none
	 * of the records that neither op-rank, crit-path nor mem-segments
	 * reads.
	 */
	struct extract_opts xo = { .digest = &digest, .event = on_event,
	    .skip = XR_INSTANT | XR_COUNTER | XR_FLOW | XR_PROCESS,
	    .hook_arg = &sink };
	struct critpath_opts co = { NULL, -1, 0, CP_EDGES_NONE, NULL },
	    cpo = { NULL, -1, 0, CP_EDGES_PATH, NULL };
	struct route route = { NULL, NULL };
	struct jw *w, *inw, *cw, *rw;
	char *table;
	size_t i;
	int none = 0;

	inw = jw_new(f->inputs);
	if (f->phase != NULL)
		o.phase = oprank_phase(f->phase);
	sink.op = oprank_new(&o);
	/*
	 * The ranking on a thread of its own only where it has a CPU to
	 * itself: this thread and the read-ahead's (with the snapshot's and
	 * the report's stages beside them) keep two busy, and on two the
	 * copies of the records cost more memory than the overlap saves.
	 */
	if (cpus_usable() >= 3)
		sink.relay = docrelay_start(rank_record, sink.op,
		    sizeof(struct trevent));
	xo.memory = sink.mem = jw_new(f->memory);
	co.calls = cpo.calls = table = op_find_table(CALLS_NAME);
	cw = jw_new(f->critical);
	jw_name(cw, "critical.ndjson");
	if (f->overlay != NULL) {
		route.all = jw_new(f->overlay);
		jw_name(route.all, "critpath.ndjson");
		route.report = cw;
	}
	rw = jw_new_doc(route_record, &route);
	w = jw_new_doc(on_record, &sink);
	for (i = 0; i < f->n; i++) {
		sink.file = f->paths[i];
		sink.events = 0;
		/*
		 * Each input's path apart, as crit-path's of each: two
		 * traces of one rank over other windows share no time.
		 */
		sink.cp = critpath_new(f->overlay != NULL &&
		    i == f->overlaid ? &cpo : &co);
		if ((f->nsys[i] ? nsys_extract(f->paths[i], w, NULL) :
		    extract_trace(f->paths[i], w, &xo)) != 0)
			_exit(1);
		(void)critpath_write(sink.cp, f->overlay != NULL &&
		    i == f->overlaid ? rw : cw);
		critpath_free(sink.cp);
		/* Hashed as it was read; else, rarely, read again. */
		if (!f->nsys[i] && digest.hashed)
			inputrec_put(inw, f->paths[i], "trace", digest.size,
			    digest.sha256);
		else if (!f->nsys[i] &&
		    inputrec_write(inw, f->paths[i], "trace") != 0)
			die("%s:", f->paths[i]);
		if (!sink.events) {
			fprintf(f->empty, "%zu\n", i);
			none = 1;
		}
	}
	jw_free(w);
	jw_free(rw);
	jw_free(cw);
	free(table);
	if (fclose(f->critical) != 0)
		die("critical.ndjson: write:");
	if (f->overlay != NULL) {
		jw_free(route.all);
		if (fclose(f->overlay) != 0)
			die("critpath.ndjson: write:");
	}
	jw_free(sink.mem);
	jw_free(inw);
	if (fclose(f->empty) != 0 || fclose(f->inputs) != 0)
		die("write:");
	if (fclose(f->memory) != 0)
		die("mem-segments: write:");
	if (sink.relay != NULL && docrelay_finish(sink.relay) != 0)
		_exit(1);
	w = jw_new(f->ranked);
	oprank_write(sink.op, w, 0);
	jw_free(w);
	if (fclose(f->ranked) != 0)
		die("trace.ndjson: write:");
	oprank_free(sink.op);
	return none;
}

/*
 * A record as a document: a trace's "trace" and "thread" records, and
 * every record of an Nsight Systems export.
 */
static int
on_record(void *arg, const struct jdoc *rec)
{
	struct sink *sink = arg;
	const char *kind = ndin_kind(rec);
	struct trevent ev;
	int64_t events;
	int trace = strcmp(kind, "trace") == 0;

	if (strcmp(kind, "event") == 0) {
		trevent_from_doc(rec, &ev);
		return take_event(sink, &ev, rec);
	}
	if (trace && jdoc_get_i64(rec, 0, "events", &events) == 0 &&
	    events > 0)
		sink->events = 1;
	if (trace || strcmp(kind, "memory") == 0)
		jw_jdoc_record(sink->mem, rec);
	if (sink->relay != NULL)
		return docrelay_put(sink->relay, sink->file, rec, NULL);
	return oprank_record(sink->op, sink->file, rec);
}

/* The extractor's event, typed: no record was built. */
static int
on_event(void *arg, const struct trevent *ev)
{
	return take_event(arg, ev, NULL);
}

/* An event, and rec its record where there is one. */
static int
take_event(struct sink *sink, const struct trevent *ev,
    const struct jdoc *rec)
{
	const struct jdoc *d = ev->d;

	if (ev->name >= 0 && d->node[ev->name].type == JT_STRING &&
	    strncmp(jdoc_str(d, (uint32_t)ev->name), OPRANK_STEP_PREFIX,
	    strlen(OPRANK_STEP_PREFIX)) == 0) {
		if (rec != NULL)
			jw_jdoc_record(sink->mem, rec);
		else
			trevent_write(sink->mem, ev);
	}
	if (critpath_event(sink->cp, ev, sink->file, 0) < 0)
		return -1;
	if (sink->relay != NULL)
		return docrelay_put(sink->relay, sink->file, d, ev);
	return oprank_event(sink->op, sink->file, ev);
}

/*
 * The relay's consumer: op-rank's intake of one record of file, or of an
 * event, typed, whose nodes are now the copy's.
 */
static int
rank_record(void *op, const char *file, const struct jdoc *doc,
    const void *typed)
{
	struct trevent ev;

	if (typed == NULL)
		return oprank_record(op, file, doc);
	memcpy(&ev, typed, sizeof(ev));
	ev.d = doc;
	return oprank_event(op, file, &ev);
}

static int
route_record(void *arg, const struct jdoc *rec)
{
	struct route *r = arg;

	jw_jdoc_record(r->all, rec);
	if (strcmp(ndin_kind(rec), "critical_path") == 0)
		jw_jdoc_record(r->report, rec);
	return 0;
}
