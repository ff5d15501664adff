#!/usr/bin/env bats
bats_require_minimum_version 1.5.0

setup() {
	load test_helper
}

ALEXNET='[param|pytorch.model.alex_net|0|0|0|measure|forward]'

# The edges of crit-path -a, as HTA's dumps in fixtures/crit-path list them.
edges() {
	jq -r 'select(.kind == "critical_edge") |
	    [.from, .to, .type, .weight_us, (if .critical then 1 else 0 end)] |
	    @tsv'
}

# crit-path's records on fixture $1 with the options that follow.
on() {
	local f=$1
	shift
	tr-extract "$FIXTURES/$f" | crit-path "$@"
}

@test "usage error exits 2 with the synopsis" {
	run -2 --separate-stderr crit-path -Z
	assert_stderr --partial 'usage: crit-path [-asW] [-f table] [-w name[:n]] [file ...]'
	run -2 --separate-stderr crit-path -W -w ProfilerStep
	assert_stderr --partial 'different windows'
	run -2 --separate-stderr crit-path -w ''
	assert_stderr --partial 'empty name'
}

@test "-s writes the critical_path records alone" {
	tr-extract "$FIXTURES/hta_mi250_rocm.json.gz" > "$BATS_TEST_TMPDIR/rec"
	run -0 crit-path -s "$BATS_TEST_TMPDIR/rec"
	assert_output - < <(grep '"kind":"critical_path"' "$FIXTURES/hta_mi250_rocm.ndjson")
}

@test "empty input gives empty output" {
	run -0 crit-path < /dev/null
	assert_output ''
}

@test "HTA's graph edge for edge, and its path, on HTA's four test traces" {
	local f
	for f in simple_add alexnet; do
		on hta_$f.json.gz -a -w "$ALEXNET:1" | edges > "$BATS_TEST_TMPDIR/$f"
		grep -v '^#' "$FIXTURES/hta_$f.edges.tsv" |
		    diff - "$BATS_TEST_TMPDIR/$f"
	done
	on hta_cuda_event_sync.json.gz -a -w ProfilerStep:0 | edges |
	    diff <(grep -v '^#' "$FIXTURES/hta_cuda_event_sync.edges.tsv") -
	on hta_cuda_event_sync_multi_stream.json.gz -a -W | edges |
	    diff <(grep -v '^#' "$FIXTURES/hta_cuda_event_sync_multi_stream.edges.tsv") -
	# HTA's end-to-end test: the whole trace.
	on hta_simple_add.json.gz -a -W | edges |
	    diff <(grep -v '^#' "$FIXTURES/hta_simple_add_whole.edges.tsv") -
}

@test "the figures HTA's tests assert on simple_add" {
	on hta_simple_add.json.gz -a -w "$ALEXNET:1" > "$BATS_TEST_TMPDIR/all"
	cd "$BATS_TEST_TMPDIR"
	# Nodes (start, end) of aten::relu_, aten::clamp_min_ inside it and
	# its cudaLaunchKernel, and the weight and event of each edge between.
	run -0 jq -s -c 'map(select(.kind == "critical_edge" and .from >= 57 and
	    .to <= 62 and .to > .from)) | sort_by(.from) | .[] |
	    [.from, .to, .weight_us, .event]' all
	assert_output '[57,58,15,"aten::relu_"]
[58,59,14,"aten::clamp_min_"]
[59,60,17,"cudaLaunchKernel"]
[60,61,15,"aten::clamp_min_"]
[61,62,32,"aten::relu_"]'
	# The second fft kernel's launch delay, the gap from it to the gemm
	# kernel after it, that kernel's causal launch edge of no weight, and
	# the epilogue's device sync.
	run -0 jq -s -c 'map(select(.kind == "critical_edge")) |
	    (map(select(.type == "kernel_launch_delay" and
	    (.to_event | startswith("void fft2d_r2c_32x32"))))[1] | [.weight_us]),
	    (map(select(.type == "kernel_kernel_delay" and
	    (.from_event | startswith("void fft2d_r2c_32x32")))) |
	    map([.weight_us, .to_event[0:22], .to])[]),
	    (map(select(.type == "sync_dependency" and
	    (.from_event | startswith("void epilogue")))) | map([.weight_us, .to_event])[])' all
	assert_output '[27]
