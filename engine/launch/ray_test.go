package launch

import (
	"errors"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"
)

// rayRecording is a `ray status` output recorded from Ray 2.60 (see
// testdata/ray/README.md).
func rayRecording(t testing.TB, name string) string {
	b, err := os.ReadFile(filepath.Join("testdata", "ray", "status-real-"+name))
	if err != nil {
		t.Fatal(err)
	}
	return string(b)
}

func TestParseRayStatus(t *testing.T) {
	// Ray's formatter writes " COUNT NODE_TYPE" per type; only a cluster
	// launcher or KubeRay names types, so this one is the recorded head's
	// line with their names.
	nodeTypes := strings.Replace(rayRecording(t, "head-2gpus-v2.txt"),
		" 1 node_50492661834bb114219b9cde589db67de654acb51b2ffb96ee883529", " 1 headgroup\n 2 gpu-workers", 1)
	tests := []struct {
		name, text string
		free       int
		describe   string
	}{
		{"no GPUs: no GPU line", rayRecording(t, "head-nogpu.txt"), 0, "Ray cluster: 1 node (node_063968c8…), 0 GPUs, 0 in use"},
		{"head under Idle (autoscaler v2)", rayRecording(t, "head-2gpus-v2.txt"), 2, "Ray cluster: 1 node (node_50492661…), 2 GPUs, 0 in use"},
		{"node types", nodeTypes, 2, "Ray cluster: 3 nodes (headgroup, gpu-workers, gpu-workers), 2 GPUs, 0 in use"},
		{"two nodes", rayRecording(t, "two-nodes.txt"), 4, "Ray cluster: 2 nodes (node_f204223d…, node_9dd2f54b…), 4 GPUs, 0 in use"},
		{"a placement group reserves a GPU", rayRecording(t, "head-2gpus-pg1.txt"), 1,
			"Ray cluster: 1 node (node_709acc7b…), 2 GPUs, 0 in use, 1 reserved by placement groups"},
		{"an actor holds one, a group reserves the other", rayRecording(t, "head-2gpus-pg2-actor1.txt"), 0,
			"Ray cluster: 1 node (node_709acc7b…), 2 GPUs, 1 in use, 1 reserved by placement groups"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			c, err := parseRayStatus(tt.text)
			if err != nil || c.freeGPUs() != tt.free || c.describe() != tt.describe {
				t.Errorf("ParseRayStatus = %+v, %v; %d free, %q\nwant %d free, %q", c, err, c.freeGPUs(), c.describe(), tt.free, tt.describe)
			}
		})
	}
	if _, err := parseRayStatus(rayRecording(t, "starting.txt")); !errors.Is(err, errRayStarting) {
		t.Errorf("a cluster still starting: %v, want ErrRayStarting", err)
	}
	if _, err := parseRayStatus("usage: ray [OPTIONS] COMMAND [ARGS]...\n"); err == nil || errors.Is(err, errRayStarting) {
		t.Errorf("the output of something else: %v", err)
	}
}

func FuzzParseRayStatus(f *testing.F) {
	for _, name := range []string{"head-nogpu.txt", "head-2gpus-v2.txt", "head-2gpus-pg2-actor1.txt", "two-nodes.txt", "starting.txt"} {
		f.Add(rayRecording(f, name))
	}
	f.Fuzz(func(t *testing.T, text string) {
		c, err := parseRayStatus(text)
		if err == nil && !strings.Contains(text, "Node status") {
			t.Fatalf("parsed %+v from text without a Node status heading", c)
		}
		_ = c.describe() // must not panic on whatever the nodes are
	})
}

func TestRayLastWords(t *testing.T) {
	tests := []struct{ out, want string }{
		{rayRecording(t, "down.stderr"), "ConnectionError: Could not find any running Ray instance. Please specify the one to connect to by setting the `--address` flag or `RAY_ADDRESS` environment variable."},
		{rayRecording(t, "unreachable.stderr"), "ray.exceptions.RpcError: Timed out while waiting for GCS to become available."},
		// What Ray has said 30 s into the unreachable recording, when we stop waiting.
		{strings.Join(strings.Split(rayRecording(t, "unreachable.stderr"), "\n")[:2], "\n"),
			"Failed to connect to the observability pubsub at address 127.0.0.1:32987 within 5 seconds."},
		{"[not a log line", "[not a log line"},
		{"\n\n", ""},
	}
	for _, tt := range tests {
		if got := rayLastWords(tt.out); got != tt.want {
			t.Errorf("rayLastWords(%.40q…) = %q, want %q", tt.out, got, tt.want)
		}
	}
}

