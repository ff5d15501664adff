#!/usr/bin/env bats
bats_require_minimum_version 1.5.0

setup() { load test_helper; }

# Compares the charts in $1 and the chart records in $2 with golden set $3.
same_charts() {
	local f
	diff "$2" "$FIXTURES/$3/charts.ndjson"
	diff <(cd "$1" && ls) <(cd "$FIXTURES/$3/charts" && ls)
	for f in "$FIXTURES/$3"/charts/*.svg; do
		cmp "$1/$(basename "$f")" "$f"
	done
}

# Each SVG in $1 is well-formed XML and renders, where the tools are here.
valid_svgs() {
	local f
	for f in "$1"/*.svg; do
		if command -v xmllint >/dev/null; then
			xmllint --noout "$f"
		fi
		if command -v rsvg-convert >/dev/null; then
			rsvg-convert "$f" -o "$BATS_TEST_TMPDIR/out.png"
			[ -s "$BATS_TEST_TMPDIR/out.png" ]
		fi
	done
}

# Writes records of every kind report-svg draws, with $1 as each name.
named() {
	jq -nc --arg n "$1" '
	    {kind: "memory_timeline", source: "snapshot", device: 0,
	     x_unit: "us", points: 3, x: [0, 10, 20], x_end: [0, 10, 20],
	     allocated_min: [1, 5, 2], allocated_max: [1, 9, 2],
	     reserved_max: [16, 16, 16], sites: [$n, "other"],
	     site_bytes: [[1, 0], [8, 1], [1, 1]],
	     peak: {x: 10, bytes: 9, at_least: true},
	     markers: [{what: "oom", x: 15, bytes: 4}], markers_total: 1},
	    {kind: "segment_layout", device: 0, address: 0, total_size: 8,
	     runs: [["active_allocated", 4], ["inactive", 4]], runs_merged: 0},
	    {kind: "family_total", family: $n, count: 1, self: 5, gpu_self: 3},
	    {kind: "step", name: $n, step: 1, dur: 7},
	    {kind: "op_shape", name: $n, model: "gemm", intensity: 100,
	     tflops: 50, gpu_us: 9, bound: "compute", peak_tbps: 3.35},
	    {kind: "compute_summary", gpu: $n, peak_tflops: 989.4},
	    {kind: "ledger", window: "step", step: 1, wall: 10,
	     slices: [{slice: $n, time: 6}, {slice: "sync", time: 4}]}'
}

@test "ledger: a bar per window, its slices as shares in one order" {
	cd "$BATS_TEST_TMPDIR"
	tr-extract "$TOP/fixtures/rubric-apply/slow_loader.json.gz" | op-rank >o
	run -0 report-svg o
	assert_line '{"kind":"chart","chart":"ledger","file":"ledger.svg","title":"Where the time goes, per window","section":"Where the time goes"}'
	valid_svgs .
	# Eight iterations, labelled, each with its wall time after the bar.
	run -0 grep -c '>iteration [0-7]<' ledger.svg
	assert_output 8
	# Each bar's slices span the axis, 660 px, within rounding.
	run -0 bash -c "grep -o '<rect x=\"[0-9.]*\" y=\"[0-9.]*\" width=\"[0-9.]*\" height=\"18\"' ledger.svg |
	    sed -E 's/.*y=\"([0-9.]*)\" width=\"([0-9.]*)\".*/\1 \2/' |
	    awk '{w[\$1] += \$2} END {for (y in w) if (w[y] < 659 || w[y] > 661) print y, w[y]}'"
	assert_output ''
	grep -q '>data loading<' ledger.svg
}

@test "ledger: ten slices each get a colour, eleven make an other" {
	cd "$BATS_TEST_TMPDIR"
	local n
	for n in 10 11; do
		jq -nc --argjson n "$n" '{kind: "ledger", window: "trace",
		    wall: ($n * 10), slices: [range($n) |
		    {slice: "slice_\(.)", time: (10 + .)}]}' >l.ndjson
		rm -f ledger.svg
		run -0 report-svg l.ndjson
		valid_svgs .
		run -0 grep -c '>slice [0-9]*<' ledger.svg
		assert_output "$((n == 10 ? 10 : 9))"
		run grep -c '>other<' ledger.svg
		assert_output "$((n == 10 ? 0 : 1))"
	done
}

@test "usage error exits 2 with the synopsis" {
	run -2 --separate-stderr report-svg -Z
	assert_stderr --partial 'usage: report-svg [-o dir] [file ...]'
}

