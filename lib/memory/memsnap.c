/*
 * memsnap: the reader of snapshots and of tr-extract's memory records that
 * memsnap.h describes.
 * One file: both inputs are read through one struct msnap (told apart by
 * their first object), with the same token helpers, warnings and interned
 * sites, and the struct stays private here.
 */
#include <errno.h>
#include <inttypes.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "base/err.h"
#include "base/strmap.h"
#include "base/xalloc.h"
#include "memory/memsnap.h"
#include "memory/memtl.h"

const char *const mstate_name[MS_NSTATES] = {
	"active_allocated", "active_pending_free", "inactive"
};

const char *const maction_name[MA_NACTIONS] = {
	"alloc", "free_requested", "free_completed", "segment_alloc",
	"segment_free", "segment_map", "segment_unmap", "snapshot", "oom",
	"annotate", "other"
};

/* Eras by the fields that first appeared in them; see msnap_era(). */
enum { ERA_NONE, ERA_1_13, ERA_2_0, ERA_2_1, ERA_2_2, ERA_2_5, ERA_2_7,
    ERA_2_11 };
static const char *const era_name[] = {
	NULL, "1.13", "2.0", "2.1", "2.2", "2.5", "2.7", "2.11"
};

/* One "memory" record of tr-extract output, kept for memrec_write(). */
struct mrev {
	int64_t	ts, bytes, allocated, reserved;
	int32_t	dtype, did;
};

struct mphase {
	char	*name;
	int64_t	 start, dur;
};

/* A warning kept for msnap_put_warnings(). */
struct mwarn {
	uint64_t	 line, col;
	char		*msg;
	char		*file;		/* a trace the records name, or NULL */
};

struct msnap {
	struct jreader	*r;
	const char	*name;
	int		 flags;
	enum mform	 form;
	int		 era;
	struct jdoc	 doc;		/* a block or a trace entry */
	struct jdoc	 settings;
	struct jdoc	 stats;
	int		 has_settings, has_stats;
	struct mblock	*blocks;
	size_t		 bcap;
	struct strmap	 sites;
	struct mrev	*ev;
	size_t		 nev, evcap;
	struct mphase	*ph;
	size_t		 nph, phcap;
	struct mwarn	 warn[MS_MAXWARN + 1];	/* the last: first one cut */
	uint64_t	 nwarn;
	/*
	 * Over all memory records and steps: the bytes moved, and the
	 * earliest and latest time, kept within int64 so that no sum or
	 * difference memrec_write() makes can overflow.
	 */
	int64_t		 rec_bytes, rec_first, rec_last;
	int		 rec_timed;
};

static int	reader_failed(struct msnap *);
static int	next_int(struct msnap *, const char *, int64_t *, int);
static int	doc_int(struct msnap *, const struct jdoc *, uint32_t,
		    const char *, int64_t *, int);
static int	read_segments(struct msnap *, const struct msnap_ops *, void *);
static int	read_segment(struct msnap *, const struct msnap_ops *, void *,
		    const struct jtoken *);
static int	read_block(struct msnap *, struct mseg *);
static int	read_traces(struct msnap *, const struct msnap_ops *, void *);
static int	read_entry(struct msnap *, const struct msnap_ops *, void *,
		    int64_t, uint64_t);
static int	read_object(struct msnap *, const struct msnap_ops *, void *,
		    enum jtok, struct jtoken *);
static int	read_records(struct msnap *);
static int	read_record(struct msnap *);
static int	read_trace_record(struct msnap *);
static int	e_bytes(struct msnap *, int64_t, uint64_t, uint64_t);
static int	rec_time(struct msnap *, int64_t, int64_t, uint64_t, uint64_t);
static void	see_era(struct msnap *, int);
static int	key_is(const struct jtoken *, const char *);
static void	keep_warning(struct msnap *, const char *, uint64_t, uint64_t,
		    const char *);

struct msnap *
msnap_open(const char *path, int flags)
{
	struct msnap *ms;
	struct gzin *in;

	if ((in = gzin_open(path)) == NULL)
		return NULL;
	ms = xcalloc(1, sizeof(*ms));
	ms->name = gzin_name(in);
	ms->flags = flags;
	/* Stream mode, so that tr-extract's NDJSON reads through it too. */
	ms->r = jr_open(in, JR_STREAM);
	return ms;
}

void
msnap_close(struct msnap *ms)
{
	size_t i;

	if (ms == NULL)
		return;
	jr_close(ms->r);
	jdoc_free(&ms->doc);
	jdoc_free(&ms->settings);
	jdoc_free(&ms->stats);
	free(ms->blocks);
	strmap_free(&ms->sites, NULL);
	free(ms->ev);
	for (i = 0; i < ms->nph; i++)
		free(ms->ph[i].name);
	free(ms->ph);
	for (i = 0; i < MS_MAXWARN && i < ms->nwarn; i++) {
		free(ms->warn[i].msg);
		free(ms->warn[i].file);
	}
	free(ms);
}

const char *
msnap_name(const struct msnap *ms)
{
	return ms->name;
}

enum mform
msnap_form(const struct msnap *ms)
{
	return ms->form;
}

const char *
msnap_era(const struct msnap *ms)
{
	return era_name[ms->era];
}

const struct jdoc *
msnap_settings(const struct msnap *ms)
{
	return ms->has_settings ? &ms->settings : NULL;
}

int
msnap_stats(const struct msnap *ms, int64_t device, const struct jdoc **doc)
{
	const struct jdoc *d = &ms->stats;
	uint32_t i;
	int64_t n;

	if (!ms->has_stats)
		return -1;
	*doc = d;
	if (d->node[0].type == JT_OBJECT)
		return device == 0 ? 0 : -1;
	if (d->node[0].type != JT_ARRAY)
		return -1;
	for (i = 1, n = 0; i < d->node[0].next; i = d->node[i].next, n++)
		if (n == device)
			return d->node[i].type == JT_OBJECT ? (int)i : -1;
	return -1;
}

int
msnap_fail(struct msnap *ms, uint64_t line, uint64_t col, const char *fmt,
    ...)
{
	char msg[512];
	va_list ap;

	va_start(ap, fmt);
	vsnprintf(msg, sizeof(msg), fmt, ap);
	va_end(ap);
	warnmsg("%s:%" PRIu64 ":%" PRIu64 ": %s", ms->name, line, col, msg);
	return -1;
}

int
msnap_add(struct msnap *ms, uint64_t line, uint64_t col, int64_t *acc,
    int64_t v)
{
	if (__builtin_add_overflow(*acc, v, acc))
		return msnap_fail(ms, line, col, "byte counts add up beyond"
		    " 64 bits");
	return 0;
}

