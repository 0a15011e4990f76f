package launch

import (
	"regexp"
	"strconv"
	"strings"

	"speedmatrix/engine"
)

// LogFacts is what the server (vLLM, SGLang) said about itself while
// starting, gathered line by line from its log.
type LogFacts struct {
	Version string // e.g. "0.30.1rc1.dev452+g73a583112"
	Commit  string // from a "+g<sha>" version suffix
	// KVCacheTokens is from "GPU KV cache size: N tokens" (or CPU, XPU,
	// TPU: the device vLLM keeps the cache on).
	KVCacheTokens int
	// Platform is the platform vLLM runs on, from "Automatically detected
	// platform cpu." or the device of the KV cache size line: "cpu",
	// "cuda", "xpu", "tpu"; "" when the log has not said.
	Platform string
	// WeightGiB is from "Model loading took X GiB" (the weights on the
	// GPU), KVCacheGiB from "Available KV cache memory: Y GiB"; the
	// roofline's weight bytes and KV bytes per token (Y ÷ KVCacheTokens).
	WeightGiB, KVCacheGiB float64
	// MaxConcurrency is from "Maximum concurrency for N tokens per request: Xx";
	// ConcurrencyTokens is that N (vLLM's max model length).
	MaxConcurrency    float64
	ConcurrencyTokens int
	Quantization      string // from the engine config line; "" when None
	DType             string // from the engine config line, e.g. "bfloat16"
	// Started is set by vLLM's "Application startup complete" and SGLang's
	// "The server is fired up and ready to roll!".
	Started bool
	// MaxRunningRequests is SGLang's max_running_requests (its limit on
	// concurrent requests, vLLM's max_num_seqs).
	MaxRunningRequests int
	// Fatal is the first start-up error recognised in the log.
	Fatal *Fatal
	// LooksLikeServer is set by a line in the engine's log format or
	// naming it: a program that exits without one is not that engine.
	LooksLikeServer bool

	dpRanks int // SGLang's data-parallel ranks seen so far
}

var (
	ansiRE    = regexp.MustCompile(`\x1b\[[0-9;?]*[A-Za-z]`)
	versionRE = regexp.MustCompile(`(?:vLLM (?:API )?server version|vLLM version|LLM engine \(v|█\s+version)\s*([0-9][0-9A-Za-z.+\-]*)`)
	commitRE  = regexp.MustCompile(`\+g([0-9a-f]{7,40})`)
	// vLLM names the device the cache is on ("GPU" for CUDA, else the
	// device type in capitals), with " + host" for a hierarchical cache.
	kvRE       = regexp.MustCompile(`(?:\b(GPU|CPU|XPU|TPU|HPU)(?: \+ host)? )?KV cache size:\s*([0-9][0-9,]*)\s*tokens`)
	platformRE = regexp.MustCompile(`Automatically detected platform (\w+)`)
	concRE     = regexp.MustCompile(`Maximum (?:[A-Za-z ]+ )?concurrency for\s*([0-9][0-9,]*)\s*tokens per request:\s*([0-9][0-9.,]*)x`)
	quantRE    = regexp.MustCompile(`\bquantization=([^,\s]+)`)
	dtypeRE    = regexp.MustCompile(`\bdtype=(?:torch\.)?([A-Za-z0-9_]+)`)
	// vLLM has worded it "took %.4f GiB and …", "took %s GiB and …" and
	// "took %s GiB memory and …".
	loadRE  = regexp.MustCompile(`Model loading took\s*([0-9][0-9.]*)\s*GiB`)
	kvMemRE = regexp.MustCompile(`Available KV cache memory:\s*([0-9][0-9.]*)\s*GiB`)
)

// Add updates f from one line of vLLM's log. Earlier facts win over later
// ones, except for the KV cache figures, which vLLM prints once per engine:
// the last wins.
func (f *LogFacts) Add(line string) { f.add(&vllmFlavor, line) }

