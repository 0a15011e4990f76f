package cli

import (
	"bytes"
	"context"
	"encoding/json"
	"io"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"speedmatrix/engine/quality"
	"speedmatrix/engine/sim"
	"speedmatrix/engine/sim/simtest"
)

func qualityCLI(t *testing.T, ctx context.Context, args ...string) (string, error) {
	t.Helper()
	var out, errOut bytes.Buffer
	err := cliFor(t).Quality(ctx, args, &out, &errOut)
	return out.String() + errOut.String(), err
}

// qualitySim is the simulator's tiny profile with numerics n, at an
// endpoint.
func qualitySim(t *testing.T, n sim.Numerics) string {
	return simtest.URL(t, "tiny", sim.Options{Numerics: n})
}

// recordQuality records a small reference of the tiny simulator.
func recordQuality(t *testing.T) string {
	t.Helper()
	cliFor(t).SimTimeScale = 1000
	tmp := t.TempDir()
	ref, tasks := filepath.Join(tmp, "ref.quality.json"), filepath.Join(tmp, "t.jsonl")
	if err := os.WriteFile(tasks, []byte(`{"prompt": "Say something.", "answer": ".", "match": "regex"}`+"\n"+`{"prompt": "Say nothing.", "answer": "^$", "match": "regex"}`+"\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	out, err := qualityCLI(t, t.Context(), "--sim", "tiny", "--contexts", "512,8K", "--probes", "3", "--continuation-tokens", "32",
		"--needle-trials", "6", "--tasks", tasks, "--task-tokens", "16", "--save-reference", ref)
	if err != nil {
		t.Fatalf("%v\n%s", err, out)
	}
	for _, want := range []string{"recording a quality reference of tiny (simulated)", "record 512: probe 3 of 3", "needle 7.72K: 6 trials",
		"reference saved: 6 probes at 512, 7.72K, top 20 logprobs, 32 tokens each (simulated)", "needle 512: 6/6 right", "tasks t.jsonl: 1/2 right (9–91 %)"} {
		if !strings.Contains(out, want) {
			t.Errorf("recording's output lacks %q:\n%s", want, out)
		}
	}
	return ref
}

// TestQualityCLI: record a reference, compare the same server (at the
// floor) and an FP8 KV cache (real drift at 8K) with it: quality.json
// and quality.csv, one line per context, and the drift chart.
func TestQualityCLI(t *testing.T) {
	t.Parallel()
	ref := recordQuality(t)
	dir := filepath.Join(t.TempDir(), "same")
	out, err := qualityCLI(t, t.Context(), "--sim", "tiny", "--reference", ref, "--out", dir, "--needle-trials", "6",
		"--tasks", filepath.Join(filepath.Dir(ref), "t.jsonl"), "--task-tokens", "16")
	if err != nil {
		t.Fatalf("%v\n%s", err, out)
	}
	for _, want := range []string{"512: top-1 100.00 % (100.00–100.00), KLD mean 0.00000", "at the noise floor (simulated)", "needle 7.72K: 6/6 right", "against the reference: 6/6 → 6/6, p = 1", "tasks t.jsonl: 1/2 right (9–91 %); against the reference: 1/2 → 1/2, p = 1, 0 flipped"} {
		if !strings.Contains(out, want) {
			t.Errorf("comparison's output lacks %q:\n%s", want, out)
		}
	}
	dir = filepath.Join(t.TempDir(), "fp8")
	out, err = qualityCLI(t, t.Context(), "--endpoint", qualitySim(t, sim.Numerics{KVCacheDType: "fp8"}), "--reference", ref, "--out", dir, "--needle-trials", "0")
	if err != nil {
		t.Fatalf("%v\n%s", err, out)
	}
	if !strings.Contains(out, "comparing tiny (simulated) with") || !strings.Contains(out, "7.72K: top-1") || !strings.Contains(out, "real drift, above the noise floor") {
		t.Errorf("fp8's output says no real drift at 8K:\n%s", out)
	}
	var rep map[string]any
	b, err := os.ReadFile(filepath.Join(dir, "quality.json"))
	if err != nil || json.Unmarshal(b, &rep) != nil {
		t.Fatalf("quality.json: %v", err)
	}
	for _, key := range []string{"reference", "noise_floor", "contexts", "server", "verdicts"} {
		if rep[key] == nil {
			t.Errorf("quality.json has no %q", key)
		}
	}
	ctx0 := rep["contexts"].([]any)[0].(map[string]any)
	for _, key := range []string{"context_tokens", "positions", "top1_pct", "kld_mean", "kld_p99", "kld_max", "dp_mean", "first_divergence_median", "ci"} {
		if _, ok := ctx0[key]; !ok {
			t.Errorf("quality.json's contexts lack %q", key)
		}
	}
	if _, err := qualityCLI(t, t.Context(), "--sim", "tiny", "--reference", ref, "--out", dir); err == nil || !strings.Contains(err.Error(), "already holds quality.json: choose another --out") {
		t.Errorf("a second comparison into %s: %v, want it refused", dir, err)
	}
	for _, chart := range []string{"quality.png", "quality.svg"} {
		if b, err := os.ReadFile(filepath.Join(dir, chart)); err != nil || len(b) == 0 {
			t.Errorf("the drift chart %s: %v", chart, err)
		}
	}
	if svg, _ := os.ReadFile(filepath.Join(dir, "quality.svg")); !strings.Contains(string(svg), "Quality drift against the reference (simulated)") || !strings.Contains(string(svg), "7.72K") {
		t.Errorf("quality.svg does not say simulated or name 7.72K:\n%.2000s", svg)
	}
	csv, err := os.ReadFile(filepath.Join(dir, "quality.csv"))
	if lines := strings.Split(strings.TrimSpace(string(csv)), "\n"); err != nil || len(lines) != 3 || !strings.HasPrefix(lines[2], "7904,3,96,") || !strings.HasSuffix(lines[2], ",true,true,,,,true") {
		t.Errorf("quality.csv: %v\n%s", err, csv)
	}
}

// TestQualityCLIRefuses: each bad input is one line in the flags' words,
// before anything is measured.
func TestQualityCLIRefuses(t *testing.T) {
	t.Parallel()
	ref := recordQuality(t)
	tmp := t.TempDir()
	other := filepath.Join(tmp, "other.quality.json")
	b, _ := os.ReadFile(ref)
	var r quality.Reference
	if err := json.Unmarshal(b, &r); err != nil {
		t.Fatal(err)
	}
	r.Model, r.Tokenizer = "llama-3-8b", quality.Fingerprint([]int{1, 2, 3})
	b, _ = json.Marshal(r)
	hostile := filepath.Join(tmp, "hostile.quality.json")
	badTasks := filepath.Join(tmp, "bad.jsonl")
	for path, text := range map[string]string{other: string(b), badTasks: `{"prompt": "a", "answer": "b", "match": "exact"}` + "\nnot json\n", hostile: `{"format_version": 1, "model": "m", "probes": [` + strings.Repeat(`{"prompt": [1,2,3]},`, 1<<16) + `{}]}`} {
		if err := os.WriteFile(path, []byte(text), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	for _, tc := range []struct {
		args []string
		want string
	}{
		{[]string{"--sim", "tiny"}, "quality: give --save-reference FILE to record a reference, or --reference FILE --out DIR"},
		{[]string{"--sim", "tiny", "--reference", ref}, "quality: --reference needs --out DIR"},
		{[]string{"--sim", "tiny", "--save-reference", ref, "--budget", "kld=2x"}, "quality: --budget:"},
		{[]string{"--sim", "tiny", "--save-reference", ref, "--contexts", "12x"}, "quality: --contexts:"},
		{[]string{"--sim", "tiny", "--save-reference", ref, "--probes", "0"}, "quality: --probes 0: use 1 to"},
		{[]string{"--sim", "tiny", "--save-reference", ref, "--quality-text", filepath.Join(tmp, "none.txt")}, "quality: --quality-text:"},
		{[]string{"--sim", "tiny", "--save-reference", ref, "--tasks", badTasks}, "quality: --tasks " + badTasks + ": task file: line 2:"},
		{[]string{"--sim", "tiny", "--save-reference", ref, "--task-tokens", "9"}, "quality: --task-tokens goes with --tasks FILE"},
		{[]string{"--sim", "tiny", "--save-reference", ref}, "quality: --save-reference " + ref + " already exists: a reference is recorded once"},
		{[]string{"--sim", "tiny", "--save-reference", filepath.Join(ref, "x.json")}, "quality: --save-reference " + filepath.Join(ref, "x.json") + ": its folder is not usable"},
		{[]string{"--sim", "tiny", "--reference", hostile, "--out", tmp}, "quality: --reference " + hostile + ": not a quality reference:"},
		{[]string{"--sim", "tiny", "--reference", other, "--out", filepath.Join(tmp, "o")}, "the reference was recorded with llama-3-8b"},
	} {
		out, err := qualityCLI(t, t.Context(), tc.args...)
		if err == nil || !strings.Contains(err.Error(), tc.want) || strings.Contains(err.Error(), "\n") || ExitCode(err) != exitCantStart {
			t.Errorf("%v: %v (exit %d), want one line with %q\n%s", tc.args, err, ExitCode(err), tc.want, out)
		}
	}
}

// TestQualityCLIInterrupted: SIGINT after the first context keeps what
// was compared, and the exit code says the check stopped early.
func TestQualityCLIInterrupted(t *testing.T) {
	t.Parallel()
	ref := recordQuality(t)
	dir := filepath.Join(t.TempDir(), "out")
	ctx, cancel := context.WithCancel(t.Context())
	defer cancel()
	err := cliFor(t).Quality(ctx, []string{"--sim", "tiny", "--reference", ref, "--out", dir}, cancelOn{text: "512: compared in", cancel: cancel}, io.Discard)
	if ExitCode(err) != exitIncomplete {
		t.Fatalf("exit %d (%v), want %d", ExitCode(err), err, exitIncomplete)
	}
	var rep quality.Report
	b, _ := os.ReadFile(filepath.Join(dir, "quality.json"))
	if err := json.Unmarshal(b, &rep); err != nil || len(rep.Contexts) != 1 || rep.Contexts[0].ContextTokens != 512 {
		t.Fatalf("quality.json after the interrupt: %v, %+v: want 512's drift", err, rep.Contexts)
	}
	// --resume goes on: 512 is not compared again, the rest is.
	out, err := qualityCLI(t, t.Context(), "--sim", "tiny", "--reference", ref, "--out", dir, "--resume")
	if err != nil {
		t.Fatalf("--resume: %v\n%s", err, out)
	}
	if strings.Contains(out, "compare 512: probe") || !strings.Contains(out, "compare 7.72K: probe") {
		t.Errorf("--resume compared 512 again, or not 8K:\n%s", out)
	}
	b, _ = os.ReadFile(filepath.Join(dir, "quality.json"))
	if err := json.Unmarshal(b, &rep); err != nil || len(rep.Contexts) < 2 || rep.Contexts[0].ContextTokens != 512 {
		t.Fatalf("quality.json after --resume: %v, %+v: want every context", err, rep.Contexts)
	}
	// Without --resume the folder is refused; --resume of an empty one too.
	if _, err := qualityCLI(t, t.Context(), "--sim", "tiny", "--reference", ref, "--out", dir); err == nil || !strings.Contains(err.Error(), "--resume") {
		t.Errorf("an --out holding a comparison: %v, want a line naming --resume", err)
	}
	if _, err := qualityCLI(t, t.Context(), "--sim", "tiny", "--reference", ref, "--out", t.TempDir(), "--resume"); err == nil || !strings.Contains(err.Error(), "leave out --resume") {
		t.Errorf("--resume of an empty --out: %v", err)
	}
}
