#!/usr/bin/env python3
"""The Python aggregation op-rank is measured against: json.load, then per
operator name the count, total and self CPU time (truncated µs, sorted by
(start, -end) per thread, the same stack rule), of the events op-rank ranks
as CPU operators (no "cat", as in the legacy layout, or cpu_op, Operator,
user_annotation)."""
import json
import sys
from collections import defaultdict

CPU = (None, "cpu_op", "Operator", "user_annotation")

doc = json.load(open(sys.argv[1]))
events = doc["traceEvents"] if isinstance(doc, dict) else doc
threads = defaultdict(list)
for e in events:
    if e.get("ph") != "X" or e.get("cat") not in CPU:
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