@test "empty input gives empty output and no chart" {
	cd "$BATS_TEST_TMPDIR"
	run -0 report-svg < /dev/null
	assert_output ''
	run -0 ls
	assert_output ''
}

@test "EXAMPLES in the man page give the golden charts of the example" {
	cd "$BATS_TEST_TMPDIR"
	cp "$TOP/fixtures/example/trace.json.gz" \
	    "$TOP/fixtures/example/memory_snapshot.json.gz" .
	man_examples report-svg.1 > ex
	run -0 bash -e -o pipefail -c "$(sed '$s/$/ > charts.ndjson/' ex)"
	same_charts charts charts.ndjson example
	valid_svgs charts
}

@test "golden charts of a partial window and a fragmented snapshot" {
	snaps=$TOP/fixtures/mem-segments
	cd "$BATS_TEST_TMPDIR"
	churn-score "$snaps/cs336-magma27__memory_snapshot.json.gz" > c.ndjson
	mem-segments "$snaps/flexgen-fork__1.3b_snapshot.json.gz" > s.ndjson
	mkdir out
	report-svg -o out c.ndjson s.ndjson > charts.ndjson
	same_charts out charts.ndjson snapshots
	valid_svgs out
	# The peak is there, and said to be a lower bound.
	grep -q 'peak: at least 13.0 GiB (partial window)' out/memory.svg
}

@test "golden charts of two ranks of two steps" {
	cd "$BATS_TEST_TMPDIR"
	for r in 0 1; do
		tr-extract "$TOP/fixtures/op-rank/sampled_rank-$r.json.gz"
	done | op-rank > o.ndjson
	mkdir out
	report-svg -o out o.ndjson > charts.ndjson
	same_charts out charts.ndjson ranks2
	valid_svgs out
}

