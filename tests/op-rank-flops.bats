#!/usr/bin/env bats
# op-rank's op_shape and compute_summary: FLOPs and bytes from the trace's
# input shapes, held to TraceLens's own answers for the same traces.

bats_require_minimum_version 1.5.0

setup() {
	load test_helper
	export MRP_RUBRIC="$TOP/rubric"
	F="$FIXTURES"
}

@test "every GEMM, convolution and attention row agrees with TraceLens, on H100 and MI300X" {
	local g
	for g in h100 mi300; do
		tr-extract "$F/$g.json.gz" | op-rank > "$BATS_TEST_TMPDIR/$g"
		run -0 "$TOP/tests/tracelens-compare" "$BATS_TEST_TMPDIR/$g" \
		    "$F/$g-GEMM.csv" "$F/$g-CONV_fwd.csv" "$F/$g-SDPA_fwd.csv"
		assert_output '6 rows, 0 differences'
	done
}

@test "golden op_shape and compute_summary on the H100 trace" {
	run -0 bats_pipe tr-extract "$F/h100.json.gz" \| op-rank \| \
	    jq -c 'select(.kind == "op_shape" or .kind == "compute_summary")
	    | del(.types, .strides, .concrete)'
	assert_output - <<-'EOF'
	{"kind":"op_shape","name":"aten::addmm","model":"gemm","dims":[[768],[788,768],[768,768],[],[]],"precision":"bf16","flops":930167808,"bytes":3601920,"count":48,"gpu_us":399.136,"self_us":844,"tflops":111.862,"tbps":0.433,"intensity":258.242,"bound":"compute","peak_tflops":989.4,"peak_tbps":3.35,"of_peak":0.113}
	{"kind":"op_shape","name":"aten::addmm","model":"gemm","dims":[[3072],[788,768],[768,3072],[],[]],"precision":"bf16","flops":3720671232,"bytes":10776576,"count":12,"gpu_us":166.59,"self_us":343,"tflops":268.012,"tbps":0.776,"intensity":345.255,"bound":"compute","peak_tflops":989.4,"peak_tbps":3.35,"of_peak":0.271}
	{"kind":"op_shape","name":"aten::addmm","model":"gemm","dims":[[768],[788,3072],[3072,768],[],[]],"precision":"bf16","flops":3718855680,"bytes":10771968,"count":12,"gpu_us":162.432,"self_us":309,"tflops":274.738,"tbps":0.796,"intensity":345.235,"bound":"compute","peak_tflops":989.4,"peak_tbps":3.35,"of_peak":0.278}
	{"kind":"op_shape","name":"aten::convolution","model":"conv","dims":[[4,3,224,224],[768,3,16,16],[768],[],[],[],[],[],[]],"precision":"bf16","flops":925446144,"bytes":3589632,"count":1,"gpu_us":129.6,"self_us":4,"tflops":7.141,"tbps":0.028,"intensity":257.811,"bound":"compute","peak_tflops":989.4,"peak_tbps":3.35,"of_peak":0.007}
	{"kind":"op_shape","name":"aten::_scaled_dot_product_flash_attention","model":"attention","dims":[[4,12,197,64],[4,12,197,64],[4,12,197,64],[],[],[],[]],"precision":"bf16","causal":false,"flops":476884992,"bytes":4841472,"count":12,"gpu_us":122.848,"self_us":83,"tflops":46.583,"tbps":0.473,"intensity":98.5,"bound":"compute","peak_tflops":989.4,"peak_tbps":3.35,"of_peak":0.047}
	{"kind":"op_shape","name":"aten::layer_norm","model":"norm","dims":[[4,197,768],[],[768],[768],[],[]],"precision":"bf16","flops":3030528,"bytes":2423808,"count":25,"gpu_us":111.201,"self_us":59,"tflops":0.681,"tbps":0.545,"intensity":1.25,"bound":"memory","peak_tflops":989.4,"peak_tbps":3.35,"of_peak":0.163}
	{"kind":"op_shape","name":"aten::gelu","model":"elementwise","dims":[[4,197,3072],[]],"precision":"bf16","flops":2420736,"bytes":9682944,"count":12,"gpu_us":60.542,"self_us":90,"tflops":0.48,"tbps":1.919,"intensity":0.25,"bound":"memory","peak_tflops":989.4,"peak_tbps":3.35,"of_peak":0.573}
	{"kind":"op_shape","name":"aten::add","model":"elementwise","dims":[[4,197,768],[4,197,768],[]],"precision":"bf16","flops":605184,"bytes":3631104,"count":24,"gpu_us":53.536,"self_us":188,"tflops":0.271,"tbps":1.628,"intensity":0.167,"bound":"memory","peak_tflops":989.4,"peak_tbps":3.35,"of_peak":0.486}
	{"kind":"op_shape","name":"aten::addmm","model":"gemm","dims":[[768],[4,768],[768,768],[],[]],"precision":"bf16","flops":4721664,"bytes":1193472,"count":1,"gpu_us":6.879,"self_us":23,"tflops":0.686,"tbps":0.173,"intensity":3.956,"bound":"compute","peak_tflops":989.4,"peak_tbps":3.35,"of_peak":0.001}
	{"kind":"op_shape","name":"aten::add","model":"elementwise","dims":[[4,197,768],[1,197,768],[]],"precision":"bf16","flops":605184,"bytes":2723328,"count":1,"gpu_us":3.777,"self_us":7,"tflops":0.16,"tbps":0.721,"intensity":0.222,"bound":"memory","peak_tflops":989.4,"peak_tbps":3.35,"of_peak":0.215}
	{"kind":"op_shape","name":"aten::tanh","model":"elementwise","dims":[[4,768]],"precision":"bf16","flops":3072,"bytes":12288,"count":1,"gpu_us":1.505,"self_us":8,"tflops":0.002,"tbps":0.008,"intensity":0.25,"bound":"memory","peak_tflops":989.4,"peak_tbps":3.35,"of_peak":0.002}
	{"kind":"compute_summary","gpu":"H100-SXM","device_name":"NVIDIA H100 80GB HBM3","precision":"bf16","peak_tflops":989.4,"flops":140695110144,"gpu_us":1218.046,"tflops":115.509,"peaks":{"fp64":67,"fp32":67,"tf32":494.7,"fp16":989.4,"bf16":989.4,"fp8":1978.9,"fp4":null,"int8":1978.9},"steps":1,"mfu":0.018,"uncosted":0}
	EOF
}

