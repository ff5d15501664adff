#!/usr/bin/env bats
bats_require_minimum_version 1.5.0

setup() { load test_helper; }

# Small real snapshots, copied into fixtures/mem-segments with SOURCES.tsv.
LOCAL="cs336-magma27__memory_snapshot cs336-silmont__mem_snapshot
flexgen-fork__oom_snapshot flexgen-fork__1.3b_snapshot
era1.13-from-flexgen-oom"
# Larger ones, read from ../shared/fixtures/memsnap.
BIG="cs336-silmont__memory_forward_bf16_128 cs336-wedsonlin__medium_128_inference
cs336-wedsonlin__medium_128_training"

@test "usage error exits 2 with the synopsis" {
	run -2 --separate-stderr mem-segments -Z
	assert_stderr --partial 'usage: mem-segments [file ...]'
}

@test "empty input gives empty output" {
	run -0 mem-segments < /dev/null
	assert_output ''
}

@test "golden output on every local snapshot, 1.13 to 2.11" {
	cd "$FIXTURES"
	for f in $LOCAL; do
		run -0 mem-segments "$f.json.gz"
		assert_output - < "$f.ndjson"
	done
}

@test "golden output on the larger shared snapshots" {
	need_shared memsnap
	for f in $BIG; do
		run -0 mem-segments < "$SHARED/memsnap/$f.json.gz"
		assert_output - < "$FIXTURES/shared-$f.ndjson"
	done
}

