#!/usr/bin/env bats
# tests/layers, the layering check of make check: it passes on the tree,
# and names each include that reaches up or sideways, and each circle of
# calls between the files of a module.

bats_require_minimum_version 1.5.0

setup() {
	load test_helper
	tree=$BATS_TEST_TMPDIR/tree
	mkdir "$tree"
	cp -R "$TOP/lib" "$TOP/tools" "$tree"
}

# Adds an include line after the first line of a file of the copy.
plant() {
	sed -i "1a #include \"$2\"" "$tree/$1"
}

@test "the tree keeps its layers" {
	run -0 "$TOP/tests/layers"
	assert_output ''
	run -0 "$TOP/tests/layers" "$tree"
}

@test "a module that includes a higher layer is named" {
	plant lib/io/json.c report/rubric.h
	run -1 "$TOP/tests/layers" "$tree"
	assert_line 'lib/io/json.c:2: #include "report/rubric.h": io may not include report (a higher layer)'
	assert_line --partial 'includes break the layering'
}

@test "an analysis that includes another beside it is named" {
	plant lib/memory/memtl.h trace/oprank.h
	run -1 "$TOP/tests/layers" "$tree"
	assert_output --partial 'lib/memory/memtl.h:2: #include "trace/oprank.h": memory may not include trace (a layer beside it)'
}

@test "the report and an analysis meet through records, never headers" {
	plant lib/report/rubric.c trace/oprank.h
	plant lib/report/jqx.h memory/memtl.h
	run -1 "$TOP/tests/layers" "$tree"
	assert_line 'lib/report/rubric.c:2: #include "trace/oprank.h": report may not include trace (they meet through records only)'
	assert_line 'lib/report/jqx.h:2: #include "memory/memtl.h": report may not include memory (they meet through records only)'
}

@test "a lib/ header included as a system header is named; system headers are not" {
	sed -i '1a #include <trace/oprank.h>' "$tree/lib/report/rubric.c"
	sed -i '1a #include <gen/names.h>' "$tree/lib/io/json.c"
	sed -i '1a #include <sys/stat.h>' "$tree/lib/base/strmap.c"
	run -1 "$TOP/tests/layers" "$tree"
	assert_line 'lib/report/rubric.c:2: #include <trace/oprank.h>: a lib/ header as a system one: "trace/oprank.h"'
	assert_line 'lib/io/json.c:2: #include <gen/names.h>: a lib/ header as a system one: "gen/names.h"'
	refute_output --partial 'sys/stat.h'
}

@test "a tool that includes another tool is named, and so is a bare name" {
	plant tools/op-rank.c tr-extract.c
	plant lib/base/strmap.c xalloc.h
	run -1 "$TOP/tests/layers" "$tree"
	assert_line 'tools/op-rank.c:2: #include "tr-extract.c": not a lib/ header named by its layer'
	assert_line 'lib/base/strmap.c:2: #include "xalloc.h": not a lib/ header named by its layer'
}

@test "an include of no module is named" {
	plant lib/report/jqx.c io/nosuch.h
	run -1 "$TOP/tests/layers" "$tree"
	assert_line 'lib/report/jqx.c:2: #include "io/nosuch.h": no lib/io/nosuch.h'
}

@test "a module over 1,000 lines must say why it is one file" {
	seq 1001 | sed 's,.*,/* & */,' >"$tree/lib/base/long.c"
	run -1 "$TOP/tests/layers" "$tree"
	assert_output --partial 'lib/base/long.c: over 1,000 lines'
	{ printf '/*\n * long: a test.\n * One file: a reason.\n */\n'
	    seq 1001 | sed 's,.*,/* & */,'; } >"$tree/lib/base/long.c"
	run -0 "$TOP/tests/layers" "$tree"
}

@test "a tool over 1,000 lines must say why it is one file too" {
	seq 1001 | sed 's,.*,/* & */,' >>"$tree/tools/tr-extract.c"
	run -1 "$TOP/tests/layers" "$tree"
	assert_output --partial 'tools/tr-extract.c: over 1,000 lines'
}

@test "the files of a module that call each other in a circle are named" {
	printf 'int\ncircle_a(void)\n{\n\treturn circle_b();\n}\n' \
	    >"$tree/lib/base/circlea.c"
	printf 'int\ncircle_b(void)\n{\n\treturn circle_a();\n}\n' \
	    >"$tree/lib/base/circleb.c"
	run -1 "$TOP/tests/layers" "$tree"
	assert_output --regexp '^layers: files that call each other in a circle:( lib/base/circle[ab]\.c){2}$'
	# A comment or a string that names a function calls nothing.
	printf 'int\ncircle_b(void)\n{\n\t/* circle_a() */\n\treturn "circle_a()"[0];\n}\n' \
	    >"$tree/lib/base/circleb.c"
	run -0 "$TOP/tests/layers" "$tree"
}
