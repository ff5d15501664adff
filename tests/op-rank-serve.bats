bats_require_minimum_version 1.5.0

# Serving engines' steps and CUDA or HIP graph replays: op-rank's
# serve_step, serve_phase, serve_summary and graph_replay records, and the
# ledger's gpu_graph and graph_queued slices (mrp-records(5)), held against
# sums computed here from the raw events.

setup() {
	load test_helper
	export MRP_RUBRIC="$TOP/rubric"
	T=$BATS_TEST_TMPDIR
	F=$TOP/fixtures/op-rank
}

# raw TRACE: what the raw events of a trace say, as JSON, computed apart
# from op-rank: each step label's GPU work (the GPU events whose
# correlation id is that of a runtime call its thread made under it), the
# graph launches' kernels, the union of their intervals, of all GPU
# events and of every event, and the time from each launch's return to
# its first kernel that no event covers.
raw() {
	/usr/bin/python3 - "$1" <<'PY'
import gzip, json, re, sys
from decimal import Decimal
# Exact decimals: a double holds a ts of 6.5e12 µs only to a ns or so.
with gzip.open(sys.argv[1]) as f:
    ev = [e for e in json.load(f, parse_float=Decimal)["traceEvents"]
          if e.get("ph") == "X"]
step = re.compile(r"execute_\d+_context_|step\[(EXTEND|DECODE|MIXED) |capture_\d+_")
rt = [e for e in ev if e.get("cat") in ("cuda_runtime", "cuda_driver")]
gpu = [e for e in ev if e.get("cat") in ("kernel", "gpu_memcpy", "gpu_memset")]
bycorr = {}
for g in gpu:
    bycorr.setdefault(g["args"].get("correlation"), []).append(g)
def union(iv):
    tot, end = Decimal(0), None
    for a, b in sorted(iv):
        if end is None or a > end:
            tot += b - a; end = b
        elif b > end:
            tot += b - end; end = b
    return tot
def merged(iv):
    out = []
    for a, b in sorted(iv):
        if out and a <= out[-1][1]:
            out[-1][1] = max(out[-1][1], b)
        else:
            out.append([a, b])
    return out
def minus(q, iv):
    # The time in the union of q that no interval of iv covers.
    free, cover = Decimal(0), merged(iv)
    for a, b in merged(q):
        cur = a
        for x, y in cover:
            if y <= cur or x >= b:
                continue
            if x > cur:
                free += x - cur
            cur = max(cur, y)
        free += max(b - cur, Decimal(0))
    return free
labels = sorted((e for e in ev if e.get("cat") == "user_annotation"
                 and step.match(e["name"])), key=lambda e: (e["ts"], -e["dur"]))
steps, outer = [], None
for l in labels:
    if outer and l["tid"] == outer["tid"] and l["ts"] < outer["ts"] + outer["dur"]:
        continue
    outer = l
    work = [g for c in rt if c["tid"] == l["tid"]
            and l["ts"] <= c["ts"] < l["ts"] + l["dur"]
            for g in bycorr.get(c["args"].get("correlation"), [])]
    steps.append({"name": l["name"], "ts": l["ts"], "host": l["dur"],
                  "kernels": len(work),
                  "first": min(g["ts"] for g in work),
                  "last": max(g["ts"] + g["dur"] for g in work)})
launches = [c for c in rt if "GraphLaunch" in c["name"]]
# What the ledger sees: every event but the labels, which hold no time,
# and the profiler's own span of the whole trace.
every = [(e["ts"], e["ts"] + e["dur"]) for e in ev
         if e.get("cat") not in ("user_annotation", "gpu_user_annotation",
                                 "Trace")]
window = (min(e["ts"] for e in ev), max(e["ts"] + e["dur"] for e in ev))
graph, delays, waits = [], [], []
for c in launches:
    ks = bycorr.get(c["args"]["correlation"], [])
    graph += ks
    if ks:
        first = min(k["ts"] for k in ks)
        ret = c["ts"] + c["dur"]
        delays.append(max(first - ret, Decimal(0)))
        if first > ret:
            waits.append((ret, first))
queued = minus(waits, every)
class Enc(json.JSONEncoder):
    def default(self, o):
        return float(o) if isinstance(o, Decimal) else super().default(o)
print(json.dumps(cls=Enc, obj={
    "steps": steps,
    "launches": len(launches),
    "host": sum(c["dur"] for c in launches) if launches else 0,
    "kernels": len(graph),
    "kernel_time": sum(k["dur"] for k in graph) if graph else 0,
    "graph_union": union([(k["ts"], k["ts"] + k["dur"]) for k in graph]),
    "gpu_union": union([(g["ts"], g["ts"] + g["dur"]) for g in gpu]),
    "delay": sum(delays) if delays else 0, "delay_max": max(delays or [0]),
    "queued": queued,
    "wall": window[1] - window[0],
    "untraced": minus([window], every)}))
PY
}

