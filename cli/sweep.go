package cli

import (
	"cmp"
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
	"speedmatrix/engine/launch"
	"speedmatrix/engine/measure"
	"speedmatrix/engine/quality"
	"speedmatrix/engine/quality/probe"
	"speedmatrix/engine/report"
	"speedmatrix/engine/runs"
	"speedmatrix/engine/sweep"
	"speedmatrix/engine/sweep/runner"
	"speedmatrix/engine/telemetry"
	"speedmatrix/hw"
)

// sweepFlags are the options of `speedmatrix sweep`: run's plan and
// target flags, and the configurations.
type sweepFlags struct {
	runFlags
	vary     listFlag
	varyFile string
	yes      bool
	// quality: --quality, its budget and needle trials.
	quality       bool
	qualityBudget string
	needleTrials  int
}

// listFlag is a flag that may be given several times.
type listFlag []string

func (l *listFlag) String() string     { return strings.Join(*l, " ") }
func (l *listFlag) Set(v string) error { *l = append(*l, v); return nil }

// sweepPlanFlags are the flags that make the plan, which a resumed sweep
// keeps. --launch (and --vary-file, where the sweep had one) must be given
// again on resume, --vary may be: the configurations are made from them
// and must be the ones begun.
var sweepPlanFlags = []string{"prefill-contexts", "contexts", "concurrency", "duration", "precision", "max-output", "api",
	"kv-budget", "no-loop-detect", "prefill-repeats", "slo-ttft", "slo-itl", "slo-percentile", "slo-user-tok-s",
	"quality", "quality-budget", "quality-needle-trials"}

func parseSweepFlags(args []string, stderr io.Writer) (sweepFlags, error) {
	f := sweepFlags{runFlags: runFlags{name: "sweep"}}
	fs := flag.NewFlagSet("sweep", flag.ContinueOnError)
	fs.SetOutput(stderr)
	f.register(fs)
	fs.Var(&f.vary, "vary", "a server.toml key and the values to try, KEY=V1,V2 (repeat for a grid: every combination runs)")
	fs.StringVar(&f.varyFile, "vary-file", "", "a TOML file of named tables, one per configuration, each setting the server.toml keys it changes")
	fs.BoolVar(&f.yes, "yes", false, fmt.Sprintf("run a grid of more than %d configurations", sweep.MaxConfigs))
	fs.StringVar(&f.out, "out", "", "folder of the sweep: sweep.md, sweep.json, sweep.csv, pictures, and one run folder per configuration")
	fs.BoolVar(&f.quality, "quality", false, "record the baseline's output as a quality reference ("+sweep.ReferenceFile+") and measure every configuration's drift against it; the answer names the fastest configuration within --quality-budget")
	fs.StringVar(&f.qualityBudget, "quality-budget", quality.DefaultBudget().String(), "with --quality: the drift a configuration may show and still count as the same model, e.g. kld=0.01,top1=98%")
	fs.IntVar(&f.needleTrials, "quality-needle-trials", probe.DefaultNeedleTrials, "with --quality: needle-retrieval trials per context (0: none)")
	fs.StringVar(&f.resume, "resume", "", "finish the sweep saved in this folder: keep its finished configurations, finish a partial one, run the others; give --launch (and --vary-file, or --vary where it varies what runs) as the sweep began: a resume never takes what runs from the sweep's files")
	fs.Usage = func() {
		fmt.Fprintln(fs.Output(), "usage: speedmatrix sweep --launch server.toml (--vary KEY=V1,V2 [--vary …] | --vary-file sweep.toml) --out DIR [--quality [--quality-budget kld=0.01,top1=98%]] [plan options]")
		fmt.Fprintln(fs.Output(), "       speedmatrix sweep --resume DIR --launch server.toml [--vary-file sweep.toml | --vary …]")
		fmt.Fprintln(fs.Output(), "Launch each configuration of server.toml in turn (the unchanged one first: the baseline), measure the same plan,")
		fmt.Fprintln(fs.Output(), "and answer per cell which configuration is fastest and by how much.")
		fs.PrintDefaults()
		fmt.Fprintln(fs.Output(), strings.Replace(exitHelp, "another run saves into", "another sweep saves into", 1))
	}
	var err error
	if f.set, err = parseFlags(fs, args); err != nil {
		return f, err
	}
	switch {
	case f.endpoint != "":
		return f, errors.New("sweep: --endpoint is a server that runs already, which a sweep can't reconfigure: give --launch server.toml, which it starts with each configuration")
	case f.simProfile != "":
		return f, errors.New("sweep: --sim has no settings to vary: give --launch server.toml (examples/sweep/server.toml launches the simulator as a stand-in vLLM)")
	case f.resume != "" && f.out != "":
		return f, errors.New("sweep: --resume DIR continues the sweep in DIR: drop --out")
	case len(f.vary) > 0 && f.varyFile != "":
		return f, errors.New("sweep: give --vary or --vary-file, not both: a --vary-file lists every configuration")
	case f.resume == "" && !f.quality && (f.set["quality-budget"] || f.set["quality-needle-trials"]):
		return f, errors.New("sweep: --quality-budget and --quality-needle-trials go with --quality: add --quality to measure each configuration's drift against the baseline")
	case f.resume != "":
		for _, name := range sweepPlanFlags {
			if f.set[name] {
				return f, fmt.Errorf("sweep --resume: --%s can't change on resume: drop it (the plan and configurations come from %s)", name, f.resume)
			}
		}
		return f, nil
	case f.launch == "":
		return f, errors.New("sweep: nothing to launch: give --launch server.toml")
	case len(f.vary) == 0 && f.varyFile == "":
		return f, errors.New("sweep: nothing to vary: give --vary KEY=V1,V2 (e.g. --vary max_num_seqs=64,128) or --vary-file sweep.toml")
	case f.out == "":
		return f, errors.New("sweep: no output folder: give --out DIR")
	}
	return f, f.checkQuality()
}

