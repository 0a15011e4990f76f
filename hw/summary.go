package hw

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
	GPUs       []GPUSample
}

// GPUSample is one GPU's figures in a Sample.
type GPUSample struct {
	Index          int
	UtilizationPct float64
	MemoryUsedMiB  float64
	PowerW         float64
	TemperatureC   float64
	SMClockMHz     float64
	MemClockMHz    float64
	PCIeRxMBs      float64
	PCIeTxMBs      float64
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

// gpuAcc holds one accumulator per GPUSample figure, in field order.
type gpuAcc [8]acc

func (g *gpuAcc) add(s GPUSample) {
	for i, v := range [8]float64{s.UtilizationPct, s.MemoryUsedMiB, s.PowerW, s.TemperatureC,
		s.SMClockMHz, s.MemClockMHz, s.PCIeRxMBs, s.PCIeTxMBs} {
		g[i].add(v)
	}
}

func (g *gpuAcc) telemetry(index int) engine.GPUTelemetry {
	return engine.GPUTelemetry{
		Index:          index,
		UtilizationPct: g[0].stat(),
		MemoryUsedMiB:  g[1].stat(),
		PowerW:         g[2].stat(),
		TemperatureC:   g[3].stat(),
		SMClockMHz:     g[4].stat(),
		MemClockMHz:    g[5].stat(),
		PCIeRxMBs:      g[6].stat(),
		PCIeTxMBs:      g[7].stat(),
	}
}

// summary aggregates samples into an engine.Telemetry.
type summary struct {
	samples    int
	cpu, power acc
	gpus       map[int]*gpuAcc
}

func (s *summary) add(smp Sample) {
	s.samples++
	s.cpu.add(smp.CPUUtilPct)
	if s.gpus == nil {
		s.gpus = map[int]*gpuAcc{}
	}
	total, havePower := 0.0, false
	for _, g := range smp.GPUs {
		a := s.gpus[g.Index]
		if a == nil {
			a = &gpuAcc{}
			s.gpus[g.Index] = a
		}
		a.add(g)
		if !math.IsNaN(g.PowerW) {
			total += g.PowerW
			havePower = true
		}
	}
	if havePower {
		s.power.add(total)
	}
}

func (s *summary) telemetry() *engine.Telemetry {
	if s.samples == 0 {
		return nil
	}
	t := &engine.Telemetry{Samples: s.samples, CPUUtilPct: s.cpu.stat(), TotalPowerW: s.power.stat()}
	for i, a := range s.gpus {
		t.GPUs = append(t.GPUs, a.telemetry(i))
	}
	sort.Slice(t.GPUs, func(i, j int) bool { return t.GPUs[i].Index < t.GPUs[j].Index })
	return t
}
