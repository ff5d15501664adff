bats_require_minimum_version 1.5.0
setup() { load test_helper; }

# Every input that ever crashed a harness in tests/fuzz is kept under
# tests/corpus/<tool>/ and replayed here through the real tools, in the
# normal build and under "make asan": each must end with exit 0, or exit 1
# and the tool's own message (on stderr, or snip-lint's error records);
# never a signal or a sanitizer's report.

# replay TOOL DIR [option ...]: runs TOOL on every file of tests/corpus/DIR.
replay() {
	local tool=$1 dir=$2 f n=0
	shift 2
	for f in "$TOP/tests/corpus/$dir"/*; do
		run --separate-stderr "$tool" "$@" "$f"
		if [ "$status" -gt 1 ] || [[ $stderr == *Sanitizer* ]] ||
		    [[ $stderr == *"runtime error"* ]] ||
		    { [ "$status" -eq 1 ] && [[ $stderr != *"$tool: "* ]] &&
		    [[ $output != *'"severity":"error"'* ]]; }; then
			echo "$tool $* $f: exit $status" >&2
			printf '%s\n' "$stderr" | tail -n 20 >&2
			return 1
		fi
		n=$((n + 1))
	done
	[ "$n" -gt 0 ]
}

@test "tr-extract replays its corpus, with and without -a" {
	replay tr-extract tr-extract
	replay tr-extract tr-extract -a
}

@test "mem-segments and churn-score replay the snapshot corpus" {
	replay mem-segments mem-segments
	replay churn-score mem-segments
	replay mem-segments churn-score
	replay churn-score churn-score
}

@test "snip-lint and snip-run -n replay the config corpus" {
	replay snip-lint snip-lint
	replay snip-lint snip-lint -w
	replay snip-run snip-lint -n
}

@test "a member name with a NUL is copied whole, not cut at the NUL" {
	run -0 tr-extract -a "$TOP/tests/corpus/tr-extract/key-nul.json"
	assert_line --index 0 '{"kind":"event","name":"a","pid":1,"tid":1,"ts":0,"dur":2,"args":{"a\u0000b":1,"a":2}}'
}

@test "a number or word runs into no junk: refused where it starts, as jq does" {
	run -1 tr-extract "$TOP/tests/corpus/tr-extract/number-glued.json"
	assert_output "tr-extract: $TOP/tests/corpus/tr-extract/number-glued.json:1:59: invalid number"
	run -1 tr-extract "$TOP/tests/corpus/tr-extract/word-glued-nul.json"
	assert_output "tr-extract: $TOP/tests/corpus/tr-extract/word-glued-nul.json:1:81: unexpected character 'n'"
}

# each_kernel CMD...: runs CMD under every stage-1 kernel of lib/io/json that
# this CPU runs and fails unless each prints what the default one prints.
each_kernel() {
	local want k
	want=$("$@" 2>&1) || true
	for k in c sse2 avx2; do
		case $k in
		sse2|avx2) grep -qw "$k" /proc/cpuinfo 2>/dev/null || continue ;;
		esac
		run env MRP_SIMD=$k "$@"
		if [ "$output" != "$want" ]; then
			echo "MRP_SIMD=$k $*: differs from the default" >&2
			return 1
		fi
	done
}

@test "every stage-1 kernel reads the fixtures and the hostile corpus alike" {
	local f
	for f in "$TOP"/fixtures/tr-extract/*.json* "$TOP"/tests/corpus/tr-extract/*; do
		each_kernel tr-extract -a "$f"
	done
	for f in "$TOP"/fixtures/mem-segments/*.json* "$TOP"/tests/corpus/mem-segments/*; do
		each_kernel mem-segments "$f"
	done
	need_shared torch-cpu/cnn_sgd_s.json
	each_kernel tr-extract "$SHARED/torch-cpu/cnn_sgd_s.json"
	each_kernel mem-segments "$SHARED/memsnap/flexgen-fork__oom_snapshot.json.gz"
}

@test "MRP_SIMD names a kernel, or the reader refuses to start" {
	run -1 env MRP_SIMD=neon tr-extract "$TOP/tests/corpus/tr-extract/key-nul.json"
	assert_output "tr-extract: MRP_SIMD: no kernel neon here"
	run -0 env MRP_SIMD=c tr-extract "$TOP/tests/corpus/tr-extract/key-nul.json"
}

@test "a snapshot with no segments is summarised, era 2.0" {
	run -0 --separate-stderr mem-segments "$TOP/tests/corpus/mem-segments/empty-object.json"
	assert_output --partial '"devices":0,"era":"2.0","segments":0,'
	run -0 churn-score "$TOP/tests/corpus/mem-segments/empty-object.json"
}

@test "memory records without a ProfilerStep give the profile alone" {
	run -0 mem-segments "$TOP/tests/corpus/churn-score/records-no-steps.ndjson"
	assert_output --partial '{"kind":"memory_profile",'
	refute_output --partial 'memory_phase'
}

@test "an unknown cuda key is a warning, not a read past the key list" {
	run -1 snip-lint -h "$TOP/tests/corpus/snip-lint/cuda-unknown-key.yaml"
	assert_line "$TOP/tests/corpus/snip-lint/cuda-unknown-key.yaml:2:3: warning: unknown key 'cuda.grafs' is ignored by the runner [unknown-key]"
}

@test "-Infinity cut by the reader's buffer end is still repaired" {
	# The '-' is the last byte of the first 256 KiB the reader holds.
	local f=$BATS_TEST_TMPDIR/inf.json
	printf '[{"ph":"X","name":"x","ts":1,"dur":1,"pid":1,"tid":1,"args":{"v":["' > "$f"
	head -c $((262143 - $(wc -c < "$f") - 2)) /dev/zero | tr '\0' a >> "$f"
	printf '",-Infinity]}}]' >> "$f"
	run -0 --separate-stderr tr-extract -a "$f"
	assert_line --index 0 --partial '"args":{"v":["aaa'
	assert_line --index 0 --partial 'a",null]}}'
	assert_stderr "tr-extract: $f:1:262144: warning: repaired 1 invalid JSON value (control 0, utf8 0, N/A 0, NaN/Infinity 1)"
}

@test "a member name whose blanks before ':' cross the buffer's end is kept" {
	# The name's closing quote is the last byte but one of the first
	# 256 KiB; skipping the newline after it refills the buffer.
	local f=$BATS_TEST_TMPDIR/key.json
	printf '[{"dur":1,"pid":1,"tid":1,"ts":1,"name":"' > "$f"
	head -c $((262144 - $(wc -c < "$f") - 7)) /dev/zero | tr '\0' a >> "$f"
	printf '","ph"\n:"X"},\n{"name":"' >> "$f"
	head -c 300000 /dev/zero | tr '\0' b >> "$f"
	printf '","ph":"X","ts":2,"dur":1,"pid":1,"tid":1}]\n' >> "$f"
	run -0 bats_pipe tr-extract "$f" \| jq -c 'select(.kind == "event") | [(.name | length), .ts, .dur]'
	assert_output - <<-'OUT'
	[262096,0,1]
	[300000,1,1]
	OUT
}