// add updates f from one line of the log of fl's engine.
func (f *LogFacts) add(fl *flavor, line string) {
	if strings.IndexByte(line, 0x1b) >= 0 {
		line = ansiRE.ReplaceAllString(line, "")
	}
	fl.facts(f, line)
	for _, s := range []*string{&f.Version, &f.Commit, &f.Platform, &f.Quantization, &f.DType} {
		*s = engine.BoundName(*s) // a line may be 64 KB; these are shown and saved
	}
	if !f.LooksLikeServer {
		f.LooksLikeServer = fl.looksLike(line)
	}
	if f.Fatal == nil {
		if d, ok := fl.diagnose(line); ok {
			f.Fatal = &d
		}
	}
}

// addVLLMFacts takes in what a line of vLLM's log says.
func addVLLMFacts(f *LogFacts, line string) {
	if f.Version == "" && (strings.Contains(line, "version") || strings.Contains(line, "LLM engine")) {
		if m := versionRE.FindStringSubmatch(line); m != nil {
			f.Version = strings.TrimRight(m[1], ".-+")
			f.Commit = commitFromVersion(f.Version)
		}
	}
	if strings.Contains(line, "KV cache size") {
		if m := kvRE.FindStringSubmatch(line); m != nil {
			if n, ok := parseCommaInt(m[2]); ok {
				f.KVCacheTokens = n
			}
			if f.Platform == "" && m[1] != "" {
				f.Platform = kvPlatform(m[1])
			}
		}
	}
	if f.Platform == "" && strings.Contains(line, "detected platform") {
		if m := platformRE.FindStringSubmatch(line); m != nil {
			f.Platform = strings.ToLower(m[1])
		}
	}
	if strings.Contains(line, "Model loading took") {
		f.WeightGiB = gibOf(loadRE, line, f.WeightGiB)
	}
	if strings.Contains(line, "KV cache memory") {
		f.KVCacheGiB = gibOf(kvMemRE, line, f.KVCacheGiB)
	}
	if strings.Contains(line, "concurrency for") {
		f.addConcurrency(line)
	}
	if strings.Contains(line, "with config:") {
		if m := quantRE.FindStringSubmatch(line); m != nil && f.Quantization == "" && m[1] != "None" {
			f.Quantization = strings.Trim(m[1], `'"`)
		}
		if m := dtypeRE.FindStringSubmatch(line); m != nil && f.DType == "" {
			f.DType = m[1]
		}
	}
	if strings.Contains(line, "Application startup complete") {
		f.Started = true
	}
}

func (f *LogFacts) addConcurrency(line string) {
	m := concRE.FindStringSubmatch(line)
	if m == nil {
		return
	}
	n, ok := parseCommaInt(m[1])
	x, err := strconv.ParseFloat(strings.ReplaceAll(m[2], ",", ""), 64)
	if ok && err == nil {
		f.ConcurrencyTokens, f.MaxConcurrency = n, x
	}
}

// kvPlatform is the platform of the device a KV cache size line names:
// vLLM writes "GPU" for CUDA's, the device type in capitals for the others.
func kvPlatform(device string) string {
	if device == "GPU" {
		return "cuda"
	}
	return strings.ToLower(device)
}

// gibOf is the GiB figure re finds in line, else old.
func gibOf(re *regexp.Regexp, line string, old float64) float64 {
	if m := re.FindStringSubmatch(line); m != nil {
		if x, err := strconv.ParseFloat(m[1], 64); err == nil && x > 0 {
			return x
		}
	}
	return old
}

// commitFromVersion returns the git commit in a development version such as
// "0.30.1rc1.dev452+g73a583112" ("73a583112"), or "" when there is none.
func commitFromVersion(version string) string {
	if m := commitRE.FindStringSubmatch(version); m != nil {
		return m[1]
	}
	return ""
}

// parseCommaInt parses "1,234,567".
func parseCommaInt(s string) (int, bool) {
	n, err := strconv.Atoi(strings.ReplaceAll(s, ",", ""))
	return n, err == nil && n >= 0
}
