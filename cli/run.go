package cli

import (
	"context"
	"errors"
	"flag"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"strings"
	"time"

	"speedmatrix/engine"
	"speedmatrix/engine/measure"
	"speedmatrix/engine/openai"
	"speedmatrix/engine/report"
	"speedmatrix/engine/roofline"
	"speedmatrix/engine/runs"
	"speedmatrix/engine/secret"
	"speedmatrix/engine/sim"
	"speedmatrix/hw"
)

// runFlags are the options of `speedmatrix run`.
type runFlags struct {
	endpoint, simProfile, launch string
	simEngine                    string // the engine the simulator speaks as
	model, apiKeyEnv, api        string
	passwordEnv                  string // the variable that holds --endpoint's password
	prefill, contexts, conc      string
	duration                     time.Duration
	firstToken, stall, request   time.Duration
	idleTimeout                  time.Duration // deprecated: sets first-token and stall
	maxOutput, kvBudget          int
	noLoopDetect, allowBusy      bool
	resume, out                  string
	gpuMetrics                   string // DCGM exporter URLs, comma-separated
	modelConfig                  string // the model's folder (config.json), for the roofline
	keepFailed, force            bool
	slo                          sloFlags
	set                          map[string]bool // flags given on the command line
}

func parseRunFlags(args []string, stderr io.Writer) (runFlags, error) {
	var f runFlags
	fs := flag.NewFlagSet("run", flag.ContinueOnError)
	fs.SetOutput(stderr)
	def := engine.DefaultPlan()
	fs.StringVar(&f.endpoint, "endpoint", "", "base URL of an OpenAI-compatible server, e.g. http://127.0.0.1:8000")
	fs.StringVar(&f.simProfile, "sim", "", "measure the built-in simulator with this profile (results are labelled simulated)")
	fs.StringVar(&f.simEngine, "sim-engine", sim.EngineVLLM, "with --sim: the engine the simulator speaks as, vllm or sglang")
	fs.StringVar(&f.launch, "launch", "", "start vllm from this server.toml, measure it, stop it")
	fs.StringVar(&f.gpuMetrics, "gpu-metrics", "", "with --endpoint: DCGM exporter URLs to read the GPUs and their telemetry from, comma-separated, e.g. http://node1:9400/metrics,http://node2:9400/metrics")
	fs.StringVar(&f.model, "model", "", "served model name (default: the first one /v1/models lists)")
	fs.StringVar(&f.modelConfig, "model-config", "", "folder holding the model's config.json, for the roofline (default: the model's in the Hugging Face cache)")
	fs.StringVar(&f.apiKeyEnv, "api-key-env", "", "name of the environment variable that holds the API key")
	fs.StringVar(&f.passwordEnv, "password-env", "", "name of the environment variable that holds the password of --endpoint's user (http://user@host:8000), kept out of the process list")
	fs.StringVar(&f.api, "api", string(def.API), "API to measure: chat or completions")
	fs.StringVar(&f.prefill, "prefill-contexts", engine.FormatContexts(def.PrefillContexts), "prefill contexts (K = 1,024 tokens), or none")
	fs.StringVar(&f.contexts, "contexts", engine.FormatContexts(def.DecodeContexts), "sustained-decode contexts (K = 1,024 tokens), or none")
	fs.StringVar(&f.conc, "concurrency", engine.FormatCounts(def.Concurrency), "simultaneous requests per decode cell")
	fs.DurationVar(&f.duration, "duration", def.Duration, "measurement window of each decode cell")
	fs.DurationVar(&f.firstToken, "first-token-timeout", openai.DefaultFirstTokenTimeout, "a request with no first token this long after it was sent has stalled and fails")
	fs.DurationVar(&f.stall, "stall-timeout", openai.DefaultStallTimeout, "a request that receives no further token for this long after its first has stalled; inside a window it fails the cell")
	fs.DurationVar(&f.request, "request-timeout", openai.DefaultRequestTimeout, "timeout of every non-streaming request (models, tokenize, metrics, health, version)")
	fs.DurationVar(&f.idleTimeout, "idle-timeout", 0, "deprecated: sets both --first-token-timeout and --stall-timeout")
	fs.BoolVar(&f.allowBusy, "allow-busy", false, "measure a server that other clients use (the idle check and drain barrier are off; every cell is flagged)")
	fs.IntVar(&f.maxOutput, "max-output", def.MaxOutputTokens, "max output tokens per request")
	fs.IntVar(&f.kvBudget, "kv-budget", 0, "KV cache size in tokens for capacity checks (default: ask the server)")
	fs.BoolVar(&f.noLoopDetect, "no-loop-detect", false, "don't mark cells whose output loops as Looped")
	f.slo.register(fs, "judge each decode cell")
	fs.StringVar(&f.resume, "resume", "", "finish the partial run saved in this folder: measure its Failed, Cancelled and Not run cells")
	fs.BoolVar(&f.keepFailed, "resume-keep-failed", false, "with --resume: keep the Failed cells instead of measuring them again")
	fs.BoolVar(&f.force, "force", false, "with --resume: measure even if the server is not the one the run began with")
	fs.StringVar(&f.out, "out", "", "folder for report.json, results.csv, report.md and charts")
	fs.Usage = func() {
		fmt.Fprintln(fs.Output(), "usage: speedmatrix run (--endpoint URL | --sim PROFILE | --launch server.toml) --out DIR [options]")
		fmt.Fprintln(fs.Output(), "Run the speed test matrix headless: prefill per context, sustained decode per context × concurrency.")
		fs.PrintDefaults()
		fmt.Fprintln(fs.Output(), exitHelp)
	}
	if err := fs.Parse(args); err != nil {
		return f, err
	}
	if f.idleTimeout > 0 {
		f.firstToken, f.stall = f.idleTimeout, f.idleTimeout
	}
	if fs.NArg() > 0 {
		return f, fmt.Errorf("run: unexpected argument %q: every option is a flag, see speedmatrix run -h", fs.Arg(0))
	}
	f.set = map[string]bool{}
	fs.Visit(func(fl *flag.Flag) { f.set[fl.Name] = true })
	if f.resume == "" && (f.keepFailed || f.force) {
		return f, errors.New("run: --resume-keep-failed and --force only apply with --resume DIR")
	}
	if f.firstToken <= 0 || f.stall <= 0 || f.request <= 0 {
		return f, errors.New("run: --first-token-timeout, --stall-timeout and --request-timeout must be positive, e.g. 30s")
	}
	if f.simEngine != sim.EngineVLLM && f.simEngine != sim.EngineSGLang {
		return f, fmt.Errorf("run: --sim-engine %q is not one the simulator speaks: use vllm or sglang", f.simEngine)
	}
	if f.set["sim-engine"] && f.simProfile == "" {
		return f, errors.New("run: --sim-engine goes with --sim PROFILE")
	}
	return f, nil
}

