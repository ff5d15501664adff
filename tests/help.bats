#!/usr/bin/env bats
# -h and --help on every tool: the synopsis, the purpose and one line on
# each option, on stdout with status 0, and each option of the man page's
# SYNOPSIS among them.
bats_require_minimum_version 1.5.0

setup() { load test_helper; }

tools() {
	local f
	for f in "$TOP"/tools/*.c; do
		f=${f##*/}
		echo "${f%.c}"
	done
}

# The options of a man page's SYNOPSIS, one per line: "-a", "--merge".
synopsis_options() {
	sed -n '/^\.Sh SYNOPSIS/,/^\.Sh DESCRIPTION/p' "$TOP/man/$1.1" |
	    awk '{ for (i = 1; i < NF; i++) if ($i == "Fl") {
		f = $(i + 1)
		if (f == "Fl") print "--" $(i + 2)
		else if (f ~ /^\\-/) { sub(/^\\-/, "", f)
			if (f != "option") print "--" f }
		else for (j = 1; j <= length(f); j++)
			print "-" substr(f, j, 1)
		break } }'
}

@test "--help on every tool: usage, purpose, options, exit 0" {
	local t
	for t in $(tools); do
		run -0 --separate-stderr "$t" --help
		assert_stderr ''
		assert_line --index 0 --regexp "^usage: $t "
		assert_line --regexp "^$t: [a-z].*\\.\$"
		assert_line "See $t(1) for the whole manual."
	done
}

@test "-h is --help on every tool but snip-lint, whose -h is its format" {
	local t
	for t in $(tools); do
		[ "$t" = snip-lint ] && continue
		run -0 "$t" --help
		local long=$output
		run -0 "$t" -h
		assert_output "$long"
	done
	# snip-lint -h: findings as file:line:col: severity: message lines.
	run -1 snip-lint -h /dev/null
	assert_line --index 0 --regexp '^/dev/null:1:1: error: '
}

@test "every option of the man page's SYNOPSIS has its line in the help" {
	local t o n=0
	for t in $(tools); do
		run -0 "$t" --help
		for o in $(synopsis_options "$t"); do
			assert_line --regexp "^  (-[a-zA-Z], )?$o( |,|\$)"
			n=$((n + 1))
		done
	done
	# The parse found the options: a broken one would pass on nothing.
	[ "$n" -ge 45 ]
}

@test "every man page documents -h and --help" {
	local t
	for t in $(tools); do
		if [ "$t" = snip-lint ]; then
			grep -qx '.It Fl \\-help' "$TOP/man/$t.1"
		else
			grep -qx '.It Fl h , Fl \\-help' "$TOP/man/$t.1"
		fi
	done
}

@test "a usage error still goes to stderr with status 2" {
	run -2 --separate-stderr tr-extract -Z
	assert_output ''
	assert_stderr --partial 'usage: tr-extract [-a] [file ...]'
	run -2 --separate-stderr snip-run -Z
	assert_stderr --partial 'usage: snip-run [-fn] [-i run-id]'
	assert_stderr --partial '       snip-run -p [-i run-id]'
}

@test "help that cannot be written exits 1" {
	run -1 --separate-stderr bash -c 'op-rank --help >/dev/full'
	assert_stderr --partial 'op-rank: '
}

@test "analyze-profile names the option an operand was meant for" {
	run -2 --separate-stderr analyze-profile trace.json.gz
	assert_stderr 'analyze-profile: trace.json.gz: not an option; did you mean --cpu-trace trace.json.gz?'
	run -2 --separate-stderr analyze-profile runs/x/memory_snapshot.pickle
	assert_stderr 'analyze-profile: runs/x/memory_snapshot.pickle: not an option; did you mean --memory-json runs/x/memory_snapshot.pickle?'
	run -2 --separate-stderr analyze-profile --cpu-trace a.json ctx.yaml
	assert_stderr 'analyze-profile: ctx.yaml: not an option; did you mean --context ctx.yaml?'
	run -2 --separate-stderr analyze-profile --cpu-trace a.json before-report.json
	assert_stderr --partial 'did you mean --baseline before-report.json?'
}
