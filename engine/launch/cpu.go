package launch

import (
	"fmt"
	"strconv"
	"strings"

	"speedmatrix/engine"
)

// The devices server.toml's device names; empty decides at launch (see
// ResolveDevice).
const (
	DeviceGPU = "gpu"
	DeviceCPU = "cpu"
)

// The variables of vLLM's CPU build (vllm/envs.py, vLLM 0.32), and the one
// that makes any vLLM 0.32 pick its CPU platform.
const (
	cpuKVCacheSpaceEnv = "VLLM_CPU_KVCACHE_SPACE"       // GiB
	cpuThreadsBindEnv  = "VLLM_CPU_OMP_THREADS_BIND"    // "auto", "nobind", "0-31|32-63"
	cpuReservedEnv     = "VLLM_CPU_NUM_OF_RESERVED_CPU" // cores kept free of OpenMP threads
	targetDeviceEnv    = "VLLM_TARGET_DEVICE"
)

// Bounds that catch a size written in the wrong unit.
const (
	minKVCacheBytes = 1 << 20 // below a MiB, kv_cache_memory_bytes was surely meant in GiB
	maxKVCacheBytes = 1 << 50 // a PiB: more than any machine's memory
	maxKVCacheGiB   = 1 << 20 // the same in GiB
)

// OnCPU reports whether cfg says its server runs on the CPU: device =
// "cpu"; or, with device unset, a setting of vLLM's CPU build
// (cpu_kvcache_space_gib, cpu_omp_threads_bind, cpu_num_reserved_cpus),
// VLLM_TARGET_DEVICE=cpu in env, or a docker image named for the CPU
// (vllm/vllm-openai-cpu). It is pure: ResolveDevice also looks at the
// vLLM installed.
func (cfg ServerConfig) OnCPU() bool {
	switch cfg.Device {
	case DeviceCPU:
		return true
	case DeviceGPU:
		return false
	}
	return cfg.flavor() == &vllmFlavor && (len(cfg.cpuKeys()) > 0 || strings.EqualFold(cfg.Env[targetDeviceEnv], DeviceCPU) ||
		(cfg.Runner == RunnerDocker && cpuImage(cfg.DockerImage)))
}

// cpuImage reports whether a docker image's name says it is a CPU build.
func cpuImage(image string) bool {
	name, _, _ := strings.Cut(image, "@")
	if i := strings.LastIndex(name, "/"); i >= 0 {
		name = name[i+1:]
	}
	return strings.Contains(strings.ToLower(name), "cpu")
}

// cpuKeys are the server.toml keys of vLLM's CPU build that cfg sets.
func (cfg ServerConfig) cpuKeys() []string {
	var keys []string
	for _, k := range cpuSettings {
		if k.set(cfg) {
			keys = append(keys, k.key)
		}
	}
	return keys
}

// cpuSettings are the server.toml keys that become variables of vLLM's
// CPU build: their names, and whether and how cfg sets them.
var cpuSettings = []struct {
	key, env string
	set      func(ServerConfig) bool
	value    func(ServerConfig) string
}{
	{"cpu_kvcache_space_gib", cpuKVCacheSpaceEnv,
		func(c ServerConfig) bool { return c.CPUKVCacheSpaceGiB != 0 },
		func(c ServerConfig) string { return strconv.Itoa(c.CPUKVCacheSpaceGiB) }},
	{"cpu_omp_threads_bind", cpuThreadsBindEnv,
		func(c ServerConfig) bool { return c.CPUOMPThreadsBind != "" },
		func(c ServerConfig) string { return strings.TrimSpace(c.CPUOMPThreadsBind) }},
	{"cpu_num_reserved_cpus", cpuReservedEnv,
		func(c ServerConfig) bool { return c.CPUNumReservedCPUs != nil },
		func(c ServerConfig) string { return strconv.Itoa(*c.CPUNumReservedCPUs) }},
}

// addCPUEnv adds the variables of cfg's CPU settings to env, and
// VLLM_TARGET_DEVICE=cpu when device is "cpu".
func (cfg ServerConfig) addCPUEnv(env map[string]string) {
	for _, k := range cpuSettings {
		if k.set(cfg) {
			env[k.env] = k.value(cfg)
		}
	}
	if cfg.Device == DeviceCPU && cfg.flavor() == &vllmFlavor {
		env[targetDeviceEnv] = DeviceCPU
	}
}

