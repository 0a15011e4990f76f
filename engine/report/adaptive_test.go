package report

import (
	"testing"

	"speedmatrix/engine"
)

// TestAdaptiveLineOneSecond: windows that all reached the target in the
// same second say that second once ("reached it in 5–5 s" did not).
func TestAdaptiveLineOneSecond(t *testing.T) {
	rs := []engine.Result{adaptiveCell(1, 5, 0.01, 0.009, 0.004, 0.004), adaptiveCell(2, 5, 0.01, 0.009, 0.004, 0.004)}
	want := "Windows adaptive to ±1 %: 2 of 2 cells reached it in 5 s"
	if got := AdaptiveLine(rs); got != want {
		t.Errorf("AdaptiveLine = %q, want %q", got, want)
	}
}