// checkQuality says what is wrong with the quality flags.
func (f sweepFlags) checkQuality() error {
	if _, err := quality.ParseBudget(f.qualityBudget); err != nil {
		return fmt.Errorf("sweep: --quality-budget: %v", err)
	}
	if f.needleTrials < 0 || f.needleTrials > quality.MaxNeedleTrials {
		return fmt.Errorf("sweep: --quality-needle-trials %d: use 0 (none) to %d", f.needleTrials, quality.MaxNeedleTrials)
	}
	return nil
}

// sweepCmd implements `speedmatrix sweep`.
func (c *CLI) sweepCmd(ctx context.Context, args []string, stdout, stderr io.Writer) error {
	f, err := parseSweepFlags(args, stderr)
	if err != nil {
		return err
	}
	s, dir, base, err := f.begin(c.Version, stderr)
	if err != nil {
		return err
	}
	lock, err := runs.LockFolder(dir)
	var busy *runs.BusyError
	switch {
	case errors.As(err, &busy):
		return fmt.Errorf("sweep: %v: wait for it to end", err)
	case err != nil:
		return badOut(dir, err)
	}
	defer lock.Unlock()
	if err := checkOut(dir); err != nil {
		return err
	}
	assumes := "" // a resumed sweep's estimate counts what it measured
	if s.Started.IsZero() {
		assumes = "; it assumes " + runner.EstimateBasis(s)
	}
	fmt.Fprintf(stdout, "sweep of %s over %s → %s (estimated %s, start-ups included%s)\n",
		s.Server, engine.Count(len(s.Configs), "configuration", "configurations"), dir, runner.Estimate(s).Round(time.Second), assumes)
	r := &runner.Runner{Dir: dir, Server: s.Server, Base: base, Hooks: c.sweepHooks(f, s.Plan, stdout, stderr)}
	if src := c.gpuSource(); src != nil {
		defer src.Close()
		r.GPUs = src
	}
	runErr := r.Run(ctx, &s)
	return sweepEnd(stdout, dir, s, runErr)
}

// gpuSource reads this machine's GPUs for the wait between two servers;
// nil where there is no NVIDIA driver (or in tests).
func (c *CLI) gpuSource() telemetry.Source {
	if c.NoGPUWait {
		return nil
	}
	return hw.SystemSource()
}

