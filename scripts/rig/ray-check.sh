#!/usr/bin/env bash
# ray-check.sh [OUTDIR]: checks Speed Matrix's Ray cluster check against a
# real Ray. It sets up a venv with PyPI's ray in $RIG/ray-venv when missing
# (RIG=~/.cache/speedmatrix), starts a head on a free loopback port with one
# CPU and no GPU, then
#   - runs TestRealRay (engine/launch): ray status of the live head parses; one
#     GPU more than it has free is refused with "has N free GPUs … needs N+1";
#     an address nobody serves is refused within the check's 30 s;
#   - runs `speedmatrix run --launch` on a server.toml asking
#     tensor_parallel_size = 2 on that head, which must fail with the
#     not-enough-GPUs message before the (stand-in) vllm starts;
# and stops the head whatever happens. It prints one `PASS ray: …` or
# `FAIL ray: …` line per check and exits 1 if any failed. What it recorded
# (ray status outputs, logs) goes to OUTDIR/ray.
#
# vLLM's CPU platform has no Ray executor, so no vLLM runs on this Ray.
# Real vllm, if you set SPEEDMATRIX_BIN to a built speedmatrix, is not needed
# either: the stand-in proves the check comes first.
set -uo pipefail
cd "$(dirname "$0")/../.."
export PATH="$PATH:/usr/local/go/bin"
RIG=${RIG:-$HOME/.cache/speedmatrix}
OUT=${1:-$(mktemp -d /tmp/ray-check.XXXX)}/ray
mkdir -p "$OUT"
OUT=$(cd "$OUT" && pwd)
VENV=$RIG/ray-venv
RAY=$VENV/bin/ray

CHECK=ray
. scripts/rig/lib.sh

# Ray replaces 127.0.0.1 in an address by this machine's routable one, where
# a head bound to loopback does not listen, unless it believes it runs
# without clusters (as on macOS); and it sends no usage statistics.
export RAY_ENABLE_WINDOWS_OR_OSX_CLUSTER=0 RAY_USAGE_STATS_ENABLED=0
unset RAY_ADDRESS

if [ ! -x "$RAY" ]; then
	mkdir -p "$RIG"
	if ! { python3 -m venv "$VENV" && nice "$VENV/bin/pip" install ray; } > "$OUT/pip-install.log" 2>&1; then
		fail "pip install ray into $VENV failed: $(tail -1 "$OUT/pip-install.log")"
		exit 1
	fi
fi
version=$("$RAY" --version 2> "$OUT/ray-version.err") || { fail "$RAY --version: $(tail -1 "$OUT/ray-version.err")"; exit 1; }
echo "$version" > "$OUT/ray-version.txt"
pass "$version in $VENV"

# Before any head of ours runs: what ray status says without an address (on a
# machine where no one else runs Ray, the ConnectionError of
# engine/launch/testdata/ray/status-real-down.stderr).
"$RAY" status > "$OUT/status-noaddress.out" 2> "$OUT/status-noaddress.err"
echo $? > "$OUT/status-noaddress.rc"

port=$(freeport)
address=127.0.0.1:$port
tmp=$(mktemp -d /tmp/smray.XXXX) # short: Ray's socket paths must fit in 107 bytes
# --block keeps ray start in the foreground: SIGTERM to it stops exactly the
# processes of this head, where `ray stop` would stop every Ray on the machine.
nice "$RAY" start --head --block --num-cpus 1 --num-gpus 0 --port "$port" --node-ip-address 127.0.0.1 \
	--include-dashboard=false --disable-usage-stats --temp-dir "$tmp" > "$OUT/ray-start.log" 2>&1 &
head_pid=$!
children=""
stop_head() {
	[ -n "$head_pid" ] || return 0
	kill "$head_pid" 2> /dev/null
	for _ in $(seq 60); do kill -0 "$head_pid" 2> /dev/null || break; sleep 1; done
	for pid in $head_pid $children; do kill -KILL "$pid" 2> /dev/null; done
	wait "$head_pid" 2> /dev/null
	head_pid=""
	rm -rf "$tmp"
}
trap stop_head EXIT
trap 'exit 130' INT TERM

