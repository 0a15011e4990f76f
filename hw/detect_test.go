package hw

import (
	"errors"
	"math"
	"os"
	"strings"
	"testing"

	"github.com/NVIDIA/go-nvml/pkg/nvml"
	"github.com/NVIDIA/go-nvml/pkg/nvml/mock/server"
)

func TestDetectDGXH200(t *testing.T) {
	cs := newH200(t)
	h, err := detect(cs.Server, fakeHost)
	if err != nil {
		t.Fatalf("detect: %v", err)
	}
	if cs.inits != 1 || cs.shutdowns != 1 {
		t.Errorf("Init/Shutdown calls = %d/%d, want 1/1", cs.inits, cs.shutdowns)
	}
	if h.Type != TypeDiscreteGPU || h.Note != "" || h.CPU != "AMD Ryzen 9 7900X" {
		t.Errorf("Type %q, Note %q, CPU %q", h.Type, h.Note, h.CPU)
	}
	if len(h.GPUs) != 8 {
		t.Fatalf("got %d GPUs, want 8", len(h.GPUs))
	}
	uuids := map[string]bool{}
	for i, g := range h.GPUs {
		want := []struct {
			name      string
			got, want any
		}{
			{"Index", g.Index, i},
			{"Name", g.Name, "NVIDIA H200 141GB HBM3e"},
			{"VRAMBytes", g.VRAMBytes, uint64(144384) << 20},
			{"VRAMUsedBytes", g.VRAMUsedBytes, uint64(i+1) << 30},
			{"DriverVersion", g.DriverVersion, "550.54.15"},
			{"CUDAVersion", g.CUDAVersion, "12.4"},
			{"ComputeCapability", g.ComputeCapability, "9.0"},
			{"PCIe", [4]int{g.PCIeGen, g.PCIeWidth, g.PCIeCurGen, g.PCIeCurWidth}, [4]int{5, 16, 1, 16}},
			{"PowerLimitW", g.PowerLimitW, 700.0},
			{"MemoryBusWidthBits", g.MemoryBusWidthBits, h200BusWidthBits},
			{"MaxMemClockMHz", g.MaxMemClockMHz, h200MaxMemMHz},
			{"PeakBandwidthGBs", g.PeakBandwidthGBs, h200PeakBandwidth},
			{"MIGEnabled", g.MIGEnabled, false},
			{"Notes", len(g.Notes), 0},
		}
		for _, w := range want {
			if w.got != w.want {
				t.Errorf("GPU %d %s = %v, want %v", i, w.name, w.got, w.want)
			}
		}
		if !strings.HasPrefix(g.UUID, "GPU-") || uuids[g.UUID] {
			t.Errorf("GPU %d UUID %q not a fresh GPU- UUID", i, g.UUID)
		}
		uuids[g.UUID] = true
	}
}

