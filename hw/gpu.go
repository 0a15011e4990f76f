package hw

import (
	"fmt"

	"github.com/NVIDIA/go-nvml/pkg/nvml"
)

// query fills g from d, one NVML call per field; nvlink says the driver
// exports the NVLink state query (symNVLinkState). A failed call leaves its
// field empty and adds a note; it never fails the GPU.
func (g *GPU) query(d nvml.Device, nvlink bool) {
	check := func(what string, ret nvml.Return) bool {
		if ret == nvml.SUCCESS {
			return true
		}
		g.Notes = append(g.Notes, what+": "+retString(ret))
		return false
	}
	if name, ret := d.GetName(); check("name", ret) {
		g.Name = name
	}
	if uuid, ret := d.GetUUID(); check("UUID", ret) {
		g.UUID = uuid
	}
	if mem, ret := d.GetMemoryInfo(); check("memory info", ret) {
		g.VRAMBytes, g.VRAMUsedBytes = mem.Total, mem.Used
	}
	if major, minor, ret := d.GetCudaComputeCapability(); check("compute capability", ret) {
		g.ComputeCapability = fmt.Sprintf("%d.%d", major, minor)
	}
	g.queryPCIe(check, d)
	if mw, ret := d.GetEnforcedPowerLimit(); check("power limit", ret) {
		g.PowerLimitW = float64(mw) / 1000
	}
	g.queryMemoryBandwidth(check, d)
	if mhz, ret := d.GetMaxClockInfo(nvml.CLOCK_SM); check("max SM clock", ret) {
		g.MaxSMClockMHz = int(mhz)
	}
	if nvlink {
		g.queryNVLinks(check, d)
	}
	// MIG is NOT_SUPPORTED on every GPU without MIG; that is "off", not a failure.
	if cur, _, ret := d.GetMigMode(); ret != nvml.ERROR_NOT_SUPPORTED && check("MIG mode", ret) {
		g.MIGEnabled = cur == nvml.DEVICE_MIG_ENABLE
	}
}

func (g *GPU) queryPCIe(check func(string, nvml.Return) bool, d nvml.Device) {
	if gen, ret := d.GetMaxPcieLinkGeneration(); check("PCIe max generation", ret) {
		g.PCIeGen = gen
	}
	if width, ret := d.GetMaxPcieLinkWidth(); check("PCIe max width", ret) {
		g.PCIeWidth = width
	}
	if gen, ret := d.GetCurrPcieLinkGeneration(); check("PCIe current generation", ret) {
		g.PCIeCurGen = gen
	}
	if width, ret := d.GetCurrPcieLinkWidth(); check("PCIe current width", ret) {
		g.PCIeCurWidth = width
	}
}

// symNVLinkState is NVML's NVLink state query, looked up before it is
// called (a missing symbol kills the process, see clockEventQuery).
const symNVLinkState = "nvmlDeviceGetNvLinkState"

// queryNVLinks counts the GPU's NVLink links and those that are up. NVML
// answers NOT_SUPPORTED for a GPU without NVLink and INVALID_ARGUMENT past
// its last link; only another answer on the first link is worth a note.
func (g *GPU) queryNVLinks(check func(string, nvml.Return) bool, d nvml.Device) {
	for link := 0; link < nvml.NVLINK_MAX_LINKS; link++ {
		state, ret := d.GetNvLinkState(link)
		if ret != nvml.SUCCESS {
			if link > 0 || ret == nvml.ERROR_NOT_SUPPORTED || ret == nvml.ERROR_INVALID_ARGUMENT {
				g.NVLinkKnown = true
			} else {
				check("NVLink state", ret)
			}
			return
		}
		g.NVLinks++
		g.NVLinkKnown = true
		if state == nvml.FEATURE_ENABLED {
			g.NVLinksActive++
		}
	}
}

func (g *GPU) queryMemoryBandwidth(check func(string, nvml.Return) bool, d nvml.Device) {
	if bits, ret := d.GetMemoryBusWidth(); check("memory bus width", ret) {
		g.MemoryBusWidthBits = int(bits)
	}
	if mhz, ret := d.GetMaxClockInfo(nvml.CLOCK_MEM); check("max memory clock", ret) {
		g.MaxMemClockMHz = int(mhz)
	}
	g.PeakBandwidthGBs = PeakBandwidthGBs(g.MemoryBusWidthBits, g.MaxMemClockMHz)
}

// PeakBandwidthGBs is a GPU's peak memory bandwidth in GB/s (10^9 bytes/s):
//
//	bus width (bits) / 8 × max memory clock (MHz) × 2 / 1000
//
// NVML reports the memory clock as half the effective per-pin data rate for
// every memory type it exposes (GDDR5/5X/6/6X/7 and HBM2/2e/3/3e), so one
// factor of 2 fits all, checked against the vendors' figures:
//
//	RTX 3090      GDDR6X  384 bit ×  9751 MHz →  936 GB/s (spec 936)
//	RTX 4090      GDDR6X  384 bit × 10501 MHz → 1008 GB/s (spec 1008)
//	RTX PRO 6000  GDDR7   512 bit × 14001 MHz → 1792 GB/s (spec 1792)
//	L40S          GDDR6   384 bit ×  9001 MHz →  864 GB/s (spec 864)
//	A100 40GB     HBM2   5120 bit ×  1215 MHz → 1555 GB/s (spec 1555)
//	H100 SXM      HBM3   5120 bit ×  2619 MHz → 3352 GB/s (spec 3350)
//	H200          HBM3e  6144 bit ×  3201 MHz → 4917 GB/s (spec 4800)
//
// It returns 0 when either input is unknown.
func PeakBandwidthGBs(busWidthBits, maxMemClockMHz int) float64 {
	if busWidthBits <= 0 || maxMemClockMHz <= 0 {
		return 0
	}
	return float64(busWidthBits) / 8 * float64(maxMemClockMHz) * 2 / 1000
}
