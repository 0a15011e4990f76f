package report

import (
	"fmt"
	"strings"
	"time"

	"speedmatrix/engine"
	"speedmatrix/engine/secret"
)

// Section is a titled list of label/value lines: Hardware, Engine or Run.
// report.md writes it as a table; the report sheet draws it as a list.
type Section struct {
	Title string `json:"title"`
	Rows  []Row  `json:"rows"`
}

// Row is one line of a Section: "GPU", "RTX 3090".
type Row struct {
	Key   string `json:"key"`
	Value string `json:"value"`
}

// Sections are the report's Hardware, Engine and Run sections, the one
// source of their lines for every export. Each starts with the lines the
// reference report pages show, in the reference reports' order; the lines the reference reports lack (KV cache,
// API, Started, …) follow them. Lines with no value are left out, except
// that a simulated engine always says so.
func Sections(r engine.Report) []Section {
	return []Section{
		{Title: "Hardware", Rows: append(hardwareRows(r.Hardware), linkRows(r)...)},
		{Title: "Engine", Rows: engineRows(r.Server)},
		{Title: "Run", Rows: runRows(r.Run)},
	}
}

// rows collects a section's lines.
type rows []Row

// add appends a line when its value is known.
func (rs *rows) add(key, value string) {
	if strings.TrimSpace(value) != "" {
		*rs = append(*rs, Row{Key: key, Value: value})
	}
}

func hardwareRows(h engine.HardwareInfo) []Row {
	var rs rows
	rs.add("Whose", whoseLine(h))
	rs.add("Type", h.Type)
	rs.add("GPU", gpuLabel(h))
	for _, n := range nodeLines(h) {
		rs.add("Node", n)
	}
	if v := totalVRAMBytes(h); v > 0 {
		rs.add("VRAM", GB(v))
	}
	rs.add("CPU", CPULine(h))
	if h.RAMBytes > 0 {
		rs.add("RAM", GB(h.RAMBytes))
	}
	rs.add("OS", h.OS)
	// Not on the reference report pages:
	rs.add("Note", h.Note)
	return rs
}

// whoseLine says whose hardware the section describes (HardwareInfo.Whose):
// the server's, on the machine that measured it; a remote server's, of
// which only its exporters' GPUs are known; or the simulator's model; ""
// for a report that does not say.
func whoseLine(h engine.HardwareInfo) string {
	switch h.Whose {
	case engine.HardwareOfServer:
		return "the server's: it ran on the machine that measured it"
	case engine.HardwareOfRemote:
		if len(h.GPUs) > 0 {
			return "a remote server's: its GPUs as its DCGM exporters report them; the rest is not known here"
		}
		return "a remote server's: not known here (the measuring machine's is not the server's)"
	case engine.HardwareOfSimulator:
		return "the simulator's model of a rig: no GPU was used"
	}
	return ""
}

// CPULine is the Hardware section's CPU: "AMD EPYC 7B13 (64C)", or for a
// server that ran on the CPU (or a CPU build of vLLM that would) the cores
// in words and what serves on them: "AMD EPYC 7B13, 64 cores (vLLM CPU
// build 0.32.0)".
func CPULine(h engine.HardwareInfo) string {
	cpu := h.CPU
	if !h.OnCPU() && h.CPUServer == "" {
		if cpu != "" && h.CPUCores > 0 {
			cpu = fmt.Sprintf("%s (%dC)", cpu, h.CPUCores)
		}
		return cpu
	}
	if cpu == "" {
		cpu = "this machine's CPU"
	}
	switch {
	case h.CPUCores == 1:
		cpu += ", 1 core"
	case h.CPUCores > 1:
		cpu += fmt.Sprintf(", %d cores", h.CPUCores)
	}
	if h.CPUServer != "" {
		cpu += " (" + h.CPUServer + ")"
	}
	return cpu
}

func engineRows(e engine.ServerInfo) []Row {
	var rs rows
	rs.add("Engine", e.Name)
	rs.add("Version", e.Version)
	rs.add("Quantization", e.Quantization)
	rs.add("Backend", e.Backend)
	rs.add("Repository", e.Repository)
	rs.add("Build", e.Build)
	rs.add("Commit", e.Commit)
	// Not on the reference report pages:
	rs.add("Simulated", e.SimulatedLabel())
	if e.MaxModelLen > 0 {
		rs.add("Max model length", tokens(e.MaxModelLen))
	}
	if e.KVCacheTokens > 0 {
		rs.add("KV cache", tokens(e.KVCacheTokens))
	}
	if e.MaxNumSeqs > 0 {
		rs.add("Max sequences", Int(e.MaxNumSeqs))
	}
	return rs
}

