/*
 * extract: tr-extract's logic, a PyTorch profiler trace (Chrome trace JSON,
 * plain or gzip) turned into records, one per event, and one "trace" record
 * last.  The records go through a writer, so they become NDJSON text
 * (jw_new) or jdocs handed to an in-process consumer (jw_new_doc) alike.
 */
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "base/err.h"
#include "base/strmap.h"
#include "base/xalloc.h"
#include "io/gzin.h"
#include "io/json.h"
#include "io/ndjson.h"
#include "trace/extract.h"
#include "trace/opcost.h"
#include "trace/rankname.h"
#include "trace/trevent.h"

/* 'B' events open at once on one thread: real nesting is a few dozen deep. */
#define MAX_OPEN	4096

/*
 * Emptied stacks kept for the next thread to open a 'B': a thread's stack
 * leaves the map once its last 'B' ends, so that the map holds only the
 * threads with an event open, however many threads the trace has.
 */
#define MAX_SPARE	64

/* Distinct categories counted one by one; the rest go under "(more)". */
#define MAX_CATS	1024

/* An open 'B' event waiting for its 'E'. */
struct open_begin {
	struct jdoc	doc;
	int64_t		ts;
};

struct thread_stack {
	struct open_begin	*v;
	size_t			 n, cap;
};

/* The fields of one event, as node indices into its jdoc (-1: absent). */
struct ev {
	int	ph, name, cat, pid, tid, ts, dur, args, id, bp, scope;
	int	stream, correlation, external_id, device;	/* in args */
	int	bytes;						/* in args */
	int	wait_stream, wait_record;			/* in args */
	int	coll, in_nelems, out_nelems, group_size, dtype, pg; /* in args */
	int	dims, types, strides, concrete;			/* in args */
	int64_t	ts_ns, dur_ns;
};

struct trace {
	const char	*file;
	struct jreader	*r;
	struct jw	*w;
	int		 args;		/* extract_opts.args */
	const struct extract_opts *opts;	/* its hooks */
	int		 seen;		/* the input was not empty */
	int		 array_form;
	int		 has_events;	/* an object with traceEvents */
	struct jdoc	 doc;		/* the current event */
	struct jdoc	 devprops;	/* deviceProperties, when present */
	struct jdoc	 dist;		/* distributedInfo, when present */
	char		*schema;	/* number texts, when present */
	char		*basetime;
	char		*timeunit;
	int64_t		 rank;		/* -1: unknown */
	const char	*rank_from;
	int		 rank_in_events;
	int		 have_origin;
	int64_t		 origin;	/* ns, the first event's ts */
	int64_t		 first, last;	/* ns, window of timed events */
	uint64_t	 events;
	uint64_t	 by_ph[128];
	uint64_t	 other_ph;
	struct strmap	 cats;
	uint64_t	 more_cats, no_cat;
	struct strmap	 stacks;	/* "pid\ntid" -> struct thread_stack */
	struct thread_stack *spare[MAX_SPARE];
	size_t		 nspare;
	uint64_t	 unmatched_begin;
};

static int	read_top(struct trace *);
static int	read_events(struct trace *);
static int	at_end(struct trace *);
static int	event(struct trace *);
static int	pass_on(struct trace *, const struct ev *, char, int);
static int	pass_top(struct trace *, const char *, const struct jdoc *);
static int	fields(struct trace *, struct ev *);
static int	reader_failed(struct trace *);
static int	str_is(const struct jdoc *, int, const char *);
static void	put_common(struct trace *, struct jw *, const struct jdoc *,
		    const struct ev *);
static void	end_record(struct trace *, struct jw *);
static void	put_arg(struct jw *, const struct jdoc *, int, const char *,
		    struct jwkey);
static int	emit_complete(struct trace *, const struct jdoc *,
		    const struct ev *, int64_t, int64_t);
static void	emit_metadata(struct trace *, const struct ev *);
static int	begin_end(struct trace *, struct ev *, char);
static void	stack_key(const struct jdoc *, int, int, char *, size_t,
		    size_t *);
static void	thread_stack_free(void *);
static void	count_cat(struct trace *, const struct ev *);
static void	see_time(struct trace *, int64_t, int64_t);
static int	check_time(struct trace *, const struct jdoc *,
		    const struct ev *, int64_t, int64_t);
static void	put_trace(struct trace *);
static void	put_repairs(struct trace *);

