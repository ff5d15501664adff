/*
 * nsys: nsys-extract's logic, an Nsight Systems SQLite export turned into
 * tr-extract's records.  Each table becomes a query built from the
 * columns the export has, NULL standing in for those it lacks, and the
 * rows are written as they come: SQLite holds the file, this holds a row.
 *
 * One file: every table's query and row mapping shares the one picture of
 * the export (which tables and columns it has, its ENUM_* values, its
 * origin, the threads seen), and split by table the pieces would each
 * need all of it.
 */
#include <sqlite3.h>

#include <sys/stat.h>

#include <errno.h>
#include <fcntl.h>
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "base/err.h"
#include "base/strbuf.h"
#include "base/strmap.h"
#include "base/xalloc.h"
#include "io/magic.h"
#include "io/ndjson.h"
#include "trace/nsys.h"
#include "trace/rankname.h"

/* A name longer than tr-extract's longest string is refused as there. */
#define MAX_NAME	(16 << 20)
#define DEFAULT_CAPTURE	"profile-target"
/* The runner's ranges inside its capture range: "iteration 0" ... */
#define ITERATION	"iteration "
#define STEP		"ProfilerStep#"

/* The categories written, in sorted order for "by_cat". */
enum cat {
	C_OP,		/* emit_nvtx()'s operator ranges */
	C_DRIVER,
	C_RUNTIME,
	C_SYNC,
	C_MEMCPY,
	C_MEMSET,
	C_KERNEL,
	C_ANN,		/* every other NVTX range and mark */
	NCATS
};
static const char *const catnames[NCATS] = {
	"cpu_op", "cuda_driver", "cuda_runtime", "cuda_sync", "gpu_memcpy",
	"gpu_memset", "kernel", "user_annotation"
};

/* One row of an ENUM_* table: its id, NAME and label. */
struct label {
	int64_t		 id;
	const char	*name;
	const char	*label;
};

/* By id, each id once, for enum_find()'s binary search. */
struct enumtab {
	struct label	*v;	/* owned, strings too, unless fixed */
	size_t		 n, cap;
	int		 fixed;	/* v is one of the tables below */
};

/*
 * What an export without its ENUM_* tables (nsys 2022) means by each
 * value: the same numbers as every export that has them (nsys's own, not
 * CUPTI's: memory kind 0 is pageable here, unknown in CUPTI).
 */
static struct label memcpy_kinds[] = {
	{ 0, "CUDA_MEMCPY_KIND_UNKNOWN", "Unknown" },
	{ 1, "CUDA_MEMCPY_KIND_HTOD", "Host-to-Device" },
	{ 2, "CUDA_MEMCPY_KIND_DTOH", "Device-to-Host" },
	{ 3, "CUDA_MEMCPY_KIND_HTOA", "Host-to-Array" },
	{ 4, "CUDA_MEMCPY_KIND_ATOH", "Array-to-Host" },
	{ 5, "CUDA_MEMCPY_KIND_ATOA", "Array-to-Array" },
	{ 6, "CUDA_MEMCPY_KIND_ATOD", "Array-to-Device" },
	{ 7, "CUDA_MEMCPY_KIND_DTOA", "Device-to-Array" },
	{ 8, "CUDA_MEMCPY_KIND_DTOD", "Device-to-Device" },
	{ 9, "CUDA_MEMCPY_KIND_HTOH", "Host-to-Host" },
	{ 10, "CUDA_MEMCPY_KIND_PTOP", "Peer-to-Peer" }
};
static struct label mem_kinds[] = {
	{ 0, "CUDA_MEMOPR_MEMORY_KIND_PAGEABLE", "Pageable" },
	{ 1, "CUDA_MEMOPR_MEMORY_KIND_PINNED", "Pinned" },
	{ 2, "CUDA_MEMOPR_MEMORY_KIND_DEVICE", "Device" },
	{ 3, "CUDA_MEMOPR_MEMORY_KIND_ARRAY", "Array" },
	{ 4, "CUDA_MEMOPR_MEMORY_KIND_MANAGED", "Managed" },
	{ 5, "CUDA_MEMOPR_MEMORY_KIND_DEVICE_STATIC", "Device Static" },
	{ 6, "CUDA_MEMOPR_MEMORY_KIND_MANAGED_STATIC", "Managed Static" },
	{ 7, "CUDA_MEMOPR_MEMORY_KIND_UNKNOWN", "Unknown" }
};
static struct label sync_types[] = {
	{ 0, "CUPTI_ACTIVITY_SYNCHRONIZATION_TYPE_UNKNOWN", "Unknown" },
	{ 1, "CUPTI_ACTIVITY_SYNCHRONIZATION_TYPE_EVENT_SYNCHRONIZE",
	    "Event sync" },
	{ 2, "CUPTI_ACTIVITY_SYNCHRONIZATION_TYPE_STREAM_WAIT_EVENT",
	    "Stream wait sync" },
	{ 3, "CUPTI_ACTIVITY_SYNCHRONIZATION_TYPE_STREAM_SYNCHRONIZE",
	    "Stream sync" },
	{ 4, "CUPTI_ACTIVITY_SYNCHRONIZATION_TYPE_CONTEXT_SYNCHRONIZE",
	    "Context sync" }
};
static struct label event_types[] = {
	{ 34, "NvtxMark", "NvtxMark" },
	{ 59, "NvtxPushPopRange", "NvtxPushPopRange" },
	{ 60, "NvtxStartEndRange", "NvtxStartEndRange" },
	{ 65, "NvtxtMark", "NvtxtMark" },
	{ 70, "NvtxtPushPopRange", "NvtxtPushPopRange" },
	{ 71, "NvtxtStartEndRange", "NvtxtStartEndRange" },
	{ 75, "NvtxDomainCreate", "NvtxDomainCreate" }
};
#define NELEM(a)	(sizeof(a) / sizeof((a)[0]))

/* What an NVTX_EVENTS row is, by its eventType's NAME. */
enum nvtx { NV_OTHER, NV_RANGE, NV_MARK, NV_DOMAIN };

/* A column of a table, and the member it becomes. */
struct colkey {
	const char	*col, *key;
};

/*
 * One of the runner's ranges: its thread, span and step number.  Sorted
 * by thread and start, reach is the latest end of the thread's ranges up
 * to this one, and at the index of the range that ends there.
 */
struct span {
	int64_t		 tid, start, end, num;
	int		 inner;	/* a capture range: holds an iteration */
	int64_t		 reach;
	size_t		 at;
};

struct spans {
	struct span	*v;
	size_t		 n, cap;
};

/* Rows of a table that could not be used, for one warning. */
struct skips {
	uint64_t	 n;
	int64_t		 first;	/* its rowid */
	const char	*why;
};

/*
 * A table of the export, looked up once: whether it is one, and the
 * names of its columns (keys only).
 */
struct table {
	int		 exists;
	struct strmap	 cols;
};

/*
 * The values a query's rows are read for, by the names its SELECT gives
 * them (the export's column names, and "name" for a row's name).
 */
enum rcol {
	R_ROWID, R_ID, R_START, R_END, R_PID, R_GTID, R_DEV, R_STREAM, R_CORR,
	R_TYPE, R_DOMAIN, R_COPYKIND, R_SRCKIND, R_DSTKIND, R_MEMKIND,
	R_SYNCTYPE, R_BYTES, R_NAME, R_LABEL, NRCOLS
};
static const char *const rcolnames[NRCOLS] = {
	"rowid", "id", "start", "end", "pid", "globalTid", "deviceId",
	"streamId", "correlationId", "eventType", "domainId", "copyKind",
	"srcKind", "dstKind", "memKind", "syncType", "bytes", "name", "label"
};

/*
 * Where a query's rows hold each value, found once it is prepared, not
 * per row; -1 where its SELECT names none so, which reads as NULL.
 */
struct cols {
	int	at[NRCOLS];
};

struct nsys {
	sqlite3		*db;
	const char	*file;
	struct jw	*w;
	const char	*capture;
	int64_t		 rank;
	int		 strings;	/* the export has StringIds */
	const char	*strtab;	/* the table of one name per id */
	int		 strcopy;	/* that is our temp.mrp_strings */
	uint64_t	 work, maxwork;	/* for a row, in 1000s of VM steps */
	int		 overrun;	/* a row took more than maxwork */
	int64_t		 origin, first, last;
	int		 any;
	uint64_t	 events, by_cat[NCATS], ranges, marks, unended, skipped;
	struct enumtab	 copykind, memkind, synctype, evtype, domains;
	struct strmap	 domain_ids;	/* domainId (8 bytes) seen */
	struct spans	 captures, iterations;
	struct strmap	 threads;	/* globalTid (8 bytes) seen */
	struct strmap	 pids;		/* pid (8 bytes) seen */
	struct strbuf	 name;		/* a name being built */
	struct strbuf	 sql;
	struct strmap	 tables;	/* name: its struct table */
};

/* A record's members; has says which of the optional ones it holds. */
struct rec {
	enum cat	 cat;
	const char	*name;
	size_t		 len;
	int64_t		 start, end;
	int64_t		 pid, tid, stream, corr, dev, bytes;
	unsigned	 has;
	const char	*domain;
};
#define H_PID		0x01
#define H_TID		0x02
#define H_STREAM	0x04
#define H_CORR		0x08
#define H_DEV		0x10
#define H_BYTES		0x20