void
msnap_warn(struct msnap *ms, uint64_t line, uint64_t col, const char *fmt,
    ...)
{
	char msg[512];
	va_list ap;

	if (ms->nwarn++ >= MS_MAXWARN) {
		if (ms->nwarn == MS_MAXWARN + 1) {
			ms->warn[MS_MAXWARN].line = line;
			ms->warn[MS_MAXWARN].col = col;
		}
		return;
	}
	va_start(ap, fmt);
	vsnprintf(msg, sizeof(msg), fmt, ap);
	va_end(ap);
	warnmsg("%s:%" PRIu64 ":%" PRIu64 ": warning: %s", ms->name, line, col,
	    msg);
	keep_warning(ms, NULL, line, col, msg);
}

/* Keeps warning nwarn - 1; file names another file than the input. */
static void
keep_warning(struct msnap *ms, const char *file, uint64_t line, uint64_t col,
    const char *msg)
{
	struct mwarn *m = &ms->warn[ms->nwarn - 1];

	m->line = line;
	m->col = col;
	m->msg = xstrdup(msg);
	m->file = file != NULL ? xstrdup(file) : NULL;
}

uint64_t
msnap_warnings(const struct msnap *ms)
{
	return ms->nwarn;
}

static void
put_warning(struct jw *w, const struct msnap *ms, const struct mwarn *m,
    const char *msg)
{
	jw_record(w, "warning");
	jw_key(w, "tool");
	jw_cstring(w, getprogname());
	jw_key(w, "file");
	jw_cstring(w, m->file != NULL ? m->file : ms->name);
	jw_key(w, "line");
	if (m->file != NULL)
		jw_null(w);
	else
		jw_uint(w, m->line);
	jw_key(w, "col");
	if (m->file != NULL)
		jw_null(w);
	else
		jw_uint(w, m->col);
	jw_key(w, "message");
	jw_cstring(w, msg);
	jw_end(w);
}

void
msnap_put_warnings(const struct msnap *ms, struct jw *w)
{
	char msg[64];
	uint64_t i;

	for (i = 0; i < ms->nwarn && i < MS_MAXWARN; i++)
		put_warning(w, ms, &ms->warn[i], ms->warn[i].msg);
	if (ms->nwarn <= MS_MAXWARN)
		return;
	snprintf(msg, sizeof(msg), "%" PRIu64 " more warnings not shown",
	    ms->nwarn - MS_MAXWARN);
	put_warning(w, ms, &ms->warn[MS_MAXWARN], msg);
}

/* Says on stderr how many warnings msnap_warn() kept quiet. */
static void
warn_cut(const struct msnap *ms)
{
	if (ms->nwarn > MS_MAXWARN)
		warnmsg("%s:%" PRIu64 ":%" PRIu64 ": warning: %" PRIu64
		    " more warnings not shown", ms->name,
		    ms->warn[MS_MAXWARN].line, ms->warn[MS_MAXWARN].col,
		    ms->nwarn - MS_MAXWARN);
}

static int
reader_failed(struct msnap *ms)
{
	struct jreader *r = ms->r;

	if (jr_errkind(r) == JE_PICKLE)
		return msnap_fail(ms, jr_errline(r), jr_errcol(r),
		    "%s; read nothing from it.  " MSNAP_PICKLE_ADVICE,
		    jr_error(r));
	if (jr_errkind(r) == JE_IO) {
		warnmsg("%s: %s", ms->name, jr_error(r));
		return -1;
	}
	return msnap_fail(ms, jr_errline(r), jr_errcol(r), "%s", jr_error(r));
}

static int
key_is(const struct jtoken *t, const char *s)
{
	size_t n = strlen(s);

	return t->len == n && memcmp(t->s, s, n) == 0;
}

static void
see_era(struct msnap *ms, int era)
{
	if (era > ms->era)
		ms->era = era;
}

/* The next value as an integer; negative ones only when sign_ok. */
static int
next_int(struct msnap *ms, const char *what, int64_t *v, int sign_ok)
{
	struct jtoken t;
	enum jtok k;

	if ((k = jr_next(ms->r, &t)) == J_ERROR)
		return reader_failed(ms);
	if (k != J_NUMBER)
		return msnap_fail(ms, t.line, t.col, "\"%s\" is not a number",
		    what);
	if (jnum_int64(t.s, t.len, v) < 0)
		return msnap_fail(ms, t.line, t.col,
		    "\"%s\" is not an integer: %.*s", what, (int)t.len, t.s);
	if (!sign_ok && *v < 0)
		return msnap_fail(ms, t.line, t.col, "\"%s\" is negative: %"
		    PRId64, what, *v);
	return 0;
}

/*
 * Member key of object obj as an integer: 1 when present, 0 when absent,
 * -1 after reporting a value that is not a (non-negative) integer.
 */
static int
doc_int(struct msnap *ms, const struct jdoc *d, uint32_t obj,
    const char *key, int64_t *v, int sign_ok)
{
	const struct jnode *n;
	int i;

	if ((i = jdoc_get(d, obj, key)) < 0)
		return 0;
	n = &d->node[i];
	if (n->type == JT_NULL)
		return 0;
	if (n->type != JT_NUMBER)
		return jdoc_error(ms->name, d, (uint32_t)i,
		    "\"%s\" is not a number", key);
	if (jnum_int64(jdoc_str(d, (uint32_t)i), n->len, v) < 0)
		return jdoc_error(ms->name, d, (uint32_t)i,
		    "\"%s\" is not an integer: %s", key,
		    jdoc_str(d, (uint32_t)i));
	if (!sign_ok && *v < 0)
		return jdoc_error(ms->name, d, (uint32_t)i,
		    "\"%s\" is negative: %" PRId64, key, *v);
	return 1;
}

int
msnap_read(struct msnap *ms, const struct msnap_ops *ops, void *arg)
{
	struct jtoken t;
	enum jtok k;

	k = jr_next(ms->r, &t);
	if (k == J_EOF)
		return 0;
	if (k == J_ERROR)
		return reader_failed(ms);
	if (k == J_BEGIN_ARRAY) {
		ms->form = MF_LIST;
		see_era(ms, ERA_1_13);
		if (read_segments(ms, ops, arg) < 0)
			return -1;
	} else if (k == J_BEGIN_OBJECT) {
		if ((k = jr_next(ms->r, &t)) == J_ERROR)
			return reader_failed(ms);
		if (k == J_KEY && key_is(&t, "kind")) {
			ms->form = MF_RECORDS;
			return read_records(ms);
		}
		/* The object form is 2.0's, even with no segments in it. */
		ms->form = MF_OBJECT;
		see_era(ms, ERA_2_0);
		if (read_object(ms, ops, arg, k, &t) < 0)
			return -1;
	} else
		return msnap_fail(ms, t.line, t.col, "not a memory snapshot:"
		    " expected an object or a list of segments");
	if ((k = jr_next(ms->r, &t)) == J_ERROR)
		return reader_failed(ms);
	if (k != J_EOF)
		return msnap_fail(ms, t.line, t.col,
		    "unexpected data after the snapshot");
	warn_cut(ms);
	return 0;
}

