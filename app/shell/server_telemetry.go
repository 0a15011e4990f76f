package app

import (
	"time"

	"speedmatrix/hw"
)

// targetTelemetry is the chosen target's own GPU telemetry and whose GPUs
// it reads: the running simulator's model of its GPUs, or the DCGM
// exporters a run reads; nil when this machine's sampler is the one to show.
func (s *serverTab) targetTelemetry() (liveTelemetry, telemetrySource) {
	switch {
	case s.kind == nil:
	case s.kind.Selected == targetSim && s.simStop != nil:
		if lt, ok := s.simTarget.Telemetry.(liveTelemetry); ok {
			return lt, fromSimulator
		}
	case s.kind.Selected == targetEndpoint && s.exporters.tel != nil:
		return s.exporters.tel, fromExporters
	case s.kind.Selected == targetVLLM && s.form.parallel.gpuMetrics.tel != nil:
		return s.form.parallel.gpuMetrics.tel, fromExporters
	}
	return nil, fromNone
}

// startTelemetry polls the live telemetry every second into the state,
// which the Run screen's gauges and the Hardware screen observe.
func (s *serverTab) startTelemetry() {
	go func() {
		tick := time.NewTicker(time.Second)
		defer tick.Stop()
		for {
			select {
			case <-s.u.bg.Done():
				return
			case <-tick.C:
				s.u.do(s.pollTelemetry)
			}
		}
	}()
}

// pollTelemetry reads the live telemetry of the chosen target into the
// state: the target's own (the simulator's model of its GPUs, the DCGM
// exporters of a run), else this machine's sampler (the Settings screen
// may have replaced it), else none. The target's kind is read afresh, so
// a sample never outlives the target it belongs to; UI goroutine only.
func (s *serverTab) pollTelemetry() {
	src, from := s.targetTelemetry()
	if src == nil && s.u.deps.telemetry != nil && s.u.hasGPU() {
		src, from = s.u.deps.telemetry, fromMachine
	}
	if src == nil {
		if s.u.state.sampled {
			s.u.state.setSample(hw.Sample{}, false, fromNone)
		}
		return
	}
	smp, ok := src.Latest()
	s.u.state.setSample(smp, ok, from)
}
