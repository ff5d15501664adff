bats_require_minimum_version 1.5.0
setup() { load test_helper; }

# The stand-in runner needs PyYAML; the real interpreter, not a slow shim.
setup_file() {
	PY=$(python3 -c 'import yaml, sys; print(sys.executable)' 2>/dev/null) || PY=
	export PY
}

need_py() {
	[ -n "$PY" ] || skip "python3 with PyYAML is needed for the stand-in runner"
}

# A scratch repository root holding the smoke config.
scratch() {
	cp -R "$FIXTURES/development" "$BATS_TEST_TMPDIR/"
	cd "$BATS_TEST_TMPDIR"
}

@test "usage errors exit 2" {
	run -2 --separate-stderr snip-run
	assert_stderr --partial 'usage: snip-run [-fn] [-i run-id] [-r runner] [--option value ...] config'
	run -2 --separate-stderr snip-run -Z x.yaml
	run -2 --separate-stderr snip-run --record-loading Lazy x.yaml
	assert_stderr 'snip-run: --record-loading: must be eager or lazy: Lazy'
	run -2 --separate-stderr snip-run --warmup 1.5 x.yaml
	assert_stderr 'snip-run: --warmup is invalid: 1.5'
	run -2 --separate-stderr snip-run -n -p x.yaml
}

@test "--print-nsys-command: the contract's smoke example, the glob quoted" {
	cd "$FIXTURES"
	run -0 snip-run --print-nsys-command development/profiling/smoke_config.yaml --run-id smoke
	assert_output - < smoke.nsys
	# The runner's str(Path): ./ and doubled slashes go.
	run -0 snip-run -p -i smoke ./development//profiling/smoke_config.yaml
	assert_output - < smoke.nsys
}

@test "--print-nsys-command: the upstream test's assertions" {
	mkdir -p "$BATS_TEST_TMPDIR/configs"
	cat > "$BATS_TEST_TMPDIR/configs/profile config.yaml" <<-'EOF'
	profile_name: custom
	target: {name: smoke-tensor, profile_prepare: true}
	data_source: {name: dummy}
	capture_range: custom-target
	record_loading: lazy
	seed: 7
	EOF
	cd "$BATS_TEST_TMPDIR"
	run -0 snip-run -p -i r1 "configs/profile config.yaml"
	[[ $output == "nsys \\"$'\n'"  profile"* ]]
	# Upstream prints the capture token raw; its '*' is quoted here.
	assert_output --partial "'--nvtx-capture=custom-target@*' \\"
	assert_output --partial $'-e \\\n  NSYS_NVTX_PROFILER_REGISTER_ONLY=0'
	assert_output --partial $'--record-loading \\\n  lazy'
	assert_output --partial $'--capture-range \\\n  custom-target'
	assert_output --partial $'--seed \\\n  7'
	assert_output --partial "'configs/profile config.yaml'"
	assert_output --partial $'uv \\\n  run \\\n  python \\\n  development/profiling/main.py'
	# Overrides apply as apply_overrides does; quoting as shlex.quote.
	run -0 snip-run -p -i "it's" --capture-range '' --device ' cuda:1 ' --warmup 0 "configs/profile config.yaml"
	assert_output --partial $'--device \\\n  cuda:1 \\'
	assert_output --partial $'--warmup \\\n  0 \\'
	assert_output --partial "'--nvtx-capture=custom-target@*'"
	assert_output --partial $'-o \\\n  \'inference_profiling/snippets/custom/runs/it\'"\'"\'s/trace\' \\'
}

@test "the config is validated first: errors with file:line:col, exit 1" {
	printf 'profile_name: p\ntarget: {name: smoke-tensor}\ndata: {name: dummy}\niterations: 0\n' > "$BATS_TEST_TMPDIR/c.yaml"
	run -1 --separate-stderr snip-run -p "$BATS_TEST_TMPDIR/c.yaml"
	assert_stderr "snip-run: $BATS_TEST_TMPDIR/c.yaml:4:13: iterations must be greater than or equal to 1."
	assert_output ''
	# An override is validated again, as the runner rebuilds its config.
	printf 'profile_name: p\ntarget: {name: smoke-tensor}\ndata: {name: dummy}\n' > "$BATS_TEST_TMPDIR/c.yaml"
	run -1 --separate-stderr snip-run -p --iterations 0 "$BATS_TEST_TMPDIR/c.yaml"
	assert_stderr "snip-run: $BATS_TEST_TMPDIR/c.yaml: iterations must be greater than or equal to 1."
	printf 'target: [\n' > "$BATS_TEST_TMPDIR/c.yaml"
	run -1 --separate-stderr snip-run -p "$BATS_TEST_TMPDIR/c.yaml"
	assert_stderr --partial "c.yaml:2:1: "
}

