package runner

import (
	"cmp"
	"context"
	"errors"
	"fmt"
	"math"
	"os"
	"path/filepath"
	"strings"
	"time"

	"speedmatrix/engine"
	"speedmatrix/engine/launch"
	"speedmatrix/engine/measure"
	"speedmatrix/engine/report"
	"speedmatrix/engine/runs"
	"speedmatrix/engine/sweep"
	"speedmatrix/engine/telemetry"
)

// Hooks are what a sweep asks of the front end that runs it.
type Hooks struct {
	// Launch starts cfg (configuration c) with the launcher's guarantees
	// and waits until it is ready; stop stops it and waits for its exit.
	// An error is a server that did not start.
	Launch func(ctx context.Context, c sweep.Config, cfg launch.ServerConfig) (target measure.Subject, stop func(), err error)
	// Measure runs the plan against target into the run folder dir,
	// saving after every cell (resume: the partial run to finish). It
	// returns the run's report, and an error when the run did not end:
	// interrupted, or its report could not be saved.
	Measure func(ctx context.Context, c sweep.Config, target measure.Subject, dir string, resume *engine.Report) (engine.Report, error)
	// Summarize draws the summary's pictures once sweep.json, sweep.md
	// and sweep.csv are written; nil: none. The front end gives it
	// (charts.WriteSweep), whose tests leave it nil to draw nothing.
	Summarize func(ctx context.Context, dir string, s sweep.Sweep, runs map[string]engine.Report) error
	// Progress is told of every change of a configuration's status (i is
	// its index); note is a line to show ("GPU memory freed in 4 s").
	Progress func(s sweep.Sweep, i int, note string)
	// SaveReport writes a configuration's report again as its quality
	// phase adds to it, after every context; final is the phase's last
	// save, after which a front end draws the report's pictures again
	// (nil: report.Save, no pictures).
	SaveReport func(ctx context.Context, dir string, rep engine.Report, final bool) error
}

// Runner runs a sweep in its folder.
type Runner struct {
	Dir string
	// Server is the server.toml's path, Base its text: every
	// configuration is Base with its settings.
	Server, Base string
	Hooks
	// GPUs reads this machine's GPUs for the wait between two servers;
	// nil, or a reader that reads no GPU or not every GPU's memory (no
	// NVIDIA driver), and the sweep doesn't wait for memory between
	// configurations.
	GPUs GPUReader
	// MemoryWait bounds the wait for the GPUs' memory to come back after a
	// server stops (default 2 min); MemoryPoll is how often it is read
	// (default 1 s).
	MemoryWait, MemoryPoll time.Duration
}

// GPUReader reads the GPUs once: a telemetry.Source, such as hw's
// SystemSource on this machine. The runner reads their memory in use from
// it, and leaves it open.
type GPUReader interface {
	Read() telemetry.Sample
}

// memorySlackMiB is how much more GPU memory than before a launch may
// stay in use when the next configuration starts: other processes come
// and go; a stopped vLLM's tens of GiB do not.
const memorySlackMiB = 1024

// Reopen sets the status of every configuration from what its folder
// holds, for --resume: a complete run is Done, a partial one Partial,
// none Pending (a server that failed to start is tried again).
func Reopen(dir string, s *sweep.Sweep) {
	for i := range s.Configs {
		c := &s.Configs[i]
		r, err := report.Load(filepath.Join(sweep.RunDir(dir, *c), report.JSONFile))
		switch {
		case err == nil && matrixDone(r):
			c.Status = sweep.StatusDone
		case err == nil:
			c.Status, c.Reason, c.Quality = sweep.StatusPartial, cmp.Or(c.Reason, "interrupted"), nil
		default:
			c.Status, c.Reason, c.Quality = sweep.StatusPending, "", nil
		}
	}
}

// Run measures every configuration of s not yet Done, in order, and
// writes the summary after each. A configuration that fails to start, or
// whose server dies, is recorded and the sweep goes on; ctx's end stops
// it, resumable (measure.ErrInterrupted). s is updated in place.
func (r *Runner) Run(ctx context.Context, s *sweep.Sweep) error {
	if s.Started.IsZero() {
		s.Started = time.Now()
		s.EstimateS = Estimate(*s).Seconds()
	}
	began := time.Now()
	clock := func() { s.ActualS += time.Since(began).Seconds(); began = time.Now() }
	if err := sweep.Save(r.Dir, *s); err != nil {
		return err
	}
	for i := range s.Configs {
		if s.Configs[i].Status == sweep.StatusDone && !qualityDue(s, i) {
			continue
		}
		err := r.one(ctx, s, i)
		clock()
		if err != nil {
			_ = r.summarize(context.WithoutCancel(ctx), s)
			return err
		}
		if err := r.summarize(ctx, s); err != nil {
			return err
		}
	}
	clock()
	s.Ended = time.Now()
	return r.summarize(ctx, s)
}

