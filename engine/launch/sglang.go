package launch

import (
	"fmt"
	"regexp"
	"speedmatrix/engine/servers"
	"strconv"
	"strings"
)

// SGLang's defaults.
const (
	defaultSGLangExecutable  = "python3"
	defaultSGLangDockerImage = "lmsysorg/sglang:latest"
	// sgLangAPIKeyEnv carries the API key to SGLang (see sglangLauncher).
	sgLangAPIKeyEnv = "SGLANG_API_KEY"
)

// sglangLauncher is the Python that runs `python3 -m sglang.launch_server`
// with the API key. SGLang reads its key only from --api-key (its
// server_args has no environment fallback; sgl-project/sglang#36346 asks
// for one), and an argument is readable by every user in /proc/PID/cmdline.
// So the key travels in SGLANG_API_KEY, and this program appends it to
// sys.argv in the interpreter's memory: SGLang's argument parser sees
// --api-key, the process list does not. It removes the variable, so that
// SGLang's own processes do not inherit it. runpy with alter_sys is what
// `python -m` does, so SGLang's spawned processes import the module as
// they would under -m.
const sglangLauncher = `import os,runpy,sys;k=os.environ.pop("` + sgLangAPIKeyEnv + `","");` +
	`sys.argv+=["--api-key",k] if k else [];` +
	`runpy.run_module("sglang.launch_server",run_name="__main__",alter_sys=True)`

func init() { register(&sglangFlavor) }

// sglangFlavor is `python3 -m sglang.launch_server`.
var sglangFlavor = flavor{
	name: servers.SGLang, repository: "github.com/sgl-project/sglang",
	executable: defaultSGLangExecutable, venvProgram: "python3", install: `pip install "sglang[all]"`,
	image: defaultSGLangDockerImage, keyEnv: sgLangAPIKeyEnv, args: sglangArgs,
	entry: sglangEntry,
	// The image has no entrypoint: the command is the whole python3 line.
	inImage: func(run bool, args []string) []string {
		return append(append([]string{"python3"}, sglangEntry(run)...), args...)
	},
	facts: addSGLangFacts, logPrefix: sglangPrefixRE, diagnoses: sglangDiagnoses, readyLine: true,
	versionPaths: []string{"/version", "/get_server_info", "/server_info"},
	problems:     sglangProblems,
}

// sglangEntry is what python3 runs: the launcher (run), or the module as
// SGLang's docs and Display write it.
func sglangEntry(run bool) []string {
	if run {
		return []string{"-c", sglangLauncher}
	}
	return []string{"-m", "sglang.launch_server"}
}

// sglangArgs are SGLang's arguments for cfg, as its server-arguments page
// names them. --enable-metrics is always on: the idle check, the drain
// barrier and the cross-check read SGLang's /metrics.
func sglangArgs(cfg ServerConfig, listenHost, key string) []string {
	var a flags
	str, num := a.str, a.num
	str("--model-path", cfg.Model)
	str("--served-model-name", cfg.ServedModelName)
	str("--revision", cfg.Revision)
	if cfg.TrustRemoteCode {
		a.add("--trust-remote-code")
	}
	num("--tp", cfg.TensorParallelSize)
	num("--pp-size", cfg.PipelineParallelSize)
	num("--dp", cfg.DataParallelSize)
	if cfg.EnableExpertParallel {
		num("--ep-size", cfg.TensorParallelSize)
	}
	str("--reasoning-parser", cfg.ReasoningParser)
	str("--tool-call-parser", cfg.ToolCallParser)
	num("--context-length", cfg.MaxModelLen)
	if cfg.GPUMemoryUtilization > 0 {
		a.add("--mem-fraction-static", fraction(cfg.GPUMemoryUtilization))
	}
	num("--max-running-requests", cfg.MaxNumSeqs)
	str("--quantization", cfg.Quantization)
	str("--dtype", cfg.DType)
	str("--kv-cache-dtype", cfg.KVCacheDType)
	if p := cfg.EnablePrefixCaching; p != nil && !*p {
		a.add("--disable-radix-cache") // SGLang's radix cache is on by default
	}
	str("--attention-backend", cfg.AttentionBackend)
	str("--host", listenHost)
	if cfg.Port > 0 {
		a.add("--port", strconv.Itoa(cfg.Port))
	}
	str("--api-key", key)
	a.add("--enable-metrics")
	return append(a, cfg.ExtraArgs...)
}

// sglangProblems are the settings of cfg SGLang cannot honour beyond the
// keys it has no flag for (servers.Entry.Unsupported).
func sglangProblems(cfg ServerConfig) []error {
	var errs []error
	if cfg.EnableExpertParallel && cfg.TensorParallelSize < 2 {
		errs = append(errs, fmt.Errorf("enable_expert_parallel spreads the experts over the tensor_parallel_size GPUs (SGLang's --ep-size): set tensor_parallel_size to 2 or more"))
	}
	return errs
}