@test "sums equal jq's over every real snapshot" {
	need_shared memsnap
	for f in "$SHARED"/memsnap/*.json.gz; do
		case $f in *SYNTHETIC*) continue ;; esac
		want=$(zcat "$f" | jq -c '(if type == "array" then . else .segments end) |
		    [length, ([.[].total_size] | add),
		    ([.[].allocated_size] | add), ([.[].active_size] | add),
		    ([.[].requested_size] | add),
		    ([.[].blocks[] | select(.state == "inactive") | .size] | add),
		    ([.[].blocks[] | select(.state == "inactive") | .size] | max)]')
		run -0 bash -c "mem-segments '$f' | tail -n 1 | jq -c '[.segments, .reserved, .allocated, .active, .requested, .inactive, .largest_free]'"
		assert_output "$want"
		# Every segment's blocks add up to it.
		run -0 bash -c "mem-segments '$f' | jq -c 'select(.kind == \"segment\") | select(.total_size != .active + .free or .blocks.active_allocated + .blocks.inactive == 0)'"
		assert_output ''
	done
}

@test "derived numbers follow from the sums" {
	run -0 bash -c "mem-segments '$FIXTURES/cs336-silmont__mem_snapshot.json.gz' | tail -n 1 | jq -c '[.internal_waste == .allocated - .requested, .fragmentation == .inactive / .reserved, .inactive_split_bytes + .free_segment_bytes == .inactive, .split_fragmentation == .inactive_split_bytes / .reserved, .releasable_share == .free_segment_bytes / .reserved, .fragmentation_risk, .external_fragmentation == 1 - .largest_free / .inactive]'"
	assert_output '[true,true,true,true,true,"MEDIUM",true]'
}

@test "split free space and whole free segments are told apart" {
	# 85 % of the example's reserved memory is whole free segments, which
	# empty_cache() would release; the verdict follows the 14 % split.
	run -0 bash -c "mem-segments '$TOP/fixtures/example/memory_snapshot.json.gz' | tail -n 1 | jq -c '[.reserved, .inactive, .inactive_split_bytes, .free_segment_bytes, (.split_fragmentation * 100 | floor), (.releasable_share * 100 | floor), .fragmentation_risk]'"
	assert_output '[3781165056,3749445120,528219648,3221225472,13,85,"MEDIUM"]'
	# Nothing reserved: no ratios, no verdict.
	run -0 bash -c "echo '{\"segments\": []}' | mem-segments | jq -c '[.inactive_split_bytes, .free_segment_bytes, .split_fragmentation, .releasable_share, .fragmentation_risk]'"
	assert_output '[0,0,null,null,null]'
}

@test "a pending-free block counts as active and its request counts" {
	# As CUDACachingAllocator.cpp snapshot() sums them: requested_size
	# over active_allocated and active_pending_free blocks, not the stale
	# one of the inactive block.
	run -0 --separate-stderr mem-segments < "$FIXTURES/pending-free.json"
	assert_stderr ''
	assert_output - < "$FIXTURES/pending-free.ndjson"
	run -0 bash -c "mem-segments '$FIXTURES/pending-free.json' | tail -n 1 | jq -c '[.warnings, .reserved, .allocated, .active, .requested, .pending_free, .inactive, .inactive_split_bytes, .free_segment_bytes, .fragmentation_risk]'"
	assert_output '[0,4194304,524288,1048576,516384,524288,3145728,1048576,2097152,"HIGH"]'
}

@test "gzip and plain input give the same bytes" {
	zcat "$FIXTURES/cs336-silmont__mem_snapshot.json.gz" > "$BATS_TEST_TMPDIR/s.json"
	run -0 mem-segments < "$BATS_TEST_TMPDIR/s.json"
	plain=$output
	run -0 mem-segments < "$FIXTURES/cs336-silmont__mem_snapshot.json.gz"
	assert_output "$plain"
}

@test "a failed write exits 1" {
	run -1 --separate-stderr bash -c "mem-segments '$FIXTURES/cs336-magma27__memory_snapshot.json.gz' > /dev/full"
	assert_stderr --partial 'mem-segments: <stdout>:'
}

@test "a truncated snapshot is an error with its position" {
	zcat "$FIXTURES/cs336-silmont__mem_snapshot.json.gz" | head -c 300000 > "$BATS_TEST_TMPDIR/t.json"
	run -1 --separate-stderr mem-segments "$BATS_TEST_TMPDIR/t.json"
	assert_output ''
	assert_stderr --regexp 't.json:1:[0-9]+: unterminated string'
}

@test "not JSON, and JSON of the wrong shape, are errors" {
	run -1 --separate-stderr bash -c "echo 'segments: []' | mem-segments"
	assert_stderr --regexp '^mem-segments: <stdin>:1:1: '
	run -1 --separate-stderr bash -c "echo 42 | mem-segments"
	assert_stderr 'mem-segments: <stdin>:1:1: not a memory snapshot: expected an object or a list of segments'
	run -1 --separate-stderr bash -c "echo '{\"foo\": 1}' | mem-segments"
	assert_stderr --partial 'has no "segments" or "device_traces"'
	run -1 --separate-stderr bash -c "echo '{\"segments\": {}}' | mem-segments"
	assert_stderr 'mem-segments: <stdin>:1:14: "segments" is not a list'
}

@test "a pickle is refused with how to dump JSON instead" {
	need_shared memsnap/pickle
	run -1 --separate-stderr mem-segments "$SHARED/memsnap/pickle/cs336-silmont__memory_forward_bf16_128.pickle"
	assert_output ''
	assert_stderr --partial 'forward_bf16_128.pickle:1:1: this is a Python pickle, not JSON'
	assert_stderr --partial 'json.dump(torch.cuda.memory._snapshot()'
	assert_stderr --partial 'pickle.load'
}

@test "bytes after the last gzip member are an error" {
	local f=$BATS_TEST_TMPDIR/s.json.gz
	cp "$FIXTURES/cs336-silmont__mem_snapshot.json.gz" "$f"
	printf 'x' >> "$f"
	run -1 --separate-stderr mem-segments "$f"
	assert_output ''
	assert_stderr "mem-segments: $f: trailing garbage after gzip stream"
}

@test "a pickle of every protocol, 0 to 5, is named as one" {
	# Made by pickle.dumps(snapshot, protocol=N), and of an OrderedDict,
	# which starts with GLOBAL 'c'.
	local f t
	for f in "$TOP"/tests/corpus/mem-segments/pickle-*.pickle; do
		for t in mem-segments churn-score; do
			run -1 --separate-stderr "$t" "$f"
			assert_output ''
			assert_stderr --partial "$t: $f:1:1: this is a Python pickle, not JSON; read nothing"
		done
	done
}

@test "negative and non-integer sizes are errors" {
	src=$FIXTURES/cs336-silmont__mem_snapshot.json.gz
	zcat "$src" | jq -c '.segments[0].blocks[0].size = -512' > "$BATS_TEST_TMPDIR/n.json"
	run -1 --separate-stderr mem-segments "$BATS_TEST_TMPDIR/n.json"
	assert_stderr --regexp 'n.json:1:[0-9]+: "size" is negative: -512'
	zcat "$src" | jq -c '.segments[0].total_size = 1.5' > "$BATS_TEST_TMPDIR/f.json"
	run -1 --separate-stderr mem-segments "$BATS_TEST_TMPDIR/f.json"
	assert_stderr --regexp 'f.json:1:[0-9]+: "total_size" is not an integer: 1.5'
	zcat "$src" | jq -c '.segments[0].blocks[0].state = "lost"' > "$BATS_TEST_TMPDIR/s.json"
	run -1 --separate-stderr mem-segments "$BATS_TEST_TMPDIR/s.json"
	assert_stderr --partial 'unknown block state "lost"'
}

@test "sums that disagree are warnings and the segment's figures stand" {
	run -0 --separate-stderr mem-segments < "$FIXTURES/bad-sums.json"
	assert_output - < "$FIXTURES/bad-sums.ndjson"
	assert_stderr - <<-EOF
	mem-segments: <stdin>:3:5: warning: active_allocated blocks add up to 524288 bytes but the segment's allocated_size is 1048576
	mem-segments: <stdin>:3:5: warning: active blocks request 516384 bytes but the segment's requested_size is 500000
	EOF
	run -0 bash -c "mem-segments '$FIXTURES/bad-sums.json' 2>/dev/null | jq -c 'select(.kind == \"warning\") | [.tool, .line, .col]'"
	assert_output $'["mem-segments",3,5]\n["mem-segments",3,5]'
	src=$FIXTURES/cs336-silmont__mem_snapshot.json.gz
	zcat "$src" | jq -c '.segments[1].blocks[0].size += 512' > "$BATS_TEST_TMPDIR/b.json"
	run -0 --separate-stderr mem-segments "$BATS_TEST_TMPDIR/b.json"
	assert_stderr --regexp "^mem-segments: $BATS_TEST_TMPDIR/b.json:1:[0-9]+: warning: blocks add up to [0-9]+ bytes but the segment's total_size is [0-9]+\$"
	assert_line --index 0 --regexp '^\{"kind":"warning","tool":"mem-segments","file":".*b.json","line":1,"col":[0-9]+,"message":"blocks add up to'
	run -0 bash -c "mem-segments '$BATS_TEST_TMPDIR/b.json' 2>/dev/null | tail -n 1 | jq -c '[.warnings, .reserved]'"
	assert_output '[1,3781165056]'
}

@test "warnings past the sixteenth are counted, not written" {
	# 20 segments whose total_size is 512 bytes more than their blocks.
	zcat "$FIXTURES/cs336-silmont__mem_snapshot.json.gz" | jq -c '.segments = [range(20) as $i | .segments[0] | .address += $i * 1073741824 | .total_size += 512]' > "$BATS_TEST_TMPDIR/w.json"
	run -0 --separate-stderr mem-segments "$BATS_TEST_TMPDIR/w.json"
	assert_equal "$(printf '%s\n' "$stderr" | wc -l)" 17
	assert_equal "$(printf '%s\n' "$stderr" | tail -n 1 | sed 's/.*: warning: //')" '4 more warnings not shown'
	run -0 bash -c "mem-segments '$BATS_TEST_TMPDIR/w.json' 2>/dev/null | jq -c 'select(.kind == \"warning\") | .message' | tail -n 1"
	assert_output '"4 more warnings not shown"'
	run -0 bash -c "mem-segments '$BATS_TEST_TMPDIR/w.json' 2>/dev/null | jq -c 'select(.kind == \"warning\")' | wc -l"
	assert_output 17
	run -0 bash -c "mem-segments '$BATS_TEST_TMPDIR/w.json' 2>/dev/null | tail -n 1 | jq .warnings"
	assert_output 20
}

@test "every shared snapshot is analysed, the synthetic one with warnings" {
	need_shared memsnap
	for f in "$SHARED"/memsnap/*.json.gz; do
		run -0 --separate-stderr mem-segments "$f"
		assert_line --index -1 --partial '"kind":"memory_summary","file"'
		case $f in
		*SYNTHETIC*)
			assert_stderr --partial ': warning: '
			assert_line --index 0 --partial '{"kind":"warning","tool":"mem-segments"' ;;
		*)
			assert_stderr '' ;;
		esac
	done
	# The memory timeline is not a snapshot, and is still refused.
	run -1 --separate-stderr mem-segments "$SHARED/memsnap/hta__memory_timeline.raw.gz"
	assert_output ''
	assert_stderr --regexp 'memory_timeline.raw.gz:1:2: not a memory snapshot: a list whose first item is not a segment object$'
}

@test "allocator statistics are used when the snapshot has them" {
	zcat "$FIXTURES/cs336-silmont__mem_snapshot.json.gz" |
	    jq -c '.memory_stats = {"num_alloc_retries": 3, "num_ooms": 1, "allocated_bytes.all.peak": 4096, "reserved_bytes.all.peak": 8192}' > "$BATS_TEST_TMPDIR/m.json"
	run -0 bash -c "mem-segments '$BATS_TEST_TMPDIR/m.json' | tail -n 2 | jq -c '[.num_alloc_retries, .num_ooms, .peak_allocated, .peak_reserved]'"
	assert_output $'[3,1,4096,8192]\n[3,1,4096,8192]'
	run -0 bash -c "mem-segments '$FIXTURES/cs336-silmont__mem_snapshot.json.gz' | tail -n 1 | jq -c '[.num_alloc_retries, .num_ooms]'"
	assert_output '[null,null]'
}

@test "a file that cannot be opened is skipped with status 1" {
	run -1 --separate-stderr mem-segments "$BATS_TEST_TMPDIR/none.json" "$FIXTURES/cs336-silmont__mem_snapshot.json.gz"
	assert_stderr --partial 'none.json: No such file or directory'
	assert_equal "$(printf '%s\n' "$output" | wc -l)" 21
}

@test "profiler memory records give a peak and a rate per step" {
	cd "$FIXTURES"
	run -0 mem-segments < bert-small.records.ndjson.gz
	assert_output - < bert-small.ndjson
}

@test "tr-extract | mem-segments on a five-step trace" {
	need_shared traces/hta/df_index_resolver.json.gz
	run -0 bash -c "tr-extract '$SHARED/traces/hta/df_index_resolver.json.gz' | mem-segments | jq -c 'select(.device_type == 1) | [.kind, .phase, .allocs, .peak_allocated]'"
	assert_line --index 0 '["memory_profile",null,13385,6629508096]'
	assert_line --index 5 '["memory_phase","ProfilerStep#6",2677,6629508096]'
}

@test "EXAMPLES in the man page run" {
	cd "$FIXTURES"
	man_examples mem-segments.1 > "$BATS_TEST_TMPDIR/ex"
	run -0 bash -c "$(sed -n 1p "$BATS_TEST_TMPDIR/ex")"
	assert_output '[3781165056,528219648,3221225472,"MEDIUM"]'
	run -0 bash -c "$(sed -n 2p "$BATS_TEST_TMPDIR/ex")"
	assert_line --index 0 '[329252864,329252864,null]'
	assert_line --index 3 --partial '[329252864,1572864,"einsum@'
	run -0 bash -c "$(sed -n 3p "$BATS_TEST_TMPDIR/ex")"
	assert_output '["ProfilerStep#6",101305344,24626.568588156562]'
}

@test "a segment's layout keeps at most 64 runs, its bytes all there" {
	jq -n '[range(200) | 512 * (. + 1)] as $s
	    | ([range(0; 200; 2) | $s[.]] | add) as $a
	    | {segments: [{device: 0, address: 0, total_size: ($s | add),
	       allocated_size: $a, active_size: $a, requested_size: $a,
	       stream: 0, segment_type: "large",
	       blocks: [range(200) as $i | {address: ($s[0:$i] | add // 0),
	         size: $s[$i], requested_size: (if $i % 2 == 0 then $s[$i] else 0 end),
	         state: (if $i % 2 == 0 then "active_allocated" else "inactive" end)}]}],
	       device_traces: []}' > "$BATS_TEST_TMPDIR/s.json"
	run -0 --separate-stderr bash -c "mem-segments '$BATS_TEST_TMPDIR/s.json' | jq -c 'select(.kind == \"segment_layout\") | [(.runs | length) <= 64, .runs_merged == 200 - (.runs | length), (.runs | map(.[1]) | add) == .total_size, ([.runs[][0]] | unique)]'"
	assert_stderr ''
	assert_output '[true,true,true,["active_allocated","inactive"]]'
	# Fewer blocks than that are runs as they lie, adjacent states merged.
	run -0 bash -c "mem-segments '$FIXTURES/pending-free.json' | jq -c 'select(.kind == \"segment_layout\") | [.runs, .runs_merged]'"
	assert_output - <<'OUT'
[[["active_allocated",524288],["active_pending_free",524288],["inactive",1048576]],0]
[[["inactive",2097152]],0]
OUT
}

@test "a segment without blocks has no sites and no free runs" {
	# Found by the fuzzer: the sites were sorted from a buffer that a
	# blockless first segment never allocates.
	run -0 --separate-stderr bash -c "mem-segments '$TOP/tests/fuzz/corpus/memsnap/crash-blockless-segment.odd' | jq -c 'select(.kind != \"memory_summary\") | [.kind, .top_sites // .sites, .runs, .largest_free]'"
	assert_stderr ''
	assert_output - <<'OUT'
["segment",null,null,0]
["segment_layout",null,[],null]
["memory_sites",[],null,null]
OUT
}

@test "a trace cut off before its closing bracket becomes a warning record" {
	local tr=$TOP/fixtures/tr-extract
	run -0 --separate-stderr bats_pipe tr-extract "$tr/kineto_resnet50_array_head_open.json" \| mem-segments
	assert_output "{\"kind\":\"warning\",\"tool\":\"mem-segments\",\"file\":\"$tr/kineto_resnet50_array_head_open.json\",\"line\":null,\"col\":null,\"message\":\"the event array has no closing ']'; the trace may be cut off\"}"
	assert_stderr --partial "mem-segments: $tr/kineto_resnet50_array_head_open.json: warning: the event array has no closing ']'; the trace may be cut off"
	run -0 --separate-stderr bats_pipe tr-extract "$tr/kineto_resnet50_array_head.json" \| mem-segments
	assert_output ''
	assert_stderr ''
}

@test "memory_sites adds up to the active bytes of every snapshot" {
	cd "$FIXTURES"
	for f in $LOCAL loop-leak-late loop-retry; do
		want=$(zcat "$f.json.gz" | jq -c '(if type == "array" then . else .segments end)
		    | [.[].blocks[] | select(.state != "inactive")] | [([.[].size] | add // 0), length]')
		run -0 bash -c "mem-segments '$f.json.gz' | jq -sc '[.[] | select(.kind == \"memory_sites\")]
		    | [(map(([.sites[].bytes] | add // 0) + .other_bytes + .no_site_bytes) | add),
		       (map(([.sites[].blocks] | add // 0) + .other_blocks + .no_site_blocks) | add)]'"
		assert_output "$want"
	done
}

@test "memory_sites names each site's active bytes, most first" {
	run -0 bash -c "mem-segments '$FIXTURES/loop-leak-late.json.gz' | jq -c 'select(.kind == \"memory_sites\") | [.device, .sites_total, .sites, .other_bytes, .no_site_bytes]'"
	assert_output '[0,2,[{"site":"train_step@/home/user/leak_loop.py:44","bytes":20971520,"blocks":8},{"site":"__init__@/home/user/leak_loop.py:12","bytes":16777216,"blocks":4}],0,0]'
	# Blocks without stacks have no site, and are counted apart.
	zcat "$FIXTURES/loop-leak-late.json.gz" | jq -c '.segments[].blocks[].frames = []' >"$BATS_TEST_TMPDIR/nostack.json"
	run -0 bash -c "mem-segments '$BATS_TEST_TMPDIR/nostack.json' | jq -c 'select(.kind == \"memory_sites\") | [.sites_total, .no_site_bytes, .no_site_blocks]'"
	assert_output '[0,37748736,12]'
}

@test "memory_sites keeps 200 sites and counts the rest" {
	# 300 one-block segments, each from its own line.
	jq -nc '{segments: [range(300) as $i | {device: 0, address: (1048576 * ($i + 1) * 4),
	    total_size: 2097152, allocated_size: 2097152, active_size: 2097152,
	    requested_size: 2097152, stream: 0, segment_type: "large",
	    blocks: [{address: (1048576 * ($i + 1) * 4), size: 2097152, requested_size: 2097152,
	      state: "active_allocated", frames: [{name: "f", filename: "/src/m.py", line: $i}]}]}],
	  device_traces: []}' >"$BATS_TEST_TMPDIR/many.json"
	run -0 bash -c "mem-segments '$BATS_TEST_TMPDIR/many.json' | jq -c 'select(.kind == \"memory_sites\") | [.sites_total, (.sites | length), .other_blocks, .other_bytes, .sites[0].site, .sites[199].site]'"
	# Equal bytes: by name, as strcmp(3) orders them.
	assert_output '[300,200,100,209715200,"f@/src/m.py:0","f@/src/m.py:278"]'
}

@test "a frame's name that holds a NUL stays whole and apart" {
	# Two blocks of one line, their functions named apart after a NUL.
	jq -nc '{segments: [range(2) as $i | {device: 0, address: (4194304 * ($i + 1)),
	    total_size: 2097152, allocated_size: 2097152, active_size: 2097152,
	    requested_size: 2097152, stream: 0, segment_type: "large",
	    blocks: [{address: (4194304 * ($i + 1)), size: 2097152, requested_size: 2097152,
	      state: "active_allocated",
	      frames: [{name: ("f\u0000" + ["a", "b"][$i]), filename: "/src/m.py", line: 7}]}]}],
	  device_traces: []}' >"$BATS_TEST_TMPDIR/nul.json"
	run -0 bats_pipe mem-segments "$BATS_TEST_TMPDIR/nul.json" \
	    \| grep -o '"sites":\[[^]]*\]'
	assert_output '"sites":[{"site":"f\u0000a@/src/m.py:7","bytes":2097152,"blocks":1},{"site":"f\u0000b@/src/m.py:7","bytes":2097152,"blocks":1}]'
}
