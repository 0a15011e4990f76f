package report

import (
	"bytes"
	"encoding/csv"
	"slices"
	"strconv"
	"strings"
	"testing"

	"speedmatrix/engine"
)

// partialTokPerSec is what the Failed cell of checkedReport measured before
// it failed: it must appear in no headline column or table.
const partialTokPerSec = 4321.5

var (
	powerCap = &engine.Telemetry{Samples: 60, Throttle: &engine.Throttle{Verdict: "power_cap+thermal", Samples: 60,
		Reasons: []engine.ThrottleReason{{Reason: engine.ThrottlePowerCap, Share: 0.64, GPUs: []int{0}},
			{Reason: engine.ThrottleThermal, Share: 0.12, GPUs: []int{0, 1}}}}}
	notThrottled = &engine.Telemetry{Samples: 60, Throttle: &engine.Throttle{Verdict: engine.ThrottleOK, Samples: 60}}
	throttleFlag = engine.Flag{Kind: engine.FlagThrottled, Message: "GPU throttled: power cap in 64 % of samples (GPU 0)"}
)

// checkedReport is the reference report as a run with the trust checks records
// it, cut short by the server: flagged Valid cells, the server's figures,
// a throttle verdict, a Failed cell with partial figures and a cell the run
// never reached.
func checkedReport() engine.Report {
	r := seedReport()
	r.Run.Complete, r.Run.Incomplete = false, "the server stopped answering: connection refused"
	for i := range r.Results {
		res := &r.Results[i]
		switch key := [2]int{res.ContextTokens, res.Concurrency}; {
		case res.Phase == engine.PhasePrefill && key == [2]int{8192, 1}:
			res.Telemetry, res.Flags = powerCap, []engine.Flag{throttleFlag}
		case res.Phase == engine.PhasePrefill:
			res.Telemetry = notThrottled
		case key == [2]int{8192, 1}:
			res.Server = &engine.ServerCheck{Samples: 120, Active: 1, TokPerSec: 168.2, TokSource: "vllm:generation_tokens_total",
				SpecDecode: &engine.SpecDecode{Drafts: 1000, DraftTokens: 3000, AcceptedTokens: 2130, AcceptanceRate: 0.71, MeanAcceptedLength: 3.13}}
			res.DrainS, res.Telemetry = 0.2, notThrottled
		case key == [2]int{8192, 8}:
			res.Server = &engine.ServerCheck{Samples: 120, Active: 8, TokPerSec: 1290}
			res.Flags = []engine.Flag{{Kind: engine.FlagServerCount, Message: "the server counted 1,290.0 tok/s"}}
		case key == [2]int{8192, 128}:
			res.Flags = []engine.Flag{{Kind: engine.FlagUnderfilled, Message: "underfilled: 118.0 of 128 requests active on average"},
				{Kind: engine.FlagPreempted, Message: "preempted 3 times: KV cache pressure"}}
			res.Server = &engine.ServerCheck{Samples: 120, Active: 118, Waiting: 10, TokPerSec: 9012.3, Preemptions: 3}
			res.DrainS = 1.4
		case key == [2]int{65536, 1}: // Failed
			res.Server = &engine.ServerCheck{Samples: 40, Active: 1, TokPerSec: 96.5}
			res.Partial = &engine.PartialFigures{TotalTokPerSec: partialTokPerSec, PerRequestTokPerSec: 270.1, TTFTMs: 777,
				ITLMs: 3.7, AvgActive: 1, Completed: 0, OutputTokens: 43215, MeasuredS: 12.5}
		case key == [2]int{65536, 8}:
			res.Server = &engine.ServerCheck{Samples: 120, Active: 8, NotComparable: "the server has no generation-token counter"}
			res.Telemetry, res.Flags = powerCap, []engine.Flag{throttleFlag}
		case key == [2]int{126720, 1}:
			*res = engine.Result{Cell: res.Cell, ContextLabel: res.ContextLabel, Status: engine.StatusNotRun, Error: r.Run.Incomplete}
		}
	}
	return r
}

func TestChecksGolden(t *testing.T) {
	r := checkedReport()
	var b bytes.Buffer
	if err := WriteCSV(&b, r); err != nil {
		t.Fatal(err)
	}
	golden(t, "checks.results.csv", b.Bytes())
	golden(t, "checks.report.md", []byte(Markdown(r)))
}

// csvRows reads results.csv back as a map from "phase/context/concurrency"
// to the row's fields by column name.
func csvRows(t *testing.T, r engine.Report) map[string]map[string]string {
	t.Helper()
	var b bytes.Buffer
	if err := WriteCSV(&b, r); err != nil {
		t.Fatal(err)
	}
	recs, err := csv.NewReader(&b).ReadAll()
	if err != nil {
		t.Fatal(err)
	}
	out := map[string]map[string]string{}
	for _, rec := range recs[1:] {
		row := map[string]string{}
		for i, v := range rec {
			row[recs[0][i]] = v
		}
		out[rec[0]+"/"+rec[1]+"/"+rec[2]] = row
	}
	return out
}

