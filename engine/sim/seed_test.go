package sim_test

import (
	"context"
	"math"
	"net/http/httptest"
	"testing"
	"time"

	"speedmatrix/engine"
	"speedmatrix/engine/measure"
	"speedmatrix/engine/sim"
)

// seedRun is how a reference matrix is shortened: the model runs timeScale times
// faster than real time, and each decode window lasts windowS model seconds
// (the reference reports measured 30).
type seedRun struct {
	timeScale, windowS float64
}

// The time scales keep the real token rate of the busiest cell near
// 100,000 tok/s (000) and 25,000 tok/s (003), which a 2-core machine serves
// and measures alongside each other.
var seedRuns = map[string]seedRun{
	"gemma-4-e2b-rtxpro6000":        {timeScale: 10, windowS: 8},
	"gemma-4-26b-a4b-nvfp4-rtx3090": {timeScale: 25, windowS: 20},
}

// TestSeedMatrices runs each reference report's whole matrix through measure.Run against
// its profile over HTTP in real time, with shortened windows, and checks it
// cell by cell: the same cells Over capacity and Looped, every Valid cell's
// total tok/s and every prefill tok/s within 10 % of the reference report.
//
// It is opt-in (SPEEDMATRIX_REALTIME=1): CI relies on TestProfilesMatchSeeds,
// the same agreement checked on the simulator's own clock. This run takes
// about 75 s and its rates depend on the machine: beside a process keeping
// one of two cores busy a cell came out 10.9 % off, and the HTTP pacing of
// the busiest cells up to 39 % (TestHTTPPacingMatchesSeeds), so no
// tolerance that still says something would hold on a busy CI machine.
// Run it on a quiet one after changing the server's pacing:
//
//	SPEEDMATRIX_REALTIME=1 go test -count=1 -p 1 -run 'TestSeedMatrices|TestHTTPPacingMatchesSeeds' ./engine/sim/
func TestSeedMatrices(t *testing.T) {
	sim.SkipUnlessRealTime(t, "runs both reference matrices in real time (about 75 s)")
	for _, r := range sim.SeedReports {
		t.Run(r.Profile, func(t *testing.T) { checkSeedMatrix(t, r, seedRuns[r.Profile]) })
	}
}

func checkSeedMatrix(t *testing.T, r sim.SeedReport, run seedRun) {
	p, err := sim.LookupProfile(r.Profile)
	if err != nil {
		t.Fatal(err)
	}
	s, err := sim.New(sim.Options{Profile: p, TimeScale: run.timeScale})
	if err != nil {
		t.Fatal(err)
	}
	srv := httptest.NewServer(s)
	defer func() { srv.Close(); s.Close() }()
	var prefill []int
	for _, sp := range r.Prefill {
		prefill = append(prefill, sp.ContextTokens)
	}
	plan := engine.Plan{
		PrefillContexts: prefill, DecodeContexts: r.Contexts, Concurrency: r.Concurrency,
		Duration:        time.Duration(run.windowS / run.timeScale * float64(time.Second)),
		MaxOutputTokens: r.MaxOutputTokens, API: engine.APIChat, LoopDetection: true,
	}
	target := measure.Target{BaseURL: srv.URL}
	var ro measure.RunOptions
	ro.Header.Server = engine.ServerInfo{Name: "vllm", Simulated: true, SimProfile: p.Name, MaxNumSeqs: p.MaxNumSeqs}
	ctx, cancel := context.WithTimeout(context.Background(), 5*time.Minute)
	defer cancel()
	var rep *engine.Report
	for ev := range measure.Run(ctx, plan, measure.Subject{Target: target, RunOptions: ro}) {
		if ev.Kind == engine.EventDone {
			if ev.Err != nil {
				t.Fatalf("run: %v", ev.Err)
			}
			rep = ev.Report
		}
	}
	worst := compareSeed(t, r, p, rep.Results, run.timeScale)
	t.Logf("%s against %s: worst disagreement %.1f%%", r.File, p.Name, 100*worst)
}

// compareSeed checks results against the reference report and returns the worst
// relative disagreement of a rate.
func compareSeed(t *testing.T, r sim.SeedReport, p sim.Profile, results []engine.Result, scale float64) float64 {
	byKey := map[string]engine.Result{}
	for _, res := range results {
		byKey[res.Key()] = res
	}
	worst := 0.0
	check := func(what string, got, seed float64) {
		e := got/seed - 1
		worst = max(worst, math.Abs(e))
		t.Logf("%-28s reference %8.1f  simulated %8.1f tok/s  (%+5.1f%%)", what, seed, got, 100*e)
		if math.Abs(e) > 0.10 {
			t.Errorf("%s: simulated %.1f tok/s, reference %.1f: off by %+.1f%%", what, got, seed, 100*e)
		}
	}
	for _, sp := range r.Prefill {
		c := engine.Cell{Phase: engine.PhasePrefill, ContextTokens: fit(sp.ContextTokens, p, 1), Concurrency: 1}
		res, ok := byKey[c.Key()]
		if !ok || res.Status != engine.StatusValid {
			t.Errorf("prefill %s: %s %s, want Valid", c.Key(), res.Status, res.Error)
			continue
		}
		check("prefill "+res.ContextLabel, res.TotalTokPerSec/scale, sp.TokPerSec)
	}
	for _, sc := range r.Cells {
		c := engine.Cell{Phase: engine.PhaseDecode, ContextTokens: fit(sc.ContextTokens, p, r.MaxOutputTokens), Concurrency: sc.Concurrency}
		res := byKey[c.Key()]
		if string(res.Status) != sc.Status {
			t.Errorf("decode %s: %s (%s), reference says %s", c.Key(), res.Status, res.Error, sc.Status)
			continue
		}
		if sc.Status == "Valid" {
			check("decode "+res.ContextLabel+" × "+itoa(sc.Concurrency), res.TotalTokPerSec/scale, sc.TotalTokPerSec)
		}
	}
	return worst
}

// fit is the context the engine runs for a requested one (engine.fitContext).
func fit(requested int, p sim.Profile, output int) int {
	return max(0, min(requested, p.MaxModelLen-output-256))
}

func itoa(n int) string {
	if n < 10 {
		return string(rune('0' + n))
	}
	return itoa(n/10) + string(rune('0'+n%10))
}
