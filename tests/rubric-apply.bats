bats_require_minimum_version 1.5.0
setup() { load test_helper; export MRP_RUBRIC="$TOP/rubric"; }

@test "rubric-apply: usage error" {
	local d=$BATS_TEST_TMPDIR/out
	run -2 --separate-stderr rubric-apply -Z
	assert_stderr --partial 'usage: rubric-apply [-l] [-r rubric] [file ...]'
	assert_stderr --partial '       rubric-apply -o dir [-r rubric] file ...'
	assert_stderr --partial '       rubric-apply -O plan [-r rubric]'
	run -2 --separate-stderr rubric-apply -l "$FIXTURES/example.ndjson"
	# -o: files, each with a name; no -l.
	mkdir "$d"
	run -2 --separate-stderr rubric-apply -o "$d"
	assert_stderr --partial 'usage: rubric-apply'
	run -2 --separate-stderr rubric-apply -l -o "$d"
	run -2 --separate-stderr rubric-apply -o "$d" - \
	    <"$FIXTURES/example.ndjson"
	assert_stderr 'rubric-apply: -: standard input has no name to name its output after'
	run -2 --separate-stderr rubric-apply -o "$d" "$FIXTURES/"
	assert_stderr "rubric-apply: $FIXTURES/: names a directory, not a file"
	[ -z "$(ls -A "$d")" ]
}

@test "rubric-apply: empty input gives no findings" {
	run -0 rubric-apply </dev/null
	assert_output ''
}

@test "rubric-apply: golden findings on the example trace and snapshot" {
	run -0 rubric-apply "$FIXTURES/example.ndjson"
	assert_output - <"$FIXTURES/example.findings.ndjson"
}

@test "rubric-apply: the user's ~/.jq neither changes nor stops the findings" {
	# libjq adds $HOME/.jq to what it compiles; 1.6 lets it replace builtins.
	export HOME=$BATS_TEST_TMPDIR
	printf 'def length: 0;\ndef ascii_downcase: "x";\n' >"$HOME/.jq"
	run -0 rubric-apply "$FIXTURES/example.ndjson"
	assert_output - <"$FIXTURES/example.findings.ndjson"
	echo 'def broken: (;' >"$HOME/.jq"
	run -0 rubric-apply "$FIXTURES/example.ndjson"
	assert_output - <"$FIXTURES/example.findings.ndjson"
}

@test "rubric-apply: time first, then memory, each by fraction; missing artifacts last" {
	run -0 bats_pipe rubric-apply "$FIXTURES/example.ndjson" \| \
	    jq -sc 'map(select(.kind == "finding") | [.rule, .impact.basis, .impact.fraction, .impact.claimed])'
	assert_output '[["python-between-ops","step_time",0.4463,0.4463],["low-gpu-util","step_time",0.196,0.7157],["time-slice","step_time",0.1529,0.1529],["launch-bound","step_time",0.0734,0.0734],["gemm-below-peak","step_time",0.041,0.041],["releasable-cache","reserved_memory",0.8519,0.8519],["fragmentation-medium","reserved_memory",0.1397,0.1397],["missing-context",null,null,null],["missing-memory-stats",null,null,null]]'
}

@test "rubric-apply: time that two rules claim is attributed once" {
	# python-between-ops and launch-bound (before it in rubric order)
	# take their shares of the GPU's idle time; low-gpu-util keeps the
	# rest of its claim (0.7157), not all of it.
	run -0 bats_pipe rubric-apply "$FIXTURES/example.ndjson" \| \
	    jq -sc '[.[] | select(.impact.basis == "step_time") | .impact.fraction] | add * 1e4 | round / 1e4'
	assert_output '0.9096'
	# A rule whose whole claim a rule before it already made is dropped.
	run -0 bats_pipe rubric-apply "$FIXTURES/cases/launch-bound.fire.ndjson" \| \
	    jq -c 'select(.kind == "finding") | select(.rule == "launch-bound" or .rule == "low-gpu-util") | .rule'
	assert_output - <<'OUT'
"low-gpu-util"
"launch-bound"
OUT
}

@test "rubric-apply: critical-path names what bounds the step, and claims no time" {
	run -0 bats_pipe rubric-apply "$FIXTURES/cases/critical-path.fire-launch.ndjson" \| \
	    jq -c 'select(.kind == "finding" and .rule == "critical-path") | [.impact, .evidence.bound,
	    (.observation | startswith("61.0 % of the critical path through 1 window (2.14 ms) is kernel launch overhead")),
	    (.action | startswith("Launch less: capture the step in CUDA graphs"))]'
	assert_output '[null,"kernel_launch_overhead",true,true]'
	# The example's step: host work holds the path, GPU work beside it.
	run -0 bats_pipe rubric-apply "$FIXTURES/cases/critical-path.fire.ndjson" \| \
	    jq -c 'select(.kind == "finding" and .rule == "critical-path") | [.evidence.bound, .measure.value,
	    (.action | contains("faster kernels or lower precision will not shorten this step"))]'
	assert_output '["cpu_bound",0.9722484860160262,true]'
}

@test "rubric-apply: the objective memory puts memory first; an OOM is always first" {
	ctx='{"kind":"context","objective":"memory"}'
	run -0 bats_pipe cat "$FIXTURES/example.ndjson" \| \
	    jq -c --argjson c "$ctx" '., if .kind == "cpu_summary" then $c else empty end' \| \
	    rubric-apply \| jq -sc 'map(select(.kind == "finding") | .rule)'
	assert_output '["releasable-cache","fragmentation-medium","python-between-ops","low-gpu-util","time-slice","launch-bound","gemm-below-peak","missing-context","missing-memory-stats"]'
	run -0 bats_pipe rubric-apply "$FIXTURES/cases/oom.fire.ndjson" \| \
	    jq -c 'select(.place == 1) | [.rule, .blocking, .impact]'
	assert_output '["oom",true,null]'
}

@test "rubric-apply: a phase in focus puts the findings of other phases last" {
	ctx='{"kind":"context","phase":"dataloader"}'
	run -0 bats_pipe cat "$FIXTURES/cases/dataloader-share.fire.ndjson" \| \
	    jq -c --argjson c "$ctx" '., if .kind == "cpu_summary" then $c else empty end' \| \
	    rubric-apply \| jq -sc 'map(.rule) | .[0]'
	assert_output '"dataloader-share"'
}

