package launch_test

import (
	"fmt"
	"strings"

	"speedmatrix/engine/launch"
)

func ExampleArgs() {
	cfg := launch.ServerConfig{Model: "RedHatAI/gemma-4-E2B-it", ServedModelName: "gemma", TensorParallelSize: 1,
		MaxModelLen: 131072, GPUMemoryUtilization: 0.83, Host: "127.0.0.1", Port: 8000, APIKey: "KEY"}
	fmt.Println(strings.Join(launch.Args(cfg), " "))
	fmt.Println(launch.Display(cfg))
	// Output:
	// serve RedHatAI/gemma-4-E2B-it --served-model-name gemma --tensor-parallel-size 1 --max-model-len 131072 --gpu-memory-utilization 0.83 --host 127.0.0.1 --port 8000
	// vllm serve RedHatAI/gemma-4-E2B-it --served-model-name gemma --tensor-parallel-size 1 --max-model-len 131072 --gpu-memory-utilization 0.83 --host 127.0.0.1 --port 8000 --api-key <redacted>
}

func ExampleParseLog() {
	f := launch.ParseLog("vLLM API server version 0.30.1rc1.dev452+g73a583112\n" +
		"GPU KV cache size: 1,234,567 tokens\n" +
		"Maximum concurrency for 131,072 tokens per request: 9.42x\n")
	fmt.Println(f.Version, f.Commit, f.KVCacheTokens, f.ConcurrencyTokens, f.MaxConcurrency)
	// Output: 0.30.1rc1.dev452+g73a583112 73a583112 1234567 131072 9.42
}
