#!/usr/bin/env python3
"""Writes a legacy-layout trace of at least SIZE bytes to stdout: the bare
array PyTorch 1.13 exports without Kineto, made of the events of a real
one (SRC) repeated, each copy shifted past the previous one in time.  Each
event is written as PyTorch 1.13 writes it (json.dumps with its default
separators, about 110 bytes), with the same pid and tid, so the copy reads
like the original, only longer."""
import json
import sys


def main():
    size, src = int(sys.argv[1]), sys.argv[2]
    with open(src) as f:
        events = json.load(f)
    lo = min(e["ts"] for e in events)
    hi = max(e["ts"] + e.get("dur", 0) for e in events)
    span = hi - lo + 1000
    # Each event's text split around its "ts" value, so that a copy only
    # prints a number: the rest of the text is the original's.
    parts = []
    for e in events:
        text = json.dumps(e)
        mark = '"ts": %d' % e["ts"]
        at = text.index(mark) + len('"ts": ')
        parts.append((text[:at], e["ts"], text[at + len(str(e["ts"])):]))
    out = sys.stdout
    out.write("[")
    written, copy = 1, 0
    while written < size:
        shift = copy * span
        chunk = ", ".join("%s%d%s" % (head, ts + shift, tail)
            for head, ts, tail in parts)
        if copy:
            chunk = ", " + chunk
        out.write(chunk)
        written += len(chunk)
        copy += 1
    out.write("]")


if __name__ == "__main__":
    main()
