package launch

import (
	"cmp"
	"regexp"
	"strings"

	"speedmatrix/engine"
)

// FatalKind names a start-up failure that vLLM's log makes recognisable.
type FatalKind string

// Kinds of start-up failure.
const (
	FatalOutOfMemory       FatalKind = "out-of-memory"
	fatalNoKVCacheMemory   FatalKind = "no-kv-cache-memory"
	fatalKVCacheTooSmall   FatalKind = "kv-cache-too-small"
	fatalFreeMemory        FatalKind = "gpu-memory-in-use"
	fatalMaxModelLen       FatalKind = "max-model-len-too-long"
	fatalModelNotFound     FatalKind = "model-not-found"
	fatalGatedRepo         FatalKind = "gated-repo"
	fatalUnsupportedArch   FatalKind = "unsupported-architecture"
	fatalTrustRemoteCode   FatalKind = "trust-remote-code"
	fatalAddressInUse      FatalKind = "address-in-use"
	fatalNoGPU             FatalKind = "no-gpu"
	fatalDockerGPU         FatalKind = "docker-gpu"
	fatalContainerConflict FatalKind = "container-name-in-use"
	FatalNotInstalled      FatalKind = "not-installed" // the engine's Python package is missing
	fatalCPUMemory         FatalKind = "cpu-memory"    // vLLM's CPU build wants more RAM than is free
	fatalBadArgument       FatalKind = "bad-argument"  // vLLM's argparse refused the command line
)

// Fatal is a recognised start-up failure: what happened, what to change, and
// the log line that said so.
type Fatal struct {
	Kind    FatalKind
	Summary string // what happened
	Advice  string // what to change
	Line    string // the engine's own words
	Server  string // the engine's name in messages ("vLLM", "SGLang")
}

// Error is one line: summary, advice and the engine's line (shortened).
func (f Fatal) Error() string {
	line := engine.BoundText(strings.TrimSpace(f.Line), 300)
	return f.Summary + ": " + f.Advice + " (" + cmp.Or(f.Server, "vLLM") + ": " + line + ")"
}

type diagnosis struct {
	kind            FatalKind
	summary, advice string
	any             []string // the line contains any of these (case-sensitive)
	all             []string // and all of these
}

// vllmDiagnoses are vLLM's own failures, checked in order before
// sharedDiagnoses: more specific wordings come first.
var vllmDiagnoses = []diagnosis{
	{kind: fatalKVCacheTooSmall, summary: "the KV cache cannot hold one request of --max-model-len tokens",
		advice: "lower --max-model-len or raise --gpu-memory-utilization",
		any:    []string{"larger than the available KV cache memory", "larger than the maximum number of tokens that can be stored in KV cache"}},
	{kind: fatalNoKVCacheMemory, summary: "the model left no GPU memory for the KV cache",
		advice: "raise --gpu-memory-utilization, free GPU memory used by other processes, or use a smaller or quantized model or more GPUs (--tensor-parallel-size)",
		any:    []string{"No available memory for the cache blocks"}},
	{kind: fatalCPUMemory, summary: "this machine has less free memory than vLLM's CPU build was asked to take for the KV cache",
		advice: "lower --kv-cache-memory-bytes or VLLM_CPU_KVCACHE_SPACE, or stop processes that use memory",
		any:    []string{"is less than requested memory for kv"}},
	{kind: fatalCPUMemory, summary: "this machine has less free memory than vLLM's CPU build was asked to take",
		advice: "lower --gpu-memory-utilization (on the CPU it is the share of RAM vLLM takes), or size the KV cache with --kv-cache-memory-bytes",
		any:    []string{"less than desired CPU memory utilization"}},
	{kind: fatalFreeMemory, summary: "other processes already use the GPU memory vLLM was asked to take",
		advice: "lower --gpu-memory-utilization or stop the processes using the GPU",
		all:    []string{"Free memory on device", "less than desired GPU memory utilization"}},
	{kind: FatalOutOfMemory, summary: "the GPU ran out of memory",
		advice: "lower --gpu-memory-utilization (it leaves room for CUDA graphs and other processes), lower --max-model-len or --max-num-seqs, or use a quantized model or more GPUs (--tensor-parallel-size)",
		any:    []string{"CUDA out of memory", "OutOfMemoryError", "HIP out of memory"}},
	{kind: fatalMaxModelLen, summary: "--max-model-len is longer than the model supports",
		advice: "lower --max-model-len to the model's maximum (or set VLLM_ALLOW_LONG_MAX_MODEL_LEN=1 in env if you know it handles more)",
		all:    []string{"max_model_len", "greater than the derived max_model_len"}},
	{kind: fatalUnsupportedArch, summary: "this vLLM does not support the model's architecture",
		advice: "upgrade vLLM (or the docker image tag) or choose a model vLLM supports",
		any:    []string{"are not supported for now", "is not supported in-tree anymore", "is not supported anymore"}},
	{kind: FatalNotInstalled, summary: "the Python of the executable has no vllm package",
		advice: "install vLLM in that environment (pip install vllm) or set executable to the bin/vllm of a venv that has it",
		any:    []string{"No module named 'vllm'", "No module named vllm"}},
	{kind: fatalBadArgument, summary: "vLLM refused its command line",
		advice: "fix the server.toml key, or the extra_args entry, that gives it this flag (vllm serve --help lists what this vLLM takes)",
		any:    []string{"serve: error: argument --", "serve: error: unrecognized arguments:"}},
	{kind: fatalNoGPU, summary: "vLLM found no usable GPU",
		advice: "check nvidia-smi and the NVIDIA driver (and CUDA_VISIBLE_DEVICES in env); without a GPU, install vLLM's CPU build and set device = \"cpu\"",
		any: []string{"No CUDA GPUs are available", "Failed to infer device type", "CUDA driver version is insufficient",
			"Found no NVIDIA driver"}},
}

