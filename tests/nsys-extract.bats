#!/usr/bin/env bats
# nsys-extract: Nsight Systems SQLite exports in, tr-extract's records out,
# checked against SQL over the same tables.

bats_require_minimum_version 1.5.0

setup() {
	load test_helper
	command -v sqlite3 >/dev/null || skip "sqlite3 is not installed"
}

# The exports: the bundled ones, and the shared ones when they are there.
exports() {
	ls "$FIXTURES"/*.sqlite
	ls "$SHARED"/nsys/*.sqlite 2>/dev/null || :
}

# The bytes of every copy and memset, by SQL over the tables there are.
sql_bytes() {
	local t sum=0
	for t in $(sqlite3 "$1" "SELECT name FROM sqlite_master WHERE name IN
	    ('CUPTI_ACTIVITY_KIND_MEMCPY', 'CUPTI_ACTIVITY_KIND_MEMSET')"); do
		sum=$((sum + $(sqlite3 "$1" "SELECT coalesce(sum(bytes), 0) FROM $t")))
	done
	echo "$sum"
}

# Per kernel name: count and total nanoseconds, by SQL over the export.
sql_kernels() {
	sqlite3 -separator $'\t' "$1" "
	    SELECT coalesce(d.value, s.value), count(*), sum(k.end - k.start)
	    FROM CUPTI_ACTIVITY_KIND_KERNEL AS k
	    LEFT JOIN StringIds AS d ON d.id = k.demangledName
	    LEFT JOIN StringIds AS s ON s.id = k.shortName
	    GROUP BY 1" | LC_ALL=C sort
}

# The same from op-rank, over the kernel records alone.
our_kernels() {
	nsys-extract "$1" |
	    jq -c 'select(.kind != "event" or .cat == "kernel")' | op-rank |
	    jq -r 'select(.kind == "kernel") |
	        [.name, .count, (.total * 1000 | round)] | @tsv' | LC_ALL=C sort
}

# Per device: the union of kernels, copies and memsets, in nanoseconds.
sql_busy() {
	local t tables="" u=""
	for t in KERNEL MEMCPY MEMSET; do
		[ -n "$(sqlite3 "$1" "SELECT name FROM sqlite_master WHERE
		    name = 'CUPTI_ACTIVITY_KIND_$t'")" ] || continue
		tables="$tables$u SELECT deviceId AS d, start AS s, end AS e
		    FROM CUPTI_ACTIVITY_KIND_$t WHERE end > start"
		u=" UNION ALL"
	done
	sqlite3 -separator $'\t' "$1" "
	    WITH ev AS ($tables),
	    o AS (SELECT d, s, e, max(e) OVER (PARTITION BY d ORDER BY s, e
	        ROWS BETWEEN UNBOUNDED PRECEDING AND 1 PRECEDING) AS pe FROM ev),
	    g AS (SELECT d, s, e, sum(CASE WHEN pe IS NULL OR s > pe THEN 1
	        ELSE 0 END) OVER (PARTITION BY d ORDER BY s, e) AS grp FROM o)
	    SELECT d, sum(ge - gs) FROM (SELECT d, grp, min(s) AS gs,
	        max(e) AS ge FROM g GROUP BY d, grp) GROUP BY d ORDER BY d"
}

our_busy() {
	nsys-extract "$1" | op-rank |
	    jq -r 'select(.kind == "gpu_timeline") |
	        [.device, (.busy * 1000 | round)] | @tsv'
}

# Every environment variable's name an export holds, as "NAME=": from the
# environment blocks among its strings and the capture's metadata.
env_names() {
	{
		sqlite3 "$1" "SELECT value FROM StringIds" 2>/dev/null
		sqlite3 "$1" "SELECT value FROM META_DATA_CAPTURE" 2>/dev/null
		sqlite3 "$1" "SELECT name || '=' || value FROM
		    TARGET_INFO_SYSTEM_ENV" 2>/dev/null
	} | grep -oE '(^|[ ;])[A-Za-z_][A-Za-z0-9_]*=' | tr -d ' ;' |
	    LC_ALL=C sort -u
}

@test "golden output on real exports, and on a snippet run's" {
	cd "$FIXTURES"
	local golden n=0
	for golden in *.ndjson; do
		run -0 nsys-extract "${golden%.ndjson}.sqlite"
		assert_output - < "$golden"
		n=$((n + 1))
	done
	[ "$n" -eq 3 ]
}

@test "per kernel name, count and total time equal SQL on every export" {
	local f n=0
	for f in $(exports); do
		run -0 sql_kernels "$f"
		local want=$output
		[ -n "$want" ] || continue
		run -0 our_kernels "$f"
		assert_output "$want"
		n=$((n + 1))
	done
	[ "$n" -ge 3 ]
}

@test "the bytes of copies and memsets are SQL's, through op-rank's kernel records" {
	local f n=0
	for f in $(exports); do
		run -0 sql_bytes "$f"
		local want=$output
		[ "$want" != 0 ] || continue
		run -0 bats_pipe nsys-extract "$f" \| jq -s \
		    '[.[] | select(.cat == "gpu_memcpy" or .cat == "gpu_memset") | .bytes] | add'
		assert_output "$want"
		run -0 bats_pipe nsys-extract "$f" \| op-rank -n 0 \| jq -s \
		    '[.[] | select(.kind == "kernel") | .bytes // 0] | add'
		assert_output "$want"
		n=$((n + 1))
	done
	[ "$n" -ge 2 ]
}

@test "GPU busy per device is the union of kernels, copies and memsets" {
	local f
	for f in $(exports); do
		run -0 sql_busy "$f"
		local want=$output
		run -0 our_busy "$f"
		assert_output "$want"
	done
}

@test "the shared exports of four nsys versions: each version's tables are read" {
	need_shared nsys
	# The report of each is made by the test that no secret reaches any
	# output.
	[ "$(ls "$SHARED"/nsys/*.sqlite | wc -l)" -eq 5 ]
	# Each version's tables: 2022's metadata table and ENUM-less copies,
	# 2024's ENUM tables, 2026's missing TARGET_INFO_GPU.
	run -0 bats_pipe nsys-extract "$SHARED"/nsys/pipit__saxpy-mpi-cuda_nsys_perlmutter0.sqlite \| tail -n 1 \| jq -c '[.nsys_version, .schema_version, .by_cat]'
	assert_output '["2022.2.1.31","2.9.1",{"cuda_runtime":95,"gpu_memcpy":15,"kernel":5,"user_annotation":22}]'
	run -0 bats_pipe nsys-extract "$SHARED"/nsys/pipit__saxpy-mpi-cuda_nsys_perlmutter0.sqlite \| jq -r 'select(.cat == "gpu_memcpy") | .name' \| sort -u
	assert_output $'Memcpy DtoH (Device -> Pageable)\nMemcpy HtoD (Pageable -> Device)'
	run -0 bats_pipe nsys-extract "$SHARED"/nsys/pipit__saxpy-mpi-cuda_nsys_perlmutter0.sqlite \| jq -c 'select(.domain != null) | [.name, .domain]' \| head -n 1
	assert_output '["MPI_Init","MPI"]'
	run -0 bats_pipe nsys-extract "$SHARED"/nsys/nsys-ai__h100_2gpu_1s.sqlite \| tail -n 1 \| jq -c '[.nsys_version, .device_properties, .by_cat.cpu_op]'
	assert_output '["2026.2.1.210",null,16782]'
	# emit_nvtx's "aten::view, op_id = 314290" is the operator aten::view.
	run -0 bats_pipe nsys-extract "$SHARED"/nsys/nsys-ai__h100_2gpu_1s.sqlite \| jq -r 'select(.cat == "cpu_op") | .name' \| sort -u \| awk '/,/ { n++ } END { print n + 0 }'
	assert_output 0
}

@test "no environment variable and no secret reaches any output" {
	local f base names out=$BATS_TEST_TMPDIR/out
	mkdir -p "$out"
	# A copy whose environment holds a credential, in every place an
	# export keeps one.
	cp "$FIXTURES/nsys-ai__mock.sqlite" "$BATS_TEST_TMPDIR/secret.sqlite"
	chmod u+w "$BATS_TEST_TMPDIR/secret.sqlite"
	sqlite3 "$BATS_TEST_TMPDIR/secret.sqlite" "
	    UPDATE META_DATA_CAPTURE SET value = 'AWS_SECRET_ACCESS_KEY=hunter2'
	        WHERE name LIKE '%ENVIRONMENT%';
	    UPDATE META_DATA_CAPTURE SET value = 'hunter2 --token hunter2'
	        WHERE name LIKE '%ARGUMENT%';
	    UPDATE TARGET_INFO_SYSTEM_ENV SET value = 'hunter2';
	    INSERT INTO StringIds (value) VALUES ('AWS_SECRET_ACCESS_KEY=hunter2 HOME=/home/hunter2');
	    UPDATE META_DATA_EXPORT SET value = 'hunter2' WHERE name IN
	        ('EXPORT_HOST', 'EXPORT_USER', 'EXPORT_PARAM_INPUT_PATH_ABS');
	    UPDATE TARGET_INFO_GPU SET uuid = 'hunter2', busLocation = 'hunter2'"
	for f in $(exports) "$BATS_TEST_TMPDIR/secret.sqlite"; do
		base=$(basename "$f" .sqlite)
		nsys-extract "$f" > "$out/$base.ndjson" 2>&1
		analyze-profile --nsys-sqlite "$f" --md-out "$out/$base.md" \
		    --json-out "$out/$base.json" --html-out "$out/$base.html" \
		    2>"$out/$base.err" || fail "$f"
		grep -q '^## Prioritized actions' "$out/$base.md"
		run -0 jq -r '.inputs[0].role' "$out/$base.json"
		assert_output nsys_export
		names=$(env_names "$f")
		[ -z "$names" ] && continue
		run grep -F -l -f <(printf '%s\n' "$names") "$out/$base".*
		assert_output ''
	done
	[ -n "$(env_names "$BATS_TEST_TMPDIR/secret.sqlite")" ]
	run grep -rl hunter2 "$out"
	assert_output ''
}

@test "the snippet runner's iterations are steps; -c names its capture range" {
	cd "$FIXTURES"
	run -0 bats_pipe nsys-extract snippet-run.sqlite \| jq -r 'select(.kind == "event" and .cat == "user_annotation") | .name'
	assert_output $'profile-target\nProfilerStep#0\nProfilerStep#1'
	run -0 bats_pipe nsys-extract snippet-run.sqlite \| op-rank \| jq -c 'select(.kind == "step") | [.step, .dur]'
	assert_output $'[0,17550]\n[1,22290]'
	# Another capture range name: the iterations are plain ranges.
	run -0 bats_pipe nsys-extract -c custom-target snippet-run.sqlite \| jq -r 'select(.cat == "user_annotation") | .name'
	assert_output $'profile-target\niteration 0\niteration 1'
	# A capture range without iterations is one step.
	cp snippet-run.sqlite "$BATS_TEST_TMPDIR/one.sqlite"
	chmod u+w "$BATS_TEST_TMPDIR/one.sqlite"
	sqlite3 "$BATS_TEST_TMPDIR/one.sqlite" "DELETE FROM NVTX_EVENTS WHERE text LIKE 'iteration %'"
	run -0 bats_pipe nsys-extract "$BATS_TEST_TMPDIR/one.sqlite" \| jq -r 'select(.cat == "user_annotation") | .name'
	assert_output 'ProfilerStep#0'
}

@test "tables and columns a version leaves out, and rows that cannot be used" {
	local db=$BATS_TEST_TMPDIR/drift.sqlite
	sqlite3 "$db" "
	    CREATE TABLE StringIds (id INTEGER PRIMARY KEY, value TEXT);
	    INSERT INTO StringIds VALUES (1, 'k'), (2, 'cudaLaunchKernel_v7000');
	    CREATE TABLE CUPTI_ACTIVITY_KIND_KERNEL (start, end, streamId, shortName);
	    INSERT INTO CUPTI_ACTIVITY_KIND_KERNEL VALUES (1000, 3000, 7, 1),
	        (NULL, 5, 7, 1), ('x', 9, 7, 1), (9000, 8000, 7, 1), (4000, 4500, NULL, NULL);
	    CREATE TABLE CUPTI_ACTIVITY_KIND_RUNTIME (start, end, nameId);
	    INSERT INTO CUPTI_ACTIVITY_KIND_RUNTIME VALUES (900, 950, 2), (960, 970, 99);"
	run -0 --separate-stderr nsys-extract "$db"
	assert_output - <<-EOF
	{"kind":"event","name":"k","cat":"kernel","tid":7,"ts":1,"dur":2,"stream":7}
	{"kind":"event","cat":"kernel","ts":4,"dur":0.5}
	{"kind":"event","name":"cudaLaunchKernel","cat":"cuda_runtime","ts":0.9,"dur":0.05}
	{"kind":"event","cat":"cuda_runtime","ts":0.96,"dur":0.01}
	{"kind":"trace","file":"$db","format":"nsys-sqlite","nsys_version":null,"schema_version":null,"rank":null,"rank_from":null,"origin_ns":0,"start":0.9,"end":4.5,"window":3.6,"events":7,"by_ph":{"X":4},"by_cat":{"cuda_runtime":2,"kernel":2},"unmatched_begin":0,"skipped":3}
	EOF
	assert_stderr "nsys-extract: $db: warning: CUPTI_ACTIVITY_KIND_KERNEL: 3 rows skipped; the first, rowid 2, has a start or end that is not an integer"
}

@test "a string id given twice names its events once, by its first row, with a warning" {
	local db=$BATS_TEST_TMPDIR/fan.sqlite
	# No key: ten rows of id 1, two of id 2; three joins on id 1 gave
	# each kernel a thousand records.
	sqlite3 "$db" "CREATE TABLE StringIds (id, value);
	    WITH RECURSIVE c(i) AS (SELECT 1 UNION ALL SELECT i + 1 FROM c WHERE i < 10)
	    INSERT INTO StringIds SELECT 1, 'k' || i FROM c;
	    INSERT INTO StringIds VALUES (2, 'cudaLaunchKernel_v7000'), (2, 'other');
	    CREATE TABLE CUPTI_ACTIVITY_KIND_KERNEL (start, end, streamId, demangledName, shortName, mangledName);
	    INSERT INTO CUPTI_ACTIVITY_KIND_KERNEL VALUES (1000, 2000, 7, 1, 1, 1), (3000, 4000, 7, 1, 1, 1);
	    CREATE TABLE CUPTI_ACTIVITY_KIND_RUNTIME (start, end, nameId);
	    INSERT INTO CUPTI_ACTIVITY_KIND_RUNTIME VALUES (900, 950, 2);
	    CREATE TABLE NVTX_EVENTS (start, end, eventType, textId);
	    INSERT INTO NVTX_EVENTS VALUES (800, 4500, 59, 1)"
	run -0 --separate-stderr nsys-extract "$db"
	assert_output - <<-EOF
	{"kind":"event","name":"k1","cat":"kernel","tid":7,"ts":1,"dur":1,"stream":7}
	{"kind":"event","name":"k1","cat":"kernel","tid":7,"ts":3,"dur":1,"stream":7}
	{"kind":"event","name":"cudaLaunchKernel","cat":"cuda_runtime","ts":0.9,"dur":0.05}
	{"kind":"event","name":"k1","cat":"user_annotation","ts":0.8,"dur":3.7}
	{"kind":"trace","file":"$db","format":"nsys-sqlite","nsys_version":null,"schema_version":null,"rank":null,"rank_from":null,"origin_ns":0,"start":0.8,"end":4.5,"window":3.7,"events":4,"by_ph":{"X":4},"by_cat":{"cuda_runtime":1,"kernel":2,"user_annotation":1},"unmatched_begin":0,"skipped":0}
	EOF
	assert_stderr "nsys-extract: $db: warning: StringIds: 10 rows repeat the id of a row before them; the first row of each id names it"
	# An event type named twice: the first row names it.
	sqlite3 "$db" "CREATE TABLE ENUM_NSYS_EVENT_TYPE (id, name);
	    INSERT INTO ENUM_NSYS_EVENT_TYPE VALUES (59, 'NvtxPushPopRange'), (59, 'NvtxMark')"
	run -0 --separate-stderr bats_pipe nsys-extract "$db" \| grep -c user_annotation
	assert_output 2
	assert_stderr --partial "nsys-extract: $db: warning: ENUM_NSYS_EVENT_TYPE: 1 row repeats the id of a row before it; the first row of each id names it"
}

# big_nvtx DB SQL: an export of NVTX_EVENTS (start, end, eventType,
# globalTid, domainId, text) that SQL fills from c(i), i = 1 to 300,000.
big_nvtx() {
	sqlite3 "$1" "CREATE TABLE NVTX_EVENTS (start INTEGER, end INTEGER,
	    eventType INTEGER, globalTid INTEGER, domainId INTEGER, text TEXT);
	    CREATE TABLE c (i INTEGER PRIMARY KEY);
	    WITH RECURSIVE n(i) AS (SELECT 1 UNION ALL SELECT i + 1 FROM n WHERE i < 300000)
	    INSERT INTO c SELECT i FROM n; $2"
}

@test "each row's lookups take logarithmic time: capture ranges, event types, domains" {
	local t=$BATS_TEST_TMPDIR
	# 300,000 capture ranges, each with an iteration: 3 minutes when
	# each iteration was looked for among all the ranges.
	big_nvtx "$t/capture.sqlite" "INSERT INTO NVTX_EVENTS SELECT i * 1000,
	    i * 1000 + 900, 59, 1, 0, 'profile-target' FROM c;
	    INSERT INTO NVTX_EVENTS SELECT i * 1000 + 10, i * 1000 + 800, 59,
	    1, 0, 'iteration ' || i FROM c"
	run -0 bats_pipe timeout 30 nsys-extract "$t/capture.sqlite" \| grep -c '"name":"ProfilerStep#'
	assert_output 300000
	# 300,000 event types, the one the rows name last.
	big_nvtx "$t/types.sqlite" "CREATE TABLE ENUM_NSYS_EVENT_TYPE (id, name);
	    INSERT INTO ENUM_NSYS_EVENT_TYPE SELECT 1000 + i, 'T' || i FROM c;
	    INSERT INTO ENUM_NSYS_EVENT_TYPE VALUES (59, 'NvtxPushPopRange');
	    INSERT INTO NVTX_EVENTS SELECT i * 1000, i * 1000 + 900, 59, 1, 0, 'r' FROM c"
	run -0 bats_pipe timeout 30 nsys-extract "$t/types.sqlite" \| grep -c '"name":"r"'
	assert_output 300000
	# 300,000 domains, and a range in each.
	big_nvtx "$t/domains.sqlite" "INSERT INTO NVTX_EVENTS SELECT i, NULL, 75, 1, i,
	    'domain ' || i FROM c;
	    INSERT INTO NVTX_EVENTS SELECT i * 1000, i * 1000 + 900, 59, 1,
	    300001 - i, 'r' FROM c"
	run -0 bats_pipe timeout 30 nsys-extract "$t/domains.sqlite" \| grep -c '"domain":"domain '
	assert_output 300000
}

@test "a FIFO or a device is refused before it is read, and the next export is read" {
	cd "$BATS_TEST_TMPDIR"
	mkfifo fifo.sqlite
	run -1 --separate-stderr timeout 10 nsys-extract fifo.sqlite "$FIXTURES/nsys-ai__mock.sqlite"
	assert_stderr 'nsys-extract: fifo.sqlite: not a regular file: SQLite reads an export from a file'
	assert_output --partial '"kind":"trace","file":"'"$FIXTURES/nsys-ai__mock.sqlite"'"'
	run -1 --separate-stderr timeout 10 nsys-extract /dev/zero
	assert_stderr 'nsys-extract: /dev/zero: not a regular file: SQLite reads an export from a file'
}

@test "an export's schema runs nothing: a view is no table, a generated column no column" {
	local db=$BATS_TEST_TMPDIR/view.sqlite
	# A view that never ends in place of the kernels.
	sqlite3 "$db" "CREATE TABLE StringIds (id INTEGER PRIMARY KEY, value TEXT);
	    INSERT INTO StringIds VALUES (1, 'k');
	    CREATE VIEW CUPTI_ACTIVITY_KIND_KERNEL AS WITH RECURSIVE c(i) AS
	        (SELECT 1 UNION ALL SELECT i + 1 FROM c)
	        SELECT i AS start, i + 1 AS end, 7 AS streamId, 1 AS shortName FROM c"
	run -1 --separate-stderr timeout 30 nsys-extract "$db"
	assert_stderr --partial "not an Nsight Systems export"
	# A start column computed on every read, 2,000 comparisons a row.
	db=$BATS_TEST_TMPDIR/generated.sqlite
	sqlite3 "$db" "CREATE TABLE StringIds (id INTEGER PRIMARY KEY, value TEXT);
	    INSERT INTO StringIds VALUES (1, 'k');
	    CREATE TABLE CUPTI_ACTIVITY_KIND_KERNEL (s INTEGER, end INTEGER,
	        streamId INTEGER, shortName INTEGER, start INTEGER GENERATED ALWAYS
	        AS (CASE s $(printf 'WHEN -%d THEN 0 ' $(seq 2000)) ELSE s END) VIRTUAL);
	    INSERT INTO CUPTI_ACTIVITY_KIND_KERNEL (s, end, streamId, shortName)
	        VALUES (1000, 2000, 7, 1)"
	run -0 --separate-stderr timeout 30 nsys-extract "$db"
	refute_output --partial '"cat":"kernel"'
	assert_stderr --partial "CUPTI_ACTIVITY_KIND_KERNEL: 1 row skipped"
}

@test "an export with a write-ahead log beside it is refused, not read in part" {
	cd "$BATS_TEST_TMPDIR"
	sqlite3 w.sqlite "CREATE TABLE CUPTI_ACTIVITY_KIND_KERNEL (start INTEGER, end INTEGER);
	    INSERT INTO CUPTI_ACTIVITY_KIND_KERNEL VALUES (0, 10);
	    PRAGMA journal_mode = WAL" >/dev/null
	# 999 kernels more in the log, copied with the file while a writer
	# has it open: read immutable, the file gave one kernel, and exit 0.
	sqlite3 w.sqlite <<-EOF
	PRAGMA wal_autocheckpoint = 0;
	WITH RECURSIVE c(i) AS (SELECT 1 UNION ALL SELECT i + 1 FROM c WHERE i < 999)
	INSERT INTO CUPTI_ACTIVITY_KIND_KERNEL SELECT i * 100, i * 100 + 10 FROM c;
	.shell cp w.sqlite x.sqlite; cp w.sqlite-wal x.sqlite-wal
	EOF
	[ -s x.sqlite-wal ]
	run -1 --separate-stderr nsys-extract x.sqlite
	assert_stderr "nsys-extract: x.sqlite: x.sqlite-wal beside it holds changes that the file lacks (an export still being written, or copied before SQLite closed it): refused, not read in part; opening it once with sqlite3 where it can be written puts the log into it"
	assert_output ''
	# Put into the file, the log adds the 999.
	sqlite3 x.sqlite 'PRAGMA wal_checkpoint(TRUNCATE)' >/dev/null
	run -0 bats_pipe nsys-extract x.sqlite \| tail -n 1 \| jq .events
	assert_output 1000
}

@test "what is not an export is refused, with the command that exports a report" {
	cd "$BATS_TEST_TMPDIR"
	printf 'NSYS report, not SQLite' > run.nsys-rep
	run -1 --separate-stderr nsys-extract run.nsys-rep
	assert_stderr 'nsys-extract: run.nsys-rep: not an SQLite database; export an Nsight Systems report with: nsys export --type sqlite --output run.sqlite run.nsys-rep'
	: > empty.sqlite
	run -1 --separate-stderr nsys-extract empty.sqlite
	assert_stderr --partial 'nsys-extract: empty.sqlite: empty, not an SQLite database;'
	# A gzipped export is not one: SQLite reads the file as it is.
	gzip -c "$FIXTURES/nsys-ai__mock.sqlite" > mock.sqlite.gz
	run -1 --separate-stderr nsys-extract mock.sqlite.gz
	assert_stderr --partial 'mock.sqlite.gz: not an SQLite database;'
	sqlite3 other.sqlite "CREATE TABLE t (a); INSERT INTO t VALUES (1)"
	run -1 --separate-stderr nsys-extract other.sqlite
	assert_stderr 'nsys-extract: other.sqlite: an SQLite database, but not an Nsight Systems export: none of its tables (CUPTI_ACTIVITY_KIND_*, NVTX_EVENTS, META_DATA_EXPORT)'
	# Cut short: SQLite's own reason, exit 1, nothing after it read.
	head -c 100000 "$FIXTURES/nsys-ai__mock.sqlite" > cut.sqlite
	run -1 --separate-stderr nsys-extract cut.sqlite "$FIXTURES/nsys-ai__mock.sqlite"
	assert_stderr --partial 'nsys-extract: cut.sqlite: '
	assert_stderr --partial 'SQLite: database disk image is malformed'
	refute_output --partial '"kind":"trace"'
	run -1 --separate-stderr nsys-extract no-such.sqlite
	assert_stderr 'nsys-extract: no-such.sqlite: No such file or directory'
}

@test "SQLite's words on an export reach the terminal with their controls escaped" {
	local db=$BATS_TEST_TMPDIR/schema.sqlite esc
	# A table whose name holds ESC and BEL, its schema made malformed.
	esc=$(printf '\033]0;owned\007\033[31m')
	sqlite3 "$db" "CREATE TABLE CUPTI_ACTIVITY_KIND_KERNEL (start, end);
	    CREATE TABLE t (a); PRAGMA writable_schema = ON;
	    UPDATE sqlite_master SET name = 'x$esc', sql = 'CREATE TABLE \"x$esc\" (a'
	    WHERE name = 't'"
	run -1 --separate-stderr nsys-extract "$db"
	assert_stderr "nsys-extract: $db: cannot be read: SQLite: malformed database schema (x\\x1b]0;owned\\x07\\x1b[31m)"
	# A file name's controls, a newline among them, are escaped too.
	cp "$db" "$BATS_TEST_TMPDIR/a$esc"$'\n''b.sqlite'
	run -1 --separate-stderr nsys-extract "$BATS_TEST_TMPDIR/a$esc"$'\n''b.sqlite'
	assert_stderr --partial "nsys-extract: $BATS_TEST_TMPDIR/a\\x1b]0;owned\\x07\\x1b[31m\\x0ab.sqlite: cannot be read: "
}

@test "usage errors exit 2; standard input is refused" {
	run -2 --separate-stderr nsys-extract
	assert_stderr --partial 'usage: nsys-extract [-c name] file ...'
	run -2 --separate-stderr nsys-extract -
	assert_stderr 'nsys-extract: -: SQLite cannot read an export from standard input; name the file'
	run -2 --separate-stderr nsys-extract -Z x
	run -2 --separate-stderr nsys-extract -c '' x
	assert_output ''
}

@test "an export without events gives its trace record, and no report" {
	local db=$BATS_TEST_TMPDIR/none.sqlite
	sqlite3 "$db" "CREATE TABLE StringIds (id INTEGER PRIMARY KEY, value TEXT);
	    CREATE TABLE CUPTI_ACTIVITY_KIND_KERNEL (start, end);
	    CREATE TABLE META_DATA_EXPORT (name, value);
	    INSERT INTO META_DATA_EXPORT VALUES ('EXPORT_PRODUCT_VERSION', '2026.1.1.204')"
	run -0 bats_pipe nsys-extract "$db" \| jq -c '[.kind, .nsys_version, .events]'
	assert_output '["trace","2026.1.1.204",0]'
	run -1 --separate-stderr analyze-profile --nsys-sqlite "$db"
	assert_stderr --partial "$db: no events"
}

@test "names are data: odd characters, a rank in the name, a read-only place" {
	cd "$BATS_TEST_TMPDIR"
	mkdir ro
	cp "$FIXTURES/nsys-ai__mock.sqlite" 'ro/a b?c#d%e&rank3.sqlite'
	chmod a-w ro
	run -0 bats_pipe nsys-extract 'ro/a b?c#d%e&rank3.sqlite' \| tail -n 1 \| jq -c '[.file, .rank, .rank_from]'
	assert_output '["ro/a b?c#d%e&rank3.sqlite",3,"file name"]'
	chmod u+w ro
}

@test "a failed write exits 1" {
	[ -e /dev/full ] || skip "no /dev/full"
	run -1 --separate-stderr bash -c 'nsys-extract "$1" > /dev/full' sh "$FIXTURES/nsys-ai__mock.sqlite"
	assert_stderr --partial 'nsys-extract: <stdout>:'
}

@test "before and after: two exports through analyze-profile and report-diff" {
	cd "$FIXTURES"
	run -0 analyze-profile --nsys-sqlite snippet-run.sqlite --json-out "$BATS_TEST_TMPDIR/before.json" --md-out /dev/null
	run -0 analyze-profile --nsys-sqlite snippet-after.sqlite --json-out "$BATS_TEST_TMPDIR/after.json" --md-out /dev/null
	# The launches were ten times shorter after, and so the steps: the
	# operator table's runtime rows, as key_averages() has them, show it.
	run -0 bats_pipe report-diff -j "$BATS_TEST_TMPDIR/before.json" "$BATS_TEST_TMPDIR/after.json" \| jq -c '[.kind, .step_time.before_us, .step_time.after_us, (.ops[:1] | map([.name, .before_self_us, .after_self_us]))]'
	assert_output '["diff",19920,4079.818,[["cudaLaunchKernel",35200,3519]]]'
	run -0 report-diff "$BATS_TEST_TMPDIR/before.json" "$BATS_TEST_TMPDIR/after.json"
	assert_output --partial '| Mean step | 19.92 ms | 4.08 ms | -15.84 ms (-79.5 %) |'
}

@test "report.mk: a run directory of exports, and of reports with and without nsys" {
	cd "$BATS_TEST_TMPDIR"
	mkdir run
	cp "$FIXTURES/snippet-run.sqlite" run/trace.sqlite
	run -0 make -s -f "$TOP/pipelines/report.mk" BIN="${BUILD:-$TOP}/bin" RUN=run
	run -0 head -n 1 run/report.md
	assert_output '# Profile report'
	run -0 jq -r '.inputs[0] | [.path, .role] | @tsv' run/report.json
	assert_output $'run/trace.sqlite\tnsys_export'
	run -0 bats_pipe sed -n '/^### Slowest steps/,/^##/p' run/report.md \| \
	    grep -c '^| ProfilerStep#'
	assert_output 2
	# A report without its export, and no nsys: the command is named.
	mkdir rep
	printf 'not read' > rep/trace.nsys-rep
	PATH=/usr/bin:/bin run -2 --separate-stderr make -s -f "$TOP/pipelines/report.mk" BIN="${BUILD:-$TOP}/bin" RUN=rep
	assert_stderr --partial 'report.mk: rep/trace.nsys-rep: nsys is not on PATH; export the report where it is: nsys export --type sqlite --output rep/trace.sqlite rep/trace.nsys-rep'
	# With nsys (a stand-in that copies an export), it is exported first.
	mkdir bin
	printf '#!/bin/sh\n# nsys export --type sqlite --force-overwrite true --output OUT IN\neval "out=\\${$(($# - 1))}"\ncp "%s" "$out"\n' "$FIXTURES/snippet-run.sqlite" > bin/nsys
	chmod +x bin/nsys
	PATH="$PWD/bin:$PATH" run -0 make -s -f "$TOP/pipelines/report.mk" BIN="${BUILD:-$TOP}/bin" RUN=rep
	[ -f rep/trace.sqlite ]
	run -0 bats_pipe sed -n '/^### Slowest steps/,/^##/p' rep/report.md \| \
	    grep -c '^| ProfilerStep#'
	assert_output 2
	run -0 ls -A rep
	refute_output --partial '.tmp'
}

@test "report.mk: a FIFO among the inputs stops make before anything runs, naming it" {
	cd "$BATS_TEST_TMPDIR"
	mkdir run
	cp "$FIXTURES/snippet-run.sqlite" run/trace.sqlite
	mkfifo run/x.sqlite run/trace.json
	run -2 --separate-stderr timeout 60 make -s -f "$TOP/pipelines/report.mk" BIN="${BUILD:-$TOP}/bin" RUN=run
	assert_stderr --partial 'report.mk: run/trace.json run/x.sqlite: not a regular file; an input is read from a file'
	run -0 ls -A run
	assert_output - <<-EOF
	trace.json
	trace.sqlite
	x.sqlite
	EOF
}

@test "the man page's examples" {
	cd "$FIXTURES"
	man_examples nsys-extract.1 > "$BATS_TEST_TMPDIR/ex"
	[ "$(wc -l < "$BATS_TEST_TMPDIR/ex")" -eq 3 ]
	check_example nsys-extract.1 1
	check_example nsys-extract.1 2
	check_example nsys-extract.1 3
}
