package charts

import (
	"encoding/json"
	"slices"
	"strings"
	"testing"

	"speedmatrix/engine"
	"speedmatrix/engine/report"
)

// partialTokPerSec is the figure a Failed cell measured before it failed:
// it must appear nowhere on a picture.
const partialTokPerSec = 4321.5

// flaggedReport is reference report 000 cut short by the server, with the trust checks
// of a real run: flagged Valid cells (underfilled, preempted, server count,
// GPU throttle), the server's figures, a Failed cell with partial figures
// and two cells the run never reached.
func flaggedReport(t *testing.T) engine.Report {
	r := loadSeed(t, "seed000")
	r.Run.Complete, r.Run.Incomplete = false, "the server stopped answering: connection refused"
	throttled := &engine.Telemetry{Samples: 60, Throttle: &engine.Throttle{Verdict: "power_cap", Samples: 60,
		Reasons: []engine.ThrottleReason{{Reason: engine.ThrottlePowerCap, Share: 0.64, GPUs: []int{0}}}}}
	powerCap := engine.Flag{Kind: engine.FlagThrottled, Message: "GPU throttled: power cap in 64 % of samples (GPU 0)"}
	for i := range r.Results {
		res := &r.Results[i]
		k := engine.K
		switch {
		case res.Phase == engine.PhasePrefill && res.ContextTokens == 8*k:
			res.Telemetry, res.Flags = throttled, []engine.Flag{powerCap}
		case res.Phase == engine.PhasePrefill:
		case res.ContextTokens == 8*k && res.Concurrency == 128:
			res.Underfilled = true
			res.Flags = []engine.Flag{{Kind: engine.FlagUnderfilled, Message: "underfilled: 118.0 of 128 requests active on average"},
				{Kind: engine.FlagPreempted, Message: "preempted 3 times: KV cache pressure"}}
			res.Server = &engine.ServerCheck{Samples: 120, Active: 118, Waiting: 10, TokPerSec: 9050.2, Preemptions: 3}
			res.DrainS = 1.4
		case res.ContextTokens == 16*k && res.Concurrency == 32:
			res.Server = &engine.ServerCheck{Samples: 120, Active: 32, TokPerSec: 3290.1}
			res.Telemetry = throttled
			res.Flags = []engine.Flag{{Kind: engine.FlagServerCount, Message: "the server counted 3,290.1 tok/s"}, powerCap}
		case res.ContextTokens == 32*k && res.Concurrency == 16:
			*res = engine.Result{Cell: res.Cell, ContextLabel: res.ContextLabel, Status: engine.StatusFailed,
				Error:   "a stream stalled for 120 s without a token: check the server log",
				Server:  &engine.ServerCheck{Samples: 40, Active: 16, TokPerSec: 4300},
				Partial: &engine.PartialFigures{TotalTokPerSec: partialTokPerSec, PerRequestTokPerSec: 270.1, TTFTMs: 777, ITLMs: 3.7, AvgActive: 16, OutputTokens: 43215, MeasuredS: 10}}
		case res.ContextTokens == 123*k && (res.Concurrency == 32 || res.Concurrency == 64):
			*res = engine.Result{Cell: res.Cell, ContextLabel: res.ContextLabel, Status: engine.StatusNotRun, Error: r.Run.Incomplete}
		default:
			res.Server = &engine.ServerCheck{Samples: 120, Active: float64(res.Concurrency), TokPerSec: res.TotalTokPerSec}
			res.Telemetry = &engine.Telemetry{Samples: 60, Throttle: &engine.Throttle{Verdict: engine.ThrottleOK, Samples: 60}}
		}
	}
	return r
}

// TestFlaggedGolden pins the model, heatmap and prefill of the flagged run.
func TestFlaggedGolden(t *testing.T) {
	r := flaggedReport(t)
	b, err := json.MarshalIndent(BuildModel(r), "", "  ")
	if err != nil {
		t.Fatal(err)
	}
	golden(t, "flagged.model.json", append(b, '\n'))
	for _, kind := range []Kind{KindHeatmap, KindPrefill} {
		d, err := Draw(kind, r, DefaultOptions())
		if err != nil {
			t.Fatal(err)
		}
		golden(t, "flagged."+string(kind)+".txt", []byte(d.dump()))
	}
}

// TestFlaggedCellsAreMarked: a flagged Valid cell carries the marker in the
// heatmap, the prefill list and the table; a flagged cell without figures
// does not; the notes explain the marker.
func TestFlaggedCellsAreMarked(t *testing.T) {
	m := BuildModel(flaggedReport(t))
	cases := []struct {
		name, got, want string
	}{
		{"underfilled and preempted", m.Decode.Cells[0][7].Detail, "1,147 ms TTFT †"},
		{"server count and throttle", m.Decode.Cells[1][5].Detail, "449 ms TTFT †"},
		{"unflagged", m.Decode.Cells[0][0].Detail, "36 ms TTFT"},
		{"failed", m.Decode.Cells[2][4].Text + m.Decode.Cells[2][4].Detail, "Failed"},
		{"not run", m.Decode.Cells[4][6].Text, "Not run"},
		{"prefill list", m.PrefillRows[0].TokPerSec, "40.4K †"},
		{"table status", m.Table.Rows[0].Cells[3], "Valid †"},
		{"table status, unflagged", m.Table.Rows[1].Cells[3], "Valid"},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			if c.got != c.want {
				t.Errorf("got %q, want %q", c.got, c.want)
			}
		})
	}
	if !slices.Contains(m.Decode.Notes, report.NoteFlagged) || !slices.Contains(m.Prefill.Notes, report.NoteFlagged) {
		t.Errorf("the marker is not explained: decode %q, prefill %q", m.Decode.Notes, m.Prefill.Notes)
	}
}

