#include <fnmatch.h>
#include <stddef.h>

#include "gen/names.h"
#include "io/runnames.h"

const char *const runname_trace_patterns[] = { TRACE_PATTERNS NULL };
static const char *const snap_patterns[] = { SNAP_PATTERNS NULL };
static const char *const pickle_patterns[] = { PICKLE_PATTERNS NULL };
static const char *const nsys_patterns[] = { NSYS_PATTERNS NULL };

static int
matches(const char *const *patterns, const char *name)
{
	for (; *patterns != NULL; patterns++)
		if (fnmatch(*patterns, name, FNM_PERIOD) == 0)
			return 1;
	return 0;
}

enum runname
runname_of(const char *name)
{
	if (matches(pickle_patterns, name))
		return RN_PICKLE;
	if (matches(snap_patterns, name))
		return RN_SNAPSHOT;
	if (matches(runname_trace_patterns, name))
		return RN_TRACE;
	if (matches(nsys_patterns, name))
		return RN_NSYS;
	return RN_OTHER;
}
