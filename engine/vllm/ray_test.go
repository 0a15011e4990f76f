package vllm

import (
	"errors"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

func TestParseRayStatus(t *testing.T) {
	tests := []struct {
		file           string
		nodes          int
		gpus, gpusUsed float64
		describe       string
	}{
		{"status-two-nodes.txt", 2, 4, 0, "Ray cluster: 2 nodes (node_83e4b772…, node_4dcd7509…), 4 GPUs, 0 in use"},
		{"status-one-node.txt", 1, 2, 0, "Ray cluster: 1 node (node_83e4b772…), 2 GPUs, 0 in use"},
		{"status-busy.txt", 3, 6, 2, "Ray cluster: 3 nodes (headgroup, gpu-workers, gpu-workers), 6 GPUs, 2 in use"},
	}
	for _, tt := range tests {
		t.Run(tt.file, func(t *testing.T) {
			b, err := os.ReadFile(filepath.Join("testdata", "fakeray", tt.file))
			if err != nil {
				t.Fatal(err)
			}
			c, err := ParseRayStatus(string(b))
			if err != nil || len(c.Nodes) != tt.nodes || c.GPUs != tt.gpus || c.GPUsUsed != tt.gpusUsed || c.Describe() != tt.describe {
				t.Errorf("ParseRayStatus = %+v, %v; describe %q\nwant %d nodes, %v GPUs (%v used), %q", c, err, c.Describe(), tt.nodes, tt.gpus, tt.gpusUsed, tt.describe)
			}
		})
	}
	if _, err := ParseRayStatus("usage: ray [OPTIONS] COMMAND [ARGS]...\n"); err == nil {
		t.Error("ParseRayStatus accepted the output of something else")
	}
}

func FuzzParseRayStatus(f *testing.F) {
	for _, name := range []string{"status-two-nodes.txt", "status-busy.txt"} {
		b, err := os.ReadFile(filepath.Join("testdata", "fakeray", name))
		if err != nil {
			f.Fatal(err)
		}
		f.Add(string(b))
	}
	f.Fuzz(func(t *testing.T, text string) {
		c, err := ParseRayStatus(text)
		if err == nil && !strings.Contains(text, "Node status") {
			t.Fatalf("parsed %+v from text without a Node status heading", c)
		}
		_ = c.Describe() // must not panic on whatever the nodes are
	})
}

// rayConfig is a TP × PP server over Ray checked with the fake ray.
func rayConfig(t *testing.T, mode string, tp, pp int) (ServerConfig, string) {
	exe, err := filepath.Abs(filepath.Join("testdata", "fakeray", "ray"))
	if err != nil {
		t.Fatal(err)
	}
	log := filepath.Join(t.TempDir(), "ray.log")
	return ServerConfig{Model: "m", TensorParallelSize: tp, PipelineParallelSize: pp, DistributedExecutorBackend: "ray",
		RayExecutable: exe, RayAddress: "10.0.0.1:6379", Env: map[string]string{"FAKERAY_MODE": mode, "FAKERAY_LOG": log}}, log
}

func TestCheckRay(t *testing.T) {
	cfg, log := rayConfig(t, "two-nodes", 4, 1)
	c, err := checkRay(t.Context(), cfg)
	if err != nil || c.Address != "10.0.0.1:6379" || len(c.Nodes) != 2 || c.FreeGPUs() != 4 {
		t.Fatalf("checkRay = %+v, %v: want the 2-node cluster at 10.0.0.1:6379 with 4 free GPUs", c, err)
	}
	if b, _ := os.ReadFile(log); strings.TrimSpace(string(b)) != "args=status RAY_ADDRESS=10.0.0.1:6379" {
		t.Errorf("ray was run as %q: want `ray status` with RAY_ADDRESS from ray_address", b)
	}

	tests := []struct {
		name, mode string
		tp, pp     int
		kind       SetupKind
		want       string
	}{
		{"Ray unreachable", "down", 4, 1, SetupRayDown, "ray status cannot reach the Ray cluster at 10.0.0.1:6379 (ConnectionError: Could not find any running Ray instance."},
		{"fewer GPUs than TP × PP", "two-nodes", 4, 2, SetupRayNoGPUs, "has 4 free GPUs (Ray cluster at 10.0.0.1:6379: 2 nodes"},
		{"GPUs held by Ray tasks", "busy", 4, 2, SetupRayNoGPUs, "has 4 free GPUs"},
		{"not ray", "not-ray", 1, 1, SetupRayDown, "did not print what ray status prints"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			cfg, _ := rayConfig(t, tt.mode, tt.tp, tt.pp)
			if tt.mode == "not-ray" {
				cfg.RayExecutable = "/bin/echo"
			}
			_, err := checkRay(t.Context(), cfg)
			var se *SetupError
			if !errors.As(err, &se) || se.Kind != tt.kind || !strings.Contains(err.Error(), tt.want) || strings.Contains(err.Error(), "\n") {
				t.Errorf("checkRay = %v, want one line of kind %s containing %q", err, tt.kind, tt.want)
			}
		})
	}
	cfg.RayExecutable = filepath.Join(t.TempDir(), "no-ray")
	if _, err := checkRay(t.Context(), cfg); !errors.As(err, new(*SetupError)) || !strings.Contains(err.Error(), "pip install 'ray[default]'") {
		t.Errorf("no ray: %v", err)
	}
}

// TestLaunchOnRay starts the fake vllm after the fake ray found the GPUs:
// the command is vLLM's documented one, run on the head, and the server
// knows the cluster.
func TestLaunchOnRay(t *testing.T) {
	cfg, _ := rayConfig(t, "two-nodes", 4, 0)
	cfg.Executable, cfg.Port, cfg.LogDir = fakeVLLM(t), freePort(t), t.TempDir()
	s, err := Launch(t.Context(), cfg)
	if err != nil {
		t.Fatal(err)
	}
	defer s.Stop()
	if !strings.Contains(s.Display(), "serve m --tensor-parallel-size 4 --distributed-executor-backend ray --host 127.0.0.1") ||
		!strings.Contains(s.Display(), "RAY_ADDRESS=10.0.0.1:6379") {
		t.Errorf("launch command %s", s.Display())
	}
	if c := s.RayCluster(); c == nil || len(c.Nodes) != 2 {
		t.Errorf("RayCluster = %+v", c)
	}
	cfg.TensorParallelSize = 8
	cfg.Port = freePort(t)
	if _, err := Launch(t.Context(), cfg); !errors.As(err, new(*SetupError)) || !strings.Contains(err.Error(), "needs 8") {
		t.Errorf("TP 8 on 4 GPUs: %v", err)
	}
}
