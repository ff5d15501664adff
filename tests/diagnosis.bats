bats_require_minimum_version 1.5.0
# The whole report on inputs whose cause is known: simulated allocator
# histories (fixtures/diagnosis/memsim.py), real traces whose GEMMs already
# run in bf16, and real traces without steps.  The cause must come first
# and no advice may be false for the input.
setup() { load test_helper; }

# report FILE...: the JSON report of analyze-profile on the inputs.
report() {
	analyze-profile "$@" --json-out "$BATS_TEST_TMPDIR/r.json" \
	    --md-out "$BATS_TEST_TMPDIR/r.md"
}

# The rules of the plan, in order, space-separated.
plan() {
	jq -r '[.actions[].rule] | join(" ")' "$BATS_TEST_TMPDIR/r.json"
}

@test "diagnosis: empty_cache() every step is named, the cache is not" {
	report --memory-json "$FIXTURES/memsim-empty-cache-every-step.json"
	run -0 plan
	assert_output --regexp '^empty-cache-churn '
	refute_output --partial 'releasable-cache'
	# Each call released two segments, under empty_cache() in the stacks.
	run -0 jq -r '.actions[0].evidence | [.empty_cache_calls, .empty_cache_segments] | @tsv' \
	    "$BATS_TEST_TMPDIR/r.json"
	assert_output "$(printf '3\t6')"
}

@test "diagnosis: the allocator's own retries before an OOM are not blamed on empty_cache()" {
	report --memory-json "$FIXTURES/memsim-oom-after-retries.json"
	run -0 plan
	assert_output --regexp '^oom '
	refute_output --partial 'empty-cache-churn'
	run -0 jq -r '.actions[0] | [.blocking, .impact] | @tsv' "$BATS_TEST_TMPDIR/r.json"
	assert_output "$(printf 'true\t')"
	run -1 grep -c 'empty_cache' "$BATS_TEST_TMPDIR/r.md"
}

@test "diagnosis: split fragmentation with expandable segments already on" {
	report --memory-json "$FIXTURES/memsim-split-with-expandable-segments.json"
	run -0 jq -r '.summary.memory | [.fragmentation_risk, .split_fragmentation] | @tsv' \
	    "$BATS_TEST_TMPDIR/r.json"
	assert_output "$(printf 'HIGH\t0.6875')"
	run -0 plan
	refute_output --partial 'fragmentation-high'
	assert_output --regexp '^fragmentation-medium '
	# The advice left is max_split_size, not what is already set.
	run -0 jq -r '.actions[] | select(.rule == "fragmentation-medium") | .action' \
	    "$BATS_TEST_TMPDIR/r.json"
	assert_output --partial 'max_split_size_mb'
	refute_output --partial 'expandable_segments:True'
}

@test "diagnosis: cache left by an evaluation peak is releasable, not fragmentation" {
	report --memory-json "$FIXTURES/memsim-cache-after-eval-peak.json"
	run -0 jq -r '.summary.memory | [.fragmentation_risk, .free_segment_bytes] | @tsv' \
	    "$BATS_TEST_TMPDIR/r.json"
	assert_output "$(printf 'LOW\t4294967296')"
	run -0 plan
	assert_output --regexp '^releasable-cache '
	refute_output --partial 'fragmentation-'
}

@test "diagnosis: a pending-free block (record_stream) is counted as PyTorch counts it" {
	run -0 --separate-stderr analyze-profile \
	    --memory-json "$FIXTURES/memsim-pending-free-after-record-stream.json" \
	    --json-out "$BATS_TEST_TMPDIR/r.json"
	assert_stderr ''
	run -0 jq -r '.memory | [.total_active_bytes, .total_allocated_bytes] | @tsv' \
	    "$BATS_TEST_TMPDIR/r.json"
	assert_output "$(printf '24576\t8192')"
	run -0 jq -r '.data_quality | length' "$BATS_TEST_TMPDIR/r.json"
	assert_output 0
}

