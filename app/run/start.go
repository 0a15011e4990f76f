package run

import (
	"context"
	"errors"

	"speedmatrix/app"
	"speedmatrix/engine/measure"
	"speedmatrix/engine/runs"
)

// prepare readies the Server screen's target for a run (setup says what
// runs.Prepare adds) and the saver of its History folder (dir when it
// resumes one); ok is false when the run is refused, the banner says why.
func (r *Tab) prepare(setup runs.Setup, dir string) (target measure.Subject, ok bool) {
	if why := r.u.State.Target.NotReady; why != "" {
		r.refuse(app.Notice{Message: notReadyLine(why), Button: "Open Server screen", OnPress: func() { r.u.Show(app.TabServer) }}, errors.New(why))
		return target, false
	}
	target, err := r.Targets.ReadyTarget()
	if err != nil {
		r.refuse(app.NoticeOf(err, "The target is not ready.", r.u.Show), err)
		return target, false
	}
	return target, r.Ready(&target, setup, dir)
}

// Ready readies target for a run (setup says what runs.Prepare adds) and
// the saver of its folder (dir, when it is known: a resumed run's, a
// sweep's configuration's); it is false when the run is refused, the
// banner says why.
func (r *Tab) Ready(target *measure.Subject, setup runs.Setup, dir string) bool {
	c := r.u.State.Settings
	target.FirstTokenTimeout, target.StallTimeout = c.FirstToken(), c.Stall()
	diag := r.u.Diag
	// On the CPU, the sampler's CPU load is the telemetry (measure.Run keeps no GPU figure).
	if r.u.Deps.Telemetry != nil && target.Telemetry == nil && (len(target.Header.Hardware.GPUs) > 0 || target.Header.Hardware.OnCPU()) && !target.Header.Server.Simulated {
		target.Telemetry = r.u.Deps.Telemetry
	}
	setup.Diagnostics, setup.Version = &diag, r.u.Opts.Version
	runs.Prepare(target, setup)
	target.Header.Run.Prices = c.RunPrices()
	saver := runs.Saver{Dir: dir, Root: r.u.RunsDir(), Save: r.u.Deps.Store.Save, Now: r.u.Deps.Now, Rescue: r.u.Deps.Rescue}
	var busy *runs.BusyError
	if dir != "" && errors.As(saver.Claim(), &busy) {
		r.refuse(app.Notice{Message: "Another run is saving into this run's folder.", Action: "Wait for it to end, then resume this run from Results.", Detail: busy.Error()}, busy)
		return false
	}
	r.Host.FlushPrefs()
	r.Saver = saver
	return true
}

// launch starts run on target (the screen already shows the run begun)
// and follows its events until it ends, or parent does (a sweep's).
func (r *Tab) launch(parent context.Context, target measure.Subject, run runFunc) {
	r.liftMemoryLimit = r.u.Deps.LimitMemory()
	ctx, cancel := context.WithCancel(parent)
	r.cancel = cancel
	r.finished, r.UiDone = make(chan struct{}), make(chan struct{})
	acc := &Accumulator{}
	target.Output = r.Output.NewTap(acc.AddOutput)
	ch := run(ctx, target)
	r.publish()
	go ConsumeInto(acc, ch, r.u.Do, r.Apply, r.finished)
}
