#!/usr/bin/env bats
# replay-check: a replay of one operator beside the trace it came from,
# kernel by kernel, with a verdict.  fixtures/replay-check/SOURCES.tsv
# says what each file is: the real H100 trace, a real replay run here on
# the CPU, and a replay derived from the trace whose kernels took longer.

bats_require_minimum_version 1.5.0

setup() {
	load test_helper
	T=$BATS_TEST_TMPDIR
	FLOPS="$TOP/fixtures/op-rank-flops"
}

@test "usage errors exit 2" {
	run -2 --separate-stderr replay-check
	assert_stderr --partial 'usage: replay-check [-j] [-k nth] [-o operator] [-t pct] trace replay'
	run -2 --separate-stderr replay-check a b c
	assert_stderr --partial 'usage:'
	run -2 --separate-stderr replay-check -t much a b
	assert_stderr 'replay-check: -t: not a percentage from 0 to 1000: much'
	run -2 --separate-stderr replay-check -k 0 a b
	assert_stderr --partial '-k'
}

@test "empty input: two empty files give no output" {
	: >"$T/a"
	: >"$T/b"
	run -0 --separate-stderr replay-check "$T/a" "$T/b"
	assert_output ''
	assert_stderr ''
	# A trace with calls beside an empty replay names nothing to compare.
	run -1 --separate-stderr replay-check "$FIXTURES/trace.json.gz" "$T/b"
	assert_stderr "replay-check: $T/b: no range of snip-new's names the operator: give it with -o"
}

@test "a replay run on the CPU: its shape is the trace's, no kernels to compare" {
	cd "$FIXTURES"
	run -0 replay-check trace.json.gz replay-addmm-cpu.json.gz
	assert_line '# Replay check: `aten::addmm`'
	assert_line --partial '- replay: `replay-addmm-cpu.json.gz`, 30 calls of `aten::addmm 768 788x768 768x768 bf16`'
	assert_line '- compared with: the replay'"'"'s shape: the same dims, types, strides and scalar arguments'
	assert_line '**not compared: no GPU work in the replay (it ran on the CPU)**.'
	refute_output --partial 'What may explain it'
	run -0 bats_pipe replay-check -j trace.json.gz replay-addmm-cpu.json.gz \| \
	    jq -c '[.operator, .verdict, .same_shape, .trace.calls, .replay.calls,
	    .replay.types == .trace.types, .replay.concrete == .trace.concrete]'
	assert_output '["aten::addmm","no-gpu",true,48,30,true,true]'
}

@test "golden: a replay on the trace's GPU whose kernel took a quarter longer" {
	cd "$FIXTURES"
	run -0 replay-check trace.json.gz replay-addmm-slower.json.gz
	assert_output - <<-'EOF'
	# Replay check: `aten::addmm`

	- trace: `trace.json.gz` on NVIDIA H100 80GB HBM3, 48 calls of `aten::addmm 768 788x768 768x768 bf16`; GPU time of a call: median 8.256 µs
	- replay: `replay-addmm-slower.json.gz` on NVIDIA H100 80GB HBM3, 48 calls of `aten::addmm 768 788x768 768x768 bf16`; GPU time of a call: median 10.320 µs
	- compared with: the replay's shape: the same dims, types, strides and scalar arguments

	**same kernels, slower by 25.0 %**.

	| kernel | launches per call, trace | replay | median, trace | replay | ratio |
	| --- | ---: | ---: | ---: | ---: | ---: |
	| `void cutlass::Kernel2<cutlass_80_tensorop_bf16_s16816gemm_relu_bf16_128x64_64x6_tn_align8>(cutlass_80_tensorop_bf16_s16816gemm_relu_bf16_128x64_64x6_tn_align8::Params)` | 1 | 1 | 8.256 µs | 10.320 µs | 1.250 |

	What may explain it:

	- the same GPU, NVIDIA H100 80GB HBM3
	- another library version: cuBLAS, cuDNN, hipBLASLt and MIOpen choose kernels by version and by heuristics, and neither trace records theirs
	- the trace's calls ran among the model's other work (other streams, caches, clocks); the replay's run alone, one after another
	EOF
	run -0 bats_pipe replay-check -j trace.json.gz replay-addmm-slower.json.gz \| \
	    jq -c '[.verdict, .change, .kernels[0].trace.median_us, .kernels[0].replay.median_us, .kernels[0].ratio]'
	assert_output '["slower",0.25,8.256,10.32,1.25]'
	# The same trace against itself: the same kernels, no change.
	run -0 bats_pipe replay-check -j -o aten::addmm trace.json.gz trace.json.gz \| jq -r .summary
	assert_output 'same kernels, within 0.0 %'
}