static int	check_file(const char *);
static int	wal_beside(const char *);
static char	*file_uri(const char *);
static void	harden(struct nsys *);
static int	work(void *);
static int	string_table(struct nsys *);
static int	run(struct nsys *);
static int	sqlerr(struct nsys *, const char *);
static const struct table *table(struct nsys *, const char *);
static void	table_free(void *);
static int	has_table(struct nsys *, const char *);
static int	has_col(struct nsys *, const char *, const char *);
static void	ref(struct nsys *, const char *, const char *, const char *);
static void	sel(struct nsys *, const char *, const char *, const char *);
static sqlite3_stmt *prepare(struct nsys *, const char *);
static int	run_sql(struct nsys *, const char *);
static int	colidx(sqlite3_stmt *, const char *);
static void	find_cols(sqlite3_stmt *, struct cols *);
static int	step(struct nsys *, sqlite3_stmt *, int *);
static void	enum_load(struct nsys *, struct enumtab *, const char *,
		    struct label *, size_t);
static struct label *enum_add(struct enumtab *);
static void	enum_index(struct nsys *, struct enumtab *, const char *);
static const struct label *enum_find(const struct enumtab *, int64_t);
static void	enum_free(struct enumtab *);
static char	*meta(struct nsys *, const char *);
static int	find_origin(struct nsys *);
static int	column_i64(sqlite3_stmt *, int, int64_t *);
static const char *column_str(sqlite3_stmt *, int, size_t *);
static int	row_times(struct nsys *, sqlite3_stmt *, const struct cols *,
		    struct skips *, int64_t *, int64_t *, int);
static int	row_name(sqlite3_stmt *, const struct cols *, struct skips *,
		    const char **, size_t *);
static void	skip(struct skips *, sqlite3_stmt *, const struct cols *,
		    const char *);
static void	tell_skips(struct nsys *, const char *, const struct skips *);
static void	put_rec(struct nsys *, const struct rec *, int);
static void	see_time(struct nsys *, int64_t, int64_t);
static void	see_thread(struct nsys *, int64_t);
static int	gpu_table(struct nsys *, const char *, enum cat);
static void	gpu_name(struct nsys *, enum cat, sqlite3_stmt *,
		    const struct cols *);
static int	api_table(struct nsys *, const char *, enum cat);
static enum nvtx nvtx_kind(struct nsys *, int64_t);
static int	nvtx_scan(struct nsys *);
static int	nvtx_table(struct nsys *);
static void	nvtx_text(struct nsys *);
static const char *find(const char *, size_t, const char *);
static int	iteration_num(const char *, size_t, int64_t *);
static void	spans_index(struct spans *);
static const struct span *inside(const struct spans *, int64_t, int64_t,
		    int64_t);
static int	put_threads(struct nsys *);
static int	put_processes(struct nsys *);
static int	put_trace(struct nsys *);
static int	put_gpus(struct nsys *);

int
nsys_extract(const char *path, struct jw *w, const struct nsys_opts *o)
{
	sqlite3 *db = NULL;
	char *uri;
	int rc;

	if ((rc = check_file(path)) != 0)
		return rc;
	/*
	 * immutable: an export is read, never written, and may sit where no
	 * journal or lock can be made (a read-only directory).
	 */
	uri = file_uri(path);
	if (sqlite3_open_v2(uri, &db, SQLITE_OPEN_READONLY | SQLITE_OPEN_URI,
	    NULL) != SQLITE_OK) {
		warnmsg("%s: SQLite: %s", path, db != NULL ?
		    sqlite3_errmsg(db) : "out of memory");
		sqlite3_close(db);
		free(uri);
		return 1;
	}
	free(uri);
	/* A value no export holds is refused before it is made. */
	sqlite3_limit(db, SQLITE_LIMIT_LENGTH, 4 * MAX_NAME);
	rc = nsys_extract_db(db, path, w, o);
	sqlite3_close(db);
	return rc;
}

/*
 * What is refused before SQLite opens the file.  Not a regular file: a
 * FIFO would hold the read (and SQLite's) for ever, a device give bytes
 * for ever; it is opened without blocking and looked at first.  Not an
 * SQLite database by its first bytes (lib/io/magic): what is not is
 * named, with the command that exports a report (.nsys-rep, nsys's own
 * format).  A database with a write-ahead log beside it: immutable=1
 * would read it without the log, in part.  1: the file could not be read
 * (the next one is); -1: a data error.
 */
static int
check_file(const char *path)
{
	const char *dot;
	struct stat st;
	char buf[MAGIC_LEN];
	ssize_t n;
	int fd, len;

	if ((fd = open(path, O_RDONLY | O_NONBLOCK | O_CLOEXEC)) == -1) {
		warnmsg("%s:", path);
		return 1;
	}
	if (fstat(fd, &st) == -1) {
		warnmsg("%s:", path);
		close(fd);
		return 1;
	}
	if (!S_ISREG(st.st_mode)) {
		close(fd);
		warnmsg("%s: not a regular file: SQLite reads an export from a"
		    " file", path);
		return 1;
	}
	n = read(fd, buf, sizeof(buf));
	close(fd);
	if (n == -1) {
		warnmsg("%s:", path);
		return 1;
	}
	if (magic_of(buf, (size_t)n, 0) == MAGIC_SQLITE)
		return wal_beside(path);
	dot = strrchr(path, '.');
	len = dot != NULL && strcmp(dot, ".nsys-rep") == 0 ?
	    (int)(dot - path) : (int)strlen(path);
	return error("%s: %s; export an Nsight Systems report with: nsys export"
	    " --type sqlite --output %.*s.sqlite %s", path, n == 0 ?
	    "empty, not an SQLite database" : "not an SQLite database", len,
	    path, path);
}

/*
 * -1 after saying so when a write-ahead log that is not empty lies
 * beside the database: changes SQLite has not yet put into the file (an
 * export still being written, or copied without closing), which an
 * immutable read would leave out without a word.  0 otherwise.
 */
static int
wal_beside(const char *path)
{
	struct strbuf wal = { 0 };
	struct stat st;
	int rc = 0;

	sb_puts(&wal, path);
	sb_puts(&wal, "-wal");
	if (stat(wal.s, &st) == 0 && (!S_ISREG(st.st_mode) ||
	    st.st_size > 0))
		rc = error("%s: %s beside it holds changes that the file"
		    " lacks (an export still being written, or copied before"
		    " SQLite closed it): refused, not read in part; opening it"
		    " once with sqlite3 where it can be written puts the log"
		    " into it", path, wal.s);
	sb_free(&wal);
	return rc;
}

/* path as an SQLite URI, every byte but the plain ones escaped. */
static char *
file_uri(const char *path)
{
	static const char hex[] = "0123456789ABCDEF";
	struct strbuf sb = { 0 };
	const unsigned char *p;
	char esc[3];

	sb_puts(&sb, "file:");
	for (p = (const unsigned char *)path; *p != '\0'; p++) {
		if ((*p >= 'a' && *p <= 'z') || (*p >= 'A' && *p <= 'Z') ||
		    (*p >= '0' && *p <= '9') || strchr("/._-~", *p) != NULL) {
			sb_put(&sb, (const char *)p, 1);
			continue;
		}
		esc[0] = '%';
		esc[1] = hex[*p >> 4];
		esc[2] = hex[*p & 15];
		sb_put(&sb, esc, 3);
	}
	sb_puts(&sb, "?immutable=1");
	return sb.s;
}

int
nsys_extract_db(struct sqlite3 *db, const char *file, struct jw *w,
    const struct nsys_opts *o)
{
	struct nsys n;
	int rc;

	memset(&n, 0, sizeof(n));
	n.db = db;
	n.file = file;
	n.w = w;
	n.capture = o != NULL && o->capture != NULL ? o->capture :
	    DEFAULT_CAPTURE;
	n.rank = rank_from_name(file);
	harden(&n);
	rc = run(&n);
	sqlite3_progress_handler(db, 0, NULL, NULL);
	if (n.strcopy)
		(void)sqlite3_exec(db, "DROP TABLE temp.mrp_strings", NULL,
		    NULL, NULL);
	strmap_free(&n.domain_ids, NULL);
	enum_free(&n.copykind);
	enum_free(&n.memkind);
	enum_free(&n.synctype);
	enum_free(&n.evtype);
	enum_free(&n.domains);
	free(n.captures.v);
	free(n.iterations.v);
	strmap_free(&n.threads, NULL);
	strmap_free(&n.pids, NULL);
	sb_free(&n.name);
	sb_free(&n.sql);
	strmap_free(&n.tables, table_free);
	if (rc == 0 && jw_failed(w))
		rc = -1;
	return rc;
}

/*
 * SQLite as a reader of files from anywhere: no schema may run a function
 * that is not innocuous, load an extension or be written to, and no row
 * may cost more than reading the whole file should.  Every query here
 * streams its table or looks rows up by key, so that one row's work is
 * bounded by the file's size: maxwork is 100 VM steps a byte and 10^8
 * besides, counted in thousands, and a row that takes more is refused.
 */
