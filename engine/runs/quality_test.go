package runs

import (
	"bytes"
	"cmp"
	"context"
	"encoding/json"
	"errors"
	"io"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"speedmatrix/engine"
	"speedmatrix/engine/openai"
	"speedmatrix/engine/quality"
	"speedmatrix/engine/quality/probe"
	"speedmatrix/engine/sim"
	"speedmatrix/engine/sim/simtest"
)

// simClient is the simulator's tiny profile with numerics n, fast.
func simClient(t *testing.T, n sim.Numerics) *openai.Client {
	return openai.New(simtest.URL(t, "tiny", sim.Options{Numerics: n}), "")
}

// qualityPlan records a small reference of the plain simulator and reads
// it back as a file is read.
func qualityPlan(t *testing.T) Quality {
	t.Helper()
	s, err := probe.Connect(t.Context(), simClient(t, sim.Numerics{}), "")
	if err != nil {
		t.Fatal(err)
	}
	o := probe.Options{Contexts: []int{512, 4096}, Probes: 2, ContinuationTokens: 32}
	ref, err := probe.Record(t.Context(), s, quality.Header{}, o, func(quality.Reference) error { return nil })
	if err != nil {
		t.Fatal(err)
	}
	b, _ := json.Marshal(ref)
	read, sum, err := ReadReference(bytes.NewReader(b))
	if err != nil || len(sum) != 64 {
		t.Fatalf("ReadReference: %v, digest %q", err, sum)
	}
	return Quality{Reference: read, File: "/x/ref.quality.json", SHA256: sum, NeedleTrials: 2, Budget: quality.DefaultBudget()}
}

// TestQualityPhase: the phase against an FP8 KV cache fills the report's
// quality section with real drift at the long context, keeps the run
// incomplete while it runs, and an interrupted phase resumed from the
// saved report asks no context twice.
func TestQualityPhase(t *testing.T) {
	q := qualityPlan(t)
	s, err := q.Connect(t.Context(), simClient(t, sim.Numerics{KVCacheDType: "fp8"}), "")
	if err != nil {
		t.Fatal(err)
	}
	cells := engine.Report{Run: engine.RunInfo{Complete: true}}
	ctx, cancel := context.WithCancel(t.Context())
	var saved []engine.Report
	stopped, err := q.Run(ctx, s, cells, nil, nil, func(r engine.Report) error {
		if saved = append(saved, r); r.Quality != nil && len(r.Quality.Contexts) == 1 {
			cancel() // after the first context
		}
		return nil
	})
	if !errors.Is(err, context.Canceled) || !Pending(stopped) || stopped.Run.Complete || len(stopped.Quality.Contexts) != 1 {
		t.Fatalf("interrupted phase: %v, pending %v, complete %v: want canceled, pending, not complete, one context", err, Pending(stopped), stopped.Run.Complete)
	}
	if first := saved[0]; first.Quality == nil || !Pending(first) || first.Quality.ReferenceFile != "ref.quality.json" || first.Quality.ReferenceSHA256 != q.SHA256 {
		t.Fatalf("the phase's first save: %+v", first.Quality)
	}
	prior, err := q.Prior(&stopped)
	if err != nil || prior == nil {
		t.Fatalf("Prior: %v, %v", prior, err)
	}
	var asked []probe.Event
	done, err := q.Run(t.Context(), s, stopped, prior, func(e probe.Event) { asked = append(asked, e) }, func(engine.Report) error { return nil })
	if err != nil {
		t.Fatal(err)
	}
	for _, e := range asked {
		if e.Phase == probe.PhaseCompare && e.ContextTokens == 512 {
			t.Fatalf("the resumed phase compared 512 again")
		}
	}
	if !done.Run.Complete || Pending(done) || len(done.Quality.Contexts) != 2 || len(done.Quality.Needle) != 2 {
		t.Fatalf("resumed phase: complete %v, %d contexts, %d needle contexts", done.Run.Complete, len(done.Quality.Contexts), len(done.Quality.Needle))
	}
	long := done.Quality.Contexts[1]
	floor, _ := done.Quality.NoiseFloor.At(long.ContextTokens)
	if v, ok := quality.Judge(long, floor); !ok || !v.Real() {
		t.Errorf("fp8 at %d tokens: KLD %g, top-1 %.2f %%: want real drift", long.ContextTokens, long.KLDMean, long.Top1Pct)
	}
	other := q
	// Another digest: its first digit changed, whatever it was ("0" + the
	// rest was the same digest for 1 in 16 references).
	flip := map[byte]string{'0': "1"}[q.SHA256[0]]
	other.SHA256, other.File = cmp.Or(flip, "0")+q.SHA256[1:], "other.json"
	var changed *ReferenceChangedError
	if _, err := other.Prior(&done); !errors.As(err, &changed) {
		t.Errorf("another file's Prior: %v, want a ReferenceChangedError", err)
	}
}