@test "golden: the same ViT on an MI300X chose other kernels, and the GPU is named" {
	run -0 bats_pipe replay-check -j -o aten::addmm "$FLOPS/h100.json.gz" "$FLOPS/mi300.json.gz" \| \
	    jq -c '[.verdict, .same_shape, .trace.gpu, .replay.gpu, .reasons[0]]'
	assert_output '["different",true,"NVIDIA H100 80GB HBM3","AMD Instinct MI300X VF","another GPU: NVIDIA H100 80GB HBM3 in the trace, AMD Instinct MI300X VF in the replay"]'
	run -0 bats_pipe replay-check -j -o aten::addmm "$FLOPS/h100.json.gz" "$FLOPS/mi300.json.gz" \| jq -r .summary
	assert_output 'different kernel chosen: void cutlass::Kernel2<cutlass_80_tensorop_bf16_s16816gemm_relu_bf16_128x64_64x6_tn_align8>(cutlass_80_tensorop_bf16_s16816gemm_relu_bf16_128x64_64x6_tn_align8::Params) in the trace, Cijk_Alik_Bljk_B_BS_BH_Bias_HA_S_SAV_UserArgs_MT64x32x128_MI16x16x1_SN_LDSB1_AFC1_AFEM1_AFEM1_ASEM1_CLR1_CADS0_DTVA0_DTVB0_EPS0_FDSI0_GRPM1_GRVWA8_GRVWB8_GSUAMB_GLS0_ISA942_IU1_K1_LBSPPA512_LBSPPB256_LBSPPM0_LPA16_LPB16_LPM0_LRVW8_LWPMn1_MIAV0_MIWT2_1_MO40_NTn1_NTA0_NTB0_NTC0_NTD0_NTM0_NEPBS16_NLCA1_NLCB1_ONLL1_PGR2_PLR1_PKA1_SIA3_SS1_SPO0_SRVW0_SSO0_SVW2_SK0_SKXCCM0_TLDS1_ULSGRO0_USL1_UIOFGRO0_USFGROn1_VSn1_VWA2_VWB1_WSGRA0_WSGRB0_WS64_WG32_8_1 in the replay'
	# The patch embedding: cuDNN's five kernels against MIOpen's six.
	run -0 bats_pipe replay-check -j -o aten::convolution "$FLOPS/h100.json.gz" "$FLOPS/mi300.json.gz" \| \
	    jq -c '[.verdict, ([.kernels[] | select(.trace != null)] | length),
	    ([.kernels[] | select(.replay != null)] | length), .trace.gpu_median_us, .replay.gpu_median_us]'
	assert_output '["different",5,6,129.6,53.117]'
}

@test "-k compares with another shape of the trace, and says the shape differs" {
	cd "$FIXTURES"
	run -0 bats_pipe replay-check -j -k 2 trace.json.gz replay-addmm-slower.json.gz \| \
	    jq -c '[.matched, .same_shape, .trace.dims[2], .replay.dims[2], .reasons[2]]'
	assert_output '["the shape -k names",false,[768,3072],[768,768],"the shape differs (dims, types, strides or scalar arguments: padded, transposed or cast otherwise), so another kernel may fit it"]'
	run -1 --separate-stderr replay-check -k 9 trace.json.gz replay-addmm-slower.json.gz
	assert_stderr 'replay-check: trace.json.gz: aten::addmm has 4 shapes; -k 9 is past them'
}