@test "a compressed or missing config: exit 1" {
	gzip -c "$FIXTURES/development/profiling/smoke_config.yaml" > "$BATS_TEST_TMPDIR/c.yaml"
	run -1 --separate-stderr snip-run -p "$BATS_TEST_TMPDIR/c.yaml"
	assert_stderr --partial 'compressed; the runner reads plain YAML'
	run -1 --separate-stderr snip-run -p "$BATS_TEST_TMPDIR/none.yaml"
	assert_stderr --partial 'none.yaml: No such file or directory'
}

@test "a failed write exits 1" {
	cd "$FIXTURES"
	run -1 --separate-stderr bash -c 'snip-run -p -i smoke development/profiling/smoke_config.yaml > /dev/full'
	assert_stderr --partial 'write failed'
}

@test "the plan: golden record for the smoke config" {
	scratch
	run -0 snip-run -n -i smoke -r 'uv run python development/profiling/main.py' development/profiling/smoke_config.yaml
	assert_output - < "$FIXTURES/smoke-plan.ndjson"
}

@test "the plan: dummy record ids, limit alias, describe()" {
	cd "$BATS_TEST_TMPDIR"
	printf 'profile_name: p\ntarget: {name: smoke-tensor}\ndata: {source: dummy, limit: 3, include_image: false, image_shape: [2, 2, 3]}\n' > c.yaml
	run -0 bash -c "snip-run -n -i x c.yaml | jq -c '.manifest | [.record_ids, .data_source.description, .run_id, .expected_trace_path]'"
	assert_output '[["dummy-0","dummy-1","dummy-2"],{"image_shape":[2,2,3],"include_image":false,"record_count":3,"tensor_shape":[4,4],"type":"dummy"},"x","inference_profiling/snippets/p/runs/x/trace.nsys-rep"]'
}

@test "the plan: str() and int() of bytes, a set and tuples, as Python gives them" {
	cd "$BATS_TEST_TMPDIR"
	printf 'profile_name: !!binary cA==\ntarget: {name: smoke-tensor}\ndata: {source: dummy, record_count: !!binary Mw==}\n' > c.yaml
	run -0 bash -c "snip-run -n -i x c.yaml | jq -c '.manifest | [.profile_name, .record_ids]'"
	assert_output "[\"b'p'\",[\"dummy-0\",\"dummy-1\",\"dummy-2\"]]"
	printf 'profile_name: !!set {3, 1, 2}\ntarget: {name: smoke-tensor}\ndata: {source: dummy}\ndevice: !!omap [{a: 1}]\n' > c.yaml
	run -0 bash -c "snip-run -n -i x c.yaml | jq -c '.manifest | [.profile_name, .device]'"
	assert_output "[\"{1, 2, 3}\",\"[('a', 1)]\"]"
	printf 'profile_name: p\ntarget: {name: smoke-tensor}\ndata: {source: dummy, tensor_shape: !!set {4}}\n' > c.yaml
	run -1 --separate-stderr snip-run -n c.yaml
	assert_stderr 'snip-run: c.yaml:3:37: tensor_shape must be a list, not set'
}

