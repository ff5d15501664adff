# mem-segments and churn-score against a Python json.load pass doing the
# same sums, on one snapshot of at least 500 MB: a real 2.11 snapshot's
# segments and trace entries repeated, each copy at shifted addresses.
SNAP=$BENCH_DIR/memsnap-500m.json
SRC=$SHARED/memsnap/cs336-wedsonlin__medium_128_training.json.gz
if [ ! -s "$SNAP" ]; then
	[ -e "$SRC" ] || { echo "bench: needs $SRC" >&2; exit 1; }
	echo "bench: building $SNAP (once)" >&2
	python3 - "${MEM_BENCH_BYTES:-500000000}" "$SRC" >"$SNAP.tmp" <<'PY'
import gzip, json, sys
size, src = int(sys.argv[1]), sys.argv[2]
with gzip.open(src, "rt") as f:
    snap = json.load(f)
segs, trace = snap["segments"], snap["device_traces"][0]
one = len(json.dumps(segs)) + len(json.dumps(trace))
copies = max(1, -(-size // one))
out = sys.stdout
def shifted(x, k):
    x = dict(x)
    for key in ("address", "addr"):
        if key in x and x[key]:
            x[key] += k << 40
    return x
out.write('{"segments":[')
for k in range(copies):
    for i, s in enumerate(segs):
        s = shifted(s, k)
        s["blocks"] = [shifted(b, k) for b in s["blocks"]]
        out.write(("," if k or i else "") + json.dumps(s, separators=(",", ":")))
out.write('],"device_traces":[[')
for k in range(copies):
    for i, e in enumerate(trace):
        out.write(("," if k or i else "") +
            json.dumps(shifted(e, k), separators=(",", ":")))
out.write(']],"allocator_settings":')
out.write(json.dumps(snap["allocator_settings"]) + "}\n")
PY
	mv "$SNAP.tmp" "$SNAP"
fi
size=$(stat -c %s "$SNAP")
for tool in mem-segments churn-score; do
	line=$(measure "$tool snapshot.json" "$size" "$BIN/$tool '$SNAP'")
	echo "$line"
	figures "$line" | awk -v t=$tool '{
		printf "%s: %.0f MB/s (target >= 800 MB/s), %.1f MB RSS (target < 16 MB)\n",
		    t, $2, $3
	}'
done
measure "python3 json.load + the same sums" "$size" "python3 - '$SNAP' <<'PY'
import json, sys
snap = json.load(open(sys.argv[1]))
tot = {}
for s in snap['segments']:
    for b in s['blocks']:
        tot[b['state']] = tot.get(b['state'], 0) + b['size']
    tot['reserved'] = tot.get('reserved', 0) + s['total_size']
live, cur, peak = {}, 0, 0
for e in snap['device_traces'][0]:
    if e['action'] == 'alloc':
        live[e['addr']] = e['size']; cur += e['size']; peak = max(peak, cur)
    elif e['action'] == 'free_completed':
        cur -= live.pop(e['addr'], e['size'])
print(tot, peak)
PY"
