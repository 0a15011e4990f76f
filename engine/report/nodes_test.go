package report

import (
	"slices"
	"testing"

	"speedmatrix/engine"
)

func TestNodeLines(t *testing.T) {
	h100 := func(i int, host string) engine.GPUInfo {
		return engine.GPUInfo{Index: i, Host: host, Name: "NVIDIA H100 80GB HBM3", VRAMBytes: 80 << 30}
	}
	tests := []struct {
		name string
		gpus []engine.GPUInfo
		want []string
	}{
		{"this machine", []engine.GPUInfo{{Index: 0, Name: "NVIDIA GeForce RTX 3090"}}, []string{}},
		{"two nodes", []engine.GPUInfo{h100(0, "node1"), h100(1, "node1"), h100(2, "node2")},
			[]string{"node1: 2× H100 80GB HBM3, 160 GB (GPU 0-1)", "node2: H100 80GB HBM3, 80 GB (GPU 2)"}},
		{"interleaved", []engine.GPUInfo{h100(0, "a"), h100(1, "b"), h100(2, "a")},
			[]string{"a: 2× H100 80GB HBM3, 160 GB (GPU 0, 2)", "b: H100 80GB HBM3, 80 GB (GPU 1)"}},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			if got := nodeLines(engine.HardwareInfo{GPUs: tc.gpus}); !slices.Equal(got, tc.want) {
				t.Errorf("NodeLines = %q, want %q", got, tc.want)
			}
		})
	}
}
