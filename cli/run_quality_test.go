package cli

import (
	"context"
	"encoding/json"
	"io"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"speedmatrix/engine"
	"speedmatrix/engine/measure"
	"speedmatrix/engine/quality"
	"speedmatrix/engine/report"
	"speedmatrix/engine/runs"
	"speedmatrix/engine/sim"
)

// qualityMatrix is a small matrix with the quality phase after it.
func qualityMatrix(endpoint, dir, ref string) []string {
	return append([]string{"--endpoint", endpoint, "--out", dir, "--quality-reference", ref, "--quality-needle-trials", "6"}, smallMatrix...)
}

// TestRunQuality: a run with --quality-reference against an FP8 KV cache
// fills report.json's quality section after the cells, with real drift
// at the long context, and report.md shows it, labelled simulated.
func TestRunQuality(t *testing.T) {
	t.Parallel()
	noCharts(t)
	ref := recordQuality(t)
	dir := filepath.Join(t.TempDir(), "out")
	out, err := runCLI(t, t.Context(), qualityMatrix(qualitySim(t, sim.Numerics{KVCacheDType: "fp8"}), dir, ref)...)
	if err != nil {
		t.Fatalf("%v\n%s", err, out)
	}
	cells, phase := strings.Index(out, "[3/3] Sustained decode"), strings.Index(out, "quality phase: comparing tiny (simulated) with the reference ref.quality.json")
	if cells < 0 || phase < cells || !strings.Contains(out, "7.72K: top-1") || !strings.Contains(out, "real drift, above the noise floor") {
		t.Fatalf("the phase did not follow the cells, or found no drift at 7.72K:\n%s", out)
	}
	rep, err := report.Load(dir)
	if err != nil || !rep.Run.Complete || rep.Quality == nil {
		t.Fatalf("report.json: %v, complete %v, quality %v", err, rep.Run.Complete, rep.Quality)
	}
	q := rep.Quality
	if len(q.Contexts) != 2 || q.Contexts[1].ContextTokens != 7904 || len(q.Verdicts) != 2 || !q.Verdicts[1].Real || len(q.Needle) != 2 || q.ReferenceSHA256 == "" || !q.Server.Server.Simulated {
		t.Fatalf("quality section: %+v", q)
	}
	md, _ := os.ReadFile(filepath.Join(dir, report.MarkdownFile))
	for _, want := range []string{"## Quality (simulated)", "| 7.72K | 96 |", "real drift, above the noise floor, over the budget", "Needle retrieval", "6/6 → 6/6, p = 1"} {
		if !strings.Contains(string(md), want) {
			t.Errorf("report.md lacks %q:\n%s", want, md)
		}
	}
}

// TestRunQualityResumes: SIGINT in the phase keeps what it compared and
// the run incomplete; --resume needs the same reference again and asks
// no context twice.
func TestRunQualityResumes(t *testing.T) {
	t.Parallel()
	noCharts(t)
	ref := recordQuality(t)
	endpoint := qualitySim(t, sim.Numerics{KVCacheDType: "fp8"})
	dir := filepath.Join(t.TempDir(), "out")
	ctx, cancel := context.WithCancel(t.Context())
	defer cancel()
	err := cliFor(t).Run(ctx, qualityMatrix(endpoint, dir, ref), cancelOn{text: "512: compared in", cancel: cancel}, io.Discard)
	if ExitCode(err) != exitIncomplete || !strings.Contains(err.Error(), "the quality phase stopped after 1 of 2 contexts (interrupted); finish it with: speedmatrix run --resume "+dir+" --quality-reference "+ref) {
		t.Fatalf("exit %d: %v", ExitCode(err), err)
	}
	rep, err := report.Load(dir)
	if err != nil || rep.Run.Complete || rep.Quality == nil || len(rep.Quality.Contexts) != 1 {
		t.Fatalf("report.json after the interrupt: %v, complete %v, %+v", err, rep.Run.Complete, rep.Quality)
	}
	if _, err := runCLI(t, t.Context(), "--resume", dir, "--endpoint", endpoint); err == nil || !strings.Contains(err.Error(), "quality phase against ref.quality.json has not ended: give --quality-reference ref.quality.json again") {
		t.Errorf("resume without the reference: %v", err)
	}
	var r quality.Reference
	b, _ := os.ReadFile(ref)
	if err := json.Unmarshal(b, &r); err != nil {
		t.Fatal(err)
	}
	r.Settings = map[string]string{"dtype": "float32"}
	b, _ = json.Marshal(r)
	other := filepath.Join(t.TempDir(), "other.quality.json")
	if err := os.WriteFile(other, b, 0o644); err != nil {
		t.Fatal(err)
	}
	if _, err := runCLI(t, t.Context(), "--resume", dir, "--endpoint", endpoint, "--quality-reference", other); err == nil || !strings.Contains(err.Error(), "is not the reference the run's quality phase began with (ref.quality.json)") {
		t.Errorf("resume with another reference: %v", err)
	}
	out, err := runCLI(t, t.Context(), "--resume", dir, "--endpoint", endpoint, "--quality-reference", ref, "--quality-needle-trials", "6")
	if err != nil {
		t.Fatalf("%v\n%s", err, out)
	}
	if strings.Contains(out, "compare 512:") || !strings.Contains(out, "compare 7.72K: probe 1 of 3") {
		t.Errorf("the resumed phase compared 512 again, or not 7.72K:\n%s", out)
	}
	if rep, err = report.Load(dir); err != nil || !rep.Run.Complete || len(rep.Quality.Contexts) != 2 || len(rep.Quality.Needle) != 2 {
		t.Errorf("after the resume: %v, complete %v, %+v", err, rep.Run.Complete, rep.Quality)
	}
}

