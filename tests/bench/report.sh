# The whole report (analyze-profile: its trace stage, the extractor and
# the ranking in one process, then mem-segments, churn-score,
# rubric-apply, report-md) on the 1 GB trace plus the 500 MB
# snapshot that run builds, side by side with tr-extract alone on the
# same trace: the target is under 2x, with the branches on both cores.
# Each runs three times, the three in turn, so that all of them see the
# same machine; the ratio is of the fastest runs, as the slower ones measure
# whatever else the machine was doing.
bytes=$(( $(stat -c %s "$BIG") + $(stat -c %s "$SNAP") ))

# seconds LINE: the wall seconds in a line that measure printed.
seconds() {
	awk '{ for (i = 1; i < NF; i++) if ($(i + 1) == "s") { print $i; exit } }' \
	    <<<"${1:52}"
}

labels=("tr-extract alone (1 GB trace)" "analyze-profile, trace + snapshot"
    "analyze-profile, trace.gz + snapshot")
sizes=("$(stat -c %s "$BIG")" "$bytes" "$bytes")
whole="'$BIN/analyze-profile' --memory-json '$SNAP' --json-out /dev/null"
cmds=("'$BIN/tr-extract' '$BIG'" "$whole --cpu-trace '$BIG'"
    "$whole --cpu-trace '$BIG.gz'")
fastest=()
for run in 1 2 3; do
	for k in 0 1 2; do
		line=$(measure "${labels[k]} ($run)" "${sizes[k]}" "${cmds[k]}")
		echo "$line"
		s=$(seconds "$line")
		if [ -z "${fastest[k]:-}" ] || awk -v a="$s" -v b="${fastest[k]}" \
		    'BEGIN { exit !(a < b) }'; then
			fastest[k]=$s
		fi
	done
done
awk -v a="${fastest[0]}" -v w="${fastest[1]}" -v g="${fastest[2]}" 'BEGIN {
	printf "whole report / tr-extract alone, fastest runs: %.2fx (.gz %.2fx; target < 2x)\n",
	    w / a, g / a
}'
