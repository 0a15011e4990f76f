#!/usr/bin/env bash
# End-to-end test of the desktop app: runs the real ./speedmatrix binary
# (built by scripts/test.sh) under Xvfb against the built-in simulator with
# --autorun --export, checks every exported file, and keeps the screenshot
# of the Results screen in ${E2E_OUT:-/tmp/speedmatrix-e2e}/ (never in the repo).
set -euo pipefail
cd "$(dirname "$0")/.."

bin="${SPEEDMATRIX_BIN:-./speedmatrix}"
keep="${E2E_OUT:-/tmp/speedmatrix-e2e}"
limit="${E2E_TIMEOUT:-300}" # seconds; the tiny Quick plan takes about one minute

fail() {
	echo "e2e: $*" >&2
	exit 1
}

[ -x "$bin" ] || fail "$bin is missing: build it first (go build -o speedmatrix . or bash scripts/test.sh)"
command -v xvfb-run >/dev/null || fail "xvfb-run is missing: install xvfb and xauth (bash scripts/deps.sh)"

out=$(mktemp -d "${TMPDIR:-/tmp}/speedmatrix-e2e.XXXXXX")
trap 'rm -rf "$out"' EXIT
mkdir -p "$out/home" "$out/export"
export_dir="$out/export"

# A throwaway HOME and config dir: the run's History copy and Fyne's
# preferences stay out of the user's folders.
echo "e2e: speedmatrix --target sim:tiny --autorun --export $export_dir (limit ${limit}s)"
start=$(date +%s)
set +e
HOME="$out/home" XDG_CONFIG_HOME="$out/home/.config" LANG="${LANG:-C.UTF-8}" \
	timeout --kill-after=10 "$limit" \
	xvfb-run -a -s '-screen 0 1280x800x24' \
	"$bin" --target sim:tiny --autorun --export "$export_dir" >"$out/app.log" 2>&1
status=$?
set -e
echo "e2e: the app exited with status $status after $(($(date +%s) - start)) s"
if [ "$status" -ne 0 ]; then
	tail -n 40 "$out/app.log" >&2
	[ "$status" -eq 124 ] && fail "the app did not finish within ${limit} s"
	fail "the app failed (exit status $status)"
fi
if grep -q "locale" "$out/app.log"; then
	grep "locale" "$out/app.log" >&2
	fail "the app complained about the locale (LANG=${LANG:-C.UTF-8}); see app/locale/"
fi

check_nonempty() {
	[ -s "$export_dir/$1" ] || fail "$1 is missing or empty in the export"
}

check_png() {
	check_nonempty "$1"
	[ "$(head -c 8 "$export_dir/$1" | od -An -tx1 | tr -d ' \n')" = "89504e470d0a1a0a" ] ||
		fail "$1 is not a PNG (wrong magic bytes)"
}

check_svg() {
	check_nonempty "$1"
	head -c 512 "$export_dir/$1" | tr -d '\n' | grep -Eq '^[[:space:]]*(<\?xml|<svg)' ||
		fail "$1 does not start like an SVG (<?xml or <svg)"
	grep -q '</svg>' "$export_dir/$1" || fail "$1 has no closing </svg>"
}

for chart in report prefill decode-heatmap per-request; do
	check_png "$chart.png"
	check_svg "$chart.svg"
done
check_png screenshot-results.png

# The screenshot is the window as the user sees it, not the content's MinSize.
png_dim() { # the PNG's width (offset 16) or height (offset 20), big-endian
	od -An -tu1 -j"$2" -N4 "$1" | awk '{ print (($1 * 256 + $2) * 256 + $3) * 256 + $4 }'
}
shot="$export_dir/screenshot-results.png"
shot_size="$(png_dim "$shot" 16)x$(png_dim "$shot" 20)"
[ "$shot_size" = "1280x800" ] || fail "screenshot-results.png is $shot_size, want the window's 1280x800"

check_nonempty results.csv
want_header='phase,context_tokens,concurrency,status,total_tok_s,per_request_tok_s,ttft_ms,itl_ms,avg_active,completed,output_tokens,measured_s,server_tok_s,server_active,preemptions,gpu_throttle,error,simulated,target,ttft_p90_ms,ttft_p99_ms,itl_p90_ms,itl_p99_ms,ttft_samples,itl_samples,slo,slo_pass,total_tok_s_ci_pct,prefill_repeats,prefill_spread_pct,prefix_cache_hit_rate,reasoning_tokens,answer_tokens,answer_ttft_ms,tokens_per_joule,joules_per_token_above_idle,prefill_joules_per_1k,usd_per_mtok'
got_header=$(head -n 1 "$export_dir/results.csv" | tr -d '\r')
[ "$got_header" = "$want_header" ] || fail "results.csv header is
  $got_header
want
  $want_header"
[ "$(wc -l <"$export_dir/results.csv")" -ge 2 ] || fail "results.csv has no measurement rows"
python3 -c 'import csv, sys
rows = list(csv.DictReader(open(sys.argv[1], newline="")))
sys.exit(0 if any(r["simulated"] != "true" or r["target"] != "sim:tiny" for r in rows) else 1)' "$export_dir/results.csv" &&
	fail "results.csv has a row whose simulated and target columns are not true and sim:tiny"

check_nonempty report.json
grep -q '"schema_version"' "$export_dir/report.json" || fail "report.json has no schema_version"
grep -q '"simulated": true' "$export_dir/report.json" || fail "report.json does not say the run was simulated"
grep -q '"status": "Valid"' "$export_dir/report.json" || fail "report.json has no Valid cell"

check_nonempty report.md
grep -q '^# Speed test matrix' "$export_dir/report.md" || fail "report.md has no title"
grep -q 'simulated (profile tiny)' "$export_dir/report.md" || fail "report.md does not label the run simulated"

check_nonempty report.html
grep -q 'Content-Security-Policy' "$export_dir/report.html" || fail "report.html has no Content-Security-Policy"
grep -q 'Simulated (profile tiny)' "$export_dir/report.html" || fail "report.html does not label the run simulated"

mkdir -p "$keep"
cp "$export_dir"/* "$keep"/
echo "e2e: ok: every export checked; screenshot of the Results screen: $keep/screenshot-results.png"