@test "the plan: images, sorted, filtered, limit and repeat as upstream" {
	cd "$BATS_TEST_TMPDIR"
	mkdir imgs imgs/sub.png
	touch imgs/b.jpg imgs/a.png imgs/c.TIFF imgs/notes.txt imgs/.png
	printf 'profile_name: p\ntarget: {name: smoke-tensor}\ndata_source: {name: images, directory: imgs, limit: 2, repeat: 5, decode: false}\n' > c.yaml
	run -0 bash -c "snip-run -n -i x c.yaml | jq -c '.manifest | [.record_ids, .data_source.description]'"
	assert_output '[["a","b","a-repeat-1","b-repeat-1","a-repeat-2"],{"decode":false,"decoded_format":null,"limit":2,"paths":["imgs/a.png","imgs/b.jpg","imgs/c.TIFF"],"repeat":5,"type":"images"}]'
	printf 'profile_name: p\ntarget: {name: smoke-tensor}\ndata_source: {name: images, paths: [x/one.jpg, ./two.png]}\n' > c.yaml
	run -0 bash -c "snip-run -n -i x c.yaml | jq -c '.manifest | [.record_ids, .data_source.description.paths]'"
	assert_output '[["one","two"],["x/one.jpg","two.png"]]'
}

@test "the plan fails where the run would: images, source, target, lazy" {
	cd "$BATS_TEST_TMPDIR"
	printf 'profile_name: p\ntarget: {name: smoke-tensor}\ndata_source: {name: images, directory: nowhere}\n' > c.yaml
	run -1 --separate-stderr snip-run -n c.yaml
	assert_stderr 'snip-run: c.yaml:3:40: Image directory does not exist: nowhere'
	printf 'profile_name: p\ntarget: {name: mine}\ndata_source: {name: video}\nrecord_loading: lazy\n' > c.yaml
	run -1 --separate-stderr snip-run -n c.yaml
	assert_stderr - <<-'EOF'
	snip-run: c.yaml:4:17: Lazy record loading requires target.profile_prepare=true because records are not retained for precomputed preparation.
	snip-run: c.yaml:3:21: Unknown data source 'video'. Available data sources: dummy, images
	snip-run: c.yaml:2:16: Unknown target 'mine'. Provide target.import_path or use one of: smoke-tensor
	EOF
}

@test "a run: the directory comes first, logs stay in it, no manifest to check" {
	scratch
	printf 'write_manifest: false\n' >> development/profiling/smoke_config.yaml
	run -0 --separate-stderr snip-run -i r1 -r "$FIXTURES/dir-runner.sh" development/profiling/smoke_config.yaml
	run_dir=inference_profiling/snippets/smoke-tensor/runs/r1
	assert_output --regexp '^\{"kind":"run","run_id":"r1","run_dir":"'$run_dir'","command":\[".*dir-runner.sh","--config","development/profiling/smoke_config.yaml","--run-id","r1"\],"exit_status":0,"wall_s":[0-9.e-]+,"stdout_log":"'$run_dir'/stdout.log","stderr_log":"'$run_dir'/stderr.log","manifest":null,"manifest_ok":null\}$'
	assert_equal "$(cat $run_dir/stdout.log)" "run dir: $run_dir"
	assert_equal "$(cat $run_dir/stderr.log)" "to stderr"
	run -0 jq -r .kind "$run_dir/snip-run.ndjson"
	assert_output $'plan\nrun'
}

@test "a run through the stand-in runner: the manifest matches the plan" {
	need_py
	scratch
	run -0 snip-run -i smoke -r "$PY $FIXTURES/runner.py" development/profiling/smoke_config.yaml
	assert_output --partial '"exit_status":0'
	assert_output --partial '"manifest":"inference_profiling/snippets/smoke-tensor/runs/smoke/manifest.yaml","manifest_ok":true}'
	run -0 grep -c . inference_profiling/snippets/smoke-tensor/runs/smoke/manifest.yaml
	# An old manifest is kept unless -f.
	run -1 --separate-stderr snip-run -i smoke -r "$PY $FIXTURES/runner.py" development/profiling/smoke_config.yaml
	assert_stderr 'snip-run: inference_profiling/snippets/smoke-tensor/runs/smoke/manifest.yaml: exists; give another run id or -f'
	# SNIP_RUNNER names the runner; overrides reach it and the plan.
	SNIP_RUNNER="$PY $FIXTURES/runner.py" run -0 snip-run -f -i smoke --device cpu --iterations 5 --seed 3 development/profiling/smoke_config.yaml
	assert_output --partial '"--device","cpu","--iterations","5","--seed","3"],"exit_status":0'
	assert_output --partial '"manifest_ok":true'
	run -0 grep -A2 '^workload:' inference_profiling/snippets/smoke-tensor/runs/smoke/manifest.yaml
	assert_output $'workload:\n  iterations: 5\n  record_loading: eager'
}

