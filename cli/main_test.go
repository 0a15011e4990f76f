package cli

import (
	"os"
	"testing"
)

// TestMain lets the tests that launch a (fake) vLLM start it under a guard,
// as speedmatrix does: the guard is this test binary, re-executed.
func TestMain(m *testing.M) {
	RunGuardIfAsked()
	code := m.Run()
	removeSpeedmatrix()
	os.Exit(code)
}
