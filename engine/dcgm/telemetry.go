package dcgm

import (
	"context"
	"time"

	"speedmatrix/engine"
	"speedmatrix/hw"
)

// Telemetry samples a Source every interval through an hw.Sampler: the run
// summarises it per cell as it does NVML's, and its report notes say when
// an exporter went quiet.
type Telemetry struct {
	*hw.Sampler
	src *Source
}

var _ engine.TelemetryNoter = (*Telemetry)(nil)

// Start samples src every interval (hw.DefaultSampleInterval when <= 0)
// until ctx ends or Stop is called; Stop closes src.
func Start(ctx context.Context, src *Source, interval time.Duration, opts ...hw.SamplerOption) *Telemetry {
	s := hw.NewSampler(interval, append([]hw.SamplerOption{hw.WithSource(src)}, opts...)...)
	s.Start(ctx)
	return &Telemetry{Sampler: s, src: src}
}

// TelemetryNotes are the Source's Notes.
func (t *Telemetry) TelemetryNotes() []string { return t.src.Notes() }

// TelemetryGap is the Source's Gap.
func (t *Telemetry) TelemetryGap(from, to time.Time) string { return t.src.Gap(from, to) }
