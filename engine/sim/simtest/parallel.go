package simtest

import (
	"flag"
	"strconv"
)

// WaitingTests is how many parallel tests ParallelWaits lets run at once.
const WaitingTests = 8

// ParallelWaits lets WaitingTests of a package's parallel tests run at
// once, unless -parallel says otherwise; call it from TestMain, before
// m.Run. Tests that talk to a simulator or a fake server over HTTP mostly
// wait on its clock, not the CPU, and go test's default of one test per
// core left both cores of our machines idle: engine/measure's tests took
// 46 s two at a time and 22 s eight at a time, cli's 35 s and 19 s. They
// check only what load cannot move (scripts/test.sh), so more of them at
// once changes no verdict: three suites at once on the two cores, eight
// at a time, all passed. Not under -race, where the tests need the CPU:
// two race runs of engine/measure at once, eight at a time, failed
// TestEventTooLargeInWindow, TestLoadSim and TestDrainBarrier (and CI runs
// beside a build failed TestUnderfilledFallback and
// TestSGLangAbortRejected), where two at a time passed (2026-12-06). CI
// takes 391 s so, against 354–357 s.
func ParallelWaits() {
	if raceEnabled {
		return
	}
	if !flag.Parsed() {
		flag.Parse()
	}
	given := false
	flag.Visit(func(f *flag.Flag) { given = given || f.Name == "test.parallel" })
	if !given {
		_ = flag.Set("test.parallel", strconv.Itoa(WaitingTests)) // no such flag outside go test: nothing to do
	}
}
