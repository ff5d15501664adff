/*
 * partial: op-rank --merge's reader of partials (lib/trace/oppartial.c and
 * the readers of ledger and shape records it calls), on any records, then
 * the merged output written.  Each input is the records of one partial
 * after its header: the harness puts first the "op_partial" header that
 * this build's tables make (their digests change with the tables, and a
 * mutated header stops every input at its first line), so that the
 * fuzzer works on the records: forged durations, counts, bytes, times,
 * steps, ledgers, shapes and collectives.  A data error must come back as
 * -1 (never exit(), a crash, undefined behaviour or a leak); whatever
 * merges is written as op-rank writes it.  The tables come from
 * RUBRIC_DIR, set by the Makefile.  A crash replays with
 * "(op-rank --partial </dev/null | head -n 1; cat FILE) | op-rank --merge".
 */
#include "fuzz.h"

#include "io/ndjson.h"
#include "trace/oprank.h"

static char	*head;		/* the header line, with its newline */
static size_t	 headlen;

/* The header an empty partial of this build starts with. */
static void
load(void)
{
	struct oprank_opts o = { NULL, 0, 0, -1, 0, NULL };
	struct oprank *r;
	struct jw *w;
	char *text = NULL;
	size_t len = 0;
	FILE *fp;

	if (setenv("MRP_RUBRIC", RUBRIC_DIR, 1) != 0 ||
	    (fp = open_memstream(&text, &len)) == NULL)
		abort();
	r = oprank_new(&o);
	w = jw_new(fp);
	oprank_write(r, w, 1);
	jw_free(w);
	oprank_free(r);
	fclose(fp);
	headlen = strcspn(text, "\n") + 1;
	head = text;
}

int
LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	struct oprank_opts o = { NULL, 0, 0, -1, 0, NULL };
	struct oprank *r;
	struct jw *w;
	uint8_t *in;
	int rc;

	fuzz_init("partial");
	if (head == NULL)
		load();
	in = malloc(headlen + size + 1);
	memcpy(in, head, headlen);
	memcpy(in + headlen, data, size);
	fuzz_stdin(in, headlen + size);
	free(in);
	/* An odd size asks for every rank's detail, as -a does. */
	o.every = size % 2;
	r = oprank_new(&o);
	rc = oprank_merge(r, 0, NULL, 0);
	if (rc < -1 || rc > 1)
		abort();
	if (rc == 0) {
		w = jw_new(stdout);
		oprank_write(r, w, 0);
		jw_free(w);
	}
	oprank_free(r);
	return 0;
}
