package cli

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"flag"
	"image/png"
	"io"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"speedmatrix/charts"
	"speedmatrix/engine"
	"speedmatrix/engine/report"
)

const seedFixture = "../charts/testdata/seed000.json"

func runReport(t *testing.T, args ...string) (string, string, error) {
	t.Helper()
	var stdout, stderr bytes.Buffer
	err := cliFor(t).report(context.Background(), args, &stdout, &stderr)
	return stdout.String(), stderr.String(), err
}

func pngSize(t *testing.T, path string) (int, int) {
	t.Helper()
	f, err := os.Open(path)
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	cfg, err := png.DecodeConfig(f)
	if err != nil {
		t.Fatalf("%s: %v", path, err)
	}
	return cfg.Width, cfg.Height
}

// TestReportRedraws draws a saved run at 1× and 2× and checks every file
// is there, and that 2× is twice the size.
func TestReportRedraws(t *testing.T) {
	t.Parallel()
	one, two := t.TempDir(), t.TempDir()
	stdout, _, err := runReport(t, "--in", seedFixture, "--out", one)
	if err != nil {
		t.Fatal(err)
	}
	if _, _, err := runReport(t, "--in", seedFixture, "--out", two, "--theme", "dark", "--scale", "2"); err != nil {
		t.Fatal(err)
	}
	for _, k := range charts.Kinds {
		if !strings.Contains(stdout, filepath.Join(one, string(k))) {
			t.Errorf("stdout does not list %s: %q", k, stdout)
		}
		w1, h1 := pngSize(t, filepath.Join(one, string(k)+".png"))
		w2, h2 := pngSize(t, filepath.Join(two, string(k)+".png"))
		if w2 != 2*w1 || h2 != 2*h1 {
			t.Errorf("%s: 2× is %d×%d, 1× is %d×%d", k, w2, h2, w1, h1)
		}
		if st, err := os.Stat(filepath.Join(two, string(k)+".svg")); err != nil || st.Size() == 0 {
			t.Errorf("%s.svg: %v", k, err)
		}
	}
}

// TestReportDefaultsToTheRunFolder writes next to report.json without --out.
func TestReportDefaultsToTheRunFolder(t *testing.T) {
	t.Parallel()
	dir := t.TempDir()
	data, err := os.ReadFile(seedFixture)
	if err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(filepath.Join(dir, "report.json"), data, 0o644); err != nil {
		t.Fatal(err)
	}
	if _, _, err := runReport(t, "--in", dir); err != nil {
		t.Fatal(err)
	}
	if _, err := os.Stat(filepath.Join(dir, "decode-heatmap.png")); err != nil {
		t.Error(err)
	}
}

func TestReportErrors(t *testing.T) {
	t.Parallel()
	if _, stderr, err := runReport(t, "-h"); !errors.Is(err, flag.ErrHelp) || !strings.Contains(stderr, "usage: speedmatrix report") {
		t.Errorf("-h gave %v, stderr %q", err, stderr)
	}
	cases := map[string][]string{
		"--in":                {},
		"not found":           {"--in", filepath.Join(t.TempDir(), "nope.json")},
		"unknown theme":       {"--in", seedFixture, "--out", t.TempDir(), "--theme", "sepia"},
		"out of range":        {"--in", seedFixture, "--out", t.TempDir(), "--scale", "9"},
		"unexpected argument": {"--in", seedFixture, "extra"},
	}
	for want, args := range cases {
		_, _, err := runReport(t, args...)
		if err == nil || !strings.Contains(err.Error(), want) {
			t.Errorf("%v: got %v, want an error mentioning %q", args, err, want)
		}
	}
}

const libFixture = "../engine/report/testdata/llm-inference-bench-0.4.18.json"

// TestReportImportsLLMInferenceBench draws every chart, results.csv,
// report.json and report.md from an llm-inference-bench results file, and
// the report.json it wrote reads back as the same imported run.
func TestReportImportsLLMInferenceBench(t *testing.T) {
	t.Parallel()
	out := t.TempDir()
	stdout, _, err := runReport(t, "--in", libFixture, "--out", out)
	if err != nil {
		t.Fatal(err)
	}
	if !strings.Contains(stdout, "imported llm-inference-bench 0.4.18 results from") {
		t.Errorf("stdout does not say it imported: %q", stdout)
	}
	for _, k := range charts.Kinds {
		pngSize(t, filepath.Join(out, string(k)+".png"))
		if st, err := os.Stat(filepath.Join(out, string(k)+".svg")); err != nil || st.Size() == 0 {
			t.Errorf("%s.svg: %v", k, err)
		}
	}
	csv, err := os.ReadFile(filepath.Join(out, "results.csv"))
	if err != nil {
		t.Fatal(err)
	}
	lines := strings.Split(strings.TrimSpace(string(csv)), "\n")
	if len(lines) != 9 || !strings.HasPrefix(lines[3], "decode,1024,1,Valid,194.01,194.79,") ||
		!strings.HasPrefix(lines[8], "decode,2048,64,Over capacity,") {
		t.Errorf("results.csv:\n%s", csv)
	}
	back, err := report.Load(out)
	if err != nil || back.Run.Imported == nil || len(back.Results) != 8 {
		t.Fatalf("report.json loads back as %+v (%d results), err %v", back.Run.Imported, len(back.Results), err)
	}
	// Drawing it again reads the report.json the import wrote.
	if _, _, err := runReport(t, "--in", out, "--out", t.TempDir()); err != nil {
		t.Errorf("redraw of the import: %v", err)
	}
	// Importing into a folder that holds a run keeps that run.
	if _, _, err := runReport(t, "--in", libFixture, "--out", out); err == nil || !strings.Contains(err.Error(), "already holds a run's report.json: choose another --out") {
		t.Errorf("import over a run: %v", err)
	}
}

