/*
 * critpath: crit-path's graph and path (lib/trace/critpath.c) on any
 * records: forged times, correlations, streams, syncs and the events they
 * wait on, so that links point anywhere, windows overlap and edges run
 * back in time.  A bad record must come back as -1, a graph with a cycle
 * or a negative edge as a window without a path (never exit(), a crash,
 * undefined behaviour or a leak).  The tables come from RUBRIC_DIR, set
 * by the Makefile.  A crash replays with "crit-path FILE".
 */
#include "fuzz.h"

#include "io/ndjson.h"
#include "trace/critpath.h"

int
LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	struct critpath_opts o = { NULL, -1, 0, CP_EDGES_PATH,
	    RUBRIC_DIR "/cuda-calls.tsv" };
	struct critpath *cp;
	struct jdoc doc = { 0 };
	struct ndin *in;
	struct jw *w;
	int rc;

	fuzz_init("crit-path");
	if (setenv("MRP_RUBRIC", RUBRIC_DIR, 1) != 0)
		abort();
	fuzz_stdin(data, size);
	/* The input's size picks the windows and the edges written. */
	o.edges = size % 2 ? CP_EDGES_ALL : CP_EDGES_PATH;
	o.whole = size % 3 == 0;
	if (size % 5 == 0)
		o.window = "Step";
	if ((in = ndin_open(NULL)) == NULL)
		abort();
	cp = critpath_new(&o);
	while ((rc = ndin_next(in, &doc)) == 1)
		if ((rc = critpath_add(cp, &doc, ndin_name(in),
		    ndin_line(in))) < 0)
			break;
	ndin_close(in);
	if (rc == 0) {
		w = jw_new(stdout);
		critpath_write(cp, w);
		jw_free(w);
	}
	critpath_free(cp);
	jdoc_free(&doc);
	return 0;
}
