#include <stdint.h>
#include <string.h>

#include "io/json.h"
#include "io/ndjson.h"
#include "trace/trevent.h"

static enum trtime	read_time(const struct jdoc *, int, int64_t *);

/* One pass over the keys, by first letter: this runs per record. */
void
trevent_from_doc(const struct jdoc *d, struct trevent *ev)
{
	uint32_t i;
	int *at, rank = -1;

	memset(ev, -1, sizeof(*ev));
	ev->d = d;
	for (i = 1; i < d->node[0].next; i = d->node[i].next) {
		switch (jdoc_key(d, i)[0]) {
		case 'a':
			at = JKEY_IS(d, i, "args") ? &ev->args : NULL;
			break;
		case 'b':
			at = JKEY_IS(d, i, "bytes") ? &ev->bytes : NULL;
			break;
		case 'c':
			at = JKEY_IS(d, i, "cat") ? &ev->cat :
			    JKEY_IS(d, i, "correlation") ? &ev->corr :
			    JKEY_IS(d, i, "concrete_inputs") ? &ev->concrete :
			    JKEY_IS(d, i, "collective") ? &ev->coll : NULL;
			break;
		case 'd':
			at = JKEY_IS(d, i, "dur") ? &ev->dur :
			    JKEY_IS(d, i, "device") ? &ev->device :
			    JKEY_IS(d, i, "dtype") ? &ev->dtype : NULL;
			break;
		case 'e':
			at = JKEY_IS(d, i, "external_id") ? &ev->external_id :
			    NULL;
			break;
		case 'g':
			at = JKEY_IS(d, i, "group") ? &ev->group :
			    JKEY_IS(d, i, "group_size") ? &ev->group_size :
			    NULL;
			break;
		case 'i':
			at = JKEY_IS(d, i, "input_dims") ? &ev->dims :
			    JKEY_IS(d, i, "input_types") ? &ev->types :
			    JKEY_IS(d, i, "input_strides") ? &ev->strides :
			    JKEY_IS(d, i, "in_nelems") ? &ev->in_nelems : NULL;
			break;
		case 'n':
			at = JKEY_IS(d, i, "name") ? &ev->name : NULL;
			break;
		case 'o':
			at = JKEY_IS(d, i, "out_nelems") ? &ev->out_nelems :
			    NULL;
			break;
		case 'p':
			at = JKEY_IS(d, i, "pid") ? &ev->pid : NULL;
			break;
		case 'r':
			at = JKEY_IS(d, i, "rank") ? &rank : NULL;
			break;
		case 's':
			at = JKEY_IS(d, i, "stream") ? &ev->stream : NULL;
			break;
		case 't':
			at = JKEY_IS(d, i, "tid") ? &ev->tid :
			    JKEY_IS(d, i, "ts") ? &ev->ts : NULL;
			break;
		case 'w':
			at = JKEY_IS(d, i, "wait_on_stream") ?
			    &ev->wait_stream :
			    JKEY_IS(d, i, "wait_on_event_record") ?
			    &ev->wait_record : NULL;
			break;
		default:
			at = NULL;
		}
		if (at != NULL)
			*at = (int)i;
	}
	ev->ts_read = read_time(d, ev->ts, &ev->ts_ns);
	ev->dur_read = read_time(d, ev->dur, &ev->dur_ns);
	ev->has_rank = rank >= 0 && d->node[rank].type == JT_NUMBER &&
	    jnum_int64(jdoc_str(d, (uint32_t)rank), d->node[rank].len,
	    &ev->rank) == 0;
	if (!ev->has_rank)
		ev->rank = 0;
}

static enum trtime
read_time(const struct jdoc *d, int i, int64_t *ns)
{
	if (i < 0 || d->node[i].type != JT_NUMBER) {
		*ns = 0;
		return TRT_NONE;
	}
	if (jnum_us_to_ns(jdoc_str(d, (uint32_t)i), d->node[i].len, ns) < 0) {
		*ns = 0;
		return TRT_RANGE;
	}
	return TRT_READ;
}

/*
 * Members in the order mrp-records(5) gives: those every timed record
 * starts with, the event's own, its shapes, its collective, its args, its
 * rank.  The digests of tests/outputs hold the bytes to it.
 */
void
trevent_write(struct jw *w, const struct trevent *ev)
{
	const struct jdoc *d = ev->d;

	jw_record(w, "event");
	jw_member(w, d, ev->name, JW_KEY("name"));
	jw_member(w, d, ev->cat, JW_KEY("cat"));
	jw_member(w, d, ev->pid, JW_KEY("pid"));
	jw_member(w, d, ev->tid, JW_KEY("tid"));
	jw_key(w, "ts");
	jw_us(w, ev->ts_ns);
	jw_key(w, "dur");
	jw_us(w, ev->dur_ns);
	jw_member(w, d, ev->stream, JW_KEY("stream"));
	jw_member(w, d, ev->corr, JW_KEY("correlation"));
	jw_member(w, d, ev->external_id, JW_KEY("external_id"));
	jw_member(w, d, ev->device, JW_KEY("device"));
	jw_member(w, d, ev->bytes, JW_KEY("bytes"));
	jw_member(w, d, ev->wait_stream, JW_KEY("wait_on_stream"));
	jw_member(w, d, ev->wait_record, JW_KEY("wait_on_event_record"));
	jw_member(w, d, ev->dims, JW_KEY("input_dims"));
	jw_member(w, d, ev->types, JW_KEY("input_types"));
	jw_member(w, d, ev->strides, JW_KEY("input_strides"));
	jw_member(w, d, ev->concrete, JW_KEY("concrete_inputs"));
	jw_member(w, d, ev->coll, JW_KEY("collective"));
	jw_member(w, d, ev->group, JW_KEY("group"));
	jw_member(w, d, ev->group_size, JW_KEY("group_size"));
	jw_member(w, d, ev->in_nelems, JW_KEY("in_nelems"));
	jw_member(w, d, ev->out_nelems, JW_KEY("out_nelems"));
	jw_member(w, d, ev->dtype, JW_KEY("dtype"));
	jw_member(w, d, ev->args, JW_KEY("args"));
	if (ev->has_rank) {
		jw_key(w, "rank");
		jw_int(w, ev->rank);
	}
	jw_end(w);
}
