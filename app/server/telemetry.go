package server

import (
	"time"

	"speedmatrix/app"
	"speedmatrix/engine/telemetry"
)

// TargetTelemetry is the chosen target's own GPU telemetry and whose GPUs
// it reads: the running simulator's model of its GPUs, or the DCGM
// exporters a run reads; nil when this machine's sampler is the one to show.
func (s *Tab) TargetTelemetry() (app.LiveTelemetry, app.TelemetrySource) {
	switch {
	case s.Kind == nil:
	case s.Kind.Selected == app.TargetSim && s.simStop != nil:
		if lt, ok := s.simTarget.Telemetry.(app.LiveTelemetry); ok {
			return lt, app.FromSimulator
		}
	case s.Kind.Selected == app.TargetEndpoint && s.Exporters.tel != nil:
		return s.Exporters.tel, app.FromExporters
	case s.Kind.Selected == app.TargetVLLM && s.Form.Parallel.GpuMetrics.tel != nil:
		return s.Form.Parallel.GpuMetrics.tel, app.FromExporters
	}
	return nil, app.FromNone
}

// StartTelemetry polls the live telemetry every second into the state,
// which the Run screen's gauges and the Hardware screen observe.
func (s *Tab) StartTelemetry() {
	go func() {
		tick := time.NewTicker(time.Second)
		defer tick.Stop()
		for {
			select {
			case <-s.u.Bg.Done():
				return
			case <-tick.C:
				s.u.Do(s.PollTelemetry)
			}
		}
	}()
}

// PollTelemetry reads the live telemetry of the chosen target into the
// state: the target's own (the simulator's model of its GPUs, the DCGM
// exporters of a run), else this machine's sampler (the Settings screen
// may have replaced it), else none. The target's kind is read afresh, so
// a sample never outlives the target it belongs to; UI goroutine only.
func (s *Tab) PollTelemetry() {
	src, from := s.TargetTelemetry()
	if src == nil && s.u.Deps.Telemetry != nil && s.u.HasGPU() {
		src, from = s.u.Deps.Telemetry, app.FromMachine
	}
	if src == nil {
		if s.u.State.Sampled {
			s.u.State.SetSample(telemetry.Sample{}, false, app.FromNone)
		}
		return
	}
	smp, ok := src.Latest()
	s.u.State.SetSample(smp, ok, from)
}