// TestReportRejectsOtherFiles: anything else gets one line saying what the
// file is not, and what --in wants.
func TestReportRejectsOtherFiles(t *testing.T) {
	t.Parallel()
	dir := t.TempDir()
	for name, data := range map[string]string{"empty.json": "", "notes.txt": "hello", "other.json": `{"a": 1}`} {
		path := filepath.Join(dir, name)
		if err := os.WriteFile(path, []byte(data), 0o644); err != nil {
			t.Fatal(err)
		}
		_, _, err := runReport(t, "--in", path, "--out", t.TempDir())
		if err == nil || !strings.Contains(err.Error(), path+" is none of the formats Speed Matrix reads (a Speed Matrix report.json, an llm-inference-bench results file, ") ||
			!strings.HasSuffix(err.Error(), "give --in a run's report.json or one of those tools' results files") || strings.Contains(err.Error(), "\n") {
			t.Errorf("%s: %v", name, err)
		}
	}
}

// TestReportRejectsARunNoPlanHas: a report.json that claims 31,623 ×
// 31,623 cells gets one line naming the file and the bound, exit code 1,
// and nothing is drawn.
func TestReportRejectsARunNoPlanHas(t *testing.T) {
	t.Parallel()
	var r engine.Report
	data, err := os.ReadFile(seedFixture)
	if err == nil {
		err = json.Unmarshal(data, &r)
	}
	if err != nil {
		t.Fatal(err)
	}
	r.Plan.DecodeContexts, r.Plan.Concurrency = make([]int, 31623), make([]int, 31623)
	for i := range r.Plan.Concurrency {
		r.Plan.DecodeContexts[i], r.Plan.Concurrency[i] = i, i+1
	}
	path := filepath.Join(t.TempDir(), "report.json")
	if data, err = json.Marshal(r); err == nil {
		err = os.WriteFile(path, data, 0o644)
	}
	if err != nil {
		t.Fatal(err)
	}
	out := t.TempDir()
	_, _, err = runReport(t, "--in", path, "--out", out)
	want := "report: " + path + " cannot hold a real run: its plan: 31623 decode contexts, more than the 256 a plan may have; " +
		"no run writes that, so the file is damaged or was made by hand"
	if err == nil || err.Error() != want || ExitCode(err) != exitCantStart {
		t.Errorf("err = %v (exit %d), want %q (exit 1)", err, ExitCode(err), want)
	}
	if entries, _ := os.ReadDir(out); len(entries) != 0 {
		t.Errorf("wrote %d files", len(entries))
	}
}

// cancelOn cancels a context when a line it is written contains a text.
type cancelOn struct {
	text   string
	cancel func()
}

// Write cancels when p holds the text, and takes p whole.
func (c cancelOn) Write(p []byte) (int, error) {
	if bytes.Contains(p, []byte(c.text)) {
		c.cancel()
	}
	return len(p), nil
}

// TestReportEndsWhenInterrupted: SIGINT or SIGTERM (main cancels the
// context) ends report at once, before it reads or while it draws, with
// one line and exit code 1; the import's report.json is not written.
func TestReportEndsWhenInterrupted(t *testing.T) {
	t.Parallel()
	before, cancel := context.WithCancel(t.Context())
	cancel()
	out := t.TempDir()
	err := cliFor(t).report(before, []string{"--in", seedFixture, "--out", out}, io.Discard, io.Discard)
	if !errors.Is(err, errReportInterrupted) || ExitCode(err) != exitCantStart {
		t.Errorf("cancelled before: %v (exit %d), want %v (exit 1)", err, ExitCode(err), errReportInterrupted)
	}
	if entries, _ := os.ReadDir(out); len(entries) != 0 {
		t.Errorf("cancelled before: wrote %d files", len(entries))
	}
	during, cancel := context.WithCancel(t.Context())
	defer cancel()
	out = t.TempDir()
	err = cliFor(t).report(during, []string{"--in", libFixture, "--out", out}, cancelOn{"imported", cancel}, io.Discard)
	if !errors.Is(err, errReportInterrupted) {
		t.Errorf("cancelled while drawing: %v, want %v", err, errReportInterrupted)
	}
	if _, err := os.Stat(filepath.Join(out, report.JSONFile)); !errors.Is(err, os.ErrNotExist) {
		t.Errorf("cancelled while drawing: report.json written (%v)", err)
	}
}

