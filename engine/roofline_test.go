package engine

import (
	"encoding/json"
	"strings"
	"testing"
	"time"

	"speedmatrix/engine/roofline"
	"speedmatrix/engine/sim"
)

func testFacts() *roofline.Facts {
	g := roofline.GPU{Name: "test", Count: 1, BandwidthGBs: 1000, BF16TFLOPs: 1000}
	return roofline.New(g, roofline.Model{ComputeDType: roofline.BF16, StepBytes: 4e9, ActiveParams: 2e9, KVBytesPerToken: 1e5})
}

func TestAttachRoofline(t *testing.T) {
	f := testFacts()
	// 8K prompt shared by 2 requests, 512 own tokens each (max output
	// 1,024): 4e9 + 1e5 × (8,192 + 2 × 512) = 4.9216e9 bytes: 4.92 ms a
	// step, 406.4 tok/s.
	res := Result{Cell: Cell{Phase: PhaseDecode, ContextTokens: 8192, Concurrency: 2}, Status: StatusValid, TotalTokPerSec: 300}
	attachRoofline(&res, f, 1024)
	want := 2 / 4.9216e-3
	if d := res.RooflineTokS - want; d > 1e-6 || d < -1e-6 || res.RooflineBound != roofline.BoundMemory {
		t.Fatalf("ceiling %.3f (%s), want %.3f", res.RooflineTokS, res.RooflineBound, want)
	}
	if pct := 100 * 300 / want; res.RooflinePct != pct || res.Flagged() {
		t.Errorf("pct %.2f, flags %v; want %.2f, none", res.RooflinePct, res.Flags, pct)
	}

	fast := Result{Cell: res.Cell, Status: StatusValid, TotalTokPerSec: 500}
	attachRoofline(&fast, f, 1024)
	if fast.RooflinePct <= 100 || !fast.HasFlag(FlagAboveRoofline) ||
		!strings.Contains(fast.Flags[0].Message, "above the roofline: the facts are wrong (500.0 tok/s is 123 %") {
		t.Errorf("above the ceiling: pct %.1f, flags %v", fast.RooflinePct, fast.Flags)
	}

	looped := Result{Cell: res.Cell, Status: StatusLooped, TotalTokPerSec: 300}
	attachRoofline(&looped, f, 1024)
	unknown := res
	attachRoofline(&unknown, roofline.Unavailable(roofline.ErrUnknownGPU), 1024)
	if looped.RooflineTokS != 0 || unknown.RooflineTokS != 0 || unknown.RooflinePct != 0 {
		t.Errorf("no ceiling expected: looped %+v, unknown GPU %+v", looped.RooflineTokS, unknown.RooflineTokS)
	}
}

// A report written before the roofline loads with none; one with it keeps
// its facts and each cell's figures.
func TestRooflineJSON(t *testing.T) {
	var old Report
	if err := json.Unmarshal([]byte(`{"schema_version":1,"results":[{"phase":"decode","context_tokens":8192,"concurrency":1,"status":"Valid","total_tok_s":100}]}`), &old); err != nil {
		t.Fatal(err)
	}
	if old.Roofline != nil || old.Results[0].RooflinePct != 0 {
		t.Errorf("old report: %+v", old.Roofline)
	}
	rep := Report{Roofline: testFacts(), Run: RunInfo{MaxOutputTokens: 1024}, Results: old.Results}
	rep.ApplyRoofline()
	b, err := json.Marshal(rep)
	if err != nil {
		t.Fatal(err)
	}
	for _, want := range []string{`"roofline":{"gpu":{"name":"test"`, `"roofline_tok_s":`, `"roofline_pct":`, `"roofline_bound":"memory bandwidth"`} {
		if !strings.Contains(string(b), want) {
			t.Errorf("report.json lacks %s: %s", want, b)
		}
	}
	var back Report
	if err := json.Unmarshal(b, &back); err != nil || !back.Roofline.Available() || back.Results[0].RooflinePct != rep.Results[0].RooflinePct {
		t.Errorf("round trip: %v %+v", err, back.Roofline)
	}
}

// TestRooflineOnceModelKnown: a target that did not say its model gets its
// roofline facts once /v1/models has: for the model the server loaded
// (its root), and every Valid cell gets its ceiling from them.
func TestRooflineOnceModelKnown(t *testing.T) {
	srv := simServer(t, sim.Options{TimeScale: 20})
	ref, err := sim.LookupProfile("gemma-4-e2b-rtxpro6000")
	if err != nil {
		t.Fatal(err)
	}
	var asked []string
	target := Subject{Target: Target{BaseURL: srv.URL}}
	target.RooflineFor = func(model string) *roofline.Facts {
		asked = append(asked, model)
		return ref.RooflineFacts()
	}
	plan := Plan{PrefillContexts: []int{1 * K}, DecodeContexts: []int{1 * K}, Concurrency: []int{1},
		Duration: 300 * time.Millisecond, MaxOutputTokens: 256, API: APICompletions}
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
		if r.Status == StatusValid && (r.RooflineTokS <= 0 || r.RooflinePct <= 0) {
			t.Errorf("%s: ceiling %.1f tok/s, %.1f %%; want both set", r.Key(), r.RooflineTokS, r.RooflinePct)
		}
	}
}