@test "diagnosis: a wrapped ring buffer makes the peak a lower bound, with what was live" {
	report --memory-json "$FIXTURES/memsim-wrapped-ring-buffer.json"
	run -0 jq -r '.summary | [.peak_bytes, .peak_lower_bound] | @tsv' \
	    "$BATS_TEST_TMPDIR/r.json"
	assert_output "$(printf '58720256\ttrue')"
	run -0 grep -F 'Allocator peak (replayed)' "$BATS_TEST_TMPDIR/r.md"
	assert_output --partial 'at least 56.0 MiB'
	# Blocks allocated before the window were live at the peak too.
	run -0 jq -r '[.summary.live_at_peak[] | .origin] | unique | join(" ")' \
	    "$BATS_TEST_TMPDIR/r.json"
	assert_output 'before_window window'
	run -0 grep -c 'before the window' "$BATS_TEST_TMPDIR/r.md"
	[ "$output" -ge 1 ]
}

@test "diagnosis: GEMMs already in bf16 get no advice to train in bf16" {
	report --cpu-trace "$TOP/fixtures/example/trace.json.gz"
	run -0 plan
	refute_output --partial 'matmul-gpu'
	run -1 grep -ci 'bf16 autocast' "$BATS_TEST_TMPDIR/r.md"
}

@test "diagnosis: the bundled example tells split fragmentation from releasable cache" {
	report --cpu-trace "$TOP/fixtures/example/trace.json.gz" \
	    --memory-json "$TOP/fixtures/example/memory_snapshot.json.gz"
	run -0 jq -r '.summary.memory | [.fragmentation_risk,
	    (.split_fragmentation * 100 | round), (.releasable_share * 100 | round)] | @tsv' \
	    "$BATS_TEST_TMPDIR/r.json"
	assert_output "$(printf 'MEDIUM\t14\t85')"
	run -0 grep -F 'releasable cache, not fragmentation' "$BATS_TEST_TMPDIR/r.md"
	# Time fractions of one basis never add up to more than all of it.
	run -0 jq '[.actions[].impact | select(. != null and .basis == "step_time") | .fraction] | add <= 1' \
	    "$BATS_TEST_TMPDIR/r.json"
	assert_output true
}

@test "diagnosis: a real trace without steps gets no per-step advice" {
	need_shared traces/tracelens/b200_eager_trace.json.gz
	report --cpu-trace "$SHARED/traces/tracelens/b200_eager_trace.json.gz"
	run -0 plan
	assert_output --partial 'missing-steps'
	refute_output --regexp 'host-sync|dataloader-share|optimizer-share|unstable-steps'
	run -0 jq '[.actions[].impact | select(. != null) | .fraction] | all(. > 0 and . <= 1)' \
	    "$BATS_TEST_TMPDIR/r.json"
	assert_output true
}

@test "diagnosis: a CPU trace without steps is measured against its window" {
	need_shared traces/misc/zoology_a100_trace.json
	report --cpu-trace "$SHARED/traces/misc/zoology_a100_trace.json"
	run -0 plan
	refute_output --regexp 'host-sync|dataloader-share|optimizer-share|unstable-steps'
	run -1 grep -c 'of step time' "$BATS_TEST_TMPDIR/r.md"
}

