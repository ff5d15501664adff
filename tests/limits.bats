bats_require_minimum_version 1.5.0
setup() { load test_helper; }

# The limits that make hostile input cheap to refuse (lib/io/json.h JR_MAX_*,
# lib/io/pyyaml's nesting, snip-lint's config size): each is a message with
# file:line:col, or file for a size, and exit 1.  The depth and number
# limits of the JSON reader are tested in tr-extract.bats.

@test "a string of 16 MiB is read; one byte more is refused at its start" {
	local f=$BATS_TEST_TMPDIR/s.json
	{
		printf '[{"ph":"X","name":"'
		head -c 16777216 /dev/zero | tr '\0' a
		printf '","ts":1,"dur":1}]'
	} > "$f"
	run -0 bats_pipe tr-extract "$f" \| jq 'select(.kind == "event") | .name | length'
	assert_output 16777216
	{
		printf '[{"ph":"X","name":"'
		head -c 16777217 /dev/zero | tr '\0' a
		printf '","ts":1,"dur":1}]'
	} > "$f"
	run -1 --separate-stderr tr-extract "$f"
	assert_output ''
	assert_stderr "tr-extract: $f:1:19: string longer than 16777216 bytes"
}

@test "a string with escapes and a member name are held to the same limit" {
	local f=$BATS_TEST_TMPDIR/k.json
	{
		printf '[{"ph":"X",\n"\\n'
		head -c 16777216 /dev/zero | tr '\0' k
		printf '":1}]'
	} > "$f"
	run -1 --separate-stderr tr-extract "$f"
	assert_stderr "tr-extract: $f:2:1: string longer than 16777216 bytes"
}

@test "an event of more than 64 MiB of nodes is refused" {
	local f=$BATS_TEST_TMPDIR/v.json
	{
		printf '[{"ph":"X","name":"x","ts":1,"dur":1,"args":{"a":['
		yes 0, | head -n 3000000 | tr -d '\n'
		printf '0]}}]'
	} > "$f"
	run -1 --separate-stderr tr-extract -a "$f"
	assert_output ''
	assert_stderr --regexp "^tr-extract: $f:1:[0-9]+: value larger than 67108864 bytes\$"
}

@test "a snapshot segment of more than 64 MiB of nodes is refused" {
	local f=$BATS_TEST_TMPDIR/v.json
	{
		printf '{"segments":[{"device":0,"address":0,"total_size":0,'
		printf '"allocated_size":0,"active_size":0,"stream":0,'
		printf '"segment_type":"large","blocks":[{"size":0,"state":"inactive","x":['
		yes 0, | head -n 3000000 | tr -d '\n'
		printf '0]}]}]}'
	} > "$f"
	run -1 --separate-stderr mem-segments "$f"
	assert_stderr --regexp "^mem-segments: $f:1:[0-9]+: value larger than 67108864 bytes\$"
}

@test "NDJSON records: nesting and number limits hold on every line" {
	local f=$BATS_TEST_TMPDIR/r.ndjson rec
	rec=$(head -n 1 "$TOP/tests/corpus/churn-score/records-no-steps.ndjson")
	{
		printf '%s\n{"kind":"memory","x":' "$rec"
		head -c 600 /dev/zero | tr '\0' '['
	} > "$f"
	run -1 --separate-stderr churn-score "$f"
	assert_stderr "churn-score: $f:2:533: nesting deeper than 512 levels"
	{
		printf '%s\n{"kind":"memory","ts":' "$rec"
		head -c 257 /dev/zero | tr '\0' 1
		printf '}\n'
	} > "$f"
	run -1 --separate-stderr mem-segments "$f"
	assert_stderr "mem-segments: $f:2:23: number longer than 256 characters"
}

@test "YAML nested deeper than 256 levels is refused" {
	local f=$BATS_TEST_TMPDIR/d.yaml
	{
		printf 'target:\n  name: '
		head -c 300 /dev/zero | tr '\0' '['
		printf '\n'
	} > "$f"
	run -1 --separate-stderr snip-lint -h "$f"
	assert_output "$f:2:263: error: nesting is deeper than 256 levels [yaml]"
	assert_stderr "snip-lint: $f:2:263: nesting is deeper than 256 levels"
}

@test "a config larger than 4 MiB is refused with a message, whatever its size" {
	local f=$BATS_TEST_TMPDIR/big.yaml
	head -c 5000000 /dev/zero | tr '\0' '#' > "$f"
	run -1 --separate-stderr snip-lint "$f"
	assert_stderr "snip-lint: $f: larger than 4194304 bytes; not a profile config"
	run -1 --separate-stderr snip-run -n "$f"
	assert_stderr "snip-run: $f: larger than 4194304 bytes; not a profile config"
}

