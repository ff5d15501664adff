bats_require_minimum_version 1.5.0
# The HTML report in a real browser: Debian's chromium-headless-shell opens
# the page from disk, and the test reads what it rendered, what it logged
# on the console and what it asked of the network.
setup() {
	load test_helper
	command -v chromium-headless-shell >/dev/null ||
	    skip "chromium-headless-shell is not installed (.ci/deps installs it)"
}

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
	cd "$BATS_TEST_TMPDIR"
	printf '<!DOCTYPE html><title>t</title><img src="http://192.0.2.1/x.png"><script>console.log("hi")</script>\n' >bad.html
	browse "$PWD/bad.html" --dump-dom
	run -0 grep -c 'CONSOLE.*"hi"' bad.html.log
	run -0 grep -c '"url":"http://192.0.2.1/x.png"' bad.html.net
}

@test "html: hostile names and charts stay inert in Chromium" {
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

@test "html: the example report renders in Chromium, offline, on A4" {
	cd "$BATS_TEST_TMPDIR"
	cp "$TOP/fixtures/report-md/example.md" "$TOP/fixtures/report-html/chart.svg" .
	printf '\n![Step times](chart.svg)\n' >>example.md
	report-html example.md >example.html
	browse "$PWD/example.html" --dump-dom
	assert_offline "$PWD/example.html"
	run -0 grep -c '<h2>Prioritized actions</h2>' example.html.dom
	assert_charts "$PWD/example.html" 'Step times &lt;test&gt;'
	# Printed, every page is A4 (595 x 842 points).
	browse "$PWD/example.html" --print-to-pdf="$PWD/example.pdf" \
	    --no-pdf-header-footer
	run -0 bash -c "grep -ao 'MediaBox \\[[^]]*\\]' example.pdf | sort -u"
	assert_output 'MediaBox [0 0 594.95996 841.91998]'
}

@test "html: the screenshot command makes a picture of the page" {
	cd "$BATS_TEST_TMPDIR"
	cp "$TOP/fixtures/report-md/example.md" .
	report-html example.md >example.html
	"$TOP/tests/html-shot" example.html shot.png
	run -0 bash -c "head -c 8 shot.png | od -An -tx1"
	assert_output ' 89 50 4e 47 0d 0a 1a 0a'
	[ "$(stat -c %s shot.png)" -lt 300000 ]
}