// TestReportRedrawsQuality: a saved run with a quality section gets its
// drift chart back from report --in, listed with the other pictures.
func TestReportRedrawsQuality(t *testing.T) {
	t.Parallel()
	b, err := os.ReadFile(seedFixture)
	if err != nil {
		t.Fatal(err)
	}
	var r engine.Report
	if err := json.Unmarshal(b, &r); err != nil {
		t.Fatal(err)
	}
	r.Quality = &engine.QualityReport{Server: engine.QualityServer{Model: "m", Server: engine.ServerInfo{Name: "vllm", Simulated: true}},
		Contexts: []engine.ContextDrift{{ContextTokens: 8192, Probes: 2, Positions: 256, Top1Pct: 97.5, KLDMean: 0.012, KLDP99: 0.2}}}
	in := filepath.Join(t.TempDir(), "report.json")
	if b, err = json.Marshal(r); err != nil || os.WriteFile(in, b, 0o644) != nil {
		t.Fatal(err)
	}
	out := t.TempDir()
	stdout, _, err := runReport(t, "--in", in, "--out", out)
	if err != nil {
		t.Fatal(err)
	}
	if !strings.Contains(stdout, filepath.Join(out, string(charts.KindQuality))+" {.png,.svg}") {
		t.Errorf("stdout does not list the drift chart: %q", stdout)
	}
	for _, f := range []string{"quality.png", "quality.svg"} {
		if st, err := os.Stat(filepath.Join(out, f)); err != nil || st.Size() == 0 {
			t.Errorf("%s: %v", f, err)
		}
	}
	if page, _ := os.ReadFile(filepath.Join(out, charts.HTMLFile)); !bytes.Contains(page, []byte(`<section id="quality">`)) {
		t.Error("report.html has no Quality section")
	}
}

// TestReportImportsPeers writes the usual files of a load test from each
// peer tool's real results file, and the report.json it wrote keeps the
// figures per row and says which tool measured them.
func TestReportImportsPeers(t *testing.T) {
	t.Parallel()
	for _, tc := range []struct{ file, label string }{
		{"vllm-bench-0.32.0+cpu.rate.json", "vllm bench serve (version unknown)"},
		{"guidellm-0.8.1.concurrency.json", "GuideLLM 0.8.1"},
		{"aiperf-0.13.0.rate.json", "AIPerf 0.13.0"},
		{"inference-perf-0.7.0.rate.json", "inference-perf (version unknown)"},
	} {
		out := t.TempDir()
		stdout, _, err := runReport(t, "--in", filepath.Join("../engine/report/testdata/peers", tc.file), "--out", out)
		if err != nil {
			t.Fatalf("%s: %v", tc.file, err)
		}
		if !strings.Contains(stdout, "imported "+tc.label+" results from") {
			t.Errorf("%s: stdout does not say it imported: %q", tc.file, stdout)
		}
		for _, f := range []string{"report.json", "report.md", "report.html", "load.csv", "report.png", "load-latency.svg"} {
			if st, err := os.Stat(filepath.Join(out, f)); err != nil || st.Size() == 0 {
				t.Errorf("%s: %s: %v", tc.file, f, err)
			}
		}
		var saved struct {
			Load struct {
				Results []struct {
					RPS  float64 `json:"request_throughput_rps"`
					TokS float64 `json:"output_tok_s"`
					TTFT struct {
						P50 float64 `json:"p50"`
					} `json:"ttft_ms"`
				} `json:"results"`
				Imported struct{ Tool, Version string } `json:"imported"`
			} `json:"load"`
		}
		data, err := os.ReadFile(filepath.Join(out, "report.json"))
		if err == nil {
			err = json.Unmarshal(data, &saved)
		}
		if err != nil || len(saved.Load.Results) != 1 || saved.Load.Results[0].RPS <= 0 || saved.Load.Results[0].TokS <= 0 || saved.Load.Results[0].TTFT.P50 <= 0 ||
			saved.Load.Imported.Tool == "" || saved.Load.Imported.Version == "" {
			t.Errorf("%s: report.json's load section %+v, err %v", tc.file, saved.Load, err)
		}
		md, _ := os.ReadFile(filepath.Join(out, "report.md"))
		if !strings.Contains(string(md), "| Imported from | "+tc.label) {
			t.Errorf("%s: report.md does not say it was imported", tc.file)
		}
		if _, _, err := runReport(t, "--in", out, "--out", t.TempDir()); err != nil {
			t.Errorf("%s: redraw of the import: %v", tc.file, err)
		}
	}
}
