bats_require_minimum_version 1.5.0
setup() { load test_helper; export MRP_RUBRIC="$TOP/rubric"; }

inputs=(-i ../example/trace.json.gz -i ../example/memory_snapshot.json.gz)

@test "report-md: usage error" {
	run -2 --separate-stderr report-md -Z
	assert_stderr --partial 'usage: report-md [-j | -J file] [-i file] [-I list] [-r rubric] [file ...]'
	run -2 --separate-stderr report-md -j -J out.json
	assert_stderr --partial 'report-md: -j and -J: one JSON report at most'
	[ ! -e out.json ]
	assert_stderr --partial '       report-md -o dir [-j] [-r rubric] file ...'
	assert_stderr --partial '       report-md -O plan [-j] [-r rubric]'
	# -o: files, each with a name, and no option of one report.
	mkdir "$BATS_TEST_TMPDIR/out"
	cd "$BATS_TEST_TMPDIR/out"
	run -2 --separate-stderr report-md -o .
	assert_stderr --partial 'usage: report-md'
	run -2 --separate-stderr report-md -o . -J out.json "$FIXTURES/records.ndjson"
	assert_stderr --partial 'report-md: -o and -J: -o writes one report a file'
	run -2 --separate-stderr report-md -o . -i "$FIXTURES/records.ndjson" "$FIXTURES/records.ndjson"
	assert_stderr --partial 'report-md: -o and -i or -I: they name the inputs of one report'
	run -2 --separate-stderr report-md -o . -I /dev/null "$FIXTURES/records.ndjson"
	assert_stderr --partial 'report-md: -o and -i or -I: they name the inputs of one report'
	run -2 --separate-stderr report-md -o . - <"$FIXTURES/records.ndjson"
	assert_stderr 'report-md: -: standard input has no name to name its output after'
	# -O: the plan names the files and inputs of each report.
	run -2 --separate-stderr report-md -O plan "$FIXTURES/records.ndjson"
	run -2 --separate-stderr report-md -O plan -o .
	run -2 --separate-stderr report-md -O plan -J out.json
	assert_stderr --partial 'report-md: -O and -J: -O writes one report a file'
	run -2 --separate-stderr report-md -O plan -I /dev/null
	assert_stderr --partial 'report-md: -O and -i or -I: they name the inputs of one report'
	[ -z "$(ls -A)" ]
}

@test "report-md: empty input gives empty output" {
	run -0 report-md </dev/null
	assert_output ''
	run -0 report-md -j </dev/null
	assert_output ''
}

@test "report-md: golden Markdown report on the example" {
	cd "$FIXTURES"
	run -0 report-md "${inputs[@]}" records.ndjson findings.ndjson
	assert_output - <example.md
}

@test "report-md: golden JSON report on the example" {
	cd "$FIXTURES"
	run -0 report-md -j "${inputs[@]}" records.ndjson findings.ndjson
	assert_output - <example.json
}

@test "report-md: the user's ~/.jq neither changes nor stops the report" {
	cd "$FIXTURES"
	export HOME=$BATS_TEST_TMPDIR
	printf 'def length: 0;\ndef ascii_downcase: "x";\n' >"$HOME/.jq"
	run -0 report-md "${inputs[@]}" records.ndjson findings.ndjson
	assert_output - <example.md
	echo 'def broken: (;' >"$HOME/.jq"
	run -0 report-md -j "${inputs[@]}" records.ndjson findings.ndjson
	assert_output - <example.json
}

@test "report-md -J: the Markdown and the JSON report of one run are those of two" {
	cd "$FIXTURES"
	out=$BATS_TEST_TMPDIR/report.json
	run -0 report-md -J "$out" "${inputs[@]}" records.ndjson findings.ndjson
	assert_output - <example.md
	run -0 cat "$out"
	assert_output - <example.json
	# Nothing gathered: both empty, as each alone.
	run -0 report-md -J "$out" </dev/null
	assert_output ''
	[ ! -s "$out" ]
}

