package cli

import (
	"context"
	"errors"
	"flag"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"unicode/utf8"

	"speedmatrix/engine"
	"speedmatrix/engine/openai"
	"speedmatrix/engine/quality"
	"speedmatrix/engine/quality/probe"
	"speedmatrix/engine/runs"
)

// qualityFlags are the options of `speedmatrix quality`.
type qualityFlags struct {
	targetFlags
	saveReference, reference, out string
	contexts, text, tasks, budget string
	probes, continuation, needle  int
	taskTokens                    int
	seed                          uint64
	resume                        bool
	set                           map[string]bool
}

// qualityUsage is the first line of `quality -h`, and the README's.
const qualityUsage = "usage: speedmatrix quality (--endpoint URL | --sim PROFILE | --launch server.toml) (--save-reference ref.quality.json | --reference ref.quality.json --out DIR) [options]"

func parseQualityFlags(args []string, stderr io.Writer) (qualityFlags, error) {
	var f qualityFlags
	fs := flag.NewFlagSet("quality", flag.ContinueOnError)
	fs.SetOutput(stderr)
	f.targetFlags.add(fs)
	fs.StringVar(&f.saveReference, "save-reference", "", "record a quality reference of this server into this file (before you change anything)")
	fs.StringVar(&f.reference, "reference", "", "compare this server with the reference in this file")
	fs.BoolVar(&f.resume, "resume", false, "with --reference: go on with the interrupted comparison in --out (its quality.json): what it compared is kept")
	fs.StringVar(&f.out, "out", "", "with --reference: folder for quality.json and quality.csv")
	fs.StringVar(&f.contexts, "contexts", "512,2K,8K", "with --save-reference: context lengths to probe, fitted to the model as a run fits them; with --reference: the needle task's (default: the reference's)")
	fs.IntVar(&f.probes, "probes", probe.DefaultProbes, "with --save-reference: probe texts per context")
	fs.IntVar(&f.continuation, "continuation-tokens", probe.DefaultContinuationTokens, "with --save-reference: greedy tokens per probe")
	fs.Uint64Var(&f.seed, "seed", 0, "seed of the probe texts and needle trials: the same seed asks the same questions")
	fs.IntVar(&f.needle, "needle-trials", probe.DefaultNeedleTrials, "needle-retrieval trials per context (0: none)")
	fs.StringVar(&f.text, "quality-text", "", "natural text (UTF-8) to build probes and needle haystacks from (default: the built-in, Newton's Opticks)")
	fs.StringVar(&f.tasks, "tasks", "", `JSONL task file: {"prompt", "answer", "match": "exact|number|choice|regex"} per line`)
	fs.IntVar(&f.taskTokens, "task-tokens", probe.DefaultTaskTokens, "with --tasks: the longest answer, in tokens")
	fs.StringVar(&f.budget, "budget", quality.DefaultBudget().String(), "quality budget a drift must stay within, e.g. kld=0.01,top1=98%")
	fs.Usage = func() {
		fmt.Fprintln(fs.Output(), qualityUsage)
		fmt.Fprintln(fs.Output(), "Is it still the same model? Record a reference once, then measure another server's drift against it (KL divergence and top-1 agreement per context, against the noise floor) and its needle retrieval.")
		fs.PrintDefaults()
	}
	var err error
	if f.set, err = parseFlags(fs, args); err != nil {
		return f, err
	}
	if err := f.targetFlags.check("quality", f.set); err != nil {
		return f, err
	}
	return f, f.checkQuality()
}

