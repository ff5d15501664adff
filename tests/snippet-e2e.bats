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
