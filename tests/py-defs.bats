bats_require_minimum_version 1.5.0
setup() { load test_helper; }

# The qualname, decorator, def and end lines of every definition, the way
# fixtures/py-defs/astdefs.py prints what CPython's ast reports.
lines() {
	py-defs "$@" | jq -r '[.qualname, .decorator_line, .line, .end_line] | @tsv'
}

# Compares py-defs with CPython ast on the files given.
same_as_ast() {
	command -v python3 >/dev/null || skip "no python3"
	python3 "$FIXTURES/astdefs.py" "$@" > "$BATS_TEST_TMPDIR/ast.tsv"
	run -0 lines "$@"
	assert_output - < "$BATS_TEST_TMPDIR/ast.tsv"
}

@test "usage errors exit 2" {
	run -2 --separate-stderr py-defs -x
	assert_stderr --partial 'usage: py-defs [-l lines] [-n qualname] [file ...]'
	run -2 --separate-stderr py-defs -l 0 /dev/null
	assert_stderr --partial 'first line is too small'
	run -2 --separate-stderr py-defs -l 9-3 /dev/null
	assert_stderr --partial 'line range is invalid'
	run -2 --separate-stderr py-defs -l 3-x /dev/null
	run -2 --separate-stderr py-defs -n '' /dev/null
}

@test "empty input: no output, status 0" {
	run -0 py-defs < /dev/null
	assert_output ''
	run -0 py-defs /dev/null
	assert_output ''
}

@test "golden: the contract's worked fixture" {
	cd "$FIXTURES"
	run -0 py-defs worked.py
	assert_output - < worked.ndjson
}

@test "the contract's ground-truth table, inspect end lines included" {
	cd "$FIXTURES"
	run -0 bats_pipe py-defs worked.py \| jq -r '[.qualname, .decorator_line, .line, .end_line, .end_line_comments] | @tsv'
	assert_output - <<-'EOF'
	letterbox	10	10	27	27
	nms	30	30	38	39
	iou	42	42	42	42
	Detector	45	45	62	62
	Detector.postprocess	48	52	57	57
	Detector.preprocess	59	59	62	62
	Detector.preprocess._inner	60	60	61	61
	torch_no_grad	65	65	66	66
	EOF
	# Never a def in a docstring, a string or a lambda.
	run -0 py-defs worked.py
	refute_output --partial '"name":"not_a_function"'
	refute_output --partial '"name":"fake"'
	refute_output --partial '"name":"<lambda>"'
	run -0 bats_pipe py-defs worked.py \| jq -c 'select(.name == "iou" or .name == "preprocess") | [.type, .oneline]'
	assert_output - <<-'EOF'
	["def",true]
	["async def",false]
	EOF
}

@test "same lines as CPython ast: the worked fixture" {
	same_as_ast "$FIXTURES/worked.py"
}

@test "same lines as CPython ast: the edge cases of the contract" {
	same_as_ast "$FIXTURES/edge.py"
}

@test "same lines as CPython ast: a real module (textwrap.py)" {
	same_as_ast "$FIXTURES/textwrap.py"
}

@test "edge cases: duplicates, nesting, conditional defs, tabs, form feed" {
	run -0 lines "$FIXTURES/edge.py"
	assert_line --index 4 $'decorated\t14\t21\t21'
	assert_line $'Outer.value\t47\t48\t48'
	assert_line $'Outer.value\t49\t50\t51'
	assert_line $'Outer.Inner.method.local\t44\t44\t45'
	assert_line $'typed\t53\t53\t53'
	assert_line $'typed\t55\t55\t55'
	assert_line $'tabbed\t68\t68\t70'
	assert_line $'g\t75\t75\t76'
	refute_output --partial 'not_me'
	refute_output --partial 'at_column_0'
	refute_output --partial 'define'
	# The trailing comment at body indentation counts for inspect only.
	run -0 bats_pipe py-defs -n tabbed "$FIXTURES/edge.py" \| jq -c '[.end_line, .end_line_comments, .indent]'
	assert_output '[70,71,0]'
	run -0 bats_pipe py-defs -n Outer.Inner.method "$FIXTURES/edge.py" \| jq -c '[.parent, .parent_type, .indent, .indent_text]'
	assert_output '["Outer.Inner","class",8,"        "]'
}

@test "Python 3.12: PEP 695 generics and nested same-quote f-strings" {
	run -0 bats_pipe py-defs "$FIXTURES/edge312.py" \| jq -r '[.qualname, .line, .end_line, .oneline] | @tsv'
	assert_output - <<-'EOF'
	first	2	3	false
	Box	6	14	false
	Box.label	7	8	false
	Box.multi	10	14	false
	last	17	17	true
	EOF
}