// Run implements `speedmatrix run`: it measures the matrix against a server
// (an endpoint, the simulator, or a vllm it launches), prints one line per
// cell with the ETA, and saves the report after every cell. It returns nil
// when the run completed, whatever the cells' statuses; otherwise an
// exitError whose code says whether it could not start (1), stopped
// resumable (3) or could not write a file (4).
func (c *CLI) Run(ctx context.Context, args []string, stdout, stderr io.Writer) error {
	f, err := parseRunFlags(args, stderr)
	if err != nil {
		return err
	}
	plan, prev, err := f.plan()
	if err != nil {
		return err
	}
	out := f.outDir()
	if out == "" {
		return errors.New("run: no output folder: give --out DIR")
	}
	saver := &runs.Saver{Dir: out, Save: c.Save, Rescue: c.Rescue}
	if err := f.claimOut(saver); err != nil {
		return err
	}
	defer saver.Release()
	if f.resume == "" {
		if _, err := os.Stat(filepath.Join(out, report.JSONFile)); err == nil {
			return fmt.Errorf("run: %s already holds a report: choose another --out, or finish it with --resume %s", out, out)
		}
	}
	target, stop, err := c.target(ctx, f, prev, stderr)
	if err != nil {
		return err
	}
	defer stop()
	target.FirstTokenTimeout, target.StallTimeout, target.RequestTimeout = f.firstToken, f.stall, f.request
	target.AllowBusy, target.IdleWait = f.allowBusy, c.IdleWait
	if f.modelConfig != "" {
		target.Header.Roofline = roofline.ForServer(target.Header, f.modelConfig, roofline.ServerFacts{})
	}
	setup := runs.Setup{Diagnostics: c.diagnostics(), Version: c.Version}
	if prev != nil {
		setup.Resume = &measure.Resume{Report: *prev, KeepFailed: f.keepFailed, Force: f.force}
	}
	runs.Prepare(&target, setup)
	limits := engine.Limits{MaxModelLen: target.Header.Engine.MaxModelLen, KVCacheTokens: target.Header.Engine.KVCacheTokens, MaxNumSeqs: target.Header.Engine.MaxNumSeqs}
	for _, w := range engine.PlanWarnings(plan, limits) {
		fmt.Fprintf(stderr, "warning: %s\n", inFlags([]engine.PlanProblem{w}))
	}
	fmt.Fprintf(stdout, "speed test matrix against %s → %s\n", describeTarget(f, target), out)
	writeStartedAs(stdout, target.Header)
	runCtx, stopRun := context.WithCancel(ctx)
	defer stopRun()
	return consume(ctx, measure.Run(runCtx, plan, target), saver, stdout, c.WriteCharts, stopRun)
}