# near A B: |A - B| within 1 ns (µs with three decimals on both sides).
near() {
	/usr/bin/python3 -c 'import sys; a, b = map(float, sys.argv[1:]);
sys.exit(abs(a - b) > 0.0015)' "$1" "$2" || fail "$1 is not $2"
}

@test "vLLM decode: one decode step of 32 requests, 10.74 ms on the GPU from the raw events, 2,979 tokens/s" {
	local f=$F/vllm_decode_full_graph_execution.json.gz want got
	want=$(raw "$f")
	run -0 bats_pipe tr-extract "$f" \| op-rank
	got=$(printf '%s\n' "$output" | jq -c 'select(.kind == "serve_step")')
	[ "$(printf '%s\n' "$got" | wc -l)" -eq 1 ]
	[ "$(jq -r '[.engine, .phase, .requests, .decode_requests, .tokens, .prefill_requests] | @tsv' <<<"$got")" = "$(printf 'vllm\tdecode\t32\t32\t32\t0')" ]
	[ "$(jq -r .kernels <<<"$got")" = "$(jq -r '.steps[0].kernels' <<<"$want")" ]
	[ "$(jq -r .kernels <<<"$got")" = 434 ]
	# One step: its GPU time runs from its first GPU work to its last.
	near "$(jq -r .dur <<<"$got")" "$(jq -r '.steps[0].last - .steps[0].first' <<<"$want")"
	near "$(jq -r '.gpu_end - .gpu_start' <<<"$got")" "$(jq -r .dur <<<"$got")"
	near "$(jq -r .host_dur <<<"$got")" "$(jq -r '.steps[0].host' <<<"$want")"
	[ "$(jq -r '.dur | . / 10 | round / 100' <<<"$got")" = 10.74 ]
	[ "$(jq -r '.label.g_sk' <<<"$got")" = 55086 ]
	got=$(printf '%s\n' "$output" | jq -c 'select(.kind == "serve_phase")')
	[ "$(jq -r '[.phase, .steps, .mean_batch] | @tsv' <<<"$got")" = "$(printf 'decode\t1\t32')" ]
	near "$(jq -r .tokens_per_s <<<"$got")" "$(jq -r '32 * 1e6 / (.steps[0].last - .steps[0].first) * 1000 | round / 1000' <<<"$want")"
	[ "$(jq -r '.tokens_per_s | round' <<<"$got")" = 2979 ]
	# The step's kernel time by class adds up to its GPU events' time.
	near "$(jq -r '[.kernel_time[]] | add' <<<"$got")" "$(/usr/bin/python3 -c '
import gzip, json, sys
ev = json.load(gzip.open(sys.argv[1]))["traceEvents"]
print(sum(e["dur"] for e in ev if e.get("cat") in ("kernel", "gpu_memcpy", "gpu_memset")))' "$f")"
	got=$(printf '%s\n' "$output" | jq -c 'select(.kind == "serve_summary")')
	[ "$(jq -r '[.steps, .capture_steps, .ttft_lower_bound] | @tsv' <<<"$got")" = "$(printf '1\t0\t')" ]
}

