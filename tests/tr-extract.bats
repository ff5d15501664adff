#!/usr/bin/env bats
# tr-extract: real traces in, NDJSON records out.

bats_require_minimum_version 1.5.0

setup() {
	load test_helper
}

# Every golden pair: fixtures/tr-extract/NAME.json[.gz] -> NAME.ndjson.
@test "golden output on real traces of every format" {
	cd "$FIXTURES"
	local golden input n=0
	for golden in *.ndjson; do
		case $golden in *.a.ndjson) continue ;; esac
		input=$(ls "${golden%.ndjson}".json*)
		run -0 tr-extract "$input"
		assert_output - < "$golden"
		n=$((n + 1))
	done
	[ "$n" -ge 8 ]
}

@test "-a keeps the whole args object" {
	cd "$FIXTURES"
	run -0 tr-extract -a tracelens_torch_compile_triton.json.gz
	assert_output - < tracelens_torch_compile_triton.a.ndjson
	run -0 bats_pipe tr-extract -a tracelens_torch_compile_triton.json.gz \
	    \| jq -s '[.[] | select(.kind == "event" and .cat == "kernel")][0].args.grid'
	assert_output --partial '16384'
}

@test "a cuda_sync event keeps the stream and the event record it waits on" {
	run -0 bash -c "tr-extract '$TOP/fixtures/crit-path/hta_cuda_event_sync_multi_stream.json.gz' |
	    jq -c 'select(.cat == \"cuda_sync\") | [.name, .stream, .wait_on_stream, .wait_on_event_record]'"
	assert_output '["Event Sync",-1,-1,-1]
["Event Sync",-1,20,32]
["Stream Wait Event",24,20,1385]
["Event Sync",-1,28,62]
["Context Sync",-1,null,null]'
}

@test "usage errors exit 2" {
	run -2 --separate-stderr tr-extract -Z
	assert_stderr --partial 'usage: tr-extract [-a] [file ...]'
	assert_output ''
}

@test "empty input gives empty output" {
	run -0 tr-extract < /dev/null
	assert_output ''
	: > "$BATS_TEST_TMPDIR/empty.json"
	run -0 tr-extract "$BATS_TEST_TMPDIR/empty.json" -
	assert_output ''
}

@test "gzip input gives the same bytes as plain input" {
	cd "$FIXTURES"
	gzip -c torchcpu_cnn_sgd_head.json > "$BATS_TEST_TMPDIR/t.json.gz"
	run -0 tr-extract < torchcpu_cnn_sgd_head.json
	local plain=$output
	run -0 tr-extract < "$BATS_TEST_TMPDIR/t.json.gz"
	assert_output "$plain"
	# The name does not matter: a .json file holding gzip is gzip.
	cp "$BATS_TEST_TMPDIR/t.json.gz" "$BATS_TEST_TMPDIR/t.json"
	run -0 bats_pipe tr-extract "$BATS_TEST_TMPDIR/t.json" \| head -n -1
	assert_output "$(head -n -1 torchcpu_cnn_sgd_head.ndjson)"
}

@test "multi-member gzip, as pigz and cat a.gz b.gz write, is read whole" {
	cd "$FIXTURES"
	head -c 3000 hta_rank-0_ns_head.json | gzip -c > "$BATS_TEST_TMPDIR/m.gz"
	tail -c +3001 hta_rank-0_ns_head.json | gzip -c >> "$BATS_TEST_TMPDIR/m.gz"
	run -0 tr-extract < hta_rank-0_ns_head.json
	local plain=$output
	run -0 tr-extract < "$BATS_TEST_TMPDIR/m.gz"
	assert_output "$plain"
	pigz -b 32 -c hta_rank-0_ns_head.json > "$BATS_TEST_TMPDIR/p.gz"
	run -0 tr-extract < "$BATS_TEST_TMPDIR/p.gz"
	assert_output "$plain"
}

