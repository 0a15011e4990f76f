package runner

import (
	"path/filepath"
	"strings"
	"testing"
	"time"

	"speedmatrix/engine"
	"speedmatrix/engine/launch"
	"speedmatrix/engine/sweep"
)

// quick is the app's Quick plan for a server of unknown length: decode 8K
// and 32K × 1, 8, 32, 10 s windows, 1,024 tokens out.
func quick() engine.Plan {
	p := engine.DefaultPlan()
	p.Precision, p.PrefillRepeats, p.PrefillSingleFrom = 0, 1, 0
	p.PrefillContexts, p.DecodeContexts, p.Concurrency = []int{8 * engine.K, 32 * engine.K}, []int{8 * engine.K, 32 * engine.K}, []int{1, 8, 32}
	p.Duration, p.MaxOutputTokens = 10*time.Second, 1024
	return p
}

// TestEstimate: a sweep of three configurations of the stand-in, whose
// runs fit the plan to 8,192 tokens, was estimated at 9 min 27 s (two
// minutes per start-up, and the plan as planned) and took a minute. The
// stand-in's start-up and a known max model length bring the estimate
// near; start-ups and runs once measured replace what was assumed; and
// the estimate says what it assumed.
func TestEstimate(t *testing.T) {
	three := named([]sweep.Config{{Name: sweep.BaselineName, Baseline: true}, {Name: "max_num_seqs=2", Settings: []sweep.Setting{{Key: "max_num_seqs", Value: "2"}}},
		{Name: "max_num_seqs=8", Settings: []sweep.Setting{{Key: "max_num_seqs", Value: "8"}}}})
	standIn, err := filepath.Abs("../../../examples/sweep/vllm")
	if err != nil {
		t.Fatal(err)
	}
	for _, c := range []struct {
		name     string
		prior    sweep.Prior
		lo, hi   time.Duration
		basis    string
		measured bool
	}{
		{"nothing known", sweep.Prior{}, 9*time.Minute + 10*time.Second, 9*time.Minute + 30*time.Second,
			"start-ups of 2 min 0 s each, vLLM's usual, assumed until one is measured, and the plan as planned, the servers' max model length unknown before they start: 1 min 9 s per configuration", false},
		{"the stand-in, its length known", PriorFor(launch.ServerConfig{Executable: standIn, MaxModelLen: 8192}), 80 * time.Second, 110 * time.Second,
			"start-ups of 2.0 s each, the stand-in's (Speed Matrix's simulator), and the plan fitted to max model length 8,192: 34 s per configuration", false},
		{"a start-up timed before", sweep.Prior{StartupS: 41, Startup: sweep.StartupMeasured}, 5 * time.Minute, 6 * time.Minute,
			"start-ups of 41 s each, as the baseline's server took to start before the sweep, and the plan as planned", false},
		{"one configuration measured", sweep.Prior{}, 40 * time.Second, 40 * time.Second, "", true},
	} {
		t.Run(c.name, func(t *testing.T) {
			s := sweep.New("server.toml", quick(), append([]sweep.Config(nil), three...), "test")
			s.Prior = c.prior
			if c.measured { // the baseline started in 3 s and ran in 17 s
				s.Configs[0].Status, s.Configs[0].StartupS, s.Configs[0].MeasureS = sweep.StatusDone, 3, 17
			}
			if got := Estimate(s); got < c.lo || got > c.hi {
				t.Errorf("estimate %v, want %v–%v", got, c.lo, c.hi)
			}
			if got := EstimateBasis(s); !strings.HasPrefix(got, c.basis) {
				t.Errorf("basis %q, want it to begin %q", got, c.basis)
			}
		})
	}
	// A configuration's own max_model_len fits its plan, whatever the prior.
	s := sweep.New("server.toml", quick(), append([]sweep.Config(nil), three...), "test")
	s.Prior = sweep.Prior{StartupS: 2, Startup: sweep.StartupStandIn, MaxModelLen: 32768}
	short := s
	short.Configs = append([]sweep.Config(nil), s.Configs...)
	short.Configs[2].Settings = []sweep.Setting{{Key: "max_model_len", Value: "8192"}}
	if long, fit := Estimate(s), Estimate(short); fit >= long {
		t.Errorf("a configuration of max_model_len 8192 is estimated as long (%v) as one of 32768 (%v)", fit, long)
	}
	if p := PriorFor(launch.ServerConfig{Executable: "vllm"}); p != (sweep.Prior{}) {
		t.Errorf("vLLM's prior %+v, want none: two minutes a start-up, the plan as planned", p)
	}
}

// TestEstimateIsBounded: a sweep.json's figures are data: an absurd prior
// is refused where it is read, and absurd start-ups bound the estimate,
// never wrap it negative.
func TestEstimateIsBounded(t *testing.T) {
	dir := t.TempDir()
	s := sweep.New("server.toml", quick(), named([]sweep.Config{{Name: sweep.BaselineName, Baseline: true}, {Name: "a"}}), "test")
	for _, p := range []sweep.Prior{{StartupS: 1e308}, {StartupS: -1}, {MaxModelLen: -5}, {Startup: sweep.StartupBasis(strings.Repeat("guessed", 1000))}} {
		s.Prior = p
		if err := sweep.Save(dir, s); err != nil {
			t.Fatal(err)
		}
		if _, err := sweep.Load(dir); err == nil || !strings.Contains(err.Error(), "its estimate's prior has") || len(err.Error()) > 300 {
			t.Errorf("prior %+v: Load err = %v", p, err)
		}
	}
	s.Prior = sweep.Prior{}
	s.Configs[0].StartupS = 1e308
	if got := Estimate(s); got <= 0 || got > 366*24*time.Hour {
		t.Errorf("estimate with an absurd start-up: %v", got)
	}
}

// TestMeasuredContexts: the plan a sweep states is what its configurations
// measured, with the plan's own when fitting changed it.
func TestMeasuredContexts(t *testing.T) {
	s := sweep.New("server.toml", quick(), named([]sweep.Config{{Name: sweep.BaselineName, Baseline: true}}), "test")
	fitted := map[string]engine.Report{sweep.BaselineName: {Results: []engine.Result{
		decodeCell(6912, 1, engine.StatusValid, 100, 0), decodeCell(6912, 8, engine.StatusValid, 500, 0)}}}
	if got, want := sweep.MeasuredContexts(s, fitted), engine.ContextLabel(6912)+" (planned 8K, 32K, fitted to the servers' length)"; got != want {
		t.Errorf("fitted: %q, want %q", got, want)
	}
	if got := sweep.MeasuredContexts(s, nil); got != "8K, 32K" {
		t.Errorf("nothing measured yet: %q, want the plan's", got)
	}
}
