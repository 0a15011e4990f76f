package servers

import (
	"slices"
	"testing"
)

// TestRegistry: every entry has a name of its own that Lookup finds, and
// the launchable engines and simulator modes come in the front ends' order.
func TestRegistry(t *testing.T) {
	seen := map[string]bool{}
	for _, e := range Registry {
		if e.Name == "" || e.Title == "" || seen[e.Name] {
			t.Errorf("entry %q (%q): want a name of its own and a title", e.Name, e.Title)
		}
		seen[e.Name] = true
		if got, ok := Lookup(e.Name); !ok || got.Name != e.Name {
			t.Errorf("Lookup(%q) = %q, %v", e.Name, got.Name, ok)
		}
	}
	if _, ok := Lookup("trtllm"); ok {
		t.Error("Lookup found an engine that is not in Registry")
	}
	if got := Launchable(); !slices.Equal(got, []string{VLLM, SGLang}) {
		t.Errorf("Launchable = %q, want vllm, sglang", got)
	}
	if got := SimModes(); !slices.Equal(got, []string{VLLM, SGLang}) {
		t.Errorf("SimModes = %q, want vllm, sglang", got)
	}
}

// TestBySimMode: a mode names its engine; any other, "" included, is an
// error that names the modes (the CLI's flags print it as it is).
func TestBySimMode(t *testing.T) {
	if e, err := BySimMode(SGLang); err != nil || e.Title != SGLangTitle {
		t.Errorf("BySimMode(sglang) = %q, %v", e.Title, err)
	}
	for _, mode := range []string{"", "trtllm", genericEntry.Name} {
		_, err := BySimMode(mode)
		if want := `"` + mode + `" is not one the simulator speaks: use vllm or sglang`; err == nil || err.Error() != want {
			t.Errorf("BySimMode(%q) = %v, want %s", mode, err, want)
		}
	}
}

// TestSupports: SGLang has no flag for vLLM's own keys; vLLM has one for
// every key.
func TestSupports(t *testing.T) {
	for _, tc := range []struct {
		engine, key string
		want        bool
	}{
		{VLLM, "async_scheduling", true}, {VLLM, "cpu_kvcache_space_gib", true},
		{SGLang, "async_scheduling", false}, {SGLang, "device", false}, {SGLang, "tensor_parallel_size", true},
	} {
		e, _ := Lookup(tc.engine)
		if got := e.Supports(tc.key); got != tc.want {
			t.Errorf("%s supports %s = %v, want %v", tc.engine, tc.key, got, tc.want)
		}
	}
}

// TestEnvPrefixes: the variables a report keeps, in the order its "none of
// … set" names them.
func TestEnvPrefixes(t *testing.T) {
	if want := []string{"VLLM_", "CUDA_", "NCCL_", "TORCH_", "HF_"}; !slices.Equal(EnvPrefixes, want) {
		t.Errorf("EnvPrefixes = %q, want %q", EnvPrefixes, want)
	}
	for name, want := range map[string]bool{"VLLM_USE_V1": true, "HF_TOKEN": true, "SGLANG_X": false, "PATH": false} {
		if got := IsRelevantEnv(name); got != want {
			t.Errorf("IsRelevantEnv(%s) = %v, want %v", name, got, want)
		}
	}
}
