package simtarget

import (
	"encoding/csv"
	"encoding/json"
	"math"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"speedmatrix/engine"
	"speedmatrix/engine/measure"
	"speedmatrix/engine/report"
	"speedmatrix/engine/sim"
)

const tp2 = "llama-3.3-70b-awq-2x3090-tp2"

// TestGPUSourceModel: the source turns the scheduler's load into each GPU's
// figures: idle at the start, power from idle to the limit with the
// load's power share, temperature rising towards its steady value with the
// upper card warmer, VRAM the weights' and KV cache's halves.
func TestGPUSourceModel(t *testing.T) {
	p, err := sim.LookupProfile(tp2)
	if err != nil {
		t.Fatal(err)
	}
	rig := p.GPURig()
	var l sim.Load
	src := newGPUSource(func() sim.Load { return l }, rig, p.KVCacheTokens)
	idle := src.Read()
	if len(idle.GPUs) != 2 {
		t.Fatalf("%d GPUs, want 2", len(idle.GPUs))
	}
	for _, g := range idle.GPUs {
		if g.PowerW != rig.IdleW || g.UtilizationPct != 0 || g.SMClockMHz != float64(rig.IdleSMClockMHz) {
			t.Errorf("first read of GPU %d = %+v, want idle", g.Index, g)
		}
	}
	// 10 model seconds, 9 of them busy at 80 % of the power span.
	l = sim.Load{NowS: 10, BusyS: 9, PowerS: 7.2}
	busy := src.Read()
	wantW := rig.IdleW + 0.72*(rig.TDPW-rig.IdleW)
	wantMiB := float64((rig.WeightsBytes+uint64(p.KVCacheTokens)*rig.KVBytesPerToken)/2+rig.OverheadBytes) / (1 << 20)
	for i, g := range busy.GPUs {
		if math.Abs(g.PowerW-wantW) > 1e-9 || math.Abs(g.UtilizationPct-90) > 1e-9 {
			t.Errorf("GPU %d: %.1f W at %.0f %%, want %.1f W at 90 %%", i, g.PowerW, g.UtilizationPct, wantW)
		}
		if g.TemperatureC <= idle.GPUs[i].TemperatureC || g.TemperatureC >= src.steadyC(i, wantW) {
			t.Errorf("GPU %d: %.1f °C, want between idle %.1f and steady %.1f", i, g.TemperatureC, idle.GPUs[i].TemperatureC, src.steadyC(i, wantW))
		}
		if g.MemoryUsedMiB != wantMiB || g.MemoryUsedMiB > float64(p.VRAMBytes>>20) {
			t.Errorf("GPU %d: %.0f MiB used, want %.0f within %d", i, g.MemoryUsedMiB, wantMiB, p.VRAMBytes>>20)
		}
		if g.PCIe != g.PCIeMax || g.SMClockMHz <= float64(rig.IdleSMClockMHz) {
			t.Errorf("GPU %d under load: link %v (max %v), SM %.0f MHz; want its full link and a boost clock", i, g.PCIe, g.PCIeMax, g.SMClockMHz)
		}
	}
	if busy.GPUs[1].TemperatureC <= busy.GPUs[0].TemperatureC {
		t.Errorf("GPU 1 at %.1f °C, GPU 0 at %.1f: want the upper card warmer", busy.GPUs[1].TemperatureC, busy.GPUs[0].TemperatureC)
	}
}

