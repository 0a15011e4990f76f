package hw

import (
	"encoding/json"
	"errors"
	"reflect"
	"strings"
	"testing"

	"speedmatrix/engine"
)

var rtx3090 = engine.GPUInfo{
	Index: 0, Name: "NVIDIA GeForce RTX 3090", VRAMBytes: 24576 << 20, DriverVersion: "570.86.15",
	CUDAVersion: "12.8", ComputeCapability: "8.6", PCIeGen: 4, PCIeWidth: 16, PowerLimitW: 350,
	MemoryBusWidthBits: 384, MaxMemClockMHz: 9751, PeakBandwidthGBs: PeakBandwidthGBs(384, 9751),
}

var seedHost = engine.HardwareInfo{CPU: "AMD Ryzen 9 7900X", CPUCores: 12, RAMBytes: 32 << 30,
	OS: "Ubuntu 24.04.5 LTS", Kernel: "6.8.0-49-generic"}

func withGPUs(info engine.HardwareInfo, note string, gpus ...engine.GPUInfo) engine.HardwareInfo {
	info.GPUs, info.Note = gpus, note
	if len(gpus) > 0 {
		info.Type = TypeDiscreteGPU
	}
	return info
}

func TestFormatSection(t *testing.T) {
	h200, err := detect(newH200(t).Server, fakeHost)
	if err != nil {
		t.Fatal(err)
	}
	rtx4090 := engine.GPUInfo{Index: 0, Name: "NVIDIA GeForce RTX 4090", VRAMBytes: 24564 << 20,
		DriverVersion: "570.86.15", CUDAVersion: "12.8", ComputeCapability: "8.9", PCIeGen: 4, PCIeWidth: 16,
		PowerLimitW: 450, MemoryBusWidthBits: 384, MaxMemClockMHz: 10501, PeakBandwidthGBs: PeakBandwidthGBs(384, 10501)}
	partial3090 := rtx3090
	partial3090.Index, partial3090.PowerLimitW = 1, 0
	for _, tc := range []struct {
		name string
		info engine.HardwareInfo
		want string
	}{
		{"reference RTX 3090", withGPUs(seedHost, "", rtx3090), `Hardware
  Type     Discrete GPU
  GPU      RTX 3090
  VRAM     24 GB
  CPU      AMD Ryzen 9 7900X (12C)
  RAM      32 GB
  OS       Ubuntu 24.04.5 LTS
  Kernel   6.8.0-49-generic
  GPU 0    driver 570.86.15 · CUDA 12.8 · compute 8.6 · PCIe Gen 4 x16 · power limit 350 W · memory 936 GB/s (384-bit, 9751 MHz)
`},
		{"8 H200 share a details line", h200.Info(), `Hardware
  Type     Discrete GPU
  GPU      8 × H200 141GB HBM3e
  VRAM     8 × 141 GB
  CPU      AMD Ryzen 9 7900X (12C)
  RAM      32 GB
  OS       Ubuntu 24.04.5 LTS
  Kernel   6.8.0-49-generic
  GPU 0-7  driver 550.54.15 · CUDA 12.4 · compute 9.0 · PCIe Gen 5 x16 · power limit 700 W · memory 4,917 GB/s (6144-bit, 3201 MHz)
`},
		{"mixed, one partial", withGPUs(seedHost, "GPU 1: power limit: ERROR_NOT_SUPPORTED", rtx4090, partial3090), `Hardware
  Type     Discrete GPU
  GPU      RTX 4090 + RTX 3090
  VRAM     2 × 24 GB
  CPU      AMD Ryzen 9 7900X (12C)
  RAM      32 GB
  OS       Ubuntu 24.04.5 LTS
  Kernel   6.8.0-49-generic
  GPU 0    driver 570.86.15 · CUDA 12.8 · compute 8.9 · PCIe Gen 4 x16 · power limit 450 W · memory 1,008 GB/s (384-bit, 10501 MHz)
  GPU 1    driver 570.86.15 · CUDA 12.8 · compute 8.6 · PCIe Gen 4 x16 · memory 936 GB/s (384-bit, 9751 MHz)
  Note     GPU 1: power limit: ERROR_NOT_SUPPORTED
`},
		{"no GPU", withGPUs(seedHost, "NVIDIA driver not found: libnvidia-ml.so.1"), `Hardware
  GPU      none detected (NVIDIA driver not found: libnvidia-ml.so.1). ` + NoGPUAdvice + `
  CPU      AMD Ryzen 9 7900X (12C)
  RAM      32 GB
  OS       Ubuntu 24.04.5 LTS
  Kernel   6.8.0-49-generic
`},
		{"only a GOOS", engine.HardwareInfo{OS: "linux"}, `Hardware
  GPU      none detected (no NVIDIA GPU found). ` + NoGPUAdvice + `
  OS       linux
`},
	} {
		t.Run(tc.name, func(t *testing.T) {
			var b strings.Builder
			if err := FormatSection(&b, tc.info); err != nil {
				t.Fatal(err)
			}
			if b.String() != tc.want {
				t.Errorf("got:\n%s\nwant:\n%s", b.String(), tc.want)
			}
		})
	}
}

