bats_require_minimum_version 1.5.0
setup() { load test_helper; }

# Lints one config given as text; the findings as "line:col severity code".
lint_text() {
	printf '%s' "$1" > "$BATS_TEST_TMPDIR/c.yaml"
	run snip-lint -h "$BATS_TEST_TMPDIR/c.yaml"
}

@test "usage error exits 2" {
	run -2 --separate-stderr snip-lint -Z
	assert_stderr --partial 'usage: snip-lint [-hjw] [file ...]'
}

@test "a clean config: no output, exit 0" {
	run -0 snip-lint "$FIXTURES/smoke_config.yaml"
	assert_output ''
	run -0 snip-lint -h "$FIXTURES/aliases.yaml"
	assert_output ''
}

@test "an empty config is what the runner rejects: 1" {
	run -1 snip-lint -h < /dev/null
	assert_output - <<-'EOF'
	<stdin>:1:1: error: Profile config requires mapping 'target'. [required]
	<stdin>:1:1: error: Profile config requires 'data_source' or 'data'. [required]
	<stdin>:1:1: error: Profile config requires 'profile_name' or 'profile.name'. [required]
	EOF
}

@test "golden: the SKILL template in a folder not named after profile_name" {
	cd "$FIXTURES"
	run -0 snip-lint my_profile/config.yaml
	assert_output - < my_profile.ndjson
}

@test "golden: one of each warning, records and lines" {
	cd "$FIXTURES"
	run -1 snip-lint bad.yaml
	assert_output - < bad.ndjson
	run -1 snip-lint -h bad.yaml
	assert_output - < bad.txt
}

@test "malformed YAML: 1 with file:line:col on stderr" {
	cd "$FIXTURES"
	run -1 --separate-stderr snip-lint malformed.yaml
	assert_stderr "snip-lint: malformed.yaml:4:12: while parsing a flow sequence did not find expected ',' or ']'"
	assert_output --partial '"line":4,"column":12,"severity":"error","code":"yaml"'
}

@test ".gz input gives the same bytes as plain" {
	gzip -c "$FIXTURES/bad.yaml" > "$BATS_TEST_TMPDIR/bad.yaml"
	run -1 snip-lint "$BATS_TEST_TMPDIR/bad.yaml"
	assert_output - < <(sed "s|\"file\":\"bad.yaml\"|\"file\":\"$BATS_TEST_TMPDIR/bad.yaml\"|" "$FIXTURES/bad.ndjson")
}

@test "a failed write exits 1" {
	run -1 --separate-stderr bash -c 'snip-lint "$1" > /dev/full' _ "$FIXTURES/bad.yaml"
	assert_stderr --partial 'No space left on device'
}

@test "a missing file: warning, the others still linted, status 1" {
	run -1 --separate-stderr snip-lint -h "$BATS_TEST_TMPDIR/none.yaml" "$FIXTURES/smoke_config.yaml"
	assert_stderr --partial 'none.yaml: No such file or directory'
	assert_output ''
}

@test "-w: warnings fail too" {
	cd "$FIXTURES"
	run -0 snip-lint my_profile/config.yaml
	run -1 snip-lint -w my_profile/config.yaml
}