@test "vLLM decode: one hipGraphLaunch, its 421 kernels and their GPU time, queued time no longer untraced" {
	local f=$F/vllm_decode_full_graph_execution.json.gz want g l
	want=$(raw "$f")
	run -0 bats_pipe tr-extract "$f" \| op-rank
	g=$(printf '%s\n' "$output" | jq -c 'select(.kind == "graph_replay")')
	l=$(printf '%s\n' "$output" | jq -c 'select(.kind == "ledger_total")')
	[ "$(jq -r '[.call, .launches, .launches_with_kernels, .kernels, .kernels_per_launch] | @tsv' <<<"$g")" = "$(printf 'hipGraphLaunch\t1\t1\t421\t421')" ]
	[ "$(jq -r .kernels <<<"$want")" = 421 ]
	near "$(jq -r .kernel_time <<<"$g")" "$(jq -r .kernel_time <<<"$want")"
	near "$(jq -r .gpu_time <<<"$g")" "$(jq -r .graph_union <<<"$want")"
	near "$(jq -r .gpu_busy <<<"$g")" "$(jq -r .gpu_union <<<"$want")"
	[ "$(jq -r .coverage <<<"$g")" = "$(jq -r '.graph_union / .gpu_union * 1000 | round / 1000' <<<"$want")" ]
	near "$(jq -r .launch_delay.mean <<<"$g")" "$(jq -r .delay <<<"$want")"
	near "$(jq -r .host_per_launch.mean <<<"$g")" "$(jq -r .host <<<"$want")"
	[ "$(jq -r .frame <<<"$g")" = "vllm/compilation/cuda_graph.py(208): __call__" ]
	# The ledger: the replay's slice is its kernels' union; the queued
	# launch takes what no event covers from its return to its first
	# kernel, and the rest of the uncovered time is still untraced.
	near "$(jq -r '.slices[] | select(.slice == "gpu_graph") | .time' <<<"$l")" "$(jq -r .graph_union <<<"$want")"
	near "$(jq -r '.slices[] | select(.slice == "graph_queued") | .time' <<<"$l")" "$(jq -r .queued <<<"$want")"
	near "$(jq -r .queued <<<"$g")" "$(jq -r .queued <<<"$want")"
	near "$(jq -r .wall <<<"$l")" "$(jq -r .wall <<<"$want")"
	near "$(jq -r '[.slices[] | select(.slice == "graph_queued" or .slice == "untraced") | .time] | add' <<<"$l")" "$(jq -r .untraced <<<"$want")"
	[ "$(jq -r '.slices[] | select(.slice == "graph_queued") | .time | . * 10 | round / 10' <<<"$l")" = 5988.4 ]
}

@test "SGLang decode: a step labelled twice is one step, its graph replayed from SGLang's runner" {
	local f=$F/mi300_sglang_Qwen3-8B_decode.json.gz want
	want=$(raw "$f")
	run -0 bats_pipe tr-extract "$f" \| op-rank
	[ "$(printf '%s\n' "$output" | jq -c 'select(.kind == "serve_step")' | wc -l)" -eq 1 ]
	[ "$(jq '.steps | length' <<<"$want")" -eq 1 ]
	[ "$(printf '%s\n' "$output" | jq -r 'select(.kind == "serve_step") | [.phase, .requests, .kernels] | @tsv')" = "$(printf 'decode\t32\t%s' "$(jq -r '.steps[0].kernels' <<<"$want")")" ]
	near "$(printf '%s\n' "$output" | jq -r 'select(.kind == "serve_step") | .dur')" "$(jq -r '.steps[0].last - .steps[0].first' <<<"$want")"
	run -0 jq -r 'select(.kind == "graph_replay") | [.kernels, .frame] | @tsv' <<<"$output"
	assert_output "$(printf '544\t/sgl-workspace/sglang/python/sglang/srt/model_executor/cuda_graph_runner.py(1333): replay')"
}

