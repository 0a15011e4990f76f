package probe

import (
	"context"
	"errors"
	"testing"

	"speedmatrix/engine/openai"
	"speedmatrix/engine/quality"
	"speedmatrix/engine/sim"
	"speedmatrix/engine/sim/simtest"
)

// simServer is the simulator's tiny profile (max_model_len 8192) with
// these numerics and logprobs cap, fast, as a Server.
func simServer(t *testing.T, n sim.Numerics, maxLogprobs int) Server {
	t.Helper()
	return connect(t, simtest.URL(t, "tiny", sim.Options{Numerics: n, MaxLogprobs: maxLogprobs}))
}

// connect is the Server at url.
func connect(t *testing.T, url string) Server {
	t.Helper()
	server, err := Connect(context.Background(), openai.New(url, ""), "")
	if err != nil {
		t.Fatal(err)
	}
	return server
}

// record records a reference on s, keeping every save.
func record(t *testing.T, s Server, o Options) (quality.Reference, int) {
	t.Helper()
	saves := 0
	ref, err := Record(context.Background(), s, quality.Header{}, o, func(quality.Reference) error { saves++; return nil })
	if err != nil {
		t.Fatal(err)
	}
	return ref, saves
}

func compare(t *testing.T, s Server, ref quality.Reference) quality.Report {
	t.Helper()
	rep, err := Compare(context.Background(), s, ref, Options{}, func(quality.Report) error { return nil })
	if err != nil {
		t.Fatal(err)
	}
	return rep
}

// TestQualitySameServer: a reference compared with the server that
// recorded it agrees everywhere, and its drift is at the noise floor.
func TestQualitySameServer(t *testing.T) {
	s := simServer(t, sim.Numerics{}, 0)
	ref, saves := record(t, s, Options{Contexts: []int{512, 1024}, Probes: 3, ContinuationTokens: 32})
	if saves != 2 || len(ref.Probes) != 6 || ref.K != quality.MaxK || ref.Model != "tiny" {
		t.Fatalf("saves %d, probes %d, K %d, model %q: want 2, 6, %d, tiny", saves, len(ref.Probes), ref.K, ref.Model, quality.MaxK)
	}
	for i, p := range ref.Probes {
		if len(p.Prompt) != p.ContextTokens || len(p.Continuation) != 32 || len(p.TopK) != 32 || len(p.Loaded) != 32 {
			t.Fatalf("probe %d: prompt %d of %d, continuation %d, top-K %d, loaded %d", i, len(p.Prompt), p.ContextTokens, len(p.Continuation), len(p.TopK), len(p.Loaded))
		}
	}
	rep := compare(t, s, ref)
	if len(rep.Contexts) != 2 {
		t.Fatalf("%d contexts compared, want 2", len(rep.Contexts))
	}
	for _, c := range rep.Contexts {
		floor, ok := rep.NoiseFloor.At(c.ContextTokens)
		if !ok {
			t.Fatalf("%d tokens: no noise floor", c.ContextTokens)
		}
		// Four probes at a time batch, and the simulator's batch jitter
		// (a GPU's) moves a few logits: at the floor, not exactly 0.
		if v, _ := quality.Judge(c, floor); c.Top1Pct < 99 || c.KLDMean > 1e-4 || c.Positions != 96 || v.Real() {
			t.Errorf("%d tokens: top-1 %.2f %%, KLD %g over %d positions, real %v: want ≥ 99, ≤ 1e-4, 96, at the floor", c.ContextTokens, c.Top1Pct, c.KLDMean, c.Positions, v.Real())
		}
	}
	// A batch-invariant server computes alone what it computes beside
	// others: compared with a reference it recorded (whose "alone" pass
	// may share a step with the loaded pass's last streams, which only a
	// batch-invariant server makes harmless), it agrees exactly.
	inv := simServer(t, sim.Numerics{BatchInvariant: true}, 0)
	invRef, _ := record(t, inv, Options{Contexts: []int{512, 1024}, Probes: 3, ContinuationTokens: 32})
	for _, c := range compare(t, inv, invRef).Contexts {
		if c.Top1Pct != 100 || c.KLDMean != 0 || c.KLDMax != 0 {
			t.Errorf("%d tokens, batch-invariant: top-1 %.2f %%, KLD mean %g, max %g: want 100, 0, 0", c.ContextTokens, c.Top1Pct, c.KLDMean, c.KLDMax)
		}
	}
}

