package engine

import (
	"testing"
	"time"
	"unsafe"
)

// TestArrivalPacking: an arrival keeps its time to arrivalTick and its
// count, whatever Sent later becomes, and the estimated ones are those
// from the first text-counted chunk on.
func TestArrivalPacking(t *testing.T) {
	t0 := time.Now()
	r := &requestRecord{Sent: t0}
	offsets := []time.Duration{50 * time.Millisecond, 70*time.Millisecond + 3*time.Microsecond, 90 * time.Millisecond, 3 * time.Hour}
	for i, d := range offsets {
		r.add(chunkTokens{At: t0.Add(d), Tokens: float64(i + 1), Estimated: i >= 2})
	}
	r.Sent = t0.Add(time.Millisecond) // the stream's own send time, set after it ended
	for i, d := range offsets {
		if got := r.at(i).Sub(t0); got > d || got <= d-arrivalTick {
			t.Errorf("arrival %d at %v, want %v to the tick", i, got, d)
		}
		if r.tokens(i) != float64(i+1) || r.estimated(i) != (i >= 2) {
			t.Errorf("arrival %d: %v tokens, estimated %v", i, r.tokens(i), r.estimated(i))
		}
	}
	if !r.at(1).After(r.at(0)) || r.Arrivals[1].ticks == r.Arrivals[2].ticks {
		t.Error("distinct arrivals share a time")
	}
	if size := unsafe.Sizeof(arrival{}); size != 8 {
		t.Errorf("an arrival takes %d bytes, want 8", size)
	}
}