@test "vLLM piecewise graphs: a mixed step of 9 prefill and 37 decode requests, 25 replays of 361 kernels" {
	need_shared traces/realworld/tl_vllm_piecewise_graph_execution.json.gz
	local f=$SHARED/traces/realworld/tl_vllm_piecewise_graph_execution.json.gz want g s
	want=$(raw "$f")
	run -0 bats_pipe tr-extract "$f" \| op-rank
	s=$(printf '%s\n' "$output" | jq -c 'select(.kind == "serve_step")')
	[ "$(jq -r '[.phase, .prefill_requests, .decode_requests, .tokens, .prefill_tokens, .decode_tokens] | @tsv' <<<"$s")" = "$(printf 'mixed\t9\t37\t8192\t8155\t37')" ]
	near "$(jq -r .dur <<<"$s")" "$(jq -r '.steps[0].last - .steps[0].first' <<<"$want")"
	g=$(printf '%s\n' "$output" | jq -c 'select(.kind == "graph_replay")')
	[ "$(jq -r '[.launches, .kernels] | @tsv' <<<"$g")" = "$(jq -r '[.launches, .kernels] | @tsv' <<<"$want")" ]
	[ "$(jq -r '[.launches, .kernels] | @tsv' <<<"$g")" = "$(printf '25\t361')" ]
	near "$(jq -r .kernel_time <<<"$g")" "$(jq -r .kernel_time <<<"$want")"
	near "$(jq -r .gpu_time <<<"$g")" "$(jq -r .graph_union <<<"$want")"
	near "$(jq -r .queued <<<"$g")" "$(jq -r .queued <<<"$want")"
	# No decode steps: no time per output token; a lower bound of the
	# time to first token, from the step's start to its last GPU work.
	run -0 jq -r 'select(.kind == "serve_summary") | [.tpot, .ttft_lower_bound] | @tsv' <<<"$output"
	near "$(cut -f2 <<<"$output")" "$(jq -r '.steps[0].last - .steps[0].ts' <<<"$want")"
}

@test "a capture step is a step of its own, in no statistics" {
	need_shared traces/realworld/tl_vllm_piecewise_graph_capture.pt.trace.json.gz
	run -0 bats_pipe tr-extract "$SHARED/traces/realworld/tl_vllm_piecewise_graph_capture.pt.trace.json.gz" \| op-rank
	run -0 jq -r 'select(.kind | startswith("serve_")) | [.kind, .phase, .mode, .batch, .steps, .capture_steps] | @tsv' <<<"$output"
	assert_output "$(printf 'serve_step\tcapture\tPIECEWISE\t8192\t\t\nserve_summary\t\t\t\t0\t1')"
}

# The hand-made run of the next tests: two decode steps, a mixed one, a
# prefill and a capture; three labels that start as steps' do and read as
# none, and one that is no step's.
hand_made() {
	local ts=0 corr=0
	lab() {
		printf '{"kind":"event","name":"%s","cat":"user_annotation","pid":1,"tid":1,"ts":%s,"dur":%s}\n' "$1" "$2" "$3"
	}
	launch() {
		printf '{"kind":"event","name":"cudaLaunchKernel","cat":"cuda_runtime","pid":1,"tid":1,"ts":%s,"dur":5,"correlation":%s}\n' "$1" "$2"
		printf '{"kind":"event","name":"ampere_sgemm_128x64_tn","cat":"kernel","pid":0,"tid":7,"device":0,"ts":%s,"dur":%s,"correlation":%s}\n' "$3" "$4" "$2"
	}
	lab 'execute_64_context_0(sq0sk0sqsq0sqsk0)_generation_64(sq64sk6400sqsq64sqsk6400)' 0 100
	launch 10 1 50 200
	lab 'execute_64_context_0(sq0sk0sqsq0sqsk0)_generation_64(sq64sk6400sqsq64sqsk6400)' 300 100
	launch 310 2 420 150
	lab 'execute_1064_context_1(sq1000sk1000sqsq1000000sqsk1000000)_generation_64(sq64sk6464sqsq64sqsk6464)' 600 100
	launch 610 3 720 500
	lab 'step[EXTEND bs=2 toks=300]' 1300 50
	launch 1310 4 1400 100
	lab 'capture_8_FULL' 2000 100
	launch 2010 5 2050 10
	lab 'execute_32_context_0(sq0sk0sqsq0sq' 2200 10
	lab 'step[DECODE bs=32 evil=1]' 2300 10
	lab 'execute_33_context_0(sq0sk0sqsq0sqsk0)_generation_32(sq32sk32sqsq32sqsk32)' 2400 10
	lab 'execute_model' 2500 10
	printf '{"kind":"trace","file":"serve.json","rank":0,"origin_ns":0,"start":0,"end":2510,"events":14}\n'
}

