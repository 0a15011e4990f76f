package launch

import (
	"os"
	"path/filepath"
	"slices"
	"speedmatrix/engine/servers"
	"strings"
	"testing"
)

// sglangTP2 is the TP=2 server of SGLang's server-arguments page
// (`python -m sglang.launch_server --model-path meta-llama/Meta-Llama-3-8B-Instruct --tp 2`)
// with the settings a benchmark sets.
func sglangTP2() ServerConfig {
	return ServerConfig{Server: servers.SGLang, Model: "meta-llama/Meta-Llama-3-8B-Instruct", ServedModelName: "llama3",
		TensorParallelSize: 2, MaxModelLen: 8192, GPUMemoryUtilization: 0.85, MaxNumSeqs: 128,
		Host: "127.0.0.1", Port: 30000, APIKey: "sm-sglang-secret"}
}

func TestSGLangArgs(t *testing.T) {
	tests := []struct {
		name string
		cfg  ServerConfig
		want string
	}{
		{"model only", ServerConfig{Server: servers.SGLang, Model: "Qwen/Qwen3-0.6B"},
			"-m sglang.launch_server --model-path Qwen/Qwen3-0.6B --enable-metrics"},
		{"TP=2", sglangTP2(), "-m sglang.launch_server --model-path meta-llama/Meta-Llama-3-8B-Instruct --served-model-name llama3 " +
			"--tp 2 --context-length 8192 --mem-fraction-static 0.85 --max-running-requests 128 --host 127.0.0.1 --port 30000 --enable-metrics"},
		{"every mapped setting", ServerConfig{Server: servers.SGLang, Model: "deepseek-ai/DeepSeek-V3", Revision: "main", TrustRemoteCode: true,
			TensorParallelSize: 8, PipelineParallelSize: 2, DataParallelSize: 2, EnableExpertParallel: true,
			ReasoningParser: "deepseek-r1", ToolCallParser: "deepseekv3", Quantization: "fp8", DType: "bfloat16",
			KVCacheDType: "fp8_e4m3", EnablePrefixCaching: ptr(false), AttentionBackend: "fa3", ExtraArgs: []string{"--enable-dp-attention"}},
			"-m sglang.launch_server --model-path deepseek-ai/DeepSeek-V3 --revision main --trust-remote-code --tp 8 --pp-size 2 --dp 2 " +
				"--ep-size 8 --reasoning-parser deepseek-r1 --tool-call-parser deepseekv3 --quantization fp8 --dtype bfloat16 " +
				"--kv-cache-dtype fp8_e4m3 --disable-radix-cache --attention-backend fa3 --enable-metrics --enable-dp-attention"},
		{"prefix caching on is SGLang's default", ServerConfig{Server: servers.SGLang, Model: "m", EnablePrefixCaching: ptr(true)},
			"-m sglang.launch_server --model-path m --enable-metrics"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			if got := strings.Join(Args(tt.cfg), " "); got != tt.want {
				t.Errorf("Args =\n%s\nwant\n%s", got, tt.want)
			}
		})
	}
}

