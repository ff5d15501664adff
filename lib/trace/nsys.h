/*
 * nsys: an Nsight Systems SQLite export (nsys export --type sqlite) as the
 * records tr-extract writes for a PyTorch trace ("event", "instant",
 * "process", "thread", one "trace" last; man/mrp-records.5), so that
 * op-rank and every later stage read an nsys capture as they read a Kineto
 * trace.  man/nsys-extract.1 says what each table becomes.
 *
 * Every table and column is looked up before use, and the export's own
 * ENUM_* tables name its enumerated values; what a version leaves out is
 * left out of the records.  Rows are streamed from SQLite one at a time;
 * what is kept is bounded by the threads, processes, NVTX domains and the
 * snippet runner's capture ranges, never by the rows.  Nothing is read of
 * the tables that hold the capturing job's environment and command line
 * (META_DATA_CAPTURE, TARGET_INFO_SYSTEM_ENV, the blocks of StringIds
 * that no event names), nor of the export's metadata beyond the nsys and
 * schema versions.
 *
 * Records go through the caller's writer, which stays the caller's, as
 * with extract_trace().
 */
#ifndef NSYS_H
#define NSYS_H

#include "io/ndjson.h"

struct sqlite3;

struct nsys_opts {
	/* The snippet runner's capture range ("profile-target"); NULL: that. */
	const char	*capture;
};

/*
 * Reads the export at path (a file: SQLite cannot read a pipe) and writes
 * its records through w.  Returns 0; 1 when it could not be opened or is
 * no regular file (reported; a FIFO is never waited on); -1 after a data
 * error (reported "file: message"): not an SQLite database, a .nsys-rep
 * (with the command that exports it), an SQLite database that is no nsys
 * export, one with a write-ahead log beside it that the file lacks, or
 * one SQLite cannot read; and once w's consumer has refused a record.  Rows that cannot be used (a
 * time that is not an integer, an end before the start) are skipped and
 * counted in one warning per table.  path, w and o are borrowed.
 */
int nsys_extract(const char *path, struct jw *w, const struct nsys_opts *o);

/*
 * The same on a database the caller opened (the fuzz harness's, in
 * memory); file names it in messages and in the "trace" record.  db is
 * borrowed and only read: its defensive settings are set, and a
 * temporary table of its strings may be made and is dropped.
 */
int nsys_extract_db(struct sqlite3 *db, const char *file, struct jw *w,
    const struct nsys_opts *o);

#endif
