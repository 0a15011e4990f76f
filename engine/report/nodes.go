package report

import (
	"fmt"
	"strings"

	"speedmatrix/engine"
)

// nodeLines are the Hardware section's Node lines, one per node whose GPUs
// were read from another machine (a DCGM exporter, a Ray cluster), in the
// order their GPUs come: "node2: 2× H100 80GB HBM3, 159 GB (GPU 2-3)".
// None when every GPU is this machine's.
func nodeLines(h engine.HardwareInfo) []string {
	var hosts []string
	byHost := map[string][]engine.GPUInfo{}
	for _, g := range h.GPUs {
		if g.Host == "" {
			continue
		}
		if byHost[g.Host] == nil {
			hosts = append(hosts, g.Host)
		}
		byHost[g.Host] = append(byHost[g.Host], g)
	}
	out := make([]string, 0, len(hosts))
	for _, host := range hosts {
		gpus := byHost[host]
		node := engine.HardwareInfo{GPUs: gpus}
		parts := []string{gpuLabel(node)}
		if v := totalVRAMBytes(node); v > 0 {
			parts = append(parts, GB(v))
		}
		out = append(out, fmt.Sprintf("%s: %s (%s)", host, strings.Join(parts, ", "), gpuRange(gpus)))
	}
	return out
}

// gpuRange is "GPU 2" or "GPU 2-3" (or "GPU 2, 5" when not consecutive).
func gpuRange(gpus []engine.GPUInfo) string {
	first, last := gpus[0].Index, gpus[len(gpus)-1].Index
	switch {
	case len(gpus) == 1:
		return fmt.Sprintf("GPU %d", first)
	case last-first == len(gpus)-1:
		return fmt.Sprintf("GPU %d-%d", first, last)
	}
	idx := make([]string, len(gpus))
	for i, g := range gpus {
		idx[i] = fmt.Sprint(g.Index)
	}
	return "GPU " + strings.Join(idx, ", ")
}
