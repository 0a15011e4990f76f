package launch

import (
	"slices"
	"strings"
	"testing"
)

func ptr[T any](v T) *T { return &v }

// seed000 is the configuration behind reference report 000's launch command.
func seed000() ServerConfig {
	return ServerConfig{
		Executable: "/home/ann/env_rtxpro6k-redhatai-vllm-73a5831127a9d2b8/bin/vllm",
		Model:      "RedHatAI/gemma-4-E2B-it", ServedModelName: "gemma", TrustRemoteCode: true,
		TensorParallelSize: 1, ReasoningParser: "gemma4", ToolCallParser: "gemma4",
		MaxModelLen: 131072, GPUMemoryUtilization: 0.83, Host: "0.0.0.0", Port: 8000,
		APIKey: "sk-live-123", AsyncScheduling: true,
		Env: map[string]string{"MAX_JOBS": "2", "FLASHINFER_NVCC_THREADS": "1", "TORCHINDUCTOR_COMPILE_THREADS": "1"},
	}
}

func TestArgs(t *testing.T) {
	tests := []struct {
		name string
		cfg  ServerConfig
		want string
	}{
		{"model only", ServerConfig{Model: "Qwen/Qwen3-0.6B"}, "serve Qwen/Qwen3-0.6B"},
		{"reference report 000", seed000(), "serve RedHatAI/gemma-4-E2B-it --served-model-name gemma --trust-remote-code " +
			"--tensor-parallel-size 1 --reasoning-parser gemma4 --enable-auto-tool-choice --tool-call-parser gemma4 " +
			"--max-model-len 131072 --gpu-memory-utilization 0.83 --host 0.0.0.0 --port 8000 --async-scheduling"},
		{"reference report 003", ServerConfig{Model: "RedHatAI/gemma-4-26B-A4B-it-NVFP4", MaxModelLen: 262144, GPUMemoryUtilization: 0.94,
			MaxNumSeqs: 128, EnablePrefixCaching: ptr(true), TrustRemoteCode: true, KVCacheDType: "int4_per_token_head",
			AttentionBackend: "TRITON_ATTN", ExtraArgs: []string{"--language-model-only"}},
			"serve RedHatAI/gemma-4-26B-A4B-it-NVFP4 --trust-remote-code --max-model-len 262144 --gpu-memory-utilization 0.94 " +
				"--max-num-seqs 128 --kv-cache-dtype int4_per_token_head --enable-prefix-caching --attention-backend TRITON_ATTN --language-model-only"},
		{"prefix caching off, parallel, dtype", ServerConfig{Model: "m", EnablePrefixCaching: ptr(false), TensorParallelSize: 2,
			PipelineParallelSize: 2, DType: "float16", Quantization: "fp8", Revision: "abc123"},
			"serve m --revision abc123 --tensor-parallel-size 2 --pipeline-parallel-size 2 --quantization fp8 --dtype float16 --no-enable-prefix-caching"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			if got := strings.Join(Args(tt.cfg), " "); got != tt.want {
				t.Errorf("Args =\n%s\nwant\n%s", got, tt.want)
			}
		})
	}
}

func TestCommandDocker(t *testing.T) {
	cfg := ServerConfig{Runner: RunnerDocker, DockerImage: "vllm/vllm-openai:v0.32.0", HFCache: "/data/hf",
		Model: "RedHatAI/gemma-4-26B-A4B-it-NVFP4", ServedModelName: "bench", Host: "127.0.0.1", Port: 8001,
		APIKey: "k", Env: map[string]string{"VLLM_USE_V1": "1"}}
	want := "docker run --rm --name speedmatrix-vllm-8001 --gpus all --ipc=host -p 127.0.0.1:8001:8001 " +
		"-v /data/hf:/root/.cache/huggingface -e HF_TOKEN -e VLLM_API_KEY -e VLLM_USE_V1=1 vllm/vllm-openai:v0.32.0 " +
		"RedHatAI/gemma-4-26B-A4B-it-NVFP4 --served-model-name bench --host 0.0.0.0 --port 8001"
	if got := strings.Join(Command(cfg), " "); got != want {
		t.Errorf("Command =\n%s\nwant\n%s", got, want)
	}
	cfg.HFCache = "/home/ann/.cache/huggingface"
	if got := displayWith(cfg, "/home/ann"); !strings.Contains(got, ` -v "$HOME/.cache/huggingface:/root/.cache/huggingface" `) {
		t.Errorf("Display does not show the HF cache under $HOME: %s", got)
	}
	cfg.Env["HF_TOKEN"] = "hf_secret"
	got := displayWith(cfg, "/home/ann")
	if strings.Contains(got, "hf_secret") || !strings.Contains(got, "-e HF_TOKEN=<redacted>") || strings.Contains(got, "-e HF_TOKEN -e") {
		t.Errorf("Display does not redact the token once: %s", got)
	}
}

