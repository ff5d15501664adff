/*
 * oprank: the entry points of the operator aggregator (oprank.h): the
 * options read, the tables loaded and digested, the merge driven in one
 * pass or two, and everything freed.  opcore.h says which file owns the
 * rest.
 */
#include <limits.h>
#include <stdlib.h>
#include <string.h>

#include "base/err.h"
#include "base/xalloc.h"
#include "trace/opcore.h"
#include "trace/opdevice.h"
#include "trace/opfield.h"
#include "trace/opledger.h"
#include "trace/opnames.h"
#include "trace/opout.h"
#include "trace/opserve.h"
#include "trace/opshape.h"
#include "trace/opsums.h"
#include "trace/servelabel.h"

#define MEMORY		(16 << 20)	/* bytes of events held, by default */
#define MINSHARE	(16 << 20)	/* names' or threads' least share */

int
oprank_key(const char *s)
{
	size_t i;

	for (i = 0; i < NKEY; i++)
		if (strcmp(s, op_keyname[i]) == 0)
			return (int)i;
	return -1;
}

int
oprank_phase(const char *s)
{
	int i;

	/* "other" is what no operator marks: not a focus. */
	for (i = 0; i < PH_OTHER; i++)
		if (strcmp(s, op_phasename[i]) == 0)
			return i;
	return -1;
}

struct oprank *
oprank_new(const struct oprank_opts *o)
{
	struct oprank *r;
	char *table, *prec, *peaks, *arch, *frames, *serve;
	size_t share;

	r = xcalloc(1, sizeof(*r));
	r->key = o->key >= 0 ? (enum key)o->key : K_TOTAL;
	r->phase = o->phase >= 0 ? o->phase : PH_NONE;
	r->limit = o->limit;
	r->every = o->every;
	r->pool.budget = spool_budget("MRP_OP_RANK_MEMORY", MEMORY);
	/* Names and threads each: a quarter, but a real trace's whole. */
	share = r->pool.budget / 4 > MINSHARE ? r->pool.budget / 4 : MINSHARE;
	r->names.budget = share;
	r->maxthr = share / THREAD_COST;
	r->maxshape = share / SHAPE_COST;
	r->maxblame = share / BLAME_COST;
	r->gpu = o->gpu;
	op_trace_init(&r->t, &r->pool);
	r->t.a.maxblame = r->maxblame;

	table = o->table != NULL ? xstrdup(o->table) :
	    op_find_table(TABLE_NAME);
	op_load_table(&r->tab, table, "other");
	op_digest_file(table, r->famsum);
	free(table);
	prec = op_find_table(PREC_NAME);
	op_load_table(&r->prec, prec, "unknown");
	op_digest_file(prec, r->precsum);
	r->names.tab = &r->tab;
	r->names.prec = &r->prec;
	r->names.famcomm = op_family_index(&r->tab, "communication");
	r->names.fammemcpy = op_family_index(&r->tab, "memcpy");
	r->names.famgemm = op_family_index(&r->tab, "gemm");
	r->names.famconv = op_family_index(&r->tab, "conv");
	r->names.famattn = op_family_index(&r->tab, "attention");
	r->names.fammemset = op_family_index(&r->tab, "memset");
	r->names.famrt = op_family_index(&r->tab, "runtime");
	op_check_prec(&r->names, &r->prec, prec);
	free(prec);
	frames = op_find_table(FRAMES_NAME);
	op_load_table(&r->frames, frames, "user");
	free(frames);
	r->names.frames = &r->frames;
	r->names.famlib = op_family_index(&r->frames, "library");
	r->names.famprof = op_family_index(&r->frames, "profiler");
	peaks = op_find_table(PEAKS_NAME);
	op_load_peaks(r, peaks);
	free(peaks);
	arch = op_find_table(ARCH_NAME);
	op_load_arch(r, arch);
	free(arch);
	serve = op_find_table(SERVE_NAME);
	r->serve = servetab_load(serve);
	free(serve);
	r->kvw = r->key == K_TOTAL || r->key == K_MEAN ? 1 : 2;
	return r;
}

int
oprank_merge(struct oprank *r, int n, char *paths[], int partial)
{
	int i, rc = 0, status = 0;

	r->light = !partial && !r->every && op_reread(n, paths);
	/*
	 * A partial's names and threads fit already; folding again would
	 * keep others than its one pass did.
	 */
	r->names.budget = r->maxthr = r->maxshape = r->maxblame = SIZE_MAX;
	if (n == 0)
		rc = op_merge_file(r, NULL);
	for (i = 0; i < n && rc >= 0; i++) {
		rc = op_merge_file(r, paths[i]);
		if (rc > 0)
			status = 1;
	}
	if (rc >= 0 && r->light)
		rc = op_merge_again(r, n, paths);
	return rc < 0 ? -1 : status;
}

void
oprank_write(struct oprank *r, struct jw *w, int partial)
{
	if (partial)
		op_output_partial(r, w);
	else
		op_output(r, w);
}

void
oprank_free(struct oprank *r)
{
	size_t i;

	if (r == NULL)
		return;
	for (i = 0; i < r->nranks; i++) {
		op_agg_free(r->ranks[i]);
		free(r->ranks[i]);
	}
	free(r->ranks);
	op_agg_free(&r->all);
	free(r->xof);
	for (i = 0; i < r->nseen; i++)
		free(r->seen[i].file);
	free(r->seen);
	op_trace_free(&r->t);
	spool_free(&r->pool);
	jdoc_free(&r->in);
	strmap_free(&r->names.map, NULL);
	strmap_free(&r->groups, NULL);
	free(r->groupv);
	free(r->names.v);
	free(r->names.buf);
	free(r->names.precof);
	op_table_free(&r->tab);
	op_table_free(&r->prec);
	op_table_free(&r->frames);
	op_peaks_free(r);
	op_arch_free(r);
	servetab_free(r->serve);
	sb_free(&r->shapekey);
	sb_free(&r->callerkey);
	free(r);
}