// TestSGLangCommand: what runs has the launcher in place of -m and no key;
// the key is in SGLANG_API_KEY; Display is the command of SGLang's docs with
// --api-key <redacted>.
func TestSGLangCommand(t *testing.T) {
	cfg := sglangTP2().WithDefaults()
	run := Command(cfg)
	flags := "--model-path meta-llama/Meta-Llama-3-8B-Instruct --served-model-name llama3 --tp 2 --context-length 8192 " +
		"--mem-fraction-static 0.85 --max-running-requests 128 --host 127.0.0.1 --port 30000 --enable-metrics"
	if want := append([]string{"python3", "-c", sglangLauncher}, strings.Fields(flags)...); !slices.Equal(run, want) {
		t.Errorf("Command =\n%q\nwant\n%q", run, want)
	}
	if slices.ContainsFunc(run, func(a string) bool { return strings.Contains(a, cfg.APIKey) }) {
		t.Errorf("the key is on the command line: %q", run)
	}
	if env := environ(cfg, []string{"PATH=/usr/bin", "SGLANG_API_KEY=stale"}); !slices.Contains(env, "SGLANG_API_KEY="+cfg.APIKey) ||
		slices.Contains(env, "SGLANG_API_KEY=stale") {
		t.Errorf("Environ = %q, want SGLANG_API_KEY=%s", env, cfg.APIKey)
	}
	want := "python3 -m sglang.launch_server --model-path meta-llama/Meta-Llama-3-8B-Instruct --served-model-name llama3 --tp 2 " +
		"--context-length 8192 --mem-fraction-static 0.85 --max-running-requests 128 --host 127.0.0.1 --port 30000 " +
		"--api-key <redacted> --enable-metrics"
	if got := displayWith(cfg, "/home/ann"); got != want {
		t.Errorf("Display =\n%s\nwant\n%s", got, want)
	}
	venv := cfg
	venv.Executable = "/home/ann/sglang-venv/bin/python3"
	if got := displayWith(venv, "/home/ann"); !strings.HasPrefix(got, `"$HOME/sglang-venv/bin/python3" -m sglang.launch_server --model-path`) {
		t.Errorf("Display with a venv = %s", got)
	}
}

func TestSGLangCommandDocker(t *testing.T) {
	cfg := sglangTP2()
	cfg.Runner, cfg.HFCache = RunnerDocker, "/data/hf"
	cfg = cfg.WithDefaults()
	flags := " --model-path meta-llama/Meta-Llama-3-8B-Instruct --served-model-name llama3 --tp 2 --context-length 8192 " +
		"--mem-fraction-static 0.85 --max-running-requests 128 --host 0.0.0.0 --port 30000"
	prefix := "docker run --rm --name speedmatrix-sglang-30000 --gpus all --ipc=host -p 127.0.0.1:30000:30000 " +
		"-v /data/hf:/root/.cache/huggingface -e HF_TOKEN "
	run := Command(cfg)
	want := strings.Fields(prefix + "-e SGLANG_API_KEY lmsysorg/sglang:latest python3 -c")
	want = append(append(want, sglangLauncher), strings.Fields(flags+" --enable-metrics")...)
	if !slices.Equal(run, want) {
		t.Errorf("Command =\n%q\nwant\n%q", run, want)
	}
	shown := prefix + "lmsysorg/sglang:latest python3 -m sglang.launch_server" + flags + " --api-key <redacted> --enable-metrics"
	if got := displayWith(cfg, "/home/ann"); got != shown {
		t.Errorf("Display =\n%s\nwant\n%s", got, shown)
	}
}

func TestSGLangConfig(t *testing.T) {
	path := filepath.Join("..", "..", "examples", "sglang-server.toml") // the README points users to it
	cfg, err := LoadConfig(path)
	if err != nil {
		t.Fatal(err)
	}
	cfg.APIKey = sglangTP2().APIKey
	if got, want := Display(cfg), Display(sglangTP2().WithDefaults()); got != want {
		t.Errorf("Display of %s =\n%s\nwant the TP=2 command\n%s", path, got, want)
	}
	if got := (ServerConfig{Model: "m"}).WithDefaults(); got.Server != servers.VLLM || got.Executable != DefaultExecutable {
		t.Errorf("default engine %q, executable %q", got.Server, got.Executable)
	}
	if got := (ServerConfig{Server: servers.SGLang, Runner: RunnerDocker, Model: "m"}).WithDefaults(); got.DockerImage != defaultSGLangDockerImage {
		t.Errorf("SGLang's default image = %q", got.DockerImage)
	}
	for _, tt := range []struct {
		name string
		cfg  ServerConfig
		want string
	}{
		{"unknown engine", ServerConfig{Server: "tgi"}, `engine "tgi" is unknown: use "vllm" or "sglang"`},
		{"async scheduling", ServerConfig{Server: servers.SGLang, AsyncScheduling: true},
			`async_scheduling is a vLLM setting that SGLang has no flag for: remove it, or use engine = "vllm"`},
		{"ray", ServerConfig{Server: servers.SGLang, DistributedExecutorBackend: "mp"},
			`distributed_executor_backend is a vLLM setting that SGLang has no flag for: remove it, or use engine = "vllm"`},
		{"expert parallel on one GPU", ServerConfig{Server: servers.SGLang, EnableExpertParallel: true},
			"enable_expert_parallel spreads the experts over the tensor_parallel_size GPUs (SGLang's --ep-size): set tensor_parallel_size to 2 or more"},
	} {
		t.Run(tt.name, func(t *testing.T) {
			c := tt.cfg
			c.Model = "m"
			err := c.WithDefaults().Validate()
			if err == nil || !slices.Contains(strings.Split(err.Error(), "\n"), tt.want) {
				t.Errorf("Validate = %v\nwant the line %s", err, tt.want)
			}
		})
	}
}

