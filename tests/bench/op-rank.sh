# op-rank: the tr-extract | op-rank pipeline against a Python json.load pass
# that computes the same per-name count, total and self CPU time
# (op_rank_baseline.py), on the same 1 GB trace.  op-rank alone on the
# cached NDJSON gives its own peak RSS, which stays flat: events beyond
# MRP_OP_RANK_MEMORY (16 MiB) go to sorted runs in a temporary file.
size=$(stat -c %s "$BIG")
ND=$BENCH_DIR/trace-1g.ndjson
if [ ! -s "$ND" ]; then
	"$BIN/tr-extract" "$BIG" >"$ND.tmp"
	mv "$ND.tmp" "$ND"
fi
PYRANK=$TOP/tests/bench/op_rank_baseline.py
measure "tr-extract trace.json | op-rank" "$size" \
    "$BIN/tr-extract '$BIG' | $BIN/op-rank"
measure "tr-extract trace.json.gz | op-rank" "$size" \
    "$BIN/tr-extract '$BIG.gz' | $BIN/op-rank"
measure "op-rank trace.ndjson (its own peak RSS)" "$(stat -c %s "$ND")" \
    "$BIN/op-rank '$ND'"
measure "python3 json.load + per-name totals" "$size" \
    "python3 '$PYRANK' '$BIG'"
