# report.mk's fan-out: the report of 1 and of 64 ranks, each rank a copy
# of one of the eight DLRM ranks under its own rank (and pids), built
# with make -j2.  Prints the wall time of the whole report and, measured
# through the SUBMIT hook, the peak RSS of each kind of stage and of the
# largest, which should not grow with the number of ranks (target: within
# 10 %).
SRC=$SHARED/traces/param_dlrm_8rank
RANKS=$BENCH_DIR/fanout-ranks
if [ ! -s "$RANKS/worker63.pt.trace.json" ]; then
	[ -d "$SRC" ] || { echo "bench: needs $SRC" >&2; exit 1; }
	echo "bench: building $RANKS (once)" >&2
	rm -rf "$RANKS"
	mkdir -p "$RANKS"
	python3 - "$SRC" "$RANKS" <<'PY'
import glob, json, os, sys
src, out = sys.argv[1:]
traces = [json.load(open(f)) for f in sorted(glob.glob(src + "/*.pt.trace.json"))]
for k in range(64):
    t = json.loads(json.dumps(traces[k % len(traces)]))
    t["distributedInfo"].update(rank=k, world_size=64)
    for e in t["traceEvents"]:
        if isinstance(e.get("pid"), int) and e["pid"] > 1000:
            e["pid"] += k // len(traces) * 1000000
    with open(f"{out}/worker{k}.pt.trace.json.tmp", "w") as f:
        json.dump(t, f, separators=(",", ":"))
    os.rename(f"{out}/worker{k}.pt.trace.json.tmp", f"{out}/worker{k}.pt.trace.json")
PY
fi

# Without address randomisation a stage's peak RSS is the same from run
# to run; with it, the largest of 64 stages would be compared with one.
norand=
setarch -R true 2>/dev/null && norand="setarch -R"

for n in 1 64; do
	run=$BENCH_DIR/fanout-run-$n
	rm -rf "$run"
	mkdir -p "$run"
	for k in $(seq 0 $((n - 1))); do
		ln -s "$RANKS/worker$k.pt.trace.json" "$run"
	done
	rss=$run.rss
	: >"$rss"
	bytes=$(du -cbL "$run"/*.json | tail -n 1 | cut -f 1)
	measure "report.mk -j2, $n rank(s)" "$bytes" \
	    "make -s -j2 -f '$TOP/pipelines/report.mk' BIN='$BIN' RUN='$run' \
	    SUBMIT=\"/usr/bin/time -a -o '$rss' -f '%M %C' $norand\""
	# Each stage's peak RSS, by its first mrp tool (tr-extract: the
	# traces' stages), the largest of each kind.
	awk '{
		tool = "?"
		for (i = 2; i <= NF; i++) if ($i ~ /\/bin\/[a-z-]+$/) {
			tool = $i; sub(/.*\//, "", tool); break }
		if ($1 > peak[tool]) peak[tool] = $1
	} END { for (t in peak) print t, peak[t] }' "$rss" | sort >"$run.peaks"
done
echo "peak RSS by stage, 1 rank and 64 ranks:"
join "$BENCH_DIR/fanout-run-1.peaks" "$BENCH_DIR/fanout-run-64.peaks" |
    sort -k 3,3n | awk '{
	printf "  %-14s %8.1f MB %8.1f MB %6.2fx\n", $1, $2 / 1024, $3 / 1024, $3 / $2
	one = $2 > one ? $2 : one; many = $3 > many ? $3 : many
} END {
	printf "largest stage, 64 ranks / 1 rank: %.2fx (target <= 1.10)\n", many / one
}'
