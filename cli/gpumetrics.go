package cli

import (
	"context"
	"fmt"
	"sort"
	"strings"

	"speedmatrix/engine"
	"speedmatrix/engine/dcgm"
	"speedmatrix/hw"
)

// gpuMetrics is where a run's GPU telemetry comes from when the GPUs are
// read from DCGM exporters: their URLs, and the setting that named them,
// for errors ("--gpu-metrics", "gpu_metrics in server.toml").
type gpuMetrics struct {
	urls    []string
	setting string
}

// splitURLs reads a comma-separated --gpu-metrics.
func splitURLs(list string) []string {
	var out []string
	for _, u := range strings.Split(list, ",") {
		if u = strings.TrimSpace(u); u != "" {
			out = append(out, u)
		}
	}
	return out
}

// sampleExporters reads the GPUs of every exporter into h's GPUs, and
// starts sampling them; an exporter that doesn't answer with DCGM metrics
// is an error naming it and the setting.
func (g gpuMetrics) sampleExporters(ctx context.Context, h *engine.HardwareInfo) (engine.TelemetrySource, func(), error) {
	src, err := dcgm.Open(ctx, g.urls, dcgm.Options{})
	if err != nil {
		return nil, nil, fmt.Errorf("run: %s %v: check that dcgm-exporter runs there (it listens on :9400 by default) and that this machine reaches it, or leave the URL out", g.setting, err)
	}
	h.GPUs = src.GPUs()
	if h.Type == "" {
		h.Type = "Discrete GPU"
	}
	h.AddNote("GPUs and their telemetry from DCGM exporters: " + nodesOf(h.GPUs) + ".")
	tel := dcgm.Start(ctx, src, hw.DefaultSampleInterval)
	return tel, tel.Stop, nil
}

// nodesOf is "node1 (2 GPUs), node2 (2 GPUs)".
func nodesOf(gpus []engine.GPUInfo) string {
	count := map[string]int{}
	var hosts []string
	for _, g := range gpus {
		if count[g.Host] == 0 {
			hosts = append(hosts, g.Host)
		}
		count[g.Host]++
	}
	sort.Strings(hosts)
	parts := make([]string, len(hosts))
	for i, h := range hosts {
		parts[i] = fmt.Sprintf("%s (%d GPU%s)", h, count[h], plural(count[h]))
	}
	return strings.Join(parts, ", ")
}

func plural(n int) string {
	if n == 1 {
		return ""
	}
	return "s"
}
