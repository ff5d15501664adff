bats_require_minimum_version 1.5.0

# op-rank --partial and --merge: ranking traces apart and merging the
# partials must give what one run over all the traces gives, byte for byte.

setup() {
	load test_helper
	export MRP_RUBRIC="$TOP/rubric"
	OPRANK="$TOP/fixtures/op-rank"
	DLRM="$SHARED/traces/param_dlrm_8rank"
	T="$BATS_TEST_TMPDIR"
}

# files: the DLRM traces, one per rank, in rank order; the test is
# skipped without them.  Not through run, whose subshell a skip would end
# instead of the test.
dlrm() {
	need_shared traces/param_dlrm_8rank
	files=("$DLRM"/worker*.pt.trace.json)
}

# partials DIR OPTION... -- FILE...: one partial per trace, DIR/p<n>.ndjson
# in the order of the files, and DIR/all.out: one run over all of them.
partials() {
	local dir=$1 n=0 f
	shift
	local opts=()
	while [ "$1" != -- ]; do
		opts+=("$1")
		shift
	done
	shift
	mkdir -p "$dir"
	for f in "$@"; do
		tr-extract "$f" | op-rank "${opts[@]}" --partial \
		    >"$dir/p$n.ndjson" || return 1
		n=$((n + 1))
	done
	tr-extract "$@" | op-rank "${opts[@]}" >"$dir/all.out"
}

@test "tr-extract numbers each file alike alone and among all" {
	dlrm
	tr-extract "${files[@]}" >"$T/all.ndjson"
	for f in "${files[@]}"; do
		tr-extract "$f"
	done >"$T/each.ndjson"
	cmp "$T/all.ndjson" "$T/each.ndjson"
}

@test "DLRM 8 ranks: the merged partials are the one pass, in any order" {
	dlrm
	partials "$T/d" -- "${files[@]}"
	# The slowest rank's summary and the summary across ranks.
	[ "$(grep -c '"kind":"cpu_summary"' "$T/d/all.out")" -eq 2 ]
	[ "$(grep -c '"kind":"rank_summary"' "$T/d/all.out")" -eq 8 ]
	op-rank --merge "$T"/d/p{0,1,2,3,4,5,6,7}.ndjson >"$T/fwd.out"
	cmp "$T/d/all.out" "$T/fwd.out"
	op-rank --merge "$T"/d/p{7,6,5,4,3,2,1,0}.ndjson >"$T/rev.out"
	cmp "$T/d/all.out" "$T/rev.out"
	op-rank --merge "$T"/d/p{3,6,0,5,7,1,4,2}.ndjson >"$T/shuf.out"
	cmp "$T/d/all.out" "$T/shuf.out"
	# One rank per partial, so the partials are much smaller than traces.
	[ "$(wc -c <"$T/d/p0.ndjson")" -lt \
	    "$(($(wc -c <"${files[0]}") / 5))" ]
}

@test "DLRM 8 ranks: merged as a tree, the partials are the one pass" {
	dlrm
	partials "$T/d" -- "${files[@]}"
	cd "$T/d"
	op-rank --partial --merge p0.ndjson p1.ndjson >a.ndjson
	op-rank --partial --merge p3.ndjson p2.ndjson >b.ndjson
	op-rank --partial --merge p4.ndjson p5.ndjson >c.ndjson
	op-rank --partial --merge p7.ndjson p6.ndjson >d.ndjson
	op-rank --partial --merge b.ndjson a.ndjson >ab.ndjson
	op-rank --partial --merge c.ndjson d.ndjson >cd.ndjson
	op-rank --merge cd.ndjson ab.ndjson >tree.out
	cmp all.out tree.out
	# A merged partial is the partial of one run over its inputs.
	tr-extract "${files[@]:0:4}" | op-rank --partial >ab.one
	cmp ab.one ab.ndjson
	# ((1+2)+3)+... as a chain, the left side always a merged partial.
	cp p0.ndjson chain.ndjson
	for i in 1 2 3 4 5 6 7; do
		op-rank --partial --merge chain.ndjson "p$i.ndjson" >next.ndjson
		mv next.ndjson chain.ndjson
	done
	op-rank --merge chain.ndjson >chain.out
	cmp all.out chain.out
}

@test "DLRM 8 ranks: -n, -k and --phase give the same merge" {
	dlrm
	for opts in "-n 3" "--phase backward" "-k gpu -n 5" \
	    "-k mean -p forward" "-k self -p communication"; do
		rm -rf "$T/o"
		# shellcheck disable=SC2086 # the options split on purpose
		partials "$T/o" $opts -- "${files[@]}"
		# shellcheck disable=SC2086
		op-rank $opts --merge "$T"/o/p{5,2,7,0,1,6,3,4}.ndjson \
		    >"$T/o/merge.out"
		cmp "$T/o/all.out" "$T/o/merge.out"
	done
	# The phase is in the records: the option did take effect.
	grep -q '"phase":"communication"' "$T/o/merge.out"
}