@test "bytes after the last gzip member are an error, another member is not" {
	cd "$FIXTURES"
	gzip -c hta_rank-0_ns_head.json > "$BATS_TEST_TMPDIR/g.gz"
	run -0 tr-extract "$BATS_TEST_TMPDIR/g.gz"
	local whole=$output
	# Another member, even an empty one, is valid gzip.
	printf '' | gzip -c >> "$BATS_TEST_TMPDIR/g.gz"
	run -0 tr-extract "$BATS_TEST_TMPDIR/g.gz"
	assert_output "$whole"
	cp "$BATS_TEST_TMPDIR/g.gz" "$BATS_TEST_TMPDIR/t.gz"
	printf 'garbage\n' >> "$BATS_TEST_TMPDIR/t.gz"
	run -1 --separate-stderr tr-extract "$BATS_TEST_TMPDIR/t.gz"
	assert_stderr "tr-extract: $BATS_TEST_TMPDIR/t.gz: trailing garbage after gzip stream"
	# Zero padding, as some writers leave, is garbage too; so is a lone
	# first byte of the magic.
	cp "$BATS_TEST_TMPDIR/g.gz" "$BATS_TEST_TMPDIR/z.gz"
	head -c 512 /dev/zero >> "$BATS_TEST_TMPDIR/z.gz"
	run -1 --separate-stderr tr-extract < "$BATS_TEST_TMPDIR/z.gz"
	assert_stderr "tr-extract: <stdin>: trailing garbage after gzip stream"
	cp "$BATS_TEST_TMPDIR/g.gz" "$BATS_TEST_TMPDIR/m.gz"
	printf '\037' >> "$BATS_TEST_TMPDIR/m.gz"
	run -1 --separate-stderr tr-extract "$BATS_TEST_TMPDIR/m.gz"
	assert_stderr "tr-extract: $BATS_TEST_TMPDIR/m.gz: trailing garbage after gzip stream"
}

@test "a bare array may lack its closing bracket, with or without a comma" {
	cd "$FIXTURES"
	run -0 --separate-stderr tr-extract < kineto_resnet50_array_head.json
	assert_stderr ''
	refute_output --partial '"complete"'
	local closed=$output
	run -0 --separate-stderr tr-extract < kineto_resnet50_array_head_open.json
	assert_output "${closed/\"format\":\"array\",/\"format\":\"array\",\"complete\":false,}"
	assert_stderr "tr-extract: <stdin>: warning: the event array has no closing ']'; the trace may be cut off"
	run -0 --separate-stderr tr-extract kineto_resnet50_array_head_open_comma.json
	assert_output "$(sed 's/"format":"array",/&"complete":false,/; s/kineto_resnet50_array_head.json/kineto_resnet50_array_head_open_comma.json/' kineto_resnet50_array_head.ndjson)"
	assert_stderr "tr-extract: kineto_resnet50_array_head_open_comma.json: warning: the event array has no closing ']'; the trace may be cut off"
	# An object's traceEvents must still be closed.
	head -c -20 hta_backward_thread.json > "$BATS_TEST_TMPDIR/cut.json"
	run -1 --separate-stderr tr-extract "$BATS_TEST_TMPDIR/cut.json"
	assert_stderr --regexp 'cut.json:[0-9]+:[0-9]+: unexpected end of input'
}

@test "timestamps: integer, fractional, exponent and ns digits stay exact" {
	cd "$FIXTURES"
	# 1712195495519689.047 would be ...689.0 through a double (0.25 µs apart).
	run -0 bats_pipe tr-extract hta_rank-0_ns_head.json \| \
	    jq -r 'select(.kind == "trace") | .origin_ns'
	assert_output 1712195495519689000
	run -0 bats_pipe tr-extract hta_rank-0_ns_head.json \| \
	    jq -r 'select(.kind == "event") | .ts' \| head -n 2
	assert_output $'0.047\n6.812'
	run -0 bats_pipe tr-extract handmade_begin_end.json \| \
	    jq -c 'select(.kind == "event") | [.name, .ts, .dur]'
	assert_output - <<-'OUT'
	["other thread",-1,4.25]
	["inner",1.5,1.5]
	["outer",0.5,9.5]
	OUT
}

