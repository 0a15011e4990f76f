package engine

import (
	"strconv"
	"strings"
	"time"
)

// SchemaVersion is the version of the report.json schema written by this build.
const SchemaVersion = 1

// Report is everything a finished (or partial) run shows: the reference reports' sections
// Hardware, Engine, Run and Launch command, then every cell's Result, and
// the start-up diagnostics.
type Report struct {
	SchemaVersion int          `json:"schema_version"`
	Hardware      HardwareInfo `json:"hardware"`
	Server        ServerInfo   `json:"engine"`
	Run           RunInfo      `json:"run"`
	LaunchCommand string       `json:"launch_command,omitempty"` // API key shown as <redacted>
	// Process is how a server the user started was launched, read from its
	// process on this machine, or why it could not be read; nil when
	// Speed Matrix started the server (LaunchCommand says how).
	Process *ServerProcess `json:"server_process,omitempty"`
	// Diagnostics describe the machine that ran the benchmark, at start-up.
	Diagnostics *Diagnostics `json:"diagnostics,omitempty"`
	Plan        Plan         `json:"plan"`
	Results     []Result     `json:"results"`
	// Roofline holds the GPU and model facts each cell's ceiling comes
	// from, or why there is none; nil in reports written before it.
	Roofline *RooflineFacts `json:"roofline,omitempty"`
	// Load holds a load test's plan and its figures per rate; nil for a
	// matrix run. A load test's report has no matrix cells.
	Load *LoadSection `json:"load,omitempty"`
	// Quality is the run's quality phase against a reference (the fields
	// of quality.json); nil when the run had none.
	Quality *QualityReport `json:"quality,omitempty"`
}

// Launched reports whether Speed Matrix started the server the report
// measured (from a server.toml or the app's Launch form, or its simulator
// in-process, whose profile has a launch command): a launch command but no
// process read from a server someone else started.
func (r Report) Launched() bool {
	return r.Process == nil && r.LaunchCommand != ""
}

// HardwareInfo is the report's Hardware section.
type HardwareInfo struct {
	Type     string    `json:"type"` // "Discrete GPU"
	GPUs     []GPUInfo `json:"gpus,omitempty"`
	CPU      string    `json:"cpu,omitempty"`
	CPUCores int       `json:"cpu_cores,omitempty"`
	RAMBytes uint64    `json:"ram_bytes,omitempty"`
	OS       string    `json:"os,omitempty"`
	Kernel   string    `json:"kernel,omitempty"`
	// Note says why GPU details are missing ("NVIDIA driver not found"), if they are.
	Note string `json:"note,omitempty"`
	// CPUServer names what served the model on this machine's CPU ("vLLM
	// CPU build 0.32.0") when Type is TypeCPU.
	CPUServer string `json:"cpu_engine,omitempty"`
	// Whose says whose hardware the section describes: HardwareOfServer,
	// HardwareOfRemote or HardwareOfSimulator; "" in reports written
	// before it was recorded.
	Whose string `json:"whose,omitempty"`
}

// Whose hardware a Hardware section describes (HardwareInfo.Whose).
const (
	// HardwareOfServer: the server ran on the machine that measured it
	// (launched there, or an endpoint on it): the section is that machine.
	HardwareOfServer = "server"
	// HardwareOfRemote: the server ran elsewhere: the section holds only
	// the GPUs its DCGM exporters report, if any; the measuring machine's
	// hardware is not the server's and is left out.
	HardwareOfRemote = "remote"
	// HardwareOfSimulator: the server was Speed Matrix's simulator: the
	// section is its profile's model of a rig, and no GPU was used.
	HardwareOfSimulator = "simulator"
)

// TypeCPU is HardwareInfo.Type when the server ran on the CPU (vLLM's CPU
// build): the section then names the CPU and no GPU.
const TypeCPU = "CPU"

// OnCPU reports whether the server ran on the CPU.
func (h HardwareInfo) OnCPU() bool { return h.Type == TypeCPU }

// ServeOnCPU makes h the Hardware section of a server that ran on this
// machine's CPU, served by cpuServer ("vLLM CPU build 0.32.0"): no GPU is
// named (a GPU the machine has did not serve the model), and the note says
// so instead of why no GPU was found.
func (h *HardwareInfo) ServeOnCPU(cpuServer string) {
	h.Type, h.CPUServer, h.GPUs = TypeCPU, cpuServer, nil
	h.Note = "The server ran on the CPU: no GPU served the model."
}

