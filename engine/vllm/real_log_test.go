package vllm

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