/*
 * The members of a snapshot object.  The first token after '{' has been
 * pulled into t (type k); keys are looked at before the next pull.
 */
static int
read_object(struct msnap *ms, const struct msnap_ops *ops, void *arg,
    enum jtok k, struct jtoken *t)
{
	uint64_t line = t->line, col = t->col;
	int found = 0;
	struct jdoc *slot;

	for (; k == J_KEY; k = jr_next(ms->r, t)) {
		if (key_is(t, "segments")) {
			found = 1;
			if ((k = jr_next(ms->r, t)) == J_ERROR)
				return reader_failed(ms);
			if (k != J_BEGIN_ARRAY)
				return msnap_fail(ms, t->line, t->col,
				    "\"segments\" is not a list");
			if (read_segments(ms, ops, arg) < 0)
				return -1;
		} else if (key_is(t, "device_traces")) {
			found = 1;
			if ((k = jr_next(ms->r, t)) == J_ERROR)
				return reader_failed(ms);
			if (k != J_BEGIN_ARRAY)
				return msnap_fail(ms, t->line, t->col,
				    "\"device_traces\" is not a list");
			if (read_traces(ms, ops, arg) < 0)
				return -1;
		} else if (key_is(t, "allocator_settings") ||
		    key_is(t, "stats") || key_is(t, "memory_stats")) {
			int settings = t->s[0] == 'a';

			slot = settings ? &ms->settings : &ms->stats;
			if (jr_value(ms->r, slot) < 0)
				return reader_failed(ms);
			if (settings) {
				ms->has_settings =
				    slot->node[0].type == JT_OBJECT;
				see_era(ms, ERA_2_5);
			} else
				ms->has_stats = 1;
		} else if (jr_skip(ms->r, 0) < 0)
			return reader_failed(ms);
	}
	if (k == J_ERROR)
		return reader_failed(ms);
	if (k != J_END_OBJECT)
		return msnap_fail(ms, t->line, t->col,
		    "expected a member name in quotes");
	if (!found)
		return msnap_fail(ms, line, col, "not a memory snapshot: the"
		    " object has no \"segments\" or \"device_traces\"");
	return 0;
}

/* The elements of a list of segments, whose '[' has been read. */
static int
read_segments(struct msnap *ms, const struct msnap_ops *ops, void *arg)
{
	struct jtoken t;
	enum jtok k;
	uint64_t n;

	for (n = 0; (k = jr_next(ms->r, &t)) == J_BEGIN_OBJECT; n++)
		if (read_segment(ms, ops, arg, &t) < 0)
			return -1;
	if (k == J_ERROR)
		return reader_failed(ms);
	/*
	 * A bare list whose first item is no segment is some other JSON,
	 * such as export_memory_timeline()'s rows: say so, not "segment".
	 */
	if (k != J_END_ARRAY && n == 0 && ms->form == MF_LIST)
		return msnap_fail(ms, t.line, t.col, "not a memory snapshot:"
		    " a list whose first item is not a segment object");
	if (k != J_END_ARRAY)
		return msnap_fail(ms, t.line, t.col,
		    "segment is not an object");
	return 0;
}

enum { F_DEVICE, F_ADDRESS, F_TOTAL, F_ALLOCATED, F_ACTIVE, F_REQUESTED,
    F_STREAM, F_NINT };
static const char *const seg_int[F_NINT] = {
	"device", "address", "total_size", "allocated_size", "active_size",
	"requested_size", "stream"
};

