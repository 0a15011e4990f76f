package report

import (
	"slices"
	"testing"

	"speedmatrix/engine"
)

// TestLoadErrorLinesSayItOnce: a reason that only repeats the status is
// left out ("Cancelled: cancelled" said it twice).
func TestLoadErrorLinesSayItOnce(t *testing.T) {
	got := LoadErrorLines([]engine.LoadResult{
		{RateRPS: 4, Status: engine.StatusCancelled, Error: "cancelled"},
		{RateRPS: 8, Status: engine.StatusFailed, Error: "connection refused"},
	})
	if want := []string{"4 req/s: Cancelled", "8 req/s: Failed: connection refused"}; !slices.Equal(got, want) {
		t.Errorf("LoadErrorLines = %q, want %q", got, want)
	}
}
