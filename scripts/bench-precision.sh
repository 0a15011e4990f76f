#!/usr/bin/env bash
# bench-precision.sh OUTDIR [PART...]: adaptive windows (--precision 1%)
# beside fixed ones (--precision off), side by side (BENCHMARKS.md,
# "Adaptive windows"). Parts, in this order by default:
#   sim       the Standard plan on `speedmatrix sim --profile
#             gemma-4-e2b-rtxpro6000` (noise on): each run's wall time, and
#             each decode cell's figures compared (about 30 min; simulated)
#   mock      the same on GuideLLM's `guidellm mock-server` (PyPI; a server
#             we did not write: 10 ms ± 1 ms between tokens, normal), decode
#             at 512 and 2K × 1, 4, 16, 30-s windows; needs GuideLLM
#             (scripts/rig/peers.sh installs it; or set GUIDELLM)
#   noisy     the same with the mock's noise between tokens raised to ±30 %
#             and its pace doubled (5 ms ± 1.5 ms, the reviewer's vLLM
#             simulator of issue 39)
#   noisy-llmd  the same plan at 5 ms ± 1.5 ms on llm-d-inference-sim
#             v0.10.2 (a vLLM simulator in Go we did not write, the kind
#             issue 39's reviewer ran): its pace between tokens is Go's
#             timers, where the Python mock's adds the event loop's own
#             jitter on a shared machine; needs LLMD_SIM or
#             scripts/rig/llmd-sim.sh
#   vllm      the same on the real-vLLM rig's vLLM (its CPU build serving
#             the tiny Llama, as scripts/real-vllm.sh starts it) with a plan
#             that fits it: prefill and decode at PRECISION_VLLM_CONTEXTS
#             (512,2K; prefill 3 repeats) × PRECISION_VLLM_CONCURRENCY
#             (1,4,16), 30-s windows, 512 output tokens; needs the rig (run
#             scripts/real-vllm.sh once first, or set RIG)
#   coverage-sim   one noisy cell (PRECISION_CELL_PROFILE
#             gemma-4-e2b-rtxpro6000, PRECISION_CELL 128K × 1) measured
#             PRECISION_REPEATS (20) times on simulators of different seeds,
#             with fixed 30-s windows and with adaptive ones (simulated)
#   coverage-mock  one cell (PRECISION_MOCK_CELL 1K × 8) on one GuideLLM
#             mock server (5 ms ± 1.5 ms, as noisy), PRECISION_REPEATS times
#             each way, fixed and adaptive runs alternating
#   coverage-llmd  the reviewer's repeats of issue 39: one cell
#             (PRECISION_MOCK_CELL 1K × 8) on one llm-d-inference-sim at
#             4 ms ± 1.2 ms, PRECISION_REPEATS times each way, alternating
# Each part writes OUTDIR/PART/precision.md (scripts/precision_compare.py);
# the comparisons write OUTDIR/PART/summary.json, and the end
# OUTDIR/targets.md and OUTDIR/coverage.md from whatever OUTDIR holds.
# SPEEDMATRIX_BIN names a binary already built, so that two runs of the
# script may share OUTDIR.
set -euo pipefail
[ $# -ge 1 ] || { echo "usage: scripts/bench-precision.sh OUTDIR [sim|mock|noisy|noisy-llmd|vllm|coverage-sim|coverage-mock|coverage-llmd ...]" >&2; exit 2; }
cd "$(dirname "$0")/.."
out=$1
shift
parts=${*:-sim mock noisy noisy-llmd vllm coverage-sim coverage-mock coverage-llmd}
case ${PRECISION_REPEATS:-20} in
'' | *[!0-9]* | 0*) echo "PRECISION_REPEATS=${PRECISION_REPEATS:0:40} is not a number of repeats: give a whole number from 1, such as 20" >&2; exit 2 ;;
esac
mkdir -p "$out"
out=$(cd "$out" && pwd)
sm=${SPEEDMATRIX_BIN:-$out/speedmatrix}
[ -n "${SPEEDMATRIX_BIN:-}" ] || (. scripts/goenv.sh && go build -o "$sm" .)
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
	$compare pair "$dir/1%/report.json" "$dir/off/report.json" "$dir/summary.json" | tee "$dir/precision.md"
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

# mock_server PORT ITL ITL_STD LOG: GuideLLM's mock server in the
# background, ITL ms ± ITL_STD ms (normal) between tokens.
mock_server() {
	local guidellm=${GUIDELLM:-${RIG:-$HOME/.cache/speedmatrix}/peers/guidellm/bin/guidellm}
	[ -x "$guidellm" ] || { echo "no guidellm at $guidellm: run scripts/rig/peers.sh once, or set GUIDELLM" >&2; return 2; }
	HF_HUB_OFFLINE=1 "$guidellm" mock-server --host 127.0.0.1 --port "$1" --model mock \
		--ttft-ms 50 --itl-ms "$2" --itl-ms-std "$3" >"$4" 2>&1 &
}

