bats_require_minimum_version 1.5.0
setup() { load test_helper; export MRP_RUBRIC="$TOP/rubric"; }

@test "analyze-profile: usage errors" {
	run -2 --separate-stderr analyze-profile
	assert_stderr --partial 'usage: analyze-profile [--cpu-trace file] [--json-out file] [--md-out file] [--memory-json file]'
	run -2 --separate-stderr analyze-profile --bogus x
	run -2 --separate-stderr analyze-profile --md-out x.md
	run -2 --separate-stderr analyze-profile --cpu-trace a b
}

@test "analyze-profile: golden report on the example trace and snapshot" {
	cd "$TOP/fixtures"
	run -0 analyze-profile --cpu-trace example/trace.json.gz \
	    --memory-json example/memory_snapshot.json.gz \
	    --json-out "$BATS_TEST_TMPDIR/r.json"
	assert_output - <"$FIXTURES/example.md"
	cmp "$BATS_TEST_TMPDIR/r.json" "$FIXTURES/example.json"
}

@test "analyze-profile: --md-out and --json-out write files, and nothing else" {
	cd "$TOP/fixtures"
	run -0 analyze-profile --cpu-trace example/trace.json.gz \
	    --memory-json example/memory_snapshot.json.gz \
	    --md-out "$BATS_TEST_TMPDIR/r.md" --json-out "$BATS_TEST_TMPDIR/r.json"
	assert_output ''
	cmp "$BATS_TEST_TMPDIR/r.md" "$FIXTURES/example.md"
	cmp "$BATS_TEST_TMPDIR/r.json" "$FIXTURES/example.json"
	[ "$(ls "$BATS_TEST_TMPDIR")" = "$(printf 'r.json\nr.md')" ]
}

@test "analyze-profile: the trace alone" {
	run -0 analyze-profile --cpu-trace "$TOP/fixtures/example/trace.json.gz"
	assert_output --partial '### 1. low-gpu-util (gpu)'
	assert_output --partial 'missing-snapshot (memory)'
	assert_output --partial '| Peak allocated (profiler) |'
}

@test "analyze-profile: the snapshot alone" {
	run -0 analyze-profile --memory-json "$TOP/fixtures/example/memory_snapshot.json.gz" \
	    --json-out "$BATS_TEST_TMPDIR/r.json"
	assert_output --partial '### 1. fragmentation-high (memory)'
	assert_output --partial 'missing-trace (cpu)'
	run -0 jq -c '[.cpu, .memory.total_reserved_bytes, .memory.num_segments]' \
	    "$BATS_TEST_TMPDIR/r.json"
	assert_output '[null,3781165056,9]'
}

@test "analyze-profile: same inputs give byte-identical reports" {
	cd "$TOP/fixtures"
	for i in 1 2; do
		analyze-profile --cpu-trace example/trace.json.gz \
		    --memory-json example/memory_snapshot.json.gz \
		    --md-out "$BATS_TEST_TMPDIR/$i.md" --json-out "$BATS_TEST_TMPDIR/$i.json"
	done
	cmp "$BATS_TEST_TMPDIR/1.md" "$BATS_TEST_TMPDIR/2.md"
	cmp "$BATS_TEST_TMPDIR/1.json" "$BATS_TEST_TMPDIR/2.json"
}

