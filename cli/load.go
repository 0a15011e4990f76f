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

	"speedmatrix/engine"
	"speedmatrix/engine/measure"
	"speedmatrix/engine/report"
	"speedmatrix/engine/runs"
	"speedmatrix/engine/trace"
)

// loadFlags are the options of `speedmatrix load`.
type loadFlags struct {
	targetFlags
	slo                    sloFlags
	rates, input, output   string
	arrivals, api, dataset string
	requests, sweepRates   int
	trace                  string
	conversations          int
	thinkTime, answers     string
	timeScale              float64
	blockSize, maxRequests int
	burst, maxConcurrency  int
	seed                   int64
	out                    string
	set                    map[string]bool
}

// loadUsage is the first line of `load -h`, and the README's.
const loadUsage = "usage: speedmatrix load (--endpoint URL | --sim PROFILE | --launch server.toml) (--rates 1,2,4,8 | --rates sweep | --burst N | --trace FILE.jsonl | --dataset FILE.jsonl --conversations N) --out DIR [options]"

func parseLoadFlags(args []string, stderr io.Writer) (loadFlags, error) {
	var f loadFlags
	fs := flag.NewFlagSet("load", flag.ContinueOnError)
	fs.SetOutput(stderr)
	f.targetFlags.add(fs)
	f.slo.register(fs, "count goodput (completed requests per second within the SLO: each request's TTFT, and its own gaps between tokens at the percentile)")
	fs.StringVar(&f.rates, "rates", "", "request rates to measure, in requests per second (1,2,4,8), or sweep: the throughput limit first, then rates up to it")
	fs.IntVar(&f.sweepRates, "sweep-rates", engine.DefaultSweepRates, "with --rates sweep: how many rates, spread evenly up to the limit")
	fs.IntVar(&f.requests, "requests", 200, "requests per rate")
	fs.StringVar(&f.input, "input-tokens", "1024", "prompt tokens per request: 1024, or a range drawn uniformly like 512:2048")
	fs.StringVar(&f.output, "output-tokens", "256", "output tokens per request (ignore_eos): 256, or a range like 128:512")
	fs.StringVar(&f.arrivals, "arrivals", string(engine.ArrivalsPoisson), "how requests arrive: poisson (random, as users do) or constant (evenly spaced)")
	fs.Int64Var(&f.seed, "seed", 0, "seed of the arrivals and the drawn lengths: the same seed sends the same test")
	fs.IntVar(&f.burst, "burst", 0, "send N requests at once, end to end, instead of rates")
	fs.IntVar(&f.maxConcurrency, "max-concurrency", 0, "at most N requests open at once (0: no cap); a request due at the cap waits, and its wait counts in its latency")
	fs.StringVar(&f.dataset, "dataset", "", `JSONL file of real prompts: {"prompt": "…"} per line, or ShareGPT-style conversations (the first human turn; every turn with --conversations)`)
	fs.StringVar(&f.trace, "trace", "", `replay a Mooncake JSONL trace instead of rates: {"timestamp": ms, "input_length": n, "output_length": n, "hash_ids": [...]} per line, each request at its time, equal hash ids sharing prompt blocks`)
	fs.Float64Var(&f.timeScale, "time-scale", 1, "with --trace: multiply its timestamps (0.5 replays twice as fast)")
	fs.IntVar(&f.blockSize, "block-size", trace.DefaultBlockSize, "with --trace: prompt tokens per hash id")
	fs.IntVar(&f.maxRequests, "max-requests", 0, fmt.Sprintf("with --trace: replay its first N requests only (0: all, up to %d)", trace.MaxRequests))
	f.addConversationFlags(fs)
	fs.StringVar(&f.api, "api", string(engine.APIChat), "API to measure: chat or completions")
	fs.StringVar(&f.out, "out", "", "folder for report.json, load.csv, report.md and charts")
	fs.Usage = func() {
		fmt.Fprintln(fs.Output(), loadUsage)
		fmt.Fprintln(fs.Output(), "Load test at request rates: requests arrive on a schedule (Poisson, constant or a burst), and every latency counts from the request's scheduled arrival.")
		fmt.Fprintln(fs.Output(), "With --conversations, a dataset's conversations are replayed turn by turn instead, each turn due when the reply before it ended plus the think time.")
		fs.PrintDefaults()
	}
	var err error
	if f.set, err = parseFlags(fs, args); err != nil {
		return f, err
	}
	return f, f.targetFlags.check("load", f.set)
}

