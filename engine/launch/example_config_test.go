package launch

import (
	"strings"
	"testing"
)

// TestExampleConfigLoads keeps examples/server.toml, which the README points
// users to, loadable and its displayed command free of the API key.
func TestExampleConfigLoads(t *testing.T) {
	cfg, err := LoadConfig("../../examples/server.toml")
	if err != nil {
		t.Fatal(err)
	}
	cfg.APIKey = "sk-example-secret" // Start generates one when the file has none
	got := Display(cfg)
	for _, want := range []string{"serve RedHatAI/gemma-4-E2B-it", "--served-model-name gemma", "--max-model-len 131072", "--host 127.0.0.1", "<redacted>"} {
		if !strings.Contains(got, want) {
			t.Errorf("Display = %s\nmissing %q", got, want)
		}
	}
	if strings.Contains(got, cfg.APIKey) {
		t.Errorf("Display shows the generated key: %s", got)
	}
}

// TestCPUExampleConfigLoads keeps examples/cpu-server.toml loadable and
// every CPU setting on its command.
func TestCPUExampleConfigLoads(t *testing.T) {
	cfg, err := LoadConfig("../../examples/cpu-server.toml")
	if err != nil {
		t.Fatal(err)
	}
	got := Display(cfg)
	for _, want := range []string{"VLLM_CPU_OMP_THREADS_BIND=auto", "VLLM_TARGET_DEVICE=cpu", "serve Qwen/Qwen3-0.6B", "--kv-cache-memory-bytes 17179869184", "--dtype bfloat16"} {
		if !strings.Contains(got, want) {
			t.Errorf("Display = %s\nmissing %q", got, want)
		}
	}
}
