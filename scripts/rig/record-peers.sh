#!/usr/bin/env bash
# record-peers.sh PEERS_OUTDIR KIND: copies the results file each peer wrote
# in a peers.sh run (scripts/rig/peers.sh), and what it printed, into
# engine/report/testdata/peers/, where the import tests read them: each
# tool's file becomes TOOL-VERSION.KIND.json beside TOOL-VERSION.KIND.stdout.txt.
# KIND names the run: "rate" for PEERS_RATE's load test, "concurrency" for
# the side-by-side at a concurrency. Home paths become ~; peers.sh already
# redacted the API key, and this refuses a file that still holds it.
set -euo pipefail
[ $# -eq 2 ] || { echo "usage: scripts/rig/record-peers.sh PEERS_OUTDIR rate|concurrency" >&2; exit 2; }
src=$1 kind=$2
cd "$(dirname "$0")/../.."
dest=engine/report/testdata/peers
mkdir -p "$dest"
version() { grep -oE '[0-9]+\.[0-9]+[0-9A-Za-z.+-]*' "$1" 2>/dev/null | tail -1; }
clean() { sed -e "s#$HOME#~#g" "$1"; }
copy() { # TOOL DIR FILE
	local name=$1 dir=$2 file=$3 v
	[ -f "$dir/$file" ] || { echo "record-peers: $dir/$file is missing: $name not recorded" >&2; return; }
	if [ -n "${VLLM_API_KEY:-}" ] && grep -qF "$VLLM_API_KEY" "$dir/$file" "$dir/stdout.txt"; then
		echo "record-peers: $dir holds the API key: $name not recorded" >&2
		return
	fi
	if [ "$(stat -c %s "$dir/$file")" -gt 262144 ]; then
		echo "record-peers: $dir/$file is over 256 KB: $name not recorded (run the peers with fewer requests, PEERS_PROMPTS)" >&2
		return
	fi
	v=$(version "$dir/version.txt")
	clean "$dir/$file" >"$dest/$name-${v:-unknown}.$kind.json"
	clean "$dir/stdout.txt" >"$dest/$name-${v:-unknown}.$kind.stdout.txt"
	echo "testdata: $dest/$name-${v:-unknown}.$kind.json"
}
copy vllm-bench "$src/vllm" result.json
copy guidellm "$src/guidellm" benchmarks.json
copy aiperf "$src/aiperf" artifacts/profile_export_aiperf.json
copy inference-perf "$src/inferenceperf" reports/stage_0_lifecycle_metrics.json
