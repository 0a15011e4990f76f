package simtarget

import (
	"context"
	"fmt"
	"math"
	"time"

	"speedmatrix/engine"
	"speedmatrix/engine/sim"
	"speedmatrix/engine/telemetry"
)

// simTelemetry is the simulator's GPU telemetry: every model second it reads
// the scheduler's load and turns it, through the profile's Rig, into one
// sample per simulated GPU, which a telemetry.Sampler keeps and summarises
// as it does NVML's. Every summary is marked Simulated and the report's notes say
// where the figures come from. Latest feeds the app's live GPU panels.
type simTelemetry struct {
	*telemetry.Sampler
	note string
}

var _ engine.TelemetryNoter = (*simTelemetry)(nil)

// telemetryHistory is how many samples a Telemetry keeps: two hours of
// model time, whatever the time scale.
const telemetryHistory = 7200

// startTelemetry samples s every model second until Stop.
func startTelemetry(s *sim.Server, scale float64) *simTelemetry {
	if scale <= 0 {
		scale = 1
	}
	interval := max(time.Duration(float64(time.Second)/scale), time.Millisecond)
	p := s.Profile()
	rig := p.GPURig()
	src := newGPUSource(s.Load, rig, p.KVCacheTokens)
	src.scale = scale
	smp := telemetry.NewSampler(interval, func() telemetry.Source { return src }, telemetry.WithCapacity(telemetryHistory))
	smp.Start(context.Background())
	note := fmt.Sprintf("GPU telemetry is simulated: the simulator's model of %s derives utilization, power, its energy counter, temperature, clocks and VRAM from its own scheduler (no GPU was read; clock-event reasons and PCIe traffic are not modelled).", gpuCount(rig.GPUs(), p.GPUName))
	return &simTelemetry{Sampler: smp, note: note}
}

// Summary is the telemetry.Sampler's summary of [from, to], marked Simulated.
func (t *simTelemetry) Summary(from, to time.Time) *engine.Telemetry {
	s := t.Sampler.Summary(from, to)
	if s != nil {
		s.Simulated = true
	}
	return s
}

// TelemetryNotes says, once per report, that the GPU figures are simulated.
func (t *simTelemetry) TelemetryNotes() []string { return []string{t.note} }

// TelemetryGap is "": the simulator's readings never go missing.
func (t *simTelemetry) TelemetryGap(from, to time.Time) string { return "" }

// gpuCount is "2 × RTX 3090", or "RTX 3090" for one.
func gpuCount(n int, name string) string {
	if n == 1 {
		return name
	}
	return fmt.Sprintf("%d × %s", n, name)
}

// thermalTauS is how fast (model seconds) a card's temperature follows its
// power: a few tens of seconds for a heatsink with its fans.
const thermalTauS = 40

// gpuSource models the rig's GPUs from the scheduler's load (telemetry.Source).
// Read runs on the sampler's goroutine only.
type gpuSource struct {
	load    func() sim.Load
	rig     sim.Rig
	usedMiB float64
	prev    sim.Load
	read    bool
	tempC   []float64
	// energyMJ is each GPU's simulated total-energy counter: its power
	// summed over the wall-clock time between samples (model time ÷
	// scale), so that the counter's rise over a window, divided by the
	// window the sampler stamps, is the simulated power.
	energyMJ []float64
	scale    float64
}

func newGPUSource(load func() sim.Load, rig sim.Rig, kvTokens int) *gpuSource {
	g := &gpuSource{load: load, rig: rig, usedMiB: float64(rig.VRAMUsedBytes(kvTokens)) / (1 << 20), scale: 1}
	g.tempC = make([]float64, rig.GPUs())
	g.energyMJ = make([]float64, rig.GPUs())
	for i := range g.tempC {
		g.tempC[i] = g.steadyC(i, rig.IdleW)
	}
	return g
}

// steadyC is where GPU i's temperature settles at powerW.
func (g *gpuSource) steadyC(i int, powerW float64) float64 {
	return g.rig.AmbientC + g.rig.CPerW*powerW + g.rig.StackC*float64(i)
}

// Read is one sample of every GPU over the model time since the last one.
// Tensor parallelism splits each step evenly, so the GPUs share the load;
// they differ in temperature by their place in the case.
func (g *gpuSource) Read() telemetry.Sample {
	l := g.load()
	busy, power, dt := 0.0, 0.0, 0.0
	if g.read && l.NowS > g.prev.NowS {
		dt = l.NowS - g.prev.NowS
		busy = clamp01((l.BusyS - g.prev.BusyS) / dt)
		power = clamp01((l.PowerS - g.prev.PowerS) / dt)
	}
	g.prev, g.read = l, true
	r := g.rig
	watts := r.IdleW + (r.TDPW-r.IdleW)*power
	sm, mem, link := float64(r.IdleSMClockMHz), float64(r.IdleMemClockMHz), engine.PCIeLink{Gen: 1, Width: r.PCIeWidth}
	if busy > 0.05 {
		// Near the power limit the boost clock gives way a little.
		sm = float64(r.BoostSMClockMHz) * (1 - 0.06*max(0, power-0.8)/0.2)
		mem, link = float64(r.LoadMemClockMHz), engine.PCIeLink{Gen: r.PCIeGen, Width: r.PCIeWidth}
	}
	smp := telemetry.Sample{CPUUtilPct: math.NaN()}
	for i := range g.tempC {
		g.tempC[i] += (g.steadyC(i, watts) - g.tempC[i]) * (1 - math.Exp(-dt/thermalTauS))
		g.energyMJ[i] += watts * dt / g.scale * 1000
		smp.GPUs = append(smp.GPUs, engine.GPUSample{
			Index: i, UUID: simUUID(i), UtilizationPct: 100 * busy, MemoryUsedMiB: g.usedMiB,
			PowerW: watts, TemperatureC: g.tempC[i], SMClockMHz: sm, MemClockMHz: mem,
			PCIeRxMBs: math.NaN(), PCIeTxMBs: math.NaN(),
			PCIe: link, PCIeMax: engine.PCIeLink{Gen: r.PCIeGen, Width: r.PCIeWidth},
			EnergyMJ: g.energyMJ[i], EnergySource: engine.EnergyFromSimulator,
		})
	}
	return smp
}

// Close does nothing: the simulator is the caller's to stop.
func (g *gpuSource) Close() error { return nil }

// simUUID is GPU i's UUID, which says it is simulated.
func simUUID(i int) string { return fmt.Sprintf("GPU-simulated-%04d", i) }

func clamp01(v float64) float64 { return min(max(v, 0), 1) }
