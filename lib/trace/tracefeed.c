#include <stdint.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "base/err.h"
#include "io/inputrec.h"
#include "io/json.h"
#include "io/ndjson.h"
#include "trace/extract.h"
#include "trace/nsys.h"
#include "trace/oprank.h"
#include "trace/tracefeed.h"

/* Where the extractor's records go while one input is read. */
struct sink {
	struct oprank	*op;
	struct jw	*mem;
	const char	*file;		/* the input being read */
	int		 events;	/* its trace record counts some */
};

static int	on_record(void *, const struct jdoc *);

int
tracefeed_run(const struct tracefeed *f)
{
	struct oprank_opts o = { NULL, 0, 0, -1, 0, f->gpu };
	struct extract_digest digest;
	struct extract_opts xo = { .digest = &digest };
	struct sink sink = { 0 };
	struct jw *w, *inw;
	size_t i;
	int none = 0;

	inw = jw_new(f->inputs);
	if (f->phase != NULL)
		o.phase = oprank_phase(f->phase);
	sink.op = oprank_new(&o);
	sink.mem = jw_new(f->memory);
	w = jw_new_doc(on_record, &sink);
	for (i = 0; i < f->n; i++) {
		sink.file = f->paths[i];
		sink.events = 0;
		if ((f->nsys[i] ? nsys_extract(f->paths[i], w, NULL) :
		    extract_trace(f->paths[i], w, &xo)) != 0)
			_exit(1);
		/* Hashed as it was read; else, rarely, read again. */
		if (!f->nsys[i] && digest.hashed)
			inputrec_put(inw, f->paths[i], "trace", digest.size,
			    digest.sha256);
		else if (!f->nsys[i] &&
		    inputrec_write(inw, f->paths[i], "trace") != 0)
			die("%s:", f->paths[i]);
		if (!sink.events) {
			fprintf(f->empty, "%zu\n", i);
			none = 1;
		}
	}
	jw_free(w);
	jw_free(sink.mem);
	jw_free(inw);
	if (fclose(f->empty) != 0 || fclose(f->inputs) != 0)
		die("write:");
	if (fclose(f->memory) != 0)
		die("mem-segments: write:");
	w = jw_new(f->ranked);
	oprank_write(sink.op, w, 0);
	jw_free(w);
	if (fclose(f->ranked) != 0)
		die("trace.ndjson: write:");
	oprank_free(sink.op);
	return none;
}

static int
on_record(void *arg, const struct jdoc *rec)
{
	struct sink *sink = arg;
	const char *kind = ndin_kind(rec), *name;
	int64_t events;
	int trace = strcmp(kind, "trace") == 0;

	if (trace && jdoc_get_i64(rec, 0, "events", &events) == 0 &&
	    events > 0)
		sink->events = 1;
	if (trace || strcmp(kind, "memory") == 0 ||
	    (strcmp(kind, "event") == 0 &&
	    jdoc_get_str(rec, 0, "name", &name, NULL) == 0 &&
	    strncmp(name, OPRANK_STEP_PREFIX,
	    strlen(OPRANK_STEP_PREFIX)) == 0))
		jw_jdoc_record(sink->mem, rec);
	return oprank_record(sink->op, sink->file, rec);
}
