package measure

import (
	"math"
	"testing"
	"time"
	"unsafe"
)

// TestArrivalPacking: an arrival keeps its time to arrivalTick and its
// count, whatever Sent later becomes, and the estimated ones are those
// from the first text-counted chunk on.
func TestArrivalPacking(t *testing.T) {
	t.Parallel()
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

// TestGapsOfASplitBurst: three events sent at once by the server but
// returned by three reads 40 µs apart are one burst of three tokens after
// a 10 ms gap, not one gap of 10 ms and two of 0.04 ms.
func TestGapsOfASplitBurst(t *testing.T) {
	t.Parallel()
	base := time.Unix(1_796_208_000, 0)
	r := &requestRecord{}
	for _, at := range []time.Duration{0, 10 * time.Millisecond, 10*time.Millisecond + 40*time.Microsecond,
		10*time.Millisecond + 80*time.Microsecond, 20 * time.Millisecond} {
		r.add(chunkTokens{At: base.Add(at), Tokens: 1})
	}
	gaps := appendGaps(nil, r, base.Add(-time.Second), base.Add(time.Second))
	if len(gaps) != 2 || gaps[0].Weight != 3 || math.Abs(gaps[0].Value-10.08/3) > 0.01 || gaps[1].Weight != 1 || math.Abs(gaps[1].Value-9.92) > 0.01 {
		t.Errorf("gaps %+v; want 3 of 3.36 ms, then 1 of 9.92 ms", gaps)
	}
}
