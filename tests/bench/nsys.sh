# nsys-extract against sqlite3 dumping the same tables as CSV, on the
# largest shared export (nsys 2026, two H100s) grown 128-fold: its event
# rows repeated seven times over, each copy after the last in time.
SRC=$SHARED/nsys/nsys-ai__h100_2gpu_1s.sqlite
NSYS_BIG=$BENCH_DIR/nsys-h100-x128.sqlite
EVENTS="CUPTI_ACTIVITY_KIND_KERNEL CUPTI_ACTIVITY_KIND_MEMCPY
	CUPTI_ACTIVITY_KIND_MEMSET CUPTI_ACTIVITY_KIND_SYNCHRONIZATION
	CUPTI_ACTIVITY_KIND_RUNTIME NVTX_EVENTS"
if [ ! -s "$NSYS_BIG" ]; then
	echo "bench: building $NSYS_BIG (once)" >&2
	cp "$SRC" "$NSYS_BIG.tmp"
	chmod u+w "$NSYS_BIG.tmp"
	for i in 1 2 3 4 5 6 7; do
		for t in $EVENTS; do
			sqlite3 "$NSYS_BIG.tmp" "
			    CREATE TEMP TABLE c AS SELECT * FROM $t;
			    UPDATE c SET start = start + (SELECT max(end) -
			        min(start) + 1000 FROM $t), end = end + (SELECT
			        max(end) - min(start) + 1000 FROM $t);
			    INSERT INTO $t SELECT * FROM c; DROP TABLE c"
		done
	done
	mv "$NSYS_BIG.tmp" "$NSYS_BIG"
fi
size=$(stat -c %s "$NSYS_BIG")
rows=$(for t in $EVENTS; do sqlite3 "$NSYS_BIG" "SELECT count(*) FROM $t"; done |
    awk '{ n += $1 } END { print n }')
echo "export: $size bytes, $rows event rows"
ours=$(measure "nsys-extract export.sqlite" "$size" "$BIN/nsys-extract '$NSYS_BIG'")
echo "$ours"
sql=""
for t in $EVENTS StringIds ThreadNames PROCESSES; do
	sql="$sql SELECT * FROM $t;"
done
base=$(measure "sqlite3 -csv, the same tables" "$size" "sqlite3 -csv '$NSYS_BIG' '$sql'")
echo "$base"
awk -v a="$(figures "$ours")" -v b="$(figures "$base")" 'BEGIN {
	split(a, x, " "); split(b, y, " ")
	r = 0
	if (y[1] > 0)
		r = x[1] / y[1]
	printf "nsys-extract: %.2fx the time of sqlite3 -csv (target <= 1x), %.1f MB RSS\n",
	    r, x[3]
}'
