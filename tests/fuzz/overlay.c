/*
 * overlay: trace-overlay (lib/trace/overlay.c) on any trace, with
 * crit-path's records of the same input, so that the path's nodes meet
 * the events they name wherever forged times, names and correlations put
 * them; every third input is read as records too.  A bad trace or record
 * must come back as an error (never exit(), a crash, undefined behaviour
 * or a leak).  The calls table comes from RUBRIC_DIR, set by the
 * Makefile.  A crash replays with "tr-extract FILE | crit-path -a |
 * trace-overlay -a FILE -".
 */
#include "fuzz.h"

#include "io/ndjson.h"
#include "trace/critpath.h"
#include "trace/extract.h"
#include "trace/overlay.h"

static int	take(void *, const struct jdoc *);
static int	add_records(struct overlay *, const char *);

int
LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	struct critpath_opts co = { NULL, -1, 0, CP_EDGES_ALL,
	    RUBRIC_DIR "/cuda-calls.tsv" };
	struct extract_opts xo = { .args = 0 };
	struct overlay_opts oo = { 0, -1 };
	static FILE *recs;
	static char recpath[64];
	struct critpath *cp;
	struct overlay *ov;
	struct jw *w;
	int rc;

	fuzz_init("trace-overlay");
	if (setenv("MRP_RUBRIC", RUBRIC_DIR, 1) != 0)
		abort();
	if (recs == NULL) {
		recs = fuzz_memfile("records");
		snprintf(recpath, sizeof(recpath), "/proc/self/fd/%d",
		    fileno(recs));
	}
	fuzz_stdin(data, size);
	if (ftruncate(fileno(recs), 0) == -1)
		abort();
	rewind(recs);
	/* The input's size picks the windows and the flows drawn. */
	co.whole = size % 2 == 0;
	oo.all_edges = size % 5 == 0;
	cp = critpath_new(&co);
	w = jw_new_doc(take, cp);
	rc = extract_trace(NULL, w, &xo);
	jw_free(w);
	if (rc == 0) {
		w = jw_new(recs);
		(void)critpath_write(cp, w);
		jw_free(w);
	}
	critpath_free(cp);
	ov = overlay_new(&oo);
	if (add_records(ov, recpath) == 0 &&
	    (size % 3 != 0 || add_records(ov, "/proc/self/fd/0") == 0))
		(void)overlay_write(ov, "/proc/self/fd/0", stdout, "<stdout>");
	overlay_free(ov);
	return 0;
}

static int
take(void *cp, const struct jdoc *d)
{
	return critpath_add(cp, d, "<stdin>", 0) < 0 ? -1 : 0;
}

static int
add_records(struct overlay *ov, const char *path)
{
	struct jdoc doc = { 0 };
	struct ndin *in;
	int rc;

	if ((in = ndin_open(path)) == NULL)
		abort();
	while ((rc = ndin_next(in, &doc)) == 1)
		if ((rc = overlay_add(ov, &doc, ndin_name(in),
		    ndin_line(in))) < 0)
			break;
	ndin_close(in);
	jdoc_free(&doc);
	return rc < 0 ? -1 : 0;
}
