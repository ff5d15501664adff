# analyze-profile --cpu-trace on the legacy layout, beside the Python
# aggregation it replaces (op_rank_baseline.py: json.load and per-operator
# totals) on the same 250 MB trace; and the peak RSS of each of its stages
# at 250 MB and at 1 GB, which should stay within 64 MB and not grow with
# the trace.  The stages are the real binaries, each run through
# /usr/bin/time by a stand-in of the same name beside a copy of
# analyze-profile, which runs its stages from its own directory.
stub=$(mktemp -d)
trap 'rm -rf "$stub"' EXIT
# The copy finds no rubric beside it, which its trace stage reads.
export MRP_RUBRIC=$TOP/rubric
cp "$BIN/analyze-profile" "$stub/"
for tool in "$BIN"/*; do
	t=$(basename "$tool")
	[ "$t" = analyze-profile ] && continue
	printf '#!/bin/sh\nexec /usr/bin/time -a -o "$STAGE_RSS" -f "%%M %s" %s "$@"\n' \
	    "$t" "$tool" >"$stub/$t"
	chmod +x "$stub/$t"
done

# profile FILE LABEL: the run's line, and FILE's peaks by stage in $stub.
profile() {
	STAGE_RSS=$stub/$2.rss
	: >"$STAGE_RSS"
	export STAGE_RSS
	measure "analyze-profile --cpu-trace $(basename "$1")" \
	    "$(stat -c %s "$1")" \
	    "'$stub/analyze-profile' --cpu-trace '$1' --json-out /dev/null"
	# The largest process of each stage; analyze-profile itself (its
	# trace stage, the extractor and the ranking in one process, and the
	# hashing are forks of it) is measured by measure, whole.
	awk '{ if ($1 > peak[$2]) peak[$2] = $1 }
	    END { for (t in peak) print t, peak[t] }' "$STAGE_RSS" |
	    sort >"$stub/$2.peaks"
}

a=$(profile "$L250" 250)
echo "$a"
py=$(measure "python3 json.load + per-op totals" "$(stat -c %s "$L250")" \
    "python3 '$TOP/tests/bench/op_rank_baseline.py' '$L250'")
echo "$py"
awk -v a="$(figures "$a" | cut -d ' ' -f 1)" \
    -v p="$(figures "$py" | cut -d ' ' -f 1)" 'BEGIN {
	printf "legacy: analyze-profile is %.1fx the Python aggregation (target >= 12x)\n",
	    (a > 0 ? p / a : 0)
}'
b=$(profile "$L1G" 1g)
echo "$b"
echo "peak RSS by stage of analyze-profile --cpu-trace, 250 MB and 1 GB (legacy):"
{
	join "$stub/250.peaks" "$stub/1g.peaks"
	echo "(whole-run) $(figures "$a" | cut -d ' ' -f 3 |
	    awk '{ print $1 * 1024 }') $(figures "$b" | cut -d ' ' -f 3 |
	    awk '{ print $1 * 1024 }')"
} | sort -k 3,3n | awk '{
	printf "  %-16s %8.1f MB %8.1f MB %6.2fx\n", $1, $2 / 1024, $3 / 1024, $3 / $2
	one = $2 > one ? $2 : one; many = $3 > many ? $3 : many
} END {
	printf "largest stage: %.1f MB at 250 MB, %.1f MB at 1 GB (target <= 64 MB, flat)\n",
	    one / 1024, many / 1024
}'
