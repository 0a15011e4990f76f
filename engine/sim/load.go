package sim

// Load is the scheduler's state as the simulated GPU telemetry reads it:
// how long the GPUs have been busy and how hard, in model time.
type Load struct {
	// NowS is the model time now.
	NowS float64
	// BusyS is the model seconds spent in scheduler steps since New, the
	// step in progress counted up to NowS.
	BusyS float64
	// PowerS is BusyS weighted by each step's power (0 to 1, from idle to
	// the power limit; see Rig): its change over a window divided by the
	// window is the GPUs' mean power in that span.
	PowerS float64
	// Running is how many sequences the scheduler runs; KVUsage how full
	// the KV cache is (0 to 1).
	Running int
	KVUsage float64
}

// stepLoad accumulates what Load reports; Server.mu guards it.
type stepLoad struct {
	busyS, powerS float64
	// The step in progress, when stepToS > stepFromS, and its power.
	stepFromS, stepToS, stepPower float64
}

// begin records a step of durS model seconds from fromS at power.
func (l *stepLoad) begin(fromS, durS, power float64) {
	l.stepFromS, l.stepToS, l.stepPower = fromS, fromS+durS, power
}

// end counts the step in progress as done.
func (l *stepLoad) end() {
	d := l.stepToS - l.stepFromS
	l.busyS += d
	l.powerS += d * l.stepPower
	l.stepToS = l.stepFromS
}

// Load is the scheduler's state now; safe from any goroutine.
func (s *Server) Load() Load {
	now := s.modelNowS()
	s.mu.Lock()
	defer s.mu.Unlock()
	l := s.metrics.load
	part := min(max(now-l.stepFromS, 0), l.stepToS-l.stepFromS)
	return Load{NowS: now, BusyS: l.busyS + part, PowerS: l.powerS + part*l.stepPower,
		Running: s.metrics.running, KVUsage: s.metrics.kvUsage}
}