# llmd_server PORT ITL ITL_STD LOG: llm-d-inference-sim in the background,
# ITL ms ± ITL_STD ms between tokens, 50 ms to the first, room for every
# stream of the plans here (64 at once, 100,000 blocks of KV cache), and
# no tokenizer to download.
llmd_server() {
	local sim=${LLMD_SIM:-${RIG:-$HOME/.cache/speedmatrix}/peers/llm-d-inference-sim/llm-d-inference-sim}
	[ -x "$sim" ] || { echo "no llm-d-inference-sim at $sim: run scripts/rig/llmd-sim.sh once, or set LLMD_SIM" >&2; return 2; }
	"$sim" --model mock --port "$1" --time-to-first-token 50ms --inter-token-latency "${2}ms" \
		--inter-token-latency-std-dev "${3}ms" --max-num-seqs 64 --max-model-len 16384 \
		--kv-cache-size 100000 --force-dummy-tokenizer >"$4" 2>&1 &
}

# part_mock_with NAME ITL ITL_STD [SERVER]: the mock part with that time
# between tokens, on GuideLLM's mock server (mock_server) or SERVER
# (llmd_server).
part_mock_with() {
	mkdir -p "$out/$1"
	local port
	port=$(free_port)
	"${4:-mock_server}" "$port" "$2" "$3" "$out/$1/server.log"
	local server=$!
	# The server dies with the script, however the part ends.
	trap "kill $server 2>/dev/null || true" EXIT
	wait_health "$port" 60
	pair "$out/$1" --endpoint "http://127.0.0.1:$port" --model mock --prefill-contexts none \
		--contexts 512,2K --concurrency 1,4,16 --duration 30s --max-output 512
	kill $server 2>/dev/null || true
	trap - EXIT
}

part_mock() { part_mock_with mock 10 1; }
part_noisy() { part_mock_with noisy 5 1.5; }
part_noisy_llmd() { part_mock_with noisy-llmd 5 1.5 llmd_server; }

part_coverage_sim() {
	local profile=${PRECISION_CELL_PROFILE:-gemma-4-e2b-rtxpro6000} cell=${PRECISION_CELL:-128K}
	local conc=${PRECISION_CELL_CONCURRENCY:-1} n=${PRECISION_REPEATS:-20}
	mkdir -p "$out/coverage-sim"
	for p in off 1%; do
		mkdir -p "$out/coverage-sim/$p"
		for i in $(seq 1 "$n"); do
			local port dir=$out/coverage-sim/$p/$i
			port=$(free_port)
			"$sm" sim --profile "$profile" --seed "$i" --addr "127.0.0.1:$port" >"$out/coverage-sim/sim.log" 2>&1 &
			local server=$!
			trap "kill $server 2>/dev/null || true" EXIT
			wait_health "$port" 50
			"$sm" run --endpoint "http://127.0.0.1:$port" --prefill-contexts none --contexts "$cell" \
				--concurrency "$conc" --duration 30s --precision "$p" --out "$dir" >"$dir.log" 2>&1 ||
				{ tail -3 "$dir.log" >&2; kill $server; return 1; }
			kill $server
			wait $server 2>/dev/null || true
			trap - EXIT
			echo "coverage-sim $p run $i: $(grep -o 'Valid ·[^·]*' "$dir.log" | head -1)"
		done
	done
}

# part_coverage_mock [NAME SERVER ITL ITL_STD]: coverage-mock, or the same
# repeats on another server.
part_coverage_mock() {
	local cell=${PRECISION_MOCK_CELL:-1K} conc=${PRECISION_MOCK_CONCURRENCY:-8} n=${PRECISION_REPEATS:-20}
	local name=${1:-coverage-mock}
	mkdir -p "$out/$name"
	local port
	port=$(free_port)
	"${2:-mock_server}" "$port" "${3:-5}" "${4:-1.5}" "$out/$name/server.log"
	local server=$!
	trap "kill $server 2>/dev/null || true" EXIT
	wait_health "$port" 60
	# Fixed and adaptive runs alternate, so that a slow minute of the
	# machine falls on both.
	for i in $(seq 1 "$n"); do
		for p in off 1%; do
			local dir=$out/$name/$p/$i
			mkdir -p "$out/$name/$p"
			"$sm" run --endpoint "http://127.0.0.1:$port" --model mock --prefill-contexts none --contexts "$cell" \
				--concurrency "$conc" --duration 30s --max-output 512 --precision "$p" --out "$dir" >"$dir.log" 2>&1 ||
				{ tail -3 "$dir.log" >&2; kill $server; return 1; }
			echo "$name $p run $i: $(grep -o 'Valid ·[^·]*' "$dir.log" | head -1)"
		done
	done
	kill $server 2>/dev/null || true
	trap - EXIT
}

for part in $parts; do
	case $part in
	sim | mock | noisy | vllm) "part_$part" ;;
	noisy-llmd | coverage-sim | coverage-mock) "part_${part/-/_}" ;;
	coverage-llmd) part_coverage_mock coverage-llmd llmd_server 4 1.2 ;;
	*) echo "unknown part $part: use sim, mock, noisy, noisy-llmd, vllm, coverage-sim, coverage-mock or coverage-llmd" >&2; exit 2 ;;
	esac
done
$compare targets "$out" | tee "$out/targets.md"
cov=()
for d in coverage-sim coverage-mock coverage-llmd; do
	case $d in
	coverage-sim) name="the simulator (seeds 1–20)" ;;
	coverage-mock) name="GuideLLM's mock server, 5 ms ± 1.5 ms" ;;
	coverage-llmd) name="llm-d-inference-sim, 4 ms ± 1.2 ms" ;;
	esac
	for p in off 1%; do
		[ -d "$out/$d/$p" ] && cov+=("$name=$out/$d/$p")
	done
done
[ ${#cov[@]} -eq 0 ] || $compare coverage "${cov[@]}" | tee "$out/coverage.md"