@test "a data source of more than 1000000 records is refused" {
	local f=$BATS_TEST_TMPDIR/many.yaml
	printf 'target:\n  name: smoke-tensor\ndata:\n  source: dummy\n  parameters:\n    record_count: 1000001\n' > "$f"
	run -1 --separate-stderr snip-run -n "$f"
	assert_stderr "snip-run: $f:6:19: 1000001 records are more than this tool plans (1000000)"
}

# Snippet limits

# A config of a few hundred bytes whose aliases repeat a list of ten ten
# times over, six or seven levels deep.
alias_bomb() {
	local levels=$1 i
	printf 'target:\n  name: smoke-tensor\ndata:\n  source: dummy\n'
	printf '  parameters:\n    a0: &a0 [1,1,1,1,1,1,1,1,1,1]\n'
	for i in $(seq 1 "$levels"); do
		printf '    a%d: &a%d [' "$i" "$i"
		printf '*a%d,' $(yes $((i - 1)) | head -n 9)
		printf '*a%d]\n' $((i - 1))
	done
	printf '    tensor_shape: *a%d\n' "$levels"
}

@test "YAML aliases may repeat 1 MiB of nodes; more is refused at the alias" {
	local f=$BATS_TEST_TMPDIR/alias.yaml
	alias_bomb 4 > "$f"
	run -0 snip-lint "$f"
	alias_bomb 6 > "$f"
	[ "$(wc -c < "$f")" -lt 500 ]
	run -1 --separate-stderr snip-run -n "$f"
	assert_output ''
	assert_stderr "snip-run: $f:11:26: aliases expand to more than 1048576 bytes"
	run -1 --separate-stderr snip-lint -h "$f"
	assert_output "$f:11:26: error: aliases expand to more than 1048576 bytes [yaml]"
}

@test "YAML merge keys that double a map at each level are refused" {
	local f=$BATS_TEST_TMPDIR/merge.yaml i
	{
		printf 'target:\n  name: smoke-tensor\ndata:\n  source: dummy\n'
		printf 'x0: &x0 {k: 1, j: 2}\n'
		for i in $(seq 1 24); do
			printf 'x%d: &x%d {<<: [*x%d, *x%d]}\n' "$i" "$i" \
			    $((i - 1)) $((i - 1))
		done
	} > "$f"
	run -1 --separate-stderr snip-lint -h "$f"
	assert_output "$f:21:23: error: aliases expand to more than 1048576 bytes [yaml]"
	assert_stderr "snip-lint: $f:21:23: aliases expand to more than 1048576 bytes"
}

# n functions, each nested in the one before, indented one space a level.
nested_defs() {
	local i
	for i in $(seq 0 $(($1 - 1))); do
		printf '%*sdef f%d():\n' "$i" '' "$i"
	done
	printf '%*spass\n' "$1" ''
}

@test "Python source: 99 levels of indentation are read, 100 are refused as CPython does" {
	local f=$BATS_TEST_TMPDIR/deep.py
	nested_defs 99 > "$f"
	run -0 bats_pipe py-defs "$f" \| wc -l
	assert_output 99
	nested_defs 100 > "$f"
	run -1 --separate-stderr py-defs "$f"
	assert_output ''
	assert_stderr "py-defs: $f:101:101: too many levels of indentation"
	if command -v python3 >/dev/null; then
		run -1 python3 -c 'import sys; compile(open(sys.argv[1]).read(), "f", "exec")' "$f"
		assert_output --partial 'IndentationError: too many levels of indentation'
	fi
}

@test "py-defs output stays linear: 1200 nested defs are refused, not 600 MB" {
	local f=$BATS_TEST_TMPDIR/deep.py
	nested_defs 1200 > "$f"
	run -1 --separate-stderr py-defs "$f"
	assert_output ''
	assert_stderr "py-defs: $f:101:101: too many levels of indentation"
	# At the limit each byte is repeated at most 100 times.
	nested_defs 99 > "$f"
	[ "$(py-defs "$f" | wc -c)" -le $((100 * $(wc -c < "$f") + 99 * 300)) ]
}

# CPU time, not wall time, so that a loaded machine or a sanitizer build
# still passes: the linear lint takes seconds, the quadratic one minutes.
@test "snip-lint reads 200000 top-level keys in seconds, not minutes" {
	local f=$BATS_TEST_TMPDIR/keys.yaml
	{
		printf 'target:\n  name: smoke-tensor\ndata:\n  source: dummy\n'
		seq 1 200000 | sed 's/^/k/; s/$/: 1/'
	} > "$f"
	run -0 --separate-stderr bash -c 'ulimit -t 20; exec snip-lint "$1"' - "$f"
	[ "${#lines[@]}" -eq 200000 ]
	{
		printf 'target:\n  name: smoke-tensor\ndata:\n  source: dummy\n'
		printf '  parameters:\n'
		seq 1 100000 | sed 's/^/    k/; s/$/: 1/'
		seq 1 100000 | sed 's/^/  k/; s/$/: 1/'
	} > "$f"
	run -0 --separate-stderr bash -c 'ulimit -t 20; exec snip-lint "$1"' - "$f"
	[ "${#lines[@]}" -eq 300000 ]
}

