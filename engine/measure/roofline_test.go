package measure

import (
	"testing"
	"time"

	"speedmatrix/engine"
	"speedmatrix/engine/sim"
)

func TestRooflineOnceModelKnown(t *testing.T) {
	t.Parallel()
	srv := simServer(t, sim.Options{TimeScale: 20})
	ref, err := sim.LookupProfile("gemma-4-e2b-rtxpro6000")
	if err != nil {
		t.Fatal(err)
	}
	var asked []string
	target := Subject{Target: Target{BaseURL: srv.URL}}
	target.RooflineFor = func(model string) *engine.RooflineFacts {
		asked = append(asked, model)
		return ref.RooflineFacts()
	}
	plan := engine.Plan{PrefillContexts: []int{1 * engine.K}, DecodeContexts: []int{1 * engine.K}, Concurrency: []int{1},
		Duration: 300 * time.Millisecond, MaxOutputTokens: 256, API: engine.APICompletions}
	rep, _, err := runAll(t, t.Context(), plan, target, testOptions())
	if err != nil {
		t.Fatal(err)
	}
	if len(asked) != 1 || asked[0] != "speedmatrix/tiny-sim" || rep.Run.Model != "speedmatrix/tiny-sim" {
		t.Fatalf("asked for %q, report model %q; want the server's root speedmatrix/tiny-sim once", asked, rep.Run.Model)
	}
	if !rep.Roofline.Available() {
		t.Fatalf("report roofline %+v", rep.Roofline)
	}
	for _, r := range rep.Results {
		if r.Status == engine.StatusValid && (r.RooflineTokS <= 0 || r.RooflinePct <= 0) {
			t.Errorf("%s: ceiling %.1f tok/s, %.1f %%; want both set", r.Key(), r.RooflineTokS, r.RooflinePct)
		}
	}
}