// AddNote appends sentence to Note, ending what was there with a period.
func (h *HardwareInfo) AddNote(sentence string) {
	note := strings.TrimSpace(h.Note)
	switch {
	case sentence == "":
	case note == "":
		h.Note = sentence
	case strings.HasSuffix(note, "."):
		h.Note = note + " " + sentence
	default:
		h.Note = note + ". " + sentence
	}
}

// GPUInfo describes one GPU as NVML reports it.
type GPUInfo struct {
	Index             int    `json:"index"`
	Name              string `json:"name"`
	UUID              string `json:"uuid,omitempty"`
	VRAMBytes         uint64 `json:"vram_bytes"`
	VRAMUsedBytes     uint64 `json:"vram_used_bytes,omitempty"`
	DriverVersion     string `json:"driver_version,omitempty"`
	CUDAVersion       string `json:"cuda_version,omitempty"`
	ComputeCapability string `json:"compute_capability,omitempty"`
	// PCIeGen and PCIeWidth are the most the GPU's PCIe link can do.
	PCIeGen   int `json:"pcie_gen,omitempty"`
	PCIeWidth int `json:"pcie_width,omitempty"`
	// PCIeCurGen and PCIeCurWidth are the link as it ran at detection; idle
	// GPUs often drop to a lower generation to save power.
	PCIeCurGen   int `json:"pcie_cur_gen,omitempty"`
	PCIeCurWidth int `json:"pcie_cur_width,omitempty"`
	// MaxSMClockMHz is the highest SM clock the GPU can run.
	MaxSMClockMHz int `json:"max_sm_clock_mhz,omitempty"`
	// NVLinks is how many NVLink links the GPU has, NVLinksActive how many
	// of them are up; both 0 without NVLink. NVLinkKnown says they were
	// asked: reports written before they were have neither.
	NVLinks            int     `json:"nvlinks,omitempty"`
	NVLinksActive      int     `json:"nvlinks_active,omitempty"`
	NVLinkKnown        bool    `json:"nvlink_known,omitempty"`
	PowerLimitW        float64 `json:"power_limit_w,omitempty"`
	MemoryBusWidthBits int     `json:"memory_bus_width_bits,omitempty"`
	MaxMemClockMHz     int     `json:"max_mem_clock_mhz,omitempty"`
	PeakBandwidthGBs   float64 `json:"peak_bandwidth_gb_s,omitempty"`
	MIGEnabled         bool    `json:"mig_enabled,omitempty"`
	// Host is the node the GPU is in when it is not this machine (read from
	// a DCGM exporter or a Ray cluster).
	Host string `json:"host,omitempty"`
}

// PCIeMax is the most the GPU's PCIe link can do.
func (g GPUInfo) PCIeMax() PCIeLink { return PCIeLink{Gen: g.PCIeGen, Width: g.PCIeWidth} }

// PCIeCur is the GPU's PCIe link as it ran at detection.
func (g GPUInfo) PCIeCur() PCIeLink { return PCIeLink{Gen: g.PCIeCurGen, Width: g.PCIeCurWidth} }

// ServerInfo is the report's Engine section.
type ServerInfo struct {
	Name         string `json:"engine"` // "vllm"
	Version      string `json:"version,omitempty"`
	Quantization string `json:"quantization,omitempty"`
	Backend      string `json:"backend,omitempty"` // "cuda"
	Repository   string `json:"repository,omitempty"`
	Build        string `json:"build,omitempty"` // venv path or image tag
	Commit       string `json:"commit,omitempty"`
	// Simulated is set for every run against engine/sim; SimProfile names the profile.
	Simulated  bool   `json:"simulated,omitempty"`
	SimProfile string `json:"sim_profile,omitempty"`
	// KVCacheTokens is the server's KV cache size in tokens, when known.
	KVCacheTokens int `json:"kv_cache_tokens,omitempty"`
	MaxNumSeqs    int `json:"max_num_seqs,omitempty"`
	MaxModelLen   int `json:"max_model_len,omitempty"`
}

// SimulatedLabel is how the Engine section names a simulated engine in every export.
func (e ServerInfo) SimulatedLabel() string {
	switch {
	case !e.Simulated:
		return ""
	case e.SimProfile == "": // a stand-in launched here, before it named its profile
		return "simulated"
	}
	return "simulated (profile " + e.SimProfile + ")"
}

