# The whole report from a trace (analyze-profile --cpu-trace: extraction,
# ranking, the rubric and both reports) over tr-extract alone on the same
# trace, on both layouts (the legacy bare array, Kineto's object) at
# 250 MB and at 1 GB, beside the Python aggregation (json.load and
# per-operator totals) at 250 MB; at 1 GB it would need several GB of
# memory and a minute.  Issue 34's target: the whole report at most 1.3x
# extraction alone, peak RSS flat.  Each command runs three times, the
# commands of a trace in turn, and the ratio is of the fastest runs.
whole="'$BIN/analyze-profile' --json-out /dev/null --cpu-trace"

# fastest LABEL BYTES COMMAND: three runs' lines, then "fastest SECONDS RSS".
fastest() {
	local line best= rss=
	for run in 1 2 3; do
		line=$(measure "$1 ($run)" "$2" "$3")
		echo "$line" >&2
		set -- "$1" "$2" "$3" $(figures "$line")
		if [ -z "$best" ] || awk -v a="$4" -v b="$best" \
		    'BEGIN { exit !(a < b) }'; then
			best=$4
		fi
		rss=$6
	done
	echo "$best $rss"
}

for f in "$L250" "$T250" "$L1G" "$BIG"; do
	name=$(basename "$f")
	size=$(stat -c %s "$f")
	case $name in
	legacy*) layout=legacy ;;
	*) layout=kineto ;;
	esac
	tr=$(fastest "tr-extract $name" "$size" "'$BIN/tr-extract' '$f'")
	ap=$(fastest "analyze-profile --cpu-trace $name" "$size" "$whole '$f'")
	py=
	if [ "$size" -le 300000000 ]; then
		py=$(fastest "python aggregation $name" "$size" \
		    "python3 '$TOP/tests/bench/op_rank_baseline.py' '$f'")
	fi
	awk -v l=$layout -v n="$name" -v tr="$tr" -v ap="$ap" -v py="$py" '
	BEGIN {
		split(tr, t, " "); split(ap, a, " "); split(py, p, " ")
		printf "%s %s: whole report %.2f s / tr-extract %.2f s = %.2fx (target <= 1.3x), RSS %.1f MB",
		    l, n, a[1], t[1], (t[1] > 0 ? a[1] / t[1] : 0), a[2]
		if (py != "")
			printf "; python aggregation %.2f s, %.1fx the report", p[1],
			    (a[1] > 0 ? p[1] / a[1] : 0)
		printf "\n"
	}'
done
