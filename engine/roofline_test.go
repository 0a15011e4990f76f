package engine

import (
	"encoding/json"
	"errors"
	"strings"
	"testing"
)

func testFacts() *RooflineFacts {
	g := RooflineGPU{Name: "test", Count: 1, BandwidthGBs: 1000, BF16TFLOPs: 1000}
	return NewRoofline(g, RooflineModel{ComputeDType: BF16, StepBytes: 4e9, ActiveParams: 2e9, KVBytesPerToken: 1e5})
}

func TestAttachRoofline(t *testing.T) {
	f := testFacts()
	// 8K prompt shared by 2 requests, 512 own tokens each (max output
	// 1,024): 4e9 + 1e5 × (8,192 + 2 × 512) = 4.9216e9 bytes: 4.92 ms a
	// step, 406.4 tok/s.
	res := Result{Cell: Cell{Phase: PhaseDecode, ContextTokens: 8192, Concurrency: 2}, Status: StatusValid, TotalTokPerSec: 300}
	AttachRoofline(&res, f, 1024)
	want := 2 / 4.9216e-3
	if d := res.RooflineTokS - want; d > 1e-6 || d < -1e-6 || res.RooflineBound != BoundMemory {
		t.Fatalf("ceiling %.3f (%s), want %.3f", res.RooflineTokS, res.RooflineBound, want)
	}
	if pct := 100 * 300 / want; res.RooflinePct != pct || res.flagged() {
		t.Errorf("pct %.2f, flags %v; want %.2f, none", res.RooflinePct, res.Flags, pct)
	}

	fast := Result{Cell: res.Cell, Status: StatusValid, TotalTokPerSec: 500}
	AttachRoofline(&fast, f, 1024)
	if fast.RooflinePct <= 100 || !fast.HasFlag(flagAboveRoofline) ||
		!strings.Contains(fast.Flags[0].Message, "above the roofline: the facts are wrong (500.0 tok/s is 123 %") {
		t.Errorf("above the ceiling: pct %.1f, flags %v", fast.RooflinePct, fast.Flags)
	}

	looped := Result{Cell: res.Cell, Status: StatusLooped, TotalTokPerSec: 300}
	AttachRoofline(&looped, f, 1024)
	unknown := res
	AttachRoofline(&unknown, RooflineUnavailable(errors.New("roofline unavailable: unknown GPU")), 1024)
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
