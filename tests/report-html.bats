bats_require_minimum_version 1.5.0
setup() { load test_helper; }

@test "report-html: usage error" {
	run -2 --separate-stderr report-html -Z
	assert_stderr --partial 'usage: report-html [-C dir] [file ...]'
	run -2 --separate-stderr report-html -C
	assert_stderr --partial 'usage:'
}

@test "report-html: empty input gives empty output" {
	run -0 report-html </dev/null
	assert_output ''
	run -0 report-html <<<$'\n  \n'
	assert_output ''
}

@test "report-html: golden page of the example report" {
	cd "$FIXTURES"
	run -0 --separate-stderr report-html ../report-md/example.md
	assert_output - <example.html
	assert_stderr ''
}

@test "report-html: gzip input gives the same bytes as plain input" {
	cd "$FIXTURES"
	run -0 report-html example.md.gz
	assert_output - <example.html
	run -0 report-html - <example.md.gz
	assert_output - <example.html
}

@test "report-html: the page loads nothing and has no script" {
	cd "$FIXTURES"
	run -0 grep -c "<meta http-equiv=\"Content-Security-Policy\" content=\"default-src 'none'; style-src 'unsafe-inline'\">" example.html
	assert_output 1
	run -1 grep -Ei '<script|<link|<img|<iframe|src=|https?://' example.html
	run -0 grep -c '@page{size:A4;' example.html
}

@test "report-html: golden page of hostile names, links and charts" {
	cd "$FIXTURES"
	run -0 --separate-stderr report-html charts.md
	assert_output - <charts.html
	assert_stderr - <charts.err
}

@test "report-html: names are text, never markup" {
	cd "$FIXTURES"
	run -0 --separate-stderr report-html charts.md
	assert_output --partial '<td>&lt;script&gt;alert(&quot;x&quot;)&lt;/script&gt;</td>'
	assert_output --partial '<strong>&lt;img src=x onerror=alert(1)&gt;</strong>'
	assert_output --partial '<td class="c">[x](javascript:alert(1))</td>'
	assert_output --partial '<code>&lt;b&gt;not bold&lt;/b&gt;'
	assert_output --partial 'aten::_flash_attention_forward'
	refute_output --partial '<script'
	refute_output --partial '<img'
	refute_output --partial 'href="javascript'
	refute_output --partial 'http://192.0.2.1/"'
}

@test "report-html: a chart is inlined with its ids prefixed" {
	cd "$FIXTURES"
	run -0 --separate-stderr report-html charts.md
	assert_output --partial '<clipPath id="c1-plot">'
	assert_output --partial '<g clip-path="url(#c1-plot)">'
	assert_output --partial '<figure aria-label="Step times">'
	refute_output --partial '<?xml'
	refute_output --partial '<!-- a comment -->'
	# The same chart twice keeps one id per copy.
	run -0 bats_pipe printf '%s\n\n' '![a](chart.svg)' '![b](chart.svg)' \| \
	    report-html -C "$FIXTURES"
	assert_output --partial '<clipPath id="c1-plot">'
	assert_output --partial '<clipPath id="c2-plot">'
	assert_output --partial 'url(#c2-plot)'
}

@test "report-html: bad chart references are not inlined, with a warning" {
	cd "$FIXTURES"
	run -0 --separate-stderr report-html charts.md
	local svg
	for svg in script href onload breakout foreign url page; do
		assert_output --partial "(<code>$svg.svg</code>)</p>"
		grep -q "^report-html: charts.md:[0-9]*: $svg.svg: chart not inlined: " <<<"$stderr"
	done
	refute_output --partial 'alert(1)</script>'
	refute_output --partial 'onload='
	refute_output --partial 'foreignObject'
	refute_output --partial '192.0.2.1/x'
	refute_output --partial '192.0.2.1/p.svg'
	assert_output --partial '<p>Chart not inlined: <em>Outside</em> (<code>../report-md/chart.svg</code>)</p>'
}

@test "report-html: charts are looked up beside the Markdown or in -C dir" {
	cd "$BATS_TEST_TMPDIR"
	printf '![c](chart.svg)\n' >r.md
	run -0 --separate-stderr report-html r.md
	assert_stderr 'report-html: r.md:1: chart.svg: chart not inlined: No such file or directory'
	run -0 --separate-stderr report-html -C "$FIXTURES" r.md
	assert_output --partial '<figure aria-label="c">'
	assert_stderr ''
	mkdir -p sub && mv r.md sub/ && cp "$FIXTURES/chart.svg" sub/
	run -0 --separate-stderr report-html sub/r.md
	assert_output --partial '<clipPath id="c1-plot">'
	assert_stderr ''
}