// rayConfig is a TP × PP server over Ray checked with the fake ray, which
// replays the recording named by mode.
func rayConfig(t *testing.T, mode string, tp, pp int) (ServerConfig, string) {
	exe, err := filepath.Abs(filepath.Join("testdata", "ray", "ray"))
	if err != nil {
		t.Fatal(err)
	}
	log := filepath.Join(t.TempDir(), "ray.log")
	return ServerConfig{Model: "m", TensorParallelSize: tp, PipelineParallelSize: pp, DistributedExecutorBackend: "ray",
		RayExecutable: exe, RayAddress: "10.0.0.1:6379", Env: map[string]string{"FAKERAY_MODE": mode, "FAKERAY_LOG": log}}, log
}

// shortRayWaits makes a check give up after 2 s (time enough for the fake
// ray to start on a busy machine), asking a starting cluster again every
// 10 ms.
func shortRayWaits(t *testing.T) {
	timeout, poll := rayTimeout, rayStartingPoll
	rayTimeout, rayStartingPoll = 2*time.Second, 10*time.Millisecond
	t.Cleanup(func() { rayTimeout, rayStartingPoll = timeout, poll })
}

func TestCheckRay(t *testing.T) {
	shortRayWaits(t)
	cfg, log := rayConfig(t, "two-nodes", 4, 1)
	c, err := checkRay(t.Context(), cfg)
	if err != nil || c.Address != "10.0.0.1:6379" || len(c.Nodes) != 2 || c.freeGPUs() != 4 {
		t.Fatalf("checkRay = %+v, %v: want the 2-node cluster at 10.0.0.1:6379 with 4 free GPUs", c, err)
	}
	if b, _ := os.ReadFile(log); strings.TrimSpace(string(b)) != "args=status RAY_ADDRESS=10.0.0.1:6379" {
		t.Errorf("ray was run as %q: want `ray status` with RAY_ADDRESS from ray_address", b)
	}

	tests := []struct {
		name, mode string
		tp, pp     int
		kind       SetupKind // "" when the check passes
		want       string    // in the error, or in the cluster's Describe
	}{
		{"no Ray on the machine", "down", 1, 1, SetupRayDown, "ray status cannot reach the Ray cluster at 10.0.0.1:6379 (ConnectionError: Could not find any running Ray instance. Please specify"},
		{"Ray gave up on the address", "unreachable", 1, 1, SetupRayDown, "ray status cannot reach the Ray cluster at 10.0.0.1:6379 (ray.exceptions.RpcError: Timed out while waiting for GCS to become available.)"},
		{"no answer in time", "hang", 1, 1, SetupRayDown, "ray status got no answer from the Ray cluster at 10.0.0.1:6379 within 2s"},
		{"still starting", "starting", 1, 1, SetupRayDown, "the Ray cluster at 10.0.0.1:6379 is still starting: ray status had no cluster status within 2s"},
		{"started while we asked", "starting-then-head-2gpus-v2", 2, 1, "", "1 node (node_50492661…), 2 GPUs, 0 in use"},
		{"a cluster without GPUs", "head-nogpu", 2, 1, SetupRayNoGPUs,
			"the Ray cluster at 10.0.0.1:6379 has 0 free GPUs (Ray cluster at 10.0.0.1:6379: 1 node (node_063968c8…), 0 GPUs, 0 in use), but tensor_parallel_size × pipeline_parallel_size × data_parallel_size needs 2"},
		{"fewer GPUs than TP × PP", "two-nodes", 4, 2, SetupRayNoGPUs, "has 4 free GPUs (Ray cluster at 10.0.0.1:6379: 2 nodes"},
		{"a placement group holds a GPU", "head-2gpus-pg1", 2, 1, SetupRayNoGPUs, "has 1 free GPUs (Ray cluster at 10.0.0.1:6379: 1 node (node_709acc7b…), 2 GPUs, 0 in use, 1 reserved by placement groups)"},
		{"what a placement group leaves", "head-2gpus-pg1", 1, 1, "", "2 GPUs, 0 in use, 1 reserved by placement groups"},
		{"not ray", "not-ray", 1, 1, SetupRayDown, "did not print what ray status prints"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			cfg, log := rayConfig(t, tt.mode, tt.tp, tt.pp)
			if tt.mode == "not-ray" {
				cfg.RayExecutable = "/bin/echo"
			}
			c, err := checkRay(t.Context(), cfg)
			if tt.kind == "" {
				b, _ := os.ReadFile(log)
				if calls := strings.Count(string(b), "\n"); err != nil || !strings.Contains(c.describe(), tt.want) ||
					strings.HasPrefix(tt.mode, "starting-then-") && calls != 2 {
					t.Errorf("checkRay = %+v, %v after %d calls, want a cluster of %q", c, err, calls, tt.want)
				}
				return
			}
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
	if c := s.rayCluster(); c == nil || len(c.Nodes) != 2 {
		t.Errorf("RayCluster = %+v", c)
	}
	cfg.TensorParallelSize = 8
	cfg.Port = freePort(t)
	if _, err := Launch(t.Context(), cfg); !errors.As(err, new(*SetupError)) || !strings.Contains(err.Error(), "needs 8") {
		t.Errorf("TP 8 on 4 GPUs: %v", err)
	}
}
