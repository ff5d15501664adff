bats_require_minimum_version 1.5.0
# The HTML report in a real browser: Debian's chromium-headless-shell opens
# the page from disk, and the test reads what it rendered, what it logged
# on the console and what it asked of the network.
setup() {
	load test_helper
	# The example's inputs, as analyze-profile is given them.
	example=(--cpu-trace "$TOP/fixtures/example/trace.json.gz"
	    --memory-json "$TOP/fixtures/example/memory_snapshot.json.gz")
}

need_chromium() {
	command -v chromium-headless-shell >/dev/null ||
	    skip "chromium-headless-shell is not installed (.ci/deps installs it)"
}

# The titles of the charts of the example and of the 8-rank run.
MEMORY='Memory over time (snapshot)'
MEMORY_TRACE='Memory over time (trace)'
SEGMENTS='Segment map: largest segments, blocks by state'
GPU='GPU time, as shares of the trace window'
GPU8='GPU time per rank, as shares of its window'
STEPS8='Step times per rank'
FAMILIES='Operator families: self CPU time and GPU time'
ROOFLINE='Roofline: costed operators'
LEDGER='Where the time goes, per window'
CRITICAL='The critical path by bound class, per window'

# browse PAGE [ARG ...]: opens PAGE (a file) in headless Chromium with a
# private profile; the rendered DOM goes to PAGE.dom, the log (console
# messages included) to PAGE.log and the network log to PAGE.net.
browse() {
	local page=$1 nosandbox=
	shift
	[ "$(id -u)" != 0 ] || nosandbox=--no-sandbox
	timeout 120 chromium-headless-shell $nosandbox \
	    --user-data-dir="$BATS_TEST_TMPDIR/profile" \
	    --enable-logging=stderr --v=0 --log-net-log="$page.net" \
	    "$@" "file://$page" >"$page.dom" 2>"$page.log"
}

# assert_offline PAGE: the console showed nothing, and no URL but the page's
# own file: (or about:/data:) appears in the network log.
assert_offline() {
	run grep 'CONSOLE' "$1.log"
	assert_output ''
	[ -s "$1.net" ]
	run bash -c "grep -o '\"url\":\"[^\"]*\"' '$1.net' |
	    grep -v '^\"url\":\"\\(file\\|about\\|data\\):'"
	assert_output ''
}

# assert_charts PAGE TITLE ...: each chart's <svg> is in the rendered DOM
# with its <title>.
assert_charts() {
	local page=$1 t
	shift
	for t in "$@"; do
		run -0 bash -c "tr '\n' ' ' <'$page.dom' |
		    grep -o '<svg[^>]*> *<title>$t</title>'"
	done
}

@test "html: the network and console checks see a page that fetches" {
	need_chromium
	cd "$BATS_TEST_TMPDIR"
	printf '<!DOCTYPE html><title>t</title><img src="http://192.0.2.1/x.png"><script>console.log("hi")</script>\n' >bad.html
	browse "$PWD/bad.html" --dump-dom
	run -0 grep -c 'CONSOLE.*"hi"' bad.html.log
	run -0 grep -c '"url":"http://192.0.2.1/x.png"' bad.html.net
}