@test "report-html: a chart above 2 MiB is refused" {
	cd "$BATS_TEST_TMPDIR"
	{ sed '$d' "$FIXTURES/chart.svg"
	  head -c 2200000 /dev/zero | tr '\0' ' '
	  echo '</svg>'; } >big.svg
	printf '![big](big.svg)\n' >r.md
	run -0 --separate-stderr report-html r.md
	assert_stderr 'report-html: r.md:1: big.svg: chart not inlined: larger than 2 MiB'
}

@test "report-html: a truncated or trailing-garbage chart is refused" {
	cd "$BATS_TEST_TMPDIR"
	head -n 6 "$FIXTURES/chart.svg" >cut.svg
	{ cat "$FIXTURES/chart.svg"; echo '<rect/>'; } >tail.svg
	printf '![a](cut.svg)\n\n![b](tail.svg)\n' >r.md
	run -0 --separate-stderr report-html r.md
	assert_stderr - <<'ERR'
report-html: r.md:1: cut.svg: chart not inlined: truncated
report-html: r.md:3: tail.svg: chart not inlined: content after the root element
ERR
}

@test "report-html: text that is not UTF-8 is an error with file:line:col" {
	cd "$BATS_TEST_TMPDIR"
	printf '# T\n\nab\xffc\n' >bad.md
	run -1 --separate-stderr report-html bad.md
	assert_stderr 'report-html: bad.md:3:3: invalid UTF-8'
	assert_output ''
	printf '# T\n\xed\xa0\x80\n' >sur.md
	run -1 --separate-stderr report-html sur.md
	assert_stderr 'report-html: sur.md:2:1: invalid UTF-8'
	printf 'a\0b\n' >nul.md
	run -1 --separate-stderr report-html nul.md
	assert_stderr 'report-html: nul.md:1:2: NUL byte in the text'
}

@test "report-html: a missing file is skipped with status 1" {
	cd "$FIXTURES"
	run -1 --separate-stderr report-html nonexistent.md ../report-md/example.md
	assert_stderr --partial 'report-html: nonexistent.md: No such file or directory'
	assert_output - <example.html
}

@test "report-html: a failed write is an error" {
	cd "$FIXTURES"
	run -1 --separate-stderr bash -c 'report-html ../report-md/example.md >/dev/full'
	assert_stderr --partial 'report-html: <stdout>:'
}

@test "report-html: the man page's examples work" {
	cd "$BATS_TEST_TMPDIR"
	cp "$TOP/fixtures/report-md/records.ndjson" \
	    "$TOP/fixtures/report-md/findings.ndjson" .
	cp "$TOP/fixtures/example/trace.json.gz" .
	report-md -i trace.json.gz records.ndjson findings.ndjson >report.md
	report-html report.md >report.html
	run -0 grep -c '<h2>Prioritized actions</h2>' report.html
	mkdir -p runs/1 && cp report.md "$FIXTURES/chart.svg" runs/1/
	printf '\n![Step times](chart.svg)\n' >>runs/1/report.md
	run -0 --separate-stderr report-html runs/1/report.md
	assert_output --partial '<clipPath id="c1-plot">'
	assert_stderr ''
}

@test "report-html: charts that hide what the checks look for are refused" {
	cd "$BATS_TEST_TMPDIR"
	local head='<svg xmlns="http://www.w3.org/2000/svg" width="10" height="10">'
	printf '%s<SCRIPT>alert(1)</SCRIPT></svg>\n' "$head" >upper.svg
	printf '%s<rect style="fill:u&#114;l(http://192.0.2.1/p)"/></svg>\n' "$head" >entity.svg
	printf '%s<style>rect{fill:u\\72l(http://192.0.2.1/p)}</style></svg>\n' "$head" >cssesc.svg
	printf '%s<rect style="fill:\\75rl(x)"/></svg>\n' "$head" >cssattr.svg
	printf '%s<style>@IMPORT "http://192.0.2.1/a.css";</style></svg>\n' "$head" >import.svg
	printf '%s<image href="#x"/></svg>\n' "$head" >image.svg
	printf '%s<a href="#x"><rect/></a></svg>\n' "$head" >anchor.svg
	printf '%s<rect ONCLICK="alert(1)"/></svg>\n' "$head" >upperon.svg
	printf '<svg/onload="alert(1)" xmlns="http://www.w3.org/2000/svg"></svg>\n' >slash.svg
	printf '%s<use xlink:href="data:image/svg+xml,x"/></svg>\n' "$head" >data.svg
	printf '%s<text>a\0b</text></svg>\n' "$head" >nul.svg
	printf '%s<text>a\377b</text></svg>\n' "$head" >utf8.svg
	printf '%s<text x=1>a</text></svg>\n' "$head" >unquoted.svg
	local svg md=
	for svg in upper entity cssesc cssattr import image anchor upperon \
	    slash data nul utf8 unquoted; do
		md="$md![$svg]($svg.svg)"$'\n\n'
	done
	printf '%s' "$md" >r.md
	run -0 --separate-stderr report-html r.md
	refute_output --partial '<svg'
	assert_stderr - <<'ERR'
report-html: r.md:1: upper.svg: chart not inlined: a script, a foreign object or a DTD
report-html: r.md:3: entity.svg: chart not inlined: a character reference to ASCII
report-html: r.md:5: cssesc.svg: chart not inlined: a CSS escape
report-html: r.md:7: cssattr.svg: chart not inlined: a CSS escape
report-html: r.md:9: import.svg: chart not inlined: a script, a foreign object or a DTD
report-html: r.md:11: image.svg: chart not inlined: an element that is not drawing
report-html: r.md:13: anchor.svg: chart not inlined: an element that is not drawing
report-html: r.md:15: upperon.svg: chart not inlined: an event handler attribute
report-html: r.md:17: slash.svg: chart not inlined: not an SVG document
report-html: r.md:19: data.svg: chart not inlined: a reference outside the document
report-html: r.md:21: nul.svg: chart not inlined: a NUL byte or bad UTF-8
report-html: r.md:23: utf8.svg: chart not inlined: a NUL byte or bad UTF-8
report-html: r.md:25: unquoted.svg: chart not inlined: an unquoted attribute
ERR
	# What our charts do use passes: styles, entities beyond ASCII, clips.
	printf '%s<style>text{font:12px sans-serif}</style><text>&lt;&amp;&#181;&#x3bc;</text></svg>\n' \
	    "$head" >ok.svg
	printf '![ok](ok.svg)\n' >ok.md
	run -0 --separate-stderr report-html ok.md
	assert_output --partial '<text>&lt;&amp;&#181;&#x3bc;</text>'
	assert_stderr ''
}

