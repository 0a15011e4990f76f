package hw

import (
	"testing"

	"github.com/NVIDIA/go-nvml/pkg/nvml"
	"github.com/NVIDIA/go-nvml/pkg/nvml/mock"
	"github.com/NVIDIA/go-nvml/pkg/nvml/mock/server"

	"speedmatrix/hw/nvmlmock"
)

// H200 figures the dgxh200 mock leaves unset (nvmlmock fills them).
const (
	h200BusWidthBits  = nvmlmock.H200BusWidthBits
	h200MaxMemMHz     = nvmlmock.H200MaxMemMHz
	h200PowerLimitMW  = nvmlmock.H200PowerLimitMW
	h200PeakBandwidth = 6144.0 / 8 * 3201 * 2 / 1000 // 4916.736 GB/s
	h200NVLinks       = nvmlmock.H200NVLinks
)

// countingServer is an 8×H200 mock that counts Init and Shutdown.
type countingServer struct {
	*server.Server
	inits, shutdowns int
}

// newH200 returns nvmlmock's DGX H200, counting Init and Shutdown.
func newH200(t *testing.T) *countingServer {
	t.Helper()
	return counting(nvmlmock.DGXH200())
}

func counting(s *server.Server) *countingServer {
	cs := &countingServer{Server: s}
	cs.InitFunc = func() nvml.Return { cs.inits++; return nvml.SUCCESS }
	cs.ShutdownFunc = func() nvml.Return { cs.shutdowns++; return nvml.SUCCESS }
	return cs
}

// failedInit is an NVML whose Init fails and whose every other function is
// unset: the mock panics if any of them is called.
func failedInit(ret nvml.Return) *mock.Interface {
	return &mock.Interface{InitFunc: func() nvml.Return { return ret }}
}

// fakeHost stands in for detectHost so results don't depend on this machine.
func fakeHost() (Hardware, []string) {
	return Hardware{CPU: "AMD Ryzen 9 7900X", CPUCores: 12, CPUThreads: 24, RAMBytes: 32 << 30,
		OS: "Ubuntu 24.04.5 LTS", Kernel: "6.8.0-49-generic"}, nil
}