@test "one trace's partial merged alone is the one pass over it" {
	dlrm
	for f in "${files[0]}" "${files[5]}" "$OPRANK/sampled_rank-1.json.gz"; do
		tr-extract "$f" | op-rank >"$T/one.out"
		tr-extract "$f" | op-rank --partial | op-rank --merge - \
		    >"$T/merge.out"
		cmp "$T/one.out" "$T/merge.out"
	done
}

@test "merged output keeps each rank's records together, ranks increasing" {
	dlrm
	partials "$T/d" -- "${files[@]}"
	run -0 bash -o pipefail -c "op-rank -a --merge '$T'/d/p{6,1,4,3,7,0,2,5}.ndjson |
	    jq -r 'select(.kind != \"op_ranks\" and .kind != \"rank_summary\") | .rank // \"all\"' | uniq | paste -sd' '"
	assert_output '0 1 2 3 4 5 6 7 all'
	# Within a rank the kinds come in the one pass's order.
	run -0 bash -o pipefail -c "op-rank -a --merge '$T'/d/p{6,1,4,3,7,0,2,5}.ndjson |
	    jq -r 'select(.rank == 3) | .kind' | uniq | paste -sd' '"
	assert_output 'op thread_total family_total phase_total step step_stats ledger ledger_total kernel gemm_precision gpu_timeline gpu_device runtime_total runtime_call runtime_caller runtime_issuer op_shape compute_summary cpu_summary rank_summary'
	# Without -a, the other ranks keep only what the charts draw per rank.
	run -0 bash -o pipefail -c "op-rank --merge '$T'/d/p{6,1,4,3,7,0,2,5}.ndjson |
	    jq -r 'select(.rank == 3) | .kind' | uniq | paste -sd' '"
	assert_output 'step ledger ledger_total gpu_timeline rank_summary'
}

@test "the bundled two-rank traces merge into the one pass" {
	partials "$T/s" -k self -n 5 -- "$OPRANK/sampled_rank-0.json.gz" \
	    "$OPRANK/sampled_rank-1.json.gz"
	op-rank -k self -n 5 --merge "$T/s/p1.ndjson" "$T/s/p0.ndjson" \
	    >"$T/s/merge.out"
	cmp "$T/s/all.out" "$T/s/merge.out"
	grep -q '"kind":"op_ranks"' "$T/s/merge.out"
}

@test "the man page's partial example merges two ranks" {
	cd "$OPRANK"
	tr-extract sampled_rank-0.json.gz | op-rank --partial >"$T/r0.ndjson"
	tr-extract sampled_rank-1.json.gz | op-rank --partial >"$T/r1.ndjson"
	run -0 bash -o pipefail -c "op-rank --merge '$T/r0.ndjson' '$T/r1.ndjson' |
	    jq -c 'select(.kind == \"cpu_summary\") | .ranks'"
	assert_output $'null\n2'
}

# Several ranks, rank 0 in six traces of other windows and traces of no
# rank in several: ranks that span partials add up as in one run.
@test "ranks spread over several partials merge as in one run" {
	need_shared traces/hta/sampled_rank-0.json.gz
	local h="$SHARED/traces/hta" l="$SHARED/traces/tracelens"
	local files=("$h/benchmark_result_2869224_1695835535_trace.json.gz"
	    "$h/cuda_event_sync_multi_stream.json.gz"
	    "$h/benchmark_simple_add_trace.json.gz"
	    "$h/step_based_trace_2543932.json.gz"
	    "$h/rank-34.Jul_15_10_52_41.1074.pt.trace.json.gz"
	    "$h/inference_rank_1.json.gz" "$h/triton_example.json.gz"
	    "$l/torch_compile_triton.json.gz"
	    "$l/mi210_gpu_only_trace.json.gz" "$h/backward_thread.json"
	    "$h/sampled_rank-0.json.gz" "$h/sampled_rank-1.json.gz")
	partials "$T/m" -- "${files[@]}"
	# Ranks 0, 1, 34, none: the slowest's summary and that of all.
	[ "$(grep -c '"kind":"cpu_summary"' "$T/m/all.out")" -eq 2 ]
	[ "$(grep -c '"kind":"rank_summary"' "$T/m/all.out")" -eq 3 ]
	tr-extract "${files[@]}" | op-rank -a >"$T/m/every.out"
	grep -q '"kind":"cpu_summary","rank":0,"traces":6,' "$T/m/every.out"
	cd "$T/m"
	op-rank --merge p{11,10,9,8,7,6,5,4,3,2,1,0}.ndjson >rev.out
	cmp all.out rev.out
	op-rank --partial --merge p0.ndjson p5.ndjson p9.ndjson >x.ndjson
	op-rank --partial --merge p{11,1,6,3}.ndjson >y.ndjson
	op-rank --merge p{2,4,7,8,10}.ndjson y.ndjson x.ndjson >tree.out
	cmp all.out tree.out
	# -a: every rank's detail, merged alike.
	op-rank -a --merge p{2,4,7,8,10}.ndjson y.ndjson x.ndjson >every-tree.out
	cmp every.out every-tree.out
}

