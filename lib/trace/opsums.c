/*
 * opsums: one sum at a time.  Per name (count, total, self, min, max, GPU
 * self and total), per thread (those past a rank's share summed as one),
 * per device, per runtime call and its callers, and each name's value of
 * the ranking key (opsums.h).
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "base/xalloc.h"
#include "trace/opbase.h"
#include "trace/opfield.h"
#include "trace/opsums.h"

static int64_t	thsum_busy(const struct thsum *);

void
op_stat_add(struct stat *s, int64_t total, int64_t self)
{
	if (s->count == 0 || total < s->min)
		s->min = total;
	if (s->count == 0 || total > s->max)
		s->max = total;
	s->count++;
	s->total = op_sat_add(s->total, total);
	s->self = op_sat_add(s->self, self);
}

/*
 * Makes room for names below n.  The room grows by doubling, as a merge
 * fits a rank to each new name it reads; nst stays exact, for the loops
 * over names.
 */
void
op_agg_fit(struct agg *a, size_t n)
{
	size_t cap;

	if (n <= a->nst)
		return;
	if (n > a->capst) {
		cap = a->capst * 2 > n ? a->capst * 2 : n;
		a->st = xreallocarray(a->st, cap, sizeof(*a->st));
		memset(a->st + a->capst, 0, (cap - a->capst) *
		    sizeof(*a->st));
		a->pst = xreallocarray(a->pst, cap, sizeof(*a->pst));
		memset(a->pst + a->capst, 0, (cap - a->capst) *
		    sizeof(*a->pst));
		a->capst = cap;
	}
	a->nst = n;
}

/*
 * A rank's sum for a thread; the key is what tells threads apart, here and
 * in a merge of partials.  Of the names a thread had in the windows of its
 * rank, the one that sorts first stays, whatever order they come in.  A
 * new thread beyond the first max gets the sum of the threads that did not
 * fit, FOLD_THREADS; the caller adds it in with op_thsum_fold().
 */
struct thsum *
op_thsum_get(struct agg *a, const struct jid *pid, const struct jid *tid,
    const char *name, size_t max)
{
	static const struct jid none = { NULL, 0 };
	struct thsum *ts;
	struct strent *e;
	char key[512];
	int len;

	len = snprintf(key, sizeof(key), "%c%s\n%c%s",
	    pid->text == NULL ? '-' : pid->str ? 's' : 'n',
	    pid->text ? pid->text : "",
	    tid->text == NULL ? '-' : tid->str ? 's' : 'n',
	    tid->text ? tid->text : "");
	if (len < 0 || (size_t)len >= sizeof(key))
		len = (int)sizeof(key) - 1;
	if (a->threads.count >= max && (pid->text != NULL ||
	    tid->text != NULL) && strmap_get(&a->threads, key,
	    (size_t)len) == NULL)
		return op_thsum_get(a, &none, &none, FOLD_THREADS, SIZE_MAX);
	e = strmap_put(&a->threads, key, (size_t)len);
	if ((ts = e->val) == NULL) {
		ts = e->val = xcalloc(1, sizeof(*ts));
		op_jid_copy(&ts->pid, pid);
		op_jid_copy(&ts->tid, tid);
	}
	if (name != NULL && (ts->name == NULL || strcmp(name, ts->name) < 0)) {
		free(ts->name);
		ts->name = xstrdup(name);
	}
	return ts;
}

/*
 * Adds thread sums src to dst: a thread's windows, or threads that did
 * not fit (src one thread, or such a sum itself) when dst is FOLD_THREADS.
 */
void
op_thsum_fold(struct thsum *dst, const struct thsum *src)
{
	int64_t top = src->threads > 0 ? src->top : src->busy;

	dst->count = op_sat_add(dst->count, src->count);
	dst->busy = op_sat_add(dst->busy, src->busy);
	if (dst->pid.text != NULL || dst->tid.text != NULL)
		return;
	dst->threads = op_sat_add(dst->threads, src->threads > 0 ?
	    src->threads : 1);
	if (top > dst->top)
		dst->top = top;
}

