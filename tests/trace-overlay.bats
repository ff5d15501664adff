#!/usr/bin/env bats
bats_require_minimum_version 1.5.0

setup() {
	load test_helper
	TRACES=$TOP/fixtures/crit-path
	T=$BATS_TEST_TMPDIR
}

ALEXNET='[param|pytorch.model.alex_net|0|0|0|measure|forward]'

# What HTA's overlay holds, as fixtures/trace-overlay lists it: each event
# marked critical and each flow, sorted.
marked_and_flows() {
	jq -r '.traceEvents[] |
	    if .ph == "X" and .args.critical == 1 then
		["event", .name, .pid, .tid, .ts]
	    elif .cat == "critical_path" and (.ph == "s" or .ph == "f") then
		["flow", .ph, .pid, .tid, .ts, .args.type,
		    (if .args.critical then 1 else 0 end), .args.weight]
	    else empty end | map(tostring) | join("\t")' | LC_ALL=C sort
}

# crit-path's records for trace $1 (in fixtures/crit-path), options after.
records() {
	local f=$1
	shift
	tr-extract "$TRACES/$f" | crit-path "$@"
}

# tr-extract's records of an overlay without what the overlay added, and
# without the closing "trace" record (its counts include them).
read_back() {
	tr-extract "$1" |
	    grep -v '"cat":"critical_path"\|"cat":"mrp"\|"name":"critical path\|^{"kind":"trace"'
}

@test "usage error exits 2 with the synopsis" {
	run -2 --separate-stderr trace-overlay
	assert_stderr --partial 'usage: trace-overlay [-ap] [-r rank] trace records ...'
	run -2 --separate-stderr trace-overlay "$TRACES/hta_simple_add.json.gz"
	run -2 --separate-stderr trace-overlay -r x a b
	assert_stderr --partial '-r'
	run -2 --separate-stderr trace-overlay - -
	assert_stderr --partial 'both be standard input'
}

@test "empty records: the trace passes through, event for event" {
	run -0 --separate-stderr trace-overlay -p "$TRACES/hta_cuda_event_sync.json.gz" /dev/null
	echo "$output" > "$T/ov.json"
	# Every event as it was, in order, then the counters alone.
	diff <(zcat "$TRACES/hta_cuda_event_sync.json.gz" | jq -c '.traceEvents[]') \
	    <(jq -c '.traceEvents[] | select(.cat != "mrp")' "$T/ov.json")
	run -0 jq -r '[.traceEvents[] | select(.cat == "mrp") | .ph] | unique | join(",")' "$T/ov.json"
	assert_output 'C'
	run -0 jq -r 'keys_unsorted | join(",")' "$T/ov.json"
	assert_output 'schemaVersion,deviceProperties,distributedInfo,traceEvents'
}