@test "B/E pairs become one event; a repeated key keeps the last value" {
	cd "$FIXTURES"
	run -0 tr-extract handmade_begin_end.json
	assert_line '{"kind":"event","name":"inner","pid":"CPU functions","tid":7,"ts":1.5,"dur":1.5,"external_id":3}'
	assert_line --partial '"name":"other thread","cat":"python_function"'
	printf '[{"ph":"E","pid":1,"tid":1,"ts":5}]' > "$BATS_TEST_TMPDIR/e.json"
	run -1 --separate-stderr tr-extract "$BATS_TEST_TMPDIR/e.json"
	assert_stderr "tr-extract: $BATS_TEST_TMPDIR/e.json:1:2: 'E' event with no 'B' before it on its thread"
	printf '[{"ph":"B","pid":1,"tid":1,"ts":5}]' > "$BATS_TEST_TMPDIR/b.json"
	run -0 --separate-stderr tr-extract "$BATS_TEST_TMPDIR/b.json"
	assert_stderr --partial "1 'B' events never ended"
	assert_output --partial '"unmatched_begin":1'
}

@test "bad input: endless 'B' events are refused, not hoarded" {
	{ printf '['; for i in $(seq 4097); do printf '{"ph":"B","pid":1,"tid":1,"ts":%d},' "$i"; done; printf ']'; } > "$BATS_TEST_TMPDIR/b.json"
	run -1 --separate-stderr tr-extract "$BATS_TEST_TMPDIR/b.json"
	assert_stderr --regexp "b.json:1:[0-9]+: more than 4096 'B' events open on one thread"
}

@test "the rank comes from distributedInfo, else the file name" {
	cd "$FIXTURES"
	run -0 bats_pipe tr-extract hta_rank-0_ns_head.json \| tail -n 1 \| \
	    jq -c '[.rank, .rank_from, .world_size]'
	assert_output '[0,"distributedInfo",1]'
	# inference_rank_1 writes distributedInfo after the events.
	run -0 bats_pipe tr-extract hta_inference_rank_1.json.gz \| tail -n 1 \| \
	    jq -c '[.rank, .rank_from]'
	assert_output '[1,"distributedInfo"]'
	cp torchcpu_cnn_sgd_head.json "$BATS_TEST_TMPDIR/rank-3.trace.json"
	run -0 bats_pipe tr-extract "$BATS_TEST_TMPDIR/rank-3.trace.json" \| \
	    jq -sc '[.[0].rank, .[-1].rank, .[-1].rank_from]'
	assert_output '[3,3,"file name"]'
	cp torchcpu_cnn_sgd_head.json "$BATS_TEST_TMPDIR/worker5.1694128201545.pt.trace.json"
	run -0 bats_pipe tr-extract "$BATS_TEST_TMPDIR/worker5.1694128201545.pt.trace.json" \| \
	    tail -n 1 \| jq -c '[.rank, .rank_from]'
	assert_output '[5,"file name"]'
	# SGLang's <time>-TP-<rank> and xDiT's profile_trace_rank_<n>.
	cp torchcpu_cnn_sgd_head.json "$BATS_TEST_TMPDIR/1733466.3-TP-6.trace.json"
	run -0 bats_pipe tr-extract "$BATS_TEST_TMPDIR/1733466.3-TP-6.trace.json" \| \
	    tail -n 1 \| jq -c '[.rank, .rank_from]'
	assert_output '[6,"file name"]'
	cp torchcpu_cnn_sgd_head.json "$BATS_TEST_TMPDIR/profile_trace_rank_7.json"
	run -0 bats_pipe tr-extract "$BATS_TEST_TMPDIR/profile_trace_rank_7.json" \| \
	    tail -n 1 \| jq -c '[.rank, .rank_from]'
	assert_output '[7,"file name"]'
}

@test "several files: each one's records end with its trace record" {
	cd "$FIXTURES"
	run -0 bats_pipe tr-extract hta_backward_thread.json \
	    kineto_resnet50_array_head.json \| jq -r 'select(.kind == "trace") | .file'
	assert_output $'hta_backward_thread.json\nkineto_resnet50_array_head.json'
}