// plan builds the load plan from the flags, checked.
func (f loadFlags) plan() (engine.LoadPlan, error) {
	p := engine.LoadPlan{Arrivals: engine.Arrivals(f.arrivals), Requests: f.requests, Burst: f.burst, MaxConcurrency: f.maxConcurrency,
		Dataset: f.dataset, Seed: f.seed, API: engine.API(f.api)}
	var err error
	if f.set["slo-user-tok-s"] {
		return p, fmt.Errorf("load: --slo-user-tok-s sets the speed a matrix's Pareto answer holds each request to; a load test has no such chart: drop it, or bound each request's gaps with --slo-itl")
	}
	if p.SLO, err = f.slo.slo("load", f.set); err != nil {
		return p, err
	}
	if err := f.tracePlan(&p); err != nil {
		return p, err
	}
	if err := f.conversationPlan(&p); err != nil {
		return p, err
	}
	switch {
	case p.Trace != nil, p.Conversations != nil:
	case f.burst != 0 && f.rates != "":
		return p, errors.New("load: give --rates or --burst, not both")
	case f.burst != 0 && f.set["requests"]:
		return p, errors.New("load: --requests and --burst: a burst sends --burst requests at once; drop --requests")
	case f.burst != 0 && f.set["arrivals"]:
		return p, errors.New("load: --arrivals and --burst: a burst sends every request at once; drop --arrivals")
	case f.burst > 0:
		// As the app writes a burst: its requests are the burst's, all due at once.
		p.Requests, p.Arrivals = f.burst, engine.ArrivalsBurst
	case f.set["sweep-rates"] && !strings.EqualFold(strings.TrimSpace(f.rates), engine.SweepWord):
		return p, errors.New("load: --sweep-rates goes with --rates sweep")
	case f.rates != "":
		if p.RatesRPS, p.Sweep, err = engine.ParseRates(f.rates); err != nil {
			return p, fmt.Errorf("load: --rates: %w", err)
		}
		if p.Sweep {
			p.SweepRates = f.sweepRates
		}
	}
	if p.InputTokens, err = engine.ParseTokenRange(f.input); err != nil {
		return p, fmt.Errorf("load: --input-tokens: %w", err)
	}
	if p.OutputTokens, err = engine.ParseTokenRange(f.output); err != nil {
		return p, fmt.Errorf("load: --output-tokens: %w", err)
	}
	if f.dataset != "" {
		if f.set["input-tokens"] {
			return p, errors.New("load: --input-tokens and --dataset: the dataset's prompts have their own lengths; drop --input-tokens")
		}
		p.InputTokens = engine.TokenRange{}
	}
	if f.dataset != "" && p.Conversations == nil {
		if _, err := measure.ReadDataset(f.dataset); err != nil {
			return p, fmt.Errorf("load: --dataset: %w", err)
		}
	}
	if err := engine.ValidateLoadPlan(p, engine.Limits{}); err != nil {
		return p, loadAdvice(err)
	}
	if p.Conversations != nil {
		return p, readConversations(&p)
	}
	return p, nil
}

