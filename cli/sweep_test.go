package cli

import (
	"bytes"
	"context"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"speedmatrix/engine"
	"speedmatrix/engine/sweep"
	"speedmatrix/hw"
)

// sweepCLI runs speedmatrix sweep with args.
func sweepCLI(t *testing.T, ctx context.Context, args ...string) (string, error) {
	t.Helper()
	var out, errOut bytes.Buffer
	err := cliFor(t).sweepCmd(ctx, args, &out, &errOut)
	return out.String() + errOut.String(), err
}

func TestSweepBadInput(t *testing.T) {
	t.Parallel()
	toml := filepath.Join(t.TempDir(), "server.toml")
	if err := os.WriteFile(toml, []byte("model = \"m\"\nmax_num_seqs = 16\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	many := make([]string, 33)
	for i := range many {
		many[i] = fmt.Sprint(i + 1)
	}
	out := filepath.Join(t.TempDir(), "sw")
	for _, tt := range []struct {
		name    string
		args    []string
		wantErr string
	}{
		{"unknown key", []string{"--launch", toml, "--vary", "max_num_seq=4", "--out", out},
			"sweep: --vary max_num_seq: server.toml has no key max_num_seq: did you mean max_num_seqs?"},
		{"wrong type", []string{"--launch", toml, "--vary", "max_num_seqs=4,many", "--out", out},
			`sweep: --vary max_num_seqs: max_num_seqs takes a whole number, not "many": e.g. max_num_seqs=16`},
		{"too many", []string{"--launch", toml, "--vary", "max_num_seqs=" + strings.Join(many, ","), "--vary", "enforce_eager=false,true", "--out", out},
			"sweep: 65 configurations besides the baseline, more than 64: each starts the server (minutes with vLLM); shorten the --vary lists, or pass --yes"},
		{"too many even with --yes", []string{"--launch", toml, "--vary", "max_num_seqs=" + strings.Join(numbers(1, 40), ","),
			"--vary", "max_model_len=" + strings.Join(numbers(1000, 40), ","), "--yes", "--out", out},
			"sweep: 1600 configurations, more than the 1024 a sweep runs even with --yes (each starts the server): split the --vary lists into several sweeps"},
		{"resume with both", []string{"--resume", out, "--vary", "max_num_seqs=4", "--vary-file", toml}, "give --vary or --vary-file, not both"},
		{"endpoint", []string{"--endpoint", "http://127.0.0.1:8000", "--vary", "max_num_seqs=4", "--out", out},
			"sweep: --endpoint is a server that runs already, which a sweep can't reconfigure: give --launch server.toml"},
		{"sim", []string{"--sim", "tiny", "--vary", "max_num_seqs=4", "--out", out}, "sweep: --sim has no settings to vary"},
		{"nothing to vary", []string{"--launch", toml, "--out", out}, "sweep: nothing to vary: give --vary KEY=V1,V2"},
		{"both", []string{"--launch", toml, "--vary", "max_num_seqs=4", "--vary-file", toml, "--out", out}, "give --vary or --vary-file, not both"},
		{"invalid value", []string{"--launch", toml, "--vary", "gpu_memory_utilization=0.9,1.5", "--out", out},
			"gpu_memory_utilization 1.5 is out of range: use a fraction between 0 and 1"},
		{"bad plan", []string{"--launch", toml, "--vary", "max_num_seqs=4", "--contexts", "huge", "--out", out}, "sweep: --contexts:"},
		{"resume changes the plan", []string{"--resume", out, "--contexts", "1K"}, "sweep --resume: --contexts can't change on resume"},
		{"budget without quality", []string{"--launch", toml, "--vary", "max_num_seqs=4", "--quality-budget", "kld=0.02", "--out", out},
			"sweep: --quality-budget and --quality-needle-trials go with --quality: add --quality to measure each configuration's drift against the baseline"},
		{"bad budget", []string{"--launch", toml, "--vary", "max_num_seqs=4", "--quality", "--quality-budget", "top1=120%", "--out", out},
			`sweep: --quality-budget: budget "top1=120%": top1 is a percentage above 0 and at most 100, such as 98%`},
		{"bad needle trials", []string{"--launch", toml, "--vary", "max_num_seqs=4", "--quality", "--quality-needle-trials", "-1", "--out", out},
			"sweep: --quality-needle-trials -1: use 0 (none) to "},
		{"resume changes the budget", []string{"--resume", out, "--quality-budget", "kld=0.1"}, "sweep --resume: --quality-budget can't change on resume"},
		{"resume nothing", []string{"--resume", filepath.Join(out, "none")}, "sweep --resume: "},
		{"no launch file", []string{"--launch", toml + ".missing", "--vary", "max_num_seqs=4", "--out", out}, "sweep: --launch " + toml + ".missing can't be read"},
	} {
		t.Run(tt.name, func(t *testing.T) {
			got, err := sweepCLI(t, t.Context(), tt.args...)
			if err == nil || !strings.Contains(err.Error(), tt.wantErr) || strings.Contains(err.Error(), "\n") {
				t.Errorf("err = %v (output %q), want one line with %q", err, got, tt.wantErr)
			}
		})
	}
	if _, err := os.Stat(out); err == nil {
		t.Errorf("a refused sweep made its folder %s", out)
	}
}

// TestSweepFailsKilledResumed runs a sweep of the fake vllm in which one
// configuration runs out of memory at start-up and the sweep is
// interrupted in the next; --resume then finishes it.
func TestSweepFailsKilledResumed(t *testing.T) {
	t.Parallel()
	hwCanned(t, hwCanned3090, nil)
	c := cliFor(t)
	c.NoGPUWait = true
	noCharts(t)
	exe := buildFakeVLLM(t)
	toml := serverTOML(t, exe, "")
	vary := filepath.Join(t.TempDir(), "sweep.toml")
	if err := os.WriteFile(vary, []byte("[oom]\nenv = { FAKEVLLM_MODE = \"oom\" }\n\n[eager]\nenforce_eager = true\n\n[small]\nmax_num_seqs = 4\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	dir := filepath.Join(t.TempDir(), "sw")
	ctx, cancel := context.WithCancel(t.Context())
	var stdout, stderr bytes.Buffer
	err := c.sweepCmd(ctx, []string{"--launch", toml, "--vary-file", vary, "--out", dir, "--contexts", "1K", "--concurrency", "1,2",
		"--prefill-contexts", "none", "--duration", "300ms", "--precision", "off", "--max-output", "64"},
		io.MultiWriter(&stdout, cancelOn{text: "── 3 of 4: eager · Measuring", cancel: cancel}), &stderr)
	resume := "speedmatrix sweep --resume " + dir + " --launch " + toml + " --vary-file " + vary
	if ExitCode(err) != exitIncomplete || !strings.Contains(err.Error(), "sweep incomplete: 2 of 4 configurations done; finish it with "+resume) {
		t.Fatalf("err = %v\n%s\n%s", err, stdout.String(), stderr.String())
	}
	if !strings.Contains(stdout.String(), "── 2 of 4: oom · Failed to start: vLLM server exited") || !strings.Contains(stdout.String(), "out of memory") {
		t.Errorf("the failed start-up is not said in one line:\n%s", stdout.String())
	}
	var out bytes.Buffer
	if err := c.sweepCmd(t.Context(), []string{"--resume", dir, "--launch", toml}, &out, &stderr); err == nil ||
		err.Error() != "sweep --resume: give the vary-file the sweep began with: --vary-file "+vary+" (a resume never takes what runs from the sweep's files)" {
		t.Errorf("resume without --vary-file: %v", err)
	}
	if err := c.sweepCmd(t.Context(), strings.Fields(strings.TrimPrefix(resume, "speedmatrix sweep ")), &out, &stderr); err != nil {
		t.Fatalf("resume: %v\n%s\n%s", err, out.String(), stderr.String())
	}
	text := out.String()
	for _, want := range []string{"── 2 of 4: oom · Starting", "── 3 of 4: eager · Measuring", "── 4 of 4: small · Done", "answer (simulated", "1K × 2: "} {
		if !strings.Contains(text, want) {
			t.Errorf("resumed sweep's output lacks %q:\n%s", want, text)
		}
	}
	if strings.Contains(text, "baseline · Starting") {
		t.Errorf("the resumed sweep measured the finished baseline again:\n%s", text)
	}
	md, err := os.ReadFile(filepath.Join(dir, "sweep.md"))
	if err != nil || !strings.Contains(string(md), "| oom | Failed to start: ") || !strings.Contains(string(md), "(SIMULATED)") {
		t.Errorf("sweep.md:\n%s", md)
	}
	for _, f := range []string{"baseline/report.json", "eager/report.json", "small/report.json", "sweep.csv", "sweep.json"} {
		if _, err := os.Stat(filepath.Join(dir, f)); err != nil {
			t.Errorf("%s: %v", f, err)
		}
	}
}

// standInSweep is a CLI without GPUs or pictures, a server.toml of the
// stand-in vLLM of examples/sweep, and a folder for its sweep.
func standInSweep(t *testing.T) (c *CLI, toml, dir string) {
	t.Helper()
	hwCanned(t, hw.Hardware{}, hw.ErrNoNVML)
	c = cliFor(t)
	c.NoGPUWait = true
	noCharts(t)
	c.WriteSweepCharts = nil
	toml = exampleSweepTOML(t, buildSpeedmatrix(t), t.TempDir())
	dir = filepath.Join(t.TempDir(), "sw")
	return c, toml, dir
}

// TestSweepKnownAnswer sweeps the stand-in vLLM of examples/sweep, whose
// speed follows its flags: max_num_seqs = 2 can't serve 4 requests (Over
// capacity), enforce_eager makes every decode step 25 % longer. The
// answer is known: no eager configuration wins a cell, each is about 20 %
// slower than the baseline, and max_num_seqs = 2 is Over capacity at 4.
func TestSweepKnownAnswer(t *testing.T) {
	t.Parallel()
	_, toml, dir := standInSweep(t)
	out, err := sweepCLI(t, t.Context(), "--launch", toml, "--vary", "max_num_seqs=2,8", "--vary", "enforce_eager=false,true",
		"--out", dir, "--contexts", "1K", "--concurrency", "1,4", "--prefill-contexts", "none", "--duration", "1s",
		"--precision", "off", "--max-output", "256")
	if err != nil {
		t.Fatalf("%v\n%s", err, out)
	}
	s, err := sweep.Load(dir)
	if err != nil || s.Answer == nil || len(s.Configs) != 5 || !s.Simulated {
		t.Fatalf("sweep.json: %+v, %v", s, err)
	}
	// Which configuration is fastest, and by how much, is timed in real
	// time by a stand-in sharing the machine with other tests: a quiet
	// machine's check (SPEEDMATRIX_REALTIME=1). engine/sim's
	// TestKnobsInVirtualTime holds the 0.8× on the simulator's own clock.
	quiet := os.Getenv("SPEEDMATRIX_REALTIME") == "1"
	for _, ca := range s.Answer.Cells {
		if quiet && strings.Contains(ca.Best, "enforce_eager=true") || strings.Contains(ca.Best, "max_num_seqs=2") && ca.Concurrency == 4 || ca.Best == "" {
			t.Errorf("%s: best %q", ca.Label, ca.Best)
		}
		base := ca.Entries[0]
		for _, e := range ca.Entries[1:] {
			switch {
			case strings.HasPrefix(e.Config, "max_num_seqs=2") && ca.Concurrency == 4:
				if e.Status != engine.StatusOverCapacity {
					t.Errorf("%s %s: %s, want Over capacity", ca.Label, e.Config, e.Status)
				}
			case strings.Contains(e.Config, "enforce_eager=true"):
				if e.Status != engine.StatusValid || e.TokS <= 0 {
					t.Errorf("%s %s: %s at %.1f tok/s, want measured", ca.Label, e.Config, e.Status, e.TokS)
				}
				if ratio := e.TokS / base.TokS; quiet && (ratio < 0.7 || ratio > 0.9) {
					t.Errorf("%s %s: %.1f tok/s against the baseline's %.1f: %.2f×, want about 0.8×", ca.Label, e.Config, e.TokS, base.TokS, ratio)
				}
			}
		}
	}
	md, _ := os.ReadFile(filepath.Join(dir, sweep.MDFile))
	csv, _ := os.ReadFile(filepath.Join(dir, sweep.CSVFile))
	if !strings.Contains(string(md), "(SIMULATED)") || strings.Count(string(csv), ",true,sim:tiny,") != 10 {
		t.Errorf("not labelled simulated:\n%s\n%s", md, csv)
	}
	// The stand-in starts in seconds (launch.StandIn, as the app knows it):
	// the estimate assumes so, and says it, not two minutes a start-up.
	const basis = "start-ups of 2.0 s each, the stand-in's (Speed Matrix's simulator)"
	if s.Prior.Startup != sweep.StartupStandIn || s.EstimateS > 5*60 || !strings.Contains(out, "it assumes "+basis) || !strings.Contains(string(md), basis) {
		t.Errorf("estimate %.0f s from %+v:\n%s\n%s", s.EstimateS, s.Prior, out, md)
	}
}

// TestSweepQualityWithinBudget sweeps the stand-in vLLM over
// kv_cache_dtype auto, fp8 and int4_per_token_head with --quality. The
// simulator's calibrated drift (engine/sim/drift.go) makes the budget
// kld=0.03,top1=94% one that fp8 meets at every context and int4 meets at
// 512 tokens but not at 4K (its KLD there is about 0.065): in every cell
// the best within budget is the fastest configuration but int4 at 4K, and
// a cell int4 wins at 4K names it with its figure.
func TestSweepQualityWithinBudget(t *testing.T) {
	t.Parallel()
	c, toml, dir := standInSweep(t)
	const int4 = "kv_cache_dtype=int4_per_token_head"
	out, err := sweepCLI(t, t.Context(), "--launch", toml, "--vary", "kv_cache_dtype=fp8,int4_per_token_head", "--quality",
		"--quality-budget", "kld=0.03,top1=94%", "--quality-needle-trials", "2", "--out", dir, "--contexts", "512,4K", "--concurrency", "1",
		"--prefill-contexts", "none", "--duration", "300ms", "--precision", "off", "--max-output", "64")
	if err != nil {
		t.Fatalf("%v\n%s", err, out)
	}
	s, err := sweep.Load(dir)
	if err != nil || s.Answer == nil || len(s.Answer.Cells) != 2 || s.Quality == nil || s.Quality.ReferenceSHA256 == "" {
		t.Fatalf("sweep.json: %+v, %v", s, err)
	}
	for i, conf := range s.Configs {
		q := conf.Quality
		if q == nil || q.State != sweep.QualityMeasured || (i > 0 && len(q.Contexts) != 2) {
			t.Fatalf("%s: quality %+v\n%s", conf.Name, q, out)
		}
		for _, d := range q.Contexts {
			if wantOver := conf.Name == int4 && d.ContextTokens > 1024; d.Over() != wantOver {
				t.Errorf("%s at %d tokens: %+v, want over the budget: %v", conf.Name, d.ContextTokens, d, wantOver)
			}
		}
	}
	for _, ca := range s.Answer.Cells {
		want, best := "", 0.0
		for _, e := range ca.Entries {
			if e.Status == engine.StatusValid && e.TokS > best && !(e.Config == int4 && ca.ContextTokens > 1024) {
				want, best = e.Config, e.TokS
			}
		}
		line := sweep.CellLine(ca)
		if ca.WithinBudget != want || !strings.Contains(out, line) {
			t.Errorf("%s: within budget %q, want %q; line %q", ca.Label, ca.WithinBudget, want, line)
		}
		if ca.Best == int4 && ca.ContextTokens > 1024 && !(strings.Contains(line, int4+" is fastest here") && strings.Contains(line, "over the budget; best within budget: "+want)) {
			t.Errorf("%s: %q does not name the over-budget configuration", ca.Label, line)
		}
	}
	md, _ := os.ReadFile(filepath.Join(dir, sweep.MDFile))
	if !strings.Contains(out, "answer within the quality budget kld=0.03,top1=94% (simulated") ||
		!strings.Contains(out, "quality against the baseline's output (budget kld=0.03,top1=94%):\n  baseline: the reference\n  kv_cache_dtype=fp8: within budget: top-1 ") ||
		!strings.Contains(out, "\n  "+int4+": over budget: ") || !strings.Contains(string(md), "| "+int4+" | Done |") ||
		!strings.Contains(string(md), "over budget: ") {
		t.Errorf("output:\n%s\nsweep.md:\n%s", out, md)
	}
	var redrawn, stderr bytes.Buffer
	if err := c.report(t.Context(), []string{"--in", dir}, &redrawn, &stderr); err != nil || !strings.Contains(redrawn.String(), "\n  "+int4+": over budget: ") {
		t.Errorf("report --in a sweep with quality: %v\n%s%s", err, redrawn.String(), stderr.String())
	}
	// The reference is a measurement in the sweep's folder: a resume
	// refuses one whose bytes are not those sweep.json recorded.
	ref := filepath.Join(dir, sweep.ReferenceFile)
	data, err := os.ReadFile(ref)
	if err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(ref, append(data, '\n'), 0o644); err != nil {
		t.Fatal(err)
	}
	_, err = sweepCLI(t, t.Context(), "--resume", dir, "--launch", toml)
	if want := "sweep --resume: " + ref + " is not the quality reference the sweep recorded (its sha256 differs from sweep.json's); nothing was started"; err == nil || !strings.HasPrefix(err.Error(), want) {
		t.Errorf("resume with an edited reference: %v, want %q", err, want)
	}
}
