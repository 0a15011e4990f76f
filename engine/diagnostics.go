package engine

// Diagnostics is what report.json records of the machine that ran the
// benchmark at start-up, so that a surprising figure can be traced to the
// OS, the driver, the GPUs' wiring or an environment variable.
type Diagnostics struct {
	Hostname string     `json:"hostname,omitempty"`
	OS       string     `json:"os,omitempty"`    // "Ubuntu 24.04.5 LTS"
	Uname    string     `json:"uname,omitempty"` // "Linux vm 6.8.0-49-generic #49-Ubuntu SMP … x86_64"
	NVIDIA   NVIDIAInfo `json:"nvidia"`
	// Topology is how the GPUs are connected; nil without NVML.
	Topology *Topology `json:"topology,omitempty"`
	// Env holds speedmatrix's own variables with the prefixes of
	// servers.EnvPrefixes, secret values redacted.
	Env map[string]string `json:"env"`
}

// NVIDIAInfo is the NVIDIA driver as NVML reports it.
type NVIDIAInfo struct {
	DriverVersion string `json:"driver_version,omitempty"` // "550.54.15"
	CUDAVersion   string `json:"cuda_version,omitempty"`   // the CUDA version the driver supports: "12.4"
	// Note says why the versions are missing: "no NVIDIA driver: …".
	Note string `json:"note,omitempty"`
}

// Topology is which GPUs the machine has and how each pair is connected.
// It holds what NVML answers cheaply; fuller figures (link bandwidths,
// NUMA affinity) belong in new fields here.
type Topology struct {
	GPUs  []TopologyGPU `json:"gpus"`
	Links []GPULink     `json:"links,omitempty"`
	// Notes name the queries that failed.
	Notes []string `json:"notes,omitempty"`
}

// TopologyGPU is one GPU of the topology.
type TopologyGPU struct {
	Index    int    `json:"index"`
	Name     string `json:"name,omitempty"`
	PCIBusID string `json:"pci_bus_id,omitempty"` // "00000000:18:00.0"
}

// GPULink is how two GPUs reach each other.
type GPULink struct {
	GPUs [2]int `json:"gpus"` // the two GPUs' indexes, lower first
	// Path is the link in `nvidia-smi topo -m` words: NV (NVLink), PIX,
	// PXB, PHB, NODE or SYS; see TopologyPaths.
	Path string `json:"path"`
	// P2P says whether one GPU can read the other's memory directly:
	// "ok", or NVML's reason ("not supported by the chipset", …).
	P2P string `json:"p2p,omitempty"`
}

// TopologyPaths explains each GPULink.Path, as `nvidia-smi topo -m` does.
var TopologyPaths = map[string]string{
	"NV":   "NVLink",
	"X":    "the same board",
	"PIX":  "one PCIe switch",
	"PXB":  "several PCIe switches, no host bridge",
	"PHB":  "a PCIe host bridge",
	"NODE": "host bridges within one NUMA node",
	"SYS":  "across NUMA nodes (SMP interconnect)",
}