@test "CRLF, CR, a BOM and no final newline give the same lines" {
	lines "$FIXTURES/worked.py" > "$BATS_TEST_TMPDIR/lf.tsv"
	sed 's/$/\r/' "$FIXTURES/worked.py" > "$BATS_TEST_TMPDIR/crlf.py"
	tr '\n' '\r' < "$FIXTURES/worked.py" > "$BATS_TEST_TMPDIR/cr.py"
	{ printf '\357\273\277'; cat "$FIXTURES/worked.py"; } > "$BATS_TEST_TMPDIR/bom.py"
	head -c -1 "$FIXTURES/worked.py" > "$BATS_TEST_TMPDIR/nonl.py"
	for f in crlf cr bom nonl; do
		run -0 lines "$BATS_TEST_TMPDIR/$f.py"
		assert_output - < "$BATS_TEST_TMPDIR/lf.tsv"
	done
	# The text keeps the file's own line ends.
	run -0 bats_pipe py-defs -n iou "$BATS_TEST_TMPDIR/crlf.py" \| jq -c .text
	assert_output '"def iou(a, b): return np.zeros(len(b))\r\n"'
	if command -v python3 >/dev/null; then
		same_as_ast "$BATS_TEST_TMPDIR/crlf.py" "$BATS_TEST_TMPDIR/cr.py" "$BATS_TEST_TMPDIR/bom.py"
	fi
}

@test "-n selects by qualified name; text is the source lines" {
	cd "$FIXTURES"
	run -0 bats_pipe py-defs -n Detector.postprocess worked.py \| jq -j .text
	assert_output "$(sed -n 48,57p worked.py)"
	run -0 bats_pipe py-defs -n Outer.value edge.py \| jq -c '[.line, .end_line]'
	assert_output $'[48,48]\n[50,51]'
	run -1 --separate-stderr py-defs -n nope worked.py
	assert_stderr 'py-defs: worked.py: no definition named nope'
}

@test "-l widens a range that starts inside a statement or a string" {
	cd "$FIXTURES"
	# Line 56 continues line 55 after a backslash.
	run -0 bats_pipe py-defs -l 56 worked.py \| jq -c '[.qualname, .select_first, .select_last]'
	assert_output '["Detector.postprocess",55,56]'
	# Line 54 is inside the string that starts on line 53.
	run -0 bats_pipe py-defs -l 54-55 worked.py \| jq -c '[.qualname, .select_first, .select_last]'
	assert_output '["Detector.postprocess",53,56]'
	# Line 24 is a column-0 line inside a call's brackets.
	run -0 bats_pipe py-defs -l 24 worked.py \| jq -c '[.qualname, .select_first, .select_last]'
	assert_output '["letterbox",21,25]'
	# A compound statement brings its body; a nested def is innermost.
	run -0 bats_pipe py-defs -l 33 worked.py \| jq -c '[.qualname, .select_first, .select_last]'
	assert_output '["nms",33,37]'
	run -0 bats_pipe py-defs -l 61 worked.py \| jq -c '[.qualname, .select_first, .select_last]'
	assert_output '["Detector.preprocess._inner",61,61]'
	run -0 bats_pipe py-defs -n Detector -l 61 worked.py \| jq -r .qualname
	assert_output Detector
}

@test "-l rejects ranges that cannot stand alone" {
	cd "$FIXTURES"
	run -1 --separate-stderr py-defs -l 36-38 worked.py
	assert_stderr 'py-defs: worked.py:38: lines 36-38 leave the block that line 36 is in'
	run -1 --separate-stderr py-defs -l 5-7 worked.py
	assert_stderr 'py-defs: worked.py: lines 5-7 are not inside a definition'
	run -1 --separate-stderr py-defs -l 54 edge.py
	assert_stderr "py-defs: edge.py:54: lines 54-54 start at an 'else' clause, not a statement"
	run -1 --separate-stderr py-defs -l 90 worked.py
	assert_stderr 'py-defs: worked.py: lines 90-90: the file has 66 lines'
}