@test "shapes are grouped by strides and scalar arguments too, as TraceLens groups them" {
	# The pooler's input is the CLS token, a strided slice of the last
	# hidden state: its own shape.
	run -0 bats_pipe tr-extract "$F/h100.json.gz" \| op-rank \| \
	    jq -c 'select(.kind == "op_shape" and .name == "aten::addmm")
	    | [.dims[1:3], .strides[1:3], .concrete[3:], .count]'
	assert_output - <<-'EOF'
	[[[788,768],[768,768]],[[768,1],[1,768]],["1","1"],48]
	[[[788,768],[768,3072]],[[768,1],[1,768]],["1","1"],12]
	[[[788,3072],[3072,768]],[[3072,1],[1,3072]],["1","1"],12]
	[[[4,768],[768,768]],[[151296,1],[1,768]],["1","1"],1]
	EOF
	# Two calls of one shape apart by their strides are two shapes; a
	# trace without strides or scalars keeps its shapes whole.
	run -0 bats_pipe printf '%s\n' \
	    '{"kind":"event","name":"aten::mm","cat":"cpu_op","pid":1,"tid":1,"ts":0,"dur":5,"input_dims":[[2,3],[3,4]],"input_types":["float","float"],"input_strides":[[3,1],[4,1]]}' \
	    '{"kind":"event","name":"aten::mm","cat":"cpu_op","pid":1,"tid":1,"ts":10,"dur":7,"input_dims":[[2,3],[3,4]],"input_types":["float","float"],"input_strides":[[3,1],[1,3]]}' \
	    '{"kind":"event","name":"aten::mm","cat":"cpu_op","pid":1,"tid":1,"ts":20,"dur":3,"input_dims":[[2,3],[3,4]],"input_types":["float","float"]}' \
	    '{"kind":"event","name":"aten::mm","cat":"cpu_op","pid":1,"tid":1,"ts":30,"dur":2,"input_dims":[[2,3],[3,4]],"input_types":["float","float"],"input_strides":"bad"}' \
	    '{"kind":"trace","file":"strides","origin_ns":0,"start":0,"end":35,"events":4}' \
	    \| op-rank \| jq -c 'select(.kind == "op_shape") | [.strides, .count, .self_us]'
	assert_output - <<-'EOF'
	[[[3,1],[1,3]],1,7]
	[null,2,5]
	[[[3,1],[4,1]],1,5]
	EOF
}

