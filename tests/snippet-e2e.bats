bats_require_minimum_version 1.5.0
setup() { load test_helper; }

# End to end: scaffold a snippet from a production-like source file with
# snip-new, lint its config, run it through a stand-in runner with snip-run
# and check the manifest it wrote.  The stand-in is fixtures/snip-run/
# runner.py: it reads the config as the contract says the runner does,
# compiles (never runs) target.py and writes manifest.yaml.

setup_file() {
	PY=$(python3 -c 'import yaml, sys; print(sys.executable)' 2>/dev/null) || PY=
	export PY
}

@test "snip-new, snip-lint, snip-run: a scaffolded snippet runs and its manifest matches" {
	[ -x "${BUILD:-$TOP}/bin/snip-new" ] || skip "bin/snip-new is not built yet"
	[ -n "$PY" ] || skip "python3 with PyYAML is needed for the stand-in runner"
	cd "$BATS_TEST_TMPDIR"
	mkdir -p inference/core/utils
	cat > inference/core/utils/postprocess.py <<-'PYEOF'
	from typing import List

	import numpy as np


	def iou(box: np.ndarray, boxes: np.ndarray) -> np.ndarray:
	    x1 = np.maximum(box[0], boxes[:, 0])
	    y1 = np.maximum(box[1], boxes[:, 1])
	    x2 = np.minimum(box[2], boxes[:, 2])
	    y2 = np.minimum(box[3], boxes[:, 3])
	    inter = np.clip(x2 - x1, 0, None) * np.clip(y2 - y1, 0, None)
	    area = (box[2] - box[0]) * (box[3] - box[1])
	    areas = (boxes[:, 2] - boxes[:, 0]) * (boxes[:, 3] - boxes[:, 1])
	    return inter / (area + areas - inter)


	def nms(boxes: np.ndarray, scores: np.ndarray, iou_threshold: float = 0.45) -> List[int]:
	    """Greedy non-maximum suppression."""
	    order = scores.argsort()[::-1]
	    keep = []
	    while order.size > 0:
	        i = order[0]
	        keep.append(int(i))
	        rest = order[1:]
	        order = rest[iou(boxes[i], boxes[rest]) <= iou_threshold]
	    return keep
	PYEOF

	# Scaffold: one "snippet" record naming the config it wrote.
	run -0 snip-new -n nms -p nms-fast -D cpu inference/core/utils/postprocess.py
	config=$(jq -r 'select(.kind == "snippet") | .config' <<< "$output")
	assert_equal "$config" inference_profiling/snippets/nms-fast/config.yaml
	[ -f inference_profiling/snippets/nms-fast/target.py ]
	[ -f inference_profiling/snippets/nms-fast/README.md ]
	"$PY" -m py_compile inference_profiling/snippets/nms-fast/target.py

	# Lint: no errors (the folder matches profile_name, target.py exists).
	run -0 snip-lint -j "$config"
	refute_output --partial '"severity":"error"'
	refute_output --partial '"code":"folder"'
	refute_output --partial '"code":"import-missing"'

	# Run through the stand-in; snip-run checks the manifest against its plan.
	run -0 snip-run -i e2e -r "$PY $TOP/fixtures/snip-run/runner.py" "$config"
	assert_output --partial '"run_dir":"inference_profiling/snippets/nms-fast/runs/e2e"'
	assert_output --partial '"exit_status":0,'
	assert_output --partial '"manifest_ok":true}'

	# The manifest itself, read back with PyYAML.
	manifest=inference_profiling/snippets/nms-fast/runs/e2e/manifest.yaml
	run -0 "$PY" -c '
import sys, yaml
m = yaml.safe_load(open(sys.argv[1]))
print(m["profile_name"], m["run_id"], m["target"]["import_path"], m["device"])
print(m["expected_trace_path"])
print(len(m["record_ids"]) == len(m["output_summaries"]) > 0)
print(list(m) == sorted(m))' "$manifest"
	assert_output - <<-'EOF'
	nms-fast e2e inference_profiling/snippets/nms-fast/target.py:target cpu
	inference_profiling/snippets/nms-fast/runs/e2e/trace.nsys-rep
	True
	True
	EOF

	# The nsys command for the same snippet and run id.
	run -0 snip-run -p -i e2e "$config"
	assert_output --partial $'-o \\\n  inference_profiling/snippets/nms-fast/runs/e2e/trace \\'
	assert_output --partial $'--config \\\n  inference_profiling/snippets/nms-fast/config.yaml \\'
}