int
extract_trace(const char *path, struct jw *w, const struct extract_opts *o)
{
	struct trace t;
	struct gzin *in;
	int rc;

	if ((in = gzin_open(path)) == NULL) {
		warnmsg("%s:", path);
		return 1;
	}
	if (o->digest != NULL)
		o->digest->hashed = gzin_hash(in) == 0;
	memset(&t, 0, sizeof(t));
	t.file = gzin_name(in);
	t.w = w;
	t.args = o->args;
	t.opts = o;
	t.r = jr_open(in, JR_OPEN_ARRAY);
	if ((t.rank = rank_from_name(t.file)) >= 0)
		t.rank_from = "file name";
	rc = read_top(&t);
	if (rc == 0 && jr_unclosed(t.r) && !o->quiet)
		warnmsg("%s: warning: the event array has no closing ']';"
		    " the trace may be cut off", t.file);
	if (rc == 0 && t.unmatched_begin > 0 && !o->quiet)
		warnmsg("%s: %" PRIu64 " 'B' events never ended", t.file,
		    t.unmatched_begin);
	if (rc == 0 && t.seen && !o->hooks_only)
		put_trace(&t);
	if (rc == 0 && !o->quiet)
		put_repairs(&t);
	if (jw_failed(w))
		rc = -1;
	if (rc == 0 && o->digest != NULL && o->digest->hashed &&
	    gzin_digest(in, &o->digest->size, o->digest->sha256) != 0) {
		warnmsg("%s:", t.file);
		rc = -1;
	}
	jr_close(t.r);
	jdoc_free(&t.doc);
	jdoc_free(&t.devprops);
	jdoc_free(&t.dist);
	free(t.schema);
	free(t.basetime);
	free(t.timeunit);
	strmap_free(&t.cats, NULL);
	strmap_free(&t.stacks, thread_stack_free);
	while (t.nspare > 0)
		thread_stack_free(t.spare[--t.nspare]);
	return rc == 0 ? 0 : -1;
}

static int
reader_failed(struct trace *t)
{
	if (jr_errkind(t->r) == JE_PICKLE)
		warnmsg("%s:%" PRIu64 ":%" PRIu64 ": %s; re-export the trace"
		    " as JSON with prof.export_chrome_trace(\"trace.json\")",
		    t->file, jr_errline(t->r), jr_errcol(t->r),
		    jr_error(t->r));
	else if (jr_errkind(t->r) == JE_SQLITE)
		warnmsg("%s:%" PRIu64 ":%" PRIu64 ": %s; an Nsight Systems"
		    " export is read by nsys-extract, and by analyze-profile"
		    " --nsys-sqlite", t->file, jr_errline(t->r),
		    jr_errcol(t->r), jr_error(t->r));
	else if (jr_errkind(t->r) == JE_IO)
		warnmsg("%s: %s", t->file, jr_error(t->r));
	else
		warnmsg("%s:%" PRIu64 ":%" PRIu64 ": %s", t->file,
		    jr_errline(t->r), jr_errcol(t->r), jr_error(t->r));
	return -1;
}

