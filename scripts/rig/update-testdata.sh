#!/usr/bin/env bash
# update-testdata.sh OUTDIR: copies what real-vllm.sh recorded from the real
# vLLM into the unit tests' testdata, so CI tests the real formats without
# installing vLLM. Home paths become ~; the rig's API key never was in them.
set -euo pipefail
cd "$(dirname "$0")/../.."
rec=$1/recorded
version=$(python3 -c 'import json,sys; print(json.load(open(sys.argv[1]))["version"])' "$rec/version.json")
dest=engine/openai/testdata/vllm-$version-cpu
mkdir -p "$dest" engine/launch/testdata/real engine/measure/testdata
clean() { sed -e "s#$HOME#~#g" "$1"; }
for f in "$rec"/*; do
	case $(basename "$f") in
	startup.log) clean "$f" >"engine/launch/testdata/real/vllm-$version-cpu-startup.log" ;;
	greedy-text.txt) cp "$f" "engine/measure/testdata/vllm-$version-cpu-greedy-text.txt" ;;
	*) clean "$f" >"$dest/$(basename "$f")" ;;
	esac
done
echo "testdata: $dest, engine/launch/testdata/real, engine/measure/testdata"
# The peers' results files, which the import tests read (record-peers.sh).
[ -d "$1/peers-load" ] && bash scripts/rig/record-peers.sh "$1/peers-load" rate
[ -d "$1/peers" ] && bash scripts/rig/record-peers.sh "$1/peers" concurrency
exit 0
