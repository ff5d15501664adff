bats_require_minimum_version 1.5.0
setup() {
	load test_helper
	export MRP_RUBRIC="$TOP/rubric"
	cd "$BATS_TEST_TMPDIR"
	cp -r "$FIXTURES/inference" .
}

SRC=inference/core/utils/postprocessing.py
SNIPS=inference_profiling/snippets
# The H100 trace of a ViT recorded with record_shapes=True.
TRACE="$BATS_TEST_DIRNAME/../fixtures/replay-check/trace.json.gz"

# Checks by parsing, never importing, that target.py compiles and defines
# "target" as an instance of a class with the five ProfileTarget members.
check_target() {
	command -v python3 >/dev/null || skip "no python3"
	python3 -m py_compile "$1"
	python3 - "$1" <<-'PY'
	import ast, sys
	tree = ast.parse(open(sys.argv[1]).read())
	classes = {n.name: n for n in tree.body if isinstance(n, ast.ClassDef)}
	target = [n for n in tree.body if isinstance(n, ast.Assign)
	          and [t.id for t in n.targets] == ["target"]]
	assert len(target) == 1, "no target = ..."
	cls = classes[target[0].value.func.id]
	members = {n.name for n in cls.body if isinstance(n, ast.FunctionDef)}
	members |= {t.id for n in cls.body if isinstance(n, ast.Assign)
	            for t in n.targets}
	missing = {"name", "prepare", "run", "validate", "summarize"} - members
	assert not missing, missing
	prepare = [n for n in cls.body if isinstance(n, ast.FunctionDef)
	           and n.name == "prepare"][0]
	assert [a.arg for a in prepare.args.kwonlyargs] == ["device"]
	print("ok")
	PY
}

@test "usage errors exit 2" {
	run -2 --separate-stderr snip-new -x "$SRC"
	assert_stderr --partial 'usage: snip-new [-f] [-D device] [-i images] [-l lines] [-m module] [-n qualname] [-o dir] [-p profile] [-r table] file'
	run -2 --separate-stderr snip-new -n nms
	run -2 --separate-stderr snip-new "$SRC"
	assert_stderr 'snip-new: name the definition with -n or -l'
	run -2 --separate-stderr snip-new -n nms -p ../x "$SRC"
	assert_stderr --partial 'profile name is invalid'
	run -2 --separate-stderr snip-new -n nms -D 'cuda 0' "$SRC"
	run -2 --separate-stderr snip-new -l 0 "$SRC"
	mkdir my-tools && : > my-tools/__init__.py
	run -2 --separate-stderr snip-new -n nms my-tools/x.py
	assert_stderr 'snip-new: my-tools/x.py: no module name in the path (a .py file whose folders up to its package root are identifiers): give -m'
	run -2 --separate-stderr snip-new -n nms x.txt
	assert_stderr --partial 'no module name in the path'
	run -2 --separate-stderr snip-new -n nms -m 'os; import sys' "$SRC"
	assert_stderr 'snip-new: -m: module is no dotted Python name: os; import sys'
	run -2 --separate-stderr snip-new -n nms -o $'snips\n' "$SRC"
	assert_stderr 'snip-new: -o: the directory has a control character'
	run -2 --separate-stderr snip-new -n nms -i $'imgs\r' "$SRC"
	assert_stderr 'snip-new: -i: the directory has a control character'
	[ ! -e "$SNIPS" ]
}

@test "an empty source has nothing to scaffold: status 1, nothing written" {
	: > empty.py
	run -1 --separate-stderr snip-new -n nms empty.py
	assert_stderr 'snip-new: empty.py: no definition named nms'
	assert_output ''
	[ ! -e "$SNIPS" ]
}

@test "golden: letterbox, NMS and a method, three files each" {
	run -0 snip-new -n letterbox_image "$SRC"
	assert_output - < "$FIXTURES/expected/letterbox-image.ndjson"
	run -0 snip-new -n non_max_suppression -p nms "$SRC"
	assert_output - < "$FIXTURES/expected/nms.ndjson"
	run -0 snip-new -D cuda:0 -n DetectionPostprocessor.postprocess "$SRC"
	assert_output - < "$FIXTURES/expected/detectionpostprocessor-postprocess.ndjson"
	for p in letterbox-image nms detectionpostprocessor-postprocess; do
		for f in target.py config.yaml README.md; do
			diff -u "$FIXTURES/expected/$p/$f" "$SNIPS/$p/$f"
		done
	done
}

