package launch

import (
	"fmt"
	"os"
	"path/filepath"
	"sort"
	"strconv"
	"strings"

	"speedmatrix/engine/secret"
)

// redacted replaces secrets (API keys, tokens) wherever a command is shown.
const redacted = secret.Redacted

// containerHFCache is where the vllm/vllm-openai image looks for the HF cache.
const containerHFCache = "/root/.cache/huggingface"

// apiKeyEnv is the variable vLLM reads its API key from. Launch passes the
// key there, not as --api-key, so that no process list shows it.
const apiKeyEnv = "VLLM_API_KEY"

// hfTokenEnv is the variable Hugging Face downloads read their token from.
const hfTokenEnv = "HF_TOKEN"

// serveArgs builds the serve arguments with the address vLLM itself binds
// and, when key is not empty, --api-key key (what Display shows).
func serveArgs(cfg ServerConfig, listenHost, key string) []string {
	a := flags{"serve", positional(cfg.Model)}
	str, num := a.str, a.num
	str("--served-model-name", cfg.ServedModelName)
	str("--revision", cfg.Revision)
	if cfg.TrustRemoteCode {
		a.add("--trust-remote-code")
	}
	num("--tensor-parallel-size", cfg.TensorParallelSize)
	num("--pipeline-parallel-size", cfg.PipelineParallelSize)
	num("--data-parallel-size", cfg.DataParallelSize)
	if cfg.EnableExpertParallel {
		a.add("--enable-expert-parallel")
	}
	str("--distributed-executor-backend", cfg.DistributedExecutorBackend)
	str("--reasoning-parser", cfg.ReasoningParser)
	if cfg.ToolCallParser != "" {
		a.add("--enable-auto-tool-choice", "--tool-call-parser", cfg.ToolCallParser)
	}
	num("--max-model-len", cfg.MaxModelLen)
	if cfg.GPUMemoryUtilization > 0 {
		a.add("--gpu-memory-utilization", fraction(cfg.GPUMemoryUtilization))
	}
	if cfg.KVCacheMemoryBytes > 0 {
		a.add("--kv-cache-memory-bytes", strconv.FormatInt(cfg.KVCacheMemoryBytes, 10))
	}
	num("--max-num-seqs", cfg.MaxNumSeqs)
	str("--quantization", cfg.Quantization)
	str("--dtype", cfg.DType)
	str("--kv-cache-dtype", cfg.KVCacheDType)
	if cfg.EnforceEager {
		a.add("--enforce-eager")
	}
	if p := cfg.EnablePrefixCaching; p != nil {
		if *p {
			a.add("--enable-prefix-caching")
		} else {
			a.add("--no-enable-prefix-caching")
		}
	}
	str("--attention-backend", cfg.AttentionBackend)
	str("--host", listenHost)
	if cfg.Port > 0 {
		a.add("--port", strconv.Itoa(cfg.Port))
	}
	str("--api-key", key)
	if cfg.AsyncScheduling {
		a.add("--async-scheduling")
	}
	return append(a, cfg.ExtraArgs...)
}

// flags is an argument list being built.
type flags []string

// add appends words.
func (a *flags) add(w ...string) { *a = append(*a, w...) }

// str appends flag v when v is set; a v that starts with "-" is joined to
// its flag (--revision=-x), so that the server never reads it as a flag of
// its own.
func (a *flags) str(flag, v string) {
	switch {
	case strings.HasPrefix(v, "-"):
		a.add(flag + "=" + v)
	case v != "":
		a.add(flag, v)
	}
}

// positional is v as a positional argument: one that starts with "-"
// would be read as a flag (a model "--api-key=K" puts a key on the command
// line), so it is written as the local path it can only be, ./-x.
// Validate refuses such a model first; this keeps the command safe
// whatever reaches it.
func positional(v string) string {
	if strings.HasPrefix(v, "-") {
		return "./" + v
	}
	return v
}

// num appends flag v when v is positive.
func (a *flags) num(flag string, v int) {
	if v > 0 {
		a.add(flag, strconv.Itoa(v))
	}
}

// fraction writes 0.85 as "0.85".
func fraction(v float64) string { return strconv.FormatFloat(v, 'f', -1, 64) }

// containerName is the docker container name used for cfg's server; it is
// derived from the engine and the port so that a leftover container is
// easy to find.
func containerName(cfg ServerConfig) string {
	return "speedmatrix-" + cfg.flavor().name + "-" + strconv.Itoa(cfg.Port)
}