func runRows(r engine.RunInfo) []Row {
	var rs rows
	rs.add("Served model", r.ServedModel)
	rs.add("Revision", r.Revision)
	rs.add("Benchmark tool", r.BenchmarkTool)
	rs.add("Decode test", r.DecodeTest)
	rs.add("Prefill mode", r.PrefillMode)
	switch {
	case r.DurationS > 0 && engine.AdaptiveDecodeTest(r.DecodeTest):
		rs.add("Longest measurement", wholeSeconds(r.DurationS))
	case r.DurationS > 0:
		rs.add("Time per measurement", wholeSeconds(r.DurationS))
	}
	if r.MaxOutputTokens > 0 {
		rs.add("Max output", tokens(r.MaxOutputTokens))
	}
	// Not on the reference report pages:
	if r.Model != r.ServedModel {
		rs.add("Model", r.Model)
	}
	rs.add("API", r.API)
	if r.ChatTemplateTokens > 0 {
		rs.add("Chat template", ChatTemplateText(r.ChatTemplateTokens))
	}
	rs.add("Endpoint", secret.URL(r.Endpoint)) // reports saved before it was hidden
	rs.add("Started", stamp(r.StartedAt))
	rs.add("Finished", stamp(r.FinishedAt))
	rs.add("Complete", completeValue(r))
	for _, c := range r.Checks {
		rs.add("Checks", c)
	}
	if r.Imported != nil {
		rs.add("Imported from", r.Imported.Label()+" ("+r.Imported.File+")")
	}
	for _, n := range r.Notes {
		rs.add("Note", n)
	}
	return rs
}

// completeValue is the Run section's Complete line: "yes", or "no — " and
// why the run stopped, when the engine said.
func completeValue(r engine.RunInfo) string {
	resume := "(partial run: resume it to measure the rest)"
	if r.Imported != nil {
		resume = "(partial run)" // another tool's run: ours cannot resume it
	}
	switch {
	case r.Complete:
		return "yes"
	case r.Incomplete != "":
		return "no — " + r.Incomplete + " " + resume
	}
	return "no " + resume
}

func stamp(t time.Time) string {
	if t.IsZero() {
		return ""
	}
	return t.UTC().Format("2006-01-02 15:04:05 UTC")
}

// GPUName drops the vendor prefixes NVML adds, as the reference report
// pages do: "NVIDIA GeForce RTX 3090" → "RTX 3090"; "unknown GPU" when NVML
// gave none.
func GPUName(name string) string {
	name = strings.TrimPrefix(strings.TrimSpace(name), "NVIDIA ")
	name = strings.TrimPrefix(name, "GeForce ")
	if name == "" {
		return "unknown GPU"
	}
	return name
}

// gpuLabel names the machine's GPUs: "RTX 3090", "2× H200", or
// "RTX 4090 + RTX 3090" for different ones; "" when there are none.
func gpuLabel(h engine.HardwareInfo) string {
	var names []string
	counts := map[string]int{}
	for _, g := range h.GPUs {
		n := GPUName(g.Name)
		if counts[n] == 0 {
			names = append(names, n)
		}
		counts[n]++
	}
	for i, n := range names {
		if counts[n] > 1 {
			names[i] = fmt.Sprintf("%d× %s", counts[n], n)
		}
	}
	return strings.Join(names, " + ")
}

// totalVRAMBytes is the VRAM of all the GPUs together.
func totalVRAMBytes(h engine.HardwareInfo) uint64 {
	var sum uint64
	for _, g := range h.GPUs {
		sum += g.VRAMBytes
	}
	return sum
}

// gpuTitle is the GPU part of the line under the title, as the reference reports write
// it: "RTX 3090 24GB", "2× H200 282GB" (VRAM of all GPUs); "" when the
// machine has no GPU.
func gpuTitle(h engine.HardwareInfo) string {
	label := gpuLabel(h)
	if label == "" {
		return ""
	}
	if v := totalVRAMBytes(h); v > 0 {
		label += " " + strings.ReplaceAll(GB(v), " ", "")
	}
	return label
}

// deviceTitle is what served the model, for a title or a list of runs:
// gpuTitle, or for a server that ran on the CPU "CPU AMD EPYC 7B13" ("CPU"
// when its model is unknown).
func deviceTitle(h engine.HardwareInfo) string {
	if h.OnCPU() {
		return strings.TrimSpace("CPU " + h.CPU)
	}
	return gpuTitle(h)
}

// ChatTemplateText says what the chat template added to each prompt: "12
// tokens added to each prompt's own text (the server counted them; each
// prompt was sized so that its count is the context)".
func ChatTemplateText(n int) string {
	return Int(n) + " " + engine.Plural(n, "token", "tokens") + " added to each prompt's own text (the server counted them; each prompt was sized so that its count is the context)"
}