@test "target.py compiles and defines target with the five members" {
	snip-new -n letterbox_image "$SRC"
	snip-new -n non_max_suppression "$SRC"
	snip-new -n DetectionPostprocessor.postprocess "$SRC"
	snip-new -n DetectionPostprocessor.area "$SRC"
	snip-new -n box_iou "$SRC"
	for t in "$SNIPS"/*/target.py; do
		run -0 check_target "$t"
		assert_output ok
	done
	# The static method loses its decorator; the README says so.
	run -1 grep -c staticmethod < <(copied "$SNIPS/detectionpostprocessor-area/target.py")
	assert_output 0
	grep -F 'Decorators left out: `@staticmethod`.' "$SNIPS/detectionpostprocessor-area/README.md"
}

@test "the source is never edited; the folder is never replaced without -f" {
	sum=$(sha256sum "$SRC")
	run -0 snip-new -n non_max_suppression -p nms "$SRC"
	echo '# mine' >> "$SNIPS/nms/target.py"
	mkdir -p "$SNIPS/nms/runs/r1"
	run -1 --separate-stderr snip-new -n box_iou -p nms "$SRC"
	assert_stderr "snip-new: $SNIPS/nms: exists; -f replaces its target.py, config.yaml and README.md"
	assert_output ''
	tail -1 "$SNIPS/nms/target.py" | grep -qx '# mine'
	run -0 snip-new -f -n box_iou -p nms "$SRC"
	run -1 grep -c '# mine' "$SNIPS/nms/target.py"
	assert_output 0
	grep -q '^def box_iou' "$SNIPS/nms/target.py"
	[ -d "$SNIPS/nms/runs/r1" ]
	[ "$(sha256sum "$SRC")" = "$sum" ]
	# No temporary files are left behind.
	run -0 bash -c "ls -A $SNIPS/nms"
	assert_output $'README.md\nconfig.yaml\nruns\ntarget.py'
}

@test "provenance: sha256 of the source and the git commit from .git" {
	run -0 bats_pipe snip-new -n box_iou "$SRC" \| jq -r '[.sha256, (.git_commit | tostring)] | @tsv'
	assert_output "$(sha256sum < "$SRC" | cut -d' ' -f1)	null"
	grep -F 'git commit: unknown (the source is not in a git work tree)' "$SNIPS/box-iou/README.md"
	# A repository whose branch is only in packed-refs.
	mkdir -p .git
	echo 'ref: refs/heads/main' > .git/HEAD
	printf '# pack-refs with: peeled\n%s refs/heads/main\n' 0123456789abcdef0123456789abcdef01234567 > .git/packed-refs
	run -0 bats_pipe snip-new -f -n box_iou "$SRC" \| jq -r .git_commit
	assert_output 0123456789abcdef0123456789abcdef01234567
	grep -F 'git commit: `0123456789abcdef0123456789abcdef01234567`' "$SNIPS/box-iou/README.md"
}

@test "dedent never touches multi-line strings; relative imports made absolute" {
	snip-new -n DetectionPostprocessor.postprocess -p pp "$SRC"
	grep -qx 'def postprocess(self, raw: np.ndarray, scale: float, pad: Tuple\[int, int\]):' "$SNIPS/pp/target.py"
	snip-new -n letterbox_image "$SRC"
	# The docstring's column-0 line stays where it was.
	grep -qx 'Returns the padded image, the scale and the (left, top) padding.' "$SNIPS/letterbox-image/target.py"
	grep -qx 'from inference.core.utils.image_utils import ensure_rgb' "$SNIPS/letterbox-image/target.py"
	grep -qx 'from __future__ import annotations' "$SNIPS/letterbox-image/target.py"
	grep -F 'not copied (source lines: 19)' "$SNIPS/letterbox-image/README.md"
	run -1 grep -c 'import torch' < <(copied "$SNIPS/letterbox-image/target.py")
	# A docstring with indented text inside a method keeps every byte.
	cat > m.py <<-'EOF'
	class K:
	    def f(self, image):
	        """Doc.

	            indented text stays
	no indent here
	        """
	        return image
	EOF
	snip-new -n K.f -p kf m.py
	run -0 sed -n '/^def f/,/^    return/p' "$SNIPS/kf/target.py"
	assert_output - <<-'EOF'
	def f(self, image):
	    """Doc.

	            indented text stays
	no indent here
	        """
	    return image
	EOF
	run -0 check_target "$SNIPS/kf/target.py"
}

@test "if and try import blocks the copy uses are copied whole, relative imports made absolute" {
	command -v python3 >/dev/null || skip "no python3"
	mkdir -p pkg/sub
	: > pkg/__init__.py
	: > pkg/sub/__init__.py
	printf 'USE_TORCH = False\n' > pkg/env.py
	printf 'def fast(x):\n    return x\n' > pkg/sub/accel.py
	cat > pkg/sub/mod.py <<-'PY'
	import math

	from ..env import USE_TORCH

	if USE_TORCH:
	    import torch
	else:
	    torch = None

	try:
	    from .accel import fast
	except ImportError:  # a build without the extension
	    def fast(x):
	        return x

	try:
	    import yaml
	except ImportError:
	    yaml = None

	SCALE = 2


	def work(x):
	    if torch is not None:
	        x = torch.as_tensor(x)
	    return fast(x) * SCALE + math.pi
	PY
	stub_nvtx
	run -0 snip-new -n work pkg/sub/mod.py
	t="$SNIPS/work/target.py"
	run -0 sed -n '/^# Import blocks/,/^$/p' "$t"
	assert_output - <<-'EOF'
	# Import blocks of pkg.sub.mod that the copy needs, copied whole.
	if USE_TORCH:
	    import torch
	else:
	    torch = None
	try:
	    from pkg.sub.accel import fast
	except ImportError:  # a build without the extension
	    def fast(x):
	        return x

	EOF
	grep -qx 'from pkg.env import USE_TORCH' "$t"
	grep -qx 'from pkg.sub.mod import SCALE' "$t"
	run -1 grep -c yaml < <(copied "$t")
	grep -F -- '- The `if` block of source lines 5-8 imports what the copy uses' "$SNIPS/work/README.md"
	grep -F -- '- The `try` block of source lines 10-14 imports what the copy uses' "$SNIPS/work/README.md"
	grep -F 'not copied (source lines: 17)' "$SNIPS/work/README.md"
	run -0 env PYTHONPATH=stub:. python3 -c '
import importlib.util as u, sys
s = u.spec_from_file_location("t", sys.argv[1])
m = u.module_from_spec(s)
s.loader.exec_module(m)
print(m.target.run(((1,), {})) > 5, m.torch)' "$t"
	assert_output 'True None'
}

@test "a method's super() and private names work at module level" {
	command -v python3 >/dev/null || skip "no python3"
	mkdir -p pkg
	cat > pkg/models.py <<-'PY'
	class Base:
	    def infer(self, x, scale=1):
	        return x * scale


	class __Detector(Base):
	    __secret = 3

	    def infer(self, x, scale=1):
	        y = super().infer(x, scale=scale)
	        return y + self.__secret + len(__class__.__name__)

	    @classmethod
	    def make(cls, x):
	        return super().__new__(cls).infer(x) + cls.__secret
	PY
	stub_nvtx
	snip-new -n __Detector.infer -p infer pkg/models.py
	snip-new -n __Detector.make -p make pkg/models.py
	set_input "$SNIPS/infer/config.yaml" x 'value: 2'
	set_input "$SNIPS/make/config.yaml" x 'value: 2'
	run -0 snip-lint "$SNIPS/infer/config.yaml" "$SNIPS/make/config.yaml"
	t="$SNIPS/infer/target.py"
	grep -qxF '        y = super(__Detector, self).infer(x, scale=scale)' "$t"
	grep -qxF '    return y + self._Detector__secret + len(__Detector.__name__)' "$t"
	grep -qxF '        return super(__Detector, cls).__new__(cls).infer(x) + cls._Detector__secret' "$SNIPS/make/target.py"
	grep -qF '`super()` is spelt `super(__Detector, self)`' "$SNIPS/infer/README.md"
	grep -qF 'Private names (`__x`) are spelt `_Detector__x`' "$SNIPS/infer/README.md"
	run -0 env PYTHONPATH=stub:. python3 -c '
import importlib.util as u, sys
from pkg.models import __Detector as D
out = []
for name in ("infer", "make"):
    s = u.spec_from_file_location(name, sys.argv[1] + "/" + name + "/target.py")
    m = u.module_from_spec(s)
    s.loader.exec_module(m)
    out.append(m.target.run(m.target.prepare(None, device="cpu")))
print(out, [D().infer(2), D.make(2)])' "$SNIPS"
	assert_output '[15, 18] [15, 18]'
}

@test "tab-indented code gets ranges it can compile with" {
	printf 'import cv2\n\nclass T:\n\tdef resize_it(self, image):\n\t\tif image is None:\n\t\t\treturn None\n\t\tout = cv2.resize(image, (2, 2))\n\t\treturn out\n' > tabs.py
	run -0 bats_pipe snip-new -n T.resize_it tabs.py \| jq -c .ranges
	assert_output '[{"name":"resize_it resize","first":7,"last":7}]'
	grep -q $'^\twith profiling_range_if_cuda("resize_it resize", device=PROFILE_DEVICE):$' "$SNIPS/t-resize-it/target.py"
	grep -q $'^\t\tout = cv2.resize' "$SNIPS/t-resize-it/target.py"
	run -0 check_target "$SNIPS/t-resize-it/target.py"
}

@test "ranges go inside loops, try, with and if blocks, named for what they call" {
	mkdir -p pkg
	cat > pkg/enc.py <<-'PY'
	import torch


	class Embedder:
	    async def embed_all(self, images, device):
	        if images is None:
	            raise ValueError("no images")
	        validate_images(images)
	        assert len(images) > 0, "empty"
	        out = []
	        for image in images:
	            batch = self._model.preprocess(image)
	            batch = batch.to(device)
	            half = batch.to(torch.float16)
	            try:
	                features = self._model.encode_image(batch)
	            except RuntimeError:
	                features = self.fallback(batch)
	            with torch.no_grad():
	                logits = self._model(features)
	                keep = logits > self.confidence_threshold
	            if keep.any(): out.append(logits[keep].cpu())
	            else: out.append(None)

	        def later(x):
	            return self._model(x)
	        return out
	PY
	run -0 bats_pipe snip-new -n Embedder.embed_all pkg/enc.py \| jq -r '.ranges[] | "\(.first)-\(.last) \(.name)"'
	assert_output - <<-'EOF'
	12-12 embed_all preprocess
	13-13 embed_all host-to-device copy
	16-16 embed_all encoder
	20-20 embed_all model forward
	21-21 embed_all filter
	EOF
	t="$SNIPS/embedder-embed-all/target.py"
	# Each range sits at its statement's depth, inside the loop and blocks.
	grep -qx '            with profiling_range_if_cuda("embed_all encoder", device=PROFILE_DEVICE):' "$t"
	grep -qx '                features = self._model.encode_image(batch)' "$t"
	grep -qx '            with profiling_range_if_cuda("embed_all model forward", device=PROFILE_DEVICE):' "$t"
	# The header, validation, a one-line if with its else and a nested
	# function's body get none.
	grep -qx '    for image in images:' "$t"
	grep -qx '        if keep.any(): out.append(logits\[keep\].cpu())' "$t"
	grep -qx '        return self._model(x)' "$t"
	grep -qx '        raise ValueError("no images")' "$t"
	grep -qx '    validate_images(images)' "$t"
	run -0 check_target "$t"
}

@test "prepare() takes what the data source supplies, converted as the copy takes it, on the device" {
	mkdir -p pkg
	cat > pkg/feed.py <<-'PY'
	import numpy as np
	import torch


	def feed(image: np.ndarray, frame: torch.Tensor, tensor, scores, record,
	         device, target_device="cpu", *args, images, gpu_device=None,
	         size=640, **kwargs):
	    return [image, frame, tensor, scores, record, device, target_device,
	            images, gpu_device, size]
	PY
	run -0 snip-new -D cpu -n feed pkg/feed.py
	cfg="$SNIPS/feed/config.yaml"
	run -0 sed -n '/^inputs:/,$p' "$cfg"
	assert_output - <<-'EOF'
	inputs:
	  image:
	    from: image
	  frame:
	    from: image
	  tensor:
	    from: metadata.tensor
	  scores:
	    from: metadata.scores
	  record:
	    from: record
	  images:
	    from: image
	EOF
	run -0 sed -n '/def prepare/,/return args, kwargs/p' "$SNIPS/feed/target.py"
	assert_output - <<-'EOF'
	    def prepare(self, record: Any, *, device: Any) -> Any:
	        global PROFILE_DEVICE
	        PROFILE_DEVICE = device
	        args = (
	            self._input("image", record, device, "numpy"),
	            self._input("frame", record, device, "torch"),
	            self._input("tensor", record, device),
	            self._input("scores", record, device),
	            self._input("record", record, device),
	            device,
	        )
	        kwargs = {
	            "target_device": device,
	            "images": self._input("images", record, device, "list-numpy"),
	            "gpu_device": device,
	        }
	        return args, kwargs
	EOF
	run -0 snip-lint "$cfg"
	grep -qF -- '- `target_device` is the run'"'"'s device' "$SNIPS/feed/README.md"
	grep -qF -- '- `image` is the record'"'"'s image (`inputs.image.from`), as a numpy array.' "$SNIPS/feed/README.md"
	run -1 grep -c 'What you must supply' "$SNIPS/feed/README.md"
	need_torch
	stub_nvtx
	# A record as upstream's dummy source makes it (data/dummy.py).
	run -0 env PYTHONPATH=stub:. "$TORCH_PY" -c '
import importlib.util as u, sys, types
import numpy as np, torch
s = u.spec_from_file_location("t", sys.argv[1])
m = u.module_from_spec(s)
s.loader.exec_module(m)
rec = types.SimpleNamespace(id="dummy-0", path=None,
    image=torch.arange(12, dtype=torch.float32).reshape(2, 2, 3),
    metadata={"tensor": torch.ones(4, 4), "scores": torch.linspace(0, 1, 4),
              "boxes": torch.zeros(4, 4)})
out = m.target.run(m.target.prepare(rec, device=torch.device("cpu")))
image, frame, tensor, scores, record, device, td, images, gd, size = out
print(type(image).__name__, image.dtype, image.flags.c_contiguous, image.flags.writeable)
print(type(frame).__name__, frame.dtype, frame.device, tensor.shape, scores.shape)
print(record is rec, device, td, gd, size, len(images), type(images[0]).__name__)
# A decoded image of the images source: a read-only RGB uint8 array.
arr = np.zeros((2, 3, 3), np.uint8)[:, ::-1]
arr.flags.writeable = False
rec.image = arr
out = m.target.run(m.target.prepare(rec, device=torch.device("cpu")))
print(out[0].flags.writeable, out[0].dtype, out[1].dtype, out[1].is_contiguous())' "$SNIPS/feed/target.py"
	assert_output - <<-'EOF'
	ndarray float32 True True
	Tensor torch.float32 cpu torch.Size([4, 4]) torch.Size([4])
	True cpu cpu cpu 640 1 ndarray
	True uint8 torch.uint8 True
	EOF
}

@test "what no data source supplies is an inputs section the user fills; snip-lint names each" {
	mkdir -p pkg
	cat > pkg/other.py <<-'PY'
	class Request:
	    def __init__(self, size=1):
	        self.size = size
	PY
	cat > pkg/serve.py <<-'PY'
	from dataclasses import dataclass
	from typing import Tuple

	import torch

	from pkg.other import Request


	class Base:
	    def __init__(self, model_id, *, api_key=None):
	        self.model_id = model_id


	class Server(Base):
	    def serve(self, output: torch.Tensor, conf_thresh: float,
	              pad: Tuple[int, int], model, request: Request,
	              image_bytes: bytes, model_id: str):
	        keep = output[output > conf_thresh]
	        return keep.sum() + pad[0] + request.size + model(1)


	@dataclass
	class Options:
	    size: int
	    scale: float = 1.0

	    def area(self, n: int = 2):
	        return self.size * n
	PY
	run -0 snip-new -D cpu -n Server.serve pkg/serve.py
	cfg="$SNIPS/server-serve/config.yaml"
	run -0 sed -n '/^inputs:/,$p' "$cfg"
	assert_output - <<-'EOF'
	inputs:
	  self:
	    call: Server  # Base() needs model_id: give them as kwargs
	    kwargs: null
	  output:
	    shape: null  # the shape of output (torch.Tensor), such as [1, 3, 640, 640]
	    dtype: float32
	  conf_thresh:
	    value: null  # a value of type float
	  pad:
	    value: null  # a value of type Tuple[int, int]
	  model:
	    call: null  # what makes model: a class or function that target.py imports, and its keyword arguments
	    kwargs: null
	  request:
	    call: Request  # what makes request (Request): a class or function that target.py imports, and its keyword arguments
	    kwargs: null
	  image_bytes:
	    from: bytes  # the encoded bytes of an image file: only the images data source has them
	  model_id:
	    value: null  # a model id, such as "project/3"
	EOF
	run -1 snip-lint -h "$cfg"
	assert_output - <<-EOF
	$cfg:26:13: error: inputs.self.kwargs is unset: give the keyword arguments of the call that makes self ({} for none) [input-unset]
	$cfg:28:5: error: inputs.output.shape is unset: give the shape of the tensor prepare() makes for output, such as [1, 3, 640, 640] [input-unset]
	$cfg:31:5: error: inputs.conf_thresh.value is unset: write the value prepare() gives conf_thresh [input-unset]
	$cfg:33:5: error: inputs.pad.value is unset: write the value prepare() gives pad [input-unset]
	$cfg:35:5: error: inputs.model.call is unset: name what makes model (a class or function that target.py imports) and give its kwargs [input-unset]
	$cfg:39:13: error: inputs.request.kwargs is unset: give the keyword arguments of the call that makes request ({} for none) [input-unset]
	$cfg:41:11: error: inputs.image_bytes: the dummy data source has no encoded bytes: use the images data source (snip-new -i DIR) with a directory of image files [input-source]
	$cfg:43:5: error: inputs.model_id.value is unset: write the value prepare() gives model_id [input-unset]
	EOF
	readme="$SNIPS/server-serve/README.md"
	run -0 sed -n '/^## What you must supply/,/^## Required/p' "$readme"
	assert_output - <<-'EOF'
	## What you must supply

	`prepare()` refuses to run, and `snip-lint` reports the config, until
	each of these is set in `config.yaml`:

	- `inputs.self.kwargs`: Base() needs model\_id: give them as kwargs.
	- `inputs.output.shape`: the shape of output (torch.Tensor), such as \[1, 3, 640, 640\].
	- `inputs.conf_thresh.value`: a value of type float.
	- `inputs.pad.value`: a value of type Tuple\[int, int\].
	- `inputs.model.call`: what makes model: a class or function that target.py imports, and its keyword arguments.
	- `inputs.request.kwargs`: what makes request (Request): a class or function that target.py imports, and its keyword arguments.
	- `inputs.image_bytes.from`: the encoded bytes of an image file: only the images data source has them.
	- `inputs.model_id.value`: a model id, such as "project/3".

	## Required files
	EOF
	grep -qF 'Image files: a parameter takes a file'"'"'s path or bytes' "$readme"
	# Never a bare constructor call: self comes from inputs.self.
	run -1 grep -c 'Server()' "$SNIPS/server-serve/target.py"
	# The user fills them in; then prepare() makes each, the tensor the
	# same for a record id every time, objects once.
	mkdir imgs
	set_input "$cfg" self $'call: Server\n    kwargs: {model_id: demo/1}'
	set_input "$cfg" output $'shape: [2, 3]\n    dtype: float16'
	set_input "$cfg" conf_thresh 'value: 0.5'
	set_input "$cfg" pad 'value: [1, 2]'
	set_input "$cfg" model $'call: abs\n    kwargs: {}'
	set_input "$cfg" request $'call: Request\n    kwargs: {size: 4}'
	set_input "$cfg" model_id 'value: demo/1'
	run -1 snip-lint -h "$cfg"
	assert_output --partial 'inputs.image_bytes: the dummy data source has no encoded bytes'
	sed -i 's|^  name: dummy .*|  name: images\n  directory: '"$PWD"'/imgs|' "$cfg"
	run -0 snip-lint "$cfg"
	# One data source: the record's path comes with it.
	sed -i 's|^    from: bytes.*|    from: bytes|' "$cfg"
	need_torch
	stub_nvtx
	printf 'img' > imgs/a.png
	run -0 env PYTHONPATH=stub:. "$TORCH_PY" -c '
import importlib.util as u, sys, types, pathlib
import torch
s = u.spec_from_file_location("t", sys.argv[1])
m = u.module_from_spec(s)
s.loader.exec_module(m)
abs_calls = []
m.abs = lambda: abs_calls.append(1) or (lambda x: 10 * x)
t = m.target
rec = types.SimpleNamespace(id="a", image=None, path=pathlib.Path("imgs/a.png"), metadata={})
p1 = t.prepare(rec, device=torch.device("cpu"))
p2 = t.prepare(rec, device=torch.device("cpu"))
args, kwargs = p1
print(type(args[0]).__name__, args[0].model_id, args[1].dtype, list(args[1].shape))
print(torch.equal(args[1], p2[0][1]), args[2], args[3], args[6], args[7], len(abs_calls))
rec2 = types.SimpleNamespace(id="b", image=None, path=rec.path, metadata={})
print(torch.equal(args[1], t.prepare(rec2, device="cpu")[0][1]))
print(float(t.run(p1)) > 0)' "$SNIPS/server-serve/target.py"
	assert_output - <<-'EOF'
	Server demo/1 torch.float16 [2, 3]
	True 0.5 [1, 2] b'img' demo/1 1
	False
	True
	EOF
}

@test "a method's self: no arguments only when its constructor is known to need none" {
	mkdir -p pkg
	cat > pkg/ctors.py <<-'PY'
	from dataclasses import dataclass

	from pkg.base import Remote


	class Plain:
	    def go(self, n=1):
	        return n


	class Defaults:
	    def __init__(self, a=1, *, b=2, **extra):
	        self.a = a

	    def go(self, n=1):
	        return n


	class Child(Defaults):
	    def go(self, n=1):
	        return n


	@dataclass
	class Opts:
	    size: int
	    scale: float = 1.0

	    def go(self, n=1):
	        return n


	class Far(Remote):
	    def go(self, n=1):
	        return n
	PY
	for c in Plain Defaults Child Opts Far; do
		snip-new -n $c.go pkg/ctors.py > /dev/null
	done
	for c in plain defaults child opts far; do
		sed -n '/^  self:/,/^    kwargs/p' "$SNIPS/$c-go/config.yaml" | tr '\n' ' '
		echo
	done > got
	run -0 cat got
	assert_output - <<-'EOF'
	  self:     call: Plain     kwargs: {} 
	  self:     call: Defaults     kwargs: {} 
	  self:     call: Child     kwargs: {} 
	  self:     call: Opts  # the dataclass Opts() needs size: give them as kwargs     kwargs: null 
	  self:     call: Far  # Far's constructor comes from Remote, which another module defines: give its keyword arguments     kwargs: null 
	EOF
}

@test "README: the environment variables, models and API keys the copy and its direct helpers read" {
	mkdir -p app/core
	touch app/__init__.py app/core/__init__.py
	cat > app/core/env.py <<-'PY'
	import os

	from app.core.flags import str2bool
	from app.core.other import REMOTE_FLAG

	MAX_BATCH = int(os.getenv("MAX_BATCH_SIZE", "8"))
	API_KEY = os.environ.get("ROBOFLOW_API_KEY")
	_DEFAULT_MODEL = os.environ["DEFAULT_MODEL_ID"]
	MODEL_ID = _DEFAULT_MODEL
	if os.name == "nt":
	    USE_TORCH = False
	else:
	    USE_TORCH = str2bool(os.getenv("USE_PYTORCH", "false"))
	DERIVED = 2
	PY
	cat > app/core/work.py <<-'PY'
	import os
	from os import environ

	from app.core import env
	from app.core.env import API_KEY, MAX_BATCH as LIMIT, REMOTE_FLAG


	def cache_dir():
	    return environ.get("MODEL_CACHE_DIR", "/tmp")


	def unrelated():
	    return os.getenv("NEVER_READ")


	class Worker:
	    def _scale(self):
	        return float(os.getenv("WORK_SCALE", "1"))

	    def run(self, model_id: str, api_key: str, n=1):
	        if env.USE_TORCH and REMOTE_FLAG:
	            n = LIMIT + env.DERIVED + env.MODEL_ID
	        return cache_dir(), self._scale() * n, API_KEY, model_id, api_key
	PY
	run -0 bats_pipe snip-new -n Worker.run app/core/work.py \| jq -c .environment
	assert_output '["DEFAULT_MODEL_ID","MAX_BATCH_SIZE","MODEL_CACHE_DIR","ROBOFLOW_API_KEY","USE_PYTORCH","WORK_SCALE"]'
	readme="$SNIPS/worker-run/README.md"
	run -0 sed -n '/^## Models/,/^## Smoke/p' "$readme"
	assert_output - <<-'EOF'
	## Models

	- `model_id`: `inputs.model_id` in `config.yaml`.
	- `DEFAULT_MODEL_ID`: sets `MODEL_ID` of `app.core.env` (its line 8), which `run` reads.
	- `MODEL_CACHE_DIR`: read by `cache_dir` (line 9 of the source).

	## Environment variables

	What the copied code and its direct helpers read from the environment;
	a run reads them as production does, so set them as the service would:

	- `DEFAULT_MODEL_ID`: sets `MODEL_ID` of `app.core.env` (its line 8), which `run` reads.
	- `MAX_BATCH_SIZE`: sets `MAX_BATCH` of `app.core.env` (its line 6), which `run` reads.
	- `MODEL_CACHE_DIR`: read by `cache_dir` (line 9 of the source).
	- `ROBOFLOW_API_KEY`: sets `API_KEY` of `app.core.env` (its line 7), which `run` reads.
	- `USE_PYTORCH`: sets `USE_TORCH` of `app.core.env` (its line 13), which `run` reads.
	- `WORK_SCALE`: read by `Worker._scale` (line 18 of the source).
	- `DERIVED` of `app.core.env`, which `run` reads: no environment variable found in its definition.
	- `REMOTE_FLAG` of `app.core.other`, which `run` reads: that module is not under the package root; see it for the variable that sets it.

	## API keys

	- `api_key`: `inputs.api_key.value`.
	- `ROBOFLOW_API_KEY`: sets `API_KEY` of `app.core.env` (its line 7), which `run` reads.

	Keep them in the environment: a key written into `config.yaml` ends up in
	every copy of the snippet.

	## Smoke run (no Nsight)
	EOF
}

@test "-l wraps exactly the marked statements" {
	run -0 bats_pipe snip-new -l 49 -p lb "$SRC" \| jq -c '[.qualname, .ranges]'
	assert_output '["letterbox_image",[{"name":"letterbox_image lines 48-50","first":48,"last":50}]]'
	run -0 check_target "$SNIPS/lb/target.py"
	# Inside a while loop: the range sits at the loop body's indentation.
	run -0 bats_pipe snip-new -l 76-77 -p loop "$SRC" \| jq -c .ranges
	assert_output '[{"name":"non_max_suppression lines 76-78","first":76,"last":78}]'
	grep -q '^        with profiling_range_if_cuda("non_max_suppression lines 76-78"' "$SNIPS/loop/target.py"
	run -0 check_target "$SNIPS/loop/target.py"
}

@test "-l at module level: the lines become a function's body, the values they read its parameters" {
	mkdir -p app
	: > app/__init__.py
	printf 'def load_model(model_id):\n    return lambda x: x * 2\n' > app/helpers.py
	cat > app/script.py <<-'PY'
	"""A script that runs a model on one image."""
	import numpy as np
	import torch

	from app.helpers import load_model

	THRESHOLD = 0.5


	def postprocess(logits, threshold):
	    return logits[logits > threshold]


	class Config:
	    size = 16


	model = load_model("demo/1")
	image = np.ones((4, 4, 3), np.float32)

	if __name__ == "__main__":
	    import argparse
	    batch = torch.from_numpy(image).permute(2, 0, 1)[None]
	    logits = model(batch)
	    kept = postprocess(logits, THRESHOLD)
	    count = sum(1 for x in kept.flatten() if x > 0)
	    image = image + count
	PY
	run -0 bats_pipe snip-new -D cpu -l 23-27 app/script.py \| jq -c '[.qualname, .first_line, .last_line, [.inputs[] | .name], [.ranges[] | "\(.first)-\(.last) \(.name)"]]'
	assert_output '["script_lines_23_27",23,27,["image","model","THRESHOLD"],["23-23 script_lines_23_27 layout","24-24 script_lines_23_27 model forward","25-25 script_lines_23_27 postprocess"]]'
	t="$SNIPS/script-lines-23-27/target.py"
	run -0 sed -n '/^def script_lines/,/^    return locals()/p' "$t"
	assert_output - <<-'EOF'
	def script_lines_23_27(image, model, THRESHOLD):
	    with profiling_range_if_cuda("script_lines_23_27 layout", device=PROFILE_DEVICE):
	        batch = torch.from_numpy(image).permute(2, 0, 1)[None]
	    with profiling_range_if_cuda("script_lines_23_27 model forward", device=PROFILE_DEVICE):
	        logits = model(batch)
	    with profiling_range_if_cuda("script_lines_23_27 postprocess", device=PROFILE_DEVICE):
	        kept = postprocess(logits, THRESHOLD)
	    count = sum(1 for x in kept.flatten() if x > 0)
	    image = image + count
	    return locals()
	EOF
	grep -qx 'from app.script import postprocess' "$t"
	readme="$SNIPS/script-lines-23-27/README.md"
	grep -qF -- '- lines: 23-27, at module level, made the body of `script_lines_23_27`' "$readme"
	grep -qF 'they read from the module above them: `image`, `model`, `THRESHOLD`.' "$readme"
	grep -qF 'Importing `app.script` for its helpers runs its module-level code' "$readme"
	# The user supplies the model and the threshold; then it runs.
	cat >> "$t" <<-'PY'


	def make_model():
	    return lambda x: x * 2
	PY
	set_input "$SNIPS/script-lines-23-27/config.yaml" model $'call: make_model\n    kwargs: {}'
	set_input "$SNIPS/script-lines-23-27/config.yaml" THRESHOLD 'value: 0.5'
	run -0 snip-lint "$SNIPS/script-lines-23-27/config.yaml"
	need_torch
	stub_nvtx
	run -0 env PYTHONPATH=stub:. "$TORCH_PY" -c '
import importlib.util as u, sys, types, torch
s = u.spec_from_file_location("t", sys.argv[1])
m = u.module_from_spec(s)
s.loader.exec_module(m)
rec = types.SimpleNamespace(id="dummy-0", path=None, metadata={},
    image=torch.ones(4, 4, 3))
out = m.target.run(m.target.prepare(rec, device=torch.device("cpu")))
print(sorted(out), out["count"])' "$t"
	assert_output "['THRESHOLD', 'batch', 'count', 'image', 'kept', 'logits', 'model'] 48"
	# Lines in a class body, outside any method, are refused.
	run -1 --separate-stderr snip-new -l 15 app/script.py
	assert_stderr 'snip-new: app/script.py:15: lines 15-15 are in the body of class Config, in no method: give lines of one of its methods, or -n Config.METHOD'
}

@test "names from the source stay in their place in target.py, config.yaml and README.md" {
	command -v python3 >/dev/null || skip "no python3"
	d=$'odd"""`dir\n# not a heading'
	mkdir -p "$d"
	cat > "$d/mod.py" <<-'PY'
	class K:
	    @staticmethod  # `not code`
	    def f(image, scale: "A`B<b>*c*\"\"\" [x](y)", n: 'int', on):
	        return image
	PY
	run -0 snip-new -m pkg.mod -n K.f -p odd "$d/mod.py"
	t="$SNIPS/odd/target.py"
	python3 -m py_compile "$t"
	# The path is the docstring's text, not code: the module holds the
	# docstring, the imports, the copy, the target class and its instance.
	run -0 python3 -c '
import ast, sys
tree = ast.parse(open(sys.argv[1]).read())
doc = ast.get_docstring(tree)
print("Copied from odd\"\"\"`dir\n# not a heading/mod.py lines 2-4" in doc)
print([type(n).__name__ for n in tree.body if not isinstance(n, (ast.Import, ast.ImportFrom))])' "$t"
	assert_output $'True\n[\'Expr\', \'AnnAssign\', \'FunctionDef\', \'ClassDef\', \'Assign\']'
	run -0 python3 -c 'import yaml, sys; print(yaml.safe_load(open(sys.argv[1]))["inputs"])' "$SNIPS/odd/config.yaml"
	assert_output "{'image': {'from': 'image'}, 'scale': {'value': None}, 'n': {'value': None}, 'on': {'value': None}}"
	grep -qx '  "on":' "$SNIPS/odd/config.yaml"
	readme="$SNIPS/odd/README.md"
	run -1 grep -c '^# not a heading' "$readme"
	assert_output 0
	grep -qF -- '- source: `` odd"""`dir'$'\xef\xbf\xbd''# not a heading/mod.py `` (module `pkg.mod`' "$readme"
	grep -qF -- '- Decorators left out: `@staticmethod`.' "$readme"
	grep -qF -- '- `inputs.scale.value`: a value for scale ("A\`B\<b\>\*c\*\\"\\"\\" \[x\](y)").' "$readme"
}

@test "images, device, output directory and module options reach the config" {
	mkdir imgs
	run -0 snip-new -D cpu -i imgs -o snips -m prod.post -n box_iou -p iou "$SRC"
	run -0 cat snips/iou/config.yaml
	assert_line '  name: images'
	assert_line "  directory: $BATS_TEST_TMPDIR/imgs"
	assert_line 'device: cpu'
	assert_line 'output_dir: snips'
	assert_line '  import_path: snips/iou/target.py:target'
	grep -F '(module `prod.post`, package root `.`)' snips/iou/README.md
	HOME=/home/someone snip-new -i '~/pics' -n box_iou -p true "$SRC"
	run -0 cat "$SNIPS/true/config.yaml"
	assert_line 'profile_name: "true"'
	assert_line '  directory: /home/someone/pics'
}

@test "the module is named from its package root; one off the current directory is a warning naming -m" {
	# A sub-project: the package root is inference_models/, as its
	# pyproject.toml and the first folder without __init__.py say.
	mkdir -p inference_models/inference_models/models/common
	touch inference_models/pyproject.toml
	for d in inference_models/inference_models inference_models/inference_models/models inference_models/inference_models/models/common; do
		: > "$d/__init__.py"
	done
	printf 'def run_nms(output):\n    return output\n' > inference_models/inference_models/models/common/post.py
	run -0 --separate-stderr snip-new -n run_nms inference_models/inference_models/models/common/post.py
	assert_equal "$(jq -r .module <<< "$output")" inference_models.models.common.post
	assert_stderr "snip-new: inference_models/inference_models/models/common/post.py: warning: module inference_models.models.common.post is imported from inference_models, its package root, not from the current directory: the README's commands put inference_models on PYTHONPATH; if production imports it by another name, give -m"
	readme="$SNIPS/run-nms/README.md"
	grep -qF '    PYTHONPATH=./:inference_models uv run python development/profiling/main.py --config inference_profiling/snippets/run-nms/config.yaml --run-id smoke' "$readme"
	grep -qF 'With `PYTHONPATH=./:inference_models` exported' "$readme"
	grep -qF '(module `inference_models.models.common.post`, package root `inference_models`)' "$readme"
	# -m: production's own name, no warning, nothing added to the path.
	run -0 --separate-stderr snip-new -f -m im.post -n run_nms inference_models/inference_models/models/common/post.py
	assert_stderr ''
	grep -qF '    PYTHONPATH=./ uv run' "$readme"
	# A folder without __init__.py under the current directory is a
	# namespace package, importable from here: no warning.
	mkdir -p tools/scripts
	printf 'def g(x):\n    return x\n' > tools/scripts/s.py
	run -0 --separate-stderr snip-new -n g tools/scripts/s.py
	assert_equal "$(jq -r .module <<< "$output")" tools.scripts.s
	assert_stderr ''
	# A src layout: the root is src/.
	mkdir -p proj/src/pk
	touch proj/setup.py proj/src/pk/__init__.py
	printf 'def h(x):\n    return x\n' > proj/src/pk/m.py
	run -0 --separate-stderr snip-new -n h proj/src/pk/m.py
	assert_equal "$(jq -r .module <<< "$output")" pk.m
	assert_stderr --partial 'imported from proj/src, its package root'
	# An absolute path inside the current directory is the same file.
	run -0 --separate-stderr snip-new -f -n g "$PWD/tools/scripts/s.py"
	assert_equal "$(jq -r .module <<< "$output")" tools.scripts.s
}

@test "ambiguous, missing and class names are refused" {
	cat > dup.py <<-'EOF'
	def f(): return 1
	def f(): return 2
	class C:
	    pass
	EOF
	run -1 --separate-stderr snip-new -n f dup.py
	assert_stderr 'snip-new: dup.py: f is defined 2 times (lines 1, 2): pick one with -l'
	run -0 bats_pipe snip-new -n f -l 2 dup.py \| jq -c '[.first_line, .last_line]'
	assert_output '[2,2]'
	run -1 --separate-stderr snip-new -n C dup.py
	assert_stderr 'snip-new: dup.py:3: C is a class: name one of its methods'
	run -1 --separate-stderr snip-new -n g dup.py
	assert_stderr 'snip-new: dup.py: no definition named g'
}

@test "malformed source: file:line:col and status 1, nothing written" {
	printf 'def f(image):\n    return (image\n' > bad.py
	run -1 --separate-stderr snip-new -n f bad.py
	assert_stderr "snip-new: bad.py:2:12: '(' was never closed"
	[ ! -e "$SNIPS" ]
}

@test "a gzip source gives the same snippet" {
	snip-new -n non_max_suppression -p nms "$SRC"
	mv "$SNIPS" plain
	gzip -c "$SRC" > src.gz && mv src.gz "$SRC"
	run -0 snip-new -n non_max_suppression -p nms "$SRC"
	assert_output - < "$FIXTURES/expected/nms.ndjson"
	diff -r plain "$SNIPS"
}

@test "the range table is editable; a bad one is a usage error" {
	printf '# mine\nmath\tcall\tnp.clip\n\nmath\tname\tinter\n' > t.tsv
	run -0 bats_pipe snip-new -r t.tsv -n box_iou "$SRC" \| jq -c '[.ranges[] | [.name, .first, .last]]'
	assert_output '[["box_iou math",29,29],["box_iou math",32,32]]'
	printf 'x\tcall\n' > bad.tsv
	run -2 --separate-stderr snip-new -r bad.tsv -n box_iou "$SRC"
	assert_stderr 'snip-new: bad.tsv:1: expected range<TAB>match<TAB>pattern'
	printf 'x\tcalls\ty\n' > bad.tsv
	run -2 --separate-stderr snip-new -r bad.tsv -n box_iou "$SRC"
	assert_stderr 'snip-new: bad.tsv:1: match is "call", "name" or "helper", not "calls"'
	printf 'x\tname\tto(*device*)\n' > bad.tsv
	run -2 --separate-stderr snip-new -r bad.tsv -n box_iou "$SRC"
	assert_stderr "snip-new: bad.tsv:1: a pattern with '(' is call<TAB>name(argument), as to(*device*)"
	MRP_RUBRIC=/nonexistent run -1 --separate-stderr snip-new -n box_iou "$SRC"
	assert_stderr --partial '/nonexistent/snippet-ranges.tsv: No such file'
}

@test "the README's nsys command is the one snip-run prints" {
	[ -x "${BUILD:-$TOP}/bin/snip-run" ] || skip "bin/snip-run is not built"
	snip-new -n non_max_suppression -p nms "$SRC"
	run -0 snip-run -p -i nsys "$SNIPS/nms/config.yaml"
	sed -n '/^## Nsight Systems/,$p' "$SNIPS/nms/README.md" | sed -n 's/^    //p' > readme.txt
	assert_output - < readme.txt
}

@test "a failed write exits 1" {
	run -1 --separate-stderr bash -c 'snip-new -n box_iou "$1" > /dev/full' _ "$SRC"
	assert_stderr --partial 'snip-new: <stdout>: write failed'
}

@test "man page EXAMPLES run" {
	mkdir images
	mapfile -t ex < <(man_examples snip-new.1)
	[ "${#ex[@]}" -eq 5 ]
	run -0 bash -c "${ex[0]}"
	assert_output $'non_max_suppression sort\nnon_max_suppression nms'
	run -0 bash -c "${ex[1]}"
	assert_output "$SNIPS/detectionpostprocessor-postprocess/config.yaml"
	snip-new -n letterbox_image -p letterbox "$SRC"
	run -0 bash -c "${ex[2]}"
	assert_output '[{"name":"letterbox_image lines 48-50","first":48,"last":50}]'
	cp "$TRACE" trace.json.gz
	run -0 bash -c "${ex[3]}"
	assert_output $'torch.ops.aten.addmm.default\naten::addmm 768 788x768 768x768 bf16'
	run -0 bash -c "${ex[4]}"
	assert_output '[[3072],[788,768],[768,3072],[],[]]'
}

# The part of target.py copied from the source, before the target class.
copied() {
	sed '/^class .*Target_*:$/,$d' "$1"
}

# Sets inputs.NAME of a config snip-new wrote to the YAML given, as a user
# edits it: set_input config.yaml NAME 'value: 2'.
set_input() {
	awk -v name="  $2:" -v with="    $3" '
		$0 == name { print; print with; skip = 1; next }
		skip && /^    / { next }
		{ skip = 0; print }' "$1" > "$1.new" && mv "$1.new" "$1"
}

# A stand-in for the runner's development.profiling.nvtx, so that a
# generated target.py can be imported.
stub_nvtx() {
	mkdir -p stub/development/profiling
	: > stub/development/__init__.py
	: > stub/development/profiling/__init__.py
	cat > stub/development/profiling/nvtx.py <<-'PY'
	import contextlib
	def profiling_range_if_cuda(name, device):
	    return contextlib.nullcontext()
	profiling_range = profiling_range_if_cuda
	PY
}

@test "a function nested in a function is refused, naming it and why; a top-level one imports" {
	command -v python3 >/dev/null || skip "no python3"
	mkdir -p pkg
	cat > pkg/mod.py <<-'PY'
	def outer(scale):
	    def inner(x, s=scale):
	        return x * s
	    return inner(2)


	class Box:
	    def area(self, w, h):
	        return w * h


	def plain(x):
	    return x + 1
	PY
	run -1 --separate-stderr snip-new -n outer.inner pkg/mod.py
	assert_output ''
	assert_stderr "snip-new: pkg/mod.py:2: outer.inner is nested in function outer: a copy at module level would lose the names of outer; profile outer instead"
	[ ! -e "$SNIPS" ]
	run -1 --separate-stderr snip-new -l 3 pkg/mod.py
	assert_stderr --partial 'outer.inner is nested in function outer'
	# Methods and module-level functions are copied, and import cleanly.
	stub_nvtx
	snip-new -n plain pkg/mod.py
	snip-new -n Box.area pkg/mod.py
	snip-new -n outer pkg/mod.py
	for t in "$SNIPS"/*/target.py; do
		PYTHONPATH=stub:. python3 -c 'import importlib.util as u, sys; s = u.spec_from_file_location("t", sys.argv[1]); m = u.module_from_spec(s); s.loader.exec_module(m); assert m.target.name' "$t"
	done
}

