package telemetry

import (
	"math"
	"sort"
	"time"

	"speedmatrix/engine"
)

// Sample is one reading of the hardware. A figure that could not be read
// is NaN (check with math.IsNaN); summaries leave it out.
type Sample struct {
	Time       time.Time
	CPUUtilPct float64
	GPUs       []engine.GPUSample
}

// ring keeps the newest limit samples in time order. It grows as samples
// come, so a long history costs memory only once it is filled.
type ring struct {
	buf   []Sample
	limit int
	start int // index of the oldest sample once buf is full
}

func newRing(limit int) ring {
	return ring{limit: max(limit, 1)}
}

func (r *ring) push(s Sample) {
	if len(r.buf) < r.limit {
		r.buf = append(r.buf, s)
		return
	}
	r.buf[r.start] = s
	r.start = (r.start + 1) % len(r.buf)
}

func (r *ring) each(f func(Sample)) {
	for i := range r.buf {
		f(r.buf[(r.start+i)%len(r.buf)])
	}
}

func (r *ring) last() (Sample, bool) {
	if len(r.buf) == 0 {
		return Sample{}, false
	}
	return r.buf[(r.start+len(r.buf)-1)%len(r.buf)], true
}

// acc accumulates the average and peak of one figure, skipping NaN.
type acc struct {
	sum, peak float64
	n         int
}

func (a *acc) add(v float64) {
	if math.IsNaN(v) {
		return
	}
	if a.n == 0 || v > a.peak {
		a.peak = v
	}
	a.sum += v
	a.n++
}

func (a acc) stat() engine.Stat {
	if a.n == 0 {
		return engine.Stat{}
	}
	return engine.Stat{Avg: a.sum / float64(a.n), Peak: a.peak}
}

// gpuAcc holds one accumulator per GPUSample figure, in field order, the
// GPU's clock-event reason counts and its slowest PCIe link under load.
type gpuAcc struct {
	uuid         string
	figs         [8]acc
	events       reasonCounts
	eventSamples int // samples with the reasons read
	pcie         *engine.PCIeLoad
	counter      counterAcc
}

func (g *gpuAcc) add(s engine.GPUSample) {
	if s.UUID != "" {
		g.uuid = s.UUID
	}
	for i, v := range [8]float64{s.UtilizationPct, s.MemoryUsedMiB, s.PowerW, s.TemperatureC,
		s.SMClockMHz, s.MemClockMHz, s.PCIeRxMBs, s.PCIeTxMBs} {
		g.figs[i].add(v)
	}
	if s.ClockEventsRead {
		g.eventSamples++
		g.events.add(s.ClockEventReasons)
	}
	g.addPCIe(s)
}

// addPCIe keeps the slowest link seen under load (engine.LoadUtilPct).
func (g *gpuAcc) addPCIe(s engine.GPUSample) {
	if !s.PCIe.Known() || !(s.UtilizationPct >= engine.LoadUtilPct) {
		return
	}
	if g.pcie == nil {
		g.pcie = &engine.PCIeLoad{Link: s.PCIe, Max: s.PCIeMax}
	} else if s.PCIe.RateGTs() < g.pcie.Link.RateGTs() {
		g.pcie.Link = s.PCIe
	}
	if s.PCIeMax.Known() {
		g.pcie.Max = s.PCIeMax
	}
	g.pcie.Samples++
}

func (g *gpuAcc) telemetry(k engine.GPUKey) engine.GPUTelemetry {
	t := engine.GPUTelemetry{
		Index:          k.Index,
		Host:           k.Host,
		UUID:           g.uuid,
		UtilizationPct: g.figs[0].stat(),
		MemoryUsedMiB:  g.figs[1].stat(),
		PowerW:         g.figs[2].stat(),
		TemperatureC:   g.figs[3].stat(),
		SMClockMHz:     g.figs[4].stat(),
		MemClockMHz:    g.figs[5].stat(),
		PCIeRxMBs:      g.figs[6].stat(),
		PCIeTxMBs:      g.figs[7].stat(),
		PCIe:           g.pcie,
	}
	t.CounterW, t.CounterNote = g.counter.watts(t.PowerW.Avg)
	if t.CounterW > 0 {
		t.CounterSource = g.counter.source
	}
	if g.eventSamples > 0 {
		t.ClockEvents = g.events.byName()
		t.ClockEventSamples = g.eventSamples
	}
	return t
}

// summary aggregates samples into an engine.Telemetry. GPUs are keyed by
// host and index, so samples from several sources add up.
type summary struct {
	samples    int
	cpu, power acc
	gpus       map[engine.GPUKey]*gpuAcc
	throttle   throttleAcc
}

func (s *summary) add(smp Sample) {
	s.samples++
	s.cpu.add(smp.CPUUtilPct)
	total, havePower := 0.0, false
	for _, g := range smp.GPUs {
		a := s.gpu(g.Key())
		a.add(g)
		if !math.IsNaN(g.PowerW) {
			total += g.PowerW
			havePower = true
		}
	}
	if havePower {
		s.power.add(total)
	}
	s.throttle.add(smp.GPUs)
}

// gpu is the accumulator of GPU k, made on first use.
func (s *summary) gpu(k engine.GPUKey) *gpuAcc {
	if s.gpus == nil {
		s.gpus = map[engine.GPUKey]*gpuAcc{}
	}
	a := s.gpus[k]
	if a == nil {
		a = &gpuAcc{}
		s.gpus[k] = a
	}
	return a
}

// addCounters adds a sample just outside the window to the energy
// counters of the GPUs already seen inside it, so that their rise spans
// the whole window: call it with the sample before the window first and
// the one after it last.
func (s *summary) addCounters(smp Sample) {
	for _, g := range smp.GPUs {
		if a := s.gpus[g.Key()]; a != nil {
			a.counter.add(smp.Time, g)
		}
	}
}

func (s *summary) telemetry() *engine.Telemetry {
	if s.samples == 0 {
		return nil
	}
	t := &engine.Telemetry{Samples: s.samples, CPUUtilPct: s.cpu.stat(), TotalPowerW: s.power.stat()}
	for k, a := range s.gpus {
		t.GPUs = append(t.GPUs, a.telemetry(k))
	}
	sort.Slice(t.GPUs, func(i, j int) bool { return engine.CompareGPUKeys(t.GPUs[i].Key(), t.GPUs[j].Key()) < 0 })
	t.Throttle = s.throttle.throttle(t.GPUs)
	return t
}