// begin makes the sweep from the flags, or reopens the one --resume names.
// It returns it with its folder and server.toml's text. Everything is
// checked here, before the first server starts.
func (f sweepFlags) begin(version string, stderr io.Writer) (sweep.Sweep, string, string, error) {
	if f.resume != "" {
		return f.reopen()
	}
	text, err := os.ReadFile(f.launch)
	if err != nil {
		return sweep.Sweep{}, "", "", fmt.Errorf("sweep: --launch %s can't be read: %v", f.launch, errors.Unwrap(err))
	}
	baseline, err := launch.DecodeConfig(f.launch, string(text))
	if err != nil {
		return sweep.Sweep{}, "", "", fmt.Errorf("sweep: %w", err)
	}
	o, varyText := sweep.Origin{Vary: f.vary}, ""
	if f.varyFile != "" {
		vt, err := os.ReadFile(f.varyFile)
		if err != nil {
			return sweep.Sweep{}, "", "", fmt.Errorf("sweep: --vary-file %s can't be read: %v", f.varyFile, errors.Unwrap(err))
		}
		o = sweep.Origin{VaryFile: f.varyFile, VaryFileSHA256: sweep.Digest(vt)}
		varyText = string(vt)
	}
	cs, dropped, err := runner.Derive(f.launch, string(text), o, varyText)
	if err != nil {
		return sweep.Sweep{}, "", "", sweepError("sweep", err)
	}
	if err := f.checkSize(cs); err != nil {
		return sweep.Sweep{}, "", "", err
	}
	for _, d := range dropped {
		fmt.Fprintf(stderr, "note: %s is the baseline's configuration: it is measured once, as the baseline\n", d)
	}
	plan, _, err := f.plan()
	if err != nil {
		return sweep.Sweep{}, "", "", err
	}
	if _, err := os.Stat(filepath.Join(f.out, sweep.JSONFile)); err == nil {
		return sweep.Sweep{}, "", "", fmt.Errorf("sweep: %s already holds a sweep: choose another --out, or finish it with --resume %s --launch %s", f.out, f.out, f.launch)
	}
	s := sweep.New(f.launch, plan, cs, version)
	s.ServerSHA256, s.Origin, s.Prior = sweep.Digest(text), o, runner.PriorFor(baseline)
	if f.quality {
		budget, _ := quality.ParseBudget(f.qualityBudget) // checked with the flags
		s.Quality = &sweep.QualitySetup{Budget: budget.String(), NeedleTrials: f.needleTrials}
	}
	return s, f.out, string(text), nil
}

// checkSize refuses, without --yes, a sweep whose configurations cs (the
// baseline first) take more than sweep.MaxConfigs start-ups besides the
// baseline's.
func (f sweepFlags) checkSize(cs []sweep.Config) error {
	n := len(cs) - 1
	switch {
	case n <= sweep.MaxConfigs || f.yes:
		return nil
	case f.resume != "":
		return fmt.Errorf("sweep --resume: %d configurations besides the baseline, more than %d: each starts the server (minutes with vLLM); pass --yes to run them", n, sweep.MaxConfigs)
	}
	return fmt.Errorf("sweep: %d configurations besides the baseline, more than %d: each starts the server (minutes with vLLM); shorten the --vary lists, or pass --yes", n, sweep.MaxConfigs)
}

// sweepError words an error of making a sweep's configurations for the
// command cmd.
func sweepError(cmd string, err error) error {
	var size *runner.SizeError
	if errors.As(err, &size) {
		return fmt.Errorf("%s: %d configurations, more than the %d a sweep runs even with --yes (each starts the server): split the --vary lists into several sweeps", cmd, size.N, sweep.HardMaxConfigs)
	}
	return fmt.Errorf("%s: %w", cmd, err)
}

// sweepHooks launch each configuration as run --launch does and measure
// it as run does, printing its cells.
func (c *CLI) sweepHooks(f sweepFlags, plan engine.Plan, stdout, stderr io.Writer) runner.Hooks {
	return runner.Hooks{
		Launch: func(ctx context.Context, conf sweep.Config, cfg launch.ServerConfig) (measure.Subject, func(), error) {
			return c.launchConfig(ctx, cfg, f.launch+" ("+conf.Name+")", stderr)
		},
		Measure: func(ctx context.Context, conf sweep.Config, target measure.Subject, dir string, prev *engine.Report) (engine.Report, error) {
			return c.measureInto(ctx, f, plan, target, dir, prev, stdout)
		},
		SaveReport: func(ctx context.Context, dir string, rep engine.Report, final bool) error {
			return c.saveQuality(ctx, dir, rep, final, stderr)
		},
		Summarize: func(ctx context.Context, dir string, s sweep.Sweep, runs map[string]engine.Report) error {
			if c.WriteSweepCharts == nil {
				return nil
			}
			return chartError(c.WriteSweepCharts(ctx, dir, s, runs), dir)
		},
		Progress: func(s sweep.Sweep, i int, note string) {
			conf := s.Configs[i]
			if note != "" {
				fmt.Fprintf(stdout, "  %s\n", note)
				return
			}
			line := fmt.Sprintf("── %d of %d: %s · %s", i+1, len(s.Configs), conf.Name, conf.Status)
			if conf.Reason != "" {
				line += ": " + conf.Reason
			}
			if conf.Status == sweep.StatusStarting {
				line += fmt.Sprintf(" (sweep ETA %s)", runner.Estimate(s).Round(time.Second))
			}
			fmt.Fprintln(stdout, line)
		},
	}
}