@test "on a trace without GPU work the shapes are ranked by their self CPU time" {
	run -0 bats_pipe printf '%s\n' \
	    '{"kind":"event","name":"aten::mm","cat":"cpu_op","pid":1,"tid":1,"ts":0,"dur":5,"input_dims":[[64,64],[64,64]],"input_types":["float","float"]}' \
	    '{"kind":"event","name":"aten::mm","cat":"cpu_op","pid":1,"tid":1,"ts":10,"dur":50,"input_dims":[[2,3],[3,4]],"input_types":["float","float"]}' \
	    '{"kind":"trace","file":"cpu","origin_ns":0,"start":0,"end":60,"events":2}' \
	    \| op-rank \| jq -c 'select(.kind == "op_shape") | [.dims[0], .gpu_us, .self_us]'
	assert_output - <<-'EOF'
	[[2,3],0,50]
	[[64,64],0,5]
	EOF
}

@test "a call inside a costed one is not costed again: layer_norm holds native_layer_norm" {
	run -0 bats_pipe tr-extract "$F/h100.json.gz" \| op-rank \| \
	    jq -r 'select(.kind == "op_shape") | .name' \| sort -u
	refute_line 'aten::native_layer_norm'
	assert_line 'aten::layer_norm'
}

@test "MFU per step: the step's modelled FLOPs over its length and the peak" {
	tr-extract "$F/h100.json.gz" | op-rank > "$BATS_TEST_TMPDIR/out"
	# One step, ProfilerStep#6: every modelled call ran in it.
	run -0 jq -r 'select(.kind == "step") | .flops' "$BATS_TEST_TMPDIR/out"
	assert_output '140695110144'
	run -0 jq -rs '(map(select(.kind == "step"))[0] | .flops / .dur / 1e6)
	    / (map(select(.kind == "compute_summary"))[0].peak_tflops)
	    | . * 1000 | round / 1000' "$BATS_TEST_TMPDIR/out"
	assert_output '0.018'
}

@test "-g names the GPU; an unknown one gets FLOPs and TFLOPS without a peak" {
	tr-extract "$F/h100.json.gz" > "$BATS_TEST_TMPDIR/in"
	run -0 bats_pipe op-rank -g MI300X "$BATS_TEST_TMPDIR/in" \| \
	    jq -c 'select(.kind == "compute_summary") | [.gpu, .peak_tflops]'
	assert_output '["MI300X",1307.4]'
	run -0 bats_pipe op-rank -g 'NVIDIA A100-SXM4-80GB' \
	    "$BATS_TEST_TMPDIR/in" \| \
	    jq -c 'select(.kind == "compute_summary") | [.gpu, .peak_tflops]'
	assert_output '["A100-SXM4-80GB",312]'
	run -0 bats_pipe op-rank -g 'Imaginary GPU 9000' "$BATS_TEST_TMPDIR/in" \
	    \| jq -sc 'map(select(.kind == "op_shape"))[0]
	    | [.tflops, .peak_tflops, .of_peak]'
	assert_output '[111.862,null,null]'
}

