# The whole report from a trace (analyze-profile --cpu-trace: extraction,
# ranking, the rubric and both reports) over tr-extract alone on the same
# trace, on both layouts (the legacy bare array, Kineto's object) at
# 250 MB and at 1 GB, beside the Python aggregation (json.load and
# per-operator totals) at 250 MB; at 1 GB it would need several GB of
# memory and a minute.  Issue 34's target: the whole report at most 1.3x
# extraction alone, peak RSS flat.  Each command runs three times, the
# commands of a trace in turn (in_turn), and the ratio is of the fastest
# runs.  The report's CPU seconds over the machine's CPUs bound its wall
# time from below whatever runs in parallel; rubric-apply and report-md
# compiling their jq programs are a part of it that no trace changes.
whole="'$BIN/analyze-profile' --json-out /dev/null --cpu-trace"
cpus=$(nproc)

in_turn "rubric-apply, compiling only (no records)" 0 \
    "'$BIN/rubric-apply' - </dev/null" \
    "report-md -J, compiling only (no records)" 0 \
    "'$BIN/report-md' -J /dev/null - </dev/null"
awk -v r="${CPU[0]}" -v m="${CPU[1]}" \
    -v v="$(dpkg-query -W -f '${Version}' libjq1 2>/dev/null || echo '?')" '
BEGIN {
	printf "compiling the rubric and the report: %.2f s + %.2f s CPU (libjq %s), in every report\n",
	    r, m, v
}'

for f in "$L250" "$T250" "$L1G" "$BIG"; do
	name=$(basename "$f")
	size=$(stat -c %s "$f")
	case $name in
	legacy*) layout=legacy ;;
	*) layout=kineto ;;
	esac
	set -- "tr-extract $name" "$size" "'$BIN/tr-extract' '$f'" \
	    "analyze-profile --cpu-trace $name" "$size" "$whole '$f'"
	if [ "$size" -le 300000000 ]; then
		set -- "$@" "python aggregation $name" "$size" \
		    "python3 '$TOP/tests/bench/op_rank_baseline.py' '$f'"
	fi
	in_turn "$@"
	awk -v l=$layout -v n="$name" -v t="${FASTEST[0]}" \
	    -v a="${FASTEST[1]}" -v rss="${RSS[1]}" -v p="${FASTEST[2]:-}" \
	    -v c="${CPU[1]}" -v cpus="$cpus" '
	BEGIN {
		printf "%s %s: whole report %.2f s / tr-extract %.2f s = %.2fx (target <= 1.3x), RSS %.1f MB",
		    l, n, a, t, (t > 0 ? a / t : 0), rss
		printf ", CPU %.2f s (on %d CPUs no less than %.2fx)", c, cpus,
		    (t > 0 ? c / cpus / t : 0)
		if (p != "")
			printf "; python aggregation %.2f s, %.1fx the report", p,
			    (a > 0 ? p / a : 0)
		printf "\n"
	}'
done
