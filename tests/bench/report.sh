# The whole report (analyze-profile: its trace stage, the extractor and
# the ranking in one process, then mem-segments, churn-score,
# rubric-apply, report-md) on the 1 GB trace plus the 500 MB
# snapshot that run builds, side by side with tr-extract alone on the
# same trace: the target is under 2x, with the branches on both cores.
# Each runs three times, the three in turn (in_turn); the ratio is of the
# fastest runs.
bytes=$(( $(stat -c %s "$BIG") + $(stat -c %s "$SNAP") ))

whole="'$BIN/analyze-profile' --memory-json '$SNAP' --json-out /dev/null"
in_turn "tr-extract alone (1 GB trace)" "$(stat -c %s "$BIG")" \
    "'$BIN/tr-extract' '$BIG'" \
    "analyze-profile, trace + snapshot" "$bytes" "$whole --cpu-trace '$BIG'" \
    "analyze-profile, trace.gz + snapshot" "$bytes" \
    "$whole --cpu-trace '$BIG.gz'"
awk -v a="${FASTEST[0]}" -v w="${FASTEST[1]}" -v g="${FASTEST[2]}" 'BEGIN {
	printf "whole report / tr-extract alone, fastest runs: %.2fx (.gz %.2fx; target < 2x)\n",
	    w / a, g / a
}'