@test "report-md: a ledger of inferred iterations says what they were inferred from" {
	local c="$TOP/fixtures/rubric-apply/cases/dataloader-share.fire-inferred.ndjson"

	run -0 bats_pipe rubric-apply "$c" \| report-md "$c" - \| \
	    grep -A2 '^### Where the time goes'
	assert_line --index 1 'The wall time of the 8 iterations (no ProfilerStep: inferred from the DataLoader.\_\_next\_\_ calls that start each), 485.76 ms, cut into slices that add up to it: the GPU busy by kernel class, and while no GPU is busy, what the host was doing.'
}

@test "report-md: sections come in the order the user needs" {
	cd "$FIXTURES"
	run -0 bats_pipe report-md records.ndjson findings.ndjson \| grep '^##* '
	assert_output - <<'MD'
# Profile report
## Resource summary
## Top bottlenecks
### Where the time goes
### Top CPU operators
### Top threads
### Largest segments
### Allocator actions
### Top GPU kernels
### Slowest steps
## Compute efficiency
## Diagnosis
### Fragmentation risk
### Allocator churn
### Live at the peak
### Live memory by allocation site
### Operator families
### Phases
### GPU timeline
## Prioritized actions
### 1. python-between-ops (cpu)
### 2. low-gpu-util (gpu)
### 3. time-slice (step) — hypothesis
### 4. launch-bound (gpu)
### 5. gemm-below-peak (gpu)
### 6. releasable-cache (memory)
### 7. fragmentation-medium (memory)
### 8. missing-context (step)
### 9. missing-memory-stats (memory)
## Inputs
MD
}

@test "report-md: tables align and numbers carry units" {
	cd "$FIXTURES"
	# Every row of every table is as wide as its header, in characters.
	report-md records.ndjson >"$BATS_TEST_TMPDIR/r.md"
	run -0 python3 -c '
import sys
tables, cur = [], []
for l in open(sys.argv[1], encoding="utf-8"):
    if l.startswith("|"):
        cur.append(len(l.rstrip("\n")))
    elif cur:
        tables.append(cur)
        cur = []
print(len(tables), sum(len(set(t)) != 1 for t in tables))
' "$BATS_TEST_TMPDIR/r.md"
	assert_output '15 0'
	run -0 report-md records.ndjson
	assert_output --partial '| Reserved memory                        |                              3.52 GiB |'
	assert_output --partial '| CPU trace window                       |                               8.39 ms |'
	assert_output --partial '| Whole free segments (releasable cache) |                     3.00 GiB (85.2 %) |'
	# The cudaLaunchKernel under it is a row of its own.
	assert_output --partial '| aten::addmm                                | matmul/linear |    26 | 813.0 µs | 597.0 µs | 13.5 % |'
}

@test "report-md: the JSON report is compatible with analyze_profile.py" {
	cd "$FIXTURES"
	run -0 bats_pipe report-md -j records.ndjson \| jq -c '[(.memory | keys),
	    (.cpu | keys), .cpu.top_ops[0], .memory.fragmentation_risk, .schema_version]'
	assert_output '[["alloc_retries","allocator_settings","fragmentation_ratio","fragmentation_risk","num_ooms","num_segments","top_segments","total_active_bytes","total_allocated_bytes","total_inactive_bytes","total_reserved_bytes"],["dominant_family","event_count","family_totals","top_ops","top_threads","trace_end_us","trace_start_us","trace_window_us"],{"name":"aten::linear","total_us":1143,"count":26,"avg_us":43.962},"MEDIUM",1]'
}

@test "report-md: inputs name their size and sha256" {
	cd "$FIXTURES"
	run -0 bats_pipe report-md -j -i ../example/trace.json.gz records.ndjson \| \
	    jq -r '.inputs[0] | [.path, .size, .sha256] | @tsv'
	assert_output "$(printf '../example/trace.json.gz\t%s\t%s' \
	    "$(stat -c %s ../example/trace.json.gz)" \
	    "$(sha256sum ../example/trace.json.gz | cut -d' ' -f1)")"
}