@test "the runner's load-time error texts, exactly" {
	lint_text '- a list'
	assert_output --partial ":1:1: error: Profile config must be a YAML mapping. [type]"
	lint_text $'target: x\ndata: {source: dummy}\n'
	assert_output --partial ":1:9: error: Profile config requires mapping 'target'. [required]"
	lint_text $'target: {name: t}\ndata_source: dummy\n'
	assert_output --partial ":2:14: error: Profile config requires mapping 'data_source'. [required]"
	lint_text $'target: {name: t}\ndata: {limit: 2}\n'
	assert_output --partial "error: Data source config requires 'name' or 'source'. [required]"
	lint_text $'target: {import_path: a.py:t}\nprofile_name: p\ndata: {name: dummy}\n'
	assert_output --partial ":1:9: error: Profile config requires 'name'. [required]"
	lint_text $'target: {name: t}\ndata: {name: dummy}\ncuda: [1]\n'
	assert_output --partial ":3:7: error: Profile config field 'cuda' must be a mapping. [type]"
	lint_text $'target: {name: t}\ndata: {name: dummy}\nworkload: 3\n'
	assert_output --partial ":3:11: error: Profile config field 'workload' must be a mapping. [type]"
	lint_text $'profile_name: " "\ntarget: {name: smoke-tensor}\ndata: {name: dummy}\n'
	assert_output "$BATS_TEST_TMPDIR/c.yaml:1:15: error: String config values must not be empty. [empty]"
	lint_text $'target: {name: " "}\nprofile_name: p\ndata: {name: dummy}\n'
	assert_output --partial ":1:16: error: target.name must not be empty. [empty]"
	lint_text $'target: {name: smoke-tensor}\ndata: {name: dummy, source: x}\ndevice: " "\n'
	assert_output --partial "error: String config values must not be empty. [empty]"
	lint_text $'target: {name: smoke-tensor}\ndata: {name: "", source: " "}\n'
	assert_output --partial ":2:26: error: data_source.name must not be empty. [empty]"
	lint_text $'target: {name: smoke-tensor}\ndata: {name: dummy}\niterations: 0\nwarmup: -1\n'
	assert_output --partial ":3:13: error: iterations must be greater than or equal to 1. [range]"
	assert_output --partial ":4:9: error: warmup must be greater than or equal to 0. [range]"
	lint_text $'target: {name: smoke-tensor}\ndata: {name: dummy}\nrecord_loading: Eager\n'
	assert_output --partial ":3:17: error: record_loading must be either 'eager' or 'lazy'. [value]"
}

@test "Python's coercions: int(), bool(), str() and YAML 1.1 scalars" {
	# 010 is octal 8, 2.9 truncates, true is 1: accepted, with a warning.
	lint_text $'target: {name: smoke-tensor}\ndata: {name: dummy}\nwarmup: 010\niterations: 2.9\nseed: true\n'
	assert_output - <<-EOF
	$BATS_TEST_TMPDIR/c.yaml:4:13: warning: iterations: the float 2.9 becomes 2 through int(); write an integer [int-coerce]
	$BATS_TEST_TMPDIR/c.yaml:5:7: warning: seed: the boolean True becomes 1 through int(); write an integer [int-coerce]
	EOF
	# PyYAML reads 1e3 as a string, and int() refuses it.
	lint_text $'target: {name: smoke-tensor}\ndata: {name: dummy}\niterations: 1e3\nwarmup: null\n'
	assert_output --partial ":3:13: error: invalid literal for int() with base 10: '1e3' [int]"
	assert_output --partial ":4:9: error: int() argument must be a string, a bytes-like object or a real number, not 'NoneType' [int]"
	lint_text $'target: {name: smoke-tensor}\ndata: {name: dummy}\nvalidate_output: "false"\nwrite_manifest: off\n'
	assert_output --partial "validate_output: the string 'false' is true to the runner"
	refute_output --partial write_manifest
	lint_text $'target: {name: smoke-tensor}\ndata: {name: dummy}\nwarmup: .inf\n'
	assert_output --partial "error: cannot convert float infinity to integer [int]"
}