@test "a full disk leaves no half snippet: a rerun works without -f" {
	mkdir -p pkg
	printf 'def plain(x):\n    return x + 1\n' > pkg/mod.py
	# A file size limit of 512 bytes makes target.py's write fail (EFBIG).
	run -1 --separate-stderr bash -c 'trap "" XFSZ; ulimit -f 1; exec snip-new -n plain pkg/mod.py'
	assert_stderr --partial 'write failed: File too large'
	assert_output ''
	[ ! -e inference_profiling ]
	run -0 snip-new -n plain pkg/mod.py
	run -0 ls -A "$SNIPS/plain"
	assert_output $'README.md\nconfig.yaml\ntarget.py'
	# With -f an existing folder keeps what the runs left in it.
	mkdir "$SNIPS/plain/runs"
	run -0 snip-new -f -n plain pkg/mod.py
	[ -d "$SNIPS/plain/runs" ]
}

@test "an async function is awaited, an async generator collected, and both run" {
	mkdir -p pkg
	cat > pkg/mod.py <<-'PY'
	import asyncio
	async def coro(x):
	    await asyncio.sleep(0)
	    return x + 1
	async def agen(x):
	    for i in range(x):
	        yield i
	PY
	stub_nvtx
	snip-new -n coro pkg/mod.py
	snip-new -n agen pkg/mod.py
	run -0 env PYTHONPATH=stub:. python3 -c '
import importlib.util as u, sys
for name, want in (("coro", 4), ("agen", [0, 1, 2])):
    s = u.spec_from_file_location(name, sys.argv[1] + "/" + name + "/target.py")
    m = u.module_from_spec(s)
    s.loader.exec_module(m)
    out = m.target.run(((3,), {}))
    assert out == want, (name, out)
    m.target.validate(out)
print("ok")' "$SNIPS"
	assert_output ok
}

