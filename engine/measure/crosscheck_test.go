package measure

import (
	"math"
	"speedmatrix/engine"
	"strings"
	"testing"
	"time"
)

// steady returns samples every 250 ms over [t0, t0+span] of a server with
// running requests that generates rate tokens/s, its counter advancing
// every step (perStep) or only in lumps of lump tokens.
func steady(t0 time.Time, span time.Duration, running, rate float64, lump float64) []metricSample {
	var out []metricSample
	for d := time.Duration(0); d <= span; d += 250 * time.Millisecond {
		gen := rate * d.Seconds()
		if lump > 0 {
			gen = math.Floor(gen/lump) * lump
		}
		out = append(out, metricSample{At: t0.Add(d), Running: running, GenTokens: gen, HasGen: true,
			ITLCount: rate*d.Seconds() - running, TTFTCount: running, HasITL: true})
	}
	return out
}

func always(a, b time.Time) bool { return true }

func TestCrossCheck(t *testing.T) {
	t.Parallel()
	t0 := time.Unix(1000, 0)
	from, to := t0.Add(time.Second), t0.Add(31*time.Second)
	for _, tc := range []struct {
		name       string
		samples    []metricSample
		ours       float64
		wantTok    float64
		wantSource string
		wantNotCmp string
		wantActive float64
		wantFlags  []engine.FlagKind
	}{
		{"per-step counter agrees", steady(t0, 33*time.Second, 16, 1000, 0), 1000, 1000, "vllm:generation_tokens_total", "", 16, nil},
		{"per-step counter disagrees", steady(t0, 33*time.Second, 16, 1100, 0), 1000, 1100, "vllm:generation_tokens_total", "", 16, []engine.FlagKind{engine.FlagServerCount}},
		{"within 3 %", steady(t0, 33*time.Second, 16, 1025, 0), 1000, 1025, "vllm:generation_tokens_total", "", 16, nil},
		{"counter moves at finish only: ITL count instead", steady(t0, 33*time.Second, 8, 1000, 4096), 1000, 1000, "vllm:inter_token_latency_seconds_count", "", 8, nil},
	} {
		t.Run(tc.name, func(t *testing.T) {
			c := crossCheck(tc.samples, from, to, always)
			if c == nil {
				t.Fatal("no check")
			}
			if math.Abs(c.TokPerSec-tc.wantTok) > 0.01*tc.wantTok || !strings.HasPrefix(c.TokSource, tc.wantSource) || c.NotComparable != tc.wantNotCmp {
				t.Errorf("server %.1f tok/s from %q (not comparable %q), want %.1f from %q", c.TokPerSec, c.TokSource, c.NotComparable, tc.wantTok, tc.wantSource)
			}
			if math.Abs(c.Active-tc.wantActive) > 1e-9 || c.Samples < 100 {
				t.Errorf("active %v over %d samples, want %v over 120", c.Active, c.Samples, tc.wantActive)
			}
			flags := checkFlags(c, tc.ours)
			if len(flags) != len(tc.wantFlags) {
				t.Fatalf("flags %+v, want %v", flags, tc.wantFlags)
			}
			for i, f := range flags {
				if f.Kind != tc.wantFlags[i] || !strings.Contains(f.Message, "the server counted 1100.0 tok/s") {
					t.Errorf("flag %+v, want %s saying what the server counted", f, tc.wantFlags[i])
				}
			}
		})
	}
}

func TestCrossCheckNotComparable(t *testing.T) {
	t.Parallel()
	t0 := time.Unix(1000, 0)
	from, to := t0.Add(time.Second), t0.Add(11*time.Second)
	lumpy := steady(t0, 12*time.Second, 4, 100, 4096)
	for i := range lumpy {
		lumpy[i].HasITL, lumpy[i].ITLCount, lumpy[i].TTFTCount = false, 0, 0
	}
	if c := crossCheck(lumpy, from, to, always); c.TokPerSec != 0 || !strings.Contains(c.NotComparable, "only when they end") {
		t.Errorf("finish-only counter, no histogram: %+v, want not comparable", c)
	}
	restarted := steady(t0, 12*time.Second, 4, 100, 0)
	for i := 20; i < len(restarted); i++ {
		restarted[i].GenTokens -= 1000
	}
	if c := crossCheck(restarted[:1], from, to, always); c != nil {
		t.Errorf("one sample: %+v, want no check", c)
	}
}