@test "report-md: the same input gives byte-identical reports" {
	cd "$FIXTURES"
	a=$(report-md -j records.ndjson findings.ndjson | sha256sum)
	b=$(report-md -j findings.ndjson records.ndjson | sha256sum)
	[ "$a" = "$b" ]
}

@test "report-md: a trace alone says the snapshot is missing" {
	run -0 bats_pipe rubric-apply "$TOP/fixtures/rubric-apply/base-trace.ndjson" \| \
	    report-md "$TOP/fixtures/rubric-apply/base-trace.ndjson" -
	# The memory sections, empty, fold into one line each part.
	assert_line '_Nothing in these inputs for Largest segments, Allocator actions._'
	assert_line '_Nothing in these inputs for Fragmentation risk, Allocator churn._'
	assert_output --partial 'missing-snapshot (memory)'
	assert_output --partial '```python'
}

@test "report-md -o: each file's report is the bytes of a run on it alone, on every fixture" {
	local d=$BATS_TEST_TMPDIR/out f n=0 ext opt out
	local files=("$FIXTURES/records.ndjson" "$FIXTURES/findings.ndjson"
	    "$TOP"/fixtures/rubric-apply/{example,base-memory,base-trace,base-ranks}.ndjson)
	mkdir -p "$d/gz"
	for ext in md json; do
		opt=()
		[ "$ext" = md ] || opt=(-j)
		report-md "${opt[@]}" -o "$d" "${files[@]}"
		report-md "${opt[@]}" -o "$d/gz" "$FIXTURES/records.ndjson.gz"
		for f in "${files[@]}" "$FIXTURES/records.ndjson.gz"; do
			out=$d/$(basename "${f%.gz}" .ndjson).$ext
			case $f in *.gz) out=$d/gz/records.$ext ;; esac
			report-md "${opt[@]}" "$f" | cmp - "$out" ||
			    fail "report-md ${opt[*]} -o differs on $f"
			n=$((n + 1))
		done
	done
	[ "$n" -eq 14 ]
	# Nothing else was left there: no temporary file.
	[ "$(find "$d" -type f | wc -l)" -eq 14 ]
	[ -z "$(find "$d" -name '.*')" ]
}

@test "report-md -o: names that collide or are an input are refused before anything is written" {
	local d=$BATS_TEST_TMPDIR
	mkdir "$d/out"
	run -2 --separate-stderr report-md -o "$d/out" "$FIXTURES/records.ndjson" "$FIXTURES/records.ndjson.gz"
	assert_stderr "report-md: $FIXTURES/records.ndjson and $FIXTURES/records.ndjson.gz would both be written to $d/out/records.md"
	# The JSON reports' names: a.json and a.ndjson give one.
	cp "$FIXTURES/records.ndjson" "$d/records.json"
	run -2 --separate-stderr report-md -j -o "$d/out" "$d/records.json" "$FIXTURES/records.ndjson"
	assert_stderr --partial "would both be written to $d/out/records.json"
	[ -z "$(ls -A "$d/out")" ]
	run -2 --separate-stderr report-md -j -o "$d" "$d/records.json"
	assert_stderr "report-md: $d/records.json: its output, $d/records.json, would be written over it"
	cmp "$FIXTURES/records.ndjson" "$d/records.json"
}

@test "report-md -o: a bad input among good ones is reported, gets nothing, and the others are written" {
	local d=$BATS_TEST_TMPDIR/out
	mkdir "$d"
	run -1 --separate-stderr report-md -o "$d" "$FIXTURES/malformed.ndjson" \
	    "$FIXTURES/nonexistent.ndjson" "$FIXTURES/records.ndjson"
	assert_output ''
	assert_stderr "$(report-md "$FIXTURES/malformed.ndjson" 2>&1)
report-md: $FIXTURES/nonexistent.ndjson: No such file or directory"
	assert_stderr --regexp "^report-md: $FIXTURES/malformed\.ndjson:2:[0-9]+: "
	report-md "$FIXTURES/records.ndjson" | cmp - "$d/records.md"
	[ "$(ls -A "$d")" = records.md ]
}