static int
read_segment(struct msnap *ms, const struct msnap_ops *ops, void *arg,
    const struct jtoken *start)
{
	struct mseg s;
	struct jtoken t;
	enum jtok k;
	int64_t v[F_NINT], sum[MS_NSTATES], all, req, off, end;
	int have[F_NINT] = { 0 }, blocks = 0, req_known, i;
	size_t b;

	memset(&s, 0, sizeof(s));
	memset(v, 0, sizeof(v));
	s.line = start->line;
	s.col = start->col;
	s.pool = s.expandable = -1;
	while ((k = jr_next(ms->r, &t)) == J_KEY) {
		for (i = 0; i < F_NINT; i++)
			if (key_is(&t, seg_int[i]))
				break;
		if (i < F_NINT) {
			if (next_int(ms, seg_int[i], &v[i], i == F_STREAM) < 0)
				return -1;
			have[i] = 1;
		} else if (key_is(&t, "blocks")) {
			if ((k = jr_next(ms->r, &t)) == J_ERROR)
				return reader_failed(ms);
			if (k != J_BEGIN_ARRAY)
				return msnap_fail(ms, t.line, t.col,
				    "\"blocks\" is not a list");
			blocks = 1;
			while ((i = jr_value(ms->r, &ms->doc)) == 1)
				if (read_block(ms, &s) < 0)
					return -1;
			if (i < 0)
				return reader_failed(ms);
		} else if (key_is(&t, "segment_type")) {
			if ((k = jr_next(ms->r, &t)) == J_ERROR)
				return reader_failed(ms);
			if (k == J_STRING && key_is(&t, "small"))
				s.pool = 0;
			else if (k == J_STRING && key_is(&t, "large"))
				s.pool = 1;
			else
				return msnap_fail(ms, t.line, t.col,
				    "\"segment_type\" is not \"small\" or"
				    " \"large\"");
		} else if (key_is(&t, "is_expandable")) {
			if ((k = jr_next(ms->r, &t)) == J_ERROR)
				return reader_failed(ms);
			if (k != J_TRUE && k != J_FALSE)
				return msnap_fail(ms, t.line, t.col,
				    "\"is_expandable\" is not true or false");
			s.expandable = k == J_TRUE;
			see_era(ms, ERA_2_1);
		} else if (key_is(&t, "segment_pool_id")) {
			const struct jdoc *d = &ms->doc;

			if (jr_value(ms->r, &ms->doc) < 0)
				return reader_failed(ms);
			if (d->node[0].type != JT_ARRAY || d->n != 3 ||
			    d->node[1].type != JT_NUMBER ||
			    d->node[2].type != JT_NUMBER ||
			    jnum_int64(jdoc_str(d, 1), d->node[1].len,
			    &s.pool_id[0]) < 0 ||
			    jnum_int64(jdoc_str(d, 2), d->node[2].len,
			    &s.pool_id[1]) < 0)
				return jdoc_error(ms->name, d, 0,
				    "\"segment_pool_id\" is"
				    " not a pair of integers");
			s.has_pool_id = 1;
			see_era(ms, ERA_2_1);
		} else if (jr_skip(ms->r, 0) < 0)
			return reader_failed(ms);
	}
	if (k == J_ERROR)
		return reader_failed(ms);
	for (i = 0; i < F_NINT; i++)
		if (!have[i] && i != F_REQUESTED)
			return msnap_fail(ms, s.line, s.col,
			    "segment has no \"%s\"", seg_int[i]);
	if (!blocks)
		return msnap_fail(ms, s.line, s.col,
		    "segment has no \"blocks\"");
	s.device = v[F_DEVICE];
	s.address = v[F_ADDRESS];
	s.total_size = v[F_TOTAL];
	s.allocated_size = v[F_ALLOCATED];
	s.active_size = v[F_ACTIVE];
	s.requested_size = have[F_REQUESTED] ? v[F_REQUESTED] : -1;
	s.stream = v[F_STREAM];
	s.blocks = ms->blocks;

	/*
	 * The sums c10/cuda/CUDACachingAllocator.cpp snapshot() makes over a
	 * segment's blocks: total_size over all, allocated_size over the
	 * allocated ones, active_size and requested_size over the active
	 * ones (allocated, or freed but pending on record_stream's events).
	 * Inactive blocks keep a stale requested_size, so it is not summed.
	 * A mismatch is only warned about: the segment's own figures are
	 * what the tools use.
	 */
	if (__builtin_add_overflow(s.address, s.total_size, &end))
		return msnap_fail(ms, s.line, s.col, "\"address\" + "
		    "\"total_size\" is beyond 64 bits");
	memset(sum, 0, sizeof(sum));
	all = req = 0;
	req_known = 1;
	off = s.address;
	for (b = 0; b < s.nblocks; b++) {
		struct mblock *bl = &s.blocks[b];

		if (bl->address < 0)
			bl->address = off;
		/*
		 * All blocks' sizes fit in int64, and so then does any sum
		 * over some of them, or any address within the segment.
		 */
		if (__builtin_add_overflow(all, bl->size, &all) ||
		    __builtin_add_overflow(off, bl->size, &off))
			return msnap_fail(ms, s.line, s.col,
			    "block sizes add up beyond 64 bits");
		sum[bl->state] += bl->size;
		if (bl->state == MS_INACTIVE)
			continue;
		if (bl->requested < 0)
			req_known = 0;
		else if (__builtin_add_overflow(req, bl->requested, &req))
			return msnap_fail(ms, s.line, s.col,
			    "requested sizes add up beyond 64 bits");
	}
	if (all != s.total_size)
		msnap_warn(ms, s.line, s.col, "blocks add up to %" PRId64
		    " bytes but the segment's total_size is %" PRId64,
		    all, s.total_size);
	if (sum[MS_ALLOCATED] != s.allocated_size)
		msnap_warn(ms, s.line, s.col, "active_allocated blocks add up"
		    " to %" PRId64 " bytes but the segment's allocated_size"
		    " is %" PRId64, sum[MS_ALLOCATED], s.allocated_size);
	if (sum[MS_ALLOCATED] + sum[MS_PENDING_FREE] != s.active_size)
		msnap_warn(ms, s.line, s.col, "active blocks add up to %" PRId64
		    " bytes but the segment's active_size is %" PRId64,
		    sum[MS_ALLOCATED] + sum[MS_PENDING_FREE], s.active_size);
	if (s.requested_size >= 0 && req_known && req != s.requested_size)
		msnap_warn(ms, s.line, s.col, "active blocks request %" PRId64
		    " bytes but the segment's requested_size is %" PRId64, req,
		    s.requested_size);
	if (s.allocated_size > s.active_size || s.active_size > s.total_size)
		msnap_warn(ms, s.line, s.col, "the segment's allocated_size %"
		    PRId64 ", active_size %" PRId64 " and total_size %" PRId64
		    " do not nest", s.allocated_size, s.active_size,
		    s.total_size);
	if (ops->segment != NULL)
		return ops->segment(arg, ms, &s);
	return 0;
}

static int
read_block(struct msnap *ms, struct mseg *s)
{
	const struct jdoc *d = &ms->doc;
	struct mblock *b;
	const char *st;
	int frames = -1, h, rc;
	int64_t v;

	if (d->node[0].type != JT_OBJECT)
		return jdoc_error(ms->name, d, 0,
		    "block is not an object");
	if (s->nblocks == MS_MAX_BLOCKS)
		return jdoc_error(ms->name, d, 0,
		    "segment has more than %u blocks", MS_MAX_BLOCKS);
	if (s->nblocks == ms->bcap) {
		ms->bcap = ms->bcap ? ms->bcap * 2 : 64;
		ms->blocks = xreallocarray(ms->blocks, ms->bcap,
		    sizeof(*ms->blocks));
	}
	b = &ms->blocks[s->nblocks];
	b->site = NULL;
	if ((rc = doc_int(ms, d, 0, "size", &b->size, 0)) <= 0)
		return rc < 0 ? -1 : jdoc_error(ms->name, d, 0,
		    "block has no \"size\"");
	if (jdoc_get_str(d, 0, "state", &st, NULL) < 0)
		return jdoc_error(ms->name, d, 0,
		    "block has no \"state\" string");
	if (strcmp(st, "active_allocated") == 0)
		b->state = MS_ALLOCATED;
	else if (strcmp(st, "active_pending_free") == 0 ||
	    strcmp(st, "active_awaiting_free") == 0)
		b->state = MS_PENDING_FREE;
	else if (strcmp(st, "inactive") == 0)
		b->state = MS_INACTIVE;
	else
		return jdoc_error(ms->name, d, 0,
		    "unknown block state \"%s\"", st);
	if ((rc = doc_int(ms, d, 0, "requested_size", &b->requested, 0)) < 0)
		return -1;
	if (rc == 0)
		b->requested = -1;
	if ((rc = doc_int(ms, d, 0, "address", &b->address, 0)) < 0)
		return -1;
	if (rc == 0)
		b->address = -1;
	else if (__builtin_add_overflow(b->address, b->size, &v))
		return jdoc_error(ms->name, d, 0,
		    "\"address\" + \"size\" is beyond 64 bits");
	else
		see_era(ms, ERA_2_1);
	if ((h = jdoc_get(d, 0, "history")) >= 0) {
		/* 2.0 and 1.13: the first history entry is the allocation. */
		see_era(ms, ms->form == MF_LIST ? ERA_1_13 : ERA_2_0);
		if (d->node[h].type == JT_ARRAY && d->node[h].len > 0 &&
		    d->node[h + 1].type == JT_OBJECT) {
			frames = jdoc_get(d, (uint32_t)h + 1, "frames");
			if (b->requested < 0 && doc_int(ms, d, (uint32_t)h + 1,
			    "real_size", &v, 0) > 0)
				b->requested = v;
		}
	} else
		frames = jdoc_get(d, 0, "frames");
	if ((ms->flags & MS_SITES) && b->state != MS_INACTIVE)
		b->site = msnap_site(ms, d, frames);
	s->nblocks++;
	return 0;
}