static void
harden(struct nsys *n)
{
	sqlite3_stmt *st;
	int64_t bytes = 0;

	sqlite3_db_config(n->db, SQLITE_DBCONFIG_DEFENSIVE, 1, (int *)NULL);
	sqlite3_db_config(n->db, SQLITE_DBCONFIG_TRUSTED_SCHEMA, 0,
	    (int *)NULL);
	sqlite3_db_config(n->db, SQLITE_DBCONFIG_ENABLE_LOAD_EXTENSION, 0,
	    (int *)NULL);
	if (sqlite3_prepare_v2(n->db, "SELECT page_count * page_size FROM"
	    " pragma_page_count(), pragma_page_size()", -1, &st, NULL) ==
	    SQLITE_OK && sqlite3_step(st) == SQLITE_ROW)
		bytes = sqlite3_column_int64(st, 0);
	sqlite3_finalize(st);
	n->maxwork = 100 * 1000 + (bytes > 0 ? (uint64_t)bytes / 10 : 0);
	sqlite3_progress_handler(n->db, 1000, work, n);
}

static int
work(void *arg)
{
	struct nsys *n = arg;

	if (++n->work <= n->maxwork)
		return 0;
	n->overrun = 1;
	return 1;
}

/*
 * The table that gives each string id one name, for every join: the
 * export's StringIds when its id is the rowid (an INTEGER PRIMARY KEY,
 * as nsys makes it), else a private copy that keeps the first row of each
 * integer id, so that no join can repeat a row (a StringIds without a key
 * and 100 rows of one id gave each kernel a million records), and lookups
 * are by key.  A repeated id is warned about.
 */
static int
string_table(struct nsys *n)
{
	sqlite3_stmt *st;
	int64_t total = 0, kept = 0;
	int row, rc;

	n->strtab = "StringIds";
	if ((st = prepare(n, "SELECT (SELECT count(*) FROM"
	    " pragma_table_info('StringIds') WHERE pk > 0) = 1 AND EXISTS"
	    " (SELECT 1 FROM pragma_table_info('StringIds') WHERE name = 'id'"
	    " AND pk = 1 AND upper(type) = 'INTEGER') AND NOT EXISTS (SELECT 1"
	    " FROM pragma_index_list('StringIds') WHERE origin = 'pk')")) ==
	    NULL)
		return -1;
	rc = step(n, st, &row);
	if (rc == 0 && row && sqlite3_column_int(st, 0) == 1) {
		sqlite3_finalize(st);
		return 0;
	}
	sqlite3_finalize(st);
	if (rc < 0 || run_sql(n, "CREATE TEMP TABLE mrp_strings (id INTEGER"
	    " PRIMARY KEY, value)") < 0)
		return -1;
	n->strcopy = 1;
	n->strtab = "temp.mrp_strings";
	if (run_sql(n, "INSERT OR IGNORE INTO temp.mrp_strings SELECT id, value"
	    " FROM main.StringIds WHERE typeof(id) = 'integer'") < 0)
		return -1;
	kept = sqlite3_changes64(n->db);
	if ((st = prepare(n, "SELECT count(*) FROM main.StringIds WHERE"
	    " typeof(id) = 'integer'")) == NULL)
		return -1;
	if ((rc = step(n, st, &row)) == 0 && row)
		total = sqlite3_column_int64(st, 0);
	sqlite3_finalize(st);
	if (rc < 0)
		return -1;
	if (total > kept)
		warnmsg("%s: warning: StringIds: %" PRId64 " row%s repeat%s the"
		    " id of a row before %s; the first row of each id names"
		    " it", n->file, total - kept, total - kept == 1 ? "" : "s",
		    total - kept == 1 ? "s" : "", total - kept == 1 ? "it" :
		    "them");
	return 0;
}

static int
run(struct nsys *n)
{
	static const char *const known[] = {
		"CUPTI_ACTIVITY_KIND_KERNEL", "CUPTI_ACTIVITY_KIND_MEMCPY",
		"CUPTI_ACTIVITY_KIND_MEMSET", "CUPTI_ACTIVITY_KIND_RUNTIME",
		"CUPTI_ACTIVITY_KIND_DRIVER", "CUPTI_ACTIVITY_KIND_SYNCHRONIZATION",
		"NVTX_EVENTS", "META_DATA_EXPORT", "EXPORT_META_DATA"
	};
	size_t i;
	int rc, found = 0;

	for (i = 0; i < NELEM(known); i++) {
		if ((rc = has_table(n, known[i])) < 0)
			return -1;
		found |= rc;
	}
	if ((rc = has_table(n, "StringIds")) < 0)
		return -1;
	n->strings = rc && has_col(n, "StringIds", "id") == 1 &&
	    has_col(n, "StringIds", "value") == 1;
	if (!found)
		return error("%s: an SQLite database, but not an Nsight Systems"
		    " export: none of its tables (CUPTI_ACTIVITY_KIND_*,"
		    " NVTX_EVENTS, META_DATA_EXPORT)", n->file);
	if (n->strings && string_table(n) < 0)
		return -1;
	enum_load(n, &n->copykind, "ENUM_CUDA_MEMCPY_OPER", memcpy_kinds,
	    NELEM(memcpy_kinds));
	enum_load(n, &n->memkind, "ENUM_CUDA_MEM_KIND", mem_kinds,
	    NELEM(mem_kinds));
	enum_load(n, &n->synctype, "ENUM_CUPTI_SYNC_TYPE", sync_types,
	    NELEM(sync_types));
	enum_load(n, &n->evtype, "ENUM_NSYS_EVENT_TYPE", event_types,
	    NELEM(event_types));
	if (find_origin(n) < 0 || nvtx_scan(n) < 0 ||
	    gpu_table(n, "CUPTI_ACTIVITY_KIND_KERNEL", C_KERNEL) < 0 ||
	    gpu_table(n, "CUPTI_ACTIVITY_KIND_MEMCPY", C_MEMCPY) < 0 ||
	    gpu_table(n, "CUPTI_ACTIVITY_KIND_MEMSET", C_MEMSET) < 0 ||
	    gpu_table(n, "CUPTI_ACTIVITY_KIND_SYNCHRONIZATION", C_SYNC) < 0 ||
	    api_table(n, "CUPTI_ACTIVITY_KIND_RUNTIME", C_RUNTIME) < 0 ||
	    api_table(n, "CUPTI_ACTIVITY_KIND_DRIVER", C_DRIVER) < 0 ||
	    nvtx_table(n) < 0 || put_processes(n) < 0 || put_threads(n) < 0)
		return -1;
	if (n->unended > 0)
		warnmsg("%s: warning: %" PRIu64 " NVTX ranges never ended",
		    n->file, n->unended);
	return put_trace(n);
}

static int
sqlerr(struct nsys *n, const char *what)
{
	if (n->overrun)
		return error("%s: %s: one row took more work than reading the"
		    " whole file should: refused", n->file, what);
	return error("%s: %s: SQLite: %s", n->file, what,
	    sqlite3_errmsg(n->db));
}

/*
 * The table, looked up the first time it is asked for: whether the
 * export has it (a view is no table: its query could be made to run
 * forever) and its columns.  NULL after reporting an error, which is not
 * kept.  The queries are its own, so that a query being built in n->sql
 * is left as it is.
 */
static const struct table *
table(struct nsys *n, const char *name)
{
	struct strent *e;
	struct table *t;
	sqlite3_stmt *st;
	const char *c;
	size_t len;
	int rc, row;

	if ((e = strmap_get(&n->tables, name, strlen(name))) != NULL)
		return e->val;
	if ((st = prepare(n, "SELECT 1 FROM sqlite_master WHERE type ="
	    " 'table' AND name = ?")) == NULL)
		return NULL;
	sqlite3_bind_text(st, 1, name, -1, SQLITE_STATIC);
	rc = step(n, st, &row);
	sqlite3_finalize(st);
	if (rc < 0)
		return NULL;
	t = xcalloc(1, sizeof(*t));
	t->exists = row;
	if (t->exists) {
		if ((st = prepare(n, "SELECT name FROM"
		    " pragma_table_info(?)")) == NULL) {
			table_free(t);
			return NULL;
		}
		sqlite3_bind_text(st, 1, name, -1, SQLITE_STATIC);
		while ((rc = step(n, st, &row)) == 0 && row)
			if ((c = column_str(st, 0, &len)) != NULL)
				strmap_put(&t->cols, c, len);
		sqlite3_finalize(st);
		if (rc < 0) {
			table_free(t);
			return NULL;
		}
	}
	strmap_put(&n->tables, name, strlen(name))->val = t;
	return t;
}

static void
table_free(void *p)
{
	struct table *t = p;

	strmap_free(&t->cols, NULL);
	free(t);
}

/* 1 when the export has the table, 0, or -1. */
static int
has_table(struct nsys *n, const char *name)
{
	const struct table *t = table(n, name);

	return t == NULL ? -1 : t->exists;
}

