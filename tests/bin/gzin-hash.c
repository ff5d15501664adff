/*
 * gzin-hash: reads a file through gzin with gzin_hash() on, as the trace
 * stage of analyze-profile does, in reads of changing sizes (1 byte to
 * 64 KiB), and writes what it read (inflated) to stdout, the first -n
 * bytes only when given; then "size sha256" of the file on disk to
 * stderr.  Exits 1 when hashing could not start (a pipe) or a read
 * failed.  Built by "make check" into $(BUILD)/testbin for
 * tests/gzin.bats.
 */
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <unistd.h>

#include "base/err.h"
#include "io/gzin.h"

int
main(int argc, char *argv[])
{
	static char buf[1 << 16];
	struct gzin *in;
	uint64_t left = UINT64_MAX, size;
	uint32_t step = 1;
	char hex[65];
	size_t want;
	ssize_t n;
	int ch;

	setprogname(argv[0]);
	while ((ch = getopt(argc, argv, "n:")) != -1) {
		if (ch != 'n')
			return 2;
		left = strtoull(optarg, NULL, 10);
	}
	if (optind + 1 != argc)
		die_usage("usage: gzin-hash [-n bytes] file");
	if ((in = gzin_open(argv[optind])) == NULL)
		die("%s:", argv[optind]);
	if (gzin_hash(in) != 0)
		die("%s: gzin_hash:", argv[optind]);
	while (left > 0) {
		/* A different size each time, as a parser's reads are. */
		step = step * 1103515245u + 12345u;
		want = 1 + (step >> 8) % sizeof(buf);
		if (want > left)
			want = (size_t)left;
		if ((n = gzin_read(in, buf, want)) < 0)
			die("%s: %s", argv[optind], gzin_error(in));
		if (n == 0)
			break;
		if (fwrite(buf, 1, (size_t)n, stdout) != (size_t)n)
			die("write:");
		left -= (uint64_t)n;
	}
	if (gzin_digest(in, &size, hex) != 0)
		die("%s: gzin_digest:", argv[optind]);
	gzin_close(in);
	fprintf(stderr, "%" PRIu64 " %s\n", size, hex);
	return fflush(stdout) == 0 ? 0 : 1;
}
