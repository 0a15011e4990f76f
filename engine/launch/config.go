package launch

import (
	"crypto/rand"
	"encoding/hex"
	"errors"
	"fmt"
	"math"
	"net"
	"net/url"
	"os"
	"reflect"
	"slices"
	"strings"
	"time"

	"github.com/BurntSushi/toml"

	"speedmatrix/engine/hfcache"
	"speedmatrix/engine/secret"
	"speedmatrix/engine/servers"
)

// Runner says how the server is run.
type Runner string

// The two ways to run the server.
const (
	RunnerExec   Runner = "exec"   // a `vllm` (or SGLang's python3) executable on PATH or in a venv
	RunnerDocker Runner = "docker" // `docker run` of a vllm/vllm-openai (or lmsysorg/sglang) image
)

// Defaults applied by WithDefaults.
const (
	DefaultHost        = "127.0.0.1"
	DefaultPort        = 8000
	DefaultExecutable  = "vllm"
	defaultDockerImage = "vllm/vllm-openai:latest"
	// defaultCPUDockerImage is vLLM's image of its CPU build for x86-64
	// (device = "cpu" with runner = "docker").
	defaultCPUDockerImage = "vllm/vllm-openai-cpu:latest-x86_64"
	defaultStartupTimeout = 20 * time.Minute // model downloads are slow
	defaultStopGrace      = 15 * time.Second
)

