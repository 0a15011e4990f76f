package cli

import (
	"context"
	"fmt"

	"speedmatrix/engine"
	"speedmatrix/engine/dcgm"
	"speedmatrix/engine/telemetry"
)

// gpuMetrics is where a run's GPU telemetry comes from when the GPUs are
// read from DCGM exporters: their URLs, and the setting that named them,
// for errors ("--gpu-metrics", "gpu_metrics in server.toml").
type gpuMetrics struct {
	urls    []string
	setting string
}

// sampleExporters reads the GPUs of every exporter into the header's, and
// starts sampling them; an exporter that doesn't answer with DCGM metrics
// is an error naming it and the setting.
func (g gpuMetrics) sampleExporters(ctx context.Context, h *engine.Report) (engine.TelemetrySource, func(), error) {
	tel, err := dcgm.Attach(ctx, g.urls, h, telemetry.DefaultSampleInterval, dcgm.Options{})
	if err != nil {
		return nil, nil, fmt.Errorf("run: %s %v: check that dcgm-exporter runs there (it listens on :9400 by default) and that this machine reaches it, or leave the URL out", g.setting, err)
	}
	return tel, tel.Stop, nil
}