// RunInfo is the report's Run section.
type RunInfo struct {
	Model           string  `json:"model,omitempty"` // HF id or path the server loaded
	ServedModel     string  `json:"served_model"`
	Revision        string  `json:"revision,omitempty"`
	BenchmarkTool   string  `json:"benchmark_tool"` // "speedmatrix v0.1.0"
	DecodeTest      string  `json:"decode_test"`    // "Fixed duration"
	PrefillMode     string  `json:"prefill_mode"`   // "Measured during decode warm-up"
	DurationS       float64 `json:"duration_s"`
	MaxOutputTokens int     `json:"max_output_tokens"`
	API             string  `json:"api"` // "chat" or "completions"
	// ChatTemplateTokens is how many tokens the server's chat template
	// adds to each prompt's own text: its usage.prompt_tokens of a short
	// chat request beside /tokenize's count of the same text, measured
	// once. Prompts are sized so that the server counts exactly their
	// context, template included. 0 for completions, and where the server
	// has no /tokenize to measure it with.
	ChatTemplateTokens int    `json:"chat_template_tokens,omitempty"`
	Endpoint           string `json:"endpoint,omitempty"`
	// GPUMetrics are the DCGM exporters the run read its GPUs and their
	// telemetry from (passwords hidden), for a resumed run to read again.
	GPUMetrics []string  `json:"gpu_metrics,omitempty"`
	StartedAt  time.Time `json:"started_at"`
	FinishedAt time.Time `json:"finished_at,omitempty"`
	Complete   bool      `json:"complete"` // every planned cell has a final status
	// Incomplete says why a run that isn't complete stopped: "the server
	// stopped answering: …", "interrupted".
	Incomplete string `json:"incomplete,omitempty"`
	// Checks says which trust checks ran, one line each (CheckServerMetrics…).
	Checks []string `json:"checks,omitempty"`
	// Imported is set when another tool measured the run and Speed Matrix
	// only read its results file; nil for a run Speed Matrix measured.
	Imported *Import `json:"imported,omitempty"`
	// Notes are remarks on the whole run, one sentence each: for an
	// imported run, how its tool's method differs from ours.
	Notes []string `json:"notes,omitempty"`
	// IdlePower is the GPUs' power in a quiet window before the first
	// cell, the server loaded and idle; nil when it was not measured.
	IdlePower *IdlePower `json:"idle_power,omitempty"`
	// Prices are the user's prices that cost figures come from; nil when
	// none was given.
	Prices *Prices `json:"prices,omitempty"`
}

// Import says where an imported run came from.
type Import struct {
	Tool    string `json:"tool"`              // "llm-inference-bench"
	Version string `json:"version,omitempty"` // the tool's version, "0.4.18"
	File    string `json:"file,omitempty"`    // the imported file's name
}

// VersionUnknown is an Import's version when the tool's file does not
// name it: said, never guessed.
const VersionUnknown = "unknown"

// Label names the tool: "llm-inference-bench 0.4.18", or "vllm bench
// serve (version unknown)".
func (i Import) Label() string {
	switch i.Version {
	case "":
		return i.Tool
	case VersionUnknown:
		return i.Tool + " (version unknown)"
	}
	return i.Tool + " " + i.Version
}

// Run-section wording, as the reference reports word it.
const (
	DecodeTestFixedDuration = "Fixed duration"
	PrefillModeDecodeWarmup = "Measured during decode warm-up"
)

// decodeTestAdaptivePrefix starts the Decode test of a run whose windows
// adapt (DecodeTest).
const decodeTestAdaptivePrefix = "Until known to "

// DecodeTest words how a plan's decode windows end, for the Run section:
// "Fixed duration", or "Until known to ±1 % (95 %), 5 s at least".
func DecodeTest(p Plan) string {
	if !p.Adaptive() {
		return DecodeTestFixedDuration
	}
	return decodeTestAdaptivePrefix + TargetText(p.Precision) + " (95 %), " +
		strconv.Itoa(int(MinAdaptiveWindow/time.Second)) + " s at least"
}

// AdaptiveDecodeTest reports whether a Run section's Decode test is an
// adaptive one, whose time per measurement is the longest a window takes.
func AdaptiveDecodeTest(decodeTest string) bool {
	return strings.HasPrefix(decodeTest, decodeTestAdaptivePrefix)
}

// BenchmarkTool names a build of this version in the Run section:
// "speedmatrix v0.1.0" ("speedmatrix" when the version is unknown).
func BenchmarkTool(version string) string {
	if version == "" {
		return "speedmatrix"
	}
	return "speedmatrix v" + strings.TrimPrefix(version, "v")
}
