package hw

import (
	"bufio"
	"os"
	"path/filepath"
	"regexp"
	"runtime"
	"strconv"
	"strings"

	"github.com/shirou/gopsutil/v4/cpu"
	"github.com/shirou/gopsutil/v4/host"
	"github.com/shirou/gopsutil/v4/mem"
)

// detectHost fills the host part of Hardware (CPU, RAM, OS, kernel) and
// returns a note for each part it could not read.
func detectHost() (Hardware, []string) {
	var h Hardware
	var notes []string
	if infos, err := cpu.Info(); err == nil && len(infos) > 0 {
		h.CPU = cleanCPUModel(infos[0].ModelName)
	} else {
		notes = append(notes, "CPU model unavailable")
	}
	if n, err := cpu.Counts(false); err == nil {
		h.CPUCores = n
	}
	if n, err := cpu.Counts(true); err == nil {
		h.CPUThreads = n
	}
	if h.CPUCores == 0 {
		h.CPUCores = h.CPUThreads
	}
	if b, ok := installedRAMBytes("/sys/devices/system/memory"); ok {
		h.RAMBytes = b
	} else if vm, err := mem.VirtualMemory(); err == nil {
		h.RAMBytes = vm.Total
	} else {
		notes = append(notes, "RAM size unavailable")
	}
	h.OS = runtime.GOOS
	if b, err := os.ReadFile("/etc/os-release"); err == nil {
		if name := parseOSRelease(string(b)); name != "" {
			h.OS = name
		}
	}
	if k, err := host.KernelVersion(); err == nil {
		h.Kernel = k
	}
	h.Hostname, _ = os.Hostname()
	h.Uname = uname()
	return h, notes
}

// parseOSRelease returns the distribution's PRETTY_NAME from the text of
// /etc/os-release ("Ubuntu 24.04.5 LTS"), else NAME and VERSION_ID, else "".
func parseOSRelease(text string) string {
	vars := map[string]string{}
	sc := bufio.NewScanner(strings.NewReader(text))
	for sc.Scan() {
		key, val, ok := strings.Cut(strings.TrimSpace(sc.Text()), "=")
		if !ok || strings.HasPrefix(key, "#") {
			continue
		}
		if u, err := strconv.Unquote(val); err == nil {
			val = u
		} else {
			val = strings.Trim(val, `'"`)
		}
		vars[key] = val
	}
	if p := vars["PRETTY_NAME"]; p != "" {
		return p
	}
	return strings.TrimSpace(vars["NAME"] + " " + vars["VERSION_ID"])
}

var (
	cpuTrademarks = strings.NewReplacer("(R)", "", "(r)", "", "(TM)", "", "(tm)", "")
	// "12-Core Processor", "Processor", "CPU @ 3.00GHz", "with Radeon Graphics".
	cpuSuffix = regexp.MustCompile(`(?i)(\s+\d+-core)?(\s+processor)?(\s+cpu)?(\s+@\s*[\d.]+\s*ghz)?(\s+(with|w/)\s+radeon.*)?\s*$`)
	spaces    = regexp.MustCompile(`\s+`)
)

// cleanCPUModel shortens a CPU model string the way the reference reports show it:
// "AMD Ryzen 9 7900X 12-Core Processor" → "AMD Ryzen 9 7900X",
// "Intel(R) Core(TM) i9-13900K" → "Intel Core i9-13900K".
func cleanCPUModel(model string) string {
	s := cpuTrademarks.Replace(model)
	s = spaces.ReplaceAllString(strings.TrimSpace(s), " ")
	if short := strings.TrimSpace(cpuSuffix.ReplaceAllString(s, "")); short != "" {
		return short
	}
	return s
}

// installedRAMBytes counts the online memory blocks under dir
// (/sys/devices/system/memory). Unlike MemTotal, which leaves out what the
// firmware and kernel reserve, this is the installed size a user knows
// ("32 GB", not "31.3 GB").
func installedRAMBytes(dir string) (uint64, bool) {
	raw, err := os.ReadFile(filepath.Join(dir, "block_size_bytes"))
	if err != nil {
		return 0, false
	}
	blockBytes, err := strconv.ParseUint(strings.TrimSpace(string(raw)), 16, 64)
	if err != nil || blockBytes == 0 {
		return 0, false
	}
	blocks, err := filepath.Glob(filepath.Join(dir, "memory[0-9]*"))
	if err != nil {
		return 0, false
	}
	var online uint64
	for _, b := range blocks {
		state, err := os.ReadFile(filepath.Join(b, "state"))
		if err == nil && strings.TrimSpace(string(state)) == "online" {
			online++
		}
	}
	if online == 0 {
		return 0, false
	}
	return online * blockBytes, true
}