@test "int() takes any Unicode digit and blank as Python's does; repr() shows what is hidden" {
	# PyYAML leaves these strings; Python's int() reads them as 10, 3 and
	# 12 (checked with Python 3.11), and refuses an ASCII U+001C.
	lint_text $'target: {name: smoke-tensor}\ndata: {name: dummy}\nwarmup: "\\uff11\\uff10"\niterations: "\\u0663"\nseed: " \\u00a012\\u3000"\n'
	assert_output - <<-EOF
	$BATS_TEST_TMPDIR/c.yaml:3:9: warning: warmup: the string '１０' becomes 10 through int(); write an integer [int-coerce]
	$BATS_TEST_TMPDIR/c.yaml:4:13: warning: iterations: the string '٣' becomes 3 through int(); write an integer [int-coerce]
	$BATS_TEST_TMPDIR/c.yaml:5:7: warning: seed: the string ' \xa012\u3000' becomes 12 through int(); write an integer [int-coerce]
	EOF
	lint_text $'target: {name: smoke-tensor}\ndata: {name: dummy}\nwarmup: "\\x1c1"\niterations: "1\\u202e2"\n'
	assert_output --partial ":3:9: error: invalid literal for int() with base 10: '\\x1c1' [int]"
	assert_output --partial ":4:13: error: invalid literal for int() with base 10: '1\\u202e2' [int]"
}

@test "anchors, aliases and merge keys as PyYAML reads them" {
	lint_text $'base: &b {name: smoke-tensor}\ntarget: *b\ndata: {name: dummy}\ncuda:\n  <<: [{synchronize_each_iteration: true}, {synchronize_each_iteration: "x"}]\n'
	# The first merged map wins: true, so no quoted-bool warning.
	assert_output "$BATS_TEST_TMPDIR/c.yaml:1:1: warning: unknown key 'base' is ignored by the runner [unknown-key]"
	lint_text $'a: &x [*x]\n'
	assert_output --partial 'error: recursive alias'
	lint_text $'target: !!python/object:os.system {name: x}\n'
	assert_output --partial "error: could not determine a constructor for the tag 'tag:yaml.org,2002:python/object:os.system' [yaml]"
	lint_text $'a: 1\n---\nb: 2\n'
	assert_output --partial ':2:1: error: expected a single document in the stream [yaml]'
}

@test "!!binary, !!set, !!omap and !!pairs are the bytes, set and tuples PyYAML makes" {
	lint_text $'target: {name: smoke-tensor}\ndata: {name: dummy}\nwarmup: !!binary MTA=\niterations: !!binary /w==\nseed: !!set {1}\nvalidate_output: !!omap [{a: 1}]\n? !!binary eA==\n: 1\n'
	assert_output - <<-EOF
	$BATS_TEST_TMPDIR/c.yaml:3:9: warning: warmup: the bytes b'10' becomes 10 through int(); write an integer [int-coerce]
	$BATS_TEST_TMPDIR/c.yaml:4:13: error: invalid literal for int() with base 10: b'\xff' [int]
	$BATS_TEST_TMPDIR/c.yaml:5:7: error: int() argument must be a string, a bytes-like object or a real number, not 'set' [int]
	$BATS_TEST_TMPDIR/c.yaml:6:18: warning: validate_output: a value of type list where a boolean belongs is true to the runner [not-bool]
	$BATS_TEST_TMPDIR/c.yaml:7:3: warning: key b'x' is a bytes, not a string, and is ignored by the runner [unknown-key]
	EOF
	# Path() refuses bytes in its own words; bytes iterate as ints.
	lint_text $'target: {name: smoke-tensor}\ndata: {name: images, paths: [!!binary eA==]}\n'
	assert_output "$BATS_TEST_TMPDIR/c.yaml:2:30: error: argument should be a str object or an os.PathLike object returning str, not <class 'bytes'> [type]"
	lint_text $'target: {name: smoke-tensor}\ndata: {name: images, paths: !!binary eA==}\n'
	assert_output "$BATS_TEST_TMPDIR/c.yaml:2:29: error: expected str, bytes or os.PathLike object, not int [type]"
	lint_text $'target: {name: smoke-tensor}\ndata: {name: images, paths: !!pairs [{a.png: b.png}]}\n'
	assert_output "$BATS_TEST_TMPDIR/c.yaml:2:38: error: expected str, bytes or os.PathLike object, not tuple [type]"
	lint_text $'target: {name: smoke-tensor}\ndata: {name: images, paths: !!set {/b.png, /a.png}}\n'
	assert_output "$BATS_TEST_TMPDIR/c.yaml:2:29: warning: paths is a set (!!set): the runner takes its items in hash order, which changes from one process to the next, and so does the order of the records; write a list [set-order]"
}

