package cli

import (
	"context"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// TestLaunchTargetSGLang: `run --launch` of a server.toml with engine =
// "sglang" starts SGLang (the fake vllm run as python3), echoes its log as
// sglang|, and the target's Engine section says sglang with its KV cache.
func TestLaunchTargetSGLang(t *testing.T) {
	t.Parallel()
	hwCanned(t, hwCanned3090, nil)
	python := filepath.Join(filepath.Dir(buildFakeVLLM(t)), "python3")
	if err := os.Rename(filepath.Join(filepath.Dir(python), "vllm"), python); err != nil {
		t.Fatal(err)
	}
	var stderr strings.Builder
	tg, stop, err := cliFor(t).launchTarget(context.Background(), serverTOML(t, python, "", `engine = "sglang"`, "tensor_parallel_size = 1"), &stderr)
	if err != nil {
		t.Fatal(err)
	}
	defer stop()
	e := tg.Header.Server
	if e.Name != "sglang" || e.Version == "" || e.KVCacheTokens <= 0 ||
		!strings.Contains(tg.Header.LaunchCommand, "python3 -m sglang.launch_server --model-path fake/model") ||
		!strings.Contains(tg.Header.LaunchCommand, "--api-key <redacted> --enable-metrics") {
		t.Errorf("engine %+v, launch command %s", e, tg.Header.LaunchCommand)
	}
	log := stderr.String()
	if !strings.Contains(log, "starting SGLang") || !strings.Contains(log, "sglang| ") || !strings.Contains(log, "max_total_num_tokens=") ||
		!strings.Contains(log, "SGLang "+e.Version+" is ready at") || strings.Contains(log, tg.APIKey) {
		t.Errorf("stderr:\n%s", log)
	}
}