@test "Nsight Systems exports: emit_nvtx ranges are the calls, joined to their kernels" {
	local n="$TOP/fixtures/nsys-extract"
	run -0 bats_pipe replay-check -j -o aten::sum "$n/snippet-run.sqlite" "$n/snippet-after.sqlite" \| \
	    jq -c '[.verdict, .same_shape, .matched, .trace.gpu, .kernels[0].trace.launches, .kernels[0].replay.median_us]'
	assert_output '["same",null,"the trace'"'"'s costliest shape: the replay recorded none","NVIDIA GeForce RTX 3080",1,2.689]'
	run -1 --separate-stderr replay-check -o aten::mm "$n/snippet-run.sqlite" "$n/snippet-after.sqlite"
	assert_stderr "replay-check: $n/snippet-after.sqlite: no call of aten::mm"
}

@test "names from a trace are text: a kernel named with | and a backtick stays in its cell" {
	local ev='{"ph":"X","pid":1,"tid":1'
	cat >"$T/t.json" <<-EOF
	{"traceEvents":[
	$ev,"cat":"user_annotation","name":"aten::mm 2x3 3x4 fp32","ts":0,"dur":100},
	$ev,"cat":"cpu_op","name":"aten::mm","ts":1,"dur":10,"args":{"Input Dims":[[2,3],[3,4]],"Input type":["float","float"]}},
	$ev,"cat":"cuda_runtime","name":"cudaLaunchKernel","ts":2,"dur":1,"args":{"correlation":7}},
	{"ph":"X","pid":0,"tid":7,"cat":"kernel","name":"gemm|\`x\` 0x7f00ab","ts":5,"dur":4,"args":{"correlation":7}}]}
	EOF
	sed 's/0x7f00ab/0x1234/' "$T/t.json" >"$T/r.json"
	run -0 replay-check "$T/t.json" "$T/r.json"
	assert_line '**same kernels, within 0.0 %**.'
	assert_line '| `` gemm\|`x` 0x7f00ab `` | 1 | 1 | 4.000 µs | 4.000 µs | 1.000 |'
}

@test "bad input: not a trace, truncated gzip, a missing file" {
	cd "$FIXTURES"
	printf '{"traceEvents": [1' >"$T/cut.json"
	run -1 --separate-stderr replay-check trace.json.gz "$T/cut.json"
	assert_stderr --regexp "^replay-check: $T/cut.json:1:[0-9]+: "
	head -c 2000 trace.json.gz >"$T/t.gz"
	run -1 --separate-stderr replay-check "$T/t.gz" replay-addmm-slower.json.gz
	assert_stderr "replay-check: $T/t.gz: truncated gzip data"
	run -1 --separate-stderr replay-check trace.json.gz "$T/nonexistent"
	assert_stderr --partial "$T/nonexistent"
	run -1 --separate-stderr replay-check -o aten::nothing trace.json.gz replay-addmm-slower.json.gz
	assert_stderr 'replay-check: replay-addmm-slower.json.gz: no call of aten::nothing'
}

@test ".gz input gives the same output as plain input" {
	cd "$FIXTURES"
	gzip -dc replay-addmm-cpu.json.gz >"$T/replay.json"
	gzip -dc trace.json.gz >"$T/trace.json"
	replay-check -j trace.json.gz replay-addmm-cpu.json.gz >"$T/gz"
	run -0 bats_pipe replay-check -j "$T/trace.json" "$T/replay.json" \| \
	    jq -c '.trace.file = "trace.json.gz" | .replay.file = "replay-addmm-cpu.json.gz"'
	assert_output - <"$T/gz"
}

@test "a failed write exits 1" {
	cd "$FIXTURES"
	run -1 --separate-stderr bash -c 'replay-check trace.json.gz replay-addmm-slower.json.gz >/dev/full'
	assert_stderr --partial 'replay-check: <stdout>: write failed'
	run -1 --separate-stderr bash -c 'replay-check -j trace.json.gz replay-addmm-slower.json.gz >/dev/full'
	assert_stderr --partial 'replay-check: <stdout>: write failed'
}

@test "man page EXAMPLES run" {
	local i
	for i in 1 2 3; do
		check_example replay-check.1 "$i"
	done
}
