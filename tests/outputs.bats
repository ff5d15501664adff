#!/usr/bin/env bats
# Every tool over every fixture gives the outputs saved in
# fixtures/outputs/digests.tsv: a change meant to keep behaviour (moving
# code between files, say) keeps every byte.  tests/outputs says how to
# save them again after a deliberate change.

bats_require_minimum_version 1.5.0

setup() {
	load test_helper
}

@test "every tool over every fixture: outputs byte-identical to the saved ones" {
	run -0 --separate-stderr "$TOP/tests/outputs"
	diff -u "$FIXTURES/digests.tsv" <(printf '%s\n' "$output") ||
	    fail "outputs differ from fixtures/outputs/digests.tsv (lines above)"
}

@test "the saved outputs cover every tool and every fixture" {
	local tool file
	for tool in "$TOP"/tools/*.c; do
		tool=$(basename "$tool" .c)
		grep -q "^$tool " "$FIXTURES/digests.tsv" ||
		    fail "no saved output of $tool"
	done
	cd "$TOP"
	while IFS= read -r file; do
		grep -qF "	$file	" "$FIXTURES/digests.tsv" ||
		    fail "no saved output on $file"
	done < <(find fixtures -path fixtures/outputs -prune -o -type f -print)
	# Real reports, not only messages: most runs on their own kind of input.
	[ "$(awk -F'\t' '$3 == 0' "$FIXTURES/digests.tsv" | wc -l)" -ge 1500 ]
}