// TestFlagLinesAreDrawn: the sheet and the heatmap list every flag as
// report.md does, and a Not run cell is explained and drawn like Pending.
func TestFlagLinesAreDrawn(t *testing.T) {
	r := flaggedReport(t)
	m := BuildModel(r)
	want := []string{
		"Sustained decode 8K × 128: underfilled: 118.0 of 128 requests active on average; preempted 3 times: KV cache pressure",
		"Sustained decode 16K × 32: the server counted 3,290.1 tok/s; GPU throttled: power cap in 64 % of samples (GPU 0)",
	}
	if !slices.Equal(m.Decode.Flags, want) {
		t.Errorf("heatmap flags\n got %q\nwant %q", m.Decode.Flags, want)
	}
	if got := m.Prefill.Flags; !slices.Equal(got, []string{"Prefill 8K × 1: GPU throttled: power cap in 64 % of samples (GPU 0)"}) {
		t.Errorf("prefill flags %q", got)
	}
	if !slices.ContainsFunc(m.Decode.Legend, func(l StatusNote) bool { return l.Note == engine.NoteNotRun }) {
		t.Errorf("legend %+v does not explain Not run", m.Decode.Legend)
	}
	for _, kind := range []Kind{KindReport, KindHeatmap} {
		d, _ := drawModel(kind, m, DefaultOptions())
		drawn := strings.Join(d.Texts(), " ")
		for _, f := range append(slices.Clone(m.Decode.Flags), m.Header.Throttle) {
			// Long lines wrap: each of their words is drawn.
			if words := strings.Fields(f); !strings.Contains(drawn, words[len(words)-1]) || !strings.Contains(drawn, words[0]) {
				t.Errorf("%s: %q is not drawn", kind, f)
			}
		}
	}
	d, _ := drawModel(KindReport, m, DefaultOptions())
	if drawn := strings.Join(d.Texts(), " "); !strings.Contains(drawn, "power cap in 64 % of samples") {
		t.Error("the sheet does not draw the prefill flags")
	}
}

// TestThrottleAndIncomplete: the header says why the run stopped, counts
// Not run cells as unfinished, and carries the throttle verdict only when
// some cell was throttled.
func TestThrottleAndIncomplete(t *testing.T) {
	r := flaggedReport(t)
	h := BuildModel(r).Header
	if want := "Partial run: 44 of 46 cells finished — the server stopped answering: connection refused"; h.Notice != want {
		t.Errorf("notice %q, want %q", h.Notice, want)
	}
	if !strings.HasPrefix(h.Throttle, "GPU 0 throttled (power cap) in 2 of ") {
		t.Errorf("throttle line %q", h.Throttle)
	}
	if got := BuildModel(loadSeed(t, "seed000")).Header.Throttle; got != "" {
		t.Errorf("a run without throttle data has throttle line %q", got)
	}
}

// TestPartialFiguresAreNotShown: a Failed cell's partial figures appear in
// no model string and no drawn text.
func TestPartialFiguresAreNotShown(t *testing.T) {
	r := flaggedReport(t)
	m := BuildModel(r)
	js, _ := json.Marshal(m)
	for _, kind := range Kinds {
		d, _ := drawModel(kind, m, DefaultOptions())
		texts := strings.Join(d.Texts(), "\n") + string(js)
		for _, figure := range []string{"4,321", "4321", "270.1", "777 ms", "43,215"} {
			if strings.Contains(texts, figure) {
				t.Errorf("%s shows the failed cell's partial figure %q", kind, figure)
			}
		}
	}
}

// TestNoPhantomRow: a requested context the run fitted to the server's
// max_model_len is one row, labelled with its real size: the default plan's
// 128K on a 131,072-token server is the measured 123.75K, with no
// "Pending" 128K row under it.
func TestNoPhantomRow(t *testing.T) {
	plan := engine.DefaultPlan()
	rep := engine.Report{Plan: plan, Server: engine.ServerInfo{MaxModelLen: 131072}}
	for _, ctx := range engine.FitContexts(plan.DecodeContexts, 131072, plan.MaxOutputTokens) {
		for _, c := range plan.Concurrency {
			rep.Results = append(rep.Results, engine.Result{Cell: engine.Cell{Phase: engine.PhaseDecode, ContextTokens: ctx, Concurrency: c},
				ContextLabel: engine.ContextLabel(ctx), Status: engine.StatusValid, TotalTokPerSec: 100})
		}
	}
	h := buildHeatmap(rep)
	if want := []string{"8K", "16K", "32K", "64K", "123.75K"}; !slices.Equal(h.Rows, want) {
		t.Errorf("rows %v, want %v", h.Rows, want)
	}
	for _, row := range h.Cells {
		for _, c := range row {
			if c.Status == engine.StatusPending {
				t.Fatalf("a Pending cell in %v: the fitted plan and the results disagree", h.Rows)
			}
		}
	}
}