// checkQuality says what is wrong with the quality flags themselves.
func (f qualityFlags) checkQuality() error {
	switch {
	case (f.saveReference == "") == (f.reference == ""):
		return errors.New("quality: give --save-reference FILE to record a reference, or --reference FILE --out DIR to compare with one")
	case f.reference != "" && f.out == "":
		return errors.New("quality: --reference needs --out DIR for quality.json and quality.csv")
	case f.resume && f.reference == "":
		return errors.New("quality: --resume goes with --reference FILE --out DIR: it goes on with the comparison in DIR")
	case f.saveReference != "" && f.out != "":
		return errors.New("quality: --out goes with --reference; a recording writes --save-reference FILE")
	case f.reference != "" && (f.set["probes"] || f.set["continuation-tokens"]):
		return errors.New("quality: --probes and --continuation-tokens go with --save-reference: a comparison asks the reference's probes")
	case f.probes < 1 || f.probes > quality.MaxProbes/engine.MaxLevels:
		return fmt.Errorf("quality: --probes %d: use 1 to %d", f.probes, quality.MaxProbes/engine.MaxLevels)
	case f.continuation < 1 || f.continuation > quality.MaxContinuationTokens:
		return fmt.Errorf("quality: --continuation-tokens %d: use 1 to %d", f.continuation, quality.MaxContinuationTokens)
	case f.needle < 0 || f.needle > quality.MaxNeedleTrials:
		return fmt.Errorf("quality: --needle-trials %d: use 0 (none) to %d", f.needle, quality.MaxNeedleTrials)
	case f.taskTokens < 1 || f.taskTokens > engine.MaxContextTokens:
		return fmt.Errorf("quality: --task-tokens %d: use 1 to %d", f.taskTokens, engine.MaxContextTokens)
	case f.set["task-tokens"] && f.tasks == "":
		return errors.New("quality: --task-tokens goes with --tasks FILE")
	}
	if _, err := engine.ParseContexts(f.contexts); err != nil {
		return fmt.Errorf("quality: --contexts: %v", err)
	}
	if _, err := quality.ParseBudget(f.budget); err != nil {
		return fmt.Errorf("quality: --budget: %v", err)
	}
	return nil
}

// readText is --quality-text's text, bounded and checked; the built-in
// text without it.
func readText(path string) (string, error) {
	if path == "" {
		return quality.CleanText(quality.Text()), nil
	}
	fh, err := os.Open(path)
	if err != nil {
		return "", fmt.Errorf("quality: --quality-text: %v", err)
	}
	defer fh.Close()
	b, err := io.ReadAll(io.LimitReader(fh, quality.MaxTextBytes+1))
	switch {
	case err != nil:
		return "", fmt.Errorf("quality: --quality-text %s: %v", path, err)
	case len(b) > quality.MaxTextBytes:
		return "", fmt.Errorf("quality: --quality-text %s is over %d MiB: give a shorter text", path, quality.MaxTextBytes>>20)
	case !utf8.Valid(b):
		return "", fmt.Errorf("quality: --quality-text %s is not UTF-8 text", path)
	}
	text := quality.CleanText(string(b))
	if len(text) < 1024 {
		return "", fmt.Errorf("quality: --quality-text %s holds %d bytes of text: give at least 1 KB of natural prose", path, len(text))
	}
	return text, nil
}

// readTasks is a task file's items (flag names it: "quality: --tasks"),
// read within the engine's bounds; none without one.
func readTasks(flag, path string) ([]quality.Task, error) {
	if path == "" {
		return nil, nil
	}
	fh, err := os.Open(path)
	if err != nil {
		return nil, fmt.Errorf("%s: %v", flag, err)
	}
	defer fh.Close()
	tasks, err := quality.ParseTasks(fh)
	switch {
	case err != nil:
		return nil, fmt.Errorf("%s %s: %w", flag, path, err)
	case len(tasks) == 0:
		return nil, fmt.Errorf("%s %s holds no items: one JSON object a line, {\"prompt\", \"answer\", \"match\"}", flag, path)
	}
	return tasks, nil
}

// checkReferenceOut refuses to record over a file (a reference is what
// later servers are measured against), and checks that its folder takes
// files before anything is measured.
func checkReferenceOut(path string) error {
	if _, err := os.Lstat(path); err == nil {
		return fmt.Errorf("quality: --save-reference %s already exists: a reference is recorded once; choose another name, or remove it to record again", path)
	}
	if err := writable(filepath.Dir(path)); err != nil {
		return fmt.Errorf("quality: --save-reference %s: its folder is not usable (%v): choose a folder you can write", path, err)
	}
	return nil
}

