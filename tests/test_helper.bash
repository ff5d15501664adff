# Loaded by every tests/<tool>.bats: assertions, the binaries under test
# first on PATH, and where the fixtures are.
load /usr/lib/bats/bats-support/load
load /usr/lib/bats/bats-assert/load

TOP=$(cd "$BATS_TEST_DIRNAME/.." && pwd)
PATH="${BUILD:-$TOP}/bin:$PATH"
FIXTURES="$TOP/fixtures/$(basename "$BATS_TEST_FILENAME" .bats)"
# Large real traces and snapshots live beside the clone, not in it.
SHARED="$TOP/../shared/fixtures"

# Skips the test when the shared fixtures are not beside the clone.
need_shared() {
	[ -e "$SHARED/${1:-}" ] || skip "no $SHARED/${1:-} beside the clone"
}

# Runs every EXAMPLES command of man/<page> (lines after "EXAMPLES" that
# start with "$ ") from $FIXTURES, for tests that assert on one of them.
man_examples() {
	sed -n '/^\.Sh EXAMPLES/,/^\.Sh /p' "$TOP/man/$1" |
	    sed -n 's/^\.Dl \$ //p' | sed 's/\\e/\\/g; s/\\(em/-/g; s/\\-/-/g'
}