@test "the MI300X trace is judged against MI300X's peaks, read from deviceProperties" {
	run -0 bats_pipe tr-extract "$F/mi300.json.gz" \| op-rank \| \
	    jq -c 'select(.kind == "compute_summary") | [.gpu, .device_name,
	    .precision, .peak_tflops]'
	assert_output '["MI300X","AMD Instinct MI300X VF","bf16",1307.4]'
}

@test "--partial and --merge give the same op_shape and compute_summary records" {
	tr-extract "$F/h100.json.gz" "$F/mi300.json.gz" > "$BATS_TEST_TMPDIR/in"
	op-rank -a "$BATS_TEST_TMPDIR/in" > "$BATS_TEST_TMPDIR/one"
	grep -q '"kind":"op_shape"' "$BATS_TEST_TMPDIR/one"
	op-rank --partial "$BATS_TEST_TMPDIR/in" > "$BATS_TEST_TMPDIR/p"
	op-rank -a --merge "$BATS_TEST_TMPDIR/p" | cmp - "$BATS_TEST_TMPDIR/one"
}

@test "tr-extract keeps input shapes only for the operators op-rank costs" {
	run -0 bats_pipe tr-extract "$F/h100.json.gz" \| \
	    jq -r 'select(.input_dims) | .name' \| sort -u
	assert_output - <<-'EOF'
	aten::_scaled_dot_product_flash_attention
	aten::add
	aten::add_
	aten::addmm
	aten::convolution
	aten::gelu
	aten::layer_norm
	aten::native_layer_norm
	aten::tanh
	EOF
	run -0 bats_pipe tr-extract "$F/h100.json.gz" \| \
	    jq -c 'select(.name == "aten::convolution") | .concrete_inputs'
	assert_output '["","","","[16, 16]","[0, 0]","[1, 1]","False","[0, 0]","1"]'
}

@test "shapes the model cannot read are counted as uncosted, never guessed" {
	# A 3-D mm, a conv with a stride of 0, and dims that are not numbers.
	run -0 bats_pipe printf '%s\n' \
	    '{"kind":"event","name":"aten::mm","cat":"cpu_op","pid":1,"tid":1,"ts":0,"dur":5,"input_dims":[[2,3,4],[4,5]],"input_types":["float","float"]}' \
	    '{"kind":"event","name":"aten::convolution","cat":"cpu_op","pid":1,"tid":1,"ts":10,"dur":5,"input_dims":[[1,3,8,8],[4,3,3,3],[]],"input_types":["float","float",""],"concrete_inputs":["","","","[0, 0]","[0, 0]","[1, 1]","False","[0, 0]","1"]}' \
	    '{"kind":"event","name":"aten::mm","cat":"cpu_op","pid":1,"tid":1,"ts":20,"dur":5,"input_dims":[["a"],[1e400]],"input_types":["float","float"]}' \
	    '{"kind":"event","name":"aten::mm","cat":"cpu_op","pid":1,"tid":1,"ts":30,"dur":5,"input_dims":[[2,3],[3,4]],"input_types":["float","float"]}' \
	    '{"kind":"trace","file":"hostile","origin_ns":0,"start":0,"end":35,"events":4}' \
	    \| op-rank \| jq -c 'select(.kind == "op_shape" or
	    .kind == "compute_summary") | [.kind, .flops, .uncosted]'
	assert_output - <<-'EOF'
	["op_shape",48,null]
	["compute_summary",48,3]
	EOF
}

