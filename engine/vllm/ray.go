package vllm

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"math"
	"os"
	"os/exec"
	"path/filepath"
	"strconv"
	"strings"
	"time"
)

// rayTimeout bounds `ray status`, which connects to the cluster's GCS.
const rayTimeout = 30 * time.Second

// Setup problems of a server on a Ray cluster.
const (
	SetupNoRay     SetupKind = "no-ray"           // no `ray` executable
	SetupRayDown   SetupKind = "ray-down"         // `ray status` found no cluster
	SetupRayNoGPUs SetupKind = "ray-too-few-gpus" // the cluster has fewer free GPUs than the sizes need
)

// RayCluster is what `ray status` says of the cluster a server runs on.
type RayCluster struct {
	Address string   // ray_address or RAY_ADDRESS; "" for the cluster this node belongs to
	Nodes   []string // Active and Idle nodes (ids, or node-type names on KubeRay)
	// GPUs and GPUsUsed are the cluster's GPUs and those Ray tasks hold.
	GPUs, GPUsUsed float64
}

// FreeGPUs is how many GPUs no Ray task holds.
func (c RayCluster) FreeGPUs() int { return int(math.Floor(c.GPUs - c.GPUsUsed)) }

// Describe is the Hardware section's line of the cluster: "Ray cluster at
// 10.0.0.1:6379: 2 nodes (node_83e4b772…, node_4dcd7509…), 4 GPUs, 0 in use".
func (c RayCluster) Describe() string {
	at := "Ray cluster"
	if c.Address != "" {
		at += " at " + c.Address
	}
	names := make([]string, len(c.Nodes))
	for i, n := range c.Nodes {
		names[i] = shortNode(n)
	}
	nodes := fmt.Sprintf("%d node", len(c.Nodes))
	if len(c.Nodes) != 1 {
		nodes += "s"
	}
	return fmt.Sprintf("%s: %s (%s), %s GPUs, %s in use", at, nodes, strings.Join(names, ", "),
		strconv.FormatFloat(c.GPUs, 'f', -1, 64), strconv.FormatFloat(c.GPUsUsed, 'f', -1, 64))
}

// shortNode keeps "node_" and 8 characters of a node id.
func shortNode(n string) string {
	if id, ok := strings.CutPrefix(n, "node_"); ok && len(id) > 8 {
		return "node_" + id[:8] + "…"
	}
	return n
}

// ParseRayStatus reads the output of `ray status`: the nodes under Active
// and Idle ("1 node_…", "2 gpu-workers") and the GPUs of the first Usage
// (or Total Usage) block ("0.0/16.0 GPU"). Output without a Node status
// heading is an error.
func ParseRayStatus(text string) (RayCluster, error) {
	var c RayCluster
	section, seenStatus, seenGPUs := "", false, false
	for _, line := range strings.Split(text, "\n") {
		trimmed := strings.TrimSpace(line)
		if trimmed == "" {
			continue
		}
		if !strings.HasPrefix(line, " ") {
			section = strings.TrimSuffix(trimmed, ":")
			seenStatus = seenStatus || trimmed == "Node status"
			continue
		}
		switch section {
		case "Active", "Idle":
			count, name, ok := strings.Cut(trimmed, " ")
			n, err := strconv.Atoi(count)
			if !ok || err != nil {
				continue // "(no active nodes)"
			}
			for range n {
				c.Nodes = append(c.Nodes, name)
			}
		case "Usage", "Total Usage":
			used, total, ok := gpuUsage(trimmed)
			if ok && !seenGPUs {
				c.GPUsUsed, c.GPUs, seenGPUs = used, total, true
			}
		}
	}
	if !seenStatus {
		return c, errors.New("the output of ray status has no Node status")
	}
	return c, nil
}