@test "the copy's own module-level target and PROFILE_DEVICE stay production's" {
	mkdir -p pkg
	: > pkg/__init__.py
	cat > pkg/mod.py <<-'PY'
	target = 3
	PROFILE_DEVICE = "x"
	class PlainTarget:
	    pass
	def plain(x):
	    y = x + target + len(PROFILE_DEVICE)
	    return (y, PlainTarget.__name__)
	PY
	stub_nvtx
	run -0 bats_pipe snip-new -n plain pkg/mod.py \| jq -r .target
	t=$output
	run -0 grep -c 'import PROFILE_DEVICE, PlainTarget, target' "$t"
	set_input "$SNIPS/plain/config.yaml" x 'value: 1'
	run -0 env PYTHONPATH=stub:. python3 -c '
import importlib.util as u, sys
s = u.spec_from_file_location("t", sys.argv[1])
m = u.module_from_spec(s)
s.loader.exec_module(m)
p = m.target_.prepare(None, device="cpu")
print(m.target, m.PROFILE_DEVICE, m.PROFILE_DEVICE_, m.target_.run(p), type(m.target_).__name__)' "$t"
	assert_output "3 x cpu (5, 'PlainTarget') PlainTarget_"
	run -0 grep -F 'import_path: inference_profiling/snippets/plain/target.py:target_' "$SNIPS/plain/config.yaml"
	run -0 grep -F 'the profiling target is `target_`' "$SNIPS/plain/README.md"
	run -0 snip-lint "$SNIPS/plain/config.yaml"
}

