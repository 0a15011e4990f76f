// Command fakevllm stands in for `vllm serve` in the tests of engine/launch:
// it prints vLLM-like start-up logs and then serves engine/sim on the
// --host/--port it is given, honouring --api-key (or VLLM_API_KEY, as vLLM
// does) and --served-model-name. Like vLLM, it echoes its arguments in a
// "non-default args" line, the API key and HF_TOKEN included.
//
// FAKEVLLM_MODE picks a behaviour: "" (start and serve), "oom" (CUDA out of
// memory at start-up), "exit" (exit at once), "hang" (never become ready),
// "die" (serve; exit with a CUDA error when /fake/die is requested),
// "stubborn" (ignore SIGINT and SIGTERM). With VLLM_TARGET_DEVICE=cpu it
// logs as vLLM's CPU build does. FAKEVLLM_CHILD=1 also starts an
// "engine core" child process, as vLLM does; FAKEVLLM_DAEMON=1 starts a
// daemon (a grandchild in its own session, outside the process group) that
// holds the listening port.
//
// Run as "docker" (a link named docker), it is a fake Docker client: see
// docker.go. Run as "python3", it is SGLang: see sglang.go.
package main

import (
	"fmt"
	"os"
	"os/exec"
	"os/signal"
	"path/filepath"
	"strconv"
	"strings"
	"syscall"
	"time"
)

type args struct {
	model, served, host, apiKey, quant string
	port, maxLen                       int
	sglang                             bool // SGLang's flags and log (see sglang.go)
	tp, dp, maxRunning                 int
}

func parseArgs(argv []string) args {
	a := args{host: "0.0.0.0", port: 8000}
	if len(argv) > 1 && argv[0] == "serve" {
		a.model = argv[1]
		argv = argv[2:]
	}
	for i := 0; i < len(argv)-1; i++ {
		v := argv[i+1]
		switch argv[i] {
		case "--host":
			a.host = v
		case "--port":
			a.port, _ = strconv.Atoi(v)
		case "--api-key":
			a.apiKey = v
		case "--served-model-name":
			a.served = v
		case "--max-model-len":
			a.maxLen, _ = strconv.Atoi(v)
		case "--quantization":
			a.quant = v
		}
	}
	if a.served == "" {
		a.served = a.model
	}
	if a.apiKey == "" {
		a.apiKey = os.Getenv("VLLM_API_KEY")
	}
	return a
}

var pid = os.Getpid()

func logf(proc, level, format string, v ...any) {
	ts := time.Now().Format("01-02 15:04:05")
	fmt.Printf("(%s pid=%d) %s %s [fake.py:1] %s\n", proc, pid, level, ts, fmt.Sprintf(format, v...))
}

func main() {
	if len(os.Args) > 1 {
		switch os.Args[1] {
		case "--engine-core":
			engineCore()
			return
		case "--daemonize":
			daemonize()
			return
		case "--daemon":
			daemon()
			return
		}
	}
	switch filepath.Base(os.Args[0]) {
	case "docker":
		os.Exit(fakeDocker(os.Args[1:]))
	case "python3":
		os.Exit(fakePython(os.Args[1:]))
	}
	serveMain()
}

