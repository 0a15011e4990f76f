package probe

import (
	"context"
	"errors"
	"net/http"
	"net/http/httptest"
	"testing"

	"speedmatrix/engine/openai"
	"speedmatrix/engine/quality"
	"speedmatrix/engine/sim"
)

// TestQualityNeedleMcNemar: the same 20 needle trials at 8K, on the
// reference and on an int4 KV cache, differ significantly; the reference
// against itself does not.
func TestQualityNeedleMcNemar(t *testing.T) {
	base := simServer(t, sim.Numerics{}, 0)
	run := func(s Server, ref []quality.NeedleContext) []quality.NeedleContext {
		saves := 0
		out, err := Needle(context.Background(), s, []int{8192}, 20, 7, "", ref, nil, func([]quality.NeedleContext) error { saves++; return nil })
		if err != nil || saves != 1 || len(out) != 1 {
			t.Fatalf("needle: %v, %d saves, %d contexts", err, saves, len(out))
		}
		return out
	}
	ref := run(base, nil)
	if ref[0].AccuracyPct != 100 || ref[0].Reference != nil || ref[0].CI.Lo < 83 {
		t.Fatalf("reference: %.0f %% (%v), paired %v: want 20/20 with its Wilson interval, unpaired", ref[0].AccuracyPct, ref[0].CI, ref[0].Reference)
	}
	if again := run(base, ref); again[0].Reference == nil || again[0].Reference.P != 1 {
		t.Errorf("the reference against itself: %v, want p = 1", again[0].Reference)
	}
	int4 := run(simServer(t, sim.Numerics{KVCacheDType: "int4_per_token_head"}, 0), ref)
	p := int4[0].Reference
	if p == nil || p.P >= 0.05 || p.Before != 20 || p.After >= 20 || p.AfterOnly != 0 {
		t.Fatalf("int4 at 8K against the reference: %v, want 20/20 → fewer, p < 0.05", p)
	}
	t.Logf("8K: %s", p)
}

// TestQualityNoLogprobs: a server that answers without logprobs is one
// typed error; the needle task still runs against it.
func TestQualityNoLogprobs(t *testing.T) {
	real := simServer(t, sim.Numerics{}, 0)
	proxy := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		if r.URL.Path == "/v1/completions" {
			w.Header().Set("Content-Type", "application/json")
			_, _ = w.Write([]byte(`{"choices":[{"index":0,"text":"x","logprobs":null}]}`))
			return
		}
		r.URL.Scheme, r.URL.Host = "http", real.Client.BaseURL[len("http://"):]
		r.RequestURI = ""
		resp, err := http.DefaultClient.Do(r)
		if err != nil {
			http.Error(w, err.Error(), http.StatusBadGateway)
			return
		}
		defer resp.Body.Close()
		w.WriteHeader(resp.StatusCode)
		buf := make([]byte, 32<<10)
		for {
			n, err := resp.Body.Read(buf)
			_, _ = w.Write(buf[:n])
			if err != nil {
				return
			}
		}
	}))
	t.Cleanup(proxy.Close)
	s, err := Connect(context.Background(), openai.New(proxy.URL, ""), "")
	if err != nil {
		t.Fatal(err)
	}
	_, err = Record(context.Background(), s, quality.Header{}, Options{Contexts: []int{512}, Probes: 1, ContinuationTokens: 8}, func(quality.Reference) error { return nil })
	var nl *NoLogprobsError
	if !errors.As(err, &nl) {
		t.Fatalf("record: %v, want a NoLogprobsError", err)
	}
	out, err := Needle(context.Background(), s, []int{512}, 3, 1, "", nil, nil, func([]quality.NeedleContext) error { return nil })
	if err != nil || len(out) != 1 || out[0].AccuracyPct != 100 {
		t.Fatalf("needle without logprobs: %v, %+v: want 3/3", err, out)
	}
}