@test "analyze-profile: a bad input fails with the stage's message, no output file" {
	need_shared memsnap/pickle
	p=$(ls "$SHARED"/memsnap/pickle/* | head -n 1)
	run -1 --separate-stderr analyze-profile --memory-json "$p" \
	    --md-out "$BATS_TEST_TMPDIR/r.md"
	assert_stderr --partial 'this is a Python pickle'
	assert_stderr --partial 'analyze-profile: mem-segments failed'
	[ ! -e "$BATS_TEST_TMPDIR/r.md" ] && [ ! -e "$BATS_TEST_TMPDIR/r.md.tmp" ]
	run -1 --separate-stderr analyze-profile --cpu-trace "$BATS_TEST_TMPDIR/none"
	assert_stderr --partial 'none'
}

@test "analyze-profile: a failed write exits 1" {
	run -1 bash -c 'analyze-profile --cpu-trace "$1" >/dev/full' _ \
	    "$TOP/fixtures/example/trace.json.gz"
}

@test "analyze-profile: every real snapshot alone, and paired with real traces" {
	need_shared memsnap
	n=0
	for m in "$SHARED"/memsnap/cs336-*.json.gz "$SHARED"/memsnap/flexgen-*.json.gz; do
		analyze-profile --memory-json "$m" --json-out "$BATS_TEST_TMPDIR/m.json" \
		    >"$BATS_TEST_TMPDIR/m.md" || fail "$m"
		jq -e '.memory.total_reserved_bytes > 0' "$BATS_TEST_TMPDIR/m.json" >/dev/null ||
		    fail "$m: no memory section"
		n=$((n + 1))
	done
	[ "$n" -eq 7 ]
	set -- "$SHARED"/memsnap/cs336-*.json.gz
	for t in "$SHARED"/traces/hta/sampled_rank-0.json.gz \
	    "$SHARED"/traces/tracelens/mi300_bert-small.json.gz \
	    "$SHARED"/traces/kineto/resnet50_nw4_worker0.1623212756351.pt.trace.json.gz \
	    "$SHARED"/traces/misc/dtu_mlops_cpu_windows_trace.json \
	    "$SHARED"/traces/param_dlrm_8rank/worker0_step_12.1694128201545.pt.trace.json; do
		analyze-profile --cpu-trace "$t" --memory-json "$1" \
		    --json-out "$BATS_TEST_TMPDIR/p.json" >"$BATS_TEST_TMPDIR/p.md" ||
		    fail "$t with $1"
		jq -e '.cpu.event_count > 0 and .memory.num_segments > 0' \
		    "$BATS_TEST_TMPDIR/p.json" >/dev/null || fail "$t: sections missing"
		grep -q '^## Prioritized actions' "$BATS_TEST_TMPDIR/p.md"
		shift
	done
}

@test "analyze-profile: an output that is not a regular file is written, not replaced" {
	# A rename over /dev/null would replace the device with the report.
	f=$BATS_TEST_TMPDIR/fifo
	mkfifo "$f"
	cat "$f" >"$BATS_TEST_TMPDIR/got" &
	run -0 analyze-profile --cpu-trace "$TOP/fixtures/example/trace.json.gz" \
	    --md-out /dev/null --json-out "$f"
	wait $!
	[ -p "$f" ]
	[ ! -e "$f.tmp" ]
	run -0 jq -r .kind "$BATS_TEST_TMPDIR/got"
	assert_output 'report'
	[ -c /dev/null ]
}

@test "analyze-profile: a progress line on a terminal, none elsewhere" {
	# The stages are the tools beside analyze-profile; here tr-extract
	# holds the trace open, unread, for two seconds before it starts.
	bin=$BATS_TEST_TMPDIR/bin
	mkdir "$bin"
	cp "$TOP/bin/analyze-profile" "$bin/"
	for t in "$TOP"/bin/*; do
		[ -e "$bin/${t##*/}" ] || ln -s "$t" "$bin/"
	done
	rm "$bin/tr-extract"
	printf '#!/bin/sh\nexec 3<"$1"\nsleep 2\nexec 3<&-\nexec %s "$@"\n' \
	    "$TOP/bin/tr-extract" >"$bin/tr-extract"
	chmod +x "$bin/tr-extract"
	trace=$TOP/fixtures/example/trace.json.gz
	run -0 script -qec "'$bin/analyze-profile' --cpu-trace '$trace' \
	    --md-out '$BATS_TEST_TMPDIR/tty.md'" /dev/null
	assert_output --partial $'\ranalyze-profile: trace 0%\e[K'
	# The line is wiped before the prompt comes back.
	[[ $output == *$'\r\e[K' ]]
	run -0 --separate-stderr "$bin/analyze-profile" --cpu-trace "$trace" \
	    --md-out "$BATS_TEST_TMPDIR/pipe.md"
	assert_output ''
	[ -z "$stderr" ]
	cmp "$BATS_TEST_TMPDIR/tty.md" "$BATS_TEST_TMPDIR/pipe.md"
}

