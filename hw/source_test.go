package hw

import (
	"context"
	"errors"
	"math"
	"testing"
	"time"

	"github.com/NVIDIA/go-nvml/pkg/nvml"
	"github.com/NVIDIA/go-nvml/pkg/nvml/mock/server"
	"github.com/shirou/gopsutil/v4/cpu"

	"speedmatrix/engine"
	"speedmatrix/engine/telemetry"
	"speedmatrix/engine/telemetry/telemetrytest"
)

// cpuScript feeds systemSource fixed CPU times, one per Read.
func cpuScript(times ...cpu.TimesStat) func() (cpu.TimesStat, error) {
	i := 0
	return func() (cpu.TimesStat, error) {
		if i >= len(times) {
			return cpu.TimesStat{}, errors.New("no more times")
		}
		i++
		return times[i-1], nil
	}
}

func TestSystemSourceH200(t *testing.T) {
	cs := newH200(t)
	cs.Devices[2].(*server.Device).GetPowerUsageFunc = func() (uint32, nvml.Return) { return 0, nvml.ERROR_GPU_IS_LOST }
	src := newSystemSource(cs.Server)
	src.cpuTimes = cpuScript(
		cpu.TimesStat{User: 100, System: 50, Idle: 800, Iowait: 50},
		cpu.TimesStat{User: 160, System: 70, Idle: 810, Iowait: 60}, // 100 s passed, 80 busy
	)
	first := src.Read()
	second := src.Read()
	if err := src.Close(); err != nil || cs.shutdowns != 1 {
		t.Errorf("Close = %v, shutdowns %d; want nil, 1", err, cs.shutdowns)
	}
	if !math.IsNaN(first.CPUUtilPct) || second.CPUUtilPct != 80 {
		t.Errorf("CPU util %v then %v; want NaN (no previous reading) then 80", first.CPUUtilPct, second.CPUUtilPct)
	}
	if len(second.GPUs) != 8 {
		t.Fatalf("got %d GPU samples, want 8", len(second.GPUs))
	}
	g5 := second.GPUs[5]
	want := engine.GPUSample{Index: 5, UtilizationPct: 50, MemoryUsedMiB: 6 * 1024, PowerW: 105, TemperatureC: 55,
		SMClockMHz: 1755, MemClockMHz: 3201, PCIeRxMBs: 2, PCIeTxMBs: 0.5, ClockEventsRead: true,
		EnergyMJ: g5.EnergyMJ, EnergySource: engine.EnergyFromNVML, UUID: g5.UUID, PCIe: engine.PCIeLink{Gen: 1, Width: 16}, PCIeMax: engine.PCIeLink{Gen: 5, Width: 16}}
	if g5 != want || g5.UUID == "" || g5.EnergyMJ < 1e6 {
		t.Errorf("GPU 5 sample = %+v, want %+v", g5, want)
	}
	if g2 := second.GPUs[2]; !math.IsNaN(g2.PowerW) || g2.TemperatureC != 52 {
		t.Errorf("GPU 2 with a lost power query: power %v, temperature %v; want NaN, 52", g2.PowerW, g2.TemperatureC)
	}
}

// Without NVML the source samples the CPU only and touches nothing after Init.
func TestSystemSourceNoGPU(t *testing.T) {
	src := newSystemSource(failedInit(nvml.ERROR_LIBRARY_NOT_FOUND))
	src.cpuTimes = cpuScript(cpu.TimesStat{Idle: 100}, cpu.TimesStat{User: 25, Idle: 175})
	src.Read()
	smp := src.Read()
	if smp.GPUs != nil || smp.CPUUtilPct != 25 {
		t.Errorf("sample = %+v, want CPU 25 and no GPUs", smp)
	}
	if err := src.Close(); err != nil {
		t.Errorf("Close without NVML = %v", err)
	}
}

// The Sampler's default source on this machine: CPU always, GPUs if any.
func TestSamplerDefaultSource(t *testing.T) {
	clock := telemetrytest.NewClock(t0)
	s := NewSampler(time.Second, telemetry.WithClock(clock))
	s.Start(context.Background())
	clock.Advance(time.Second)
	s.Stop()
	sum := s.Summary(t0, t0.Add(time.Second))
	if sum == nil || sum.Samples != 2 {
		t.Fatalf("Summary = %+v, want 2 samples", sum)
	}
	if _, err := Detect(); errors.Is(err, ErrNoNVML) && len(sum.GPUs) != 0 {
		t.Errorf("no NVML here but the sampler reported %d GPUs", len(sum.GPUs))
	}
}

func TestCPUBusyPct(t *testing.T) {
	for _, tc := range []struct {
		name      string
		prev, cur cpu.TimesStat
		want      float64
	}{
		{"idle", cpu.TimesStat{Idle: 10}, cpu.TimesStat{Idle: 20}, 0},
		{"busy", cpu.TimesStat{User: 10}, cpu.TimesStat{User: 20}, 100},
		{"iowait is idle", cpu.TimesStat{}, cpu.TimesStat{User: 5, Iowait: 5, Steal: 10}, 75},
		{"guest not counted twice", cpu.TimesStat{}, cpu.TimesStat{User: 10, Guest: 10, Idle: 10}, 50},
		{"no time passed", cpu.TimesStat{User: 10}, cpu.TimesStat{User: 10}, math.NaN()},
	} {
		t.Run(tc.name, func(t *testing.T) {
			got := cpuBusyPct(tc.prev, tc.cur)
			if got != tc.want && !(math.IsNaN(got) && math.IsNaN(tc.want)) {
				t.Errorf("cpuBusyPct = %v, want %v", got, tc.want)
			}
		})
	}
}
