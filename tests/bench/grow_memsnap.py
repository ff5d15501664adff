#!/usr/bin/env python3
# grow_memsnap.py SIZE SNAPSHOT.json.gz: a memory snapshot of at least SIZE
# bytes on stdout, a real snapshot's segments and first device's trace
# entries repeated, each copy at addresses shifted by k << 40.
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
