package openai

import (
	"context"
	"net/http/httptest"
	"slices"
	"testing"
	"time"
)

// arrivalRun streams n one-token events sent interval apart by an
// in-process server and returns, per event after the first, the client's
// inter-arrival gap, the server's inter-send gap and the one-way delay.
func arrivalRun(tb testing.TB, n int, interval time.Duration) (client, server, delay []time.Duration) {
	events := renderStream(n, false)
	sent := make([]time.Time, len(events))
	srv := httptest.NewServer(pacedHandler(events, interval, func(i int, t time.Time) { sent[i] = t }))
	defer srv.Close()
	var arrived []time.Time
	_, err := New(srv.URL, "").Stream(context.Background(), StreamRequest{Model: "m"}, func(ch Chunk) {
		arrived = append(arrived, ch.Arrived)
	})
	if err != nil || len(arrived) != len(events)-1 { // [DONE] is not a chunk
		tb.Fatalf("%d chunks, %v", len(arrived), err)
	}
	for i := 2; i < len(arrived); i++ { // from the first token on
		client = append(client, arrived[i].Sub(arrived[i-1]))
		server = append(server, sent[i].Sub(sent[i-1]))
		delay = append(delay, arrived[i].Sub(sent[i]))
	}
	return client, server, delay
}

func median(d []time.Duration) time.Duration {
	s := slices.Clone(d)
	slices.Sort(s)
	return s[len(s)/2]
}

func absErrors(a, b []time.Duration) []time.Duration {
	out := make([]time.Duration, len(a))
	for i := range a {
		out[i] = max(a[i]-b[i], b[i]-a[i])
	}
	return out
}

// TestArrivalTiming checks, with a bound loose enough for a busy machine,
// that chunk arrival times follow the server's send times: the median
// difference between the client's and the server's gaps is under 2 ms.
// BenchmarkArrivalAccuracy measures the same thing precisely.
func TestArrivalTiming(t *testing.T) {
	client, server, _ := arrivalRun(t, 40, 5*time.Millisecond)
	e := median(absErrors(client, server))
	t.Logf("median |client gap - server gap| = %v, median client gap %v", e, median(client))
	if e > 2*time.Millisecond {
		t.Fatalf("median |client gap - server gap| = %v, want under 2 ms", e)
	}
	if m := median(client); m < 3*time.Millisecond {
		t.Fatalf("median client gap %v for events sent 5 ms apart", m)
	}
}

// arrivalStats pools the gaps of several runs.
type arrivalStats struct{ client, server, delay []time.Duration }

func (r *arrivalStats) add(client, server, delay []time.Duration) {
	r.client = append(r.client, client...)
	r.server = append(r.server, server...)
	r.delay = append(r.delay, delay...)
}

// BenchmarkArrivalAccuracy streams events sent 1 ms apart (one stream at a
// time, server in process so both sides read the same clock) and reports
// the median inter-arrival gap, its median absolute error against the
// server's own gaps, and the median one-way delay.
func BenchmarkArrivalAccuracy(b *testing.B) {
	const interval = time.Millisecond
	var st arrivalStats
	for b.Loop() {
		st.add(arrivalRun(b, 200, interval))
	}
	us := func(d time.Duration) float64 { return float64(d.Nanoseconds()) / 1000 }
	b.ReportMetric(us(median(st.client)), "median-ITL-µs")
	b.ReportMetric(us(median(st.server)), "median-server-gap-µs")
	b.ReportMetric(us(median(absErrors(st.client, st.server))), "median-|ITL-err|-µs")
	b.ReportMetric(us(median(st.delay)), "median-delay-µs")
}
