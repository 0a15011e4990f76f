package launch

import (
	"errors"
	"fmt"
	"strings"
	"testing"
)

var factTests = []struct {
	name string
	line string
	want LogFacts
}{
	{"api server version", "(APIServer pid=312) INFO 11-30 07:41:40 [api_server.py:1839] vLLM API server version 0.30.1rc1.dev452+g73a583112",
		LogFacts{Version: "0.30.1rc1.dev452+g73a583112", Commit: "73a583112"}},
	{"server version and model", "INFO 11-30 07:41:40 [utils.py:233] vLLM server version 0.11.0, serving model Qwen/Qwen3-8B",
		LogFacts{Version: "0.11.0"}},
	{"logo with colours", "(APIServer pid=9) INFO 11-30 [utils.py:1]  \x1b[33m▄▄\x1b[0m \x1b[34m▄█\x1b[0m \x1b[97m█     █     █ ▀▄▀ █\x1b[0m  version \x1b[97m0.32.0\x1b[0m",
		LogFacts{Version: "0.32.0"}},
	{"engine config", "(EngineCore_DP0 pid=77) INFO 11-30 [core.py:77] Initializing a V1 LLM engine (v0.11.1.dev0+gb8b302cde.d20251203) with config: " +
		"model='RedHatAI/gemma-4-26B-A4B-it-NVFP4', dtype=torch.bfloat16, max_seq_len=262144, kv_cache_dtype=auto, quantization=compressed-tensors, enforce_eager=False",
		LogFacts{Version: "0.11.1.dev0+gb8b302cde.d20251203", Commit: "b8b302cde", Quantization: "compressed-tensors", DType: "bfloat16"}},
	{"engine config unquantized", "Initializing a V1 LLM engine (v0.9.2) with config: model='m', dtype=torch.float16, quantization=None, kv_cache_dtype=fp8",
		LogFacts{Version: "0.9.2", DType: "float16"}},
	{"kv cache size", "(EngineCore_DP0 pid=77) INFO 11-30 07:42:10 [kv_cache_utils.py:1087] GPU KV cache size: 1,234,567 tokens",
		LogFacts{KVCacheTokens: 1234567, Platform: "cuda"}},
	{"kv cache size small", "INFO [kv_cache_utils.py:1] GPU KV cache size: 880 tokens", LogFacts{KVCacheTokens: 880, Platform: "cuda"}},
	// vLLM 0.30's CPU build, as a public report of it quotes the line.
	{"cpu kv cache size", "(EngineCore_DP0 pid=3120) INFO 12-01 10:02:11 [kv_cache_utils.py:1291] CPU KV cache size: 21,760 tokens, Maximum concurrency for 2,048 tokens per request: 10.62x",
		LogFacts{KVCacheTokens: 21760, Platform: "cpu", MaxConcurrency: 10.62, ConcurrencyTokens: 2048}},
	{"xpu kv cache size", "INFO [kv_cache_utils.py:1] XPU KV cache size: 99,000 tokens", LogFacts{KVCacheTokens: 99000, Platform: "xpu"}},
	{"hierarchical kv cache size", "INFO [kv_cache_utils.py:2328] GPU + host KV cache size: 2,000,000 tokens", LogFacts{KVCacheTokens: 2000000, Platform: "cuda"}},
	{"kv cache size without a device", "INFO KV cache size: 512 tokens", LogFacts{KVCacheTokens: 512}},
	{"platform detected", "INFO 12-01 10:01:58 [__init__.py:291] Automatically detected platform cpu.", LogFacts{Platform: "cpu"}},
	{"max concurrency", "(EngineCore_DP0 pid=77) INFO [kv_cache_utils.py:1091] Maximum concurrency for 131,072 tokens per request: 12.34x",
		LogFacts{MaxConcurrency: 12.34, ConcurrencyTokens: 131072}},
	{"merged form", "INFO [kv_cache_utils.py:1] GPU KV cache size: 4,455,808 tokens, Maximum concurrency for 262,144 tokens per request: 17.00x",
		LogFacts{KVCacheTokens: 4455808, Platform: "cuda", MaxConcurrency: 17, ConcurrencyTokens: 262144}},
	{"sparse concurrency", "INFO Maximum DSA sparse concurrency for 163,840 tokens per request: 1,024.50x",
		LogFacts{MaxConcurrency: 1024.5, ConcurrencyTokens: 163840}},
	{"startup complete", "(APIServer pid=312) INFO:     Application startup complete.", LogFacts{Started: true}},
	{"model loading", "INFO 11-30 [gpu_model_runner.py:2602] Model loading took 9.54 GiB and 3.1 seconds", LogFacts{WeightGiB: 9.54}},
	{"model loading memory", "(EngineCore_DP0 pid=77) INFO [gpu_model_runner.py:3010] Model loading took 15.2031 GiB memory and 41.532 seconds",
		LogFacts{WeightGiB: 15.2031}},
	{"kv cache memory", "(EngineCore_DP0 pid=77) INFO [gpu_worker.py:298] Available KV cache memory: 60.12 GiB", LogFacts{KVCacheGiB: 60.12}},
	{"version word elsewhere", "INFO transformers version 4.57.1 is used", LogFacts{}},
}