@test "a file that cannot be opened is skipped with status 1" {
	cd "$FIXTURES"
	run -1 --separate-stderr tr-extract /nonexistent hta_backward_thread.json
	assert_stderr 'tr-extract: /nonexistent: No such file or directory'
	assert_output - < hta_backward_thread.ndjson
}

@test "a failed write exits 1" {
	cd "$FIXTURES"
	run -1 --separate-stderr tr-extract hta_backward_thread.json '>' /dev/full
	run -1 --separate-stderr bash -c 'tr-extract hta_backward_thread.json > /dev/full'
	assert_stderr --partial 'tr-extract: <stdout>: write failed: No space left on device'
}

@test "bad input: truncated gzip" {
	cd "$FIXTURES"
	head -c 1000 tracelens_torch_compile_triton.json.gz > "$BATS_TEST_TMPDIR/t.gz"
	run -1 --separate-stderr tr-extract "$BATS_TEST_TMPDIR/t.gz"
	assert_stderr "tr-extract: $BATS_TEST_TMPDIR/t.gz: truncated gzip data"
	printf '\037\213\010\000garbage-garbage' > "$BATS_TEST_TMPDIR/c.gz"
	run -1 --separate-stderr tr-extract "$BATS_TEST_TMPDIR/c.gz"
	assert_stderr --partial "tr-extract: $BATS_TEST_TMPDIR/c.gz: "
}

@test "bad input: truncated JSON, not JSON, not a trace" {
	cd "$FIXTURES"
	head -c 2000 hta_backward_thread.json > "$BATS_TEST_TMPDIR/cut.json"
	run -1 --separate-stderr tr-extract "$BATS_TEST_TMPDIR/cut.json"
	assert_stderr --regexp '^tr-extract: .*/cut.json:[0-9]+:[0-9]+: (unexpected end of input|unterminated string)'
	run -1 --separate-stderr tr-extract < "$BATS_TEST_DIRNAME/tr-extract.bats"
	assert_stderr "tr-extract: <stdin>:1:1: not JSON: unexpected character '#'"
	echo '{"schemaVersion": 1}' > "$BATS_TEST_TMPDIR/nt.json"
	run -1 --separate-stderr tr-extract "$BATS_TEST_TMPDIR/nt.json"
	assert_stderr --partial 'not a trace: the object has no "traceEvents" array'
	echo '[1, 2]' | run -1 --separate-stderr tr-extract
	run -1 --separate-stderr tr-extract <<< '[1, 2]'
	assert_stderr 'tr-extract: <stdin>:1:2: event is not an object'
	run -1 --separate-stderr tr-extract <<< '[{"ph":"X"}] x'
	assert_stderr "tr-extract: <stdin>:1:2: 'X' event has no \"ts\""
	run -1 --separate-stderr tr-extract <<< '[] x'
	assert_stderr 'tr-extract: <stdin>:1:4: unexpected data after the JSON value'
}

@test "bad input: an unescaped quote, as PyTorch 1.13 wrote it" {
	cd "$FIXTURES"
	run -1 --separate-stderr tr-extract torchcpu_quirk_unescaped_name.json
	assert_stderr "tr-extract: torchcpu_quirk_unescaped_name.json:1:329: expected ',' or '}'"
}

@test "bad input: a pickle is refused, never unpickled" {
	printf '\200\004\225\003\000\000\000\000\000\000\000}\224.' > "$BATS_TEST_TMPDIR/trace.json"
	run -1 --separate-stderr tr-extract "$BATS_TEST_TMPDIR/trace.json"
	assert_stderr --partial 'trace.json:1:1: this is a Python pickle, not JSON; re-export'
	gzip -c "$BATS_TEST_TMPDIR/trace.json" > "$BATS_TEST_TMPDIR/trace.json.gz"
	run -1 --separate-stderr tr-extract "$BATS_TEST_TMPDIR/trace.json.gz"
	assert_stderr --partial 'this is a Python pickle, not JSON'
}

