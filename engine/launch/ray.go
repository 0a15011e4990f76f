package launch

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

// rayTimeout bounds the check of a Ray cluster. Toward an address where no
// GCS answers, Ray 2.60's `ray status` gives up only after about 41 s (5 s
// to connect, then 30 s for the cluster id); we say so sooner.
//
// rayStartingPoll is how long checkRay waits before asking again a cluster
// that is still starting. Both are variables so that tests need not wait.
var rayTimeout, rayStartingPoll = 30 * time.Second, 2 * time.Second

// errRayStarting is parseRayStatus's error for what `ray status` prints in
// the seconds after `ray start --head`, before the autoscaler's first report.
var errRayStarting = errors.New("ray status has no cluster status yet: the cluster is starting")

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
	// GPUs and GPUsUsed are the cluster's GPUs and those Ray tasks and
	// actors hold; GPUsReserved are held by placement groups for tasks not
	// (yet) in them, such as those of a vLLM that is starting or gone.
	GPUs, GPUsUsed, GPUsReserved float64
}

// freeGPUs is how many GPUs no Ray task or placement group holds.
func (c RayCluster) freeGPUs() int { return int(math.Floor(c.GPUs - c.GPUsUsed - c.GPUsReserved)) }

// describe is the Hardware section's line of the cluster: "Ray cluster at
// 10.0.0.1:6379: 2 nodes (node_f204223d…, node_9dd2f54b…), 4 GPUs, 0 in use",
// and ", 1 reserved by placement groups" when groups hold GPUs.
func (c RayCluster) describe() string {
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
	gpus := fmt.Sprintf("%s GPUs, %s in use", gpuCount(c.GPUs), gpuCount(c.GPUsUsed))
	if c.GPUsReserved > 0 {
		gpus += ", " + gpuCount(c.GPUsReserved) + " reserved by placement groups"
	}
	return fmt.Sprintf("%s: %s (%s), %s", at, nodes, strings.Join(names, ", "), gpus)
}

// gpuCount writes a number of GPUs as people do: 2, 0.5 (Ray writes 2.0).
func gpuCount(f float64) string { return strconv.FormatFloat(f, 'f', -1, 64) }

// shortNode keeps "node_" and 8 characters of a node id.
func shortNode(n string) string {
	if id, ok := strings.CutPrefix(n, "node_"); ok && len(id) > 8 {
		return "node_" + id[:8] + "…"
	}
	return n
}

// parseRayStatus reads the output of `ray status`: the nodes under Active
// and Idle ("1 node_…", "2 gpu-workers") and the GPUs of the first Total
// Usage (older Rays: Usage) block, "0.0/16.0 GPU" or "1.0/2.0 GPU (1.0 used
// of 2.0 reserved in placement groups)". A cluster without GPUs has no GPU
// line. Output that says the cluster is starting is errRayStarting; other
// output without a Node status heading is an error.
func parseRayStatus(text string) (RayCluster, error) {
	var c RayCluster
	if strings.HasPrefix(strings.TrimSpace(text), "No cluster status.") {
		return c, errRayStarting
	}
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
			used, total, reserved, ok := gpuUsage(trimmed)
			if ok && !seenGPUs {
				c.GPUsUsed, c.GPUs, c.GPUsReserved, seenGPUs = used, total, reserved, true
			}
		}
	}
	if !seenStatus {
		return c, errors.New("the output of ray status has no Node status")
	}
	return c, nil
}

// gpuUsage reads "2.0/16.0 GPU", and "1.0/2.0 GPU (1.0 used of 2.0 reserved
// in placement groups)": Ray's first number counts the GPUs tasks hold in
// placement groups or outside them, not those a group reserves for tasks
// it has yet to run, which are no more free than the others.
func gpuUsage(line string) (used, total, reserved float64, ok bool) {
	usage, groups, inGroups := strings.Cut(line, " (")
	frac, ok := strings.CutSuffix(usage, " GPU")
	if !ok {
		return 0, 0, 0, false
	}
	u, t, ok := strings.Cut(frac, "/")
	used, err1 := strconv.ParseFloat(u, 64)
	total, err2 := strconv.ParseFloat(t, 64)
	if !ok || err1 != nil || err2 != nil {
		return 0, 0, 0, false
	}
	if inGroups {
		var groupUsed, groupTotal float64
		if _, err := fmt.Sscanf(groups, "%g used of %g reserved in placement groups)", &groupUsed, &groupTotal); err != nil {
			return 0, 0, 0, false
		}
		reserved = groupTotal - groupUsed
	}
	return used, total, reserved, true
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
	env := environ(cfg, os.Environ())
	address := envValue(env, rayAddressEnv)
	c, err := rayStatus(ctx, path, env, address)
	if err != nil {
		return nil, err
	}
	c.Address = address
	if need := cfg.gpusNeeded(); c.freeGPUs() < need {
		return nil, &SetupError{Kind: SetupRayNoGPUs, Subject: strconv.Itoa(need),
			Fact: fmt.Sprintf("%s has %d free GPUs (%s), but tensor_parallel_size × pipeline_parallel_size × data_parallel_size needs %d",
				rayWhere(address), c.freeGPUs(), c.describe(), need),
			Fix: "add GPU nodes to the cluster (ray start --address=HEAD:6379 on each), free the GPUs Ray tasks hold, or lower the sizes"}
	}
	return &c, nil
}

