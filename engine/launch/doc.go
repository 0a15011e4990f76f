// Package launch builds, starts, watches and stops a `vllm serve` process,
// or SGLang's `python3 -m sglang.launch_server` (engine = "sglang"): what
// differs between the two is a flavor (flavor.go, sglang.go); the guard,
// the log, secrets, readiness and Stop are the same for both.
//
// The pure half turns a ServerConfig into the exact command line (Args,
// Command, Display), suggests settings from the hardware (Suggest) and reads
// what vLLM prints while it starts (LogFacts, Diagnose). The process half
// (Launch, Start, Server) checks what the command needs (SetupError), runs
// it in its own process group under a guard (RunGuardIfAsked), keeps its
// log, secrets redacted, in a file and a ring buffer, waits until /health
// and /v1/models answer, and makes sure no GPU-holding process outlives a
// Stop or a crash of the app. No secret is ever on a command line: the API
// key and the HF token reach vLLM through its environment.
//
// vLLM's CPU build is a target like a GPU: FindCPUBuild tells it from the
// CUDA build by the vllm program's venv alone (no Python is started), and
// ResolveDevice runs the server on the CPU when it is one (or when
// server.toml says device = "cpu"); the CPU build's settings reach it as
// its variables (VLLM_CPU_KVCACHE_SPACE, VLLM_CPU_OMP_THREADS_BIND, …), and
// Server.Hardware then names the CPU, never a GPU.
//
// launch is an adapter: a launched server becomes a measure.Subject and reads server.toml with
// BurntSushi/toml. What it may import is one table for the whole tree,
// allowedImports in imports_test.go, which TestImportRules checks.
//
// A server.toml for LoadConfig (`speedmatrix run --launch server.toml`)
// holds the ServerConfig fields in snake_case:
//
//	executable = "/home/me/venv/bin/vllm"   # or runner = "docker" with docker_image
//	model = "RedHatAI/gemma-4-E2B-it"
//	served_model_name = "gemma"
//	max_model_len = 131072
//	gpu_memory_utilization = 0.83
//	max_num_seqs = 128
//	extra_args = ["--language-model-only"]
//	api_key_file = "/home/me/.vllm-key"     # or api_key; none: one is generated
//	hf_token = "hf_..."                     # given to vLLM as HF_TOKEN
//	[env]
//	MAX_JOBS = "2"
package launch