@test "html: hostile names and charts stay inert in Chromium" {
	need_chromium
	cd "$BATS_TEST_TMPDIR"
	cp "$TOP"/fixtures/report-html/*.md "$TOP"/fixtures/report-html/*.svg .
	report-html charts.md >charts.html 2>/dev/null
	browse "$PWD/charts.html" --dump-dom
	assert_offline "$PWD/charts.html"
	assert_charts "$PWD/charts.html" 'Step times &lt;test&gt;'
	# One chart inline, no script element, and the names as text.
	run -0 grep -c '<svg' charts.html.dom
	assert_output 1
	run -1 grep -c '<script\|<img\|<foreignObject' charts.html.dom
	run -0 grep -c '&lt;script&gt;alert("x")&lt;/script&gt;' charts.html.dom
}

@test "html: analyze-profile --html-out on the example: every chart, offline, on A4" {
	need_chromium
	cd "$BATS_TEST_TMPDIR"
	mkdir tmp
	TMPDIR=$PWD/tmp run -0 --separate-stderr analyze-profile "${example[@]}" \
	    --md-out report.md --html-out "$PWD/report.html"
	assert_stderr ''
	# The charts were drawn in the private directory, and it is gone.
	run -0 ls -A tmp
	assert_output ''
	# --md-out's Markdown links no chart: none is beside it.
	run -1 grep -c '^!\[' report.md
	browse "$PWD/report.html" --dump-dom
	assert_offline "$PWD/report.html"
	run -0 grep -c '<h2>Prioritized actions</h2>' report.html.dom
	# One rank of one step: no step chart.
	assert_charts "$PWD/report.html" "$MEMORY" "$MEMORY_TRACE" "$SEGMENTS" \
	    "$LEDGER" "$CRITICAL" "$GPU" "$FAMILIES" "$ROOFLINE"
	run -0 grep -c '<svg' report.html.dom
	assert_output 8
	# Printed, every page is A4 (595 x 842 points).
	browse "$PWD/report.html" --print-to-pdf="$PWD/report.pdf" \
	    --no-pdf-header-footer
	run -0 bash -c "grep -ao 'MediaBox \\[[^]]*\\]' report.pdf | sort -u"
	assert_output 'MediaBox [0 0 594.95996 841.91998]'
}

@test "html: analyze-profile --html-out on eight ranks: GPU timeline, steps, families" {
	need_shared traces/param_dlrm_8rank
	need_chromium
	cd "$BATS_TEST_TMPDIR"
	run -0 --separate-stderr analyze-profile \
	    --cpu-trace "$SHARED/traces/param_dlrm_8rank" --html-out "$PWD/r8.html"
	assert_output --partial '## Ranks'
	assert_stderr ''
	browse "$PWD/r8.html" --dump-dom
	assert_offline "$PWD/r8.html"
	run -0 grep -c '<h2>Ranks</h2>' r8.html.dom
	# These traces hold no [memory] events: no memory chart to draw.
	assert_charts "$PWD/r8.html" "$LEDGER" "$GPU8" "$STEPS8" "$FAMILIES"
}

@test "html: --html-out is published whole or not at all" {
	cd "$BATS_TEST_TMPDIR"
	run -2 --separate-stderr analyze-profile "${example[@]}" --md-out r \
	    --html-out r
	assert_stderr 'analyze-profile: --md-out and --html-out are the same file: r'
	run -2 --separate-stderr analyze-profile "${example[@]}" \
	    --html-out "$TOP/fixtures/example/trace.json.gz"
	assert_stderr --partial 'analyze-profile: --html-out is the --cpu-trace file:'
	# A failing stage leaves no page, and no temporary one.
	head -c 3000 "$TOP/fixtures/example/trace.json.gz" >cut.json.gz
	mkdir out
	run -1 analyze-profile --cpu-trace cut.json.gz --html-out out/r.html
	run -0 ls -A out
	assert_output ''
	# The page goes to a device as the other reports do.
	run -0 analyze-profile "${example[@]}" --html-out /dev/null
}

@test "html: report.mk writes the charts, report.md links them, report.html inlines them" {
	cd "$BATS_TEST_TMPDIR"
	mkdir run
	cp "$TOP/fixtures/example/trace.json.gz" \
	    "$TOP/fixtures/example/memory_snapshot.json.gz" run
	make --no-print-directory -f "$TOP/pipelines/report.mk" \
	    BIN="${BUILD:-$TOP}/bin" RUBRIC="$TOP/rubric" RUN=run >/dev/null
	run -0 bats_pipe jq -r '.file' run/charts.ndjson \| env LC_ALL=C sort
	assert_output "$(printf '%s\n' critical-path.svg families.svg \
	    gpu-timeline.svg ledger.svg memory-trace.svg memory.svg roofline.svg \
	    segments.svg)"
	local file title
	while IFS=$'\t' read -r file title; do
		# Each standalone SVG is valid XML and renders.
		if command -v xmllint >/dev/null; then
			xmllint --noout "run/$file"
		fi
		if command -v rsvg-convert >/dev/null; then
			rsvg-convert "run/$file" >"${file%.svg}.png"
			[ -s "${file%.svg}.png" ]
		fi
		run -0 grep -cxF "![$title]($file)" run/report.md
		run -0 grep -cF "<figure aria-label=\"$title\">" run/report.html
	done < <(jq -r '[.file, .title] | @tsv' run/charts.ndjson)
	command -v chromium-headless-shell >/dev/null || return 0
	browse "$PWD/run/report.html" --dump-dom
	assert_offline "$PWD/run/report.html"
	assert_charts "$PWD/run/report.html" "$MEMORY" "$MEMORY_TRACE" \
	    "$SEGMENTS" "$LEDGER" "$GPU" "$FAMILIES"
}

@test "html: the screenshot command makes a picture of the page" {
	need_chromium
	cd "$BATS_TEST_TMPDIR"
	analyze-profile "${example[@]}" --html-out report.html
	"$TOP/tests/html-shot" report.html shot.png
	run -0 bash -c "head -c 8 shot.png | od -An -tx1"
	assert_output ' 89 50 4e 47 0d 0a 1a 0a'
	[ "$(stat -c %s shot.png)" -lt 300000 ]
}
