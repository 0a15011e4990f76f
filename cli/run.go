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
	"speedmatrix/engine/report"
	"speedmatrix/engine/runs"
	"speedmatrix/engine/secret"
	"speedmatrix/hw"
)

// runFlags are the options of `speedmatrix run`.
type runFlags struct {
	targetFlags
	api                     string
	prefill, contexts, conc string
	duration                time.Duration
	precision               string
	maxOutput, kvBudget     int
	prefillRepeats          int
	noLoopDetect            bool
	resume, out             string
	keepFailed, force       bool
	slo                     sloFlags
	price                   priceFlags
	quality                 runQualityFlags // run's alone: a sweep has its own
	set                     map[string]bool // flags given on the command line
	name                    string          // the subcommand, in errors: run, sweep
}

// register adds the plan and target flags run and sweep share to fs.
func (f *runFlags) register(fs *flag.FlagSet) {
	def := engine.DefaultPlan()
	f.targetFlags.add(fs)
	fs.StringVar(&f.api, "api", string(def.API), "API to measure: chat or completions")
	fs.StringVar(&f.prefill, "prefill-contexts", engine.FormatContexts(def.PrefillContexts), "prefill contexts (K = 1,024 tokens), or none")
	fs.StringVar(&f.contexts, "contexts", engine.FormatContexts(def.DecodeContexts), "sustained-decode contexts (K = 1,024 tokens), or none")
	fs.StringVar(&f.conc, "concurrency", engine.FormatCounts(def.Concurrency), "simultaneous requests per decode cell")
	fs.DurationVar(&f.duration, "duration", def.Duration, "measurement window of each decode cell (with --precision: the longest)")
	fs.StringVar(&f.precision, "precision", engine.FormatPrecision(def.Precision),
		"end each decode window once its total tok/s is known to this ± (95 %) and not moving, after at least 5 s; off: fixed windows of --duration")
	fs.IntVar(&f.maxOutput, "max-output", def.MaxOutputTokens, "max output tokens per request")
	fs.IntVar(&f.kvBudget, "kv-budget", 0, "KV cache size in tokens for capacity checks (default: ask the server)")
	fs.BoolVar(&f.noLoopDetect, "no-loop-detect", false, "don't mark cells whose output loops as Looped")
	fs.IntVar(&f.prefillRepeats, "prefill-repeats", 0, "cold requests per prefill context, each with a prefix of its own; prompt tok/s is their median\n"+
		"(default: the Standard plan's 3 below 64K, 1 at 64K and above; N applies to every context)")
	f.slo.register(fs, "judge each decode cell")
}

