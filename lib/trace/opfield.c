#include <stddef.h>
#include <stdint.h>

#include "io/ndjson.h"
#include "trace/opcore.h"
#include "trace/opcompile.h"
#include "trace/opfield.h"
#include "trace/opgraph.h"
#include "trace/opstep.h"
#include "trace/opsums.h"

#define F(type, member, key, range, merge, unit, part) \
	{ key, offsetof(type, member), range, merge, unit, part, 0, 0 }
#define OPTIONAL(type, member, key, range, merge, unit, part) \
	{ key, offsetof(type, member), range, merge, unit, part, 1, 0 }
#define D(type, member, less, key) \
	{ key, offsetof(type, member), P_ANY, OPF_APART, OPF_US, \
	    OPF_DERIVED, 0, offsetof(type, less) }
#define TABLE(name, v) \
	const struct opfields name = { v, sizeof(v) / sizeof(v[0]), \
	    OPF_NOCOUNT }
#define COUNTED(name, v, type, count) \
	const struct opfields name = { v, sizeof(v) / sizeof(v[0]), \
	    offsetof(type, count) }

/* CPU times in whole µs as key_averages() has them, GPU times in ns. */
static const struct opfield stat[] = {
	F(struct stat, count, "count", P_SIZE, OPF_SUM, OPF_INT, 0),
	F(struct stat, total, "total", P_SIZE, OPF_SUM, OPF_INT, 1),
	F(struct stat, self, "self", P_TIME, OPF_SUM, OPF_INT, 2),
	F(struct stat, min, "min", P_SIZE, OPF_MIN, OPF_INT, 3),
	F(struct stat, max, "max", P_SIZE, OPF_MAX, OPF_INT, 4),
	F(struct stat, gpu_self, "gpu_self", P_SIZE, OPF_SUM, OPF_US, 5),
	F(struct stat, gpu_total, "gpu_total", P_SIZE, OPF_SUM, OPF_US, 6),
	OPTIONAL(struct stat, bytes, "bytes", P_SIZE, OPF_SUM, OPF_INT, 7)
};
COUNTED(op_stat_fields, stat, struct stat, count);

/* A rank's torch.compile guards and regions (struct compsum). */
static const struct opfield compsum[] = {
	F(struct compsum, guard_calls, "guard_calls", P_SIZE, OPF_SUM, OPF_INT,
	    0),
	F(struct compsum, guard_time, "guard_time", P_SIZE, OPF_SUM, OPF_US, 1),
	F(struct compsum, region_calls, "region_calls", P_SIZE, OPF_SUM,
	    OPF_INT, 2),
	F(struct compsum, region_time, "region_time", P_SIZE, OPF_SUM, OPF_US,
	    3),
	F(struct compsum, nested, "nested", P_SIZE, OPF_SUM, OPF_INT, 4),
	F(struct compsum, splits, "splits", P_SIZE, OPF_SUM, OPF_INT, 5)
};
TABLE(op_compsum_fields, compsum);

/* A rank's graph launches (struct graphsum). */
static const struct opfield graphsum[] = {
	F(struct graphsum, launches, "launches", P_SIZE, OPF_SUM, OPF_INT, 0),
	F(struct graphsum, ran, "launches_with_kernels", P_SIZE, OPF_SUM,
	    OPF_INT, 1),
	F(struct graphsum, kernels, "kernels", P_SIZE, OPF_SUM, OPF_INT, 2),
	F(struct graphsum, kernel_time, "kernel_time", P_SIZE, OPF_SUM,
	    OPF_US, 3),
	F(struct graphsum, delay, "delay", P_SIZE, OPF_SUM, OPF_US, 4),
	F(struct graphsum, delay_max, "delay_max", P_SIZE, OPF_MAX, OPF_US,
	    5),
	F(struct graphsum, host, "host", P_SIZE, OPF_SUM, OPF_US, 6),
	F(struct graphsum, host_max, "host_max", P_SIZE, OPF_MAX, OPF_US, 7)
};
TABLE(op_graphsum_fields, graphsum);

