#!/usr/bin/env python3
"""Writes a Kineto-style trace of at least SIZE bytes to stdout: the events
of a real trace repeated, each copy shifted past the previous one in time,
so that nesting, threads and correlations stay realistic."""
import gzip
import json
import sys


def main():
    size, src = int(sys.argv[1]), sys.argv[2]
    with gzip.open(src, "rt") as f:
        trace = json.load(f)
    events = trace.pop("traceEvents")
    timed = [e for e in events if e.get("ph") != "M" and "ts" in e]
    lo = min(e["ts"] for e in timed)
    hi = max(e["ts"] + e.get("dur", 0) for e in timed)
    span = int(hi - lo) + 1000
    meta = [e for e in events if e.get("ph") == "M"]
    out = sys.stdout
    head = json.dumps({k: v for k, v in trace.items()}, indent=2)[:-2]
    out.write(head + ',\n  "traceEvents": [\n')
    written, copy, first = len(head), 0, True
    for e in meta:
        out.write(("" if first else ",\n") + "  " + json.dumps(e))
        first = False
    while written < size:
        shift = copy * span
        for e in timed:
            e = dict(e)
            e["ts"] = e["ts"] + shift
            if "args" in e and isinstance(e["args"], dict):
                for k in ("correlation", "External id"):
                    if isinstance(e["args"].get(k), int):
                        e["args"] = dict(e["args"])
                        e["args"][k] += copy * 10000000
            line = ",\n  " + json.dumps(e)
            out.write(line)
            written += len(line)
        copy += 1
    out.write("\n  ]\n}\n")


if __name__ == "__main__":
    main()