// A GPU that fails a query keeps its other fields; the failure is a note.
func TestDetectPartialGPU(t *testing.T) {
	cs := newH200(t)
	dev := func(i int) *server.Device { return cs.Devices[i].(*server.Device) }
	dev(3).GetEnforcedPowerLimitFunc = func() (uint32, nvml.Return) { return 0, nvml.ERROR_GPU_IS_LOST }
	dev(5).GetMemoryBusWidthFunc = func() (uint32, nvml.Return) { return 0, nvml.ERROR_NOT_SUPPORTED }
	dev(6).GetMigModeFunc = func() (int, int, nvml.Return) { return 0, 0, nvml.ERROR_NOT_SUPPORTED }
	dev(7).SetMigMode(nvml.DEVICE_MIG_ENABLE)
	get := cs.DeviceGetHandleByIndexFunc
	cs.DeviceGetHandleByIndexFunc = func(i int) (nvml.Device, nvml.Return) {
		if i == 1 {
			return nil, nvml.ERROR_UNKNOWN
		}
		return get(i)
	}
	h, err := detect(cs.Server, fakeHost)
	if err != nil {
		t.Fatalf("detect: %v", err)
	}
	if len(h.GPUs) != 8 || cs.shutdowns != 1 {
		t.Fatalf("got %d GPUs, %d shutdowns; want 8, 1", len(h.GPUs), cs.shutdowns)
	}
	g1, g3, g5, g6, g7 := h.GPUs[1], h.GPUs[3], h.GPUs[5], h.GPUs[6], h.GPUs[7]
	if g1.Name != "" || g1.Index != 1 || len(g1.Notes) != 1 || g1.DriverVersion != "550.54.15" {
		t.Errorf("GPU 1 without handle = %+v", g1)
	}
	if g3.PowerLimitW != 0 || g3.Name == "" || g3.PeakBandwidthGBs != h200PeakBandwidth ||
		len(g3.Notes) != 1 || !strings.Contains(g3.Notes[0], "power limit") {
		t.Errorf("GPU 3 with lost power query = %+v", g3)
	}
	if g5.MemoryBusWidthBits != 0 || g5.PeakBandwidthGBs != 0 || g5.MaxMemClockMHz != h200MaxMemMHz ||
		len(g5.Notes) != 1 || !strings.Contains(g5.Notes[0], "memory bus width") {
		t.Errorf("GPU 5 without bus width = %+v", g5)
	}
	if g6.MIGEnabled || len(g6.Notes) != 0 {
		t.Errorf("GPU 6 with MIG not supported: MIG %v, notes %q", g6.MIGEnabled, g6.Notes)
	}
	if !g7.MIGEnabled {
		t.Error("GPU 7 MIG mode enabled, got MIGEnabled false")
	}
	for _, want := range []string{"GPU 1: device handle unavailable", "GPU 3: power limit: ", "GPU 5: memory bus width: "} {
		if !strings.Contains(h.Note, want) {
			t.Errorf("Note %q lacks %q", h.Note, want)
		}
	}
}

func TestDetectSystemVersionFails(t *testing.T) {
	cs := newH200(t)
	cs.SystemGetCudaDriverVersionFunc = func() (int, nvml.Return) { return 0, nvml.ERROR_FUNCTION_NOT_FOUND }
	h, err := detect(cs.Server, fakeHost)
	if err != nil {
		t.Fatalf("detect: %v", err)
	}
	if g := h.GPUs[0]; g.CUDAVersion != "" || g.DriverVersion != "550.54.15" {
		t.Errorf("CUDA %q, driver %q; want empty CUDA and the driver", g.CUDAVersion, g.DriverVersion)
	}
	if !strings.Contains(h.Note, "CUDA version") {
		t.Errorf("Note %q does not mention the CUDA version", h.Note)
	}
}

// After a failed Init nothing else in NVML may be called: the mock panics
// on any function left unset, and only Init is set.
func TestDetectInitFails(t *testing.T) {
	for _, tc := range []struct {
		ret  nvml.Return
		want string
	}{
		{nvml.ERROR_LIBRARY_NOT_FOUND, "NVIDIA driver not found: libnvidia-ml.so.1"},
		{nvml.ERROR_DRIVER_NOT_LOADED, "kernel driver not loaded"},
		{nvml.ERROR_NO_PERMISSION, "no permission"},
		{nvml.ERROR_LIB_RM_VERSION_MISMATCH, "versions differ"},
		{nvml.ERROR_UNKNOWN, "NVML error code 999"},
	} {
		t.Run(tc.want, func(t *testing.T) {
			h, err := detect(failedInit(tc.ret), fakeHost)
			if !errors.Is(err, ErrNoNVML) {
				t.Fatalf("err = %v, want ErrNoNVML", err)
			}
			if !strings.Contains(err.Error(), tc.want) || !strings.Contains(h.Note, tc.want) {
				t.Errorf("err %q / Note %q lack %q", err, h.Note, tc.want)
			}
			if h.Type != "" || len(h.GPUs) != 0 || h.CPU == "" || h.RAMBytes == 0 {
				t.Errorf("hardware = %+v, want host only", h)
			}
		})
	}
}