// sharedDiagnoses are failures every engine reports in the same words (those
// of Hugging Face, the network, Docker), checked in order: more specific
// wordings come first (a RepositoryNotFoundError also says "401 Client
// Error").
var sharedDiagnoses = []diagnosis{
	{kind: fatalModelNotFound, summary: "the model was not found",
		advice: "check the model id (ORG/NAME on huggingface.co) or the local path; for a private repository set HF_TOKEN in env",
		any: []string{"RepositoryNotFoundError", "Repository Not Found", "Invalid repository ID or local directory",
			"is not a local folder and is not a valid model identifier", "LocalEntryNotFoundError"}},
	{kind: fatalGatedRepo, summary: "the model is gated on Hugging Face and this server may not download it",
		advice: "accept the model's license on huggingface.co and set HF_TOKEN in env to a token with access",
		any: []string{"GatedRepoError", "gated repo", "is restricted. You must have access",
			"401 Client Error", "403 Client Error", "Invalid credentials in Authorization header"}},
	{kind: fatalTrustRemoteCode, summary: "the model needs its own code to load",
		advice: "set trust_remote_code = true if you trust the model's repository",
		any: []string{"pass the argument `trust_remote_code=True`", "contains custom code which must be executed",
			"requires you to execute the configuration file in that repo"}},
	{kind: fatalAddressInUse, summary: "the port is already in use",
		advice: "choose another port or stop the server that holds it",
		any:    []string{"Address already in use", "address already in use", "port is already allocated"}},
	{kind: fatalContainerConflict, summary: "a docker container with the server's name already exists",
		advice: "remove the old container (docker rm -f with the name docker gives, e.g. speedmatrix-vllm-8000) or choose another port",
		any:    []string{"is already in use by container"}},
	{kind: fatalDockerGPU, summary: "docker cannot give the container a GPU",
		advice: "install the NVIDIA Container Toolkit and restart docker, or use runner = \"exec\"",
		any:    []string{"could not select device driver", "nvidia-container-cli: initialization error"}},
}

var (
	estimatedLenRE = regexp.MustCompile(`estimated maximum model length is (\d+)`)
	// logPrefixRE matches vLLM's "(EngineCore_DP0 pid=7) ERROR 11-30 07:52:41 [core.py:1] ".
	logPrefixRE = regexp.MustCompile(`^\s*(?:\([\w.-]+ pid=\d+\)\s+)?(?:[A-Z]+\s+[\d-]+(?:\s+[\d:.]+)?\s+\[[^\]]*\]\s+)?`)
)

// diagnose recognises a fatal start-up error in one line of fl's log.
func (fl *flavor) diagnose(line string) (Fatal, bool) {
	if d, ok := firstMatch(line, fl.diagnoses); ok {
		return fl.fatal(d, line), true
	}
	if d, ok := firstMatch(line, sharedDiagnoses); ok {
		return fl.fatal(d, line), true
	}
	return Fatal{}, false
}

func firstMatch(line string, ds []diagnosis) (diagnosis, bool) {
	for _, d := range ds {
		if matchAny(line, d.any) && matchAll(line, d.all) {
			return d, true
		}
	}
	return diagnosis{}, false
}

// fatal is d as line showed it in fl's log.
func (fl *flavor) fatal(d diagnosis, line string) Fatal {
	f := Fatal{Kind: d.kind, Summary: d.summary, Advice: d.advice, Server: fl.title(),
		Line: strings.TrimSpace(fl.logPrefix.ReplaceAllString(line, ""))}
	if m := estimatedLenRE.FindStringSubmatch(line); m != nil {
		f.Advice += " (vLLM estimates that --max-model-len " + m[1] + " fits)"
	}
	return f
}

func matchAny(line string, subs []string) bool {
	if len(subs) == 0 {
		return true
	}
	for _, s := range subs {
		if strings.Contains(line, s) {
			return true
		}
	}
	return false
}

func matchAll(line string, subs []string) bool {
	for _, s := range subs {
		if !strings.Contains(line, s) {
			return false
		}
	}
	return true
}