@test "a shape whose sizes are past 64 bits is left uncosted, with a warning" {
	# A transposed convolution over 2^62+1 by a stride of 4: its output
	# size wrapped to 1, and gave 9.2e18 FLOPs.
	run -0 bats_pipe printf '%s\n' \
	    '{"kind":"event","name":"aten::convolution","cat":"cpu_op","pid":1,"tid":1,"ts":10,"dur":5,"input_dims":[[1,1,4611686018427387905],[1,1,1],[]],"input_types":["float","float",""],"concrete_inputs":["","","","[4]","[0]","[1]","True","[0]","1"]}' \
	    '{"kind":"event","name":"aten::convolution","cat":"cpu_op","pid":1,"tid":1,"ts":20,"dur":5,"input_dims":[[1,1,9223372036854775807],[1,1,1],[]],"input_types":["float","float",""],"concrete_inputs":["","","","[9223372036854775807]","[0]","[1]","True","[0]","1"]}' \
	    '{"kind":"event","name":"aten::convolution","cat":"cpu_op","pid":1,"tid":1,"ts":30,"dur":5,"input_dims":[[1,1,8],[1,1,1],[]],"input_types":["float","float",""],"concrete_inputs":["","","","[99999999999999999999]","[0]","[1]","False","[0]","1"]}' \
	    '{"kind":"event","name":"aten::mm","cat":"cpu_op","pid":1,"tid":1,"ts":40,"dur":5,"input_dims":[[2,3],[3,4]],"input_types":["float","float"]}' \
	    '{"kind":"trace","file":"hostile","origin_ns":0,"start":0,"end":45,"events":4}' \
	    \| op-rank \| jq -c 'select(.kind == "op_shape" or .kind == "warning"
	    or .kind == "compute_summary") | [.kind, .name // .message, .flops, .uncosted]'
	assert_output - <<-'EOF'
	["warning","3 calls of costed operators have input shapes whose sizes, FLOPs or bytes are past 64 bits: left uncosted",null,null]
	["op_shape","aten::mm",48,null]
	["compute_summary",null,48,3]
	EOF
}

@test "gpu-peaks.tsv: every row has its fields, dense figures and a source" {
	run -0 awk -F '\t' '!/^#/ && NF != 12 { print NR ": " NF " fields" }
	    !/^#/ && $12 == "" { print NR ": no source" }' \
	    "$TOP/rubric/gpu-peaks.tsv"
	assert_output ''
	# The issue's own figure: H100 SXM bf16, dense.
	run -0 awk -F '\t' '$2 == "H100-SXM" { print $7 }' \
	    "$TOP/rubric/gpu-peaks.tsv"
	assert_output '989.4'
}

