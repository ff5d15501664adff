# The whole report (analyze-profile: tr-extract, op-rank, mem-segments,
# churn-score, rubric-apply, report-md) on the 1 GB trace plus the 500 MB
# snapshot that mem.sh builds, side by side with tr-extract alone on the
# same trace: the target is under 2x, with the branches on both cores.
# Each runs three times; the ratio is of the fastest runs, as the slower
# ones measure whatever else the machine was doing.
SNAP=$BENCH_DIR/memsnap-500m.json
[ -s "$SNAP" ] || { echo "bench: report.sh needs $SNAP (mem.sh)" >&2; exit 1; }
bytes=$(( $(stat -c %s "$BIG") + $(stat -c %s "$SNAP") ))

# best LABEL BYTES COMMAND: measure three times; prints the lines and
# leaves the fastest wall time in $fastest.
best() {
	local line s i
	fastest=
	for i in 1 2 3; do
		line=$(measure "$1 ($i)" "$2" "$3")
		echo "$line"
		s=$(awk '{ for (i = 1; i < NF; i++) if ($(i + 1) == "s") {
			print $i; exit } }' <<<"${line:52}")
		if [ -z "$fastest" ] || awk -v a="$s" -v b="$fastest" \
		    'BEGIN { exit !(a < b) }'; then
			fastest=$s
		fi
	done
}

best "tr-extract alone (1 GB trace)" "$(stat -c %s "$BIG")" \
    "'$BIN/tr-extract' '$BIG'"
alone=$fastest
best "analyze-profile, trace + snapshot" "$bytes" \
    "'$BIN/analyze-profile' --cpu-trace '$BIG' --memory-json '$SNAP' \
    --json-out /dev/null"
whole=$fastest
best "analyze-profile, trace.gz + snapshot" "$bytes" \
    "'$BIN/analyze-profile' --cpu-trace '$BIG.gz' --memory-json '$SNAP' \
    --json-out /dev/null"
awk -v w="$whole" -v a="$alone" -v g="$fastest" 'BEGIN {
	printf "whole report / tr-extract alone, fastest runs: %.2fx (.gz %.2fx; target < 2x)\n",
	    w / a, g / a
}'