// Command is the full argv that runs cfg's server (argv[0] is the program):
// the executable with Args, or `docker run ...` with the image. No secret
// is on it: the environment (see Environ) holds the API key, the HF token
// and every variable named like a secret, and docker is told only their
// names (`-e VLLM_API_KEY`), taking the values from its own environment.
// For SGLang, which takes its key only as --api-key, `-m
// sglang.launch_server` is `-c` and a short Python launcher that adds the
// key from SGLANG_API_KEY inside the interpreter (see sglangLauncher).
func Command(cfg ServerConfig) []string {
	return command(cfg, false)
}

// command is Command; shown, it is the command as Display shows it:
// --api-key among the arguments and secret variables written -e NAME=value
// (Display then redacts both).
func command(cfg ServerConfig, shown bool) []string {
	key := ""
	if shown {
		key = cfg.APIKey
	}
	fl := cfg.flavor()
	if cfg.Runner != RunnerDocker {
		exe := cfg.Executable
		if exe == "" {
			exe = fl.executable
		}
		return append(append([]string{exe}, fl.entry(!shown)...), fl.args(cfg, cfg.Host, key)...)
	}
	a := []string{"docker", "run", "--rm", "--name", containerName(cfg)}
	switch {
	case cfg.OnCPU():
		// vLLM's CPU docs: binding threads to cores and NUMA memory
		// policies need these.
		a = append(a, "--cap-add", "SYS_NICE", "--security-opt", "seccomp=unconfined")
	case len(cfg.GPUs) > 0:
		a = append(a, "--gpus", `"device=`+cfg.visibleDevices()+`"`) // quoted: docker reads the value as CSV
	default:
		a = append(a, "--gpus", "all")
	}
	a = append(a, "--ipc=host", "-p", fmt.Sprintf("%s:%d:%d", bracketIPv6(cfg.Host), cfg.Port, cfg.Port))
	if cfg.HFCache != "" {
		a = append(a, "-v", cfg.HFCache+":"+containerHFCache)
	}
	env := serverEnv(cfg)
	if _, ok := env[hfTokenEnv]; !ok {
		// Passes our HF_TOKEN, if set, without writing it on the command line.
		a = append(a, "-e", hfTokenEnv)
	}
	for _, k := range sortedKeys(env) {
		switch {
		case k == fl.keyEnv && shown:
			// Display shows the key as --api-key, as the reference reports do.
		case secret.IsName(k) && !shown:
			a = append(a, "-e", k)
		default:
			a = append(a, "-e", k+"="+env[k])
		}
	}
	a = append(a, cfg.DockerImage)
	// Inside the container the server must listen on all interfaces for
	// the port mapping to reach it.
	return append(a, fl.inImage(!shown, fl.args(cfg, "0.0.0.0", key))...)
}

// serverEnv is the variables cfg adds to the server's environment: its Env,
// HF_TOKEN from HFToken, the engine's key variable (VLLM_API_KEY,
// SGLANG_API_KEY) from APIKey, CUDA_VISIBLE_DEVICES
// from GPUs, RAY_ADDRESS from RayAddress, and the CPU build's variables
// (VLLM_CPU_KVCACHE_SPACE, VLLM_CPU_OMP_THREADS_BIND,
// VLLM_CPU_NUM_OF_RESERVED_CPU, VLLM_TARGET_DEVICE; those win).
func serverEnv(cfg ServerConfig) map[string]string {
	env := make(map[string]string, len(cfg.Env)+2)
	for k, v := range cfg.Env {
		env[k] = v
	}
	if cfg.HFToken != "" {
		env[hfTokenEnv] = cfg.HFToken
	}
	if cfg.APIKey != "" {
		env[cfg.flavor().keyEnv] = cfg.APIKey
	}
	if len(cfg.GPUs) > 0 && cfg.Runner != RunnerDocker {
		env[cudaVisibleDevices] = cfg.visibleDevices() // docker: --gpus device=…, renumbered from 0 inside
	}
	if cfg.RayAddress != "" {
		env[rayAddressEnv] = cfg.RayAddress
	}
	cfg.addCPUEnv(env)
	return env
}