// ServerConfig is everything needed to build and run one `vllm serve` (or
// `python3 -m sglang.launch_server`) command. Zero values mean "the
// engine's default" (the flag is left out), except for the fields
// WithDefaults fills in.
type ServerConfig struct {
	// Server is "vllm" (default) or "sglang": the server Launch starts.
	Server      string `toml:"engine"`
	Runner      Runner `toml:"runner"`       // "exec" (default) or "docker"
	Executable  string `toml:"executable"`   // exec: `vllm` on PATH or a venv's bin/vllm; SGLang: python3 or a venv's bin/python3
	DockerImage string `toml:"docker_image"` // docker: vllm/vllm-openai:TAG or lmsysorg/sglang:TAG
	HFCache     string `toml:"hf_cache"`     // docker: host dir mounted at /root/.cache/huggingface

	Model           string `toml:"model"` // HF id or local path
	ServedModelName string `toml:"served_model_name"`
	Revision        string `toml:"revision"`

	TensorParallelSize   int     `toml:"tensor_parallel_size"`
	PipelineParallelSize int     `toml:"pipeline_parallel_size"`
	DataParallelSize     int     `toml:"data_parallel_size"` // replicas of the model
	MaxModelLen          int     `toml:"max_model_len"`
	GPUMemoryUtilization float64 `toml:"gpu_memory_utilization"` // fraction 0..1
	Quantization         string  `toml:"quantization"`
	DType                string  `toml:"dtype"`
	KVCacheDType         string  `toml:"kv_cache_dtype"`
	MaxNumSeqs           int     `toml:"max_num_seqs"`
	// EnablePrefixCaching is nil for vLLM's default, else on or off.
	EnablePrefixCaching *bool  `toml:"enable_prefix_caching"`
	AttentionBackend    string `toml:"attention_backend"`
	AsyncScheduling     bool   `toml:"async_scheduling"`
	TrustRemoteCode     bool   `toml:"trust_remote_code"`
	ReasoningParser     string `toml:"reasoning_parser"`
	// ToolCallParser, when set, also adds --enable-auto-tool-choice.
	ToolCallParser string `toml:"tool_call_parser"`

	Host string `toml:"host"` // where the API listens; default 127.0.0.1
	Port int    `toml:"port"` // default 8000
	// APIKey is required of every client; Launch reads it from APIKeyFile,
	// or generates one, when empty. vLLM gets it as VLLM_API_KEY in its
	// environment, never on its command line.
	APIKey string `toml:"api_key"`
	// APIKeyFile is a file whose first line is the API key (used when APIKey is empty).
	APIKeyFile string `toml:"api_key_file"`
	// HFToken, when set, is given to vLLM as HF_TOKEN (gated or private models).
	HFToken   string            `toml:"hf_token"`
	ExtraArgs []string          `toml:"extra_args"` // appended verbatim
	Env       map[string]string `toml:"env"`        // added to the server's environment

	// Device is where the server runs: "cpu" (vLLM's CPU build), "gpu",
	// or empty to decide at launch (ResolveDevice: the CPU when a cpu_* key
	// is set or the executable's vLLM is a CPU build).
	Device string `toml:"device"`
	// EnforceEager runs the model eagerly (--enforce-eager): no CUDA graphs
	// on a GPU, no torch.compile on the CPU; faster to start, slower to serve.
	EnforceEager bool `toml:"enforce_eager"`
	// KVCacheMemoryBytes is the KV cache's size per GPU (or CPU NUMA node)
	// in bytes (--kv-cache-memory-bytes); vLLM then ignores
	// gpu_memory_utilization for the cache. 0: vLLM's choice.
	KVCacheMemoryBytes int64 `toml:"kv_cache_memory_bytes"`
	// CPUKVCacheSpaceGiB is the CPU build's KV cache in GiB
	// (VLLM_CPU_KVCACHE_SPACE, which older CPU builds read instead of
	// --kv-cache-memory-bytes). 0: vLLM's choice.
	CPUKVCacheSpaceGiB int `toml:"cpu_kvcache_space_gib"`
	// CPUOMPThreadsBind is the CPU cores the CPU build's OpenMP threads
	// run on (VLLM_CPU_OMP_THREADS_BIND): "auto", "nobind", or core ids
	// ("0-31", "0-15,32-47"), one list per rank separated by "|".
	CPUOMPThreadsBind string `toml:"cpu_omp_threads_bind"`
	// CPUNumReservedCPUs is how many cores the CPU build keeps free of
	// OpenMP threads for its other processes (VLLM_CPU_NUM_OF_RESERVED_CPU);
	// nil: vLLM's choice (one per rank).
	CPUNumReservedCPUs *int `toml:"cpu_num_reserved_cpus"`

	// EnableExpertParallel spreads a mixture-of-experts model's experts over
	// the GPUs (--enable-expert-parallel) instead of splitting each one.
	EnableExpertParallel bool `toml:"enable_expert_parallel"`
	// GPUs are the indices (as nvidia-smi numbers them) of the GPUs of this
	// machine vLLM may use: CUDA_VISIBLE_DEVICES, or docker's --gpus
	// device=…; empty for all of them.
	GPUs []int `toml:"gpus"`

	// DistributedExecutorBackend is "ray" to run on an existing Ray cluster
	// (several nodes: vLLM starts on its head), "mp" for this machine only;
	// empty: vLLM's choice.
	DistributedExecutorBackend string `toml:"distributed_executor_backend"`
	// RayAddress is the Ray cluster to use ("10.0.0.1:6379"), given to vLLM
	// and `ray status` as RAY_ADDRESS; empty: RAY_ADDRESS of this
	// environment, else the cluster this node belongs to.
	RayAddress string `toml:"ray_address"`
	// RayExecutable is the ray program that checks the cluster before the
	// start; default: the ray beside an exec runner's vllm, else ray on PATH.
	RayExecutable string `toml:"ray_executable"`

	// GPUMetrics are DCGM exporter URLs (http://node2:9400/metrics) to read
	// the GPUs and their telemetry from instead of this machine's NVML:
	// every node of a multi-node server.
	GPUMetrics []string `toml:"gpu_metrics"`

	// StartupTimeout bounds the wait for readiness (default 20 min).
	StartupTimeout time.Duration `toml:"startup_timeout"`
	// StopGrace is how long Stop waits after SIGINT, and again after SIGTERM.
	StopGrace time.Duration `toml:"stop_grace"`
	// LogDir receives the server's log file, kept there. Without it the log
	// goes to the temporary folder, and is removed when a server that was
	// ready stops normally (a failed one's stays: its error names it).
	LogDir string `toml:"log_dir"`
}

// LoadConfig reads a ServerConfig from a TOML file with snake_case keys.
// Unknown keys are an error naming the key. The result has defaults applied
// and is validated.
func LoadConfig(path string) (ServerConfig, error) {
	text, err := os.ReadFile(path)
	if err != nil {
		return ServerConfig{}, fmt.Errorf("read server config %s: %w", path, err)
	}
	return DecodeConfig(path, string(text))
}

