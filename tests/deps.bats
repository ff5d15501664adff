#!/usr/bin/env bats
# .ci/deps by sets, as a user without root sees it, and make example with
# the build's dependencies alone: the report, not the build.
bats_require_minimum_version 1.5.0

setup() {
	load test_helper
	# A PATH of every command here but the browser and the SVG tools,
	# with an id(1) that says the user is not root.
	nobrowser=$BATS_TEST_TMPDIR/path
	mkdir "$nobrowser"
	local f
	for f in /usr/local/bin/* /usr/bin/* /bin/*; do
		case ${f##*/} in
		chromium*|rsvg-convert|xmllint|id) ;;
		*) [ -e "$nobrowser/${f##*/}" ] || ln -s "$f" "$nobrowser/" ;;
		esac
	done
	printf '#!/bin/sh\necho 1000\n' >"$nobrowser/id"
	chmod +x "$nobrowser/id"
}

@test "deps: each set alone; the browser's absence is named, not fatal" {
	run -0 --separate-stderr env PATH="$nobrowser" "$TOP/.ci/deps" build
	assert_stderr ''
	run -0 --separate-stderr env PATH="$nobrowser" "$TOP/.ci/deps" build html
	assert_stderr 'deps: their tests skip without chromium-headless-shell librsvg2-bin libxml2-utils (on Debian: sudo apt-get install chromium-headless-shell librsvg2-bin libxml2-utils)'
	run -2 --separate-stderr "$TOP/.ci/deps"
	assert_stderr --partial 'usage: .ci/deps'
}

@test "deps: a missing build or test package stops, naming every one" {
	mkdir "$BATS_TEST_TMPDIR/bare"
	ln -s "$nobrowser/id" "$BATS_TEST_TMPDIR/bare/"
	# sh itself, by its path: nothing else on PATH.
	run -1 --separate-stderr env PATH="$BATS_TEST_TMPDIR/bare" /bin/sh "$TOP/.ci/deps" build test
	assert_stderr 'deps: missing packages: make gcc pigz jq bats parallel mandoc python3 sqlite3 cmark-gfm zsh strace (on Debian: sudo apt-get install make gcc pigz jq bats parallel mandoc python3 sqlite3 cmark-gfm zsh strace)'
}

@test "deps -n: as root it names what is missing and installs nothing" {
	mkdir "$BATS_TEST_TMPDIR/root"
	printf '#!/bin/sh\necho 0\n' >"$BATS_TEST_TMPDIR/root/id"
	printf '#!/bin/sh\necho "$@" >>"%s"\nexit 1\n' "$BATS_TEST_TMPDIR/apt.log" \
	    >"$BATS_TEST_TMPDIR/root/apt-get"
	chmod +x "$BATS_TEST_TMPDIR/root/id" "$BATS_TEST_TMPDIR/root/apt-get"
	run -1 --separate-stderr env PATH="$BATS_TEST_TMPDIR/root" /bin/sh "$TOP/.ci/deps" -n build
	assert_stderr 'deps: missing packages: make gcc (on Debian: sudo apt-get install make gcc)'
	[ ! -e "$BATS_TEST_TMPDIR/apt.log" ]
	# Without -n, root installs.
	run -1 --separate-stderr env PATH="$BATS_TEST_TMPDIR/root" /bin/sh "$TOP/.ci/deps" build
	assert_stderr --partial 'deps: installing make gcc'
	assert_stderr --partial 'deps: apt-get failed to install: make gcc'
	run -0 cat "$BATS_TEST_TMPDIR/apt.log"
	assert_line --index 0 'update -qq'
}

@test "make checks the build's packages; make example, check, bench and fuzz may install them" {
	local goal
	run -0 make -n --no-print-directory -C "$TOP" BUILD="${BUILD:-$TOP}" all
	assert_line '.ci/deps -n build'
	for goal in example check bench; do
		run -0 make -n --no-print-directory -C "$TOP" BUILD="${BUILD:-$TOP}" $goal
		assert_line '.ci/deps build'
		refute_line '.ci/deps -n build'
	done
	run -0 make -n --no-print-directory -C "$TOP" BUILD="${BUILD:-$TOP}" fuzz
	assert_line '.ci/deps build fuzz'
}

@test "make example without a browser, as a user: the report and nothing of the build" {
	run -0 --separate-stderr env PATH="$nobrowser" \
	    make --no-print-directory -C "$TOP" BUILD="${BUILD:-$TOP}" example
	assert_stderr ''
	assert_line --index 0 '# Profile report'
	refute_output --partial '    CC '
	refute_output --partial 'cc '
	assert_line '## Prioritized actions'
}
