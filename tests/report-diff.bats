bats_require_minimum_version 1.5.0
setup() { load test_helper; export MRP_RUBRIC="$TOP/rubric"; }

@test "report-diff: usage error" {
	run -2 --separate-stderr report-diff -Z a b
	assert_stderr --partial 'usage: report-diff [-j] [--compare figures] [--fail-on pct] [-r rubric] before after'
	run -2 --separate-stderr report-diff "$FIXTURES/before.json"
	assert_stderr --partial 'usage:'
	run -2 --separate-stderr report-diff a b c
	assert_stderr --partial 'usage:'
}

@test "report-diff: empty input gives empty output" {
	run -0 report-diff /dev/null /dev/null
	assert_output ''
	run -0 report-diff -j /dev/null /dev/null
	assert_output ''
}

@test "report-diff: golden Markdown diff on the example" {
	cd "$FIXTURES"
	run -0 report-diff example-before.json example-after.json
	assert_output - <example.md
}

@test "report-diff: golden JSON diff on the example" {
	cd "$FIXTURES"
	run -0 report-diff -j example-before.json example-after.json
	assert_output - <example.diff.json
	run -0 jq -c '[.actions[] | [.rule, .verdict]]' <<<"$output"
	assert_output '[["python-between-ops","unchanged"],["low-gpu-util","improved"],["time-slice","unchanged"],["launch-bound","unchanged"],["gemm-below-peak","unchanged"],["releasable-cache","unchanged"],["fragmentation-medium","regressed"],["critical-path","unchanged"],["missing-context","unknown"],["missing-memory-stats","unknown"]]'
}

@test "report-diff: new, gone and changed operators rank by the change" {
	cd "$FIXTURES"
	run -0 bats_pipe report-diff -j example-before.json example-after.json \| \
	    jq -c '.ops[0:3] | map([.name, .status, .change_us])'
	assert_output '[["aten::addmm","both",-442],["aten::bmm","new",40],["aten::all","gone",-12]]'
}

@test "report-diff: a snapshot-only report is compared as far as it goes" {
	cd "$FIXTURES"
	run -0 report-diff -j example-before.json snapshot.json
	assert_output - <snapshot.diff.json
	run -0 jq -c '[.not_compared, .ops, .step_time.after_us, .actions[0].verdict]' <<<"$output"
	assert_output '[["operators: missing from AFTER","kernels: missing from AFTER","step_time: missing from AFTER"],[],null,"unknown"]'
}

@test "report-diff: a report without the new members says so" {
	cd "$FIXTURES"
	run -0 bats_pipe jq -c 'del(.operators, .kernel_times, .measures) | .version = "0.0.9"' \
	    example-before.json \| report-diff -j - example-after.json
	run -0 jq -c '.not_compared' <<<"$output"
	assert_output '["version: BEFORE is mrp 0.0.9, AFTER mrp 0.1.0; compared as far as they share data","operators: missing from BEFORE","kernels: missing from BEFORE","measures: missing from BEFORE"]'
}

@test "report-diff: a file that is not a report is an error" {
	cd "$FIXTURES"
	run -1 --separate-stderr report-diff ../report-md/records.ndjson after.json
	assert_stderr 'report-diff: ../report-md/records.ndjson: not an analyze-profile report'
	run -1 --separate-stderr report-diff before.json /dev/null
	assert_stderr 'report-diff: /dev/null: not an analyze-profile report'
	run -1 --separate-stderr report-diff before.json nonexistent.json
	assert_stderr --partial 'nonexistent.json'
}

@test "report-diff: a malformed line is reported with its place" {
	printf '{"kind":"report"}\n{"kind":"report",]\n' >"$BATS_TEST_TMPDIR/bad.json"
	run -1 --separate-stderr report-diff "$FIXTURES/before.json" "$BATS_TEST_TMPDIR/bad.json"
	assert_stderr --partial "$BATS_TEST_TMPDIR/bad.json:2:"
	assert_output ''
}

@test "report-diff: gzip input gives the same bytes as plain input" {
	cd "$FIXTURES"
	run -0 report-diff -j example-before.json.gz example-after.json
	assert_output - <example.diff.json
}

