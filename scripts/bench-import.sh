#!/usr/bin/env bash
# Times `speedmatrix report --in` on an llm-inference-bench file of 20,000
# cells (200 contexts × 100 concurrency levels, ~100 MB, written by the
# test helper bigLIBFile in engine/report from its real 0.4.18 file), with
# /usr/bin/time -v for wall time, CPU time and peak RSS; then sends it
# SIGINT after 2 s (SIGKILL 30 s later if it is still running) and prints
# how it ended. BENCHMARKS.md has the figures.
# Usage: bash scripts/bench-import.sh [BINARY]
set -euo pipefail
cd "$(dirname "$0")/.."
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT
bin=${1:-$work/speedmatrix}
[ -n "${1:-}" ] || go build -o "$bin" .
SPEEDMATRIX_BIG_LIB="$work/big.json" go test -count=1 -run '^TestWriteBigLIBFile$' ./engine/report/ >/dev/null
echo "file: $(du -m "$work/big.json" | cut -f1) MB, 20,000 decode cells; load average $(cut -d' ' -f1-3 /proc/loadavg)"
/usr/bin/time -v -o "$work/time" "$bin" report --in "$work/big.json" --out "$work/out" >/dev/null 2>&1
awk -F': ' '/Elapsed|User time|System time|Maximum resident/ { printf "  %s: %s\n", $1, $2 }' "$work/time" | sed 's/^ *\t*/  /'
start=$(date +%s.%N)
set +e
timeout --preserve-status -k 30 -s INT 2 "$bin" report --in "$work/big.json" --out "$work/sigint" >/dev/null 2>"$work/sigint.err"
rc=$?
set -e
echo "SIGINT after 2 s: exit code $rc after $(echo "$(date +%s.%N) - $start" | bc) s: $(grep -v 'Fyne\|At:' "$work/sigint.err" | tail -1)"