/* The top level: a bare array of events, or an object with traceEvents. */
static int
read_top(struct trace *t)
{
	struct jtoken tok;
	enum jtok k;

	k = jr_next(t->r, &tok);
	if (k == J_EOF)
		return 0;
	t->seen = 1;
	if (k == J_BEGIN_ARRAY) {
		t->array_form = 1;
		if (read_events(t) < 0)
			return -1;
		return at_end(t);
	}
	if (k != J_BEGIN_OBJECT) {
		if (k == J_ERROR)
			return reader_failed(t);
		jr_fail(t->r, tok.line, tok.col,
		    "not a trace: expected an object or an array of events");
		return reader_failed(t);
	}
	while ((k = jr_next(t->r, &tok)) == J_KEY) {
		if (tok.len == 11 && memcmp(tok.s, "traceEvents", 11) == 0) {
			k = jr_next(t->r, &tok);
			if (k != J_BEGIN_ARRAY) {
				if (k != J_ERROR)
					jr_fail(t->r, tok.line, tok.col,
					    "traceEvents is not an array");
				return reader_failed(t);
			}
			t->has_events = 1;
			if (read_events(t) < 0)
				return -1;
			continue;
		}
		if (tok.len == 16 && memcmp(tok.s, "deviceProperties", 16) == 0) {
			if (jr_value(t->r, &t->devprops) < 0)
				return reader_failed(t);
			if (pass_top(t, "deviceProperties", &t->devprops) < 0)
				return -1;
			continue;
		}
		if (tok.len == 15 && memcmp(tok.s, "distributedInfo", 15) == 0) {
			int i;
			int64_t rank;

			if (jr_value(t->r, &t->dist) < 0)
				return reader_failed(t);
			if (pass_top(t, "distributedInfo", &t->dist) < 0)
				return -1;
			i = jdoc_get(&t->dist, 0, "rank");
			if (i >= 0 && t->dist.node[i].type == JT_NUMBER &&
			    jnum_int64(jdoc_str(&t->dist, (uint32_t)i),
			    t->dist.node[i].len, &rank) == 0) {
				t->rank = rank;
				t->rank_from = "distributedInfo";
			}
			continue;
		}
		if ((tok.len == 13 && memcmp(tok.s, "schemaVersion", 13) == 0) ||
		    (tok.len == 19 &&
		    memcmp(tok.s, "baseTimeNanoseconds", 19) == 0) ||
		    (tok.len == 15 &&
		    memcmp(tok.s, "displayTimeUnit", 15) == 0)) {
			char **slot = tok.s[0] == 's' ? &t->schema :
			    tok.s[0] == 'b' ? &t->basetime : &t->timeunit;
			const char *key = tok.s[0] == 's' ? "schemaVersion" :
			    tok.s[0] == 'b' ? "baseTimeNanoseconds" :
			    "displayTimeUnit";
			int want = tok.s[0] == 'd' ? JT_STRING : JT_NUMBER;

			if (jr_value(t->r, &t->doc) < 0)
				return reader_failed(t);
			if (pass_top(t, key, &t->doc) < 0)
				return -1;
			if (t->doc.node[0].type == want) {
				free(*slot);
				*slot = xstrdup(jdoc_str(&t->doc, 0));
			}
			continue;
		}
		if (jr_skip(t->r, 0) < 0)
			return reader_failed(t);
	}
	if (k == J_ERROR)
		return reader_failed(t);
	if (!t->has_events) {
		warnmsg("%s: not a trace: the object has no \"traceEvents\""
		    " array", t->file);
		return -1;
	}
	return at_end(t);
}

/* The top-level value is complete; nothing may follow it. */
static int
at_end(struct trace *t)
{
	struct jtoken tok;

	if (jr_next(t->r, &tok) == J_ERROR)
		return reader_failed(t);
	return 0;
}

static int
read_events(struct trace *t)
{
	int rc;

	/* Events that come before a later distributedInfo cannot carry it. */
	t->rank_in_events = t->rank >= 0;
	while ((rc = jr_value(t->r, &t->doc)) == 1) {
		/* A consumer that refused a record has reported why. */
		if (jw_failed(t->w) || event(t) < 0)
			return -1;
	}
	if (rc < 0)
		return reader_failed(t);
	return 0;
}

static int
str_is(const struct jdoc *d, int i, const char *s)
{
	return i >= 0 && d->node[i].type == JT_STRING &&
	    strcmp(jdoc_str(d, (uint32_t)i), s) == 0;
}