/* 1 when the table has the column, 0, or -1. */
static int
has_col(struct nsys *n, const char *name, const char *column)
{
	const struct table *t = table(n, name);

	if (t == NULL)
		return -1;
	return strmap_get(&t->cols, column, strlen(column)) != NULL;
}

/*
 * Appends alias."column" to n->sql when the table has the column, else
 * NULL: a query names only what the export holds.
 */
static void
ref(struct nsys *n, const char *table, const char *alias, const char *column)
{
	if (has_col(n, table, column) == 1)
		sb_printf(&n->sql, "%s.\"%s\"", alias, column);
	else
		sb_puts(&n->sql, "NULL");
}

/* The same as a result column named column, after a comma. */
static void
sel(struct nsys *n, const char *table, const char *alias, const char *column)
{
	sb_puts(&n->sql, ", ");
	ref(n, table, alias, column);
	sb_printf(&n->sql, " AS \"%s\"", column);
}

/* sql prepared; NULL after reporting why. */
static sqlite3_stmt *
prepare(struct nsys *n, const char *sql)
{
	sqlite3_stmt *st = NULL;

	if (sqlite3_prepare_v2(n->db, sql, -1, &st, NULL) != SQLITE_OK) {
		sqlerr(n, "cannot be read");
		sqlite3_finalize(st);
		return NULL;
	}
	return st;
}

/* Runs sql, a statement that returns no rows: 0, or -1 after a message. */
static int
run_sql(struct nsys *n, const char *sql)
{
	sqlite3_stmt *st;
	int row, rc;

	if ((st = prepare(n, sql)) == NULL)
		return -1;
	rc = step(n, st, &row);
	sqlite3_finalize(st);
	return rc < 0 ? -1 : 0;
}

/* The result column of st that its SELECT names name, or -1. */
static int
colidx(sqlite3_stmt *st, const char *name)
{
	const char *c;
	int i, ncol = sqlite3_column_count(st);

	for (i = 0; i < ncol; i++)
		if ((c = sqlite3_column_name(st, i)) != NULL &&
		    strcmp(c, name) == 0)
			return i;
	return -1;
}

static void
find_cols(sqlite3_stmt *st, struct cols *c)
{
	int i;

	for (i = 0; i < NRCOLS; i++)
		c->at[i] = colidx(st, rcolnames[i]);
}

/* The next row: *row 1, or 0 at the end; -1 after reporting an error. */
static int
step(struct nsys *n, sqlite3_stmt *st, int *row)
{
	n->work = 0;
	switch (sqlite3_step(st)) {
	case SQLITE_ROW:
		*row = 1;
		return 0;
	case SQLITE_DONE:
		*row = 0;
		return 0;
	default:
		*row = 0;
		return sqlerr(n, "cannot be read");
	}
}

/*
 * The export's own ENUM_* table when it has one that can be read, else
 * the values every export with one has given them.
 */
static void
enum_load(struct nsys *n, struct enumtab *e, const char *table,
    struct label *fixed, size_t nfixed)
{
	sqlite3_stmt *st;
	struct label *l;
	struct cols c;
	const char *name, *label;
	size_t len;
	int64_t id;
	int row;

	e->v = fixed;
	e->n = nfixed;
	e->fixed = 1;
	if (has_table(n, table) != 1 || has_col(n, table, "id") != 1 ||
	    has_col(n, table, "name") != 1)
		return;
	sb_truncate(&n->sql, 0);
	sb_puts(&n->sql, "SELECT id AS id, name AS name");
	sel(n, table, "e", "label");
	sb_printf(&n->sql, " FROM \"%s\" AS e", table);
	if ((st = prepare(n, n->sql.s)) == NULL)
		return;
	find_cols(st, &c);
	e->v = NULL;
	e->n = e->cap = 0;
	e->fixed = 0;
	while (step(n, st, &row) == 0 && row) {
		if (column_i64(st, c.at[R_ID], &id) < 0 ||
		    (name = column_str(st, c.at[R_NAME], &len)) == NULL)
			continue;
		label = column_str(st, c.at[R_LABEL], &len);
		l = enum_add(e);
		l->id = id;
		l->name = xstrdup(name);
		l->label = xstrdup(label != NULL ? label : name);
	}
	sqlite3_finalize(st);
	enum_index(n, e, table);
}

/* Room for one more row, at the end; a table grows by doubling. */
static struct label *
enum_add(struct enumtab *e)
{
	if (e->n == e->cap) {
		e->cap = e->cap > 0 ? 2 * e->cap : 16;
		e->v = xreallocarray(e->v, e->cap, sizeof(*e->v));
	}
	return &e->v[e->n++];
}

/* A row of an ENUM_* table as it sorts: by id, then by its place. */
struct idplace {
	int64_t	id;
	size_t	at;
};

static int
cmpidplace(const void *a, const void *b)
{
	const struct idplace *x = a, *y = b;

	if (x->id != y->id)
		return x->id < y->id ? -1 : 1;
	return (x->at > y->at) - (x->at < y->at);
}

/*
 * Sorts a table read in the export's order by id, for enum_find(),
 * keeping the first row of each id; the others are warned about (table:
 * its name).
 */
static void
enum_index(struct nsys *n, struct enumtab *e, const char *table)
{
	struct idplace *ix = xreallocarray(NULL, e->n + 1, sizeof(*ix));
	struct label *v = xreallocarray(NULL, e->n + 1, sizeof(*v));
	size_t i, m = 0;

	for (i = 0; i < e->n; i++)
		ix[i] = (struct idplace){ e->v[i].id, i };
	xqsort(ix, e->n, sizeof(*ix), cmpidplace);
	for (i = 0; i < e->n; i++) {
		if (m > 0 && v[m - 1].id == ix[i].id) {
			free((char *)e->v[ix[i].at].name);
			free((char *)e->v[ix[i].at].label);
			continue;
		}
		v[m++] = e->v[ix[i].at];
	}
	free(ix);
	free(e->v);
	e->v = v;
	e->cap = e->n + 1;
	if (m < e->n)
		warnmsg("%s: warning: %s: %zu row%s repeat%s the id of a row"
		    " before %s; the first row of each id names it", n->file,
		    table, e->n - m, e->n - m == 1 ? "" : "s", e->n - m == 1 ?
		    "s" : "", e->n - m == 1 ? "it" : "them");
	e->n = m;
}

static const struct label *
enum_find(const struct enumtab *e, int64_t id)
{
	size_t lo = 0, hi = e->n, mid;

	while (lo < hi) {
		mid = lo + (hi - lo) / 2;
		if (e->v[mid].id < id)
			lo = mid + 1;
		else
			hi = mid;
	}
	return lo < e->n && e->v[lo].id == id ? &e->v[lo] : NULL;
}

static void
enum_free(struct enumtab *e)
{
	size_t i;

	if (!e->fixed) {
		for (i = 0; i < e->n; i++) {
			free((char *)e->v[i].name);
			free((char *)e->v[i].label);
		}
		free(e->v);
	}
	e->v = NULL;
	e->n = e->cap = 0;
}

/*
 * A value of the export's metadata (META_DATA_EXPORT from 2024 on,
 * EXPORT_META_DATA before), or NULL; the caller frees it.  Only the
 * versions are ever asked for: the rest names hosts, users and paths.
 */
static char *
meta(struct nsys *n, const char *name)
{
	static const char *const tables[] = {
		"META_DATA_EXPORT", "EXPORT_META_DATA"
	};
	const unsigned char *v;
	sqlite3_stmt *st;
	char *s = NULL;
	size_t i;
	int row;

	for (i = 0; i < NELEM(tables) && s == NULL; i++) {
		if (has_table(n, tables[i]) != 1 ||
		    has_col(n, tables[i], "name") != 1 ||
		    has_col(n, tables[i], "value") != 1)
			continue;
		sb_truncate(&n->sql, 0);
		sb_printf(&n->sql, "SELECT value FROM \"%s\" WHERE name = ?",
		    tables[i]);
		if ((st = prepare(n, n->sql.s)) == NULL)
			return NULL;
		sqlite3_bind_text(st, 1, name, -1, SQLITE_STATIC);
		if (step(n, st, &row) == 0 && row &&
		    (v = sqlite3_column_text(st, 0)) != NULL &&
		    strlen((const char *)v) < 64)
			s = xstrdup((const char *)v);
		sqlite3_finalize(st);
	}
	return s;
}

/*
 * The origin: the earliest start of the rows read, rounded down to a
 * whole microsecond as tr-extract rounds a trace's, so that the
 * nanoseconds below it are kept as they are.
 */