/* Adds busy time of thread t, which all holds, to rank a's own. */
void
op_rankthr_add(struct agg *a, const struct thsum *t, int64_t busy)
{
	size_t i;

	for (i = 0; i < a->nrthr && a->rthr[i].t != t; i++)
		;
	if (i == a->nrthr) {
		if (a->nrthr == a->caprthr) {
			a->caprthr = a->caprthr ? 2 * a->caprthr : 2;
			a->rthr = xreallocarray(a->rthr, a->caprthr,
			    sizeof(*a->rthr));
		}
		a->rthr[a->nrthr++] = (struct rankthr){ t, 0 };
	}
	a->rthr[i].busy = op_sat_add(a->rthr[i].busy, busy);
}

/* A thread's busy time; of threads that did not fit, the busiest's. */
static int64_t
thsum_busy(const struct thsum *t)
{
	return t->threads > 0 ? t->top : t->busy;
}

/* The busy time of the rank's busiest thread, or -1 without threads. */
int64_t
op_rank_busy(const struct agg *a)
{
	struct strent **ent = strmap_sorted(&a->threads);
	int64_t busy = -1;
	size_t i;

	for (i = 0; i < a->threads.count; i++)
		if (thsum_busy(ent[i]->val) > busy)
			busy = thsum_busy(ent[i]->val);
	free(ent);
	for (i = 0; i < a->nrthr; i++)
		if (a->rthr[i].busy > busy)
			busy = a->rthr[i].busy;
	return busy;
}

struct devsum *
op_devsum_get(struct agg *a, const struct jid *dev)
{
	struct devsum *ds;
	struct strent *e;

	e = strmap_put(&a->devs, dev->text ? dev->text : "",
	    dev->text ? strlen(dev->text) : 0);
	if ((ds = e->val) == NULL) {
		ds = e->val = xcalloc(1, sizeof(*ds));
		op_jid_copy(&ds->dev, dev);
	}
	return ds;
}

void
op_devsum_add(struct devsum *dd, const struct devsum *ds)
{
	opf_merge(&op_devsum_fields, dd, ds);
}

/* Adds calls to the sums of entry e, made on its first calls. */
void
op_rtsum_fold(struct strent *e, const struct rtsum *add)
{
	struct rtsum *rs;

	if ((rs = e->val) == NULL)
		rs = e->val = xcalloc(1, sizeof(*rs));
	opf_merge(&op_rtsum_fields, rs, add);
}

/* Adds a runtime API's calls to the rank's, by name. */
void
op_rtsum_add(struct agg *a, const char *name, size_t len,
    const struct rtsum *add)
{
	struct strent *e;

	if ((e = strmap_get(&a->rtcalls, name, len)) == NULL) {
		if (a->rtcalls.count >= MAXRTNAMES) {
			name = RT_OTHER;
			len = strlen(RT_OTHER);
		}
		e = strmap_put(&a->rtcalls, name, len);
	}
	op_rtsum_fold(e, add);
}

/*
 * The key of what called a slice's runtime calls: the slice, the caller's
 * class and name, NUL-separated; "" for both where no operator was open.
 */
void
op_caller_key(struct strbuf *key, const char *slice, const char *cls,
    const char *name)
{
	sb_truncate(key, 0);
	sb_put(key, slice, strlen(slice) + 1);
	sb_put(key, cls, strlen(cls) + 1);
	sb_puts(key, name);
}

/* Adds calls to a caller's; callers are operators, bounded as names are. */
void
op_caller_add(struct agg *a, const char *key, size_t len,
    const struct rtsum *add)
{
	op_rtsum_fold(strmap_put(&a->callers, key, len), add);
}

/* The parts of a caller key: its slice, class and name ("" for none). */
void
op_caller_split(const struct strent *e, const char **slice,
    const char **cls, const char **name, size_t *namelen)
{
	*slice = e->key;
	*cls = *slice + strlen(*slice) + 1;
	*name = *cls + strlen(*cls) + 1;
	*namelen = e->len - (size_t)(*name - e->key);
}

/* Output. */

double
op_keyval(const struct stat *s, enum key k)
{
	switch (k) {
	case K_SELF:
		return (double)s->self;
	case K_COUNT:
		return (double)s->count;
	case K_MEAN:
		return s->count > 0 ? (double)s->total / (double)s->count : 0;
	case K_MAX:
		return (double)s->max;
	case K_GPU:
		return (double)s->gpu_total;
	case K_TOTAL:
		break;
	}
	return (double)s->total;
}
