#!/usr/bin/env bash
# Sets up what is missing, then runs every check CI runs: gofmt, the
# real-time checks (first, on a quiet machine), go vet, staticcheck, the GUI
# binary build, go test -race (TestImportRules checks the import graph),
# with report.html in headless Chromium, the end-to-end run of the real
# binary under Xvfb and the tour beside it, and the desktop package, built,
# installed and started beside the steps after the real-time ones.
set -euo pipefail
cd "$(dirname "$0")/.."
bash scripts/deps.sh
. scripts/goenv.sh
export LANG=en_US.UTF-8
staticcheck="honnef.co/go/tools/cmd/staticcheck@v0.8.2"

# Each step says when it began, in seconds since the script started, so a
# slow CI run shows where its time went.
step() { printf '\n== %s (at %d s)\n' "$*" "$SECONDS"; }

step "gofmt"
unformatted=$(gofmt -l .)
if [ -n "$unformatted" ]; then
	echo "gofmt would change these files (run gofmt -w .):"
	echo "$unformatted"
	exit 1
fi

# Real-time tests at the specified tolerances (TTFT within 5 ms, tok/s
# within 2 %; SPEEDMATRIX_REALTIME=1), one package at a time so no other test
# binary competes for the CPU: every other run (-race below, go test on a
# busy machine) checks only what timing cannot move. They hold with the other
# core busy, and run before the package build starts beside the steps after
# them. Then the reference reports' matrices, every cell checked
# on the simulator's own clock (under a second, deterministic). The same
# agreement in real time over HTTP depends on the machine's load and is
# opt-in: SPEEDMATRIX_REALTIME=1 go test -count=1 -p 1 \
#   -run 'TestSeedMatrices|TestHTTPPacingMatchesSeeds' ./engine/sim/
# Real-time tolerances are a measurement another process can disturb: a
# quiet machine's check (SPEEDMATRIX_REALTIME=1 bash scripts/test.sh), not
# a test every busy machine must pass. Without it the same tests run below
# on their counts and windows, which no load changes.
step "exactness at the specified tolerances (no -race, one package at a time)"
if [ "${SPEEDMATRIX_REALTIME:-}" = 1 ]; then
	go test -count=1 -p 1 -run 'TestDecodeExactness|TestPromptSizes' ./engine/measure/
else
	echo "skipped: real-time tolerances hold on a quiet machine only; run SPEEDMATRIX_REALTIME=1 bash scripts/test.sh there"
fi

step "reference agreement in virtual time"
go test -count=1 -run 'TestProfilesMatchSeeds' ./engine/sim/

# The desktop package as a user gets it (scripts/package-check.sh): fyne's
# release build, installed, its .desktop entry validated, the app started.
# Its build is a second full one (release flags, C at -O3): it runs beside
# the steps below, which hold on a busy machine, niced so that they come
# first. It builds in a copy of the tree: go test never sees the file fyne
# generates for the length of its build.
step "the desktop package: started beside the steps below"
logs=$(mktemp -d "${TMPDIR:-/tmp}/speedmatrix-test.XXXXXX")
set -m # a process group of its own: a step that fails ends its whole tree
nice -n 10 bash scripts/package-check.sh >"$logs/package.log" 2>&1 &
package=$!
set +m
trap 'kill -TERM -- -"$package" 2>/dev/null || true; rm -rf "$logs"' EXIT

step "go vet"
go vet ./...

step "staticcheck"
go run "$staticcheck" ./...

step "build the GUI binary"
go build -o speedmatrix .

# The browser check, the end-to-end run and the tour need only the binary:
# they run beside the race tests (each spends most of its time waiting on
# the simulator's clock or a page's load, a third of a core at most, and
# their limits are minutes; the race tests check nothing timing can move).
# report.html in headless Chromium: a simulated Standard report and an
# imported file at 1440 and 390 px; no console error, no network request.
# The end-to-end run and the tour: the real binary runs under Debian's
# default locale, C.UTF-8, and both scripts fail if it prints a word about
# the locale (see app/locale/).
step "started beside the race tests: report.html in a real browser, the end-to-end run under Xvfb, the tour of every screen at 1024x700 and 1440x900"
set -m
bash scripts/html-check.sh >"$logs/html.log" 2>&1 &
html=$!
LANG=C.UTF-8 bash scripts/e2e.sh >"$logs/e2e.log" 2>&1 &
e2e=$!
LANG=C.UTF-8 bash scripts/e2e-tour.sh >"$logs/tour.log" 2>&1 &
tour=$!
set +m
trap 'for g in "$package" "$html" "$e2e" "$tour"; do kill -TERM -- -"$g" 2>/dev/null || true; done; rm -rf "$logs"' EXIT