@test "bad input: an Nsight Systems export is named, with what reads it" {
	local db=$TOP/fixtures/nsys-extract/nsys-ai__mock.sqlite
	run -1 --separate-stderr tr-extract "$db"
	assert_stderr "tr-extract: $db:1:1: this is an SQLite database, not JSON; an Nsight Systems export is read by nsys-extract, and by analyze-profile --nsys-sqlite"
	assert_output ''
	run -1 --separate-stderr mem-segments "$db"
	assert_stderr "mem-segments: $db:1:1: this is an SQLite database, not JSON"
}

@test "bad input: a real pickled snapshot is refused" {
	need_shared memsnap/pickle/cs336-silmont__memory_forward_bf16_128.pickle
	run -1 --separate-stderr tr-extract "$SHARED/memsnap/pickle/cs336-silmont__memory_forward_bf16_128.pickle"
	assert_stderr --partial 'this is a Python pickle, not JSON'
}

@test "bad input: a deep-nesting bomb stops at 512 levels" {
	printf '[{"ph":"X","ts":1,"args":' > "$BATS_TEST_TMPDIR/deep.json"
	head -c 100000 /dev/zero | tr '\0' '[' >> "$BATS_TEST_TMPDIR/deep.json"
	run -1 --separate-stderr tr-extract "$BATS_TEST_TMPDIR/deep.json"
	assert_stderr "tr-extract: $BATS_TEST_TMPDIR/deep.json:1:536: nesting deeper than 512 levels"
}

@test "bad input: numbers beyond 64 bits" {
	run -1 --separate-stderr tr-extract <<< '[{"ph":"X","ts":99999999999999999999,"dur":1}]'
	assert_stderr 'tr-extract: <stdin>:1:17: "ts" is out of range: 99999999999999999999'
	# In args they are data, kept digit for digit.
	run -0 tr-extract -a <<< '[{"ph":"X","ts":1,"dur":1,"args":{"Comms Id":18446744073709551617}}]'
	assert_line --partial '"args":{"Comms Id":18446744073709551617}'
	head -c 300 /dev/zero | tr '\0' 1 > "$BATS_TEST_TMPDIR/n"
	run -1 --separate-stderr tr-extract <<< "[{\"ph\":\"X\",\"ts\":$(cat "$BATS_TEST_TMPDIR/n")}]"
	assert_stderr 'tr-extract: <stdin>:1:17: number longer than 256 characters'
}

@test "repairs: control characters, invalid UTF-8, bare N/A, NaN" {
	printf '[{"ph":"X","name":"a\tb\001","ts":1,"dur":2,"args":{"x":N/A,"y":NaN}},\n{"ph":"X","name":"\377z","ts":2,"dur":1}]' > "$BATS_TEST_TMPDIR/r.json"
	run -0 --separate-stderr tr-extract -a "$BATS_TEST_TMPDIR/r.json"
	assert_stderr "tr-extract: $BATS_TEST_TMPDIR/r.json:1:21: warning: repaired 5 invalid JSON values (control 2, utf8 1, N/A 1, NaN/Infinity 1)"
	assert_line --index 0 '{"kind":"event","name":"a\tb\u0001","ts":0,"dur":2,"args":{"x":"N/A","y":null}}'
	assert_line --index 1 --partial '"name":"�z"'
	# Every line is valid JSON, strictly.
	tr-extract -a "$BATS_TEST_TMPDIR/r.json" 2>/dev/null |
	    python3 -c 'import json, sys; [json.loads(l) for l in sys.stdin]'
}

@test "bad input: invalid escapes are refused" {
	run -1 --separate-stderr tr-extract <<< '[{"ph":"X","name":"C:\data","ts":1}]'
	assert_stderr "tr-extract: <stdin>:1:22: invalid escape '\\d' in string"
}

@test "man page examples" {
	local n
	for n in 1 2 3 4; do
		check_example tr-extract.1 "$n"
	done
}

@test "every real trace in ../shared yields the event count SOURCES.tsv lists" {
	need_shared traces/SOURCES.tsv
	local file events n=0
	while IFS=$'\t' read -r file _ _ _ _ _ _ _ _ kind events _; do
		[ "$kind" = "chrome-trace (kineto)" ] || [ "$kind" = "chrome-trace (legacy)" ] || continue
		[ -e "$SHARED/traces/$file" ] || continue
		run -0 bats_pipe tr-extract "$SHARED/traces/$file" \| tail -n 1 \| jq .events
		[ "$output" = "$events" ] || fail "$file: $output events, SOURCES.tsv says $events"
		n=$((n + 1))
	done < "$SHARED/traces/SOURCES.tsv"
	[ "$n" -ge 40 ]
}