// DecodeConfig is LoadConfig of a server.toml's text; name says where it
// came from in errors (its path, or a sweep's configuration).
func DecodeConfig(path, text string) (ServerConfig, error) {
	var cfg ServerConfig
	md, err := toml.Decode(text, &cfg)
	if err != nil {
		return ServerConfig{}, fmt.Errorf("read server config %s: %w", path, err)
	}
	if keys := md.Undecoded(); len(keys) > 0 {
		return ServerConfig{}, fmt.Errorf("read server config %s: unknown key %q: remove it or fix its spelling (keys are snake_case, e.g. max_model_len)", path, keys[0].String())
	}
	cfg = cfg.WithDefaults()
	if err := cfg.Validate(); err != nil {
		return ServerConfig{}, fmt.Errorf("server config %s: %w", path, err)
	}
	return cfg, nil
}

// WithDefaults returns cfg with the engine, runner, executable or image, host, port,
// time-outs and HF cache filled in where they are empty.
func (cfg ServerConfig) WithDefaults() ServerConfig {
	if cfg.Server == "" {
		cfg.Server = servers.VLLM
	}
	if cfg.Runner == "" {
		cfg.Runner = RunnerExec
	}
	if cfg.Executable == "" {
		cfg.Executable = cfg.flavor().executable
	}
	if cfg.Runner == RunnerDocker && cfg.DockerImage == "" {
		cfg.DockerImage = cfg.flavor().image
		if cfg.Device == DeviceCPU && cfg.flavor() == &vllmFlavor {
			cfg.DockerImage = defaultCPUDockerImage
		}
	}
	if cfg.Runner == RunnerDocker && cfg.HFCache == "" {
		cfg.HFCache = hfcache.Home()
	}
	if cfg.Host == "" {
		cfg.Host = DefaultHost
	}
	if cfg.Port == 0 {
		cfg.Port = DefaultPort
	}
	if cfg.StartupTimeout == 0 {
		cfg.StartupTimeout = defaultStartupTimeout
	}
	if cfg.StopGrace == 0 {
		cfg.StopGrace = defaultStopGrace
	}
	return cfg
}

