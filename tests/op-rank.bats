bats_require_minimum_version 1.5.0

setup() {
	load test_helper
	# The repository's family table, wherever the binary under test is.
	export MRP_RUBRIC="$TOP/rubric"
}

# Records of op-rank on stdin, keyavg.json of the same run as $1: prints
# every row above 0.5 % of total self CPU time whose count, total or self
# is off by more than 1 %, or that op-rank lacks.
keyavg_misses() {
	jq -sc --slurpfile ka "$1" '
	    ($ka[0].rows | map(.self_cpu_time_total) | add) as $all
	    | (map(select(.kind == "op")) | map({key: .name, value: .})
	        | from_entries) as $ops
	    | $ka[0].rows[]
	    | select((.cpu_time_total | fabs) > 0.005 * $all or
	        (.self_cpu_time_total | fabs) > 0.005 * $all)
	    | . as $k | $ops[$k.name] as $o
	    | select($o == null
	        or (($o.count - $k.count) | fabs) > 0.01 * $k.count
	        or (($o.total - $k.cpu_time_total) | fabs) >
	            0.01 * ($k.cpu_time_total | fabs)
	        or (($o.self - $k.self_cpu_time_total) | fabs) >
	            0.01 * ($k.self_cpu_time_total | fabs))
	    | {name, count, cpu_time_total, self_cpu_time_total, got: $o}'
}

# Writes NDJSON event records for one thread from "name ts dur" lines.
events() {
	while read -r name ts dur; do
		printf '{"kind":"event","name":"%s","cat":"cpu_op","pid":1,"tid":1,"ts":%s,"dur":%s}\n' \
		    "$name" "$ts" "$dur"
	done
	printf '{"kind":"trace","rank":null,"origin_ns":0,"start":0,"end":100}\n'
}

@test "usage errors exit 2" {
	run -2 --separate-stderr op-rank -Z
	assert_stderr --partial 'usage: op-rank [-a] [-f table] [-g gpu] [-k key] [-n count] [-p phase] [-T list] [--merge] [--partial] [file ...]'
	run -2 --separate-stderr op-rank -k bogus
	assert_stderr --partial 'unknown key: bogus'
	run -2 --separate-stderr op-rank -n -1
	assert_stderr --partial 'count is too small'
	run -2 --separate-stderr op-rank -f "$BATS_TEST_TMPDIR/none.tsv"
	assert_stderr --partial 'none.tsv'
	run -2 --separate-stderr op-rank --phase bogus
	assert_stderr --partial 'unknown phase: bogus'
	# "other" is what no operator marks, not a phase to focus on.
	run -2 --separate-stderr op-rank -p other
	assert_stderr --partial 'unknown phase: other'
}

@test "a bad family table line exits 2 with file:line" {
	printf 'cpu\tmatmul\taten::mm\ncpu aten::add\n' > "$BATS_TEST_TMPDIR/t.tsv"
	run -2 --separate-stderr op-rank -f "$BATS_TEST_TMPDIR/t.tsv" </dev/null
	assert_stderr --partial 't.tsv:2: expected scope, family and pattern'
	printf 'cpu\tother\taten::mm\n' > "$BATS_TEST_TMPDIR/t.tsv"
	run -2 --separate-stderr op-rank -f "$BATS_TEST_TMPDIR/t.tsv" </dev/null
	assert_stderr --partial 't.tsv:1:'
}

@test "a precision table that names no known precision exits 2" {
	mkdir "$BATS_TEST_TMPDIR/r"
	cp "$TOP/rubric/op-families.tsv" "$BATS_TEST_TMPDIR/r/"
	printf 'gpu\tfp12\t*gemm*\n' > "$BATS_TEST_TMPDIR/r/kernel-precision.tsv"
	MRP_RUBRIC="$BATS_TEST_TMPDIR/r" run -2 --separate-stderr op-rank </dev/null
	assert_stderr --partial 'kernel-precision.tsv: unknown precision: fp12'
	printf 'gpu\tunknown\t*gemm*\n' > "$BATS_TEST_TMPDIR/r/kernel-precision.tsv"
	MRP_RUBRIC="$BATS_TEST_TMPDIR/r" run -2 --separate-stderr op-rank </dev/null
	assert_stderr --partial 'kernel-precision.tsv:1: "unknown" is what matches no rule'
	rm "$BATS_TEST_TMPDIR/r/kernel-precision.tsv"
	MRP_RUBRIC="$BATS_TEST_TMPDIR/r" run -2 --separate-stderr op-rank </dev/null
	assert_stderr --partial 'r/kernel-precision.tsv: '
}

@test "gpu_device: precisions by the GPU's name, else its inferred model's, else its capability, else none" {
	for t in tl_h100_qwen1.5-0.5b step_based_trace \
	    vllm_decode_full_graph_execution mi250_minitoy_train_ROCm6_2_kineto; do
		tr-extract "$FIXTURES/$t.json.gz" | op-rank --partial |
		    op-rank --merge | jq -c 'select(.kind == "gpu_device") |
		    [.name, .inferred, .platform, .capability, .architecture,
		    .gpu, .precisions, .precisions_from]'
	done >"$BATS_TEST_TMPDIR/out"
	run -0 cat "$BATS_TEST_TMPDIR/out"
	# vLLM's trace names no GPU: 9.4 with 304 CUs and 192 GiB is an
	# MI300X, said to be inferred.  A named one is never inferred.
	assert_output - <<'END'
["NVIDIA H100 80GB HBM3",null,"cuda","9.0","Hopper","H100-SXM",["tf32","fp16","bf16","fp8","int8"],"gpu-peaks.tsv"]
["Quadro GP100",null,"cuda","6.0","Pascal",null,[],"gpu-arch.tsv"]
[null,"AMD Instinct MI300X","rocm","9.4","CDNA3 (gfx942)","MI300X",["tf32","fp16","bf16","fp8","int8"],"gpu-peaks.tsv"]
["AMD Radeon Graphics",null,"rocm","9.0","gfx9 (Vega, CDNA1 or CDNA2)",null,null,null]
END
	# -g names the GPU whatever the trace says.
	run -0 bats_pipe tr-extract "$FIXTURES/step_based_trace.json.gz" \| \
	    op-rank -g A100-40GB \| jq -c 'select(.kind == "gpu_device") |
	    [.architecture, .gpu, .precisions]'
	assert_output '["Pascal","A100-40GB",["tf32","fp16","bf16","int8"]]'
}

@test "runtime_call: the runtime calls by name, through partials too" {
	run -0 bats_pipe tr-extract "$FIXTURES/mi300_sglang_Qwen3-8B_decode.json.gz" \| \
	    op-rank --partial \| op-rank --merge \| \
	    jq -c 'select(.kind == "runtime_call") | [.name, .slice, .count, .total]'
	assert_line --index 0 '["hipMemcpyWithStream","blocking_copy",1,463063.75]'
	assert_line --index 3 '["hipMemcpyAsync","blocking_copy",2,12.828]'
	assert_equal "${#lines[@]}" 10
	# Made-up names cannot grow memory: past 256, one sum.
	jq -n '{traceEvents: [range(300) | {ph: "X", cat: "cuda_runtime",
	    name: "cudaFake\(.)", pid: 1, tid: 1, ts: (. * 10),
	    dur: (300 - .)}]}' >"$BATS_TEST_TMPDIR/rt.json"
	run -0 bats_pipe tr-extract "$BATS_TEST_TMPDIR/rt.json" \| op-rank \| \
	    jq -c 'select(.kind == "runtime_call") | [.name, .count, .total]'
	assert_line --index 0 '["(other runtime calls)",44,990]'
	assert_line --index 1 '["cudaFake0",1,300]'
}

@test "runtime_caller: what issued the sync, copy and allocator calls" {
	run -0 bats_pipe tr-extract "$FIXTURES/hta_cuda_event_sync.json.gz" \| \
	    op-rank \| jq -c 'select(.kind == "runtime_caller") |
	    [.slice, .class, .caller, .count, .total]'
	assert_output - <<'END'
["blocking_copy","op","aten::_local_scalar_dense",1,29]
["sync","annotation","ProfilerStep*",2,42]
["sync","op","aten::_local_scalar_dense",1,6]
END
	tr-extract "$FIXTURES/hta_cuda_event_sync.json.gz" | op-rank |
	    grep '"runtime_caller"' >"$BATS_TEST_TMPDIR/whole"
	run -0 bats_pipe tr-extract "$FIXTURES/hta_cuda_event_sync.json.gz" \| \
	    op-rank --partial \| op-rank --merge \| grep '"runtime_caller"'
	assert_output - <"$BATS_TEST_TMPDIR/whole"
}

