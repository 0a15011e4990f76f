package launch

import (
	"context"
	"testing"
	"time"

	"speedmatrix/engine/openai"
	"speedmatrix/engine/sim"
)

// TestServesSimulator drives the whole chain: the config's flags reach the
// fake vllm, which serves engine/sim, which the openai client streams from.
func TestServesSimulator(t *testing.T) {
	tiny, err := sim.LookupProfile("tiny")
	if err != nil {
		t.Fatal(err)
	}
	cfg := fakeConfig(t, "", "FAKEVLLM_STARTUP_DELAY=300ms")
	cfg.MaxModelLen, cfg.Quantization, cfg.APIKey = 4096, "fp8", "sk-test"
	start := time.Now()
	s, err := launch(t, context.Background(), cfg)
	if err != nil {
		t.Fatal(err)
	}
	// /health answers 503 for the first 300 ms: ready cannot come sooner.
	if d := time.Since(start); d < 300*time.Millisecond {
		t.Errorf("ready after %v, before the simulator's start-up delay", d)
	}
	e := s.engineInfo()
	if e.KVCacheTokens != tiny.KVCacheTokens || e.MaxModelLen != 4096 || e.Quantization != "fp8" {
		t.Errorf("ServerInfo = %+v", e)
	}
	c := openai.New(s.baseURL(), s.config().APIKey)
	models, err := c.Models(context.Background())
	if err != nil || len(models) != 1 || models[0].ID != "bench" || models[0].MaxModelLen != 4096 {
		t.Fatalf("Models = %+v, %v", models, err)
	}
	st, err := c.Stream(context.Background(), openai.StreamRequest{API: "completions", Model: "bench", Prompt: "hello",
		MaxTokens: 4, IgnoreEOS: true}, func(openai.Chunk) {})
	if err != nil || st.Usage == nil || st.Usage.CompletionTokens != 4 {
		t.Errorf("Stream = %+v, %v", st, err)
	}
	if _, err := openai.New(s.baseURL(), "wrong").Models(context.Background()); err == nil {
		t.Error("the server accepted a wrong API key")
	}
}
