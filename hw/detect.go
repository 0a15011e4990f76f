package hw

import (
	"errors"
	"fmt"
	"strings"

	"github.com/NVIDIA/go-nvml/pkg/nvml"

	"speedmatrix/engine"
)

// TypeDiscreteGPU is Hardware.Type when NVML found at least one GPU.
const TypeDiscreteGPU = "Discrete GPU"

// Hardware is what Detect found. Its JSON is a superset of
// engine.HardwareInfo's, so scripts can read either the same way.
type Hardware struct {
	Type       string `json:"type"`
	GPUs       []GPU  `json:"gpus,omitempty"`
	CPU        string `json:"cpu,omitempty"`
	CPUCores   int    `json:"cpu_cores,omitempty"`   // physical cores
	CPUThreads int    `json:"cpu_threads,omitempty"` // logical CPUs
	RAMBytes   uint64 `json:"ram_bytes,omitempty"`
	OS         string `json:"os,omitempty"`
	Kernel     string `json:"kernel,omitempty"`
	Hostname   string `json:"hostname,omitempty"`
	Uname      string `json:"uname,omitempty"` // uname -snrvm
	// NVIDIA is the driver's and CUDA's versions, or why NVML is missing.
	NVIDIA engine.NVIDIAInfo `json:"nvidia"`
	// Topology is how the GPUs are connected; nil without NVML.
	Topology *engine.Topology `json:"topology,omitempty"`
	// Note says why there are no GPUs or why GPU details are missing.
	Note string `json:"note,omitempty"`
	// CPUServer names a CPU build of vLLM that would serve on this CPU
	// ("vLLM CPU build 0.32.0"); Detect leaves it to whoever looks for one.
	CPUServer string `json:"cpu_engine,omitempty"`
}

// GPU is one NVIDIA GPU: the report's fields plus details only `hw` shows.
type GPU struct {
	engine.GPUInfo
	// Notes name the queries that failed; their fields are left empty.
	Notes []string `json:"notes,omitempty"`
}

// Detect describes this machine: every NVIDIA GPU through the system's NVML
// and the host through gopsutil. Without a usable NVML it returns an error
// wrapping ErrNoNVML, and Hardware still holds the host and a Note with the
// reason. A GPU that fails one query keeps its other fields and gets a note.
func Detect() (Hardware, error) {
	return DetectWith(defaultLibrary())
}

// DetectWith is Detect over the NVML lib: the system's, or go-nvml's mock
// servers (hw/nvmlmock); the host part is always this machine's.
func DetectWith(lib nvml.Interface) (Hardware, error) {
	return detect(lib, detectHost)
}

func detect(lib library, host func() (Hardware, []string)) (Hardware, error) {
	h, hostNotes := host()
	s, err := openSession(lib)
	if err != nil {
		reason := err.Error()
		var no *noNVMLError
		if errors.As(err, &no) {
			reason = no.reason
		}
		h.Note = joinNotes(append([]string{reason}, hostNotes...))
		h.NVIDIA.Note = reason
		return h, err
	}
	defer s.close()
	h.Type = TypeDiscreteGPU
	driver, cuda, sysNotes := s.systemVersions()
	h.NVIDIA = engine.NVIDIAInfo{DriverVersion: driver, CUDAVersion: cuda}
	var gpuNotes []string
	nvlink := s.lib.Extensions().LookupSymbol(symNVLinkState) == nil
	for i, d := range s.devices {
		g := GPU{GPUInfo: engine.GPUInfo{Index: i, DriverVersion: driver, CUDAVersion: cuda}}
		if d == nil {
			g.Notes = []string{"device handle unavailable"}
		} else {
			g.query(d, nvlink)
		}
		for _, n := range g.Notes {
			gpuNotes = append(gpuNotes, fmt.Sprintf("GPU %d: %s", i, n))
		}
		h.GPUs = append(h.GPUs, g)
	}
	h.Topology = s.topology(h.GPUs)
	h.Note = joinNotes(append(append(sysNotes, gpuNotes...), hostNotes...))
	return h, nil
}

// systemVersions reads the driver version and the CUDA version the driver
// supports ("12.8"), with a note for each that failed.
func (s *session) systemVersions() (driver, cuda string, notes []string) {
	driver, ret := s.lib.SystemGetDriverVersion()
	if ret != nvml.SUCCESS {
		driver = ""
		notes = append(notes, "driver version: "+retString(ret))
	}
	v, ret := s.lib.SystemGetCudaDriverVersion()
	if ret != nvml.SUCCESS {
		notes = append(notes, "CUDA version: "+retString(ret))
	} else {
		cuda = formatCUDAVersion(v)
	}
	return driver, cuda, notes
}

// formatCUDAVersion turns NVML's CUDA driver version (12080) into "12.8".
func formatCUDAVersion(v int) string {
	if v <= 0 {
		return ""
	}
	return fmt.Sprintf("%d.%d", v/1000, v%1000/10)
}

func joinNotes(notes []string) string {
	kept := notes[:0:0]
	for _, n := range notes {
		if n != "" {
			kept = append(kept, n)
		}
	}
	return strings.Join(kept, "; ")
}