/* Finds the members an event may have; the last of repeated keys wins. */
static int
fields(struct trace *t, struct ev *e)
{
	const struct jdoc *d = &t->doc;
	uint32_t i;
	const char *k;

	memset(e, -1, sizeof(*e));
	e->ts_ns = e->dur_ns = 0;
	if (d->node[0].type != JT_OBJECT)
		return jdoc_error(t->file, d, 0, "event is not an object");
	for (i = 1; i < d->node[0].next; i = d->node[i].next) {
		k = jdoc_key(d, i);
		switch (k[0]) {
		case 'a': if (JKEY_IS(d, i, "args")) e->args = (int)i; break;
		case 'b': if (JKEY_IS(d, i, "bp")) e->bp = (int)i; break;
		case 'c': if (JKEY_IS(d, i, "cat")) e->cat = (int)i; break;
		case 'd': if (JKEY_IS(d, i, "dur")) e->dur = (int)i; break;
		case 'i': if (JKEY_IS(d, i, "id")) e->id = (int)i; break;
		case 'n': if (JKEY_IS(d, i, "name")) e->name = (int)i; break;
		case 'p':
			if (JKEY_IS(d, i, "ph"))
				e->ph = (int)i;
			else if (JKEY_IS(d, i, "pid"))
				e->pid = (int)i;
			break;
		case 's': if (JKEY_IS(d, i, "s")) e->scope = (int)i; break;
		case 't':
			if (JKEY_IS(d, i, "ts"))
				e->ts = (int)i;
			else if (JKEY_IS(d, i, "tid"))
				e->tid = (int)i;
			break;
		}
	}
	if (e->ph < 0 || d->node[e->ph].type != JT_STRING ||
	    d->node[e->ph].len == 0)
		return jdoc_error(t->file, d, e->ph < 0 ? 0 : e->ph,
		    "event has no \"ph\" string");
	if (e->ts >= 0) {
		if (d->node[e->ts].type != JT_NUMBER)
			return jdoc_error(t->file, d, e->ts, "\"ts\" is not a number");
		if (jnum_us_to_ns(jdoc_str(d, (uint32_t)e->ts),
		    d->node[e->ts].len, &e->ts_ns) < 0)
			return jdoc_error(t->file, d, e->ts,
			    "\"ts\" is out of range: %s",
			    jdoc_str(d, (uint32_t)e->ts));
	}
	if (e->dur >= 0) {
		if (d->node[e->dur].type != JT_NUMBER)
			return jdoc_error(t->file, d, e->dur, "\"dur\" is not a number");
		if (jnum_us_to_ns(jdoc_str(d, (uint32_t)e->dur),
		    d->node[e->dur].len, &e->dur_ns) < 0)
			return jdoc_error(t->file, d, e->dur,
			    "\"dur\" is out of range: %s",
			    jdoc_str(d, (uint32_t)e->dur));
	}
	if (e->args >= 0 && d->node[e->args].type != JT_OBJECT)
		e->args = -1;
	if (e->args >= 0)
		for (i = (uint32_t)e->args + 1; i < d->node[e->args].next;
		    i = d->node[i].next) {
			if (JKEY_IS(d, i, "stream"))
				e->stream = (int)i;
			else if (JKEY_IS(d, i, "correlation"))
				e->correlation = (int)i;
			else if (JKEY_IS(d, i, "External id") ||
			    (JKEY_IS(d, i, "external id") &&
			    e->external_id < 0))
				/* PyTorch 1.9 spelled it in lower case. */
				e->external_id = (int)i;
			else if (JKEY_IS(d, i, "device"))
				e->device = (int)i;
			else if (JKEY_IS(d, i, "bytes"))
				e->bytes = (int)i;
			else if (JKEY_IS(d, i, "wait_on_stream"))
				e->wait_stream = (int)i;
			else if (JKEY_IS(d, i,
			    "wait_on_cuda_event_record_corr_id"))
				e->wait_record = (int)i;
			else if (JKEY_IS(d, i, "Input Dims"))
				e->dims = (int)i;
			else if (JKEY_IS(d, i, "Input type"))
				e->types = (int)i;
			else if (JKEY_IS(d, i, "Input Strides"))
				e->strides = (int)i;
			else if (JKEY_IS(d, i, "Concrete Inputs"))
				e->concrete = (int)i;
			else if (JKEY_IS(d, i, "Collective name"))
				e->coll = (int)i;
			else if (JKEY_IS(d, i, "In msg nelems"))
				e->in_nelems = (int)i;
			else if (JKEY_IS(d, i, "Out msg nelems"))
				e->out_nelems = (int)i;
			else if (JKEY_IS(d, i, "Group size"))
				e->group_size = (int)i;
			else if (JKEY_IS(d, i, "dtype"))
				e->dtype = (int)i;
			else if (JKEY_IS(d, i, "Process Group Name"))
				e->pg = (int)i;
		}
	return 0;
}

