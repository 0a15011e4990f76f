package sim_test

import (
	"fmt"
	"strings"
	"testing"

	"speedmatrix/engine"
	"speedmatrix/engine/sim"
)

// TestRooflineReferenceCells puts every Valid cell of both reference
// reports (the figures the profiles are fitted to, measured on real GPUs)
// under the roofline of its profile's facts: each must reach a share in
// (0, 100] %, or the GPU or model facts are wrong.
func TestRooflineReferenceCells(t *testing.T) {
	for _, seed := range sim.SeedReports {
		t.Run(seed.Profile, func(t *testing.T) {
			p, err := sim.LookupProfile(seed.Profile)
			if err != nil {
				t.Fatal(err)
			}
			f := p.RooflineFacts()
			if !f.Available() {
				t.Fatalf("profile %s has no roofline: %+v", p.Name, f)
			}
			var table strings.Builder
			for _, c := range seed.Cells {
				if c.Status != string(engine.StatusValid) {
					continue
				}
				res := engine.Result{Cell: engine.Cell{Phase: engine.PhaseDecode, ContextTokens: c.ContextTokens, Concurrency: c.Concurrency},
					Status: engine.StatusValid, TotalTokPerSec: c.TotalTokPerSec}
				ceil := engine.CeilingOf(f, res, seed.MaxOutputTokens)
				pct := 100 * c.TotalTokPerSec / ceil.TokS
				fmt.Fprintf(&table, "decode %6s × %3d  %8.1f of %8.1f tok/s  %5.1f %%  %s\n", engine.ContextLabel(c.ContextTokens), c.Concurrency, c.TotalTokPerSec, ceil.TokS, pct, ceil.Bound)
				if !(pct > 0 && pct <= 100) {
					t.Errorf("decode %s × %d: %.1f tok/s is %.1f %% of the ceiling %.1f", engine.ContextLabel(c.ContextTokens), c.Concurrency, c.TotalTokPerSec, pct, ceil.TokS)
				}
			}
			for _, c := range seed.Prefill {
				res := engine.Result{Cell: engine.Cell{Phase: engine.PhasePrefill, ContextTokens: c.ContextTokens, Concurrency: 1},
					Status: engine.StatusValid, TotalTokPerSec: c.TokPerSec}
				ceil := engine.CeilingOf(f, res, seed.MaxOutputTokens)
				pct := 100 * c.TokPerSec / ceil.TokS
				fmt.Fprintf(&table, "prefill %6s  %8.1f of %8.1f tok/s  %5.1f %%  %s\n", engine.ContextLabel(c.ContextTokens), c.TokPerSec, ceil.TokS, pct, ceil.Bound)
				if !(pct > 0 && pct <= 100) {
					t.Errorf("prefill %s: %.1f tok/s is %.1f %% of the ceiling %.1f", engine.ContextLabel(c.ContextTokens), c.TokPerSec, pct, ceil.TokS)
				}
			}
			t.Logf("%s\n%s", p.Name, table.String())
		})
	}
}