@test "rubric-apply: optimizer advice fits the optimizer the trace names" {
	# Shampoo already on foreach kernels: no "foreach=True" for it.
	run -0 bats_pipe rubric-apply "$FIXTURES/cases/optimizer-share.fire-foreach.ndjson" \| \
	    jq -r 'select(.kind == "finding" and .rule == "optimizer-share") | .observation, .action'
	assert_line --index 0 --partial '(Shampoo)'
	assert_line --index 0 --partial 'already with foreach (multi-tensor) kernels'
	refute_output --partial 'foreach=True'
	run -0 bats_pipe rubric-apply "$FIXTURES/cases/optimizer-share.fire.ndjson" \| \
	    jq -r 'select(.kind == "finding" and .rule == "optimizer-share") | .action'
	assert_output --partial 'foreach=True'
}

@test "rubric-apply: the host-bound findings name the runtime calls that hold the time" {
	run -0 bats_pipe rubric-apply "$FIXTURES/cases/device-synchronize.fire.ndjson" \| \
	    jq -r 'select(.kind == "finding" and .rule == "device-synchronize") | .observation, .cause'
	assert_line --index 0 --partial 'By call: hipDeviceSynchronize: 26 calls, 115.31 ms.'
	# Whole calls by who issued them: the graph context's sync is the
	# model's code, the one in the profiler's __exit__ the profiler's.
	assert_line --index 0 --partial 'Issued by: hipDeviceSynchronize from vllm/compilation/cuda_graph.py(208): __call__ → torch/cuda/graphs.py(240): __enter__ (model): 25 calls, 115.29 ms; hipDeviceSynchronize from vllm/v1/worker/gpu_model_runner.py(5467): _capture_cudagraphs → torch/cuda/__init__.py(1073): synchronize (profiler): 1 call, 15.0 µs;'
	assert_line --index 1 --partial 'hipDeviceSynchronize is what torch.cuda.synchronize() calls'
	run -0 bats_pipe rubric-apply "$FIXTURES/cases/allocator-calls.fire.ndjson" \| \
	    jq -r 'select(.kind == "finding" and .rule == "allocator-calls") | .observation'
	assert_output --partial 'By call: cudaFree: 15 calls, 6.55 s; cudaMalloc: 24 calls, 1.96 s;'
	assert_output --partial 'Issued from: aten::cudnn_convolution: 14 calls, 7.61 s;'
	run -0 bats_pipe rubric-apply "$FIXTURES/cases/blocking-copy.fire.ndjson" \| \
	    jq -r 'select(.kind == "finding" and .rule == "blocking-copy") | .observation'
	assert_output --partial 'By call: hipMemcpyWithStream: 1 call, 463.06 ms;'
	assert_output --partial 'Issued by: hipMemcpyWithStream from /sgl-workspace/sglang/python/sglang/srt/model_executor/cuda_graph_runner.py(276): populate_from_forward_batch → <built-in method copy_ of Tensor object at 0x7ed6e00c44a0> → aten::copy_ (model): 1 call, 463.06 ms;'
	assert_output --partial 'Memcpy DtoH (Device -> Host): 1 call, 4.5 µs, 256 B.'
}

@test "rubric-apply: without steps, the input wait is judged over inferred iterations" {
	run -0 bats_pipe rubric-apply "$FIXTURES/cases/dataloader-share.fire-inferred.ndjson" \| \
	    jq -r 'select(.kind == "finding" and .impact.fraction != null) | .rule'
	assert_line --index 0 dataloader-share
	run -0 bats_pipe rubric-apply "$FIXTURES/cases/dataloader-share.fire-inferred.ndjson" \| \
	    jq -r 'select(.kind == "finding" and (.rule == "dataloader-share" or .rule == "missing-steps")) | .observation'
	assert_line --index 0 --partial "of the iterations' time"
	assert_line --index 1 --partial 'iterations were inferred from the DataLoader.__next__ calls'
}

@test "rubric-apply: communication advice fits the collective that holds the most" {
	# HTA's sampled ranks exchange embeddings with all-to-all.
	run -0 bats_pipe tr-extract "$TOP/fixtures/op-rank/sampled_rank-0.json.gz" \
	    "$TOP/fixtures/op-rank/sampled_rank-1.json.gz" \| op-rank \| rubric-apply \| \
	    jq -r 'select(.kind == "finding" and .rule == "comm-share") | .observation, .action'
	assert_line --index 0 --partial 'in all_to_all and all_reduce (most first'
	assert_line --index 1 --partial 'Balance what each rank sends in the all-to-all'
	refute_output --partial 'compress_hook'
	# No collective named: data parallelism's all-reduce, in a precision
	# the GPU has (the example's H100: bf16).
	run -0 bats_pipe rubric-apply "$FIXTURES/cases/comm-share.fire.ndjson" \| \
	    jq -r 'select(.kind == "finding" and .rule == "comm-share") | .action'
	assert_output --partial 'bf16 (DDP comm hook bf16_compress_hook)'
}

@test "rubric-apply: precision advice fits the GPU the trace names" {
	local c
	# An RTX 2080 Ti (Turing, 7.5) and a V100 (Volta, 7.0): fp16, not bf16.
	for c in turing volta; do
		run -0 bats_pipe rubric-apply "$FIXTURES/cases/matmul-gpu.fire-$c.ndjson" \| \
		    jq -r 'select(.kind == "finding" and .rule == "matmul-gpu") | .action'
		assert_output --partial 'torch.autocast("cuda", dtype=torch.float16)) and torch.amp.GradScaler'
		refute_output --partial 'bfloat16'
		refute_output --partial 'set_float32_matmul_precision'
	done
	run -0 bats_pipe rubric-apply "$FIXTURES/cases/matmul-gpu.fire-turing.ndjson" \| \
	    jq -r 'select(.kind == "finding" and .rule == "matmul-gpu") | .action'
	assert_output --partial 'NVIDIA GeForce RTX 2080 Ti, Turing, runs fp16'
	# No GPU named: bf16 with what it needs.
	run -0 bats_pipe rubric-apply "$FIXTURES/cases/matmul-gpu.fire-unknown-gpu.ndjson" \| \
	    jq -r 'select(.kind == "finding" and .rule == "matmul-gpu") | .action'
	assert_output --partial 'bfloat16)) if the GPU has bf16 (compute capability 8.0 or later, AMD CDNA2 or later'
	# An MI210 (CDNA2) runs bf16 but not TF32: no TF32 advice.
	run -0 bats_pipe tr-extract "$TOP/fixtures/op-rank/sampled_rank-0.json.gz" \| \
	    op-rank -g MI210 \| rubric-apply \| \
	    jq -r 'select(.kind == "finding" and .rule == "fp32-gemm") | .observation, .action'
	assert_line --index 0 --partial 'on MI210, whose bf16 peak is 181.0 TFLOPS against 45.3 in float32'
	assert_line --index 1 --partial 'Run the forward and loss under torch.autocast("cuda", dtype=torch.bfloat16)'
	refute_output --partial 'set_float32_matmul_precision'
}