// TestQualityDriftGrowsWithContext: an FP8 KV cache drifts more at 8K
// than at 512 tokens, really so at 8K; an int4 one is over the budget
// kld=0.01,top1=98 %.
func TestQualityDriftGrowsWithContext(t *testing.T) {
	ref, _ := record(t, simServer(t, sim.Numerics{}, 0), Options{Contexts: []int{512, 8192}, Probes: 6, ContinuationTokens: 64})
	if ref.Contexts[1] != 8192-64-256 {
		t.Fatalf("8K fitted to %d tokens, want %d (max_model_len less the continuation and the template's reserve)", ref.Contexts[1], 8192-64-256)
	}
	fp8 := compare(t, simServer(t, sim.Numerics{KVCacheDType: "fp8"}, 0), ref)
	short, long := fp8.Contexts[0], fp8.Contexts[1]
	if long.KLDMean <= short.KLDMean || long.Top1Pct >= short.Top1Pct {
		t.Errorf("fp8: KLD %g at 512, %g at 8K; top-1 %.2f %%, %.2f %%: want more drift at 8K", short.KLDMean, long.KLDMean, short.Top1Pct, long.Top1Pct)
	}
	floor, _ := fp8.NoiseFloor.At(long.ContextTokens)
	if v, ok := quality.Judge(long, floor); !ok || !v.Real() {
		t.Errorf("fp8 at 8K: KLD %g (%v) against the floor's %g (%v): want real", long.KLDMean, long.CI.KLDMean, floor.KLDMean, floor.CI.KLDMean)
	}
	int4 := compare(t, simServer(t, sim.Numerics{KVCacheDType: "int4_per_token_head"}, 0), ref)
	budget, err := quality.ParseBudget("kld=0.01,top1=98%")
	if err != nil {
		t.Fatal(err)
	}
	floor, _ = int4.NoiseFloor.At(int4.Contexts[1].ContextTokens)
	if c := budget.Check(int4.Contexts[1], floor); !c.Over() {
		t.Errorf("int4 at 8K: top-1 %.2f %%, KLD %g: want over %s", int4.Contexts[1].Top1Pct, int4.Contexts[1].KLDMean, budget)
	}
}

// TestQualityOtherTokenizerRefused: a reference of another model and
// tokenizer is refused, naming both, before anything is compared.
func TestQualityOtherTokenizerRefused(t *testing.T) {
	s := simServer(t, sim.Numerics{}, 0)
	ref, _ := record(t, s, Options{Contexts: []int{512}, Probes: 1, ContinuationTokens: 8})
	ref.Model, ref.Tokenizer = "llama-3-8b", quality.Fingerprint([]int{1, 2, 3})
	_, err := Compare(context.Background(), s, ref, Options{}, func(quality.Report) error { t.Fatal("saved"); return nil })
	var te *quality.TokenizerError
	if !errors.As(err, &te) || te.ReferenceModel != "llama-3-8b" || te.Model != "tiny" {
		t.Fatalf("err = %v, want a TokenizerError naming llama-3-8b and tiny", err)
	}
}

// TestQualityCap: a server whose --max-logprobs is below 20 is asked at
// its cap, and the check says so once.
func TestQualityCap(t *testing.T) {
	s := simServer(t, sim.Numerics{}, 5)
	var caps []Event
	o := Options{Contexts: []int{512}, Probes: 2, ContinuationTokens: 8, Events: func(e Event) {
		if e.Phase == PhaseCap {
			caps = append(caps, e)
		}
	}}
	ref, _ := record(t, s, o)
	if ref.K != 5 || len(caps) != 1 || caps[0].Cap != 5 || caps[0].Asked != 20 {
		t.Fatalf("K %d, cap events %+v: want K 5 and one event, 20 → 5", ref.K, caps)
	}
	if rep := compare(t, s, ref); rep.Contexts[0].Top1Pct != 100 {
		t.Errorf("top-1 %.2f %% at the cap, want 100", rep.Contexts[0].Top1Pct)
	}
}