// sglangStartLog is how SGLang 0.5 starts a TP=2 server, line for line in
// its format.
const sglangStartLog = `[2026-12-01 10:00:01] server_args=ServerArgs(model_path='meta-llama/Meta-Llama-3-8B-Instruct', tp_size=2, api_key='k')
[2026-12-01 10:00:20 TP0] Load weight end. type=LlamaForCausalLM, dtype=torch.bfloat16, avail mem=63.90 GB, mem usage=7.52 GB.
[2026-12-01 10:00:20 TP1] Load weight end. type=LlamaForCausalLM, dtype=torch.bfloat16, avail mem=63.90 GB, mem usage=7.52 GB.
[2026-12-01 10:00:21 TP0] KV Cache is allocated. #tokens: 412345, K size: 24.10 GB, V size: 24.10 GB
[2026-12-01 10:00:21 TP1] KV Cache is allocated. #tokens: 412345, K size: 24.10 GB, V size: 24.10 GB
[2026-12-01 10:00:40 TP0] max_total_num_tokens=412345, chunked_prefill_size=8192, max_prefill_tokens=16384, max_running_requests=128, context_len=8192, available_gpu_mem=8.16 GB
[2026-12-01 10:00:40 TP1] max_total_num_tokens=412345, chunked_prefill_size=8192, max_prefill_tokens=16384, max_running_requests=128, context_len=8192, available_gpu_mem=8.16 GB
[2026-12-01 10:00:41] INFO:     Uvicorn running on http://127.0.0.1:30000 (Press CTRL+C to quit)
[2026-12-01 10:00:44] The server is fired up and ready to roll!`

func TestSGLangLogFacts(t *testing.T) {
	f := parseLog(&sglangFlavor, sglangStartLog)
	want := LogFacts{KVCacheTokens: 412345, ConcurrencyTokens: 8192, MaxConcurrency: 412345.0 / 8192, MaxRunningRequests: 128,
		WeightGiB: 7.52, KVCacheGiB: 48.2, DType: "bfloat16", Started: true, LooksLikeServer: true, dpRanks: 1}
	if f != want {
		t.Errorf("facts =\n%+v\nwant\n%+v", f, want)
	}
	// Data parallel: each DP rank has a pool of its own; its TP ranks share it.
	dp := parseLog(&sglangFlavor, `[2026-12-01 10:00:40 DP0 TP0] max_total_num_tokens=200000, max_running_requests=64, context_len=32768
[2026-12-01 10:00:40 DP0 TP1] max_total_num_tokens=200000, max_running_requests=64, context_len=32768
[2026-12-01 10:00:40 DP1 TP2] max_total_num_tokens=200000, max_running_requests=64, context_len=32768
[2026-12-01 10:00:40 DP1 TP3] max_total_num_tokens=200000, max_running_requests=64, context_len=32768`)
	if dp.KVCacheTokens != 400000 {
		t.Errorf("two DP ranks of 200000 tokens: KVCacheTokens = %d, want 400000", dp.KVCacheTokens)
	}
	if f := parseLog(&sglangFlavor, "Traceback (most recent call last):\nValueError: x"); f.LooksLikeServer {
		t.Errorf("a bare traceback looks like SGLang")
	}
}