@test "a run whose manifest differs from the plan: exit 1, each difference named" {
	need_py
	scratch
	STANDIN_FAULT=ids run -1 --separate-stderr snip-run -i s -r "$PY $FIXTURES/runner.py" development/profiling/smoke_config.yaml
	assert_stderr - <<-'EOF'
	snip-run: inference_profiling/snippets/smoke-tensor/runs/s/manifest.yaml:32:1: record_ids is ['dummy-1', 'dummy-0', 'extra']; the plan says ['dummy-0', 'dummy-1']
	snip-run: inference_profiling/snippets/smoke-tensor/runs/s/manifest.yaml:27:1: output_summaries is not a list of 2 summaries, one per record
	EOF
	assert_output --partial '"manifest_ok":false}'
	STANDIN_FAULT=unsorted run -1 --separate-stderr snip-run -f -i s -r "$PY $FIXTURES/runner.py" development/profiling/smoke_config.yaml
	assert_stderr --partial "manifest.yaml:5:3: key 'import_path' is out of order: the manifest was not written with sort_keys"
	STANDIN_FAULT=summaries run -1 --separate-stderr snip-run -f -i s -r "$PY $FIXTURES/runner.py" development/profiling/smoke_config.yaml
	assert_stderr --partial 'output_summaries is not a list of 2 summaries, one per record'
	STANDIN_FAULT=nomanifest run -1 --separate-stderr snip-run -f -i s -r "$PY $FIXTURES/runner.py" development/profiling/smoke_config.yaml
	assert_stderr --partial 'manifest.yaml: the runner wrote no manifest: No such file or directory'
}

@test "a failing runner: its status recorded, exit 1" {
	need_py
	scratch
	STANDIN_FAULT=exit run -1 --separate-stderr snip-run -i s -r "$PY $FIXTURES/runner.py" development/profiling/smoke_config.yaml
	assert_stderr --partial 'exited with status 3; see inference_profiling/snippets/smoke-tensor/runs/s/stderr.log'
	assert_output --partial '"exit_status":3,'
	assert_output --partial '"manifest":null,"manifest_ok":null}'
	run -0 cat inference_profiling/snippets/smoke-tensor/runs/s/stderr.log
	assert_output 'stand-in: failing on purpose'
	run -1 --separate-stderr snip-run -f -i s -r "$BATS_TEST_TMPDIR/no-such-runner" development/profiling/smoke_config.yaml
	assert_output --partial '"exit_status":127,'
}

@test "the man page's examples" {
	need_py
	scratch
	cp "$FIXTURES/runner.py" .
	man_examples snip-run.1 > ex
	[ "$(wc -l < ex)" -eq 3 ]
	run -0 bash -c "$(sed -n 1p ex)"
	assert_output - < "$FIXTURES/smoke.nsys"
	run -0 bash -c "$(sed -n 2p ex)"
	assert_output '["dummy-0","dummy-1"]'
	run -0 bash -c "$(sed -n 3p ex)"
	assert_output --partial '"manifest_ok":true}'
	run -0 grep '^device:' inference_profiling/snippets/smoke-tensor/runs/smoke/manifest.yaml
	assert_output 'device: cpu'
}