var (
	// sglangPrefixRE matches "[2026-05-15 08:40:32 TP0] ", "[2026-08-20 DP1 TP0 EP0] "
	// and "[2026-05-15 09:09:21] INFO server_args.py:1217: ".
	sglangPrefixRE  = regexp.MustCompile(`^\s*\[\d{4}-\d\d-\d\d(?: [\d:]+)?(?: [A-Z]+\d+)*\]\s*(?:[A-Z]+ [\w.]+:\d+: )?`)
	sglangDPRE      = regexp.MustCompile(`^\s*\[[^\]]*\bDP(\d+)\b`)
	sglangTokensRE  = regexp.MustCompile(`\bmax_total_num_tokens=(\d+)`)
	sglangContextRE = regexp.MustCompile(`\bcontext_len=(\d+)`)
	sglangRunningRE = regexp.MustCompile(`\bmax_running_requests=(\d+)`)
	sglangWeightsRE = regexp.MustCompile(`Load weight end\..*?\bmem usage=([0-9.]+) GB`)
	sglangDTypeRE   = regexp.MustCompile(`Load weight end\..*?\bdtype=(?:torch\.)?([A-Za-z0-9_]+)`)
	sglangQuantRE   = regexp.MustCompile(`Load weight end\..*?\bquant=([A-Za-z0-9_]+)`)
	// "KV Cache is allocated. #tokens: 60000, K size: 2.1 GB, V size: 2.1 GB"
	// (one GPU's share), or "KV size: 0.13 GB" for MLA models.
	sglangKVMemRE = regexp.MustCompile(`KV Cache is allocated\..*?(?:K size: ([0-9.]+) GB, V size: ([0-9.]+) GB|KV size: ([0-9.]+) GB)`)
)

// addSGLangFacts takes in what a line of SGLang's log says. SGLang's "GB"
// are GiB (it divides by 1 << 30).
func addSGLangFacts(f *LogFacts, line string) {
	if strings.Contains(line, "max_total_num_tokens=") {
		f.addSGLangTokens(line)
	}
	if strings.Contains(line, "Load weight end.") {
		f.WeightGiB = gibOf(sglangWeightsRE, line, f.WeightGiB)
		if m := sglangDTypeRE.FindStringSubmatch(line); m != nil && f.DType == "" {
			f.DType = m[1]
		}
		if m := sglangQuantRE.FindStringSubmatch(line); m != nil && f.Quantization == "" && m[1] != "None" {
			f.Quantization = m[1]
		}
	}
	if strings.Contains(line, "KV Cache is allocated.") {
		if m := sglangKVMemRE.FindStringSubmatch(line); m != nil {
			k, _ := strconv.ParseFloat(m[1], 64)
			v, _ := strconv.ParseFloat(m[2], 64)
			kv, _ := strconv.ParseFloat(m[3], 64)
			if sum := k + v + kv; sum > 0 {
				f.KVCacheGiB = sum
			}
		}
	}
	if strings.Contains(line, "The server is fired up and ready to roll!") {
		f.Started = true
	}
}

// Bounds of what a summary line may say, so that a garbled one cannot
// overflow the product.
const (
	maxSGLangTokens  = 1 << 40
	maxSGLangDPRanks = 1 << 12
)

// addSGLangTokens takes in the scheduler's summary line, which every rank
// prints: "[… TP0] max_total_num_tokens=3080960, …, max_running_requests=256,
// context_len=1048576, …". The TP ranks of one data-parallel rank share one
// pool; each DP rank (DP0, DP1, … in the prefix) has a pool of its own, all
// of the same size, so the server holds the pool times the DP ranks seen.
func (f *LogFacts) addSGLangTokens(line string) {
	m := sglangTokensRE.FindStringSubmatch(line)
	if m == nil {
		return
	}
	n, err := strconv.Atoi(m[1])
	if err != nil || n > maxSGLangTokens {
		return
	}
	ranks := 1
	if d := sglangDPRE.FindStringSubmatch(line); d != nil {
		if r, err := strconv.Atoi(d[1]); err == nil && r < maxSGLangDPRanks {
			ranks = r + 1
		}
	}
	f.dpRanks = max(f.dpRanks, ranks)
	f.KVCacheTokens = n * f.dpRanks
	if c := sglangContextRE.FindStringSubmatch(line); c != nil {
		f.ConcurrencyTokens, _ = strconv.Atoi(c[1])
	}
	if r := sglangRunningRE.FindStringSubmatch(line); r != nil {
		f.MaxRunningRequests, _ = strconv.Atoi(r[1])
	}
	if f.ConcurrencyTokens > 0 {
		f.MaxConcurrency = float64(f.KVCacheTokens) / float64(f.ConcurrencyTokens)
	}
}

// sglangDiagnoses are SGLang's own start-up failures, in server.toml's
// words with SGLang's flag beside each key.
var sglangDiagnoses = []diagnosis{
	{kind: FatalNotInstalled, summary: "the Python of the executable has no sglang package",
		advice: `install SGLang in that environment (pip install "sglang[all]") or set executable to the bin/python3 of a venv that has it`,
		any:    []string{"No module named 'sglang'", "No module named sglang"}},
	{kind: fatalNoKVCacheMemory, summary: "the model left no GPU memory for the KV cache",
		advice: "raise gpu_memory_utilization (--mem-fraction-static), free the GPU of other processes (see nvidia-smi), or use more GPUs (tensor_parallel_size)",
		any:    []string{"Not enough memory. Please try to increase --mem-fraction-static"}},
	{kind: FatalOutOfMemory, summary: "the GPU ran out of memory",
		advice: "lower gpu_memory_utilization (--mem-fraction-static) or max_model_len (--context-length), or free the GPU of other processes (see nvidia-smi)",
		any:    []string{"CUDA out of memory", "OutOfMemoryError", "HIP out of memory"}},
	{kind: fatalMaxModelLen, summary: "max_model_len (--context-length) is longer than the model supports",
		advice: "lower max_model_len to the model's maximum (or set SGLANG_ALLOW_OVERWRITE_LONGER_CONTEXT_LEN=1 in env if you know it handles more)",
		all:    []string{"context_length", "is greater than the derived context_length"}},
	{kind: fatalNoGPU, summary: "SGLang found no usable GPU",
		advice: "check nvidia-smi and the NVIDIA driver (and CUDA_VISIBLE_DEVICES in env)",
		any:    []string{"No CUDA GPUs are available", "Found no NVIDIA driver", "CUDA driver version is insufficient"}},
}
