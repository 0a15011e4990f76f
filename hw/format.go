package hw

import (
	"fmt"
	"io"
	"math"
	"strconv"
	"strings"

	"speedmatrix/engine"
)

// NoGPUAdvice follows the reason on the GPU line when no GPU was found.
const NoGPUAdvice = "Benchmark an existing endpoint (--endpoint URL) or the simulator (--sim tiny)."

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

// FormatSection writes the Hardware section as the reference reports show it (Type, GPU,
// VRAM, CPU, RAM, OS), then the kernel and one details line per GPU (GPUs
// with identical details share a line). Without GPUs the GPU line says why
// and what to benchmark instead.
func FormatSection(w io.Writer, info engine.HardwareInfo) error {
	var b strings.Builder
	line := func(label, value string) {
		if value != "" {
			fmt.Fprintf(&b, "  %-8s %s\n", label, value)
		}
	}
	b.WriteString("Hardware\n")
	line("Type", info.Type)
	if len(info.GPUs) == 0 {
		reason := info.Note
		if reason == "" {
			reason = "no NVIDIA GPU found"
		}
		line("GPU", "none detected ("+reason+"). "+NoGPUAdvice)
	} else {
		line("GPU", gpuNames(info.GPUs))
		line("VRAM", gpuVRAM(info.GPUs))
	}
	if info.CPU != "" && info.CPUCores > 0 {
		line("CPU", fmt.Sprintf("%s (%dC)", info.CPU, info.CPUCores))
	} else {
		line("CPU", info.CPU)
	}
	if info.RAMBytes > 0 {
		line("RAM", FormatGB(info.RAMBytes))
	}
	line("OS", info.OS)
	line("Kernel", info.Kernel)
	for _, d := range groupDetails(info.GPUs) {
		line(d.label, d.text)
	}
	if len(info.GPUs) > 0 {
		line("Note", info.Note)
	}
	_, err := io.WriteString(w, b.String())
	if err != nil {
		return fmt.Errorf("write hardware section: %w", err)
	}
	return nil
}

// DisplayGPUName shortens NVML's name the way the reference reports show it:
// "NVIDIA GeForce RTX 3090" → "RTX 3090".
func DisplayGPUName(name string) string {
	s := strings.TrimPrefix(name, "NVIDIA ")
	return strings.TrimPrefix(s, "GeForce ")
}

// FormatGB rounds bytes to whole GiB, written "GB" as vendors and the reference reports
// do: 24 GiB of VRAM is "24 GB".
func FormatGB(b uint64) string {
	return fmt.Sprintf("%d GB", int(math.Round(float64(b)/(1<<30))))
}

func gpuNames(gpus []engine.GPUInfo) string {
	return sameOrList(gpus, func(g engine.GPUInfo) string {
		if g.Name == "" {
			return "unknown NVIDIA GPU"
		}
		return DisplayGPUName(g.Name)
	})
}

func gpuVRAM(gpus []engine.GPUInfo) string {
	return sameOrList(gpus, func(g engine.GPUInfo) string { return FormatGB(g.VRAMBytes) })
}

// sameOrList is "8 × v" when every GPU gives the same v, else "v1 + v2".
func sameOrList(gpus []engine.GPUInfo, f func(engine.GPUInfo) string) string {
	vals := make([]string, len(gpus))
	same := true
	for i, g := range gpus {
		vals[i] = f(g)
		same = same && vals[i] == vals[0]
	}
	if len(vals) == 1 {
		return vals[0]
	}
	if same {
		return fmt.Sprintf("%d × %s", len(vals), vals[0])
	}
	return strings.Join(vals, " + ")
}

type detailLine struct{ label, text string }

// groupDetails gives one line per run of consecutive GPUs with the same details.
func groupDetails(gpus []engine.GPUInfo) []detailLine {
	var out []detailLine
	for i := 0; i < len(gpus); {
		text := gpuDetails(gpus[i])
		j := i + 1
		for j < len(gpus) && gpuDetails(gpus[j]) == text {
			j++
		}
		label := fmt.Sprintf("GPU %d", gpus[i].Index)
		if j-i > 1 {
			label = fmt.Sprintf("GPU %d-%d", gpus[i].Index, gpus[j-1].Index)
		}
		if text == "" {
			text = "no details available"
		}
		out = append(out, detailLine{label, text})
		i = j
	}
	return out
}

// gpuDetails is "driver 570.86.15 · CUDA 12.8 · compute 8.6 · PCIe Gen 4 x16 ·
// power limit 350 W · memory 936 GB/s (384-bit, 9751 MHz)", leaving out
// what is unknown.
func gpuDetails(g engine.GPUInfo) string {
	var parts []string
	add := func(format string, args ...any) { parts = append(parts, fmt.Sprintf(format, args...)) }
	if g.DriverVersion != "" {
		add("driver %s", g.DriverVersion)
	}
	if g.CUDAVersion != "" {
		add("CUDA %s", g.CUDAVersion)
	}
	if g.ComputeCapability != "" {
		add("compute %s", g.ComputeCapability)
	}
	if g.PCIeGen > 0 && g.PCIeWidth > 0 {
		add("PCIe Gen %d x%d", g.PCIeGen, g.PCIeWidth)
	}
	if g.PowerLimitW > 0 {
		add("power limit %.0f W", g.PowerLimitW)
	}
	if g.PeakBandwidthGBs > 0 {
		add("memory %s GB/s (%d-bit, %d MHz)", thousands(int(math.Round(g.PeakBandwidthGBs))),
			g.MemoryBusWidthBits, g.MaxMemClockMHz)
	}
	if g.MIGEnabled {
		add("MIG on")
	}
	return strings.Join(parts, " · ")
}

// thousands writes n with commas, as the reference reports write "4,096 tokens".
func thousands(n int) string {
	s := strconv.Itoa(n)
	if n < 0 {
		return "-" + thousands(-n)
	}
	for i := len(s) - 3; i > 0; i -= 3 {
		s = s[:i] + "," + s[i:]
	}
	return s
}
