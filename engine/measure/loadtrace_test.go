package measure

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"math"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"speedmatrix/engine"
	"speedmatrix/engine/sim"
)

// writeTrace writes a Mooncake trace of n requests, 50 ms apart: each a
// prompt of blocks+1 blocks of 64 tokens (the last one partial) and 8
// output tokens. With shared ids every request starts with the same
// blocks and adds one of its own; without, every id is new.
func writeTrace(t *testing.T, n, blocks int, shared bool) string {
	t.Helper()
	var b strings.Builder
	next := 1000
	for i := range n {
		var ids []int
		for j := range blocks {
			if shared {
				ids = append(ids, j+1)
			} else {
				ids = append(ids, next)
				next++
			}
		}
		ids = append(ids, next)
		next++
		line, _ := json.Marshal(map[string]any{"timestamp": 50 * i, "input_length": blocks*64 + 20 + i, "output_length": 8, "hash_ids": ids})
		b.Write(append(line, '\n'))
	}
	path := filepath.Join(t.TempDir(), "trace.jsonl")
	if err := os.WriteFile(path, []byte(b.String()), 0o644); err != nil {
		t.Fatal(err)
	}
	return path
}

func tracePlan(path string, api engine.API) engine.LoadPlan {
	return engine.LoadPlan{Trace: &engine.TracePlan{File: path, BlockSize: 64}, Arrivals: engine.ArrivalsTrace, API: api}
}

// TestTraceReplay replays one trace with shared hash ids and the same
// trace with every id its own, on both APIs: every request is sent with
// exactly its prompt tokens and output, and the server's prefix cache
// finds what the ids imply: most of the shared one's prompts, none of the
// other's.
func TestTraceReplay(t *testing.T) {
	t.Parallel()
	for _, api := range []engine.API{engine.APICompletions, engine.APIChat} {
		for _, shared := range []bool{true, false} {
			t.Run(fmt.Sprintf("%s shared %v", api, shared), func(t *testing.T) {
				srv := simServer(t, sim.Options{TimeScale: 10})
				path := writeTrace(t, 12, 6, shared)
				rep, _, err := runLoadAll(t, t.Context(), tracePlan(path, api), Subject{Target: Target{BaseURL: srv.URL}}, testOptions())
				if err != nil {
					t.Fatal(err)
				}
				sum := rep.Load.Trace
				if sum == nil || sum.Requests != 12 || sum.Name != "trace.jsonl" || len(rep.Load.Results) != 1 {
					t.Fatalf("trace %+v, %d results", sum, len(rep.Load.Results))
				}
				res := rep.Load.Results[0]
				if res.Status != engine.StatusValid || res.Completed != 12 || res.Arrivals != engine.ArrivalsTrace {
					t.Fatalf("%s: %d of 12 completed, flags %v", res.Status, res.Completed, res.Flags)
				}
				for _, f := range res.Flags {
					if f.Kind == engine.FlagPromptSize || f.Kind == engine.FlagPrefixCacheHit {
						t.Errorf("flagged %s: %s", f.Kind, f.Message)
					}
				}
				if res.InputTokens != sum.InputTokens || res.OutputTokens != 12*8 {
					t.Errorf("the server counted %d prompt and %d output tokens, want %d and %d", res.InputTokens, res.OutputTokens, sum.InputTokens, 12*8)
				}
				pc := res.PrefixCache
				if pc == nil || !pc.Measured() || pc.TraceHitRate == nil || *pc.TraceHitRate != sum.TraceHitRate {
					t.Fatalf("prefix cache %+v, want the server's and the trace's", pc)
				}
				if shared {
					// 11 of 12 requests find 6 blocks of 64 tokens.
					want := 11 * 6 * 64 / float64(sum.InputTokens)
					if math.Abs(sum.TraceHitRate-want) > 1e-9 || math.Abs(pc.ServerHitRate-want) > 0.05 {
						t.Errorf("hit rates: trace %.3f, server %.3f, want %.3f", sum.TraceHitRate, pc.ServerHitRate, want)
					}
				} else if sum.TraceHitRate != 0 || pc.ServerHitRate > 0.05 {
					t.Errorf("unique ids: hit rates trace %.3f, server %.3f, want 0", sum.TraceHitRate, pc.ServerHitRate)
				}
			})
		}
	}
}

// TestTraceReplayRefusesWhatDoesNotFit: a trace line whose prompt and
// output exceed the model's context is refused before a request is sent,
// naming the line.
func TestTraceReplayRefusesWhatDoesNotFit(t *testing.T) {
	t.Parallel()
	srv := simServer(t, sim.Options{TimeScale: 10})
	path := filepath.Join(t.TempDir(), "long.jsonl")
	os.WriteFile(path, []byte(`{"timestamp": 0, "input_length": 100, "output_length": 8}
{"timestamp": 10, "input_length": 9000000, "output_length": 8}
`), 0o644)
	_, _, err := runLoadAll(t, t.Context(), tracePlan(path, engine.APICompletions), Subject{Target: Target{BaseURL: srv.URL}}, testOptions())
	var plan *engine.PlanError
	if !errors.As(err, &plan) || !strings.Contains(err.Error(), "long.jsonl line 2: 9000000 prompt and 8 output tokens do not fit the model's max_model_len") {
		t.Fatalf("err = %v", err)
	}
}

// TestTraceReplayInterrupted: a replay stopped part-way keeps what its
// requests measured, as a cancelled rate.
func TestTraceReplayInterrupted(t *testing.T) {
	t.Parallel()
	srv := simServer(t, sim.Options{TimeScale: 10})
	var b strings.Builder
	for i := range 40 {
		fmt.Fprintf(&b, `{"timestamp": %d, "input_length": 100, "output_length": 4}`+"\n", 100*i)
	}
	path := filepath.Join(t.TempDir(), "slow.jsonl")
	os.WriteFile(path, []byte(b.String()), 0o644)
	ctx, cancel := context.WithCancel(t.Context())
	defer cancel()
	var last engine.Event
	for ev := range runLoadWith(ctx, tracePlan(path, engine.APICompletions), Subject{Target: Target{BaseURL: srv.URL}}, testOptions()) {
		if ev.Kind == engine.EventProgress && ev.Progress.Load != nil && ev.Progress.Load.Completed >= 3 {
			cancel()
		}
		last = ev
	}
	if last.Kind != engine.EventDone || !errors.Is(last.Err, ErrInterrupted) {
		t.Fatalf("last event %v, err %v", last.Kind, last.Err)
	}
	res := last.Report.Load.Results
	if len(res) != 1 || res[0].Status != engine.StatusCancelled || res[0].Completed < 3 || res[0].Completed == 40 || last.Report.Load.Trace == nil {
		t.Fatalf("results %+v", res)
	}
}