@test "a source CPython refuses for its tabs and spaces is refused, and no snippet made" {
	mkdir -p pkg
	printf 'def plain(x):\n\tif x:\n\t\treturn 1\n        return 2\n' > pkg/mod.py
	run -1 --separate-stderr snip-new -n plain pkg/mod.py
	assert_stderr 'snip-new: pkg/mod.py:4:9: inconsistent use of tabs and spaces in indentation'
	[ ! -e inference_profiling ]
}

@test "a source in another encoding keeps its declaration, so that target.py parses" {
	mkdir -p pkg
	printf '# -*- coding: latin-1 -*-\ndef greet(x):\n    return "caf\351 " + x\n' > pkg/mod.py
	# Line 2 after a blank line counts; a UTF-8 declaration needs none.
	printf '\n# vim: set fileencoding=cp1252 :\ndef greet2(x):\n    return "\200" + x\n' > pkg/mod2.py
	printf '# coding=utf_8\ndef greet3(x):\n    return "caf\303\251 " + x\n' > pkg/mod3.py
	stub_nvtx
	snip-new -n greet pkg/mod.py
	snip-new -n greet2 pkg/mod2.py
	snip-new -n greet3 pkg/mod3.py
	run -0 head -n 1 "$SNIPS/greet/target.py"
	assert_output '# -*- coding: latin-1 -*-'
	run -0 head -n 1 "$SNIPS/greet2/target.py"
	assert_output '# -*- coding: cp1252 -*-'
	run -0 head -n 1 "$SNIPS/greet3/target.py"
	assert_output '"""Profiling target for greet3.'
	run -0 env PYTHONPATH=stub:. python3 -c '
import importlib.util as u, sys
for name in ("greet", "greet2", "greet3"):
    s = u.spec_from_file_location(name, sys.argv[1] + "/" + name + "/target.py")
    m = u.module_from_spec(s)
    s.loader.exec_module(m)
    print(ascii(m.target.run((("x",), {}))))' "$SNIPS"
	assert_output - <<'OUT'
'caf\xe9 x'
'\u20acx'
'caf\xe9 x'
OUT
}

