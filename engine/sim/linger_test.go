package sim

import (
	"context"
	"testing"
	"time"
)

// TestLingerInCore drives the core in virtual time: a sequence whose client
// left keeps decoding until its linger time is up, then is aborted and its
// blocks freed; one that finishes first ends as usual.
func TestLingerInCore(t *testing.T) {
	for _, tc := range []struct {
		name       string
		maxTokens  int
		lingerS    float64
		wantReason string
	}{
		{"aborted after the linger", 5000, 0.5, "abort"},
		{"finishes while lingering", 120, 10, "length"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			p := smallProfile(4096)
			c := newCore(p)
			q := harnessSeq(p, harnessPrompt(100, 23, 0), tc.maxTokens)
			c.submit(q, 0)
			now := 0.0
			for q.generated < 10 {
				now, _ = step(c, now)
			}
			until := now + tc.lingerS
			c.linger(q, until)
			before := q.generated
			for q.state != stDone {
				if now >= until+0.1 {
					t.Fatalf("still %v at %.3f s, the linger ended at %.3f s", q.state, now, until)
				}
				if len(c.running) != 1 {
					t.Fatalf("%d running at %.3f s while lingering, want 1", len(c.running), now)
				}
				now, _ = step(c, now)
			}
			if tc.wantReason == "abort" && now < until {
				t.Errorf("aborted at %.3f s, before the linger ended at %.3f s", now, until)
			}
			if c.stats.finished[tc.wantReason] != 1 || c.kv.used != 0 || q.generated <= before {
				t.Errorf("finished %v, %d blocks used, %d tokens then %d: want one %s, no blocks, more tokens",
					c.stats.finished, c.kv.used, before, q.generated, tc.wantReason)
			}
		})
	}
}

// TestLingerAfterDisconnect cancels a stream and watches /metrics: the
// request stays running (and generating) for the linger time, in real time
// at time scale 1, then it is aborted. The lower bound is exact (the server
// can't abort before the linger is up); the upper one leaves a busy machine
// plenty of room. Beside a process that keeps one of two cores busy it
// stops about 0.61 s after the disconnect, with some 120 tokens lingering.
func TestLingerAfterDisconnect(t *testing.T) {
	const linger = 600 * time.Millisecond
	_, url := newTestServer(t, Options{TimeScale: 1, Faults: Faults{LingerAfterDisconnect: linger}})
	ctx, cancel := context.WithCancel(context.Background())
	r := openStream(t, ctx, url, 4000)
	r.until(t, 3)
	cancel()
	left := time.Now()
	names := []string{"vllm:num_requests_running", "vllm:generation_tokens_total"}
	first := scrape(t, url, names...)
	last := first
	for {
		got := scrape(t, url, names...)
		if got[0] == 0 {
			break
		}
		last = got
		if time.Since(left) > linger+10*time.Second {
			t.Fatalf("still %g running %s after the client left, linger %s", got[0], time.Since(left), linger)
		}
		time.Sleep(5 * time.Millisecond)
	}
	gone := time.Since(left)
	t.Logf("stopped running %s after the client left; %g tokens while lingering", gone, last[1]-first[1])
	if gone < linger {
		t.Errorf("the request stopped running %s after its client left, want at least the linger of %s", gone, linger)
	}
	if first[0] != 1 || last[1]-first[1] < 10 {
		t.Errorf("running %g after the disconnect, %g tokens generated while lingering: want 1 and at least 10", first[0], last[1]-first[1])
	}
	_, m := get(t, url+"/metrics")
	if a := metricValue(t, m, `vllm:request_success_total{engine="0",model_name="tiny",finished_reason="abort"}`); a != 1 {
		t.Errorf("%g aborted requests, want 1", a)
	}
}
