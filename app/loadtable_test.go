package app

import (
	"testing"

	"speedmatrix/engine"
)

// TestLoadLineSaysItOnce: a rate's line in the event log gives its reason
// once: a cancelled rate is "Cancelled", not "Cancelled · cancelled".
func TestLoadLineSaysItOnce(t *testing.T) {
	for _, c := range []struct {
		res  engine.LoadResult
		want string
	}{
		{engine.LoadResult{RateRPS: 4, Status: engine.StatusCancelled, Error: "cancelled"}, "4 req/s: Cancelled"},
		{engine.LoadResult{RateRPS: 4, Status: engine.StatusFailed, Error: "connection refused"}, "4 req/s: Failed · connection refused"},
	} {
		if got := loadLine(c.res); got != c.want {
			t.Errorf("loadLine = %q, want %q", got, c.want)
		}
	}
}