// serveMain is `vllm serve` with os.Args.
func serveMain() {
	mode := os.Getenv("FAKEVLLM_MODE")
	if mode == "stubborn" {
		signal.Ignore(syscall.SIGINT, syscall.SIGTERM)
	}
	if mode == "exit" {
		fmt.Fprintln(os.Stderr, "fakevllm: exiting at once")
		os.Exit(3)
	}
	a := parseArgs(os.Args[1:])
	version := os.Getenv("FAKEVLLM_VERSION")
	if version == "" {
		version = "0.30.1rc1.dev452+g73a583112"
	}
	// VLLM_TARGET_DEVICE=cpu makes vLLM 0.32 pick its CPU platform without
	// an INFO line; its KV cache line then names the CPU.
	kvDevice := "GPU"
	if os.Getenv("VLLM_TARGET_DEVICE") == "cpu" {
		kvDevice = "CPU"
	} else {
		fmt.Println("INFO 11-30 07:41:36 [__init__.py:216] Automatically detected platform cuda.")
	}
	logf("APIServer", "INFO", "vLLM API server version %s", version)
	logf("APIServer", "INFO", "non-default args: {'model_tag': '%s', 'host': '%s', 'port': %d, 'api_key': ['%s'], 'hf_token': '%s'}",
		a.model, a.host, a.port, a.apiKey, os.Getenv("HF_TOKEN"))
	if os.Getenv("FAKEVLLM_CHILD") == "1" {
		startEngineCore()
	}
	srv, kvTokens, maxLen := newServer(a, version)
	quant := "None"
	if a.quant != "" {
		quant = a.quant
	}
	logf("EngineCore_DP0", "INFO", "Initializing a V1 LLM engine (v%s) with config: model='%s', revision=None, trust_remote_code=False, dtype=torch.bfloat16, max_seq_len=%d, tensor_parallel_size=1, quantization=%s, kv_cache_dtype=auto, served_model_name=%s", version, a.model, maxLen, quant, a.served)
	logf("EngineCore_DP0", "INFO", "Loading safetensors checkpoint shards: 100%% Completed | 2/2 [00:01<00:00,  1.50it/s]\r")
	if mode == "oom" {
		oom()
	}
	logf("EngineCore_DP0", "INFO", "Available KV cache memory: 60.12 GiB")
	logf("EngineCore_DP0", "INFO", "%s KV cache size: %s tokens", kvDevice, comma(kvTokens))
	logf("EngineCore_DP0", "INFO", "Maximum concurrency for %s tokens per request: %.2fx", comma(maxLen), float64(kvTokens)/float64(maxLen))
	if mode == "hang" {
		logf("EngineCore_DP0", "INFO", "Capturing CUDA graphs (mixed prefill-decode, PIECEWISE): 0%%")
		select {}
	}
	if err := serve(a, srv, mode == "die"); err != nil {
		logf("APIServer", "ERROR", "OSError: [Errno 98] error while attempting to bind on address ('%s', %d): %v", a.host, a.port, err)
		os.Exit(1)
	}
}

func oom() {
	logf("EngineCore_DP0", "ERROR", "EngineCore failed to start.")
	logf("EngineCore_DP0", "ERROR", "Traceback (most recent call last):")
	logf("EngineCore_DP0", "ERROR", "torch.OutOfMemoryError: CUDA out of memory. Tried to allocate 2.00 GiB. GPU 0 has a total capacity of 23.56 GiB of which 1.02 GiB is free.")
	fmt.Println("RuntimeError: Engine core initialization failed. See root cause above. Failed core proc(s): {}")
	os.Exit(1)
}

// startEngineCore starts a child in the same process group, as vLLM's
// EngineCore process is.
func startEngineCore() {
	cmd := exec.Command(os.Args[0], "--engine-core")
	cmd.Stdout, cmd.Stderr = os.Stdout, os.Stderr
	if err := cmd.Start(); err != nil {
		fmt.Println("fakevllm: engine core:", err)
		os.Exit(1)
	}
	fmt.Printf("fakevllm: engine core pid=%d\n", cmd.Process.Pid)
}

func engineCore() {
	if os.Getenv("FAKEVLLM_MODE") == "stubborn" {
		signal.Ignore(syscall.SIGINT, syscall.SIGTERM)
	}
	pid = os.Getpid()
	logf("EngineCore_DP0", "INFO", "engine core started")
	select {}
}

func comma(n int) string {
	s := strconv.Itoa(n)
	var b strings.Builder
	for i, c := range s {
		if i > 0 && (len(s)-i)%3 == 0 {
			b.WriteByte(',')
		}
		b.WriteRune(c)
	}
	return b.String()
}
