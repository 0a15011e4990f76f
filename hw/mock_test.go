package hw

import (
	"testing"

	"github.com/NVIDIA/go-nvml/pkg/nvml"
	"github.com/NVIDIA/go-nvml/pkg/nvml/mock"
	"github.com/NVIDIA/go-nvml/pkg/nvml/mock/dgxh200"
	"github.com/NVIDIA/go-nvml/pkg/nvml/mock/server"
)

// H200 figures the dgxh200 mock leaves unset, from a real H200 SXM.
const (
	h200BusWidthBits  = 6144
	h200MaxMemMHz     = 3201
	h200PowerLimitMW  = 700000
	h200PeakBandwidth = 6144.0 / 8 * 3201 * 2 / 1000 // 4916.736 GB/s
	h200NVLinks       = 18                           // NVLink 4, all up
)

// countingServer is an 8×H200 mock that counts Init and Shutdown.
type countingServer struct {
	*server.Server
	inits, shutdowns int
}

// newH200 returns the dgxh200 mock with every function hw calls filled in:
// GPU i uses (i+1) GiB, draws 100+i W at 50+i °C and 10·i % utilisation,
// with no clock-event reasons.
func newH200(t *testing.T) *countingServer {
	t.Helper()
	cs := &countingServer{Server: dgxh200.New()}
	cs.InitFunc = func() nvml.Return { cs.inits++; return nvml.SUCCESS }
	cs.ShutdownFunc = func() nvml.Return { cs.shutdowns++; return nvml.SUCCESS }
	for i, d := range cs.Devices {
		fillH200(d.(*server.Device), i)
	}
	return cs
}

func fillH200(d *server.Device, i int) {
	d.MemoryInfo.Used = uint64(i+1) << 30
	d.MemoryInfo.Free = d.MemoryInfo.Total - d.MemoryInfo.Used
	ok := nvml.SUCCESS
	d.GetMaxPcieLinkGenerationFunc = func() (int, nvml.Return) { return 5, ok }
	d.GetMaxPcieLinkWidthFunc = func() (int, nvml.Return) { return 16, ok }
	d.GetCurrPcieLinkGenerationFunc = func() (int, nvml.Return) { return 1, ok }
	d.GetCurrPcieLinkWidthFunc = func() (int, nvml.Return) { return 16, ok }
	d.GetEnforcedPowerLimitFunc = func() (uint32, nvml.Return) { return h200PowerLimitMW, ok }
	d.GetMemoryBusWidthFunc = func() (uint32, nvml.Return) { return h200BusWidthBits, ok }
	d.GetMaxClockInfoFunc = func(c nvml.ClockType) (uint32, nvml.Return) {
		if c == nvml.CLOCK_MEM {
			return h200MaxMemMHz, ok
		}
		return 1980, ok
	}
	d.GetUtilizationRatesFunc = func() (nvml.Utilization, nvml.Return) {
		return nvml.Utilization{Gpu: uint32(10 * i), Memory: 5}, ok
	}
	d.GetPowerUsageFunc = func() (uint32, nvml.Return) { return uint32(100+i) * 1000, ok }
	d.GetTemperatureFunc = func(nvml.TemperatureSensors) (uint32, nvml.Return) { return uint32(50 + i), ok }
	d.GetClockInfoFunc = func(c nvml.ClockType) (uint32, nvml.Return) {
		if c == nvml.CLOCK_MEM {
			return 3201, ok
		}
		return 1755, ok
	}
	d.GetNvLinkStateFunc = func(link int) (nvml.EnableState, nvml.Return) {
		if link >= h200NVLinks {
			return 0, nvml.ERROR_INVALID_ARGUMENT
		}
		return nvml.FEATURE_ENABLED, ok
	}
	// Every pair is connected through the NVSwitch, as on a DGX H200.
	d.GetP2PStatusFunc = func(nvml.Device, nvml.GpuP2PCapsIndex) (nvml.GpuP2PStatus, nvml.Return) {
		return nvml.P2P_STATUS_OK, ok
	}
	d.GetTopologyCommonAncestorFunc = func(nvml.Device) (nvml.GpuTopologyLevel, nvml.Return) {
		return nvml.TOPOLOGY_SYSTEM, ok
	}
	d.GetCurrentClocksEventReasonsFunc = func() (uint64, nvml.Return) { return nvml.ClocksEventReasonNone, ok }
	d.GetPcieThroughputFunc = func(c nvml.PcieUtilCounter) (uint32, nvml.Return) {
		if c == nvml.PCIE_UTIL_RX_BYTES {
			return 2000, ok // KB/s
		}
		return 500, ok
	}
}

// failedInit is an NVML whose Init fails and whose every other function is
// unset: the mock panics if any of them is called.
func failedInit(ret nvml.Return) *mock.Interface {
	return &mock.Interface{InitFunc: func() nvml.Return { return ret }}
}

// fakeHost stands in for detectHost so results don't depend on this machine.
func fakeHost() (Hardware, []string) {
	return Hardware{CPU: "AMD Ryzen 9 7900X", CPUCores: 12, CPUThreads: 24, RAMBytes: 32 << 30,
		OS: "Ubuntu 24.04.5 LTS", Kernel: "6.8.0-49-generic"}, nil
}
