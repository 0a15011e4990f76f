package hw

import "speedmatrix/engine"

// Info maps Hardware to the report's Hardware section.
func (h Hardware) Info() engine.HardwareInfo {
	info := engine.HardwareInfo{
		Type:     h.Type,
		CPU:      h.CPU,
		CPUCores: h.CPUCores,
		RAMBytes: h.RAMBytes,
		OS:       h.OS,
		Kernel:   h.Kernel,
		Note:     h.Note,
	}
	for _, g := range h.GPUs {
		info.GPUs = append(info.GPUs, g.GPUInfo)
	}
	return info
}
