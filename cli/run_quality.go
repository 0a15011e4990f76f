package cli

import (
	"context"
	"errors"
	"flag"
	"fmt"
	"io"
	"path/filepath"
	"time"

	"speedmatrix/engine"
	"speedmatrix/engine/measure"
	"speedmatrix/engine/openai"
	"speedmatrix/engine/quality"
	"speedmatrix/engine/quality/probe"
	"speedmatrix/engine/runs"
)

// runQualityFlags are run's quality options: the phase after the cells.
type runQualityFlags struct {
	reference, tasks, budget string
	needle                   int
}

func (f *runQualityFlags) add(fs *flag.FlagSet) {
	fs.StringVar(&f.reference, "quality-reference", "", "after the cells, compare the server with this quality reference (speedmatrix quality --save-reference): drift per context, needle task; with --resume: the same file again")
	fs.IntVar(&f.needle, "quality-needle-trials", probe.DefaultNeedleTrials, "with --quality-reference: needle-retrieval trials per context (0: none)")
	fs.StringVar(&f.tasks, "quality-tasks", "", `with --quality-reference: JSONL task file, {"prompt", "answer", "match": "exact|number|choice|regex"} per line`)
	fs.StringVar(&f.budget, "quality-budget", quality.DefaultBudget().String(), "with --quality-reference: the budget a drift must stay within, e.g. kld=0.01,top1=98%")
}

// plan reads and checks the quality options, the reference and the task
// file before anything is measured; nil without --quality-reference. A
// resumed run (prev) whose phase has not ended needs the reference again,
// the same file; prev's report names no path to read it from.
func (f runQualityFlags) plan(set map[string]bool, prev *engine.Report, resume string) (*runs.Quality, error) {
	if f.reference == "" {
		for _, name := range []string{"quality-needle-trials", "quality-tasks", "quality-budget"} {
			if set[name] {
				return nil, fmt.Errorf("run: --%s goes with --quality-reference FILE", name)
			}
		}
		if prev != nil && runs.Pending(*prev) {
			return nil, fmt.Errorf("run --resume: %s's quality phase against %s has not ended: give --quality-reference %s again", resume, prev.Quality.ReferenceFile, prev.Quality.ReferenceFile)
		}
		return nil, nil
	}
	if f.needle < 0 || f.needle > quality.MaxNeedleTrials {
		return nil, fmt.Errorf("run: --quality-needle-trials %d: use 0 (none) to %d", f.needle, quality.MaxNeedleTrials)
	}
	budget, err := quality.ParseBudget(f.budget)
	if err != nil {
		return nil, fmt.Errorf("run: --quality-budget: %v", err)
	}
	ref, sum, err := readReferenceFile("run: --quality-reference", f.reference)
	if err != nil {
		return nil, err
	}
	tasks, err := readTasks("run: --quality-tasks", f.tasks)
	if err != nil {
		return nil, err
	}
	q := &runs.Quality{Reference: ref, File: f.reference, SHA256: sum, NeedleTrials: f.needle, Tasks: tasks, Budget: budget}
	if f.tasks != "" {
		q.TaskFile = filepath.Base(f.tasks)
	}
	if _, err := q.Prior(prev); err != nil {
		return nil, fmt.Errorf("run --resume: --quality-reference %v: give the file the run began with", err)
	}
	return q, nil
}

// qualityPhase is a run's quality phase as the CLI runs and words it:
// after the cells, against the same server, saved with the run.
type qualityPhase struct {
	q      *runs.Quality
	s      probe.Server
	prior  *quality.Report
	saver  *runs.Saver
	stdout io.Writer
}

// connectQuality connects to the run's server and checks the reference's
// tokenizer before any cell is measured.
func connectQuality(ctx context.Context, q *runs.Quality, t measure.Subject, f targetFlags) (probe.Server, error) {
	client := openai.New(t.BaseURL, t.APIKey)
	client.RequestTimeout = max(f.request, f.firstToken)
	s, err := q.Connect(ctx, client, t.Model)
	var te *quality.TokenizerError
	switch {
	case errors.As(err, &te):
		return s, exitWith(exitCantStart, fmt.Errorf("run: --quality-reference %s: %w: give a reference recorded on this model family, or record one with speedmatrix quality --save-reference", q.File, err))
	case err != nil:
		return s, exitWith(exitCantStart, fmt.Errorf("run: --quality-reference: %w", withAdvice(err)))
	}
	return s, nil
}

// estimate is how long the phase still takes, at the rates rep measured.
func (p *qualityPhase) estimate(rep engine.Report) time.Duration {
	return p.q.Estimate(p.prior, runs.RatesOf(rep))
}

// run runs the phase on rep, the cells' last report, printing its
// progress and its figures, and saving after every context.
func (p *qualityPhase) run(ctx context.Context, rep engine.Report) (engine.Report, error) {
	sim := ""
	if rep.Server.Simulated {
		sim = " (simulated)"
	}
	fmt.Fprintf(p.stdout, "quality phase: comparing %s%s with the reference %s (%s, recorded %s), about %s\n", p.s.Model, sim, filepath.Base(p.q.File),
		p.q.Reference.Model, p.q.Reference.RecordedAt.Format("2006-01-02 15:04"), p.estimate(rep).Round(time.Second))
	var last engine.Report
	began := time.Now()
	events := func(e probe.Event) {
		qualityRun{stdout: p.stdout}.event(e)
		if e.Phase == probe.PhaseContext && last.Quality != nil {
			fmt.Fprintf(p.stdout, "  (quality phase ETA %s)\n", p.q.Estimate(last.Quality, runs.RatesOf(rep)).Round(time.Second))
		}
	}
	out, err := p.q.Run(ctx, p.s, rep, p.prior, events, func(r engine.Report) error {
		if last = r; !keepCell(p.saver, r, p.stdout) {
			return errUnsaved
		}
		return nil
	})
	var nl *probe.NoLogprobsError
	if errors.As(err, &nl) {
		fmt.Fprintf(p.stdout, "  warning: %v: no drift could be measured; the needle task and --quality-tasks ran\n", err)
		err = nil
	}
	if out.Quality != nil && err == nil {
		fmt.Fprintf(p.stdout, "quality phase: done in %s\n", time.Since(began).Round(time.Second))
		printDrift(p.stdout, *out.Quality, sim)
		printNeedle(p.stdout, out.Quality.Needle)
		printTasks(p.stdout, out.Quality.Tasks)
	}
	return out, err
}

// qualityStopped is the last line of a run whose cells are all measured
// but whose quality phase stopped: what it compared is saved and resumes.
func qualityStopped(err error, rep engine.Report, out, refFile string) error {
	done, of := 0, 0
	if rep.Quality != nil {
		done, of = len(rep.Quality.Contexts), len(rep.Quality.Reference.Contexts)
	}
	why := "interrupted"
	if !errors.Is(err, context.Canceled) {
		why = withAdvice(err).Error()
	}
	return exitWith(exitIncomplete, fmt.Errorf("run incomplete: every cell measured, the quality phase stopped after %d of %d contexts (%s); finish it with: speedmatrix run --resume %s --quality-reference %s",
		done, of, why, out, refFile))
}
