package main

import (
	"encoding/json"
	"fmt"
	"net/http"
	"os"
	"os/signal"
	"strconv"
	"strings"
	"syscall"
	"time"
)

// fakeSGLangVersion is what /get_server_info answers.
const fakeSGLangVersion = "0.5.6.post2"

// fakePython is `python3 -m sglang.launch_server ARGS`, or `python3 -c
// LAUNCHER ARGS` where LAUNCHER is the launcher of engine/launch, which adds
// --api-key from SGLANG_API_KEY inside the interpreter (its Python is
// tested with a real python3 in engine/launch; here the variable is read as
// it would). It prints SGLang's start-up lines, echoing its arguments (the
// API key included) in a server_args line as SGLang does, then serves
// engine/sim. FAKEVLLM_MODE "nomodule" is a Python without sglang, "oom" a
// CUDA out-of-memory error while the KV cache is allocated, "hang" never
// ready, "stubborn" deaf to SIGINT and SIGTERM, as for fakevllm.
func fakePython(argv []string) int {
	if len(argv) < 2 {
		fmt.Fprintln(os.Stderr, "fake python3: want -m sglang.launch_server or -c LAUNCHER")
		return 2
	}
	mode := os.Getenv("FAKEVLLM_MODE")
	var a args
	switch {
	case argv[0] == "-m" && argv[1] == "sglang.launch_server":
	case argv[0] == "-c" && strings.Contains(argv[1], `runpy.run_module("sglang.launch_server"`):
		if k := os.Getenv("SGLANG_API_KEY"); k != "" {
			a.apiKey = k
			os.Unsetenv("SGLANG_API_KEY")
		}
	default:
		fmt.Fprintf(os.Stderr, "fake python3: cannot run %q\n", argv[:2])
		return 2
	}
	if mode == "nomodule" {
		fmt.Fprintln(os.Stderr, "/usr/bin/python3: Error while finding module specification for 'sglang.launch_server' (ModuleNotFoundError: No module named 'sglang')")
		return 1
	}
	parseSGLangArgs(&a, argv[2:])
	return sglangMain(a, mode)
}

// parseSGLangArgs reads the flags of SGLang that the fake honours.
func parseSGLangArgs(a *args, argv []string) {
	a.sglang, a.host, a.port, a.tp, a.dp = true, "127.0.0.1", 30000, 1, 1
	for i := 0; i < len(argv)-1; i++ {
		v := argv[i+1]
		n, _ := strconv.Atoi(v)
		switch argv[i] {
		case "--model-path":
			a.model = v
		case "--served-model-name":
			a.served = v
		case "--host":
			a.host = v
		case "--port":
			a.port = n
		case "--api-key":
			a.apiKey = v
		case "--context-length":
			a.maxLen = n
		case "--tp":
			a.tp = n
		case "--dp":
			a.dp = n
		case "--max-running-requests":
			a.maxRunning = n
		case "--quantization":
			a.quant = v
		}
	}
	if a.served == "" {
		a.served = a.model
	}
}

func sglangLog(rank, format string, v ...any) {
	ts := time.Now().Format("2006-01-02 15:04:05")
	if rank != "" {
		ts += " " + rank
	}
	fmt.Printf("[%s] %s\n", ts, fmt.Sprintf(format, v...))
}

// sglangMain prints what SGLang prints while it starts, then serves.
func sglangMain(a args, mode string) int {
	if mode == "stubborn" {
		signal.Ignore(syscall.SIGINT, syscall.SIGTERM)
	}
	sglangLog("", "server_args=ServerArgs(model_path='%s', served_model_name='%s', host='%s', port=%d, api_key='%s', tp_size=%d, dp_size=%d, context_length=%d, enable_metrics=True, hf_token='%s')",
		a.model, a.served, a.host, a.port, a.apiKey, a.tp, a.dp, a.maxLen, os.Getenv("HF_TOKEN"))
	if os.Getenv("FAKEVLLM_CHILD") == "1" {
		startEngineCore()
	}
	srv, kvTokens, maxLen := newServer(a, fakeSGLangVersion)
	ranks := make([]string, a.dp)
	for d := range ranks {
		ranks[d] = "TP0"
		if a.dp > 1 {
			ranks[d] = fmt.Sprintf("DP%d TP0", d)
		}
	}
	sglangLog(ranks[0], "Load weight end. type=Qwen3ForCausalLM, dtype=torch.bfloat16, avail mem=60.12 GB, mem usage=1.42 GB.")
	if mode == "oom" {
		sglangLog(ranks[0], "Scheduler hit an exception: Traceback (most recent call last):")
		fmt.Println("torch.OutOfMemoryError: CUDA out of memory. Tried to allocate 2.00 GiB. GPU 0 has a total capacity of 23.56 GiB of which 1.02 GiB is free.")
		sglangLog("", "Received sigquit from a child process. It usually means the child failed.")
		return 1
	}
	perRank := kvTokens / a.dp
	for _, r := range ranks {
		sglangLog(r, "KV Cache is allocated. #tokens: %d, K size: 2.00 GB, V size: 2.00 GB", perRank)
		sglangLog(r, "max_total_num_tokens=%d, chunked_prefill_size=8192, max_prefill_tokens=16384, max_running_requests=%d, context_len=%d, available_gpu_mem=8.16 GB",
			perRank, max(a.maxRunning, 256), maxLen)
	}
	if mode == "hang" {
		select {}
	}
	if err := serve(a, srv, false); err != nil {
		sglangLog("", "ERROR: [Errno 98] error while attempting to bind on address ('%s', %d): %v", a.host, a.port, err)
		return 1
	}
	return 0
}

// sglangRoutes adds SGLang's own endpoints and logs its ready line:
// /get_server_info answers the version, /version is not found.
func sglangRoutes(mux *http.ServeMux, a args) {
	mux.HandleFunc("/version", http.NotFound)
	mux.HandleFunc("/get_server_info", func(w http.ResponseWriter, r *http.Request) {
		_ = json.NewEncoder(w).Encode(map[string]any{"version": fakeSGLangVersion, "tp_size": a.tp, "dp_size": a.dp})
	})
	sglangLog("", "INFO:     Uvicorn running on http://%s:%d (Press CTRL+C to quit)", a.host, a.port)
	sglangLog("", "The server is fired up and ready to roll!")
}