@test "golden charts of the eight DLRM ranks" {
	need_shared traces/param_dlrm_8rank
	cd "$BATS_TEST_TMPDIR"
	for f in "$SHARED"/traces/param_dlrm_8rank/*.json; do
		tr-extract "$f"
	done | op-rank > d.ndjson
	mkdir out
	report-svg -o out d.ndjson > charts.ndjson
	same_charts out charts.ndjson dlrm8
	valid_svgs out
	# The straggler stands out: the slowest rank's bar is the red one.
	run -0 grep -c 'fill="#c44e52"' out/steps.svg
	assert_output 1
}

@test "names are data: markup in them is escaped" {
	cd "$BATS_TEST_TMPDIR"
	named "<script>alert(1)</script>&\"'" > h.ndjson
	run -0 report-svg h.ndjson
	assert_line --index 0 --partial '"chart":"memory"'
	for f in *.svg; do
		run grep -c '<script' "$f"
		assert_output 0
	done
	grep -q '&lt;script&gt;alert(1)&lt;/script&gt;&amp;&quot;&apos;' \
	    families.svg
	grep -q '&lt;script&gt;alert(1)&lt;/script&gt;&amp;&quot;&apos;' \
	    roofline.svg
	valid_svgs .
	# Control characters, which XML cannot carry, become spaces.
	named "$(printf 'a\001b')" > c.ndjson
	report-svg c.ndjson > /dev/null
	valid_svgs .
}

@test "no script, no external reference, generic fonts, 11 px text or more" {
	cd "$BATS_TEST_TMPDIR"
	named x > n.ndjson
	report-svg n.ndjson > /dev/null
	for f in *.svg "$FIXTURES"/*/charts/*.svg; do
		run grep -E -c '<script|href|foreignObject|url\(' "$f"
		assert_output 0
		run grep -o 'font-size="[0-9]*"' "$f"
		refute_output --regexp 'font-size="([0-9]|10)"'
		grep -q 'font-family="sans-serif"' "$f"
		grep -q '<title>' "$f"
	done
}

@test "a malformed line is an error with its position, and nothing is drawn" {
	cd "$BATS_TEST_TMPDIR"
	printf '{"kind":"step","dur":1}\n{"kind":"step",,}\n' > bad.ndjson
	run -1 --separate-stderr report-svg bad.ndjson
	assert_stderr --regexp '^report-svg: bad.ndjson:2:[0-9]+: '
	assert_output ''
	run -0 find . -name '*.svg'
	assert_output ''
}

@test "a record of the wrong shape is an error with its position" {
	cd "$BATS_TEST_TMPDIR"
	named x | sed 's/"x":\[0,10,20\]/"x":"late"/' > bad.ndjson
	run -1 --separate-stderr report-svg bad.ndjson
	assert_stderr 'report-svg: bad.ndjson:1:1: "x" is not an array'
	printf '%s\n' '{"kind":"segment_layout","total_size":8,"runs":[["inactive"]]}' > run.ndjson
	run -1 --separate-stderr report-svg run.ndjson
	assert_stderr 'report-svg: run.ndjson:1:49: a run is not [state, bytes]'
}

@test "a file that cannot be opened is skipped with status 1" {
	cd "$BATS_TEST_TMPDIR"
	named x > n.ndjson
	run -1 --separate-stderr report-svg none.ndjson n.ndjson
	assert_stderr --partial 'none.ndjson: No such file or directory'
	assert_line --index 0 --partial '"chart":"memory"'
	[ -s families.svg ]
}

@test "gzip and plain input give the same bytes" {
	cd "$BATS_TEST_TMPDIR"
	named x > n.ndjson
	gzip -c n.ndjson > n.ndjson.gz
	mkdir a b
	report-svg -o a n.ndjson > a.out
	report-svg -o b < n.ndjson.gz > b.out
	cmp a.out b.out
	for f in a/*.svg; do
		cmp "$f" "b/$(basename "$f")"
	done
}

@test "a failed write exits 1" {
	cd "$BATS_TEST_TMPDIR"
	named x > n.ndjson
	run -1 --separate-stderr report-svg -o none n.ndjson
	assert_stderr --partial 'report-svg: none/memory.svg: No such file or directory'
	touch file
	run -1 --separate-stderr report-svg -o file n.ndjson
	assert_stderr --partial 'report-svg: file/memory.svg: Not a directory'
	run -1 --separate-stderr bash -c "report-svg n.ndjson > /dev/full"
	assert_stderr --partial 'report-svg: <stdout>:'
	# No temporary file is left behind.
	run -0 find . -name '.*.svg.*'
	assert_output ''
}

@test "a timeline of 2 M points stays small, its peak kept" {
	cd "$BATS_TEST_TMPDIR"
	# tr-extract's memory records, one spike in the middle.
	awk 'BEGIN { for (i = 0; i < 2000000; i++) {
	    a = i == 1234567 ? 9000000000 : 1000000 + (i % 1000) * 1000;
	    printf "{\"kind\":\"memory\",\"ts\":%d,\"bytes\":1,\"total_allocated\":%.0f,\"total_reserved\":9663676416,\"device_type\":1,\"device_id\":0}\n", i, a } }' |
	    mem-segments > m.ndjson
	run -0 jq -c 'select(.kind == "memory_timeline") | [.points, (.x | length), (.allocated_max | max), .peak.bytes]' m.ndjson
	assert_output '[2000000,500,9000000000,9000000000]'
	report-svg m.ndjson > /dev/null
	[ "$(wc -c < memory-trace.svg)" -lt 300000 ]
	grep -q 'peak: 8.4 GiB' memory-trace.svg
	valid_svgs .
}

@test "charts stay bounded whatever the records hold" {
	cd "$BATS_TEST_TMPDIR"
	# A timeline record of 200 000 buckets, 40 devices, 100 000 steps on
	# 100 ranks, 5000 families and 100 segments of 5000 runs each.
	awk 'BEGIN {
	    for (d = 0; d < 40; d++) {
		printf "{\"kind\":\"memory_timeline\",\"source\":\"snapshot\",\"device\":%d,\"x_unit\":\"entry\",\"x\":[", d
		for (i = 0; i < 5000; i++) printf "%s%d", i ? "," : "", i
		printf "],\"allocated_min\":["
		for (i = 0; i < 5000; i++) printf "%s%d", i ? "," : "", i % 97
		printf "],\"allocated_max\":["
		for (i = 0; i < 5000; i++) printf "%s%d", i ? "," : "", i % 101
		printf "],\"reserved_max\":["
		for (i = 0; i < 5000; i++) printf "%s200", i ? "," : ""
		printf "],\"sites\":[\"a\",\"b\",\"c\",\"d\",\"e\",\"f\",\"g\",\"h\",\"i\",\"other\"],\"site_bytes\":[]}\n"
	    }
	    for (i = 0; i < 100000; i++)
		printf "{\"kind\":\"step\",\"rank\":%d,\"step\":%d,\"dur\":%d}\n", i % 100, i, 1000 + (i * 7919) % 5000
	    for (i = 0; i < 5000; i++)
		printf "{\"kind\":\"family_total\",\"rank\":%d,\"family\":\"f%d\",\"self\":%d,\"gpu_self\":%d}\n", i % 3, i, i, 5000 - i
	    for (s = 0; s < 100; s++) {
		printf "{\"kind\":\"segment_layout\",\"device\":0,\"total_size\":%d,\"runs\":[", 5000 * 1000 + s
		for (i = 0; i < 5000; i++) printf "%s[\"%s\",1000]", i ? "," : "", i % 2 ? "inactive" : "active_allocated"
		printf "]}\n"
	    }
	    for (r = 0; r < 100; r++)
		printf "{\"kind\":\"gpu_timeline\",\"rank\":%d,\"computation\":1,\"exposed_comm\":2,\"exposed_memcpy\":3,\"idle\":4}\n", r
	}' > big.ndjson
	run -0 report-svg big.ndjson
	assert_equal "${#lines[@]}" 5
	for f in *.svg; do
		[ "$(wc -c < "$f")" -lt 300000 ] || fail "$f: $(wc -c < "$f") bytes"
	done
	grep -q '32 more timelines not drawn' memory.svg
	grep -q '36000 steps of further ranks not drawn' steps.svg
	valid_svgs .
}

@test "report-md links each chart at the end of its section" {
	cd "$BATS_TEST_TMPDIR"
	cp "$TOP/fixtures/example/trace.json.gz" \
	    "$TOP/fixtures/example/memory_snapshot.json.gz" .
	man_examples report-svg.1 > ex
	bash -e -o pipefail -c "$(sed '$s/$/ > charts.ndjson/' ex)"
	set -- ops.ndjson trace-memory.ndjson churn.ndjson segments.ndjson
	report-md "$@" > plain.md
	report-md "$@" charts.ndjson > charts.md
	run -1 diff plain.md charts.md
	# Only the links, each with a blank line on both sides.
	run -0 bash -c "diff plain.md charts.md | grep '^>' | grep -v '^> \$' | sed 's/^> //'"
	# One rank of one step: no step chart (the table says it).
	assert_output - <<'EOF'
![Memory over time (trace)](memory-trace.svg)
![Where the time goes, per window](ledger.svg)
![Roofline: costed operators](roofline.svg)
![Segment map: largest segments, blocks by state](segments.svg)
![Memory over time (snapshot)](memory.svg)
![Operator families: self CPU time and GPU time](families.svg)
![GPU time, as shares of the trace window](gpu-timeline.svg)
EOF
	run -0 bash -c "grep -B1 -A1 -F '![GPU time, as shares of the trace window](gpu-timeline.svg)' charts.md | tr '\n' '|'"
	assert_output '|![GPU time, as shares of the trace window](gpu-timeline.svg)||'
	run -0 bash -c "report-md -j $* charts.ndjson | jq -c '[.charts[].chart]'"
	assert_output '["memory","memory-trace","segments","ledger","gpu-timeline","families","roofline"]'
	run -0 bash -c "report-md -j $* | jq -c 'has(\"charts\")'"
	assert_output 'false'
}

@test "numbers too large for a double are refused or left out, never drawn" {
	cd "$BATS_TEST_TMPDIR"
	named x | sed 's/"allocated_max":\[1,9,2\]/"allocated_max":[1,1e999,2]/' > inf.ndjson
	run -1 --separate-stderr report-svg inf.ndjson
	assert_stderr --regexp '^report-svg: inf.ndjson:1:[0-9]+: "allocated_max" holds a value that is not a finite number$'
	printf '%s\n' '{"kind":"step","dur":1e999}' '{"kind":"step","dur":5}' \
	    '{"kind":"step","dur":7}' \
	    '{"kind":"gpu_timeline","computation":1e308,"idle":1e308,"exposed_comm":1e999}' \
	    '{"kind":"family_total","family":"a","self":1e308}' \
	    '{"kind":"family_total","family":"a","self":1e308}' \
	    '{"kind":"segment_layout","total_size":1e308,"runs":[["inactive",1e999],["active_allocated",1e308]]}' > big.ndjson
	run -0 report-svg big.ndjson
	assert_equal "${#lines[@]}" 4
	run grep -il -E 'nan|inf' *.svg
	assert_output ''
	valid_svgs .
}

@test "a value that is not 0 never prints as 0; long names keep their end" {
	cd "$BATS_TEST_TMPDIR"
	jq -nc '{kind: "family_total", family: "matmul", count: 1, self: 100000, gpu_self: 0},
	    {kind: "family_total", family: "tiny", count: 1, self: 300, gpu_self: 0},
	    {kind: "family_total", family: "forward@/home/user/project/src/models/transformer/layers/attention.py:123",
	     count: 1, self: 5000, gpu_self: 0}' >f.ndjson
	run -0 report-svg f.ndjson
	grep -q '>0.3 ms<' families.svg
	run grep -c '>0 ms<' families.svg
	assert_output 0
	# Cut in the middle: the file and line stay.
	grep -q '>forward@/home…er/layers/attention.py:123<' families.svg
	valid_svgs .
}

@test "a memory chart's axis runs to where its last entry ends" {
	cd "$BATS_TEST_TMPDIR"
	named x | jq -c 'if .kind == "memory_timeline" then .x_end = [0, 10, 160]
	    else empty end' >m.ndjson
	run -0 report-svg m.ndjson
	# Ticks every 20 µs, up to the entry that ends at 160 µs.
	grep -q '>160.0 µs<' memory.svg
	valid_svgs .
}

@test "step times: a line for one rank's steps, no chart for one step, per rank for several" {
	cd "$BATS_TEST_TMPDIR"
	printf '%s\n' '{"kind":"step","dur":5}' >one.ndjson
	run -0 report-svg one.ndjson
	assert_output ''
	printf '%s\n' '{"kind":"step","dur":5}' '{"kind":"step","dur":7}' >steps.ndjson
	run -0 report-svg steps.ndjson
	assert_output '{"kind":"chart","chart":"steps","file":"steps.svg","title":"Step times","section":"Slowest steps"}'
	# One line needs no legend: no "trace" anywhere.
	run grep -c 'trace' steps.svg
	assert_output 0
	printf '%s\n' '{"kind":"step","rank":0,"dur":5}' '{"kind":"step","rank":1,"dur":7}' >ranks.ndjson
	run -0 report-svg ranks.ndjson
	assert_output '{"kind":"chart","chart":"steps","file":"steps.svg","title":"Step times per rank","section":"Slowest steps"}'
	grep -q '>rank 1<' steps.svg
	valid_svgs .
}

@test "the GPU chart: each rank's window as shares, its length after the bar" {
	cd "$BATS_TEST_TMPDIR"
	printf '%s\n' '{"kind":"gpu_timeline","rank":0,"computation":600,"exposed_comm":200,"exposed_memcpy":0,"idle":200}' \
	    '{"kind":"gpu_timeline","rank":1,"computation":300,"exposed_comm":0,"exposed_memcpy":0,"idle":2700}' >g.ndjson
	run -0 report-svg g.ndjson
	assert_output '{"kind":"chart","chart":"gpu-timeline","file":"gpu-timeline.svg","title":"GPU time per rank, as shares of its window","section":"GPU timeline"}'
	grep -q '>100 %<' gpu-timeline.svg
	grep -q '>1.00 ms<' gpu-timeline.svg
	grep -q '>3.00 ms<' gpu-timeline.svg
	grep -q "share of the rank&apos;s GPU window" gpu-timeline.svg
	# Both bars are as long: rank 0's 60 % computation is wider than
	# rank 1's 10 %, though rank 1's window is three times as long.
	run -0 bash -c "grep -o '<rect x=\"110.0\" y=\"[0-9.]*\" width=\"[0-9.]*\" height=\"18\" fill=\"#4c72b0\"' gpu-timeline.svg | grep -o 'width=\"[0-9.]*\"'"
	assert_output - <<'OUT'
width="420.0"
width="70.0"
OUT
	valid_svgs .
}

@test "U+FFFE, U+FFFF and U+0000 in a name become U+FFFD: the SVG stays XML" {
	cd "$BATS_TEST_TMPDIR"
	printf '%s\n' '{"kind":"family_total","family":"a\uffffb\ufffe\u0000c","count":1,"self":5,"gpu_self":0}' >u.ndjson
	run -0 report-svg u.ndjson
	grep -q '>a�b��c<' families.svg
	run grep -c $'\xef\xbf\xbf\|\xef\xbf\xbe\|\xc0\x80' families.svg
	assert_output 0
	valid_svgs .
}
