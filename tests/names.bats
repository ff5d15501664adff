bats_require_minimum_version 1.5.0
setup() { load test_helper; }

# Hostile names in the Make pipelines: every name is data.  A name the
# shell would run is quoted and carried; a name make cannot carry stops
# make before any recipe runs, with a message naming it.  A name that
# "runs" leaves a file named PWNED in the working directory.

setup_file() {
	PY=$(python3 -c 'import yaml, sys; print(sys.executable)' 2>/dev/null) || PY=
	export PY
}

# mk ARGS...: the report pipeline on the binaries under test.
mk() {
	make --no-print-directory -f "$TOP/pipelines/report.mk" \
	    BIN="${BUILD:-$TOP}/bin" RUBRIC="$TOP/rubric" "$@"
}

# smk ARGS...: the snippet pipeline, with the stand-in runner.
smk() {
	STANDIN_TRACE=1 make --no-print-directory \
	    -f "$TOP/pipelines/snippet.mk" BIN="${BUILD:-$TOP}/bin" \
	    RUNNER="$PY $TOP/fixtures/snip-run/runner.py" "$@"
}

# Fails when a name ran a command anywhere under the test's directory.
no_pwned() {
	run -0 find "$BATS_TEST_TMPDIR" -name 'PWNED*'
	assert_output ''
}

# snippet NAME [PROFILE]: a snippet folder with a config the runner takes.
snippet() {
	mkdir -p "inference_profiling/snippets/$1"
	printf 'profile_name: %s\ntarget: {name: smoke-tensor}\ndata_source: {name: dummy, record_count: 2}\n' \
	    "${2:-ok}" >"inference_profiling/snippets/$1/config.yaml"
}

need_py() {
	[ -n "$PY" ] || skip "python3 with PyYAML is needed for the stand-in runner"
}

@test "report.mk: a run directory's name is data for the shell" {
	cd "$BATS_TEST_TMPDIR"
	r="run\`{touch,PWNED}\`'&(x)!"
	mkdir "$r"
	cp "$TOP/fixtures/example/trace.json.gz" "$TOP/fixtures/example/memory_snapshot.json.gz" "$r"
	run -0 mk RUN="$r"
	no_pwned
	run -0 jq -r '.inputs[].path' "$r/report.json"
	assert_output "$(printf '%s\n' "$r/trace.json.gz" "$r/memory_snapshot.json.gz")"
	run -0 ls "$r"
	assert_output "$(printf '%s\n' charts.ndjson churn.ndjson \
	    critical-path.svg critical.ndjson families.svg \
	    findings.ndjson gpu-timeline.svg ledger.svg memory-trace.svg \
	    memory.ndjson \
	    memory.svg memory_snapshot.json.gz ops.ndjson report.html \
	    report.json report.md roofline.svg segments.svg \
	    trace-memory.ndjson trace.json.gz)"
	run -0 grep -c '<svg' "$r/report.html"
	assert_output 8
}

