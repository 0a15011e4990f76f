#!/usr/bin/env bash
# End-to-end tour of the desktop app: runs ./speedmatrix --tour under Xvfb
# at 1024×700 and 1440×900 against the built-in simulator. The tour visits
# every screen, runs the Quick plan (one picture mid-run), and writes each
# screen as NN-name.png with the texts it shows as NN-name.txt; the app
# itself fails a blank picture. This script checks that every picture is
# there at the window's size and shows the texts a user must see. The
# pictures stay in ${E2E_OUT:-/tmp/speedmatrix-e2e}/tour-WxH/ (never in the
# repo; scripts/gallery.sh copies one set into docs/gallery/).
set -euo pipefail
cd "$(dirname "$0")/.."

bin="${SPEEDMATRIX_BIN:-./speedmatrix}"
keep="${E2E_OUT:-/tmp/speedmatrix-e2e}"
limit="${E2E_TIMEOUT:-300}"

fail() {
	echo "e2e-tour: $*" >&2
	exit 1
}

[ -x "$bin" ] || fail "$bin is missing: build it first (go build -o speedmatrix .)"
command -v xvfb-run >/dev/null || fail "xvfb-run is missing: install xvfb and xauth (bash scripts/deps.sh)"

# Each picture and texts it must show ("|" separates them).
expect=(
	"01-hardware|Hardware"
	"02-server-simulator|Simulator|Profile|simulated"
	"03-server-launch|Launch a server"
	"04-server-endpoint|URL|Detect models"
	"05-matrix|Estimated total|Decode cells|will run"
	"06-run-ready|Target: simulated (profile tiny)|Ready:|Start run"
	"07-run-midrun|Cell |measuring…|Cancel (Esc)|Run |Output|stream 1 · request"
	"08-results|simulated (profile tiny)|Decode heatmap|Export all"
	"09-results-checks|Checks"
	"10-history|Saved runs|Resume|Import"
	"11-settings|Theme|Stall timeout|Runs folder"
	"12-run-after|Finished in|Last run"
	# The states that crowd a small window (checked in the pictures too).
	"13-run-refused|Start run is off|Events|Output"
	"14-results-export-failed|Nothing was exported: the folder|Export again"
	"15-results-export-details|Hide details|not a directory"
	"16-results-measurements|All measurements"
	"17-results-save-one|Save one file…"
	"18-history-compare|A: tiny-sim|profile tiny"
	"19-matrix-standard|Grey cells will not run|Standard"
	"20-results-slo|SLO|simultaneous requests meet TTFT p99|meets|TTFT: p50"
	"21-matrix-load|Load test|Requests per rate|Estimated total|will run"
	"22-run-load-ready|Ready: a load test of 4 rates|Load test"
	# A load test, then the Matrix form that stayed hidden behind it (the app
	# fails the tour if a form's fields are out of their rows).
	"23-run-load-after|load test|20 req/s"
	"24-matrix-after-load|Estimated total|Requests at once|Seconds per cell"
	"25-matrix-load-refused|Start run is off until the field is fixed|none until the form's problem above is fixed"
)

png_dim() { # the PNG's width (offset 16) or height (offset 20), big-endian
	od -An -tu1 -j"$2" -N4 "$1" | awk '{ print (($1 * 256 + $2) * 256 + $3) * 256 + $4 }'
}

# FYNE_CACHE: Fyne drops the renderer of a widget hidden for 2 s instead of
# a minute, so the tour sees screens rebuilt as an app left open does (the
# Matrix form after a load test came back broken that way).
# tour SIZE SERVERNUM DIR runs the tour at SIZE into DIR/shots, its log in
# DIR/app.log. xvfb-run -a takes the first free display from SERVERNUM: the
# sizes start far apart, so the two tours, side by side, never pick the same.
tour() {
	mkdir -p "$3/home"
	HOME="$3/home" XDG_CONFIG_HOME="$3/home/.config" LANG="${LANG:-C.UTF-8}" FYNE_CACHE=2s \
		timeout --kill-after=10 "$limit" \
		xvfb-run -a -n "$2" -s '-screen 0 1920x1200x24' \
		"$bin" --target sim:tiny --tour "$3/shots" --window "$1" >"$3/app.log" 2>&1
}

# check SIZE DIR checks the tour at SIZE in DIR (tour's) and keeps its pictures.
check() {
	local size=$1 out=$2
	if grep -q "locale" "$out/app.log"; then
		grep "locale" "$out/app.log" >&2
		fail "$size: the app complained about the locale (LANG=${LANG:-C.UTF-8}); see app/locale/"
	fi
	for e in "${expect[@]}"; do
		IFS='|' read -r -a parts <<<"$e"
		name=${parts[0]}
		shot="$out/shots/$name.png"
		[ -s "$shot" ] || fail "$size: $name.png is missing"
		got="$(png_dim "$shot" 16)x$(png_dim "$shot" 20)"
		[ "$got" = "$size" ] || fail "$size: $name.png is $got: the window grew past its size"
		for want in "${parts[@]:1}"; do
			grep -qF -- "$want" "$out/shots/$name.txt" || fail "$size: $name does not show \"$want\" (texts in $out/shots/$name.txt)"
		done
	done
	mkdir -p "$keep"
	rm -rf "$keep/tour-$size"
	cp -r "$out/shots" "$keep/tour-$size"
	echo "e2e-tour: ok at $size: ${#expect[@]} screens checked; pictures in $keep/tour-$size/"
}

# Both sizes at once: each tour spends most of its minute waiting on the
# simulator's clock and on the screens' settling, not on the CPU.
sizes=(1024x700 1440x900)
servernums=(120 140)
outs=()
pids=()
for i in "${!sizes[@]}"; do
	outs+=("$(mktemp -d "${TMPDIR:-/tmp}/speedmatrix-tour.XXXXXX")")
	echo "e2e-tour: speedmatrix --target sim:tiny --tour --window ${sizes[$i]} (limit ${limit}s)"
	tour "${sizes[$i]}" "${servernums[$i]}" "${outs[$i]}" &
	pids+=($!)
done
failed=()
for i in "${!sizes[@]}"; do
	set +e
	wait "${pids[$i]}"
	status=$?
	set -e
	if [ "$status" -ne 0 ]; then
		tail -n 40 "${outs[$i]}/app.log" >&2
		failed+=("${sizes[$i]} (exit status $status)")
	fi
done
((${#failed[@]} == 0)) || fail "the tour failed at ${failed[*]}"
for i in "${!sizes[@]}"; do
	check "${sizes[$i]}" "${outs[$i]}"
	rm -rf "${outs[$i]}"
done
