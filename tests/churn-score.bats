#!/usr/bin/env bats
bats_require_minimum_version 1.5.0

setup() {
	load test_helper
	# The snapshots are shared with mem-segments; the goldens are ours.
	SNAPS=$TOP/fixtures/mem-segments
}

LOCAL="cs336-magma27__memory_snapshot cs336-silmont__mem_snapshot
flexgen-fork__oom_snapshot flexgen-fork__1.3b_snapshot"
BIG="cs336-silmont__memory_forward_bf16_128 cs336-wedsonlin__medium_128_inference
cs336-wedsonlin__medium_128_training"

@test "usage error exits 2 with the synopsis" {
	run -2 --separate-stderr churn-score -Z
	assert_stderr --partial 'usage: churn-score [file ...]'
}

@test "empty input gives empty output" {
	run -0 churn-score < /dev/null
	assert_output ''
}

@test "golden output on every local snapshot" {
	for f in $LOCAL; do
		run -0 churn-score < "$SNAPS/$f.json.gz"
		assert_output - < "$FIXTURES/$f.ndjson"
	done
}

@test "golden output on the larger shared snapshots" {
	need_shared memsnap
	for f in $BIG; do
		run -0 churn-score < "$SHARED/memsnap/$f.json.gz"
		assert_output - < "$FIXTURES/shared-$f.ndjson"
	done
}