static int
event(struct trace *t)
{
	const struct jdoc *d = &t->doc;
	struct jw *w = t->w;
	struct ev e;
	char ph;

	if (fields(t, &e) < 0)
		return -1;
	ph = jdoc_str(d, (uint32_t)e.ph)[0];
	t->events++;
	if ((unsigned char)ph < 128 && d->node[e.ph].len == 1)
		t->by_ph[(unsigned char)ph]++;
	else
		t->other_ph++;
	count_cat(t, &e);
	if (ph == 'M') {
		if (pass_on(t, &e, ph, 0) < 0)
			return -1;
		if (!t->opts->hooks_only)
			emit_metadata(t, &e);
		return 0;
	}
	if (e.ts < 0) {
		if (ph == '\0' || strchr("XBEiIsftC", ph) == NULL)
			return pass_on(t, &e, ph, 0);
		return jdoc_error(t->file, d, 0, "'%c' event has no \"ts\"", ph);
	}
	if (!t->have_origin) {
		/*
		 * A whole microsecond, so that relative times keep the same
		 * sub-microsecond digits as the trace and truncate alike.
		 */
		if (__builtin_sub_overflow(e.ts_ns,
		    (e.ts_ns % 1000 + 1000) % 1000, &t->origin))
			return jdoc_error(t->file, d, e.ts,
			    "\"ts\" is out of range: %s",
			    jdoc_str(d, (uint32_t)e.ts));
		t->have_origin = 1;
		t->first = t->last = e.ts_ns;
	}
	if (d->node[e.ph].len != 1)
		return pass_on(t, &e, ph, 1);
	if (strchr("XBEiIsftC", ph) != NULL &&
	    check_time(t, d, &e, e.ts_ns, ph == 'X' ? e.dur_ns : 0) < 0)
		return -1;
	if (pass_on(t, &e, ph, 1) < 0)
		return -1;
	if (t->opts->hooks_only)
		return 0;
	switch (ph) {
	case 'X':
		see_time(t, e.ts_ns, e.dur_ns);
		return emit_complete(t, d, &e, e.ts_ns, e.dur_ns);
	case 'B':
	case 'E':
		return begin_end(t, &e, ph);
	case 'i':
	case 'I':
		see_time(t, e.ts_ns, 0);
		if (str_is(d, e.name, "[memory]")) {
			w = t->opts->memory != NULL ? t->opts->memory : t->w;
			jw_record(w, "memory");
			put_common(t, w, d, &e);
			put_arg(w, d, e.args, "Bytes", JW_KEY("bytes"));
			put_arg(w, d, e.args, "Total Allocated",
			    JW_KEY("total_allocated"));
			put_arg(w, d, e.args, "Total Reserved",
			    JW_KEY("total_reserved"));
			put_arg(w, d, e.args, "Device Type",
			    JW_KEY("device_type"));
			put_arg(w, d, e.args, "Device Id",
			    JW_KEY("device_id"));
			put_arg(w, d, e.args, "Addr", JW_KEY("addr"));
		} else if (t->opts->skip & XR_INSTANT)
			break;
		else {
			jw_record(w, "instant");
			put_common(t, w, d, &e);
			jw_member(w, d, e.scope, JW_KEY("scope"));
			if (t->args)
				jw_member(w, d, e.args, JW_KEY("args"));
		}
		end_record(t, w);
		break;
	case 'C':
		see_time(t, e.ts_ns, 0);
		if (t->opts->skip & XR_COUNTER)
			break;
		jw_record(w, "counter");
		put_common(t, w, d, &e);
		jw_key(w, "values");
		if (e.args >= 0)
			jw_jdoc(w, d, (uint32_t)e.args);
		else {
			jw_begin_object(w);
			jw_end_object(w);
		}
		end_record(t, w);
		break;
	case 's':
	case 't':
	case 'f':
		see_time(t, e.ts_ns, 0);
		if (t->opts->skip & XR_FLOW)
			break;
		jw_record(w, "flow");
		jw_key(w, "ph");
		jw_string(w, &ph, 1);
		put_common(t, w, d, &e);
		jw_member(w, d, e.id, JW_KEY("id"));
		jw_member(w, d, e.bp, JW_KEY("bp"));
		end_record(t, w);
		break;
	}
	return 0;
}

/* The event as read, to the caller's hook. */
static int
pass_on(struct trace *t, const struct ev *e, char ph, int timed)
{
	const struct jdoc *d = &t->doc;
	struct extract_seen s;

	if (t->opts->each == NULL)
		return 0;
	s.ph = d->node[e->ph].len == 1 ? ph : '\0';
	s.timed = timed;
	s.start_ns = timed ? e->ts_ns - t->origin : 0;
	s.dur_ns = e->dur_ns;
	s.origin_ns = t->origin;
	return t->opts->each(t->opts->hook_arg, d, &s);
}

static int
pass_top(struct trace *t, const char *key, const struct jdoc *value)
{
	if (t->opts->top == NULL)
		return 0;
	return t->opts->top(t->opts->hook_arg, key, value);
}

/* name, cat, pid, tid, ts: what every timed record starts with. */
static void
put_common(struct trace *t, struct jw *w, const struct jdoc *d,
    const struct ev *e)
{
	jw_member(w, d, e->name, JW_KEY("name"));
	jw_member(w, d, e->cat, JW_KEY("cat"));
	jw_member(w, d, e->pid, JW_KEY("pid"));
	jw_member(w, d, e->tid, JW_KEY("tid"));
	jw_key(w, "ts");
	jw_us(w, e->ts_ns - t->origin);
}

/* Ends a timed record with the rank, when it is known this early. */
static void
end_record(struct trace *t, struct jw *w)
{
	if (t->rank_in_events) {
		jw_key(w, "rank");
		jw_int(w, t->rank);
	}
	jw_end(w);
}

static void
put_arg(struct jw *w, const struct jdoc *d, int args, const char *name,
    struct jwkey as)
{
	if (args >= 0)
		jw_member(w, d, jdoc_get(d, (uint32_t)args, name), as);
}