@test "-f that fails half-way leaves the snippet as it was" {
	mkdir -p pkg
	printf 'def plain(x=0):\n    return x + 1\n' > pkg/mod.py
	run -0 snip-new -n plain pkg/mod.py
	mkdir "$SNIPS/plain/runs"
	cp -R "$SNIPS/plain" before
	printf 'def plain(x=0):\n    return x + 2\n' > pkg/mod.py
	# 2 KiB: target.py and config.yaml fit, README.md does not.
	[ "$(wc -c < "$SNIPS/plain/target.py")" -lt 2048 ]
	[ "$(wc -c < "$SNIPS/plain/README.md")" -gt 2048 ]
	run -1 --separate-stderr bash -c 'trap "" XFSZ; ulimit -f 2; exec snip-new -f -n plain pkg/mod.py'
	assert_stderr --partial 'write failed: File too large'
	diff -r before "$SNIPS/plain"
	run -0 snip-new -f -n plain pkg/mod.py
	run -0 grep -c 'return x + 2' "$SNIPS/plain/target.py"
	run -0 ls -A "$SNIPS/plain"
	assert_output $'README.md\nconfig.yaml\nruns\ntarget.py'
}

@test "--from-trace: usage errors exit 2" {
	run -2 --separate-stderr snip-new --op aten::mm "$SRC"
	assert_stderr 'snip-new: --op and --nth go with --from-trace'
	run -2 --separate-stderr snip-new --from-trace "$TRACE" "$SRC"
	assert_stderr 'snip-new: --from-trace takes no file and none of -i, -l, -m, -n'
	run -2 --separate-stderr snip-new --from-trace "$TRACE" -n nms
	run -2 --separate-stderr snip-new --from-trace "$TRACE" --nth 0
	assert_stderr --partial '--nth'
	run -2 --separate-stderr snip-new --from-trace
	assert_stderr --partial 'usage: snip-new'
	assert_stderr --partial '--from-trace trace [--op name] [--nth k]'
	[ ! -e "$SNIPS" ]
}