/* device_traces, whose '[' has been read: one list per device. */
static int
read_traces(struct msnap *ms, const struct msnap_ops *ops, void *arg)
{
	struct jtoken t;
	enum jtok k;
	int64_t dev;
	uint64_t n;
	int rc;

	for (dev = 0; (k = jr_next(ms->r, &t)) != J_END_ARRAY; dev++) {
		if (k == J_ERROR)
			return reader_failed(ms);
		if (k == J_NULL)
			continue;
		if (k != J_BEGIN_ARRAY)
			return msnap_fail(ms, t.line, t.col,
			    "device trace is not a list");
		for (n = 0; (rc = jr_value(ms->r, &ms->doc)) == 1; n++)
			if (read_entry(ms, ops, arg, dev, n) < 0)
				return -1;
		if (rc < 0)
			return reader_failed(ms);
		if (ops->trace_end != NULL &&
		    ops->trace_end(arg, ms, dev, n) < 0)
			return -1;
	}
	return 0;
}

static int
read_entry(struct msnap *ms, const struct msnap_ops *ops, void *arg,
    int64_t dev, uint64_t seq)
{
	const struct jdoc *d = &ms->doc;
	struct mtrace e;
	struct jpos at;
	int64_t end;
	int rc, i;

	memset(&e, 0, sizeof(e));
	e.device = dev;
	e.seq = seq;
	e.doc = d;
	at = jdoc_where(d, 0);
	e.line = at.line;
	e.col = at.col;
	if (d->node[0].type != JT_OBJECT)
		return msnap_fail(ms, e.line, e.col,
		    "trace entry is not an object");
	if (jdoc_get_str(d, 0, "action", &e.action_text, NULL) < 0)
		return msnap_fail(ms, e.line, e.col,
		    "trace entry has no \"action\" string");
	for (i = 0; i < MA_OTHER; i++)
		if (strcmp(e.action_text, maction_name[i]) == 0)
			break;
	e.action = (enum maction)i;
	/*
	 * An allocation or segment entry without its size or address
	 * cannot be replayed, but the rest of the trace can: skip it.
	 */
	if ((rc = doc_int(ms, d, 0, "size", &e.size, 0)) < 0)
		return -1;
	if (rc == 0 && e.action <= MA_SEGMENT_UNMAP) {
		msnap_warn(ms, e.line, e.col, "\"%s\" entry has no \"size\";"
		    " skipped", e.action_text);
		return 0;
	}
	if ((rc = doc_int(ms, d, 0, "addr", &e.addr, 0)) < 0)
		return -1;
	if (rc == 0 && e.action <= MA_SEGMENT_UNMAP) {
		msnap_warn(ms, e.line, e.col, "\"%s\" entry has no \"addr\";"
		    " skipped", e.action_text);
		return 0;
	}
	if (__builtin_add_overflow(e.addr, e.size, &end))
		return msnap_fail(ms, e.line, e.col,
		    "\"addr\" + \"size\" is beyond 64 bits");
	if ((rc = doc_int(ms, d, 0, "device_free", &e.device_free, 0)) < 0)
		return -1;
	if (rc == 0)
		e.device_free = -1;
	if (doc_int(ms, d, 0, "stream", &e.stream, 1) < 0)
		return -1;
	if ((rc = doc_int(ms, d, 0, "time_us", &e.time_us, 1)) < 0)
		return -1;
	if ((e.has_time = rc) != 0)
		see_era(ms, ERA_2_2);
	if (jdoc_get(d, 0, "compile_context") >= 0)
		see_era(ms, ERA_2_7);
	if (jdoc_get(d, 0, "user_metadata") >= 0)
		see_era(ms, ERA_2_11);
	e.frames = jdoc_get(d, 0, "frames");
	if (ops->trace != NULL)
		return ops->trace(arg, ms, &e);
	return 0;
}

static int
py_frame(const char *file)
{
	size_t n = strlen(file);

	return n > 3 && strcmp(file + n - 3, ".py") == 0;
}

/*
 * The autograd node a C++ frame runs, as "torch::autograd::[generated::]
 * NllLossBackward0::apply(...)" names it: its length, or 0.
 */
static size_t
autograd_node(const char *name, const char **node)
{
	static const char pfx[] = "torch::autograd::";
	const char *p, *e;

	if ((p = strstr(name, pfx)) == NULL)
		return 0;
	p += sizeof(pfx) - 1;
	if (strncmp(p, "generated::", 11) == 0)
		p += 11;
	for (e = p; *e == '_' || (*e >= '0' && *e <= '9') ||
	    (*e >= 'a' && *e <= 'z') || (*e >= 'A' && *e <= 'Z'); e++)
		;
	if (e == p || strncmp(e, "::apply(", 8) != 0)
		return 0;
	*node = p;
	return (size_t)(e - p);
}