@test "pipelines/snippet.mk: lint, nsys, smoke and report for two snippets with -j" {
	need_py
	cd "$BATS_TEST_TMPDIR"
	for s in alpha beta; do
		mkdir -p inference_profiling/snippets/$s
		printf 'profile_name: %s\ntarget: {name: smoke-tensor}\ndata_source: {name: dummy, record_count: 2}\n' $s > inference_profiling/snippets/$s/config.yaml
	done
	export STANDIN_TRACE=1
	run -0 make -s -j2 -f "$TOP/pipelines/snippet.mk" BIN="${BUILD:-$TOP}/bin" RUNNER="$PY $FIXTURES/runner.py" all
	assert_output --partial $'# snippet-out/inference_profiling/snippets/alpha\nnsys \\\n  profile'
	# The trace the run left went through the report pipeline.
	run -0 head -n 1 inference_profiling/snippets/beta/runs/smoke/report.md
	assert_output '# Profile report'
	run -0 cat snippet-out/inference_profiling/snippets/alpha/artifacts.txt
	assert_output 'inference_profiling/snippets/alpha/runs/smoke/trace.json'
	run -0 jq -r .manifest_ok snippet-out/inference_profiling/snippets/beta/run.ndjson
	assert_output true
	# Nothing to redo; a lint error stops the snippet.  (Under a make
	# that runs the suite, MAKEFLAGS holds w, and $(shell) in the
	# makefile then prints the directory.)
	run -0 make -s --no-print-directory -f "$TOP/pipelines/snippet.mk" BIN="${BUILD:-$TOP}/bin" RUNNER="$PY $FIXTURES/runner.py" smoke
	assert_output ''
	printf 'iterations: 0\n' >> inference_profiling/snippets/beta/config.yaml
	run -2 make -s -f "$TOP/pipelines/snippet.mk" BIN="${BUILD:-$TOP}/bin" lint
	assert_output --partial 'config.yaml:4:13: error: iterations must be greater than or equal to 1. [range]'
	[ ! -e snippet-out/inference_profiling/snippets/beta/lint.ndjson ]
}

@test "pipelines/snippet.mk: a run's Nsight Systems export becomes its report" {
	need_py
	command -v sqlite3 >/dev/null || skip "sqlite3 is not installed"
	cd "$BATS_TEST_TMPDIR"
	mkdir -p inference_profiling/snippets/gamma
	printf 'profile_name: gamma\ntarget: {name: smoke-tensor}\ndata_source: {name: dummy, record_count: 2}\n' > inference_profiling/snippets/gamma/config.yaml
	export STANDIN_NSYS=$TOP/fixtures/nsys-extract/snippet-run.sqlite
	# A ~/.jq that does not parse stops no jq in the pipeline.
	mkdir home
	echo 'def broken: (;' >home/.jq
	run -0 env HOME="$PWD/home" make -s -f "$TOP/pipelines/snippet.mk" BIN="${BUILD:-$TOP}/bin" RUNNER="$PY $FIXTURES/runner.py" report
	run -0 cat snippet-out/inference_profiling/snippets/gamma/artifacts.txt
	assert_output 'inference_profiling/snippets/gamma/runs/smoke/trace.sqlite'
	# The runner's two iterations are the report's steps.
	run -0 jq -c '[.inputs[0].role, .summary.steps.steps]' inference_profiling/snippets/gamma/runs/smoke/report.json
	assert_output '["nsys_export",2]'
	run -0 bats_pipe sed -n '/^### Slowest steps/,/^##/p' \
	    inference_profiling/snippets/gamma/runs/smoke/report.md \| \
	    grep -c '^| ProfilerStep#'
	assert_output 2
}

@test "run ids and profile names are one folder: nothing is made outside the snippet tree" {
	local top=$BATS_TEST_TMPDIR/top
	mkdir -p "$top/repo"
	cd "$top/repo"
	printf 'profile_name: ../../escape\ntarget: {name: smoke-tensor}\ndata: {source: dummy}\n' > bad.yaml
	printf 'target: {name: smoke-tensor}\ndata: {source: dummy}\n' > good.yaml
	run -1 --separate-stderr snip-run -r true bad.yaml
	assert_stderr "snip-run: bad.yaml:1:15: profile_name '../../escape' has a '/': it must be one folder name, or the run goes outside inference_profiling/snippets"
	run -1 --separate-stderr snip-run -p bad.yaml
	run -2 --separate-stderr snip-run -r true -i ../x good.yaml
	assert_stderr "snip-run: -i: run id '../x' has a '/': it must be one folder name"
	run -2 --separate-stderr snip-run -r true -i "$top/abs" good.yaml
	assert_stderr --partial "has a '/': it must be one folder name"
	run -2 --separate-stderr snip-run -n -i .. good.yaml
	assert_stderr "snip-run: -i: run id '..' is . or ..: it must be one folder name"
	run -2 --separate-stderr snip-run -n -i $'a\tb' good.yaml
	assert_stderr --partial 'has a control character'
	printf 'profile_name: "a\\0b"\ntarget: {name: smoke-tensor}\ndata: {source: dummy}\n' > nul.yaml
	run -1 --separate-stderr snip-run -n nul.yaml
	assert_stderr --partial "has a NUL"
	# The runner strips the name; what is left is checked.
	printf 'profile_name: " sp "\ntarget: {name: smoke-tensor}\ndata: {source: dummy}\n' > sp.yaml
	run -0 snip-run -n -i r sp.yaml
	assert_output --partial '"run_dir":"inference_profiling/snippets/sp/runs/r"'
	rm sp.yaml
	# Nothing was made: not beside the repository, not in it.
	run -0 ls -A "$top"
	assert_output 'repo'
	run -0 ls -A
	assert_output $'bad.yaml\ngood.yaml\nnul.yaml'
}

