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
	"speedmatrix/hw"
)

func hwCanned(h hw.Hardware, err error) func() {
	old := detectHardware
	detectHardware = func() (hw.Hardware, error) { return h, err }
	return func() { detectHardware = old }
}

var hwCanned3090 = hw.Hardware{
	Type: hw.TypeDiscreteGPU, CPU: "AMD Ryzen 9 7900X", CPUCores: 12, CPUThreads: 24, RAMBytes: 32 << 30,
	OS: "Ubuntu 24.04.5 LTS", Kernel: "6.8.0-49-generic",
	GPUs: []hw.GPU{{GPUInfo: engine.GPUInfo{Name: "NVIDIA GeForce RTX 3090", VRAMBytes: 24 << 30,
		DriverVersion: "570.86.15", CUDAVersion: "12.8"}, PCIeCurGen: 4}},
}

func runHW(t *testing.T, args ...string) (stdout, stderr string, err error) {
	t.Helper()
	var out, errOut strings.Builder
	err = HW(context.Background(), args, &out, &errOut)
	return out.String(), errOut.String(), err
}

func TestHWText(t *testing.T) {
	defer hwCanned(hwCanned3090, nil)()
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
	noGPU := hwCanned3090
	noGPU.Type, noGPU.GPUs, noGPU.Note = "", nil, "NVIDIA driver not found: libnvidia-ml.so.1"
	defer hwCanned(noGPU, fmt.Errorf("%w: NVIDIA driver not found: libnvidia-ml.so.1", hw.ErrNoNVML))()
	out, _, err := runHW(t)
	if err != nil {
		t.Fatalf("hw without a GPU returned %v, want nil", err)
	}
	want := "  GPU      none detected (NVIDIA driver not found: libnvidia-ml.so.1). " + hw.NoGPUAdvice + "\n"
	if !strings.Contains(out, want) {
		t.Errorf("output lacks %q:\n%s", want, out)
	}
}

func TestHWJSON(t *testing.T) {
	defer hwCanned(hwCanned3090, nil)()
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
	defer hwCanned(hw.Hardware{}, errors.New("sysfs exploded"))()
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
	if err := HW(ctx, nil, io.Discard, io.Discard); !errors.Is(err, context.Canceled) {
		t.Errorf("cancelled context gave %v", err)
	}
}

// This machine, for real: exit 0 and either GPUs or a GPU line saying why.
func TestHWThisMachine(t *testing.T) {
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