[7,"ampere_gcgemm_64x64_nt",126]
[0,"cudaDeviceSynchronize"]'
	run -0 jq -c 'select(.kind == "critical_edge" and .to == 126 and
	    .type == "kernel_launch_delay") | [.weight_us, .from_event]' all
	assert_output '[0,"cudaLaunchKernel"]'
	# Every operator and gap edge is attributed; nothing else is.
	run -0 jq -s '[.[] | select(.kind == "critical_edge") |
	    ((.type == "operator" or .type == "kernel_kernel_delay") == (.event != null))] | all' all
	assert_output true
	run -0 jq -c 'select(.kind == "critical_path") |
	    [.path_nodes, .path_edges, .path_events, .length_us]' all
	assert_output '[315,314,159,241724]'
}

@test "alexnet's path by class is HTA's, and its sync edges weigh nothing" {
	run -0 bash -c "tr-extract '$FIXTURES/hta_alexnet.json.gz' |
	    crit-path -a -w '$ALEXNET:1' | jq -c 'select(.kind == \"critical_path\") |
	    [.by_class_us | to_entries[] | select(.value > 0) | .key, .value]'"
	assert_output '["cpu_bound",32042,"gpu_compute_bound",3712,"kernel_kernel_overhead",50,"kernel_launch_overhead",30]'
	run -0 bash -c "tr-extract '$FIXTURES/hta_alexnet.json.gz' |
	    crit-path -a -w '$ALEXNET:1' | jq -s -c '[.[] | select(.type == \"sync_dependency\") | .weight_us] | [length, add]'"
	assert_output '[5,0]'
}

@test "golden output on the event sync and ROCm traces" {
	local f
	for f in hta_cuda_event_sync hta_cuda_event_sync_multi_stream hta_mi250_rocm; do
		run -0 bash -c "tr-extract '$FIXTURES/$f.json.gz' | crit-path"
		assert_output - < "$FIXTURES/$f.ndjson"
	done
}

