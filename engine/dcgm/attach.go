package dcgm

import (
	"context"
	"fmt"
	"sort"
	"strings"
	"time"

	"speedmatrix/engine"
	"speedmatrix/engine/secret"
)

// SplitURLs reads a comma-separated list of exporter URLs, as --gpu-metrics
// and the app's GPU metrics field take them; blanks are dropped.
func SplitURLs(list string) []string {
	var out []string
	for _, u := range strings.Split(list, ",") {
		if u = strings.TrimSpace(u); u != "" {
			out = append(out, u)
		}
	}
	return out
}

// Attach opens the exporters at urls (see open), takes the GPUs they list
// as the header's, notes in its Hardware section where they and their
// telemetry come from and in its Run section the exporters (for a resumed
// run), and samples them every interval until ctx ends or the Telemetry's
// Stop. The cli and the app both reach exporters through it; its error is
// open's, for them to put in their own words.
func Attach(ctx context.Context, urls []string, header *engine.Report, interval time.Duration, opt Options) (*Telemetry, error) {
	src, err := open(ctx, urls, opt)
	if err != nil {
		return nil, err
	}
	header.Run.GPUMetrics = nil
	for _, u := range urls {
		header.Run.GPUMetrics = append(header.Run.GPUMetrics, secret.URL(u))
	}
	h := &header.Hardware
	h.GPUs = src.GPUs()
	if h.Type == "" {
		h.Type = "Discrete GPU"
	}
	h.AddNote("GPUs and their telemetry from DCGM exporters: " + nodesOf(h.GPUs) + ".")
	return start(ctx, src, interval), nil
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
		s := "s"
		if count[h] == 1 {
			s = ""
		}
		parts[i] = fmt.Sprintf("%s (%d GPU%s)", h, count[h], s)
	}
	return strings.Join(parts, ", ")
}