@test "runtime_caller: outside any operator, the user's Python frame issued it" {
	# TraceLens's ROCm layer test calls torch.cuda.synchronize() from its
	# own line 64: that line, not torch/cuda/__init__.py's frame.
	run -0 bats_pipe tr-extract "$FIXTURES/tl_normalization_layer_test.json.gz" \| \
	    op-rank \| jq -c 'select(.kind == "runtime_caller" and .slice == "sync") |
	    [.class, .caller, .count]'
	assert_output '["python","test_perf_model.py(64): create_normalization_layer_trace",1]'
	run -0 bash -o pipefail -c "zcat '$FIXTURES/tl_normalization_layer_test.json.gz' |
	    jq -r '.traceEvents[] | select(.cat == \"python_function\") | .name' |
	    grep -c '^torch/cuda/__init__.py([0-9]*): synchronize\$'"
	assert_output 1
	# Without its Python frames the call has no caller.
	run -0 bash -o pipefail -c "tr-extract '$FIXTURES/tl_normalization_layer_test.json.gz' |
	    jq -c 'select(.cat != \"python_function\")' | op-rank |
	    jq -c 'select(.kind == \"runtime_caller\" and .slice == \"sync\") | [.class, .caller]'"
	assert_output '[null,null]'
}

@test "ledger: without steps, iterations inferred from DataLoader.__next__" {
	local loop="$TOP/fixtures/rubric-apply/slow_loader.json.gz"

	run -0 bats_pipe tr-extract "$loop" \| op-rank \| \
	    jq -c 'select(.kind == "ledger" or .kind == "ledger_total") |
	    [.window, .inferred_from, .iteration, .windows,
	    (.wall * 1000 | round) == ([.slices[].time * 1000 | round] | add)]'
	assert_line --index 0 '["iteration","DataLoader.__next__",0,null,true]'
	assert_line --index 7 '["iteration","DataLoader.__next__",7,null,true]'
	assert_line --index 8 '["iteration","DataLoader.__next__",null,8,true]'
	assert_equal "${#lines[@]}" 9
	# Nine calls of __next__ (the last ends the loop): eight iterations.
	run -0 bats_pipe tr-extract "$loop" \| op-rank -a \| jq -r \
	    'select(.kind == "op" and (.name | endswith("__next__"))) | .count'
	assert_output 9
	tr-extract "$loop" | op-rank | grep '"ledger' >"$BATS_TEST_TMPDIR/whole"
	run -0 bats_pipe tr-extract "$loop" \| op-rank --partial \| \
	    op-rank --merge \| grep '"ledger'
	assert_output - <"$BATS_TEST_TMPDIR/whole"
}