@test "a graph launch's kernels are all on the path: its whole GPU span" {
	tr-extract "$FIXTURES/tracelens_vllm_decode_graph.json.gz" > "$BATS_TEST_TMPDIR/rec"
	cd "$BATS_TEST_TMPDIR"
	# The span of the kernels that share hipGraphLaunch's correlation.
	span=$(jq -s '(map(select(.name == "hipGraphLaunch"))[0].correlation) as $c |
	    map(select(.cat == "kernel" and .correlation == $c)) |
	    ((map(.ts + .dur) | max) - (map(.ts) | min)) * 1000 | round' rec)
	run -0 bash -c "crit-path < rec | jq -c 'select(.kind == \"critical_path\") |
	    [(.by_class_us.graph_replay * 1000 | round), .length_us > 10000]'"
	assert_output "[$span,true]"
	# Every one of the 421 kernels is in the graph; HTA keeps one.
	run -0 bash -c "crit-path -a < rec | jq -s '[.[] | select(.class == \"graph_replay\" and .type == \"operator\")] | length'"
	assert_output 421
}

@test "the top events name the user's Python frame they ran from" {
	# vLLM's graph replays from its CUDAGraphWrapper; the one eager gemm
	# from the model's layer.  torch's own frames are passed over.
	run -0 bash -c "tr-extract '$FIXTURES/tracelens_vllm_decode_graph.json.gz' | crit-path |
	    jq -c 'select(.kind == \"critical_path\") | .top[] | select(.count > 20 or .class != \"graph_replay\") |
	    [.class, .count, .frame]' | sort -u"
	assert_output '["gpu_compute_bound",1,"vllm/model_executor/layers/utils.py(122): rocm_unquantized_gemm_impl"]
["graph_replay",23,"vllm/compilation/cuda_graph.py(208): __call__"]
["graph_replay",24,"vllm/compilation/cuda_graph.py(208): __call__"]
["graph_replay",48,"vllm/compilation/cuda_graph.py(208): __call__"]'
	# Without with_stack=True there is no frame to name.
	run -0 bash -c "tr-extract '$FIXTURES/hta_cuda_event_sync.json.gz' | crit-path |
	    jq -c 'select(.kind == \"critical_path\") | [.top[].frame] | unique'"
	assert_output '[null]'
}

@test "without cuda_sync events, a blocking call waits for the GPU (ROCm)" {
	run -0 bash -c "tr-extract '$FIXTURES/hta_mi250_rocm.json.gz' | crit-path -a -W |
	    jq -c 'select(.type == \"sync_dependency\") | [.to_event, .from_end, .to_end]'"
	assert_output '["hipMemcpyWithStream",true,true]
["hipMemcpyWithStream",true,true]
["hipDeviceSynchronize",true,true]'
}

@test "a window with an edge back in time has no path, with a warning" {
	tr-extract "$FIXTURES/hta_cuda_event_sync.json.gz" |
	    jq -c 'if .name == "cudaLaunchKernel" and .correlation == 1482
	    then .dur += 1000 else . end' > "$BATS_TEST_TMPDIR/rec"
	run -1 --separate-stderr crit-path "$BATS_TEST_TMPDIR/rec"
	assert_stderr 'crit-path: warning: rank 0, window ProfilerStep#100: an edge back in time from cudaLaunchKernel (end) to aten::fill_ (end); no critical path for this window'
	assert_output --partial '"failed":"negative_weight","length_us":null}'
}

@test "a window whose graph has a cycle has no path, with a warning" {
	# The spin kernel launched after the cudaEventSynchronize that waits
	# on the event recorded after it: a wait on the future.
	tr-extract "$FIXTURES/hta_cuda_event_sync.json.gz" |
	    jq -c 'if .correlation == 1526 then .ts = (if .cat == "kernel"
	    then 3110 else 3094 end) elif .name == "cudaEventRecord" and
	    .correlation == 1533 then .ts = 3104 else . end' > "$BATS_TEST_TMPDIR/rec"
	run -1 --separate-stderr crit-path "$BATS_TEST_TMPDIR/rec"
	assert_stderr --partial 'the graph has a cycle through cudaLaunchKernel (start); no critical path'
	assert_output --partial '"failed":"cycle","length_us":null}'
}

@test "kernels that overlap on a stream add no gap, and real traces have paths" {
	need_shared traces/hta/a100_ws16_rank0.json.gz
	run -0 --separate-stderr bash -c "tr-extract '$SHARED/traces/hta/a100_ws16_rank0.json.gz' |
	    crit-path | jq -c 'select(.kind == \"critical_path\") | [.window, .failed, .length_us > 0]'"
	assert_output '["ProfilerStep#550",null,true]
["ProfilerStep#551",null,true]
["ProfilerStep#552",null,true]
["ProfilerStep#553",null,true]
["ProfilerStep#554",null,true]'
	assert_stderr ''
}

