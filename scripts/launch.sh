#!/usr/bin/env bash
# Sets up what is missing, builds speedmatrix and opens the desktop app. On a
# machine without an NVIDIA GPU the app targets the built-in simulator.
set -euo pipefail
cd "$(dirname "$0")/.."
bash scripts/deps.sh
. scripts/goenv.sh
echo "build: go build -o speedmatrix . (a first build compiles Fyne's cgo parts: FIRSTBUILD)"
go build -o speedmatrix .
exec ./speedmatrix "$@"
