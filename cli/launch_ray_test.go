package cli

import (
	"context"
	"path/filepath"
	"strconv"
	"strings"
	"testing"

	"speedmatrix/engine"
	"speedmatrix/engine/dcgm/dcgmtest"
	"speedmatrix/hw"
)

// fakeRay is engine/launch's fake ray executable, which replays ray status
// outputs recorded from Ray 2.60.
func fakeRay(t *testing.T) string {
	exe, err := filepath.Abs(filepath.Join("..", "engine", "launch", "testdata", "ray", "ray"))
	if err != nil {
		t.Fatal(err)
	}
	return exe
}

// TestLaunchTargetOnRay launches the fake vllm over the fake ray's 2-node
// cluster with both nodes' DCGM exporters: the Hardware section names the
// cluster and lists each node's GPUs; a cluster that doesn't
// answer, or has fewer GPUs than TP × PP, stops the launch with one line.
func TestLaunchTargetOnRay(t *testing.T) {
	hwCanned(t, hwCanned3090, nil)
	exe, ray := buildFakeVLLM(t), fakeRay(t)
	onRay := func(tp int) []string {
		return []string{"tensor_parallel_size = " + strconv.Itoa(tp), `distributed_executor_backend = "ray"`,
			`ray_address = "10.0.0.1:6379"`, `ray_executable = "` + ray + `"`}
	}
	exporters := `gpu_metrics = ["` + dcgmtest.Exporter(t, "node1.prom") + `", "` + dcgmtest.Exporter(t, "node2.prom") + `"]`
	tg, stop, err := cliFor(t).launchTarget(context.Background(), serverTOML(t, exe, "", append(onRay(4), exporters)...), &strings.Builder{})
	if err != nil {
		t.Fatal(err)
	}
	defer stop()
	h := tg.Header.Hardware
	if !strings.Contains(tg.Header.LaunchCommand, "serve fake/model --served-model-name bench --tensor-parallel-size 4 --distributed-executor-backend ray") ||
		!strings.Contains(h.Note, "vLLM runs on the Ray cluster at 10.0.0.1:6379: 2 nodes (node_f204223d…, node_9dd2f54b…), 4 GPUs, 0 in use.") {
		t.Errorf("launch command %q, Hardware note %q", tg.Header.LaunchCommand, h.Note)
	}
	if len(h.GPUs) != 4 || h.GPUs[0].Host != "node1" || h.GPUs[3].Host != "node2" || tg.Telemetry == nil ||
		!strings.Contains(h.Note, "GPUs and their telemetry from DCGM exporters: node1 (2 GPUs), node2 (2 GPUs).") {
		t.Errorf("Hardware %+v: want both nodes' GPUs from gpu_metrics, sampled", h)
	}

	tests := []struct{ name, mode, want string }{
		{"Ray unreachable", "down", "start vllm: ray status cannot reach the Ray cluster at 10.0.0.1:6379 (ConnectionError: Could not find any running Ray instance."},
		{"fewer GPUs than TP × PP", "head-2gpus-v2", "has 2 free GPUs (Ray cluster at 10.0.0.1:6379: 1 node (node_50492661…), 2 GPUs, 0 in use), but tensor_parallel_size × pipeline_parallel_size × data_parallel_size needs 4"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			t.Setenv("FAKERAY_MODE", tt.mode)
			_, stop, err := cliFor(t).launchTarget(context.Background(), serverTOML(t, exe, "", onRay(4)...), &strings.Builder{})
			if err == nil || stop != nil || !strings.Contains(err.Error(), tt.want) || strings.Contains(err.Error(), "\n") {
				t.Errorf("launchTarget = %v, want one line containing %q", err, tt.want)
			}
		})
	}
}

// TestLaunchTargetWarnsOfMixedGPUs: a tensor-parallel group over a 4090
// and a 3090 is launched, with a warning naming both.
func TestLaunchTargetWarnsOfMixedGPUs(t *testing.T) {
	t.Parallel()
	mixed := hwCanned3090
	mixed.GPUs = []hw.GPU{{GPUInfo: engine.GPUInfo{Index: 0, Name: "NVIDIA GeForce RTX 4090", VRAMBytes: 24 << 30}},
		{GPUInfo: engine.GPUInfo{Index: 1, Name: "NVIDIA GeForce RTX 3090", VRAMBytes: 24 << 30}}}
	hwCanned(t, mixed, nil)
	var stderr strings.Builder
	_, stop, err := cliFor(t).launchTarget(context.Background(), serverTOML(t, buildFakeVLLM(t), "", "tensor_parallel_size = 2"), &stderr)
	if err != nil {
		t.Fatal(err)
	}
	stop()
	if !strings.Contains(stderr.String(), "warning: GPU 0 (NVIDIA GeForce RTX 4090, 24 GiB) and GPU 1 (NVIDIA GeForce RTX 3090, 24 GiB) differ") ||
		!strings.Contains(stderr.String(), "pick identical ones with gpus in ") {
		t.Errorf("stderr lacks the warning:\n%s", stderr.String())
	}
}