# Generated snippets for functions of the shapes a service has (written for
# these tests in fixtures/snippet-e2e/repo: a torch NMS in a sub-project, a
# model's preprocess method and its infer with super(), decoding from
# bytes, a decorated function, an async method of a model manager, a
# preprocessing function of helpers and environment constants) run their
# smoke configuration on the CPU: the stand-in runner with STANDIN_EXEC=1
# imports each target.py and runs it as run_profile() does, with
# Debian's torch, torchvision, numpy and OpenCV.  Where prepare() needs
# what no data source has, snip-lint refuses the config naming it; the
# test then supplies it as a user would, and the run goes through.

# Copies the repository, the stand-in runner as development/profiling/
# main.py with its nvtx stand-in beside it, and two small PNG images.
e2e_repo() {
	need_torch
	"$TORCH_PY" -c 'import cv2, torchvision' 2>/dev/null ||
	    skip "no python3-opencv and python3-torchvision"
	cd "$BATS_TEST_TMPDIR"
	cp -R "$FIXTURES/repo/." .
	cp -R "$TOP/fixtures/snip-run/development" .
	cp "$TOP/fixtures/snip-run/runner.py" development/profiling/main.py
	mkdir imgs
	"$TORCH_PY" -c '
import cv2, numpy as np
for i in range(2):
    img = (np.arange(24 * 32 * 3).reshape(24, 32, 3) * (i + 3) % 256).astype(np.uint8)
    cv2.imwrite(f"imgs/img{i}.png", img)'
	SNIPS=inference_profiling/snippets
}

# Sets inputs.NAME of a config as a user edits it: set_input config NAME
# 'value: 2' (an entry's lines after the first indented by four).
set_input() {
	awk -v name="  $2:" -v with="    $3" '
		$0 == name { print; print with; skip = 1; next }
		skip && /^    / { next }
		{ skip = 0; print }' "$1" > "$1.new" && mv "$1.new" "$1"
}