static int
find_origin(struct nsys *n)
{
	static const char *const tables[] = {
		"CUPTI_ACTIVITY_KIND_KERNEL", "CUPTI_ACTIVITY_KIND_MEMCPY",
		"CUPTI_ACTIVITY_KIND_MEMSET", "CUPTI_ACTIVITY_KIND_RUNTIME",
		"CUPTI_ACTIVITY_KIND_DRIVER", "CUPTI_ACTIVITY_KIND_SYNCHRONIZATION",
		"NVTX_EVENTS"
	};
	sqlite3_stmt *st;
	int64_t v, lo = 0;
	size_t i;
	int row, any = 0;

	for (i = 0; i < NELEM(tables); i++) {
		if (has_table(n, tables[i]) != 1 ||
		    has_col(n, tables[i], "start") != 1)
			continue;
		sb_truncate(&n->sql, 0);
		sb_printf(&n->sql, "SELECT min(start) FROM \"%s\" WHERE"
		    " typeof(start) = 'integer'", tables[i]);
		if ((st = prepare(n, n->sql.s)) == NULL)
			return -1;
		if (step(n, st, &row) < 0) {
			sqlite3_finalize(st);
			return -1;
		}
		if (row && column_i64(st, 0, &v) == 0 && (!any || v < lo)) {
			lo = v;
			any = 1;
		}
		sqlite3_finalize(st);
	}
	/* Rounded down, so never after the first start; or lo, if it cannot. */
	if (__builtin_sub_overflow(lo, (lo % 1000 + 1000) % 1000, &n->origin))
		n->origin = lo;
	return 0;
}

/* Column i as an integer: -1 when it is none (or i is -1). */
static int
column_i64(sqlite3_stmt *st, int i, int64_t *v)
{
	if (i < 0 || sqlite3_column_type(st, i) != SQLITE_INTEGER)
		return -1;
	*v = sqlite3_column_int64(st, i);
	return 0;
}

/* Column i as text, and its length; NULL for NULL (or i -1). */
static const char *
column_str(sqlite3_stmt *st, int i, size_t *len)
{
	const char *s;

	*len = 0;
	if (i < 0 || (s = (const char *)sqlite3_column_text(st, i)) == NULL)
		return NULL;
	*len = (size_t)sqlite3_column_bytes(st, i);
	return s;
}

/*
 * The start and end (an instant's end is its start):
 * integers, the end not before the start, both within 64-bit nanoseconds
 * of the origin; otherwise the row is skipped (-1) and counted.  0 when
 * usable.
 */
static int
row_times(struct nsys *n, sqlite3_stmt *st, const struct cols *c,
    struct skips *sk, int64_t *start, int64_t *end, int instant)
{
	int64_t d;

	if (instant) {
		if (column_i64(st, c->at[R_START], start) < 0) {
			skip(sk, st, c, "a start that is not an integer");
			return -1;
		}
		*end = *start;
	} else if (column_i64(st, c->at[R_START], start) < 0 ||
	    column_i64(st, c->at[R_END], end) < 0) {
		skip(sk, st, c, "a start or end that is not an integer");
		return -1;
	}
	if (*end < *start) {
		skip(sk, st, c, "an end before its start");
		return -1;
	}
	if (__builtin_sub_overflow(*end, n->origin, &d) ||
	    __builtin_sub_overflow(*start, n->origin, &d)) {
		skip(sk, st, c, "a time too far from the others for 64-bit"
		    " nanoseconds");
		return -1;
	}
	return 0;
}

/* The row's name: NULL, or text of at most MAX_NAME bytes. */
static int
row_name(sqlite3_stmt *st, const struct cols *c, struct skips *sk,
    const char **s, size_t *len)
{
	*s = column_str(st, c->at[R_NAME], len);
	if (*len > MAX_NAME) {
		skip(sk, st, c, "a name longer than 16 MiB");
		return -1;
	}
	return 0;
}

static void
skip(struct skips *sk, sqlite3_stmt *st, const struct cols *c,
    const char *why)
{
	if (sk->n++ == 0) {
		sk->first = sqlite3_column_int64(st, c->at[R_ROWID]);
		sk->why = why;
	}
}

static void
tell_skips(struct nsys *n, const char *table, const struct skips *sk)
{
	if (sk->n == 0)
		return;
	n->skipped += sk->n;
	warnmsg("%s: warning: %s: %" PRIu64 " row%s skipped; the first, rowid"
	    " %" PRId64 ", has %s", n->file, table, sk->n, sk->n == 1 ? "" :
	    "s", sk->first, sk->why);
}

/*
 * One "event" record, or with mark an NVTX mark's "instant" record as
 * Kineto writes one; the members in tr-extract's order.
 */
static void
put_rec(struct nsys *n, const struct rec *r, int mark)
{
	struct jw *w = n->w;

	if (mark)
		jw_record(w, "instant");
	else
		jw_record(w, "event");
	if (r->name != NULL) {
		jw_key(w, "name");
		jw_string(w, r->name, r->len);
	}
	jw_key(w, "cat");
	jw_cstring(w, catnames[r->cat]);
	if (r->has & H_PID) {
		jw_key(w, "pid");
		jw_int(w, r->pid);
	}
	if (r->has & H_TID) {
		jw_key(w, "tid");
		jw_int(w, r->tid);
	}
	jw_key(w, "ts");
	jw_us(w, r->start - n->origin);
	if (mark) {
		jw_key(w, "scope");
		jw_cstring(w, "t");
	} else {
		jw_key(w, "dur");
		jw_us(w, r->end - r->start);
	}
	if (r->has & H_STREAM) {
		jw_key(w, "stream");
		jw_int(w, r->stream);
	}
	if (r->has & H_CORR) {
		jw_key(w, "correlation");
		jw_int(w, r->corr);
	}
	if (r->has & H_DEV) {
		jw_key(w, "device");
		jw_int(w, r->dev);
	}
	if (r->has & H_BYTES) {
		jw_key(w, "bytes");
		jw_int(w, r->bytes);
	}
	if (r->domain != NULL) {
		jw_key(w, "domain");
		jw_cstring(w, r->domain);
	}
	if (n->rank >= 0) {
		jw_key(w, "rank");
		jw_int(w, n->rank);
	}
	jw_end(w);
	n->by_cat[r->cat]++;
	if (mark)
		n->marks++;
	else
		n->ranges++;
	see_time(n, r->start, r->end);
}

static void
see_time(struct nsys *n, int64_t start, int64_t end)
{
	if (!n->any || start < n->first)
		n->first = start;
	if (!n->any || end > n->last)
		n->last = end;
	n->any = 1;
}

/* A host thread's globalTid: the process in bits 24-47, the thread below. */
#define GT_PID(g)	(((g) >> 24) & 0xFFFFFF)
#define GT_TID(g)	((g) & 0xFFFFFF)

static void
see_thread(struct nsys *n, int64_t gtid)
{
	int64_t pid = GT_PID(gtid), key = GT_PID(gtid) << 24 | GT_TID(gtid);

	strmap_put(&n->threads, (const char *)&key, sizeof(key));
	strmap_put(&n->pids, (const char *)&pid, sizeof(pid));
}

/*
 * Kernels, copies, memsets and synchronisations: on a device and a
 * stream, as Kineto writes them (pid the device, tid the stream), with
 * the correlation id of the API call that launched them.
 */
static int
gpu_table(struct nsys *n, const char *table, enum cat cat)
{
	struct skips sk = { 0, 0, NULL };
	struct rec r;
	struct cols c;
	sqlite3_stmt *st;
	int row, rc = 0;

	if ((rc = has_table(n, table)) != 1)
		return rc;
	sb_truncate(&n->sql, 0);
	sb_puts(&n->sql, "SELECT t.rowid AS rowid");
	sel(n, table, "t", "start");
	sel(n, table, "t", "end");
	sel(n, table, "t", "deviceId");
	sel(n, table, "t", "streamId");
	sel(n, table, "t", "correlationId");
	switch (cat) {
	case C_KERNEL:
		/* Kineto names a kernel by its demangled name. */
		if (n->strings) {
			sb_printf(&n->sql, ", coalesce(d.value, s.value,"
			    " m.value) AS name FROM \"%s\" AS t", table);
			sb_printf(&n->sql, " LEFT JOIN %s AS d ON d.id = ",
			    n->strtab);
			ref(n, table, "t", "demangledName");
			sb_printf(&n->sql, " LEFT JOIN %s AS s ON s.id = ",
			    n->strtab);
			ref(n, table, "t", "shortName");
			sb_printf(&n->sql, " LEFT JOIN %s AS m ON m.id = ",
			    n->strtab);
			ref(n, table, "t", "mangledName");
			break;
		}
		sb_printf(&n->sql, " FROM \"%s\" AS t", table);
		break;
	case C_MEMCPY:
		sel(n, table, "t", "copyKind");
		sel(n, table, "t", "srcKind");
		sel(n, table, "t", "dstKind");
		sel(n, table, "t", "bytes");
		sb_printf(&n->sql, " FROM \"%s\" AS t", table);
		break;
	case C_MEMSET:
		sel(n, table, "t", "memKind");
		sel(n, table, "t", "bytes");
		sb_printf(&n->sql, " FROM \"%s\" AS t", table);
		break;
	default:
		sel(n, table, "t", "syncType");
		sb_printf(&n->sql, " FROM \"%s\" AS t", table);
		break;
	}
	if ((st = prepare(n, n->sql.s)) == NULL)
		return -1;
	find_cols(st, &c);
	while ((rc = step(n, st, &row)) == 0 && row) {
		n->events++;
		memset(&r, 0, sizeof(r));
		r.cat = cat;
		if (row_times(n, st, &c, &sk, &r.start, &r.end, 0) < 0)
			continue;
		if (column_i64(st, c.at[R_DEV], &r.dev) == 0) {
			r.pid = r.dev;
			r.has |= H_PID | H_DEV;
		}
		if (column_i64(st, c.at[R_STREAM], &r.stream) == 0) {
			r.tid = r.stream;
			r.has |= H_TID | H_STREAM;
		}
		if (column_i64(st, c.at[R_CORR], &r.corr) == 0)
			r.has |= H_CORR;
		if (column_i64(st, c.at[R_BYTES], &r.bytes) == 0 &&
		    r.bytes >= 0)
			r.has |= H_BYTES;
		if (cat == C_KERNEL) {
			if (row_name(st, &c, &sk, &r.name, &r.len) < 0)
				continue;
		} else {
			gpu_name(n, cat, st, &c);
			r.name = n->name.s;
			r.len = n->name.len;
		}
		put_rec(n, &r, 0);
	}
	sqlite3_finalize(st);
	tell_skips(n, table, &sk);
	return rc;
}