@test "gpu-peaks.tsv takes finite positive decimals only: another figure exits 2, and analyze-profile leaks nothing" {
	local r=$BATS_TEST_TMPDIR/r v n
	mkdir "$r"
	cp -r "$TOP"/rubric/* "$r/"
	n=$(grep -n 'H100-SXM' "$TOP/rubric/gpu-peaks.tsv" | cut -d: -f1)
	# strtod() took inf, 1e400 and 0x10 as peaks.
	for v in inf 1e400 0x10 nan -1 0 0.0 1e3 ' 5' 5. .5 1,5 +5; do
		awk -F '\t' -v OFS='\t' -v v="$v" '$2 == "H100-SXM" { $3 = v } { print }' \
		    "$TOP/rubric/gpu-peaks.tsv" >"$r/gpu-peaks.tsv"
		MRP_RUBRIC=$r run -2 --separate-stderr op-rank </dev/null
		assert_stderr "op-rank: $r/gpu-peaks.tsv:$n: not a peak (a finite positive decimal, or -): $v"
	done
	for v in 67 0.5 67.25; do
		awk -F '\t' -v OFS='\t' -v v="$v" '$2 == "H100-SXM" { $3 = v } { print }' \
		    "$TOP/rubric/gpu-peaks.tsv" >"$r/gpu-peaks.tsv"
		MRP_RUBRIC=$r run -0 op-rank </dev/null
	done
	# The trace stage that stops on it frees what it was given.
	awk -F '\t' -v OFS='\t' '$2 == "H100-SXM" { $3 = "inf" } { print }' \
	    "$TOP/rubric/gpu-peaks.tsv" >"$r/gpu-peaks.tsv"
	MRP_RUBRIC=$r run --separate-stderr analyze-profile \
	    --cpu-trace "$TOP/fixtures/example/trace.json.gz" --md-out /dev/null
	[ "$status" -ne 0 ]
	assert_stderr --partial "gpu-peaks.tsv:$n: not a peak (a finite positive decimal, or -): inf"
	[[ $stderr != *Sanitizer* ]]
}

@test "analyze-profile: --set gpu= names the GPU, the report has a Compute efficiency section and a roofline" {
	cd "$BATS_TEST_TMPDIR"
	run -0 analyze-profile --cpu-trace "$F/h100.json.gz" --set gpu=MI300X \
	    --json-out r.json --html-out r.html
	assert_line '## Compute efficiency'
	assert_line --partial 'against the dense bf16 peak of MI300X, 1307.4 TFLOPS'
	run -0 jq -c '[.compute.summary.gpu, .compute.summary.peak_tflops,
	    (.compute.top_shapes | length), any(.actions[]; .rule == "gemm-below-peak")]' r.json
	assert_output '["MI300X",1307.4,10,true]'
	grep -q 'Roofline: costed operators' r.html
}

@test "the formulas by hand: mm, bmm, baddbmm, causal flash attention, convolution backward, a broadcast add" {
	# mm 64x128 by 128x256, float: 2MNK; (MK + KN + MN) x 4 bytes.
	# bmm 8 x (64x32 by 32x16), half: 8 x 2MNK; baddbmm adds 8 x MN and
	# the 1xN bias.  Flash attention B2 H4 N128 d64, causal: half of
	# 2 x BH x 2 N^2 d.  Convolution backward of 3->8 channels, 3x3, on
	# 8x8: the input's gradient (288 outputs x 2 x 27) and the weight's
	# (2 x 216 x 36).  add of 4x1x8 and 3x1: 4x3x8 out.
	run -0 bats_pipe op-rank "$F/forms.ndjson" \| jq -c 'select(.kind ==
	    "op_shape") | [.name, .flops, .bytes, .precision]' \| sort
	assert_output - <<-'EOF'
	["aten::_scaled_dot_product_flash_attention",16777216,524288,"bf16"]
	["aten::add",96,524,"fp32"]
	["aten::baddbmm",532480,57600,"fp16"]
	["aten::bmm",524288,57344,"fp16"]
	["aten::convolution_backward",31104,5568,"fp32"]
	["aten::mm",4194304,229376,"fp32"]
	EOF
}

@test "Inductor's fused Triton kernels: bytes from their input shapes, as TraceLens moves them, in the roofline" {
	tr-extract "$TOP/fixtures/tr-extract/tracelens_torch_compile_triton.json.gz" |
	    op-rank > "$BATS_TEST_TMPDIR/out"
	jq -c 'select(.kind == "op_shape" and .model == "fused") | [.name, .bytes, .tbps, .bound]' \
	    "$BATS_TEST_TMPDIR/out" > "$BATS_TEST_TMPDIR/ours"
	[ "$(wc -l < "$BATS_TEST_TMPDIR/ours")" -eq 4 ]
	# Every Triton row of TraceLens's summary: Data Moved (MB) is 2^20
	# bytes, TB/s the bytes over the kernels' time.
	run -0 /usr/bin/python3 - "$F/torch_compile_triton-unified_perf_summary.csv" "$BATS_TEST_TMPDIR/ours" <<'PY'
import csv, json, sys
want = {r["name"]: r for r in csv.DictReader(open(sys.argv[1]))
        if r["name"].startswith("triton_")}
ours = {r[0]: r for r in map(json.loads, open(sys.argv[2]))}
bad = 0
for name, r in sorted(want.items()):
    b = float(r["Data Moved (MB)"]) * 2**20
    o = ours.get(name)
    if o is None or abs(o[1] - b) > 1e-6 * b or \
            abs(o[2] - float(r["TB/s_mean"])) > 0.0005 or o[3] != "memory":
        print("differs:", name, o, b, r["TB/s_mean"]); bad += 1
print(len(want), "rows,", bad, "differences")
PY
	assert_output '4 rows, 0 differences'
}
