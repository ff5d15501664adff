bats_require_minimum_version 1.5.0
setup() { load test_helper; }

# make install and the installed pipelines: they find the installed tools
# on PATH and the rubric beside them, with neither BIN nor MRP_RUBRIC set.

setup_file() {
	# make install links its tools into one folder of the build: the
	# tests that install take their turns.
	export BATS_NO_PARALLELIZE_WITHIN_FILE=true
	PY=$(python3 -c 'import yaml, sys; print(sys.executable)' 2>/dev/null) || PY=
	export PY
}

# A snippet the stand-in runner takes, in the current directory.
snippet() {
	mkdir -p inference_profiling/snippets/alpha
	printf 'profile_name: alpha\ntarget: {name: smoke-tensor}\ndata_source: {name: dummy, record_count: 2}\n' \
	    >inference_profiling/snippets/alpha/config.yaml
}

@test "snippet.mk: without BIN, from another repository, it finds the tools" {
	[ -n "$PY" ] || skip "python3 with PyYAML is needed for the stand-in runner"
	cd "$BATS_TEST_TMPDIR"
	snippet
	STANDIN_TRACE=1 run -0 env -u BIN make --no-print-directory \
	    -f "$TOP/pipelines/snippet.mk" \
	    RUNNER="$PY $TOP/fixtures/snip-run/runner.py" all
	run -0 head -n 1 inference_profiling/snippets/alpha/runs/smoke/report.md
	assert_output '# Profile report'
}

@test "make install: the installed pipelines give the tree's reports; make uninstall removes them" {
	[ -n "$PY" ] || skip "python3 with PyYAML is needed for the stand-in runner"
	d=$BATS_TEST_TMPDIR/d
	share=$d/usr/local/share/mrp
	run -0 make -C "$TOP" install DESTDIR="$d" PREFIX=/usr/local
	[ -f "$share/pipelines/report.mk" ] && [ -f "$share/pipelines/snippet.mk" ]
	[ -f "$share/rubric/facts.jq" ]
	# Only the installed tools, none of the tree's, and no MRP_RUBRIC.
	inst() {
		env -u BIN -u MRP_RUBRIC PATH="$d/usr/local/bin:/usr/bin:/bin" \
		    STANDIN_TRACE=1 make --no-print-directory "$@"
	}
	tree() {
		STANDIN_TRACE=1 make --no-print-directory \
		    BIN="${BUILD:-$TOP}/bin" "$@"
	}
	for w in tree inst; do
		mkdir "$BATS_TEST_TMPDIR/$w"
		cd "$BATS_TEST_TMPDIR/$w"
		mkdir run
		cp "$TOP/fixtures/example/trace.json.gz" "$TOP/fixtures/example/memory_snapshot.json.gz" \
		    "$TOP/fixtures/analyze-profile/context.yaml" run
		snippet
	done

	cd "$BATS_TEST_TMPDIR/tree"
	run -0 tree -f "$TOP/pipelines/report.mk" RUN=run
	run -0 tree -f "$TOP/pipelines/snippet.mk" \
	    RUNNER="$PY $TOP/fixtures/snip-run/runner.py" all
	cd "$BATS_TEST_TMPDIR/inst"
	run -0 inst -f "$share/pipelines/report.mk" RUN=run
	assert_output --partial "'$d/usr/local/bin/tr-extract'"
	assert_output --partial "report-md -r $share/pipelines/../rubric "
	run -0 inst -f "$share/pipelines/snippet.mk" \
	    RUNNER="$PY $TOP/fixtures/snip-run/runner.py" all
	assert_output --partial "$d/usr/local/bin/snip-run -f"
	cd "$BATS_TEST_TMPDIR"
	for f in run/report.md run/report.json run/context.ndjson \
	    inference_profiling/snippets/alpha/runs/smoke/report.md \
	    inference_profiling/snippets/alpha/runs/smoke/report.json; do
		cmp "tree/$f" "inst/$f"
	done
	# snip-new finds its tables in share/mrp/rubric, as the tools do.
	cd "$BATS_TEST_TMPDIR/inst"
	printf 'def double(x):\n    return 2 * x\n' >m.py
	run -0 env -u MRP_RUBRIC "$d/usr/local/bin/snip-new" -n double m.py
	run -0 env -u MRP_RUBRIC "$d/usr/local/bin/snip-new" --from-trace run/trace.json.gz
	assert_output --partial '"call":"torch.ops.aten.addmm.default"'
	cd "$BATS_TEST_TMPDIR"

	run -0 make -C "$TOP" uninstall DESTDIR="$d" PREFIX=/usr/local
	run -0 find "$d" -type f
	assert_output ''
	[ ! -e "$share" ]
}

@test "make install MRPDIR=...: the tools find the rubric there, and say where they looked" {
	p=$BATS_TEST_TMPDIR/p data=$BATS_TEST_TMPDIR/data/mrp-1.0
	run -0 make -C "$TOP" install PREFIX="$p" MRPDIR="$data"
	[ -f "$data/rubric/facts.jq" ] && [ ! -e "$p/share/mrp" ]
	inst() { env -u MRP_RUBRIC "$p/bin/$@"; }
	cd "$TOP/fixtures"
	run -0 inst rubric-apply rubric-apply/example.ndjson
	assert_output - < rubric-apply/example.findings.ndjson
	run -0 bats_pipe inst tr-extract op-rank/cnn_sgd_s.json.gz \| inst op-rank
	assert_output - < op-rank/cnn.ndjson
	run -0 inst report-md report-md/records.ndjson report-md/findings.ndjson
	cd "$BATS_TEST_TMPDIR"
	run -0 inst snip-new --from-trace "$TOP/fixtures/example/trace.json.gz"
	assert_output --partial '"call":"torch.ops.aten.addmm.default"'
	# The tree's tools still read the tree's rubric.
	run -0 env -u MRP_RUBRIC "${BUILD:-$TOP}/bin/rubric-apply" -l
	run -0 env -u MRP_RUBRIC "$p/bin/rubric-apply" -l
	# Without it, each says where it looked.
	mv "$data" "$data.gone"
	run -2 --separate-stderr inst rubric-apply /dev/null
	assert_stderr "rubric-apply: cannot find the rubric in $p/bin/../rubric, $data/rubric or $p/bin/../share/mrp/rubric: name it with -r or MRP_RUBRIC"
	run -2 --separate-stderr inst op-rank /dev/null
	assert_stderr --partial "op-rank: cannot find op-families.tsv in $p/bin/../rubric, $data/rubric or "
	run -1 --separate-stderr inst snip-new --from-trace "$TOP/fixtures/example/trace.json.gz"
	assert_stderr --partial "snip-new: no replay-ops.tsv found in $p/bin/../rubric, $data/rubric or "
	# A staged install (DESTDIR) compiles in where the files will be.
	d=$BATS_TEST_TMPDIR/d
	run -0 make -C "$TOP" install DESTDIR="$d" PREFIX=/opt/mrp MRPDIR=/opt/mrp/share/mrp-1.0
	[ -f "$d/opt/mrp/share/mrp-1.0/rubric/facts.jq" ]
	run -2 --separate-stderr env -u MRP_RUBRIC "$d/opt/mrp/bin/rubric-apply" /dev/null
	assert_stderr --partial ", /opt/mrp/share/mrp-1.0/rubric or "
}
