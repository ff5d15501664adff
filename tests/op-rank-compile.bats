bats_require_minimum_version 1.5.0

# torch.compile in a trace: op-rank's compile record (mrp-records(5)), held
# against sums computed here from the raw events.

setup() {
	load test_helper
	export MRP_RUBRIC="$TOP/rubric"
	T=$BATS_TEST_TMPDIR
}

# raw TRACE: the compiled regions' calls and time, the guards', the
# compile ids whose number after the slash is past 0, and the GPU time of
# Inductor's Triton kernels among all kernels', from the raw events.
raw() {
	/usr/bin/python3 - "$1" <<'PY'
import gzip, json, sys
from decimal import Decimal
with gzip.open(sys.argv[1]) as f:
    ev = [e for e in json.load(f, parse_float=Decimal)["traceEvents"]
          if e.get("ph") == "X"]
reg = [e for e in ev if e["name"].startswith("Torch-Compiled Region: ")]
guard = [e for e in ev if e["name"] == "TorchDynamo Cache Lookup"]
ids = sorted({e["name"].split(": ")[1] for e in reg})
kern = [e for e in ev if e.get("cat") == "kernel"]
tri = [e for e in kern if e["name"].startswith("triton_")]
print(json.dumps({
    "region_calls": len(reg), "region_time": float(sum(e["dur"] for e in reg)),
    "guard_calls": len(guard), "guard_time": float(sum(e["dur"] for e in guard)),
    "compile_ids": ids,
    "recompiles": len([i for i in ids if int(i.split("/")[1]) > 0]),
    "inductor": float(sum(e["dur"] for e in tri)),
    "kernels": float(sum(e["dur"] for e in kern))}))
PY
}

@test "compiled regions, guards, recompiles and Inductor's share, as the raw events add up, on three real traces" {
	local f want got n=0
	for f in "$TOP/fixtures/tr-extract/tracelens_torch_compile_triton.json.gz" \
	    "$SHARED/traces/hta/triton_example.json.gz" \
	    "$SHARED/traces/tracelens/b200_eager_trace.json.gz"; do
		[ -e "$f" ] || continue
		want=$(raw "$f")
		got=$(tr-extract "$f" | op-rank | jq -c 'select(.kind == "compile")')
		[ "$(jq -c '[.region_calls, .region_time, .guard_calls, .guard_time, [.regions[].compile_id], .recompiles, .inductor_gpu_time]' <<<"$got")" = \
		    "$(jq -c '[.region_calls, (.region_time * 1000 | round / 1000), .guard_calls, (.guard_time * 1000 | round / 1000), .compile_ids, .recompiles, (.inductor * 1000 | round / 1000)]' <<<"$want")" ] ||
		    fail "$f: $got against $want"
		[ "$(jq -r .inductor_share <<<"$got")" = "$(jq -r '.inductor / .kernels * 1000 | round / 1000' <<<"$want")" ] ||
		    fail "$f: inductor share $got against $want"
		n=$((n + 1))
	done
	[ "$n" -ge 1 ]
}

@test "TraceLens's B200 eager trace: frame 0 runs its second compilation, 0/1: one recompiled frame" {
	need_shared traces/tracelens/b200_eager_trace.json.gz
	run -0 bats_pipe tr-extract "$SHARED/traces/tracelens/b200_eager_trace.json.gz" \| \
	    op-rank \| jq -c 'select(.kind == "compile") | [.frames, .recompiled_frames, .recompiles, .graph_breaks, .regions[0].compile_id]'
	assert_output '[1,1,1,0,"0/1"]'
}

# A hand-made run of compiled frames, worked by hand: frame 0 resumes in
# frame 1 after a graph break (a region inside a region), frame 1 calls
# two graphs (split), frame 0 calls two graphs around the break (split),
# frame 2 runs its second compilation, and frame 3's graph call holds
# another, which is one graph, not two.
hand_made() {
	ev() {
		printf '{"kind":"event","name":"%s","cat":"%s","pid":1,"tid":1,"ts":%s,"dur":%s}\n' "$1" "$2" "$3" "$4"
	}
	ev 'TorchDynamo Cache Lookup' cpu_op 0 10
	ev 'Torch-Compiled Region: 0/0' cpu_op 10 990
	ev '## Call CompiledFxGraph aaa ##' user_annotation 20 80
	ev 'TorchDynamo Cache Lookup' cpu_op 190 10
	ev 'Torch-Compiled Region: 1/0' cpu_op 200 300
	ev '## Call CompiledFxGraph bbb ##' user_annotation 210 90
	ev 'CompiledFunction' cpu_op 310 90
	ev '## Call CompiledFxGraph ccc ##' user_annotation 600 100
	ev 'TorchDynamo Cache Lookup' cpu_op 1990 10
	ev 'Torch-Compiled Region: 2/1' cpu_op 2000 100
	ev 'Torch-Compiled Region: 3/0' cpu_op 3000 500
	ev 'CompiledFunction' cpu_op 3010 390
	ev '## Call CompiledFxGraph ddd ##' user_annotation 3020 280
	printf '{"kind":"trace","file":"compile.json","origin_ns":0,"start":0,"end":3500,"events":13}\n'
}

@test "graph breaks worked by hand: a region inside a region, regions that call two graphs" {
	hand_made > "$T/in"
	run -0 bats_pipe op-rank "$T/in" \| jq -c 'select(.kind == "compile") | [.region_calls, .region_time, .frames, .recompiled_frames, .nested_regions, .split_regions, .graph_breaks, .guard_calls, .guard_time, .guard_mean]'
	assert_output '[4,1890,4,1,1,2,3,3,30,10]'
	run -0 bats_pipe op-rank "$T/in" \| jq -c 'select(.kind == "compile") | [.regions[] | [.compile_id, .count, .time]]'
	assert_output '[["0/0",1,990],["3/0",1,500],["1/0",1,300],["2/1",1,100]]'
}

@test "partials carry the compiled regions: a merge gives the same records, forged ones refused" {
	hand_made > "$T/in"
	op-rank "$T/in" > "$T/one"
	op-rank --partial "$T/in" > "$T/part"
	grep -q '"op_partial_compile_region"' "$T/part"
	run -0 op-rank --merge "$T/part"
	assert_output - < "$T/one"
	sed 's/"compile_id":"2\/1"/"compile_id":"two"/' "$T/part" > "$T/bad"
	run -1 op-rank --merge "$T/bad"
	assert_output --partial '"op_partial_compile_region" lacks a "compile_id" of the form F/C'
	sed 's/"compile_id":"2\/1","count":1,"total":100000,"max":100000/"compile_id":"2\/1","count":1,"total":100000,"max":200000/' "$T/part" > "$T/bad"
	run -1 op-rank --merge "$T/bad"
	assert_output --partial 'does not add up'
}

@test "a trace without torch.compile has no compile record" {
	run -0 bats_pipe tr-extract "$TOP/fixtures/example/trace.json.gz" \| op-rank
	refute_output --partial '"kind":"compile"'
}