func TestDetectNoDevices(t *testing.T) {
	cs := newH200(t)
	cs.DeviceGetCountFunc = func() (int, nvml.Return) { return 0, nvml.SUCCESS }
	h, err := detect(cs.Server, fakeHost)
	if !errors.Is(err, ErrNoNVML) || !strings.Contains(h.Note, "no GPUs found") {
		t.Fatalf("err %v, Note %q; want ErrNoNVML and no GPUs found", err, h.Note)
	}
	if cs.shutdowns != 1 {
		t.Errorf("Shutdown called %d times after a successful Init, want 1", cs.shutdowns)
	}
}

// The real go-nvml with a library path that does not exist: Init fails
// with LIBRARY_NOT_FOUND, which must not crash, and the host is real.
func TestDetectLibraryNotFound(t *testing.T) {
	lib := nvml.New(nvml.WithLibraryPath("/nonexistent/libnvidia-ml.so.1"))
	h, err := DetectWith(lib)
	if !errors.Is(err, ErrNoNVML) || !strings.Contains(h.Note, "NVIDIA driver not found") {
		t.Fatalf("err %v, Note %q; want ErrNoNVML, NVIDIA driver not found", err, h.Note)
	}
	checkHostFilled(t, h)
}

// On a machine without an NVIDIA device node (this dev box), Detect must
// say why and still fill the host.
func TestDetectThisMachine(t *testing.T) {
	h, err := Detect()
	if _, statErr := os.Stat("/dev/nvidia0"); statErr == nil {
		if err != nil && !errors.Is(err, ErrNoNVML) {
			t.Fatalf("Detect with a GPU present: %v", err)
		}
	} else if !errors.Is(err, ErrNoNVML) || h.Note == "" || len(h.GPUs) != 0 {
		t.Fatalf("Detect without /dev/nvidia0: err %v, Note %q, %d GPUs; want ErrNoNVML with a reason",
			err, h.Note, len(h.GPUs))
	}
	checkHostFilled(t, h)
}

func checkHostFilled(t *testing.T, h Hardware) {
	t.Helper()
	if h.CPU == "" || h.CPUCores <= 0 || h.CPUThreads < h.CPUCores || h.RAMBytes < 1<<28 ||
		h.OS == "" || h.Kernel == "" || !strings.Contains(h.Uname, h.Kernel) {
		t.Errorf("host not filled: %+v", h)
	}
}

func TestPeakBandwidthGBs(t *testing.T) {
	for _, tc := range []struct {
		card           string
		bits, mhz      int
		wantGBs, tolPc float64
	}{
		{"RTX 3090 GDDR6X", 384, 9751, 936, 0.5},
		{"RTX 4090 GDDR6X", 384, 10501, 1008, 0.5},
		{"RTX PRO 6000 Blackwell GDDR7", 512, 14001, 1792, 0.5},
		{"L40S GDDR6", 384, 9001, 864, 0.5},
		{"A100 40GB HBM2", 5120, 1215, 1555, 0.5},
		{"H100 SXM HBM3", 5120, 2619, 3350, 0.5},
		{"H200 HBM3e", 6144, 3201, 4800, 2.5}, // NVIDIA rounds down to 4.8 TB/s
		{"unknown bus width", 0, 3201, 0, 0},
		{"unknown clock", 384, 0, 0, 0},
	} {
		t.Run(tc.card, func(t *testing.T) {
			got := PeakBandwidthGBs(tc.bits, tc.mhz)
			if math.Abs(got-tc.wantGBs) > tc.wantGBs*tc.tolPc/100 {
				t.Errorf("PeakBandwidthGBs(%d, %d) = %.1f, want %.0f ±%.1f%%", tc.bits, tc.mhz, got, tc.wantGBs, tc.tolPc)
			}
		})
	}
}

func TestFormatCUDAVersion(t *testing.T) {
	for v, want := range map[int]string{12080: "12.8", 12040: "12.4", 13000: "13.0", 11020: "11.2", 0: ""} {
		if got := formatCUDAVersion(v); got != want {
			t.Errorf("FormatCUDAVersion(%d) = %q, want %q", v, got, want)
		}
	}
}