func parseRunFlags(args []string, stderr io.Writer) (runFlags, error) {
	f := runFlags{name: "run"}
	fs := flag.NewFlagSet("run", flag.ContinueOnError)
	fs.SetOutput(stderr)
	f.register(fs)
	fs.StringVar(&f.resume, "resume", "", "finish the partial run saved in this folder: measure its Failed, Cancelled and Not run cells")
	fs.BoolVar(&f.keepFailed, "resume-keep-failed", false, "with --resume: keep the Failed cells instead of measuring them again")
	fs.BoolVar(&f.force, "force", false, "with --resume: measure even if the server is not the one the run began with")
	fs.StringVar(&f.out, "out", "", "folder for report.json, results.csv, report.md and charts")
	f.quality.add(fs)
	f.price.register(fs, "price each decode cell")
	fs.Usage = func() {
		fmt.Fprintln(fs.Output(), "usage: speedmatrix run (--endpoint URL | --sim PROFILE | --launch server.toml) --out DIR [options]")
		fmt.Fprintln(fs.Output(), "Run the speed test matrix headless: prefill per context, sustained decode per context × concurrency.")
		fs.PrintDefaults()
		fmt.Fprintln(fs.Output(), exitHelp)
	}
	var err error
	if f.set, err = parseFlags(fs, args); err != nil {
		return f, err
	}
	if f.resume == "" && (f.keepFailed || f.force) {
		return f, errors.New("run: --resume-keep-failed and --force only apply with --resume DIR")
	}
	return f, f.targetFlags.check("run", f.set)
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
	qp, err := f.quality.plan(f.set, prev, f.resume)
	if err != nil {
		return err
	}
	prices, err := f.price.prices("run", f.set)
	if err != nil {
		return err
	}
	if prices == nil && prev != nil {
		prices = prev.Run.Prices // a resumed run keeps its prices unless new ones are given
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
	target, stop, err := c.target(ctx, f.targetFlags, prev, stderr)
	if err != nil {
		return err
	}
	defer stop()
	c.settle(&target, f.targetFlags)
	setup := runs.Setup{Diagnostics: c.diagnostics(), Version: c.Version}
	if prev != nil {
		setup.Resume = &measure.Resume{Report: *prev, KeepFailed: f.keepFailed, Force: f.force}
	}
	runs.Prepare(&target, setup)
	target.Header.Run.Prices = prices
	phase, err := c.qualityPhase(ctx, qp, &target, f, prev, saver, stdout)
	if err != nil {
		return err
	}
	limits := engine.Limits{MaxModelLen: target.Header.Server.MaxModelLen, KVCacheTokens: target.Header.Server.KVCacheTokens, MaxNumSeqs: target.Header.Server.MaxNumSeqs}
	for _, w := range engine.PlanWarnings(plan, limits) {
		fmt.Fprintf(stderr, "warning: %s\n", inFlags([]engine.PlanProblem{w}))
	}
	fmt.Fprintf(stdout, "speed test matrix against %s → %s\n", describeTarget(f, target), out)
	writeStartedAs(stdout, target.Header)
	runCtx, stopRun := context.WithCancel(ctx)
	defer stopRun()
	_, err = consumeWith(ctx, measure.Run(runCtx, plan, target), saver, stdout, c.WriteCharts, stopRun, phase)
	return err
}

// qualityPhase connects the run's quality phase (nil without
// --quality-reference) to its server, refusing a reference of another
// tokenizer before any cell, and names the reference in the report from
// its first cell on, so that a run interrupted anywhere resumes with it.
func (c *CLI) qualityPhase(ctx context.Context, q *runs.Quality, target *measure.Subject, f runFlags, prev *engine.Report, saver *runs.Saver, stdout io.Writer) (*qualityPhase, error) {
	if q == nil {
		return nil, nil
	}
	s, err := connectQuality(ctx, q, *target, f.targetFlags)
	if err != nil {
		return nil, err
	}
	prior, _ := q.Prior(prev) // checked with the flags
	if target.Header.Quality == nil {
		target.Header.Quality = q.Section()
	}
	return &qualityPhase{q: q, s: s, prior: prior, saver: saver, stdout: stdout}, nil
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
	if err := writable(dir); err != nil {
		return badOut(dir, err)
	}
	return nil
}

// writable creates the folder dir and writes a file into it (then removes
// it): the reason it can't, or nil.
func writable(dir string) error {
	if err := os.MkdirAll(dir, 0o755); err != nil {
		return errors.Unwrap(err)
	}
	probe, err := os.CreateTemp(dir, ".speedmatrix-write-test-*")
	if err != nil {
		return errors.Unwrap(err)
	}
	_, werr := probe.WriteString("speedmatrix")
	cerr := probe.Close()
	_ = os.Remove(probe.Name())
	return errors.Join(werr, cerr)
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
		for _, name := range []string{"prefill-contexts", "contexts", "concurrency", "duration", "precision", "max-output", "api", "kv-budget", "no-loop-detect", "prefill-repeats"} {
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
	if err := f.setPrefillRepeats(&p); err != nil {
		return p, nil, err
	}
	var err error
	if p.SLO, err = f.slo.slo(f.name, f.set); err != nil {
		return p, nil, err
	}
	if p.Precision, err = engine.ParsePrecision(f.precision); err != nil {
		return p, nil, fmt.Errorf("%s: --precision: %w", f.name, err)
	}
	if p.PrefillContexts, err = engine.ParseContexts(f.prefill); err != nil {
		return p, nil, fmt.Errorf("%s: --prefill-contexts: %w", f.name, err)
	}
	if p.DecodeContexts, err = engine.ParseContexts(f.contexts); err != nil {
		return p, nil, fmt.Errorf("%s: --contexts: %w", f.name, err)
	}
	if p.Concurrency, err = engine.ParseCounts(f.conc); err != nil {
		return p, nil, fmt.Errorf("%s: --concurrency: %w", f.name, err)
	}
	if err := engine.ValidatePlan(p, engine.Limits{}); err != nil {
		return p, nil, withAdvice(err)
	}
	return p, nil, nil
}

// setPrefillRepeats sets the plan's prefill repeats: --prefill-repeats N
// for every context, else the Standard plan's rule.
func (f runFlags) setPrefillRepeats(p *engine.Plan) error {
	if !f.set["prefill-repeats"] {
		def := engine.DefaultPlan()
		p.PrefillRepeats, p.PrefillSingleFrom = def.PrefillRepeats, def.PrefillSingleFrom
		return nil
	}
	if problem := engine.PrefillRepeatsProblem(f.prefillRepeats); problem != "" {
		return withAdvice(&engine.PlanError{Problems: []engine.PlanProblem{{Field: engine.FieldPrefillRepeats, Problem: problem}}})
	}
	p.PrefillRepeats, p.PrefillSingleFrom = f.prefillRepeats, 0
	return nil
}

func describeTarget(f runFlags, t measure.Subject) string {
	switch {
	case f.launch != "": // a stand-in's profile is known once it answers
		return "vllm launched from " + f.launch
	case f.simProfile != "" || (f.endpoint == "" && t.Header.Server.Simulated):
		return "the simulator (profile " + t.Header.Server.SimProfile + ")"
	}
	return secret.URL(strings.TrimRight(t.BaseURL, "/"))
}
