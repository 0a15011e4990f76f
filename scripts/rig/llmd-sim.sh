#!/usr/bin/env bash
# llmd-sim.sh: installs llm-d-inference-sim (a vLLM simulator in Go that we
# did not write, the kind issue 39's reviewer ran) where
# scripts/bench-precision.sh looks for it:
# $RIG/peers/llm-d-inference-sim/llm-d-inference-sim (RIG defaults to
# ~/.cache/speedmatrix). It builds from the Go module proxy; nothing else
# is downloaded, and it needs no GPU and no tokenizer (the bench runs it
# with --force-dummy-tokenizer).
set -euo pipefail
cd "$(dirname "$0")/../.."
. scripts/goenv.sh
version=${LLMD_SIM_VERSION:-v0.10.2}
dir=${RIG:-$HOME/.cache/speedmatrix}/peers/llm-d-inference-sim
mkdir -p "$dir"
GOBIN=$dir go install "github.com/llm-d/llm-d-inference-sim/cmd/llm-d-inference-sim@$version"
echo "llm-d-inference-sim $version: $dir/llm-d-inference-sim"
