package run

import (
	"context"
	"errors"
	"fmt"
	"slices"
	"time"

	"speedmatrix/app"
	appwidget "speedmatrix/app/widget"
	"speedmatrix/engine"
	"speedmatrix/engine/launch"
	"speedmatrix/engine/measure"
	"speedmatrix/engine/runs"
	"speedmatrix/engine/simtarget"
	"speedmatrix/engine/sweep"
	"speedmatrix/engine/sweep/runner"
	"speedmatrix/engine/telemetry"
)

// sweepStopWait bounds how long a stopped sweep waits for the run being
// measured to hand back its report: its end waits for the UI, which a
// quitting app no longer serves.
const sweepStopWait = 5 * time.Second

// sweepRun is the sweep the Run screen runs (runner.Runner, on a goroutine
// of its own): each configuration launched as the Launch form launches a
// server (startServer) and measured as Start run measures one (ready,
// measure), the screen following it (sweep_view.go). Its fields are
// the UI goroutine's, but for those the hooks read, set before it starts.
type sweepRun struct {
	r       *Tab
	Dir     string
	plan    engine.Plan
	secrets launch.ServerConfig // put back into every configuration (launch.WithSecrets)
	total   int                 // configurations
	cancel  context.CancelFunc
	lock    *runs.FolderLock
	source  telemetry.Source // reads the GPUs' memory between two servers; nil without a GPU
	ran     chan struct{}    // closed when the runner returned
	Done    chan struct{}    // closed once the screen shows the sweep's end (tests wait on it)

	configs    []sweep.Config // as the runner last told
	current    int            // the configuration starting or measured
	Cells      map[int]string // cells measured per configuration, as its run ended
	stopping   bool
	confirming bool
}

// measured is a configuration's run as it ended.
type measured struct {
	rep engine.Report
	err error
}

// StartSweep runs job: a new sweep of the Launch form's configurations
// into a new folder of the runs folder, or a saved one to finish.
func (r *Tab) StartSweep(job *app.SweepJob) {
	r.u.Show(app.TabRun)
	if r.Running() {
		r.Banner.Show(app.Notice{Message: "A run is in progress, so the sweep did not start.", Action: "Wait for it to end, or cancel it, then start the sweep again."})
		return
	}
	s, dir, base, err := job.Open(r.u.RunsDir(), r.u.Deps.Now())
	if err != nil {
		r.refuse(app.Notice{Message: "The sweep could not start.", Action: appwidget.Sentence(err.Error()), Detail: err.Error()}, err)
		return
	}
	lock, err := runs.LockFolder(dir)
	if err != nil {
		r.refuse(app.Notice{Message: "Another Speed Matrix is running this sweep.", Action: "Wait for it to end, then resume it from History.", Detail: err.Error()}, err)
		return
	}
	ctx, cancel := context.WithCancel(context.Background())
	sr := &sweepRun{r: r, Dir: dir, plan: s.Plan, secrets: job.Secrets, total: len(s.Configs), cancel: cancel, lock: lock,
		ran: make(chan struct{}), Done: make(chan struct{}), Cells: map[int]string{}}
	if open := r.u.Deps.GpuSource; open != nil && r.u.HasGPU() {
		sr.source = open()
	}
	sw := &runner.Runner{Dir: dir, Server: s.Server, Base: base, GPUs: sr.source, Hooks: runner.Hooks{
		Launch: sr.launch, Measure: sr.measure, Progress: sr.progress}}
	if d := r.u.Deps.SweepCharts; d != nil {
		sw.Summarize = d.Write
	}
	r.Sweep = sr
	r.showSweepBegun(s)
	r.publish()
	go func() {
		err := sw.Run(ctx, &s)
		close(sr.ran)
		end := s
		end.Configs = slices.Clone(s.Configs)
		r.u.Do(func() { r.sweepEnded(sr, end, err) })
	}()
}

// launch is the sweep's Launch hook: configuration c's server, started as
// the Launch form starts one, its start-up shown on the Run screen.
func (sr *sweepRun) launch(ctx context.Context, c sweep.Config, cfg launch.ServerConfig) (measure.Subject, func(), error) {
	r := sr.r
	startCtx, started := context.WithCancel(ctx)
	defer started()
	began := r.u.Deps.Now()
	r.u.Do(func() { r.showStarting(sr, c, began) })
	go sr.tick(startCtx, c, began)
	go r.Log.Pump(startCtx, r.u.Do)
	srv, unsubscribe, err := app.StartServer(r.u, ctx, launch.WithSecrets(cfg, sr.secrets), nil, r.Log.Add)
	if err != nil {
		return measure.Subject{Target: measure.Target{}}, nil, err
	}
	unsubscribe() // its start-up is shown; the requests it logs while measured are not
	stop := func() {
		if err := srv.Stop(); err != nil {
			r.Log.Add("the server of " + c.Name + " stopped with a problem: " + err.Error())
		}
	}
	t := runs.Launched(srv, r.u.HwInfo)
	// A stand-in vllm (speedmatrix sim serve) is described by its
	// profile's simulated rig, as a launched one is in the CLI.
	simtarget.Recognize(&t)
	return t, stop, nil
}