# Runs snippet $1's smoke command as its README gives it (uv's python
# replaced by Debian's, one warm-up, two iterations), then again through
# snip-run, which checks the manifest; the NVTX ranges entered go to
# ranges.log, one each.
smoke() {
	local cmd readme="$SNIPS/$1/README.md" pp
	cmd=$(sed -n 's/^    \(PYTHONPATH=.* --run-id smoke\)$/\1/p' "$readme")
	[ -n "$cmd" ] || fail "no smoke command in $readme"
	cmd=${cmd/uv run python/\"\$TORCH_PY\"}
	rm -f ranges.log
	run -0 env STANDIN_EXEC=1 STANDIN_RANGES="$PWD/ranges.log" TORCH_PY="$TORCH_PY" \
	    bash -c "$cmd --warmup 1 --iterations 2"
	assert_output --partial "Wrote manifest: $SNIPS/$1/runs/smoke/manifest.yaml"
	pp=${cmd%% *}
	run -0 env STANDIN_EXEC=1 "$pp" snip-run -i checked --warmup 1 --iterations 2 \
	    -r "$TORCH_PY development/profiling/main.py" "$SNIPS/$1/config.yaml"
	assert_output --partial '"exit_status":0,'
	assert_output --partial '"manifest_ok":true}'
}

# The NVTX ranges ranges.log holds, each once, in order of first entry.
ranges() {
	awk '!seen[$0]++' ranges.log
}

# The manifest's output summaries of run "checked", as JSON.
summaries() {
	"$TORCH_PY" -c 'import json, sys, yaml; print(json.dumps(yaml.safe_load(open(sys.argv[1]))["output_summaries"], sort_keys=True))' \
	    "$SNIPS/$1/runs/checked/manifest.yaml"
}

@test "e2e: a torch NMS in a sub-project, its batch loop's ranges entered, once its tensor's shape is given" {
	e2e_repo
	run -0 --separate-stderr snip-new -D cpu -n run_nms vision_models/vision_models/post_processing.py
	assert_stderr --partial 'module vision_models.post_processing is imported from vision_models, its package root'
	run -1 snip-lint -h "$SNIPS/run-nms/config.yaml"
	assert_output --partial 'error: inputs.output.shape is unset: give the shape of the tensor prepare() makes for output'
	set_input "$SNIPS/run-nms/config.yaml" output $'shape: [2, 8, 50]\n    dtype: float32'
	run -0 snip-lint "$SNIPS/run-nms/config.yaml"
	smoke run-nms
	run -0 ranges
	assert_output - <<-'EOF'
	run_nms filter
	run_nms nms
	profile-target
	iteration 0
	iteration 1
	EOF
	run -0 summaries run-nms
	assert_output '[{"len": 2, "type": "list"}]'
}

@test "e2e: a model's preprocess and its infer with super(), the model made from the id the user gives" {
	e2e_repo
	snip-new -D cpu -n Detector.preprocess vision/core/models.py
	snip-new -D cpu -n Detector.infer vision/core/models.py
	for p in detector-preprocess detector-infer; do
		run -1 snip-lint -h "$SNIPS/$p/config.yaml"
		assert_output --partial 'error: inputs.self.kwargs is unset'
		grep -qF -- "- \`inputs.self.kwargs\`: Detector's constructor comes from BaseModel, which another module defines" "$SNIPS/$p/README.md"
		set_input "$SNIPS/$p/config.yaml" self $'call: Detector\n    kwargs: {model_id: demo/1}'
		run -0 snip-lint "$SNIPS/$p/config.yaml"
	done
	# The if block that imports torch is copied whole; the README lists
	# the environment the body reads.
	grep -qx '    import torch' "$SNIPS/detector-preprocess/target.py"
	grep -qF -- '- `MAX_BATCH_SIZE`: sets `MAX_BATCH_SIZE` of `vision.core.env`' "$SNIPS/detector-preprocess/README.md"
	grep -qF -- '- `USE_PYTORCH_FOR_PREPROCESSING`: sets' "$SNIPS/detector-preprocess/README.md"
	grep -qF 'super(Detector, self).infer(image, confidence=confidence)' "$SNIPS/detector-infer/target.py"
	smoke detector-preprocess
	run -0 ranges
	assert_output - <<-'EOF'
	preprocess decode
	preprocess pad
	profile-target
	iteration 0
	iteration 1
	EOF
	run -0 summaries detector-preprocess
	assert_output '[{"len": 2, "type": "tuple"}]'
	smoke detector-infer
	assert_equal "$(ranges | head -1)" 'infer model forward'
	run -0 summaries detector-infer
	assert_output '[{"len": 4, "type": "dict"}]'
}

@test "e2e: decoding from bytes takes the images source's files; from dummy, snip-lint names the images source" {
	e2e_repo
	snip-new -D cpu -n load_image_from_encoded_bytes -p decode-dummy vision/core/image_utils.py
	run -1 snip-lint -h "$SNIPS/decode-dummy/config.yaml"
	assert_output --partial 'error: inputs.value: the dummy data source has no encoded bytes: use the images data source (snip-new -i DIR)'
	snip-new -D cpu -i imgs -n load_image_from_encoded_bytes -p decode vision/core/image_utils.py
	run -0 cat "$SNIPS/decode/config.yaml"
	assert_line '  decode: true'
	assert_line '  limit: 4'
	assert_line '  repeat: 100'
	run -0 snip-lint "$SNIPS/decode/config.yaml"
	smoke decode
	assert_equal "$(ranges | head -1)" 'load_image_from_encoded_bytes decode'
	run -0 bats_pipe summaries decode \| jq -c 'unique'
	assert_output '[{"dtype":"uint8","shape":[24,32,3],"type":"ndarray"}]'
}

@test "e2e: a decorated function runs as generated, its resize and host-to-device copy in ranges" {
	e2e_repo
	run -0 bats_pipe snip-new -D cpu -n to_model_input vision/core/image_utils.py \| jq -c '[.inputs[] | [.name, .given, .set]]'
	assert_output '[["image","from",true],["size","default",true],["device","device",true]]'
	grep -qx '@torch.no_grad()' "$SNIPS/to-model-input/target.py"
	run -0 snip-lint "$SNIPS/to-model-input/config.yaml"
	smoke to-model-input
	run -0 ranges
	assert_output - <<-'EOF'
	to_model_input resize
	to_model_input layout
	to_model_input host-to-device copy
	profile-target
	iteration 0
	iteration 1
	EOF
	run -0 summaries to-model-input
	assert_output '[{"dtype": "torch.float32", "shape": [1, 3, 32, 32], "type": "Tensor"}]'
}

@test "e2e: an async method of the model manager, once the user gives the manager, the id and the request" {
	e2e_repo
	snip-new -D cpu -n ModelManager.infer_from_request -p manager vision/core/manager.py
	cfg="$SNIPS/manager/config.yaml"
	run -1 snip-lint -h "$cfg"
	assert_output - <<-EOF
	$cfg:26:13: error: inputs.self.kwargs is unset: give the keyword arguments of the call that makes self ({} for none) [input-unset]
	$cfg:28:5: error: inputs.model_id.value is unset: write the value prepare() gives model_id [input-unset]
	$cfg:31:13: error: inputs.request.kwargs is unset: give the keyword arguments of the call that makes request ({} for none) [input-unset]
	EOF
	grep -qF -- '- `inputs.self.kwargs`: ModelManager() needs model\_registry: give them as kwargs.' "$SNIPS/manager/README.md"
	grep -qF -- '- `METRICS_ENABLED`: sets `METRICS_ENABLED` of `vision.core.env`' "$SNIPS/manager/README.md"
	# What a user writes: a manager with one model, made by a function of
	# their own in target.py.
	cat >> "$SNIPS/manager/target.py" <<-'PY'


	def make_manager():
	    return ModelManager(None, models={"demo/1": lambda size, conf: [size, conf]})
	PY
	set_input "$cfg" self $'call: make_manager\n    kwargs: {}'
	set_input "$cfg" model_id 'value: demo/1'
	set_input "$cfg" request $'call: InferenceRequest\n    kwargs: {image_size: 8}'
	run -0 snip-lint "$cfg"
	smoke manager
	assert_equal "$(ranges | head -1)" 'infer_from_request model forward'
	run -0 summaries manager
	assert_output '[{"len": 2, "type": "list"}]'
}

@test "e2e: a preprocessing function of helpers and environment constants, a range for each helper's work" {
	e2e_repo
	snip-new -D cpu -i imgs -n prepare vision/core/preprocess.py
	run -1 snip-lint -h "$SNIPS/prepare/config.yaml"
	assert_output --partial 'error: inputs.preproc.value is unset'
	grep -qF -- '- `DISABLE_PREPROC_GRAYSCALE`: sets `DISABLE_PREPROC_GRAYSCALE` of `vision.core.env`' "$SNIPS/prepare/README.md"
	set_input "$SNIPS/prepare/config.yaml" preproc \
	    'value: {static-crop: {enabled: true, x_min: 10, y_min: 10, x_max: 90, y_max: 90}, contrast: {enabled: true}, grayscale: {enabled: true}}'
	run -0 snip-lint "$SNIPS/prepare/config.yaml"
	smoke prepare
	run -0 ranges
	assert_output - <<-'EOF'
	prepare crop
	prepare contrast
	prepare color conversion
	profile-target
	iteration 0
	iteration 1
	EOF
	run -0 bats_pipe summaries prepare \| jq -c 'unique'
	assert_output '[{"len":2,"type":"tuple"}]'
}

# The real functions: roboflow/inference at 3bb973b5 (fixtures/snippet-e2e/
# upstream, Apache-2.0).  Their packages' dependencies are not here, so
# they are checked without running: every name bound, prepare() asking
# only for what config.yaml has, and snip-lint refusing what the user must
# supply; the NMS, whose own needs are torch and torchvision, also runs.

upstream_repo() {
	cd "$BATS_TEST_TMPDIR"
	cp -R "$FIXTURES/upstream/." .
	SNIPS=inference_profiling/snippets
}

# snip-lint's errors for the configs given, as "code: message" lines
# (snip-lint's status, 1 with errors, is not this one's).
lint_errors() {
	{ snip-lint -j "$@" || :; } |
	    jq -r 'select(.severity == "error") | "\(.code): \(.message)"'
}

@test "upstream: the five functions and the awkward ones, checked without running" {
	[ -n "$PY" ] || skip "python3 with PyYAML is needed for the checks"
	upstream_repo
	NMS=inference_models/inference_models/models/common/roboflow/post_processing.py
	run -0 --separate-stderr snip-new -D cpu -n run_nms_for_object_detection -p nms "$NMS"
	assert_stderr --partial 'module inference_models.models.common.roboflow.post_processing is imported from inference_models'
	assert_equal "$(jq -c '[.ranges[] | .name]' <<< "$output")" \
	    '["run_nms_for_object_detection filter","run_nms_for_object_detection filter","run_nms_for_object_detection nms"]'
	run -0 bats_pipe snip-new -D cpu -n ObjectDetectionBaseOnnxRoboflowInferenceModel.preprocess -p preprocess \
	    inference/core/models/object_detection_base.py \| jq -c '[.environment, [.ranges[] | .name]]'
	assert_output '[["FIX_BATCH_SIZE","MAX_BATCH_SIZE","USE_PYTORCH_FOR_PREPROCESSING"],["preprocess decode","preprocess pad","preprocess pad"]]'
	snip-new -D cpu -n ObjectDetectionBaseOnnxRoboflowInferenceModel.infer -p infer inference/core/models/object_detection_base.py
	snip-new -D cpu -n load_image_from_encoded_bytes -p decode inference/core/utils/image_utils.py
	run -0 bats_pipe snip-new -D cpu -n ModelManager.infer_from_request -p manager \
	    inference/core/managers/base.py \| jq -c '[.environment, [.ranges[] | .name]]'
	assert_output '[["DISABLE_INFERENCE_CACHE","METRICS_ENABLED","METRICS_INTERVAL"],["infer_from_request model forward"]]'
	run -0 bats_pipe snip-new -D cpu -n prepare -p prep inference/core/utils/preprocess.py \
	    \| jq -c '[.environment, [.ranges[] | .name]]'
	assert_output '[["DISABLE_PREPROC_CONTRAST","DISABLE_PREPROC_GRAYSCALE","DISABLE_PREPROC_STATIC_CROP","USE_PYTORCH_FOR_PREPROCESSING"],["prepare crop","prepare contrast","prepare color conversion"]]'
	run -0 "$PY" "$FIXTURES/check_target.py" "$SNIPS"/*
	refute_output --partial FAIL
	# What is refused names what to supply.
	run -0 lint_errors "$SNIPS"/*/config.yaml
	assert_output - <<-'EOF'
	input-source: inputs.value: the dummy data source has no encoded bytes: use the images data source (snip-new -i DIR) with a directory of image files
	input-unset: inputs.self.kwargs is unset: give the keyword arguments of the call that makes self ({} for none)
	input-unset: inputs.self.kwargs is unset: give the keyword arguments of the call that makes self ({} for none)
	input-unset: inputs.model_id.value is unset: write the value prepare() gives model_id
	input-unset: inputs.request.kwargs is unset: give the keyword arguments of the call that makes request ({} for none)
	input-unset: inputs.output.shape is unset: give the shape of the tensor prepare() makes for output, such as [1, 3, 640, 640]
	input-unset: inputs.preproc.value is unset: write the value prepare() gives preproc
	input-unset: inputs.self.kwargs is unset: give the keyword arguments of the call that makes self ({} for none)
	EOF
	# The pieces the issue named, in place.
	grep -qF -- "- \`inputs.self.kwargs\`: ObjectDetectionBaseOnnxRoboflowInferenceModel's constructor comes from OnnxRoboflowInferenceModel, which another module defines" "$SNIPS/preprocess/README.md"
	grep -qF -- '- `inputs.self.kwargs`: ModelManager() needs model\_registry: give them as kwargs.' "$SNIPS/manager/README.md"
	grep -qx 'if USE_PYTORCH_FOR_PREPROCESSING:' "$SNIPS/preprocess/target.py"
	grep -qF 'return super(ObjectDetectionBaseOnnxRoboflowInferenceModel, self).infer(' "$SNIPS/infer/target.py"
	grep -qF -- '- `FIX_BATCH_SIZE`: sets `FIX_BATCH_SIZE` of `inference.core.env` (its line 439), which `preprocess` reads.' "$SNIPS/preprocess/README.md"
	grep -qF -- '- `OFFLINE_MODE` of `inference_models.configuration`, which `infer_from_request` reads' "$SNIPS/manager/README.md"
	grep -qF '    PYTHONPATH=./:inference_models uv run python development/profiling/main.py --config inference_profiling/snippets/nms/config.yaml --run-id smoke' "$SNIPS/nms/README.md"
	# Inside the loop and the try: the ranges sit at their statements' depth.
	grep -qx '        with profiling_range_if_cuda("run_nms_for_object_detection nms", device=PROFILE_DEVICE):' "$SNIPS/nms/target.py"
	grep -qx '            with profiling_range_if_cuda("infer_from_request model forward", device=PROFILE_DEVICE):' "$SNIPS/manager/target.py"
}

@test "upstream: every function and method of the five files scaffolds, binds every name it uses, and lints clean or names what to supply" {
	[ -n "$PY" ] || skip "python3 with PyYAML is needed for the checks"
	upstream_repo
	n=0
	for f in inference_models/inference_models/models/common/roboflow/post_processing.py \
	    inference/core/models/object_detection_base.py inference/core/utils/image_utils.py \
	    inference/core/managers/base.py inference/core/utils/preprocess.py; do
		while read -r line q; do
			n=$((n + 1))
			snip-new -D cpu -l "$line" -p "def-$n" "$f" > /dev/null 2>> warnings.txt
		done < <(py-defs "$f" | jq -r 'select(.type != "class") | "\(.line) \(.qualname)"')
	done
	[ "$n" -gt 80 ]
	run -0 "$PY" "$FIXTURES/check_target.py" "$SNIPS"/*
	refute_output --partial FAIL
	# Errors, where there are any, are only what the user must supply.
	run -0 bats_pipe lint_errors "$SNIPS"/*/config.yaml \| cut -d: -f1 \| sort -u
	assert_output $'input-source\ninput-unset'
	run -1 bats_pipe snip-lint -j "$SNIPS"/*/config.yaml \| jq -r 'select(.severity == "warning")'
	assert_output ''
	# The sub-project's module is named from its own root, with a warning.
	run -0 grep -c 'module inference_models.models.common.roboflow.post_processing is imported from inference_models' warnings.txt
}

@test "upstream: run_nms_for_object_detection runs on the CPU, its package's other modules stubbed" {
	upstream_repo
	need_torch
	"$TORCH_PY" -c 'import torchvision' 2>/dev/null || skip "no python3-torchvision"
	cp -R "$TOP/fixtures/snip-run/development" .
	cp "$TOP/fixtures/snip-run/runner.py" development/profiling/main.py
	# The modules post_processing imports besides torch and torchvision
	# are not here: each stand-in answers any name with a class.
	for m in configuration entities logger models/base/semantic_segmentation \
	    models/common/rle_utils models/common/roboflow/model_packages \
	    models/common/roboflow/semantic_segmentation weights_providers/entities; do
		mkdir -p "inference_models/inference_models/$(dirname "$m")"
		printf 'def __getattr__(name):\n    return type(name, (), {})\n' > "inference_models/inference_models/$m.py"
	done
	for d in models/base weights_providers; do
		: > "inference_models/inference_models/$d/__init__.py"
	done
	snip-new -D cpu -n run_nms_for_object_detection -p nms \
	    inference_models/inference_models/models/common/roboflow/post_processing.py 2> /dev/null
	set_input "$SNIPS/nms/config.yaml" output $'shape: [2, 84, 200]\n    dtype: float32'
	run -0 snip-lint "$SNIPS/nms/config.yaml"
	run -0 env STANDIN_EXEC=1 STANDIN_RANGES="$PWD/ranges.log" PYTHONPATH=./:inference_models \
	    snip-run -i smoke --warmup 1 --iterations 2 -r "$TORCH_PY development/profiling/main.py" \
	    "$SNIPS/nms/config.yaml"
	assert_output --partial '"manifest_ok":true}'
	run -0 bats_pipe awk '!seen[$0]++' ranges.log \| head -2
	assert_output $'run_nms_for_object_detection filter\nrun_nms_for_object_detection nms'
}

# Replays made by snip-new --from-trace run here on the CPU: the stand-in
# runner runs each as run_profile() does, and fixtures/snippet-e2e/
# profile_replay.py profiles its run() under torch.profiler with
# record_shapes=True; replay-check then says whether the replay called the
# operator with the trace's dims, types, strides and scalars.

replay_repo() {
	need_torch
	cd "$BATS_TEST_TMPDIR"
	cp -R "$TOP/fixtures/snip-run/development" .
	cp "$TOP/fixtures/snip-run/runner.py" development/profiling/main.py
	SNIPS=inference_profiling/snippets
}

# replayed_as_traced SNIPPET TRACE [CALLS]: the snippet's own profile
# holds the trace's shape of the operator: each tensor input's dims, type
# and strides, and each scalar argument the profiler here records.  Torch
# 1.13's profiler records no list argument (stride=[16, 16]), which
# PyTorch 2 records as a "ScalarList": such an input is left out, as are
# strides where the trace has none (PyTorch before 2.1).
replayed_as_traced() {
	PYTHONPATH=./ "$TORCH_PY" "$FIXTURES/profile_replay.py" "$SNIPS/$1" "$1.json" ${3-}
	run -0 bats_pipe replay-check -j "$2" "$1.json" \| jq -c '.replay as $r
	    | (.trace.strides != null) as $strided
	    | def tensors: [.types, .dims, (if $strided then .strides else [] end)]
	        | transpose
	        | map(select(.[0] | IN("", "Scalar", "ScalarList") | not));
	      def scalars: [.types, .concrete, $r.types] | transpose
	        | map(select(.[2] == "Scalar") | .[0:2]);
	    [.verdict, (.trace | tensors) == ($r | tensors),
	     (.trace | scalars) == ($r | scalars), (.trace | tensors | length) > 0]'
	assert_output '["no-gpu",true,true,true]'
}

@test "replays of the ViT's costliest operators, from the H100 and the MI300X trace, run on the CPU with the traces' shapes" {
	need_shared flops
	replay_repo
	local g trace n spec
	for g in h100 mi300; do
		trace=$(echo "$SHARED/flops/${g}__"*.json.gz)
		# Not i: bats-assert's functions set it.
		n=0
		# The costliest shape, the patch convolution (4,3,224,224) by
		# (768,3,16,16) stride 16, and the three large addmm shapes:
		# 788x768x768, 788x3072x768 and 788x768x3072 (MxNxK), bf16.
		for spec in "" "--op aten::convolution" "--op aten::addmm" \
		    "--op aten::addmm --nth 2" "--op aten::addmm --nth 3"; do
			n=$((n + 1))
			# shellcheck disable=SC2086 # spec is words
			snip-new -D cpu -p "$g-$n" --from-trace "$trace" $spec > /dev/null
			run -0 snip-lint "$SNIPS/$g-$n/config.yaml"
			assert_output ''
			replayed_as_traced "$g-$n" "$trace"
		done
		run -0 jq -c '.strides[0]' < <(snip-new -D cpu -p "$g-conv" \
		    --from-trace "$trace" --op aten::convolution)
		assert_output '[150528,50176,224,1]'
	done
	# One through the stand-in runner as its README says: the manifest's
	# summary says the calls ran on the CPU, with the output's shape.
	run -0 env STANDIN_EXEC=1 STANDIN_RANGES="$PWD/ranges.log" PYTHONPATH=./ \
	    snip-run -i smoke --warmup 1 --iterations 2 -r "$TORCH_PY development/profiling/main.py" \
	    "$SNIPS/h100-2/config.yaml"
	assert_output --partial '"manifest_ok":true}'
	run -0 "$TORCH_PY" -c 'import json, sys, yaml; s = yaml.safe_load(open(sys.argv[1]))["output_summaries"][0]; print(json.dumps([s["operator"], s["calls"], s["shape"], s["dtype"], s["timer"]]))' \
	    "$SNIPS/h100-2/runs/smoke/manifest.yaml"
	assert_output '["aten::convolution", 20, [4, 768, 14, 14], "torch.bfloat16", "the CPU'"'"'s clock: this ran on the CPU, not a GPU"]'
	run -0 awk '!seen[$0]++' ranges.log
	assert_output $'aten::convolution 4x3x224x224 768x3x16x16 768 bf16\nprofile-target\niteration 0\niteration 1'
	# And through snippet.mk: linted, its nsys command printed, run.
	run -0 env STANDIN_EXEC=1 PYTHONPATH=./ make --no-print-directory \
	    -f "$TOP/pipelines/snippet.mk" BIN="${BUILD:-$TOP}/bin" \
	    SNIPPETS="$SNIPS/mi300-3" RUNNER="$TORCH_PY development/profiling/main.py" \
	    lint nsys smoke
	grep -qF -- '--nvtx-capture=profile-target@*' "snippet-out/$SNIPS/mi300-3/nsys.sh"
	grep -qF '"manifest_ok":true}' "snippet-out/$SNIPS/mi300-3/run.ndjson"
}

@test "a fused attention kernel with no CPU kernel says so on the CPU" {
	need_shared flops
	replay_repo
	snip-new -D cpu -p attn --from-trace "$(echo "$SHARED/flops/h100__"*.json.gz)" \
	    --op aten::_scaled_dot_product_flash_attention > /dev/null
	grep -qx 'CUDA_ONLY = True' "$SNIPS/attn/target.py"
	run -1 env STANDIN_EXEC=1 PYTHONPATH=./ "$TORCH_PY" development/profiling/main.py \
	    --config "$SNIPS/attn/config.yaml" --run-id smoke
	assert_output --partial 'ValueError: aten::_scaled_dot_product_flash_attention has no CPU kernel: run it on a CUDA device (--device cuda), not cpu'
}

@test "held-out traces give faithful replays: BERT, Qwen, OWLv2, a norm test, a PyTorch 1.x trace without strides" {
	need_shared traces
	replay_repo
	local t n=0
	for t in tracelens/h100_bert-small.json.gz realworld/tl_h100_qwen1.5-0.5b.json.gz \
	    tracelens/h100_owlv2-large.json.gz realworld/tl_normalization_layer_test.json.gz \
	    hta/backward_thread.json; do
		n=$((n + 1))
		snip-new -D cpu -p "held-$n" --from-trace "$SHARED/traces/$t" > /dev/null
		run -0 snip-lint "$SNIPS/held-$n/config.yaml"
		# The shapes are large for a CPU: one timed call.
		replayed_as_traced "held-$n" "$SHARED/traces/$t" 1
	done
	grep -qx '    ("tensor", (2048, 2048), None, "float32", "normal"),  # self' "$SNIPS/held-5/target.py"
}

@test "the table's other paths: an out= tensor the generic way, no dtype, an argument not recorded, a list of dims, an overwritten tensor" {
	replay_repo
	local op
	for op in mm softmax gelu sum copy_; do
		snip-new -D cpu -p "$op" --from-trace "$FIXTURES/calls.json" --op "aten::$op" > /dev/null
		replayed_as_traced "$op" "$FIXTURES/calls.json"
	done
	grep -qxF '    op = torch._C._jit_get_operation(OPERATOR)' "$SNIPS/mm/target.py"
	grep -qxF '    ("none",),  # dtype' "$SNIPS/softmax/target.py"
	grep -qxF 'KEYWORDS: list[Any] = [None]' "$SNIPS/gelu/target.py"
	grep -qxF '    ("value", [0]),  # dim' "$SNIPS/sum/target.py"
	grep -qxF '    ("tensor", (8, 10), (10, 1), "float32", "none"),  # self' "$SNIPS/copy_/target.py"
	grep -qxF '    ("tensor", (8, 10), (10, 1), "int64", "zeros"),  # src' "$SNIPS/copy_/target.py"
}