const char *
msnap_site(struct msnap *ms, const struct jdoc *d, int frames)
{
	const char *file, *name, *pick_file = NULL, *pick_name = NULL;
	const char *node = NULL;
	int64_t line = 0, pick_line = 0;
	struct strent *ent;
	char buf[1024];
	uint32_t i;
	size_t nodelen = 0;
	int n, outside;

	if (frames < 0 || d->node[frames].type != JT_ARRAY)
		return NULL;
	for (i = (uint32_t)frames + 1; i < d->node[frames].next;
	    i = d->node[i].next) {
		if (d->node[i].type != JT_OBJECT)
			continue;
		if (jdoc_get_str(d, i, "name", &name, NULL) < 0)
			name = "?";
		if (jdoc_get_str(d, i, "filename", &file, NULL) < 0 ||
		    !py_frame(file)) {
			/* The innermost node is the one that allocated. */
			if (nodelen == 0)
				nodelen = autograd_node(name, &node);
			continue;
		}
		if (jdoc_get_i64(d, i, "line", &line) < 0)
			line = 0;
		outside = strstr(file, "/torch/") == NULL &&
		    strstr(file, "\\torch\\") == NULL;
		if (pick_file == NULL || outside) {
			pick_file = file;
			pick_name = name;
			pick_line = line;
		}
		if (outside)
			break;
	}
	/*
	 * Backward runs in autograd's C++ threads, whose stacks have no
	 * Python frame: the node is then the best name there is.
	 */
	if (pick_file != NULL)
		n = snprintf(buf, sizeof(buf), "%s@%s:%" PRId64, pick_name,
		    pick_file, pick_line);
	else if (nodelen > 0)
		n = snprintf(buf, sizeof(buf), "%.*s (autograd)", (int)nodelen,
		    node);
	else
		return NULL;
	if (n < 0)
		return NULL;
	if ((size_t)n >= sizeof(buf))
		n = sizeof(buf) - 1;
	ent = strmap_put(&ms->sites, buf, (size_t)n);
	return ent->key;
}

int
msnap_empty_cache(const struct jdoc *d, int frames)
{
	static const char pyfile[] = "/cuda/memory.py";
	const char *file, *name;
	size_t n;
	uint32_t i;

	if (frames < 0 || d->node[frames].type != JT_ARRAY)
		return 0;
	for (i = (uint32_t)frames + 1; i < d->node[frames].next;
	    i = d->node[i].next) {
		if (d->node[i].type != JT_OBJECT ||
		    jdoc_get_str(d, i, "name", &name, NULL) < 0)
			continue;
		if (strstr(name, "CachingAllocator") != NULL &&
		    strstr(name, "::emptyCache(") != NULL)
			return 1;
		if (strcmp(name, "empty_cache") != 0 ||
		    jdoc_get_str(d, i, "filename", &file, NULL) < 0)
			continue;
		n = strlen(file);
		if (n >= sizeof(pyfile) - 1 &&
		    strcmp(file + n - (sizeof(pyfile) - 1), pyfile) == 0)
			return 1;
	}
	return 0;
}

/*
 * tr-extract NDJSON: the first record's '{' and "kind" key have been read.
 * Only "memory" records and "ProfilerStep#N" events are kept.
 */
static int
read_records(struct msnap *ms)
{
	struct jtoken t;
	enum jtok k;

	if (read_record(ms) < 0)
		return -1;
	while ((k = jr_next(ms->r, &t)) == J_BEGIN_OBJECT) {
		if ((k = jr_next(ms->r, &t)) == J_ERROR)
			return reader_failed(ms);
		if (k == J_END_OBJECT || !key_is(&t, "kind"))
			return msnap_fail(ms, t.line, t.col,
			    "record has no \"kind\" first");
		if (read_record(ms) < 0)
			return -1;
	}
	if (k == J_ERROR)
		return reader_failed(ms);
	if (k != J_EOF)
		return msnap_fail(ms, t.line, t.col, "record is not an object");
	return 0;
}

enum { R_TS, R_DUR, R_BYTES, R_ALLOCATED, R_RESERVED, R_DTYPE, R_DID,
    R_NFIELDS };
static const char *const rec_field[R_NFIELDS] = {
	"ts", "dur", "bytes", "total_allocated", "total_reserved",
	"device_type", "device_id"
};

/* The rest of one record, after its "kind" key. */
static int
read_record(struct msnap *ms)
{
	struct jtoken t;
	enum jtok k;
	int64_t v[R_NFIELDS];
	int have[R_NFIELDS] = { 0 }, kind = 0, i;
	char name[128] = "";
	uint64_t line, col;

	memset(v, 0, sizeof(v));
	if ((k = jr_next(ms->r, &t)) == J_ERROR)
		return reader_failed(ms);
	line = t.line;
	col = t.col;
	if (k != J_STRING)
		return msnap_fail(ms, t.line, t.col,
		    "\"kind\" is not a string");
	if (key_is(&t, "trace"))
		return read_trace_record(ms);
	kind = key_is(&t, "memory") ? 1 : key_is(&t, "event") ? 2 : 0;
	while ((k = jr_next(ms->r, &t)) == J_KEY) {
		for (i = 0; i < R_NFIELDS; i++)
			if (key_is(&t, rec_field[i]))
				break;
		if (kind != 0 && i < R_NFIELDS) {
			if ((k = jr_next(ms->r, &t)) == J_ERROR)
				return reader_failed(ms);
			if ((k == J_BEGIN_OBJECT || k == J_BEGIN_ARRAY) &&
			    jr_skip(ms->r, 1) < 0)
				return reader_failed(ms);
			if (k != J_NUMBER)
				continue;
			if (i <= R_DUR ? jnum_us_to_ns(t.s, t.len, &v[i]) < 0 :
			    jnum_int64(t.s, t.len, &v[i]) < 0)
				return msnap_fail(ms, t.line, t.col,
				    "\"%s\" is out of range: %.*s",
				    rec_field[i], (int)t.len, t.s);
			have[i] = 1;
		} else if (kind == 2 && key_is(&t, "name")) {
			if ((k = jr_next(ms->r, &t)) == J_ERROR)
				return reader_failed(ms);
			if (k == J_STRING && t.len < sizeof(name)) {
				memcpy(name, t.s, t.len);
				name[t.len] = '\0';
			}
		} else if (jr_skip(ms->r, 0) < 0)
			return reader_failed(ms);
	}
	if (k == J_ERROR)
		return reader_failed(ms);
	if (kind == 1) {
		struct mrev *e;

		if (!have[R_TS] || !have[R_BYTES])
			return msnap_fail(ms, line, col, "\"memory\" record"
			    " has no \"%s\"", have[R_TS] ? "bytes" : "ts");
		if (ms->nev == ms->evcap) {
			ms->evcap = ms->evcap ? ms->evcap * 2 : 1024;
			ms->ev = xreallocarray(ms->ev, ms->evcap,
			    sizeof(*ms->ev));
		}
		if (e_bytes(ms, v[R_BYTES], line, col) < 0 ||
		    rec_time(ms, v[R_TS], 0, line, col) < 0)
			return -1;
		e = &ms->ev[ms->nev++];
		e->ts = v[R_TS];
		e->bytes = v[R_BYTES];
		e->allocated = have[R_ALLOCATED] ? v[R_ALLOCATED] : -1;
		e->reserved = have[R_RESERVED] ? v[R_RESERVED] : -1;
		e->dtype = have[R_DTYPE] ? (int32_t)v[R_DTYPE] : -1;
		e->did = have[R_DID] ? (int32_t)v[R_DID] : -1;
	} else if (kind == 2 && strncmp(name, "ProfilerStep#", 13) == 0 &&
	    have[R_TS] && have[R_DUR]) {
		if (rec_time(ms, v[R_TS], v[R_DUR], line, col) < 0)
			return -1;
		if (ms->nph == ms->phcap) {
			ms->phcap = ms->phcap ? ms->phcap * 2 : 16;
			ms->ph = xreallocarray(ms->ph, ms->phcap,
			    sizeof(*ms->ph));
		}
		ms->ph[ms->nph].name = xstrdup(name);
		ms->ph[ms->nph].start = v[R_TS];
		ms->ph[ms->nph].dur = v[R_DUR];
		ms->nph++;
	}
	return 0;
}

