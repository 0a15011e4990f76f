package measure

import (
	"errors"
	"math"
	"reflect"
	"slices"
	"speedmatrix/engine"
	"testing"
	"time"
)

// TestLoadSchedule: poisson gaps average 1/rate, constant ones are exact,
// a burst is all at 0; the same seed gives the same schedule, another
// seed another; lengths stay in their range and are the same at every
// rate.
func TestLoadSchedule(t *testing.T) {
	t.Parallel()
	in, out := engine.TokenRange{Min: 512, Max: 2048}, engine.TokenRange{Min: 128, Max: 128}
	for _, tc := range []struct {
		name    string
		arr     engine.Arrivals
		rate    float64
		n       int
		meanGap time.Duration
		tol     float64 // relative tolerance of the mean gap
		exact   bool    // every gap is the mean
	}{
		// Scaled to the rate asked: the mean gap is exact, even for few requests.
		{"poisson 4 rps", engine.ArrivalsPoisson, 4, 20000, 250 * time.Millisecond, 1e-6, false},
		{"poisson 100 rps", engine.ArrivalsPoisson, 100, 20000, 10 * time.Millisecond, 1e-6, false},
		{"poisson 2 rps, 20 requests", engine.ArrivalsPoisson, 2, 20, 500 * time.Millisecond, 1e-6, false},
		{"constant 8 rps", engine.ArrivalsConstant, 8, 1000, 125 * time.Millisecond, 0, true},
		{"burst", engine.ArrivalsBurst, 0, 100, 0, 0, true},
	} {
		t.Run(tc.name, func(t *testing.T) {
			s := loadSchedule(tc.arr, tc.rate, tc.n, in, out, 42, 0, 0)
			if len(s) != tc.n || s[0].At != 0 {
				t.Fatalf("%d requests, first at %s; want %d, first at 0", len(s), s[0].At, tc.n)
			}
			mean := float64(s[tc.n-1].At) / float64(tc.n-1)
			if math.Abs(mean-float64(tc.meanGap)) > tc.tol*float64(tc.meanGap)+float64(time.Microsecond) {
				t.Errorf("mean gap %s, want %s within %.0f %%", time.Duration(mean), tc.meanGap, 100*tc.tol)
			}
			var cv2 float64 // squared coefficient of variation of the gaps: 1 for exponential gaps
			for i := 1; i < tc.n; i++ {
				gap := s[i].At - s[i-1].At
				d := (float64(gap) - mean) / max(mean, 1)
				cv2 += d * d / float64(tc.n-1)
				if gap < 0 || (tc.exact && (gap-tc.meanGap).Abs() > time.Microsecond) {
					t.Fatalf("gap %d is %s, want %s", i, gap, tc.meanGap)
				}
			}
			if tc.arr == engine.ArrivalsPoisson && tc.n > 1000 && math.Abs(cv2-1) > 0.05 {
				t.Errorf("gaps' squared coefficient of variation %.3f, want 1 ± 0.05 (exponential gaps)", cv2)
			}
			if again := loadSchedule(tc.arr, tc.rate, tc.n, in, out, 42, 0, 0); !reflect.DeepEqual(s, again) {
				t.Error("the same seed gave another schedule")
			}
			for _, r := range s {
				if r.InputTokens < in.Min || r.InputTokens > in.Max || r.OutputTokens != 128 || r.Prompt != -1 {
					t.Fatalf("request %+v outside the ranges", r)
				}
			}
		})
	}
	a := loadSchedule(engine.ArrivalsPoisson, 4, 50, in, out, 1, 0, 0)
	b := loadSchedule(engine.ArrivalsPoisson, 4, 50, in, out, 1, 1, 0)
	c := loadSchedule(engine.ArrivalsPoisson, 4, 50, in, out, 2, 0, 0)
	if reflect.DeepEqual(a, b) || reflect.DeepEqual(a, c) {
		t.Error("another rate or another seed gave the same arrivals")
	}
	for i := range a {
		if a[i].InputTokens != b[i].InputTokens {
			t.Fatalf("request %d: %d tokens at one rate, %d at the next; want the same lengths", i, a[i].InputTokens, b[i].InputTokens)
		}
	}
	if slices.EqualFunc(a, c, func(x, y loadRequest) bool { return x.InputTokens == y.InputTokens }) {
		t.Error("another seed drew the same lengths")
	}
	if d := loadSchedule(engine.ArrivalsConstant, 1, 5, in, out, 1, 0, 3); d[3].Prompt != 0 || d[4].Prompt != 1 || d[0].InputTokens != 0 {
		t.Errorf("with a dataset of 3: %+v, want its prompts in turn", d)
	}
}