// tracePlan sets the plan's trace from --trace and its options, read
// once here so that a bad file is refused before a server starts.
func (f loadFlags) tracePlan(p *engine.LoadPlan) error {
	if f.trace == "" {
		for _, name := range []string{"time-scale", "block-size", "max-requests"} {
			if f.set[name] {
				return fmt.Errorf("load: --%s goes with --trace FILE.jsonl", name)
			}
		}
		return nil
	}
	for _, name := range []string{"rates", "burst", "sweep-rates", "requests", "arrivals", "input-tokens", "output-tokens", "dataset"} {
		if f.set[name] {
			return fmt.Errorf("load: --%s and --trace: a trace gives each request its time and lengths; drop --%s", name, name)
		}
	}
	o := trace.Options{TimeScale: f.timeScale, BlockSize: f.blockSize, MaxRequests: f.maxRequests}
	if err := trace.CheckOptions(o); err != nil {
		return fmt.Errorf("load: --trace: %w", err)
	}
	t, err := trace.Read(f.trace, o)
	if err != nil {
		return fmt.Errorf("load: --trace: %w", err)
	}
	p.Trace = &engine.TracePlan{File: f.trace, TimeScale: f.timeScale, BlockSize: f.blockSize, MaxRequests: f.maxRequests}
	p.Arrivals, p.Requests = engine.ArrivalsTrace, len(t.Requests)
	p.InputTokens = engine.TokenRange{Min: 1, Max: t.LongestInput()}
	p.OutputTokens = engine.TokenRange{Min: 1, Max: max(1, t.LongestOutput())}
	return nil
}

// loadAdvice is withAdvice in the load command's words: a plan's
// problems with their flags.
func loadAdvice(err error) error {
	var plan *engine.PlanError
	if errors.As(err, &plan) {
		return errors.New("load: " + inFlags(plan.Problems))
	}
	return withAdvice(err)
}

// Load implements `speedmatrix load`: it runs a load test against a server
// (an endpoint, the simulator, or a vllm it launches), prints one line per
// rate, and saves the report after every rate; at the end it writes the
// same files and charts as run. Exit codes as run's, with 3 for a test
// that stopped early (its rates so far are saved; there is no resume).
func (c *CLI) Load(ctx context.Context, args []string, stdout, stderr io.Writer) error {
	f, err := parseLoadFlags(args, stderr)
	if err != nil {
		return err
	}
	plan, err := f.plan()
	if err != nil {
		return err
	}
	if f.out == "" {
		return errors.New("load: no output folder: give --out DIR")
	}
	saver := &runs.Saver{Dir: f.out, Save: c.Save, Rescue: c.Rescue}
	if err := claimLoadOut(saver); err != nil {
		return err
	}
	defer saver.Release()
	if _, err := os.Stat(filepath.Join(f.out, report.JSONFile)); err == nil {
		return fmt.Errorf("load: %s already holds a report: choose another --out", f.out)
	}
	target, stop, err := c.target(ctx, f.targetFlags, nil, stderr)
	if err != nil {
		return retitle(err)
	}
	defer stop()
	c.settle(&target, f.targetFlags)
	runs.Prepare(&target, runs.Setup{Diagnostics: c.diagnostics(), Version: c.Version})
	fmt.Fprintf(stdout, "load test against %s → %s\n", describeTarget(runFlags{targetFlags: f.targetFlags}, target), f.out)
	writeStartedAs(stdout, target.Header)
	runCtx, stopRun := context.WithCancel(ctx)
	defer stopRun()
	return consumeLoad(ctx, measure.RunLoad(runCtx, plan, target), saver, stdout, c.WriteCharts, stopRun)
}

// claimLoadOut checks the output folder and takes it for this test.
func claimLoadOut(s *runs.Saver) error {
	if err := checkOut(s.Dir); err != nil {
		return retitle(err)
	}
	err := s.Claim()
	var busy *runs.BusyError
	switch {
	case errors.As(err, &busy):
		return fmt.Errorf("load: %v: wait for it to end, or choose another --out", err)
	case err != nil:
		return retitle(badOut(s.Dir, err))
	}
	return nil
}

// retitle is an error that the run command's shared code words as run's
// ("run: …", "run --sim: …") in the load command's words.
func retitle(err error) error { return retitleAs("load", err) }

// retitleAs is retitle in the words of command cmd.
func retitleAs(cmd string, err error) error {
	msg := err.Error()
	if rest, ok := strings.CutPrefix(msg, "run"); ok && (strings.HasPrefix(rest, ":") || strings.HasPrefix(rest, " --")) {
		return &retitled{msg: cmd + rest, err: err}
	}
	return err
}

type retitled struct {
	msg string
	err error
}

func (r *retitled) Error() string { return r.msg }
func (r *retitled) Unwrap() error { return r.err }
