package launch

import (
	"errors"
	"fmt"
	"os"
	"strings"
	"testing"
)

// TestRealRay checks a live Ray cluster with Ray's own ray: the
// SPEEDMATRIX_RAY executable, the head at SPEEDMATRIX_RAY_ADDRESS
// (scripts/rig/ray-check.sh starts one on loopback). It is skipped without
// them. Its subtests are what the rig reports, one line each.
func TestRealRay(t *testing.T) {
	exe, address := os.Getenv("SPEEDMATRIX_RAY"), os.Getenv("SPEEDMATRIX_RAY_ADDRESS")
	if exe == "" || address == "" {
		t.Skip("SPEEDMATRIX_RAY and SPEEDMATRIX_RAY_ADDRESS name no live Ray cluster")
	}
	// Ray replaces 127.0.0.1 in RAY_ADDRESS by this machine's routable
	// address, where a head bound to loopback does not listen; without
	// clusters (as on macOS) it keeps 127.0.0.1.
	t.Setenv("RAY_ENABLE_WINDOWS_OR_OSX_CLUSTER", "0")
	onRay := func(address string, tp int) ServerConfig {
		return ServerConfig{Model: "m", TensorParallelSize: tp, DistributedExecutorBackend: "ray", RayExecutable: exe, RayAddress: address}
	}
	var live RayCluster // what the status subtest found

	t.Run("status", func(t *testing.T) {
		var err error
		live, err = rayStatus(t.Context(), exe, environ(onRay(address, 1), os.Environ()), address)
		if err != nil || len(live.Nodes) == 0 {
			t.Fatalf("rayStatus = %+v, %v: want a cluster of at least one node", live, err)
		}
		live.Address = address
		t.Logf("%s, %d free", live.describe(), live.freeGPUs())
	})
	t.Run("too-few-gpus", func(t *testing.T) {
		free := live.freeGPUs()
		_, err := checkRay(t.Context(), onRay(address, free+1))
		want := fmt.Sprintf("the Ray cluster at %s has %d free GPUs (", address, free)
		var se *SetupError
		if !errors.As(err, &se) || se.Kind != SetupRayNoGPUs || !strings.Contains(err.Error(), want) ||
			!strings.Contains(err.Error(), fmt.Sprintf("needs %d", free+1)) || strings.Contains(err.Error(), "\n") {
			t.Fatalf("TP %d on %d free GPUs: %v\nwant one line of kind %s containing %q", free+1, free, err, SetupRayNoGPUs, want)
		}
		t.Logf("refused: %v", err)
	})
	t.Run("unreachable", func(t *testing.T) {
		nobody := fmt.Sprintf("127.0.0.1:%d", freePort(t))
		_, err := checkRay(t.Context(), onRay(nobody, 1))
		want := "ray status got no answer from the Ray cluster at " + nobody + " within " + rayTimeout.String()
		var se *SetupError
		if !errors.As(err, &se) || se.Kind != SetupRayDown || !strings.Contains(err.Error(), want) {
			t.Fatalf("checkRay at %s = %v\nwant %s containing %q", nobody, err, SetupRayDown, want)
		}
		t.Logf("refused: %v", err)
	})
}
