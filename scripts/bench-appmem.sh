#!/usr/bin/env bash
# Measures the desktop app's resident memory over one whole run: starts the
# app under Xvfb with a fresh HOME (so the Matrix screen has the Standard
# preset), presses Ctrl+R (scripts/ctrlr.py, XTest), then prints VmRSS from
# /proc/PID/status every INTERVAL seconds until the run's report.json in
# History's folder says "complete": true (the app saves it after every
# cell), and sums up: RSS at the start, the highest sample, the end and the
# kernel's high-water mark (VmHWM).
# Needs Xvfb, python3 and libXtst. Nothing else may use the display.
# Usage: bash scripts/bench-appmem.sh [BINARY] [TARGET] [INTERVAL]
# (defaults: ./speedmatrix, sim:gemma-4-e2b-rtxpro6000, 30)
set -euo pipefail
bin=$(realpath "${1:-./speedmatrix}")
target=${2:-sim:gemma-4-e2b-rtxpro6000}
every=${3:-30}
here=$(cd "$(dirname "$0")" && pwd)
home=$(mktemp -d)
display=:$((100 + RANDOM % 800))
app=
Xvfb "$display" -screen 0 1440x900x24 -nolisten tcp >/dev/null 2>&1 &
xvfb=$!
trap 'kill $app $xvfb 2>/dev/null; wait 2>/dev/null; rm -rf "$home"' EXIT
sleep 2
HOME=$home DISPLAY=$display LANG=en_US.UTF-8 "$bin" --target "$target" >"$home/app.log" 2>&1 &
app=$!
sleep 5
DISPLAY=$display python3 "$here/ctrlr.py"
start=$(date +%s)
rss() { awk '/^VmRSS/ { printf "%.0f", $2 / 1024 }' /proc/$app/status; }
first=$(rss) peak=0
echo "seconds rss_mb"
while kill -0 $app 2>/dev/null; do
	now=$(rss)
	peak=$((now > peak ? now : peak))
	echo "$(($(date +%s) - start)) $now"
	if grep -qsE '"complete": ?true' "$home"/.config/speedmatrix/runs/*/report.json; then
		break
	fi
	sleep "$every"
done
sleep 5
end=$(rss)
peak=$((end > peak ? end : peak))
hwm=$(awk '/^VmHWM/ { printf "%.0f", $2 / 1024 }' /proc/$app/status)
echo "$(($(date +%s) - start)) $end (run saved)"
echo "start $first MB, highest sample $peak MB (+$((peak - first))), end $end MB (+$((end - first))), VmHWM $hwm MB"