@test "HTA's held-out tests: a nanosecond trace and the ROCm trace have paths" {
	# HTA's test_amd_trace: ProfilerStep instance 1, in HTA the GPU's copy
	# of ProfilerStep#1 (it drops the last step, ProfilerStep#2, when
	# loading; mrp keeps it, so the copy is instance 2).  HTA's path is
	# 741 us; mrp's keeps the nanoseconds and the ROCm syncs.
	run -0 bash -c "tr-extract '$FIXTURES/hta_mi250_rocm.json.gz' | crit-path -w ProfilerStep:2 |
	    jq -c 'select(.kind == \"critical_path\") | [.window, .start_us, .failed,
	    (.length_us - 741 | fabs) / 741 < 0.01]'"
	assert_output '["ProfilerStep#1",-1140.795,null,true]'
	# HTA's test_ns_resolution_trace: ProfilerStep instance 1.
	need_shared traces/hta/rank-0.Apr_03_18_51_38.1102.pt.trace.json.gz
	run -0 bash -c "tr-extract '$SHARED/traces/hta/rank-0.Apr_03_18_51_38.1102.pt.trace.json.gz' |
	    crit-path -w ProfilerStep:1 | jq -c 'select(.kind == \"critical_path\") |
	    [.window, .failed, .length_us > 0, .path_events > 1000]'"
	assert_output '["ProfilerStep#102",null,true,true]'
}

@test "windows: every step, an annotation's instances, the whole trace" {
	run -0 bash -c "tr-extract '$FIXTURES/hta_mi250_rocm.json.gz' | crit-path |
	    jq -c 'select(.kind == \"critical_path\") | [.window, .instance, .length_us]'"
	assert_output '["ProfilerStep#1",0,7452.353]
["ProfilerStep#2",1,null]'
	# HTA counts the GPU's copy of the annotation too.
	run -0 bash -c "tr-extract '$FIXTURES/hta_mi250_rocm.json.gz' | crit-path -w ProfilerStep |
	    jq -c 'select(.kind == \"critical_path\") | [.window, .instance, .start_us]'"
	assert_output '["ProfilerStep#1",0,-1407.561]
["ProfilerStep#2",1,7917.74]
["ProfilerStep#1",2,-1140.795]'
	run -0 --separate-stderr bash -c "tr-extract '$FIXTURES/hta_mi250_rocm.json.gz' | crit-path -w ProfilerStep:7"
	assert_output ''
	assert_stderr 'crit-path: warning: rank 0: no instance 7 of an event named like "ProfilerStep" (3 found)'
}

@test "an Nsight Systems export's steps have paths, its stream syncs edges" {
	run -0 bash -c "nsys-extract '$TOP/fixtures/nsys-extract/snippet-run.sqlite' | crit-path |
	    jq -c 'select(.kind == \"critical_path\") | [.window, .length_us > 0]' | sort -u"
	assert_output '["ProfilerStep#0",true]
["ProfilerStep#1",true]'
	need_shared nsys/nsys-ai__h100_2gpu_1s.sqlite
	run -0 bash -c "nsys-extract '$SHARED/nsys/nsys-ai__h100_2gpu_1s.sqlite' | crit-path -a |
	    jq -c 'select(.type == \"sync_dependency\") | .to_event' | sort -u"
	assert_output '"cudaStreamSynchronize"'
}

@test "passes over temporary files: a budget of 4 KiB gives the same bytes" {
	tr-extract "$FIXTURES/hta_simple_add.json.gz" > "$BATS_TEST_TMPDIR/rec"
	crit-path -a -W "$BATS_TEST_TMPDIR/rec" > "$BATS_TEST_TMPDIR/in-memory"
	run -0 env MRP_CRIT_PATH_MEMORY=4096 crit-path -a -W "$BATS_TEST_TMPDIR/rec"
	assert_output - < "$BATS_TEST_TMPDIR/in-memory"
	MRP_CRIT_PATH_MEMORY=4096 crit-path -a -W "$BATS_TEST_TMPDIR/rec" | edges |
	    diff <(grep -v '^#' "$FIXTURES/hta_simple_add_whole.edges.tsv") -
	run -2 --separate-stderr env MRP_CRIT_PATH_MEMORY=lots crit-path "$BATS_TEST_TMPDIR/rec"
	assert_stderr 'crit-path: MRP_CRIT_PATH_MEMORY is invalid: lots'
}