// TestTwoGPUProfileRun runs the tensor-parallel profile through the engine:
// the Hardware section lists both GPUs, every measured cell's telemetry has
// both and is marked simulated, J/token divides both GPUs' power by the
// cell's tok/s, and report.json, telemetry.csv and report.md say so.
func TestTwoGPUProfileRun(t *testing.T) {
	tg, stop, err := Start(tp2, Options{TimeScale: 50})
	if err != nil {
		t.Fatal(err)
	}
	defer stop()
	if len(tg.ServingGPUs) != 2 {
		t.Errorf("ServingGPUs = %v, want both GPUs", tg.ServingGPUs)
	}
	if top := Topology(tg.Header.Hardware); len(top.Links) != 1 || top.Links[0].Path != "PHB" || top.Links[0].P2P != "not supported" {
		t.Errorf("topology %+v: want GPU 0 and 1 through a host bridge without peer-to-peer", top)
	}
	plan := engine.Plan{DecodeContexts: []int{1024}, Concurrency: []int{1, 4}, Duration: 800 * time.Millisecond,
		MaxOutputTokens: 64, API: engine.APICompletions}
	var rep *engine.Report
	for ev := range measure.Run(t.Context(), plan, tg) {
		if ev.Kind == engine.EventDone {
			rep, err = ev.Report, ev.Err
		}
	}
	if err != nil || rep == nil {
		t.Fatalf("run: %v", err)
	}
	if idle := rep.Run.IdlePower; idle == nil || len(idle.GPUs) != 2 || !idle.Simulated || idle.WattsOf(nil) <= 0 {
		t.Errorf("idle power %+v: want both simulated GPUs'", idle)
	}
	if len(rep.Hardware.GPUs) != 2 || !strings.Contains(rep.Hardware.Note, "no NVLink") {
		t.Errorf("Hardware = %+v, want 2 GPUs and how they are joined", rep.Hardware)
	}
	measured := 0
	for _, r := range rep.Results {
		if !r.Measured() {
			continue
		}
		measured++
		tm := r.Telemetry
		if tm == nil || len(tm.GPUs) != 2 || !tm.Simulated {
			t.Fatalf("cell %v telemetry = %+v, want 2 simulated GPUs", r.Cell, tm)
		}
		// The simulated energy counter gives the power: both GPUs' rise
		// over the window, close to their sampled power.
		both := tm.GPUs[0].CounterW + tm.GPUs[1].CounterW
		if want := both / r.TotalTokPerSec; math.Abs(r.JoulesPerToken-want) > 1e-9*want || want <= 0 {
			t.Errorf("cell %v: %.4f J/token, want both GPUs' %.0f W / %.1f tok/s = %.4f", r.Cell, r.JoulesPerToken, both, r.TotalTokPerSec, want)
		}
		sampled := tm.GPUs[0].PowerW.Avg + tm.GPUs[1].PowerW.Avg
		if e := r.Energy; e == nil || e.Method != engine.EnergyCounter || !e.Simulated || e.Source != engine.EnergyFromSimulator ||
			math.Abs(both-sampled) > 0.15*sampled || e.JoulesPerTokenAboveIdle <= 0 || e.JoulesPerTokenAboveIdle >= e.JoulesPerToken {
			t.Errorf("cell %v energy %+v: want the simulated counter's, near the sampled %.0f W, with a J/token above idle", r.Cell, e, sampled)
		}
		t.Logf("cell %v (simulated): %.1f tok/s, GPU 0 %.0f W, GPU 1 %.0f W, %.3f J/token (GPU 0 alone would give %.3f)",
			r.Cell, r.TotalTokPerSec, tm.GPUs[0].PowerW.Avg, tm.GPUs[1].PowerW.Avg, r.JoulesPerToken, tm.GPUs[0].PowerW.Avg/r.TotalTokPerSec)
	}
	if measured == 0 {
		t.Fatalf("no measured cell in %+v", rep.Results)
	}
	checkSaved(t, *rep)
}

// checkSaved saves rep and reads report.json, telemetry.csv and report.md.
func checkSaved(t *testing.T, rep engine.Report) {
	t.Helper()
	dir := t.TempDir()
	if err := report.Save(dir, rep); err != nil {
		t.Fatal(err)
	}
	raw, err := os.ReadFile(filepath.Join(dir, "report.json"))
	if err != nil {
		t.Fatal(err)
	}
	var j struct {
		Hardware struct{ GPUs []json.RawMessage } `json:"hardware"`
	}
	if err := json.Unmarshal(raw, &j); err != nil || len(j.Hardware.GPUs) != 2 {
		t.Errorf("report.json hardware: %d GPUs (%v), want 2", len(j.Hardware.GPUs), err)
	}
	f, err := os.Open(filepath.Join(dir, report.TelemetryCSVFile))
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	rows, err := csv.NewReader(f).ReadAll()
	if err != nil || len(rows) < 2 {
		t.Fatalf("telemetry.csv: %d rows, %v", len(rows), err)
	}
	for _, row := range rows[1:] {
		if row[len(row)-1] != "yes" {
			t.Errorf("telemetry.csv row %v: want simulated yes", row)
		}
	}
	md, err := os.ReadFile(filepath.Join(dir, "report.md"))
	if err != nil {
		t.Fatal(err)
	}
	for _, want := range []string{"## GPUs (simulated)", "GPU telemetry is simulated"} {
		if !strings.Contains(string(md), want) {
			t.Errorf("report.md lacks %q", want)
		}
	}
}
