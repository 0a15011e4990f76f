package launch

import (
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"
)

func writeFile(t *testing.T, path, text string) string {
	t.Helper()
	if err := os.MkdirAll(filepath.Dir(path), 0o755); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(path, []byte(text), 0o644); err != nil {
		t.Fatal(err)
	}
	return path
}

func TestLoadConfig(t *testing.T) {
	path := writeFile(t, filepath.Join(t.TempDir(), "server.toml"), `
executable = "/opt/venv/bin/vllm"
model = "RedHatAI/gemma-4-E2B-it"
served_model_name = "gemma"
revision = "main"
tensor_parallel_size = 2
pipeline_parallel_size = 1
max_model_len = 131072
gpu_memory_utilization = 0.83
quantization = "fp8"
dtype = "bfloat16"
kv_cache_dtype = "fp8"
max_num_seqs = 128
enable_prefix_caching = false
attention_backend = "FLASHINFER"
async_scheduling = true
trust_remote_code = true
reasoning_parser = "gemma4"
tool_call_parser = "gemma4"
host = "0.0.0.0"
port = 8001
api_key = "k"
api_key_file = "/run/key"
hf_token = "hf_x"
extra_args = ["--language-model-only"]
startup_timeout = "45m"
stop_grace = "5s"
[env]
MAX_JOBS = "2"
`)
	cfg, err := LoadConfig(path)
	if err != nil {
		t.Fatal(err)
	}
	want := "/opt/venv/bin/vllm serve RedHatAI/gemma-4-E2B-it --served-model-name gemma --revision main --trust-remote-code " +
		"--tensor-parallel-size 2 --pipeline-parallel-size 1 --reasoning-parser gemma4 --enable-auto-tool-choice --tool-call-parser gemma4 " +
		"--max-model-len 131072 --gpu-memory-utilization 0.83 --max-num-seqs 128 --quantization fp8 --dtype bfloat16 --kv-cache-dtype fp8 " +
		"--no-enable-prefix-caching --attention-backend FLASHINFER --host 0.0.0.0 --port 8001 --async-scheduling --language-model-only"
	if got := strings.Join(Command(cfg), " "); got != want {
		t.Errorf("Command =\n%s\nwant\n%s", got, want)
	}
	if cfg.APIKey != "k" || cfg.HFToken != "hf_x" || cfg.APIKeyFile != "/run/key" {
		t.Errorf("secrets: key %q, token %q, file %q", cfg.APIKey, cfg.HFToken, cfg.APIKeyFile)
	}
	if cfg.StartupTimeout != 45*time.Minute || cfg.StopGrace != 5*time.Second || cfg.Env["MAX_JOBS"] != "2" || cfg.Runner != RunnerExec {
		t.Errorf("cfg = %+v", cfg)
	}
}

func TestLoadConfigDefaults(t *testing.T) {
	t.Setenv("HF_HOME", "/data/hf")
	path := writeFile(t, filepath.Join(t.TempDir(), "server.toml"), "model = \"m\"\nrunner = \"docker\"\n")
	cfg, err := LoadConfig(path)
	if err != nil {
		t.Fatal(err)
	}
	if cfg.Host != "127.0.0.1" || cfg.Port != 8000 || cfg.DockerImage != defaultDockerImage || cfg.HFCache != "/data/hf" ||
		cfg.StartupTimeout != defaultStartupTimeout || cfg.APIKey != "" {
		t.Errorf("defaults not applied: %+v", cfg)
	}
	if cfg.baseURL() != "http://127.0.0.1:8000" {
		t.Errorf("BaseURL = %s", cfg.baseURL())
	}
}

func TestLoadConfigErrors(t *testing.T) {
	tests := []struct {
		name, text, want string
	}{
		{"unknown key", "model = \"m\"\nmax_model_length = 4096\n", `unknown key "max_model_length"`},
		{"unknown nested key", "model = \"m\"\n[docker]\nimage = \"x\"\n", `unknown key "docker`},
		{"no model", "port = 8000\n", "model is empty"},
		{"bad utilization", "model = \"m\"\ngpu_memory_utilization = 83\n", "gpu_memory_utilization 83 is out of range"},
		{"bad runner", "model = \"m\"\nrunner = \"podman\"\n", `runner "podman" is unknown`},
		{"bad port", "model = \"m\"\nport = 70000\n", "port 70000 is out of range"},
		{"bad host", "model = \"m\"\nhost = \"my box\"\n", "is not an IP address"},
		{"negative", "model = \"m\"\nmax_num_seqs = -1\n", "max_num_seqs -1 is negative"},
		{"bad duration", "model = \"m\"\nstartup_timeout = \"soon\"\n", "startup_timeout"},
		{"not toml", "model = \n", "read server config"},
		{"key in extra args", "model = \"m\"\nextra_args = [\"--api-key\", \"k\"]\n", "extra_args holds --api-key, which every user of this machine would see in ps: set api_key"},
		{"bad gpu_metrics", "model = \"m\"\ngpu_metrics = [\"node2:9400\"]\n", `gpu_metrics "node2:9400" is not an http(s) URL`},
		{"token in extra args", "model = \"m\"\nextra_args = [\"--hf-token=hf_x\"]\n", "set hf_token instead"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			path := writeFile(t, filepath.Join(t.TempDir(), "server.toml"), tt.text)
			_, err := LoadConfig(path)
			if err == nil || !strings.Contains(err.Error(), tt.want) {
				t.Errorf("err = %v, want it to contain %q", err, tt.want)
			}
		})
	}
	if _, err := LoadConfig(filepath.Join(t.TempDir(), "missing.toml")); err == nil {
		t.Error("a missing file loaded")
	}
}

func TestNewAPIKey(t *testing.T) {
	a, err := newAPIKey()
	if err != nil {
		t.Fatal(err)
	}
	b, _ := newAPIKey()
	if a == b || len(a) < 40 {
		t.Errorf("keys %q and %q", a, b)
	}
}

// TestOutputSettings: every output key is a string field of server.toml,
// and the settings a reference records are those that are set.
func TestOutputSettings(t *testing.T) {
	all := ServerConfig{Model: "m", Revision: "r", Quantization: "awq", DType: "float32", KVCacheDType: "fp8"}
	if got := all.OutputSettings(); len(got) != len(OutputKeys) {
		t.Errorf("every output key set gives %v: want one setting per key of %v", got, OutputKeys)
	}
	got := ServerConfig{Model: "m", KVCacheDType: "fp8", MaxNumSeqs: 4}.OutputSettings()
	if len(got) != 2 || got["kv_cache_dtype"] != "fp8" || got["model"] != "m" {
		t.Errorf("OutputSettings = %v, want model and kv_cache_dtype", got)
	}
}
