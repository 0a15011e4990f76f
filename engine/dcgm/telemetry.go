package dcgm

import (
	"context"
	"time"

	"speedmatrix/engine"
	"speedmatrix/engine/telemetry"
)

// Telemetry samples a Source every interval through a telemetry.Sampler:
// the run summarises it per cell as it does NVML's, and its report notes
// say when an exporter went quiet.
type Telemetry struct {
	*telemetry.Sampler
	src *source
}

var _ engine.TelemetryNoter = (*Telemetry)(nil)

// start samples src every interval (telemetry.DefaultSampleInterval when
// <= 0) until ctx ends or Stop is called; Stop closes src.
func start(ctx context.Context, src *source, interval time.Duration, opts ...telemetry.SamplerOption) *Telemetry {
	s := telemetry.NewSampler(interval, func() telemetry.Source { return src }, opts...)
	s.Start(ctx)
	return &Telemetry{Sampler: s, src: src}
}

// TelemetryNotes are the Source's notes.
func (t *Telemetry) TelemetryNotes() []string { return t.src.notes() }

// TelemetryGap is the Source's gap.
func (t *Telemetry) TelemetryGap(from, to time.Time) string { return t.src.gap(from, to) }