func TestDisplay(t *testing.T) {
	tests := []struct {
		name string
		cfg  ServerConfig
		want string
	}{
		{"reference report 000", seed000(), `env FLASHINFER_NVCC_THREADS=1 MAX_JOBS=2 TORCHINDUCTOR_COMPILE_THREADS=1 ` +
			`"$HOME/env_rtxpro6k-redhatai-vllm-73a5831127a9d2b8/bin/vllm" serve RedHatAI/gemma-4-E2B-it --served-model-name gemma ` +
			`--trust-remote-code --tensor-parallel-size 1 --reasoning-parser gemma4 --enable-auto-tool-choice --tool-call-parser gemma4 ` +
			`--max-model-len 131072 --gpu-memory-utilization 0.83 --host 0.0.0.0 --port 8000 --api-key <redacted> --async-scheduling`},
		{"quoting", ServerConfig{Model: "/models/my model's", ExtraArgs: []string{"--override-generation-config", `{"temperature": 0}`}},
			`vllm serve '/models/my model'\''s' --override-generation-config '{"temperature": 0}'`},
		{"secrets in extra args and env", ServerConfig{Model: "m", ExtraArgs: []string{"--api-key=abc", "--hf-token", "hf_x"},
			Env: map[string]string{"HF_TOKEN": "hf_x", "OPENAI_API_KEY": "abc", "PLAIN": "a b"}},
			`env HF_TOKEN=<redacted> OPENAI_API_KEY=<redacted> PLAIN='a b' vllm serve m --api-key=<redacted> --hf-token <redacted>`},
		{"home not a prefix of a word", ServerConfig{Executable: "/home/annex/bin/vllm", Model: "m"}, `/home/annex/bin/vllm serve m`},
		{"empty env value", ServerConfig{Model: "m", Env: map[string]string{"CUDA_VISIBLE_DEVICES": ""}}, `env CUDA_VISIBLE_DEVICES='' vllm serve m`},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			if got := displayWith(tt.cfg, "/home/ann"); got != tt.want {
				t.Errorf("Display =\n%s\nwant\n%s", got, tt.want)
			}
		})
	}
}

func TestEnviron(t *testing.T) {
	got := environ(ServerConfig{Env: map[string]string{"B": "2", "A": "1"}}, []string{"PATH=/bin", "B=old"})
	if want := []string{"PATH=/bin", "A=1", "B=2"}; !slices.Equal(got, want) {
		t.Errorf("Environ = %v, want %v", got, want)
	}
	got = environ(ServerConfig{APIKey: "sm-k", HFToken: "hf_t", Env: map[string]string{"HF_TOKEN": "env"}}, []string{"VLLM_API_KEY=old"})
	if want := []string{"HF_TOKEN=hf_t", "VLLM_API_KEY=sm-k"}; !slices.Equal(got, want) {
		t.Errorf("Environ = %v, want %v (the key and the token win)", got, want)
	}
}

// TestCommandHoldsNoSecret: whatever the runner, the key, the HF token and
// secret variables are in the environment only; Display shows the key as
// --api-key <redacted>.
func TestCommandHoldsNoSecret(t *testing.T) {
	for _, runner := range []Runner{RunnerExec, RunnerDocker} {
		cfg := ServerConfig{Runner: runner, Model: "m", Port: 8000, APIKey: "sm-secret-key", HFToken: "hf_secret_token",
			Env: map[string]string{"WANDB_API_KEY": "wandb-secret", "PLAIN": "1"}}
		argv := strings.Join(Command(cfg), " ")
		env := strings.Join(environ(cfg, nil), " ")
		for _, s := range []string{"sm-secret-key", "hf_secret_token", "wandb-secret"} {
			if strings.Contains(argv, s) || !strings.Contains(env, s) || strings.Contains(displayWith(cfg, "/h"), s) {
				t.Errorf("%s: %q: argv %q, env %q", runner, s, argv, env)
			}
		}
		if d := displayWith(cfg, "/h"); !strings.Contains(d, "--api-key <redacted>") || !strings.Contains(d, "HF_TOKEN=<redacted>") {
			t.Errorf("%s: Display = %s", runner, d)
		}
		if runner == RunnerDocker && (!strings.Contains(argv, "-e VLLM_API_KEY ") || !strings.Contains(argv, "-e WANDB_API_KEY ") || !strings.Contains(argv, "-e PLAIN=1")) {
			t.Errorf("docker argv = %s", argv)
		}
	}
}

func FuzzDisplayRedactsKey(f *testing.F) {
	for _, k := range []string{"sk-live-123", "a b", "it's", "$HOME", "--port"} {
		f.Add(k)
	}
	f.Fuzz(func(t *testing.T, key string) {
		key = "SECRET" + key
		cfg := seed000()
		cfg.APIKey = key
		cfg.ExtraArgs = []string{"--api-key", key}
		cfg.Env["MY_TOKEN"] = key
		if got := displayWith(cfg, "/home/ann"); strings.Contains(got, "SECRET") {
			t.Errorf("Display shows the key: %s", got)
		}
	})
}

// A value that starts with "-" is never a word the server reads as a flag:
// a model is the local path ./-x, another setting is joined to its flag;
// and Validate refuses such a model with a line that hides the key.
func TestDashValueIsNeverAFlag(t *testing.T) {
	const key = "sk-Y-never-shown"
	for _, tt := range []struct {
		name string
		cfg  ServerConfig
		want []string // words of the command
	}{
		{"vllm model", ServerConfig{Model: "--api-key=" + key}, []string{"serve", "./--api-key=" + key}},
		{"vllm revision", ServerConfig{Model: "m", Revision: "-x"}, []string{"--revision=-x"}},
		{"sglang model", ServerConfig{Server: "sglang", Model: "--api-key=" + key}, []string{"--model-path=--api-key=" + key}},
	} {
		t.Run(tt.name, func(t *testing.T) {
			argv := Command(tt.cfg)
			for _, w := range tt.want {
				if !slices.Contains(argv, w) {
					t.Errorf("command %q lacks %q", argv, w)
				}
			}
			for _, w := range argv[1:] {
				if w == "--api-key="+key || w == "-x" {
					t.Errorf("command %q has %q as a word of its own", argv, w)
				}
			}
		})
	}
	err := ServerConfig{Model: "--api-key=" + key}.WithDefaults().Validate()
	if err == nil || !strings.Contains(err.Error(), "starts with -") || strings.Contains(err.Error(), key) {
		t.Errorf("Validate = %v, want a refusal that hides the key", err)
	}
}