// TestCrossCheckCounterReset: a token counter that goes down during the
// cell (a restart resets it) flags the cell and gives no server tok/s,
// where it used to fall through to the next counter without a word; the
// preemptions count only the counter's rises.
func TestCrossCheckCounterReset(t *testing.T) {
	t.Parallel()
	t0 := time.Unix(1000, 0)
	from, to := t0.Add(time.Second), t0.Add(11*time.Second)
	restart := steady(t0, 12*time.Second, 4, 100, 0)
	for i := range restart {
		restart[i].Preemptions = 5
		if i >= 20 { // the server restarted 5 s in: every counter from zero
			restart[i].GenTokens -= restart[19].GenTokens
			restart[i].ITLCount -= restart[19].ITLCount
			restart[i].Preemptions = math.Floor(float64(i-20) / 8)
		}
	}
	jitter := steady(t0, 12*time.Second, 4, 100, 0)
	for i := 1; i < len(jitter); i += 2 { // down every other scrape: it never advanced per step
		jitter[i].GenTokens = jitter[i-1].GenTokens - 1
	}
	beforeWindow := steady(t0, 12*time.Second, 4, 100, 0)
	beforeWindow[0].GenTokens = 1e6 // the cell's base sample, before a restart
	for _, tc := range []struct {
		name        string
		samples     []metricSample
		preemptions int
	}{{"restart mid-window", restart, 3}, {"a counter that goes down and up", jitter, 0}, {"restart before the window", beforeWindow, 0}} {
		c := crossCheck(tc.samples, from, to, always)
		if c.CounterReset != "vllm:generation_tokens_total" || c.TokPerSec != 0 || c.TokSource != "" || !strings.Contains(c.NotComparable, "went down") {
			t.Errorf("%s: %+v, want the generation counter named as reset, no tok/s", tc.name, c)
		}
		if c.Preemptions != tc.preemptions {
			t.Errorf("%s: %d preemptions, want %d", tc.name, c.Preemptions, tc.preemptions)
		}
		flags := checkFlags(c, 100)
		want := "the server's counter vllm:generation_tokens_total was reset: it may have restarted"
		if len(flags) == 0 || flags[0].Kind != engine.FlagCounterReset || flags[0].Message != want {
			t.Errorf("%s: flags %+v, want %s: %q", tc.name, flags, engine.FlagCounterReset, want)
		}
	}
}

// TestCrossCheckPreemptionsAndSpec counts preemptions over the cell and
// speculative decoding over the window.
func TestCrossCheckPreemptionsAndSpec(t *testing.T) {
	t.Parallel()
	t0 := time.Unix(1000, 0)
	s := steady(t0, 12*time.Second, 4, 100, 0)
	for i := range s {
		sec := float64(i) / 4
		s[i].Preemptions = math.Floor(sec / 4) // one every 4 s: 3 over 12 s
		s[i].HasSpec, s[i].SpecDrafts, s[i].SpecDraftTokens, s[i].SpecAccepted = true, 10*sec, 30*sec, 21*sec
	}
	c := crossCheck(s, t0.Add(time.Second), t0.Add(11*time.Second), always)
	if c.Preemptions != 3 {
		t.Errorf("preemptions %d, want 3", c.Preemptions)
	}
	if sd := c.SpecDecode; sd == nil || math.Abs(sd.AcceptanceRate-0.7) > 1e-9 || math.Abs(sd.MeanAcceptedLength-3.1) > 1e-9 {
		t.Errorf("spec decode %+v, want acceptance 0.7, mean accepted length 3.1", sd)
	}
	flags := checkFlags(c, 100)
	if len(flags) != 1 || flags[0].Kind != engine.FlagPreempted || flags[0].Message != "preempted 3 times: KV cache pressure" {
		t.Errorf("flags %+v, want one preempted flag", flags)
	}
}

func TestTimeAverage(t *testing.T) {
	t.Parallel()
	t0 := time.Unix(0, 0)
	s := []metricSample{{At: t0, Running: 0}, {At: t0.Add(time.Second), Running: 10}, {At: t0.Add(2 * time.Second), Running: 10}}
	if got := timeAverage(s, func(m metricSample) float64 { return m.Running }); math.Abs(got-7.5) > 1e-9 {
		t.Errorf("time average %v, want 7.5 (a ramp 0→10 then 10)", got)
	}
}