@test "report-md -o: one process or one a CPU, the same files and messages in the same order" {
	same_on_cpus report-md "$FIXTURES/malformed.ndjson" \
	    "$FIXTURES/records.ndjson" "$FIXTURES/nonexistent.ndjson" \
	    "$FIXTURES/findings.ndjson" \
	    "$TOP"/fixtures/rubric-apply/{example,base-memory,base-trace,base-ranks}.ndjson
	assert_stderr --partial "report-md: $FIXTURES/nonexistent.ndjson: No such file or directory"
}

@test "report-md -o: a failed write exits 1 at once, leaving no file half-written" {
	local d=$BATS_TEST_TMPDIR/out
	mkdir "$d"
	# Files of 4 KiB at most, and reports larger.
	run -1 --separate-stderr bash -c 'trap "" XFSZ; ulimit -f 4;
	    exec report-md -j -o "$1" "$2" "$3"' _ "$d" \
	    "$FIXTURES/records.ndjson" "$FIXTURES/findings.ndjson"
	assert_stderr --partial "report-md: $d/records.json: write failed: File too large"
	[ -z "$(ls -A "$d")" ]
}

@test "report-md -O: each report of a plan is the bytes of a run on its line, options and all" {
	local d=$BATS_TEST_TMPDIR/out t=$'\t' ex=$TOP/fixtures/example
	local r=$FIXTURES/records.ndjson f=$FIXTURES/findings.ndjson
	local e=$TOP/fixtures/rubric-apply/example.ndjson ext opt
	mkdir "$d"
	printf '%s\n' "$ex/trace.json.gz" "$ex/memory_snapshot.json.gz" >"$d/list"
	for ext in md json; do
		opt=()
		[ "$ext" = md ] || opt=(-j)
		printf '%s\n' "$d/a.$ext$t-I$t$d/list$t$r$t$f" \
		    "$d/b.$ext$t$e$t-i$t$ex/trace.json.gz" \
		    "$d/c.$ext$t-i$t$d/nonesuch$t$r" \
		    "$d/e.$ext$t-I$t$d/list$t-I$t$d/list$t$r" \
		    "$d/f.$ext$t-I$t$d/list" >"$d/plan"
		run -1 --separate-stderr report-md "${opt[@]}" -O "$d/plan"
		assert_stderr "report-md: $d/nonesuch: No such file or directory
report-md: $d/plan:4: -I: one list at most
report-md: $d/plan:5: no file to read"
		report-md "${opt[@]}" -I "$d/list" "$r" "$f" | cmp - "$d/a.$ext"
		report-md "${opt[@]}" -i "$ex/trace.json.gz" "$e" | cmp - "$d/b.$ext"
	done
	[ "$(ls -A "$d" | tr '\n' ' ')" = 'a.json a.md b.json b.md list plan ' ]
}

@test "report-md -O: a plan that would lose data is refused, naming its line, before anything is written" {
	local d=$BATS_TEST_TMPDIR/out t=$'\t'
	mkdir "$d"
	cp "$FIXTURES/records.ndjson" "$d/records.ndjson"
	printf '%s\n' "$d/a.md$t$d/records.ndjson" \
	    "$d/records.ndjson$t$FIXTURES/records.ndjson" >"$d/plan"
	run -1 --separate-stderr report-md -O "$d/plan"
	assert_stderr "report-md: $d/plan:2: its output, $d/records.ndjson, is $d/plan:1's file $d/records.ndjson"
	cmp "$FIXTURES/records.ndjson" "$d/records.ndjson"
	[ "$(ls -A "$d" | tr '\n' ' ')" = 'plan records.ndjson ' ]
}

@test "report-md -O: a failed write exits 1 at once, leaving no file half-written" {
	local d=$BATS_TEST_TMPDIR/out
	mkdir "$d"
	# Files of 4 KiB at most, and reports larger.
	printf '%s\t%s\n' "$d/a.json" "$FIXTURES/records.ndjson" \
	    "$d/b.json" "$FIXTURES/findings.ndjson" >"$d/plan"
	run -1 --separate-stderr bash -c 'trap "" XFSZ; ulimit -f 4;
	    exec report-md -j -O "$1"' _ "$d/plan"
	assert_stderr "report-md: $d/a.json: write failed: File too large"
	[ "$(ls -A "$d")" = plan ]
}

