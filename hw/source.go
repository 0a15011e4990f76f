package hw

import (
	"math"
	"sync"
	"time"

	"github.com/NVIDIA/go-nvml/pkg/nvml"
	"github.com/shirou/gopsutil/v4/cpu"

	"speedmatrix/engine"
	"speedmatrix/engine/telemetry"
)

// systemSource reads the GPUs through an NVML session (when one opened) and
// the host CPU through gopsutil.
type systemSource struct {
	nvml   *session // nil without NVML: CPU only
	events clockEventQuery
	energy energyQuery
	// cpuTimes reads the host's summed CPU times; a field so tests can feed
	// their own.
	cpuTimes func() (cpu.TimesStat, error)
	prev     cpu.TimesStat
	havePrev bool
}

// NewSource is the telemetry.Source of the GPUs of the NVML lib (the
// system's, or go-nvml's mock servers of hw/nvmlmock) and the host CPU.
// Without a usable NVML it reads the CPU only.
func NewSource(lib nvml.Interface) telemetry.Source { return newSystemSource(lib) }

// SystemSource is NewSource of the system's NVML: what NewSampler reads.
// Close it when done.
func SystemSource() telemetry.Source { return NewSource(defaultLibrary()) }

// NewSampler is a telemetry.Sampler of this machine's GPUs (NVML) and CPU,
// reading every interval (telemetry.DefaultSampleInterval when <= 0). It
// opens NVML only when started.
func NewSampler(interval time.Duration, opts ...telemetry.SamplerOption) *telemetry.Sampler {
	return telemetry.NewSampler(interval, SystemSource, opts...)
}

func newSystemSource(lib library) *systemSource {
	src := &systemSource{cpuTimes: readCPUTimes}
	if s, err := openSession(lib); err == nil {
		src.nvml = s
		src.events = s.clockEventQuery()
		src.energy = s.energyQuery()
	}
	return src
}

func readCPUTimes() (cpu.TimesStat, error) {
	ts, err := cpu.Times(false)
	if err != nil || len(ts) == 0 {
		return cpu.TimesStat{}, err
	}
	return ts[0], nil
}

// Read takes one sample: CPU utilisation since the previous Read (NaN on
// the first) and every GPU's figures, read in parallel because NVML's PCIe
// counters block for 20 ms each.
func (src *systemSource) Read() telemetry.Sample {
	smp := telemetry.Sample{CPUUtilPct: math.NaN()}
	if t, err := src.cpuTimes(); err == nil {
		if src.havePrev {
			smp.CPUUtilPct = cpuBusyPct(src.prev, t)
		}
		src.prev, src.havePrev = t, true
	}
	if src.nvml == nil {
		return smp
	}
	smp.GPUs = make([]engine.GPUSample, len(src.nvml.devices))
	var wg sync.WaitGroup
	for i, d := range src.nvml.devices {
		wg.Go(func() { smp.GPUs[i] = readGPU(i, d, src.events, src.energy) })
	}
	wg.Wait()
	return smp
}

// Close shuts down the NVML session, if any.
func (src *systemSource) Close() error {
	if src.nvml != nil {
		src.nvml.close()
		src.nvml = nil
	}
	return nil
}

// readGPU reads one GPU's figures; any that fails is NaN, failed
// clock-event reasons leave ClockEventsRead false and a failed energy
// counter EnergySource empty.
func readGPU(index int, d nvml.Device, events clockEventQuery, energy energyQuery) engine.GPUSample {
	nan := math.NaN()
	g := engine.GPUSample{Index: index, UtilizationPct: nan, MemoryUsedMiB: nan, PowerW: nan,
		TemperatureC: nan, SMClockMHz: nan, MemClockMHz: nan, PCIeRxMBs: nan, PCIeTxMBs: nan}
	if d == nil {
		return g
	}
	if uuid, ret := d.GetUUID(); ret == nvml.SUCCESS {
		g.UUID = uuid
	}
	if u, ret := d.GetUtilizationRates(); ret == nvml.SUCCESS {
		g.UtilizationPct = float64(u.Gpu)
	}
	if m, ret := d.GetMemoryInfo(); ret == nvml.SUCCESS {
		g.MemoryUsedMiB = float64(m.Used) / (1 << 20)
	}
	if mw, ret := d.GetPowerUsage(); ret == nvml.SUCCESS {
		g.PowerW = float64(mw) / 1000
	}
	if c, ret := d.GetTemperature(nvml.TEMPERATURE_GPU); ret == nvml.SUCCESS {
		g.TemperatureC = float64(c)
	}
	if mhz, ret := d.GetClockInfo(nvml.CLOCK_SM); ret == nvml.SUCCESS {
		g.SMClockMHz = float64(mhz)
	}
	if mhz, ret := d.GetClockInfo(nvml.CLOCK_MEM); ret == nvml.SUCCESS {
		g.MemClockMHz = float64(mhz)
	}
	// NVML gives PCIe throughput in KB/s; 1 MB = 1000 KB.
	if kb, ret := d.GetPcieThroughput(nvml.PCIE_UTIL_RX_BYTES); ret == nvml.SUCCESS {
		g.PCIeRxMBs = float64(kb) / 1000
	}
	if kb, ret := d.GetPcieThroughput(nvml.PCIE_UTIL_TX_BYTES); ret == nvml.SUCCESS {
		g.PCIeTxMBs = float64(kb) / 1000
	}
	g.PCIe, g.PCIeMax = readPCIe(d)
	g.ClockEventReasons, g.ClockEventsRead = events.read(d)
	energy.read(d, &g)
	return g
}

// readPCIe reads the link as it runs now and the most it can do, sampled
// with the load so that a GPU that trains down under load shows; a field
// that fails is 0.
func readPCIe(d nvml.Device) (cur, max engine.PCIeLink) {
	if gen, ret := d.GetCurrPcieLinkGeneration(); ret == nvml.SUCCESS {
		cur.Gen = gen
	}
	if w, ret := d.GetCurrPcieLinkWidth(); ret == nvml.SUCCESS {
		cur.Width = w
	}
	if gen, ret := d.GetMaxPcieLinkGeneration(); ret == nvml.SUCCESS {
		max.Gen = gen
	}
	if w, ret := d.GetMaxPcieLinkWidth(); ret == nvml.SUCCESS {
		max.Width = w
	}
	return cur, max
}

// cpuBusyPct is the share of CPU time between two readings that was not
// idle or waiting for I/O, in percent; NaN when no time passed. Guest time
// is already counted in user and nice on Linux, so it is left out.
func cpuBusyPct(prev, cur cpu.TimesStat) float64 {
	total := func(t cpu.TimesStat) float64 {
		return t.User + t.System + t.Idle + t.Nice + t.Iowait + t.Irq + t.Softirq + t.Steal
	}
	dTotal := total(cur) - total(prev)
	if dTotal <= 0 {
		return math.NaN()
	}
	dIdle := (cur.Idle + cur.Iowait) - (prev.Idle + prev.Iowait)
	return math.Min(100, math.Max(0, (dTotal-dIdle)/dTotal*100))
}
