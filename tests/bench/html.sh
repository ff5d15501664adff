# The HTML report (--html-out: report-svg, a second report-md and
# report-html) on a 250 MB trace plus the 500 MB snapshot that run
# builds: the page's size (target under 3 MB) and the run's time with and
# without --html-out (target: at most 30 % more), fastest of three runs
# each, taken in turn.
bytes=$(( $(stat -c %s "$T250") + $(stat -c %s "$SNAP") ))
out=$(mktemp -d)
trap 'rm -rf "$out"' EXIT

seconds() {
	awk '{ for (i = 1; i < NF; i++) if ($(i + 1) == "s") { print $i; exit } }' \
	    <<<"${1:52}"
}

base="'$BIN/analyze-profile' --cpu-trace '$T250' --memory-json '$SNAP' --md-out '$out/r.md'"
labels=("analyze-profile --md-out (250 MB trace)" "analyze-profile --md-out --html-out")
cmds=("$base" "$base --html-out '$out/r.html'")
fastest=()
for run in 1 2 3; do
	for k in 0 1; do
		line=$(measure "${labels[k]} ($run)" "$bytes" "${cmds[k]}")
		echo "$line"
		s=$(seconds "$line")
		if [ -z "${fastest[k]:-}" ] || awk -v a="$s" -v b="${fastest[k]}" \
		    'BEGIN { exit !(a < b) }'; then
			fastest[k]=$s
		fi
	done
done
size=$(stat -c %s "$out/r.html")
charts=$(grep -c '^<figure ' "$out/r.html" || true)
awk -v a="${fastest[0]}" -v h="${fastest[1]}" -v s="$size" -v c="$charts" 'BEGIN {
	printf "HTML report: %.2f MB with %d charts (target < 3 MB)\n", s / 1e6, c
	printf "--html-out adds %.1f %% to the run, fastest runs (target <= 30 %%)\n",
	    (h / a - 1) * 100
}'