// rec is a completed request due at due ms, first token at first ms, done
// at end ms, with out output tokens, in a rate starting at t0.
func rec(t0 time.Time, due, sent, first, end float64, out int) *loadRecord {
	at := func(v float64) time.Time { return t0.Add(time.Duration(v * float64(time.Millisecond))) }
	r := &loadRecord{requestRecord: requestRecord{Sent: at(sent), FirstToken: at(first), End: at(end), Finished: true, FinalTokens: out},
		Scheduled: at(due), Dispatched: true}
	for i := range out {
		r.add(chunkTokens{At: at(first + (end-first)*float64(i)/float64(max(1, out-1))), Tokens: 1})
	}
	return r
}

// TestComputeLoad: latencies count from the schedule, not the send; TPOT
// is per request; goodput counts the requests within the SLO.
func TestComputeLoad(t *testing.T) {
	t.Parallel()
	t0 := time.Now()
	recs := []*loadRecord{
		rec(t0, 0, 0, 100, 1000, 10),     // on time: TTFT 100, TPOT 100
		rec(t0, 100, 600, 700, 1600, 10), // sent 500 ms late: TTFT 600 from the schedule
		{requestRecord: requestRecord{Err: errors.New("stalled"), End: t0.Add(time.Second), FinalTokens: -1}, Scheduled: t0.Add(200 * time.Millisecond), Dispatched: true},
		{requestRecord: requestRecord{FinalTokens: -1}}, // never sent
	}
	res := computeLoad(recs, engine.SLO{TTFT: 500 * time.Millisecond})
	if res.Requests != 4 || res.Completed != 2 || res.Failed != 1 {
		t.Errorf("requests %d completed %d failed %d, want 4, 2, 1", res.Requests, res.Completed, res.Failed)
	}
	if res.DurationS != 1.6 || res.RequestThroughputRPS != 2/1.6 || res.OutputTokens != 20 {
		t.Errorf("duration %g s, %g req/s, %d tokens; want 1.6 s, 1.25, 20", res.DurationS, res.RequestThroughputRPS, res.OutputTokens)
	}
	if res.TTFTMs.P50 != 350 || res.TTFTMs.N != 2 || res.E2EMs.P99 < 1490 || res.TPOTMs.P50 != 100 {
		t.Errorf("TTFT %+v E2E %+v TPOT %+v: want TTFTs 100 and 600 from the schedule, E2E up to 1500, TPOT 100", res.TTFTMs, res.E2EMs, res.TPOTMs)
	}
	if res.GoodputRPS != 1/1.6 {
		t.Errorf("goodput %g, want the one request within TTFT 500 ms over 1.6 s", res.GoodputRPS)
	}
	if res.ITLMs.N != 18 || math.Abs(res.ITLMs.P50-100) > 0.01 || math.Abs(res.ITLMs.Mean-100) > 0.01 || res.TTFTMs.Mean != 350 {
		t.Errorf("ITL %+v, want 18 gaps of 100 ms", res.ITLMs)
	}
	if off := computeLoad(recs, engine.SLO{}); off.GoodputRPS != off.RequestThroughputRPS {
		t.Errorf("goodput %g with the SLO off, want the throughput %g", off.GoodputRPS, off.RequestThroughputRPS)
	}
}

