#include <stddef.h>

#include "base/operands.h"

int
for_each_operand(int argc, char *argv[],
    int (*fn)(const char *path, void *arg), void *arg)
{
	int rc, status = 0;

	if (argc == 0)
		return fn(NULL, arg) != 0;
	for (; argc > 0; argc--, argv++) {
		if ((rc = fn(*argv, arg)) < 0)
			return 1;
		status |= rc;
	}
	return status;
}