# Reader limits: lib/memory/memsnap's blocks per segment, checked arithmetic in
# the snapshot and trace readers, and churn-score's replay.

# snapshot N: a 2.0 snapshot of one segment of N blocks of 512 bytes.
snapshot() {
	printf '{"segments":[{"device":0,"address":0,"total_size":%d,' $(($1 * 512))
	printf '"allocated_size":0,"active_size":0,"stream":0,'
	printf '"segment_type":"large","blocks":['
	yes '{"size":512,"state":"inactive"},' | head -n $(($1 - 1)) | tr -d '\n'
	printf '{"size":512,"state":"inactive"}]}]}\n'
}

@test "a segment of 1048576 blocks is read; one more block is refused" {
	local f=$BATS_TEST_TMPDIR/b.json head
	snapshot 1048576 > "$f"
	run -0 --separate-stderr bats_pipe mem-segments "$f" \| jq -c 'select(.kind == "segment") | [.blocks.inactive, .total_size]'
	assert_output '[1048576,536870912]'
	snapshot 1048577 > "$f"
	head='{"segments":[{"device":0,"address":0,"total_size":536871424,"allocated_size":0,"active_size":0,"stream":0,"segment_type":"large","blocks":['
	for t in mem-segments churn-score; do
		run -1 --separate-stderr "$t" "$f"
		assert_output ''
		assert_stderr "$t: $f:1:$((${#head} + 1048576 * 32 + 1)): segment has more than 1048576 blocks"
	done
}

# overflow TOOL FILE POS MESSAGE: TOOL refuses tests/corpus/FILE at POS.
overflow() {
	local f=$TOP/tests/corpus/$2
	run -1 --separate-stderr "$1" "$f"
	assert_stderr "$1: $f:$3: $4"
}

@test "trace times beyond 64-bit nanoseconds are errors, not wrapped" {
	overflow tr-extract tr-extract/overflow-ts-dur.json 1:36 '"ts" + "dur" is beyond 64-bit nanoseconds'
	overflow tr-extract tr-extract/overflow-ts-dur-origin.json 1:51 '"ts" + "dur" is beyond 64-bit nanoseconds'
	# Written as "ts":-223372036854776.616 before.
	overflow tr-extract tr-extract/overflow-window.json 1:97 "\"ts\" is too far from the trace's other times for 64-bit nanoseconds"
	assert_output '{"kind":"event","name":"a","pid":1,"tid":1,"ts":0,"dur":1}'
	overflow tr-extract tr-extract/overflow-begin-end.json 1:78 "\"ts\" is too far from the trace's other times for 64-bit nanoseconds"
}

@test "snapshot sizes and addresses beyond 64 bits are errors, not wrapped" {
	local t
	for t in mem-segments churn-score; do
		overflow $t mem-segments/overflow-address-total-size.json 1:14 '"address" + "total_size" is beyond 64 bits'
		overflow $t mem-segments/overflow-block-sizes.json 1:14 'block sizes add up beyond 64 bits'
		overflow $t mem-segments/overflow-requested-sizes.json 1:14 'requested sizes add up beyond 64 bits'
		overflow $t mem-segments/overflow-block-address-size.json 1:135 '"address" + "size" is beyond 64 bits'
		overflow $t churn-score/overflow-addr-size.json 1:34 '"addr" + "size" is beyond 64 bits'
		overflow $t churn-score/overflow-records-bytes.ndjson 2:9 '"bytes" of the memory records add up beyond 64 bits'
		overflow $t churn-score/overflow-records-ts.ndjson 2:9 "\"ts\" is too far from the other records' times for 64-bit nanoseconds"
		overflow $t churn-score/overflow-records-step-end.ndjson 2:9 '"ts" + "dur" is beyond 64-bit nanoseconds'
	done
	overflow mem-segments mem-segments/overflow-device-reserved.json 1:200 'byte counts add up beyond 64 bits'
}

@test "churn-score's replay refuses byte counts and times beyond 64 bits" {
	overflow churn-score churn-score/overflow-bytes-allocated.json 1:162 'byte counts add up beyond 64 bits'
	overflow churn-score churn-score/overflow-bytes-freed.json 1:98 'byte counts add up beyond 64 bits'
	overflow churn-score churn-score/overflow-time-us.json 1:104 "\"time_us\" is too far from the trace's other times for 64 bits"
	overflow churn-score churn-score/overflow-peak.json 1:263 'device 0: the bytes live at the peak add up beyond 64 bits'
}