@test "a capture range with a space is one quoted word in the printed nsys command" {
	cd "$BATS_TEST_TMPDIR"
	printf 'target: {name: smoke-tensor}\ndata: {source: dummy}\ncapture_range: "pre process"\n' > c.yaml
	run -0 snip-run -p -i r c.yaml
	assert_output --partial $'  \'--nvtx-capture=pre process@*\' \\\n'
	# Pasted into a shell, each word of the command is one argument.
	run -0 bash -c "nsys() { printf '%s\n' \"\$@\"; }; $output"
	assert_line -n 8 '--nvtx-capture=pre process@*'
	assert_line -n 31 'pre process'
}

@test "the printed nsys command pastes into sh, bash and zsh word for word" {
	cd "$BATS_TEST_TMPDIR"
	# '*' in the capture token is a glob in every shell (zsh stops with
	# "no matches found"); a leading '=' is a command's path in zsh.
	printf 'target: {name: smoke-tensor}\ndata: {source: dummy}\ndevice: "=cuda"\ncapture_range: "r[1]~x"\n' > c.yaml
	# A file the unquoted glob would match, in sh and bash.
	touch ./--nvtx-capture=r1~x@z
	run -0 snip-run -p -i '~r' c.yaml
	local cmd=$output sh
	assert_line "  '--nvtx-capture=r[1]~x@*' \\"
	assert_line "  '=cuda' \\"
	for sh in sh bash zsh; do
		command -v "$sh" >/dev/null || skip "$sh is not installed"
		run -0 "$sh" -c "nsys() { printf '%s\n' \"\$@\"; }; $cmd"
		assert_line -n 8 '--nvtx-capture=r[1]~x@*'
		assert_line -n 23 '=cuda'
		assert_line -n 31 'r[1]~x'
		assert_line -n 33 '~r'
	done
}

@test "--print-nsys-command: a target that captures CUDA graphs gets --cuda-graph-trace=node, one that only says so in a comment does not" {
	cd "$BATS_TEST_TMPDIR"
	mkdir -p snips
	printf 'import torch\nclass T:\n    def prepare(self, r, *, device):\n        self.g = torch.cuda.graph(torch.cuda.CUDAGraph.__new__)\n' > snips/graph.py
	printf 'import torch\nclass T:\n    def prepare(self, r, *, device):\n        self.m = torch.compile(self.m, mode="reduce-overhead")\n' > snips/overhead.py
	printf 'import torch\n# torch.cuda.graph( and mode="reduce-overhead", in a comment\nclass T:\n    mode = "reduce-overhead-not"\n' > snips/comment.py
	for t in graph overhead comment; do
		printf 'profile_name: %s\ntarget: {name: t, import_path: "snips/%s.py:T"}\ndata: {source: dummy}\n' "$t" "$t" > "$t.yaml"
	done
	run -0 snip-run -p -i r1 graph.yaml
	assert_output --partial $'--trace=cuda,osrt,nvtx \\\n  --cuda-graph-trace=node \\\n  --sample=cpu'
	run -0 snip-run -p -i r1 overhead.yaml
	assert_output --partial $'--cuda-graph-trace=node \\\n'
	run -0 snip-run -p -i r1 comment.yaml
	refute_output --partial 'cuda-graph-trace'
	# The plan carries the same command.
	run -0 bats_pipe snip-run -n -i r1 overhead.yaml \| jq -r .nsys_command
	assert_output --partial '--cuda-graph-trace=node'
}
