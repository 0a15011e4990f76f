package results

import (
	"strings"
	"testing"

	"speedmatrix/engine"
	"speedmatrix/engine/sweep"
	"speedmatrix/engine/sweep/runner"
)

// TestSweepNotesQuality: where a sweep measured the drift of a
// configuration that changes the output, Results names its figure in the
// † mark's place, and its Looped cells stand beside its drift.
func TestSweepNotesQuality(t *testing.T) {
	cs := runner.Grid([][]sweep.Setting{{{Key: "kv_cache_dtype", Value: `"fp8"`}}})
	s := sweep.New("server.toml", engine.Plan{}, cs, "test")
	s.Configs[1].ChangesOutput = []string{"kv_cache_dtype"}
	s.Quality = &sweep.QualitySetup{Budget: "kld=0.01,top1=98%", ReferenceSHA256: "x"}
	s.Configs[0].Quality = &sweep.ConfigQuality{State: sweep.QualityMeasured, Reference: true}
	s.Configs[1].Quality = &sweep.ConfigQuality{State: sweep.QualityMeasured,
		Contexts: []sweep.Drift{{ContextTokens: 8 * engine.K, Top1Pct: 91, KLDMean: 0.05, Real: true, Top1Over: true, KLDOver: true}}}
	s.Answer = &sweep.Answer{Looped: []string{s.Configs[1].Name + ": 8K × 1"},
		Headlines: []sweep.Headline{{Config: s.Configs[0].Name, DecodeCells: 12}, {Config: s.Configs[1].Name, LoopedCells: 5, DecodeCells: 12}}}
	notes := sweepNotes(s)
	for _, want := range []string{"Quality against the baseline's output (budget kld=0.01,top1=98%): baseline: the reference; " + s.Configs[1].Name + ": over budget: top-1 91.0 %, KLD 0.05 at 8K.",
		s.Configs[1].Name + ": Looped in 5 of 12 cells; drift top-1 91.0 %, KLD 0.05 at 8K"} {
		if !strings.Contains(notes, want) {
			t.Errorf("notes lack %q:\n%s", want, notes)
		}
	}
	if strings.Contains(notes, "†") {
		t.Errorf("the † stays where the drift was measured:\n%s", notes)
	}
}
