package sim

import (
	"fmt"
	"strings"
	"testing"

	"speedmatrix/engine"
)

// TestRooflineSimulatedCells runs every cell of both reference matrices on
// the simulator's own clock (as TestProfilesMatchSeeds does) and puts each
// Valid one under its profile's roofline: the simulated speed must be a
// share in (0, 100] % of what the profile's GPU and model allow. The table
// it logs (go test -v) is the simulated percentage of every cell.
func TestRooflineSimulatedCells(t *testing.T) {
	for _, r := range SeedReports {
		t.Run(r.Profile, func(t *testing.T) {
			t.Parallel()
			p, err := LookupProfile(r.Profile)
			if err != nil {
				t.Fatal(err)
			}
			f := p.RooflineFacts()
			var table strings.Builder
			check := func(res engine.Result, what string) {
				c := engine.CeilingOf(f, res, r.MaxOutputTokens)
				pct := 100 * res.TotalTokPerSec / c.TokS
				fmt.Fprintf(&table, "%-16s %9.1f of %9.1f tok/s %5.1f %% (%s)\n", what, res.TotalTokPerSec, c.TokS, pct, c.Bound)
				if !(pct > 0 && pct <= 100) {
					t.Errorf("%s: simulated %.1f tok/s is %.1f %% of the ceiling %.1f", what, res.TotalTokPerSec, pct, c.TokS)
				}
			}
			for _, sp := range r.Prefill {
				n := fitContext(sp.ContextTokens, p.MaxModelLen, 1)
				res := engine.Result{Cell: engine.Cell{Phase: engine.PhasePrefill, ContextTokens: n, Concurrency: 1},
					Status: engine.StatusValid, TotalTokPerSec: float64(n) / virtualPrefill(p, n)}
				check(res, "prefill "+engine.ContextLabel(n))
			}
			for _, ch := range checkSeed(p, r) {
				if ch.status != "Valid" {
					continue
				}
				res := engine.Result{Cell: engine.Cell{Phase: engine.PhaseDecode, ContextTokens: ch.ctx, Concurrency: ch.cell.Concurrency},
					Status: engine.StatusValid, TotalTokPerSec: ch.got.TokPerSec}
				check(res, fmt.Sprintf("decode %s × %d", engine.ContextLabel(ch.ctx), ch.cell.Concurrency))
			}
			t.Logf("%s (simulated)\n%s", p.Name, table.String())
		})
	}
}