@test "report-md: malformed input is an error with file:line:col" {
	run -1 --separate-stderr report-md "$FIXTURES/malformed.ndjson"
	assert_stderr --regexp 'malformed\.ndjson:2:[0-9]+: '
	assert_output ''
}

@test "report-md: .gz input gives the same bytes as plain" {
	cd "$FIXTURES"
	a=$(report-md records.ndjson)
	b=$(report-md records.ndjson.gz)
	[ "$a" = "$b" ]
}

@test "report-md: a failed write exits 1" {
	run -1 bash -c 'report-md "$1" >/dev/full' _ "$FIXTURES/records.ndjson"
	run -1 bash -c 'report-md -j "$1" >/dev/full' _ "$FIXTURES/records.ndjson"
	run -1 --separate-stderr report-md -J /dev/full "$FIXTURES/records.ndjson"
	# --partial: an ASan build's LeakSanitizer may add what the exit left.
	assert_stderr --partial 'report-md: /dev/full: write failed: No space left on device'
	assert_output --partial '# Profile report'
	run -1 --separate-stderr report-md -J "$BATS_TEST_TMPDIR/no/such.json" \
	    "$FIXTURES/records.ndjson"
	assert_stderr "report-md: $BATS_TEST_TMPDIR/no/such.json: No such file or directory"
}

@test "report-md: an -i file that cannot be read is skipped with status 1" {
	run -1 --separate-stderr report-md -i "$FIXTURES/nonexistent" \
	    "$FIXTURES/records.ndjson"
	assert_stderr --partial 'nonexistent'
	assert_output --partial '# Profile report'
	# Records from stdin do not hide it.
	run -1 --separate-stderr report-md -i "$FIXTURES/nonexistent" \
	    <"$FIXTURES/records.ndjson"
	assert_stderr --partial 'nonexistent'
	assert_output --partial '# Profile report'
}

