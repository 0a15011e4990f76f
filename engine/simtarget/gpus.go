package simtarget

import (
	"fmt"

	"speedmatrix/engine"
	"speedmatrix/engine/sim"
)

// simGPUs are the GPUs of p's rig for the Hardware section, as NVML would
// describe them at detection (idle, link at its lowest generation).
func simGPUs(p sim.Profile) []engine.GPUInfo {
	r := p.GPURig()
	gpus := make([]engine.GPUInfo, r.GPUs())
	for i := range gpus {
		gpus[i] = engine.GPUInfo{
			Index: i, Name: p.GPUName, UUID: simUUID(i), VRAMBytes: p.VRAMBytes,
			PCIeGen: r.PCIeGen, PCIeWidth: r.PCIeWidth, PCIeCurGen: 1, PCIeCurWidth: r.PCIeWidth,
			MaxSMClockMHz: r.BoostSMClockMHz, MaxMemClockMHz: r.LoadMemClockMHz, PowerLimitW: r.TDPW,
			NVLinkKnown: true,
		}
		if r.NVLink {
			gpus[i].NVLinks, gpus[i].NVLinksActive = 4, 4
		}
	}
	return gpus
}

// rigNote says how a multi-GPU profile's GPUs are joined, "" for one GPU.
func rigNote(p sim.Profile) string {
	r := p.GPURig()
	if r.GPUs() == 1 {
		return ""
	}
	link := engine.PCIeLink{Gen: r.PCIeGen, Width: r.PCIeWidth}
	joined := "no NVLink bridge: tensor parallelism's all-reduce crosses the CPU's PCIe host bridge (peer-to-peer is not supported between these cards)"
	if r.NVLink {
		joined = "an NVLink bridge joins them"
	}
	return fmt.Sprintf("Simulated rig: %s with tensor parallelism %d, each on %s; %s.", gpuCount(r.GPUs(), p.GPUName), r.GPUs(), link, joined)
}