@test "report.mk: a run directory make reads as syntax stops it before anything runs, naming it" {
	cd "$BATS_TEST_TMPDIR"
	for c in : ';' '|' % '\' '*' '?' '['; do
		r="run${c}x"
		mkdir "$r"
		cp "$TOP/fixtures/example/trace.json.gz" "$r"
		run -2 --separate-stderr mk RUN="$r"
		assert_stderr --partial "report.mk: $r: a name with \"$c\" is make syntax; rename it"
		run -0 ls -A "$r"
		assert_output 'trace.json.gz'
	done
	# make expands a $ on its command line: a $(shell ...) would run.
	run -2 --separate-stderr mk 'RUN=run$(shell touch PWNED)'
	assert_stderr --partial 'report.mk: RUN=run$(shell touch PWNED): a name with "$" is make syntax; rename it'
	no_pwned
	# Whitespace cannot be told from two names.
	mkdir 'my run'
	cp "$TOP/fixtures/example/trace.json.gz" 'my run'
	run -2 --separate-stderr mk RUN='my run'
	assert_stderr --partial 'report.mk: RUN=my run: a name with whitespace is two names to make; rename it'
	run -0 ls -A 'my run'
	assert_output 'trace.json.gz'
}

@test "report.mk: an input whose name make would split stops it, naming it" {
	cd "$BATS_TEST_TMPDIR"
	mkdir run
	t="run/trace \`touch PWNED\`.json.gz"
	cp "$TOP/fixtures/example/trace.json.gz" "$t"
	run -2 --separate-stderr mk RUN=run
	assert_stderr --partial "report.mk: $t: an input name with whitespace or \"|\" is beyond make; rename it"
	no_pwned
	rm "$t"
	cp "$TOP/fixtures/example/memory_snapshot.json.gz" 'run/memory_snapshot|1.json.gz'
	cp "$TOP/fixtures/example/trace.json.gz" "run/rank"$'\n'"1.json"
	run -2 --separate-stderr mk RUN=run
	assert_stderr --partial 'report.mk: run/memory_snapshot|1.json.gz run/rank 1.json: an input name'
	# Nothing ran: no stage file.
	run -0 find run -name '*.ndjson' -o -name 'report.*'
	assert_output ''
	# A name that matches no pattern is no input, whatever it holds.
	rm run/*
	cp "$TOP/fixtures/example/trace.json.gz" run
	: >'run/notes on the run.txt'
	run -0 mk RUN=run
}

@test "report.mk: trace and snapshot names are data for the shell" {
	cd "$BATS_TEST_TMPDIR"
	mkdir run
	t="run/trace\`{touch,PWNED}\`\$({touch,PWNED2})'\"&.json.gz"
	s="run/memory_snapshot;{touch,PWNED3}#\$(shell\${IFS}touch\${IFS}PWNED4).json.gz"
	cp "$TOP/fixtures/example/trace.json.gz" "$t"
	cp "$TOP/fixtures/example/memory_snapshot.json.gz" "$s"
	run -0 mk RUN=run
	no_pwned
	run -0 jq -r '.inputs[].path' run/report.json
	assert_output "$(printf '%s\n' "$t" "$s")"
}

@test "report.mk: a BASELINE name is data for the shell, or refused" {
	cd "$BATS_TEST_TMPDIR"
	b="before\`{touch,PWNED}\`"
	mkdir "$b" after
	cp "$TOP/fixtures/report-diff/before.trace.json.gz" "$b/trace.json.gz"
	cp "$TOP/fixtures/report-diff/after.trace.json.gz" after/trace.json.gz
	run -0 mk RUN=after BASELINE="$b"
	no_pwned
	[ -s "$b/report.json" ] && [ -s after/diff.json ]
	mkdir before%x
	run -2 --separate-stderr mk RUN=after BASELINE=before%x
	assert_stderr --partial 'report.mk: before%x: a name with "%" is make syntax; rename it'
	run -2 --separate-stderr mk RUN=after 'BASELINE=before$(shell touch PWNED)'
	assert_stderr --partial 'report.mk: BASELINE=before$(shell touch PWNED): a name with "$" is make syntax'
	no_pwned
	run -2 --separate-stderr mk RUN=after BASELINE='before x'
	assert_stderr --partial 'report.mk: BASELINE=before x: a name with whitespace'
}

@test "snippet.mk: a snippet folder, a run id and a run directory are data for the shell" {
	need_py
	cd "$BATS_TEST_TMPDIR"
	snippet "s\`{touch,PWNED}\`" "p\`{touch,PWNED2}\`'"
	run -0 smk RUN_ID="r\`{touch,PWNED3}\`" all
	no_pwned
	run_dir="inference_profiling/snippets/p\`{touch,PWNED2}\`'/runs/r\`{touch,PWNED3}\`"
	run -0 cat "snippet-out/inference_profiling/snippets/s\`{touch,PWNED}\`/artifacts.txt"
	assert_output "$run_dir/trace.json"
	run -0 head -n 1 "$run_dir/report.md"
	assert_output '# Profile report'
}

@test "snippet.mk: names make cannot carry stop it before anything runs, naming them" {
	cd "$BATS_TEST_TMPDIR"
	mkdir a b c d
	cd "$BATS_TEST_TMPDIR/a"
	snippet 'e f'
	run -2 --separate-stderr smk lint
	assert_stderr --partial 'snippet.mk: inference_profiling/snippets/e f/config.yaml: a snippet folder with whitespace is beyond make; rename it'
	[ ! -e snippet-out ]
	cd "$BATS_TEST_TMPDIR/b"
	snippet 'g$x'
	run -2 --separate-stderr smk lint
	assert_stderr --partial 'snippet.mk: inference_profiling/snippets/g$x: a name with "$" is make syntax; rename it'
	[ ! -e snippet-out ]
	cd "$BATS_TEST_TMPDIR/c"
	snippet 'h|x'
	run -2 --separate-stderr smk lint
	assert_stderr --partial 'snippet.mk: inference_profiling/snippets/h|x: a name with "|" is make syntax; rename it'
	cd "$BATS_TEST_TMPDIR/d"
	snippet 'j;k'
	run -2 --separate-stderr smk SNIPPETS='inference_profiling/snippets/j;k' lint
	assert_stderr --partial 'snippet.mk: inference_profiling/snippets/j;k: a name with ";" is make syntax; rename it'
	snippet ok
	run -2 --separate-stderr smk 'RUN_ID=a$(shell touch PWNED)' lint
	assert_stderr --partial 'snippet.mk: RUN_ID=a$(shell touch PWNED): a name with "$" is make syntax; rename it'
	run -2 --separate-stderr smk OUT='o p' lint
	assert_stderr --partial 'snippet.mk: OUT=o p: a name with whitespace is two names to make; rename it'
	[ ! -e snippet-out ] && [ ! -e o ]
	no_pwned
}

@test "snippet.mk: a run directory from the config that make cannot carry is refused, not run" {
	need_py
	cd "$BATS_TEST_TMPDIR"
	snippet c "\"c\$(shell touch PWNED)\""
	run -2 --separate-stderr smk all
	assert_stderr --partial "report.mk: RUN=inference_profiling/snippets/c\$(shell touch PWNED)/runs/smoke: a name with \"\$\" is make syntax; rename it"
	no_pwned
	# With tabs it is not one folder name: snip-run refuses it first.
	snippet t "\"t\$(shell	touch	PWNED)\""
	run -2 --separate-stderr smk all
	# The name is shown with its tabs escaped, as any text from a file.
	assert_stderr --partial "profile_name 't\$(shell\\x09touch\\x09PWNED)' has a control character"
	no_pwned
}

@test "report.mk, snippet.mk: a BIN or RUBRIC that is not a plain path is refused, not run" {
	cd "$BATS_TEST_TMPDIR"
	b="bin\`{touch,PWNED}\`"
	mkdir "$b" run
	ln -s "${BUILD:-$TOP}"/bin/* "$b"
	cp "$TOP/fixtures/example/trace.json.gz" run
	run -2 --separate-stderr make -f "$TOP/pipelines/report.mk" BIN="$b" RUN=run
	assert_stderr --partial "report.mk: BIN=$b: a path with \"\` { }\" is not a plain path"
	run -2 --separate-stderr make -f "$TOP/pipelines/report.mk" RUBRIC="$TOP/it's" RUN=run
	assert_stderr --partial "report.mk: RUBRIC=$TOP/it's: a path with \"'\" is not a plain path"
	run -2 --separate-stderr make -f "$TOP/pipelines/snippet.mk" BIN="$b"
	assert_stderr --partial "snippet.mk: BIN=$b: a path with \"\` { }\" is not a plain path"
	no_pwned
	run -0 ls -A run
	assert_output 'trace.json.gz'
}