/*
 * Kineto's names: "Memcpy HtoD (Pageable -> Device)", "Memset (Device)";
 * a synchronisation by its ENUM_CUPTI_SYNC_TYPE label.  Values no table
 * names are written as numbers.
 */
static void
gpu_name(struct nsys *n, enum cat cat, sqlite3_stmt *st,
    const struct cols *c)
{
	const struct label *l;
	const char *k;
	int64_t v, src, dst;

	sb_truncate(&n->name, 0);
	if (cat == C_SYNC) {
		if (column_i64(st, c->at[R_SYNCTYPE], &v) < 0)
			sb_puts(&n->name, "Synchronization");
		else if ((l = enum_find(&n->synctype, v)) != NULL)
			sb_puts(&n->name, l->label);
		else
			sb_printf(&n->name, "Synchronization (type %" PRId64
			    ")", v);
		return;
	}
	sb_puts(&n->name, cat == C_MEMSET ? "Memset" : "Memcpy");
	if (cat == C_MEMCPY && column_i64(st, c->at[R_COPYKIND], &v) == 0) {
		if ((l = enum_find(&n->copykind, v)) == NULL)
			sb_printf(&n->name, " kind %" PRId64, v);
		else if ((k = strrchr(l->name, '_')) != NULL &&
		    strlen(k) == 5 && k[2] == 'T' && k[3] == 'O')
			sb_printf(&n->name, " %cto%c", k[1], k[4]);
		else
			sb_printf(&n->name, " %s", l->label);
	}
	if (cat == C_MEMSET && column_i64(st, c->at[R_MEMKIND], &v) == 0) {
		l = enum_find(&n->memkind, v);
		if (l != NULL)
			sb_printf(&n->name, " (%s)", l->label);
		else
			sb_printf(&n->name, " (memory kind %" PRId64 ")", v);
	}
	if (cat == C_MEMCPY && column_i64(st, c->at[R_SRCKIND], &src) == 0 &&
	    column_i64(st, c->at[R_DSTKIND], &dst) == 0) {
		sb_puts(&n->name, " (");
		if ((l = enum_find(&n->memkind, src)) != NULL)
			sb_puts(&n->name, l->label);
		else
			sb_printf(&n->name, "kind %" PRId64, src);
		sb_puts(&n->name, " -> ");
		if ((l = enum_find(&n->memkind, dst)) != NULL)
			sb_puts(&n->name, l->label);
		else
			sb_printf(&n->name, "kind %" PRId64, dst);
		sb_puts(&n->name, ")");
	}
}

/*
 * Runtime and driver API calls, on the host thread that made them, named
 * as CUDA names them: cudaLaunchKernel, not nsys's cudaLaunchKernel_v7000.
 */
static int
api_table(struct nsys *n, const char *table, enum cat cat)
{
	struct skips sk = { 0, 0, NULL };
	struct rec r;
	struct cols c;
	sqlite3_stmt *st;
	const char *v;
	int64_t gtid;
	size_t i;
	int row, rc;

	if ((rc = has_table(n, table)) != 1)
		return rc;
	sb_truncate(&n->sql, 0);
	sb_puts(&n->sql, "SELECT t.rowid AS rowid");
	sel(n, table, "t", "start");
	sel(n, table, "t", "end");
	sel(n, table, "t", "globalTid");
	sel(n, table, "t", "correlationId");
	if (n->strings) {
		sb_printf(&n->sql, ", s.value AS name FROM \"%s\" AS t LEFT"
		    " JOIN %s AS s ON s.id = ", table, n->strtab);
		ref(n, table, "t", "nameId");
	} else
		sb_printf(&n->sql, " FROM \"%s\" AS t", table);
	if ((st = prepare(n, n->sql.s)) == NULL)
		return -1;
	find_cols(st, &c);
	while ((rc = step(n, st, &row)) == 0 && row) {
		n->events++;
		memset(&r, 0, sizeof(r));
		r.cat = cat;
		if (row_times(n, st, &c, &sk, &r.start, &r.end, 0) < 0 ||
		    row_name(st, &c, &sk, &r.name, &r.len) < 0)
			continue;
		if (column_i64(st, c.at[R_GTID], &gtid) == 0) {
			r.pid = GT_PID(gtid);
			r.tid = GT_TID(gtid);
			r.has |= H_PID | H_TID;
			see_thread(n, gtid);
		}
		if (column_i64(st, c.at[R_CORR], &r.corr) == 0)
			r.has |= H_CORR;
		/* "_v" and digits at the end: the API's version. */
		v = r.name;
		for (i = r.len; i > 0 && v[i - 1] >= '0' && v[i - 1] <= '9';
		    i--)
			;
		if (i >= 2 && i < r.len && v[i - 1] == 'v' && v[i - 2] == '_')
			r.len = i - 2;
		put_rec(n, &r, 0);
	}
	sqlite3_finalize(st);
	tell_skips(n, table, &sk);
	return rc;
}

static enum nvtx
nvtx_kind(struct nsys *n, int64_t type)
{
	const struct label *l = enum_find(&n->evtype, type);

	if (l == NULL)
		return NV_OTHER;
	if (strcmp(l->name, "NvtxPushPopRange") == 0 ||
	    strcmp(l->name, "NvtxStartEndRange") == 0 ||
	    strcmp(l->name, "NvtxtPushPopRange") == 0 ||
	    strcmp(l->name, "NvtxtStartEndRange") == 0)
		return NV_RANGE;
	if (strcmp(l->name, "NvtxMark") == 0 ||
	    strcmp(l->name, "NvtxtMark") == 0)
		return NV_MARK;
	if (strcmp(l->name, "NvtxDomainCreate") == 0)
		return NV_DOMAIN;
	return NV_OTHER;
}

/*
 * The query of NVTX_EVENTS into n->sql: rowid, start, end, eventType,
 * globalTid, domainId, and the text as the name (its own column, else
 * the string its textId names).
 */
static void
nvtx_text(struct nsys *n)
{
	sb_truncate(&n->sql, 0);
	sb_puts(&n->sql, "SELECT n.rowid AS rowid");
	sel(n, "NVTX_EVENTS", "n", "start");
	sel(n, "NVTX_EVENTS", "n", "end");
	sel(n, "NVTX_EVENTS", "n", "eventType");
	sel(n, "NVTX_EVENTS", "n", "globalTid");
	sel(n, "NVTX_EVENTS", "n", "domainId");
	if (n->strings) {
		sb_puts(&n->sql, ", coalesce(");
		ref(n, "NVTX_EVENTS", "n", "text");
		sb_printf(&n->sql, ", s.value) AS name FROM NVTX_EVENTS AS n"
		    " LEFT JOIN %s AS s ON s.id = ", n->strtab);
		ref(n, "NVTX_EVENTS", "n", "textId");
	} else {
		sb_puts(&n->sql, ", ");
		ref(n, "NVTX_EVENTS", "n", "text");
		sb_puts(&n->sql, " AS name FROM NVTX_EVENTS AS n");
	}
}

/* The first lit in the len bytes at s, or NULL. */
static const char *
find(const char *s, size_t len, const char *lit)
{
	size_t k = strlen(lit), i;

	for (i = 0; i + k <= len; i++)
		if (s[i] == lit[0] && memcmp(s + i, lit, k) == 0)
			return s + i;
	return NULL;
}

/* "iteration N": its N, when the text is that and nothing else. */
static int
iteration_num(const char *s, size_t len, int64_t *num)
{
	size_t i, k = sizeof(ITERATION) - 1;

	if (len <= k || len > k + 9 || memcmp(s, ITERATION, k) != 0)
		return -1;
	for (*num = 0, i = k; i < len; i++) {
		if (s[i] < '0' || s[i] > '9')
			return -1;
		*num = *num * 10 + (s[i] - '0');
	}
	return 0;
}

static void
span_add(struct spans *sp, int64_t tid, int64_t start, int64_t end,
    int64_t num)
{
	if (sp->n == sp->cap) {
		sp->cap = sp->cap ? 2 * sp->cap : 8;
		sp->v = xreallocarray(sp->v, sp->cap, sizeof(*sp->v));
	}
	sp->v[sp->n++] = (struct span){ .tid = tid, .start = start,
	    .end = end, .num = num };
}