@test "ledger: without steps or boundary labels, iterations from the outermost module calls" {
	# TraceLens's ROCm layer test runs its Net three times (the first with
	# every kernel's first launch), each call followed by MSELoss, which
	# takes less time: two iterations between the three Net_0 calls.
	local t="$FIXTURES/tl_normalization_layer_test.json.gz"
	run -0 bash -o pipefail -c "tr-extract '$t' | jq -r 'select(.cat == \"python_function\"
	    and (.name == \"nn.Module: Net_0\" or .name == \"nn.Module: MSELoss_0\")) | .name' |
	    sort | uniq -c | awk '{ print \$1 }' | paste -sd' '"
	assert_output '3 3'
	run -0 bats_pipe tr-extract "$t" \| op-rank \| jq -c \
	    'select(.kind == "ledger" or .kind == "ledger_total") |
	    [.window, .inferred_from, .iteration, .windows,
	    (.wall * 1000 | round) == ([.slices[].time * 1000 | round] | add)]'
	assert_output - <<'END'
["iteration","outermost nn.Module",0,null,true]
["iteration","outermost nn.Module",1,null,true]
["iteration","outermost nn.Module",null,2,true]
END
	# The iterations start where the Net_0 calls do, on the trace's time.
	run -0 bash -o pipefail -c "tr-extract '$t' | jq -r 'select(.name == \"nn.Module: Net_0\")
	    | .ts' | head -2 | paste -sd' '"
	local starts=$output
	run -0 bash -o pipefail -c "tr-extract '$t' | op-rank |
	    jq -r 'select(.kind == \"ledger\") | .ts' | paste -sd' '"
	assert_output "$starts"
	tr-extract "$t" | op-rank | grep '"ledger' >"$BATS_TEST_TMPDIR/whole"
	run -0 bats_pipe tr-extract "$t" \| op-rank --partial \| \
	    op-rank --merge \| grep '"ledger'
	assert_output - <"$BATS_TEST_TMPDIR/whole"
}

@test "rank_summary: each CPU rank's time in its collective, the late rank's least" {
	# Four gloo ranks recorded here (ddp_ranks.py stall): rank 1 sleeps
	# 50 ms a step before its forward, so it waits least in all_reduce.
	local f=("$FIXTURES"/ddp_stall_rank[0-3].json.gz)
	run -0 bats_pipe tr-extract "${f[@]}" \| op-rank \| jq -c \
	    'select(.kind == "rank_summary") | [.rank, .collective.name]'
	assert_output - <<'END'
[0,"gloo:all_reduce"]
[1,"gloo:all_reduce"]
[2,"gloo:all_reduce"]
[3,"gloo:all_reduce"]
END
	# Each total is the rank's gloo:all_reduce events' time, from the trace.
	for r in 0 1 2 3; do
		run -0 bash -o pipefail -c "zcat '${f[$r]}' | jq '[.[] | select(.name ==
		    \"gloo:all_reduce\") | .dur] | add'"
		local want=$output
		run -0 bash -o pipefail -c "tr-extract ${f[*]} | op-rank |
		    jq 'select(.kind == \"rank_summary\" and .rank == $r) | .collective.total'"
		assert_output "$want"
	done
	run -0 bash -o pipefail -c "tr-extract ${f[*]} | op-rank | jq -sc 'map(select(
	    .kind == \"rank_summary\")) | min_by(.collective.total) | .rank'"
	assert_output 1
	# Matched call by call: each instance's shortest call is its last
	# rank's, worked out here from the traces' own events.
	run -0 bash -o pipefail -c "zcat ${f[*]} | jq -sc 'map([.[] | select(.name ==
	    \"gloo:all_reduce\")] | sort_by(.ts) | map(.dur)) as \$d
	    | (\$d | map(length) | min) as \$n
	    | [range(4) as \$r | [range(\$n) as \$k | select(([\$d[][\$k]] | min)
	        == \$d[\$r][\$k])] | length]'"
	assert_output '[0,5,0,0]'
	run -0 bash -o pipefail -c "tr-extract ${f[*]} | op-rank | jq -sc 'map(select(
	    .kind == \"rank_summary\") | .collective.last_at)'"
	assert_output '[0,5,0,0]'
	# Merged from one partial a rank, the same records.
	tr-extract "${f[@]}" | op-rank | grep '"rank_summary"' >"$BATS_TEST_TMPDIR/one"
	for r in 0 1 2 3; do
		tr-extract "${f[$r]}" | op-rank --partial >"$BATS_TEST_TMPDIR/p$r"
	done
	run -0 bats_pipe op-rank --merge "$BATS_TEST_TMPDIR"/p[0-3] \| grep '"rank_summary"'
	assert_output - <"$BATS_TEST_TMPDIR/one"
	# GPU ranks wait in their NCCL kernels: those are matched there, and
	# each rank's figures are its part in the collective records.
	tr-extract "$FIXTURES/sampled_rank-0.json.gz" \
	    "$FIXTURES/sampled_rank-1.json.gz" | op-rank >"$BATS_TEST_TMPDIR/g"
	run -0 jq -sc '(map(select(.kind == "collective"))) as $c
	    | map(select(.kind == "rank_summary")) | map(.rank as $r
	      | [$r, .collective.name[0:24], .collective.instances == ($c | length),
	         .collective.last_at == ($c | map(select(.late_rank == $r)) | length),
	         .collective.waited == ($c | map(.calls[] | select(.rank == $r) | .wait) | add),
	         .collective.total == ($c | map(.calls[] | select(.rank == $r) | .dur) | add)])' \
	    "$BATS_TEST_TMPDIR/g"
	assert_output '[[0,"ncclKernel_SendRecv_RING",true,true,true,true],[1,"ncclKernel_SendRecv_RING",true,true,true,true]]'
}

@test "a GPU architecture table with a bad row exits 2" {
	mkdir "$BATS_TEST_TMPDIR/r"
	cp "$TOP"/rubric/*.tsv "$BATS_TEST_TMPDIR/r/"
	printf 'cuda\t8.0\tAmpere\tbf16,fp12\tx\n' >"$BATS_TEST_TMPDIR/r/gpu-arch.tsv"
	MRP_RUBRIC="$BATS_TEST_TMPDIR/r" run -2 --separate-stderr op-rank </dev/null
	assert_stderr --partial 'gpu-arch.tsv:1: not a list of tf32,'
	printf 'opencl\t8.0\tAmpere\tbf16\tx\n' >"$BATS_TEST_TMPDIR/r/gpu-arch.tsv"
	MRP_RUBRIC="$BATS_TEST_TMPDIR/r" run -2 --separate-stderr op-rank </dev/null
	assert_stderr --partial 'gpu-arch.tsv:1: not cuda or rocm: opencl'
	printf 'cuda\t8\tAmpere\tbf16\tx\n' >"$BATS_TEST_TMPDIR/r/gpu-arch.tsv"
	MRP_RUBRIC="$BATS_TEST_TMPDIR/r" run -2 --separate-stderr op-rank </dev/null
	assert_stderr --partial 'gpu-arch.tsv:1: not a capability: 8'
	printf 'model\tcuda\t9.0\t132\t80-75\tH100\tH100-SXM\tx\n' >"$BATS_TEST_TMPDIR/r/gpu-arch.tsv"
	MRP_RUBRIC="$BATS_TEST_TMPDIR/r" run -2 --separate-stderr op-rank </dev/null
	assert_stderr --partial 'gpu-arch.tsv:1: not a range of GiB: 80-75'
	printf 'model\tcuda\t9.0\t132\t75-81\tH100\tH100-SXM5\tx\n' >"$BATS_TEST_TMPDIR/r/gpu-arch.tsv"
	MRP_RUBRIC="$BATS_TEST_TMPDIR/r" run -2 --separate-stderr op-rank </dev/null
	assert_stderr --partial 'gpu-arch.tsv:1: no row H100-SXM5 in gpu-peaks.tsv'
	printf 'model\tcuda\t9.0\t132\t75-81\tH100\n' >"$BATS_TEST_TMPDIR/r/gpu-arch.tsv"
	MRP_RUBRIC="$BATS_TEST_TMPDIR/r" run -2 --separate-stderr op-rank </dev/null
	assert_stderr --partial 'gpu-arch.tsv:1: want 8 tab-separated fields on a model line'
}

@test "vLLM's unnamed GPU: an MI300X inferred from 9.4, 304 CUs and 192 GiB, its peaks judging the GEMMs" {
	local f=$FIXTURES/vllm_decode_full_graph_execution.json.gz
	# What the trace itself says of its GPUs.
	run -0 /usr/bin/python3 -c '
import gzip, json, sys
p = json.load(gzip.open(sys.argv[1]))["deviceProperties"][0]
print(repr(p["name"]), p["computeMajor"], p["computeMinor"], p["numSms"],
      round(p["totalGlobalMem"] / 2**30))' "$f"
	assert_output "'' 9 4 304 192"
	run -0 bats_pipe tr-extract "$f" \| op-rank
	run -0 jq -c 'select(.kind == "gpu_device" or .kind == "compute_summary") | [.name, .inferred, .inferred_from, .device_name, .device_inferred, .gpu, .peak_tflops]' <<<"$output"
	assert_output - <<'END'
[null,"AMD Instinct MI300X","rocm 9.4, 304 CUs, 192 GiB",null,null,"MI300X",null]
[null,null,null,null,"AMD Instinct MI300X","MI300X",1307.4]
END
}

@test "a GPU the trace does not name: inferred as the model whose peaks its own name picks, on every trace at hand" {
	local f named blank n=0 T=$BATS_TEST_TMPDIR
	for f in "$FIXTURES"/*.json.gz "$SHARED"/traces/*/*.json*; do
		[ -e "$f" ] || continue
		tr-extract "$f" 2>/dev/null | grep '"kind":"trace"' >"$T/trace" ||
		    continue
		jq -e '(.device_properties // [])[0].name // "" | . != ""' \
		    "$T/trace" >/dev/null || continue
		named=$(op-rank "$T/trace" |
		    jq -r 'select(.kind == "gpu_device") | .gpu // "-"')
		blank=$(jq -c '.device_properties |= map(.name = "")' "$T/trace" |
		    op-rank | jq -r 'select(.kind == "gpu_device") |
		    [.inferred // "-", .gpu // "-"] | @tsv')
		# A model line with a row: the row the GPU's own name picks.
		[ "${blank#*	}" = - ] || [ "${blank#*	}" = "$named" ] ||
		    fail "$f: named $named, inferred $blank"
		[ "${blank#*	}" = - ] || n=$((n + 1))
	done
	# The copied H100 and MI300X traces at least.
	[ "$n" -ge 3 ]
}

@test "empty input gives empty output" {
	run -0 op-rank </dev/null
	assert_output ''
}

@test "golden output on a real legacy CPU trace" {
	run -0 bats_pipe tr-extract "$FIXTURES/cnn_sgd_s.json.gz" \| op-rank
	assert_output - < "$FIXTURES/cnn.ndjson"
}

@test "golden output on a real GPU trace" {
	run -0 bats_pipe tr-extract "$FIXTURES/step_based_trace.json.gz" \| op-rank
	assert_output - < "$FIXTURES/gpu.ndjson"
}

@test "golden output on two ranks with -n 5" {
	run -0 bats_pipe tr-extract "$FIXTURES/sampled_rank-0.json.gz" \
	    "$FIXTURES/sampled_rank-1.json.gz" \| op-rank -n 5
	assert_output - < "$FIXTURES/ranks.ndjson"
}

@test "gloo's async collectives: time but no self time, as key_averages() counts them" {
	# Twelve DDP ranks recorded here over gloo, with each one's
	# key_averages(): gloo:all_reduce has its time and a self time of 0.
	local k t n=0
	for k in "$FIXTURES"/ddp_*_rank[0-3].keyavg.json; do
		t=${k%.keyavg.json}.json.gz
		tr-extract "$t" | op-rank -n 0 >"$BATS_TEST_TMPDIR/o"
		run -0 keyavg_misses "$k" <"$BATS_TEST_TMPDIR/o"
		assert_output ''
		run -0 jq -c 'select(.kind == "op" and .name == "gloo:all_reduce")
		    | [.self, .total > 0]' "$BATS_TEST_TMPDIR/o"
		assert_output '[0,true]'
		n=$((n + 1))
	done
	[ "$n" -eq 12 ]
}

@test "count, total and self match key_averages() within 1% (copied fixtures)" {
	for t in cnn_sgd_s lstm_infer_m; do
		tr-extract "$FIXTURES/$t.json.gz" | op-rank > "$BATS_TEST_TMPDIR/o"
		run -0 keyavg_misses "$FIXTURES/$t.keyavg.json" < "$BATS_TEST_TMPDIR/o"
		assert_output ''
	done
}

@test "every torch-cpu trace with a keyavg.json matches it within 1%" {
	need_shared torch-cpu
	n=0
	for ka in "$SHARED"/torch-cpu/*.keyavg.json; do
		t=${ka%.keyavg.json}.json
		[ -e "$t" ] || t=$t.gz
		tr-extract "$t" | op-rank > "$BATS_TEST_TMPDIR/o"
		run -0 keyavg_misses "$ka" < "$BATS_TEST_TMPDIR/o"
		assert_output ''
		n=$((n + 1))
	done
	[ "$n" -ge 2 ]
}

@test "the legacy traces match key_averages() on every row exactly" {
	tr-extract "$FIXTURES/lstm_infer_m.json.gz" | op-rank > "$BATS_TEST_TMPDIR/o"
	run -0 jq -sc --slurpfile ka "$FIXTURES/lstm_infer_m.keyavg.json" '
	    (map(select(.kind == "op")) | map({key: .name, value: .})
	        | from_entries) as $o
	    | [$ka[0].rows[] | select($o[.name] == null or
	        $o[.name].count != .count or
	        $o[.name].total != .cpu_time_total or
	        $o[.name].self != .self_cpu_time_total)] | length' \
	    "$BATS_TEST_TMPDIR/o"
	assert_output 0
}

@test "GPU traces match key_averages() on every row, runtime calls nested as rows of their own" {
	# keyavg.json: PyTorch's own EventList over each trace's CPU events
	# (fixtures/op-rank/keyavg.py), where cudaLaunchKernel, hipMemcpy and
	# their kin are CPU events nested under the operator that issued them.
	local t n=0
	for t in mi300_sglang_Qwen3-8B_decode sampled_rank-0 \
	    mi250_minitoy_train_ROCm6_2_kineto tl_h100_qwen1.5-0.5b \
	    step_based_trace; do
		tr-extract "$FIXTURES/$t.json.gz" | op-rank -n 0 \
		    > "$BATS_TEST_TMPDIR/o"
		run -0 jq -sc --slurpfile ka "$FIXTURES/$t.keyavg.json" '
		    (map(select(.kind == "op" and .class != "python"))
		        | map({key: .name, value: .}) | from_entries) as $o
		    | [$ka[0].rows[] | select($o[.name] == null or
		        $o[.name].count != .count or
		        $o[.name].total != .cpu_time_total or
		        $o[.name].self != .self_cpu_time_total)]' \
		    "$BATS_TEST_TMPDIR/o"
		assert_output '[]'
		n=$((n + 1))
	done
	[ "$n" -eq 5 ]
	# SGLang's decode: the 463 ms blocking copy is the runtime call's, not
	# aten::copy_'s own time.
	tr-extract "$FIXTURES/mi300_sglang_Qwen3-8B_decode.json.gz" |
	    op-rank -n 0 > "$BATS_TEST_TMPDIR/o"
	run -0 jq -c 'select(.kind == "op" and (.name == "aten::copy_" or
	    .name == "hipMemcpyWithStream")) | [.class, .name, .family,
	    .count, .total, .self]' "$BATS_TEST_TMPDIR/o"
	assert_output - <<-'EOF'
	["op","aten::copy_","data movement",7,926199,30]
	["runtime","hipMemcpyWithStream","runtime",1,463063,463063]
	EOF
}

@test "nesting survives unsorted, zero-length and same-start events" {
	# A [0,10] holds B [2,5], which holds C [2,2]; D [5,5] starts where B
	# ends, so it is A's child.  Given in no particular order.
	printf '%s\n' 'D 5 0' 'C 2 0' 'A 0 10' 'B 2 3' | events |
	    op-rank -k self > "$BATS_TEST_TMPDIR/o"
	run -0 jq -c 'select(.kind == "op") | [.name, .count, .total, .self]' \
	    "$BATS_TEST_TMPDIR/o"
	assert_output - <<-'EOF'
	["A",1,10,7]
	["B",1,3,3]
	["C",1,0,0]
	["D",1,0,0]
	EOF
}

@test "an only child with its parent's name is merged into it" {
	# aten::div_ inside aten::div_, as dropout writes it; its child
	# aten::mul is adopted by the outer one.
	printf '%s\n' 'aten::div_ 0 10' 'aten::div_ 1 8' 'aten::mul 2 3' |
	    events | op-rank > "$BATS_TEST_TMPDIR/o"
	run -0 jq -c 'select(.kind == "op") | [.name, .count, .total, .self]' \
	    "$BATS_TEST_TMPDIR/o"
	assert_output - <<-'EOF'
	["aten::div_",1,10,7]
	["aten::mul",1,3,3]
	EOF
}

@test "a child that overruns its parent is attached higher up, as torch does" {
	# B overruns A by 1 µs, so it pops A; self times follow torch.
	printf '%s\n' 'P 0 20' 'A 1 5' 'B 2 5' | events |
	    op-rank > "$BATS_TEST_TMPDIR/o"
	run -0 jq -c 'select(.kind == "op") | [.name, .self]' "$BATS_TEST_TMPDIR/o"
	assert_output - <<-'EOF'
	["P",10]
	["A",5]
	["B",5]
	EOF
}

@test "truncation to whole microseconds follows key_averages(), negative times too" {
	# start -0.5 floors to -1, duration 1.9 truncates to 1.
	printf '%s\n' 'X -0.5 1.9' | events | op-rank > "$BATS_TEST_TMPDIR/o"
	run -0 jq -c 'select(.kind == "op") | [.total, .min, .max]' "$BATS_TEST_TMPDIR/o"
	assert_output '[1,1,1]'
}

@test "malformed input exits 1 with file:line:col" {
	printf '{"kind":"event","name":"a","ts":1,"dur":2}\n{"kind":"event",\n' \
	    > "$BATS_TEST_TMPDIR/bad.ndjson"
	run -1 --separate-stderr op-rank "$BATS_TEST_TMPDIR/bad.ndjson"
	assert_stderr --regexp 'bad.ndjson:[23]:[0-9]+: '
	assert_output ''
	printf '{"kind":"event","name":"a","cat":"cpu_op","ts":"1","dur":2}\n' \
	    > "$BATS_TEST_TMPDIR/bad.ndjson"
	run -1 --separate-stderr op-rank "$BATS_TEST_TMPDIR/bad.ndjson"
	assert_stderr --partial 'bad.ndjson:1:'
	assert_stderr --partial '"ts"'
	# A trace's window whose start, made absolute, would wrap.
	printf '{"kind":"trace","rank":null,"origin_ns":9223372036854775000,"start":0,"end":5}\n' \
	    > "$BATS_TEST_TMPDIR/bad.ndjson"
	run -1 --separate-stderr op-rank "$BATS_TEST_TMPDIR/bad.ndjson"
	assert_stderr "op-rank: $BATS_TEST_TMPDIR/bad.ndjson:1:1: \"trace\" record's \"origin_ns\", \"start\" or \"end\" is beyond 2^62 ns"
}

@test "input that ends inside a trace is counted, with a warning and status 1" {
	tr-extract "$FIXTURES/cnn_sgd_s.json.gz" | grep -v '"kind":"trace"' \
	    > "$BATS_TEST_TMPDIR/cut.ndjson"
	run -1 --separate-stderr op-rank "$BATS_TEST_TMPDIR/cut.ndjson"
	assert_stderr --partial 'input ends inside a trace'
	assert_output --partial '"name":"aten::mm","family":"matmul/linear","count":64,"total":83306,"self":83306'
	# The same on stdin: the status does not depend on how it came.
	run -1 --separate-stderr op-rank < "$BATS_TEST_TMPDIR/cut.ndjson"
	assert_stderr --partial '<stdin>: input ends inside a trace'
	assert_output --partial '"name":"aten::mm","family":"matmul/linear","count":64,"total":83306,"self":83306'
}

@test "records of other kinds are ignored" {
	tr-extract "$FIXTURES/cnn_sgd_s.json.gz" > "$BATS_TEST_TMPDIR/in"
	{
		printf '{"kind":"memory","ts":1,"bytes":5}\n{"kind":"whatever"}\n'
		printf '{"kind":"event","name":"x","cat":"ac2g","ts":"bad"}\n'
		cat "$BATS_TEST_TMPDIR/in"
	} > "$BATS_TEST_TMPDIR/mixed"
	run -0 op-rank "$BATS_TEST_TMPDIR/mixed"
	assert_output - < "$FIXTURES/cnn.ndjson"
}

@test "a file that cannot be opened is skipped with status 1" {
	tr-extract "$FIXTURES/cnn_sgd_s.json.gz" > "$BATS_TEST_TMPDIR/in"
	run -1 --separate-stderr op-rank "$BATS_TEST_TMPDIR/nope" "$BATS_TEST_TMPDIR/in"
	assert_stderr --partial 'nope'
	assert_output - < "$FIXTURES/cnn.ndjson"
}

@test ".gz input gives the same bytes as plain input" {
	tr-extract "$FIXTURES/step_based_trace.json.gz" > "$BATS_TEST_TMPDIR/in"
	gzip -c "$BATS_TEST_TMPDIR/in" > "$BATS_TEST_TMPDIR/in.gz"
	run -0 op-rank "$BATS_TEST_TMPDIR/in.gz"
	assert_output - < "$FIXTURES/gpu.ndjson"
}

@test "Python frames nest by their exact times: a callee rounded past its caller is still its callee" {
	# In truncated µs the caller runs [-1, 9] and the callee [0, 10]; in
	# ns the callee ends with its caller, as in the example trace's
	# spawn_main and _main.
	printf '%s\n' 'caller -0.3 10.3' 'callee 0 10' 'leaf 1 2' | events |
	    sed 's/"cpu_op"/"python_function"/' > "$BATS_TEST_TMPDIR/in"
	run -0 bash -o pipefail -c "op-rank '$BATS_TEST_TMPDIR/in' |
	    jq -c 'select(.kind == \"warning\" or .kind == \"op\") | [.kind, .name, .total, .self]'"
	assert_output - <<'OUT'
["op","callee",10,8]
["op","caller",10,0]
["op","leaf",2,2]
OUT
}

@test "a negative self time is kept in the sums, shown as 0 after a warning naming it" {
	# Two children that overlap: aten::b does not fit in aten::a, so both
	# are aten::outer's, and their 16 µs exceed its 10 µs.
	printf '%s\n' 'aten::outer 0 10' 'aten::a 0 8' 'aten::b 2 8' | events > "$BATS_TEST_TMPDIR/in"
	run -0 bash -o pipefail -c "op-rank '$BATS_TEST_TMPDIR/in' |
	    jq -c 'select(.kind == \"warning\" or (.kind == \"op\" and .name == \"aten::outer\")
	        or .kind == \"family_total\") | [.kind, .name // .family, .self, .message]'"
	assert_line --index 0 "[\"warning\",null,null,\"1 names have a negative self time, their children adding up to more than their own time (overlapping children, or fractional-µs timestamps rounded apart); shown as 0: aten::outer (-6 µs)\"]"
	assert_line '["op","aten::outer",0,null]'
	refute_output --partial ',-'
}

@test "a failed write exits 1" {
	tr-extract "$FIXTURES/cnn_sgd_s.json.gz" > "$BATS_TEST_TMPDIR/in"
	run -1 --separate-stderr bash -c 'op-rank "$1" > /dev/full' _ \
	    "$BATS_TEST_TMPDIR/in"
	assert_stderr --partial 'op-rank: '
}

@test "-n limits each ranked kind and -k orders by the key" {
	tr-extract "$FIXTURES/cnn_sgd_s.json.gz" | op-rank -n 3 -k self \
	    > "$BATS_TEST_TMPDIR/o"
	run -0 jq -sc '[.[] | select(.kind == "op" and .class == "op") | .self]' \
	    "$BATS_TEST_TMPDIR/o"
	assert_output '[83306,79149,65963]'
	run -0 jq -sc '[.[] | select(.kind == "op" and .class == "annotation")] | length' \
	    "$BATS_TEST_TMPDIR/o"
	assert_output 3
	run -0 jq -sc '[.[] | select(.kind == "op") | .place]' "$BATS_TEST_TMPDIR/o"
	assert_output '[1,2,3,1,2,3]'
}

@test "steps wrappers are ranked apart from operators" {
	run -0 bats_pipe tr-extract "$FIXTURES/cnn_sgd_s.json.gz" \| op-rank
	run -0 jq -c 'select(.kind == "op" and .name == "ProfilerStep*") | [.class, .count, .total]' <<<"$output"
	assert_output '["annotation",16,488792]'
}

@test "phases, families and steps on a real training run" {
	tr-extract "$FIXTURES/cnn_sgd_s.json.gz" | op-rank > "$BATS_TEST_TMPDIR/o"
	# Phase self times add up to all self time.
	run -0 jq -sc '([.[] | select(.kind == "phase_total") | .self] | add) ==
	    (.[] | select(.kind == "cpu_summary") | .self_total)' "$BATS_TEST_TMPDIR/o"
	assert_output true
	run -0 jq -sc '[.[] | select(.kind == "phase_total" and .self > 0) | .phase]' \
	    "$BATS_TEST_TMPDIR/o"
	assert_output '["forward","backward","optimizer","dataloader","other"]'
	run -0 jq -c 'select(.kind == "cpu_summary") | .dominant_family' "$BATS_TEST_TMPDIR/o"
	assert_output '"matmul/linear"'
	run -0 jq -c 'select(.kind == "step_stats") | [.steps, .slowest_step, .max]' \
	    "$BATS_TEST_TMPDIR/o"
	assert_output '[16,8,38165]'
}

@test "the GPU timeline identity holds to the nanosecond on the copied fixtures" {
	for t in step_based_trace sampled_rank-0 sampled_rank-1; do
		run -0 bats_pipe tr-extract "$FIXTURES/$t.json.gz" \| op-rank \| \
		    jq -c 'select(.kind == "gpu_timeline") |
		    ((.computation + .exposed_comm + .exposed_memcpy + .idle) * 1000
		    | round) == (.window * 1000 | round) and
		    ((.computation + .exposed_comm + .exposed_memcpy) * 1000 | round)
		    == (.busy * 1000 | round)'
		assert_output true
	done
}

@test "the GPU timeline identity holds on every GPU trace in ../shared" {
	need_shared traces
	for t in $(find "$SHARED/traces" -name '*.json*' | sort); do
		tr-extract "$t" 2>/dev/null | op-rank || true
	done > "$BATS_TEST_TMPDIR/o"
	run -0 jq -sc '[.[] | select(.kind == "gpu_timeline") |
	    ((.computation + .exposed_comm + .exposed_memcpy + .idle) * 1000
	    | round) == (.window * 1000 | round)] | [length >= 40, unique]' \
	    "$BATS_TEST_TMPDIR/o"
	assert_output '[true,[true]]'
}

@test "kernels are linked to the operators that launched them" {
	tr-extract "$FIXTURES/sampled_rank-0.json.gz" | op-rank > "$BATS_TEST_TMPDIR/o"
	# Launched GPU time by phase adds up to all GPU event time.
	run -0 jq -sc '([.[] | select(.kind == "phase_total") | .gpu] | add * 1000 | round) ==
	    (.[] | select(.kind == "cpu_summary") | .gpu_total * 1000 | round)' \
	    "$BATS_TEST_TMPDIR/o"
	assert_output true
	run -0 jq -c 'select(.kind == "phase_total" and .phase == "communication") | .gpu' \
	    "$BATS_TEST_TMPDIR/o"
	assert_output 396199
	run -0 jq -c 'select(.kind == "kernel" and .family == "communication") | .name' \
	    "$BATS_TEST_TMPDIR/o"
	assert_output --partial 'ncclKernel'
}

@test "a step ends at the last GPU work it launched" {
	need_shared traces/kineto/resnet50_nw0_worker0.1623143089861.pt.trace.json.gz
	tr-extract "$SHARED/traces/kineto/resnet50_nw0_worker0.1623143089861.pt.trace.json.gz" |
	    op-rank > "$BATS_TEST_TMPDIR/o"
	run -0 jq -sc '[.[] | select(.kind == "step") | .dur > .cpu_dur] | unique' \
	    "$BATS_TEST_TMPDIR/o"
	assert_output '[true]'
}

@test "eight ranks are kept apart and summarised across ranks" {
	need_shared traces/param_dlrm_8rank
	tr-extract "$SHARED"/traces/param_dlrm_8rank/*.json | op-rank -n 3 \
	    > "$BATS_TEST_TMPDIR/o"
	run -0 jq -sc '[.[] | select(.kind == "cpu_summary") | .rank // "all"]' \
	    "$BATS_TEST_TMPDIR/o"
	# Rank 7 is last at 5 of the 8 collective instances: the others wait
	# for it, whose own mean step is the shortest.
	assert_output '[7,"all"]'
	run -0 jq -sc '[.[] | select(.kind == "rank_summary") | .rank]' \
	    "$BATS_TEST_TMPDIR/o"
	assert_output '[0,1,2,3,4,5,6,7]'
	tr-extract "$SHARED"/traces/param_dlrm_8rank/*.json | op-rank -a -n 3 \
	    > "$BATS_TEST_TMPDIR/a"
	run -0 jq -sc '[.[] | select(.kind == "cpu_summary") | .rank // "all"]' \
	    "$BATS_TEST_TMPDIR/a"
	assert_output '[0,1,2,3,4,5,6,7,"all"]'
	run -0 jq -sc '[.[] | select(.kind == "op_ranks")] | length' "$BATS_TEST_TMPDIR/o"
	assert_output 3
	run -0 jq -c 'select(.kind == "op_ranks") | .ranks == 8 and .min <= .median and .median <= .max' \
	    "$BATS_TEST_TMPDIR/o"
	refute_output --partial false
	run -0 jq -c 'select(.kind == "cpu_summary" and .ranks) | [.ranks, .traces]' \
	    "$BATS_TEST_TMPDIR/o"
	assert_output '[8,8]'
}

@test "two traces of one rank over the same window are refused, apart they add up" {
	tr-extract "$FIXTURES/sampled_rank-0.json.gz" >"$BATS_TEST_TMPDIR/a"
	jq -c 'if .kind == "trace" then .file = "b.json" else . end' \
	    "$BATS_TEST_TMPDIR/a" >"$BATS_TEST_TMPDIR/b"
	run -1 --separate-stderr op-rank "$BATS_TEST_TMPDIR/a" "$BATS_TEST_TMPDIR/b"
	assert_stderr "op-rank: $FIXTURES/sampled_rank-0.json.gz and b.json: both rank 0, same window"
	assert_output ''
	# The same trace an hour later is another window of rank 0.
	jq -c 'if .kind == "trace" then .origin_ns += 3600000000000 else . end' \
	    "$BATS_TEST_TMPDIR/b" >"$BATS_TEST_TMPDIR/c"
	run -0 op-rank "$BATS_TEST_TMPDIR/a" "$BATS_TEST_TMPDIR/c"
	run -0 jq -c 'select(.kind == "cpu_summary") | [.rank, .traces]' <<<"$output"
	assert_output '[0,2]'
	# Without a rank, the same holds.
	jq -c 'if .kind == "trace" then .rank = null else . end' \
	    "$BATS_TEST_TMPDIR/a" >"$BATS_TEST_TMPDIR/n"
	run -1 --separate-stderr op-rank "$BATS_TEST_TMPDIR/n" "$BATS_TEST_TMPDIR/n"
	assert_stderr --partial 'both without a rank, same window'
}

@test "the family table can be replaced with -f" {
	printf 'cpu\tgemm\taten::*mm\n' > "$BATS_TEST_TMPDIR/t.tsv"
	run -0 bats_pipe tr-extract "$FIXTURES/cnn_sgd_s.json.gz" \| \
	    op-rank -f "$BATS_TEST_TMPDIR/t.tsv"
	run -0 jq -sc '[.[] | select(.kind == "family_total") | .family]' <<<"$output"
	assert_output '["other","gemm"]'
}

# Writes one GPU kernel event per name on stdin, each 1 µs long and 10 µs
# after the last, with a correlation no runtime call has, then the trace
# record.
kernels() {
	jq -Rc '{kind: "event", name: ., cat: "kernel", pid: 0, tid: 7,
	    device: 0, ts: (input_line_number * 10), dur: 1,
	    correlation: input_line_number}'
	printf '{"kind":"trace","rank":null,"origin_ns":0,"start":0,"end":100}\n'
}

@test "every GPU family rule sorts a real kernel name as expected" {
	grep -v '^#' "$FIXTURES/kernel-families.tsv" | cut -f1 | kernels |
	    op-rank > "$BATS_TEST_TMPDIR/o"
	run -0 jq -rs --rawfile want "$FIXTURES/kernel-families.tsv" '
	    (map(select(.kind == "kernel")) | map({key: .name, value: .family})
	        | from_entries) as $got
	    | $want | split("\n")[] | select(length > 0 and
	        (startswith("#") | not)) | split("\t") as [$n, $f, $src]
	    | select($got[$n] != $f)
	    | "\($src): \($n[0:80]): \($got[$n]), not \($f)"' \
	    "$BATS_TEST_TMPDIR/o"
	assert_output ''
	# The fixture checks more than a handful of names.
	run -0 jq -s '[.[] | select(.kind == "kernel")] | length >= 40' \
	    "$BATS_TEST_TMPDIR/o"
	assert_output true
}

@test "a copy's or memset's bytes, as Kineto counts them, sum per kernel name" {
	# SGLang's Qwen3-8B decode on an MI300X: every copy and memset, and the
	# bytes in their args, summed by name from the trace itself.
	local f=$FIXTURES/mi300_sglang_Qwen3-8B_decode.json.gz
	run -0 bash -o pipefail -c "zcat '$f' | jq -c '[.traceEvents[]
	    | select(.cat == \"gpu_memcpy\" or .cat == \"gpu_memset\")]
	    | group_by(.name) | map([.[0].name, (map(.args.bytes) | add)])'"
	local want=$output
	run -0 bash -o pipefail -c "tr-extract '$f' | op-rank -n 0 |
	    jq -sc 'map(select(.kind == \"kernel\" and .bytes != null)
	    | [.name, .bytes]) | sort'"
	assert_output "$want"
	[ "$want" != '[]' ]
	# Merged from partials, the same bytes.
	run -0 bash -o pipefail -c "tr-extract '$f' | op-rank --partial |
	    op-rank --merge -n 0 - | jq -sc 'map(select(.kind == \"kernel\"
	    and .bytes != null) | [.name, .bytes]) | sort'"
	assert_output "$want"
}

@test "communication and DMA kernels count as such in the GPU timeline" {
	# An NVLink SHARP all-reduce (not a reduction), a GEMM and an MTIA
	# DMA, 1 µs each.
	printf '%s\n' \
	    'void (anonymous namespace)::multimem_all_reduce_kernel<c10::BFloat16, 16>(c10::BFloat16*, unsigned long, unsigned int**, unsigned long, unsigned long)' \
	    'ampere_sgemm_128x64_nn' 'dma_request' | kernels |
	    op-rank > "$BATS_TEST_TMPDIR/o"
	run -0 jq -c 'select(.kind == "gpu_timeline") |
	    [.computation, .comm, .memcpy, .exposed_comm, .exposed_memcpy]' \
	    "$BATS_TEST_TMPDIR/o"
	assert_output '[1,1,1,1,1]'
	run -0 jq -c 'select(.kind == "phase_total" and .gpu > 0) | [.phase, .gpu]' \
	    "$BATS_TEST_TMPDIR/o"
	assert_output - <<-'EOF'
	["communication",1]
	["other",2]
	EOF
}

@test "every precision rule reads a real GEMM or convolution kernel name" {
	grep -v '^#' "$FIXTURES/kernel-precision.tsv" > "$BATS_TEST_TMPDIR/want"
	while IFS=$'\t' read -r name want src; do
		run -0 bats_pipe printf '%s\n' "$name" \| kernels \| op-rank \| \
		    jq -r 'select(.kind == "gemm_precision") | .precision'
		[ "$output" = "$want" ] ||
		    fail "$src: ${name:0:80}: $output, not $want"
	done < "$BATS_TEST_TMPDIR/want"
	[ "$(wc -l < "$BATS_TEST_TMPDIR/want")" -ge 10 ]
}

@test "gemm_precision on a bf16 trace and an fp32 one, whatever -n says" {
	run -0 bats_pipe tr-extract "$TOP/fixtures/example/trace.json.gz" \| \
	    op-rank -n 1 \| jq -c 'select(.kind == "gemm_precision")'
	assert_output '{"kind":"gemm_precision","precision":"bf16","kernels":26,"gpu_time":197.598,"share":1}'
	run -0 bats_pipe tr-extract "$FIXTURES/step_based_trace.json.gz" \| \
	    op-rank -n 1 \| jq -c 'select(.kind == "gemm_precision")'
	assert_output '{"kind":"gemm_precision","rank":0,"precision":"fp32","kernels":25,"gpu_time":70,"share":1}'
	# TF32 tensor-op GEMMs beside fp32 ones; the shares add up to 1.
	run -0 bats_pipe tr-extract "$FIXTURES/sampled_rank-0.json.gz" \| \
	    op-rank \| jq -sc '[.[] | select(.kind == "gemm_precision")] |
	    [map(.precision), (map(.share) | add)]'
	assert_output '[["tf32","fp32"],1]'
}

@test "gemm_precision on real bf16 and fp4 traces in ../shared" {
	need_shared traces/tracelens/b200_eager_trace.json.gz
	need_shared traces/tracelens/mi300_sglang_Qwen3-8B_decode.json.gz
	# hipBLASLt's Cijk_Alik_Bljk_BBS_... kernels are bf16.
	run -0 bats_pipe tr-extract \
	    "$SHARED/traces/tracelens/mi300_sglang_Qwen3-8B_decode.json.gz" \| \
	    op-rank \| jq -c 'select(.kind == "gemm_precision") | [.precision, .share]'
	assert_output '["bf16",1]'
	# B200: block-scaled fp4 MoE GEMMs, and nvjet kernels that do not say.
	run -0 bats_pipe tr-extract \
	    "$SHARED/traces/tracelens/b200_eager_trace.json.gz" \| \
	    op-rank \| jq -c 'select(.kind == "gemm_precision") | [.precision, .share]'
	assert_output - <<-'EOF'
	["fp4",0.8692]
	["unknown",0.1308]
	EOF
}

@test "-p ranks only the operators and kernels of one phase" {
	for t in cnn_sgd_s sampled_rank-0 step_based_trace; do
		tr-extract "$FIXTURES/$t.json.gz" > "$BATS_TEST_TMPDIR/in"
		op-rank "$BATS_TEST_TMPDIR/in" > "$BATS_TEST_TMPDIR/all"
		for p in forward backward optimizer dataloader communication; do
			op-rank --phase "$p" "$BATS_TEST_TMPDIR/in" > "$BATS_TEST_TMPDIR/o"
			# The phase's operators add up to its phase_total, CPU and
			# GPU, and every op and kernel record says the phase.
			run -0 jq -sc --arg p "$p" '
			    (.[] | select(.kind == "phase_total" and .phase == $p))
			        as $pt
			    | ([.[] | select(.kind == "op") | .self] | add // 0)
			        == $pt.self
			    and (([.[] | select(.kind == "kernel") | .total] | add
			        // 0) * 1000 | round) == (($pt.gpu // 0) * 1000 | round)
			    and ([.[] | select(.kind == "op" or .kind == "kernel")
			        | .phase] - [$p] == [])' "$BATS_TEST_TMPDIR/o"
			assert_output true
			# Every other record is as without -p.
			run -0 diff <(grep -v '"kind":"op"\|"kind":"kernel"' \
			    "$BATS_TEST_TMPDIR/all") \
			    <(grep -v '"kind":"op"\|"kind":"kernel"' "$BATS_TEST_TMPDIR/o")
		done
	done
}

@test "the man page's -p example: backward's heaviest operators" {
	check_example op-rank.1 4
	run -0 jq -c '[.phase, .name]' "$FIXTURES/example-4.out"
	assert_output - <<-'EOF'
	["backward","aten::mm"]
	["backward","aten::convolution_backward"]
	["backward","aten::native_batch_norm_backward"]
	["backward","aten::threshold_backward"]
	["backward","aten::fill_"]
	EOF
	# aten::t runs in both passes: 160 times, 128 of them in backward.
	tr-extract "$FIXTURES/cnn_sgd_s.json.gz" > "$BATS_TEST_TMPDIR/in"
	for p in "" "-p backward"; do
		op-rank $p "$BATS_TEST_TMPDIR/in" |
		    jq -c 'select(.name == "aten::t") | .count'
	done > "$BATS_TEST_TMPDIR/o"
	run -0 cat "$BATS_TEST_TMPDIR/o"
	assert_output - <<-'EOF'
	160
	128
	EOF
}

@test "each EXAMPLES command of the man page runs" {
	cd "$FIXTURES"
	n=0
	while IFS= read -r cmd; do
		cmd=$(printf '%s' "$cmd" | sed 's/\\(dq/"/g')
		run -0 bash -o pipefail -c "$cmd"
		assert_output --partial '"kind":"'
		n=$((n + 1))
	done < <(man_examples op-rank.1)
	[ "$n" -eq 4 ]
}

@test "the man page is clean" {
	run -0 mandoc -T lint -W warning "$TOP/man/op-rank.1"
	assert_output ''
}

# The rank_summary records as every rank's detail (-a) gives them: steps,
# busy times, and the operator off the median over all of its operators.
@test "rank_summary: each rank's row as its own records give it" {
	need_shared traces/param_dlrm_8rank
	tr-extract "$SHARED"/traces/param_dlrm_8rank/*.json | op-rank -a \
	    > "$BATS_TEST_TMPDIR/a"
	run -0 jq -sc '
	  (map(select(.kind == "op_ranks" and .class == "op"))
	   | map({key: .name, value: .median}) | from_entries) as $med
	  | . as $all
	  | [map(select(.kind == "rank_summary"))[] as $s
	     | ($all | map(select(.rank == $s.rank))) as $r
	     | ($r | map(select(.kind == "step_stats")) | .[0]) as $st
	     | ($r | map(select(.kind == "gpu_timeline"))) as $g
	     | ($r | map(select(.kind == "op" and .class == "op"))
	        | map({name, total, median: $med[.name],
	               diff: (.total - $med[.name])})) as $ops
	     | [$s.steps == $st.steps, $s.mean_step == $st.mean,
	        $s.max_step == $st.max,
	        $s.cpu_busy == ($r | map(select(.kind == "thread_total").busy) | max),
	        $s.gpu_busy == ($g | map(.busy) | add),
	        $s.idle == ($g | map(.idle) | add),
	        $s.exposed_comm == ($g | map(.exposed_comm) | add),
	        $s.operator == ($ops | sort_by(.name)
	          | reduce .[] as $o (null; if . == null or ($o.diff | fabs) > (.diff | fabs) then $o else . end)),
	        $s.slower_operator == ($ops | map(select(.diff > 0)) | sort_by(.name)
	          | reduce .[] as $o (null; if . == null or $o.diff > .diff then $o else . end))]
	     | all] | [length, all]' "$BATS_TEST_TMPDIR/a"
	assert_output '[8,true]'
}

# The steps across ranks: each step at its slowest rank.
@test "step_stats with wall: each step counts at its slowest rank" {
	for r in 0 1; do
		tr-extract "$FIXTURES/sampled_rank-$r.json.gz"
	done | op-rank > "$BATS_TEST_TMPDIR/o"
	run -0 jq -sc '
	  (map(select(.kind == "step")) | group_by(.step) | map(map(.dur) | max)) as $d
	  | map(select(.kind == "step_stats" and .wall))
	  | [length, (.[0] | .steps == ($d | length) and .total == ($d | add)
	     and .max == ($d | max) and .min == ($d | min) and (has("rank") | not))]' \
	    "$BATS_TEST_TMPDIR/o"
	assert_output '[1,true]'
}

@test "-a writes every rank's detail, and the same records besides" {
	for r in 0 1; do
		tr-extract "$FIXTURES/sampled_rank-$r.json.gz"
	done > "$BATS_TEST_TMPDIR/t"
	op-rank < "$BATS_TEST_TMPDIR/t" > "$BATS_TEST_TMPDIR/o"
	op-rank -a < "$BATS_TEST_TMPDIR/t" > "$BATS_TEST_TMPDIR/a"
	# The primary rank is 1, the one rank 0 waits for at the collectives:
	# rank 0 keeps only its steps, ledgers and GPU timeline.
	run -0 jq -r 'select(.rank == 0) | .kind' "$BATS_TEST_TMPDIR/o"
	assert_output $'step\nstep\nledger\nledger\nledger_total\ngpu_timeline\nrank_summary'
	run -0 jq -r 'select(.rank == 0 and .kind == "op")' "$BATS_TEST_TMPDIR/a"
	refute_output ''
	# Take rank 0's detail out of -a's output: what is left is the default.
	# Who spent each slice is detail too.
	run -0 jq -c 'select(.rank != 0 or (.kind | IN("step", "ledger", "ledger_total", "gpu_timeline", "rank_summary")))
	    | if .rank == 0 and .kind == "ledger_total" then del(.slices[].top) else . end' \
	    "$BATS_TEST_TMPDIR/a"
	assert_output - < "$BATS_TEST_TMPDIR/o"
	# One rank: -a changes nothing.
	tr-extract "$FIXTURES/sampled_rank-0.json.gz" | op-rank > "$BATS_TEST_TMPDIR/1"
	tr-extract "$FIXTURES/sampled_rank-0.json.gz" | op-rank -a | cmp - "$BATS_TEST_TMPDIR/1"
}

@test "names that differ after a NUL stay whole and apart" {
	printf '%s\n' '{"traceEvents":[' \
	    '{"ph":"X","name":"op\u0000alpha","ts":1,"dur":3,"pid":1,"tid":1},' \
	    '{"ph":"X","name":"op\u0000beta","ts":5,"dur":2,"pid":1,"tid":1},' \
	    '{"ph":"X","name":"op","ts":8,"dur":1,"pid":1,"tid":1}]}' \
	    >"$BATS_TEST_TMPDIR/nul.json"
	run -0 bats_pipe tr-extract "$BATS_TEST_TMPDIR/nul.json" \| op-rank \
	    \| grep '^{"kind":"op",'
	assert_output - <<'OPS'
{"kind":"op","class":"op","place":1,"name":"op\u0000alpha","family":"other","count":1,"total":3,"self":3,"mean":3,"min":3,"max":3,"self_pct":50,"total_pct":50}
{"kind":"op","class":"op","place":2,"name":"op\u0000beta","family":"other","count":1,"total":2,"self":2,"mean":2,"min":2,"max":2,"self_pct":33.33,"total_pct":33.33}
{"kind":"op","class":"op","place":3,"name":"op","family":"other","count":1,"total":1,"self":1,"mean":1,"min":1,"max":1,"self_pct":16.67,"total_pct":16.67}
OPS
}

@test "the families', precisions' and calls' patterns match as fnmatch(3) does" {
	# op-rank and crit-path match a name by a pattern's pieces
	# (base/pattern.h): a million kernel names spent a third of
	# op-rank's time in fnmatch.
	run -0 "${BUILD:-$TOP}/testbin/pattern-check" \
	    "$TOP/rubric/op-families.tsv" "$TOP/rubric/kernel-precision.tsv" \
	    "$TOP/rubric/cuda-calls.tsv"
	assert_output --regexp "^[0-9]{6} patterns, [0-9]{7} names: fnmatch's answers$"
}

@test "kernel classes of the major libraries come from the families table" {
	local k i=0
	while read -r k; do
		i=$((i + 1))
		printf '{"kind":"event","name":"%s","cat":"kernel","pid":0,"tid":7,"device":0,"ts":%d,"dur":1}\n' "$k" "$i"
	done > "$BATS_TEST_TMPDIR/in" <<'K'
sage_fwd_kernel
void flash_fwd_kernel<Flash_fwd_kernel_traits<128>>
fmha_cutlassF_f16_aligned_64x64_rf_sm80
xformers_cutlass_fwd
Cijk_Alik_Bljk_HHS_BH_MT128x128x64_MI32x32x8x1
nvjet_tst_128x64_64x4_1x2_h_bz_TNT
void cutlass::Kernel2<cutlass_80_wmma_tensorop_bf16_s161616gemm_bf16_32x32_128x2_tn_align8>
ncclDevKernel_AllReduce_Sum_f32_RING_LL
triton_poi_fused_add_0
triton_red_fused_sum_1
triton_tem_fused_mm_2
void cudnn::bn_fw_tr_1C11_kernel_NCHW<float, float, 512, true, 1>
void fft2d_r2c_16x16<float>
K
	printf '{"kind":"trace","rank":null,"origin_ns":0,"start":0,"end":100}\n' >> "$BATS_TEST_TMPDIR/in"
	run -0 bash -o pipefail -c "op-rank -n 0 '$BATS_TEST_TMPDIR/in' |
	    jq -r 'select(.kind == \"kernel\") | [.name[0:12], .family] | @tsv' | sort"
	assert_output - <<'OUT'
Cijk_Alik_Bl	gemm
fmha_cutlass	attention
ncclDevKerne	communication
nvjet_tst_12	gemm
sage_fwd_ker	attention
triton_poi_f	elementwise
triton_red_f	reduction
triton_tem_f	gemm
void cudnn::	reduction
void cutlass	gemm
void fft2d_r	conv
void flash_f	attention
xformers_cut	attention
OUT
}

# Collectives matched call by call across ranks: gloo's work spans on CPU
# ranks, the NCCL kernels on GPU ranks.
@test "collective: each gloo instance's waits, skew and late rank as the traces' own spans give them" {
	local f=("$FIXTURES"/ddp_stall_rank[0-3].json.gz)
	# The k-th gloo:all_reduce of every rank, worked out from the traces.
	run -0 bash -o pipefail -c "zcat ${f[*]} | jq -sc 'map([.[] | select(.name ==
	    \"gloo:all_reduce\")] | sort_by(.ts)) as \$c
	    | [range(\$c | map(length) | min) as \$k | [\$c[][\$k].dur] as \$d
	      | (\$d | min) as \$t
	      | {instance: (\$k + 1), late_rank: (\$d | index(\$t)), transfer: \$t,
	         skew: ((\$d | max) - \$t), waits: (\$d | map(. - \$t))}]'"
	local want=$output
	run -0 bash -o pipefail -c "tr-extract ${f[*]} | op-rank | jq -sc '
	    map(select(.kind == \"collective\")
	      | {instance, late_rank, transfer, skew, waits: [.calls[].wait]})'"
	assert_output "$want"
	# Rank 1 sleeps before each step: last at every instance, and so the
	# one most often last in the summary.
	run -0 bash -o pipefail -c "tr-extract ${f[*]} | op-rank | jq -c '
	    select(.kind == \"collective_total\")
	    | [.name, .collective, .instances, .ranks, .late_rank, .late_at]'"
	assert_output '["gloo:all_reduce","all_reduce",5,4,1,5]'
}

@test "collective: DLRM's eight GPU ranks matched by their NCCL kernels" {
	need_shared traces/param_dlrm_8rank
	local f=("$SHARED"/traces/param_dlrm_8rank/*.json)
	run -0 bash -o pipefail -c "jq -sc 'map([.traceEvents[] | select(.cat ==
	    \"kernel\" and (.name | startswith(\"nccl\")))] | sort_by(.ts)) as \$c
	    | [\$c[0] | group_by(.name)[] | .[0].name] as \$names
	    | [\$names[] as \$n | (\$c | map(map(select(.name == \$n)))) as \$m
	      | range(\$m[0] | length) as \$k | [\$m[][\$k].dur] as \$d
	      | (\$d | min) as \$t
	      | [\$n, \$k + 1, (\$d | index(\$t)), \$t, (\$d | max) - \$t]]' ${f[*]}"
	local want=$output
	run -0 bash -o pipefail -c "tr-extract ${f[*]} | op-rank | jq -sc '
	    map(select(.kind == \"collective\")
	      | [.name, .instance, .late_rank, .transfer, .skew])'"
	assert_output "$want"
	run -0 bash -o pipefail -c "tr-extract ${f[*]} | op-rank | jq -c '
	    select(.kind == \"collective_total\") | [.collective, .instances, .ranks]'"
	assert_output - <<'END'
["all_reduce",3,8]
["send_recv",5,8]
END
}

@test "collective: --partial and --merge give the records of one pass" {
	need_shared traces/param_dlrm_8rank
	local f=("$FIXTURES"/ddp_compute_rank[0-3].json.gz \
	    "$SHARED"/traces/param_dlrm_8rank/*.json) p=()
	for set in ddp dlrm; do
		if [ $set = ddp ]; then g=("${f[@]:0:4}"); else g=("${f[@]:4}"); fi
		p=()
		for t in "${g[@]}"; do
			tr-extract "$t" | op-rank --partial >"$BATS_TEST_TMPDIR/${t##*/}.p"
			p+=("$BATS_TEST_TMPDIR/${t##*/}.p")
		done
		tr-extract "${g[@]}" | op-rank | grep '"collective' >"$BATS_TEST_TMPDIR/one"
		[ -s "$BATS_TEST_TMPDIR/one" ]
		run -0 bats_pipe op-rank --merge "${p[@]}" \| grep '"collective'
		assert_output - <"$BATS_TEST_TMPDIR/one"
	done
}

@test "collective: bytes from the trace's message sizes, bandwidths as nccl-tests defines them" {
	need_shared traces/hta/nccl_data.json.gz
	local t=$SHARED/traces/hta/nccl_data.json.gz
	# tr-extract keeps what PyTorch records of each collective.
	run -0 bash -o pipefail -c "tr-extract '$t' | jq -c 'select(.cat == \"kernel\"
	    and .collective != null) | [.collective, .group, .group_size,
	    .in_nelems, .out_nelems, .dtype]' | sort | uniq -c | wc -l"
	[ "$output" -gt 1 ]
	run -0 bash -o pipefail -c "zcat '$t' | jq -c '.traceEvents[] | select(.cat ==
	    \"kernel\" and .args[\"Collective name\"] != null) | .args
	    | [.[\"Collective name\"], .[\"Process Group Name\"], .[\"Group size\"],
	       .[\"In msg nelems\"], .[\"Out msg nelems\"], .dtype]'"
	local want=$output
	run -0 bash -o pipefail -c "tr-extract '$t' | jq -c 'select(.cat == \"kernel\"
	    and .collective != null) | [.collective, .group, .group_size,
	    .in_nelems, .out_nelems, .dtype]'"
	assert_output "$want"
	# The partial keeps each kernel's bytes (the larger message's elements
	# times the dtype's size: Float 4, Long 8), group and kind.
	tr-extract "$t" | op-rank --partial >"$BATS_TEST_TMPDIR/r0"
	jq -c 'select(.kind == "op_partial_collective")
	    | [.bytes, .group, .group_size, .collective]' \
	    "$BATS_TEST_TMPDIR/r0" >"$BATS_TEST_TMPDIR/got"
	[ $(wc -l <"$BATS_TEST_TMPDIR/got") = 21 ]
	run -0 bash -o pipefail -c "zcat '$t' | jq -c '.traceEvents[] | select(.cat ==
	    \"kernel\" and (.name | startswith(\"nccl\"))) | .args
	    | [([.[\"In msg nelems\"], .[\"Out msg nelems\"]] | max)
	         * {Float: 4, Long: 8}[.dtype], .[\"Process Group Name\"],
	       .[\"Group size\"], {allreduce: \"all_reduce\",
	         broadcast: \"broadcast\"}[.[\"Collective name\"]]]'"
	assert_output - <"$BATS_TEST_TMPDIR/got"
	# Its peer's trace is not public: rank 0's calls stand for both, so
	# each instance's transfer is its call and the bandwidths its own: for
	# two ranks, all-reduce's factor 2(n-1)/n and broadcast's are both 1.
	sed 's/"rank":0/"rank":1/' "$BATS_TEST_TMPDIR/r0" >"$BATS_TEST_TMPDIR/r1"
	run -0 bash -o pipefail -c "op-rank --merge '$BATS_TEST_TMPDIR/r0' \\
	    '$BATS_TEST_TMPDIR/r1' | jq -sc 'map(select(.kind == \"collective\"))
	    | [length, all(.skew == 0 and .ranks == 2 and .bus_factor == 1
	        and .algbw == .busbw and .bytes > 0
	        and (.algbw - .bytes / (.transfer * 1000) | fabs) < 0.001)]'"
	assert_output '[21,true]'
}

@test "collective: a rank whose window starts one call later leaves calls unmatched, and the report says so" {
	local f=("$FIXTURES"/ddp_stall_rank[0-3].json.gz)
	# Rank 2's trace without its first gloo:all_reduce.
	zcat "${f[2]}" | jq -c '(map(.name == "gloo:all_reduce") | index(true)) as $i
	    | del(.[$i])' >"$BATS_TEST_TMPDIR/rank2.json"
	tr-extract "${f[0]}" "${f[1]}" "$BATS_TEST_TMPDIR/rank2.json" "${f[3]}" |
	    op-rank >"$BATS_TEST_TMPDIR/r"
	run -0 jq -c 'select(.kind == "collective_total") | [.instances, .unmatched]' \
	    "$BATS_TEST_TMPDIR/r"
	assert_output '[4,3]'
	run -0 report-md "$BATS_TEST_TMPDIR/r"
	assert_output --partial '3 calls left unmatched: some ranks have more calls'
	# Whole, nothing is left over, and the report says nothing of it.
	tr-extract "${f[@]}" | op-rank >"$BATS_TEST_TMPDIR/w"
	run -0 jq -c 'select(.kind == "collective_total") | has("unmatched")' "$BATS_TEST_TMPDIR/w"
	assert_output false
	run -0 report-md "$BATS_TEST_TMPDIR/w"
	refute_output --partial 'unmatched'
}