static const struct opfield devsum[] = {
	F(struct devsum, events, "events", P_SIZE, OPF_SUM, OPF_INT, 0),
	F(struct devsum, window, "window", P_SIZE, OPF_SUM, OPF_US, 1),
	F(struct devsum, busy, "busy", P_SIZE, OPF_SUM, OPF_US, 2),
	D(struct devsum, window, busy, "idle"),
	F(struct devsum, comp, "computation", P_SIZE, OPF_SUM, OPF_US, 3),
	F(struct devsum, xcomm, "exposed_comm", P_SIZE, OPF_SUM, OPF_US, 6),
	F(struct devsum, xmemcpy, "exposed_memcpy", P_SIZE, OPF_SUM, OPF_US,
	    7),
	F(struct devsum, comm, "comm", P_SIZE, OPF_SUM, OPF_US, 4),
	F(struct devsum, memcpy, "memcpy", P_SIZE, OPF_SUM, OPF_US, 5)
};
TABLE(op_devsum_fields, devsum);

static const struct opfield rtsum[] = {
	F(struct rtsum, count, "count", P_SIZE, OPF_SUM, OPF_INT, 0),
	F(struct rtsum, total, "total", P_SIZE, OPF_SUM, OPF_US, 1),
	F(struct rtsum, max, "max", P_SIZE, OPF_MAX, OPF_US, 2)
};
TABLE(op_rtsum_fields, rtsum);

/* The threads that did not fit are op_thsum_fold()'s to count. */
static const struct opfield thsum[] = {
	F(struct thsum, count, "count", P_SIZE, OPF_SUM, OPF_INT, 0),
	F(struct thsum, busy, "busy", P_SIZE, OPF_SUM, OPF_INT, 1)
};
TABLE(op_thsum_fields, thsum);

static const struct opfield step[] = {
	F(struct step, num, "step", P_ANY, OPF_APART, OPF_INT, 0),
	F(struct step, ts, "ts", P_TIME, OPF_APART, OPF_US, 1),
	F(struct step, cpu_end, "cpu_end", P_TIME, OPF_APART, OPF_US, 2),
	F(struct step, end, "end", P_TIME, OPF_APART, OPF_US, 3)
};
TABLE(op_step_fields, step);

static int64_t
value(const struct opfield *f, const void *rec)
{
	const char *p = rec;
	int64_t v = *(const int64_t *)(p + f->off);

	return f->part == OPF_DERIVED ? v - *(const int64_t *)(p + f->less) :
	    v;
}

void
opf_put_final(struct jw *w, const struct opfields *t, const void *rec)
{
	size_t i;

	for (i = 0; i < t->n; i++) {
		jw_ckey(w, t->v[i].key);
		if (t->v[i].unit == OPF_US)
			jw_us(w, value(&t->v[i], rec));
		else
			jw_int(w, value(&t->v[i], rec));
	}
}

/*
 * The field at place in a partial, or NULL past the last; a table is
 * short, so each is looked up by a pass over it.
 */
static const struct opfield *
at(const struct opfields *t, size_t place)
{
	size_t i;

	for (i = 0; i < t->n; i++)
		if (t->v[i].part == (int)place)
			return &t->v[i];
	return NULL;
}

void
opf_put(struct jw *w, const struct opfields *t, const void *rec)
{
	const struct opfield *f;
	size_t place;

	for (place = 0; (f = at(t, place)) != NULL; place++) {
		if (f->optional && value(f, rec) == 0)
			continue;
		jw_ckey(w, f->key);
		jw_int(w, value(f, rec));
	}
}