// environ is the environment of cfg's process (the engine, or the docker client):
// base plus cfg's variables (see serverEnv), which win.
func environ(cfg ServerConfig, base []string) []string {
	add := serverEnv(cfg)
	env := make([]string, 0, len(base)+len(add))
	for _, kv := range base {
		k, _, _ := strings.Cut(kv, "=")
		if _, override := add[k]; !override {
			env = append(env, kv)
		}
	}
	for _, k := range sortedKeys(add) {
		env = append(env, k+"="+add[k])
	}
	return env
}

// secretsOf are the values Launch keeps out of sight for cfg: the API key,
// the HF token and every variable of the server's environment env named
// like a secret.
func secretsOf(cfg ServerConfig, env []string) []string {
	return append([]string{cfg.APIKey, cfg.HFToken}, secret.EnvValues(env)...)
}

// Display is the shell-quoted command line of cfg as the report's "Launch
// command" shows it: `env A=B ...` first for an exec runner's variables, a
// path under the home directory written "$HOME/...", and every secret (the
// API key as `--api-key <redacted>`, --api-key in extra args, variables
// named like *KEY* or *TOKEN*, the HF token) shown as <redacted>.
func Display(cfg ServerConfig) string {
	home, _ := os.UserHomeDir()
	return displayWith(cfg, home)
}

// displayWith is Display with the home directory given (pure, for tests).
func displayWith(cfg ServerConfig, home string) string {
	if cfg.Runner != RunnerDocker {
		env := serverEnv(cfg)
		delete(env, cfg.flavor().keyEnv) // shown as --api-key
		return CommandLine(env, command(cfg, true), home)
	}
	var words []string
	argv := secret.Args(command(cfg, true))
	for i, w := range argv {
		if i > 0 && argv[i-1] == "-e" {
			if k, v, ok := strings.Cut(w, "="); ok {
				words = append(words, envWord(k, v, home))
				continue
			}
		}
		words = append(words, argWord(w, home))
	}
	return strings.Join(words, " ")
}

// CommandLine is the shell line that runs argv with the variables of env:
// `env K=V ... ARGV` (just ARGV when env is empty), quoted for a POSIX
// shell only where needed, a path under home written "$HOME/...", and
// every secret (a secret flag's value, a variable named like *KEY* or
// *TOKEN*) shown as <redacted>. The report's Launch command is written so,
// for a server launched here (Display) and for one read from its process.
func CommandLine(env map[string]string, argv []string, home string) string {
	var words []string
	if len(env) > 0 {
		words = append(words, "env")
		for _, k := range sortedKeys(env) {
			words = append(words, envWord(k, env[k], home))
		}
	}
	for _, w := range secret.Args(argv) {
		words = append(words, argWord(w, home))
	}
	return strings.Join(words, " ")
}

// argWord is an argument for a shell; a redacted secret stays as it is.
func argWord(w, home string) string {
	if w == redacted || strings.HasSuffix(w, "="+redacted) {
		return w
	}
	return shellWord(w, home)
}

// envWord is K=V for a shell, with a secret's value redacted.
func envWord(k, v, home string) string {
	if secret.IsName(k) && v != "" {
		return shellWord(k, home) + "=" + redacted
	}
	return shellWord(k, home) + "=" + shellWord(v, home)
}

// shellWord quotes w for a POSIX shell only where needed; a path under home
// becomes "$HOME/...".
func shellWord(w, home string) string {
	if w == "" {
		return "''"
	}
	if home != "" && home != "/" {
		prefix := filepath.Clean(home) + "/"
		if rest, ok := strings.CutPrefix(w, prefix); ok && !strings.ContainsAny(rest, "\"$`\\!") {
			return `"$HOME/` + rest + `"`
		}
	}
	if isPlain(w) {
		return w
	}
	return "'" + strings.ReplaceAll(w, "'", `'\''`) + "'"
}

// isPlain reports whether w needs no quoting in a POSIX shell.
func isPlain(w string) bool {
	for _, r := range w {
		switch {
		case r >= 'a' && r <= 'z', r >= 'A' && r <= 'Z', r >= '0' && r <= '9':
		case strings.ContainsRune("-_./:=,+@%", r):
		default:
			return false
		}
	}
	return true
}

func bracketIPv6(host string) string {
	if strings.Contains(host, ":") {
		return "[" + host + "]"
	}
	return host
}

func sortedKeys(m map[string]string) []string {
	keys := make([]string, 0, len(m))
	for k := range m {
		keys = append(keys, k)
	}
	sort.Strings(keys)
	return keys
}
