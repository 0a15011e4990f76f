package widget

import (
	"strings"
	"testing"

	"speedmatrix/engine"
)

// TestCellDetailsSayWhatThePrefixCacheFound: a cell whose server counted
// its prefix cache ends its details with what it found there, in tokens
// from counters and as a rate from SGLang's gauge; without figures nothing
// is said.
func TestCellDetailsSayWhatThePrefixCacheFound(t *testing.T) {
	decode := engine.Result{Cell: engine.Cell{Phase: engine.PhaseDecode, ContextTokens: 8192, Concurrency: 4}, Status: engine.StatusValid,
		TotalTokPerSec: 400, PrefixCache: &engine.PrefixCache{ServerHitRate: 0.996, QueriedTokens: 40960, HitTokens: 40796, Source: "counters"}}
	prefill := engine.Result{Cell: engine.Cell{Phase: engine.PhasePrefill, ContextTokens: 8192, Concurrency: 1}, Status: engine.StatusValid,
		TotalTokPerSec: 40000, PrefixCache: &engine.PrefixCache{ServerHitRate: 0.25, Source: "sglang:cache_hit_rate, averaged over the cell"}}
	for _, tc := range []struct {
		name string
		r    engine.Result
		want string
	}{
		{"decode, counters", decode, "Prefix cache: 99.6 % of 40,960 prompt tokens found there"},
		{"prefill, SGLang's gauge", prefill, "Prefix cache: 25.0 % hit rate (sglang:cache_hit_rate, averaged over the cell)"},
	} {
		lines := strings.Split(CellDetails(tc.r, engine.SLO{}), "\n")
		if last := lines[len(lines)-1]; !strings.HasPrefix(last, tc.want) {
			t.Errorf("%s: details end %q, want %q", tc.name, last, tc.want)
		}
	}
	decode.PrefixCache = nil
	if d := CellDetails(decode, engine.SLO{}); strings.Contains(d, "Prefix cache") || strings.Contains(d, "\n\n") {
		t.Errorf("without figures: %q", d)
	}
}

// TestCellDetailsSayTheEnergy: a cell with measured energy says it second,
// with how it was measured; a simulated one says so.
func TestCellDetailsSayTheEnergy(t *testing.T) {
	r := engine.Result{Cell: engine.Cell{Phase: engine.PhaseDecode, ContextTokens: 8192, Concurrency: 64}, Status: engine.StatusValid, TotalTokPerSec: 6500,
		Energy: &engine.CellEnergy{Method: engine.EnergyCounter, Source: engine.EnergyFromSimulator, Simulated: true, PowerW: 520, IdleW: 35,
			TokensPerJoule: 12.5, JoulesPerToken: 0.08, JoulesPerTokenAboveIdle: 0.0746}}
	lines := strings.Split(CellDetails(r, engine.SLO{}), "\n")
	want := "Energy: 12.5 tokens/J · 0.0800 J/token, 0.0746 above idle · from the simulated energy counter"
	if len(lines) < 2 || lines[1] != want {
		t.Errorf("details %q, want line 2 %q", lines, want)
	}
}