// TestQualityOtherTokenizer: a reference of another tokenizer is refused
// by Connect, before a cell would be measured.
func TestQualityOtherTokenizer(t *testing.T) {
	q := qualityPlan(t)
	q.Reference.Model, q.Reference.Tokenizer = "llama-3-8b", quality.Fingerprint([]int{1, 2, 3})
	_, err := q.Connect(t.Context(), simClient(t, sim.Numerics{}), "")
	var te *quality.TokenizerError
	if !errors.As(err, &te) || te.ReferenceModel != "llama-3-8b" || te.Model != "tiny" {
		t.Fatalf("Connect: %v, want a TokenizerError naming both models", err)
	}
}

// TestQualityEstimate: the estimate grows with the needle trials and
// the rates' inverse, and leaves out what a prior phase compared.
func TestQualityEstimate(t *testing.T) {
	q := qualityPlan(t)
	r := Rates{PrefillTokPerS: 1000, DecodeTokPerS: 10}
	all := q.Estimate(nil, r)
	// 2 probes of 32 tokens a context at 10 tok/s, the second's decode
	// beside others (a DefaultParallel-th), their prompts at 1000 tok/s;
	// 2 needle trials a context, all beside others.
	decode, p := requestOverheadS+32.0/10, float64(probe.DefaultParallel)
	want := 2*decode + 2*decode/p + 2*(512+4096)/1000.0 + 2*(512+4096)/1000.0 + 4*(requestOverheadS+needleAnswerTokens/10.0)/p
	if got := all.Seconds(); got < want*0.999 || got > want*1.001 {
		t.Errorf("Estimate = %.2f s, want %.2f s", got, want)
	}
	prior := &quality.Report{Contexts: []quality.ContextDrift{{ContextTokens: 512, Positions: 64}}}
	if left := q.Estimate(prior, r); left >= all {
		t.Errorf("with 512 compared: %v, not less than %v", left, all)
	}
	if slow := q.Estimate(nil, Rates{PrefillTokPerS: 1000, DecodeTokPerS: 5}); slow <= all {
		t.Errorf("at half the decode rate: %v, not more than %v", slow, all)
	}
	if got := RatesOf(engine.Report{}); got.DecodeTokPerS != PriorDecodeTokPerS {
		t.Errorf("RatesOf an empty report: %+v, want the priors", got)
	}
}

// TestReadReferenceRefusesAHugeFileUnread: a file over the reference's
// bounds is refused by its size, before a byte is read.
func TestReadReferenceRefusesAHugeFileUnread(t *testing.T) {
	path := filepath.Join(t.TempDir(), "huge.quality.json")
	f, err := os.Create(path)
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	if err := f.Truncate(quality.MaxReferenceBytes + 1); err != nil { // sparse: no disk used
		t.Fatal(err)
	}
	var re *quality.ReferenceError
	if _, _, err := ReadReference(f); !errors.As(err, &re) || !strings.Contains(err.Error(), "larger than") {
		t.Fatalf("a file over the bounds: %v, want a ReferenceError for its size", err)
	}
	if pos, _ := f.Seek(0, io.SeekCurrent); pos != 0 {
		t.Errorf("read %d bytes of it before refusing", pos)
	}
}