@test "one rank over several windows: split by window, merged as one" {
	local w i=0
	for w in 0 1000 3000; do
		{
			printf '{"kind":"event","name":"aten::mm","cat":"cpu_op","pid":1,"tid":1,"ts":%d,"dur":%d}\n' \
			    "$((w + 10))" "$((w / 100 + 40))"
			# The thread's name differs between windows, none in one.
			[ "$w" -eq 1000 ] ||
			    printf '{"kind":"thread","pid":1,"tid":1,"name":"main-%d"}\n' \
			    "$((5 - w / 1000))"
			printf '{"kind":"event","name":"ProfilerStep#%d","cat":"user_annotation","pid":1,"tid":1,"ts":%d,"dur":90}\n' \
			    "$((w / 1000))" "$w"
			printf '{"kind":"trace","file":"w%d.json","rank":2,"origin_ns":%d,"start":0,"end":500,"events":2}\n' \
			    "$w" "$((w * 1000))"
		} >"$T/t$i.ndjson"
		op-rank --partial "$T/t$i.ndjson" >"$T/w$i.ndjson"
		i=$((i + 1))
	done
	op-rank "$T"/t{0,1,2}.ndjson >"$T/one.out"
	grep -q '"kind":"step_stats","rank":2,"steps":3' "$T/one.out"
	op-rank --merge "$T"/w{2,0,1}.ndjson >"$T/merge.out"
	cmp "$T/one.out" "$T/merge.out"
	op-rank --merge "$T"/w{0,1,2}.ndjson >"$T/merge.out"
	cmp "$T/one.out" "$T/merge.out"
	# The name that sorts first stays, in whatever order windows come.
	grep -q '"kind":"thread_total","rank":2,"pid":1,"tid":1,"name":"main-2"' \
	    "$T/one.out"
	op-rank "$T"/t{2,1,0}.ndjson >"$T/back.out"
	cmp "$T/one.out" "$T/back.out"
	# The same window twice is refused, across partials as in one run.
	run -1 --separate-stderr op-rank --merge "$T/w1.ndjson" "$T/w0.ndjson" \
	    "$T/w1.ndjson"
	assert_stderr 'op-rank: w1000.json and w1000.json: both rank 2, same window'
	run -1 --separate-stderr op-rank --partial --merge "$T/w0.ndjson" \
	    "$T/w0.ndjson"
	assert_stderr --partial 'both rank 2, same window'
}

# An operator and an annotation of one name and time: op_ranks orders them
# by class, not by which name came first, so neither order of the ranks nor
# of the partials changes the output.
@test "op_ranks ties between classes do not depend on input order" {
	ev() {
		printf '{"kind":"event","name":"x","cat":"%s","pid":1,"tid":1,"ts":%d,"dur":50}\n' \
		    "$1" "$2"
	}
	{
		ev cpu_op 0
		ev user_annotation 100
		printf '{"kind":"trace","rank":0,"origin_ns":0,"start":0,"end":200,"events":2}\n'
	} >"$T/a.ndjson"
	{
		ev user_annotation 0
		ev cpu_op 100
		printf '{"kind":"trace","rank":1,"origin_ns":0,"start":0,"end":200,"events":2}\n'
	} >"$T/b.ndjson"
	op-rank "$T/a.ndjson" "$T/b.ndjson" >"$T/ab.out"
	op-rank "$T/b.ndjson" "$T/a.ndjson" >"$T/ba.out"
	cmp "$T/ab.out" "$T/ba.out"
	run -0 jq -r 'select(.kind == "op_ranks") | .class' "$T/ab.out"
	assert_output $'annotation\nop'
	op-rank --partial "$T/a.ndjson" >"$T/a.partial"
	op-rank --partial "$T/b.ndjson" >"$T/b.partial"
	op-rank --merge "$T/b.partial" "$T/a.partial" >"$T/merge.out"
	cmp "$T/ab.out" "$T/merge.out"
}

@test "empty input: a partial of nothing merges into nothing" {
	run -0 op-rank --partial </dev/null
	assert_line --index 0 --partial '{"kind":"op_partial","version":3,'
	assert_line --index 1 '{"kind":"op_partial_end","records":0}'
	op-rank --partial </dev/null >"$T/empty.ndjson"
	run -0 op-rank --merge "$T/empty.ndjson"
	assert_output ''
	run -0 op-rank </dev/null
	assert_output ''
	# Merged with a real partial it changes nothing.
	tr-extract "$OPRANK/sampled_rank-0.json.gz" >"$T/r0.ndjson"
	op-rank --partial <"$T/r0.ndjson" >"$T/p0.ndjson"
	op-rank <"$T/r0.ndjson" >"$T/one.out"
	op-rank --merge "$T/empty.ndjson" "$T/p0.ndjson" "$T/empty.ndjson" \
	    >"$T/merge.out"
	cmp "$T/one.out" "$T/merge.out"
}