@test "HTA's overlay on simple_add: its marked events and flows, and the counts its tests assert" {
	records hta_simple_add.json.gz -a -w "$ALEXNET:1" > "$T/rec"
	trace-overlay -a "$TRACES/hta_simple_add.json.gz" "$T/rec" > "$T/all.json.gz"
	zcat "$T/all.json.gz" | marked_and_flows |
	    diff <(grep -v '^#' "$FIXTURES/hta_simple_add.overlay.tsv") -
	# test_critical_path_overlaid_trace: 159 events, 314 critical edges;
	# each type's flows twice its edges (zero-weight launches aside).
	run -0 bash -c "zcat '$T/all.json.gz' | jq -c '[
	    ([.traceEvents[] | select(.ph == \"X\") | .args.critical // 0] | add),
	    ([.traceEvents[] | select(.ph == \"f\") | .args.critical // false | select(.)] | length)]'"
	assert_output '[159,314]'
	run -0 bash -c "zcat '$T/all.json.gz' | jq -r '.traceEvents[] | .args.type // empty |
	    select(startswith(\"critical_path\"))' | sort | uniq -c | awk '{print \$2, \$1}'"
	assert_output - <<-EOF
	critical_path_dependency 46
	critical_path_kernel_kernel_delay 50
	critical_path_kernel_launch_delay 30
	critical_path_operator 700
	critical_path_sync_dependency 4
	EOF
	trace-overlay "$TRACES/hta_simple_add.json.gz" "$T/rec" > "$T/default.json.gz"
	run -0 bash -c "zcat '$T/default.json.gz' | jq -c '[
	    ([.traceEvents[] | select(.ph == \"X\") | .args.critical // 0] | add),
	    ([.traceEvents[] | select(.ph == \"f\") | .args.critical // false | select(.)] | length)]'"
	assert_output '[159,21]'
	# HTA's end-to-end test: the whole trace, HTA's default flows.
	records hta_simple_add.json.gz -W |
	    trace-overlay -p "$TRACES/hta_simple_add.json.gz" - | marked_and_flows |
	    diff <(grep -v '^#' "$FIXTURES/hta_simple_add_whole.overlay.tsv") -
}

@test "tr-extract reads the overlay back to the trace's records" {
	local f
	for f in hta_simple_add hta_mi250_rocm tracelens_vllm_decode_graph; do
		records $f.json.gz > "$T/rec"
		trace-overlay "$TRACES/$f.json.gz" "$T/rec" > "$T/ov.json.gz"
		diff <(tr-extract "$TRACES/$f.json.gz" | grep -v '^{"kind":"trace"') \
		    <(read_back "$T/ov.json.gz")
	done
}

@test "the overlay is the input's size plus the path's" {
	local f in base marked
	for f in hta_simple_add tracelens_vllm_decode_graph; do
		records $f.json.gz > "$T/rec"
		trace-overlay -p "$TRACES/$f.json.gz" "$T/rec" > "$T/ov.json"
		in=$(zcat "$TRACES/$f.json.gz" | wc -c)
		base=$(grep -v '"cat":"critical_path"\|"cat":"mrp"\|"name":"critical path' "$T/ov.json" | wc -c)
		marked=$(grep -c '"critical":1}' "$T/ov.json")
		# Each marked event grows by ,"critical":1 or ,"args":{"critical":1}.
		[ "$base" -le $((in + 22 * marked)) ]
	done
}

@test "the critical-path track tiles the path, slice by class" {
	records tracelens_vllm_decode_graph.json.gz -W > "$T/rec"
	trace-overlay -p "$TRACES/tracelens_vllm_decode_graph.json.gz" "$T/rec" > "$T/ov.json"
	run -0 jq -r 'select(.kind == "critical_path") | .length_us' "$T/rec"
	assert_output '10888.63'
	run -0 jq -r '[.traceEvents[] | select(.cat == "critical_path" and .ph == "X") | .dur] | add * 1000 | round' "$T/ov.json"
	assert_output '10888630'
	# graph_replay is most of it, as crit-path's classes say (to the µs).
	run -0 jq -r '[.traceEvents[] | select(.cat == "critical_path" and .ph == "X" and .name == "graph_replay") | .dur] | add | round' "$T/ov.json"
	assert_output "$(jq -r 'select(.kind == "critical_path") | .by_class_us.graph_replay | round' "$T/rec")"
	assert_output '10389'
	run -0 jq -r '[.traceEvents[] | select(.ph == "M" and .args.name == "critical path, rank 0")] | length' "$T/ov.json"
	assert_output '1'
}

@test "each stream's queue and busy counters; a graph launch queues all its kernels" {
	records tracelens_vllm_decode_graph.json.gz -W > "$T/rec"
	trace-overlay -p "$TRACES/tracelens_vllm_decode_graph.json.gz" "$T/rec" > "$T/ov.json"
	run -0 jq -c '[.traceEvents[] | select(.ph == "C")] | group_by(.name) |
	    map([.[0].name, (map(.args.kernels // .args.busy) | max), .[-1].args.kernels // .[-1].args.busy])' "$T/ov.json"
	assert_output '[["GPU busy (stream 0)",1,0],["queue length (stream 0)",434,0]]'
}

@test "findings become markers at the first window's start" {
	records hta_cuda_event_sync.json.gz > "$T/rec"
	trace-overlay -p "$TRACES/hta_cuda_event_sync.json.gz" "$T/rec" \
	    "$TOP/fixtures/rubric-apply/example.findings.ndjson" > "$T/ov.json"
	start=$(jq -r 'select(.kind == "critical_path") | .start_us' "$T/rec" | sort -n | head -1)
	origin=$(tr-extract "$TRACES/hta_cuda_event_sync.json.gz" | jq -r 'select(.kind == "trace") | .origin_ns')
	run -0 jq -c --argjson at "$(( origin / 1000 + start ))" \
	    '[.traceEvents[] | select(.ph == "i" and .cat == "mrp")] |
	    [length, (map(.ts == $at and .s == "g") | all), .[0].name, .[0].args.rule]' "$T/ov.json"
	assert_output '[9,true,"finding 1","python-between-ops"]'
}

@test "records of several ranks need -r" {
	records hta_cuda_event_sync.json.gz > "$T/rec"
	sed 's/"rank":0,/"rank":1,/' "$T/rec" > "$T/rec1"
	run -1 --separate-stderr trace-overlay -p "$TRACES/hta_cuda_event_sync.json.gz" "$T/rec" "$T/rec1"
	assert_stderr --partial 'critical paths of 2 ranks'
	run -0 trace-overlay -p -r 1 "$TRACES/hta_cuda_event_sync.json.gz" "$T/rec" "$T/rec1"
	echo "$output" | jq -e '[.traceEvents[] | select(.args.critical == 1)] | length > 0'
	# A rank the records lack: nothing marked, said so.
	run -0 --separate-stderr trace-overlay -p -r 5 "$TRACES/hta_cuda_event_sync.json.gz" "$T/rec"
	assert_stderr --partial 'none of the path'
}

@test "gzip in and out: the same overlay as plain" {
	records hta_cuda_event_sync.json.gz > "$T/rec"
	zcat "$TRACES/hta_cuda_event_sync.json.gz" > "$T/plain.json"
	trace-overlay -p "$TRACES/hta_cuda_event_sync.json.gz" "$T/rec" > "$T/a"
	trace-overlay -p "$T/plain.json" "$T/rec" > "$T/b"
	trace-overlay "$T/plain.json" "$T/rec" | zcat > "$T/c"
	cmp "$T/a" "$T/b"
	cmp "$T/a" "$T/c"
}

@test "a small memory budget gives the same overlay" {
	records hta_simple_add.json.gz -a -W > "$T/rec"
	trace-overlay -a -p "$TRACES/hta_simple_add.json.gz" "$T/rec" > "$T/a"
	MRP_CRIT_PATH_MEMORY=4096 trace-overlay -a -p "$TRACES/hta_simple_add.json.gz" "$T/rec" > "$T/b"
	cmp "$T/a" "$T/b"
}

@test "the trace's name and other metadata stay out" {
	zcat "$TRACES/hta_cuda_event_sync.json.gz" |
	    jq -c '. + {traceName: "/home/someone/secret/run.json", environment: {TOKEN: "hunter2"}}' > "$T/t.json"
	run -0 trace-overlay -p "$T/t.json" /dev/null
	refute_output --partial 'secret'
	refute_output --partial 'hunter2'
	refute_output --partial 'traceName'
}

@test "bad input: file:line:col, exit 1" {
	printf '{"traceEvents":[{"ph":"X","name":"a","ts":"x"}]}\n' > "$T/bad.json"
	run -1 --separate-stderr trace-overlay -p "$T/bad.json" /dev/null
	assert_stderr --partial 'trace-overlay: '"$T"'/bad.json:1:'
	printf '{"kind":"critical_edge","rank":0}\n' > "$T/bad.ndjson"
	run -1 --separate-stderr trace-overlay -p "$TRACES/hta_cuda_event_sync.json.gz" "$T/bad.ndjson"
	assert_stderr --partial "bad.ndjson:1:1: a critical_edge record without"
	assert_output ''
	run -1 --separate-stderr trace-overlay "$T/missing.json" /dev/null
	assert_stderr --partial 'missing.json'
	run -1 --separate-stderr trace-overlay "$TRACES/hta_cuda_event_sync.json.gz" "$T/missing.ndjson"
	assert_stderr --partial 'missing.ndjson'
	# Read twice: a pipe will not do.
	run -1 --separate-stderr bash -c "trace-overlay - /dev/null < '$TRACES/hta_cuda_event_sync.json.gz'"
	assert_stderr --partial 'read twice'
	# A pickle is refused with the way out.
	printf '\x80\x04\x95' > "$T/p.pkl"
	run -1 --separate-stderr trace-overlay "$T/p.pkl" /dev/null
	assert_stderr --partial 'export_chrome_trace'
}

@test "a failed write exits 1" {
	records hta_cuda_event_sync.json.gz > "$T/rec"
	run -1 --separate-stderr bash -c "trace-overlay '$TRACES/hta_cuda_event_sync.json.gz' '$T/rec' > /dev/full"
	assert_stderr --partial 'write failed'
	run -1 --separate-stderr bash -c "trace-overlay -p '$TRACES/hta_cuda_event_sync.json.gz' '$T/rec' > /dev/full"
	assert_stderr --partial 'write failed'
}

@test "a trace viewer opens the overlay (speedscope in headless Chromium)" {
	records hta_simple_add.json.gz -W > "$T/rec"
	trace-overlay "$TRACES/hta_simple_add.json.gz" "$T/rec" > "$T/ov.json.gz"
	run "$TOP/tests/trace-view" "$T/ov.json.gz"
	[ "$status" -ne 77 ] || skip "no speedscope release (\$MRP_SPEEDSCOPE, ../shared/viewers), Chromium or python3"
	assert_success
	# The trace's threads, and the path's track beside them.
	assert_line 'python3.10 (pid 493459), thread 493459 (python3.10) (tid 493459)'
	assert_line 'python3.10 (pid 0), stream 7  (tid 7)'
	assert_line 'critical path (pid 493460), critical path, rank 0 (tid 0)'
}

@test "EXAMPLES in the man page run" {
	check_example trace-overlay.1 1
	check_example trace-overlay.1 2
}