type failingWriter struct{}

func (failingWriter) Write([]byte) (int, error) { return 0, errors.New("disk full") }

func TestFormatSectionWriteError(t *testing.T) {
	if err := FormatSection(failingWriter{}, seedHost); err == nil || !strings.Contains(err.Error(), "disk full") {
		t.Errorf("FormatSection to a failing writer = %v, want the write error", err)
	}
}

func TestDisplayNamesAndSizes(t *testing.T) {
	for in, want := range map[string]string{
		"NVIDIA GeForce RTX 3090":                      "RTX 3090",
		"NVIDIA RTX PRO 6000 Blackwell Server Edition": "RTX PRO 6000 Blackwell Server Edition",
		"NVIDIA H200": "H200",
		"Tesla T4":    "Tesla T4",
	} {
		if got := DisplayGPUName(in); got != want {
			t.Errorf("DisplayGPUName(%q) = %q, want %q", in, got, want)
		}
	}
	for b, want := range map[uint64]string{
		97887 << 20: "96 GB", // RTX PRO 6000 Blackwell as NVML reports it
		24576 << 20: "24 GB",
		32 << 30:    "32 GB",
		0:           "0 GB",
	} {
		if got := FormatGB(b); got != want {
			t.Errorf("FormatGB(%d) = %q, want %q", b, got, want)
		}
	}
	for n, want := range map[int]string{0: "0", 936: "936", 1792: "1,792", 4917: "4,917", 1234567: "1,234,567", -4096: "-4,096"} {
		if got := thousands(n); got != want {
			t.Errorf("thousands(%d) = %q, want %q", n, got, want)
		}
	}
}

// Hardware's JSON reads back as itself, and as the report's HardwareInfo.
func TestHardwareJSONRoundTrip(t *testing.T) {
	h, err := detect(newH200(t).Server, fakeHost)
	if err != nil {
		t.Fatal(err)
	}
	h.GPUs[2].Notes = []string{"power limit: ERROR_NOT_SUPPORTED"}
	data, err := json.Marshal(h)
	if err != nil {
		t.Fatal(err)
	}
	var back Hardware
	if err := json.Unmarshal(data, &back); err != nil {
		t.Fatal(err)
	}
	if !reflect.DeepEqual(back, h) {
		t.Errorf("round trip changed Hardware:\n got %+v\nwant %+v", back, h)
	}
	var info engine.HardwareInfo
	if err := json.Unmarshal(data, &info); err != nil {
		t.Fatal(err)
	}
	if !reflect.DeepEqual(info, h.Info()) {
		t.Errorf("Hardware JSON read as HardwareInfo:\n got %+v\nwant %+v", info, h.Info())
	}
	for _, key := range []string{`"peak_bandwidth_gb_s":4916.736`, `"pcie_cur_gen":1`, `"cpu_threads":24`, `"type":"Discrete GPU"`} {
		if !strings.Contains(string(data), key) {
			t.Errorf("JSON lacks %s", key)
		}
	}
}