func TestLogFactsAdd(t *testing.T) {
	for _, tt := range factTests {
		t.Run(tt.name, func(t *testing.T) {
			var f LogFacts
			f.Add(tt.line)
			f.Fatal, f.LooksLikeServer = nil, false
			if f != tt.want {
				t.Errorf("Add(%q) =\n%+v\nwant\n%+v", tt.line, f, tt.want)
			}
		})
	}
}

func TestLooksLikeServer(t *testing.T) {
	for line, want := range map[string]bool{
		"(APIServer pid=312) INFO 11-30 07:41:40 [api_server.py:1839] starting":       true,
		"INFO 11-30 07:41:36 [__init__.py:216] Automatically detected platform cuda.": true,
		"ModuleNotFoundError: No module named 'vllm'":                                 true,
		"/usr/bin/python3: can't open file '/home/ann/serve': [Errno 2] No such file": false,
		"Usage: true [ignored command line arguments]":                                false,
	} {
		var f LogFacts
		if f.Add(line); f.LooksLikeServer != want {
			t.Errorf("LooksLikeServer after %q = %v, want %v", line, f.LooksLikeServer, want)
		}
	}
}

func TestParseLogFirstVersionLastKV(t *testing.T) {
	f := ParseLog("vLLM API server version 0.10.0\r\nvLLM server version 0.11.0, serving model m\n" +
		"GPU KV cache size: 100 tokens\nGPU KV cache size: 2,000 tokens\n" +
		"ValueError: No available memory for the cache blocks. Try increasing `gpu_memory_utilization` when initializing the engine.\n" +
		"torch.OutOfMemoryError: CUDA out of memory.\n")
	if f.Version != "0.10.0" || f.KVCacheTokens != 2000 {
		t.Errorf("facts = %+v", f)
	}
	if f.Fatal == nil || f.Fatal.Kind != fatalNoKVCacheMemory {
		t.Errorf("fatal = %+v, want the first one (no KV cache memory)", f.Fatal)
	}
}

func TestCommitFromVersion(t *testing.T) {
	for v, want := range map[string]string{
		"0.30.1rc1.dev452+g73a583112": "73a583112", "0.11.1.dev0+gb8b302cde.d20251203": "b8b302cde",
		"0.32.0": "", "0.9.0+cu128": "", "": "",
	} {
		if got := commitFromVersion(v); got != want {
			t.Errorf("CommitFromVersion(%q) = %q, want %q", v, got, want)
		}
	}
}

