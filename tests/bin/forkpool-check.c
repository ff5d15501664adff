/*
 * forkpool-check: runs a batch of n items through forkpool_run(), as
 * rubric-apply and report-md run their outputs, so that tests/forkpool.bats
 * can compare what it says and writes on one CPU and on several
 * (MRP_CPUS).  Item i says "making i" on stderr when i is odd, has the
 * status i % 3, and is i * 9973 bytes (more than a pipe holds, from
 * i = 7), each its line "i" over and over.  The parent checks each
 * item's bytes and writes "i status len" to stdout.  -d k: item k dies
 * (die()) after saying so; -s k: taking item k ends the batch.  Then
 * "done" and forkpool_run()'s return.  Built by "make check" into
 * $(BUILD)/testbin.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "base/err.h"
#include "base/forkpool.h"
#include "base/xalloc.h"

struct batch {
	long	 die_at, stop_at;
};

static int
make(void *arg, size_t i, char **buf, size_t *len)
{
	const struct batch *b = arg;
	char line[32];
	size_t n, k;

	if (i % 2 == 1)
		warnmsg("making %zu", i);
	if ((long)i == b->die_at)
		die("item %zu dies", i);
	n = (size_t)snprintf(line, sizeof(line), "%zu\n", i);
	*len = i * 9973;
	*buf = xmalloc(*len + n);
	for (k = 0; k < *len; k += n)
		memcpy(*buf + k, line, n);
	return (int)(i % 3);
}

static int
take(void *arg, size_t i, int status, char *buf, size_t len)
{
	const struct batch *b = arg;
	char line[32];
	size_t n, k;

	n = (size_t)snprintf(line, sizeof(line), "%zu\n", i);
	for (k = 0; k < len; k++)
		if (buf[k] != line[k % n])
			die("item %zu: byte %zu differs", i, k);
	printf("%zu %d %zu\n", i, status, len);
	free(buf);
	return (long)i == b->stop_at ? -1 : 0;
}

int
main(int argc, char *argv[])
{
	struct batch b = { -1, -1 };
	int ch, rc;

	setprogname(argv[0]);
	while ((ch = getopt(argc, argv, "d:s:")) != -1) {
		if (ch == 'd')
			b.die_at = strtol(optarg, NULL, 10);
		else if (ch == 's')
			b.stop_at = strtol(optarg, NULL, 10);
		else
			return 2;
	}
	if (optind + 1 != argc)
		die_usage("usage: forkpool-check [-d item] [-s item] n");
	rc = forkpool_run((size_t)strtoul(argv[optind], NULL, 10), make, take,
	    &b);
	printf("done %d\n", rc);
	return finish(0);
}