@test "the standard tags' errors in PyYAML's words" {
	# Each checked with PyYAML 6.0 on Python 3.11.
	lint_text $'target: {name: smoke-tensor}\ndata: !!binary "aGk"\n'
	assert_output --partial ":2:7: error: failed to decode base64 data: Incorrect padding [yaml]"
	lint_text $'a: !!binary a\n'
	assert_output --partial ":1:4: error: failed to decode base64 data: Invalid base64-encoded string: number of data characters (1) cannot be 1 more than a multiple of 4 [yaml]"
	lint_text $'a: !!binary "\\u00e9t\\u00e9"\n'
	assert_output --partial ":1:4: error: failed to convert base64 data into ascii: 'ascii' codec can't encode character '\\xe9' in position 0: ordinal not in range(128) [yaml]"
	lint_text $'target: !!omap [{a: 1, b: 2}]\n'
	assert_output --partial ":1:17: error: while constructing an ordered map expected a single mapping item, but found 2 items [yaml]"
	lint_text $'a: !!pairs [x]\n'
	assert_output --partial ":1:13: error: while constructing pairs expected a mapping of length 1, but found scalar [yaml]"
	lint_text $'a: !!omap {x: 1}\n'
	assert_output --partial ":1:4: error: while constructing an ordered map expected a sequence, but found mapping [yaml]"
	lint_text $'a: !!omap [{<<: {x: 1}}]\n'
	assert_output --partial ":1:13: error: could not determine a constructor for the tag 'tag:yaml.org,2002:merge' [yaml]"
	lint_text $'target: !!set [a]\n'
	assert_output --partial ":1:9: error: expected a mapping node, but found sequence [yaml]"
	lint_text $'warmup: !!int [1]\n'
	assert_output --partial ":1:9: error: expected a scalar node, but found sequence [yaml]"
	lint_text $'a: !!set {[1]}\n'
	assert_output --partial ":1:11: error: while constructing a mapping found unhashable key [yaml]"
	lint_text $'? [1]\n: 2\n'
	assert_output --partial ":1:3: error: while constructing a mapping found unhashable key [yaml]"
}

@test "pickle data is never loaded" {
	printf '\x80\x04\x95\x00' > "$BATS_TEST_TMPDIR/c.yaml"
	run -1 --separate-stderr snip-lint -h "$BATS_TEST_TMPDIR/c.yaml"
	assert_stderr --partial 'not YAML but pickle data, which is never loaded'
}

@test "run-time failures the runner would hit: lazy, source, target, import_path, images" {
	lint_text $'target: {name: smoke-tensor}\ndata: {name: dummy}\nrecord_loading: lazy\n'
	assert_output --partial ":3:17: error: Lazy record loading requires target.profile_prepare=true because records are not retained for precomputed preparation. [lazy]"
	lint_text $'target: {name: smoke-tensor, profile_prepare: true}\ndata: {name: dummy}\nrecord_loading: lazy\n'
	assert_output ''
	lint_text $'target: {name: smoke-tensor}\ndata: {name: video}\n'
	assert_output --partial ":2:14: error: Unknown data source 'video'. Available data sources: dummy, images [source]"
	lint_text $'target: {name: nms}\ndata: {name: dummy}\n'
	assert_output --partial ":1:16: error: Unknown target 'nms'. Provide target.import_path or use one of: smoke-tensor [target]"
	lint_text $'target: {name: t, import_path: snippets/t/target.py}\ndata: {name: dummy}\n'
	assert_output --partial "error: Generated target import_path must use '<path-to-file.py>:<attribute>'. [import-path]"
	lint_text $'target: {name: t, import_path: "missing.py:target"}\ndata: {name: dummy}\n'
	assert_output --partial "warning: Target import file does not exist: missing.py"
	lint_text $'target: {name: smoke-tensor}\ndata: {name: images, decode: false}\n'
	assert_output --partial ":2:7: error: Image data source requires 'directory' or 'paths'. [images]"
	lint_text $'target: {name: smoke-tensor}\ndata: {name: images, images_dir: ~/pics}\n'
	assert_output --partial "warning: '~' is not expanded: images_dir '~/pics' is taken literally; use an absolute path [tilde]"
	assert_output --partial "warning: Image directory does not exist: ~/pics [images-dir]"
	lint_text $'target: {name: smoke-tensor}\ndata: {name: dummy, record_count: 0}\n'
	assert_output --partial "error: Data source yielded no records. [empty]"
}

