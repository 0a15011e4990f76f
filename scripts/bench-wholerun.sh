#!/usr/bin/env bash
# Measures a whole `speedmatrix run` (client side: streaming, token counting,
# loop detection, arrival records, /metrics at 4 Hz, telemetry sampling,
# saving) per token: 128 streams of one token per chunk at about 1 ms per
# token each, against `speedmatrix sim` in a separate process, so the CPU
# time /usr/bin/time reports is the client's alone.
# Usage: bash scripts/bench-wholerun.sh [BINARY] [extra run flags]
set -euo pipefail
cd "$(dirname "$0")/.."
bin=${1:-./speedmatrix}
shift || true
port=8121
./speedmatrix sim --profile gemma-4-e2b-rtxpro6000 --time-scale 15 --addr 127.0.0.1:$port >/dev/null 2>&1 &
sim=$!
trap 'kill $sim 2>/dev/null' EXIT
sleep 1
generated() { curl -s 127.0.0.1:$port/metrics | awk '/^vllm:generation_tokens_total/ { print $2 }'; }
out=$(mktemp -d)
before=$(generated)
/usr/bin/time -f "%U %S %e" -o "$out/time" "$bin" run --endpoint http://127.0.0.1:$port --out "$out/run" \
	--prefill-contexts none --contexts 8K --concurrency 128 --duration 20s --max-output 4096 "$@" >/dev/null
after=$(generated)
read -r user sys wall <"$out/time"
awk -v u="$user" -v s="$sys" -v w="$wall" -v a="$after" -v b="$before" 'BEGIN {
	t = a - b
	printf "tokens %d in %.1f s (%.0f tok/s), client CPU %.2f s (user %.2f, sys %.2f): %.2f µs per token\n", t, w, t / w, u + s, u, s, (u + s) / t * 1e6 }'
rm -rf "$out"
