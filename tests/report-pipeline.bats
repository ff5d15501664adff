bats_require_minimum_version 1.5.0
setup() { load test_helper; }

# mk ARGS...: the report pipeline on the binaries under test.
mk() {
	make --no-print-directory -f "$TOP/pipelines/report.mk" \
	    BIN="${BUILD:-$TOP}/bin" RUBRIC="$TOP/rubric" "$@"
}

@test "report.mk: a run directory gives every stage and both reports" {
	r=$BATS_TEST_TMPDIR/run
	mkdir "$r"
	cp "$TOP/fixtures/example/trace.json.gz" "$TOP/fixtures/example/memory_snapshot.json.gz" "$r"
	run -0 mk RUN="$r"
	run -0 ls "$r"
	assert_output "$(printf '%s\n' churn.ndjson findings.ndjson memory.ndjson \
	    memory_snapshot.json.gz ops.ndjson report.json report.md \
	    trace-memory.ndjson trace.json.gz)"
	# The same report as analyze-profile, inputs aside.
	analyze-profile --cpu-trace "$r/trace.json.gz" \
	    --memory-json "$r/memory_snapshot.json.gz" >"$BATS_TEST_TMPDIR/a.md"
	diff <(sed '/^## Inputs/,$d' "$r/report.md") \
	    <(sed '/^## Inputs/,$d' "$BATS_TEST_TMPDIR/a.md")
	run -0 mk RUN="$r"
	assert_output --partial 'Nothing to be done'
}

@test "report.mk: a stage reruns when its input changes, not otherwise" {
	r=$BATS_TEST_TMPDIR/run
	mkdir "$r"
	cp "$TOP/fixtures/example/memory_snapshot.json.gz" "$r"
	mk RUN="$r" >/dev/null
	touch -d '1 hour ago' "$r"/*.ndjson "$r"/report.*
	touch "$r/memory_snapshot.json.gz"
	run -0 mk RUN="$r"
	assert_output --partial 'churn-score'
	assert_output --partial 'report-md'
	refute_output --partial 'tr-extract'
}

@test "report.mk: many runs at once with -j, ranks together" {
	need_shared traces/hta/sampled_rank-0.json.gz
	a=$BATS_TEST_TMPDIR/a b=$BATS_TEST_TMPDIR/b
	mkdir "$a" "$b"
	cp "$SHARED/traces/hta/sampled_rank-0.json.gz" "$a/trace_rank-0.json.gz"
	cp "$SHARED/traces/hta/sampled_rank-1.json.gz" "$a/trace_rank-1.json.gz"
	cp "$TOP/fixtures/example/memory_snapshot.json.gz" "$b"
	run -0 mk -j4 RUNS="$a $b"
	run -0 jq -c '[.summary.cpu.traces, (.actions | map(.rule) | index("comm-share") != null)]' "$a/report.json"
	assert_output '[2,true]'
	run -0 jq -c '[.cpu, .memory.fragmentation_risk]' "$b/report.json"
	assert_output '[null,"MEDIUM"]'
}

@test "report.mk: a failed stage leaves no half-written target" {
	r=$BATS_TEST_TMPDIR/run
	mkdir "$r"
	head -c 3000 "$TOP/fixtures/example/trace.json.gz" >"$r/trace.json.gz"
	run -2 mk RUN="$r"
	# Nothing but the input: no target, no .tmp, no fifo.
	run -0 ls -A "$r"
	assert_output 'trace.json.gz'
	# A stage that fails after the trace stages succeeded cleans up too.
	cp "$TOP/fixtures/example/trace.json.gz" "$r/trace.json.gz"
	printf 'garbage\n' >"$r/memory_snapshot.json"
	run -2 mk RUN="$r"
	run -0 ls -A "$r"
	assert_output "$(printf '%s\n' memory_snapshot.json ops.ndjson \
	    trace-memory.ndjson trace.json.gz)"
}

@test "report.mk: context.yaml in the run directory gives the context record first" {
	r=$BATS_TEST_TMPDIR/run
	mkdir "$r"
	cp "$TOP/fixtures/example/trace.json.gz" "$TOP/fixtures/analyze-profile/context.yaml" "$r"
	run -0 mk RUN="$r"
	assert_output --partial "analyze-profile --context '$r/context.yaml' >"
	assert_output --partial "rubric-apply -r $TOP/rubric $r/context.ndjson $r/ops.ndjson"
	assert_output --partial "$r/trace.json.gz $r/context.ndjson $r/ops.ndjson"
	run -0 jq -c 'del(.file)' "$r/context.ndjson"
	assert_output "$(jq -c 'del(.file)' "$TOP/fixtures/analyze-profile/context.out")"
	run -0 jq -r .file "$r/context.ndjson"
	assert_output "$r/context.yaml"
	run -0 jq -r .kind "$r/report.json"
	assert_output report
	# A changed context reruns the context and what reads it, not the trace.
	printf 'batch_size: 4\n' >>"$r/context.yaml"
	run -0 mk RUN="$r"
	assert_output --partial 'analyze-profile --context'
	assert_output --partial 'report-md'
	refute_output --partial 'tr-extract'
	run -0 jq .batch_size "$r/context.ndjson"
	assert_output 4
}

@test "report.mk: context.json serves when there is no context.yaml; none, no record" {
	r=$BATS_TEST_TMPDIR/run
	mkdir "$r"
	cp "$TOP/fixtures/example/memory_snapshot.json.gz" "$TOP/fixtures/analyze-profile/context.json" "$r"
	run -0 mk -n RUN="$r"
	assert_output --partial "analyze-profile --context '$r/context.json' >"
	rm "$r/context.json"
	run -0 mk -n RUN="$r"
	refute_output --partial 'context'
}

@test "report.mk: a context path is quoted for the shell" {
	r=$BATS_TEST_TMPDIR/it\'s
	mkdir "$r"
	cp "$TOP/fixtures/example/memory_snapshot.json.gz" "$TOP/fixtures/analyze-profile/context.yaml" "$r"
	run -0 mk -n RUN="$r"
	assert_output --partial "analyze-profile --context '$BATS_TEST_TMPDIR/it'\\''s/context.yaml' >"
	# The line as the shell reads it names the file.
	line=$(grep -o "analyze-profile --context '.*' >" <<<"$output")
	line=${line% >}
	eval "set -- ${line#analyze-profile --context }"
	[ "$1" = "$r/context.yaml" ] && [ -f "$1" ]
}
