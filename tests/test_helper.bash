# Loaded by every tests/<tool>.bats: assertions, the binaries under test
# first on PATH, and where the fixtures are.
load /usr/lib/bats/bats-support/load
load /usr/lib/bats/bats-assert/load

# Debian 12 ships bats 1.8 and bats-assert 2.1, which predate bats_pipe and
# assert_stderr; these stand in for them with the same meaning.
if ! declare -F bats_pipe >/dev/null; then
	# bats_pipe a \| b: runs the pipeline, failing if any command fails.
	bats_pipe() {
		local cmd="" arg
		for arg in "$@"; do
			if [ "$arg" = "|" ]; then
				cmd="$cmd |"
			else
				cmd="$cmd $(printf '%q' "$arg")"
			fi
		done
		(set -o pipefail; eval "$cmd")
	}
fi
if ! declare -F assert_stderr >/dev/null; then
	# Like assert_output, on the $stderr of run --separate-stderr.
	assert_stderr() {
		local output=$stderr
		assert_output "$@"
	}
fi

TOP=$(cd "$BATS_TEST_DIRNAME/.." && pwd)
# The binaries under test: make check's, or make asan's (BUILD=build-asan).
TOOLS="${BUILD:-$TOP}/bin"
PATH="$TOOLS:$PATH"
# The tables the tools read, whichever build directory is under test.
export MRP_RUBRIC="$TOP/rubric"
FIXTURES="$TOP/fixtures/$(basename "$BATS_TEST_FILENAME" .bats)"
# Large real traces and snapshots live beside the clone, not in it.
SHARED="$TOP/../shared/fixtures"

# Skips the test when the shared fixtures are not beside the clone.
need_shared() {
	[ -e "$SHARED/${1:-}" ] || skip "no $SHARED/${1:-} beside the clone"
}

# Prints the EXAMPLES commands of man/<page>, one per line: the ".Dl $ "
# lines, with the mdoc escapes they use turned back into plain text.
man_examples() {
	sed -n '/^\.Sh EXAMPLES/,/^\.Sh /p' "$TOP/man/$1" |
	    sed -n 's/^\.Dl \$ //p' |
	    sed 's/\\(dq/"/g; s/\\(aq/'"'"'/g; s/\\e/\\/g; s/\\-/-/g'
}

# Runs example number $2 (from 1) of man/$1 in $FIXTURES and compares its
# output with $FIXTURES/example-$2.out.
check_example() {
	local cmd
	cmd=$(man_examples "$1" | sed -n "$2p")
	[ -n "$cmd" ] || fail "man/$1 has no example $2"
	cd "$FIXTURES"
	run -0 bash -o pipefail -c "$cmd"
	assert_output - < "$FIXTURES/example-$2.out"
}

# True when tool is built with a sanitizer, whose shadow memory a test of
# the tool's peak RSS must not count.  Not "ldd | grep -q": under bats's
# pipefail, ldd killed by SIGPIPE when grep -q stops early made it false now
# and then.
sanitized() {
	[[ $(ldd "$TOOLS/$1" 2>/dev/null) == *libasan* ]]
}

# Runs the rest under a limit of $1 KiB of address space, but for a
# sanitizer's build, which reserves far more than any such limit.
limited() {
	local kb=$1
	shift
	sanitized "$1" && kb=unlimited
	(ulimit -v "$kb"; exec "$@")
}

# The python3 that generated profiling targets run with: torch, numpy and
# PyYAML (Debian's python3-torch, python3-numpy, python3-yaml), in
# $TORCH_PY; skips the test without one.
need_torch() {
	local py
	for py in python3 /usr/bin/python3; do
		if "$py" -c 'import torch, numpy, yaml' 2>/dev/null; then
			TORCH_PY=$(command -v "$py")
			return
		fi
	done
	skip "no python3 with torch, numpy and PyYAML"
}

# same_on_cpus TOOL FILE...: TOOL -o (rubric-apply, report-md) of the files,
# one with a file it cannot read, made by one process (MRP_CPUS=1), then by
# one a CPU for two and three CPUs (lib/base/forkpool): the same status
# (1), the same messages in the same order and the same files each time.
same_on_cpus() {
	local tool=$1 d=$BATS_TEST_TMPDIR/cpus n err
	shift
	mkdir -p "$d/1"
	run -1 --separate-stderr env MRP_CPUS=1 "$tool" -o "$d/1" "$@"
	err=$stderr
	[ -n "$err" ]
	for n in 2 3; do
		mkdir "$d/$n"
		run -1 --separate-stderr env MRP_CPUS=$n "$tool" -o "$d/$n" "$@"
		assert_equal "$stderr" "$err"
		diff -r "$d/1" "$d/$n"
	done
	stderr=$err
}