// tick shows how long configuration c's server has been starting, every
// second until ctx ends.
func (sr *sweepRun) tick(ctx context.Context, c sweep.Config, began time.Time) {
	t := time.NewTicker(time.Second)
	defer t.Stop()
	for {
		select {
		case <-ctx.Done():
			return
		case <-t.C:
			sr.r.u.Do(func() { sr.r.showStartingFor(sr, c, began) })
		}
	}
}

// measure is the sweep's Measure hook: the plan against configuration c's
// server, run on the Run screen as Start run runs one, into dir.
func (sr *sweepRun) measure(ctx context.Context, c sweep.Config, target measure.Subject, dir string, prev *engine.Report) (engine.Report, error) {
	res := make(chan measured, 1)
	sr.r.u.Do(func() { sr.r.measureConfig(ctx, sr, c, target, dir, prev, res) })
	select {
	case m := <-res:
		return m.rep, m.err
	case <-ctx.Done():
	}
	select {
	case m := <-res:
		return m.rep, m.err
	case <-time.After(sweepStopWait):
		return engine.Report{}, fmt.Errorf("%w: %w", measure.ErrInterrupted, ctx.Err())
	}
}

// measureConfig starts the run of a configuration; its end goes to res.
func (r *Tab) measureConfig(ctx context.Context, sr *sweepRun, c sweep.Config, target measure.Subject, dir string, prev *engine.Report, res chan<- measured) {
	if r.Sweep != sr || r.cancel != nil {
		res <- measured{err: fmt.Errorf("%w: the sweep ended", measure.ErrInterrupted)}
		return
	}
	setup := runs.Setup{}
	if prev != nil {
		setup.Resume = &measure.Resume{Report: *prev}
	}
	if !r.Ready(&target, setup, dir) {
		res <- measured{err: fmt.Errorf("its folder %s is taken by another run", dir)}
		return
	}
	r.ended = func(rep *engine.Report, err error) {
		if r.Saver.Err != nil && err == nil {
			err = fmt.Errorf("its run could not be saved into %s: %w", dir, r.Saver.Err)
		}
		m := measured{err: err}
		if rep != nil {
			m.rep = *rep
			sr.Cells[sr.current] = appwidget.SweepCellsText(*rep)
		}
		res <- m
	}
	e := target.Header.Server
	r.Log.Add(fmt.Sprintf("── %s: its server is ready", c.Name))
	r.measure(ctx, sr.plan, target, prev, app.Capacity{KVCacheTokens: e.KVCacheTokens, MaxNumSeqs: e.MaxNumSeqs, MaxModelLen: e.MaxModelLen})
}

// progress is the sweep's Progress hook: a configuration's new status, or
// a note.
func (sr *sweepRun) progress(s sweep.Sweep, i int, note string) {
	cs := slices.Clone(s.Configs) // the runner goes on changing its own
	sr.r.u.Do(func() { sr.r.showSweepProgress(sr, cs, i, note) })
}

// onStopSweep asks, then stops the sweep: what it measured is kept, and
// Resume in History finishes it.
func (r *Tab) onStopSweep() {
	sr := r.Sweep
	if sr.confirming || sr.stopping {
		return
	}
	sr.confirming = true
	r.u.Confirm("Stop the sweep?",
		"The configurations measured are kept, and so are the finished cells of the one measured now; its server stops. Resume in History finishes the sweep.",
		"Stop the sweep", "Keep running", func(ok bool) {
			sr.confirming = false
			if ok && r.Sweep == sr {
				sr.stopping = true
				r.ProgressLine.SetText("Stopping the sweep …")
				r.CancelBtn.Disable()
				sr.cancel()
			}
		})
}

// stopSweep stops a sweep without asking and waits up to timeout for its
// runner to return (the app quits).
func (r *Tab) stopSweep(timeout time.Duration) {
	sr := r.Sweep
	if sr == nil {
		return
	}
	sr.cancel()
	select {
	case <-sr.ran:
	case <-time.After(timeout):
	}
}

// sweepEnded shows how the sweep ended, lists its folder in History and
// opens its summary in Results.
func (r *Tab) sweepEnded(sr *sweepRun, s sweep.Sweep, err error) {
	if r.Sweep == sr {
		r.Sweep = nil
	}
	sr.cancel()
	sr.lock.Unlock()
	if sr.source != nil {
		sr.source.Close()
	}
	r.showSweepEnd(sr, s, err)
	r.refreshStart()
	r.publish()
	r.u.State.RunSaved(sr.Dir)
	if got, _ := sweep.LoadRuns(sr.Dir, s); len(got) > 0 {
		r.Reports.OpenSweep(sr.Dir)
	}
	close(sr.Done)
}

// sweepEndLine is the progress line once a sweep has ended.
func sweepEndLine(s sweep.Sweep, err error) string {
	done := s.Settled()
	took := time.Duration(s.ActualS * float64(time.Second))
	switch {
	case err == nil:
		return fmt.Sprintf("Sweep finished in %s (estimated %s): %s. Results shows its answer.", app.FormatDuration(took),
			app.FormatAbout(time.Duration(s.EstimateS*float64(time.Second))), engine.Count(len(s.Configs), "configuration", "configurations"))
	case errors.Is(err, measure.ErrInterrupted):
		return fmt.Sprintf("Sweep stopped after %s: %d of %d configurations done. Resume in History measures the rest.", app.FormatDuration(took), done, len(s.Configs))
	}
	return fmt.Sprintf("Sweep stopped after %s: %d of %d configurations done.", app.FormatDuration(took), done, len(s.Configs))
}