/*
 * Keeps the bytes of all memory records, added up as absolute values,
 * within int64: every per-device or per-step total of them then fits.
 */
static int
e_bytes(struct msnap *ms, int64_t bytes, uint64_t line, uint64_t col)
{
	if (bytes == INT64_MIN || __builtin_add_overflow(ms->rec_bytes,
	    bytes < 0 ? -bytes : bytes, &ms->rec_bytes))
		return msnap_fail(ms, line, col, "\"bytes\" of the memory"
		    " records add up beyond 64 bits");
	return 0;
}

/*
 * Keeps ts and ts + dur of all memory records and steps within a span
 * that int64 nanoseconds hold, so that every end and difference fits.
 */
static int
rec_time(struct msnap *ms, int64_t ts, int64_t dur, uint64_t line,
    uint64_t col)
{
	int64_t end, first, last, span;

	if (__builtin_add_overflow(ts, dur > 0 ? dur : 0, &end))
		return msnap_fail(ms, line, col, "\"ts\" + \"dur\" is"
		    " beyond 64-bit nanoseconds");
	first = ms->rec_timed && ms->rec_first < ts ? ms->rec_first : ts;
	last = ms->rec_timed && ms->rec_last > end ? ms->rec_last : end;
	if (__builtin_sub_overflow(last, first, &span))
		return msnap_fail(ms, line, col, "\"ts\" is too far from the"
		    " other records' times for 64-bit nanoseconds");
	ms->rec_first = first;
	ms->rec_last = last;
	ms->rec_timed = 1;
	return 0;
}

/*
 * The rest of a "trace" record, after its "kind" value: a trace whose
 * event array was cut off (tr-extract writes "complete":false) is passed on
 * as a warning about that trace, so that the report shows it.
 */
static int
read_trace_record(struct msnap *ms)
{
	struct jtoken t;
	enum jtok k;
	char *file = NULL;
	int cut = 0, rc = 0;

	while ((k = jr_next(ms->r, &t)) == J_KEY) {
		if (key_is(&t, "file") && file == NULL) {
			if ((k = jr_next(ms->r, &t)) == J_STRING)
				file = xmemdup(t.s, t.len);
		} else if (key_is(&t, "complete"))
			cut = (k = jr_next(ms->r, &t)) == J_FALSE;
		else {
			if (jr_skip(ms->r, 0) < 0)
				break;
			continue;
		}
		if ((k == J_BEGIN_OBJECT || k == J_BEGIN_ARRAY) &&
		    jr_skip(ms->r, 1) < 0)
			break;
		if (k == J_ERROR)
			break;
	}
	if (k == J_ERROR || jr_errkind(ms->r) != JE_NONE)
		rc = reader_failed(ms);
	else if (cut) {
		const char *msg = "the event array has no closing ']'; the"
		    " trace may be cut off";

		if (ms->nwarn++ < MS_MAXWARN) {
			warnmsg("%s: warning: %s", file != NULL ? file :
			    ms->name, msg);
			keep_warning(ms, file != NULL ? file : ms->name, 0, 0,
			    msg);
		}
	}
	free(file);
	return rc;
}

/* Totals over a run of memory records: a device, or one step on it. */
struct mtot {
	uint64_t	events, allocs, frees;
	int64_t		bytes_allocated, bytes_freed;
	int64_t		first, last;		/* ts, ns */
	int64_t		peak, peak_at, reserved_at_peak, peak_reserved;
	int64_t		allocated_end, reserved_end;
};

static void
tot_add(struct mtot *m, const struct mrev *e)
{
	if (m->events++ == 0) {
		m->first = m->last = e->ts;
		m->peak = m->peak_reserved = -1;
	}
	if (e->ts < m->first)
		m->first = e->ts;
	if (e->ts > m->last)
		m->last = e->ts;
	if (e->bytes > 0) {
		m->allocs++;
		m->bytes_allocated += e->bytes;
	} else if (e->bytes < 0) {
		m->frees++;
		m->bytes_freed -= e->bytes;
	}
	if (e->allocated > m->peak) {
		m->peak = e->allocated;
		m->peak_at = e->ts;
		m->reserved_at_peak = e->reserved;
	}
	if (e->reserved > m->peak_reserved)
		m->peak_reserved = e->reserved;
	m->allocated_end = e->allocated;
	m->reserved_end = e->reserved;
}

/* A byte count the record may not know, -1 then. */
static void
put_known(struct jw *w, const char *key, int64_t v)
{
	jw_ckey(w, key);
	jw_int_or_null(w, v >= 0, v);
}

/* The members every memory_profile and memory_phase record shares. */
static void
tot_put(struct jw *w, const struct mtot *m, int64_t span)
{
	jw_key(w, "events");
	jw_uint(w, m->events);
	jw_key(w, "allocs");
	jw_uint(w, m->allocs);
	jw_key(w, "frees");
	jw_uint(w, m->frees);
	jw_key(w, "bytes_allocated");
	jw_int(w, m->bytes_allocated);
	jw_key(w, "bytes_freed");
	jw_int(w, m->bytes_freed);
	/* span is in nanoseconds. */
	jw_key(w, "allocs_per_s");
	jw_ratio(w, (double)m->allocs * 1e9, span);
	jw_key(w, "bytes_allocated_per_s");
	jw_ratio(w, (double)m->bytes_allocated * 1e9, span);
	put_known(w, "peak_allocated", m->events ? m->peak : -1);
	jw_key(w, "peak_at");
	if (m->events && m->peak >= 0)
		jw_us(w, m->peak_at);
	else
		jw_null(w);
	put_known(w, "reserved_at_peak", m->events && m->peak >= 0 ?
	    m->reserved_at_peak : -1);
	put_known(w, "peak_reserved", m->events ? m->peak_reserved : -1);
	put_known(w, "allocated_end", m->events ? m->allocated_end : -1);
	put_known(w, "reserved_end", m->events ? m->reserved_end : -1);
}