// TestSGLangDiagnose: a CUDA out-of-memory error and a Python without
// sglang are one line each saying what to change, in server.toml's words.
func TestSGLangDiagnose(t *testing.T) {
	for _, tt := range []struct {
		line string
		kind FatalKind
		want string
	}{
		{"/usr/bin/python3: Error while finding module specification for 'sglang.launch_server' (ModuleNotFoundError: No module named 'sglang')",
			FatalNotInstalled, `the Python of the executable has no sglang package: install SGLang in that environment (pip install "sglang[all]") or set executable to the bin/python3 of a venv that has it (SGLang: /usr/bin/python3: Error while finding module specification for 'sglang.launch_server' (ModuleNotFoundError: No module named 'sglang'))`},
		{"[2026-12-01 10:00:21 TP0] Scheduler hit an exception: torch.OutOfMemoryError: CUDA out of memory. Tried to allocate 2.00 GiB.",
			FatalOutOfMemory, "the GPU ran out of memory: lower gpu_memory_utilization (--mem-fraction-static) or max_model_len (--context-length), or free the GPU of other processes (see nvidia-smi) (SGLang: Scheduler hit an exception: torch.OutOfMemoryError: CUDA out of memory. Tried to allocate 2.00 GiB.)"},
		{"[2026-12-01 10:00:21 TP0] RuntimeError: Not enough memory. Please try to increase --mem-fraction-static.",
			fatalNoKVCacheMemory, ""},
		{"ValueError: User-specified context_length (200000) is greater than the derived context_length (131072).",
			fatalMaxModelLen, ""},
		{"OSError: [Errno 98] error while attempting to bind on address ('127.0.0.1', 30000): address already in use",
			fatalAddressInUse, ""},
	} {
		f, ok := sglangFlavor.diagnose(tt.line)
		if !ok || f.Kind != tt.kind {
			t.Errorf("diagnose(%q) = %v %v, want %s", tt.line, f.Kind, ok, tt.kind)
			continue
		}
		if tt.want != "" && f.Error() != tt.want {
			t.Errorf("Error =\n%s\nwant\n%s", f.Error(), tt.want)
		}
		if strings.Contains(f.Error(), "--gpu-memory-utilization") || strings.Contains(f.Error(), "vLLM") {
			t.Errorf("SGLang's failure speaks vLLM: %s", f.Error())
		}
	}
}

func TestSGLangNotAnEngine(t *testing.T) {
	err := checkExecutable(&sglangFlavor, filepath.Join(t.TempDir(), "venv"))
	if err == nil {
		t.Fatal("a missing path passed")
	}
	venv := t.TempDir()
	if err := os.WriteFile(filepath.Join(venv, "pyvenv.cfg"), nil, 0o644); err != nil {
		t.Fatal(err)
	}
	err = checkExecutable(&sglangFlavor, venv)
	want := "the venv " + venv + " has no python3 (" + filepath.Join(venv, "bin", "python3") + " does not exist)"
	if se, ok := err.(*SetupError); !ok || se.Kind != SetupVenvNoVLLM || se.Fact != want {
		t.Errorf("venv without python3: %v\nwant the fact %s", err, want)
	}
}

func FuzzSGLangLogFacts(f *testing.F) {
	for _, line := range strings.Split(sglangStartLog, "\n") {
		f.Add(line)
	}
	f.Add("[2026-12-01 10:00:40 DP7 TP0] max_total_num_tokens=200000, context_len=32768")
	f.Fuzz(func(t *testing.T, line string) {
		facts := parseLog(&sglangFlavor, line)
		if facts.KVCacheTokens < 0 || facts.ConcurrencyTokens < 0 || facts.MaxConcurrency < 0 || facts.KVCacheGiB < 0 {
			t.Errorf("negative figures from %q: %+v", line, facts)
		}
		// The summary line of DP rank 1 after any line counts two pools.
		facts.add(&sglangFlavor, "[2026-12-01 10:00:40 DP1 TP0] max_total_num_tokens=1000, context_len=100")
		if facts.KVCacheTokens < 2000 || facts.ConcurrencyTokens != 100 {
			t.Errorf("after %q the DP1 line reads as %d tokens, context %d", line, facts.KVCacheTokens, facts.ConcurrencyTokens)
		}
	})
}
