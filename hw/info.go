package hw

import (
	"speedmatrix/engine"
	"speedmatrix/engine/secret"
	"speedmatrix/engine/servers"
)

// Info maps Hardware to the report's Hardware section.
func (h Hardware) Info() engine.HardwareInfo {
	info := engine.HardwareInfo{
		Type:      h.Type,
		CPU:       h.CPU,
		CPUCores:  h.CPUCores,
		RAMBytes:  h.RAMBytes,
		OS:        h.OS,
		Kernel:    h.Kernel,
		Note:      h.Note,
		CPUServer: h.CPUServer,
	}
	for _, g := range h.GPUs {
		info.GPUs = append(info.GPUs, g.GPUInfo)
	}
	return info
}

// Diagnostics are the start-up diagnostics of this machine for report.json:
// the host, the NVIDIA driver (or why there is none), how the GPUs are
// connected, and the variables of environ (as os.Environ gives them) that
// change how a server runs, secrets redacted.
func (h Hardware) Diagnostics(environ []string) engine.Diagnostics {
	return engine.Diagnostics{Hostname: h.Hostname, OS: h.OS, Uname: h.Uname, NVIDIA: h.NVIDIA,
		Topology: h.Topology, Env: secret.Env(environ, servers.IsRelevantEnv)}
}