@test "counts and bytes equal jq's over every real snapshot" {
	need_shared memsnap
	for f in "$SHARED"/memsnap/*.json.gz; do
		case $f in *SYNTHETIC*) continue ;; esac
		want=$(zcat "$f" | jq -c '.device_traces[0] as $t | [($t | length),
		    ([$t[] | select(.action == "alloc") | .size] | add // 0),
		    ([$t[] | select(.action == "free_completed") | .size] | add // 0),
		    ([$t[] | select(.action == "segment_alloc")] | length),
		    ([$t[] | select(.action == "alloc")] | length),
		    ([.segments[].blocks[] | select(.state != "inactive") | .requested_size] | add)]')
		run -0 bash -c "churn-score < '$f' | jq -c 'select(.kind == \"churn\") | [.entries, .bytes_allocated, .bytes_freed, .actions.segment_alloc, .actions.alloc, .snapshot_live]'"
		assert_output "$want"
	done
}

@test "a trace that covers the whole run replays to the snapshot's live bytes" {
	# cs336-silmont__mem_snapshot recorded from the start: every segment
	# has its segment_alloc in the trace.
	run -0 bash -c "churn-score < '$SNAPS/cs336-silmont__mem_snapshot.json.gz' | jq -c 'select(.kind == \"churn\") | [.window_complete, .peak_lower_bound, .live_at_start, .live_at_end_replayed, .snapshot_live, .peak == .peak_in_window, .partial]'"
	assert_output '[true,false,0,31719428,31719428,true,[]]'
	# A window that starts mid-run says so and still gives the peak: what
	# the snapshot holds that the trace never names, plus what the trace
	# frees without having allocated it, was live when it began.
	run -0 bash -c "churn-score < '$SNAPS/cs336-magma27__memory_snapshot.json.gz' | jq -c 'select(.kind == \"churn\") | [.window_complete, .peak_lower_bound, .unmatched_frees, .live_at_start == .static_bytes + .unmatched_free_bytes, .live_at_start, .peak - .peak_in_window, (.partial | length)]'"
	assert_output '[false,true,2,true,1373919236,1373919236,7]'
}

@test "the peak counts blocks from before the window, and names them" {
	need_shared memsnap
	# Segments made before the window: nothing proves the run's start
	# was recorded, so the peak is a lower bound.
	run -0 bash -c "churn-score < '$SHARED/memsnap/cs336-silmont__memory_forward_bf16_128.json.gz' | jq -c 'select(.kind == \"churn\") | [.peak_lower_bound, .window_complete, .segments_before_window, .static_bytes, .peak == .static_bytes + .peak_in_window, ([.top_at_peak[].origin] | unique)]'"
	assert_output '[true,false,43,523811840,true,["before_window","window"]]'
	# Blocks freed in the window but allocated before it were live at
	# the peak, if freed after it.
	run -0 bash -c "churn-score < '$SHARED/memsnap/cs336-wedsonlin__medium_128_training.json.gz' | jq -c 'select(.kind == \"churn\") | .top_at_peak | [length, (map(.size) == (map(.size) | sort | reverse)), (map(select(.origin == \"before_window\")) | length), (map(select(.site | tostring | endswith(\"(autograd)\"))) | .[0].site)]'"
	assert_output '[10,true,5,"AccumulateGrad (autograd)"]'
}

@test "a window recorded from the start gives an exact peak" {
	run -0 --separate-stderr churn-score < "$SNAPS/pending-free.json"
	assert_stderr ''
	assert_output - < "$FIXTURES/pending-free.ndjson"
	run -0 bash -c "churn-score '$SNAPS/pending-free.json' | jq -c 'select(.kind == \"churn\") | [.peak, .peak_lower_bound, .snapshot_live, .live_at_end_replayed, [.top_at_peak[] | [.size, .site, .origin]]]'"
	assert_output '[2516384,false,516384,516384,[[2000000,"loss@/src/train.py:40","window"],[500000,"forward@/src/model.py:12","window"],[16384,"NllLossBackward0 (autograd)","window"]]]'
	# Drop the first segment_alloc: the window no longer shows the start.
	jq -c '.device_traces[0] |= .[1:]' "$SNAPS/pending-free.json" > "$BATS_TEST_TMPDIR/p.json"
	run -0 bash -c "churn-score '$BATS_TEST_TMPDIR/p.json' | jq -c 'select(.kind == \"churn\") | [.peak, .peak_lower_bound, .segments_before_window]'"
	assert_output '[2516384,true,1]'
	# Drop the allocations too: the snapshot's blocks were live all along.
	jq -c '.device_traces[0] |= .[3:]' "$SNAPS/pending-free.json" > "$BATS_TEST_TMPDIR/q.json"
	run -0 bash -c "churn-score '$BATS_TEST_TMPDIR/q.json' | jq -c 'select(.kind == \"churn\") | [.peak, .peak_lower_bound, .static_bytes, [.top_at_peak[] | [.size, .site, .origin]]]'"
	assert_output '[2516384,true,516384,[[2000000,"loss@/src/train.py:40","window"],[500000,"forward@/src/model.py:12","before_window"],[16384,"NllLossBackward0 (autograd)","before_window"]]]'
}

@test "a trace entry without its size is skipped with a warning" {
	zcat "$SNAPS/cs336-silmont__mem_snapshot.json.gz" | jq -c '.device_traces[0][3] |= del(.size)' > "$BATS_TEST_TMPDIR/s.json"
	run -0 --separate-stderr churn-score "$BATS_TEST_TMPDIR/s.json"
	assert_stderr --regexp '^churn-score: .*s.json:1:[0-9]+: warning: "alloc" entry has no "size"; skipped$'
	run -0 bash -c "churn-score '$BATS_TEST_TMPDIR/s.json' 2>/dev/null | jq -c 'select(.kind != \"memory_timeline\") | [.kind, .entries, .message]'"
	assert_line --index 0 --partial '["warning",null,"\"alloc\" entry has no \"size\"; skipped"]'
	assert_line --index 1 '["churn",96,null]'
}

@test "sums that disagree are warnings, and the replay goes on" {
	run -0 --separate-stderr churn-score < "$SNAPS/bad-sums.json"
	assert_output - < "$FIXTURES/bad-sums.ndjson"
	assert_stderr --partial "churn-score: <stdin>:3:5: warning: active blocks request 516384 bytes but the segment's requested_size is 500000"
	need_shared memsnap
	for f in "$SHARED"/memsnap/*.json.gz; do
		run -0 --separate-stderr churn-score "$f"
		assert_line --partial '{"kind":"churn","file"'
		case $f in
		*SYNTHETIC*) assert_stderr --partial ': warning: ' ;;
		*) assert_stderr '' ;;
		esac
	done
	run -1 --separate-stderr churn-score "$SHARED/memsnap/hta__memory_timeline.raw.gz"
	assert_stderr --partial 'not a memory snapshot'
}

@test "the peak agrees with an independent replay in jq" {
	want=$(zcat "$SNAPS/cs336-silmont__mem_snapshot.json.gz" | jq -c '
	    reduce .device_traces[0][] as $e ({live: 0, max: 0};
	    if $e.action == "alloc" then .live += $e.size
	    elif $e.action == "free_completed" then .live -= $e.size else . end
	    | .max = ([.max, .live] | max)) | .max')
	run -0 bash -c "churn-score < '$SNAPS/cs336-silmont__mem_snapshot.json.gz' | jq 'select(.kind == \"churn\") | .peak'"
	assert_output "$want"
}

@test "a peak that moves on every free is replayed in linear time" {
	# alloc a, alloc b, free b, n times: each alloc of b is a new peak
	# and each free must keep the peak's largest blocks, out of a live
	# set that grows to n.  Finding them by sorting the live set took
	# 30 s for n = 20000 and more than 120 s for n = 40000.
	local f=$BATS_TEST_TMPDIR/peaks.json
	awk -v n=40000 'BEGIN {
		printf "{\"segments\":[],\"device_traces\":[["
		for (i = 0; i < n; i++) {
			a = 1048576 + i * 2048
			printf "%s{\"action\":\"alloc\",\"addr\":%d,\"size\":1024},", (i ? "," : ""), a
			printf "{\"action\":\"alloc\",\"addr\":%d,\"size\":1024},", a + 1024
			printf "{\"action\":\"free_completed\",\"addr\":%d,\"size\":1024}", a + 1024
		}
		printf "]]}\n"
	}' > "$f"
	run -0 bats_pipe timeout 20 churn-score "$f" \| jq -c 'select(.kind == "churn") | [.peak_in_window, .live_blocks_at_end_replayed, (.top_at_peak | length), .top_at_peak[0].addr, .top_at_peak[9].addr]'
	assert_output '[40961024,40000,10,1048576,1067008]'
}

@test "gzip and plain input give the same bytes" {
	zcat "$SNAPS/cs336-magma27__memory_snapshot.json.gz" > "$BATS_TEST_TMPDIR/s.json"
	run -0 churn-score < "$BATS_TEST_TMPDIR/s.json"
	assert_output - < "$FIXTURES/cs336-magma27__memory_snapshot.ndjson"
}

@test "a failed write exits 1" {
	run -1 --separate-stderr bash -c "churn-score '$SNAPS/cs336-magma27__memory_snapshot.json.gz' > /dev/full"
	assert_stderr --partial 'churn-score: <stdout>:'
}

@test "malformed snapshots are errors with their position" {
	zcat "$SNAPS/cs336-magma27__memory_snapshot.json.gz" | head -c 2000000 > "$BATS_TEST_TMPDIR/t.json"
	run -1 --separate-stderr churn-score "$BATS_TEST_TMPDIR/t.json"
	assert_output ''
	assert_stderr --regexp 't.json:1:[0-9]+: '
	run -1 --separate-stderr bash -c "echo '[1]' | churn-score"
	assert_stderr 'churn-score: <stdin>:1:2: not a memory snapshot: a list whose first item is not a segment object'
	run -1 --separate-stderr bash -c "echo '[{\"device\": 0, \"address\": 0, \"total_size\": 0, \"allocated_size\": 0, \"active_size\": 0, \"stream\": 0, \"blocks\": []}, 1]' | churn-score"
	assert_stderr --regexp '<stdin>:1:[0-9]+: segment is not an object$'
	zcat "$SNAPS/cs336-silmont__mem_snapshot.json.gz" | jq -c '.device_traces[0][3].size = -1' > "$BATS_TEST_TMPDIR/n.json"
	run -1 --separate-stderr churn-score "$BATS_TEST_TMPDIR/n.json"
	assert_stderr --regexp 'n.json:1:[0-9]+: "size" is negative: -1'
	zcat "$SNAPS/cs336-silmont__mem_snapshot.json.gz" | jq -c '.device_traces[0][3] |= del(.action)' > "$BATS_TEST_TMPDIR/a.json"
	run -1 --separate-stderr churn-score "$BATS_TEST_TMPDIR/a.json"
	assert_stderr --regexp 'a.json:1:[0-9]+: trace entry has no "action" string'
}

@test "a pickle is refused with how to dump JSON instead" {
	need_shared memsnap/pickle
	run -1 --separate-stderr churn-score < "$SHARED/memsnap/pickle/cs336-silmont__memory_forward_bf16_128.pickle"
	assert_stderr --partial '<stdin>:1:1: this is a Python pickle, not JSON'
	assert_stderr --partial 'json.dump'
}

@test "a snapshot without traces warns and writes nothing" {
	run -0 --separate-stderr churn-score "$SNAPS/era1.13-from-flexgen-oom.json.gz"
	assert_output ''
	assert_stderr --partial 'no trace entries to replay'
}

@test "segment_free bursts, retries and OOMs are found" {
	# The silmont trace with an empty_cache burst and an OOM spliced in.
	zcat "$SNAPS/cs336-silmont__mem_snapshot.json.gz" | jq -c '.device_traces[0] |= (.[0:20] + [
	    {action: "segment_free", addr: 1, size: 2097152, stream: 0},
	    {action: "segment_free", addr: 2, size: 2097152, stream: 0},
	    {action: "segment_free", addr: 3, size: 2097152, stream: 0},
	    {action: "segment_alloc", addr: 4, size: 2097152, stream: 0},
	    {action: "oom", device_free: 1024, size: 4096, stream: 0}] + .[20:])' > "$BATS_TEST_TMPDIR/b.json"
	run -0 bash -c "churn-score '$BATS_TEST_TMPDIR/b.json' | jq -c 'select(.kind == \"churn\") | [.segment_free_bursts, .burst_segments, .largest_burst, .free_then_alloc, .ooms, .oom_events[0].device_free, .device_calls]'"
	assert_output '[1,3,3,1,1,1024,13]'
}

@test "profiler memory records give a peak and a rate per step" {
	run -0 churn-score < "$SNAPS/bert-small.records.ndjson.gz"
	assert_output - < "$FIXTURES/bert-small.ndjson"
}

@test "EXAMPLES in the man page run" {
	cd "$SNAPS"
	man_examples churn-score.1 > "$BATS_TEST_TMPDIR/ex"
	run -0 bash -c "$(sed -n 1p "$BATS_TEST_TMPDIR/ex")"
	assert_output '[true,false,31719428,31719428]'
	run -0 bash -c "$(sed -n 2p "$BATS_TEST_TMPDIR/ex")"
	assert_output --partial '[13923997700,true,327680000,"log_softmax@'
	assert_output --partial '","window"]'
	run -0 bash -c "$(sed -n 3p "$BATS_TEST_TMPDIR/ex")"
	assert_output '[28,0,0.8274259151656014,4.22941039461677]'
}

@test "the memory_timeline agrees with the churn record and the snapshot" {
	# A whole-run window: the exact peak, reserved ending at the segments.
	run -0 bash -c "churn-score '$SNAPS/cs336-silmont__mem_snapshot.json.gz' | jq -sc '(.[] | select(.kind == \"churn\")) as \$c | (.[] | select(.kind == \"memory_timeline\")) as \$t | [\$t.source, \$t.x_unit, \$t.points, \$t.peak.bytes == \$c.peak, \$t.peak.at_least, (\$t.allocated_max | max) == \$c.peak, \$t.reserved_max[-1], (\$t.site_bytes | map(add)) == \$t.allocated_max, \$t.sites[-1]]'"
	want=$(mem-segments "$SNAPS/cs336-silmont__mem_snapshot.json.gz" | tail -n 1 | jq .reserved)
	assert_output "[\"snapshot\",\"us\",71,true,false,true,$want,true,\"other\"]"
	# A partial window: the peak is at least what the churn record says.
	run -0 bash -c "churn-score '$SNAPS/cs336-magma27__memory_snapshot.json.gz' | jq -sc '(.[] | select(.kind == \"churn\")) as \$c | (.[] | select(.kind == \"memory_timeline\")) as \$t | [\$t.points, (\$t.x | length), \$t.peak.bytes == \$c.peak, \$t.peak.at_least, (\$t.sites | length), (\$t.allocated_min | min) >= \$c.live_at_start - \$c.unmatched_free_bytes]'"
	assert_output '[3442,500,true,true,7,true]'
}

@test "the memory_timeline marks OOMs and the releases before them" {
	zcat "$SNAPS/cs336-silmont__mem_snapshot.json.gz" | jq -c '.device_traces[0] |= (.[0:20] + [
	    {action: "segment_free", addr: 1, size: 2097152, stream: 0},
	    {action: "segment_free", addr: 2, size: 2097152, stream: 0},
	    {action: "oom", device_free: 1024, size: 4096, stream: 0}] + .[20:])' > "$BATS_TEST_TMPDIR/b.json"
	run -0 bash -c "churn-score '$BATS_TEST_TMPDIR/b.json' | jq -c 'select(.kind == \"memory_timeline\") | [.x_unit, [.markers[] | [.what, .bytes]], .markers_total]'"
	# Released to retry the allocation that then failed: not empty_cache.
	assert_output '["entry",[["alloc_retry",4194304],["oom",4096]],2]'
}

# The loops of derive-loops.py (see fixtures/mem-segments/SOURCES.tsv).
releases() {
	churn-score "$SNAPS/$1.json.gz" | jq -c 'select(.kind == "churn") | [.segment_free_bursts,
	    .empty_cache_calls, .empty_cache_segments, .empty_cache_bytes,
	    .retries_succeeded, .retries_failed, .retry_segments, .retry_bytes,
	    .unattributed_bursts]'
}

@test "empty_cache() is named by its stacks, even at one segment a call" {
	# Six calls of one segment each: no burst, which is all the old
	# count could see.
	run -0 releases loop-empty-cache
	assert_output '[0,6,6,125829120,0,0,0,0,0]'
	run -0 bash -c "churn-score '$SNAPS/loop-empty-cache.json.gz' | jq -c 'select(.kind == \"memory_timeline\") | [.markers[].what] | unique'"
	assert_output '["empty_cache"]'
}

@test "the allocator's retry is told from empty_cache() by its stacks" {
	# Three bursts of three releases, each under the allocation that
	# needed the room, which is then made with the same stack.
	run -0 releases loop-retry
	assert_output '[3,0,0,0,3,0,9,251658240,0]'
	want=$(zcat "$SNAPS/loop-retry.json.gz" | jq '[.device_traces[0][] | select(.action == "segment_free") | .size] | add')
	assert_equal "$(releases loop-retry | jq '.[7]')" "$want"
	run -0 bash -c "churn-score '$SNAPS/loop-retry.json.gz' | jq -c 'select(.kind == \"memory_timeline\") | [.markers[].what]'"
	assert_output '["alloc_retry","alloc_retry","alloc_retry"]'
}

@test "releases whose stacks cannot tell are not attributed" {
	# Without stacks, and with the stack that made each segment (what
	# empty_cache() records without context="all").
	zcat "$SNAPS/loop-retry.json.gz" | jq -c '.device_traces[0] |= map(if .action == "segment_free" then .frames = [] else . end)' \
	    >"$BATS_TEST_TMPDIR/nostack.json"
	zcat "$SNAPS/loop-retry.json.gz" | jq -c '([.device_traces[0][] | select(.action == "segment_alloc") | {key: (.addr | tostring), value: .frames}] | from_entries) as $made
	    | .device_traces[0] |= map(if .action == "segment_free" then .frames = $made[.addr | tostring] else . end)' \
	    >"$BATS_TEST_TMPDIR/maker.json"
	for f in nostack maker; do
		run -0 bash -c "churn-score '$BATS_TEST_TMPDIR/$f.json' | jq -c 'select(.kind == \"churn\") | [.segment_free_bursts, .empty_cache_calls, .retries_succeeded, .unattributed_bursts]'"
		assert_output '[3,0,0,3]'
	done
}

@test "a site that keeps a block every iteration grows; parameters do not" {
	run -0 bash -c "churn-score '$SNAPS/loop-leak-late.json.gz' | jq -c 'select(.kind == \"memory_growth\") | [.iterations, .blocks, .bytes, (.sites[] | [.site, .blocks, .bytes, .blocks_per_iteration, .bytes_per_iteration, .smallest, .largest])]'"
	assert_output '[8,8,20971520,["train_step@/home/user/leak_loop.py:44",8,20971520,1,2621440,2621440,2621440]]'
	# After two iterations it has not grown long enough to tell.
	run -0 bash -c "churn-score '$SNAPS/loop-leak-early.json.gz' | jq -c 'select(.kind == \"memory_growth\")'"
	assert_output ''
}

@test "no real snapshot is said to grow" {
	# Their live blocks are parameters, gradients and optimizer state,
	# made once (cs336-wedsonlin training keeps 221 blocks).
	for f in $LOCAL; do
		run -0 bash -c "churn-score '$SNAPS/$f.json.gz' | jq -c 'select(.kind == \"memory_growth\")'"
		assert_output ''
	done
	need_shared memsnap
	for f in "$SHARED"/memsnap/*.json.gz; do
		run -0 bash -c "churn-score '$f' 2>/dev/null | jq -c 'select(.kind == \"memory_growth\")'"
		assert_output ''
	done
}