@test "report-diff: a failed write exits 1" {
	cd "$FIXTURES"
	run -1 --separate-stderr bash -c 'report-diff before.json after.json >/dev/full'
	assert_stderr --partial 'report-diff: <stdout>:'
	run -1 bash -c 'report-diff -j before.json after.json >/dev/full'
}

@test "report-diff: man page examples" {
	cd "$FIXTURES"
	cp example-before.json "$BATS_TEST_TMPDIR/before.json"
	cp example-after.json "$BATS_TEST_TMPDIR/after.json"
	cd "$BATS_TEST_TMPDIR"
	run -0 bats_pipe report-diff -j before.json after.json \| \
	    jq -r '.actions[] | "\(.rule) \(.verdict)"'
	assert_line --index 0 'python-between-ops unchanged'
	assert_line --index 1 'low-gpu-util improved'
	assert_line --index 6 'fragmentation-medium regressed'
	run -0 bats_pipe report-diff -j before.json after.json \| jq -c '.ops[0]'
	assert_output '{"name":"aten::addmm","before_self_us":597,"after_self_us":155,"before_count":26,"after_count":26,"status":"both","change_us":-442}'
	# The CI job, on the torch loop's fix: it passes the gate, its undoing
	# fails.
	cp "$FIXTURES/before.json" "$FIXTURES/after.json" .
	run -0 bash -c 'report-diff --fail-on 10 before.json after.json >diff.md'
	run -0 grep -c '^### ' diff.md
	run -1 --separate-stderr bash -c 'report-diff --fail-on 10 after.json before.json >diff.md'
	assert_stderr --partial 'report-diff: worse: '
}

# Two real traces of one CPU training loop, before and after replacing a
# collate function's loop of torch.cat and .item() with torch.stack (see
# profile.py); *.ops.json are torch.profiler's key_averages of each.

@test "report-diff: golden diff of the torch traces" {
	cd "$FIXTURES"
	run -0 report-diff before.json after.json
	assert_output - <torch.md
	run -0 report-diff -j before.json after.json
	assert_output - <torch.diff.json
}