@test "the legacy torch-cpu traces yield their event counts" {
	need_shared torch-cpu/lstm_infer_m.json.gz
	run -0 bats_pipe tr-extract "$SHARED/torch-cpu/lstm_infer_m.json.gz" \| tail -n 1 \| jq .events
	assert_output 45825
	run -0 bats_pipe tr-extract "$SHARED/torch-cpu/cnn_sgd_s.json" \| tail -n 1 \| jq .events
	assert_output 8877
}

@test "a pickle of every protocol, 0 to 5, is named as one" {
	# Made by pickle.dumps(trace, protocol=N), of a dict or a bare list,
	# and of an OrderedDict, which starts with GLOBAL 'c'.
	local f
	for f in "$TOP"/tests/corpus/tr-extract/pickle-*.pickle; do
		run -1 --separate-stderr tr-extract "$f"
		assert_output ''
		assert_stderr --partial "tr-extract: $f:1:1: this is a Python pickle, not JSON; re-export"
	done
	# Bytes that no JSON starts with and no pickle does either.
	run -1 --separate-stderr bash -c "printf 'cat\n' | tr-extract"
	assert_stderr "tr-extract: <stdin>:1:1: not JSON: unexpected character 'c'"
	run -1 --separate-stderr bash -c "printf '(x' | tr-extract"
	assert_stderr "tr-extract: <stdin>:1:1: not JSON: unexpected character '('"
}

