/*
 * trace: tr-extract's event normalisation, the tool's own code.
 *
 * tools/tr-extract.c is compiled into the harness with its main() renamed,
 * so that extract() (open, read the top level, normalise each event, pair
 * 'B' with 'E', write the records and the "trace" record) runs exactly as
 * in the tool, on stdin.  main() itself is not called: it ends with
 * finish(), which closes stdout.  The records go to stdout, /dev/null
 * here.  An odd-sized input also sets -a (args copied whole).  The input
 * is a trace file as it is: a crash replays with "tr-extract FILE".
 */
#include "fuzz.h"

int	tr_extract_main(int, char *[]);

#define main	tr_extract_main
#include "tr-extract.c"
#undef main

int
LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	struct jw *w;

	fuzz_init("tr-extract");
	fuzz_stdin(data, size);
	aflag = (int)(size & 1);
	w = jw_new(stdout);
	(void)extract(NULL, w);
	jw_free(w);
	return 0;
}