@test "--from-trace: golden snippets of the ViT's costliest addmm, its next addmm and its patch convolution" {
	cp "$TRACE" trace.json.gz
	run -0 snip-new --from-trace trace.json.gz
	assert_output - < "$FIXTURES/expected/replay-addmm-1.ndjson"
	run -0 snip-new --from-trace trace.json.gz --op aten::addmm --nth 2
	assert_output - < "$FIXTURES/expected/replay-addmm-2.ndjson"
	run -0 snip-new --from-trace trace.json.gz --op aten::convolution
	assert_output - < "$FIXTURES/expected/replay-convolution-1.ndjson"
	for p in replay-addmm-1 replay-addmm-2 replay-convolution-1; do
		for f in target.py config.yaml README.md; do
			diff -u "$FIXTURES/expected/$p/$f" "$SNIPS/$p/$f"
		done
		run -0 check_target "$SNIPS/$p/target.py"
		run -0 snip-lint "$SNIPS/$p/config.yaml"
		assert_output ''
	done
	# The shapes the issue names: 788x768x768 and 788x3072x768 (MxNxK),
	# the convolution's stride 16 among its scalars.
	run -0 jq -c '[.range, .strides[1], .concrete[3:]]' "$FIXTURES/expected/replay-addmm-2.ndjson"
	assert_output '["aten::addmm 3072 788x768 768x3072 bf16",[768,1],["1","1"]]'
	grep -qxF '    ("value", [16, 16]),  # stride' "$SNIPS/replay-convolution-1/target.py"
}