var diagnoseTests = []struct {
	line string
	kind FatalKind
	want string // in the advice
}{
	{"torch.OutOfMemoryError: CUDA out of memory. Tried to allocate 2.00 GiB. GPU 0 has a total capacity of 23.56 GiB", FatalOutOfMemory, "lower --gpu-memory-utilization"},
	{"RuntimeError: CUDA out of memory. Tried to allocate 20.00 MiB", FatalOutOfMemory, "--max-model-len"},
	{"ValueError: No available memory for the cache blocks. Try increasing `gpu_memory_utilization` when initializing the engine.", fatalNoKVCacheMemory, "raise --gpu-memory-utilization"},
	{"ValueError: To serve at least one request with the models's max seq len (131072), (24.00 GiB KV cache is needed, which is larger than the available KV cache memory (12.00 GiB). " +
		"Based on the available memory, the estimated maximum model length is 65536. Try increasing `gpu_memory_utilization` or decreasing `max_model_len` when initializing the engine.",
		fatalKVCacheTooSmall, "--max-model-len 65536 fits"},
	{"ValueError: The model's max seq len (32768) is larger than the maximum number of tokens that can be stored in KV cache (20000).", fatalKVCacheTooSmall, "lower --max-model-len"},
	{"ValueError: Free memory on device cuda:0 (20.1/23.6 GiB) on startup is less than desired GPU memory utilization (0.9, 21.2 GiB). Decrease GPU memory utilization or reduce GPU memory used by other processes.",
		fatalFreeMemory, "lower --gpu-memory-utilization"},
	{"ValueError: User-specified max_model_len (262144) is greater than the derived max_model_len (max_position_embeddings=131072 or model_max_length=None in model's config.json).",
		fatalMaxModelLen, "VLLM_ALLOW_LONG_MAX_MODEL_LEN"},
	{"huggingface_hub.errors.RepositoryNotFoundError: 401 Client Error. (Request ID: Root=1-x) Repository Not Found for url: https://huggingface.co/api/models/nope/nope/revision/main.",
		fatalModelNotFound, "check the model id"},
	{"ValueError: Invalid repository ID or local directory specified: 'nope'.", fatalModelNotFound, "local path"},
	{"huggingface_hub.errors.GatedRepoError: 401 Client Error. Cannot access gated repo for url https://huggingface.co/meta-llama/Llama-3.1-8B/resolve/main/config.json.",
		fatalGatedRepo, "set HF_TOKEN"},
	{"Access to model meta-llama/Llama-3.1-8B is restricted. You must have access to it and be authenticated to access it. Please log in.", fatalGatedRepo, "HF_TOKEN"},
	{"ModuleNotFoundError: No module named 'vllm'", FatalNotInstalled, "pip install vllm"},
	{"requests.exceptions.HTTPError: 403 Client Error: Forbidden for url: https://huggingface.co/x", fatalGatedRepo, "accept the model's license"},
	{"ValueError: Model architectures ['DeepseekOCRForCausalLM'] are not supported for now. Supported architectures: dict_keys(['ApertusForCausalLM'])", fatalUnsupportedArch, "upgrade vLLM"},
	{"ValueError: The repository for org/x contains custom code which must be executed to correctly load the model.", fatalTrustRemoteCode, "trust_remote_code = true"},
	{"Please pass the argument `trust_remote_code=True` to allow custom code to be run.", fatalTrustRemoteCode, "trust_remote_code"},
	{"OSError: [Errno 98] Address already in use", fatalAddressInUse, "choose another port"},
	{"ERROR:    [Errno 98] error while attempting to bind on address ('0.0.0.0', 8000): address already in use", fatalAddressInUse, "another port"},
	{"docker: Error response from daemon: Conflict. The container name \"/speedmatrix-vllm-8000\" is already in use by container \"abc\".", fatalContainerConflict, "docker rm -f"},
	{"docker: Error response from daemon: could not select device driver \"\" with capabilities: [[gpu]].", fatalDockerGPU, "NVIDIA Container Toolkit"},
	{"RuntimeError: No CUDA GPUs are available", fatalNoGPU, "nvidia-smi"},
	{"RuntimeError: Failed to infer device type", fatalNoGPU, "driver"},
	// vLLM's argparse (prog "vllm serve"), and speedmatrix sim serve standing in for it.
	{"vllm serve: error: argument --max-num-seqs: invalid int value: 'abc'", fatalBadArgument, "extra_args"},
	{"vllm serve: error: unrecognized arguments: --max-num-seq 4", fatalBadArgument, "server.toml key"},
	{"speedmatrix: sim serve: error: argument --gpu-memory-utilization: invalid float value: 'most'", fatalBadArgument, "extra_args"},
	// vLLM 0.32's CPU worker (vllm/v1/worker/cpu_worker.py).
	{"ValueError: Available memory on node 0 (1.20/3.80 GiB) on kv cache allocation is less than requested memory for kv (4.00 GiB). " +
		"Decrease --kv-cache-memory-bytes, VLLM_CPU_KVCACHE_SPACE, or reduce CPU memory used by other processes.", fatalCPUMemory, "VLLM_CPU_KVCACHE_SPACE"},
	{"ValueError: Available memory on node 0 (1.20/3.80 GiB) on startup is less than desired CPU memory utilization (0.9, 3.42 GiB).",
		fatalCPUMemory, "share of RAM"},
}

