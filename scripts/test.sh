#!/usr/bin/env bash
# Sets up what is missing, then runs every check CI runs: gofmt, go vet,
# staticcheck, the import direction, go test -race, the GUI binary build and
# the end-to-end run of the real binary under Xvfb.
set -euo pipefail
cd "$(dirname "$0")/.."
bash scripts/deps.sh
export PATH="$PATH:/usr/local/go/bin"
export LANG=en_US.UTF-8
staticcheck="honnef.co/go/tools/cmd/staticcheck@v0.8.2"

step() { printf '\n== %s\n' "$*"; }

step "gofmt"
unformatted=$(gofmt -l .)
if [ -n "$unformatted" ]; then
	echo "gofmt would change these files (run gofmt -w .):"
	echo "$unformatted"
	exit 1
fi

step "import direction: engine, hw and charts never import Fyne"
if go list -deps ./engine/... ./hw/... ./charts/... | grep '^fyne.io'; then
	echo "engine/hw/charts import Fyne (listed above): keep them headless" >&2
	exit 1
fi

step "go vet"
go vet ./...

step "staticcheck"
go run "$staticcheck" ./...

step "build the GUI binary"
go build -o speedmatrix .

step "go test -race"
go test -race -count=1 ./...

# Real-time tests that mean nothing under the race detector (it slows the
# client, not the simulated GPU): the seeds' matrices through engine.Run
# against the simulator, checked cell by cell.
step "seed agreement (no -race)"
go test -count=1 -run 'TestSeedMatrices|TestHTTPPacingMatchesSeeds' ./engine/sim/

if [ -f scripts/e2e.sh ]; then
	step "end-to-end: the real binary under Xvfb"
	bash scripts/e2e.sh
fi
