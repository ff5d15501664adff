#define _GNU_SOURCE
#include <sched.h>
#include <stdlib.h>

#include "base/cpus.h"

int
cpus_usable(void)
{
	cpu_set_t set;
	const char *s;
	char *end;
	long n;

	if ((s = getenv("MRP_CPUS")) != NULL && *s != '\0') {
		n = strtol(s, &end, 10);
		if (*end == '\0' && n >= 1 && n <= 1 << 16)
			return (int)n;
	}
	if (sched_getaffinity(0, sizeof(set), &set) != 0)
		return 1;
	n = CPU_COUNT(&set);
	return n >= 1 ? (int)n : 1;
}