@test "--from-trace: a gzip trace and its plain copy give the same snippet" {
	gzip -dc "$TRACE" > plain.json
	cp "$TRACE" trace.json.gz
	snip-new -p gz --from-trace trace.json.gz > /dev/null
	snip-new -p plain --from-trace plain.json > /dev/null
	diff <(sed 's/trace\.json\.gz/TRACE/g; s/gz/P/g; s/Gz/P/g' "$SNIPS/gz/target.py") \
	    <(sed 's/plain\.json/TRACE/g; s/plain/P/g; s/Plain/P/g' "$SNIPS/plain/target.py")
}

@test "--from-trace: a trace without GPU work ranks shapes by self CPU time" {
	run -0 snip-new -p cpu --from-trace "$TOP/fixtures/replay-check/replay-addmm-cpu.json.gz"
	run -0 jq -c '[.operator, .gpu, .gpu_us, .kernels, .range]' <<< "$output"
	assert_output '["aten::addmm",null,0,[],"aten::addmm 768 788x768 768x768 bf16"]'
	grep -qF 'the shape ranked 1 by self CPU time (the trace has no GPU work) among the shapes of every operator op-rank costs' "$SNIPS/cpu/README.md"
	grep -qF 'The trace records no GPU work under these calls' "$SNIPS/cpu/README.md"
}

@test "--from-trace: an operator op-rank does not cost, and one no row of the table fits, go the generic way" {
	cp "$TRACE" trace.json.gz
	run -0 snip-new --from-trace trace.json.gz --op aten::transpose
	run -0 jq -c '[.profile_name, .call, .dims, .concrete]' <<< "$output"
	assert_output '["replay-transpose-1",null,[[768,768],[],[]],["","0","1"]]'
	t="$SNIPS/replay-transpose-1/target.py"
	grep -qxF '    op = torch._C._jit_get_operation(OPERATOR)' "$t"
	grep -qxF '    ("value", 0),' "$t"
	grep -qF 'the operator table has no row for it' "$SNIPS/replay-transpose-1/README.md"
	run -0 check_target "$t"
}

@test "--from-trace: hostile names and arguments are refused or written as inert data" {
	local ev='{"ph":"X","cat":"cpu_op","pid":1,"tid":1,"dur":5'
	cat > hostile.json <<-EOF
	{"traceEvents":[
	$ev,"ts":10,"name":"aten::x\\"); __import__('os').system('id') #","args":{"Input Dims":[[2]],"Input type":["float"],"Concrete Inputs":[""]}},
	$ev,"ts":20,"name":"aten::add","args":{"Input Dims":[[2],[],[]],"Input type":["float","Scalar","Scalar"],"Concrete Inputs":["","__import__('os')","1"]}},
	$ev,"ts":30,"name":"aten::abs","args":{"Input Dims":[[2]],"Input type":["float'); import os #"],"Concrete Inputs":[""]}},
	$ev,"ts":40,"name":"aten::pow","args":{"Input Dims":[[2],[]],"Input type":["float","Scalar"],"Concrete Inputs":["","1e5); import os"]}},
	$ev,"ts":50,"name":"aten::clamp_min","args":{"Input Dims":[[2],[]],"Input type":["float","Scalar"],"Concrete Inputs":["","007"]}},
	$ev,"ts":60,"name":"aten::cat","args":{"Input Dims":[[[2],[2]],[]],"Input type":["TensorList","Scalar"],"Concrete Inputs":["","0"]}},
	$ev,"ts":70,"name":"aten::mm","args":{"Input Dims":[[1e400,2],[2,2]],"Input type":["float","float"],"Concrete Inputs":["",""]}}]}
	EOF
	run -1 --separate-stderr snip-new --from-trace hostile.json --op "aten::x\"); __import__('os').system('id') #"
	assert_stderr --partial "cannot be replayed: the operator's name \"aten::x\\\"); __import__('os').system('id') #\" is not NAMESPACE::NAME of Python identifiers"
	run -1 --separate-stderr snip-new --from-trace hostile.json --op aten::add
	assert_stderr "snip-new: hostile.json: aten::add cannot be replayed: input 1: Scalar \"__import__('os')\" is no number, bool or list of them"
	run -1 --separate-stderr snip-new --from-trace hostile.json --op aten::abs
	assert_stderr --partial "aten::abs cannot be replayed: input 0: float'); import os # is not replayed"
	run -1 --separate-stderr snip-new --from-trace hostile.json --op aten::pow
	assert_stderr --partial 'aten::pow cannot be replayed: input 1: Scalar "1e5); import os" is no number'
	run -1 --separate-stderr snip-new --from-trace hostile.json --op aten::cat
	assert_stderr --partial 'the trace recorded no input shapes of this operator'
	run -1 --separate-stderr snip-new --from-trace hostile.json --op aten::mm
	assert_stderr --partial 'no shapes of aten::mm to cost'
	# A number with leading zeros is written as the number it is.
	run -0 snip-new --from-trace hostile.json --op aten::clamp_min
	grep -qxF '    ("value", 7),  # min' "$SNIPS/replay-clamp-min-1/target.py"
	[ ! -e "$SNIPS/replay-add-1" ] && [ ! -e "$SNIPS/replay-abs-1" ]
}

@test "--from-trace: bad input exits 1 and writes nothing" {
	run -1 --separate-stderr snip-new --from-trace nonexistent.json
	assert_stderr --partial 'nonexistent.json'
	printf '{"traceEvents": [' > cut.json
	run -1 --separate-stderr snip-new --from-trace cut.json
	assert_stderr --regexp '^snip-new: cut.json:1:[0-9]+: '
	run -1 --separate-stderr snip-new --from-trace "$TOP/fixtures/tr-extract/torchcpu_cnn_sgd_head.json"
	assert_stderr --partial 'no shapes of the operators op-rank costs: op-rank costs the calls of a trace recorded with record_shapes=True'
	run -1 --separate-stderr snip-new --from-trace "$TRACE" --op aten::convolution --nth 2
	assert_stderr "snip-new: $TRACE: aten::convolution has 1 shape; --nth 2 is past them"
	run -1 --separate-stderr snip-new --from-trace "$TRACE" --op aten::softmax
	assert_stderr "snip-new: $TRACE: no call of aten::softmax"
	[ ! -e "$SNIPS" ]
}

@test "--from-trace: an existing snippet is replaced only with -f; a failed write exits 1" {
	snip-new --from-trace "$TRACE" > /dev/null
	run -1 --separate-stderr snip-new --from-trace "$TRACE"
	assert_stderr "snip-new: $SNIPS/replay-addmm-1: exists; -f replaces its target.py, config.yaml and README.md"
	run -0 snip-new -f -D cpu --from-trace "$TRACE"
	grep -qx 'device: cpu' "$SNIPS/replay-addmm-1/config.yaml"
	run -1 --separate-stderr bash -c 'snip-new -p full --from-trace "$1" > /dev/full' _ "$TRACE"
	assert_stderr --partial 'snip-new: <stdout>: write failed'
	printf 'aten::mm\tmm.default(self:tensor)\tsometimes\n' > bad.tsv
	run -2 --separate-stderr snip-new -r bad.tsv -p bad --from-trace "$TRACE"
	assert_stderr --partial 'snip-new: bad.tsv:1: expected NS::NAME<TAB>NAME.OVERLOAD(name:kind, ...)<TAB>any or cuda'
}
