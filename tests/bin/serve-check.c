/*
 * serve-check: tests/fuzz/serve.c's check, on the lines of named files
 * instead of fuzzed input, without libFuzzer: serve-check TABLE FILE...
 * reads each line of each FILE as one label against the serving step
 * table TABLE, and exits 1 after reporting the first label that fails.
 * Built by "make check" into $(BUILD)/testbin for tests/op-rank-serve.bats.
 */
#define SERVE_CHECK_MAIN
#include "serve.c"

int
main(int argc, char *argv[])
{
	struct servetab *t;
	FILE *fp;
	char *line = NULL;
	size_t cap = 0;
	ssize_t n;
	int i, status = 0;

	setprogname(argv[0]);
	if (argc < 2) {
		fprintf(stderr, "usage: serve-check table [file ...]\n");
		return 2;
	}
	t = servetab_load(argv[1]);
	for (i = 2; i < argc && status == 0; i++) {
		if ((fp = fopen(argv[i], "r")) == NULL) {
			perror(argv[i]);
			return 1;
		}
		while (status == 0 && (n = getline(&line, &cap, fp)) != -1) {
			if (n > 0 && line[n - 1] == '\n')
				n--;
			if (serve_check(t, line, (size_t)n) < 0) {
				fprintf(stderr, "%s: fails: %.*s\n", argv[i],
				    (int)n, line);
				status = 1;
			}
		}
		fclose(fp);
	}
	free(line);
	servetab_free(t);
	return status;
}