@test "rubric-apply: the ledger's findings never claim more than their slice, nor together the window" {
	local f id d=$BATS_TEST_TMPDIR
	# (profiler-overhead claims none: the profiler's time is no step's.)
	rubric-apply -o "$d" "$FIXTURES"/cases/{warm-up,device-synchronize,blocking-copy,allocator-calls,python-between-ops,many-tiny-ops,dtype-conversion,time-slice}.fire.ndjson
	for f in "$d"/*.fire.ndjson; do
		id=$(basename "$f" .fire.ndjson)
		run -0 jq -sc --arg id "$id" '
		    map(select(.kind == "finding" and .impact.basis == "step_time"))
		    | [(map(.impact.fraction) | add) <= 1.0001,
		       (map(select(.rule == $id))[0] | .impact.fraction <=
		        ([.evidence | to_entries[] | select(.key | endswith("share")) | .value] | max) + 0.0001)]' "$f"
		assert_output '[true,true]'
	done
}

@test "rubric-apply: loops with one injected cause: the plan names it, the fix quiets it" {
	# Recorded here with torch (loops.py).
	run -0 bats_pipe rubric-apply "$FIXTURES/cases/many-tiny-ops.fire.ndjson" \| \
	    jq -r 'select(.kind == "finding" and .impact.fraction != null) | .rule'
	assert_line --index 0 'python-between-ops'
	assert_line --index 1 'many-tiny-ops'
	run -0 bats_pipe rubric-apply "$FIXTURES/cases/many-tiny-ops.fire.ndjson" \| \
	    jq -r 'select(.kind == "finding" and .rule == "many-tiny-ops") | .observation, .action'
	assert_line --index 0 '15005 operator calls a step take 0.5 µs each on average (aten::copy_, aten::empty_strided, aten::to most often), 47.0 % of the steps.'
	assert_line --index 1 --partial 'Vectorise'
	run -0 bats_pipe rubric-apply "$FIXTURES/cases/dtype-conversion.fire.ndjson" \| \
	    jq -r 'select(.kind == "finding" and .rule == "dtype-conversion") | .observation, .impact.fraction'
	assert_output - <<'OUT'
6 casts (aten::_to_copy) in 3 steps take 13.47 ms, 28.1 % of the steps.
0.2815
OUT
	# The fixes, and the loop's own casts, which are its tiny calls.
	for f in many-tiny-ops.quiet dtype-conversion.quiet dtype-conversion.quiet-tiny; do
		run -0 bats_pipe rubric-apply "$FIXTURES/cases/$f.ndjson" \| \
		    jq -r 'select(.kind == "finding") | .rule'
		refute_line "${f%%.*}"
	done
}

@test "rubric-apply: the same input gives the same bytes, in any file order" {
	rubric-apply "$FIXTURES/base-trace.ndjson" "$FIXTURES/base-memory.ndjson" \
	    >"$BATS_TEST_TMPDIR/a"
	rubric-apply "$FIXTURES/base-memory.ndjson" "$FIXTURES/base-trace.ndjson" \
	    >"$BATS_TEST_TMPDIR/b"
	cmp "$BATS_TEST_TMPDIR/a" "$BATS_TEST_TMPDIR/b"
}

@test "rubric-apply: malformed input is an error with file:line:col" {
	run -1 --separate-stderr rubric-apply "$FIXTURES/malformed.ndjson"
	assert_stderr --regexp 'malformed\.ndjson:2:[0-9]+: '
	assert_output ''
}

@test "rubric-apply: .gz input gives the same bytes as plain" {
	a=$(rubric-apply "$FIXTURES/base-memory.ndjson")
	b=$(rubric-apply "$FIXTURES/base-memory.ndjson.gz")
	[ -n "$a" ]
	[ "$a" = "$b" ]
}

@test "rubric-apply: a failed write exits 1" {
	run -1 bash -c 'rubric-apply "$1" >/dev/full' _ "$FIXTURES/example.ndjson"
}

@test "rubric-apply: a file that cannot be opened is skipped with status 1" {
	run -1 --separate-stderr rubric-apply "$FIXTURES/nonexistent" \
	    "$FIXTURES/base-memory.ndjson"
	assert_stderr --partial 'nonexistent'
	assert_output --partial '"rule":"fragmentation-medium"'
}

@test "rubric-apply: every rule has a firing and a quiet case" {
	for id in $(rubric-apply -l | jq -r .id); do
		[ -s "$FIXTURES/cases/$id.fire.ndjson" ] ||
		    fail "no cases/$id.fire.ndjson"
		[ -s "$FIXTURES/cases/$id.quiet.ndjson" ] ||
		    fail "no cases/$id.quiet.ndjson"
	done
}

# The cases through one rubric-apply -o, whose outputs are those of one run
# a case (tested below).
@test "rubric-apply: each rule fires on its firing cases" {
	local d=$BATS_TEST_TMPDIR f id
	rubric-apply -o "$d" "$FIXTURES"/cases/*.fire*.ndjson
	for f in "$FIXTURES"/cases/*.fire*.ndjson; do
		f=$(basename "$f" .ndjson)
		id=${f%%.fire*}
		jq -se --arg id "$id" 'any(.[]; .rule == $id)' \
		    "$d/$f.ndjson" >/dev/null || fail "$id does not fire on $f"
	done
}

@test "rubric-apply: each rule stays quiet on its quiet cases" {
	local d=$BATS_TEST_TMPDIR f id n
	rubric-apply -o "$d" "$FIXTURES"/cases/*.quiet*.ndjson
	for f in "$FIXTURES"/cases/*.quiet*.ndjson; do
		f=$(basename "$f" .ndjson)
		id=${f%%.quiet*}
		n=$(jq -c --arg id "$id" \
		    'select(.kind == "finding" and .rule == $id)' \
		    "$d/$f.ndjson" | wc -l)
		[ "$n" -eq 0 ] || fail "$id fires on $f"
	done
}

@test "rubric-apply -o: each file's findings are the bytes of a run on it alone, on every fixture" {
	# Runs alone on the fixtures of every kind of input (the top level),
	# and the batch over every fixture in both orders: no input's
	# findings depend on those before it, the first's on none.  A run
	# alone on each of the 150 took a minute of the suite, a compile each.
	local d=$BATS_TEST_TMPDIR f n=0 plain=() back=() out
	mkdir "$d/plain" "$d/back" "$d/gz"
	for f in "$FIXTURES"/*.ndjson "$FIXTURES"/cases/*.ndjson; do
		[ "$f" = "$FIXTURES/malformed.ndjson" ] && continue
		plain+=("$f")
		back=("$f" "${back[@]}")
	done
	# base-memory.ndjson.gz would give base-memory.ndjson's name.
	rubric-apply -o "$d/plain" "${plain[@]}"
	rubric-apply -o "$d/back" "${back[@]}"
	rubric-apply -o "$d/gz" "$FIXTURES"/*.ndjson.gz
	for f in "$FIXTURES"/*.ndjson "$FIXTURES"/*.ndjson.gz; do
		case $f in
		*/malformed.ndjson) continue ;;
		*.gz) out=$d/gz/$(basename "$f" .ndjson.gz).ndjson ;;
		*) out=$d/plain/$(basename "$f" .ndjson).ndjson ;;
		esac
		rubric-apply "$f" | cmp - "$out" || fail "-o differs on $f"
		n=$((n + 1))
	done
	[ "$n" -ge 7 ]
	diff -r "$d/plain" "$d/back"
	# Nothing else was left there: no temporary file.
	[ "$(find "$d/plain" "$d/gz" -type f | wc -l)" -eq $((${#plain[@]} +
	    $(ls "$FIXTURES"/*.ndjson.gz | wc -l))) ]
	[ -z "$(find "$d/plain" "$d/back" "$d/gz" -name '.*')" ]
	[ "${#plain[@]}" -ge 130 ]
}

@test "rubric-apply -o: names that collide or are an input are refused before anything is written" {
	local d=$BATS_TEST_TMPDIR
	mkdir "$d/out" "$d/a" "$d/b"
	cp "$FIXTURES/example.ndjson" "$d/a/run.ndjson"
	cp "$FIXTURES/base-memory.ndjson" "$d/b/run.ndjson"
	run -2 --separate-stderr rubric-apply -o "$d/out" "$d/a/run.ndjson" "$d/b/run.ndjson"
	assert_stderr "rubric-apply: $d/a/run.ndjson and $d/b/run.ndjson would both be written to $d/out/run.ndjson"
	# A file and its gzip copy alike.
	run -2 --separate-stderr rubric-apply -o "$d/out/" "$FIXTURES/base-memory.ndjson" "$FIXTURES/base-memory.ndjson.gz"
	assert_stderr --partial "would both be written to $d/out/base-memory.ndjson"
	[ -z "$(ls -A "$d/out")" ]
	# Its own output would replace an input, which stays as it was.
	run -2 --separate-stderr rubric-apply -o "$d/a" "$d/a/run.ndjson"
	assert_stderr "rubric-apply: $d/a/run.ndjson: its output, $d/a/run.ndjson, would be written over it"
	cmp "$FIXTURES/example.ndjson" "$d/a/run.ndjson"
	# So would a hard link's.
	ln "$d/a/run.ndjson" "$d/out/run.ndjson"
	run -2 --separate-stderr rubric-apply -o "$d/out" "$d/a/run.ndjson"
	assert_stderr --partial 'would be written over it'
	cmp "$FIXTURES/example.ndjson" "$d/a/run.ndjson"
	rm "$d/out/run.ndjson"
	# A directory named is no input's output; a file is no directory.
	run -1 --separate-stderr rubric-apply -o "$d/a/run.ndjson" "$d/b/run.ndjson"
	assert_stderr "rubric-apply: $d/a/run.ndjson: Not a directory"
	run -1 --separate-stderr rubric-apply -o "$d/nonesuch" "$d/b/run.ndjson"
	assert_stderr "rubric-apply: $d/nonesuch: No such file or directory"
}

@test "rubric-apply -o: an output stays in its directory: a name from afar, a symbolic link replaced" {
	local d=$BATS_TEST_TMPDIR
	mkdir -p "$d/out" "$d/x/y"
	cp "$FIXTURES/example.ndjson" "$d/x/y/run.ndjson"
	echo keep >"$d/victim"
	ln -s ../victim "$d/out/run.ndjson"
	cd "$d/out"
	run -0 rubric-apply -o . ../x/y/run.ndjson
	cd "$d"
	[ "$(cat victim)" = keep ]
	[ -f out/run.ndjson ] && [ ! -L out/run.ndjson ]
	cmp "$FIXTURES/example.findings.ndjson" out/run.ndjson
	[ "$(ls -A out)" = run.ndjson ]
	[ "$(ls -A x/y)" = run.ndjson ]
}

@test "rubric-apply -o: a bad input among good ones is reported, gets nothing, and the others are written" {
	local d=$BATS_TEST_TMPDIR
	mkdir "$d/out"
	echo before >"$d/out/malformed.ndjson"
	run -1 --separate-stderr rubric-apply -o "$d/out" "$FIXTURES/example.ndjson" \
	    "$FIXTURES/malformed.ndjson" "$FIXTURES/nonexistent.ndjson" \
	    "$FIXTURES/base-memory.ndjson"
	assert_output ''
	# The message of a run on the malformed file alone, then the other's.
	assert_stderr "$(rubric-apply "$FIXTURES/malformed.ndjson" 2>&1)
rubric-apply: $FIXTURES/nonexistent.ndjson: No such file or directory"
	assert_stderr --regexp "^rubric-apply: $FIXTURES/malformed\.ndjson:2:[0-9]+: "
	cmp "$FIXTURES/example.findings.ndjson" "$d/out/example.ndjson"
	rubric-apply "$FIXTURES/base-memory.ndjson" | cmp - "$d/out/base-memory.ndjson"
	[ "$(cat "$d/out/malformed.ndjson")" = before ]
	[ "$(ls -A "$d/out" | tr '\n' ' ')" = 'base-memory.ndjson example.ndjson malformed.ndjson ' ]
}

@test "rubric-apply -o: one process or one a CPU, the same files and messages in the same order" {
	same_on_cpus rubric-apply "$FIXTURES/example.ndjson" \
	    "$FIXTURES/malformed.ndjson" "$FIXTURES/nonexistent.ndjson" \
	    "$FIXTURES/base-memory.ndjson" "$FIXTURES"/cases/*.fire.ndjson
	assert_stderr --partial "rubric-apply: $FIXTURES/nonexistent.ndjson: No such file or directory"
}

@test "rubric-apply -o: a failed write exits 1 at once, leaving no file half-written" {
	local d=$BATS_TEST_TMPDIR
	mkdir "$d/out"
	# Files of 4 KiB at most: the example's findings are larger, the
	# base memory's not.  An ignored SIGXFSZ makes write(2) fail instead.
	run -1 --separate-stderr bash -c 'trap "" XFSZ; ulimit -f 4;
	    exec rubric-apply -o "$1" "$2" "$3"' _ "$d/out" \
	    "$FIXTURES/example.ndjson" "$FIXTURES/base-memory.ndjson"
	assert_stderr --partial "rubric-apply: $d/out/example.ndjson: write failed: File too large"
	[ -z "$(ls -A "$d/out")" ]
	# The same with a process a CPU: the next file's is made, not written.
	run -1 --separate-stderr env MRP_CPUS=2 bash -c 'trap "" XFSZ;
	    ulimit -f 4; exec rubric-apply -o "$1" "$2" "$3"' _ "$d/out" \
	    "$FIXTURES/example.ndjson" "$FIXTURES/base-memory.ndjson"
	assert_stderr "rubric-apply: $d/out/example.ndjson: write failed: File too large"
	[ -z "$(ls -A "$d/out")" ]
}

@test "rubric-apply -O: each output of a plan is the bytes of a run on its files, a bad line gets none" {
	local d=$BATS_TEST_TMPDIR t=$'\t'
	mkdir "$d/x" "$d/y"
	echo before >"$d/y/bad"
	# Blank lines aside, one output a line, each from one file or several.
	printf '%s\n' "$d/x/one$t$FIXTURES/example.ndjson" '' \
	    "$d/y/two$t$FIXTURES/base-trace.ndjson$t$FIXTURES/base-memory.ndjson.gz$t$FIXTURES/base-critical.ndjson" \
	    "$d/y/bad$t$FIXTURES/base-ranks.ndjson$t$FIXTURES/malformed.ndjson" \
	    "$d/y/none$t$FIXTURES/nonexistent.ndjson" \
	    "$d/x/three$t$FIXTURES/base-ranks.ndjson" >"$d/plan"
	run -1 --separate-stderr rubric-apply -O "$d/plan"
	assert_output ''
	assert_stderr --regexp "^rubric-apply: $FIXTURES/malformed\.ndjson:2:[0-9]+: "
	assert_stderr --partial "rubric-apply: $FIXTURES/nonexistent.ndjson: No such file or directory"
	cmp "$FIXTURES/example.findings.ndjson" "$d/x/one"
	rubric-apply "$FIXTURES/base-trace.ndjson" "$FIXTURES/base-memory.ndjson.gz" \
	    "$FIXTURES/base-critical.ndjson" | cmp - "$d/y/two"
	rubric-apply "$FIXTURES/base-ranks.ndjson" | cmp - "$d/x/three"
	[ "$(cat "$d/y/bad")" = before ]
	[ "$(ls -A "$d/x" "$d/y" | tr '\n' ' ')" = "$d/x: one three  $d/y: bad two " ]
	# A plan with nothing to make makes nothing.
	run -0 rubric-apply -O /dev/null
}

@test "rubric-apply -O: a plan that would lose data is refused, naming its line, before anything is written" {
	local d=$BATS_TEST_TMPDIR/w t=$'\t' e=$FIXTURES/example.ndjson
	mkdir "$d"
	run -2 --separate-stderr rubric-apply -O "$d/plan" "$e"
	run -2 --separate-stderr rubric-apply -O "$d/plan" -o "$d"
	run -2 --separate-stderr rubric-apply -l -O "$d/plan"
	run -1 --separate-stderr rubric-apply -O "$d/nonesuch"
	assert_stderr "rubric-apply: $d/nonesuch: No such file or directory"
	cp "$e" "$d/in.ndjson"
	check() {
		printf "$1" >"$d/plan"
		run -1 --separate-stderr rubric-apply -O "$d/plan"
		assert_stderr "rubric-apply: $d/plan:$2"
		[ "$(ls -A "$d" | tr '\n' ' ')" = 'in.ndjson plan ' ]
		cmp "$e" "$d/in.ndjson"
	}
	check "$d/out\n" "1: an output, then a tab and each of its files"
	check "\n$d/out$t\n" "2: an empty field"
	check "$d/out$t$e$t$t$e\n" "1: an empty field"
	check "$d/out$t-\n" "1: -: standard input has no name in a plan"
	check "$d/out$t$e\n$d/out$t$e\n" "2: $d/out: $d/plan:1 writes it too"
	check "$d/in.ndjson$t$d/in.ndjson\n" "1: its output, $d/in.ndjson, is its file $d/in.ndjson"
	check "$d/out$t$d/in.ndjson\n$d/in.ndjson$t$e\n" "2: its output, $d/in.ndjson, is $d/plan:1's file $d/in.ndjson"
	printf 'a\0b\t%s\n' "$e" >"$d/plan"
	run -1 --separate-stderr rubric-apply -O "$d/plan"
	assert_stderr "rubric-apply: $d/plan:1:2: a NUL in a name"
}

@test "rubric-apply -O: a failed write exits 1 at once, leaving no file half-written" {
	local d=$BATS_TEST_TMPDIR/w
	mkdir "$d"
	# The example's findings are over 4 KiB, those of its findings not.
	printf '%s\t%s\n' "$d/small" "$FIXTURES/example.findings.ndjson" \
	    "$d/large" "$FIXTURES/example.ndjson" \
	    "$d/later" "$FIXTURES/example.findings.ndjson" >"$d/plan"
	run -1 --separate-stderr bash -c 'trap "" XFSZ; ulimit -f 4;
	    exec rubric-apply -O "$1"' _ "$d/plan"
	assert_stderr "rubric-apply: $d/large: write failed: File too large"
	[ "$(ls -A "$d" | tr '\n' ' ')" = 'plan small ' ]
}

@test "rubric-apply: a finding carries evidence, texts and the hypothesis flag" {
	run -0 bats_pipe rubric-apply "$FIXTURES/cases/nearby-sizes.fire.ndjson" \| \
	    jq -c 'select(.kind == "finding" and .rule == "nearby-sizes") | [.confidence, .hypothesis,
	    .evidence.band, (.observation | test("500 allocations fall between 1.0 MiB and 2.0 MiB"))]'
	assert_output '["low",true,{"from":1048576,"to":2097152,"allocs":500},true]'
}

@test "rubric-apply: missing artifacts say what to capture and how" {
	run -0 bats_pipe rubric-apply "$FIXTURES/cases/missing-snapshot.fire.ndjson" \| \
	    jq -r 'select(.rule == "missing-snapshot") | .capture'
	assert_output --partial '_record_memory_history('
	assert_output --partial 'json.dump(torch.cuda.memory._snapshot()'
	run -0 bats_pipe rubric-apply "$FIXTURES/cases/missing-trace.fire.ndjson" \| \
	    jq -r 'select(.rule == "missing-trace") | .capture'
	assert_output --partial 'prof.export_chrome_trace('
}

@test "rubric-apply: a rule that does not compile is a usage error naming it" {
	cp -r "$TOP/rubric" "$BATS_TEST_TMPDIR/r"
	cat >"$BATS_TEST_TMPDIR/r/zz-broken.yaml" <<'YAML'
rules:
  - id: broken
    area: step
    confidence: low
    when: .steps.mean >
    impact: '1'
    basis: step_time
    recovers: r
    observation: o
    cause: c
    action: a
    metric: m
YAML
	run -2 --separate-stderr rubric-apply -r "$BATS_TEST_TMPDIR/r" \
	    "$FIXTURES/example.ndjson"
	assert_stderr --regexp 'zz-broken\.yaml:5: rule broken: when: .*syntax error'
	assert_output ''
}

@test "rubric-apply: a template that does not compile names its member" {
	cp -r "$TOP/rubric" "$BATS_TEST_TMPDIR/r"
	cat >"$BATS_TEST_TMPDIR/r/zz-broken.yaml" <<'YAML'
rules:
  - id: broken-text
    area: step
    confidence: low
    when: 'true'
    impact: '1'
    basis: step_time
    recovers: r
    observation: 'mean {{ .steps.mean | }}'
    cause: c
    action: a
    metric: m
YAML
	run -2 --separate-stderr rubric-apply -r "$BATS_TEST_TMPDIR/r" </dev/null
	assert_stderr --partial 'zz-broken.yaml:9: rule broken-text: observation:'
}

@test "rubric-apply: a bad rubric file is a usage error with its position" {
	mkdir "$BATS_TEST_TMPDIR/r"
	cp "$TOP/rubric/facts.jq" "$TOP/rubric/format.jq" "$TOP/rubric/thresholds.tsv" \
	    "$BATS_TEST_TMPDIR/r"
	printf 'rules:\n  - id: x\n    area: disk\n' >"$BATS_TEST_TMPDIR/r/a.yaml"
	run -2 --separate-stderr rubric-apply -r "$BATS_TEST_TMPDIR/r" </dev/null
	assert_stderr --partial 'a.yaml:2: rule x: area "disk" is not memory'
	printf 'rules:\n  - id: !!set {x}\n' >"$BATS_TEST_TMPDIR/r/a.yaml"
	run -2 --separate-stderr rubric-apply -r "$BATS_TEST_TMPDIR/r" </dev/null
	assert_stderr --partial 'a.yaml:2:9: "id" must be a string'
	printf 'rules:\n  - id: !!binary eA==\n' >"$BATS_TEST_TMPDIR/r/a.yaml"
	run -2 --separate-stderr rubric-apply -r "$BATS_TEST_TMPDIR/r" </dev/null
	assert_stderr --partial 'a.yaml:2:9: "id" must be a string'
	printf 'rules:\n  - id: x\n    when: [\n' >"$BATS_TEST_TMPDIR/r/a.yaml"
	run -2 --separate-stderr rubric-apply -r "$BATS_TEST_TMPDIR/r" </dev/null
	assert_stderr --regexp 'a\.yaml:[0-9]+:[0-9]+: '
}

@test "rubric-apply: a rule failing on the data is a data error naming it" {
	cp -r "$TOP/rubric" "$BATS_TEST_TMPDIR/r"
	cat >"$BATS_TEST_TMPDIR/r/zz-runtime.yaml" <<'YAML'
rules:
  - id: divides-strings
    area: step
    confidence: low
    when: '(.cpu.dominant_family // 0) / 2 > 0'
    impact: '1'
    basis: step_time
    recovers: r
    observation: o
    cause: c
    action: a
    metric: m
YAML
	run -1 --separate-stderr rubric-apply -r "$BATS_TEST_TMPDIR/r" \
	    "$FIXTURES/example.ndjson"
	assert_stderr --partial 'zz-runtime.yaml:2: rule divides-strings: '
	# -o names the file as well, and goes on with the next.
	mkdir "$BATS_TEST_TMPDIR/out"
	run -1 --separate-stderr rubric-apply -r "$BATS_TEST_TMPDIR/r" \
	    -o "$BATS_TEST_TMPDIR/out" "$FIXTURES/example.ndjson" \
	    "$FIXTURES/base-memory.ndjson"
	assert_stderr --regexp "^rubric-apply: $FIXTURES/example.ndjson: $BATS_TEST_TMPDIR/r/zz-runtime.yaml:2: rule divides-strings: "
	[ "$(ls "$BATS_TEST_TMPDIR/out")" = base-memory.ndjson ]
}

@test "rubric-apply: the rubric reference is generated from the rules" {
	run -0 bats_pipe rubric-apply -l \| report-md
	assert_output - <"$TOP/rubric/interpretation.md"
}

@test "rubric-apply: man page examples" {
	cd "$FIXTURES"
	run -0 bats_pipe rubric-apply example.ndjson \| \
	    jq -r '[.place, .rule, .impact.basis, .impact.fraction] | @tsv'
	assert_line --index 0 "$(printf '1\tpython-between-ops\tstep_time\t0.4463')"
	run -0 bats_pipe rubric-apply -l \| jq -r '[.id, .area] | @tsv'
	assert_line "$(printf 'oom\tmemory')"
	cd "$BATS_TEST_TMPDIR"
	mkdir runs
	cp "$FIXTURES/example.ndjson" runs/a.ndjson
	cp "$FIXTURES/base-trace.ndjson" runs/b.ndjson
	mkdir findings
	rubric-apply -o findings runs/*.ndjson
	run -0 ls findings
	assert_output $'a.ndjson\nb.ndjson'
	cmp "$FIXTURES/example.findings.ndjson" findings/a.ndjson
	rubric-apply runs/b.ndjson | cmp - findings/b.ndjson
	cp "$FIXTURES/base-memory.ndjson" runs/c.ndjson
	printf '%s\t%s\t%s\n' a.findings.ndjson runs/a.ndjson runs/b.ndjson \
	    b.findings.ndjson runs/b.ndjson runs/c.ndjson >plan
	rubric-apply -O plan
	rubric-apply runs/a.ndjson runs/b.ndjson | cmp - a.findings.ndjson
	rubric-apply runs/b.ndjson runs/c.ndjson | cmp - b.findings.ndjson
}

@test "rubric-apply: an estimate must say of what, and why that much" {
	mkdir "$BATS_TEST_TMPDIR/r"
	cp "$TOP/rubric/facts.jq" "$TOP/rubric/format.jq" "$TOP/rubric/thresholds.tsv" \
	    "$BATS_TEST_TMPDIR/r"
	printf 'rules:\n  - id: x\n    area: step\n    confidence: low\n    when: "true"\n    impact: "0.5"\n    observation: o\n    cause: c\n    action: a\n    metric: m\n' \
	    >"$BATS_TEST_TMPDIR/r/a.yaml"
	run -2 --separate-stderr rubric-apply -r "$BATS_TEST_TMPDIR/r" </dev/null
	assert_stderr --partial 'a.yaml:2:5: rule lacks "basis"'
	printf '    basis: disk_time\n' >>"$BATS_TEST_TMPDIR/r/a.yaml"
	run -2 --separate-stderr rubric-apply -r "$BATS_TEST_TMPDIR/r" </dev/null
	assert_stderr --partial 'rule x: basis "disk_time" is not step_time'
	sed -i 's/disk_time/step_time/' "$BATS_TEST_TMPDIR/r/a.yaml"
	run -2 --separate-stderr rubric-apply -r "$BATS_TEST_TMPDIR/r" </dev/null
	assert_stderr --partial 'rule lacks "recovers"'
	printf '    recovers: all of it\n' >>"$BATS_TEST_TMPDIR/r/a.yaml"
	run -0 rubric-apply -r "$BATS_TEST_TMPDIR/r" </dev/null
}

@test "rubric-apply: every rule with a measure gets a measure record, fired or not" {
	run -0 bats_pipe rubric-apply "$FIXTURES/example.ndjson" \| \
	    jq -c 'select(.kind == "measure") | [.rule, .value, .better]'
	assert_line --index 0 '["oom",null,"lower"]'
	assert_line '["fragmentation-medium",0.13969759060420134,"lower"]'
	assert_line '["low-gpu-util",0.06991166517626976,"higher"]'
	assert_line '["dataloader-share",0,"lower"]'
	assert_line '["straggler",null,"lower"]'
	# The findings carry theirs; a rule without one says null.
	run -0 bats_pipe rubric-apply "$FIXTURES/example.ndjson" \| \
	    jq -c 'select(.kind == "finding") | [.rule, .measure.better]'
	assert_line --index 0 '["python-between-ops","lower"]'
	assert_line '["missing-context",null]'
	# The rule list shows each rule's measure as written.
	run -0 bats_pipe rubric-apply -l \| jq -r 'select(.id == "dataloader-share") | .measure + " " + .better'
	assert_output '.dataloader_share lower'
}

@test "rubric-apply: better without a measure, or not lower or higher, is refused" {
	d=$BATS_TEST_TMPDIR/rubric
	mkdir "$d"
	cp "$TOP/rubric/facts.jq" "$TOP/rubric/format.jq" "$TOP/rubric/thresholds.tsv" \
	    "$d"
	cat >"$d/r.yaml" <<'YAML'
rules:
  - id: x
    area: step
    confidence: high
    when: 'true'
    impact: 'null'
    measure: .step_cv
    better: sideways
    observation: o
    cause: c
    action: a
    metric: m
YAML
	run -2 --separate-stderr rubric-apply -r "$d" "$FIXTURES/example.ndjson"
	assert_stderr --partial 'rule x: better must be lower or higher, with a measure'
	sed -i '/measure:/d; s/sideways/lower/' "$d/r.yaml"
	run -2 --separate-stderr rubric-apply -r "$d" "$FIXTURES/example.ndjson"
	assert_stderr --partial 'rule x: better must be lower or higher, with a measure'
	sed -i '/better:/d; s/^    metric: m/    metric: m\n    measure: .step_cv/' "$d/r.yaml"
	run -2 --separate-stderr rubric-apply -r "$d" "$FIXTURES/example.ndjson"
	assert_stderr --partial 'better'
	sed -i 's/^    measure: .step_cv/    measure: .step_cv |/; $a\    better: lower' "$d/r.yaml"
	run -2 --separate-stderr rubric-apply -r "$d" "$FIXTURES/example.ndjson"
	assert_stderr --partial 'measure'
}

@test "rubric-apply: a text written as cases says the case its expression names" {
	d=$BATS_TEST_TMPDIR/rubric
	mkdir "$d"
	cp "$TOP/rubric/facts.jq" "$TOP/rubric/format.jq" "$TOP/rubric/thresholds.tsv" \
	    "$d"
	cat >"$d/r.yaml" <<'YAML'
rules:
  - id: x
    area: step
    confidence: high
    when: 'true'
    impact: 'null'
    observation: o
    cause:
      case: if .has_steps then "steps" else "window" end
      steps: >-
        {{ .has_steps }} steps
      window: one window
    action: a
    metric: m
YAML
	run -0 bats_pipe rubric-apply -r "$d" "$FIXTURES/example.ndjson" \| \
	    jq -r 'select(.rule == "x") | .cause'
	assert_output "true steps"
	# The rule record lists the cases for the reference.
	run -0 bats_pipe rubric-apply -r "$d" -l \| jq -c '.cause'
	assert_output '{"case":"if .has_steps then \"steps\" else \"window\" end","cases":{"steps":"{{ .has_steps }} steps","window":"one window"}}'
	run -0 bats_pipe rubric-apply -r "$d" -l \| report-md
	assert_line '- **Hypothesis:** by `if .has_steps then "steps" else "window" end`:'
	assert_line '  - `steps`: {{ .has_steps }} steps'
	# A case with no text is the rule's data error; no case, or no text
	# at all, is the rubric's usage error at its line.
	sed -i 's/"steps" else/"many" else/' "$d/r.yaml"
	run -1 --separate-stderr rubric-apply -r "$d" "$FIXTURES/example.ndjson"
	assert_stderr --partial 'r.yaml:2: rule x: cause: no text for the case "many"'
	sed -i '/case: if/d' "$d/r.yaml"
	run -2 --separate-stderr rubric-apply -r "$d" "$FIXTURES/example.ndjson"
	assert_stderr --partial 'r.yaml:9:7: rule lacks "case"'
	printf 'rules:\n  - id: x\n    cause:\n      case: .a\n' >"$d/r.yaml"
	sed -i '2a\    area: step\n    confidence: high\n    when: "true"\n    impact: "null"\n    observation: o' "$d/r.yaml"
	run -2 --separate-stderr rubric-apply -r "$d" "$FIXTURES/example.ndjson"
	assert_stderr --partial 'rule x: cause: no case has a text'
}

@test "rubric-apply: a threshold edited in thresholds.tsv changes what fires" {
	r=$BATS_TEST_TMPDIR/r
	cp -r "$TOP/rubric" "$r"
	fired() {
		rubric-apply -r "$r" "$FIXTURES/$1" |
		    jq -r --arg r "$2" 'select(.kind == "finding" and .rule == $r) | .rule'
	}
	# The BERT trace launches 61 kernels; facts.jq's launch_bound asks for
	# 50 or more.
	run -0 fired base-trace.ndjson launch-bound
	assert_output launch-bound
	sed -i 's/^launch_kernels_min\t50\t/launch_kernels_min\t61\t/' "$r/thresholds.tsv"
	run -0 fired base-trace.ndjson launch-bound
	assert_output launch-bound
	sed -i 's/^launch_kernels_min\t61\t/launch_kernels_min\t62\t/' "$r/thresholds.tsv"
	run -0 fired base-trace.ndjson launch-bound
	assert_output ''
	# The DLRM ranks wait 9.1 % of their steps for input: above the rule's
	# 5 %, not above 10 %.
	run -0 fired base-ranks.ndjson dataloader-share
	assert_output dataloader-share
	sed -i 's/^dataloader_share_min\t0.05\t/dataloader_share_min\t0.1\t/' "$r/thresholds.tsv"
	run -0 fired base-ranks.ndjson dataloader-share
	assert_output ''
	# The listing says the value the rule now fires at.
	run -0 bats_pipe rubric-apply -r "$r" -l \| \
	    jq -r 'select(.id == "dataloader-share") | .when'
	assert_output '.has_iterations and (.dataloader_share > 0.1)'
}

@test "rubric-apply: the listing writes each threshold's value, not its name" {
	# The rules name their thresholds; the listing says the values.
	run -0 grep -c '\$th\.' "$TOP/rubric/time.yaml"
	run -0 rubric-apply -l
	refute_output --partial '$th'
	run -0 bats_pipe rubric-apply -l \| \
	    jq -r 'select(.id == "nearby-sizes" or .id == "graph-capture") | .when'
	assert_output - <<'OUT'
([.churn.size_histogram[]? | select(.from >= 1048576 and .allocs >= 64)] | length > 0) and ((.split_fragmentation // 0) >= 0.05) and (.roundup_set | not)
.capture_share >= 0.05
OUT
	run -0 bats_pipe rubric-apply -l \| \
	    jq -r 'select(.id == "nearby-sizes") | .evidence.band'
	assert_output '[.churn.size_histogram[] | select(.from >= 1048576)] | max_by(.allocs) | {from, to, allocs}'
}

@test "rubric-apply: a bad row of thresholds.tsv is a usage error at its line and column" {
	r=$BATS_TEST_TMPDIR/r
	cp -r "$TOP/rubric" "$r"
	cp "$r/thresholds.tsv" "$BATS_TEST_TMPDIR/good.tsv"
	n=$(($(wc -l <"$r/thresholds.tsv") + 1))
	bad() {
		cp "$BATS_TEST_TMPDIR/good.tsv" "$r/thresholds.tsv"
		printf '%b' "$1" >>"$r/thresholds.tsv"
		run -2 --separate-stderr rubric-apply -r "$r" "$FIXTURES/example.ndjson"
		assert_output ''
		assert_stderr "rubric-apply: $r/thresholds.tsv:$n:$2"
		# The listing, and the report, which read the rubric too.
		run -2 --separate-stderr rubric-apply -r "$r" -l
		assert_stderr "rubric-apply: $r/thresholds.tsv:$n:$2"
		run -2 --separate-stderr report-md -r "$r" "$FIXTURES/example.ndjson"
		assert_stderr "report-md: $r/thresholds.tsv:$n:$2"
	}
	bad 'x_min\tabc\tcalls\thouse\n' '7: x_min: "abc" is not a finite decimal number'
	bad 'x_min\t.5\tcalls\thouse\n' '7: x_min: ".5" is not a finite decimal number'
	bad 'x_min\t1e400\tcalls\thouse\n' '7: x_min: "1e400" is not a finite decimal number'
	l=$(grep -n '^gpu_util_max' "$BATS_TEST_TMPDIR/good.tsv" | cut -d: -f1)
	bad 'gpu_util_max\t0.4\tfraction\thouse\n' "1: threshold gpu_util_max is already on line $l"
	bad '2fast\t1\tcalls\thouse\n' "1: \"2fast\" is not a name: letters, digits and '_', not starting with a digit"
	bad 'x-min\t1\tcalls\thouse\n' "1: \"x-min\" is not a name: letters, digits and '_', not starting with a digit"
	bad 'x_min\t1\tcalls\n' '14: no source column: a row is name, value, unit and source, separated by tabs'
	bad 'x_min\t1\n' '8: no unit column: a row is name, value, unit and source, separated by tabs'
	bad 'x_min\t1\tcalls\t\n' '15: empty source'
	bad 'x_min\t1\tcalls\thouse\tmore\n' '21: more than four columns: a row is name, value, unit and source, separated by tabs'
	# No thresholds.tsv at all: the rules that name one cannot be read.
	rm "$r/thresholds.tsv"
	run -2 --separate-stderr rubric-apply -r "$r" "$FIXTURES/example.ndjson"
	assert_stderr --partial "rubric-apply: $r/thresholds.tsv: "
	run -2 --separate-stderr report-md -r "$r" "$FIXTURES/example.ndjson"
	assert_stderr --partial "report-md: $r/thresholds.tsv: "
}

@test "rubric-apply: a threshold that thresholds.tsv lacks is refused, named, when the rubric is loaded" {
	r=$BATS_TEST_TMPDIR/r
	cp -r "$TOP/rubric" "$r"
	cat >"$r/zz-th.yaml" <<'YAML'
rules:
  - id: misspelt
    area: step
    confidence: low
    when: .step_cv > $th.step_cv_mni
    impact: 'null'
    observation: o
    cause: c
    action: a
    metric: m
YAML
	run -2 --separate-stderr rubric-apply -r "$r" "$FIXTURES/example.ndjson"
	assert_output ''
	assert_stderr "rubric-apply: $r/zz-th.yaml:5: rule misspelt: when: \$th.step_cv_mni: no such threshold in thresholds.tsv"
	run -2 --separate-stderr rubric-apply -r "$r" -l
	assert_stderr --partial 'rule misspelt: when: $th.step_cv_mni: no such threshold'
	# In a template, and in the facts, as well.
	sed -i 's/\$th.step_cv_mni/$th.step_cv_min/; s/observation: o/observation: "{{ $th.cv_max }}"/' \
	    "$r/zz-th.yaml"
	run -2 --separate-stderr rubric-apply -r "$r" -l
	assert_stderr "rubric-apply: $r/zz-th.yaml:7: rule misspelt: observation: \$th.cv_max: no such threshold in thresholds.tsv"
	rm "$r/zz-th.yaml"
	printf 'def unknown:\n  1 + $th.nope;\n' >>"$r/facts.jq"
	n=$(wc -l <"$r/facts.jq")
	run -2 --separate-stderr rubric-apply -r "$r" -l
	assert_stderr "rubric-apply: $r/facts.jq:$n:7: \$th.nope: no such threshold in thresholds.tsv"
	run -2 --separate-stderr report-md -r "$r" "$FIXTURES/example.ndjson"
	assert_stderr "report-md: $r/facts.jq:$n:7: \$th.nope: no such threshold in thresholds.tsv"
}