int
opf_get(struct oprank *r, uint32_t obj, const struct opfields *t, void *rec)
{
	const struct opfield *f;
	char *p = rec;
	int64_t *v;
	size_t place;

	for (place = 0; (f = at(t, place)) != NULL; place++) {
		v = (int64_t *)(p + f->off);
		*v = 0;
		if (f->optional && jdoc_get(r->doc, obj, f->key) < 0)
			continue;
		if (op_get_num(r, obj, f->key, f->range, v) < 0)
			return -1;
	}
	return 0;
}

/* Merges src into dst, field by field, as the tables say. */
void
opf_merge(const struct opfields *t, void *dst, const void *src)
{
	const char *s = src;
	char *d = dst;
	int64_t *to, from;
	size_t i;
	int empty = 0;

	if (t->count != OPF_NOCOUNT) {
		if (*(const int64_t *)(s + t->count) == 0)
			return;
		empty = *(const int64_t *)(d + t->count) == 0;
	}
	for (i = 0; i < t->n; i++) {
		to = (int64_t *)(d + t->v[i].off);
		from = *(const int64_t *)(s + t->v[i].off);
		switch (t->v[i].merge) {
		case OPF_SUM:
			*to = op_sat_add(*to, from);
			break;
		case OPF_MIN:
			if (empty || from < *to)
				*to = from;
			break;
		case OPF_MAX:
			if (empty || from > *to)
				*to = from;
			break;
		case OPF_APART:
			break;
		}
	}
}

/* The node of the record's member key for messages, or the record's. */
uint32_t
op_member(const struct jdoc *d, const char *key)
{
	int i = jdoc_get(d, 0, key);

	return i >= 0 ? (uint32_t)i : 0;
}

/*
 * Member key of the record as an integer, which it must have, in the
 * range that what it is may hold (op_in_range()).
 */
int
op_get_num(struct oprank *r, uint32_t obj, const char *key, int range,
    int64_t *v)
{
	const struct jdoc *d = r->doc;
	int i;

	i = jdoc_get(d, obj, key);
	if (jdoc_get_i64(d, obj, key, v) < 0)
		return jdoc_error(r->file, d, i >= 0 ? (uint32_t)i : obj,
		    "\"%s\" record %s \"%s\" as an integer", ndin_kind(d),
		    i >= 0 ? "does not have" : "lacks", key);
	if (!op_in_range(*v, range))
		return jdoc_error(r->file, d, (uint32_t)i, "\"%s\" record's"
		    " \"%s\" is out of range: %s", ndin_kind(d), key,
		    jdoc_str(d, (uint32_t)i));
	return 0;
}

void
op_put_nums(struct jw *w, const char *key, const int64_t *v, size_t n)
{
	size_t i;

	jw_ckey(w, key);
	jw_begin_array(w);
	for (i = 0; i < n; i++)
		jw_int(w, v[i]);
	jw_end_array(w);
}

/* An array member of n integers in range. */
int
op_get_nums(struct oprank *r, const char *key, int range, int64_t *v,
    size_t n)
{
	const struct jdoc *d = r->doc;
	uint32_t c;
	size_t m = 0;
	int i;

	if ((i = jdoc_get(d, 0, key)) < 0 || d->node[i].type != JT_ARRAY)
		return jdoc_error(r->file, d, op_member(d, key),
		    "\"%s\" record lacks the array \"%s\"", ndin_kind(d), key);
	if (d->node[i].len != n)
		return jdoc_error(r->file, d, (uint32_t)i, "\"%s\" does not"
		    " hold %zu integers", key, n);
	for (c = (uint32_t)i + 1; m < n; c = d->node[c].next, m++) {
		if (d->node[c].type != JT_NUMBER ||
		    jnum_int64(jdoc_str(d, c), d->node[c].len, &v[m]) < 0)
			return jdoc_error(r->file, d, c, "\"%s\" holds a"
			    " non-integer", key);
		if (!op_in_range(v[m], range))
			return jdoc_error(r->file, d, c, "\"%s\" record's"
			    " \"%s\" holds a value out of range: %s",
			    ndin_kind(d), key, jdoc_str(d, c));
	}
	return 0;
}
