package cli

import (
	"os"
	"path/filepath"
	"strings"
	"testing"

	"speedmatrix/engine"
	"speedmatrix/engine/report"
)

// TestPriceFlagsBadInput: a price that is not one is one line naming its
// flag, on run and on report alike.
func TestPriceFlagsBadInput(t *testing.T) {
	t.Parallel()
	dir := t.TempDir()
	for _, c := range []struct {
		name string
		args []string
		want string
	}{
		{"not a number", []string{"--price-per-hour", "abc"}, `--price-per-hour: the rent price "abc" is not a number: give the GPU box's rent in US dollars per hour, e.g. 2.50`},
		{"negative", []string{"--price-per-hour", "-1"}, "--price-per-hour: the rent price is negative (-1)"},
		{"absurd", []string{"--price-per-hour", "1e12"}, "--price-per-hour: the rent price is more than 10000 USD per hour (1e+12)"},
		{"absurd kWh", []string{"--price-per-kwh", "1e12"}, "--price-per-kwh: the electricity price is more than 10 USD per kWh (1e+12)"},
		{"NaN", []string{"--price-per-kwh", "NaN"}, "--price-per-kwh: the electricity price is not a number (NaN)"},
		{"zero", []string{"--price-per-kwh", "0"}, `--price-per-kwh "0" gives no price`},
	} {
		t.Run(c.name, func(t *testing.T) { wantOneLine(t, dir, c.args, c.want) })
	}
}

// TestRunEnergyAndCost: a simulated run reads the simulated GPU's energy
// counter and its idle power, records the prices given, and says every
// figure is simulated: results.csv's energy and cost columns, report.md's
// section, the CLI's lines; report --in prices it again.
func TestRunEnergyAndCost(t *testing.T) {
	t.Parallel()
	fastSim(t)
	noCharts(t)
	dir := filepath.Join(t.TempDir(), "out")
	args := append([]string{"--sim", "tiny", "--out", dir, "--price-per-hour", "2.50", "--price-per-kwh", "0.30"}, smallMatrix...)
	out, err := runCLI(t, t.Context(), args...)
	if err != nil {
		t.Fatalf("%v\n%s", err, out)
	}
	for _, want := range []string{"energy, simulated (profile tiny): Energy (simulated): simulated energy counter over each cell's window.",
		"energy, simulated (profile tiny): Cheapest per million tokens: 1K × "} {
		if !strings.Contains(out, want) {
			t.Errorf("output lacks %q:\n%s", want, out)
		}
	}
	rep, err := report.Load(dir)
	if err != nil {
		t.Fatal(err)
	}
	if p := rep.Run.Prices; p == nil || p.PerHourUSD != 2.5 || p.PerKWhUSD != 0.3 {
		t.Errorf("prices %+v", rep.Run.Prices)
	}
	if idle := rep.Run.IdlePower; idle == nil || !idle.Simulated || idle.Source != engine.EnergyFromSimulator {
		t.Errorf("idle power %+v: want the simulated counter's", idle)
	}
	for _, res := range rep.Results {
		if res.Phase == engine.PhaseDecode && res.Measured() && (res.Energy == nil || !res.Energy.Simulated || res.Energy.TokensPerJoule <= 0) {
			t.Errorf("%s energy %+v: want simulated tokens per joule", report.CellName(res), res.Energy)
		}
	}
	csv, _ := os.ReadFile(filepath.Join(dir, report.CSVFile))
	for _, line := range strings.Split(strings.TrimSpace(string(csv)), "\n")[1:] {
		cols := strings.Split(line, ",")
		if cols[0] == "decode" && (cols[34] == "" || cols[35] == "" || cols[37] == "" || cols[17] != "true") {
			t.Errorf("decode row without its simulated energy and cost: %s", line)
		}
	}
	md, _ := os.ReadFile(filepath.Join(dir, report.MarkdownFile))
	if !strings.Contains(string(md), "## Energy and cost") || !strings.Contains(string(md), "Energy (simulated)") {
		t.Errorf("report.md lacks its simulated Energy and cost section")
	}
	stdout, _, err := runReport(t, "--in", dir, "--out", t.TempDir(), "--price-per-hour", "4")
	if err != nil || !strings.Contains(stdout, "rent 4.00 USD/h") || strings.Contains(stdout, "electricity 0.30") {
		t.Errorf("report --in --price-per-hour 4: %v\n%s", err, stdout)
	}
}
