#!/usr/bin/env bash
# ttft-against-server.sh TRACE.jsonl OUTDIR [ROUNDS]: speedmatrix and vllm
# bench serve replay one Mooncake trace in turn, ROUNDS times (2), on one
# vLLM the rig starts (its venv and tiny model: run scripts/real-vllm.sh
# once first); around each run the server's own TTFT histogram is read, so
# that each tool's TTFT is set beside the server's for the same requests.
# Prints one line per run. BENCHMARKS.md, "Trace replay and conversations".
set -u
cd "$(dirname "$0")/../.."
[ $# -ge 2 ] || { echo "usage: scripts/rig/ttft-against-server.sh TRACE.jsonl OUTDIR [ROUNDS]" >&2; exit 2; }
trace=$(realpath "$1"); out=$2; rounds=${3:-2}
RIG=${RIG:-$HOME/.cache/speedmatrix}; venv=$RIG/venv; model=$RIG/model/tiny-llama
[ -x "$venv/bin/vllm" ] || { echo "no rig in $RIG: run scripts/real-vllm.sh first" >&2; exit 2; }
mkdir -p "$out" && out=$(realpath "$out")
n=$(grep -c . "$trace")
(. scripts/goenv.sh && go build -o "$out/speedmatrix" .) || exit 1
port=$(python3 -c 'import socket; s=socket.socket(); s.bind(("127.0.0.1", 0)); print(s.getsockname()[1])')
url=http://127.0.0.1:$port
set -m
(cd "$RIG" && HF_HUB_OFFLINE=1 exec "$venv/bin/vllm" serve "$model" --served-model-name tiny-llama --host 127.0.0.1 --port "$port" \
	--max-model-len 4096 --dtype bfloat16 --kv-cache-memory-bytes 33554432) >"$out/vllm.log" 2>&1 &
server=$!
set +m
trap 'kill -INT -- -$server 2>/dev/null; sleep 3; kill -KILL -- -$server 2>/dev/null' EXIT
for _ in $(seq 1 300); do curl -sf "$url/health" >/dev/null && break; sleep 1; done
hist() { curl -s "$url/metrics" | awk '/^vllm:time_to_first_token_seconds_sum\{/ {s += $2} /^vllm:time_to_first_token_seconds_count\{/ {c += $2} END {printf "%.6f %d\n", s, c}'; }
for round in $(seq 1 "$rounds"); do
	for tool in speedmatrix vllm; do
		before=$(hist)
		if [ $tool = speedmatrix ]; then
			"$out/speedmatrix" load --endpoint "$url" --api completions --trace "$trace" --out "$out/sm$round" >"$out/sm$round.log" 2>&1
			mine=$(python3 -c "import json; r = json.load(open('$out/sm$round/report.json'))['load']['results'][0]['ttft_ms']; print(f\"mean {r['mean']:.1f} ms, p50 {r['p50']:.1f} ms\")")
		else
			"$venv/bin/vllm" bench serve --backend vllm --base-url "$url" --endpoint /v1/completions --model tiny-llama --tokenizer "$model" \
				--dataset-name timed_trace --dataset-path "$trace" --timed-trace-chunk-hash-size 512 --timed-trace-sec-multiplier 0.001 \
				--num-prompts "$n" --temperature 0 --disable-tqdm --save-result --result-dir "$out/vb$round" --result-filename result.json >"$out/vb$round.log" 2>&1
			mine=$(python3 -c "import json; r = json.load(open('$out/vb$round/result.json')); print(f\"mean {r['mean_ttft_ms']:.1f} ms, p50 {r['median_ttft_ms']:.1f} ms\")")
		fi
		after=$(hist)
		python3 -c "
b, a = '$before'.split(), '$after'.split()
n = int(a[1]) - int(b[1])
print(f'round $round, $tool: TTFT $mine; the server: mean {(float(a[0]) - float(b[0])) / max(n, 1) * 1000:.1f} ms over {n} requests')"
		sleep 5
	done
done