// TestGoodputJudgesEachStream: a request whose stream stalls once misses
// an ITL bound at p99 but meets it at p50; its TPOT (its mean gap) would
// have hidden the stall.
func TestGoodputJudgesEachStream(t *testing.T) {
	t.Parallel()
	t0 := time.Now()
	r := &loadRecord{requestRecord: requestRecord{Sent: t0, FirstToken: t0.Add(10 * time.Millisecond), Finished: true, FinalTokens: 51},
		Scheduled: t0, Dispatched: true}
	at := 10 * time.Millisecond
	for i := range 51 {
		if i == 25 {
			at += 400 * time.Millisecond // one stall
		} else if i > 0 {
			at += 10 * time.Millisecond
		}
		r.add(chunkTokens{At: t0.Add(at), Tokens: 1})
	}
	r.End = t0.Add(at)
	for _, tc := range []struct {
		slo  engine.SLO
		good bool
	}{
		{engine.SLO{ITL: 50 * time.Millisecond}, false},                // p99 of its gaps is the stall
		{engine.SLO{ITL: 50 * time.Millisecond, Percentile: 50}, true}, // its median gap is 10 ms
		{engine.SLO{ITL: 500 * time.Millisecond}, true},                // the stall is within
		{engine.SLO{TTFT: 5 * time.Millisecond}, false},                // first token after 10 ms
		{engine.SLO{}, true},
	} {
		if got := computeLoad([]*loadRecord{r}, tc.slo).GoodputRPS > 0; got != tc.good {
			t.Errorf("SLO %+v: good %v, want %v", tc.slo, got, tc.good)
		}
	}
	if tpot := computeLoad([]*loadRecord{r}, engine.SLO{}).TPOTMs.P50; tpot > 50 {
		t.Errorf("TPOT %.1f ms: the test wants a mean under the bound, so that only the stream's own p99 catches the stall", tpot)
	}
}

// TestBehindFlag: a client that sent late is flagged with how late; one
// that kept up is not.
func TestBehindFlag(t *testing.T) {
	t.Parallel()
	late := func(ms ...int) []*loadRecord {
		var recs []*loadRecord
		for _, v := range ms {
			recs = append(recs, &loadRecord{Dispatched: true, Behind: time.Duration(v) * time.Millisecond})
		}
		return recs
	}
	for _, tc := range []struct {
		name string
		recs []*loadRecord
		want string
	}{
		{"on time", late(0, 1, 2, 1, 0), ""},
		{"one send 340 ms late", late(0, 1, 340, 1), "the client sent requests up to 340 ms behind schedule: its machine is short of CPU; latencies still count from the schedule"},
		{"p99 over 10 ms", late(20, 20, 20, 20), "the client sent requests up to 20 ms behind schedule: its machine is short of CPU; latencies still count from the schedule"},
		{"nothing sent", nil, ""},
	} {
		t.Run(tc.name, func(t *testing.T) {
			f, ok := behindFlag(tc.recs)
			if ok != (tc.want != "") || f.Message != tc.want || (ok && f.Kind != engine.FlagClientBehind) {
				t.Errorf("flag %+v (%v), want %q", f, ok, tc.want)
			}
		})
	}
}

// TestLoadPromptStarts: every request's text prompt starts differently,
// with the same length, and so do its token-id prompts, of their exact size.
func TestLoadPromptStarts(t *testing.T) {
	t.Parallel()
	body := make([]int, 5000)
	for i := range body {
		body[i] = 100 + i
	}
	p := &prompter{runID: "0a1b2c", tailLetters: "abcdefgh", exact: true, api: engine.APICompletions, bodyIDs: body, filler: "filler text"}
	lp := newLoadPrompts(p, nil)
	lp.specials = []int{1}
	seen := map[string]bool{}
	for i := range 5000 {
		s := lp.prefix(i)
		head := s[:len("Request a b c d e f g h")]
		if seen[head] || len(s) != len(lp.prefix(0)) {
			t.Fatalf("request %d starts %q: seen before, or another length", i, head)
		}
		seen[head] = true
	}
	a, b := func() []int { _, ids := lp.request(1, loadRequest{InputTokens: 300, Prompt: -1}); return ids }(), func() []int { _, ids := lp.request(2, loadRequest{InputTokens: 300, Prompt: -1}); return ids }()
	if len(a) != 300 || len(b) != 300 || a[0] != 1 || slices.Equal(a[1:1+markerWords], b[1:1+markerWords]) {
		t.Errorf("ids prompts of %d and %d tokens, starts %v and %v: want 300 each, after the special token, starting apart", len(a), len(b), a[:9], b[:9])
	}
	other := newLoadPrompts(&prompter{runID: "ffffff", tailLetters: "abcdefgh"}, nil)
	if other.prefix(0)[:23] == lp.prefix(0)[:23] {
		t.Error("another run's first request starts as this run's does")
	}
}