static int
cmpspan(const void *a, const void *b)
{
	const struct span *x = a, *y = b;

	if (x->tid != y->tid)
		return x->tid < y->tid ? -1 : 1;
	if (x->start != y->start)
		return x->start < y->start ? -1 : 1;
	return (x->num > y->num) - (x->num < y->num);
}

/* Sorts sp by thread and start, and gives each its reach for inside(). */
static void
spans_index(struct spans *sp)
{
	size_t i;

	xqsort(sp->v, sp->n, sizeof(*sp->v), cmpspan);
	for (i = 0; i < sp->n; i++) {
		sp->v[i].reach = sp->v[i].end;
		sp->v[i].at = i;
		if (i > 0 && sp->v[i - 1].tid == sp->v[i].tid &&
		    sp->v[i - 1].reach >= sp->v[i].end) {
			sp->v[i].reach = sp->v[i - 1].reach;
			sp->v[i].at = sp->v[i - 1].at;
		}
	}
}

/*
 * A span of sp (indexed) on thread tid that holds [start, end], or NULL:
 * of the thread's spans that start by start, the one that ends last, in
 * time logarithmic in the spans.  Ranges of one thread nest or follow
 * each other, and then the span is the outermost that holds it.
 */
static const struct span *
inside(const struct spans *sp, int64_t tid, int64_t start, int64_t end)
{
	const struct span *v = sp->v;
	size_t lo = 0, hi = sp->n, mid;

	while (lo < hi) {
		mid = lo + (hi - lo) / 2;
		if (v[mid].tid < tid || (v[mid].tid == tid &&
		    v[mid].start <= start))
			lo = mid + 1;
		else
			hi = mid;
	}
	if (lo == 0 || v[lo - 1].tid != tid || v[lo - 1].reach < end)
		return NULL;
	return &v[v[lo - 1].at];
}

/*
 * What must be known of NVTX_EVENTS before any range is written, in one
 * pass: the domains that the ranges name, from their creation events, and
 * the snippet runner's capture ranges and the "iteration N" ranges inside
 * them, which are its steps (a capture range that holds none is one step).
 */
static int
nvtx_scan(struct nsys *n)
{
	struct label *l;
	struct strent *e;
	struct span *c;
	struct cols q;
	sqlite3_stmt *st;
	const char *s;
	int64_t type, tid, start, end, num;
	enum nvtx kind;
	size_t len, i;
	int row, rc;

	if ((rc = has_table(n, "NVTX_EVENTS")) != 1)
		return rc;
	nvtx_text(n);
	if ((st = prepare(n, n->sql.s)) == NULL)
		return -1;
	find_cols(st, &q);
	while ((rc = step(n, st, &row)) == 0 && row) {
		if (column_i64(st, q.at[R_TYPE], &type) < 0 ||
		    (s = column_str(st, q.at[R_NAME], &len)) == NULL)
			continue;
		kind = nvtx_kind(n, type);
		if (kind == NV_DOMAIN) {
			/* The first creation of each id names it. */
			if (column_i64(st, q.at[R_DOMAIN], &num) < 0 ||
			    len > 4096 ||
			    (e = strmap_put(&n->domain_ids, (const char *)&num,
			    sizeof(num)))->n++ > 0)
				continue;
			l = enum_add(&n->domains);
			l->id = num;
			l->name = xstrdup(s);
			l->label = xstrdup(s);
			continue;
		}
		if (kind != NV_RANGE ||
		    column_i64(st, q.at[R_START], &start) < 0 ||
		    column_i64(st, q.at[R_END], &end) < 0 || end < start ||
		    column_i64(st, q.at[R_GTID], &tid) < 0)
			continue;
		if (strlen(n->capture) == len &&
		    memcmp(s, n->capture, len) == 0)
			span_add(&n->captures, tid, start, end, 0);
		else if (iteration_num(s, len, &num) == 0)
			span_add(&n->iterations, tid, start, end, num);
	}
	sqlite3_finalize(st);
	if (rc < 0)
		return -1;
	enum_index(n, &n->domains, "NVTX_EVENTS");
	for (i = 0; i < n->captures.n; i++)
		n->captures.v[i].num = (int64_t)i;
	spans_index(&n->captures);
	for (i = 0; i < n->iterations.n; i++) {
		c = (struct span *)inside(&n->captures, n->iterations.v[i].tid,
		    n->iterations.v[i].start, n->iterations.v[i].end);
		if (c != NULL)
			c->inner = 1;
	}
	return 0;
}

/*
 * NVTX ranges and marks, on the thread that began them.  What
 * torch.autograd.profiler.emit_nvtx() writes ("aten::mm, seq = 5, op_id =
 * 9, sizes = [...]") is an operator, named as key_averages() names it;
 * "ProfilerStep#N" and the snippet runner's iterations are steps; every
 * other range is an annotation, with its domain when not the default.
 */
static int
nvtx_table(struct nsys *n)
{
	static const char *const suffixes[] = {
		", seq = ", ", op_id = ", ", sizes = ", ", input_op_ids = "
	};
	struct skips sk = { 0, 0, NULL };
	const struct label *dl;
	const struct span *c;
	enum nvtx kind;
	struct rec r;
	struct cols q;
	sqlite3_stmt *st;
	const char *p;
	int64_t type, gtid, dom, num;
	size_t i;
	int row, rc;

	if ((rc = has_table(n, "NVTX_EVENTS")) != 1)
		return rc;
	nvtx_text(n);
	if ((st = prepare(n, n->sql.s)) == NULL)
		return -1;
	find_cols(st, &q);
	while ((rc = step(n, st, &row)) == 0 && row) {
		if (column_i64(st, q.at[R_TYPE], &type) < 0 ||
		    ((kind = nvtx_kind(n, type)) != NV_RANGE &&
		    kind != NV_MARK))
			continue;
		n->events++;
		memset(&r, 0, sizeof(r));
		r.cat = C_ANN;
		gtid = -1;
		if (kind == NV_RANGE && sqlite3_column_type(st, q.at[R_END]) ==
		    SQLITE_NULL && sqlite3_column_type(st, q.at[R_START]) ==
		    SQLITE_INTEGER) {
			n->unended++;
			continue;
		}
		if (row_times(n, st, &q, &sk, &r.start, &r.end,
		    kind == NV_MARK) < 0 ||
		    row_name(st, &q, &sk, &r.name, &r.len) < 0)
			continue;
		if (column_i64(st, q.at[R_GTID], &gtid) == 0) {
			r.pid = GT_PID(gtid);
			r.tid = GT_TID(gtid);
			r.has |= H_PID | H_TID;
			see_thread(n, gtid);
		}
		if (column_i64(st, q.at[R_DOMAIN], &dom) == 0 && dom != 0 &&
		    (dl = enum_find(&n->domains, dom)) != NULL)
			r.domain = dl->name;
		if (kind == NV_MARK) {
			put_rec(n, &r, 1);
			continue;
		}
		for (i = 0; r.name != NULL && i < NELEM(suffixes); i++) {
			p = find(r.name, r.len, suffixes[i]);
			if (p != NULL) {
				r.len = (size_t)(p - r.name);
				r.cat = C_OP;
			}
		}
		sb_truncate(&n->name, 0);
		if (r.name != NULL && r.domain == NULL &&
		    iteration_num(r.name, r.len, &num) == 0 &&
		    inside(&n->captures, gtid, r.start,
		    r.end) != NULL) {
			sb_printf(&n->name, STEP "%" PRId64, num);
			r.cat = C_ANN;
		} else if (r.name != NULL && r.domain == NULL &&
		    strlen(n->capture) == r.len &&
		    memcmp(r.name, n->capture, r.len) == 0 &&
		    (c = inside(&n->captures, gtid, r.start, r.end)) !=
		    NULL && !c->inner)
			sb_printf(&n->name, STEP "%" PRId64, c->num);
		if (n->name.len > 0) {
			r.name = n->name.s;
			r.len = n->name.len;
		}
		if (r.len >= sizeof(STEP) - 1 &&
		    memcmp(r.name, STEP, sizeof(STEP) - 1) == 0)
			r.cat = C_ANN;
		put_rec(n, &r, 0);
	}
	sqlite3_finalize(st);
	tell_skips(n, "NVTX_EVENTS", &sk);
	return rc;
}

/* The processes of the threads written, by the names nsys gives them. */
static int
put_processes(struct nsys *n)
{
	struct strent *e;
	struct cols c;
	sqlite3_stmt *st;
	const char *s, *base;
	size_t len;
	int64_t pid;
	int row, rc;

	if ((rc = has_table(n, "PROCESSES")) != 1)
		return rc;
	sb_truncate(&n->sql, 0);
	sb_puts(&n->sql, "SELECT p.rowid AS rowid");
	sel(n, "PROCESSES", "p", "pid");
	sel(n, "PROCESSES", "p", "name");
	sb_puts(&n->sql, " FROM PROCESSES AS p");
	if ((st = prepare(n, n->sql.s)) == NULL)
		return -1;
	find_cols(st, &c);
	while ((rc = step(n, st, &row)) == 0 && row) {
		if (column_i64(st, c.at[R_PID], &pid) < 0 ||
		    (e = strmap_get(&n->pids, (const char *)&pid,
		    sizeof(pid))) == NULL || e->n++ > 0 ||
		    (s = column_str(st, c.at[R_NAME], &len)) == NULL ||
		    len > MAX_NAME)
			continue;
		/* The program, not the path to it: a path names its user. */
		for (base = s + len; base > s && base[-1] != '/'; base--)
			;
		len -= (size_t)(base - s);
		s = base;
		jw_record(n->w, "process");
		jw_key(n->w, "pid");
		jw_int(n->w, pid);
		jw_key(n->w, "name");
		jw_string(n->w, s, len);
		jw_end(n->w);
	}
	sqlite3_finalize(st);
	return rc;
}

