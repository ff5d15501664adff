bats_require_minimum_version 1.5.0

# The time ledger: ledger and ledger_total records (mrp-records(5)).

setup() {
	load test_helper
	export MRP_RUBRIC="$TOP/rubric"
	T=$BATS_TEST_TMPDIR
	F=$TOP/fixtures
}

# Prints every ledger whose slices do not add up to its wall time to the
# ns, every ledger_total that is not the sum of its rank's windows, and
# every GPU busy time past the wall; nothing when all hold.
ledger_misses() {
	jq -sc '
	    def ns: . * 1000 | round;
	    (map(select(.kind == "ledger")) | group_by(.rank)) as $byrank
	    | (.[] | select(.kind == "ledger")
	        | select((.wall | ns) != ([.slices[].time | ns] | add)
	            or ((.gpu_busy // 0) | ns) > (.wall | ns)
	            or any(.slices[]; .time <= 0)))
	    , (.[] | select(.kind == "ledger_total") | . as $t
	        | ($byrank[] | select(.[0].rank == $t.rank)) as $w
	        | select(($t.wall | ns) != ([$w[].wall | ns] | add)
	            or $t.windows != ($w | length)
	            or ($t.slices | map({key: .slice, value: (.time | ns)})
	                | from_entries) != ([$w[].slices[]] | group_by(.slice)
	                | map({key: .[0].slice, value: (map(.time | ns) | add)})
	                | from_entries)))'
}

@test "a hand-made step: each instant to the first slice open, worked by hand" {
	cat > "$T/in" <<'IN'
{"kind":"event","name":"ProfilerStep#1","cat":"user_annotation","pid":1,"tid":1,"ts":0,"dur":1000}
{"kind":"event","name":"train.py(10): step","cat":"python_function","pid":1,"tid":1,"ts":0,"dur":900}
{"kind":"event","name":"aten::mm","cat":"cpu_op","pid":1,"tid":1,"ts":100,"dur":300}
{"kind":"event","name":"cudaLaunchKernel","cat":"cuda_runtime","pid":1,"tid":1,"ts":150,"dur":50,"correlation":1}
{"kind":"event","name":"ampere_sgemm_128x64_nn","cat":"kernel","pid":0,"tid":7,"device":0,"ts":300,"dur":200,"correlation":1}
{"kind":"event","name":"cudaDeviceSynchronize","cat":"cuda_runtime","pid":1,"tid":1,"ts":450,"dur":100,"correlation":2}
{"kind":"trace","rank":null,"origin_ns":0,"start":0,"end":1000}
IN
	# Python 0-100 and 550-900; aten::mm's own time 100-150 and 200-300
	# around its launch; the kernel 300-500 hides the sync's first half.
	run -0 bash -o pipefail -c "op-rank '$T/in' | jq -c 'select(.kind == \"ledger\")
	    | [.window, .step, .wall, .gpu_busy, .gpu_util,
	       (.slices | map([.slice, .time]))]'"
	assert_output '["step",1,1000,200,20,[["python",450],["gpu_gemm",200],["cpu:matmul/linear",150],["untraced",100],["sync",50],["launch",50]]]'
}

@test "every ledger adds up to its window exactly, on every trace at hand" {
	local f n=0
	for f in "$F"/op-rank/*.json.gz "$F"/tr-extract/*.json \
	    "$F"/tr-extract/*.json.gz "$F"/example/trace.json.gz \
	    "$SHARED"/traces/*/*.json "$SHARED"/traces/*/*.json.gz; do
		[ -f "$f" ] || continue
		# The large ones are the benchmark's, not this test's.
		[ "$(stat -c %s "$f")" -le 8000000 ] || continue
		tr-extract "$f" 2>/dev/null | op-rank > "$T/out" 2>/dev/null ||
		    [ $? -eq 1 ] || fail "op-rank failed on $f"
		grep -q '"kind":"ledger"' "$T/out" || continue
		run -0 ledger_misses < "$T/out"
		[ -z "$output" ] || fail "$f: $output"
		n=$((n + 1))
	done
	[ "$n" -ge 12 ] || fail "only $n traces with a ledger"
}

@test "a CPU family's slice is at most its self time, and the CPU-only window has no GPU" {
	# Self times are key_averages()'s, in whole µs: a µs a call apart.
	tr-extract "$F/op-rank/cnn_sgd_s.json.gz" | op-rank > "$T/out"
	run -0 jq -sc '
	    (map(select(.kind == "family_total"))
	        | map({key: ("cpu:" + .family), value: .}) | from_entries) as $fam
	    | map(select(.kind == "ledger_total"))[0] as $l
	    | [($l | has("gpu_busy")), $l.windows,
	       ($l.slices | map(select(.slice | startswith("cpu:")))
	        | all(.time <= $fam[.slice].self + $fam[.slice].count))]' "$T/out"
	assert_output '[false,16,true]'
}

@test "launches that load their module are warm-up, not launch overhead" {
	# TraceLens's ROCm layer test: five first launches take 925 ms, in
	# the first of its two iterations (from its Net_0 calls).
	run -0 bash -o pipefail -c "tr-extract '$F/op-rank/tl_normalization_layer_test.json.gz' |
	    op-rank | jq -c 'select(.kind == \"ledger_total\")
	    | [.window, (.slices[0] | .slice, (.pct > 90)),
	       (.slices | map(select(.slice == \"launch\")) | .[0].pct < 1)]'"
	assert_output '["iteration","warm_up",true,true]'
}

@test "CUPTI's overhead events: module loading is warm-up, the rest the profiler's" {
	# TraceLens's B200 trace: one 1.53 ms "Activity Buffer Request" with no
	# GPU work running, and eight "Lazy Function Loading" events.
	need_shared traces/tracelens/b200_eager_trace.json.gz
	run -0 bash -o pipefail -c "tr-extract '$SHARED/traces/tracelens/b200_eager_trace.json.gz' |
	    op-rank | jq -c 'select(.kind == \"ledger_total\")
	    | .slices | map(select(.slice == \"profiler\" or .slice == \"warm_up\")
	    | [.slice, .time])'"
	assert_output '[["profiler",1526.826],["warm_up",440.887]]'
	# With the overhead events gone, warm-up loses their time and no
	# profiler slice is left.
	run -0 bash -o pipefail -c "tr-extract '$SHARED/traces/tracelens/b200_eager_trace.json.gz' |
	    jq -c 'select(.cat != \"overhead\")' | op-rank |
	    jq -c 'select(.kind == \"ledger_total\") | .slices
	    | map(select(.slice == \"profiler\" or .slice == \"warm_up\") | .slice)'"
	assert_output '[]'
}

@test "a sync waits only where no kernel runs: the GPU's time is the kernels'" {
	# H100 Qwen inference with explicit torch.cuda.synchronize() calls.
	run -0 bash -o pipefail -c "tr-extract '$F/op-rank/tl_h100_qwen1.5-0.5b.json.gz' |
	    op-rank | jq -c 'select(.kind == \"ledger_total\")
	    | [.window, .gpu_util > 90,
	       (.slices | map(.slice) | index(\"sync\") != null)]'"
	assert_output '["step",true,true]'
}

@test "partials carry the ledger: a merge gives the same records" {
	for r in 0 1; do
		tr-extract "$F/op-rank/sampled_rank-$r.json.gz" > "$T/r$r"
		op-rank --partial "$T/r$r" > "$T/p$r"
	done
	cat "$T/r0" "$T/r1" | op-rank -a > "$T/one"
	op-rank -a --merge "$T/p1" "$T/p0" > "$T/merge"
	cmp "$T/one" "$T/merge"
	run -0 jq -sc 'map(select(.kind == "ledger")) | map(.rank) | unique' "$T/one"
	assert_output '[0,1]'
}

@test "a partial ledger whose slices do not add up is refused" {
	tr-extract "$F/op-rank/cnn_sgd_s.json.gz" | op-rank --partial |
	    sed '0,/"op_partial_ledger"/s/"wall":\([0-9]*\)/"wall":1\1/' > "$T/bad"
	run -1 --separate-stderr op-rank --merge "$T/bad"
	assert_stderr --regexp "^op-rank: .*bad:[0-9]+:[0-9]+: the slices add up to [0-9]+ ns of a [0-9]+ ns window"
}

@test "steps that come back every third, longer: periodic, a long first step aside" {
	# Ten steps of 10 ms; the first takes 30 (first use) and steps 2, 5
	# and 8 take 25 (the periodic work); each step one operator.
	local i=0 ts=0 d
	for d in 30000 10000 25000 10000 10000 25000 10000 10000 25000 10000; do
		printf '{"kind":"event","name":"ProfilerStep#%d","cat":"user_annotation","pid":1,"tid":1,"ts":%d,"dur":%d}\n' $i $ts $d
		printf '{"kind":"event","name":"aten::mm","cat":"cpu_op","pid":1,"tid":1,"ts":%d,"dur":%d}\n' $ts $d
		ts=$((ts + d)) i=$((i + 1))
	done >"$T/in"
	printf '{"kind":"trace","rank":null,"origin_ns":0,"start":0,"end":%d}\n' $ts >>"$T/in"
	run -0 bash -o pipefail -c "op-rank '$T/in' | jq -c 'select(.kind == \"ledger_total\") | .periodic'"
	assert_output '{"every":3,"first":2,"windows":3,"median":10000,"extra":45000,"slices":{"cpu:matmul/linear":45000}}'
	# Steps 2 and 5 long, and 8 not: a period that does not come back is
	# none (linear_kineto's iterations 9 and 20 of 39 were said to be).
	sed -e 's/"dur":30000/"dur":10000/' -e '/#8"/,/mm/s/"dur":25000/"dur":10000/' \
	    "$T/in" >"$T/broken"
	run -0 bash -o pipefail -c "op-rank '$T/broken' | jq -c 'select(.kind == \"ledger_total\") | .periodic'"
	assert_output null
	# Without the periodic steps, only the first: no period.
	sed -i 's/"dur":25000/"dur":10000/' "$T/in"
	run -0 bash -o pipefail -c "op-rank '$T/in' | jq -c 'select(.kind == \"ledger_total\") | .periodic'"
	assert_output null
}
