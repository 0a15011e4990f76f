package cli

import (
	"os"
	"testing"
)

// TestMain lets the tests that launch a (fake) vLLM start it under a guard,
// as speedmatrix does: the guard is this test binary, re-executed.
func TestMain(m *testing.M) {
	RunGuardIfAsked()
	os.Exit(m.Run())
}