/* The threads that records were written for, by the names nsys gives. */
static int
put_threads(struct nsys *n)
{
	struct strent *e;
	struct cols c;
	sqlite3_stmt *st;
	const char *s;
	size_t len;
	int64_t gtid, key;
	int row, rc;

	if ((rc = has_table(n, "ThreadNames")) != 1 || !n->strings)
		return rc < 0 ? -1 : 0;
	sb_truncate(&n->sql, 0);
	sb_puts(&n->sql, "SELECT t.rowid AS rowid");
	sel(n, "ThreadNames", "t", "globalTid");
	sb_printf(&n->sql, ", s.value AS name FROM ThreadNames AS t LEFT JOIN"
	    " %s AS s ON s.id = ", n->strtab);
	ref(n, "ThreadNames", "t", "nameId");
	if ((st = prepare(n, n->sql.s)) == NULL)
		return -1;
	find_cols(st, &c);
	while ((rc = step(n, st, &row)) == 0 && row) {
		if (column_i64(st, c.at[R_GTID], &gtid) < 0)
			continue;
		key = GT_PID(gtid) << 24 | GT_TID(gtid);
		if ((e = strmap_get(&n->threads, (const char *)&key,
		    sizeof(key))) == NULL || e->n++ > 0 ||
		    (s = column_str(st, c.at[R_NAME], &len)) == NULL ||
		    len > MAX_NAME)
			continue;
		jw_record(n->w, "thread");
		jw_key(n->w, "pid");
		jw_int(n->w, GT_PID(gtid));
		jw_key(n->w, "tid");
		jw_int(n->w, GT_TID(gtid));
		jw_key(n->w, "name");
		jw_string(n->w, s, len);
		jw_end(n->w);
	}
	sqlite3_finalize(st);
	return rc;
}

/*
 * The GPUs as Kineto's deviceProperties names them, from TARGET_INFO_GPU,
 * else TARGET_INFO_CUDA_DEVICE (2026 exports have no TARGET_INFO_GPU),
 * one per device id; nothing that identifies the machine (uuid, bus).
 */
static int
put_gpus(struct nsys *n)
{
	static const struct colkey gpu[] = {
		{ "id", "id" }, { "name", "name" },
		{ "totalMemory", "totalGlobalMem" },
		{ "computeMajor", "computeMajor" },
		{ "computeMinor", "computeMinor" },
		{ "maxThreadsPerBlock", "maxThreadsPerBlock" },
		{ "maxRegistersPerBlock", "regsPerBlock" },
		{ "maxRegistersPerSm", "regsPerMultiprocessor" },
		{ "threadsPerWarp", "warpSize" },
		{ "maxShmemPerBlock", "sharedMemPerBlock" },
		{ "maxShmemPerSm", "sharedMemPerMultiprocessor" },
		{ "smCount", "numSms" },
		{ "maxShmemPerBlockOptin", "sharedMemPerBlockOptin" },
		{ "memoryBandwidth", "memoryBandwidth" },
		{ "clockRate", "clockRate" },
		{ "l2CacheSize", "l2CacheSize" }
	}, cuda[] = {
		{ "cudaId", "id" }, { "numMultiprocessors", "numSms" }
	};
	const char *table = "TARGET_INFO_GPU", *idcol = "cuDevice", *s;
	const struct colkey *map = gpu;
	size_t nmap = NELEM(gpu), i;
	sqlite3_stmt *st;
	int at[NELEM(gpu)];
	int row, rc, rows = 0;

	if ((rc = has_table(n, table)) < 0)
		return -1;
	if (rc == 0 || has_col(n, table, "id") != 1) {
		table = "TARGET_INFO_CUDA_DEVICE";
		map = cuda;
		nmap = NELEM(cuda);
		if ((rc = has_table(n, table)) != 1 ||
		    (rc = has_col(n, table, "cudaId")) != 1)
			return rc < 0 ? -1 : 0;
		idcol = "cudaId";
	} else if (has_col(n, table, idcol) != 1)
		idcol = "id";
	/*
	 * A device is known by its CUDA ordinal (cuDevice), which the kernels'
	 * deviceId is, not by nsys's own GPU id: they differ on a machine of
	 * several GPUs.  It is read as the map's first column.
	 */
	sb_truncate(&n->sql, 0);
	sb_puts(&n->sql, "SELECT ");
	for (i = 0; i < nmap; i++) {
		if (i > 0)
			sb_puts(&n->sql, ", ");
		ref(n, table, "g", i == 0 ? idcol : map[i].col);
		sb_printf(&n->sql, " AS \"%s\"", map[i].col);
	}
	sb_printf(&n->sql, " FROM \"%s\" AS g GROUP BY g.\"%s\" ORDER BY"
	    " g.\"%s\"", table, idcol, idcol);
	if ((st = prepare(n, n->sql.s)) == NULL)
		return -1;
	for (i = 0; i < nmap; i++)
		at[i] = colidx(st, map[i].col);
	while ((rc = step(n, st, &row)) == 0 && row) {
		if (sqlite3_column_type(st, at[0]) != SQLITE_INTEGER)
			continue;
		if (rows++ == 0) {
			jw_key(n->w, "device_properties");
			jw_begin_array(n->w);
		}
		jw_begin_object(n->w);
		for (i = 0; i < nmap; i++) {
			switch (sqlite3_column_type(st, at[i])) {
			case SQLITE_INTEGER:
				if (map[i].key == gpu[1].key)	/* text */
					break;
				jw_ckey(n->w, map[i].key);
				jw_int(n->w, sqlite3_column_int64(st, at[i]));
				break;
			case SQLITE_FLOAT:
				if (map[i].key == gpu[1].key)
					break;
				jw_ckey(n->w, map[i].key);
				jw_double(n->w, sqlite3_column_double(st,
				    at[i]));
				break;
			case SQLITE_TEXT:
				s = (const char *)sqlite3_column_text(st,
				    at[i]);
				if (strlen(s) > 256)
					break;
				jw_ckey(n->w, map[i].key);
				jw_cstring(n->w, s);
				break;
			}
		}
		jw_end_object(n->w);
	}
	sqlite3_finalize(st);
	if (rows > 0)
		jw_end_array(n->w);
	return rc;
}

static int
put_trace(struct nsys *n)
{
	struct jw *w = n->w;
	char *version = meta(n, "EXPORT_PRODUCT_VERSION");
	char *schema = meta(n, "EXPORT_SCHEMA_VERSION");
	int i, rc;

	jw_record(w, "trace");
	jw_key(w, "file");
	jw_cstring(w, n->file);
	jw_key(w, "format");
	jw_cstring(w, "nsys-sqlite");
	jw_key(w, "nsys_version");
	jw_cstring_or_null(w, version);
	jw_key(w, "schema_version");
	jw_cstring_or_null(w, schema);
	free(version);
	free(schema);
	jw_key(w, "rank");
	if (n->rank >= 0)
		jw_int(w, n->rank);
	else
		jw_null(w);
	jw_key(w, "rank_from");
	jw_cstring_or_null(w, n->rank >= 0 ? "file name" : NULL);
	if ((rc = put_gpus(n)) < 0) {
		jw_end(w);
		return -1;
	}
	if (!n->any)
		n->first = n->last = n->origin;
	jw_key(w, "origin_ns");
	jw_int(w, n->origin);
	jw_key(w, "start");
	jw_us(w, n->first - n->origin);
	jw_key(w, "end");
	jw_us(w, n->last - n->origin);
	jw_key(w, "window");
	jw_us(w, n->last - n->first);
	jw_key(w, "events");
	jw_uint(w, n->events);
	jw_key(w, "by_ph");
	jw_begin_object(w);
	if (n->ranges > 0) {
		jw_key(w, "X");
		jw_uint(w, n->ranges);
	}
	if (n->marks > 0) {
		jw_key(w, "i");
		jw_uint(w, n->marks);
	}
	jw_end_object(w);
	jw_key(w, "by_cat");
	jw_begin_object(w);
	for (i = 0; i < NCATS; i++) {
		if (n->by_cat[i] == 0)
			continue;
		jw_ckey(w, catnames[i]);
		jw_uint(w, n->by_cat[i]);
	}
	jw_end_object(w);
	jw_key(w, "unmatched_begin");
	jw_uint(w, n->unended);
	jw_key(w, "skipped");
	jw_uint(w, n->skipped);
	jw_end(w);
	return 0;
}