static int
emit_complete(struct trace *t, const struct jdoc *d, const struct ev *e,
    int64_t ts, int64_t dur)
{
	struct trevent tev = {
		.d = d, .name = e->name, .cat = e->cat, .pid = e->pid,
		.tid = e->tid, .ts = e->ts, .dur = e->dur, .stream = e->stream,
		.corr = e->correlation, .external_id = e->external_id,
		.device = e->device, .bytes = e->bytes,
		.wait_stream = e->wait_stream, .wait_record = e->wait_record,
		.dims = -1, .types = -1, .strides = -1, .concrete = -1,
		.coll = e->coll, .group = -1, .group_size = -1,
		.in_nelems = -1, .out_nelems = -1, .dtype = -1,
		.args = t->args ? e->args : -1,
		.ts_ns = ts - t->origin, .dur_ns = dur,
		.ts_read = TRT_READ, .dur_read = TRT_READ,
		.has_rank = t->rank_in_events,
		.rank = t->rank_in_events ? t->rank : 0
	};

	/* Shapes only where op-rank can cost them: they are most of a trace. */
	if (e->dims >= 0 && e->name >= 0 && d->node[e->name].type == JT_STRING &&
	    opcost_model(jdoc_str(d, (uint32_t)e->name)) != OM_NONE) {
		tev.dims = e->dims;
		tev.types = e->types;
		tev.strides = e->strides;
		tev.concrete = e->concrete;
	}
	/*
	 * What a collective moves, where PyTorch records it (record_param_comms
	 * and, since 2.1, the NCCL kernel): op-rank's bandwidths.  The group's
	 * description and ranks stay behind, as the other args do.
	 */
	if (e->coll >= 0) {
		tev.group = e->pg;
		tev.group_size = e->group_size;
		tev.in_nelems = e->in_nelems;
		tev.out_nelems = e->out_nelems;
		tev.dtype = e->dtype;
	}
	if (t->opts->event != NULL)
		return t->opts->event(t->opts->hook_arg, &tev);
	trevent_write(t->w, &tev);
	return 0;
}

static void
emit_metadata(struct trace *t, const struct ev *e)
{
	static const struct {
		const char	*event, *kind, *arg, *as;
	} meta[] = {
		{ "process_name", "process", "name", "name" },
		{ "process_labels", "process", "labels", "labels" },
		{ "process_sort_index", "process", "sort_index", "sort_index" },
		{ "thread_name", "thread", "name", "name" },
		{ "thread_sort_index", "thread", "sort_index", "sort_index" },
	};
	const struct jdoc *d = &t->doc;
	struct jw *w = t->w;
	size_t i;
	int arg;

	for (i = 0; i < sizeof(meta) / sizeof(meta[0]); i++)
		if (str_is(d, e->name, meta[i].event))
			break;
	if (i == sizeof(meta) / sizeof(meta[0]) || e->args < 0 ||
	    (meta[i].kind[0] == 'p' && (t->opts->skip & XR_PROCESS)) ||
	    (arg = jdoc_get(d, (uint32_t)e->args, meta[i].arg)) < 0)
		return;
	jw_crecord(w, meta[i].kind);
	jw_member(w, d, e->pid, JW_KEY("pid"));
	if (meta[i].kind[0] == 't' && e->tid >= 0) {
		jw_key(w, "tid");
		jw_jdoc(w, d, (uint32_t)e->tid);
	}
	jw_ckey(w, meta[i].as);
	jw_jdoc(w, d, (uint32_t)arg);
	jw_end(w);
}

/* The stack key: the JSON texts of pid and tid, which may be strings. */
static void
stack_key(const struct jdoc *d, int pid, int tid, char *buf, size_t size,
    size_t *len)
{
	int n;

	n = snprintf(buf, size, "%c%s\n%c%s",
	    pid < 0 ? '-' : d->node[pid].type == JT_STRING ? 's' : 'n',
	    pid < 0 ? "" : d->node[pid].type <= JT_TRUE ? "" :
	    jdoc_str(d, (uint32_t)pid),
	    tid < 0 ? '-' : d->node[tid].type == JT_STRING ? 's' : 'n',
	    tid < 0 ? "" : d->node[tid].type <= JT_TRUE ? "" :
	    jdoc_str(d, (uint32_t)tid));
	*len = n < 0 ? 0 : (size_t)n < size ? (size_t)n : size - 1;
}

