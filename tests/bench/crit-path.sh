# crit-path: the critical path of every step beside op-rank's ranking of
# the same records, on the Kineto traces at 250 MB and 1 GB and the legacy
# layout at 250 MB (no GPU: a chain of operators); then each alone on the
# cached records for its own peak RSS.  Both hold a budget of 16 MiB
# (MRP_CRIT_PATH_MEMORY, MRP_OP_RANK_MEMORY) and spill the rest; crit-path
# also one window's graph.
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