started=$SECONDS
until grep -q "Ray runtime started" "$OUT/ray-start.log"; do
	if ! kill -0 "$head_pid" 2> /dev/null || [ $((SECONDS - started)) -ge 120 ]; then
		fail "ray start --head on $address did not start: $(tail -1 "$OUT/ray-start.log")"
		exit 1
	fi
	sleep 1
done
children=$(pgrep -P "$head_pid" | tr '\n' ' ')
children=${children% }
pass "head up on $address in $((SECONDS - started)) s (1 CPU, 0 GPUs; pids $head_pid $children)"
RAY_ADDRESS=$address "$RAY" status > "$OUT/status-head-first.txt" 2> "$OUT/status-head-first.err"
echo $? > "$OUT/status-head-first.rc"

# TestRealRay: one line per subtest, with what it logged.
SPEEDMATRIX_RAY=$RAY SPEEDMATRIX_RAY_ADDRESS=$address nice go test -count=1 -v -run '^TestRealRay$' ./engine/launch/ > "$OUT/go-test.log" 2>&1
for sub in status too-few-gpus unreachable; do
	said=$(awk -v run="=== RUN   TestRealRay/$sub" '$0 == run { on = 1; next } on && /^(=== |--- )/ { exit }
		on { sub(/^ *ray_real_test.go:[0-9]+: /, ""); print }' "$OUT/go-test.log" | head -3 | tr '\n' ' ' | sed 's/ $//')
	if grep -q -- "--- PASS: TestRealRay/$sub " "$OUT/go-test.log"; then
		pass "$sub: $said"
	else
		fail "$sub: ${said:-$(tail -3 "$OUT/go-test.log" | tr '\n' ' ')} (see $OUT/go-test.log)"
	fi
done

# The whole path through our binary: server.toml → Launch → the Ray check.
bin=${SPEEDMATRIX_BIN:-./speedmatrix}
if [ ! -x "$bin" ]; then
	echo "build: go build -o speedmatrix . (a first build compiles the C parts of Fyne and go-nvml: 8 to 12 minutes on 2 busy cores, measured 2026-12-04)" >&2
	(. scripts/goenv.sh && nice go build -o speedmatrix .) > "$OUT/build.log" 2>&1 || { fail "go build: $(tail -1 "$OUT/build.log")"; exit 1; }
	bin=./speedmatrix
fi
cat > "$OUT/vllm" << EOF
#!/bin/sh
# Stands in for vllm: the Ray check must refuse before anything runs it.
echo "\$0 \$*" >> "$OUT/vllm-started"
exit 1
EOF
chmod +x "$OUT/vllm"
rm -f "$OUT/vllm-started"
cat > "$OUT/server.toml" << EOF
executable = "$OUT/vllm"
model = "rig/never-started"
port = $(freeport)
log_dir = "$OUT/logs"
tensor_parallel_size = 2
distributed_executor_backend = "ray"
ray_address = "$address"
ray_executable = "$RAY"
EOF
timeout 120 "$bin" run --launch "$OUT/server.toml" --out "$OUT/run" > "$OUT/launch.out" 2> "$OUT/launch.err"
rc=$?
said=$(grep -m1 "free GPUs" "$OUT/launch.err")
if [ "$rc" -ne 0 ] && [ "$rc" -ne 124 ] && [ ! -e "$OUT/vllm-started" ] && grep -q "has 0 free GPUs" "$OUT/launch.err" && grep -q "needs 2" "$OUT/launch.err"; then
	pass "speedmatrix run --launch (TP 2 on the head) exits $rc before vllm starts: $said"
else
	fail "speedmatrix run --launch (TP 2 on the head) exited $rc$([ -e "$OUT/vllm-started" ] && echo ', and started vllm'): $(tail -2 "$OUT/launch.err" | tr '\n' ' ')"
fi

RAY_ADDRESS=$address "$RAY" status > "$OUT/status-head.txt" 2> "$OUT/status-head.err"
echo $? > "$OUT/status-head.rc"
pids="$head_pid $children"
stop_head
left=""
for pid in $pids; do kill -0 "$pid" 2> /dev/null && left="$left $pid"; done
if [ -z "$left" ]; then
	pass "head stopped (SIGTERM to ray start --block), none of its processes left"
else
	fail "head processes left after stopping:$left"
fi
[ "$fails" -eq 0 ]