# lib/trace/extract through the writer's document backend (jw_new_doc) and
# its typed events (extract_opts.event), as analyze-profile runs it
# in-process: on every trace fixture, with and without -a, the records
# handed over as jdocs must be the nodes ndin reads back from tr-extract's
# text, and written out with jw_jdoc() that text byte for byte, and each
# typed event what trevent_from_doc() reads from its line, the memory
# records written apart the text's, the kinds skipped not made
# (testbin/trace-check; tests/fuzz/trace.c fuzzes the same).
@test "records built as documents, and events typed, are the records written as text" {
	local check="${BUILD:-$TOP}/testbin/trace-check" f n=0
	local -a files=()
	[ -x "$check" ] || fail "$check is not built; run make check"
	while IFS= read -r f; do
		files+=("$f")
	done < <(cd "$TOP" && find fixtures -name '*.json*' | sort)
	files+=(tests/corpus/tr-extract/*)
	# A file name that is not UTF-8: the one string the writer repairs.
	cp "$TOP/fixtures/tr-extract/handmade_begin_end.json" \
	    "$BATS_TEST_TMPDIR/t$(printf '\377\001')x.json"
	cd "$TOP"
	run -0 --separate-stderr "$check" "${files[@]}" \
	    "$BATS_TEST_TMPDIR/t$(printf '\377\001')x.json"
	refute_output
	[ "${#files[@]}" -gt 40 ]
}

# A value's line and column are counted from its copy of the input only
# when an error needs them: a raw newline in a string is a line, "\n" is not.
@test "a data error inside an indented event is placed at its member" {
	printf '[\n {\n  "ph": "X",\n  "name": "a\\nb",\n  "cat": "x\ny",\n  "ts": 1,\n    "dur": "2"\n }\n]\n' \
	    > "$BATS_TEST_TMPDIR/ind.json"
	run -1 --separate-stderr tr-extract "$BATS_TEST_TMPDIR/ind.json"
	assert_stderr "tr-extract: $BATS_TEST_TMPDIR/ind.json:8:12: \"dur\" is not a number"
}

# jr_value() reads most tokens in a loop of its own and leaves each error,
# limit and repair to the token reader, and the last few hundred bytes of
# the input too; the fixtures above are too short to reach that loop.  Each
# case here, behind 250 kB of events on one line (or on lines of their
# own) and before more, must give what it gives alone, its column moved by
# the prefix, under every stage-1 kernel.
@test "errors and repairs deep in a long trace are told as in a short one" {
	local ev='{"ph":"X","cat":"k","name":"a","pid":1,"tid":1,"ts":1.5,'
	local pre="" nl="" post k c want bad tmp=$BATS_TEST_TMPDIR
	ev+='"dur":2,"args":{"s":[[1,2],[]],"b":true,"n":null,"f":false,'
	ev+='"u":"\u00e9\u00e9"}},'
	for k in $(seq 1800); do pre+=$ev; nl+=$ev$'\n'; done
	post=${pre:0:$((20 * ${#ev} - 1))}
	for bad in '{"ph":"X","ts":12h}' '{"ph":"X","ts":1,"x":nullx}' \
	    '{"ph":"X","name":"C:\data","ts":1}' '{"ph":"X","ts":-}' \
	    '{"ph":"X","ts":1,"args":{"x":N/A,"y":NaN,"z":-Infinity}}' \
	    '{"ph":"X","name":"a	b","ts":1,"dur":2}' \
	    $'{"ph":"X","name":"\xff","ts":1,"dur":2}' \
	    '{"ph" : "X","ts" :1,"dur": 2 ,"args":{ }}' '{"ph":"X","ts":1,}' \
	    '{"ph":"X","ts":1]' '{"ph":"X","ts":[1}' '{"ph":"X" "ts":1}' \
	    '{"ph":"X","ts":01}' '{"ph":"X","ts":1.}' '{"ph":"X","ts":1e}' \
	    '{"ph":"X",ts:1}' '{"ph":"X","ts":1,"a":[tru]}' \
	    '{"ph":"X","ts":99999999999999999999}' \
	    '{"ph":1,"ts":1}' '{"ph":"X","ts":"1","dur":1}'; do
		printf '[%s]' "$bad" > "$tmp/one.json"
		printf '[%s%s,%s]' "$pre" "$bad" "$post" > "$tmp/long.json"
		printf '[%s%s,%s]' "$nl" "$bad" "$post" > "$tmp/lines.json"
		run --separate-stderr tr-extract -a "$tmp/one.json"
		want=$stderr
		c=$(sed -n 's/^[^:]*: [^:]*:1:\([0-9]*\):.*/\1/p' <<< "$want")
		[ -n "$c" ] || [ -z "$want" ]
		for k in c sse2 avx2; do
			case $k in
			sse2|avx2) grep -qw "$k" /proc/cpuinfo || continue ;;
			esac
			run --separate-stderr env MRP_SIMD=$k tr-extract -a \
			    "$tmp/long.json"
			assert_equal "$stderr" "$(sed \
			    "s|one.json:1:$c:|long.json:1:$((c + ${#pre})):|" \
			    <<< "$want")"
			run --separate-stderr env MRP_SIMD=$k tr-extract -a \
			    "$tmp/lines.json"
			assert_equal "$stderr" "$(sed \
			    "s|one.json:1:$c:|lines.json:1801:$((c - 1)):|" \
			    <<< "$want")"
		done
	done
}

# A trace of $1 threads, each with one 'B' and its 'E'.
begin_end_threads() {
	awk -v n="$1" 'BEGIN {
		printf "{\"traceEvents\":["
		for (i = 1; i <= n; i++)
			printf "%s{\"ph\":\"B\",\"name\":\"op\",\"pid\":1," \
			    "\"tid\":%d,\"ts\":%d},{\"ph\":\"E\",\"pid\":1," \
			    "\"tid\":%d,\"ts\":%d}\n", (i > 1 ? "," : ""),
			    i, i * 10, i, i * 10 + 5
		print "]}"
	}'
}

@test "a million threads of 'B' and 'E' events hold no memory once ended" {
	# Each thread's stack leaves with its last 'E': before, the million
	# threads kept about 9 GB.
	run -0 bats_pipe begin_end_threads 1000000 \| limited 262144 tr-extract \
	    \| jq -c 'select(.kind == "trace") | [.events, .unmatched_begin]'
	assert_output '[2000000,0]'
}
