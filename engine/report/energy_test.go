package report

import (
	"bytes"
	"strings"
	"testing"
	"time"

	"speedmatrix/engine"
)

// energyReport is the seed report with every Valid cell's energy from a
// 300 W counter over a 60 W idle GPU, and the user's prices.
func energyReport() engine.Report {
	r := seedReport()
	idle := &engine.IdlePower{WindowS: 5, Method: engine.EnergyCounter, Source: engine.EnergyFromNVML,
		GPUs: []engine.GPUIdle{{Index: 0, W: 60}}}
	r.Run.IdlePower = idle
	r.Run.Prices = &engine.Prices{PerHourUSD: 2.5, PerKWhUSD: 0.3}
	for i := range r.Results {
		res := &r.Results[i]
		if !res.Measured() {
			continue
		}
		tm := &engine.Telemetry{Samples: 30, GPUs: []engine.GPUTelemetry{{Index: 0, PowerW: engine.Stat{Avg: 290, Peak: 310},
			CounterW: 300, CounterSource: engine.EnergyFromNVML}}}
		res.Energy = engine.CellEnergyOf(tm, nil, idle, res.Phase, res.TotalTokPerSec)
	}
	return r
}

func TestGoldenEnergy(t *testing.T) {
	r := energyReport()
	r.Plan.SLO = engine.SLO{TTFT: 2 * time.Second, ITL: 30 * time.Millisecond}
	var csv bytes.Buffer
	if err := WriteCSV(&csv, r); err != nil {
		t.Fatal(err)
	}
	golden(t, "energy.results.csv", csv.Bytes())
	golden(t, "energy.report.md", []byte(Markdown(r)))
}

func TestEnergyLines(t *testing.T) {
	r := energyReport()
	d := r.Results[len(r.Results)-1]
	for _, res := range r.Results {
		if res.Phase == engine.PhaseDecode && res.Measured() && res.ContextTokens == 8192 && res.Concurrency == 128 {
			d = res
		}
	}
	// 300 W at 9,005.7 tok/s: 0.0333 J/token, 0.0266 above the 60 W idle.
	if e := d.Energy; e == nil || e.Method != engine.EnergyCounter || !near(e.JoulesPerToken, 300/9005.7) ||
		!near(e.JoulesPerTokenAboveIdle, 240/9005.7) || !near(e.TokensPerJoule, 9005.7/300) {
		t.Fatalf("8K × 128 energy %+v", d.Energy)
	}
	// Rent 2.50 USD/h ÷ 3600 ÷ 9005.7 × 1e6 = 0.0771; electricity 300 W ÷ 9005.7 tok/s ÷ 3.6e6 × 0.30 × 1e6 = 0.00278.
	c, ok := engine.CostOf(d, r.Run.Prices)
	if !ok || !near(c.RentUSD, 2.5/3600/9005.7*1e6) || !near(c.ElectricityUSD, 300/9005.7/3.6e6*0.3*1e6) ||
		c.Parts != "rent 2.50 USD/h + electricity 0.30 USD/kWh" {
		t.Errorf("cost %+v, %v", c, ok)
	}
	if got, want := CheapestLine(r), "Cheapest per million tokens: 8K × 128, $0.08."; got != want {
		t.Errorf("cheapest %q, want %q", got, want)
	}
	r.Plan.SLO = engine.SLO{TTFT: 2 * time.Second, ITL: 30 * time.Millisecond}
	if got := CheapestLine(r); !strings.HasPrefix(got, "Cheapest per million tokens while meeting the SLO (TTFT p99 ≤ 2 s and ITL p99 ≤ 30 ms): ") ||
		strings.Contains(got, "8K × 128") {
		t.Errorf("cheapest with the SLO %q: want a cell that meets it, not 8K × 128 (misses ITL)", got)
	}
	r.Run.Prices = nil
	if CheapestLine(r) != "" || strings.Contains(strings.Join(EnergyLines(r), "\n"), "$") {
		t.Error("without prices: a cost is shown")
	}
	var csv bytes.Buffer
	_ = WriteCSV(&csv, r)
	for _, line := range strings.Split(strings.TrimSpace(csv.String()), "\n")[1:] {
		if !strings.HasSuffix(line, ",") {
			t.Errorf("a row without prices has a usd_per_mtok: %s", line)
		}
	}
}

// A report.json with an energy figure or a price no run writes is refused.
func TestReadRejectsAbsurdEnergy(t *testing.T) {
	for _, tc := range []struct {
		name   string
		change func(*engine.Report)
		want   string
	}{
		{"tokens per joule", func(r *engine.Report) { r.Results[4].Energy.TokensPerJoule = 1e30 }, "tokens per joule of 1e+30"},
		{"negative J/token", func(r *engine.Report) { r.Results[4].Energy.JoulesPerToken = -1 }, "J/token of -1"},
		{"method", func(r *engine.Report) { r.Results[4].Energy.Method = "guess" }, `an energy method "guess"`},
		{"idle", func(r *engine.Report) { r.Run.IdlePower.GPUs[0].W = 1e12 }, "idle power of 1e+12 W"},
		{"price", func(r *engine.Report) { r.Run.Prices.PerHourUSD = 1e12 }, "its run's prices: the rent price is more than 10000 USD per hour"},
		{"negative price", func(r *engine.Report) { r.Run.Prices.PerKWhUSD = -1 }, "the electricity price is negative (-1)"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			r := energyReport()
			if r.Results[4].Energy == nil {
				t.Fatalf("cell 4 (%s) has no energy", CellName(r.Results[4]))
			}
			tc.change(&r)
			path := writeJSON(t, "report.json", r)
			_, _, err := Read(path)
			wantImplausible(t, tc.name, err, path, tc.want)
		})
	}
}

// Electricity without measured energy is not applied, and the lines say so.
func TestElectricityWithoutEnergy(t *testing.T) {
	r := seedReport()
	r.Run.Prices = &engine.Prices{PerHourUSD: 2.5, PerKWhUSD: 0.3}
	lines := strings.Join(EnergyLines(r), "\n")
	if !strings.Contains(lines, "the electricity price is not applied") || !strings.Contains(lines, "Cheapest per million tokens: 8K × 128, $0.08.") {
		t.Errorf("lines:\n%s", lines)
	}
}