@test "steps worked by hand: each step's time from the previous step's last GPU work, stats by phase" {
	hand_made > "$T/in"
	run -0 op-rank "$T/in"
	# Decode: 250 - 50 (the first, from its own first kernel), then
	# 570 - 250; mixed 1220 - 570; prefill 1500 - 1220; the capture's
	# own 10, in no chain.
	run -0 jq -r 'select(.kind == "serve_step") | [.phase, .dur] | @tsv' <<<"$output"
	assert_output "$(printf 'decode\t200\ndecode\t320\nmixed\t650\nprefill\t280\ncapture\t10')"
	run -0 op-rank "$T/in"
	# p90 of 200 and 320: 200 + 0.9 * 120, as numpy.percentile() has it;
	# 128 tokens in 520 µs; the mixed step 390 µs past the decode steps
	# of its batch (64).
	run -0 jq -c 'select(.kind == "serve_phase" and .phase == "decode") | [.mean, .p50, .p90, .tokens, .tokens_per_s, .by_batch]' <<<"$output"
	assert_output '[260,260,308,128,246153.846,[{"batch":64,"steps":2,"mean":260}]]'
	run -0 bats_pipe op-rank "$T/in" \| jq -c 'select(.kind == "serve_phase" and .phase == "mixed") | [.interference, .requests, .tokens]'
	assert_output '[390,65,1064]'
	# The time to first token is at least the time from a step's start
	# to its last GPU work: 620 for the mixed step's one prefill request,
	# 200 for the prefill's two: half the requests took 200 or more.
	run -0 bats_pipe op-rank "$T/in" \| jq -c 'select(.kind == "serve_summary") | [.steps, .capture_steps, .tpot, .ttft_lower_bound, .tokens_per_s]'
	assert_output '[4,1,260,200,1028965.517]'
}

@test "labels that start as a step's and read as none: one warning naming the first, never a step" {
	hand_made > "$T/in"
	run -0 op-rank "$T/in"
	run -0 jq -r 'select(.kind == "warning") | .message' <<<"$output"
	assert_output "3 labels start as a serving engine's step label does but read as no step (rubric/serve-steps.tsv), and are not counted: \"execute_32_context_0(sq0sk0sqsq0sq\""
	run -0 bats_pipe op-rank "$T/in" \| jq -r 'select(.kind == "serve_step") | .label | tostring'
	refute_output --partial '"bs":32'
	refute_output --partial '"toks":33'
}