@test "malformed source: file:line:col and status 1" {
	cd "$BATS_TEST_TMPDIR"
	printf 'def f():\n    s = "abc\n    return s\n' > str.py
	run -1 --separate-stderr py-defs str.py
	assert_stderr 'py-defs: str.py:2:9: unterminated string literal (detected at line 2)'
	assert_output ''
	printf 'def f():\n    """doc\n\n' > doc.py
	run -1 --separate-stderr py-defs doc.py
	assert_stderr 'py-defs: doc.py:2:5: unterminated triple-quoted string literal (detected at line 4)'
	printf 'def f(a,\n      b:\n    pass\n' > open.py
	run -1 --separate-stderr py-defs open.py
	assert_stderr "py-defs: open.py:1:6: '(' was never closed"
	printf 'x = [1, 2)\n' > mismatch.py
	run -1 --separate-stderr py-defs mismatch.py
	assert_stderr "py-defs: mismatch.py:1:10: closing parenthesis ')' does not match opening parenthesis '['"
	printf 'x = 1)\n' > unmatched.py
	run -1 --separate-stderr py-defs unmatched.py
	assert_stderr "py-defs: unmatched.py:1:6: unmatched ')'"
	printf 'x = 1 \\ 2\n' > cont.py
	run -1 --separate-stderr py-defs cont.py
	assert_stderr 'py-defs: cont.py:1:7: unexpected character after line continuation character'
	printf 'x = r"\\"\n' > raw.py
	run -1 --separate-stderr py-defs raw.py
	assert_stderr 'py-defs: raw.py:1:5: unterminated string literal (detected at line 1)'
	printf 'x = 1\0\n' > nul.py
	run -1 --separate-stderr py-defs nul.py
	assert_stderr 'py-defs: nul.py:1:6: source code cannot contain null bytes'
	printf '\200\004K.' > data.pkl
	run -1 --separate-stderr py-defs data.pkl
	assert_stderr 'py-defs: data.pkl:1:1: pickle data, not Python source'
}

@test "indentation CPython refuses is refused: tabs against spaces, an unindent between levels" {
	cd "$BATS_TEST_TMPDIR"
	# A tab is 8 columns to CPython's levels, 1 to its check: these
	# lines agree only at one tab size (TabError).
	printf 'def f(x):\n\tif x:\n\t\treturn 1\n        return 2\n' > tab.py
	run -1 --separate-stderr py-defs tab.py
	assert_stderr 'py-defs: tab.py:4:9: inconsistent use of tabs and spaces in indentation'
	printf 'def f(x):\n        if x:\n\t    return 1\n' > tabin.py
	run -1 --separate-stderr py-defs tabin.py
	assert_stderr 'py-defs: tabin.py:3:6: inconsistent use of tabs and spaces in indentation'
	printf 'def f(x):\n    if x:\n        return 1\n  return 2\n' > ded.py
	run -1 --separate-stderr py-defs ded.py
	assert_stderr 'py-defs: ded.py:4:3: unindent does not match any outer indentation level'
	# Tabs alone, and tabs and spaces used alike on every line, are fine.
	printf 'def f(x):\n\tif x:\n\t\treturn 1\n\treturn 2\n' > tabs.py
	printf 'def f(x):\n\t  if x:\n\t    return 1\n\t  return 2\n' > mixed.py
	for f in tab tabin ded tabs mixed; do
		want=0
		python3 -c 'import ast, sys; ast.parse(open(sys.argv[1]).read())' "$f.py" 2>/dev/null || want=1
		run py-defs "$f.py"
		assert_equal "$f $status" "$f $want"
	done
}

@test "an unreadable file is skipped with a warning and status 1" {
	cd "$FIXTURES"
	run -1 --separate-stderr py-defs missing.py worked.py
	assert_stderr --partial 'py-defs: missing.py: No such file or directory'
	assert_output - < worked.ndjson
}

@test "gzip input gives the same bytes as plain" {
	cd "$BATS_TEST_TMPDIR"
	gzip -c "$FIXTURES/worked.py" > worked.py
	run -0 py-defs worked.py
	assert_output - < "$FIXTURES/worked.ndjson"
}

@test "a failed write exits 1" {
	run -1 --separate-stderr bash -c 'py-defs "$1" > /dev/full' _ "$FIXTURES/worked.py"
	assert_stderr --partial 'py-defs: <stdout>: write failed'
}

@test "man page EXAMPLES run" {
	cd "$FIXTURES"
	mapfile -t ex < <(man_examples py-defs.1)
	[ "${#ex[@]}" -eq 3 ]
	run -0 bash -c "${ex[0]}"
	assert_line --index 4 $'Detector.postprocess\t52\t57'
	run -0 bash -c "${ex[1]}"
	assert_output '["Detector.postprocess",55,56]'
	run -0 bash -c "${ex[2]}"
	assert_line --index 0 '    @staticmethod'
	assert_line '        return x'
}