// cpuProblems reports the device and memory settings that can't work: an
// unknown device, a KV cache size in the wrong unit or given twice, a
// thread binding vLLM can't parse, CPU settings with device = "gpu", GPUs
// picked for a server on the CPU.
func (cfg ServerConfig) cpuProblems() []error {
	var errs []error
	add := func(format string, a ...any) { errs = append(errs, fmt.Errorf(format, a...)) }
	switch cfg.Device {
	case "", DeviceCPU, DeviceGPU:
	default:
		add("device %q is unknown: use \"cpu\" (vLLM's CPU build) or \"gpu\", or leave it out to detect it", cfg.Device)
	}
	switch b := cfg.KVCacheMemoryBytes; {
	case b < 0:
		add("kv_cache_memory_bytes %d is negative: give the KV cache's size in bytes, e.g. 8589934592 for 8 GiB, or leave it out", b)
	case b > 0 && b < minKVCacheBytes:
		add("kv_cache_memory_bytes %d is in bytes, too few for any KV cache: write e.g. 8589934592 for 8 GiB", b)
	case b > maxKVCacheBytes:
		add("kv_cache_memory_bytes %d is more than any machine's memory: give the size in bytes, e.g. 8589934592 for 8 GiB", b)
	}
	switch g := cfg.CPUKVCacheSpaceGiB; {
	case g < 0:
		add("cpu_kvcache_space_gib %d is negative: give the KV cache's size in GiB, e.g. 40, or leave it out", g)
	case g > maxKVCacheGiB:
		add("cpu_kvcache_space_gib %d is in GiB, more than any machine's memory: write e.g. 40 for 40 GiB", g)
	}
	if cfg.KVCacheMemoryBytes != 0 && cfg.CPUKVCacheSpaceGiB != 0 {
		add("kv_cache_memory_bytes and cpu_kvcache_space_gib both size the KV cache (vLLM's CPU build lets VLLM_CPU_KVCACHE_SPACE win): keep one")
	}
	if bind := strings.TrimSpace(cfg.CPUOMPThreadsBind); cfg.CPUOMPThreadsBind != "" {
		if err := bindProblem(bind, cfg.gpusNeeded()); err != nil {
			errs = append(errs, err)
		}
	}
	if n := cfg.CPUNumReservedCPUs; n != nil && *n < 0 {
		add("cpu_num_reserved_cpus %d is negative: use 0 or more cores, or leave it out", *n)
	}
	for _, k := range cpuSettings {
		if _, ok := cfg.Env[k.env]; ok && k.set(cfg) {
			add("%s and env %s both set the same thing: keep one", k.key, k.env)
		}
	}
	if cfg.Device == DeviceGPU {
		for _, k := range cfg.cpuKeys() {
			add("%s is a setting of vLLM's CPU build, and device is \"gpu\": set device = \"cpu\" or remove %s", k, k)
		}
		if strings.EqualFold(cfg.Env[targetDeviceEnv], DeviceCPU) {
			add("env %s=cpu makes vLLM run on the CPU, and device is \"gpu\": remove one", targetDeviceEnv)
		}
	}
	if len(cfg.GPUs) > 0 && cfg.OnCPU() {
		add("gpus picks GPUs, and the server runs on the CPU: remove gpus (cpu_omp_threads_bind picks the cores)")
	}
	return errs
}

// bindProblem checks a VLLM_CPU_OMP_THREADS_BIND value as vLLM 0.32 parses
// it: "auto", "nobind", or one list of core ids per rank ("0-31|32-63",
// each like "0-15,32-47"), as many lists as the server has ranks.
func bindProblem(bind string, ranks int) error {
	if bind == "auto" || bind == "nobind" {
		return nil
	}
	lists := strings.Split(bind, "|")
	for _, l := range lists {
		if !validIDList(l) {
			return fmt.Errorf("cpu_omp_threads_bind %q is not a list of CPU cores: use \"auto\", \"nobind\" or core ids like \"0-31\" or \"0-15,32-47\" (one list per rank, separated by |)", bind)
		}
	}
	if len(lists) != ranks {
		return fmt.Errorf("cpu_omp_threads_bind %q gives %s of cores, and the server has %s (tensor_parallel_size × pipeline_parallel_size × data_parallel_size): give one list per rank, separated by |",
			bind, engine.Count(len(lists), "list", "lists"), engine.Count(ranks, "rank", "ranks"))
	}
	return nil
}

// validIDList reports whether s is like "0-2,4,7-8", each range rising.
func validIDList(s string) bool {
	if s == "" {
		return false
	}
	for _, part := range strings.Split(s, ",") {
		lo, hi, isRange := strings.Cut(part, "-")
		a, err := strconv.Atoi(lo)
		if err != nil || a < 0 || lo != strconv.Itoa(a) {
			return false
		}
		if isRange {
			b, err := strconv.Atoi(hi)
			if err != nil || b < a || hi != strconv.Itoa(b) {
				return false
			}
		}
	}
	return true
}