static int
begin_end(struct trace *t, struct ev *e, char ph)
{
	const struct jdoc *d = &t->doc;
	struct thread_stack *st;
	struct open_begin *ob;
	struct strent *ent;
	struct ev be;
	struct jdoc tmp;
	char key[512];
	size_t len;
	int64_t dur;

	stack_key(d, e->pid, e->tid, key, sizeof(key), &len);
	if (ph == 'B') {
		ent = strmap_put(&t->stacks, key, len);
		if ((st = ent->val) == NULL)
			st = ent->val = t->nspare > 0 ?
			    t->spare[--t->nspare] : xcalloc(1, sizeof(*st));
		if (st->n == MAX_OPEN)
			return jdoc_error(t->file, d, 0, "more than %d 'B' events open on one"
			    " thread", MAX_OPEN);
		if (st->n == st->cap) {
			st->cap = st->cap ? st->cap * 2 : 8;
			st->v = xreallocarray(st->v, st->cap, sizeof(*st->v));
			memset(st->v + st->n, 0,
			    (st->cap - st->n) * sizeof(*st->v));
		}
		ob = &st->v[st->n++];
		jdoc_copy(&ob->doc, d);
		ob->ts = e->ts_ns;
		t->unmatched_begin++;
		return 0;
	}
	ent = strmap_get(&t->stacks, key, len);
	if (ent == NULL || (st = ent->val) == NULL || st->n == 0)
		return jdoc_error(t->file, d, 0, "'E' event with no 'B' before it on its"
		    " thread");
	ob = &st->v[--st->n];
	t->unmatched_begin--;
	if (e->ts_ns < ob->ts)
		return jdoc_error(t->file, d, e->ts, "'E' event ends before its 'B' begins");
	if (__builtin_sub_overflow(e->ts_ns, ob->ts, &dur))
		return jdoc_error(t->file, d, e->ts, "'E' event is too far from"
		    " its 'B' for 64-bit nanoseconds");
	if (check_time(t, d, e, ob->ts, dur) < 0)
		return -1;
	/* The 'B' event's fields describe the slice; its doc is a copy. */
	tmp = t->doc;
	t->doc = ob->doc;
	ob->doc = tmp;
	if (fields(t, &be) < 0)
		return -1;
	see_time(t, ob->ts, dur);
	if (emit_complete(t, &t->doc, &be, ob->ts, dur) < 0)
		return -1;
	if (st->n == 0) {
		strmap_del(&t->stacks, key, len);
		if (t->nspare < MAX_SPARE)
			t->spare[t->nspare++] = st;
		else
			thread_stack_free(st);
	}
	return 0;
}

static void
thread_stack_free(void *p)
{
	struct thread_stack *st = p;
	size_t i;

	if (st == NULL)
		return;
	for (i = 0; i < st->cap; i++)
		jdoc_free(&st->v[i].doc);
	free(st->v);
	free(st);
}

static void
count_cat(struct trace *t, const struct ev *e)
{
	const struct jdoc *d = &t->doc;
	struct strent *ent;
	const char *s;
	size_t len;

	if (e->cat < 0 || d->node[e->cat].type != JT_STRING) {
		t->no_cat++;
		return;
	}
	s = jdoc_str(d, (uint32_t)e->cat);
	len = d->node[e->cat].len;
	if ((ent = strmap_get(&t->cats, s, len)) == NULL) {
		if (t->cats.count >= MAX_CATS) {
			t->more_cats++;
			return;
		}
		ent = strmap_put(&t->cats, s, len);
	}
	ent->n++;
}

/*
 * Whether an event at ts lasting dur keeps every time of the trace, and
 * the span of them all, within int64 nanoseconds from the origin: then
 * see_time() and every time written can be computed without overflow.
 * Reports the error at the event's "ts" or "dur" when not.
 */
static int
check_time(struct trace *t, const struct jdoc *d, const struct ev *e,
    int64_t ts, int64_t dur)
{
	int64_t end, first, last, x;

	if (__builtin_add_overflow(ts, dur > 0 ? dur : 0, &end))
		return jdoc_error(t->file, d, e->dur >= 0 ? e->dur : e->ts,
		    "\"ts\" + \"dur\" is beyond 64-bit nanoseconds");
	first = ts < t->first ? ts : t->first;
	last = end > t->last ? end : t->last;
	if (__builtin_sub_overflow(last, first, &x) ||
	    __builtin_sub_overflow(first, t->origin, &x) ||
	    __builtin_sub_overflow(last, t->origin, &x))
		return jdoc_error(t->file, d, e->ts, "\"ts\" is too far from"
		    " the trace's other times for 64-bit nanoseconds");
	return 0;
}

static void
see_time(struct trace *t, int64_t ts, int64_t dur)
{
	int64_t end = ts + (dur > 0 ? dur : 0);

	if (ts < t->first)
		t->first = ts;
	if (end > t->last)
		t->last = end;
}

