package sim

import (
	"testing"
	"time"
)

// TestOtherLoadInCore checks in virtual time that the other load keeps its
// requests in flight, replaces each that finishes, and counts in the
// metrics as any client's requests do.
func TestOtherLoadInCore(t *testing.T) {
	p := smallProfile(4096)
	c := newCore(p)
	c.addOtherLoad(3, 0)
	now := 0.0
	for now < 20 {
		if c.inFlight() != 3 {
			t.Fatalf("%d requests in flight at %.3f s, want 3", c.inFlight(), now)
		}
		now, _ = step(c, now)
	}
	done := c.stats.finished["length"]
	admitted, generated := done, OtherMaxTokens*done
	for _, list := range [][]*seq{c.frontend, c.waiting, c.running} {
		for _, q := range list {
			if q.counted {
				admitted++
			}
			generated += int64(q.generated)
		}
	}
	if done < 3 || c.stats.promptTokens != OtherPromptTokens*admitted {
		t.Errorf("%d finished, %d prompt tokens: want ≥ 3 finished and %d prompt tokens for each of %d admitted",
			done, c.stats.promptTokens, OtherPromptTokens, admitted)
	}
	if c.stats.generationTokens != generated {
		t.Errorf("%d generation tokens, want %d", c.stats.generationTokens, generated)
	}
}

// TestOtherLoadServer checks that a server with other load shows it in
// /metrics from the start, and still serves a client beside it.
func TestOtherLoadServer(t *testing.T) {
	_, url := newTestServer(t, Options{Faults: Faults{OtherLoad: 2}})
	names := []string{"vllm:num_requests_running", "vllm:num_requests_waiting", "vllm:generation_tokens_total"}
	if got := scrape(t, url, names...); got[0]+got[1] != 2 {
		t.Errorf("running %g + waiting %g at start, want 2", got[0], got[1])
	}
	deadline := time.Now().Add(10 * time.Second)
	for got := scrape(t, url, names...); got[2] == 0 || got[0] != 2; got = scrape(t, url, names...) {
		if time.Now().After(deadline) {
			t.Fatalf("running %g, %g generation tokens 10 s in: want 2 running and tokens", got[0], got[2])
		}
		time.Sleep(time.Millisecond)
	}
	if code, b := post(t, url+"/v1/completions", `{"prompt":"hi","max_tokens":9,"ignore_eos":true}`); code != 200 {
		t.Fatalf("a client beside the other load: %d %s", code, b)
	}
	// A finished request of the other load may be in the front end again.
	if got := scrape(t, url, names...); got[0]+got[1] != 2 {
		t.Errorf("running %g, waiting %g after the client's request: want the other load's 2 alone", got[0], got[1])
	}
}

func TestNewRejectsBadFaults(t *testing.T) {
	for _, f := range []Faults{
		{ErrorRate: -0.1}, {ErrorRate: 1.5}, {DisconnectAfterTokens: -1}, {StallAfterTokens: -1},
		{StartupDelay: -time.Second}, {LingerAfterDisconnect: -time.Second}, {OtherLoad: -1},
	} {
		if s, err := New(Options{Profile: tinyProfile(), Faults: f}); err == nil {
			s.Close()
			t.Errorf("New accepted faults %+v", f)
		}
	}
}