@test "gzip partials merge as plain ones" {
	tr-extract "$OPRANK/sampled_rank-0.json.gz" | op-rank --partial \
	    >"$T/p0.ndjson"
	tr-extract "$OPRANK/sampled_rank-1.json.gz" | op-rank --partial \
	    >"$T/p1.ndjson"
	gzip -c "$T/p1.ndjson" >"$T/p1.gz.bin"
	op-rank --merge "$T/p0.ndjson" "$T/p1.ndjson" >"$T/plain.out"
	op-rank --merge "$T/p0.ndjson" "$T/p1.gz.bin" >"$T/gz.out"
	cmp "$T/plain.out" "$T/gz.out"
	gzip -c "$T/p0.ndjson" | op-rank --merge - "$T/p1.gz.bin" >"$T/gz2.out"
	cmp "$T/plain.out" "$T/gz2.out"
}

@test "a partial cut short is refused with file:line:col" {
	tr-extract "$OPRANK/sampled_rank-0.json.gz" | op-rank --partial \
	    >"$T/p.ndjson"
	n=$(wc -l <"$T/p.ndjson")
	# Cut at a line: the end record is missing.
	head -n 20 "$T/p.ndjson" >"$T/cut.ndjson"
	run -1 --separate-stderr op-rank --merge "$T/cut.ndjson"
	assert_stderr "op-rank: $T/cut.ndjson:21:1: partial ends without its \"op_partial_end\" record: cut short"
	assert_output ''
	# Cut inside a record.
	head -c 3000 "$T/p.ndjson" >"$T/mid.ndjson"
	run -1 --separate-stderr op-rank --merge "$T/mid.ndjson"
	assert_stderr --regexp "^op-rank: $T/mid.ndjson:[0-9]+:[0-9]+: "
	# A gzip partial cut short.
	gzip -c "$T/p.ndjson" | head -c 2000 >"$T/cut.gz.bin"
	run -1 --separate-stderr op-rank --merge "$T/cut.gz.bin"
	assert_stderr --regexp "^op-rank: $T/cut.gz.bin:"
	# A record lost from the middle.
	sed 5d "$T/p.ndjson" >"$T/lost.ndjson"
	run -1 --separate-stderr op-rank --merge "$T/lost.ndjson"
	assert_stderr "op-rank: $T/lost.ndjson:$((n - 1)):1: partial of $((n - 2)) records has $((n - 3))"
	# An empty file is no partial.
	: >"$T/empty.ndjson"
	run -1 --separate-stderr op-rank --merge "$T/empty.ndjson"
	assert_stderr "op-rank: $T/empty.ndjson:1:1: partial ends without its \"op_partial_end\" record: cut short"
	# Records after the end.
	cat "$T/p.ndjson" "$T/p.ndjson" >"$T/twice.ndjson"
	run -1 --separate-stderr op-rank --merge "$T/twice.ndjson"
	assert_stderr "op-rank: $T/twice.ndjson:$((n + 1)):1: \"op_partial\" record after \"op_partial_end\""
}

@test "a collective call's bytes or group size out of range is refused" {
	tr-extract "$OPRANK/sampled_rank-0.json.gz" | op-rank --partial \
	    >"$T/p.ndjson"
	n=$(grep -n -m1 '"op_partial_collective"' "$T/p.ndjson" | cut -d: -f1)
	for bad in '"group_size":0' '"group_size":4294967296'; do
		sed "${n}s/}\$/,$bad}/" "$T/p.ndjson" >"$T/bad.ndjson"
		run -1 --separate-stderr op-rank --merge "$T/bad.ndjson"
		assert_stderr "op-rank: $T/bad.ndjson:$n:1: \"bytes\" or \"group_size\" out of range"
	done
	sed "${n}s/}\$/,\"bytes\":-8}/" "$T/p.ndjson" >"$T/bad.ndjson"
	run -1 --separate-stderr op-rank --merge "$T/bad.ndjson"
	assert_stderr --regexp "^op-rank: $T/bad.ndjson:$n:[0-9]+: \"op_partial_collective\" record's \"bytes\" is out of range: -8\$"
	# Whole, the same partial merges.
	run -0 op-rank --merge "$T/p.ndjson"
}

# forge KIND FROM TO: the partial $T/p.ndjson with FROM (sed) as TO in its
# first KIND record, into $T/bad.ndjson; n is that record's line.
forge() {
	n=$(grep -n -m1 "\"kind\":\"$1\"" "$T/p.ndjson" | cut -d: -f1)
	sed "${n}s/$2/$3/" "$T/p.ndjson" >"$T/bad.ndjson"
	! cmp -s "$T/p.ndjson" "$T/bad.ndjson"
}

