# mem-segments and churn-score against a Python json.load pass doing the
# same sums, on one snapshot of at least 500 MB ($SNAP, built by run): a
# real 2.11 snapshot's segments and trace entries repeated, each copy at
# shifted addresses.
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
