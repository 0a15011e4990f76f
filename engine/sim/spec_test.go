package sim

import (
	"encoding/json"
	"math"
	"strings"
	"testing"
)

// TestSpecDecodeCounters decodes one long request speculatively and checks
// vLLM's counters: a draft per decode step but the last, draft tokens k a
// draft (fewer near the end), accepted tokens the sum over positions, each
// position accepted no more often than the one before, and the output
// exactly max_tokens with a mean yield per step that follows the rate.
func TestSpecDecodeCounters(t *testing.T) {
	for _, tc := range []struct {
		rate          float64
		wantPerDraftS float64 // expected accepted tokens per draft: rate + rate² + rate³
	}{{0, 0}, {0.7, 0.7 + 0.49 + 0.343}, {1, 3}} {
		p := tinySpecProfile()
		p.SpecDecode = &SpecDecode{NumSpeculativeTokens: 3, AcceptanceRate: tc.rate}
		c := newCore(p)
		lat := countLatencies(c)
		q := harnessSeq(p, harnessPrompt(100, 19, 0), 3001)
		q.specKey = 42
		c.submit(q, 0)
		runUntilDone(c, q, 0)
		st := c.stats.spec
		sum := int64(0)
		for i, n := range st.acceptedPerPos {
			sum += n
			if i > 0 && n > st.acceptedPerPos[i-1] {
				t.Errorf("rate %g: position %d accepted %d times, position %d only %d", tc.rate, i, n, i-1, st.acceptedPerPos[i-1])
			}
		}
		perDraft := float64(st.accepted) / float64(st.drafts)
		switch {
		case q.generated != 3001 || c.stats.generationTokens != 3001:
			t.Errorf("rate %g: %d tokens generated (%d counted), want 3001", tc.rate, q.generated, c.stats.generationTokens)
		case sum != st.accepted || st.draftTokens > 3*st.drafts || st.draftTokens < 3*st.drafts-3:
			t.Errorf("rate %g: accepted %d (per position %v), %d draft tokens in %d drafts", tc.rate, st.accepted, st.acceptedPerPos, st.draftTokens, st.drafts)
		case math.Abs(perDraft-tc.wantPerDraftS) > 0.1:
			t.Errorf("rate %g: %.3f tokens accepted per draft, want about %.3f", tc.rate, perDraft, tc.wantPerDraftS)
		case int64(lat.itl) != 3000-st.accepted:
			// One inter-token latency per decode step, as vLLM observes it.
			t.Errorf("rate %g: %d inter-token latencies for %d decode steps", tc.rate, lat.itl, 3000-st.accepted)
		}
	}
}

// TestSpecDecodeIsFaster checks that tiny-spec decodes more tokens per
// model second than tiny.
func TestSpecDecodeIsFaster(t *testing.T) {
	plain := virtualDecode(tinyProfile(), 1000, 4, 1024, 10).TokPerSec
	spec := virtualDecode(tinySpecProfile(), 1000, 4, 1024, 10).TokPerSec
	if spec < 1.5*plain {
		t.Errorf("tiny-spec decodes %.0f tok/s, tiny %.0f: want at least 1.5×", spec, plain)
	}
}

// TestSpecDecodeStream checks that a stream from a speculative server still
// sends one chunk per token with exact running usage, and that /metrics
// carries vLLM's speculative decoding counters.
func TestSpecDecodeStream(t *testing.T) {
	_, url := newTestServer(t, Options{Profile: tinySpecProfile()})
	code, b := post(t, url+"/v1/completions", `{"prompt":[1,300,301],"max_tokens":50,"ignore_eos":true,"stream":true,"stream_options":{"include_usage":true,"continuous_usage_stats":true}}`)
	if code != 200 {
		t.Fatalf("status %d: %s", code, b)
	}
	chunks := decodeChunks(t, events(t, b))
	if len(chunks) != 51 {
		t.Fatalf("%d chunks, want 50 tokens and the usage", len(chunks))
	}
	for i, c := range chunks[:50] {
		if c.Usage == nil || c.Usage.CompletionTokens != i+1 || c.Usage.PromptTokens != 3 {
			t.Fatalf("chunk %d usage %+v, want %d completion tokens", i, c.Usage, i+1)
		}
	}
	if u := chunks[50].Usage; u == nil || u.CompletionTokens != 50 || u.TotalTokens != 53 {
		t.Errorf("usage chunk %+v", chunks[50])
	}
	_, m := get(t, url+"/metrics")
	accepted := metricValue(t, m, `vllm:spec_decode_num_accepted_tokens_total{`)
	drafts := metricValue(t, m, `vllm:spec_decode_num_drafts_total{`)
	draftTokens := metricValue(t, m, `vllm:spec_decode_num_draft_tokens_total{`)
	var perPos float64
	for _, pos := range []string{"0", "1", "2"} {
		perPos += metricValue(t, m, `vllm:spec_decode_num_accepted_tokens_per_pos_total{engine="0",model_name="tiny",position="`+pos+`"}`)
	}
	// 49 tokens after the first: one per draft plus the accepted ones.
	if accepted == 0 || drafts+accepted != 49 || perPos != accepted || draftTokens < 3*drafts-3 || draftTokens > 3*drafts {
		t.Errorf("drafts %g, draft tokens %g, accepted %g (by position %g): want drafts+accepted = 49", drafts, draftTokens, accepted, perPos)
	}
	if g := metricValue(t, m, `vllm:generation_tokens_total{`); g != 50 {
		t.Errorf("generation_tokens_total %g, want 50", g)
	}
	var resp struct {
		Usage struct {
			CompletionTokens int `json:"completion_tokens"`
		} `json:"usage"`
	}
	_, b = post(t, url+"/v1/completions", `{"prompt":"hi","max_tokens":77,"ignore_eos":true}`)
	if err := json.Unmarshal(b, &resp); err != nil || resp.Usage.CompletionTokens != 77 {
		t.Errorf("non-streaming answer %s: want 77 completion tokens", b)
	}
}

func TestSpecDecodeMetricsOnlyWhenSpeculative(t *testing.T) {
	_, url := newTestServer(t, Options{})
	if _, m := get(t, url+"/metrics"); strings.Contains(string(m), "spec_decode") {
		t.Error("tiny (no speculative decoding) exposes spec_decode counters")
	}
}

func TestSpecDecodeValidate(t *testing.T) {
	for _, tc := range []struct {
		sd *SpecDecode
		ok bool
	}{
		{nil, true},
		{&SpecDecode{NumSpeculativeTokens: 3, AcceptanceRate: 0.7}, true},
		{&SpecDecode{NumSpeculativeTokens: 0, AcceptanceRate: 0.7}, false},
		{&SpecDecode{NumSpeculativeTokens: 17, AcceptanceRate: 0.7}, false},
		{&SpecDecode{NumSpeculativeTokens: 3, AcceptanceRate: 1.5}, false},
		{&SpecDecode{NumSpeculativeTokens: 3, AcceptanceRate: math.NaN()}, false},
		{&SpecDecode{NumSpeculativeTokens: 3, AcceptanceRate: 0.5, DraftTokenS: -1}, false},
	} {
		p := tinyProfile()
		p.SpecDecode = tc.sd
		if err := p.Validate(); (err == nil) != tc.ok {
			t.Errorf("%+v: Validate = %v, want ok %v", tc.sd, err, tc.ok)
		}
	}
	if p, err := LookupProfile("tiny-spec"); err != nil || p.SpecDecode == nil || tinyProfile().SpecDecode != nil {
		t.Errorf("tiny-spec: %v; want it speculative and tiny not", err)
	}
}