// checkQualityOut checks --out: it refuses one that holds a comparison,
// unless resume, when it reads that comparison (bounded) to go on from.
func checkQualityOut(dir string, resume bool) (*quality.Report, error) {
	path := filepath.Join(dir, qualityJSONFile)
	_, err := os.Lstat(path)
	switch {
	case err == nil && !resume:
		return nil, fmt.Errorf("quality: --out %s already holds %s: choose another --out, or add --resume to go on with it", dir, qualityJSONFile)
	case err != nil && resume:
		return nil, fmt.Errorf("quality: --resume: %s holds no %s to go on with: leave out --resume", dir, qualityJSONFile)
	}
	if err := writable(dir); err != nil {
		return nil, fmt.Errorf("quality: --out %s is not usable (%v): choose a folder you can write", dir, err)
	}
	if !resume {
		return nil, nil
	}
	fh, err := os.Open(path)
	if err != nil {
		return nil, fmt.Errorf("quality: --resume: %v", err)
	}
	defer fh.Close()
	prior, err := quality.ReadReport(fh)
	if err != nil {
		return nil, fmt.Errorf("quality: --resume: %s: %v: choose another --out and leave out --resume", path, err)
	}
	return &prior, nil
}

// readReferenceFile is a reference file (flag names it: "quality:
// --reference"), read within the engine's bounds, and its SHA-256.
func readReferenceFile(flag, path string) (quality.Reference, string, error) {
	fh, err := os.Open(path)
	if err != nil {
		return quality.Reference{}, "", fmt.Errorf("%s: %v", flag, err)
	}
	defer fh.Close()
	ref, sum, err := runs.ReadReference(fh)
	if err != nil {
		return ref, "", fmt.Errorf("%s %s: %v: record one with speedmatrix quality --save-reference", flag, path, err)
	}
	return ref, sum, nil
}

// Quality implements `speedmatrix quality`: it records a reference
// (--save-reference) or compares the server with one (--reference, --out),
// and runs the needle task; it saves after every context. Exit codes as
// run's: 1 before anything was measured, 3 when it stopped early (what was
// measured is saved), 4 when a file could not be written.
func (c *CLI) Quality(ctx context.Context, args []string, stdout, stderr io.Writer) error {
	f, err := parseQualityFlags(args, stderr)
	if err != nil {
		return err
	}
	text, err := readText(f.text)
	if err != nil {
		return err
	}
	tasks, err := readTasks("quality: --tasks", f.tasks)
	if err != nil {
		return err
	}
	budget, _ := quality.ParseBudget(f.budget)
	var ref quality.Reference
	var prior *quality.Report
	if f.reference != "" {
		if ref, _, err = readReferenceFile("quality: --reference", f.reference); err != nil {
			return err
		}
		if prior, err = checkQualityOut(f.out, f.resume); err != nil {
			return err
		}
	} else if err := checkReferenceOut(f.saveReference); err != nil {
		return err
	}
	target, stop, err := c.target(ctx, f.targetFlags, nil, stderr)
	if err != nil {
		return retitleAs("quality", err)
	}
	defer stop()
	client := openai.New(target.BaseURL, target.APIKey)
	client.RequestTimeout = max(f.request, f.firstToken)
	s, err := probe.Connect(ctx, client, target.Model)
	if err != nil {
		return fmt.Errorf("quality: %w", withAdvice(err))
	}
	q := qualityRun{f: f, s: s, text: text, tasks: tasks, budget: budget, eng: s.Describe(ctx, target.Header.Server), prior: prior, stdout: stdout}
	if f.saveReference != "" {
		return q.record(ctx)
	}
	return q.compare(ctx, ref)
}