// TestRunQualityRefuses: bad quality flags and files are one line in the
// flags' words, before any cell (no report.json).
func TestRunQualityRefuses(t *testing.T) {
	t.Parallel()
	ref := recordQuality(t)
	tmp := t.TempDir()
	var r quality.Reference
	b, _ := os.ReadFile(ref)
	if err := json.Unmarshal(b, &r); err != nil {
		t.Fatal(err)
	}
	r.Model, r.Tokenizer = "llama-3-8b", quality.Fingerprint([]int{1, 2, 3})
	b, _ = json.Marshal(r)
	other, badTasks := filepath.Join(tmp, "other.quality.json"), filepath.Join(tmp, "bad.jsonl")
	for path, text := range map[string]string{other: string(b), badTasks: "not json\n"} {
		if err := os.WriteFile(path, []byte(text), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	endpoint := qualitySim(t, sim.Numerics{})
	for _, tc := range []struct {
		args []string
		want string
	}{
		{[]string{"--quality-needle-trials", "3"}, "run: --quality-needle-trials goes with --quality-reference FILE"},
		{[]string{"--quality-reference", ref, "--quality-needle-trials", "-1"}, "run: --quality-needle-trials -1: use 0 (none) to 1000"},
		{[]string{"--quality-reference", ref, "--quality-budget", "kld=2x"}, "run: --quality-budget:"},
		{[]string{"--quality-reference", filepath.Join(tmp, "none.json")}, "run: --quality-reference: open "},
		{[]string{"--quality-reference", badTasks}, "run: --quality-reference " + badTasks + ": not a quality reference:"},
		{[]string{"--quality-reference", ref, "--quality-tasks", badTasks}, "run: --quality-tasks " + badTasks + ": task file: line 1:"},
		{[]string{"--quality-reference", other}, "run: --quality-reference " + other + ": the reference was recorded with llama-3-8b"},
	} {
		dir := filepath.Join(tmp, "out")
		out, err := runCLI(t, t.Context(), append([]string{"--endpoint", endpoint, "--out", dir}, append(tc.args, smallMatrix...)...)...)
		if err == nil || !strings.Contains(err.Error(), tc.want) || strings.Contains(err.Error(), "\n") || ExitCode(err) != exitCantStart {
			t.Errorf("%v: %v (exit %d), want one line with %q\n%s", tc.args, err, ExitCode(err), tc.want, out)
		}
		if _, err := os.Stat(filepath.Join(dir, report.JSONFile)); err == nil {
			t.Fatalf("%v: a cell was measured before the refusal", tc.args)
		}
	}
}

// TestRunQualityETA: with a quality phase, each cell's ETA adds the
// phase's estimate, and no cell's save calls the run complete: the phase
// follows the last cell.
func TestRunQualityETA(t *testing.T) {
	probes := make([]quality.Probe, 4)
	for i := range probes {
		probes[i] = quality.Probe{ContextTokens: 1000, Prompt: make([]int, 1000), Continuation: make([]int, 100)}
	}
	q := &runs.Quality{Reference: quality.Reference{Header: quality.Header{Contexts: []int{1000}}, Probes: probes}}
	var saved []engine.Report
	saver := &runs.Saver{Dir: t.TempDir(), Save: func(_ string, r engine.Report) error { saved = append(saved, r); return nil }}
	cell := engine.Report{Run: engine.RunInfo{Complete: true}, Results: []engine.Result{{Cell: engine.Cell{Phase: engine.PhasePrefill, ContextTokens: 1024, Concurrency: 1}, Status: engine.StatusValid}}}
	events := make(chan engine.Event, 4)
	events <- engine.Event{Kind: engine.EventProgress, Progress: &engine.Progress{CellIndex: 1, CellCount: 2, ETA: 10 * time.Second}}
	events <- engine.Event{Kind: engine.EventResult, Result: &cell.Results[0], Report: &cell}
	events <- engine.Event{Kind: engine.EventDone, Report: &cell, Err: measure.ErrInterrupted}
	close(events)
	var out strings.Builder
	phase := &qualityPhase{q: q, saver: saver, stdout: &out}
	consumeWith(t.Context(), events, saver, &out, func(context.Context, string, engine.Report) error { return nil }, func() {}, phase)
	want := 10*time.Second + q.Estimate(nil, runs.RatesOf(cell))
	if !strings.Contains(out.String(), "(ETA "+want.Round(time.Second).String()+")") || want < 12*time.Second {
		t.Errorf("the cell's ETA is not the cells' 10s plus the phase's estimate (%v):\n%s", want, out.String())
	}
	if len(saved) == 0 || saved[0].Run.Complete || saved[0].Run.Incomplete != runs.QualityUnfinished {
		t.Errorf("the cell's save: %+v, want incomplete, the quality phase unfinished", saved)
	}
}
