bats_require_minimum_version 1.5.0
setup() { load test_helper; }

# lib/io/ndjson's writer, through tr-extract: the strings a jdoc holds take
# the path that skips the UTF-8 check and copies clean spans 16 bytes at a
# time, with the last 16 bytes loaded again; names and keys known at
# compile time are written as one fragment.  What comes out must be what
# Python's json.dumps writes for the same strings, byte for byte.

# strings PY: writes t.json, a trace of one event per string of the Python
# list PY (each also the key of its args), and want, the event lines that
# tr-extract -a must write for it.
strings() {
	python3 - "$BATS_TEST_TMPDIR" "$1" <<'PY'
import json, sys
d, names = sys.argv[1], eval(sys.argv[2])
ev = [{"ph": "X", "name": s, "pid": 1, "tid": 1, "ts": k, "dur": 1,
    "args": {s: k}} for k, s in enumerate(names)]
with open(d + "/t.json", "w", encoding="utf-8") as f:
    json.dump(ev, f, ensure_ascii=True)
with open(d + "/want", "w", encoding="utf-8") as f:
    for k, s in enumerate(names):
        q = json.dumps(s, ensure_ascii=False)
        f.write('{"kind":"event","name":%s,"pid":1,"tid":1,"ts":%d,'
            '"dur":1,"args":{%s:%d}}\n' % (q, k, q, k))
PY
}

@test "every control character, quote and backslash, at every place of strings up to 49 bytes" {
	strings '[("é" * (n // 2) + "x" * (n % 2))[:p] + c + "z" * (n - p) for n in range(49) for p in (0, n // 2, n) for c in [chr(k) for k in range(32)] + ["\"", "\\", "/", "\x7f"]]'
	run -0 bats_pipe tr-extract -a "$BATS_TEST_TMPDIR/t.json" \| grep '"kind":"event"'
	assert_output - < "$BATS_TEST_TMPDIR/want"
}

@test "clean strings of every length up to 70, in 1 to 4 byte UTF-8" {
	strings '[("a" + "é" + "€" + "😀") * (n // 10) + "b" * (n % 10) for n in range(71)]'
	run -0 bats_pipe tr-extract -a "$BATS_TEST_TMPDIR/t.json" \| grep '"kind":"event"'
	assert_output - < "$BATS_TEST_TMPDIR/want"
}

# The unchecked path relies on the reader's repairs: bytes that are not
# UTF-8, in a string or a member name, raw or escaped, reach the output as
# U+FFFD and never as they are.
@test "invalid UTF-8 in names and keys comes out repaired, never raw" {
	printf '[{"ph":"X","name":"a\377b\300\200c\355\240\200d\\ud800e\342\202","ts":1,"dur":1,"args":{"k\376":1,"\\udc00":2}}]' > "$BATS_TEST_TMPDIR/u.json"
	run -0 --separate-stderr tr-extract -a "$BATS_TEST_TMPDIR/u.json"
	assert_line --index 0 '{"kind":"event","name":"a�b��c���d�e��","ts":0,"dur":1,"args":{"k�":1,"�":2}}'
	tr-extract -a "$BATS_TEST_TMPDIR/u.json" 2>/dev/null |
	    python3 -c 'import json, sys; [json.loads(l) for l in sys.stdin.buffer.read().decode("utf-8", "strict").splitlines()]'
}

# What does not come from a reader keeps the check: a file name is bytes.
@test "a file name that is not UTF-8 is written checked and escaped" {
	cp "$TOP/fixtures/tr-extract/handmade_begin_end.json" "$BATS_TEST_TMPDIR/t$(printf '\377\001')x.json"
	run -0 bats_pipe tr-extract "$BATS_TEST_TMPDIR"/t*x.json \| tail -n 1
	assert_output --partial '"file":"'"$BATS_TEST_TMPDIR"'/t�\u0001x.json",'
}

# jw_key() and jw_record() copy their literal without looking at it, so a
# literal that would need an escape ('"', '\\' or a control character: all
# a backslash or a raw tab in C source) must not be written at all.
@test "no literal member name or kind needs an escape" {
	run -1 grep -nE '(jw_key|jw_record|JW_KEY)\(([^"]*, *)?"([^"\\]|\\.)*(\\|	)' \
	    "$TOP"/tools/*.c "$TOP"/lib/*/*.c
	assert_output ''
}