@test "several ranks in one input: each rank's windows, as alone" {
	need_shared traces/hta/sampled_rank-1.json.gz
	cd "$BATS_TEST_TMPDIR"
	tr-extract "$SHARED/traces/hta/sampled_rank-0.json.gz" > r0
	tr-extract "$SHARED/traces/hta/sampled_rank-1.json.gz" > r1
	(crit-path r0 && crit-path r1) > apart
	run -0 crit-path r0 r1
	assert_output - < apart
	run -0 bash -c "crit-path r0 r1 | jq -r 'select(.kind == \"critical_path\") | .rank' | uniq -c"
	assert_output '      2 0
      2 1'
}

@test "gzip and plain input give the same bytes" {
	tr-extract "$FIXTURES/hta_cuda_event_sync.json.gz" > "$BATS_TEST_TMPDIR/rec"
	gzip -c "$BATS_TEST_TMPDIR/rec" > "$BATS_TEST_TMPDIR/rec.gz"
	run -0 crit-path "$BATS_TEST_TMPDIR/rec.gz"
	assert_output - < "$FIXTURES/hta_cuda_event_sync.ndjson"
}

@test "a failed write exits 1" {
	tr-extract "$FIXTURES/hta_cuda_event_sync.json.gz" > "$BATS_TEST_TMPDIR/rec"
	run -1 --separate-stderr bash -c "crit-path '$BATS_TEST_TMPDIR/rec' > /dev/full"
	assert_stderr --partial 'crit-path:'
}

@test "bad input is an error at its line, and nothing is written" {
	printf '%s\n' '{"kind":"event","name":"a","ts":1,"dur":2}' '{"kind":' > "$BATS_TEST_TMPDIR/bad"
	run -1 --separate-stderr crit-path "$BATS_TEST_TMPDIR/bad"
	assert_output ''
	assert_stderr "crit-path: $BATS_TEST_TMPDIR/bad:3:1: unexpected end of input (the JSON is cut off)"
	printf '%s\n' '{"kind":"event","name":"a","dur":2}' > "$BATS_TEST_TMPDIR/bad"
	run -1 --separate-stderr crit-path "$BATS_TEST_TMPDIR/bad"
	assert_output ''
	assert_stderr "crit-path: $BATS_TEST_TMPDIR/bad:1: an event without a name or ts"
	run -1 --separate-stderr crit-path "$BATS_TEST_TMPDIR/none"
	assert_stderr --partial 'none: No such file or directory'
}

@test "a bad calls table is a usage error at its line" {
	printf 'launch\tcudaLaunchKernel\nlaunches\tx\n' > "$BATS_TEST_TMPDIR/t.tsv"
	run -2 --separate-stderr crit-path -f "$BATS_TEST_TMPDIR/t.tsv" < /dev/null
	assert_stderr "crit-path: $BATS_TEST_TMPDIR/t.tsv:2: expected a role (launch, graph, blocking, lock, data or comm) and a pattern separated by a tab"
}

@test "the calls table decides: without cudaLaunchKernel as a launch, no launch delay" {
	delays='select(.type == "kernel_launch_delay" and .from_event == "cudaLaunchKernel") | .weight_us'
	tr-extract "$FIXTURES/hta_cuda_event_sync.json.gz" > "$BATS_TEST_TMPDIR/rec"
	run -0 bash -c "crit-path -a '$BATS_TEST_TMPDIR/rec' | jq -s '[.[] | $delays] | add'"
	assert_output 71
	grep -v '^launch	cudaLaunchKernel$' "$TOP/rubric/cuda-calls.tsv" > "$BATS_TEST_TMPDIR/t.tsv"
	run -0 bash -c "crit-path -a -f '$BATS_TEST_TMPDIR/t.tsv' '$BATS_TEST_TMPDIR/rec' |
	    jq -s '[.[] | $delays] | add'"
	assert_output 0
}

@test "EXAMPLES in the man page run" {
	check_example crit-path.1 1
	check_example crit-path.1 2
}