func TestCSVChecks(t *testing.T) {
	rows := csvRows(t, checkedReport())
	cases := []struct {
		name, cell, column, want string
	}{
		{"server count", "decode/8192/8", "server_tok_s", "1290.00"},
		{"server active", "decode/8192/128", "server_active", "118.00"},
		{"preemptions", "decode/8192/128", "preemptions", "3"},
		{"no preemptions", "decode/8192/8", "preemptions", "0"},
		{"not comparable", "decode/65536/8", "server_tok_s", ""},
		{"active when not comparable", "decode/65536/8", "server_active", "8.00"},
		{"throttled", "decode/65536/8", "gpu_throttle", "power_cap+thermal"},
		{"not throttled", "decode/8192/1", "gpu_throttle", "ok"},
		{"prefill throttle", "prefill/8192/1", "gpu_throttle", "power_cap+thermal"},
		{"no telemetry", "decode/8192/8", "gpu_throttle", ""},
		{"no server", "prefill/8192/1", "server_tok_s", ""},
		{"failed keeps the server's view", "decode/65536/1", "server_tok_s", "96.50"},
		{"failed error", "decode/65536/1", "error", "POST /v1/chat/completions: the server answered 500: CUDA out of memory: check the server log"},
		{"not run", "decode/126720/1", "status", "Not run"},
		{"not run error", "decode/126720/1", "error", "the server stopped answering: connection refused"},
		{"valid has no error", "decode/8192/1", "error", ""},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			if got := rows[c.cell][c.column]; got != c.want {
				t.Errorf("%s %s = %q, want %q", c.cell, c.column, got, c.want)
			}
		})
	}
}

// TestPartialFiguresAreNotShown: a Failed cell's partial figures stay out of
// results.csv's headline columns and out of every table of report.md.
func TestPartialFiguresAreNotShown(t *testing.T) {
	r := checkedReport()
	failed := csvRows(t, r)["decode/65536/1"]
	for _, col := range CSVHeader[4:12] {
		if failed[col] != "" {
			t.Errorf("results.csv %s of the Failed cell = %q, want empty", col, failed[col])
		}
	}
	md := Markdown(r)
	for _, figure := range []string{"4,321", "4321", "270.1", "777 ms", "43,215", "12.5 s"} {
		if strings.Contains(md, figure) {
			t.Errorf("report.md shows the Failed cell's partial figure %q", figure)
		}
	}
	if !strings.Contains(md, "| 64K | 1 | Failed | — | 96.5 | — |") {
		t.Errorf("the Checks row of the Failed cell should show the server's figure but not ours:\n%s", md)
	}
}

func TestFlagLines(t *testing.T) {
	valid := func(flags ...engine.Flag) engine.Result {
		return engine.Result{Cell: engine.Cell{Phase: engine.PhaseDecode, ContextTokens: 8192, Concurrency: 16},
			Status: engine.StatusValid, AvgActive: 14.2, Flags: flags}
	}
	pre := engine.Flag{Kind: engine.FlagPreempted, Message: "preempted 3 times: KV cache pressure"}
	legacy := valid()
	legacy.Underfilled = true
	both := valid(engine.Flag{Kind: engine.FlagUnderfilled, Message: "underfilled: 14.2 of 16"})
	both.Underfilled = true
	failed := valid(engine.Flag{Kind: engine.FlagNotDrained, Message: "2 requests still running after the drain"})
	failed.Status = engine.StatusFailed
	cases := []struct {
		name   string
		in     engine.Result
		lines  []string
		marked bool
	}{
		{"none", valid(), nil, false},
		{"one", valid(pre), []string{"Sustained decode 8K × 16: preempted 3 times: KV cache pressure"}, true},
		{"several joined", valid(pre, throttleFlag),
			[]string{"Sustained decode 8K × 16: preempted 3 times: KV cache pressure; GPU throttled: power cap in 64 % of samples (GPU 0)"}, true},
		{"old report's underfilled bit", legacy, []string{"Sustained decode 8K × 16: underfilled: 14.2 of 16 requests active on average"}, true},
		{"underfilled bit and flag once", both, []string{"Sustained decode 8K × 16: underfilled: 14.2 of 16"}, true},
		{"no message names the kind", valid(engine.Flag{Kind: engine.FlagBusy}), []string{"Sustained decode 8K × 16: busy_server"}, true},
		{"failed is listed, not marked", failed, []string{"Sustained decode 8K × 16: 2 requests still running after the drain"}, false},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			if got := FlagLines([]engine.Result{c.in}); !slices.Equal(got, c.lines) {
				t.Errorf("FlagLines\n got %q\nwant %q", got, c.lines)
			}
			if got := Marked(c.in); got != c.marked {
				t.Errorf("Marked = %v, want %v", got, c.marked)
			}
			if got, want := strings.HasSuffix(decodeCell(c.in), " "+FlagMarker), c.marked && c.in.Measured(); got != want {
				t.Errorf("DecodeCell %q: marker %v, want %v", decodeCell(c.in), got, want)
			}
		})
	}
}

