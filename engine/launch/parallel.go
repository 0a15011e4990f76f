package launch

import (
	"fmt"
	"strconv"
	"strings"

	"speedmatrix/engine"
)

// cudaVisibleDevices is the variable that limits a CUDA process to some GPUs.
const cudaVisibleDevices = "CUDA_VISIBLE_DEVICES"

// gpusNeeded is how many GPUs the server uses: tensor × pipeline × data
// parallel size, each 1 when unset.
func (cfg ServerConfig) gpusNeeded() int {
	return max(cfg.TensorParallelSize, 1) * max(cfg.PipelineParallelSize, 1) * max(cfg.DataParallelSize, 1)
}

// visibleDevices is cfg's GPUs as CUDA_VISIBLE_DEVICES writes them: "0,1".
func (cfg ServerConfig) visibleDevices() string {
	ids := make([]string, len(cfg.GPUs))
	for i, g := range cfg.GPUs {
		ids[i] = strconv.Itoa(g)
	}
	return strings.Join(ids, ",")
}

// servingGPUs are the GPUs of this machine the server runs on, so that
// J/token sums their power and no other's: cfg's gpus, else the indices of
// CUDA_VISIBLE_DEVICES in its env. Nil when vLLM may use every GPU, when
// CUDA_VISIBLE_DEVICES names GPUs by UUID, or on a Ray cluster (whose other
// nodes' GPUs this machine's telemetry doesn't see).
func (cfg ServerConfig) servingGPUs() []engine.GPUKey {
	if cfg.usesRay() {
		return nil
	}
	ids := cfg.GPUs
	if len(ids) == 0 {
		for _, f := range strings.Split(cfg.Env[cudaVisibleDevices], ",") {
			i, err := strconv.Atoi(strings.TrimSpace(f))
			if err != nil || i < 0 {
				return nil
			}
			ids = append(ids, i)
		}
	}
	keys := make([]engine.GPUKey, len(ids))
	for i, id := range ids {
		keys[i] = engine.GPUKey{Index: id}
	}
	return keys
}

// gpuProblems reports a gpus list that can't work: a negative or repeated
// index, one set twice (gpus and CUDA_VISIBLE_DEVICES in env), or fewer
// GPUs than the parallel sizes need on this machine.
func (cfg ServerConfig) gpuProblems() []error {
	if len(cfg.GPUs) == 0 {
		return nil
	}
	var errs []error
	seen := map[int]bool{}
	for _, g := range cfg.GPUs {
		if g < 0 || seen[g] {
			errs = append(errs, fmt.Errorf("gpus %v: %d is negative or listed twice: list each GPU's index once, e.g. gpus = [0, 1]", cfg.GPUs, g))
			break
		}
		seen[g] = true
	}
	if _, ok := cfg.Env[cudaVisibleDevices]; ok {
		errs = append(errs, fmt.Errorf("gpus and env %s both pick the GPUs: keep one", cudaVisibleDevices))
	}
	if need := cfg.gpusNeeded(); need > len(cfg.GPUs) && !cfg.usesRay() {
		errs = append(errs, fmt.Errorf("tensor_parallel_size × pipeline_parallel_size × data_parallel_size needs %d GPUs but gpus lists %d: list more GPUs or lower the sizes", need, len(cfg.GPUs)))
	}
	return errs
}

// rayAddressEnv is the variable Ray clients read the cluster's address from.
const rayAddressEnv = "RAY_ADDRESS"

// usesRay reports whether the server runs on a Ray cluster.
func (cfg ServerConfig) usesRay() bool { return cfg.DistributedExecutorBackend == "ray" }

// MixedGPUs warns, in words for any front end, when the GPUs cfg's server
// would use on this machine (its gpus, else all of gpus, the first
// gpusNeeded of them) are not all the same model and memory: "GPU 0 (NVIDIA
// GeForce RTX 4090, 24 GiB) and GPU 1 (…) differ: …". "" when they are, or
// when the server uses one GPU.
func MixedGPUs(cfg ServerConfig, gpus []engine.GPUInfo) string {
	need := cfg.gpusNeeded()
	if need < 2 || cfg.usesRay() {
		return ""
	}
	used := gpus
	if len(cfg.GPUs) > 0 {
		used = nil
		for _, i := range cfg.GPUs {
			for _, g := range gpus {
				if g.Index == i {
					used = append(used, g)
				}
			}
		}
	}
	used = used[:min(need, len(used))]
	for _, g := range used[min(1, len(used)):] {
		if g.Name != used[0].Name || g.VRAMBytes != used[0].VRAMBytes {
			return fmt.Sprintf("GPU %d (%s) and GPU %d (%s) differ: the parallel group runs at the pace of the slower and fits the smaller",
				used[0].Index, gpuWords(used[0]), g.Index, gpuWords(g))
		}
	}
	return ""
}

func gpuWords(g engine.GPUInfo) string {
	return fmt.Sprintf("%s, %d GiB", g.Name, g.VRAMBytes>>30)
}
