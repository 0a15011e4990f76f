#!/usr/bin/env bash
# Measures what the quality phase costs beside a Standard matrix run, side by
# side in one run: records a quality reference of the simulator at the
# defaults (speedmatrix quality: 512, 2K, 8K; 8 probes of 128 tokens; 20
# needle trials a context; the recording is not counted), then runs the
# Standard matrix (run's defaults) against the same simulator profile with
# --quality-reference at its defaults, and reads from the run's output the
# phase's time ("quality phase: done in …") and the whole run's ("done: …
# in …"). Prints the cells' time, the phase's time and their ratio. Every
# figure is simulated (the simulator answers in real time, its GPU
# simulated); on a busy machine the adaptive windows take longer, which
# lowers the ratio a little: run it on a quiet machine.
# Usage: bash scripts/bench-quality-cost.sh [BINARY] [PROFILE] [WORKDIR]
# (defaults: ./speedmatrix, gemma-4-e2b-rtxpro6000, a temporary folder)
set -euo pipefail
bin=$(realpath "${1:-./speedmatrix}")
profile=${2:-gemma-4-e2b-rtxpro6000}
work=${3:-$(mktemp -d)}
mkdir -p "$work"
ref=$work/ref.quality.json
[ -f "$ref" ] || "$bin" quality --sim "$profile" --save-reference "$ref" >"$work/record.log"
"$bin" run --sim "$profile" --out "$work/standard" --quality-reference "$ref" | tee "$work/run.log" | grep -v ': probe [0-9]* of'
# seconds of a Go duration: 14m32s, 1h2m3s, 41s, 850ms
secs() { sed -E 's/([0-9.]+)h/\1*3600+/; s/([0-9.]+)ms/\1\/1000+/; s/([0-9.]+)m/\1*60+/; s/([0-9.]+)s/\1+/; s/\+$//' <<<"$1" | bc -l; }
phase=$(secs "$(sed -nE 's/^quality phase: done in (.*)$/\1/p' "$work/run.log")")
total=$(secs "$(sed -nE 's/^done: .* in ([^;]*);.*$/\1/p' "$work/run.log")")
cells=$(bc -l <<<"$total - $phase")
printf 'simulated (%s): Standard matrix %.0f s, quality phase %.0f s at the defaults: %.1f %% of the matrix\n' \
	"$profile" "$cells" "$phase" "$(bc -l <<<"100 * $phase / $cells")"