# What skips under -race runs without it, beside the race tests: charts'
# pixel tests (charts/pixels_test.go), the app's tests of one goroutine
# (uiOnly in app/shell/uiloop_test.go), named from their source, and the
# simulator's coverage check (arithmetic in virtual time).
ui_only=$(awk '/^func Test/ { name = $2; sub(/\(.*/, "", name) } /^\tuiOnly\(t\)$/ { print name }' app/shell/*_test.go | paste -sd'|' -)
[ -n "$ui_only" ] || { echo "no uiOnly test found in app/shell: the awk above no longer reads them"; exit 1; }
step "started beside the race tests: charts' pixel tests, the app's tests of one goroutine, the simulator's coverage check and the restarts' (TestRestartsApart), without -race"
set -m
{ go test -count=1 ./charts/ && go test -count=1 -run "^($ui_only)\$" ./app/shell/ &&
	go test -count=1 -run '^TestIntervalsCoverTheMean$' ./engine/sim/ && go test -count=1 -run '^TestRestartsApart$' ./engine/; } >"$logs/norace.log" 2>&1 &
norace=$!
set +m
trap 'for g in "$package" "$html" "$e2e" "$tour" "$norace"; do kill -TERM -- -"$g" 2>/dev/null || true; done; rm -rf "$logs"' EXIT

# app/shell's tests are the longest race binary by far (200 s of one
# core, one UI after another): it is built, then run as two processes,
# half its tests each (every other test of its files; the second runs all
# the first does not), beside the other packages' race tests, so that its
# tail is not one core's while the other idles.
step "started beside the other packages: app/shell's race tests in two halves"
shell_half=$(awk '/^func Test/ { name = $2; sub(/\(.*/, "", name); if (n++ % 2 == 0) print name }' app/shell/*_test.go | paste -sd'|' -)
[ -n "$shell_half" ] || { echo "no test found in app/shell: the awk above no longer reads them"; exit 1; }
shell_race() { # shell_race -test.run|-test.skip: one half, once the binary is built
	while [ ! -e "$logs/shell.built" ]; do
		[ -e "$logs/shell.failed" ] && { echo "go test -c -race ./app/shell/ failed: see above"; return 1; }
		sleep 1
	done
	(cd app/shell && GORACE="${GORACE:-atexit_sleep_ms=100}" "$logs/shell.race" -test.count=1 -test.timeout=30m "$1" "^($shell_half)\$")
}
set -m
{ go test -c -race -o "$logs/shell.race" ./app/shell/ && touch "$logs/shell.built" || touch "$logs/shell.failed"; } >"$logs/shellbuild.log" 2>&1 &
shellbuild=$!
shell_race -test.run >"$logs/shell1.log" 2>&1 &
shell1=$!
shell_race -test.skip >"$logs/shell2.log" 2>&1 &
shell2=$!
set +m
trap 'for g in "$package" "$html" "$e2e" "$tour" "$norace" "$shellbuild" "$shell1" "$shell2"; do kill -TERM -- -"$g" 2>/dev/null || true; done; rm -rf "$logs"' EXIT

step "go test -race: every other package"
# At a load average of 6 on 2 cores the app's tests under -race took over
# 10 minutes, go test's default timeout. The race runtime sleeps a second
# as each program exits, for goroutines still running to report (GORACE's
# atexit_sleep_ms, 1000 by default): 28 test binaries idled 28 s, half of
# it on the critical path. A race found while a test runs fails that test
# at once; a tenth of a second is left for the rest.
GORACE="${GORACE:-atexit_sleep_ms=100}" go test -race -count=1 -timeout 30m $(go list ./... | grep -vx 'speedmatrix/app/shell')

failed=0
for job in shellbuild shell1 shell2 norace html e2e tour; do
	step "$job (started beside the race tests)"
	wait "${!job}" || failed=1
	cat "$logs/$job.log"
done

step "the desktop package: built, installed and started"
waited=$(date +%s)
wait "$package" || failed=1
cat "$logs/package.log"
echo "(waited $(($(date +%s) - waited)) s for it after the other steps)"
echo "(all steps: $SECONDS s)"
[ "$failed" -eq 0 ]