func TestThrottleSummary(t *testing.T) {
	cell := func(tm *engine.Telemetry) engine.Result { return engine.Result{Telemetry: tm} }
	cases := []struct {
		name string
		in   []engine.Result
		line string
		ok   bool
	}{
		{"nothing sampled", []engine.Result{cell(nil), cell(&engine.Telemetry{})}, "", true},
		{"one ok", []engine.Result{cell(notThrottled), cell(nil)}, "GPU throttle: ok in the sampled cell.", true},
		{"all ok", []engine.Result{cell(notThrottled), cell(notThrottled)}, "GPU throttle: ok in all 2 sampled cells.", true},
		{"throttled", []engine.Result{cell(notThrottled), cell(powerCap), cell(powerCap)},
			"GPUs 0 and 1 throttled (power cap, thermal) in 2 of 3 sampled cells: their figures may be lower than the GPU can do.", false},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			line, ok := ThrottleSummary(c.in)
			if line != c.line || ok != c.ok {
				t.Errorf("got %q, %v; want %q, %v", line, ok, c.line, c.ok)
			}
		})
	}
}

func TestMarkdownChecks(t *testing.T) {
	md := Markdown(checkedReport())
	for _, want := range []string{
		"| Complete | no — the server stopped answering: connection refused (partial run: resume it to measure the rest) |",
		"| 8K | 40.4K † | 203 ms |",
		"- Prefill 8K × 1: GPU throttled: power cap in 64 % of samples (GPU 0)\n",
		"| 8K | 167.7 · 36 ms TTFT | 1,237.5 · 128 ms TTFT † | — | 9,005.7 · 1,147 ms TTFT † |",
		"- Sustained decode 8K × 128: underfilled: 118.0 of 128 requests active on average; preempted 3 times: KV cache pressure\n",
		"| 123.75K | Not run | — | Looped | Over capacity |",
		engine.NoteNotRun,
		"## Checks\n",
		"GPUs 0 and 1 throttled (power cap, thermal) in 2 of 5 sampled cells",
		"| 8K | 1 | Valid | 167.7 | 168.2 | +0.3% | 1.0 | 0 | 0.2 s | ok | 71.0 % accepted · 3.13 tokens per step |",
		"| 8K | 128 | Valid † | 9,005.7 | 9,012.3 | +0.1% | 118.0 | 3 | 1.4 s | — | — |",
		"| 64K | 8 | Valid † | 839.6 | — | — | 8.0 | 0 | 0.0 s | power cap in 64 % of samples (GPU 0); thermal in 12 % of samples (GPU 0, 1) | — |",
	} {
		if !strings.Contains(md, want) {
			t.Errorf("report.md lacks %q", want)
		}
	}
	if plain := Markdown(seedReport()); strings.Contains(plain, "## Checks") {
		t.Error("a report without server or throttle data has a Checks section")
	}
}

func TestCompleteLine(t *testing.T) {
	cases := []struct {
		name string
		run  engine.RunInfo
		want string
	}{
		{"complete", engine.RunInfo{Complete: true, Incomplete: "ignored"}, "Complete: yes"},
		{"partial", engine.RunInfo{}, "Complete: no (partial run: resume it to measure the rest)"},
		{"stopped", engine.RunInfo{Incomplete: "interrupted"}, "Complete: no — interrupted (partial run: resume it to measure the rest)"},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			lines := section(t, engine.Report{Run: c.run}, "Run")
			if got := lines[len(lines)-1]; got != c.want {
				t.Errorf("got %q, want %q", got, c.want)
			}
		})
	}
}

func TestCheckResults(t *testing.T) {
	rows := CheckResults(checkedReport())
	var cells []string
	for _, r := range rows {
		cells = append(cells, r.ContextName()+"×"+strconv.Itoa(r.Concurrency))
	}
	if want := []string{"8K×1", "8K×8", "8K×128", "64K×1", "64K×8"}; !slices.Equal(cells, want) {
		t.Errorf("CheckResults = %q, want the decode cells with checks %q", cells, want)
	}
	if got := CheckHeader(rows); len(got) != len(CheckColumns) {
		t.Errorf("CheckHeader with spec decode has %d columns, want %d", len(got), len(CheckColumns))
	}
	if got := CheckHeader(rows[1:]); slices.Contains(got, "Spec decode") {
		t.Errorf("CheckHeader without spec decode = %q, want no Spec decode column", got)
	}
	if got := CheckResults(seedReport()); len(got) != 0 {
		t.Errorf("a report without checks has %d check rows, want 0", len(got))
	}
}
