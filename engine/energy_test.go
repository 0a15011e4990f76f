package engine

import (
	"errors"
	"math"
	"testing"
)

// A cell's power comes from the counters only when every serving GPU has
// a trusted one; a GPU that does not serve the model counts for nothing.
func TestCellEnergyOf(t *testing.T) {
	gpu := func(i int, sampled, counter float64, note string) GPUTelemetry {
		g := GPUTelemetry{Index: i, PowerW: Stat{Avg: sampled}, CounterW: counter, CounterNote: note}
		if counter > 0 {
			g.CounterSource = EnergyFromNVML
		}
		return g
	}
	idle := &IdlePower{GPUs: []GPUIdle{{Index: 0, W: 50}, {Index: 1, W: 50}, {Index: 2, W: 40}}}
	for _, tc := range []struct {
		name       string
		gpus       []GPUTelemetry
		serving    []GPUKey
		wantMethod EnergyMethod
		wantW      float64
		wantNote   string
	}{
		{"both count", []GPUTelemetry{gpu(0, 290, 300, ""), gpu(1, 290, 310, "")}, nil, EnergyCounter, 610, ""},
		{"one without", []GPUTelemetry{gpu(0, 290, 300, ""), gpu(1, 280, 0, "")}, nil, EnergyIntegrated, 570, "GPU 1 has no energy counter"},
		{"one reset", []GPUTelemetry{gpu(0, 290, 0, "energy counter went backwards in the window (reset or wrapped)"), gpu(1, 280, 0, "")}, nil,
			EnergyIntegrated, 570, "GPU 0's energy counter went backwards in the window (reset or wrapped)"},
		{"none has one", []GPUTelemetry{gpu(0, 290, 0, ""), gpu(1, 280, 0, "")}, nil, EnergyIntegrated, 570, "no energy counter"},
		{"GPU 2 does not serve", []GPUTelemetry{gpu(0, 290, 300, ""), gpu(1, 290, 310, ""), gpu(2, 60, 0, "")}, []GPUKey{{Index: 0}, {Index: 1}}, EnergyCounter, 610, ""},
	} {
		t.Run(tc.name, func(t *testing.T) {
			total := 0.0
			for _, g := range tc.gpus {
				total += g.PowerW.Avg
			}
			e := CellEnergyOf(&Telemetry{GPUs: tc.gpus, TotalPowerW: Stat{Avg: total}}, tc.serving, idle, PhaseDecode, 1000)
			if e == nil || e.Method != tc.wantMethod || e.PowerW != tc.wantW || e.Note != tc.wantNote {
				t.Fatalf("energy %+v: want %s, %v W, note %q", e, tc.wantMethod, tc.wantW, tc.wantNote)
			}
			if want := 100.0; tc.serving != nil && e.IdleW != want {
				t.Errorf("idle %v W, want %v (the serving GPUs' only)", e.IdleW, want)
			}
			if math.Abs(e.JoulesPerTokenAboveIdle-(e.PowerW-e.IdleW)/1000) > 1e-12 {
				t.Errorf("above idle %v", e.JoulesPerTokenAboveIdle)
			}
		})
	}
	if e := CellEnergyOf(&Telemetry{}, nil, nil, PhaseDecode, 1000); e != nil {
		t.Errorf("no power: %+v", e)
	}
}

func TestParsePrice(t *testing.T) {
	for _, tc := range []struct {
		which, text string
		want        float64
		bad         bool
	}{
		{PriceRent, "2.50", 2.5, false}, {PriceRent, " $2.5 ", 2.5, false}, {PriceElectricity, "", 0, false},
		{PriceRent, "abc", 0, true}, {PriceRent, "-1", 0, true}, {PriceRent, "1e12", 0, true}, {PriceRent, "Inf", 0, true},
		{PriceElectricity, "11", 0, true}, {PriceElectricity, "0.30", 0.3, false},
	} {
		v, err := ParsePrice(tc.which, tc.text)
		if tc.bad != errors.Is(err, ErrPrice) || (!tc.bad && v != tc.want) {
			t.Errorf("ParsePrice(%s, %q) = %v, %v", tc.which, tc.text, v, err)
		}
	}
}

// Without energy only the rent is priced, and the parts say so; without a
// price nothing is.
func TestCostOf(t *testing.T) {
	r := Result{Cell: Cell{Phase: PhaseDecode, ContextTokens: 8192, Concurrency: 64}, Status: StatusValid, TotalTokPerSec: 1000}
	if _, ok := CostOf(r, nil); ok {
		t.Error("a cost without prices")
	}
	if _, ok := CostOf(r, &Prices{PerKWhUSD: 0.3}); ok {
		t.Error("an electricity cost without energy")
	}
	c, ok := CostOf(r, &Prices{PerHourUSD: 3.6, PerKWhUSD: 0.3})
	if !ok || c.TotalUSD != 1 || c.Parts != "rent 3.60 USD/h" {
		t.Errorf("rent only: %+v", c)
	}
	r.Energy = &CellEnergy{JoulesPerToken: 0.36, Simulated: true}
	c, _ = CostOf(r, &Prices{PerHourUSD: 3.6, PerKWhUSD: 0.3})
	if math.Abs(c.ElectricityUSD-0.03) > 1e-12 || c.Parts != "rent 3.60 USD/h + electricity 0.30 USD/kWh (simulated energy)" {
		t.Errorf("rent and electricity: %+v", c)
	}
}