func TestGotTokens(t *testing.T) {
	t.Parallel()
	t0 := time.Unix(0, 0)
	rec := &requestRecord{Sent: t0}
	for _, s := range []time.Duration{1, 3, 9} {
		rec.add(chunkTokens{At: t0.Add(s * time.Second)})
	}
	recs := []*requestRecord{rec}
	m := arrivalsIn(recs, t0, t0.Add(5*time.Second)) // the one at 9 s is outside
	for _, tc := range []struct {
		a, b time.Duration
		want bool
	}{{0, time.Second, true}, {1100 * time.Millisecond, 2 * time.Second, false}, {2 * time.Second, 4 * time.Second, true},
		{3100 * time.Millisecond, 5 * time.Second, false}, {5 * time.Second, 10 * time.Second, false}, {-time.Second, 0, false}} {
		if g := m.gotTokens(t0.Add(tc.a), t0.Add(tc.b)); g != tc.want {
			t.Errorf("(%v, %v]: %v, want %v", tc.a, tc.b, g, tc.want)
		}
	}
}

// TestActiveMedian: one scrape that lands in a restart's gap lowers the
// time-average but not the median, which decides the underfilled flag; a
// server that holds fewer requests in most scrapes lowers both.
func TestActiveMedian(t *testing.T) {
	t.Parallel()
	t0 := time.Unix(1000, 0)
	from, to := t0.Add(time.Second), t0.Add(3*time.Second)
	dip := steady(t0, 4*time.Second, 1, 200, 0)
	dip[8].Running = 0 // inside the window
	c := crossCheck(dip, from, to, always)
	if c.Active >= 0.95 || c.ActiveMedian != 1 {
		t.Errorf("one dip: active %.2f, median %.2f; want the average below 0.95 and the median 1", c.Active, c.ActiveMedian)
	}
	short := steady(t0, 4*time.Second, 100, 2000, 0) // C = 128 asked, the server holds 100
	if c := crossCheck(short, from, to, always); c.ActiveMedian != 100 || c.ActiveMedian >= 0.95*128 {
		t.Errorf("server holding 100 of 128: median %.1f, want 100", c.ActiveMedian)
	}
}

// TestCrossCheckSkipsSlowScrapesAtTheEnds: the counter grows 100 tokens a
// second; the last scrape took 400 ms where the others took 20, and its page
// was written at its start, so dated at its end it would read 96 tok/s.
// Dated halfway and dropped as slow, the rate is exact.
func TestCrossCheckSkipsSlowScrapesAtTheEnds(t *testing.T) {
	t.Parallel()
	t0 := time.Unix(1_796_208_000, 0)
	var s []metricSample
	for i := range 11 {
		written := t0.Add(time.Duration(i) * time.Second)
		took := 20 * time.Millisecond
		if i == 10 {
			took = 400 * time.Millisecond
		}
		s = append(s, metricSample{At: written.Add(took / 2), Took: took, Running: 1, GenTokens: 100 * float64(i), HasGen: true})
	}
	c := crossCheck(s, t0, t0.Add(11*time.Second), func(a, b time.Time) bool { return true })
	if c == nil || math.Abs(c.TokPerSec-100) > 0.5 || c.Samples != 10 {
		t.Fatalf("cross-check %+v; want 100 tok/s from the 10 fast samples", c)
	}
}

// TestServerCountFlagNamesSlowScrapes: a real vLLM on two cores, in a session
// of its own, answered /metrics in 20 ms median and up to seconds, and its
// counter ran ahead of what reached the client. The flag says so; a server
// that answered every scrape fast gets the plain flag.
func TestServerCountFlagNamesSlowScrapes(t *testing.T) {
	t.Parallel()
	t0 := time.Unix(1_796_208_000, 0)
	for _, slow := range []time.Duration{20 * time.Millisecond, 2 * time.Second} {
		var s []metricSample
		for i := range 11 {
			took := 20 * time.Millisecond
			if i == 5 {
				took = slow
			}
			s = append(s, metricSample{At: t0.Add(time.Duration(i) * time.Second), Took: took, Running: 4, GenTokens: 130 * float64(i), HasGen: true})
		}
		c := crossCheck(s, t0, t0.Add(11*time.Second), always)
		flags := checkFlags(c, 100)
		if len(flags) != 1 || flags[0].Kind != engine.FlagServerCount {
			t.Fatalf("scrapes up to %v: flags %+v, want one server-count flag", slow, flags)
		}
		named := strings.Contains(flags[0].Message, "answered in 20 ms median but up to 2000 ms: is the server short of CPU?")
		if named != (slow > time.Second) || c.ScrapeMedianMs != 20 || c.ScrapeSlowestMs != float64(slow/time.Millisecond) {
			t.Errorf("scrapes up to %v: %q (median %v ms, slowest %v ms)", slow, flags[0].Message, c.ScrapeMedianMs, c.ScrapeSlowestMs)
		}
	}
}
