package cli

import (
	"os"
	"testing"

	"speedmatrix/engine/sim/simtest"
)

// TestMain lets the tests that launch a (fake) vLLM start it under a guard,
// as speedmatrix does: the guard is this test binary, re-executed. Most of
// the tests wait on a simulator's or a fake server's clock, more of them at
// once than there are cores (simtest.ParallelWaits).
func TestMain(m *testing.M) {
	RunGuardIfAsked()
	simtest.ParallelWaits()
	code := m.Run()
	removeSpeedmatrix()
	os.Exit(code)
}
