/*
 * trace-check: tests/fuzz/trace.c's check, on named trace files instead of
 * fuzzed input, without libFuzzer.  Each file is extracted to text, to
 * documents and to typed events, with and without -a, and must give the
 * same records every way; exits 1 after reporting the first file that
 * does not.  Built by "make check" into $(BUILD)/testbin for
 * tests/tr-extract.bats.
 */
#define TRACE_CHECK_MAIN
#include "trace.c"

int
main(int argc, char *argv[])
{
	int i;

	setprogname(argv[0]);
	for (i = 1; i < argc; i++)
		if (trace_check(argv[i], NULL, 0, 0) < 0 ||
		    trace_check(argv[i], NULL, 0, 1) < 0)
			return 1;
	return 0;
}