// diagnostics are this machine's start-up diagnostics for report.json.
// Detection that fails for another reason than a missing NVIDIA driver
// leaves them out: they must not stop a run.
func (c *CLI) diagnostics() *engine.Diagnostics {
	h, err := c.DetectHardware()
	if err != nil && !errors.Is(err, hw.ErrNoNVML) {
		return nil
	}
	d := h.Diagnostics(os.Environ())
	return &d
}

// claimOut checks the output folder (checkOut) and takes it for this run,
// so that two runs never save into the same folder.
func (f runFlags) claimOut(s *runs.Saver) error {
	if err := checkOut(s.Dir); err != nil {
		return err
	}
	err := s.Claim()
	var busy *runs.BusyError
	switch {
	case errors.As(err, &busy) && f.out == "":
		return fmt.Errorf("run --resume: %v: wait for it to end", err)
	case errors.As(err, &busy):
		return fmt.Errorf("run: %v: wait for it to end, or choose another --out", err)
	case err != nil:
		return badOut(s.Dir, err)
	}
	return nil
}

// badOut is the error of an output folder that can't hold the report.
func badOut(dir string, err error) error {
	return fmt.Errorf("run: --out %s is not usable (%v): choose a folder you can write", dir, err)
}

// checkOut creates the output folder and writes a file into it, so that a
// folder that can't hold the report is found before anything is measured.
func checkOut(dir string) error {
	bad := func(err error) error { return badOut(dir, err) }
	if err := os.MkdirAll(dir, 0o755); err != nil {
		return bad(errors.Unwrap(err))
	}
	probe, err := os.CreateTemp(dir, ".speedmatrix-write-test-*")
	if err != nil {
		return bad(errors.Unwrap(err))
	}
	_, werr := probe.WriteString("speedmatrix")
	cerr := probe.Close()
	_ = os.Remove(probe.Name())
	if err := errors.Join(werr, cerr); err != nil {
		return bad(err)
	}
	return nil
}

// outDir is --out, or the resumed run's folder.
func (f runFlags) outDir() string {
	if f.out != "" {
		return f.out
	}
	return f.resume
}

// plan builds the plan from the flags, or loads it from --resume.
func (f runFlags) plan() (engine.Plan, *engine.Report, error) {
	if f.resume != "" {
		prev, err := report.Load(f.resume)
		if err != nil {
			return engine.Plan{}, nil, fmt.Errorf("run --resume: %w", err)
		}
		for _, name := range []string{"prefill-contexts", "contexts", "concurrency", "duration", "max-output", "api", "kv-budget", "no-loop-detect"} {
			if f.set[name] {
				return engine.Plan{}, nil, fmt.Errorf("run --resume: --%s can't change on resume: drop it (the plan comes from %s)", name, f.resume)
			}
		}
		if f.slo.anySet(f.set) {
			// The SLO changes no measurement: a resumed run may judge by another.
			if prev.Plan.SLO, err = f.slo.slo("run --resume", f.set); err != nil {
				return engine.Plan{}, nil, err
			}
		}
		return prev.Plan, &prev, nil
	}
	p := engine.Plan{Duration: f.duration, MaxOutputTokens: f.maxOutput, API: engine.API(f.api),
		KVBudgetTokens: f.kvBudget, LoopDetection: !f.noLoopDetect}
	var err error
	if p.SLO, err = f.slo.slo("run", f.set); err != nil {
		return p, nil, err
	}
	if p.PrefillContexts, err = engine.ParseContexts(f.prefill); err != nil {
		return p, nil, fmt.Errorf("run: --prefill-contexts: %w", err)
	}
	if p.DecodeContexts, err = engine.ParseContexts(f.contexts); err != nil {
		return p, nil, fmt.Errorf("run: --contexts: %w", err)
	}
	if p.Concurrency, err = engine.ParseCounts(f.conc); err != nil {
		return p, nil, fmt.Errorf("run: --concurrency: %w", err)
	}
	if err := engine.ValidatePlan(p, engine.Limits{}); err != nil {
		return p, nil, withAdvice(err)
	}
	return p, nil, nil
}

func describeTarget(f runFlags, t measure.Subject) string {
	switch {
	case f.simProfile != "" || (f.endpoint == "" && t.Header.Engine.Simulated):
		return "the simulator (profile " + t.Header.Engine.SimProfile + ")"
	case f.launch != "":
		return "vllm launched from " + f.launch
	}
	return secret.URL(strings.TrimRight(t.BaseURL, "/"))
}