@test "diagnosis: every shared snapshot yields a report; the synthetic one with a warning" {
	need_shared memsnap
	n=0
	for f in "$SHARED"/memsnap/*.json.gz; do
		run -0 --separate-stderr analyze-profile --memory-json "$f" \
		    --json-out "$BATS_TEST_TMPDIR/r.json"
		assert_output --partial '## Prioritized actions'
		jq -e '.memory.total_reserved_bytes > 0' "$BATS_TEST_TMPDIR/r.json" >/dev/null ||
		    fail "$f: no memory section"
		n=$((n + 1))
		run -0 jq -r '.data_quality | length' "$BATS_TEST_TMPDIR/r.json"
		case $f in
		*SYNTHETIC*)
			[ "$output" -gt 0 ] || fail "$f: no warning"
			run -0 analyze-profile --memory-json "$f"
			assert_output --partial '## Data quality'
			;;
		*)	assert_output 0 ;;
		esac
	done
	[ "$n" -eq 8 ]
}

@test "diagnosis: the run context changes the report as documented" {
	cd "$TOP/fixtures/example"
	run -0 analyze-profile --cpu-trace trace.json.gz --set model=bert-small \
	    --set batch_size=32 --set seq_len=128 --set precision=bf16 \
	    --objective throughput
	assert_output --partial '## Run context'
	assert_output --partial '| model      | bert-small |'
	# 32 samples in a 4.43 ms step, 128 tokens each.
	assert_output --regexp '\| Throughput \(per rank\) +\| +7229\.8 samples/s, 925417 tokens/s \|'
	refute_output --partial 'missing-context'
	# Declared fp32 with GEMMs in bf16: the kernels win, no bf16 advice.
	run -0 analyze-profile --cpu-trace trace.json.gz --set precision=fp32
	refute_output --partial 'bf16 autocast'
}

@test "diagnosis: --objective memory puts the memory findings first" {
	cd "$TOP/fixtures/example"
	run -0 analyze-profile --cpu-trace trace.json.gz \
	    --memory-json memory_snapshot.json.gz --objective memory
	run -0 bats_pipe printf '%s\n' "$output" \| grep '^### [0-9]'
	assert_line --index 0 '### 1. releasable-cache (memory)'
	assert_line --index 1 '### 2. fragmentation-medium (memory)'
	# The BERT step is host-bound: half of it is Python between operators.
	assert_line --index 2 '### 3. python-between-ops (cpu)'
	run -0 analyze-profile --cpu-trace trace.json.gz \
	    --memory-json memory_snapshot.json.gz --objective throughput
	run -0 bats_pipe printf '%s\n' "$output" \| grep '^### [0-9]'
	assert_line --index 0 '### 1. python-between-ops (cpu)'
}

@test "diagnosis: --phase focuses the operator table and the findings" {
	cd "$TOP/fixtures/example"
	run -0 analyze-profile --cpu-trace trace.json.gz --phase forward \
	    --json-out "$BATS_TEST_TMPDIR/r.json"
	assert_output --partial '### Top CPU operators (forward phase)'
	run -0 jq -r '[.bottlenecks.top_ops[].phase] | unique | join(" ")' "$BATS_TEST_TMPDIR/r.json"
	assert_output forward
	run -0 jq -r '.context.phase' "$BATS_TEST_TMPDIR/r.json"
	assert_output forward
	# An inference step has no optimizer: nothing to rank in that phase.
	run -0 analyze-profile --cpu-trace trace.json.gz --phase optimizer \
	    --json-out "$BATS_TEST_TMPDIR/r.json"
	run -0 jq -r '.bottlenecks.top_ops | length' "$BATS_TEST_TMPDIR/r.json"
	assert_output 0
}

# dlrm DIR: the eight DLRM ranks copied into DIR under PyTorch's own names,
# rank 7's timestamps and durations stretched threefold when $1 is "slow".
dlrm() {
	local d=$BATS_TEST_TMPDIR/dlrm f
	mkdir -p "$d"
	cp "$SHARED"/traces/param_dlrm_8rank/*.pt.trace.json "$d"
	if [ "${1:-}" = slow ]; then
		f=$(ls "$d"/worker7_*.json)
		jq -c '([.traceEvents[] | .ts? | numbers] | min) as $t0
		    | .traceEvents |= map(
		        if (.ts | type) == "number" then .ts = $t0 + (.ts - $t0) * 3 else . end
		        | if (.dur | type) == "number" then .dur *= 3 else . end)' \
		    "$f" >"$f.tmp"
		mv "$f.tmp" "$f"
	fi
	echo "$d"
}

@test "diagnosis: eight ranks get a row each, and every section names its ranks" {
	need_shared traces/param_dlrm_8rank
	d=$(dlrm)
	run -0 analyze-profile --cpu-trace "$d" --json-out "$BATS_TEST_TMPDIR/r.json"
	assert_output --partial '## Ranks'
	assert_output --partial '| CPU self time (all ranks, summed) '
	# The detail is rank 7's, the one the others wait for.
	assert_output --partial '### Top CPU operators (rank 7, the one the other 7 wait for)'
	assert_output --partial '### GPU timeline (rank 7, the one the other 7 wait for)'
	assert_output --partial '| Mean step time (slowest rank per step) '
	run -0 jq -c '[(.ranks | length), (.ranks | map(.rank | tostring) | join(",")),
	    .scope.steps]' "$BATS_TEST_TMPDIR/r.json"
	assert_output '[8,"0,1,2,3,4,5,6,7","slowest rank per step"]'
	# Rank 1's mean step is the longest because it waits longest in its
	# NCCL kernels: not the straggler.  Matched kernel by kernel, rank 7 is
	# last at most instances: the straggler, and the others' wait is what
	# the collective records (from the traces' kernels, op-rank.bats) give
	# them.
	run -0 jq -c '[(.straggler | .rank, .by), (.late_rank | .rank, .last_at, .instances)]' "$BATS_TEST_TMPDIR/r.json"
	assert_output '[7,"collectives",7,5,8]'
	tr-extract "$d"/*.json | op-rank >"$BATS_TEST_TMPDIR/ops"
	run -0 jq -s '(map(select(.kind == "rank_summary")) | map({key: (.rank | tostring), value: .steps}) | from_entries) as $steps
	    | [map(select(.kind == "collective") | .calls[] | select(.rank != 7))
	       | group_by(.rank)[] | (map(.wait) | add) / $steps[.[0].rank | tostring]]
	    | sort | (.[length / 2 | floor])' "$BATS_TEST_TMPDIR/ops"
	local want=$output
	run -0 jq --argjson w "$want" '(.late_rank.wait_per_step - $w | fabs) <= 0.1 * $w' "$BATS_TEST_TMPDIR/r.json"
	assert_output true
	run -0 jq -r '.actions[0] | .rule, .observation' "$BATS_TEST_TMPDIR/r.json"
	assert_line --index 0 late-rank
	assert_line --index 1 --partial 'Rank 7 arrives last at 5 of 8 collective instances'
}

@test "diagnosis: a rank made three times slower is named the straggler, and why" {
	need_shared traces/param_dlrm_8rank
	d=$(dlrm slow)
	run -0 analyze-profile --cpu-trace "$d" --json-out "$BATS_TEST_TMPDIR/r.json"
	assert_output --partial '**Straggler: rank 7**'
	run -0 jq -c '.straggler | [.rank, .median_rank, .cause, (.ratio * 100 | round)]' "$BATS_TEST_TMPDIR/r.json"
	assert_output '[7,5,"idle",211]'
	run -0 jq -c '.actions[] | select(.rule == "straggler") | [.impact.basis, (.impact.fraction > 0)]' \
	    "$BATS_TEST_TMPDIR/r.json"
	assert_output '["step_time",true]'
}

@test "diagnosis: ranks alike have no late rank, mean steps alike no straggler" {
	# Four gloo ranks recorded here, every one alike.
	local c=$TOP/fixtures/rubric-apply/cases/late-rank.quiet.ndjson
	run -0 bats_pipe rubric-apply "$c" \| jq -r 'select(.kind == "finding") | .rule'
	refute_output --partial straggler
	refute_output --partial late-rank
	run -0 report-md "$c"
	assert_output --partial 'No straggler: no rank'
	# No rank is last at most of the five all_reduce calls.
	run -0 jq -c 'select(.kind == "rank_summary") | .collective.last_at' "$c"
	assert_output - <<'END'
1
1
1
2
END
	# DLRM's eight GPU ranks with their mean steps made alike: no
	# straggler, but their NCCL kernels still name the rank they wait for.
	run -0 bats_pipe rubric-apply "$TOP/fixtures/rubric-apply/cases/straggler.quiet.ndjson" \| \
	    jq -r 'select(.kind == "finding") | .rule'
	refute_output --partial straggler
	assert_output --partial late-rank
}

@test "diagnosis: equal mean steps, one rank late to the collectives: it is named, with its cause" {
	# Four gloo ranks recorded here: rank 1 sleeps 50 ms a step (a host
	# stall), or rank 2 multiplies eight more matrices a step (extra
	# compute); every rank's mean step is within 10 % of the others'.  The
	# wait it causes is within 10 % of its extra time, and of the 50 ms.
	local d=$TOP/fixtures/rubric-apply/cases
	run -0 bats_pipe rubric-apply "$d/late-rank.fire.ndjson" \| jq -c \
	    'select(.kind == "finding") | select(.place == 1) | [.rule, .evidence.rank,
	    .evidence.collective, .evidence.last_at, .evidence.instances,
	    .evidence.extra_slice.slice,
	    (.evidence.wait_per_step_us > 45000 and .evidence.wait_per_step_us < 55000),
	    (.evidence.extra_slice.per_step > 45000 and .evidence.extra_slice.per_step < 55000)]'
	assert_output '["late-rank",1,"gloo:all_reduce",5,5,"untraced",true,true]'
	run -0 bats_pipe rubric-apply "$d/late-rank.fire.ndjson" \| jq -r \
	    'select(.rule == "late-rank") | .cause'
	assert_output --partial 'A host stall on that rank'
	run -0 bats_pipe rubric-apply "$d/late-rank.fire-compute.ndjson" \| jq -c \
	    'select(.kind == "finding") | select(.place == 1) | [.rule, .evidence.rank,
	    .evidence.extra_slice.slice, (.evidence.wait_per_step_us
	    - .evidence.extra_slice.per_step | fabs) < 0.1 * .evidence.extra_slice.per_step]'
	assert_output '["late-rank",2,"cpu:matmul/linear",true]'
	run -0 bats_pipe rubric-apply "$d/late-rank.fire-compute.ndjson" \| jq -r \
	    'select(.rule == "late-rank") | .cause'
	assert_output --partial 'Extra compute on that rank'
	# Mean steps alike: no rank is 20 % slower than the median rank's.
	run -0 jq -s '[.[] | select(.kind == "rank_summary") | .mean_step]
	    | (max / min) < 1.2' "$d/late-rank.fire.ndjson"
	assert_output true
	run -0 report-md "$d/late-rank.fire.ndjson"
	assert_output --partial '**Straggler: rank 1**, the one the others wait for: last at 5 of 5 gloo:all_reduce calls: the other ranks wait for it'
	# The collectives it keeps waiting, as op-rank's collective_total gives them.
	run -0 jq -c 'select(.kind == "collective_total") | del(.kind)' \
	    "$d/late-rank.fire.ndjson"
	local want=$output
	run -0 bats_pipe report-md -j "$d/late-rank.fire.ndjson" \| jq -c '.collectives[]'
	assert_output "$want"
	run -0 bats_pipe jq -r 'select(.kind == "collective_total") | .median_skew' \
	    "$d/late-rank.fire.ndjson"
	skew=$(awk '{ printf "%.2f ms", $1 / 1000 }' <<<"$output")
	run -0 report-md "$d/late-rank.fire.ndjson"
	assert_output --regexp "\| gloo:all_reduce +\| all_reduce +\| +5 \| +4 \| +$skew \|"
	assert_output --partial '| rank 1 (5 of 5) |'
}

# From the slice to its cause: each finding names the code, caller or
# phase that spends the time, and advises only what can act on it.

@test "diagnosis: Python input work is named by its frame and sent to workers, not to torch.compile" {
	# TimeSformer on H100 (TraceLens): most of the step is the pipeline's
	# video decoding and image processing, in Python and NumPy.
	report --cpu-trace "$FIXTURES/tl_h100_timesformer.json.gz"
	run -0 jq -r '.actions[0] | .rule, .observation, .action' "$BATS_TEST_TMPDIR/r.json"
	assert_line --index 0 'python-between-ops'
	assert_line --index 1 --partial 'runs under transformers/pipelines/video_classification.py(129): preprocess, which runs almost no tensor operators'
	assert_line --index 1 --partial 'transformers/image_transforms.py(390): normalize'
	assert_line --index 2 --partial 'DataLoader worker processes'
	assert_line --index 2 --partial 'torch.compile does not remove'
	refute_line --index 2 --partial 'try torch.compile'
	# The frame holds its time: 216 ms of the 217 ms Python slice, with
	# 1.4 ms of operators under it.
	run -0 jq -c '.actions[0].evidence.under | [.frame, (.time / 1000 | round),
	    (.work / 1000 | round)]' "$BATS_TEST_TMPDIR/r.json"
	assert_output '["transformers/pipelines/video_classification.py(129): preprocess",216,1]'
	# aten::copy_'s 132 ms was cudaMemcpyAsync's wait: a row of its own.
	run -0 grep -E '^\| (aten::copy\\_|cudaMemcpyAsync) ' "$BATS_TEST_TMPDIR/r.md"
	assert_line --index 0 --regexp '^\| aten::copy\\_ +\| data movement +\| +125 \| 132.38 ms \| +2.17 ms \|'
	assert_line --index 1 --regexp '^\| cudaMemcpyAsync +\| runtime +\| +2 \| 129.56 ms \| 129.56 ms \|'
}

@test "diagnosis: the harness's and the profiler's synchronisations are theirs, not the model's" {
	# Qwen on H100 (TraceLens): a benchmark harness calls
	# torch.cuda.synchronize() at the start of the step, and the
	# profiler's stop_trace synchronises at its end; aten::item is the
	# model's and lasts microseconds.
	tr-extract "$TOP/fixtures/op-rank/tl_h100_qwen1.5-0.5b.json.gz" | op-rank \
	    > "$BATS_TEST_TMPDIR/o"
	run -0 jq -c 'select(.kind == "runtime_issuer" and .slice == "sync")
	    | [.call, .frame, .via, .who, .count]' "$BATS_TEST_TMPDIR/o"
	assert_line '["cudaDeviceSynchronize","moca/library/profiling/profile.py(34): run_torch_profiler","torch/cuda/__init__.py(975): synchronize","harness",1]'
	assert_line '["cudaDeviceSynchronize","moca/library/profiling/profile.py(34): run_torch_profiler","torch/cuda/__init__.py(975): synchronize","profiler",1]'
	report --cpu-trace "$TOP/fixtures/op-rank/tl_h100_qwen1.5-0.5b.json.gz"
	run -0 plan
	refute_output --regexp 'host-sync|device-synchronize'
	# What the harness holds of the step is its own slice.
	run -0 jq -r 'select(.kind == "ledger_total") | .slices[]
	    | select(.slice == "harness") | .top[0].who' "$BATS_TEST_TMPDIR/o"
	assert_output harness
}

@test "diagnosis: a blocking copy of a few bytes is a synchronisation point, not a bandwidth problem" {
	# SGLang decode on MI300X (TraceLens): hipMemcpyWithStream holds the
	# host 463 ms to copy 256 bytes, 4.5 µs on the GPU.
	report --cpu-trace "$TOP/fixtures/op-rank/mi300_sglang_Qwen3-8B_decode.json.gz"
	run -0 jq -r '.actions[0] | .rule, .observation, .cause, .action' "$BATS_TEST_TMPDIR/r.json"
	assert_line --index 0 blocking-copy
	assert_line --index 1 --partial 'cuda_graph_runner.py(276): populate_from_forward_batch'
	assert_line --index 1 --partial 'the host waits for the work queued before them, not for the bytes'
	assert_line --index 2 --partial 'A synchronisation point'
	assert_line --index 3 --partial 'Remove the read-back'
	refute_line --index 3 --partial 'pin_memory=True in the DataLoader'
}

@test "diagnosis: capture traces are called capture traces, and nothing judges their utilisation" {
	need_shared traces/realworld/tl_vllm_piecewise_graph_capture.pt.trace.json.gz
	report --cpu-trace "$SHARED/traces/realworld/tl_vllm_piecewise_graph_capture.pt.trace.json.gz"
	run -0 plan
	assert_output --regexp '^graph-capture '
	refute_output --regexp 'low-gpu-util|launch-bound|python-between-ops|time-slice|device-synchronize|many-tiny-ops'
	run -0 jq -r '.actions[0].observation' "$BATS_TEST_TMPDIR/r.json"
	assert_output --partial 'Every window of this trace captures CUDA or HIP graphs'
}

@test "diagnosis: a checkpoint every third step is named as periodic work, before Python" {
	# A real CPU loop recorded here (fixtures/diagnosis/loops.py).
	report --cpu-trace "$FIXTURES/loop-checkpoint-every-3rd.json.gz"
	run -0 plan
	assert_output --regexp '^periodic-steps '
	refute_output --regexp 'python-between-ops|unstable-steps'
	run -0 jq -c '.actions[0].evidence | [.every, .first_step, .periodic_steps]' \
	    "$BATS_TEST_TMPDIR/r.json"
	assert_output '[3,2,4]'
	run -0 jq -r '.actions[0].observation' "$BATS_TEST_TMPDIR/r.json"
	assert_output --partial 'One step in every 3, from step 2 on, is longer than the others'
}

@test "diagnosis: every share is over the windows' wall time, never a sum of overlapping steps" {
	# kineto's ResNet-50 (num_workers=0): each step runs on to its last
	# kernel, so the steps overlap and their sum exceeds the run.
	need_shared traces/kineto/resnet50_nw0_worker0.1623143089861.pt.trace.json.gz
	local t=$SHARED/traces/kineto/resnet50_nw0_worker0.1623143089861.pt.trace.json.gz
	tr-extract "$t" | op-rank > "$BATS_TEST_TMPDIR/o"
	report --cpu-trace "$t"
	run -0 jq -s '(map(select(.kind == "ledger_total")) | .[0].wall) <
	    (map(select(.kind == "step_stats")) | .[0].total)' "$BATS_TEST_TMPDIR/o"
	assert_output true
	wall=$(jq -s 'map(select(.kind == "ledger_total")) | .[0].wall' "$BATS_TEST_TMPDIR/o")
	run -0 jq -r --argjson w "$wall" '.actions[] | select(.rule == "dataloader-share")
	    | [.evidence.step_time_us == $w,
	       ((.evidence.dataloader_share - .evidence.dataloader_self_us / $w) | fabs < 1e-9)] | @tsv' \
	    "$BATS_TEST_TMPDIR/r.json"
	assert_output "$(printf 'true\ttrue')"
	# Every finding's share and impact of the step time: at most 1, and
	# the evidence's windows no longer than the ledger's.
	for t in "$t" "$FIXTURES/tl_h100_timesformer.json.gz" \
	    "$FIXTURES/loop-checkpoint-every-3rd.json.gz" \
	    "$TOP/fixtures/op-rank/mi300_sglang_Qwen3-8B_decode.json.gz"; do
		report --cpu-trace "$t"
		tr-extract "$t" | op-rank > "$BATS_TEST_TMPDIR/o"
		wall=$(jq -s 'map(select(.kind == "ledger_total")) | .[0].wall' "$BATS_TEST_TMPDIR/o")
		run -0 jq --argjson w "$wall" '[.actions[] | select(.impact != null)
		    | (.impact.fraction <= 1 and .impact.claimed <= 1
		       and ((.evidence.window_us // .evidence.step_time_us // $w) <= $w + 0.001))]
		    | all' "$BATS_TEST_TMPDIR/r.json"
		assert_output true
	done
}

@test "diagnosis: one straggler story: the rank the others wait for, named alike everywhere" {
	# Four gloo ranks recorded here: rank 2 multiplies eight more matrices
	# a step, and the others wait for it at every all_reduce; its own mean
	# step is not the longest.
	local f args=()
	for f in "$TOP"/fixtures/op-rank/ddp_compute_rank[0-3].json.gz; do
		args+=(--cpu-trace "$f")
	done
	report "${args[@]}"
	run -0 jq -c '[.straggler.rank, .straggler.by,
	    (.actions[] | select(.rule == "late-rank") | .evidence.rank)]' \
	    "$BATS_TEST_TMPDIR/r.json"
	assert_output '[2,"collectives",2]'
	run -0 grep -c 'rank 2, the one the other 3 wait for' "$BATS_TEST_TMPDIR/r.md"
	[ "$output" -ge 3 ]
	run -1 grep -c 'the slowest of 4' "$BATS_TEST_TMPDIR/r.md"
	run -0 grep -F '**Straggler: rank 2**, the one the others wait for' "$BATS_TEST_TMPDIR/r.md"
}

@test "diagnosis: vLLM's replayed decode: the graphs' share, the queued launch, the decode step timed on the GPU, its GPU inferred" {
	# One hipGraphLaunch runs 421 kernels, 10.4 of the 10.7 ms the GPU is
	# busy; tests/op-rank-serve.bats holds op-rank's figures against the
	# raw events, this the report built on them.
	report --cpu-trace "$TOP/fixtures/op-rank/vllm_decode_full_graph_execution.json.gz"
	run -0 plan
	assert_output --regexp '(^| )graph-replay '
	assert_output --regexp '(^| )graph-queued '
	refute_output --regexp 'time-slice|missing-steps'
	run -0 jq -r '.cuda_graphs | [.launches, .kernels, .coverage] | @tsv' "$BATS_TEST_TMPDIR/r.json"
	assert_output "$(printf '1\t421\t0.969')"
	run -0 jq -r '.serving.phases[] | [.phase, .steps, .mean, (.tokens_per_s | round)] | @tsv' "$BATS_TEST_TMPDIR/r.json"
	assert_output "$(printf 'decode\t1\t10743.181\t2979')"
	run -0 cat "$BATS_TEST_TMPDIR/r.md"
	assert_line '## CUDA graphs (rank 0)'
	assert_output --partial 'the operator tables and FLOPs of this report cover only the eager 3.1 %'
	assert_output --partial 'nsys --cuda-graph-trace=node'
	assert_line '## Serving steps (rank 0)'
	assert_line '| decode |     1 | 10.74 ms | 10.74 ms | 10.74 ms |       32.0 |     2979 | 8.40 ms |  792.1 µs |   1.52 ms |'
	assert_line 'Time per output token, the decode step'"'"'s time on the GPU: 10.74 ms at batch size 32.'
	# The 6 ms before the graph's first kernel is the queued launch's,
	# no longer "Nothing traced"; the GPU's name is no longer empty.
	assert_output --regexp '\| Graph launched, waiting for its first kernel +\|  5\.99 ms \| 31\.3 % \|'
	assert_output --regexp '\| Nothing traced +\|  30\.1 µs \|'
	assert_output --partial 'peak of MI300X, 1307.4 TFLOPS (the trace names no GPU: AMD Instinct MI300X, inferred'
	refute_output --partial 'on , whose peaks'
}

@test "diagnosis: the graph and serving sections, and their JSON, only where their records are" {
	report --cpu-trace "$TOP/fixtures/example/trace.json.gz"
	run -0 jq -r 'has("cuda_graphs"), has("serving")' "$BATS_TEST_TMPDIR/r.json"
	assert_output "$(printf 'false\nfalse')"
	run -1 grep -E '^## (CUDA graphs|Serving steps)' "$BATS_TEST_TMPDIR/r.md"
}

@test "diagnosis: a serving trace's attention FLOPs from its labels, where the context gives heads, head size and layers" {
	printf 'num_attention_heads: 64\nhead_dim: 64\nnum_hidden_layers: 24\n' > "$BATS_TEST_TMPDIR/ctx.yaml"
	report --context "$BATS_TEST_TMPDIR/ctx.yaml" \
	    --cpu-trace "$TOP/fixtures/op-rank/vllm_decode_full_graph_execution.json.gz"
	# 24 layers × 64 heads × 64 × 4 × g_sqsk (55086), no prefill: TraceLens's
	# formula, over the decode step's 10743.181 µs on the GPU.
	run -0 grep -F 'Attention FLOPs from the labels' "$BATS_TEST_TMPDIR/r.md"
	assert_output --partial "decode $(printf '%.1f' "$(jq -n '24 * 64 * 64 * 4 * 55086 / 1e9')") GFLOP in 1 step, $(printf '%.1f' "$(jq -n '24 * 64 * 64 * 4 * 55086 / 10743.181 / 1e6')") TFLOPS"
}

@test "diagnosis: torch.compile's regions: a recompiled frame named with the switch that says why, Inductor's share of the GPU" {
	need_shared traces/tracelens/b200_eager_trace.json.gz
	# TraceLens's B200 trace runs frame 0's second compilation, 0/1.
	report --cpu-trace "$SHARED/traces/tracelens/b200_eager_trace.json.gz"
	run -0 plan
	assert_output --regexp '(^| )recompile '
	refute_output --regexp 'graph-break|guard-overhead|compile-in-window'
	run -0 jq -r '.actions[] | select(.rule == "recompile") | .observation, .action' "$BATS_TEST_TMPDIR/r.json"
	assert_line --index 0 --partial 'compile ids 0/1'
	assert_line --index 1 --partial 'TORCH_LOGS=recompiles'
	assert_line --index 1 --partial 'torch._dynamo.mark_dynamic'
	run -0 jq -c '.compiled | [.frames, .recompiled_frames, .graph_breaks]' "$BATS_TEST_TMPDIR/r.json"
	assert_output '[1,1,0]'
	run -0 grep -A1 '^## Compiled regions (rank 0)' "$BATS_TEST_TMPDIR/r.md"
	report --cpu-trace "$TOP/fixtures/tr-extract/tracelens_torch_compile_triton.json.gz"
	run -0 plan
	refute_output --regexp 'recompile|graph-break'
	run -0 cat "$BATS_TEST_TMPDIR/r.md"
	assert_output --partial "1 call of 1 compiled frame (856.3 µs on the host); no recompilation, no graph break; guards 22.5 µs in 1 call"
	assert_output --partial "Inductor's Triton kernels 836.0 µs, 6.7 % of the GPU's kernel time."
	assert_line '| 0/0        |     1 | 856.3 µs | 856.3 µs |'
}
