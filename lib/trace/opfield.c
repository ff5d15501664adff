#include <stddef.h>
#include <stdint.h>

#include "io/ndjson.h"
#include "trace/opcore.h"
#include "trace/opfield.h"
#include "trace/opstep.h"
#include "trace/opsums.h"

#define F(type, member, key, range, merge) \
	{ key, offsetof(type, member), range, merge }
#define TABLE(name, v) \
	const struct opfields name = { v, sizeof(v) / sizeof(v[0]) }

static const struct opfield devsum[] = {
	F(struct devsum, events, "events", P_SIZE, OPF_SUM),
	F(struct devsum, window, "window", P_SIZE, OPF_SUM),
	F(struct devsum, busy, "busy", P_SIZE, OPF_SUM),
	F(struct devsum, comp, "computation", P_SIZE, OPF_SUM),
	F(struct devsum, comm, "comm", P_SIZE, OPF_SUM),
	F(struct devsum, memcpy, "memcpy", P_SIZE, OPF_SUM),
	F(struct devsum, xcomm, "exposed_comm", P_SIZE, OPF_SUM),
	F(struct devsum, xmemcpy, "exposed_memcpy", P_SIZE, OPF_SUM)
};
TABLE(op_devsum_fields, devsum);

static const struct opfield rtsum[] = {
	F(struct rtsum, count, "count", P_SIZE, OPF_SUM),
	F(struct rtsum, total, "total", P_SIZE, OPF_SUM),
	F(struct rtsum, max, "max", P_SIZE, OPF_MAX)
};
TABLE(op_rtsum_fields, rtsum);

/* The threads that did not fit are op_thsum_fold()'s to count. */
static const struct opfield thsum[] = {
	F(struct thsum, count, "count", P_SIZE, OPF_SUM),
	F(struct thsum, busy, "busy", P_SIZE, OPF_SUM)
};
TABLE(op_thsum_fields, thsum);

static const struct opfield step[] = {
	F(struct step, num, "step", P_ANY, OPF_APART),
	F(struct step, ts, "ts", P_TIME, OPF_APART),
	F(struct step, cpu_end, "cpu_end", P_TIME, OPF_APART),
	F(struct step, end, "end", P_TIME, OPF_APART)
};
TABLE(op_step_fields, step);

void
opf_put(struct jw *w, const struct opfields *t, const void *rec)
{
	const char *p = rec;
	size_t i;

	for (i = 0; i < t->n; i++) {
		jw_ckey(w, t->v[i].key);
		jw_int(w, *(const int64_t *)(p + t->v[i].off));
	}
}

int
opf_get(struct oprank *r, const struct opfields *t, void *rec)
{
	char *p = rec;
	size_t i;

	for (i = 0; i < t->n; i++)
		if (op_get_num(r, 0, t->v[i].key, t->v[i].range,
		    (int64_t *)(p + t->v[i].off)) < 0)
			return -1;
	return 0;
}

void
opf_merge(const struct opfields *t, void *dst, const void *src)
{
	const char *s = src;
	char *d = dst;
	int64_t *to, from;
	size_t i;

	for (i = 0; i < t->n; i++) {
		to = (int64_t *)(d + t->v[i].off);
		from = *(const int64_t *)(s + t->v[i].off);
		switch (t->v[i].merge) {
		case OPF_SUM:
			*to = op_sat_add(*to, from);
			break;
		case OPF_MAX:
			if (from > *to)
				*to = from;
			break;
		case OPF_APART:
			break;
		}
	}
}