# refused KIND FROM TO MESSAGE: the forged partial is refused, at its line,
# with MESSAGE.
refused() {
	forge "$1" "$2" "$3"
	run -1 --separate-stderr op-rank --merge "$T/bad.ndjson"
	assert_stderr --regexp "^op-rank: $T/bad.ndjson:$n:[0-9]+: $4\$"
	assert_output ''
}

@test "a partial's durations, counts, bytes and times out of range are refused, the field named" {
	tr-extract "$OPRANK/sampled_rank-0.json.gz" | op-rank --partial \
	    >"$T/p.ndjson"
	# A collective call of -1 ns was merged into a transfer of -0.001 µs;
	# one of 2^63-1 ns into 9.2e15 µs waited.
	refused op_partial_collective '"dur":[0-9]*' '"dur":-1' \
	    '"op_partial_collective" record.s "dur" is out of range: -1'
	refused op_partial_collective '"dur":[0-9]*' '"dur":9223372036854775807' \
	    '"op_partial_collective" record.s "dur" is out of range: 9223372036854775807'
	refused op_partial_collective '"ts":[0-9]*' '"ts":-4611686018427387905' \
	    '"op_partial_collective" record.s "ts" is out of range: -4611686018427387905'
	refused op_partial_name '"total":[0-9]*' '"total":-5' \
	    '"op_partial_name" record.s "total" is out of range: -5'
	refused op_partial_name '"count":[0-9]*' '"count":-1' \
	    '"op_partial_name" record.s "count" is out of range: -1'
	refused op_partial_rank '"gpu_events":[0-9]*' '"gpu_events":-1' \
	    '"op_partial_rank" record.s "gpu_events" is out of range: -1'
	refused op_partial_rank '"phase_gpu":\[[0-9]*' '"phase_gpu":[-3' \
	    '"op_partial_rank" record.s "phase_gpu" holds a value out of range: -3'
	refused op_partial_rank '"end":[0-9]*' '"end":0' \
	    '"op_partial_rank" record.s "end" is before its "start"'
	# Refused after its GPU's name: nothing of it is kept (the partial
	# harness found that name leaked).
	refused op_partial_rank '"traces":1,\(.*\)"start":[0-9]*' '"traces":1,"gpu":"H100",\1"start":"x"' \
	    '"op_partial_rank" record does not have "start" as an integer'
	refused op_partial_thread '"busy":[0-9]*' '"busy":-7' \
	    '"op_partial_thread" record.s "busy" is out of range: -7'
	refused op_partial_device '"window":[0-9]*' '"window":-1' \
	    '"op_partial_device" record.s "window" is out of range: -1'
	refused op_partial_runtime '"total":[0-9]*' '"total":-1' \
	    '"op_partial_runtime" record.s "total" is out of range: -1'
	refused op_partial_step '"end":[0-9]*' '"end":1' \
	    '"op_partial_step" record.s "end" is before its "cpu_end"'
	refused op_partial_step '"flops":[0-9]*' '"flops":1e400' \
	    '"flops" is not a finite number of 0 or more'
	refused op_partial_ledger '"start":[0-9]*' '"start":5000000000000000000' \
	    '"op_partial_ledger" record.s "start" is out of range: 5000000000000000000'
	refused op_partial_shape '"count":[0-9]*' '"count":-2' \
	    '"op_partial_shape" record.s "count" is out of range: -2'
	refused op_partial_shape '"flops":[0-9.e+]*' '"flops":-1' \
	    '"op_partial_shape" record.s "flops" is not a finite number of 0 or more'
	refused op_partial_window '"end":[0-9]*' '"end":1' \
	    '"op_partial_window" record.s "end" is before its "start"'
}

@test "sums of partials saturate: self time over ranks is 2^63-1 at most, never wrapped" {
	tr-extract "$OPRANK/sampled_rank-0.json.gz" | op-rank --partial \
	    >"$T/p.ndjson"
	# Three ranks, each with 4e18 ns of one operator's self time: in
	# range apart, their sum is past 64 bits (it wrapped to -6.4e18).
	sed '/"kind":"op_partial_name","rank":0,"class":"op"/{s/"self":[0-9]*/"self":4000000000000000000/;:a;n;ba}' \
	    "$T/p.ndjson" >"$T/bad.ndjson"
	for k in 0 1 2; do
		sed "s/\"rank\":0/\"rank\":$k/" "$T/bad.ndjson" >"$T/r$k.ndjson"
	done
	run -0 bats_pipe op-rank --merge "$T/r0.ndjson" "$T/r1.ndjson" "$T/r2.ndjson" \
	    \| grep '"kind":"cpu_summary","ranks"' \| grep -o '"self_total":[-0-9]*'
	assert_output '"self_total":9223372036854775807'
}