// one starts, measures and stops configuration i, and runs its quality
// phase (qualityPhase) once its run is complete: a configuration Done
// whose quality phase is due is started again for that alone.
func (r *Runner) one(ctx context.Context, s *sweep.Sweep, i int) error {
	c := &s.Configs[i]
	cfg, err := Apply(r.Server, r.Base, *c)
	if err != nil {
		return err
	}
	dir := sweep.RunDir(r.Dir, *c)
	var prev, done *engine.Report
	if rep, err := report.Load(filepath.Join(dir, report.JSONFile)); err == nil {
		if !matrixDone(rep) {
			prev = &rep
		} else if c.Status == sweep.StatusDone {
			done = &rep
		}
	}
	if err := os.MkdirAll(dir, 0o755); err != nil {
		return fmt.Errorf("make %s: %w", dir, err)
	}
	before, memKnown := r.memory()
	r.set(s, i, sweep.StatusStarting, "", "")
	start := time.Now()
	target, stop, err := r.Launch(ctx, *c, cfg)
	if ctx.Err() != nil {
		r.set(s, i, statusAfterStop(prev, done), "interrupted while its server started", "")
		return measure.ErrInterrupted
	}
	if err != nil && done != nil {
		// Its run is whole; only its quality phase needed the server.
		c.Quality = &sweep.ConfigQuality{State: sweep.QualityNotMeasured, Reason: "its server did not start again for the quality phase: " + oneLine(err)}
		r.set(s, i, sweep.StatusDone, "", "")
		r.waitMemory(ctx, s, i, before, memKnown)
		return nil
	}
	if err != nil {
		r.set(s, i, sweep.StatusFailed, oneLine(err), "")
		r.waitMemory(ctx, s, i, before, memKnown)
		return nil
	}
	c.StartupS += time.Since(start).Seconds()
	rep, err := r.measure(ctx, s, i, target, dir, prev, done)
	stop()
	var saveErr *SaveError
	switch {
	case err == nil && matrixDone(rep):
		r.set(s, i, sweep.StatusDone, "", "")
	case ctx.Err() != nil:
		r.set(s, i, sweep.StatusPartial, "interrupted", "")
		return measure.ErrInterrupted
	case errors.As(err, &saveErr):
		r.set(s, i, sweep.StatusPartial, oneLine(err), "")
		return err
	default:
		// Its server died, or its run could not finish: the next
		// configuration may fare better, and --resume finishes this one.
		r.set(s, i, sweep.StatusPartial, cmp.Or(errText(err), "its run did not measure every cell"), "")
	}
	r.waitMemory(ctx, s, i, before, memKnown)
	return nil
}

// measure runs configuration i's plan against target into dir (going on
// from prev), or keeps done, its complete run, then runs its quality
// phase when due. It returns the run's report and what stopped either.
func (r *Runner) measure(ctx context.Context, s *sweep.Sweep, i int, target measure.Subject, dir string, prev, done *engine.Report) (engine.Report, error) {
	c := &s.Configs[i]
	r.set(s, i, sweep.StatusMeasuring, "", "")
	if done != nil {
		return *done, r.timedQuality(ctx, s, i, target, *done, dir)
	}
	start := time.Now()
	rep, err := r.Measure(ctx, *c, target, dir, prev)
	c.MeasureS += time.Since(start).Seconds()
	if err == nil && rep.Run.Complete {
		err = r.timedQuality(ctx, s, i, target, rep, dir)
	}
	return rep, err
}

// timedQuality runs configuration i's quality phase when it is due,
// adding its time to the configuration's.
func (r *Runner) timedQuality(ctx context.Context, s *sweep.Sweep, i int, target measure.Subject, rep engine.Report, dir string) error {
	if !qualityDue(s, i) {
		return nil
	}
	start := time.Now()
	err := r.qualityPhase(ctx, s, i, target, rep, dir)
	s.Configs[i].QualityS += time.Since(start).Seconds()
	return err
}

