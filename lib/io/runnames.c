#include <sys/stat.h>

#include <dirent.h>
#include <errno.h>
#include <fnmatch.h>
#include <stddef.h>
#include <stdlib.h>
#include <string.h>

#include "base/err.h"
#include "base/strbuf.h"
#include "base/xalloc.h"
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

/* Byte order, as make's $(sort) has it. */
static int
cmpname(const void *a, const void *b)
{
	return strcmp(*(char *const *)a, *(char *const *)b);
}

void
runname_dir(const char *arg, const char *advice, char ***traces,
    size_t *ntraces, char ***pickles, size_t *npickles)
{
	struct strbuf pat = { 0 };
	struct dirent *de;
	struct stat sb;
	char **v = NULL, *path;
	size_t n = 0, i, len;
	enum runname what;
	DIR *dir;

	if ((dir = opendir(arg)) == NULL)
		die("%s:", arg);
	len = strlen(arg);
	for (;;) {
		errno = 0;
		if ((de = readdir(dir)) == NULL)
			break;
		what = runname_of(de->d_name);
		if (what != RN_TRACE && what != RN_PICKLE)
			continue;
		path = xmalloc(len + strlen(de->d_name) + 2);
		/* The name is data: joined, never interpreted. */
		memcpy(path, arg, len);
		i = len;
		if (len > 0 && arg[len - 1] != '/')
			path[i++] = '/';
		memcpy(path + i, de->d_name, strlen(de->d_name) + 1);
		/* A link that leads nowhere is left for the reader to refuse. */
		if (stat(path, &sb) == 0 && !S_ISREG(sb.st_mode)) {
			free(path);
			continue;
		}
		if (what == RN_PICKLE) {
			warnmsg("%s: a pickle is never read.  %s", path,
			    advice);
			*pickles = xreallocarray(*pickles, *npickles + 1,
			    sizeof(**pickles));
			(*pickles)[(*npickles)++] = path;
			continue;
		}
		v = xreallocarray(v, n + 1, sizeof(*v));
		v[n++] = path;
	}
	if (errno != 0)
		die("%s:", arg);
	closedir(dir);
	if (n == 0) {
		for (i = 0; runname_trace_patterns[i] != NULL; i++) {
			if (i > 0)
				sb_puts(&pat, ", ");
			sb_puts(&pat, runname_trace_patterns[i]);
		}
		die("%s: no trace in the directory (none of %s)", arg, pat.s);
	}
	xqsort(v, n, sizeof(*v), cmpname);
	*traces = xreallocarray(*traces, *ntraces + n, sizeof(**traces));
	memcpy(*traces + *ntraces, v, n * sizeof(*v));
	*ntraces += n;
	free(v);
}
