package launch

import (
	"os"
	"strings"
	"testing"
)

// TestRealStartupLog reads the log of a real vLLM 0.32.0 (its CPU build
// from PyPI, recorded by scripts/real-vllm.sh --update-testdata) serving the
// rig's tiny model with max_model_len 4096 and a 32 MiB KV cache. Before it,
// the parser knew the KV line only as "GPU KV cache size", and the CPU
// build's Engine section said 0 tokens and backend cuda.
func TestRealStartupLog(t *testing.T) {
	b, err := os.ReadFile("testdata/real/vllm-0.32.0-cpu-startup.log")
	if err != nil {
		t.Fatal(err)
	}
	f := ParseLog(string(b))
	want := LogFacts{
		Version: "0.32.0", KVCacheTokens: 32768, MaxConcurrency: 8, ConcurrencyTokens: 4096,
		DType: "bfloat16", Started: true, LooksLikeServer: true, Platform: "cpu",
	}
	// The CPU build logs neither "Model loading took X GiB" nor "Available
	// KV cache memory" (it says "Explicitly set (0.03/23.54) GiB for KV
	// cache"): the roofline's byte figures stay unknown, as they should on
	// a CPU.
	f.dpRanks = 0
	if f != want {
		t.Errorf("ParseLog = %+v\nwant       %+v", f, want)
	}
	// Line by line, as Launch reads it, gives the same facts.
	var g LogFacts
	for _, line := range strings.Split(string(b), "\n") {
		g.Add(line)
	}
	g.dpRanks = 0
	if g != f {
		t.Errorf("Add line by line = %+v, ParseLog = %+v", g, f)
	}
}

// TestRealStartupFailure reads the log of the same real vLLM started
// without a KV cache size on a machine whose free memory was under the 92 %
// of RAM that gpu_memory_utilization's default asks of the CPU build: the
// worker's ValueError is the diagnosis, not the RuntimeError the log ends on.
func TestRealStartupFailure(t *testing.T) {
	b, err := os.ReadFile("testdata/real/vllm-0.32.0-cpu-no-memory.log")
	if err != nil {
		t.Fatal(err)
	}
	f := ParseLog(string(b))
	if f.Fatal == nil || f.Fatal.Kind != fatalCPUMemory || !strings.Contains(f.Fatal.Line, "less than desired CPU memory utilization") {
		t.Fatalf("Fatal = %+v; want %s from the worker's ValueError", f.Fatal, fatalCPUMemory)
	}
	if msg := f.Fatal.Error(); !strings.Contains(msg, "--kv-cache-memory-bytes") || strings.Contains(msg, "\n") {
		t.Errorf("Error() = %q: want one line that says to size the KV cache", msg)
	}
	if f.Platform != "" || f.KVCacheTokens != 0 || f.Started {
		t.Errorf("facts of a server that never started: %+v", f)
	}
}
