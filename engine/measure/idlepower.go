package measure

import (
	"cmp"
	"context"
	"time"

	"speedmatrix/engine"
)

// measureIdlePower reads the GPUs' power over a short quiet window before
// the first cell, the server loaded and idle (the idle check has passed
// when the server has /metrics): the floor the cells' "above idle" energy
// subtracts. It is skipped without GPU telemetry, on the CPU, and when
// other clients may use the server (the window would not be quiet).
func (r *runner) measureIdlePower(ctx context.Context) {
	window := cmp.Or(r.target.IdlePowerWindow, r.opts.idlePowerWindow)
	if r.target.Telemetry == nil || r.target.Header.Hardware.OnCPU() || r.target.AllowBusy || window <= 0 {
		return
	}
	from := time.Now()
	select {
	case <-ctx.Done():
		return
	case <-time.After(window):
	}
	to := time.Now()
	if w, ok := r.target.Telemetry.(engine.TelemetryWaiter); ok {
		w.WaitPast(ctx, to)
	}
	idle := engine.IdlePowerOf(r.target.Telemetry.Summary(from, to), to.Sub(from).Seconds())
	if idle == nil {
		return
	}
	r.mu.Lock()
	r.report.Run.IdlePower = idle
	r.mu.Unlock()
	r.logf("idle power before the run: %s", idle.Text())
}
