#!/usr/bin/env bash
# bench-load-agreement.sh OUTDIR: `speedmatrix load` and `vllm bench serve`
# side by side on Speed Matrix's simulator, at the same request rate,
# request count, lengths and seed, for Poisson and constant arrivals: each
# pair's request throughput, median TTFT and median TPOT (BENCHMARKS.md,
# "A load test beside vllm bench serve"). It runs scripts/rig/peers.sh in
# its load-test mode against `speedmatrix sim --profile tiny`, so it needs
# the real-vLLM rig's venv (vllm bench) and tokenizer: run
# scripts/real-vllm.sh once first, or set RIG. On the simulator every figure
# is simulated.
#
# AGREE_TARGET=vllm measures the rig's real vLLM (its CPU build serving the
# tiny Llama, started as scripts/real-vllm.sh starts its hand server)
# instead, at 1 request/s and 60 requests unless set.
#
# Environment: RIG (default ~/.cache/speedmatrix); AGREE_RATE (default 8
# requests/s, about a third of tiny's capacity for these lengths), AGREE_REQUESTS
# (default 400), AGREE_IN / AGREE_OUT (default 512 / 128 tokens), AGREE_TOOLS
# (default "speedmatrix vllm": the order they run in).
set -euo pipefail
[ $# -eq 1 ] || { echo "usage: scripts/bench-load-agreement.sh OUTDIR" >&2; exit 2; }
cd "$(dirname "$0")/.."
out=$1
rig=${RIG:-$HOME/.cache/speedmatrix}
venv=$rig/venv
tokenizer=$rig/model/tiny-llama
[ -x "$venv/bin/vllm" ] && [ -f "$tokenizer/tokenizer_config.json" ] ||
	{ echo "no rig in $rig (vllm venv and tiny-llama tokenizer): run bash scripts/real-vllm.sh OUTDIR once, or set RIG" >&2; exit 2; }
mkdir -p "$out"
out=$(cd "$out" && pwd)
(. scripts/goenv.sh && go build -o "$out/speedmatrix" .)

port=$(python3 -c 'import socket; s = socket.socket(); s.bind(("127.0.0.1", 0)); print(s.getsockname()[1])')
model=tiny rate=${AGREE_RATE:-8} requests=${AGREE_REQUESTS:-400}
if [ "${AGREE_TARGET:-sim}" = vllm ]; then
	model=tiny-llama rate=${AGREE_RATE:-1} requests=${AGREE_REQUESTS:-60}
	# A shell job in this session, not a session of its own: see real-vllm.sh.
	set -m
	(cd "$rig" && HF_HUB_OFFLINE=1 exec "$venv/bin/vllm" serve "$tokenizer" --served-model-name tiny-llama \
		--host 127.0.0.1 --port "$port" --max-model-len 4096 --dtype bfloat16 \
		--kv-cache-memory-bytes 33554432) >"$out/vllm.log" 2>&1 &
	server=$!
	set +m
	trap 'kill -INT -- -$server 2>/dev/null; sleep 3; kill -KILL -- -$server 2>/dev/null || true' EXIT
	tries=300
else
	"$out/speedmatrix" sim --profile tiny --addr "127.0.0.1:$port" >"$out/sim.log" 2>&1 &
	server=$!
	trap 'kill $server 2>/dev/null || true' EXIT
	tries=50
fi
for _ in $(seq 1 $tries); do curl -sf "http://127.0.0.1:$port/health" >/dev/null && break; sleep 1; done
curl -sf "http://127.0.0.1:$port/health" >/dev/null || { echo "the server did not answer /health (see $out)" >&2; exit 1; }

for arrivals in poisson constant; do
	echo "== $arrivals"
	PEERS_RATE=$rate PEERS_PROMPTS=$requests PEERS_ARRIVALS=$arrivals \
		PEERS_TOOLS=${AGREE_TOOLS:-"speedmatrix vllm"} VLLM_VENV=$venv SPEEDMATRIX=$out/speedmatrix \
		bash scripts/rig/peers.sh "http://127.0.0.1:$port" "$model" "$tokenizer" "$out/$arrivals" 1 \
		"${AGREE_IN:-512}" "${AGREE_OUT:-128}"
	sed -n '/^## Agreement/,$p' "$out/$arrivals/side-by-side.md"
done
