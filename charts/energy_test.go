package charts

import (
	"slices"
	"strings"
	"testing"

	"speedmatrix/engine"
)

// TestEnergyAndCostPictures: every export draws decode-energy, whose cells
// say tokens per joule (or a dash, and why, without energy); decode-cost
// only with the user's prices, each cell its USD per million tokens.
func TestEnergyAndCostPictures(t *testing.T) {
	plain := loadSeed(t, "seed000")
	if !slices.Contains(KindsFor(plain), KindEnergy) || slices.Contains(KindsFor(plain), KindCost) {
		t.Errorf("KindsFor without prices = %v: want decode-energy, no decode-cost", KindsFor(plain))
	}
	m := BuildModel(plain)
	if m.Cost != nil || !slices.Contains(m.Energy.Notes, noEnergy) {
		t.Errorf("without energy: cost %v, energy notes %q", m.Cost, m.Energy.Notes)
	}
	if _, err := Draw(KindCost, plain, Options{}); err == nil || !strings.Contains(err.Error(), "no prices") {
		t.Errorf("decode-cost without prices: %v", err)
	}
	priced := loadSeed(t, "seed000")
	priced.Run.Prices = &engine.Prices{PerHourUSD: 2.5}
	var first *engine.Result
	for i := range priced.Results {
		res := &priced.Results[i]
		if res.Phase == engine.PhaseDecode && res.Measured() {
			res.Energy = &engine.CellEnergy{Method: engine.EnergyCounter, Source: engine.EnergyFromNVML, PowerW: 300,
				TokensPerJoule: res.TotalTokPerSec / 300, JoulesPerToken: 300 / res.TotalTokPerSec}
			if first == nil {
				first = res
			}
		}
	}
	if k := KindsFor(priced); k[len(k)-1] != KindCost {
		t.Errorf("KindsFor with prices = %v, want decode-cost last", k)
	}
	m = BuildModel(priced)
	var texts []string
	for _, row := range m.Cost.Cells {
		for _, c := range row {
			texts = append(texts, c.Text)
		}
	}
	want, _ := engine.CostOf(*first, priced.Run.Prices)
	if !strings.Contains(strings.Join(texts, " "), "$") || !strings.Contains(m.Cost.Subtitle, "rent 2.50 USD/h") || want.TotalUSD <= 0 {
		t.Errorf("cost cells %q, subtitle %q", texts, m.Cost.Subtitle)
	}
	for _, k := range []Kind{KindEnergy, KindCost} {
		if _, err := RenderPNG(k, priced, Options{}); err != nil {
			t.Errorf("%s: %v", k, err)
		}
	}
}
