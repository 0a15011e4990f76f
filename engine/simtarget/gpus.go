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

// Topology is how the simulated GPUs of h (a simulator's Hardware section)
// reach each other, as NVML would answer for them: over NVLink when they
// have it, else through the CPU's PCIe host bridge without peer-to-peer,
// as GeForce cards without a bridge are.
func Topology(h engine.HardwareInfo) *engine.Topology {
	top := &engine.Topology{}
	for _, g := range h.GPUs {
		top.GPUs = append(top.GPUs, engine.TopologyGPU{Index: g.Index, Name: g.Name})
	}
	for i, a := range h.GPUs {
		for _, b := range h.GPUs[i+1:] {
			l := engine.GPULink{GPUs: [2]int{a.Index, b.Index}, Path: "PHB", P2P: "not supported"}
			if a.NVLinks > 0 && b.NVLinks > 0 {
				l.Path, l.P2P = "NV", "ok"
			}
			top.Links = append(top.Links, l)
		}
	}
	return top
}
