#!/usr/bin/env bash
# report.html in a real browser: Debian's Chromium, headless, opens the page
# that `speedmatrix report` writes for a simulated Standard run and for an
# imported llm-inference-bench file, at 1440 and 390 px wide, and checks
#   - the page is under 1 MB, not blank, and holds the expected texts (--dump-dom,
#     after its script ran);
#   - the console has no errors (a Content-Security-Policy refusal is one);
#   - nothing was requested over the network (Chromium's net log has no URL
#     but the page's own file://).
# Screenshots and logs go to ${HTML_OUT:-/tmp/speedmatrix-html}/ (never the repo;
# docs/gallery keeps two, copied by hand). Needs ./speedmatrix (scripts/test.sh builds it).
set -euo pipefail
cd "$(dirname "$0")/.."
bin="${SPEEDMATRIX_BIN:-./speedmatrix}"
out="${HTML_OUT:-/tmp/speedmatrix-html}"
fail() {
	echo "html-check: FAIL: $*" >&2
	exit 1
}
[ -x "$bin" ] || fail "$bin is missing: build it first (go build -o speedmatrix .)"
browser=$(command -v chromium || command -v chromium-browser || true)
[ -n "$browser" ] || fail "chromium is missing: install it (bash scripts/deps.sh)"
rm -rf "$out" && mkdir -p "$out"

# chrome runs Chromium headless on the page with a throwaway profile: as
# root it needs --no-sandbox; nothing may reach the network, and the net
# log proves none was tried.
chrome() { # chrome NAME WIDTH ARGS...
	local name=$1 width=$2
	shift 2
	timeout 120 "$browser" --headless --no-sandbox --disable-gpu --hide-scrollbars --no-first-run \
		--user-data-dir="$out/profile-$name" --window-size="$width,1800" \
		--disable-background-networking --disable-component-update --disable-sync --disable-default-apps \
		--enable-logging=stderr --v=0 --log-net-log="$out/$name.netlog.json" "$@" 2>"$out/$name.log"
}

check() { # check CASE FIXTURE TEXT...
	local case=$1 fixture=$2
	shift 2
	"$bin" report --in "$fixture" --out "$out/$case" >"$out/$case.report.log" 2>&1 ||
		fail "$case: speedmatrix report --in $fixture: $(tail -1 "$out/$case.report.log")"
	local page="$out/$case/report.html"
	[ -s "$page" ] || fail "$case: no report.html written"
	local size
	size=$(stat -c %s "$page")
	[ "$size" -lt 1000000 ] || fail "$case: report.html is $size bytes, over 1 MB"
	local url="file://$(cd "$(dirname "$page")" && pwd)/report.html"
	chrome "$case-dom" 1440 --virtual-time-budget=3000 --dump-dom "$url" >"$out/$case.dom.html" ||
		fail "$case: chromium --dump-dom failed (see $out/$case-dom.log)"
	for text in "$@"; do
		grep -qF -- "$text" "$out/$case.dom.html" || fail "$case: the page lacks \"$text\" (DOM in $out/$case.dom.html)"
	done
	for width in 1440 390; do
		chrome "$case-$width" "$width" --screenshot="$out/$case-$width.png" "$url" ||
			fail "$case at $width px: chromium --screenshot failed (see $out/$case-$width.log)"
		# A blank page compresses to a few kB; a report is tens.
		[ "$(stat -c %s "$out/$case-$width.png")" -gt 20000 ] || fail "$case at $width px: the screenshot is blank"
	done
	# Every console line is a failure: the page logs nothing, and a
	# Content-Security-Policy refusal (a fetch it tried) is a console line.
	for log in "$out/$case"-*.log; do
		if grep -q 'CONSOLE' "$log"; then
			fail "$case: console messages in $log: $(grep 'CONSOLE' "$log" | head -3)"
		fi
	done
	# Chromium's own services (updates, accounts, time) call home from
	# any profile; any other URL was the page's.
	for netlog in "$out/$case"-*.netlog.json; do
		requested=$(grep -oE '"url":"[a-z-]+://[^"/]*' "$netlog" | sed 's/^"url":"//' | sort -u |
			grep -vE '^file://|^https?://([a-z0-9-]+\.)*(google\.com|googleapis\.com|gvt1\.com|gstatic\.com)$' || true)
		[ -z "$requested" ] || fail "$case: the page requested $requested (net log $netlog)"
	done
	echo "html-check: ok: $case: report.html $((size / 1024)) kB, texts present, no console error, no network request; screenshots $out/$case-{1440,390}.png"
}

check standard engine/report/testdata/standard-sim.report.json \
	"Sustained decode" "All measurements" "gemma" "imulated" "Prefill"
check imported engine/report/testdata/llm-inference-bench-0.4.18.json \
	"Sustained decode" "All measurements" "mported"
