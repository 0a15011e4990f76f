// Package nvmlmock builds go-nvml mock servers with every function that hw
// calls filled in, so that tests across the tree (hw, the app, the CLI)
// run on a described machine without a GPU: 8×H100 and 8×H200 DGXs with
// NVLink, and a two-GPU PCIe workstation whose GPU 1 trains down to x8
// under load.
package nvmlmock

import (
	"time"

	"github.com/NVIDIA/go-nvml/pkg/nvml"
	"github.com/NVIDIA/go-nvml/pkg/nvml/mock/dgxh100"
	"github.com/NVIDIA/go-nvml/pkg/nvml/mock/dgxh200"
	"github.com/NVIDIA/go-nvml/pkg/nvml/mock/server"
)

// H200 figures the dgxh200 mock leaves unset, from a real H200 SXM.
const (
	H200BusWidthBits = 6144
	H200MaxMemMHz    = 3201
	h200MaxSMMHz     = 1980
	H200PowerLimitMW = 700000
	H200NVLinks      = 18 // NVLink 4, all up
)

// DGXH200 is go-nvml's dgxh200 mock with every function hw calls filled
// in: GPU i uses (i+1) GiB, draws 100+i W at 50+i °C and 10·i %
// utilisation, its total-energy counter rising by (100+i) J every second
// of the wall clock (from 1,000 J), idles its PCIe 5.0 x16 link at Gen 1, has 18 NVLinks up and
// reaches every other GPU through the NVSwitch, with no clock-event reasons.
func DGXH200() *server.Server {
	s := dgxh200.New()
	for i, d := range s.Devices {
		fillH200(d.(*server.Device), i)
	}
	return s
}

// H100 SXM figures the dgxh100 mock leaves unset.
const (
	h100BusWidthBits = 5120
	h100MaxMemMHz    = 2619
)

// DGXH100 is go-nvml's dgxh100 mock filled as DGXH200 describes, with an
// H100 SXM's memory bus and clock (5120 bit, 2619 MHz: 3352 GB/s).
func DGXH100() *server.Server {
	s := dgxh100.New()
	for i, d := range s.Devices {
		md := d.(*server.Device)
		fillH200(md, i)
		md.GetMemoryBusWidthFunc = func() (uint32, nvml.Return) { return h100BusWidthBits, nvml.SUCCESS }
		md.GetMaxClockInfoFunc = func(c nvml.ClockType) (uint32, nvml.Return) {
			if c == nvml.CLOCK_MEM {
				return h100MaxMemMHz, nvml.SUCCESS
			}
			return h200MaxSMMHz, nvml.SUCCESS
		}
	}
	return s
}

// fillH200 fills d, GPU i of a DGX H200, as DGXH200 describes.
func fillH200(d *server.Device, i int) {
	d.MemoryInfo.Used = uint64(i+1) << 30
	d.MemoryInfo.Free = d.MemoryInfo.Total - d.MemoryInfo.Used
	ok := nvml.SUCCESS
	d.GetMaxPcieLinkGenerationFunc = func() (int, nvml.Return) { return 5, ok }
	d.GetMaxPcieLinkWidthFunc = func() (int, nvml.Return) { return 16, ok }
	d.GetCurrPcieLinkGenerationFunc = func() (int, nvml.Return) { return 1, ok }
	d.GetCurrPcieLinkWidthFunc = func() (int, nvml.Return) { return 16, ok }
	d.GetEnforcedPowerLimitFunc = func() (uint32, nvml.Return) { return H200PowerLimitMW, ok }
	d.GetMemoryBusWidthFunc = func() (uint32, nvml.Return) { return H200BusWidthBits, ok }
	d.GetMaxClockInfoFunc = func(c nvml.ClockType) (uint32, nvml.Return) {
		if c == nvml.CLOCK_MEM {
			return H200MaxMemMHz, ok
		}
		return h200MaxSMMHz, ok
	}
	d.GetUtilizationRatesFunc = func() (nvml.Utilization, nvml.Return) {
		return nvml.Utilization{Gpu: uint32(10 * i), Memory: 5}, ok
	}
	d.GetPowerUsageFunc = func() (uint32, nvml.Return) { return uint32(100+i) * 1000, ok }
	d.GetTotalEnergyConsumptionFunc = EnergyCounter(time.Now(), float64(100+i))
	d.GetTemperatureFunc = func(nvml.TemperatureSensors) (uint32, nvml.Return) { return uint32(50 + i), ok }
	d.GetClockInfoFunc = func(c nvml.ClockType) (uint32, nvml.Return) {
		if c == nvml.CLOCK_MEM {
			return 3201, ok
		}
		return 1755, ok
	}
	d.GetNvLinkStateFunc = func(link int) (nvml.EnableState, nvml.Return) {
		if link >= H200NVLinks {
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

// EnergyCounter is a total-energy counter (NVML's mJ) that starts at
// 1,000 J at start and rises by watts every second of the wall clock.
func EnergyCounter(start time.Time, watts float64) func() (uint64, nvml.Return) {
	return func() (uint64, nvml.Return) {
		return uint64(1e6 + watts*float64(time.Since(start).Milliseconds())), nvml.SUCCESS
	}
}

// PCIeBox is a workstation with two H200s in PCIe 4.0 x16 slots: no
// NVLink, peer-to-peer refused by the chipset, both busy at 95 %. GPU 1's
// slot trains down to x8 once it works: its first read of the link width
// (detection, at idle) says x16, every later one x8.
func PCIeBox() *server.Server {
	s := DGXH200()
	s.DeviceGetCountFunc = func() (int, nvml.Return) { return 2, nvml.SUCCESS }
	ok := nvml.SUCCESS
	for i, d := range s.Devices[:2] {
		md := d.(*server.Device)
		md.GetNvLinkStateFunc = func(int) (nvml.EnableState, nvml.Return) { return 0, nvml.ERROR_NOT_SUPPORTED }
		md.GetP2PStatusFunc = func(_ nvml.Device, idx nvml.GpuP2PCapsIndex) (nvml.GpuP2PStatus, nvml.Return) {
			if idx == nvml.P2P_CAPS_INDEX_NVLINK {
				return nvml.P2P_STATUS_NOT_SUPPORTED, ok
			}
			return nvml.P2P_STATUS_CHIPSET_NOT_SUPPORTED, ok
		}
		md.GetTopologyCommonAncestorFunc = func(nvml.Device) (nvml.GpuTopologyLevel, nvml.Return) {
			return nvml.TOPOLOGY_HOSTBRIDGE, ok
		}
		md.GetMaxPcieLinkGenerationFunc = func() (int, nvml.Return) { return 4, ok }
		md.GetCurrPcieLinkGenerationFunc = func() (int, nvml.Return) { return 4, ok }
		md.GetUtilizationRatesFunc = func() (nvml.Utilization, nvml.Return) { return nvml.Utilization{Gpu: 95}, ok }
		if i == 1 {
			reads := 0 // NVML calls for one GPU come one at a time
			md.GetCurrPcieLinkWidthFunc = func() (int, nvml.Return) {
				reads++
				if reads == 1 {
					return 16, ok
				}
				return 8, ok
			}
		}
	}
	return s
}
