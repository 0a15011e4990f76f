package report

import (
	"net"
	"net/url"
	"regexp"
	"strconv"
	"strings"
	"time"

	"speedmatrix/engine"
)

// libLog is what the tool's event log says that its other fields don't.
// Each line is "HH:MM:SS message" (add_event in llm_decode_bench.py).
type libLog struct {
	start         time.Duration // clock time of the first line; -1 when none
	engine        string        // "vLLM", from "startup engine vLLM 0.32.0 …"
	version       string
	maxModelLen   int
	kvCacheTokens int
	skipped       map[[2]int]bool // {context, concurrency} skipped by hand
}

var (
	libLine        = regexp.MustCompile(`^(\d\d):(\d\d):(\d\d) (.*)$`)
	libServerLine  = regexp.MustCompile(`^startup engine (\S+) (\d\S*)`)
	libContextLine = regexp.MustCompile(`^startup model context length: ([\d,]+) tokens`)
	libKVLine      = regexp.MustCompile(`^startup KV cache budget from \S+ metrics: ([\d,]+) tokens`)
	libSkipLine    = regexp.MustCompile(`^cell skipped C=(\d+) ctx=(\S+)`)
)

// parseLIBLog reads the lines it knows and ignores the rest.
func parseLIBLog(lines []string) libLog {
	l := libLog{start: -1, skipped: map[[2]int]bool{}}
	for _, line := range lines {
		m := libLine.FindStringSubmatch(strings.TrimSpace(line))
		if m == nil {
			continue
		}
		if l.start < 0 {
			h, _ := strconv.Atoi(m[1])
			mi, _ := strconv.Atoi(m[2])
			s, _ := strconv.Atoi(m[3])
			l.start = time.Duration(h)*time.Hour + time.Duration(mi)*time.Minute + time.Duration(s)*time.Second
		}
		msg := m[4]
		if e := libServerLine.FindStringSubmatch(msg); e != nil {
			l.engine, l.version = e[1], e[2]
		}
		if c := libContextLine.FindStringSubmatch(msg); c != nil {
			l.maxModelLen = atoiCommas(c[1])
		}
		if k := libKVLine.FindStringSubmatch(msg); k != nil {
			l.kvCacheTokens = atoiCommas(k[1])
		}
		if sk := libSkipLine.FindStringSubmatch(msg); sk != nil {
			conc, _ := strconv.Atoi(sk[1])
			if ctx, ok := libTokens(sk[2]); ok {
				l.skipped[[2]int{ctx, conc}] = true
			}
		}
	}
	return l
}

// startOn is when the run started, from the first line's clock time on the
// day it finished (the day before when the clock time is later).
func (l libLog) startOn(finished time.Time) time.Time {
	if l.start < 0 {
		return time.Time{}
	}
	y, mo, d := finished.Date()
	t := time.Date(y, mo, d, 0, 0, 0, 0, finished.Location()).Add(l.start)
	if t.After(finished) {
		t = t.AddDate(0, 0, -1)
	}
	return t
}

// libTokens parses the tool's context labels: "0", "512", "2k" (K = 1,024).
func libTokens(s string) (int, bool) {
	s = strings.ToLower(s)
	if k, ok := strings.CutSuffix(s, "k"); ok {
		f, err := strconv.ParseFloat(k, 64)
		return int(f * engine.K), err == nil
	}
	n, err := strconv.Atoi(s)
	return n, err == nil
}

func atoiCommas(s string) int {
	n, _ := strconv.Atoi(strings.ReplaceAll(s, ",", ""))
	return n
}

func libServer(f libFile, log libLog) engine.ServerInfo {
	e := engine.ServerInfo{Name: f.Metadata.Engine, Version: log.version, MaxModelLen: log.maxModelLen}
	if f.StartupDiagnostics.Args.KVBudget == 0 {
		e.KVCacheTokens = log.kvCacheTokens // read from the server, not set by hand
	}
	return e
}

// libHardware is the machine the tool ran on, from its start-up
// diagnostics, when the server ran there too; otherwise only a note.
func libHardware(f libFile) engine.HardwareInfo {
	d := f.StartupDiagnostics
	host := libHost(libServerURL(f))
	if host == "" {
		return engine.HardwareInfo{Note: "The " + libTool + " file does not say where the server ran: its hardware is unknown."}
	}
	if !isLoopback(host) {
		return engine.HardwareInfo{Note: "The server ran at " + host + ", away from the machine " + libTool + " ran on: its hardware is unknown."}
	}
	var h engine.HardwareInfo
	if fields := strings.Fields(d.Uname); len(fields) >= 3 {
		h.OS, h.Kernel = fields[0], fields[2]
	}
	if q := d.NvidiaSMIQuery; q != nil && q.ReturnCode == 0 {
		h.GPUs = libGPUs(q.Stdout)
	}
	switch {
	case len(h.GPUs) > 0:
		h.Type = "Discrete GPU"
		h.Note = libTool + " recorded each GPU's name, driver, PCIe link and power limit, not its memory."
	case d.NvidiaSMIError != "":
		h.Note = libTool + " could not describe the GPUs: " + d.NvidiaSMIError + "."
	default:
		h.Note = libTool + " did not describe the GPUs."
	}
	return h
}

// libGPUs parses nvidia-smi's CSV (no header, no units) of
// index,name,driver_version,pci.bus_id,pcie.link.gen.current,pcie.link.width.current,power.limit.
func libGPUs(csv string) []engine.GPUInfo {
	var gpus []engine.GPUInfo
	for _, line := range strings.Split(csv, "\n") {
		p := strings.Split(line, ",")
		if len(p) < 7 {
			continue
		}
		for i := range p {
			p[i] = strings.TrimSpace(p[i])
		}
		idx, err := strconv.Atoi(p[0])
		if err != nil {
			continue
		}
		g := engine.GPUInfo{Index: idx, Name: p[1], DriverVersion: p[2]}
		g.PCIeGen, _ = strconv.Atoi(p[4])
		g.PCIeWidth, _ = strconv.Atoi(p[5])
		g.PowerLimitW, _ = strconv.ParseFloat(p[6], 64)
		gpus = append(gpus, g)
	}
	return gpus
}

func libHost(server string) string {
	if u, err := url.Parse(server); err == nil && u.Hostname() != "" {
		return u.Hostname()
	}
	return server
}

func isLoopback(host string) bool {
	if host == "localhost" {
		return true
	}
	ip := net.ParseIP(host)
	return ip != nil && ip.IsLoopback()
}