// rayStatus runs path's `ray status` until it describes the cluster: one
// that is still starting is asked again every rayStartingPoll, all within
// rayTimeout. A cluster that doesn't answer is a *SetupError.
func rayStatus(ctx context.Context, path string, env []string, address string) (RayCluster, error) {
	down := func(err error, fact string, args ...any) error {
		return &SetupError{Kind: SetupRayDown, Subject: address, Err: err, Fact: fmt.Sprintf(fact, args...),
			Fix: "start it (ray start --head on the head node, ray start --address=HEAD:6379 on the others) or set ray_address"}
	}
	where := rayWhere(address)
	rctx, cancel := context.WithTimeout(ctx, rayTimeout)
	defer cancel()
	starting := false // an earlier call said the cluster is starting
	for {
		cmd := exec.CommandContext(rctx, path, "status")
		cmd.Env = env
		// ray is Python: a child it left holding our pipes must not hold us.
		cmd.WaitDelay = time.Second
		var out, errOut bytes.Buffer
		cmd.Stdout, cmd.Stderr = &out, &errOut
		runErr := cmd.Run()
		said := rayLastWords(errOut.String() + out.String())
		switch {
		case ctx.Err() != nil:
			return RayCluster{}, fmt.Errorf("ray status: %w", ctx.Err())
		case rctx.Err() != nil && starting:
			return RayCluster{}, down(rctx.Err(), "%s is still starting: ray status had no cluster status within %s", where, rayTimeout)
		case rctx.Err() != nil && said == "":
			return RayCluster{}, down(rctx.Err(), "ray status got no answer from %s within %s", where, rayTimeout)
		case rctx.Err() != nil:
			return RayCluster{}, down(rctx.Err(), "ray status got no answer from %s within %s (%s)", where, rayTimeout, said)
		case runErr != nil && said == "":
			return RayCluster{}, down(runErr, "ray status cannot reach %s (%v)", where, runErr)
		case runErr != nil:
			return RayCluster{}, down(runErr, "ray status cannot reach %s (%s)", where, said)
		}
		c, err := parseRayStatus(out.String())
		if err == nil {
			return c, nil
		}
		if !errors.Is(err, errRayStarting) {
			return RayCluster{}, &SetupError{Kind: SetupRayDown, Subject: address, Err: err,
				Fact: fmt.Sprintf("%s did not print what ray status prints (%v)", path, err), Fix: "set ray_executable to Ray's ray"}
		}
		starting = true
		select {
		case <-rctx.Done():
			return RayCluster{}, down(err, "%s is still starting: ray status had no cluster status within %s", where, rayTimeout)
		case <-time.After(rayStartingPoll):
		}
	}
}

// rayWhere names the cluster at address for a sentence.
func rayWhere(address string) string {
	if address == "" {
		return "the Ray cluster of this node"
	}
	return "the Ray cluster at " + address
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

// rayLastWords is the last non-empty line of ray's output, without the
// prefix of Ray's C++ log lines ("[2026-12-02 10:31:18,192 W 11830 11830]
// rpc_client.h:153: Failed to connect to GCS at address …"); "" if none.
func rayLastWords(out string) string {
	lines := strings.Split(strings.TrimSpace(out), "\n")
	last := strings.TrimSpace(lines[len(lines)-1])
	if strings.HasPrefix(last, "[") {
		if _, msg, ok := strings.Cut(last, "] "); ok {
			last = msg
			if source, msg, ok := strings.Cut(last, ": "); ok && !strings.Contains(source, " ") {
				last = msg
			}
		}
	}
	return last
}