@test "report-diff: the first operator is the one key_averages says changed most" {
	cd "$FIXTURES"
	want=$(jq -n -c --slurpfile b before.ops.json --slurpfile a after.ops.json '
	    ($b[0] | map({key: .name, value: .self_cpu_time_total}) | from_entries) as $B
	    | ($a[0] | map({key: .name, value: .self_cpu_time_total}) | from_entries) as $A
	    | [($B + $A) | keys[] | {name: ., before: $B[.], after: $A[.],
	        d: (($A[.] // 0) - ($B[.] // 0) | fabs)}] | max_by(.d)')
	run -0 jq -r '.name' <<<"$want"
	assert_output 'aten::cat'
	got=$(report-diff -j before.json after.json | jq -c '.ops[0]')
	run -0 jq -n -c --argjson w "$want" --argjson g "$got" '
	    def near($x; $y): ($x - $y | fabs) <= 0.01 * ($y | fabs);
	    [$g.name == $w.name, near($g.before_self_us; $w.before),
	     near($g.after_self_us; $w.after)]'
	assert_output '[true,true,true]'
}

@test "report-diff: the step time change matches the traces' ProfilerStep durations" {
	cd "$FIXTURES"
	mean() {
		gzip -dc "$1" | jq '[.[] | select(.ph == "X" and (.name | startswith("ProfilerStep#")))
		    | .dur] | add / length'
	}
	b=$(mean before.trace.json.gz)
	a=$(mean after.trace.json.gz)
	run -0 bats_pipe report-diff -j before.json after.json \| \
	    jq -c --argjson b "$b" --argjson a "$a" '.step_time
	    | def near($x; $y): ($x - $y | fabs) <= 0.01 * ($y | fabs);
	      [near(.before_us; $b), near(.after_us; $a), near(.change_us; $a - $b), .change < -0.5]'
	assert_output '[true,true,true,true]'
}

@test "report-diff: the fixed finding improved, and regressed the other way round" {
	cd "$FIXTURES"
	run -0 bats_pipe report-diff -j before.json after.json \| \
	    jq -r '.actions[] | select(.rule == "dataloader-share") | .verdict'
	assert_output 'improved'
	run -0 bats_pipe report-diff -j after.json before.json \| \
	    jq -r '.actions[] | select(.rule == "dataloader-share") | .verdict'
	assert_output 'regressed'
}

@test "report-diff --fail-on: a fix passes, the same change undone fails, naming what got worse" {
	cd "$FIXTURES"
	run -0 --separate-stderr report-diff --fail-on 5 before.json after.json
	assert_stderr ''
	assert_output - <torch.md
	run -1 --separate-stderr report-diff --fail-on 5 after.json before.json
	# The diff is written either way; the gate adds only the status.
	assert_output "$(report-diff after.json before.json)"
	assert_stderr - <<'ERR'
report-diff: worse: step time: 8.11 ms before, 122.11 ms after, +1406.3 % (limit 5.0 %, noise 1396.3 %)
report-diff: worse: dataloader-share: 0.3110 before, 0.7435 after, worse by 139.1 % (limit 5.0 %, noise 5.0 %; lower is better)
report-diff: worse: matmul-cpu: 3601.2000 before, 16641.4000 after, worse by 362.1 % (limit 5.0 %, noise 5.0 %; lower is better)
report-diff: worse: python-between-ops: 432 before, 5681.4000 after, worse by 1215.1 % (limit 5.0 %, noise 5.0 %; lower is better)
report-diff: worse: time-slice: 3857.8000 before, 99348.6000 after, worse by 2475.3 % (limit 5.0 %, noise 5.0 %; lower is better)
report-diff: worse: unstable-steps: 0.0976 before, 1.0364 after, worse by 962.3 % (limit 5.0 %, noise 5.0 %; lower is better)
ERR
	# -j alike; a report against itself never fails.
	run -1 bash -c 'set -o pipefail; report-diff -j --fail-on 5 after.json before.json 2>/dev/null | jq -r .kind'
	assert_output 'diff'
	run -0 --separate-stderr report-diff --fail-on 0 before.json before.json
	assert_stderr ''
}

@test "report-diff --fail-on: the step time fails only beyond its measured noise" {
	cd "$FIXTURES"
	# after.json's steps, 8.1 % slower: within the noise of steps that
	# vary as they do (std 0.79 ms over 5), beyond it when they do not.
	jq -c '.summary.steps.mean *= 1.081' after.json >"$BATS_TEST_TMPDIR/slow.json"
	run -0 --separate-stderr report-diff --fail-on 5 after.json "$BATS_TEST_TMPDIR/slow.json"
	assert_stderr ''
	jq -c '.summary.steps.std = 0' after.json >"$BATS_TEST_TMPDIR/steady.json"
	jq -c '.summary.steps.mean *= 1.081 | .summary.steps.std = 0' after.json \
	    >"$BATS_TEST_TMPDIR/steady-slow.json"
	run -1 --separate-stderr report-diff --fail-on 5 "$BATS_TEST_TMPDIR/steady.json" "$BATS_TEST_TMPDIR/steady-slow.json"
	assert_stderr 'report-diff: worse: step time: 8.11 ms before, 8.76 ms after, +8.1 % (limit 5.0 %, noise 0.0 %)'
	run -0 report-diff --fail-on 8.2% "$BATS_TEST_TMPDIR/steady.json" "$BATS_TEST_TMPDIR/steady-slow.json"
}

@test "report-diff --fail-on: an example fix undone fails; a measure from 0 the wrong way always does" {
	cd "$FIXTURES"
	run -1 --separate-stderr report-diff --fail-on 25 example-after.json example-before.json
	assert_stderr --partial 'report-diff: worse: low-gpu-util: '
	jq -c '.measures.oom = {value: 0, better: "lower"}
	    | .actions += [{rule: "oom", metric: "no OOM"}]' example-before.json \
	    >"$BATS_TEST_TMPDIR/b.json"
	jq -c '.measures.oom = {value: 1, better: "lower"}' example-before.json \
	    >"$BATS_TEST_TMPDIR/a.json"
	run -1 --separate-stderr report-diff --fail-on 1000 "$BATS_TEST_TMPDIR/b.json" "$BATS_TEST_TMPDIR/a.json"
	assert_stderr 'report-diff: worse: oom: 0 before, 1 after, worse from 0 (limit 1000.0 %, noise 5.0 %; lower is better)'
}

@test "report-diff: NaN, Infinity, out-of-range and negative step figures are data errors, never a pass" {
	cd "$FIXTURES"
	local t=$BATS_TEST_TMPDIR
	# Identical reports of a negative mean step failed the gate with
	# "+0.0 % (noise -3201486.8 %)"; they are no report of a run.
	jq -c '.summary.steps.mean = -122110.6' before.json >"$t/neg.json"
	run -1 --separate-stderr report-diff --fail-on 10 "$t/neg.json" "$t/neg.json"
	assert_stderr "report-diff: $t/neg.json: summary.steps.mean is negative: -122111"
	assert_output ''
	jq -c '.summary.steps.std = -1' before.json >"$t/neg.json"
	run -1 --separate-stderr report-diff "$t/neg.json" before.json
	assert_stderr "report-diff: $t/neg.json: summary.steps.std is negative: -1"
	# A regression to 1e400, NaN or Infinity passed, as null or as the
	# largest double.
	sed 's/"mean":122110.6/"mean":1e400/' before.json >"$t/big.json"
	run -1 --separate-stderr report-diff --fail-on 10 before.json "$t/big.json"
	assert_stderr "report-diff: $t/big.json: summary.steps.mean is out of range"
	for v in NaN Infinity -Infinity; do
		sed "s/\"mean\":122110.6/\"mean\":$v/" before.json >"$t/nan.json"
		run -1 --separate-stderr report-diff --fail-on 10 before.json "$t/nan.json"
		assert_stderr "report-diff: $t/nan.json: 1 NaN or Infinity, read as null: a report's figures are finite numbers"
	done
	jq -c '.measures["dataloader-share"].value = "0.3"' before.json >"$t/str.json"
	run -1 --separate-stderr report-diff --fail-on 10 before.json "$t/str.json"
	assert_stderr "report-diff: $t/str.json: measures.dataloader-share is not a number"
	sed 's/"dataloader-share":{"value":0.7434850045778172/"dataloader-share":{"value":1e999/' \
	    before.json >"$t/inf.json"
	! cmp -s before.json "$t/inf.json"
	run -1 --separate-stderr report-diff --fail-on 10 before.json "$t/inf.json"
	assert_stderr "report-diff: $t/inf.json: measures.dataloader-share is out of range"
}

@test "report-diff --fail-on: a figure one report lacks fails, unless --compare names the figures" {
	cd "$FIXTURES"
	local t=$BATS_TEST_TMPDIR
	# A run that wrote no steps passed, its step time "missing from AFTER".
	jq -c 'del(.summary.steps)' before.json >"$t/nosteps.json"
	run -1 --separate-stderr report-diff --fail-on 10 before.json "$t/nosteps.json"
	assert_stderr 'report-diff: worse: step time: missing from AFTER (--compare names the figures to compare)'
	run -1 --separate-stderr report-diff --fail-on 10 "$t/nosteps.json" before.json
	assert_stderr 'report-diff: worse: step time: missing from BEFORE (--compare names the figures to compare)'
	# So does an action's measure.
	jq -c '.measures["dataloader-share"].value = null' before.json >"$t/nodl.json"
	run -1 --separate-stderr report-diff --fail-on 10 before.json "$t/nodl.json"
	assert_stderr 'report-diff: worse: dataloader-share: missing from AFTER (--compare names the figures to compare)'
	# Named, the figures are those compared; each must be in both.
	run -0 --separate-stderr report-diff --fail-on 10 --compare dataloader-share before.json "$t/nosteps.json"
	assert_stderr ''
	run -1 --separate-stderr report-diff --fail-on 10 --compare step_time,dataloader-share before.json "$t/nosteps.json"
	assert_stderr 'report-diff: worse: step time: missing from AFTER'
	run -1 --separate-stderr report-diff --fail-on 10 --compare oom,no-such-rule before.json before.json
	assert_stderr - <<-'EOF'
	report-diff: worse: oom: missing from BEFORE and AFTER
	report-diff: worse: no-such-rule: no such figure in either report
	EOF
	# The figures of the torch fix: it passes on them, its undoing fails.
	run -0 report-diff --fail-on 5 --compare step_time,dataloader-share,dataloader-share before.json after.json
	run -1 --separate-stderr report-diff --fail-on 5 --compare dataloader-share after.json before.json
	assert_stderr 'report-diff: worse: dataloader-share: 0.3110 before, 0.7435 after, worse by 139.1 % (limit 5.0 %, noise 5.0 %; lower is better)'
	# Identical reports always pass, whatever they lack.
	for f in before.json "$t/nosteps.json" "$t/nodl.json" snapshot.json; do
		run -0 --separate-stderr report-diff --fail-on 0 "$f" "$f"
		assert_stderr ''
	done
	# --compare is the gate's: alone, or not a list, it is a usage error.
	run -2 --separate-stderr report-diff --compare step_time before.json after.json
	assert_stderr 'report-diff: --compare: the figures of a gate: give --fail-on too'
	for l in ',' 'a b' 'step_time,' 'Oom'; do
		run -2 --separate-stderr report-diff --fail-on 5 --compare "$l" before.json after.json
		assert_stderr "report-diff: --compare: not a list of figures (step_time and rule ids, comma-separated): $l"
	done
	run -2 --separate-stderr report-diff --fail-on 5 --compare '' before.json after.json
	assert_stderr --partial 'report-diff: --compare: not a list of figures'
}

@test "report-diff --fail-on: not a percentage is a usage error" {
	cd "$FIXTURES"
	for p in x -1 5%% inf nan 1e400; do
		run -2 --separate-stderr report-diff --fail-on "$p" before.json after.json
		assert_stderr "report-diff: --fail-on: not a percentage of 0 or more: $p"
	done
	run -2 --separate-stderr report-diff --fail-on '' before.json after.json
	assert_stderr --partial 'report-diff: --fail-on: not a percentage'
}

@test "report-diff: a value past 2^53 prints as a mantissa and an exponent" {
	cd "$FIXTURES"
	jq -c '.summary.steps.mean = 1e300' before.json >"$BATS_TEST_TMPDIR/huge.json"
	run -0 report-diff before.json "$BATS_TEST_TMPDIR/huge.json"
	assert_output --partial '| Mean step | 122.11 ms | 1.00e+294 s | +1.00e+294 s (+8.2e+296 %) |'
	refute_output --partial 'e+3.0'
}

# reports FILE...: analyze-profile's JSON report of each snapshot of
# fixtures/mem-segments (the loops of derive-loops.py), in the test's
# directory, named after it.
reports() {
	for s; do
		analyze-profile --memory-json "$TOP/fixtures/mem-segments/$s.json.gz" \
		    --json-out "$BATS_TEST_TMPDIR/$s.json" >/dev/null
	done
}

@test "report-diff: of an early and a late snapshot, the site that grew ranks first, by its exact bytes" {
	reports loop-leak-early loop-leak-late
	cd "$BATS_TEST_TMPDIR"
	run -0 bash -c "report-diff -j loop-leak-early.json loop-leak-late.json | jq -c '.memory_sites[0], .memory.allocated, .memory.active, .memory.reserved, .memory.inactive_split, .not_compared'"
	# Six more blocks of 2.5 MiB: what the snapshots' blocks of that site add up to.
	assert_output - <<'OUT'
{"site":"train_step@/home/user/leak_loop.py:44","before_bytes":5242880,"after_bytes":20971520,"change_bytes":15728640,"before_blocks":2,"after_blocks":8}
{"before":22020096,"after":37748736}
{"before":22020096,"after":37748736}
{"before":62914560,"after":62914560}
{"before":19922944,"after":4194304}
[]
OUT
	for s in early late; do
		zcat "$TOP/fixtures/mem-segments/loop-leak-$s.json.gz" | jq '[.segments[].blocks[]
		    | select(.state != "inactive" and (.frames[1].filename | endswith("leak_loop.py")) and .frames[1].line == 44) | .size] | add'
	done >want
	run -0 bash -c "report-diff -j loop-leak-early.json loop-leak-late.json | jq '.memory_sites[0] | .before_bytes, .after_bytes'"
	assert_output "$(cat want)"
	run -0 report-diff loop-leak-early.json loop-leak-late.json
	assert_output --partial '1 site holds more memory after than before; the most: train_step@/home/user/leak_loop.py:44, +15.0 MiB.'
	assert_output --partial '| train_step@/home/user/leak_loop.py:44   |  5.0 MiB | 20.0 MiB | +15.0 MiB |             2 |            8 |'
	assert_output --partial '| Split free blocks | 19.0 MiB |  4.0 MiB |'
	# The other way round, the site shrank: nothing grew.
	run -0 report-diff loop-leak-late.json loop-leak-early.json
	assert_output --partial 'No allocation site holds more memory after than before.'
	assert_output --partial '-15.0 MiB'
}

@test "report-diff: snapshots of different devices are compared, with a note" {
	reports loop-leak-early loop-leak-late
	cd "$BATS_TEST_TMPDIR"
	jq -c '.memory_sites.devices = [1]' loop-leak-late.json >dev1.json
	run -0 bash -c "report-diff -j loop-leak-early.json dev1.json | jq -c '.not_compared, .memory_sites[0].change_bytes'"
	assert_output - <<'OUT'
["memory: BEFORE is of device 0, AFTER of device 1; their sites are compared all the same"]
15728640
OUT
}

@test "report-diff: a site left out of a report's list is unknown there, not 0" {
	reports loop-leak-early loop-leak-late
	cd "$BATS_TEST_TMPDIR"
	jq -c '.memory_sites.complete = false | .memory_sites.sites |= map(select(.site | startswith("train_step") | not))' \
	    loop-leak-early.json >cut.json
	run -0 bash -c "report-diff -j cut.json loop-leak-late.json | jq -c '.memory_sites[] | select(.site | startswith(\"train_step\")) | [.before_bytes, .after_bytes, .change_bytes]'"
	assert_output '[null,20971520,null]'
}

@test "report-diff: serving steps and graph replays before and after, and a gate on the decode step" {
	local t=$BATS_TEST_TMPDIR
	# vLLM's decode (10.74 ms a step on the GPU) before, SGLang's (473.75
	# ms: a read-back holds it) after: both decode 32 requests from a
	# CUDA graph.
	analyze-profile --cpu-trace "$TOP/fixtures/op-rank/vllm_decode_full_graph_execution.json.gz" \
	    --json-out "$t/before.json" >/dev/null
	analyze-profile --cpu-trace "$TOP/fixtures/op-rank/mi300_sglang_Qwen3-8B_decode.json.gz" \
	    --json-out "$t/after.json" >/dev/null
	run -0 report-diff "$t/before.json" "$t/after.json"
	assert_output --partial '### Serving steps'
	assert_line '| decode step, mean     | 10.74 ms | 473.75 ms | +4309.8 % |'
	assert_line '| Share of GPU busy in replays | 96.9 % | 98.8 % |'
	run -0 bats_pipe report-diff -j "$t/before.json" "$t/after.json" \| \
	    jq -c '[.serving.phases[] | [.phase, .before_us, .after_us]], .serving.tpot'
	assert_output "$(printf '%s\n' '[["decode",10743.181,473749.943]]' '{"before_us":10743.181,"after_us":473749.943}')"
	run -1 --separate-stderr report-diff --compare decode_step,tpot --fail-on 10 "$t/before.json" "$t/after.json"
	assert_stderr --partial 'report-diff: worse: decode_step: 10743.1810 before, 473749.9430 after'
	assert_stderr --partial 'report-diff: worse: tpot:'
	run -0 report-diff --compare decode_step --fail-on 10 "$t/after.json" "$t/before.json"
	# Reports without serving steps have no such section.
	cd "$FIXTURES"
	run -0 report-diff example-before.json example-after.json
	refute_output --partial 'Serving steps'
}