// gpuUsage reads "2.0/16.0 GPU".
func gpuUsage(line string) (used, total float64, ok bool) {
	frac, ok := strings.CutSuffix(line, " GPU")
	if !ok {
		return 0, 0, false
	}
	u, t, ok := strings.Cut(frac, "/")
	used, err1 := strconv.ParseFloat(u, 64)
	total, err2 := strconv.ParseFloat(t, 64)
	return used, total, ok && err1 == nil && err2 == nil
}

// rayExecutable is cfg's ray: ray_executable, else the one beside an exec
// runner's vllm (a venv's bin/ray), else ray on PATH.
func (cfg ServerConfig) rayExecutable() string {
	if cfg.RayExecutable != "" {
		return cfg.RayExecutable
	}
	if strings.ContainsRune(cfg.Executable, filepath.Separator) {
		if beside := filepath.Join(filepath.Dir(cfg.Executable), "ray"); isFile(beside) {
			return beside
		}
	}
	return "ray"
}

// checkRay asks the cluster cfg's server runs on (`ray status`, with
// RAY_ADDRESS from ray_address or this environment) whether it has the free
// GPUs the parallel sizes need. Each failure is a *SetupError.
func checkRay(ctx context.Context, cfg ServerConfig) (*RayCluster, error) {
	exe := cfg.rayExecutable()
	path, err := exec.LookPath(exe)
	if err != nil {
		return nil, &SetupError{Kind: SetupNoRay, Subject: exe, Err: err,
			Fact: "distributed_executor_backend = \"ray\" needs Ray, and " + exe + " cannot be run",
			Fix:  "install Ray where vLLM is (pip install 'ray[default]'), or set ray_executable"}
	}
	env := Environ(cfg, os.Environ())
	address := envValue(env, rayAddressEnv)
	rctx, cancel := context.WithTimeout(ctx, rayTimeout)
	defer cancel()
	cmd := exec.CommandContext(rctx, path, "status")
	cmd.Env = env
	var out, errOut bytes.Buffer
	cmd.Stdout, cmd.Stderr = &out, &errOut
	runErr := cmd.Run()
	where := "the Ray cluster of this node"
	if address != "" {
		where = "the Ray cluster at " + address
	}
	if runErr != nil {
		return nil, &SetupError{Kind: SetupRayDown, Subject: address, Err: runErr,
			Fact: fmt.Sprintf("ray status cannot reach %s (%s)", where, lastLine(errOut.String()+out.String(), runErr)),
			Fix:  "start it (ray start --head on the head node, ray start --address=HEAD:6379 on the others) or set ray_address"}
	}
	c, err := ParseRayStatus(out.String())
	if err != nil {
		return nil, &SetupError{Kind: SetupRayDown, Subject: address, Err: err,
			Fact: fmt.Sprintf("%s did not print what ray status prints (%v)", path, err), Fix: "set ray_executable to Ray's ray"}
	}
	c.Address = address
	if need := cfg.GPUsNeeded(); c.FreeGPUs() < need {
		return nil, &SetupError{Kind: SetupRayNoGPUs, Subject: strconv.Itoa(need),
			Fact: fmt.Sprintf("%s has %d free GPUs (%s), but tensor_parallel_size × pipeline_parallel_size × data_parallel_size needs %d",
				where, c.FreeGPUs(), c.Describe(), need),
			Fix: "add GPU nodes to the cluster (ray start --address=HEAD:6379 on each), free the GPUs Ray tasks hold, or lower the sizes"}
	}
	return &c, nil
}

// envValue is the value of key in env, "" when it is not there.
func envValue(env []string, key string) string {
	for i := len(env) - 1; i >= 0; i-- {
		if v, ok := strings.CutPrefix(env[i], key+"="); ok {
			return v
		}
	}
	return ""
}

// lastLine is the last non-empty line of a command's output, or its exit error.
func lastLine(out string, err error) string {
	lines := strings.Split(strings.TrimSpace(out), "\n")
	if l := strings.TrimSpace(lines[len(lines)-1]); l != "" {
		return l
	}
	return err.Error()
}
