bats_require_minimum_version 1.5.0
setup() { load test_helper; }

# nocharts FILE: a Markdown report without its chart links (each with the
# blank line after it), as analyze-profile writes it.
nocharts() {
	sed '/^!\[[^]]*\]([a-z-]*\.svg)$/{N;d}' "$1"
}

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
	assert_output "$(printf '%s\n' charts.ndjson churn.ndjson \
	    critical-path.svg critical.ndjson families.svg \
	    findings.ndjson gpu-timeline.svg ledger.svg memory-trace.svg \
	    memory.ndjson \
	    memory.svg memory_snapshot.json.gz ops.ndjson report.html \
	    report.json report.md roofline.svg segments.svg \
	    trace-memory.ndjson trace.json.gz)"
	# The same report as analyze-profile, inputs aside.
	analyze-profile --cpu-trace "$r/trace.json.gz" \
	    --memory-json "$r/memory_snapshot.json.gz" >"$BATS_TEST_TMPDIR/a.md"
	diff <(nocharts "$r/report.md" | sed '/^## Inputs/,$d') \
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

@test "report.mk: several runs compile the rules and the report once, each report the bytes of its own run" {
	d=$BATS_TEST_TMPDIR
	runs=("$d/a" "$d/it's&b" "$d/c")
	mkdir "${runs[@]}" "$d/bin" "$d/one"
	cp "$TOP/fixtures/example/trace.json.gz" "$TOP/fixtures/example/memory_snapshot.json.gz" "${runs[0]}"
	cp "$TOP/fixtures/example/trace.json.gz" "${runs[1]}"
	cp "$TOP/fixtures/example/memory_snapshot.json.gz" "${runs[2]}"
	out=(findings.ndjson report.md report.json report.html)
	for i in 0 1 2; do
		mk RUN="${runs[i]}" >/dev/null
		mkdir "$d/one/$i"
		(cd "${runs[i]}" && mv "${out[@]}" "$d/one/$i")
	done
	# Every stage through a command that logs the program it runs.
	cat >"$d/bin/submit" <<-EOF
	#!/bin/sh
	printf '%s\\n' "\${1##*/}" >>'$d/log'
	exec "\$@"
	EOF
	chmod +x "$d/bin/submit"
	run -0 mk -j2 RUNS="${runs[*]}" SUBMIT="$d/bin/submit"
	run -0 grep -cx rubric-apply "$d/log"
	assert_output 1
	run -0 grep -cx report-md "$d/log"
	assert_output 2
	for i in 0 1 2; do
		for f in "${out[@]}"; do
			cmp "$d/one/$i/$f" "${runs[i]}/$f"
		done
	done
	run -0 find "${runs[@]}" -name '.*'
	assert_output ''
	# A dry run prints the batch and writes no plan.
	touch "${runs[0]}/trace.json.gz"
	run -0 mk -n RUNS="${runs[*]}"
	assert_output --partial "rubric-apply -r $TOP/rubric -O \"\$p\""
	run -0 find "${runs[@]}" -name '.*'
	assert_output ''
	# A batch that fails leaves each run's set as it was, and no plan.
	for t in "${BUILD:-$TOP}"/bin/*; do ln -s "$t" "$d/bin"; done
	rm "$d/bin/report-md"
	printf '#!/bin/sh\n[ "$1" != -j ] || exit 1\nexec %s "$@"\n' \
	    "'${BUILD:-$TOP}/bin/report-md'" >"$d/bin/report-md"
	chmod +x "$d/bin/report-md"
	before=$(stat -c '%n %i' "${runs[@]/%//report.md}")
	touch "${runs[1]}/trace.json.gz"
	run -2 mk BIN="$d/bin" RUNS="${runs[*]}"
	run -0 stat -c '%n %i' "${runs[@]/%//report.md}"
	assert_output "$before"
	run -0 find "${runs[@]}" -name '.*'
	assert_output ''
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
	assert_output "$(printf '%s\n' critical.ndjson memory_snapshot.json \
	    ops.ndjson trace-memory.ndjson trace.json.gz)"
}

@test "report.mk: context.yaml in the run directory gives the context record first" {
	r=$BATS_TEST_TMPDIR/run
	mkdir "$r"
	cp "$TOP/fixtures/example/trace.json.gz" "$TOP/fixtures/analyze-profile/context.yaml" "$r"
	run -0 mk RUN="$r"
	assert_output --partial "analyze-profile --context '$r/context.yaml'; mv"
	assert_output --partial "rubric-apply -r $TOP/rubric '$r/context.ndjson' '$r/ops.ndjson'"
	assert_output --partial "-I '$r/.report.md.list' '$r/context.ndjson' '$r/ops.ndjson'"
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
	assert_output --partial "analyze-profile --context '$r/context.json'; mv"
	rm "$r/context.json"
	run -0 mk -n RUN="$r"
	refute_output --partial 'context'
}

@test "report.mk: a context path is quoted for the shell" {
	r=$BATS_TEST_TMPDIR/it\'s
	mkdir "$r"
	cp "$TOP/fixtures/example/memory_snapshot.json.gz" "$TOP/fixtures/analyze-profile/context.yaml" "$r"
	run -0 mk -n RUN="$r"
	assert_output --partial "analyze-profile --context '$BATS_TEST_TMPDIR/it'\\''s/context.yaml'; mv"
	# The line as the shell reads it names the file.
	line=$(grep -o "analyze-profile --context '[^;]*'; mv" <<<"$output")
	line=${line%; mv}
	eval "set -- ${line#analyze-profile --context }"
	[ "$1" = "$r/context.yaml" ] && [ -f "$1" ]
}

@test "report.mk: eight ranks under PyTorch's names, some gzipped, as analyze-profile reports them" {
	need_shared traces/param_dlrm_8rank
	r=$BATS_TEST_TMPDIR/run
	mkdir "$r"
	cp "$SHARED"/traces/param_dlrm_8rank/*.pt.trace.json "$r"
	chmod u+w "$r"/*
	gzip "$r"/worker[136]_*
	run -0 mk RUN="$r"
	[ -s "$r/report.md" ] && [ -s "$r/report.json" ]
	run -0 jq -c '[.summary.cpu.traces, [.inputs[].path | sub(".*/"; "")], (.actions | map(.rule) | index("late-rank") != null)]' "$r/report.json"
	assert_output "[8,$(cd "$r" && ls *.pt.trace.json* | jq -Rsc 'split("\n")[:-1]'),true]"
	analyze-profile --cpu-trace "$r" --json-out "$BATS_TEST_TMPDIR/a.json" \
	    >"$BATS_TEST_TMPDIR/a.md"
	# The same report, inputs and their roles too.
	diff <(jq -S . "$r/report.json") <(jq -S . "$BATS_TEST_TMPDIR/a.json")
	diff <(nocharts "$r/report.md" | sed '/^## Inputs/,$d') \
	    <(sed '/^## Inputs/,$d' "$BATS_TEST_TMPDIR/a.md")
	# Every rank is there once.
	run -0 bats_pipe tr-extract "$r"/*.pt.trace.json* \| \
	    jq -c 'select(.kind == "trace") | .rank'
	assert_output "$(seq 0 7)"
}

@test "report.mk: SGLang's and xDiT's trace names, a pickle named: analyze-profile's report" {
	r=$BATS_TEST_TMPDIR/run
	mkdir "$r"
	i=0
	for n in 1733466.3-TP-0.trace.json.gz 1733466.3-TP-1.trace.json.gz \
	    profile_trace_rank_2.json.gz; do
		gzip -dc "$TOP/fixtures/example/trace.json.gz" |
		    jq -c --argjson r $i '.distributedInfo = {rank: $r}' >"$r/$n"
		i=$((i + 1))
	done
	printf '\x80\x04\x95\x10\x00\x00\x00' >"$r/memory_snapshot.pickle"
	run -0 --separate-stderr mk RUN="$r"
	assert_stderr "report.mk: $r/memory_snapshot.pickle: a pickle is never read; the report says how to dump the snapshot as JSON"
	run -0 jq -r '.inputs[] | "\(.path | sub(".*/"; "")) \(.role)"' "$r/report.json"
	assert_output - <<'OUT'
1733466.3-TP-0.trace.json.gz trace
1733466.3-TP-1.trace.json.gz trace
profile_trace_rank_2.json.gz trace
memory_snapshot.pickle pickle
OUT
	analyze-profile --cpu-trace "$r" --json-out "$BATS_TEST_TMPDIR/a.json" \
	    >/dev/null 2>&1
	diff <(jq -S . "$r/report.json") <(jq -S . "$BATS_TEST_TMPDIR/a.json")
	# A pickle alone is no input, and the failure says why.
	rm "$r"/*.json.gz "$r"/report.* "$r"/*.ndjson
	run -2 --separate-stderr mk RUN="$r"
	assert_stderr --partial "memory_snapshot*.json.gz); a pickle is never read: dump the snapshot as JSON"
}

@test "report.mk: a run directory with no trace and no snapshot fails, naming it" {
	r=$BATS_TEST_TMPDIR/run
	mkdir "$r"
	cp "$TOP/fixtures/analyze-profile/context.yaml" "$r"
	: >"$r/report.json"
	run -2 --separate-stderr mk RUN="$r"
	assert_stderr --partial "report.mk: $r: no trace and no memory snapshot (none of *.trace.json *.trace.json.gz profile_trace*.json profile_trace*.json.gz trace*.json trace*.json.gz rank*.json rank*.json.gz worker*.json worker*.json.gz *.sqlite *.nsys-rep memory_snapshot*.json memory_snapshot*.json.gz)"
	run -0 ls -A "$r"
	assert_output "$(printf '%s\n' context.ndjson context.yaml report.json)"
	# A directory that is not there says the same.
	run -2 --separate-stderr mk RUN="$BATS_TEST_TMPDIR/none"
	assert_stderr --partial "report.mk: $BATS_TEST_TMPDIR/none: no trace and no memory snapshot"
}

@test "report.mk: one rank twice over the same window fails; trace names are quoted" {
	need_shared traces/param_dlrm_8rank
	r=$BATS_TEST_TMPDIR/run
	mkdir "$r"
	t=$SHARED/traces/param_dlrm_8rank/worker0_step_12.1694128201545.pt.trace.json
	cp "$t" "$r/worker0.1.pt.trace.json"
	cp "$t" "$r/worker0's;\$HOME&.pt.trace.json"
	run -2 --separate-stderr mk RUN="$r"
	assert_stderr --partial "op-rank: $r/worker0's;\$HOME&.pt.trace.json and $r/worker0.1.pt.trace.json: both rank 0, same window"
	[ ! -e "$r/report.md" ] && [ ! -e "$r/ops.ndjson" ]
	# Another window of the same rank is accepted.
	jq -c '.traceEvents |= map(if .ts then .ts += 3600000000 else . end)' \
	    "$t" >"$r/worker0.1.pt.trace.json"
	run -0 mk RUN="$r"
	run -0 jq -c '[.summary.cpu.traces, (.inputs | length)]' "$r/report.json"
	assert_output '[2,2]'
}

@test "report.mk: BASELINE= compares each run with the baseline run" {
	b=$BATS_TEST_TMPDIR/before
	a=$BATS_TEST_TMPDIR/after
	mkdir "$b" "$a"
	cp "$TOP/fixtures/report-diff/before.trace.json.gz" "$b/trace.json.gz"
	cp "$TOP/fixtures/report-diff/after.trace.json.gz" "$a/trace.json.gz"
	# The baseline's report is made first; a trailing slash is allowed.
	run -0 mk RUN="$a" BASELINE="$b/"
	[ -e "$b/report.json" ]
	diff "$a/diff.json" <(report-diff -j "$b/report.json" "$a/report.json")
	diff "$a/diff.md" <(report-diff "$b/report.json" "$a/report.json")
	run -0 jq -r '.actions[] | select(.rule == "dataloader-share") | .verdict' "$a/diff.json"
	assert_output 'improved'
	run -0 mk RUN="$a" BASELINE="$b"
	assert_output --partial 'Nothing to be done'
	run -0 ls "$b"
	refute_output --partial 'diff.'
	# Without BASELINE there is no diff.
	rm "$a/diff.md" "$a/diff.json"
	run -0 mk RUN="$a"
	[ ! -e "$a/diff.md" ]
}

@test "report.mk: BASELINE= of an early snapshot ranks the site that grew" {
	b=$BATS_TEST_TMPDIR/early
	a=$BATS_TEST_TMPDIR/late
	mkdir "$b" "$a"
	cp "$TOP/fixtures/mem-segments/loop-leak-early.json.gz" "$b/memory_snapshot.json.gz"
	cp "$TOP/fixtures/mem-segments/loop-leak-late.json.gz" "$a/memory_snapshot.json.gz"
	run -0 mk RUN="$a" BASELINE="$b"
	run -0 jq -c '.memory_sites[0] | [.site, .change_bytes]' "$a/diff.json"
	assert_output '["train_step@/home/user/leak_loop.py:44",15728640]'
	run -0 grep -F '1 site holds more memory after than before' "$a/diff.md"
}

@test "report.mk: a second run on a run directory stops, naming it, and removes nothing" {
	r=$BATS_TEST_TMPDIR/run
	mkdir "$r"
	cp "$TOP/fixtures/example/trace.json.gz" "$r"
	mk RUN="$r" >/dev/null
	ls -A "$r" >"$BATS_TEST_TMPDIR/before"
	touch "$r/trace.json.gz"
	# The first run holds the directory, as report-run.bash takes it.
	exec {held}<"$r"
	flock -n "$held"
	run -2 --separate-stderr mk RUN="$r"
	exec {held}<&-
	assert_stderr --partial "report.mk: $r: another report.mk run holds it; run again once it has ended"
	run -0 ls -A "$r"
	assert_output "$(cat "$BATS_TEST_TMPDIR/before")"
	# Once it has ended, the run goes on.
	run -0 mk RUN="$r"
	assert_output --partial 'tr-extract'
}

@test "report.mk: a failed run leaves the set of reports it found, or none" {
	r=$BATS_TEST_TMPDIR/run b=$BATS_TEST_TMPDIR/bin
	mkdir "$r" "$b"
	# report-md -j fails once report.md and report.html are new.
	for t in "${BUILD:-$TOP}"/bin/*; do ln -s "$t" "$b"; done
	rm "$b/report-md"
	printf '#!/bin/sh\n[ "$1" != -j ] || exit 1\nexec %s "$@"\n' \
	    "'${BUILD:-$TOP}/bin/report-md'" >"$b/report-md"
	chmod +x "$b/report-md"
	cp "$TOP/fixtures/example/trace.json.gz" "$r"
	# None before: none after.
	run -2 mk BIN="$b" RUN="$r"
	run -0 ls -A "$r"
	assert_output "$(printf '%s\n' critical.ndjson findings.ndjson \
	    ops.ndjson trace-memory.ndjson trace.json.gz)"
	mk RUN="$r" >/dev/null
	set=(report.md report.json report.html charts.ndjson memory-trace.svg)
	before=$(cd "$r" && stat -c '%n %i' "${set[@]}")
	touch "$r/trace.json.gz"
	run -2 mk BIN="$b" RUN="$r"
	# Each output is the very file it was, and no stage file is left.
	run -0 bash -c 'cd "$1" && shift && stat -c "%n %i" "$@"' - "$r" "${set[@]}"
	assert_output "$before"
	run -0 find "$r" -name '.*'
	assert_output ''
}

# ranks DIR N: N one-operator traces in DIR, under names as long as
# launchers write them.
ranks() {
	local i
	mkdir "$1"
	for ((i = 0; i < $2; i++)); do
		printf '{"traceEvents":[{"ph":"X","cat":"cpu_op","name":"aten::mm","pid":1,"tid":1,"ts":%d,"dur":5}]}\n' \
		    "$i" >"$1/rank${i}_of_a_data_parallel_run_on_many_nodes_of_eight_gpus.json"
	done
}

# Each command line of the merge would be over 128 KiB, the most exec(2)
# takes in one argument, at 1,200 of these ranks.
@test "report.mk: 1,200 ranks in one report, no stage file left; a bad rank leaves none" {
	r=$BATS_TEST_TMPDIR/run
	ranks "$r" 1200
	run -0 mk -s -j2 RUN="$r"
	run -0 jq -c 'select(.kind == "cpu_summary" and .ranks != null)
	    | [.ranks, .events]' "$r/ops.ndjson"
	assert_output '[1200,1200]'
	run -0 jq .summary.cpu.traces "$r/report.json"
	assert_output 1200
	run -0 find "$r" -name '.*'
	assert_output ''
	printf '{"traceEvents":[' >"$r/rank1200.json"
	run -2 mk -s -j2 RUN="$r"
	run -0 find "$r" -name '.*'
	assert_output ''
}

@test "report.mk: at 10,000 ranks no command line grows with the ranks" {
	r=$BATS_TEST_TMPDIR/run
	ranks "$r" 10000
	run -0 mk -n RUN="$r"
	assert_output --partial "op-rank --merge -T '$r/.ops.ndjson.list'"
	run -0 awk '{ n = length > n ? length : n } END { print n < 2000 }' \
	    <<<"$output"
	assert_output 1
	# A dry run writes no list.
	run -0 find "$r" -name '.*'
	assert_output ''
}