@test "partials carry the steps and the replays: a merge gives the same records" {
	local f
	hand_made > "$T/hand.ndjson"
	for f in "$F/vllm_decode_full_graph_execution.json.gz" \
	    "$F/mi300_sglang_Qwen3-8B_decode.json.gz"; do
		tr-extract "$f" > "$T/$(basename "$f" .json.gz).ndjson"
	done
	for f in "$T"/*.ndjson; do
		op-rank "$f" > "$T/one"
		op-rank --partial "$f" > "$T/part"
		grep -q '"op_partial_serve_step"' "$T/part"
		run -0 op-rank --merge "$T/part"
		assert_output - < "$T/one"
	done
	op-rank --partial "$T/hand.ndjson" | grep -q '"op_partial_serve",'
	op-rank --partial "$T/vllm_decode_full_graph_execution.ndjson" |
	    grep -q '"op_partial_graph"'
}

@test "a partial's serving step of no engine in the table, or that does not add up, is refused" {
	hand_made > "$T/in"
	op-rank --partial "$T/in" > "$T/part"
	sed 's/"engine":"sglang"/"engine":"other"/' "$T/part" > "$T/bad"
	run -1 op-rank --merge "$T/bad"
	assert_output --partial 'op_partial_serve_step" of an engine serve-steps.tsv has no row'
	sed 's/"dur":280000,"kernels":1/"dur":280000,"kernels":0/' "$T/part" > "$T/bad"
	run -1 op-rank --merge "$T/bad"
	assert_output --regexp ':[0-9]+:[0-9]+: "op_partial_serve_step" does not add up'
}

@test "a serving step table that could read a label two ways exits 2 with file:line" {
	mkdir "$T/rubric"
	cp "$TOP"/rubric/*.tsv "$T/rubric/"
	printf 'x\tdecode\tstep_{bs}{g}\tsource\n' >> "$T/rubric/serve-steps.tsv"
	n=$(wc -l < "$T/rubric/serve-steps.tsv")
	MRP_RUBRIC=$T/rubric run -2 op-rank /dev/null
	assert_output "op-rank: $T/rubric/serve-steps.tsv:$n: a field after a field"
	sed -i '$d' "$T/rubric/serve-steps.tsv"
	printf 'x\tsteady\tstep_{bs}\tsource\n' >> "$T/rubric/serve-steps.tsv"
	MRP_RUBRIC=$T/rubric run -2 op-rank /dev/null
	assert_output --partial "serve-steps.tsv:$n: no phase steady"
}

@test "every label of the fuzz corpus is a step only as its fields write it back" {
	run -0 "${BUILD:-$TOP}/testbin/serve-check" "$TOP/rubric/serve-steps.tsv" "$TOP"/tests/fuzz/corpus/serve/*
	printf '%s\n' 'step[DECODE bs=32 g_sq=31]' 'execute_2_context_1(sq1sk1sqsq1sqsk1)_generation_1(sq1sk1sqsq1sqsk1)' > "$T/labels"
	run -0 "${BUILD:-$TOP}/testbin/serve-check" "$TOP/rubric/serve-steps.tsv" "$T/labels"
}

@test "HTA's A100 training rank: 70 CUDA graph replays in five steps, their kernels and delays as the raw events give them" {
	need_shared traces/hta/a100_ws16_rank0.json.gz
	local f=$SHARED/traces/hta/a100_ws16_rank0.json.gz want g
	want=$(raw "$f")
	run -0 bats_pipe tr-extract "$f" \| op-rank
	g=$(printf '%s\n' "$output" | jq -c 'select(.kind == "graph_replay")')
	[ "$(jq -r '[.call, .launches, .launches_with_kernels, .kernels] | @tsv' <<<"$g")" = \
	    "$(jq -r '["cudaGraphLaunch", .launches, .launches, .kernels] | @tsv' <<<"$want")" ]
	[ "$(jq -r .launches <<<"$g")" = 70 ]
	near "$(jq -r .kernel_time <<<"$g")" "$(jq -r .kernel_time <<<"$want")"
	# Means in whole ns, as op-rank divides.
	near "$(jq -r .launch_delay.mean <<<"$g")" "$(jq -r '.delay / 70' <<<"$want")"
	near "$(jq -r .launch_delay.max <<<"$g")" "$(jq -r .delay_max <<<"$want")"
	near "$(jq -r .host_per_launch.mean <<<"$g")" "$(jq -r '.host / 70' <<<"$want")"
	# The steps' windows hold some of the trace: at most what all of it has.
	jq -e --argjson w "$want" '.gpu_time <= $w.graph_union + 0.001 and .queued <= $w.queued + 0.001 and .coverage < 0.5' <<<"$g"
	# Below half the GPU's time: the eager part is most of it, no finding.
	printf '%s\n' "$output" | rubric-apply | jq -e 'select(.kind == "finding") | .rule' > "$T/rules" || true
	run -1 grep -x '"graph-replay"' "$T/rules"
}
