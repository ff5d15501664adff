bats_require_minimum_version 1.5.0

# op-rank in bounded memory: events beyond MRP_OP_RANK_MEMORY go to sorted
# runs in a temporary file, which must change nothing in the output.

setup() {
	load test_helper
	export MRP_RUBRIC="$TOP/rubric"
	FIXTURES="$TOP/fixtures/op-rank"
	mkdir "$BATS_TEST_TMPDIR/tmp"
	export TMPDIR="$BATS_TEST_TMPDIR/tmp"
}

# The records of $1 (tr-extract output) through op-rank with the default
# budget and with one so small that every kind of event spills; the two
# outputs must be the same bytes, and no temporary file may be left.
same_spilled() {
	local in=$1
	shift
	op-rank "$@" "$in" > "$BATS_TEST_TMPDIR/whole"
	MRP_OP_RANK_MEMORY=2048 op-rank "$@" "$in" > "$BATS_TEST_TMPDIR/spilled"
	cmp "$BATS_TEST_TMPDIR/whole" "$BATS_TEST_TMPDIR/spilled"
	[ -s "$BATS_TEST_TMPDIR/whole" ]
	[ -z "$(ls -A "$TMPDIR")" ]
}

@test "spilling changes nothing on the op-rank fixtures, with -p and --partial" {
	for t in cnn_sgd_s lstm_infer_m sampled_rank-0 step_based_trace; do
		tr-extract "$FIXTURES/$t.json.gz" > "$BATS_TEST_TMPDIR/in"
		same_spilled "$BATS_TEST_TMPDIR/in"
		same_spilled "$BATS_TEST_TMPDIR/in" -p backward
		same_spilled "$BATS_TEST_TMPDIR/in" --partial
	done
}