@test "collectives: a bus bandwidth past the GPU's memory is left out, said in Data quality; rows show their group" {
	tr-extract "$OPRANK/sampled_rank-0.json.gz" | op-rank --partial \
	    >"$T/p.ndjson"
	# Forged sizes: a petabyte a call gave 7.9e14 GB/s in the table.
	for k in 0 1; do
		sed -e '/"op_partial_collective"/s/}$/,"bytes":1000000000000000,"group":"7","group_size":2}/' \
		    -e "s/\"rank\":0/\"rank\":$k/" "$T/p.ndjson" >"$T/r$k.ndjson"
	done
	op-rank --merge "$T/r0.ndjson" "$T/r1.ndjson" >"$T/m.ndjson"
	run -0 jq -c 'select(.kind == "collective") | [.instance, .group, .busbw_beyond_gpu, .busbw]' "$T/m.ndjson"
	assert_line --index 0 '[1,"7",true,null]'
	assert_equal "${#lines[@]}" 10
	run -0 jq -c 'select(.kind == "collective_total") | [.group, .busbw_beyond_gpu, .median_busbw]' "$T/m.ndjson"
	assert_output '["7",10,null]'
	run -0 jq -r 'select(.kind == "warning") | .message' "$T/m.ndjson"
	assert_output '10 instances of collective ncclKernel_SendRecv_RING_SIMPLE_Sum_int8_t(ncclDevComm*, unsigned long, ncclWork*) (group 7) give a bus bandwidth over 8000 GB/s, more than the memory of any GPU moves: their message sizes are not what was sent, and their bandwidths are left out'
	rubric-apply "$T/m.ndjson" >"$T/f.ndjson"
	run -0 bash -c 'cat "$1" "$2" | report-md' - "$T/m.ndjson" "$T/f.ndjson"
	assert_output --partial '- 10 instances of collective ncclKernel_SendRecv_RING_SIMPLE_Sum_int8_t(ncclDevComm\*, unsigned long, ncclWork\*) (group 7) give a bus bandwidth over 8000 GB/s'
	assert_output --partial '| Collective                               | Kind      | Group | Instances |'
	assert_output --partial '| ncclKernel_Se…ecv_RING_SIMPLE_Sum_int8_t | send_recv | 7     |        10 |     2 |      0.0 µs |        39.33 ms | rank 0 (10 of 10) | left out (see Data quality) |'
	# On an H100 (op-rank -g), its 3.35 TB/s bounds them: 100 GB a call
	# in 11.7 to 67.8 ms is 8,527 to 1,474 GB/s; the three calls under
	# 29.9 ms are left out, the seven slower ones kept.
	for k in 0 1; do
		sed -e '/"op_partial_collective"/s/}$/,"bytes":100000000000,"group":"7","group_size":2}/' \
		    -e "s/\"rank\":0/\"rank\":$k/" "$T/p.ndjson" >"$T/r$k.ndjson"
	done
	op-rank -g H100-SXM --merge "$T/r0.ndjson" "$T/r1.ndjson" >"$T/m.ndjson"
	run -0 bash -o pipefail -c 'jq -c "select(.kind == \"collective\")
	    | [.busbw_beyond_gpu, (.busbw // 0) <= 3350]" "$1" | sort | uniq -c' - "$T/m.ndjson"
	assert_output - <<-EOF
	      7 [null,true]
	      3 [true,true]
	EOF
	run -0 jq -r 'select(.kind == "warning") | .message' "$T/m.ndjson"
	assert_output --partial '3 instances of collective ncclKernel_SendRecv_RING_SIMPLE_Sum_int8_t(ncclDevComm*, unsigned long, ncclWork*) (group 7) give a bus bandwidth over 3350 GB/s, more than the memory of the H100-SXM moves'
}

@test "partials of another version, options or tables are refused" {
	tr-extract "$OPRANK/sampled_rank-0.json.gz" >"$T/r0.ndjson"
	op-rank --partial <"$T/r0.ndjson" >"$T/p.ndjson"
	op-rank --partial -n 5 <"$T/r0.ndjson" >"$T/n5.ndjson"
	op-rank --partial -p forward <"$T/r0.ndjson" >"$T/fwd.ndjson"
	op-rank --partial -k self <"$T/r0.ndjson" >"$T/self.ndjson"
	sed '1s/"version":3/"version":4/' "$T/p.ndjson" >"$T/v4.ndjson"
	run -1 --separate-stderr op-rank --merge "$T/v4.ndjson"
	assert_stderr "op-rank: $T/v4.ndjson:1:32: partial of version 4, not 3"
	run -1 --separate-stderr op-rank --merge "$T/p.ndjson" "$T/n5.ndjson"
	assert_stderr "op-rank: $T/n5.ndjson:1:56: partial made with -n 5, not -n 0"
	run -1 --separate-stderr op-rank -n 5 --merge "$T/n5.ndjson" "$T/p.ndjson"
	assert_stderr "op-rank: $T/p.ndjson:1:56: partial made with -n 0, not -n 5"
	run -1 --separate-stderr op-rank --merge "$T/fwd.ndjson"
	assert_stderr "op-rank: $T/fwd.ndjson:1:66: partial made with -p forward, not -p none"
	run -1 --separate-stderr op-rank -p backward --merge "$T/fwd.ndjson"
	assert_stderr "op-rank: $T/fwd.ndjson:1:66: partial made with -p forward, not -p backward"
	run -1 --separate-stderr op-rank -p forward --merge "$T/p.ndjson"
	assert_stderr "op-rank: $T/p.ndjson:1:66: partial made with -p none, not -p forward"
	run -1 --separate-stderr op-rank --merge "$T/self.ndjson"
	assert_stderr "op-rank: $T/self.ndjson:1:40: partial made with -k self, not -k total"
	# Another family table: the families differ, so the sums would too.
	{ cat "$MRP_RUBRIC/op-families.tsv"; printf 'cpu\tmine\taten::mm\n'; } \
	    >"$T/fam.tsv"
	run -1 --separate-stderr op-rank -f "$T/fam.tsv" --merge "$T/p.ndjson"
	assert_stderr --regexp "^op-rank: $T/p.ndjson:1:[0-9]+: partial made with another family table\$"
	op-rank -f "$T/fam.tsv" --partial <"$T/r0.ndjson" >"$T/fam.ndjson"
	run -0 op-rank -f "$T/fam.tsv" --merge "$T/fam.ndjson"
}

@test "what is not a partial is refused, and partials are no trace records" {
	tr-extract "$OPRANK/sampled_rank-0.json.gz" >"$T/r0.ndjson"
	op-rank --partial <"$T/r0.ndjson" >"$T/p.ndjson"
	run -1 --separate-stderr op-rank --merge "$T/r0.ndjson"
	assert_stderr "op-rank: $T/r0.ndjson:1:1: not an op-rank partial: \"event\" record before \"op_partial\""
	run -1 --separate-stderr op-rank "$T/p.ndjson"
	assert_stderr "op-rank: $T/p.ndjson:1:1: a partial: merge it with --merge"
	# A record of an unknown kind inside, and a bad member.
	sed '3s/"kind":"op_partial_[a-z]*"/"kind":"op_partial_bogus"/' \
	    "$T/p.ndjson" >"$T/bogus.ndjson"
	run -1 --separate-stderr op-rank --merge "$T/bogus.ndjson"
	assert_stderr "op-rank: $T/bogus.ndjson:3:1: not a partial record: \"op_partial_bogus\""
	sed '3s/"traces":1/"traces":"1"/' "$T/p.ndjson" >"$T/str.ndjson"
	run -1 --separate-stderr op-rank --merge "$T/str.ndjson"
	assert_stderr --regexp "^op-rank: $T/str.ndjson:3:[0-9]+: \"op_partial_rank\" record does not have \"traces\" as an integer\$"
	sed '3s/"phase_self":\[[0-9]*,/"phase_self":[/' "$T/p.ndjson" \
	    >"$T/short.ndjson"
	run -1 --separate-stderr op-rank --merge "$T/short.ndjson"
	assert_stderr --regexp "^op-rank: $T/short.ndjson:3:[0-9]+: \"phase_self\" does not hold 6 integers\$"
	sed '3s/"rank":0/"rank":-4/' "$T/p.ndjson" >"$T/neg.ndjson"
	run -1 --separate-stderr op-rank --merge "$T/neg.ndjson"
	assert_stderr --regexp "^op-rank: $T/neg.ndjson:3:[0-9]+: \"rank\" is not a rank number\$"
}

@test "a partial's words quoted in a message reach the terminal escaped" {
	tr-extract "$OPRANK/sampled_rank-0.json.gz" | op-rank --partial \
	    >"$T/p.ndjson"
	n=$(grep -n -m1 '"op_partial_name"' "$T/p.ndjson" | cut -d: -f1)
	sed "${n}s/\"class\":\"[a-z]*\"/\"class\":\"\\\\u001b]0;x\\\\u0007\\\\u009b2J\"/" \
	    "$T/p.ndjson" >"$T/esc.ndjson"
	run -1 --separate-stderr op-rank --merge "$T/esc.ndjson"
	assert_stderr --partial "op-rank: $T/esc.ndjson:$n:"
	assert_stderr --partial ': unknown class: \x1b]0;x\x07\u009b2J'
	[ "${#stderr_lines[@]}" -eq 1 ]
}

@test "a failed write exits 1" {
	[ -w /dev/full ] || skip "no /dev/full"
	tr-extract "$OPRANK/sampled_rank-0.json.gz" | op-rank --partial \
	    >"$T/p.ndjson"
	# Even the smallest partial, two records, is written or refused.
	run -1 --separate-stderr bash -c 'op-rank --partial </dev/null >/dev/full'
	assert_stderr --partial 'op-rank: <stdout>: '
	run -1 --separate-stderr bash -c 'op-rank --merge "$1" >/dev/full' _ \
	    "$T/p.ndjson"
	assert_stderr --partial 'op-rank: <stdout>: '
	run -1 --separate-stderr bash -c \
	    'op-rank --partial --merge "$1" >/dev/full' _ "$T/p.ndjson"
	assert_stderr --partial 'op-rank: <stdout>: '
}

@test "usage errors exit 2, a missing partial exits 1" {
	run -2 --separate-stderr op-rank --partial=1
	assert_stderr --partial 'usage: op-rank [-a] [-f table] [-g gpu] [-k key] [-n count] [-p phase] [-T list] [--merge] [--partial] [file ...]'
	run -2 --separate-stderr op-rank --merge=x
	assert_stderr --partial 'usage: op-rank'
	run -2 --separate-stderr op-rank --merge -k bogus
	assert_stderr --partial 'unknown key: bogus'
	tr-extract "$OPRANK/sampled_rank-0.json.gz" | op-rank --partial \
	    >"$T/p.ndjson"
	run -1 --separate-stderr op-rank --merge "$T/nonesuch" "$T/p.ndjson"
	assert_stderr --partial "op-rank: $T/nonesuch: "
	assert_output --partial '"kind":"cpu_summary"'
}

# Files are read twice, the primary rank's records in the second pass;
# pipes and stdin cannot be, and are merged in one pass: the same records.
@test "partials from pipes merge as the same files do" {
	dlrm
	partials "$T/d" -- "${files[@]}"
	cd "$T/d"
	op-rank --merge <(cat p3.ndjson) p{0,1,2}.ndjson <(cat p4.ndjson) \
	    p{5,6,7}.ndjson >pipes.out
	cmp all.out pipes.out
	op-rank --merge - p{0,1,2,4,5,6,7}.ndjson <p3.ndjson >stdin.out
	cmp all.out stdin.out
	# The primary rank's detail, whichever file it came from.
	# Rank 7, last at most of the collectives: the others wait for it.
	run -0 jq -r 'select(.kind == "cpu_summary") | .rank // .slowest_rank' pipes.out
	assert_output $'7\n7'
}

# The two passes over files: a merge of 64 ranks keeps of each only what
# crosses ranks (its op_ranks keys, and the steps, ledger, threads and
# devices drawn per rank, and its collective calls), 5.5 KB a rank on
# DLRM standalone, 6.5 KB in the middle of the suite: the figure moves by
# some 60 KB with the process's surroundings, even without address
# randomisation.  So each further rank may add 10 KB to the peak memory of
# one: far under what every rank's aggregates kept whole took, 1.8 times
# as much, some 33 KB a rank (7 KB a rank while every rank's runtime calls
# were kept).
@test "a merge of 64 ranks' files takes little more memory than of one" {
	[ -x /usr/bin/time ] || skip "needs GNU time"
	setarch -R true 2>/dev/null || skip "needs setarch -R"
	dlrm
	partials "$T/d" -- "${files[@]}"
	mkdir "$T/r"
	for k in $(seq 0 63); do
		jq -c --argjson k "$k" 'if has("rank") then .rank = $k else . end
		    | if .kind == "op_partial_window" then .file = "w\($k)" else . end' \
		    "$T/d/p$((k % 8)).ndjson" >"$T/r/p$k.ndjson"
	done
	/usr/bin/time -f %M -o "$T/one" setarch -R "$TOOLS/op-rank" --merge \
	    "$T/r/p0.ndjson" >/dev/null
	/usr/bin/time -f %M -o "$T/all" setarch -R "$TOOLS/op-rank" --merge \
	    "$T"/r/p*.ndjson >"$T/r.out"
	one=$(tail -n 1 "$T/one") all=$(tail -n 1 "$T/all")
	sanitized op-rank || [ "$((all - one))" -le "$((63 * 10))" ] ||
	    fail "64 ranks: $all KB, one: $one KB"
	[ "$(grep -c '"kind":"rank_summary"' "$T/r.out")" -eq 64 ]
}

@test "-T: the partials a list names merge as those on the command line" {
	for r in 0 1; do
		tr-extract "$OPRANK/sampled_rank-$r.json.gz" | op-rank --partial \
		    >"$T/p$r.ndjson"
	done
	op-rank --merge "$T/p0.ndjson" "$T/p1.ndjson" >"$T/args.out"
	printf '%s\n\n' "$T/p1.ndjson" >"$T/list"
	run -0 op-rank --merge -T "$T/list" "$T/p0.ndjson"
	assert_output - <"$T/args.out"
	# A list that is not there, or that holds a NUL, is an error.
	run -1 --separate-stderr op-rank --merge -T "$T/nonesuch"
	assert_stderr "op-rank: $T/nonesuch: No such file or directory"
	printf '%s\n%s\0x\n' "$T/p0.ndjson" "$T/p1.ndjson" >"$T/list"
	run -1 --separate-stderr op-rank --merge -T "$T/list"
	assert_stderr "op-rank: $T/list:2:$((${#T} + 11)): a NUL in a name"
}
