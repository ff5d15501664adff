/*
 * nsys: the mapping of an Nsight Systems export's rows to records
 * (lib/trace/nsys), on databases the input builds.  The input is SQL,
 * run on an empty in-memory database: tables an export has or lacks,
 * columns of any type, NULLs, huge strings, ENUM_* tables that say
 * anything.  An authorizer lets it create and fill tables and nothing
 * else (no ATTACH, no VACUUM INTO, no pragma), so a run touches no file,
 * and a progress handler ends a script that runs long; the first
 * statement that fails ends the script, and what it built is read all
 * the same.  The records go to a document writer that checks
 * each: a known kind, times that are numbers, the "trace" record last
 * and once; and no more event and instant records than the tables they
 * come from have rows (a join that repeats a row, on a string id given
 * twice, writes more).  A crash replays with "sqlite3 db < FILE;
 * nsys-extract db".
 */
#include <sqlite3.h>

#include "fuzz.h"
#include "io/ndjson.h"
#include "trace/nsys.h"

struct seen {
	int	traces;
	int64_t	events;
};

static int
allow(void *arg, int action, const char *a, const char *b, const char *c,
    const char *d)
{
	(void)arg;
	(void)a;
	(void)b;
	(void)c;
	(void)d;
	switch (action) {
	case SQLITE_CREATE_TABLE:
	case SQLITE_CREATE_INDEX:
	case SQLITE_CREATE_VIEW:
	case SQLITE_INSERT:
	case SQLITE_UPDATE:
	case SQLITE_DELETE:
	case SQLITE_SELECT:
	case SQLITE_READ:
	case SQLITE_FUNCTION:
	case SQLITE_TRANSACTION:
		return SQLITE_OK;
	}
	return SQLITE_DENY;
}

/* The rows of the tables whose rows become event and instant records. */
static int64_t
rows(sqlite3 *db)
{
	static const char *const tables[] = {
		"CUPTI_ACTIVITY_KIND_KERNEL", "CUPTI_ACTIVITY_KIND_MEMCPY",
		"CUPTI_ACTIVITY_KIND_MEMSET", "CUPTI_ACTIVITY_KIND_RUNTIME",
		"CUPTI_ACTIVITY_KIND_DRIVER", "CUPTI_ACTIVITY_KIND_SYNCHRONIZATION",
		"NVTX_EVENTS"
	};
	sqlite3_stmt *st;
	char sql[256];
	int64_t n = 0;
	size_t i;

	for (i = 0; i < sizeof(tables) / sizeof(tables[0]); i++) {
		snprintf(sql, sizeof(sql), "SELECT count(*) FROM main.\"%s\""
		    " WHERE (SELECT type FROM sqlite_master WHERE name = '%s')"
		    " = 'table'", tables[i], tables[i]);
		if (sqlite3_prepare_v2(db, sql, -1, &st, NULL) == SQLITE_OK &&
		    sqlite3_step(st) == SQLITE_ROW)
			n += sqlite3_column_int64(st, 0);
		sqlite3_finalize(st);
	}
	return n;
}

/* A script's statements stop after this many steps: no loop runs forever. */
static int
enough(void *arg)
{
	return ++*(long *)arg > 20000;
}

static int
check(void *arg, const struct jdoc *d)
{
	struct seen *s = arg;
	const char *kind = ndin_kind(d);
	int i;

	if (s->traces > 0)
		abort();
	if (strcmp(kind, "trace") == 0) {
		s->traces++;
		return 0;
	}
	if (strcmp(kind, "event") != 0 && strcmp(kind, "instant") != 0 &&
	    strcmp(kind, "process") != 0 && strcmp(kind, "thread") != 0)
		abort();
	if (strcmp(kind, "event") == 0 || strcmp(kind, "instant") == 0)
		s->events++;
	if (strcmp(kind, "event") == 0 &&
	    ((i = jdoc_get(d, 0, "ts")) < 0 || d->node[i].type != JT_NUMBER ||
	    (i = jdoc_get(d, 0, "dur")) < 0 || d->node[i].type != JT_NUMBER ||
	    d->node[i].len == 0 || jdoc_str(d, (uint32_t)i)[0] == '-'))
		abort();
	return 0;
}

int
LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	struct seen s = { 0, 0 };
	int64_t most;
	sqlite3 *db;
	struct jw *w;
	char *sql;
	long steps = 0;
	int rc;

	fuzz_init("nsys");
	if (sqlite3_open_v2(":memory:", &db, SQLITE_OPEN_READWRITE |
	    SQLITE_OPEN_CREATE, NULL) != SQLITE_OK)
		abort();
	/* Strings and blobs beyond what a run can afford are refused. */
	sqlite3_limit(db, SQLITE_LIMIT_LENGTH, 1 << 20);
	sqlite3_limit(db, SQLITE_LIMIT_ATTACHED, 0);
	sqlite3_set_authorizer(db, allow, NULL);
	sqlite3_progress_handler(db, 100, enough, &steps);
	sql = malloc(size + 1);
	memcpy(sql, data, size);
	sql[size] = '\0';
	(void)sqlite3_exec(db, sql, NULL, NULL, NULL);
	free(sql);
	sqlite3_set_authorizer(db, NULL, NULL);
	sqlite3_progress_handler(db, 0, NULL, NULL);
	most = rows(db);
	w = jw_new_doc(check, &s);
	rc = nsys_extract_db(db, "fuzz.sqlite", w, NULL);
	jw_free(w);
	if ((rc == 0 && s.traces != 1) || s.events > most)
		abort();
	sqlite3_close(db);
	return 0;
}