static int
ev_cmp(const void *a, const void *b)
{
	const struct mrev *x = *(const struct mrev *const *)a;
	const struct mrev *y = *(const struct mrev *const *)b;

	if (x->dtype != y->dtype)
		return x->dtype < y->dtype ? -1 : 1;
	if (x->did != y->did)
		return x->did < y->did ? -1 : 1;
	/* File order within a device: the array is in file order. */
	return x < y ? -1 : x > y;
}

/* The memory records, device by device, each device's in file order. */
static const struct mrev **
by_device(const struct msnap *ms)
{
	const struct mrev **ix;
	size_t i;

	ix = xreallocarray(NULL, ms->nev, sizeof(*ix));
	for (i = 0; i < ms->nev; i++)
		ix[i] = &ms->ev[i];
	xqsort(ix, ms->nev, sizeof(*ix), ev_cmp);
	return ix;
}

static int
ph_name_cmp(const void *a, const void *b)
{
	const struct mphase *x = a, *y = b;
	int c;

	if ((c = strcmp(x->name, y->name)) != 0)
		return c;
	return x->start < y->start ? -1 : x->start > y->start;
}

static int
ph_cmp(const void *a, const void *b)
{
	const struct mphase *x = a, *y = b;

	if (x->start != y->start)
		return x->start < y->start ? -1 : 1;
	return strcmp(x->name, y->name);
}

/*
 * One window per step name: Kineto writes ProfilerStep#N both as a CPU
 * slice and as a GPU user annotation, which overlap.
 */
static void
ph_merge(struct msnap *ms)
{
	size_t i, n = 0;
	int64_t end;

	if (ms->nph == 0)
		return;
	xqsort(ms->ph, ms->nph, sizeof(*ms->ph), ph_name_cmp);
	for (i = 0; i < ms->nph; i++) {
		if (n > 0 && strcmp(ms->ph[n - 1].name, ms->ph[i].name) == 0) {
			end = ms->ph[i].start + ms->ph[i].dur;
			if (end > ms->ph[n - 1].start + ms->ph[n - 1].dur)
				ms->ph[n - 1].dur = end - ms->ph[n - 1].start;
			free(ms->ph[i].name);
			continue;
		}
		ms->ph[n++] = ms->ph[i];
	}
	ms->nph = n;
	xqsort(ms->ph, ms->nph, sizeof(*ms->ph), ph_cmp);
}

/* The step containing ts, or -1; steps are sorted by start. */
static long
ph_find(const struct mphase *ph, size_t n, int64_t ts)
{
	size_t lo = 0, hi = n;

	while (lo < hi) {
		size_t mid = lo + (hi - lo) / 2;

		if (ph[mid].start <= ts)
			lo = mid + 1;
		else
			hi = mid;
	}
	/* The last step that starts at or before ts; merged steps may still
	 * overlap a later one, which then wins. */
	if (lo == 0 || ts >= ph[lo - 1].start + ph[lo - 1].dur)
		return -1;
	return (long)lo - 1;
}

static void
put_device(struct jw *w, const char *file, const struct mrev *e)
{
	jw_key(w, "file");
	jw_cstring(w, file);
	jw_key(w, "device_type");
	jw_int(w, e->dtype);
	jw_key(w, "device_id");
	jw_int(w, e->did);
}

void
memrec_write(struct msnap *ms, struct jw *w)
{
	const struct mrev **ix;
	struct mtot dev, *steps;
	size_t i, j, g;
	long p;

	if (ms->nev == 0)
		return;
	ix = by_device(ms);
	ph_merge(ms);
	steps = xcalloc(ms->nph + 1, sizeof(*steps));
	for (g = 0; g < ms->nev; g = j) {
		memset(&dev, 0, sizeof(dev));
		memset(steps, 0, (ms->nph + 1) * sizeof(*steps));
		for (j = g; j < ms->nev && ix[j]->dtype == ix[g]->dtype &&
		    ix[j]->did == ix[g]->did; j++) {
			tot_add(&dev, ix[j]);
			if ((p = ph_find(ms->ph, ms->nph, ix[j]->ts)) >= 0)
				tot_add(&steps[p], ix[j]);
		}
		jw_record(w, "memory_profile");
		put_device(w, ms->name, ix[g]);
		jw_key(w, "start");
		jw_us(w, dev.first);
		jw_key(w, "window");
		jw_us(w, dev.last - dev.first);
		tot_put(w, &dev, dev.last - dev.first);
		jw_key(w, "steps");
		jw_uint(w, ms->nph);
		jw_end(w);
		for (i = 0; i < ms->nph; i++) {
			jw_record(w, "memory_phase");
			put_device(w, ms->name, ix[g]);
			jw_key(w, "phase");
			jw_cstring(w, ms->ph[i].name);
			jw_key(w, "start");
			jw_us(w, ms->ph[i].start);
			jw_key(w, "dur");
			jw_us(w, ms->ph[i].dur);
			tot_put(w, &steps[i], ms->ph[i].dur);
			jw_end(w);
		}
	}
	free(steps);
	free(ix);
}

void
memrec_timeline(struct msnap *ms, struct jw *w)
{
	const struct mrev **ix;
	struct memtl tl;
	size_t j, g;

	if (ms->nev == 0)
		return;
	ix = by_device(ms);
	for (g = 0; g < ms->nev; g = j) {
		memset(&tl, 0, sizeof(tl));
		for (j = g; j < ms->nev && ix[j]->dtype == ix[g]->dtype &&
		    ix[j]->did == ix[g]->did; j++)
			mtl_push(&tl, ix[j]->ts, (int64_t)(j - g),
			    ix[j]->allocated >= 0 ? ix[j]->allocated :
			    MTL_UNKNOWN, ix[j]->reserved >= 0 ?
			    ix[j]->reserved : MTL_UNKNOWN, NULL);
		jw_record(w, "memory_timeline");
		jw_key(w, "source");
		jw_cstring(w, "trace");
		put_device(w, ms->name, ix[g]);
		/* The allocator's own totals: nothing was live unseen. */
		mtl_put(w, &tl, 0, 0, 0);
		jw_end(w);
		mtl_free(&tl);
	}
	free(ix);
}