// matrixDone reports whether a configuration's run measured every cell:
// it is complete, or only its quality phase is unfinished
// (runs.QualityUnfinished, which a sweep's phase alone sets on a complete
// matrix).
func matrixDone(rep engine.Report) bool {
	return rep.Run.Complete || rep.Run.Incomplete == runs.QualityUnfinished
}

func errText(err error) string {
	if err == nil {
		return ""
	}
	return oneLine(err)
}

// statusAfterStop is the status of a configuration interrupted before it
// measured anything new: Partial when an earlier run of it exists.
func statusAfterStop(prev, done *engine.Report) sweep.Status {
	if done != nil {
		return sweep.StatusDone
	}
	if prev != nil {
		return sweep.StatusPartial
	}
	return sweep.StatusPending
}

// set records a configuration's new status, saves sweep.json and tells
// Progress.
func (r *Runner) set(s *sweep.Sweep, i int, st sweep.Status, reason, note string) {
	s.Configs[i].Status, s.Configs[i].Reason = st, reason
	_ = sweep.Save(r.Dir, *s) // the summary's save after the configuration reports a lasting failure
	if r.Progress != nil {
		r.Progress(*s, i, note)
	}
}

// memory is the GPUs' memory in use now, MiB summed; ok is false without
// a reader, or when it reads no GPU or one of them could not be read.
func (r *Runner) memory() (float64, bool) {
	if r.GPUs == nil {
		return 0, false
	}
	s := r.GPUs.Read()
	if len(s.GPUs) == 0 {
		return 0, false
	}
	total := 0.0
	for _, g := range s.GPUs {
		if math.IsNaN(g.MemoryUsedMiB) {
			return 0, false
		}
		total += g.MemoryUsedMiB
	}
	return total, true
}

// waitMemory waits, after configuration i's server stopped, until the
// GPUs hold no more than before it started (with memorySlackMiB), so that
// the next configuration finds the memory free; it gives up after
// MemoryWait with a note.
func (r *Runner) waitMemory(ctx context.Context, s *sweep.Sweep, i int, before float64, known bool) {
	if !known {
		return
	}
	wait, poll := r.MemoryWait, r.MemoryPoll
	if wait <= 0 {
		wait = 2 * time.Minute
	}
	if poll <= 0 {
		poll = time.Second
	}
	start := time.Now()
	t := time.NewTicker(poll)
	defer t.Stop()
	for {
		now, ok := r.memory()
		if !ok || now <= before+memorySlackMiB {
			if r.Progress != nil && time.Since(start) >= poll {
				r.Progress(*s, i, fmt.Sprintf("GPU memory free again after %.0f s", time.Since(start).Seconds()))
			}
			return
		}
		if time.Since(start) >= wait {
			if r.Progress != nil {
				r.Progress(*s, i, fmt.Sprintf("GPU memory still holds %.0f MiB more than before %s started, after %s: the next configuration starts anyway", now-before, s.Configs[i].Name, wait))
			}
			return
		}
		select {
		case <-ctx.Done():
			return
		case <-t.C:
		}
	}
}

// summarize writes sweep.json with the answer, sweep.md, sweep.csv and
// the pictures (Summarize).
func (r *Runner) summarize(ctx context.Context, s *sweep.Sweep) error {
	got, _ := sweep.LoadRuns(r.Dir, *s)
	for _, rep := range got {
		if rep.Server.Simulated {
			s.Simulated = true
		}
	}
	a := sweep.Analyze(*s, got)
	s.Answer = &a
	if err := sweep.Save(r.Dir, *s); err != nil {
		return err
	}
	if err := sweep.WriteSummary(r.Dir, *s, got, EstimateBasis(*s)); err != nil {
		return err
	}
	if r.Summarize != nil {
		return r.Summarize(ctx, r.Dir, *s, got)
	}
	return nil
}

// oneLine is err's first line, for a configuration's Reason, without a
// run's advice to resume it alone: a sweep resumes as a whole.
func oneLine(err error) string {
	line, _, _ := strings.Cut(err.Error(), "\n")
	for _, advice := range []string{"; finish it with", "; when the server is back"} {
		line, _, _ = strings.Cut(line, advice)
	}
	return strings.TrimSpace(line)
}