static void
put_trace(struct trace *t)
{
	struct jw *w = t->w;
	struct strent **cats;
	size_t i;
	int k;
	char ph[2] = { 0, 0 };

	jw_record(w, "trace");
	jw_key(w, "file");
	jw_cstring(w, t->file);
	jw_key(w, "format");
	jw_cstring(w, t->array_form ? "array" : "object");
	if (jr_unclosed(t->r)) {
		jw_key(w, "complete");
		jw_bool(w, 0);
	}
	jw_key(w, "schema_version");
	if (t->schema != NULL)
		jw_number(w, t->schema, strlen(t->schema));
	else
		jw_null(w);
	jw_key(w, "rank");
	if (t->rank >= 0)
		jw_int(w, t->rank);
	else
		jw_null(w);
	jw_key(w, "rank_from");
	jw_cstring_or_null(w, t->rank_from);
	if (t->dist.n > 0 && t->dist.node[0].type == JT_OBJECT) {
		put_arg(w, &t->dist, 0, "world_size", JW_KEY("world_size"));
		put_arg(w, &t->dist, 0, "backend", JW_KEY("backend"));
		jw_key(w, "distributed_info");
		jw_jdoc(w, &t->dist, 0);
	}
	if (t->devprops.n > 0) {
		jw_key(w, "device_properties");
		jw_jdoc(w, &t->devprops, 0);
	}
	if (t->basetime != NULL) {
		jw_key(w, "base_time_ns");
		jw_number(w, t->basetime, strlen(t->basetime));
	}
	if (t->timeunit != NULL) {
		jw_key(w, "display_time_unit");
		/* A copy of what the reader read, up to a NUL: valid. */
		jw_string_valid(w, t->timeunit, strlen(t->timeunit));
	}
	jw_key(w, "origin_ns");
	jw_int(w, t->origin);
	jw_key(w, "start");
	jw_us(w, t->first - t->origin);
	jw_key(w, "end");
	jw_us(w, t->last - t->origin);
	jw_key(w, "window");
	jw_us(w, t->last - t->first);
	jw_key(w, "events");
	jw_uint(w, t->events);
	jw_key(w, "by_ph");
	jw_begin_object(w);
	for (k = 0; k < 128; k++) {
		if (t->by_ph[k] == 0)
			continue;
		ph[0] = (char)k;
		jw_ckey(w, ph);
		jw_uint(w, t->by_ph[k]);
	}
	if (t->other_ph > 0) {
		jw_key(w, "(other)");
		jw_uint(w, t->other_ph);
	}
	jw_end_object(w);
	jw_key(w, "by_cat");
	jw_begin_object(w);
	cats = strmap_sorted(&t->cats);
	for (i = 0; i < t->cats.count; i++) {
		jw_ckey(w, cats[i]->key);
		jw_uint(w, cats[i]->n);
	}
	free(cats);
	if (t->no_cat > 0) {
		jw_key(w, "(none)");
		jw_uint(w, t->no_cat);
	}
	if (t->more_cats > 0) {
		jw_key(w, "(more)");
		jw_uint(w, t->more_cats);
	}
	jw_end_object(w);
	jw_key(w, "unmatched_begin");
	jw_uint(w, t->unmatched_begin);
	jw_key(w, "repairs");
	{
		const struct jrepairs *rp = jr_repairs(t->r);

		jw_begin_object(w);
		jw_key(w, "control");
		jw_uint(w, rp->control);
		jw_key(w, "utf8");
		jw_uint(w, rp->utf8);
		jw_key(w, "na");
		jw_uint(w, rp->na);
		jw_key(w, "nonfinite");
		jw_uint(w, rp->nonfinite);
		jw_end_object(w);
	}
	jw_end(w);
}

/* One warning per file that needed repairs, pointing at the first. */
static void
put_repairs(struct trace *t)
{
	const struct jrepairs *rp = jr_repairs(t->r);
	uint64_t n = rp->control + rp->utf8 + rp->na + rp->nonfinite;

	if (n == 0)
		return;
	warnmsg("%s:%" PRIu64 ":%" PRIu64 ": warning: repaired %" PRIu64
	    " invalid JSON value%s (control %" PRIu64 ", utf8 %" PRIu64
	    ", N/A %" PRIu64 ", NaN/Infinity %" PRIu64 ")", t->file,
	    rp->first_line, rp->first_col, n, n == 1 ? "" : "s", rp->control,
	    rp->utf8, rp->na, rp->nonfinite);
}