@test "spilling changes nothing on the torch-cpu traces in ../shared" {
	need_shared torch-cpu
	for ka in "$SHARED"/torch-cpu/*.keyavg.json; do
		t=${ka%.keyavg.json}.json
		[ -e "$t" ] || t=$t.gz
		tr-extract "$t" > "$BATS_TEST_TMPDIR/in"
		same_spilled "$BATS_TEST_TMPDIR/in"
	done
}

@test "spilling changes nothing on the Kineto traces in ../shared" {
	need_shared traces/kineto
	for t in "$SHARED"/traces/kineto/*.pt.trace.json.gz; do
		tr-extract "$t" > "$BATS_TEST_TMPDIR/in"
		same_spilled "$BATS_TEST_TMPDIR/in"
		same_spilled "$BATS_TEST_TMPDIR/in" -p forward
	done
}

@test "spilling changes nothing on the eight DLRM ranks in ../shared" {
	need_shared traces/param_dlrm_8rank
	tr-extract "$SHARED"/traces/param_dlrm_8rank/*.json > "$BATS_TEST_TMPDIR/in"
	same_spilled "$BATS_TEST_TMPDIR/in"
	same_spilled "$BATS_TEST_TMPDIR/in" -p communication
}

@test "a badly out-of-order trace gives the same with and without spilling" {
	local t="$SHARED/traces/kineto/resnet50_nw0_worker0.1623143089861.pt.trace.json.gz"
	need_shared traces/kineto/resnet50_nw0_worker0.1623143089861.pt.trace.json.gz
	tr-extract "$t" > "$BATS_TEST_TMPDIR/x"
	# Every event anywhere: a fixed shuffle, the trace record last.
	{
		grep -v '"kind":"trace"' "$BATS_TEST_TMPDIR/x" |
		    shuf --random-source=<(yes)
		grep '"kind":"trace"' "$BATS_TEST_TMPDIR/x"
	} > "$BATS_TEST_TMPDIR/in"
	! cmp -s "$BATS_TEST_TMPDIR/x" "$BATS_TEST_TMPDIR/in"
	same_spilled "$BATS_TEST_TMPDIR/in"
	same_spilled "$BATS_TEST_TMPDIR/in" -p backward
	# Reordered, the trace still has every event.
	op-rank "$BATS_TEST_TMPDIR/x" | jq -c 'select(.kind == "cpu_summary")
	    | .events' > "$BATS_TEST_TMPDIR/a"
	op-rank "$BATS_TEST_TMPDIR/in" | jq -c 'select(.kind == "cpu_summary")
	    | .events' > "$BATS_TEST_TMPDIR/b"
	cmp "$BATS_TEST_TMPDIR/a" "$BATS_TEST_TMPDIR/b"
}

@test "peak memory does not grow with the trace" {
	[ -x /usr/bin/time ] || skip "no GNU time"
	# 400,000 operators on one thread, ten to a step, and their kernels.
	awk 'BEGIN {
		for (i = 0; i < 40000; i++) {
			t = i * 100
			printf "{\"kind\":\"event\",\"name\":\"ProfilerStep#%d\",\"cat\":\"user_annotation\",\"pid\":1,\"tid\":1,\"ts\":%d,\"dur\":99}\n", i, t
			for (j = 0; j < 9; j++) {
				printf "{\"kind\":\"event\",\"name\":\"aten::op%d\",\"cat\":\"cpu_op\",\"pid\":1,\"tid\":1,\"ts\":%d,\"dur\":9}\n", j, t + j * 10
				printf "{\"kind\":\"event\",\"name\":\"cudaLaunchKernel\",\"cat\":\"cuda_runtime\",\"pid\":1,\"tid\":1,\"ts\":%d,\"dur\":1,\"correlation\":%d}\n", t + j * 10 + 1, i * 9 + j
				printf "{\"kind\":\"event\",\"name\":\"k%d\",\"cat\":\"kernel\",\"pid\":0,\"tid\":7,\"device\":0,\"ts\":%d,\"dur\":5,\"correlation\":%d}\n", j, t + j * 10 + 3, i * 9 + j
			}
		}
		print "{\"kind\":\"trace\",\"rank\":null,\"origin_ns\":0,\"start\":0,\"end\":4000000}"
	}' > "$BATS_TEST_TMPDIR/in"
	MRP_OP_RANK_MEMORY=1048576 /usr/bin/time -f '%M' -o "$BATS_TEST_TMPDIR/kb" \
	    op-rank "$BATS_TEST_TMPDIR/in" > "$BATS_TEST_TMPDIR/spilled"
	op-rank "$BATS_TEST_TMPDIR/in" > "$BATS_TEST_TMPDIR/whole"
	cmp "$BATS_TEST_TMPDIR/whole" "$BATS_TEST_TMPDIR/spilled"
	# Kept whole, these events need more than 40 MB.  A sanitizer's
	# shadow memory is not op-rank's.
	sanitized op-rank || [ "$(tail -n 1 "$BATS_TEST_TMPDIR/kb")" -lt 16384 ]
	[ -z "$(ls -A "$TMPDIR")" ]
}

@test "a million steps stay within the budget, one pass or merged, with the figures they have whole" {
	[ -x /usr/bin/time ] || skip "no GNU time"
	local t=$BATS_TEST_TMPDIR
	# A million steps of 50 to 86 µs, one every 100 µs: held whole, as
	# they were, 150 MB; merged from a partial, 230 MB.
	awk 'BEGIN { for (i = 0; i < 1000000; i++)
	    printf "{\"kind\":\"event\",\"name\":\"ProfilerStep#%d\",\"cat\":\"user_annotation\",\"pid\":1,\"tid\":1,\"ts\":%d,\"dur\":%d}\n", i, i * 100, 50 + i % 37
	    print "{\"kind\":\"trace\",\"rank\":0,\"origin_ns\":0,\"start\":0,\"end\":100000000}" }' |
	    gzip -1 >"$t/in.gz"
	op-rank "$t/in.gz" | sha256sum >"$t/whole"
	MRP_OP_RANK_MEMORY=1048576 /usr/bin/time -f '%M' -o "$t/kb" \
	    op-rank "$t/in.gz" | sha256sum >"$t/spilled"
	cmp "$t/whole" "$t/spilled"
	sanitized op-rank || [ "$(tail -n 1 "$t/kb")" -lt 16384 ]
	op-rank --partial "$t/in.gz" |
	    MRP_OP_RANK_MEMORY=1048576 /usr/bin/time -f '%M' -o "$t/kb" \
	    op-rank --merge | sha256sum >"$t/merged"
	cmp "$t/whole" "$t/merged"
	sanitized op-rank || [ "$(tail -n 1 "$t/kb")" -lt 16384 ]
	[ -z "$(ls -A "$TMPDIR")" ]
	# The statistics are the steps' own, as awk sums and sorts them.
	run -0 bats_pipe op-rank "$t/in.gz" \| grep '"kind":"step_stats"'
	assert_output - < <(gzip -dc "$t/in.gz" | awk -F '"dur":' '
	    NF == 2 { d = $2 + 0; n++; sum += d; sq += d * d; c[d]++
	        if (n == 1 || d > max) { max = d; slow = n - 1 } if (n == 1 || d < min) min = d }
	    END { mean = sum / n
	        for (v = min; v <= max; v++) for (k = 0; k < c[v]; k++) {
	            if (m == int((n - 1) / 2)) lo = v; if (m == int(n / 2)) hi = v; m++ }
	        med = (lo + hi) / 2
	        for (v = min; v <= max; v++) if (v > med) above += (v - med) * c[v]
	        printf "{\"kind\":\"step_stats\",\"rank\":0,\"steps\":%d,\"total\":%d,\"mean\":%d,\"min\":%d,\"max\":%d,\"std\":%.3f,\"median\":%d,\"above_median\":%d,\"slowest_step\":%d}\n",
	            n, sum, mean + 0.5, min, max, sqrt(sq / n - mean * mean), med, above, slow }')
}

@test "a temporary file that cannot be written is an error, not a crash" {
	tr-extract "$FIXTURES/cnn_sgd_s.json.gz" > "$BATS_TEST_TMPDIR/in"
	# The limit on op-rank alone: bats keeps what it captures in files.
	# The first run is written by the tool, the later ones on a thread
	# of their own: at 0 KiB the first write fails, at 64 KiB a later
	# one (of 720 KiB, in 110 runs), and either is told once.
	for kib in 0 64; do
		MRP_OP_RANK_MEMORY=2048 run -1 bash -c 'set -o pipefail
		    (ulimit -f "$2"; exec op-rank "$1" > /dev/null) 2>&1 |
		    cat' - "$BATS_TEST_TMPDIR/in" "$kib"
		assert_output 'op-rank: temporary file: write: File too large'
		[ -z "$(ls -A "$TMPDIR")" ]
	done
	TMPDIR="$BATS_TEST_TMPDIR/none" MRP_OP_RANK_MEMORY=2048 run -1 \
	    --separate-stderr op-rank "$BATS_TEST_TMPDIR/in"
	assert_stderr --partial 'cannot make a temporary file: No such file'
	# What fits in the budget needs no temporary file at all.
	TMPDIR="$BATS_TEST_TMPDIR/none" run -0 op-rank "$BATS_TEST_TMPDIR/in"
}

@test "MRP_OP_RANK_MEMORY must be a number of bytes" {
	MRP_OP_RANK_MEMORY=lots run -2 --separate-stderr op-rank /dev/null
	assert_stderr 'op-rank: MRP_OP_RANK_MEMORY is invalid: lots'
	MRP_OP_RANK_MEMORY=0 run -2 --separate-stderr op-rank /dev/null
	assert_stderr 'op-rank: MRP_OP_RANK_MEMORY is too small: 0'
}

# A trace of $1 operators of 5 µs: on threads 1 to $1, one each, with
# "tids"; on one thread, each with a name of its own, with "names".
many() {
	awk -v n="$1" -v mode="$2" 'BEGIN {
		printf "{\"traceEvents\":["
		for (i = 1; i <= n; i++)
			printf "%s{\"ph\":\"X\",\"cat\":\"cpu_op\"," \
			    "\"name\":\"aten::op%s\",\"pid\":1,\"tid\":%d," \
			    "\"ts\":%d,\"dur\":5}\n", (i > 1 ? "," : ""),
			    (mode == "names" ? i : ""),
			    (mode == "tids" ? i : 1), i * 10
		print "]}"
	}'
}

# Sums what op-rank writes: its records of kind $1, their counts and
# their field $2, then the events and self time of its cpu_summary.
sum_of() {
	jq -nc --arg k "$1" --arg f "$2" 'reduce inputs as $r
	    ([0, 0, 0, null, null]; if $r.kind == $k then
		[.[0] + 1, .[1] + $r.count, .[2] + $r[$f], .[3], .[4]]
	    elif $r.kind == "cpu_summary" then
		[.[0], .[1], .[2], $r.events, $r.self_total]
	    else . end)'
}

@test "a million threads fit in 64 MiB, those past the budget summed as one" {
	# The sums of every thread were kept, outside the budget: 500 MB for
	# these, then 280 MB for the trace's table of threads.  Now 32,768
	# threads are kept apart (16 MiB, the least share, at 512 bytes each)
	# and the others are known by a digest while nesting, then go to one
	# record.
	run -0 bats_pipe many 1000000 tids \| tr-extract \| \
	    limited 65536 op-rank \| sum_of thread_total busy
	assert_output '[32769,1000000,5000000,1000000,5000000]'
}

@test "ten million operator names fit in 64 MiB, those past the budget summed as one" {
	# Every name was kept, outside the budget: 3.2 GB for these.  Now
	# the first 62,410 names (16 MiB, the least share, at 256 bytes
	# and their text each) are kept apart and the others go to one record.
	run -0 bats_pipe many 10000000 names \| tr-extract \| \
	    limited 65536 op-rank \| sum_of op self
	assert_output '[62411,10000000,50000000,10000000,50000000]'
}

@test "threads past the budget nest as their own: every sum but the threads' is the same" {
	# Per thread: aten::linear over aten::mm, which launches a kernel.
	# Past the first 32,768 threads a thread is known by a digest of its
	# pid and tid, and still nested alone.
	awk -v n=50000 'BEGIN {
		printf "{\"traceEvents\":["
		for (i = 1; i <= n; i++) {
			t = i * 100
			printf "%s{\"ph\":\"X\",\"cat\":\"cpu_op\"," \
			    "\"name\":\"aten::linear\",\"pid\":1,\"tid\":%d," \
			    "\"ts\":%d,\"dur\":50}\n", (i > 1 ? "," : ""), i, t
			printf ",{\"ph\":\"X\",\"cat\":\"cpu_op\"," \
			    "\"name\":\"aten::mm\",\"pid\":1,\"tid\":%d," \
			    "\"ts\":%d,\"dur\":20}\n", i, t + 10
			printf ",{\"ph\":\"X\",\"cat\":\"cuda_runtime\"," \
			    "\"name\":\"cudaLaunchKernel\",\"pid\":1," \
			    "\"tid\":%d,\"ts\":%d,\"dur\":5," \
			    "\"args\":{\"correlation\":%d}}\n", i, t + 15, i
			printf ",{\"ph\":\"X\",\"cat\":\"kernel\"," \
			    "\"name\":\"gemm_kernel\",\"pid\":0,\"tid\":7," \
			    "\"ts\":%d,\"dur\":30,\"args\":" \
			    "{\"correlation\":%d,\"device\":0}}\n", t + 30, i
		}
		print "]}"
	}' | tr-extract > "$BATS_TEST_TMPDIR/in"
	op-rank "$BATS_TEST_TMPDIR/in" | jq -c 'select(.kind != "warning" and
	    .kind != "thread_total") | del(.top_threads)' \
	    > "$BATS_TEST_TMPDIR/past"
	MRP_OP_RANK_MEMORY=1073741824 op-rank "$BATS_TEST_TMPDIR/in" |
	    jq -c 'select(.kind != "thread_total") | del(.top_threads)' \
	    > "$BATS_TEST_TMPDIR/all"
	cmp "$BATS_TEST_TMPDIR/past" "$BATS_TEST_TMPDIR/all"
	# aten::mm's 20 µs less the cudaLaunchKernel it issues, a row of its
	# own as key_averages() has it.
	run -0 jq -c 'select(.name == "aten::mm") | [.self, .gpu_self]' \
	    "$BATS_TEST_TMPDIR/past"
	assert_output '[750000,1500000]'
}

# A trace of $1 kernels of 5 µs, each with a name of its own: GEMM,
# NCCL, elementwise and copy kernels in turn.
kernels() {
	awk -v n="$1" 'BEGIN {
		split("ampere_bf16_s16816gemm_ ncclDevKernel_AllReduce_ " \
		    "elementwise_kernel_ Memcpy_HtoD_", kind, " ")
		printf "{\"traceEvents\":["
		for (i = 1; i <= n; i++)
			printf "%s{\"ph\":\"X\",\"cat\":\"kernel\"," \
			    "\"name\":\"%s%d\",\"pid\":0,\"tid\":7," \
			    "\"ts\":%d,\"dur\":5,\"args\":{\"device\":0}}\n",
			    (i > 1 ? "," : ""), kind[i % 4 + 1], i, i * 10
		print "]}"
	}'
}

@test "a million kernel names fit in 64 MiB, those past the budget summed by family and precision" {
	# Kernel names were never summed away: 320 MB for these.  Their sums
	# keep what the timeline, phases and precision read from a name.
	kernels 1000000 | tr-extract > "$BATS_TEST_TMPDIR/in"
	limited 65536 op-rank "$BATS_TEST_TMPDIR/in" > "$BATS_TEST_TMPDIR/one"
	run -0 jq -c 'select(.kind == "kernel" and (.name | startswith("(")))
	    | [.name, .family, .count]' "$BATS_TEST_TMPDIR/one"
	assert_output - <<-'EOF'
	["(other kernels: gemm, bf16)","gemm",235038]
	["(other kernels: communication)","communication",235037]
	["(other kernels: elementwise)","elementwise",235037]
	["(other kernels: memcpy)","memcpy",235037]
	EOF
	MRP_OP_RANK_MEMORY=2147483648 op-rank "$BATS_TEST_TMPDIR/in" \
	    > "$BATS_TEST_TMPDIR/all"
	# Who spent each slice names kernels too: detail, as kernel records.
	jq -c 'select(.kind != "kernel" and .kind != "warning")
	    | del(.slices[]?.top)' \
	    "$BATS_TEST_TMPDIR/one" > "$BATS_TEST_TMPDIR/one.rest"
	jq -c 'select(.kind != "kernel") | del(.slices[]?.top)' \
	    "$BATS_TEST_TMPDIR/all" | diff "$BATS_TEST_TMPDIR/one.rest" -
	op-rank --partial "$BATS_TEST_TMPDIR/in" > "$BATS_TEST_TMPDIR/p"
	op-rank --merge "$BATS_TEST_TMPDIR/p" | cmp - "$BATS_TEST_TMPDIR/one"
}

@test "a hundred thousand devices fit in 128 MiB: their timelines share one spill" {
	# Each device's timeline had a buffer of its own, outside the budget:
	# 4.6 KB a device, 460 MB for these.
	awk -v n=100000 'BEGIN {
		printf "{\"traceEvents\":["
		for (i = 1; i <= n; i++)
			printf "%s{\"ph\":\"X\",\"cat\":\"kernel\"," \
			    "\"name\":\"k\",\"pid\":%d,\"tid\":7,\"ts\":%d," \
			    "\"dur\":5,\"args\":{\"device\":%d}}\n",
			    (i > 1 ? "," : ""), i, i * 10, i
		print "]}"
	}' | tr-extract > "$BATS_TEST_TMPDIR/in"
	limited 131072 op-rank "$BATS_TEST_TMPDIR/in" > "$BATS_TEST_TMPDIR/out"
	run -0 jq -sc 'map(select(.kind == "gpu_timeline")) |
	    [length, (map(.busy) | add)]' "$BATS_TEST_TMPDIR/out"
	assert_output '[100000,500000]'
}

@test "names and threads past the budget: one record each, a warning, the same through --partial and --merge" {
	local m
	for m in names tids; do
		many 100000 $m | tr-extract > "$BATS_TEST_TMPDIR/in"
		op-rank "$BATS_TEST_TMPDIR/in" > "$BATS_TEST_TMPDIR/one"
		op-rank --partial "$BATS_TEST_TMPDIR/in" > "$BATS_TEST_TMPDIR/p"
		op-rank --merge "$BATS_TEST_TMPDIR/p" > "$BATS_TEST_TMPDIR/merged"
		cmp "$BATS_TEST_TMPDIR/one" "$BATS_TEST_TMPDIR/merged"
		# A larger budget keeps every one apart, with no warning.
		MRP_OP_RANK_MEMORY=1073741824 op-rank "$BATS_TEST_TMPDIR/in" |
		    jq -c 'select(.kind == "warning")' > "$BATS_TEST_TMPDIR/w"
		[ ! -s "$BATS_TEST_TMPDIR/w" ]
	done
	run -0 jq -c 'select(.kind == "warning" or
	    .name == "(other threads)") | del(.kind, .tool)' \
	    "$BATS_TEST_TMPDIR/one"
	assert_output - <<-'EOF'
	{"file":null,"line":null,"col":null,"message":"67232 threads that did not fit in MRP_OP_RANK_MEMORY are summed as (other threads); a larger budget keeps them apart"}
	{"name":"(other threads)","threads":67232,"busiest":5,"count":67232,"busy":336160}
	EOF
	many 100000 names | tr-extract | op-rank > "$BATS_TEST_TMPDIR/one"
	run -0 jq -c 'select(.kind == "warning" or
	    .name == "(other operators)") | {message, name, count}' \
	    "$BATS_TEST_TMPDIR/one"
	assert_output - <<-'EOF'
	{"message":"37590 events of names that did not fit in MRP_OP_RANK_MEMORY are summed as (other operators); a larger budget keeps their names","name":null,"count":null}
	{"message":null,"name":"(other operators)","count":37590}
	EOF
}

@test "a name known before the budget ran out keeps its own sums" {
	# Names 1 to 100,000 once, then name 1 and thread 1 again, and a
	# ProfilerStep, whose name marks a phase and is never summed away.
	{
		many 100000 names | head -n -1
		printf ',{"ph":"X","cat":"cpu_op","name":"aten::op1","pid":1,"tid":1,"ts":2000000,"dur":7}\n'
		printf ',{"ph":"X","cat":"user_annotation","name":"Optimizer.step#SGD.step","pid":1,"tid":1,"ts":2000010,"dur":3}\n'
		printf ',{"ph":"X","cat":"cpu_op","name":"aten::op99999","pid":1,"tid":1,"ts":2000020,"dur":1}\n]}\n'
	} | tr-extract > "$BATS_TEST_TMPDIR/in"
	run -0 jq -c 'select(.kind == "op" and (.name == "aten::op1" or
	    .name == "aten::op99999" or (.name | startswith("Optimizer"))))
	    | [.name, .count, .total]' < <(op-rank "$BATS_TEST_TMPDIR/in")
	assert_output - <<-'EOF'
	["aten::op1",2,12]
	["Optimizer.step#SGD.step",1,3]
	EOF
	run -0 jq -c 'select(.kind == "phase_total" and .phase == "optimizer")
	    | .self' < <(op-rank "$BATS_TEST_TMPDIR/in")
	assert_output 3
}

@test "two hundred thousand Python frames that cross or nest deep: the ledger is whole, who spent it bounded" {
	# Who spent a slice is found on a stack of the intervals open; these
	# make it as deep as the trace, or cross so that none closes in order.
	# The stack keeps its last intervals and searches look a bounded depth.
	local kind
	for kind in deep cross; do
		awk -v n=200000 -v k=$kind 'BEGIN {
			printf "{\"traceEvents\":[{\"ph\":\"X\",\"cat\":\"user_annotation\","
			printf "\"name\":\"ProfilerStep#1\",\"pid\":1,\"tid\":1,\"ts\":0,\"dur\":%d}", 4 * n
			for (i = 1; i <= n; i++)
				printf ",{\"ph\":\"X\",\"cat\":\"python_function\",\"name\":\"f.py(%d): g\"," \
				    "\"pid\":1,\"tid\":1,\"ts\":%d,\"dur\":%d}\n", i % 1000, i,
				    k == "deep" ? 2 * n + 1 - i : n
			print "]}"
		}' | tr-extract >"$BATS_TEST_TMPDIR/$kind"
		run -0 --separate-stderr op-rank "$BATS_TEST_TMPDIR/$kind"
		run -0 jq -s 'map(select(.kind == "ledger_total")) | .[0]
		    | ([.slices[].time] | add) == .wall and .wall == 800000' <<<"$output"
		assert_output true
	done
}