func TestDiagnose(t *testing.T) {
	for _, tt := range diagnoseTests {
		t.Run(string(tt.kind), func(t *testing.T) {
			f, ok := Diagnose("(EngineCore_DP0 pid=7) ERROR 11-30 07:52:41 [core.py:708] " + tt.line)
			if !ok || f.Kind != tt.kind || !strings.Contains(f.Advice, tt.want) {
				t.Fatalf("Diagnose(%q) = %+v, %v; want kind %s with %q", tt.line, f, ok, tt.kind, tt.want)
			}
			if f.Line != tt.line {
				t.Errorf("Line = %q, want vLLM's message without the log prefix", f.Line)
			}
			if msg := f.Error(); !strings.Contains(msg, f.Summary) || !strings.Contains(msg, "vLLM:") {
				t.Errorf("Error() = %q", msg)
			}
		})
	}
	for _, ok := range []string{
		"Initializing a V1 LLM engine (v0.11.0) with config: model='m', trust_remote_code=True, dtype=torch.bfloat16",
		"INFO Available KV cache memory: 60.12 GiB",
		"RuntimeError: Engine core initialization failed. See root cause above. Failed core proc(s): {}",
		"WARNING Using max model len 131072",
	} {
		if f, bad := Diagnose(ok); bad {
			t.Errorf("Diagnose(%q) = %+v, want nothing", ok, f)
		}
	}
}

func TestServerErrorUnwrapsFatal(t *testing.T) {
	f, _ := Diagnose("torch.OutOfMemoryError: CUDA out of memory.")
	err := fmt.Errorf("run: %w", &ServerError{Reason: "exited (exit status 1) before it was ready", Fatal: &f,
		LastLines: []string{"a", "b"}, LogPath: "/tmp/x.log"})
	var got Fatal
	if !errors.As(err, &got) || got.Kind != FatalOutOfMemory {
		t.Fatalf("errors.As = %+v", got)
	}
	msg := err.Error()
	for _, want := range []string{"before it was ready: the GPU ran out of memory", "its whole log is kept in /tmp/x.log", "\n  a\n  b"} {
		if !strings.Contains(msg, want) {
			t.Errorf("error %q lacks %q", msg, want)
		}
	}
}

func FuzzLogFactsAdd(f *testing.F) {
	for _, tt := range factTests {
		f.Add(tt.line)
	}
	for _, tt := range diagnoseTests {
		f.Add(tt.line)
	}
	f.Fuzz(func(t *testing.T, line string) {
		var facts LogFacts
		facts.Add(line)
		if facts.KVCacheTokens < 0 || facts.ConcurrencyTokens < 0 || facts.MaxConcurrency < 0 {
			t.Errorf("negative figures from %q: %+v", line, facts)
		}
		if facts.Commit != "" && !strings.Contains(facts.Version, facts.Commit) {
			t.Errorf("commit %q not in version %q", facts.Commit, facts.Version)
		}
		// A KV line followed by any text is still read.
		var g LogFacts
		g.Add("GPU KV cache size: 1,024 tokens " + line)
		if g.KVCacheTokens != 1024 {
			t.Errorf("KV line after %q read as %d", line, g.KVCacheTokens)
		}
		// So is the CPU build's, and it names the platform.
		var c LogFacts
		c.Add("CPU KV cache size: 2,048 tokens " + line)
		if c.KVCacheTokens != 2048 || c.Platform != "cpu" {
			t.Errorf("CPU KV line after %q read as %d tokens on %q", line, c.KVCacheTokens, c.Platform)
		}
	})
}