@test "analyze-profile: man page examples" {
	cd "$TOP/fixtures/example"
	run -0 analyze-profile --cpu-trace trace.json.gz \
	    --memory-json memory_snapshot.json.gz \
	    --md-out "$BATS_TEST_TMPDIR/report.md" --json-out "$BATS_TEST_TMPDIR/report.json"
	run -0 jq -c '[.memory.fragmentation_risk, .cpu.dominant_family, [.actions[].rule][0:2]]' \
	    "$BATS_TEST_TMPDIR/report.json"
	assert_output '["HIGH","python",["fragmentation-high","low-gpu-util"]]'
	run -0 bats_pipe analyze-profile --cpu-trace trace.json.gz \| grep -c '^### [0-9]'
	assert_output 4
}

@test "analyze-profile: an input without events is an error, not an all-clear" {
	cd "$BATS_TEST_TMPDIR"
	: >empty
	printf '{"traceEvents":[]}\n' >none.json
	printf '[]\n' >array.json
	printf '{"segments":[],"device_traces":[]}\n' >snap.json
	for t in empty none.json array.json; do
		run -1 --separate-stderr analyze-profile --cpu-trace "$t" --md-out r.md
		assert_stderr "analyze-profile: $t: no events"
		[ ! -e r.md ] && [ ! -e r.md.tmp ]
	done
	for m in empty snap.json; do
		run -1 --separate-stderr analyze-profile --memory-json "$m"
		assert_output ''
		assert_stderr --partial "analyze-profile: $m: no events"
		[[ $stderr != *failed* ]]
	done
	# A broken trace says so once, not also that it had no events.
	printf '{}\n' >broken.json
	run -1 --separate-stderr analyze-profile --cpu-trace broken.json
	[[ $stderr != *'no events'* ]]
	assert_stderr --partial 'analyze-profile: tr-extract failed'
}

@test "analyze-profile: an output that is an input or the other output is refused first" {
	mkdir "$BATS_TEST_TMPDIR/d"
	cd "$BATS_TEST_TMPDIR/d"
	cp "$TOP/fixtures/example/trace.json.gz" t.json.gz
	ln -s t.json.gz link.json.gz
	run -2 --separate-stderr analyze-profile --cpu-trace t.json.gz --md-out t.json.gz
	assert_stderr 'analyze-profile: --md-out is the --cpu-trace file: t.json.gz'
	run -2 --separate-stderr analyze-profile --cpu-trace t.json.gz --json-out link.json.gz
	assert_stderr 'analyze-profile: --json-out is the --cpu-trace file: link.json.gz'
	run -2 --separate-stderr analyze-profile --memory-json t.json.gz --json-out "$PWD/t.json.gz"
	assert_stderr "analyze-profile: --json-out is the --memory-json file: $PWD/t.json.gz"
	run -2 --separate-stderr analyze-profile --cpu-trace t.json.gz --md-out r.md --json-out ./r.md
	assert_stderr 'analyze-profile: --md-out and --json-out are the same file: r.md'
	cmp t.json.gz "$TOP/fixtures/example/trace.json.gz"
	[ "$(ls)" = "$(printf 'link.json.gz\nt.json.gz')" ]
	# Both reports into /dev/null are no conflict.
	run -0 analyze-profile --cpu-trace t.json.gz --md-out /dev/null --json-out /dev/null
}

@test "analyze-profile: an output that cannot be written is refused before the stages" {
	cd "$BATS_TEST_TMPDIR"
	# A tr-extract that would leave a mark, were it run.
	bin=$BATS_TEST_TMPDIR/bin
	mkdir "$bin"
	cp "$TOP/bin/analyze-profile" "$bin/"
	printf '#!/bin/sh\ntouch "%s/ran"\n' "$BATS_TEST_TMPDIR" >"$bin/tr-extract"
	chmod +x "$bin/tr-extract"
	t=$TOP/fixtures/example/trace.json.gz
	run -1 --separate-stderr "$bin/analyze-profile" --cpu-trace "$t" --md-out nodir/r.md
	assert_stderr 'analyze-profile: nodir/r.md: No such file or directory'
	run -1 --separate-stderr "$bin/analyze-profile" --cpu-trace "$t" --json-out "$bin"
	assert_stderr "analyze-profile: $bin: Is a directory"
	[ ! -e ran ]
}
