# crit-path: the critical path of every step beside op-rank's ranking of
# the same records, on the Kineto traces at 250 MB and 1 GB and the legacy
# layout at 250 MB (no GPU: a chain of operators); then each alone on the
# cached records for its own peak RSS.  Both hold a budget of 16 MiB
# (MRP_CRIT_PATH_MEMORY, MRP_OP_RANK_MEMORY) and spill the rest; crit-path
# also one window's graph.  Last, trace-overlay on the 1 GB trace beside
# tr-extract.
ND=$BENCH_DIR/trace-1g.ndjson
if [ ! -s "$ND" ]; then
	"$BIN/tr-extract" "$BIG" >"$ND.tmp"
	mv "$ND.tmp" "$ND"
fi
for f in "$T250" "$BIG" "$L250"; do
	size=$(stat -c %s "$f")
	name=$(basename "$f")
	measure "tr-extract $name | crit-path" "$size" \
	    "$BIN/tr-extract '$f' | $BIN/crit-path"
	measure "tr-extract $name | op-rank" "$size" \
	    "$BIN/tr-extract '$f' | $BIN/op-rank"
done
measure "crit-path trace-1g.ndjson (its own peak RSS)" "$(stat -c %s "$ND")" \
    "$BIN/crit-path '$ND'"
measure "op-rank trace-1g.ndjson (its own peak RSS)" "$(stat -c %s "$ND")" \
    "$BIN/op-rank '$ND'"
# trace-overlay: the 1 GB trace written back with crit-path's records of
# it (the path of every step), beside tr-extract's one read of it; the
# overlay reads the trace twice and gzips what it writes.
CP=$BENCH_DIR/trace-1g.crit.ndjson
if [ ! -s "$CP" ]; then
	"$BIN/crit-path" "$ND" >"$CP.tmp" || [ $? = 1 ]
	mv "$CP.tmp" "$CP"
fi
measure "tr-extract trace-1g.json" "$(stat -c %s "$BIG")" \
    "$BIN/tr-extract '$BIG'"
measure "trace-overlay trace-1g.json" "$(stat -c %s "$BIG")" \
    "$BIN/trace-overlay '$BIG' '$CP'"
measure "trace-overlay -p trace-1g.json (plain JSON)" "$(stat -c %s "$BIG")" \
    "$BIN/trace-overlay -p '$BIG' '$CP'"
