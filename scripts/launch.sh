#!/usr/bin/env bash
# Sets up what is missing, builds speedmatrix and opens the desktop app. On a
# machine without an NVIDIA GPU the app targets the built-in simulator.
set -euo pipefail
cd "$(dirname "$0")/.."
bash scripts/deps.sh
. scripts/goenv.sh
echo "build: go build -o speedmatrix . (a first build compiles the C parts of Fyne and go-nvml: 8 to 12 minutes on 2 busy cores, measured 2026-12-04)"
go build -o speedmatrix .
exec ./speedmatrix "$@"
