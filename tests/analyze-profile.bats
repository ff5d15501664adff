bats_require_minimum_version 1.5.0
setup() { load test_helper; export MRP_RUBRIC="$TOP/rubric"; }

@test "analyze-profile: usage errors" {
	run -2 --separate-stderr analyze-profile
	assert_stderr --partial 'usage: analyze-profile [--baseline file] [--context file] [--cpu-trace file] [--html-out file] [--json-out file] [--md-out file] [--memory-json file] [--nsys-sqlite file] [--objective objective] [--overlay-out file] [--phase phase] [--set key=value]'
	run -2 --separate-stderr analyze-profile --bogus x
	run -2 --separate-stderr analyze-profile --md-out x.md
	run -2 --separate-stderr analyze-profile --set model=x --md-out x.md
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

@test "analyze-profile: --overlay-out writes the trace back with its critical path and the findings" {
	local t=$TOP/fixtures/crit-path/hta_cuda_event_sync.json.gz
	run -0 analyze-profile --cpu-trace "$t" --json-out "$BATS_TEST_TMPDIR/a.json"
	echo "$output" > "$BATS_TEST_TMPDIR/a.md"
	run -0 analyze-profile --cpu-trace "$t" --json-out "$BATS_TEST_TMPDIR/b.json" \
	    --overlay-out "$BATS_TEST_TMPDIR/ov.json.gz"
	# The report is the same with or without it.
	assert_output - < "$BATS_TEST_TMPDIR/a.md"
	cmp "$BATS_TEST_TMPDIR/a.json" "$BATS_TEST_TMPDIR/b.json"
	# trace-overlay's on crit-path's records, and a marker per finding.
	tr-extract "$t" | crit-path > "$BATS_TEST_TMPDIR/rec"
	trace-overlay "$t" "$BATS_TEST_TMPDIR/rec" > "$BATS_TEST_TMPDIR/want.json.gz"
	run -0 bash -c "zcat '$BATS_TEST_TMPDIR/ov.json.gz' | jq -c '
	    [([.traceEvents[] | select(.args.critical == 1)] | length),
	    ([.traceEvents[] | select(.ph == \"i\" and .cat == \"mrp\")] | length)]'"
	assert_output "[$(jq 'select(.kind == "critical_path") | .path_events' "$BATS_TEST_TMPDIR/rec"),$(jq '.actions | length' "$BATS_TEST_TMPDIR/b.json")]"
	diff <(zcat "$BATS_TEST_TMPDIR/want.json.gz" | grep -v '"cat":"mrp","pid":[0-9]*,"tid"') \
	    <(zcat "$BATS_TEST_TMPDIR/ov.json.gz" | grep -v '"cat":"mrp","pid":[0-9]*,"tid"')
	# An Nsight export alone has no trace to draw on.
	run -2 --separate-stderr analyze-profile --nsys-sqlite "$TOP/fixtures/nsys-extract/$(ls "$TOP/fixtures/nsys-extract" | grep -m1 '\.sqlite$')" \
	    --overlay-out "$BATS_TEST_TMPDIR/x.json.gz"
	assert_stderr --partial '--overlay-out draws on a profiler trace'
	run -2 --separate-stderr analyze-profile --cpu-trace "$t" --overlay-out "$t"
	assert_stderr --partial '--overlay-out is the --cpu-trace file'
}

@test "analyze-profile: the trace alone" {
	run -0 analyze-profile --cpu-trace "$TOP/fixtures/example/trace.json.gz"
	# Nearly half of the BERT step runs in Python with no operator open;
	# the benchmark loop around the model holds its own slice.
	assert_output --partial '### 1. python-between-ops (cpu)'
	assert_output --regexp '\| Python outside operators +\|  1.98 ms \| 44.6 % \| transformers/py.*\(186\): apply_chunking_to_forward \(331.9 µs\) +\|'
	assert_output --regexp '\| Harness around the step +\| 115.0 µs \|  2.6 % \|'
	assert_output --partial 'missing-snapshot (memory)'
	assert_output --partial '| Peak allocated (profiler) |'
}

@test "analyze-profile: the snapshot alone" {
	run -0 analyze-profile --memory-json "$TOP/fixtures/example/memory_snapshot.json.gz" \
	    --json-out "$BATS_TEST_TMPDIR/r.json"
	assert_output --partial '### 1. releasable-cache (memory)'
	assert_output --partial '### 2. fragmentation-medium (memory)'
	assert_output --partial 'missing-trace (cpu)'
	# The trace's sections, empty, are one line in each part, not seven
	# "None." sections.
	assert_line '_Nothing in these inputs for Where the time goes, Top CPU operators, Top threads, Top GPU kernels, Slowest steps._'
	assert_line '_Nothing in these inputs for Operator families, Phases, GPU timeline._'
	refute_output --partial '### Top threads'
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

# inputs_args: the options of analyze-profile on two ranks' traces, one gzip
# and one plain, an Nsight Systems export and a snapshot, in
# $BATS_TEST_TMPDIR, in args; it moves there.
inputs_args() {
	cd "$BATS_TEST_TMPDIR"
	cp "$TOP/fixtures/op-rank/ddp_balanced_rank0.json.gz" rank0.json.gz
	gzip -dc "$TOP/fixtures/op-rank/ddp_balanced_rank1.json.gz" >rank1.json
	nsys=$TOP/fixtures/nsys-extract/nsys-ai__mock.sqlite
	snap=$TOP/fixtures/example/memory_snapshot.json.gz
	args=(--cpu-trace rank0.json.gz --nsys-sqlite "$nsys"
	    --cpu-trace rank1.json --memory-json "$snap" --md-out /dev/null)
}

@test "analyze-profile: inputs named by size and SHA-256, in the order given" {
	inputs_args
	analyze-profile "${args[@]}" --json-out r.json
	# The traces are hashed by the thread that reads them, the export and
	# the snapshot by a process of their own: one list all the same.
	run -0 jq -r '.inputs[] | [.path, .role, .size, .sha256] | @tsv' r.json
	assert_output "$(for f in rank0.json.gz:trace "$nsys":nsys_export \
	    rank1.json:trace "$snap":memory_snapshot; do
		printf '%s\t%s\t%s\t%s\n' "${f%:*}" "${f##*:}" \
		    "$(stat -c %s "${f%:*}")" "$(sha256sum <"${f%:*}" | cut -d' ' -f1)"
	done)"
}

@test "analyze-profile: each trace file is opened once, hashed as it is read" {
	strace -f -o /dev/null true 2>/dev/null || skip "strace cannot trace here"
	inputs_args
	# LeakSanitizer cannot run under ptrace; the test before runs it.
	ASAN_OPTIONS=${ASAN_OPTIONS:+$ASAN_OPTIONS:}detect_leaks=0 \
	    strace -f -e trace=open,openat -o opens analyze-profile \
	    "${args[@]}" --json-out r.json
	run -0 grep -c '"rank0.json.gz"' opens
	assert_output 1
	run -0 grep -c '"rank1.json"' opens
	assert_output 1
	run -0 jq -r '.inputs[0].sha256' r.json
	assert_output "$(sha256sum <rank0.json.gz | cut -d' ' -f1)"
}

# piped DIR TRACE...: what the trace branch wrote when it was tr-extract
# into a tee, op-rank, crit-path and mem-segments: DIR/trace.ndjson,
# op-rank's, DIR/critical.ndjson, crit-path -s's of each trace in turn
# (a window without a path is its 1), and DIR/trace-memory.ndjson,
# mem-segments's on the memory records, profiler steps and trace records,
# picked by the head of the line as the tee did.
piped() {
	local dir=$1 t
	shift
	mkdir "$dir"
	tr-extract "$@" >"$dir/records.ndjson" 2>/dev/null || return
	op-rank "$dir/records.ndjson" >"$dir/trace.ndjson" || return
	for t; do
		tr-extract "$t" 2>/dev/null | crit-path -s 2>/dev/null ||
		    [ $? = 1 ]
	done >"$dir/critical.ndjson"
	grep -E '^\{"kind":"(memory|trace)"|^\{"kind":"event","name":"ProfilerStep#' \
	    "$dir/records.ndjson" | mem-segments >"$dir/trace-memory.ndjson"
}

@test "analyze-profile: the trace stage in one process, the ranking on a thread of its own or not, gives the piped stages' files on every trace fixture" {
	# The files make the report: outputs.bats holds the reports of these
	# fixtures, and the test of the ranking's thread compares two.
	bin=$BATS_TEST_TMPDIR/bin
	stub_stages "$bin" only
	cd "$TOP/fixtures"
	runs=(example/trace.json.gz op-rank/*.json.gz tr-extract/*.json
	    tr-extract/*.json.gz "op-rank/sampled_rank-0.json.gz op-rank/sampled_rank-1.json.gz")
	if [ -d "$SHARED/traces/param_dlrm_8rank" ]; then
		runs+=("$(echo "$SHARED"/traces/param_dlrm_8rank/*.pt.trace.json)")
	fi
	n=0 made=0
	for run in "${runs[@]}"; do
		read -ra traces <<<"$run"
		set --
		for t in "${traces[@]}"; do
			set -- "$@" --cpu-trace "$t"
		done
		n=$((n + 1))
		d=$BATS_TEST_TMPDIR/$n
		if ! piped "$d" "${traces[@]}"; then
			run -1 "$bin/analyze-profile" "$@" --md-out "$d/a.md"
			continue
		fi
		made=$((made + 1))
		# With two CPUs, and with three (the ranking on a thread of
		# its own), whatever the machine has.
		for c in 2 3; do
			rm -f "$bin"/files/*
			run -0 env MRP_CPUS=$c "$bin/analyze-profile" "$@" \
			    --md-out "$d/a.md" --json-out "$d/a.json"
			cmp "$d/trace.ndjson" "$bin/files/trace.ndjson"
			cmp "$d/critical.ndjson" "$bin/files/critical.ndjson"
			cmp "$d/trace-memory.ndjson" "$bin/files/trace-memory.ndjson"
		done
	done
	# Most of them make a report.
	[ "$made" -ge 15 ]
}

@test "analyze-profile: a bad input fails with the stage's message, no output file" {
	need_shared memsnap/pickle
	p=$(ls "$SHARED"/memsnap/pickle/* | head -n 1)
	run -1 --separate-stderr analyze-profile --memory-json "$p" \
	    --md-out "$BATS_TEST_TMPDIR/r.md"
	assert_stderr --partial 'this is a Python pickle'
	# Both readers of the snapshot refuse it: the first to end stops the
	# other, if it is still running.
	assert_stderr --regexp 'analyze-profile: (mem-segments|churn-score) failed \(exit status 1\)'
	[ -z "$(find "$BATS_TEST_TMPDIR" -name '*r.md*')" ]
	run -1 --separate-stderr analyze-profile --cpu-trace "$BATS_TEST_TMPDIR/none"
	assert_stderr --partial 'none'
}

@test "analyze-profile: a failed write exits 1" {
	run -1 bash -c 'analyze-profile --cpu-trace "$1" >/dev/full' _ \
	    "$TOP/fixtures/example/trace.json.gz"
}

@test "analyze-profile: real snapshots paired with real traces" {
	# Each snapshot alone: diagnosis.bats's test of every shared snapshot.
	need_shared memsnap
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
	[ -z "$(compgen -G "$BATS_TEST_TMPDIR/.fifo.*")" ]
	run -0 jq -r .kind "$BATS_TEST_TMPDIR/got"
	assert_output 'report'
	[ -c /dev/null ]
}

@test "analyze-profile: a progress line on a terminal, none elsewhere" {
	# The stages are the tools beside analyze-profile; here mem-segments
	# holds the snapshot open, unread, for two seconds before it starts.
	bin=$BATS_TEST_TMPDIR/bin
	mkdir "$bin"
	cp "$TOOLS/analyze-profile" "$bin/"
	for t in "$TOOLS"/*; do
		[ -e "$bin/${t##*/}" ] || ln -s "$t" "$bin/"
	done
	rm "$bin/mem-segments"
	printf '#!/bin/sh\n[ $# -eq 0 ] || exec 3<"$1"\nsleep 2\nexec 3<&-\nexec %s "$@"\n' \
	    "$TOOLS/mem-segments" >"$bin/mem-segments"
	chmod +x "$bin/mem-segments"
	trace=$TOP/fixtures/example/trace.json.gz
	snap=$TOP/fixtures/example/memory_snapshot.json.gz
	run -0 script -qec "'$bin/analyze-profile' --cpu-trace '$trace' \
	    --memory-json '$snap' --md-out '$BATS_TEST_TMPDIR/tty.md'" /dev/null
	assert_output --partial $'\ranalyze-profile: trace read memory 0%\e[K'
	# The line is wiped before the prompt comes back.
	[[ $output == *$'\r\e[K' ]]
	run -0 --separate-stderr "$bin/analyze-profile" --cpu-trace "$trace" \
	    --memory-json "$snap" --md-out "$BATS_TEST_TMPDIR/pipe.md"
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
	assert_output '["MEDIUM","python",["python-between-ops","low-gpu-util"]]'
	run -0 analyze-profile --cpu-trace trace.json.gz \
	    --md-out "$BATS_TEST_TMPDIR/report.md" \
	    --overlay-out "$BATS_TEST_TMPDIR/overlay.json.gz"
	run -0 bats_pipe zcat "$BATS_TEST_TMPDIR/overlay.json.gz" \| \
	    jq -c '[([.traceEvents[] | select(.args.critical == 1)] | length > 0),
	    ([.traceEvents[] | select(.ph == "i" and .cat == "mrp")] | length)]'
	assert_output '[true,8]'
	run -0 bats_pipe analyze-profile --cpu-trace trace.json.gz \| grep -c '^### [0-9]'
	assert_output 8
	cd "$FIXTURES"
	run -0 analyze-profile --context context.yaml --set batch_size=16 \
	    --objective throughput
	assert_output "$(jq -c '.batch_size = 16 | .objective = "throughput"' context.out)"
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
		[ ! -e r.md ]
		[ -z "$(compgen -G '.r.md.*')" ]
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
	assert_stderr --partial 'analyze-profile: the trace stage failed'
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
	# A mem-segments that would leave a mark, were it run.
	bin=$BATS_TEST_TMPDIR/bin
	mkdir "$bin"
	cp "$TOOLS/analyze-profile" "$bin/"
	printf '#!/bin/sh\ntouch "%s/ran"\n' "$BATS_TEST_TMPDIR" >"$bin/mem-segments"
	chmod +x "$bin/mem-segments"
	t=$TOP/fixtures/example/trace.json.gz
	run -1 --separate-stderr "$bin/analyze-profile" --cpu-trace "$t" --md-out nodir/r.md
	assert_stderr 'analyze-profile: nodir/r.md: No such file or directory'
	run -1 --separate-stderr "$bin/analyze-profile" --cpu-trace "$t" --json-out "$bin"
	assert_stderr "analyze-profile: $bin: Is a directory"
	[ ! -e ran ]
}

# stub_stages DIR [only]: analyze-profile in DIR with the real stages
# beside it, except that rubric-apply and report-md first log their
# arguments, and the context record they are given, into DIR/log, and
# rubric-apply copies the files it reads into DIR/files.  The stages run at
# once, so each stage's entry is one write.  With "only", the two stop
# there, as a test of the files alone need not compile the rules and the
# report: report-md writes "{}" as each report.
stub_stages() {
	local bin=$1 only=${2-} t s
	mkdir "$bin" "$bin/files"
	cp "$TOOLS/analyze-profile" "$bin/"
	for t in "$TOOLS"/*; do
		[ -e "$bin/${t##*/}" ] || ln -s "$t" "$bin/"
	done
	for s in rubric-apply report-md; do
		rm "$bin/$s"
		cat >"$bin/$s" <<-STUB
		#!/bin/bash
		entry=$s
		[ \$# -eq 0 ] || entry+=\$(printf ' %q' "\$@")
		entry+=\$'\\n'
		# "-" is the pipe that holds the stage back until its files
		# are whole: wait there too, and leave it empty for the stage.
		for a; do
			[ "\$a" != - ] || cat >/dev/null
		done
		for a; do
			case \$a in
			-) ;;
			*/context.ndjson) entry+=\$(cat "\$a")\$'\\n' ;;
			esac
			[ $s != rubric-apply ] || [ "\$a" = - ] || cp "\$a" "$bin/files/"
		done
		printf '%s' "\$entry" >>"$bin/log"
		if [ "$only" != only ]; then
			exec "$TOOLS/$s" "\$@"
		elif [ $s = report-md ]; then
			[ "\$1" != -J ] || echo '{}' >"\$2"
			echo '{}'
		fi
		STUB
		chmod +x "$bin/$s"
	done
}

@test "analyze-profile: a context alone is its record, from YAML" {
	cd "$FIXTURES"
	run -0 --separate-stderr analyze-profile --context context.yaml
	assert_output - <"$FIXTURES/context.out"
	[ -z "$stderr" ]
}

@test "analyze-profile: a context from JSON, unknown keys under extra" {
	cd "$FIXTURES"
	run -0 analyze-profile --context context.json
	assert_output '{"kind":"context","model":"gpt2","batch_size":32,"seq_len":1024,"precision":"fp16","parallelism":null,"world_size":1,"gpu":null,"phase":null,"objective":null,"extra":{"notes":{"run":"a","tags":["x","y"]}},"file":"context.json"}'
}

@test "analyze-profile: bytes, sets and tuples of a context as JSON, in one order" {
	cd "$BATS_TEST_TMPDIR"
	printf 'model: gpt2\nblob: !!binary aGk=\ntags: !!set {b, a, 10, 9}\norder: !!omap [{warmup: 1}, {train: 2}]\n? !!binary eA==\n: key\n' >ctx.yaml
	run -0 --separate-stderr analyze-profile --context ctx.yaml
	assert_output '{"kind":"context","model":"gpt2","batch_size":null,"seq_len":null,"precision":null,"parallelism":null,"world_size":null,"gpu":null,"phase":null,"objective":null,"extra":{"b'"'x'"'":"key","blob":"aGk=","order":[["warmup",1],["train",2]],"tags":[9,10,"a","b"]},"file":"ctx.yaml"}'
	printf 'gpu: !!binary eA==\n' >g.yaml
	run -1 --separate-stderr analyze-profile --context g.yaml
	assert_stderr 'analyze-profile: g.yaml:1:6: gpu: not a string'
	printf 'gpu: !!set {a100}\n' >g.yaml
	run -1 --separate-stderr analyze-profile --context g.yaml
	assert_stderr 'analyze-profile: g.yaml:1:6: gpu: not a string'
}

@test "analyze-profile: --set, --phase and --objective override the file" {
	cd "$FIXTURES"
	run -0 analyze-profile --context context.yaml --set batch_size=16 \
	    --set seq_len=4096 --set model= --set precision=FP8 --set team=infra \
	    --set lr=0.001 --phase backward --objective memory
	run -0 jq -c '[.model, .batch_size, .seq_len, .precision, .phase, .objective, .extra, .file]' <<<"$output"
	assert_output '[null,16,4096,"fp8","backward","memory",{"lr":"0.001","optimizer":"adamw","team":"infra"},"context.yaml"]'
	# Without a file: every member is there, null when unknown.
	run -0 analyze-profile --objective throughput
	assert_output '{"kind":"context","model":null,"batch_size":null,"seq_len":null,"precision":null,"parallelism":null,"world_size":null,"gpu":null,"phase":null,"objective":"throughput","extra":{},"file":null}'
	# --phase and --objective win over --set, whatever the order.
	run -0 jq -r .phase < <(analyze-profile --phase forward --set phase=optimizer)
	assert_output forward
}

@test "analyze-profile: bad context options are usage errors" {
	run -2 --separate-stderr analyze-profile --set batch_size=eight
	assert_stderr 'analyze-profile: --set: batch_size: not an integer: eight'
	run -2 --separate-stderr analyze-profile --set world_size=0
	assert_stderr 'analyze-profile: --set: world_size: not a positive integer: 0'
	run -2 --separate-stderr analyze-profile --set model
	assert_stderr 'analyze-profile: --set: not key=value: model'
	run -2 --separate-stderr analyze-profile --set =x
	assert_stderr 'analyze-profile: --set: not key=value: =x'
	run -2 --separate-stderr analyze-profile --phase fwd
	assert_stderr 'analyze-profile: --phase: not one of forward|backward|optimizer|dataloader|communication: fwd'
	run -2 --separate-stderr analyze-profile --objective speed
	assert_stderr 'analyze-profile: --objective: not one of throughput|memory|latency: speed'
	run -2 --separate-stderr analyze-profile --set phase=loss
	assert_stderr 'analyze-profile: --set: phase: not one of forward|backward|optimizer|dataloader|communication: loss'
}

@test "analyze-profile: a bad context file is a data error at its line and column" {
	cd "$BATS_TEST_TMPDIR"
	printf 'model: x\nbatch_size: "8"\n' >a.yaml
	run -1 --separate-stderr analyze-profile --context a.yaml
	assert_stderr 'analyze-profile: a.yaml:2:13: batch_size: not an integer'
	printf '{"model": "x",\n "seq_len": 1.5}\n' >b.json
	run -1 --separate-stderr analyze-profile --context b.json
	assert_stderr 'analyze-profile: b.json:2:13: seq_len: not an integer'
	printf 'gpu: [a100]\n' >c.yaml
	run -1 --separate-stderr analyze-profile --context c.yaml
	assert_stderr 'analyze-profile: c.yaml:1:6: gpu: not a string'
	printf 'objective: speed\n' >d.yaml
	run -1 --separate-stderr analyze-profile --context d.yaml
	assert_stderr 'analyze-profile: d.yaml:1:12: objective: not one of throughput|memory|latency'
	printf -- '- model\n' >e.yaml
	run -1 --separate-stderr analyze-profile --context e.yaml
	assert_stderr 'analyze-profile: e.yaml:1:1: not a mapping'
	: >f.yaml
	run -1 --separate-stderr analyze-profile --context f.yaml
	assert_stderr 'analyze-profile: f.yaml: not a mapping'
	printf 'model: [x\n' >g.yaml
	run -1 --separate-stderr analyze-profile --context g.yaml
	assert_stderr --regexp '^analyze-profile: g\.yaml:2:1: '
	run -1 --separate-stderr analyze-profile --context none.yaml
	assert_stderr 'analyze-profile: none.yaml: No such file or directory'
	# A bad context stops the run before any stage.
	run -1 analyze-profile --cpu-trace "$TOP/fixtures/example/trace.json.gz" \
	    --context a.yaml --md-out r.md
	[ ! -e r.md ]
	run -2 --separate-stderr analyze-profile --cpu-trace "$TOP/fixtures/example/trace.json.gz" \
	    --context a.yaml --md-out a.yaml
	assert_stderr 'analyze-profile: --md-out is the --context file: a.yaml'
}

@test "analyze-profile: the context record reaches rubric-apply and report-md first" {
	bin=$BATS_TEST_TMPDIR/bin
	stub_stages "$bin"
	cd "$FIXTURES"
	run -0 "$bin/analyze-profile" --cpu-trace "$TOP/fixtures/example/trace.json.gz" \
	    --context context.yaml --phase forward --json-out "$BATS_TEST_TMPDIR/r.json"
	run -0 jq -r .kind "$BATS_TEST_TMPDIR/r.json"
	assert_output report
	# The phase reached the operator ranking.
	run -0 bats_pipe tr-extract "$TOP/fixtures/example/trace.json.gz" \| \
	    op-rank --phase forward
	assert_output - <"$bin/files/trace.ndjson"
	# The record is the first file of rubric-apply and of report-md, which
	# writes both reports, after the standard input they wait on until the
	# files are whole.
	run -0 grep -cE '^(rubric-apply|report-md -J [^ ]*/\.r\.json\.[^ ]*) - [^ ]*/context\.ndjson [^ ]*/trace\.ndjson ' "$bin/log"
	assert_output 2
	run -0 grep '^{"kind":"context"' "$bin/log"
	want=$(jq -c '.phase = "forward"' "$FIXTURES/context.out")
	assert_output "$(printf '%s\n%s' "$want" "$want")"
}

@test "analyze-profile: without context options, no context record and no --phase" {
	bin=$BATS_TEST_TMPDIR/bin
	stub_stages "$bin"
	cd "$TOP/fixtures"
	run -0 "$bin/analyze-profile" --cpu-trace example/trace.json.gz \
	    --memory-json example/memory_snapshot.json.gz \
	    --json-out "$BATS_TEST_TMPDIR/r.json"
	assert_output - <"$FIXTURES/example.md"
	cmp "$BATS_TEST_TMPDIR/r.json" "$FIXTURES/example.json"
	run -1 grep -c 'context' "$bin/log"
	assert_output 0
	run -0 bats_pipe tr-extract example/trace.json.gz \| op-rank
	assert_output - <"$bin/files/trace.ndjson"
}

# dlrm DIR: the 8 DLRM ranks in DIR under PyTorch's own names, three gzipped.
dlrm() {
	mkdir "$1"
	cp "$SHARED"/traces/param_dlrm_8rank/*.pt.trace.json "$1"
	chmod u+w "$1"/*
	gzip "$1"/worker[136]_*
}

@test "analyze-profile: eight ranks as eight --cpu-trace files or one directory" {
	need_shared traces/param_dlrm_8rank
	cd "$BATS_TEST_TMPDIR"
	dlrm run
	args=()
	for f in run/*; do
		args+=(--cpu-trace "$f")
	done
	run -0 analyze-profile "${args[@]}" --json-out files.json --md-out files.md
	run -0 analyze-profile --cpu-trace run --json-out dir.json --md-out dir.md
	cmp files.md dir.md
	cmp files.json dir.json
	run -0 jq -c '[.summary.cpu.traces, [.inputs[] | .role], (.actions | map(.rule) | index("late-rank") != null)]' dir.json
	assert_output '[8,["trace","trace","trace","trace","trace","trace","trace","trace"],true]'
	# In sorted order, gzipped or not.
	run -0 jq -r '.inputs[].path' dir.json
	assert_output "$(printf 'run/%s\n' $(cd run && ls))"
	# Every rank is there once.
	run -0 bats_pipe tr-extract run/* \| jq -c 'select(.kind == "trace") | .rank'
	assert_output "$(seq 0 7)"
	# The man page's example, on the directory tensorboard_trace_handler
	# would have written.
	mv run log
	run -0 analyze-profile --cpu-trace log/ --md-out report.md
	assert_output ''
	diff <(sed '/^## Inputs/,$d' report.md) <(sed '/^## Inputs/,$d' dir.md)
}

@test "analyze-profile: --cpu-trace a --cpu-trace b reads both" {
	cd "$TOP/fixtures/op-rank"
	run -0 analyze-profile --cpu-trace sampled_rank-0.json.gz \
	    --cpu-trace sampled_rank-1.json.gz --json-out "$BATS_TEST_TMPDIR/r.json"
	run -0 jq -c '[.summary.cpu.traces, [.inputs[].path]]' "$BATS_TEST_TMPDIR/r.json"
	assert_output '[2,["sampled_rank-0.json.gz","sampled_rank-1.json.gz"]]'
	# Each one must have events, and each one without is named.
	: >"$BATS_TEST_TMPDIR/e1.json"
	printf '{"traceEvents":[]}\n' >"$BATS_TEST_TMPDIR/e2.json"
	run -1 --separate-stderr analyze-profile --cpu-trace "$BATS_TEST_TMPDIR/e1.json" \
	    --cpu-trace sampled_rank-0.json.gz --cpu-trace "$BATS_TEST_TMPDIR/e2.json"
	assert_stderr "$(printf 'analyze-profile: %s: no events\n' \
	    "$BATS_TEST_TMPDIR/e1.json" "$BATS_TEST_TMPDIR/e2.json")"
	# An output that is any of the traces is refused.
	run -2 --separate-stderr analyze-profile --cpu-trace sampled_rank-0.json.gz \
	    --cpu-trace sampled_rank-1.json.gz --md-out sampled_rank-1.json.gz
	assert_stderr 'analyze-profile: --md-out is the --cpu-trace file: sampled_rank-1.json.gz'
}

@test "analyze-profile: one rank twice is refused over the same window, accepted over another" {
	need_shared traces/param_dlrm_8rank
	cd "$BATS_TEST_TMPDIR"
	t=$SHARED/traces/param_dlrm_8rank/worker0_step_12.1694128201545.pt.trace.json
	mkdir run
	cp "$t" run/worker0.1.pt.trace.json
	cp "$t" run/worker0.2.pt.trace.json
	run -1 --separate-stderr analyze-profile --cpu-trace run --md-out r.md
	assert_stderr "$(printf '%s\n' \
	    'analyze-profile: run/worker0.1.pt.trace.json and run/worker0.2.pt.trace.json: both rank 0, same window' \
	    'analyze-profile: the trace stage failed (exit status 1)')"
	[ ! -e r.md ]
	[ -z "$(compgen -G '.r.md.*')" ]
	# The same step an hour later is another window of rank 0.
	jq -c '.traceEvents |= map(if .ts then .ts += 3600000000 else . end)' \
	    "$t" >run/worker0.2.pt.trace.json
	run -0 analyze-profile --cpu-trace run --json-out r.json
	run -0 jq -c '.summary.cpu.traces' r.json
	assert_output 2
	# Without a rank, the same holds.
	run -1 --separate-stderr analyze-profile --cpu-trace "$TOP/fixtures/example/trace.json.gz" \
	    --cpu-trace "$TOP/fixtures/example/trace.json.gz"
	assert_stderr --partial 'both without a rank, same window'
}

@test "analyze-profile: the ranking on a thread of its own (three CPUs) gives the bytes of one thread (two)" {
	# The stage's files both ways on every trace fixture are the piped
	# stages' (the test of every trace fixture); here, two ranks' reports.
	cd "$TOP/fixtures"
	d=$BATS_TEST_TMPDIR
	for c in 2 3; do
		MRP_CPUS=$c analyze-profile --cpu-trace=op-rank/ddp_stall_rank0.json.gz \
		    --cpu-trace=op-rank/ddp_stall_rank1.json.gz \
		    --md-out "$d/$c.md" --json-out "$d/$c.json"
	done
	cmp "$d/2.md" "$d/3.md"
	cmp "$d/2.json" "$d/3.json"
	# The ranking's error, from its thread, stops the run as it does
	# on one thread.
	cp op-rank/ddp_stall_rank0.json.gz "$d/a.json.gz"
	cp op-rank/ddp_stall_rank0.json.gz "$d/b.json.gz"
	for c in 2 3; do
		run -1 --separate-stderr env MRP_CPUS=$c analyze-profile \
		    --cpu-trace "$d/a.json.gz" --cpu-trace "$d/b.json.gz"
		assert_stderr "$(printf '%s\n' \
		    "analyze-profile: $d/a.json.gz and $d/b.json.gz: both without a rank, same window" \
		    'analyze-profile: the trace stage failed (exit status 1)')"
	done
}

@test "analyze-profile: a directory without a trace is an error naming it and the patterns" {
	cd "$BATS_TEST_TMPDIR"
	mkdir run
	run -1 --separate-stderr analyze-profile --cpu-trace run
	assert_stderr 'analyze-profile: run: no trace in the directory (none of *.trace.json, *.trace.json.gz, profile_trace*.json, profile_trace*.json.gz, trace*.json, trace*.json.gz, rank*.json, rank*.json.gz, worker*.json, worker*.json.gz)'
	# Snapshots, the context, the reports and the stages are no traces.
	cp "$TOP/fixtures/example/memory_snapshot.json.gz" run/
	cp "$TOP/fixtures/example/memory_snapshot.json.gz" run/memory_snapshot.pt.trace.json.gz
	cp "$TOP/fixtures/analyze-profile/context.json" run/
	: >run/report.json
	: >run/ops.ndjson
	mkdir run/trace0.json
	run -1 --separate-stderr analyze-profile --cpu-trace run
	assert_stderr --partial 'analyze-profile: run: no trace in the directory'
	# Each pattern is a trace: here each one another rank (gzip or not,
	# the contents decide).
	i=0
	for n in a.pt.trace.json a.pt.trace.json.gz trace.json trace_1.json.gz \
	    rank0.json rank-1.json.gz worker0.json worker_1.json.gz; do
		gzip -dc "$TOP/fixtures/example/trace.json.gz" |
		    jq -c --argjson r $i '.distributedInfo = {rank: $r}' >"run/$n"
		i=$((i + 1))
	done
	run -0 analyze-profile --cpu-trace run/ --json-out r.json --md-out /dev/null
	run -0 jq -r '.inputs[].path' r.json
	assert_output "$(printf 'run/%s\n' a.pt.trace.json a.pt.trace.json.gz \
	    rank-1.json.gz rank0.json trace.json trace_1.json.gz worker0.json \
	    worker_1.json.gz)"
}

@test "analyze-profile: SGLang's, xDiT's and vLLM's trace names; a pickle is named, never read" {
	cd "$BATS_TEST_TMPDIR"
	mkdir run
	# The names those launchers write, each trace another rank.
	i=0
	for n in 1733466.3-TP-0.trace.json.gz 1733466.3-TP-1.trace.json.gz \
	    profile_trace_rank_2.json.gz profile_trace_rank_3.json \
	    host_1234.1733466312.pt.trace.json.gz; do
		gzip -dc "$TOP/fixtures/example/trace.json.gz" |
		    jq -c --argjson r $i '.distributedInfo = {rank: $r}' >"run/$n"
		i=$((i + 1))
	done
	printf '\x80\x04\x95\x10\x00\x00\x00' >run/memory_snapshot.pickle
	run -0 --separate-stderr analyze-profile --cpu-trace run --json-out r.json --md-out r.md
	assert_stderr "analyze-profile: run/memory_snapshot.pickle: a pickle is never read.  Dump the snapshot as JSON instead: json.dump(torch.cuda.memory._snapshot(), open(\"snap.json\", \"w\")), or convert a pickle you trust (loading one runs code) where it was made: python3 -c 'import pickle, json; json.dump(pickle.load(open(\"snap.pickle\", \"rb\")), open(\"snap.json\", \"w\"))'"
	run -0 jq -r '.inputs[] | "\(.path) \(.role)"' r.json
	assert_output - <<'OUT'
run/1733466.3-TP-0.trace.json.gz trace
run/1733466.3-TP-1.trace.json.gz trace
run/host_1234.1733466312.pt.trace.json.gz trace
run/profile_trace_rank_2.json.gz trace
run/profile_trace_rank_3.json trace
run/memory_snapshot.pickle pickle
OUT
	run -0 jq -r '.data_quality[] | select(.file != null) | "\(.file): \(.message[0:29])"' r.json
	assert_output 'run/memory_snapshot.pickle: a pickle is never read.  Dump'
	run -0 grep -c '^- run/memory_snapshot.pickle: a pickle is never read' r.md
}

@test "analyze-profile: --baseline adds the before-and-after comparison" {
	cd "$TOP/fixtures/report-diff"
	run -0 analyze-profile --cpu-trace after.trace.json.gz \
	    --baseline before.json --json-out "$BATS_TEST_TMPDIR/after.json"
	md=$output
	# The JSON report is the plain one plus baseline_diff, which is what
	# report-diff says of the two.
	run -0 bats_pipe jq -c 'del(.baseline_diff, .inputs)' "$BATS_TEST_TMPDIR/after.json"
	assert_output "$(jq -c 'del(.inputs)' after.json)"
	run -0 jq -c '.baseline_diff' "$BATS_TEST_TMPDIR/after.json"
	assert_output "$(report-diff -j before.json after.json | jq -c 'del(.kind)')"
	# The Markdown section is report-diff's, under its own heading.
	run -0 bats_pipe printf '%s\n' "$md" \| sed -n '/^## Before and after/,/^## Inputs/p'
	assert_line --index 0 '## Before and after'
	assert_output --partial "$(report-diff before.json after.json | sed -n '/^### Actions/,$p')"
	run -0 bats_pipe printf '%s\n' "$md" \| grep -c '^## Before and after'
	assert_output 1
}

@test "analyze-profile: man page example of --baseline" {
	cd "$TOP/fixtures/report-diff"
	run -0 bats_pipe analyze-profile --cpu-trace after.trace.json.gz \
	    --baseline before.json --json-out "$BATS_TEST_TMPDIR/after.json" \| \
	    sed -n '/^## Before and after/,/^## Inputs/p'
	assert_line --index 0 '## Before and after'
	assert_output --partial '| dataloader-share     | 0.7435 | 0.3110 | lower  | improved |'
}

@test "analyze-profile: a --baseline that is not a report is refused" {
	cd "$TOP/fixtures/report-diff"
	run -1 --separate-stderr analyze-profile --cpu-trace after.trace.json.gz \
	    --baseline ../report-md/records.ndjson --md-out "$BATS_TEST_TMPDIR/r.md"
	assert_stderr 'analyze-profile: ../report-md/records.ndjson: not an analyze-profile report'
	[ ! -e "$BATS_TEST_TMPDIR/r.md" ]
	run -2 --separate-stderr analyze-profile --baseline before.json
	assert_stderr --partial 'usage:'
}

# ---------------------------------------------------------------------------
# Hardening (issue #18, part 2): inputs that are not regular files, the
# first failure stops every stage, signals undo the run, outputs are made
# safely and checked before it.

# slow_stages DIR: analyze-profile in DIR with the real stages beside it,
# except the mem-segments of the trace branch (the one that reads standard
# input), which writes its pid into DIR/mem-segments.pid and then sleeps
# instead of reading: a run that is in progress until it is stopped.
slow_stages() {
	local bin=$1 t
	mkdir "$bin"
	cp "${BUILD:-$TOP}/bin/analyze-profile" "$bin/"
	for t in "${BUILD:-$TOP}"/bin/*; do
		[ -e "$bin/${t##*/}" ] || ln -s "$t" "$bin/"
	done
	rm "$bin/mem-segments"
	printf '#!/bin/sh\n[ $# -eq 0 ] || exec %s "$@"\necho $$ >"%s/mem-segments.pid"\nexec sleep 60\n' \
	    "${BUILD:-$TOP}/bin/mem-segments" "$bin" >"$bin/mem-segments"
	chmod +x "$bin/mem-segments"
}

# wait_for CMD...: polls CMD for up to ten seconds.
wait_for() {
	local i
	for i in $(seq 100); do
		"$@" && return 0
		sleep 0.1
	done
	return 1
}

# children PID N: true when PID has N children or more.
children() {
	[ "$(pgrep -P "$1" | wc -l)" -ge "$2" ]
}

@test "analyze-profile: a device, directory or named pipe as input is refused at once" {
	export TMPDIR=$BATS_TEST_TMPDIR/tmp
	mkdir "$TMPDIR" "$BATS_TEST_TMPDIR/w"
	cd "$BATS_TEST_TMPDIR/w"
	run -1 --separate-stderr timeout 20 analyze-profile --cpu-trace /dev/zero
	assert_stderr 'analyze-profile: /dev/zero: not a regular file'
	run -1 --separate-stderr timeout 20 analyze-profile --memory-json "$TMPDIR"
	assert_stderr "analyze-profile: $TMPDIR: not a regular file"
	# Read by this process alone, they would fill the memory.
	run -1 --separate-stderr timeout 20 analyze-profile --context /dev/zero \
	    --objective memory
	assert_stderr 'analyze-profile: /dev/zero: not a regular file'
	run -1 --separate-stderr timeout 20 analyze-profile --baseline /dev/zero \
	    --cpu-trace "$TOP/fixtures/example/trace.json.gz"
	assert_stderr 'analyze-profile: /dev/zero: not a regular file'
	# A fifo by name would be read by two processes: no writer ever comes.
	mkfifo f
	run -1 --separate-stderr timeout 20 analyze-profile --cpu-trace f \
	    --md-out r.md
	assert_stderr 'analyze-profile: f: not a regular file'
	[ -z "$(ls -A "$TMPDIR")" ]
	run -0 ls -A
	assert_output f
}

@test "analyze-profile: <(...) inputs give the report of the files" {
	cd "$TOP/fixtures"
	t=example/trace.json.gz m=example/memory_snapshot.json.gz
	out=$BATS_TEST_TMPDIR
	run -0 timeout 60 analyze-profile --cpu-trace <(cat "$t") \
	    --memory-json <(cat "$m") --md-out "$out/p.md" --json-out "$out/p.json"
	analyze-profile --cpu-trace "$t" --memory-json "$m" \
	    --md-out "$out/f.md" --json-out "$out/f.json"
	# The same report but for the names of the inputs (the replay
	# commands name the trace too): the stages and the hashing read the
	# same bytes.
	run -0 jq -r '.inputs[].path' "$out/p.json"
	[[ ${lines[0]} == /dev/fd/* && ${lines[1]} == /dev/fd/* ]]
	local pt=${lines[0]}
	run -0 jq -c --arg pt "${lines[0]}" --arg pm "${lines[1]}" \
	    --arg t "$t" --arg m "$m" \
	    'walk(if . == $pt then $t elif . == $pm then $m
	        elif type == "string" then sub(" " + $pt + " "; " " + $t + " ") else . end)' "$out/p.json"
	assert_output "$(jq -c . "$out/f.json")"
	diff <(sed "/^## Inputs/,\$d; s# $pt # $t #" "$out/p.md") \
	    <(sed '/^## Inputs/,$d' "$out/f.md")
	# The man page's example: a trace kept in an archive.
	tar -cf "$out/run.tar" -C example trace.json.gz
	cd "$out"
	run -0 analyze-profile --cpu-trace <(tar -xOf run.tar trace.json.gz) \
	    --md-out report.md
	analyze-profile --cpu-trace "$TOP/fixtures/$t" --md-out t.md
	diff <(sed "/^## Inputs/,\$d; s#^snip-new --from-trace /dev/fd/[0-9]* #snip-new --from-trace $TOP/fixtures/$t #" report.md) \
	    <(sed '/^## Inputs/,$d' t.md)
	grep -q '^| /dev/fd/[0-9]* | trace | 54.9 KiB | 75000887bbd8bf0f5c9a98fdc0792cc98d1b884de40956fda79787e5eab3f30e |$' report.md
}

@test "analyze-profile: the first failed stage stops the others" {
	export TMPDIR=$BATS_TEST_TMPDIR/tmp
	mkdir "$TMPDIR"
	bin=$BATS_TEST_TMPDIR/bin
	slow_stages "$bin"
	mkdir "$BATS_TEST_TMPDIR/w"
	cd "$BATS_TEST_TMPDIR/w"
	printf 'not json\n' >bad.json
	# mem-segments would sleep for a minute: the bad snapshot ends it.
	run -1 --separate-stderr timeout 20 "$bin/analyze-profile" \
	    --cpu-trace "$TOP/fixtures/example/trace.json.gz" \
	    --memory-json bad.json --md-out r.md
	assert_stderr --regexp 'analyze-profile: (mem-segments|churn-score) failed \(exit status 1\)'
	[[ $stderr != *'killed by signal'* ]]
	run ! kill -0 "$(cat "$bin/mem-segments.pid")"
	[ -z "$(ls -A "$TMPDIR")" ]
	run -0 ls -A
	assert_output bad.json
}

@test "analyze-profile: SIGINT, SIGTERM and SIGHUP stop the stages and remove every temporary file" {
	export TMPDIR=$BATS_TEST_TMPDIR/tmp
	mkdir "$TMPDIR" "$BATS_TEST_TMPDIR/out"
	bin=$BATS_TEST_TMPDIR/bin
	slow_stages "$bin"
	for sig in INT TERM HUP; do
		rm -f "$bin/mem-segments.pid"
		# A shell without job control starts it with SIGINT ignored.
		env --default-signal=INT,TERM,HUP "$bin/analyze-profile" \
		    --cpu-trace "$TOP/fixtures/example/trace.json.gz" \
		    --md-out "$BATS_TEST_TMPDIR/out/r.md" \
		    --json-out "$BATS_TEST_TMPDIR/out/r.json" 3>&- &
		pid=$!
		# mem-segments at least, which reads nothing until stopped.
		wait_for test -s "$bin/mem-segments.pid"
		wait_for children "$pid" 1
		kids=$(pgrep -P "$pid")
		kill -s "$sig" "$pid"
		st=0
		wait "$pid" || st=$?
		[ "$st" -eq $((128 + $(kill -l "$sig"))) ] || fail "$sig: exit status $st"
		for k in $kids; do
			run ! kill -0 "$k"
		done
		[ -z "$(ls -A "$TMPDIR")" ] || fail "$sig: $(ls -A "$TMPDIR")"
		[ -z "$(ls -A "$BATS_TEST_TMPDIR/out")" ] ||
		    fail "$sig: $(ls -A "$BATS_TEST_TMPDIR/out")"
	done
}

@test "analyze-profile: a signal while a pipe is read leaves nothing behind" {
	export TMPDIR=$BATS_TEST_TMPDIR/tmp
	mkdir "$TMPDIR" "$BATS_TEST_TMPDIR/out"
	# The writer sends the trace, then keeps the pipe open.
	exec 5< <(gzip -dc "$TOP/fixtures/example/trace.json.gz"; exec sleep 60)
	writer=$!
	env --default-signal=TERM analyze-profile --cpu-trace /dev/fd/5 \
	    --md-out "$BATS_TEST_TMPDIR/out/r.md" 3>&- &
	pid=$!
	exec 5<&-
	wait_for compgen -G "$TMPDIR/analyze-profile.*"
	sleep 0.5
	kill -TERM "$pid"
	st=0
	wait "$pid" || st=$?
	kill "$writer"
	[ "$st" -eq 143 ]
	[ -z "$(ls -A "$TMPDIR")" ]
	[ -z "$(ls -A "$BATS_TEST_TMPDIR/out")" ]
}

@test "analyze-profile: an output that cannot be made fails before the temporary directory" {
	export TMPDIR=$BATS_TEST_TMPDIR/tmp
	mkdir "$TMPDIR"
	bin=$BATS_TEST_TMPDIR/bin
	slow_stages "$bin"
	# No file can be made in /proc, whoever asks; access(2) may say yes.
	mkdir "$BATS_TEST_TMPDIR/w"
	run -1 --separate-stderr timeout 20 "$bin/analyze-profile" \
	    --cpu-trace "$TOP/fixtures/example/trace.json.gz" \
	    --md-out "$BATS_TEST_TMPDIR/w/r.md" --json-out /proc/r.json
	assert_stderr --regexp '^analyze-profile: /proc/r\.json: '
	[ ! -e "$bin/tr-extract.pid" ]
	[ -z "$(ls -A "$TMPDIR")" ]
	[ -z "$(ls -A "$BATS_TEST_TMPDIR/w")" ]
}

@test "analyze-profile: a link planted where an output's temporary file was is not followed" {
	cd "$BATS_TEST_TMPDIR"
	printf 'keep\n' >victim
	ln -s victim r.md.tmp
	ln -s victim r.json.tmp
	cd "$TOP/fixtures"
	run -0 analyze-profile --cpu-trace example/trace.json.gz \
	    --memory-json example/memory_snapshot.json.gz \
	    --md-out "$BATS_TEST_TMPDIR/r.md" --json-out "$BATS_TEST_TMPDIR/r.json"
	cd "$BATS_TEST_TMPDIR"
	[ "$(cat victim)" = keep ]
	[ -L r.md.tmp ]
	[ -L r.json.tmp ]
	[ ! -L r.md ]
	[ ! -L r.json ]
	cmp r.md "$FIXTURES/example.md"
	cmp r.json "$FIXTURES/example.json"
	[ "$(ls -A)" = "$(printf 'r.json\nr.json.tmp\nr.md\nr.md.tmp\nvictim')" ]
}

@test "analyze-profile: one output under two names is refused before the run" {
	export TMPDIR=$BATS_TEST_TMPDIR/tmp
	mkdir "$TMPDIR" "$BATS_TEST_TMPDIR/d"
	cd "$BATS_TEST_TMPDIR/d"
	t=$TOP/fixtures/example/trace.json.gz
	: >r.md
	ln r.md hard.md
	ln -s r.md soft.md
	ln -s . here
	for other in r.md ./r.md hard.md soft.md here/r.md "$PWD/r.md" \
	    here/new.md; do
		want=r.md
		[ "$other" != here/new.md ] || want=new.md
		run -2 --separate-stderr analyze-profile --cpu-trace "$t" \
		    --md-out "$want" --json-out "$other"
		assert_stderr "analyze-profile: --md-out and --json-out are the same file: $want"
	done
	[ ! -s r.md ]
	[ ! -e new.md ]
	[ -z "$(ls -A "$TMPDIR")" ]
}

@test "a trace cut off before its closing bracket is reported, and said so in Data quality" {
	local f=tr-extract/kineto_resnet50_array_head_open.json
	cd "$TOP/fixtures"
	run -0 --separate-stderr analyze-profile --cpu-trace "$f"
	assert_output --partial "## Data quality

Some inputs are cut short, disagree with themselves in places or could not be read; the analysis went on with what there is.

- $f: the event array has no closing '\\]'; the trace may be cut off"
	assert_stderr --partial "analyze-profile: $f: warning: the event array has no closing ']'; the trace may be cut off"
}

# plan SNAPSHOT: the rules of analyze-profile's plan for a snapshot of
# fixtures/mem-segments, one per line.
plan() {
	analyze-profile --memory-json "$TOP/fixtures/mem-segments/$1.json.gz" \
	    --json-out "$BATS_TEST_TMPDIR/$1.json" >"$BATS_TEST_TMPDIR/$1.md"
	jq -r '.actions[].rule' "$BATS_TEST_TMPDIR/$1.json"
}

@test "analyze-profile: a loop that keeps a tensor per step gets the growth finding first, naming the site and the bytes" {
	run -0 plan loop-leak-late
	assert_line --index 0 memory-growth
	run -0 grep -F 'train_step@/home/user/leak_loop.py:44 allocated 8 blocks (20.0 MiB) all through' "$BATS_TEST_TMPDIR/loop-leak-late.md"
	run -0 grep -F '2.5 MiB more per iteration' "$BATS_TEST_TMPDIR/loop-leak-late.md"
	run -0 jq -c '.memory_growth[0].sites[0] | [.site, .bytes_per_iteration]' "$BATS_TEST_TMPDIR/loop-leak-late.json"
	assert_output '["train_step@/home/user/leak_loop.py:44",2621440]'
	run -0 plan loop-leak-early
	refute_line memory-growth
}

@test "analyze-profile: empty_cache() every step is named, a successful retry never is" {
	run -0 plan loop-empty-cache
	assert_line empty-cache-churn
	run -0 grep -F 'torch.cuda.empty_cache() was called 6 times' "$BATS_TEST_TMPDIR/loop-empty-cache.md"
	run -0 plan loop-retry
	assert_line --index 0 alloc-retries
	refute_line empty-cache-churn
	refute_line release-bursts
	run -1 grep -F 'Remove torch.cuda.empty_cache()' "$BATS_TEST_TMPDIR/loop-retry.md"
	run -0 grep -F '3 that succeeded, 0 that did not, 9 segments released' "$BATS_TEST_TMPDIR/loop-retry.md"
}

@test "analyze-profile: a snapshot without the allocator's record names its largest site, as a hypothesis" {
	zcat "$TOP/fixtures/mem-segments/loop-leak-late.json.gz" | jq -c '.device_traces = [[]]' \
	    >"$BATS_TEST_TMPDIR/notrace.json"
	run -0 analyze-profile --memory-json "$BATS_TEST_TMPDIR/notrace.json" --json-out "$BATS_TEST_TMPDIR/r.json"
	run -0 jq -c '.actions[] | select(.rule == "live-sites") | [.confidence, .evidence.site, .evidence.blocks, .evidence.bytes]' "$BATS_TEST_TMPDIR/r.json"
	assert_output '["low","train_step@/home/user/leak_loop.py:44",8,20971520]'
	run -0 jq -r '.actions[].rule' "$BATS_TEST_TMPDIR/r.json"
	refute_line memory-growth
}

@test "analyze-profile: reports beside another run's wait for it, and are published whole" {
	d=$BATS_TEST_TMPDIR/out
	mkdir "$d"
	# Another run (report.mk, or analyze-profile publishing) holds it.
	exec {held}<"$d"
	flock -n "$held"
	analyze-profile --cpu-trace "$TOP/fixtures/example/trace.json.gz" \
	    --md-out "$d/r.md" --json-out "$d/r.json" \
	    2>"$BATS_TEST_TMPDIR/err" {held}<&- &
	pid=$!
	for ((i = 0; i < 600; i++)); do
		! grep -q waiting "$BATS_TEST_TMPDIR/err" || break
		sleep 0.1
	done
	run -0 cat "$BATS_TEST_TMPDIR/err"
	assert_output "analyze-profile: $d/r.md: waiting for another run that writes beside it to end"
	run -0 ls -A "$d"
	refute_output --regexp '^r\.(md|json)$'
	exec {held}<&-
	wait "$pid"
	run -0 jq -r .kind "$d/r.json"
	assert_output report
	run -0 grep -c '^## ' "$d/r.md"
	refute_output 0
}

@test "analyze-profile: a context value of a megabyte is cut visibly, not padded into every row" {
	{
		printf 'big: '
		head -c 1048576 /dev/zero | tr '\0' x
		printf '\n'
		for ((i = 0; i < 300; i++)); do
			printf 'key%d: value %d\n' "$i" "$i"
		done
	} >"$BATS_TEST_TMPDIR/context.yaml"
	analyze-profile --context "$BATS_TEST_TMPDIR/context.yaml" \
	    --cpu-trace "$TOP/fixtures/example/trace.json.gz" \
	    --json-out "$BATS_TEST_TMPDIR/r.json" >"$BATS_TEST_TMPDIR/r.md"
	[ "$(wc -c <"$BATS_TEST_TMPDIR/r.md")" -lt 200000 ]
	run -0 grep -c '^| key[0-9]* *| value [0-9]* *|$' "$BATS_TEST_TMPDIR/r.md"
	assert_output 300
	# 200 characters: 66, the cut, 133.
	run -0 grep -o '^| big *| x*…x* |$' "$BATS_TEST_TMPDIR/r.md"
	assert_output "| big    | $(printf '%066d' 0 | tr 0 x)…$(printf '%0133d' 0 | tr 0 x) |"
	# The JSON report keeps the value whole.
	run -0 jq '.context.extra.big | length' "$BATS_TEST_TMPDIR/r.json"
	assert_output 1048576
}
