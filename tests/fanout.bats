bats_require_minimum_version 1.5.0
setup() { load test_helper; }

# report.mk's fan-out: one stage per trace (tr-extract | op-rank --partial,
# and the records mem-segments reads), one merge stage, every stage run
# as $(SUBMIT) command.

# mk ARGS...: the report pipeline on the binaries under test.
mk() {
	make --no-print-directory -f "$TOP/pipelines/report.mk" \
	    BIN="${BUILD:-$TOP}/bin" RUBRIC="$TOP/rubric" "$@"
}

# one_pass DIR: ops.ndjson and trace-memory.ndjson of DIR's traces as one
# pass of tr-extract writes them, into DIR.one/.
one_pass() {
	local TM='^\{"kind":"(memory|trace)"|^\{"kind":"event","name":"ProfilerStep#'
	mkdir "$1.one"
	MRP_RUBRIC=$TOP/rubric tr-extract "${@:2}" |
	    MRP_RUBRIC=$TOP/rubric op-rank >"$1.one/ops.ndjson"
	MRP_RUBRIC=$TOP/rubric tr-extract "${@:2}" |
	    { grep -E "$TM" || [ $? = 1 ]; } | mem-segments >"$1.one/trace-memory.ndjson"
}

# fan RUN FILE...: copies the files into RUN, makes its report with -j4 and
# compares its ops.ndjson and trace-memory.ndjson with one pass.
fan() {
	local r=$1 f
	mkdir "$r"
	shift
	cp "$@" "$r"
	chmod u+w "$r"/*
	run -0 mk -j4 RUN="$r"
	set --
	for f in $(cd "$r" && ls); do
		case $f in report.*) ;; *.json|*.json.gz) set -- "$@" "$r/$f" ;; esac
	done
	one_pass "$r" "$@"
	cmp "$r.one/ops.ndjson" "$r/ops.ndjson"
	cmp "$r.one/trace-memory.ndjson" "$r/trace-memory.ndjson"
}

@test "fanout: split and merge equals one pass on every multi-rank fixture" {
	need_shared traces/param_dlrm_8rank
	T=$SHARED/traces
	fan "$BATS_TEST_TMPDIR/dlrm" "$T"/param_dlrm_8rank/*.pt.trace.json
	mkdir "$BATS_TEST_TMPDIR/s"
	cp "$T/hta/sampled_rank-0.json.gz" "$BATS_TEST_TMPDIR/s/trace_rank-0.json.gz"
	cp "$T/hta/sampled_rank-1.json.gz" "$BATS_TEST_TMPDIR/s/trace_rank-1.json.gz"
	fan "$BATS_TEST_TMPDIR/sampled" "$BATS_TEST_TMPDIR"/s/*
	fan "$BATS_TEST_TMPDIR/hta" "$T"/hta/rank-*.pt.trace.json.gz
	# Four gloo ranks: their collectives matched call by call.
	mkdir "$BATS_TEST_TMPDIR/g"
	for r in 0 1 2 3; do
		cp "$TOP/fixtures/op-rank/ddp_stall_rank$r.json.gz" \
		    "$BATS_TEST_TMPDIR/g/rank$r.json.gz"
	done
	fan "$BATS_TEST_TMPDIR/ddp" "$BATS_TEST_TMPDIR"/g/*
	run -0 grep -c '"kind":"collective"' "$BATS_TEST_TMPDIR/ddp/ops.ndjson"
	assert_output 5
	# Memory records from two traces: mem-segments sees them as one stream.
	mkdir "$BATS_TEST_TMPDIR/mem"
	cp "$TOP/fixtures/example/trace.json.gz" "$BATS_TEST_TMPDIR/mem/trace0.json.gz"
	cp "$T/kineto/resnet50_nw0_worker0.1623143089861.pt.trace.json.gz" \
	    "$BATS_TEST_TMPDIR/mem/trace1.json.gz"
	fan "$BATS_TEST_TMPDIR/memory" "$BATS_TEST_TMPDIR"/mem/*
	run -0 jq -r .kind "$BATS_TEST_TMPDIR/memory/trace-memory.ndjson"
	assert_output --partial memory_profile
	# No stage file is left beside the traces.
	run -0 find "$BATS_TEST_TMPDIR" -name '.*.ndjson'
	assert_output ''
}

@test "fanout: one stage per trace, the merge after them all" {
	need_shared traces/param_dlrm_8rank
	r=$BATS_TEST_TMPDIR/run
	mkdir "$r"
	cp "$SHARED"/traces/param_dlrm_8rank/worker[0-2]_*.pt.trace.json "$r"
	run -0 mk -n RUN="$r"
	# Three trace stages, each a tr-extract and an op-rank --partial.
	run -0 grep -c 'op-rank --partial' <<<"$output"
	assert_output 3
	run -0 mk -n RUN="$r"
	run -0 grep -o "op-rank --merge .*" <<<"$output"
	assert_output --partial "op-rank --merge -T '$r/.ops.ndjson.list'"
	# The list names the partials in the traces' order: kept as the
	# merge reads it (a dry run writes none, and the merge removes it).
	printf '#!/bin/sh\nfor a; do [ "${p-}" != -T ] || cp "$a" "%s/list"; p=$a; done\nexec "$@"\n' \
	    "$BATS_TEST_TMPDIR" >"$BATS_TEST_TMPDIR/submit"
	chmod +x "$BATS_TEST_TMPDIR/submit"
	mk RUN="$r" SUBMIT="$BATS_TEST_TMPDIR/submit" "$r/ops.ndjson" >/dev/null
	run -0 cat "$BATS_TEST_TMPDIR/list"
	assert_output "$(cd "$r" && printf "$r/.%s.ops.ndjson\n" worker[0-2]_*)"
}

@test "fanout: every stage runs through SUBMIT, names quoted once for it" {
	need_shared traces/hta/sampled_rank-0.json.gz
	cd "$BATS_TEST_TMPDIR"
	# A stand-in for srun: logs the program and runs it.  A stage that
	# writes one file is bash writing it ($8, ending in .tmp) from its
	# program ($9); a stage of pipes is bash.
	printf '#!/bin/sh\np=$1\ncase ${8-} in *.tmp) p=$9 ;; esac\nprintf "%%s\\n" "$p" >>"%s/submitted"\nexec "$@"\n' \
	    "$BATS_TEST_TMPDIR" >submit
	chmod +x submit
	r="run\`{touch,PWNED}\`'&(x)!"
	mkdir "$r" local
	t="$r/trace\`{touch,PWNED2}\`\$({touch,PWNED3})'\"&#.json.gz"
	cp "$TOP/fixtures/example/trace.json.gz" "$t"
	cp "$SHARED/traces/hta/sampled_rank-0.json.gz" "$r/trace1.json.gz"
	cp "$TOP/fixtures/example/memory_snapshot.json.gz" "$r"
	run -0 mk -j2 RUN="$r"
	mv "$r"/*.ndjson "$r"/report.* local
	run -0 mk -j2 RUN="$r" SUBMIT="$BATS_TEST_TMPDIR/submit"
	run -0 find "$BATS_TEST_TMPDIR" -name 'PWNED*'
	assert_output ''
	# Two trace stages and three merges, memory, churn, findings, charts,
	# the reports and the page.
	b=${BUILD:-$TOP}/bin
	run -0 sort "$BATS_TEST_TMPDIR/submitted"
	assert_output "$(printf '%s\n' bash bash bash bash "$b/op-rank" \
	    "$b/churn-score" "$b/mem-segments" "$b/rubric-apply" \
	    "$b/report-svg" "$b/report-md" "$b/report-md" "$b/report-html" |
	    sort)"
	for f in local/*; do
		cmp "$f" "$r/${f#local/}"
	done
}

@test "fanout: a failing SUBMIT fails make and leaves no target" {
	r=$BATS_TEST_TMPDIR/run
	mkdir "$r"
	cp "$TOP/fixtures/example/trace.json.gz" "$r"
	run -2 mk RUN="$r" SUBMIT=false
	run -0 ls -A "$r"
	assert_output 'trace.json.gz'
}
