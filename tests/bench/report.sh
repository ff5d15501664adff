# The whole report (analyze-profile: tr-extract, op-rank, mem-segments,
# churn-score, rubric-apply, report-md) on the 1 GB trace plus the 500 MB
# snapshot that mem.sh builds, side by side with tr-extract alone on the
# same trace: the target is under 2x, with the branches on both cores.
SNAP=$BENCH_DIR/memsnap-500m.json
[ -s "$SNAP" ] || { echo "bench: report.sh needs $SNAP (mem.sh)" >&2; exit 1; }
bytes=$(( $(stat -c %s "$BIG") + $(stat -c %s "$SNAP") ))
measure "tr-extract alone (1 GB trace)" "$(stat -c %s "$BIG")" \
    "'$BIN/tr-extract' '$BIG'"
measure "analyze-profile, trace + snapshot" "$bytes" \
    "'$BIN/analyze-profile' --cpu-trace '$BIG' --memory-json '$SNAP' \
    --json-out /dev/null"
measure "analyze-profile, trace.gz + snapshot" "$bytes" \
    "'$BIN/analyze-profile' --cpu-trace '$BIG.gz' --memory-json '$SNAP' \
    --json-out /dev/null"