@test "the folder check applies to config.yaml in a folder named otherwise" {
	mkdir -p "$BATS_TEST_TMPDIR/nms_fast"
	printf 'profile_name: nms-fast\ntarget: {name: smoke-tensor}\ndata: {name: dummy}\n' > "$BATS_TEST_TMPDIR/nms_fast/config.yaml"
	run -0 snip-lint -h "$BATS_TEST_TMPDIR/nms_fast/config.yaml"
	assert_output --partial "warning: profile_name 'nms-fast' differs from this config's folder 'nms_fast': runs go to inference_profiling/snippets/nms-fast/runs/, not beside the config [folder]"
	mv "$BATS_TEST_TMPDIR/nms_fast" "$BATS_TEST_TMPDIR/nms-fast"
	run -0 snip-lint -h "$BATS_TEST_TMPDIR/nms-fast/config.yaml"
	assert_output ''
}

@test "the man page's examples" {
	cd "$FIXTURES"
	man_examples snip-lint.1 > "$BATS_TEST_TMPDIR/ex"
	[ "$(wc -l < "$BATS_TEST_TMPDIR/ex")" -eq 2 ]
	run -0 bash -c "$(sed -n 1p "$BATS_TEST_TMPDIR/ex")"
	assert_output ''
	run -0 bash -c "$(sed -n 2p "$BATS_TEST_TMPDIR/ex")"
	assert_output - < my_profile.ndjson
}

@test "a profile name that is not one folder, and a capture range with a space, are warned about" {
	local f=$BATS_TEST_TMPDIR/c.yaml
	printf 'profile_name: ../../x\ncapture_range: pre process\ntarget:\n  name: smoke-tensor\ndata:\n  source: dummy\n' > "$f"
	run -0 snip-lint -h "$f"
	assert_output - <<-EOF
	$f:1:15: warning: profile_name '../../x' has a '/': runs would go to inference_profiling/snippets/../../x/runs/, not to one folder of the snippet tree (snip-run refuses it) [path]
	$f:2:16: warning: capture_range 'pre process' has whitespace: the runner prints --nvtx-capture=pre process@* unquoted, two shell words when pasted (snip-run -p quotes it) [capture-range]
	EOF
	printf 'profile_name: ..\ntarget:\n  name: smoke-tensor\ndata:\n  source: dummy\n' > "$f"
	run -0 snip-lint -h "$f"
	assert_output --partial "profile_name '..' is . or ..: runs would go to"
}