@test "report-html: unmatched markers on one long line stay linear" {
	cd "$BATS_TEST_TMPDIR"
	python3 -c 'print("**a " * 100000 + "_b " * 100000 + "`c`` " * 50000)' >long.md
	run -0 timeout 5 report-html long.md
	assert_output --partial '<p>**a **a '
}

@test "report-html: report-diff's Markdown converts too" {
	cd "$TOP/fixtures/report-diff"
	run -0 --separate-stderr report-html example.md
	assert_stderr ''
	run -0 grep -c '^<div class="tw"><table>$' <<<"$output"
	assert_output "$(grep -c '^| -' example.md)"
	run -0 bats_pipe report-html example.md \| grep -c '^<h1>Before and after</h1>$'
}

@test "report-html: a chart is read only as a regular file, never through a link or from a FIFO" {
	cd "$BATS_TEST_TMPDIR"
	cp "$TOP/fixtures/report-svg/example/charts/families.svg" real.svg
	mkfifo fifo.svg
	ln -s "$TOP/fixtures/report-svg/example/charts/memory.svg" link.svg
	ln -s real.svg near.svg
	ln -s /dev/zero dev.svg
	printf '# R\n\n![F](fifo.svg)\n\n![L](link.svg)\n\n![N](near.svg)\n\n![D](dev.svg)\n\n![R](real.svg)\n' >r.md
	# A FIFO with no writer would block a plain open(2) for ever.
	run -0 --separate-stderr timeout 20 report-html r.md
	assert_stderr - <<'ERR'
report-html: r.md:3: fifo.svg: chart not inlined: not a regular file
report-html: r.md:5: link.svg: chart not inlined: a symbolic link
report-html: r.md:7: near.svg: chart not inlined: a symbolic link
report-html: r.md:9: dev.svg: chart not inlined: a symbolic link
ERR
	run -0 grep -c '<figure' <<<"$output"
	assert_output 1
}

@test "report-html: CSS that fetches what it names is refused" {
	cd "$BATS_TEST_TMPDIR"
	local f
	for f in 'image-set("http://x/a.png" 1x)' '-webkit-image-set(url(#a) 1x, "//x/b.png" 2x)' \
	    'image("http://x/a.png")' 'cross-fade("http://x/a.png", red 50%)' \
	    'src("http://x/a.png")' 'IMAGE-SET("http://x/a.png" 1x)'; do
		printf '<svg xmlns="http://www.w3.org/2000/svg"><style>rect{fill:%s}</style><rect width="1" height="1"/></svg>' "$f" >c.svg
		printf '![C](c.svg)\n' >c.md
		run -0 --separate-stderr report-html c.md
		assert_stderr 'report-html: c.md:1: c.svg: chart not inlined: a CSS function that takes a URL'
		refute_output --partial 'http://'
	done
	# A name in a label that ends like one is text, not CSS.
	printf '<svg xmlns="http://www.w3.org/2000/svg"><text>load_image(x)</text></svg>' >c.svg
	run -0 --separate-stderr report-html c.md
	assert_stderr ''
	assert_output --partial '<text>load_image(x)</text>'
}
