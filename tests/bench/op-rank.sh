# op-rank: the tr-extract | op-rank pipeline against a Python json.load pass
# that computes the same per-name count, total and self CPU time (truncated
# µs, sorted by (start, -end) per thread, the same stack rule), on the same
# 1 GB trace.  op-rank alone on the cached NDJSON gives its own peak RSS,
# which stays flat: events beyond MRP_OP_RANK_MEMORY (16 MiB) go to sorted
# runs in a temporary file.
size=$(stat -c %s "$BIG")
ND=$BENCH_DIR/trace-1g.ndjson
if [ ! -s "$ND" ]; then
	"$BIN/tr-extract" "$BIG" >"$ND.tmp"
	mv "$ND.tmp" "$ND"
fi
PYRANK=$BENCH_DIR/op-rank-baseline.py
cat >"$PYRANK.tmp" <<'PY'
import json, sys
from collections import defaultdict

doc = json.load(open(sys.argv[1]))
events = doc["traceEvents"] if isinstance(doc, dict) else doc
threads = defaultdict(list)
for e in events:
    if e.get("ph") != "X" or e.get("cat") not in ("cpu_op", "user_annotation"):
        continue
    s = int(e["ts"])
    threads[(e.get("pid"), e.get("tid"))].append(
        (s, s + int(e.get("dur", 0)), e["name"]))
count = defaultdict(int); total = defaultdict(int); self_ = defaultdict(int)
for evs in threads.values():
    evs.sort(key=lambda x: (x[0], -x[1]))
    stack = []
    for s, e, name in evs:
        while stack and (s >= stack[-1][1] or e > stack[-1][1]):
            stack.pop()
        if stack:
            self_[stack[-1][2]] -= e - s
        count[name] += 1; total[name] += e - s; self_[name] += e - s
        stack.append((s, e, name))
for name in sorted(total, key=lambda n: -total[n])[:20]:
    print(name, count[name], total[name], self_[name])
PY
mv "$PYRANK.tmp" "$PYRANK"
measure "tr-extract trace.json | op-rank" "$size" \
    "$BIN/tr-extract '$BIG' | $BIN/op-rank"
measure "tr-extract trace.json.gz | op-rank" "$size" \
    "$BIN/tr-extract '$BIG.gz' | $BIN/op-rank"
measure "op-rank trace.ndjson (its own peak RSS)" "$(stat -c %s "$ND")" \
    "$BIN/op-rank '$ND'"
measure "python3 json.load + per-name totals" "$size" \
    "python3 '$PYRANK' '$BIG'"