@test "inputs: each entry's form, what is left unset, and what the data source lacks" {
	head='profile_name: p
target: {name: smoke-tensor}
'
	lint_text "${head}data_source: {name: dummy, include_image: false}
inputs:
  a: {from: image}
  b: {from: path}
  c: {from: metadata.scores}
  d: {from: metadata.labels}
  e: {from: pixels}
  f: {shape: [1, -2], dtype: float8}
  g: {shape: 3}
  h: {shape: [65536, 65536, 2]}
  i: {value: 1, call: x}
  j: {colour: red}
  k: {call: 'a b', kwargs: []}
  l: [1]
  m: {value: 0, kind: x}
  n: {call: ok.Name}
"
	assert_output - <<-EOF
	$BATS_TEST_TMPDIR/c.yaml:5:13: error: inputs.a: the dummy data source makes no image with include_image false [input-source]
	$BATS_TEST_TMPDIR/c.yaml:6:13: error: inputs.b: the dummy data source has no file path: use the images data source (snip-new -i DIR) with a directory of image files [input-source]
	$BATS_TEST_TMPDIR/c.yaml:8:13: error: inputs.d: the dummy data source's metadata holds tensor, scores and boxes, not labels: give d a shape and dtype instead [input-source]
	$BATS_TEST_TMPDIR/c.yaml:9:13: error: inputs.e.from: 'pixels' is no record field (image, path, bytes, id, record or metadata.KEY) [input]
	$BATS_TEST_TMPDIR/c.yaml:10:18: error: inputs.f.shape: a size is an integer of 0 or more [input]
	$BATS_TEST_TMPDIR/c.yaml:10:30: error: inputs.f.dtype is one of float32, float16, bfloat16, float64, int64, int32, int16, int8, uint8 or bool [input]
	$BATS_TEST_TMPDIR/c.yaml:11:14: error: inputs.g.shape must be a list of sizes, not int [input]
	$BATS_TEST_TMPDIR/c.yaml:12:14: error: inputs.h.shape holds more than 2147483648 elements [input]
	$BATS_TEST_TMPDIR/c.yaml:13:17: error: inputs.i: one of from, shape, value or call, not both value and call [input]
	$BATS_TEST_TMPDIR/c.yaml:14:6: error: inputs.j: give one of from, shape, value or call [input]
	$BATS_TEST_TMPDIR/c.yaml:14:7: warning: unknown key 'inputs.j.colour' is ignored by prepare() [unknown-key]
	$BATS_TEST_TMPDIR/c.yaml:15:13: error: inputs.k.call must be a name target.py imports, such as ObjectDetectionModel [input]
	$BATS_TEST_TMPDIR/c.yaml:15:28: error: inputs.k.kwargs must be a mapping, not list [input]
	$BATS_TEST_TMPDIR/c.yaml:16:6: error: inputs.l must be a mapping with one of from, shape, value or call, not list [input]
	$BATS_TEST_TMPDIR/c.yaml:17:17: warning: unknown key 'inputs.m.kind' is ignored by prepare() [unknown-key]
	$BATS_TEST_TMPDIR/c.yaml:18:7: error: inputs.n.kwargs is unset: give the keyword arguments of the call that makes n ({} for none) [input-unset]
	EOF
	# The images source: a path, bytes and (decoded) an image; no metadata.
	mkdir -p "$BATS_TEST_TMPDIR/imgs"
	lint_text "${head}data_source: {name: images, directory: $BATS_TEST_TMPDIR/imgs, decode: false}
inputs:
  a: {from: path}
  b: {from: bytes}
  c: {from: metadata.tensor}
  d: {from: image}
  e: {from: id}
"
	assert_output --partial "c.yaml:7:13: error: inputs.c: the images data source's records have no metadata: give c a shape and dtype, or use the dummy data source [input-source]"
	assert_output --partial "c.yaml:8:13: error: inputs.d: the images data source decodes no image with decode false: take the path or the bytes instead [input-source]"
	refute_output --partial 'inputs.a'
	refute_output --partial 'inputs.b'
	refute_output --partial 'inputs.e'
	# Not a mapping at all; and an empty section is none.
	lint_text "${head}data_source: {name: dummy}
inputs: [a, b]
"
	assert_output "$BATS_TEST_TMPDIR/c.yaml:4:9: error: inputs must be a mapping of the copied function's parameters, not list [input]"
	lint_text "${head}data_source: {name: dummy}
inputs:
"
	assert_output ''
}
