package app

import (
	"context"
	"errors"

	"speedmatrix/engine/measure"
	"speedmatrix/engine/runs"
)

// prepare readies the Server screen's target for a run (setup says what
// runs.Prepare adds) and the saver of its History folder (dir when it
// resumes one); ok is false when the run is refused, the banner says why.
func (r *runTab) prepare(setup runs.Setup, dir string) (target measure.Subject, ok bool) {
	if why := r.u.state.target.NotReady; why != "" {
		r.refuse(notice{Message: notReadyLine(why), Button: "Open Server screen", OnPress: func() { r.u.show(tabServer) }}, errors.New(why))
		return target, false
	}
	target, err := r.targets.readyTarget()
	if err != nil {
		r.refuse(noticeOf(err, "The target is not ready.", r.u.show), err)
		return target, false
	}
	return target, r.ready(&target, setup, dir)
}

// ready readies target for a run (setup says what runs.Prepare adds) and
// the saver of its folder (dir, when it is known: a resumed run's, a
// sweep's configuration's); it is false when the run is refused, the
// banner says why.
func (r *runTab) ready(target *measure.Subject, setup runs.Setup, dir string) bool {
	c := r.u.state.settings
	target.FirstTokenTimeout, target.StallTimeout = c.firstToken(), c.stall()
	diag := r.u.diag
	// On the CPU, the sampler's CPU load is the telemetry (measure.Run keeps no GPU figure).
	if r.u.deps.telemetry != nil && target.Telemetry == nil && (len(target.Header.Hardware.GPUs) > 0 || target.Header.Hardware.OnCPU()) && !target.Header.Engine.Simulated {
		target.Telemetry = r.u.deps.telemetry
	}
	setup.Diagnostics, setup.Version = &diag, r.u.opts.Version
	runs.Prepare(target, setup)
	saver := runs.Saver{Dir: dir, Root: r.u.runsDir(), Save: r.u.deps.store.Save, Now: r.u.deps.now, Rescue: r.u.deps.rescue}
	var busy *runs.BusyError
	if dir != "" && errors.As(saver.Claim(), &busy) {
		r.refuse(notice{Message: "Another run is saving into this run's folder.", Action: "Wait for it to end, then resume this run from Results.", Detail: busy.Error()}, busy)
		return false
	}
	r.u.flushPrefs()
	r.saver = saver
	return true
}

// launch starts run on target (the screen already shows the run begun)
// and follows its events until it ends, or parent does (a sweep's).
func (r *runTab) launch(parent context.Context, target measure.Subject, run runFunc) {
	r.liftMemoryLimit = r.u.deps.limitMemory()
	ctx, cancel := context.WithCancel(parent)
	r.cancel = cancel
	r.finished, r.uiDone = make(chan struct{}), make(chan struct{})
	acc := &accumulator{}
	target.Output = r.output.newTap(acc.addOutput)
	ch := run(ctx, target)
	r.publish()
	go consumeInto(acc, ch, r.u.do, r.apply, r.finished)
}
