#!/usr/bin/env bash
# bench-precision.sh OUTDIR [PART...]: adaptive windows (--precision 1%)
# beside fixed ones (--precision off), side by side in one run
# (BENCHMARKS.md, "Adaptive windows"). Parts, in this order by default:
#   sim       the Standard plan on `speedmatrix sim --profile
#             gemma-4-e2b-rtxpro6000` (noise on): each run's wall time, and
#             each decode cell's figures compared (about 30 min; simulated)
#   vllm      the same on the real-vLLM rig's vLLM (its CPU build serving
#             the tiny Llama, as scripts/real-vllm.sh starts it) with a plan
#             that fits it: prefill and decode at PRECISION_VLLM_CONTEXTS
#             (512,2K; prefill 3 repeats) × PRECISION_VLLM_CONCURRENCY
#             (1,4,16), 30-s windows, 512 output tokens; needs the rig (run
#             scripts/real-vllm.sh once first, or set RIG)
#   mock      the same on GuideLLM's `guidellm mock-server` (PyPI; a server
#             we did not write: 10 ms ± 1 ms between tokens, normal), decode
#             at 512 and 2K × 1, 4, 16, 30-s windows; needs GuideLLM
#             (scripts/rig/peers.sh installs it; or set GUIDELLM)
#   coverage  one noisy cell (PRECISION_CELL_PROFILE gemma-4-e2b-rtxpro6000,
#             PRECISION_CELL 128K × 1) measured PRECISION_REPEATS (20)
#             times on simulators of different seeds, with fixed 30-s
#             windows and with adaptive ones: how many runs' 95 % intervals
#             hold the mean of all (simulated)
# Each part writes OUTDIR/PART/precision.md (scripts/precision_compare.py).
set -euo pipefail
[ $# -ge 1 ] || { echo "usage: scripts/bench-precision.sh OUTDIR [sim|vllm|mock|coverage ...]" >&2; exit 2; }
cd "$(dirname "$0")/.."
out=$1
shift
parts=${*:-sim vllm mock coverage}
mkdir -p "$out"
out=$(cd "$out" && pwd)
(. scripts/goenv.sh && go build -o "$out/speedmatrix" .)
sm=$out/speedmatrix
compare="python3 scripts/precision_compare.py"

free_port() { python3 -c 'import socket; s = socket.socket(); s.bind(("127.0.0.1", 0)); print(s.getsockname()[1])'; }
wait_health() { # PORT TRIES
	for _ in $(seq 1 "$2"); do curl -sf "http://127.0.0.1:$1/health" >/dev/null && return 0; sleep 1; done
	echo "the server on port $1 did not answer /health (see $out)" >&2
	return 1
}

# pair DIR RUN-ARGS...: the same plan with --precision 1% and off, one after
# the other, then the comparison.
pair() {
	local dir=$1
	shift
	for p in 1% off; do
		echo "== $dir: --precision $p"
		"$sm" run "$@" --precision "$p" --out "$dir/$p" >"$dir/$p.log" 2>&1 || { tail -3 "$dir/$p.log" >&2; return 1; }
		tail -1 "$dir/$p.log"
	done
	$compare pair "$dir/1%/report.json" "$dir/off/report.json" | tee "$dir/precision.md"
}

part_sim() {
	mkdir -p "$out/sim"
	pair "$out/sim" --sim gemma-4-e2b-rtxpro6000
}

part_vllm() {
	local rig=${RIG:-$HOME/.cache/speedmatrix}
	local venv=$rig/venv tokenizer=$rig/model/tiny-llama
	[ -x "$venv/bin/vllm" ] && [ -f "$tokenizer/tokenizer_config.json" ] ||
		{ echo "no rig in $rig (vllm venv and tiny-llama tokenizer): run bash scripts/real-vllm.sh OUTDIR once, or set RIG" >&2; return 2; }
	mkdir -p "$out/vllm"
	local port
	port=$(free_port)
	# A shell job in this session, not a session of its own: see real-vllm.sh.
	set -m
	(cd "$rig" && HF_HUB_OFFLINE=1 exec "$venv/bin/vllm" serve "$tokenizer" --served-model-name tiny-llama \
		--host 127.0.0.1 --port "$port" --max-model-len 4096 --dtype bfloat16 \
		--kv-cache-memory-bytes 33554432) >"$out/vllm/vllm.log" 2>&1 &
	local server=$!
	set +m
	trap "kill -INT -- -$server 2>/dev/null; sleep 3; kill -KILL -- -$server 2>/dev/null || true" EXIT
	wait_health "$port" 300
	local contexts=${PRECISION_VLLM_CONTEXTS:-512,2K}
	pair "$out/vllm" --endpoint "http://127.0.0.1:$port" --model tiny-llama --prefill-contexts "$contexts" \
		--prefill-repeats 3 --contexts "$contexts" --concurrency "${PRECISION_VLLM_CONCURRENCY:-1,4,16}" \
		--duration 30s --max-output 512
	kill -INT -- -"$server" 2>/dev/null || true
	sleep 3
	kill -KILL -- -"$server" 2>/dev/null || true
	trap - EXIT
}

part_mock() {
	local guidellm=${GUIDELLM:-${RIG:-$HOME/.cache/speedmatrix}/peers/guidellm/bin/guidellm}
	[ -x "$guidellm" ] || { echo "no guidellm at $guidellm: run scripts/rig/peers.sh once, or set GUIDELLM" >&2; return 2; }
	mkdir -p "$out/mock"
	local port
	port=$(free_port)
	HF_HUB_OFFLINE=1 "$guidellm" mock-server --host 127.0.0.1 --port "$port" --model mock \
		--ttft-ms 50 --itl-ms 10 --itl-ms-std 1 >"$out/mock/server.log" 2>&1 &
	local server=$!
	wait_health "$port" 60
	pair "$out/mock" --endpoint "http://127.0.0.1:$port" --model mock --prefill-contexts none \
		--contexts 512,2K --concurrency 1,4,16 --duration 30s --max-output 512
	kill $server 2>/dev/null || true
}

part_coverage() {
	local profile=${PRECISION_CELL_PROFILE:-gemma-4-e2b-rtxpro6000} cell=${PRECISION_CELL:-128K}
	local conc=${PRECISION_CELL_CONCURRENCY:-1} n=${PRECISION_REPEATS:-20}
	mkdir -p "$out/coverage"
	for p in off 1%; do
		mkdir -p "$out/coverage/$p"
		for i in $(seq 1 "$n"); do
			local port dir=$out/coverage/$p/$i
			port=$(free_port)
			"$sm" sim --profile "$profile" --seed "$i" --addr "127.0.0.1:$port" >"$out/coverage/sim.log" 2>&1 &
			local server=$!
			wait_health "$port" 50
			"$sm" run --endpoint "http://127.0.0.1:$port" --prefill-contexts none --contexts "$cell" \
				--concurrency "$conc" --duration 30s --precision "$p" --out "$dir" >"$dir.log" 2>&1 ||
				{ tail -3 "$dir.log" >&2; kill $server; return 1; }
			kill $server
			wait $server 2>/dev/null || true
			echo "$p run $i: $(grep -o 'Valid ·[^·]*' "$dir.log" | head -1)"
		done
	done
	$compare coverage "$out/coverage/off" "$out/coverage/1%" | tee "$out/coverage/precision.md"
}

for part in $parts; do
	case $part in
	sim | vllm | mock | coverage) "part_$part" ;;
	*) echo "unknown part $part: use sim, vllm, mock or coverage" >&2; exit 2 ;;
	esac
done