// Validate reports every setting that cannot work, each saying what to change.
func (cfg ServerConfig) Validate() error {
	var errs []error
	add := func(format string, a ...any) { errs = append(errs, fmt.Errorf(format, a...)) }
	if strings.TrimSpace(cfg.Model) == "" {
		add("model is empty: set model to a Hugging Face id (e.g. Qwen/Qwen3-0.6B) or a local path")
	}
	if strings.HasPrefix(cfg.Model, "-") {
		add("model %q starts with -, which the server would read as a flag: set a Hugging Face id, or write a local path as ./%s", secret.Args([]string{cfg.Model})[0], "NAME")
	}
	if err := serverProblem(cfg.Server); err != nil {
		errs = append(errs, err)
	} else {
		errs = append(errs, cfg.unsupportedProblems()...)
		errs = append(errs, cfg.flavor().problems(cfg)...)
	}
	switch cfg.Runner {
	case "", RunnerExec:
	case RunnerDocker:
		if cfg.DockerImage != "" && strings.ContainsAny(cfg.DockerImage, " \t") {
			add("docker_image %q contains spaces: use an image reference like vllm/vllm-openai:v0.11.0", cfg.DockerImage)
		}
	default:
		add("runner %q is unknown: use \"exec\" or \"docker\"", cfg.Runner)
	}
	if cfg.Port < 0 || cfg.Port > 65535 {
		add("port %d is out of range: use 1-65535", cfg.Port)
	}
	if cfg.Host != "" && net.ParseIP(cfg.Host) == nil && cfg.Host != "localhost" {
		add("host %q is not an IP address: use 127.0.0.1 (this machine only) or 0.0.0.0 (all interfaces)", cfg.Host)
	}
	if g := cfg.GPUMemoryUtilization; g != 0 && (g <= 0 || g > 1 || math.IsNaN(g)) {
		add("gpu_memory_utilization %g is out of range: use a fraction between 0 and 1, e.g. 0.9", g)
	}
	for _, f := range []struct {
		name string
		v    int
	}{
		{"tensor_parallel_size", cfg.TensorParallelSize}, {"pipeline_parallel_size", cfg.PipelineParallelSize},
		{"data_parallel_size", cfg.DataParallelSize},
		{"max_model_len", cfg.MaxModelLen}, {"max_num_seqs", cfg.MaxNumSeqs},
	} {
		if f.v < 0 {
			add("%s %d is negative: use a positive number or leave it out", f.name, f.v)
		}
	}
	if cfg.StartupTimeout < 0 || cfg.StopGrace < 0 {
		add("startup_timeout and stop_grace must not be negative")
	}
	errs = append(errs, cfg.gpuProblems()...)
	errs = append(errs, cfg.cpuProblems()...)
	switch cfg.DistributedExecutorBackend {
	case "", "ray", "mp":
	default:
		add("distributed_executor_backend %q is unknown: use \"ray\" (a Ray cluster) or \"mp\" (this machine)", cfg.DistributedExecutorBackend)
	}
	if cfg.usesRay() && cfg.Runner == RunnerDocker {
		add("distributed_executor_backend = \"ray\" runs vllm on the Ray head itself: use runner = \"exec\" there (inside the cluster's container when Ray runs in one)")
	}
	if cfg.RayAddress != "" && cfg.DistributedExecutorBackend != "ray" {
		add("ray_address is set but distributed_executor_backend is not \"ray\": set it to \"ray\" or drop ray_address")
	}
	for _, u := range cfg.GPUMetrics {
		if p, err := url.Parse(u); err != nil || (p.Scheme != "http" && p.Scheme != "https") || p.Host == "" {
			add("gpu_metrics %q is not an http(s) URL: use a DCGM exporter's, e.g. http://node2:9400/metrics", u)
		}
	}
	for k := range cfg.Env {
		if k == "" || strings.ContainsAny(k, "= \t\n") {
			add("env key %q is not a valid variable name", k)
		}
	}
	for _, a := range cfg.ExtraArgs {
		flag, _, _ := strings.Cut(a, "=")
		if secret.IsFlag(flag) {
			add("extra_args holds %s, which every user of this machine would see in ps: set %s instead", flag, secretKeyOf(flag))
		}
	}
	return errors.Join(errs...)
}

// secretKeyOf is the server.toml key that replaces a secret flag.
func secretKeyOf(flag string) string {
	if flag == "--api-key" {
		return "api_key (or api_key_file)"
	}
	return "hf_token"
}

// servedName is the name clients use for the model: ServedModelName, or
// Model when that is empty (as vLLM does).
func (cfg ServerConfig) servedName() string {
	if cfg.ServedModelName != "" {
		return cfg.ServedModelName
	}
	return cfg.Model
}

// baseURL is where clients reach the server: a wildcard host (0.0.0.0, ::)
// is reached on the loopback address.
func (cfg ServerConfig) baseURL() string {
	host := cfg.Host
	switch host {
	case "", "0.0.0.0":
		host = "127.0.0.1"
	case "::":
		host = "::1"
	}
	return "http://" + net.JoinHostPort(host, fmt.Sprint(cfg.Port))
}

// newAPIKey returns a fresh random API key from crypto/rand.
func newAPIKey() (string, error) {
	b := make([]byte, 24)
	if _, err := rand.Read(b); err != nil {
		return "", fmt.Errorf("generate api key: %w", err)
	}
	return "sm-" + hex.EncodeToString(b), nil
}

// OutputKeys are the server.toml keys that change what the model answers,
// not only how fast: a sweep labels a configuration that sets one, and a
// quality reference records them (OutputSettings).
var OutputKeys = []string{"model", "revision", "quantization", "dtype", "kv_cache_dtype"}

// OutputSettings is c's OutputKeys that are set, as written: what a quality
// reference records of the server it measured.
func (c ServerConfig) OutputSettings() map[string]string {
	m := map[string]string{}
	v, t := reflect.ValueOf(c), reflect.TypeOf(c)
	for i := range t.NumField() {
		key := strings.Split(t.Field(i).Tag.Get("toml"), ",")[0]
		if f := v.Field(i); f.Kind() == reflect.String && f.String() != "" && slices.Contains(OutputKeys, key) {
			m[key] = f.String()
		}
	}
	return m
}