// measureInto runs the plan against target into dir, as `run` does.
func (c *CLI) measureInto(ctx context.Context, f sweepFlags, plan engine.Plan, target measure.Subject, dir string, prev *engine.Report, stdout io.Writer) (engine.Report, error) {
	saver := &runs.Saver{Dir: dir, Save: c.Save, Rescue: c.Rescue}
	if err := saver.Claim(); err != nil {
		return engine.Report{}, badOut(dir, err)
	}
	defer saver.Release()
	c.settle(&target, f.targetFlags)
	setup := runs.Setup{Diagnostics: c.diagnostics(), Version: c.Version}
	if prev != nil {
		setup.Resume = &measure.Resume{Report: *prev}
	}
	runs.Prepare(&target, setup)
	runCtx, stopRun := context.WithCancel(ctx)
	defer stopRun()
	return consumeReport(ctx, measure.Run(runCtx, plan, target), saver, stdout, c.WriteCharts, stopRun)
}

// sweepEnd prints the sweep's answer and turns its end into the exit code.
func sweepEnd(w io.Writer, dir string, s sweep.Sweep, runErr error) error {
	if runErr != nil {
		done := s.Settled()
		if errors.Is(runErr, measure.ErrInterrupted) {
			return exitWith(exitIncomplete, fmt.Errorf("sweep incomplete: %d of %d configurations done; finish it with %s", done, len(s.Configs), resumeCommand(dir, s)))
		}
		if advice, ok := keptAdvice(runErr, dir); ok {
			msg := fmt.Sprintf("sweep: %d of %d configurations done, but %v", done, len(s.Configs), advice)
			if done < len(s.Configs) {
				msg += "; then finish the sweep with " + resumeCommand(dir, s)
			}
			return exitWith(exitExport, errors.New(msg))
		}
		return exitWith(exitExport, fmt.Errorf("sweep: %w (%d of %d configurations done; finish with %s)", runErr, done, len(s.Configs), resumeCommand(dir, s)))
	}
	budget := ""
	if s.Answer != nil && s.Answer.Budget != "" {
		budget = " within the quality budget " + s.Answer.Budget
	}
	if s.Simulated {
		fmt.Fprintf(w, "answer%s (simulated: the servers were the Speed Matrix simulator):\n", budget)
	} else {
		fmt.Fprintf(w, "answer%s:\n", budget)
	}
	if s.Answer != nil {
		for _, ca := range s.Answer.Cells {
			fmt.Fprintf(w, "  %s\n", sweep.CellLine(ca))
		}
	}
	printSweepQuality(w, s)
	fmt.Fprintf(w, "sweep done in %s (estimated %s) → %s\n", engine.DurationOf(s.ActualS).Round(time.Second),
		engine.DurationOf(s.EstimateS).Round(time.Second), filepath.Join(dir, sweep.MDFile))
	var partial []string
	for _, conf := range s.Configs {
		if conf.Status == sweep.StatusPartial {
			partial = append(partial, conf.Name+" ("+conf.Reason+")")
		}
	}
	if len(partial) > 0 {
		return exitWith(exitIncomplete, fmt.Errorf("sweep incomplete: %s did not finish; finish it with %s", strings.Join(partial, ", "), resumeCommand(dir, s)))
	}
	return nil
}

// printSweepQuality prints, for a sweep with --quality, each
// configuration's quality against the baseline's output, its Looped cells
// beside it.
func printSweepQuality(w io.Writer, s sweep.Sweep) {
	if s.Quality == nil {
		return
	}
	fmt.Fprintf(w, "quality against the baseline's output (budget %s):\n", s.Quality.Budget)
	for i, conf := range s.Configs {
		line := cmp.Or(sweep.QualityText(conf), "not measured yet")
		if s.Answer != nil && i < len(s.Answer.Headlines) {
			if looped := sweep.LoopedText(s.Answer.Headlines[i], conf); looped != "" {
				line += "; " + looped
			}
		}
		fmt.Fprintf(w, "  %s: %s\n", conf.Name, line)
	}
}

// saveQuality saves a configuration's report as its quality phase adds to
// it, as a run saves it (c.Save), and at the phase's end draws its
// pictures again (the drift chart among them); a picture that can't be
// drawn is said, and the sweep goes on: its report is saved.
func (c *CLI) saveQuality(ctx context.Context, dir string, rep engine.Report, final bool, stderr io.Writer) error {
	save := c.Save
	if save == nil {
		save = report.Save
	}
	if err := save(dir, rep); err != nil {
		return err
	}
	if final && c.WriteCharts != nil {
		if err := c.WriteCharts(ctx, dir, rep); err != nil {
			fmt.Fprintf(stderr, "warning: %v\n", chartError(err, dir))
		}
	}
	return nil
}