@test "report-md: man page examples" {
	cd "$FIXTURES"
	run -0 bats_pipe rubric-apply records.ndjson \| report-md records.ndjson -
	assert_output - <<<"$(report-md records.ndjson findings.ndjson)"
	run -0 bats_pipe report-md -j records.ndjson findings.ndjson \| \
	    jq -c '[.memory.fragmentation_ratio, .cpu.dominant_family, .actions[0].rule]'
	assert_output '[0.9916110681416389,"python","python-between-ops"]'
	mkdir "$BATS_TEST_TMPDIR/runs"
	cat records.ndjson findings.ndjson >"$BATS_TEST_TMPDIR/runs/a.ndjson"
	cp "$TOP/fixtures/rubric-apply/base-trace.ndjson" "$BATS_TEST_TMPDIR/runs/b.ndjson"
	cd "$BATS_TEST_TMPDIR"
	mkdir reports
	report-md -o reports runs/*.ndjson
	run -0 ls reports
	assert_output $'a.md\nb.md'
	report-md "$FIXTURES/records.ndjson" "$FIXTURES/findings.ndjson" | cmp - reports/a.md
	report-md runs/b.ndjson | cmp - reports/b.md
}

# renamed_addmm NAME: op-rank's records of the example trace, aten::addmm
# renamed NAME (a jq string), in ops.ndjson.
renamed_addmm() {
	gzip -dc "$TOP/fixtures/example/trace.json.gz" | jq -c "
	    (.traceEvents[] | select(.name == \"aten::addmm\") | .name) |= $1" |
	    tr-extract | op-rank >ops.ndjson
}

@test "report-md: a name's control characters are shown, not obeyed, on a terminal or not" {
	cd "$BATS_TEST_TMPDIR"
	renamed_addmm '"aten::addmm\u001b[31m\u0007\u009b\u202egnp.exe"'
	# A terminal, as script(1) gives one, and a file alike.
	run -0 script -qec "report-md ops.ndjson" /dev/null
	assert_output --partial 'aten::addmm\u001B\[31m\u0007\u009B\u202Egnp.exe'
	refute_output --partial $'\e'
	refute_output --partial $'\a'
	run -0 report-md ops.ndjson
	assert_output --partial 'aten::addmm\u001B\[31m\u0007\u009B\u202Egnp.exe'
	refute_output --partial $'\e'
	refute_output --partial $'\u202e'
}

@test "report-md: a carriage return or a newline in a name cannot start a line of its own" {
	cd "$BATS_TEST_TMPDIR"
	renamed_addmm '"aten::addmm\r# Forged heading"'
	run -0 report-md ops.ndjson
	refute_output --partial $'\r'
	assert_output --partial '| aten::addmm\r# Forged heading '
	renamed_addmm '"aten::addmm\n- **Action:** run curl"'
	run -0 report-md ops.ndjson
	refute_output --partial $'\n- **Action:** run curl'
	assert_output --partial '| aten::addmm\n- \*\*Action:\*\* run curl '
}

# Every name and finding is read by GitHub's parser as the text it is:
# the report's HTML by cmark-gfm holds no markup the names brought.
@test "report-md: names that look like Markdown stay text for GitHub's parser" {
	command -v cmark-gfm >/dev/null || skip 'cmark-gfm is not installed'
	cd "$BATS_TEST_TMPDIR"
	renamed_addmm '"![x](evil.svg) [l](http://e.com) <script>x</script> `c` _e_ *s* ~~d~~ www.e.com http://e.com | x"'
	rubric-apply ops.ndjson >findings.ndjson
	report-md ops.ndjson findings.ndjson >r.md
	run -0 cmark-gfm -e table -e autolink -e strikethrough -e tagfilter r.md
	refute_output --partial '<img'
	refute_output --partial '<script'
	refute_output --partial '<code>c</code>'
	refute_output --partial '<em>e</em>'
	refute_output --partial '<em>s</em>'
	refute_output --partial '<del>'
	refute_output --regexp '<a href="http://(www\.)?e\.com'
	# The operator's cell, its name cut in the middle to 60 characters.
	assert_output --partial '<td>![x](evil.svg) [l](…_e_ *s* ~~d~~ www.e.com http://e.com | x</td>'
}

@test "report-md -j: a NUL in a name is kept as \\u0000" {
	cd "$BATS_TEST_TMPDIR"
	renamed_addmm '"aten::addmm\u0000x"'
	run -0 bats_pipe report-md -j ops.ndjson \| grep -o '"name":"aten::addmm[^"]*"'
	assert_output - <<'JSON'
"name":"aten::addmm\u0000x"
"name":"aten::addmm\u0000x"
"name":"aten::addmm\u0000x"
JSON
}

@test "report-md: a NUL in a name is shown as \\u0000, not cut" {
	cd "$BATS_TEST_TMPDIR"
	renamed_addmm '"aten::addmm\u0000x"'
	run -0 report-md ops.ndjson
	assert_output --partial '| aten::addmm\u0000x                         | other         |    26 |'
	run -0 bats_pipe report-md ops.ndjson \| tr -d -c '\000' \| wc -c
	assert_output 0
}

@test "report-md -I: the inputs a list names, as -i names them" {
	cd "$FIXTURES"
	printf '../example/memory_snapshot.json.gz\n' >"$BATS_TEST_TMPDIR/list"
	run -0 report-md -j -i ../example/trace.json.gz \
	    -I "$BATS_TEST_TMPDIR/list" records.ndjson findings.ndjson
	assert_output - <example.json
	run -1 --separate-stderr report-md -I "$BATS_TEST_TMPDIR/nonesuch" \
	    records.ndjson
	assert_stderr "report-md: $BATS_TEST_TMPDIR/nonesuch: No such file or directory"
	run -2 --separate-stderr report-md -I a -I b
	assert_stderr --partial 'report-md: -I: one list at most'
}

@test "report-md: each operator far from its peak carries the command that replays its shape" {
	cd "$FIXTURES"
	run -0 bats_pipe report-md "${inputs[@]}" records.ndjson findings.ndjson \| \
	    sed -n '/^Far from their peak/,/^```$/p'
	assert_line --index 0 --partial 'Far from their peak (under 30.0 %), each of these replays alone'
	assert_line --index 2 'snip-new --from-trace ../example/trace.json.gz --op aten::addmm --nth 1'
	assert_line --index 5 'snip-new --from-trace ../example/trace.json.gz --op aten::addmm --nth 3'
	# The command of the table's row 4 (addmm 141x512x2048) makes the
	# snippet of that shape.
	local cmd
	cmd=$(report-md -j "${inputs[@]}" records.ndjson findings.ndjson |
	    jq -r '.compute.top_shapes[3].replay')
	run -0 bash -c "$cmd -o '$BATS_TEST_TMPDIR/s' | jq -c .dims"
	assert_output "$(report-md -j "${inputs[@]}" records.ndjson findings.ndjson |
	    jq -c '.compute.top_shapes[3].dims')"
	# Near its peak, or of a trace without GPU time: no command.
	run -0 bats_pipe report-md -j "${inputs[@]}" records.ndjson findings.ndjson \| \
	    jq -c '[.compute.top_shapes[] | .replay != null] | all'
	assert_output 'true'
	run -0 bats_pipe jq -c 'select(.kind == "op_shape") |= (.of_peak = 0.5)' records.ndjson \| \
	    report-md "${inputs[@]}" - findings.ndjson
	refute_output --partial 'snip-new --from-trace'
}

@test "report-md: a trace's name in the replay command is quoted for the shell, a line break as \\x0a" {
	cd "$FIXTURES"
	local odd=$BATS_TEST_TMPDIR/$'trace of it\'s\nrank 0.json.gz'
	cp ../example/trace.json.gz "$odd"
	run -0 bats_pipe report-md -i "$odd" records.ndjson findings.ndjson \| grep -c -- '--op aten::addmm --nth 1$'
	assert_output 1
	run -0 bats_pipe report-md -j -i "$odd" records.ndjson findings.ndjson \| \
	    jq -r '.compute.top_shapes[0].replay'
	assert_output "snip-new --from-trace \$'$BATS_TEST_TMPDIR/trace of it\\'s\\x0arank 0.json.gz' --op aten::addmm --nth 1"
	# What the shell makes of it is the file.
	run -0 bash -c "set -- ${output#snip-new --from-trace }; cmp \"\$1\" ../example/trace.json.gz"
	# Two traces: the rank's is TRACE.
	run -0 bats_pipe report-md "${inputs[@]}" -i ../example/trace.json.gz records.ndjson findings.ndjson \| \
	    grep -c '^snip-new --from-trace TRACE --op'
	assert_output 10
}

@test "report-md: crit-path's records give a Critical path section and member" {
	cd "$BATS_TEST_TMPDIR"
	tr-extract "$TOP/fixtures/crit-path/tracelens_vllm_decode_graph.json.gz" > rec
	op-rank rec > ops
	crit-path -s rec > crit
	run -0 report-md ops crit
	assert_line '## Critical path (rank 0)'
	assert_line --regexp '^\| whole trace \| 10\.89 ms \| graph replay 95\.4 %, gpu compute bound 2\.6 %, cpu bound 1\.9 % \| \\_matmul_ogs_NNT_bf16xbf16xmxfp4_16x128x256x1 \(graph replay, 34\.5 %, from vllm/compilation/cuda_graph\.py\(208\): \\_\\_call\\_\\_\) \|$'
	run -0 bash -c "report-md -j ops crit | jq -c '.critical_path | map([.window, .length_us, .share.graph_replay])'"
	assert_output '[["",10888.63,0.954]]'
	# Without them, neither: the reports keep their bytes.
	run -0 bash -c "report-md ops | grep -c 'Critical path' || true"
	assert_output 0
	run -0 bash -c "report-md -j ops | jq 'has(\"critical_path\")'"
	assert_output false
}
