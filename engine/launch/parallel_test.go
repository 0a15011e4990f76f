package launch

import (
	"path/filepath"
	"slices"
	"strings"
	"testing"

	"speedmatrix/engine"
)

func TestParallelArgs(t *testing.T) {
	tests := []struct {
		name string
		cfg  ServerConfig
		want string
	}{
		{"data and expert parallel", ServerConfig{Model: "deepseek-ai/DeepSeek-V2-Lite", TensorParallelSize: 2, DataParallelSize: 2, EnableExpertParallel: true},
			"serve deepseek-ai/DeepSeek-V2-Lite --tensor-parallel-size 2 --data-parallel-size 2 --enable-expert-parallel"},
		// vLLM's docs ("Running vLLM on a Ray cluster"): vllm serve MODEL --tensor-parallel-size N --distributed-executor-backend ray, on the head.
		{"TP 4 over Ray", ServerConfig{Model: "meta-llama/Llama-3.1-70B-Instruct", TensorParallelSize: 4, DistributedExecutorBackend: "ray"},
			"serve meta-llama/Llama-3.1-70B-Instruct --tensor-parallel-size 4 --distributed-executor-backend ray"},
		{"TP 8 × PP 2 over Ray", ServerConfig{Model: "m", TensorParallelSize: 8, PipelineParallelSize: 2, DistributedExecutorBackend: "ray"},
			"serve m --tensor-parallel-size 8 --pipeline-parallel-size 2 --distributed-executor-backend ray"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			if got := strings.Join(Args(tt.cfg), " "); got != tt.want {
				t.Errorf("Args =\n%s\nwant\n%s", got, tt.want)
			}
		})
	}
}

func TestGPUsPickTheDevices(t *testing.T) {
	cfg := ServerConfig{Model: "m", TensorParallelSize: 2, GPUs: []int{2, 3}, RayAddress: "10.0.0.1:6379", DistributedExecutorBackend: "ray"}
	env := environ(cfg, []string{"PATH=/bin", "CUDA_VISIBLE_DEVICES=0"})
	if !slices.Contains(env, "CUDA_VISIBLE_DEVICES=2,3") || slices.Contains(env, "CUDA_VISIBLE_DEVICES=0") || !slices.Contains(env, "RAY_ADDRESS=10.0.0.1:6379") {
		t.Errorf("Environ = %q: want CUDA_VISIBLE_DEVICES=2,3 (replacing ours) and RAY_ADDRESS", env)
	}
	if got := displayWith(cfg, "/home/ann"); !strings.HasPrefix(got, "env CUDA_VISIBLE_DEVICES=2,3 RAY_ADDRESS=10.0.0.1:6379 vllm serve m") {
		t.Errorf("Display = %s", got)
	}
	cfg.Runner, cfg.DockerImage = RunnerDocker, "vllm/vllm-openai:v0.32.0"
	cmd := strings.Join(Command(cfg), " ")
	if !strings.Contains(cmd, ` --gpus "device=2,3" `) || strings.Contains(cmd, "CUDA_VISIBLE_DEVICES") {
		t.Errorf("docker Command = %s: want --gpus \"device=2,3\" and no CUDA_VISIBLE_DEVICES (the container numbers its GPUs from 0)", cmd)
	}
}

func TestParallelConfigProblems(t *testing.T) {
	tests := []struct{ name, text, want string }{
		{"too few GPUs", "model = \"m\"\ntensor_parallel_size = 2\npipeline_parallel_size = 2\ngpus = [0, 1]\n", "needs 4 GPUs but gpus lists 2"},
		{"GPU twice", "model = \"m\"\ngpus = [0, 0]\n", "listed twice"},
		{"negative GPU", "model = \"m\"\ngpus = [-1]\n", "is negative"},
		{"two ways to pick GPUs", "model = \"m\"\ngpus = [0]\n[env]\nCUDA_VISIBLE_DEVICES = \"1\"\n", "keep one"},
		{"negative data parallel", "model = \"m\"\ndata_parallel_size = -2\n", "data_parallel_size -2 is negative"},
		{"unknown backend", "model = \"m\"\ndistributed_executor_backend = \"slurm\"\n", `distributed_executor_backend "slurm" is unknown`},
		{"Ray in docker", "model = \"m\"\nrunner = \"docker\"\ndistributed_executor_backend = \"ray\"\n", `use runner = "exec" there`},
		{"ray address without ray", "model = \"m\"\nray_address = \"10.0.0.1:6379\"\n", "set it to \"ray\""},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			_, err := LoadConfig(writeFile(t, filepath.Join(t.TempDir(), "server.toml"), tt.text))
			if err == nil || !strings.Contains(err.Error(), tt.want) {
				t.Errorf("err = %v, want it to contain %q", err, tt.want)
			}
		})
	}
	ok := "model = \"m\"\ntensor_parallel_size = 4\ndistributed_executor_backend = \"ray\"\ngpus = [0, 1]\n"
	if _, err := LoadConfig(writeFile(t, filepath.Join(t.TempDir(), "server.toml"), ok)); err != nil {
		t.Errorf("TP 4 over Ray with 2 GPUs here: %v (the cluster has the others)", err)
	}
}

func TestMixedGPUs(t *testing.T) {
	gpus := []engine.GPUInfo{{Index: 0, Name: "NVIDIA GeForce RTX 4090", VRAMBytes: 24 << 30},
		{Index: 1, Name: "NVIDIA GeForce RTX 3090", VRAMBytes: 24 << 30}, {Index: 2, Name: "NVIDIA GeForce RTX 3090", VRAMBytes: 24 << 30}}
	tests := []struct {
		name string
		cfg  ServerConfig
		want string
	}{
		{"one GPU", ServerConfig{}, ""},
		{"TP 2 over the first two", ServerConfig{TensorParallelSize: 2},
			"GPU 0 (NVIDIA GeForce RTX 4090, 24 GiB) and GPU 1 (NVIDIA GeForce RTX 3090, 24 GiB) differ: the parallel group runs at the pace of the slower and fits the smaller"},
		{"TP 2 over the two 3090s", ServerConfig{TensorParallelSize: 2, GPUs: []int{1, 2}}, ""},
		{"PP 2 with a 4090 picked", ServerConfig{PipelineParallelSize: 2, GPUs: []int{2, 0}}, "GPU 2 (NVIDIA GeForce RTX 3090, 24 GiB) and GPU 0"},
		{"Ray: other nodes' GPUs unknown here", ServerConfig{TensorParallelSize: 2, DistributedExecutorBackend: "ray"}, ""},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			if got := MixedGPUs(tt.cfg, gpus); (tt.want == "") != (got == "") || !strings.HasPrefix(got, tt.want) {
				t.Errorf("MixedGPUs = %q, want %q", got, tt.want)
			}
		})
	}
}

// TestServingGPUs: the GPUs J/token sums come from gpus, else from
// CUDA_VISIBLE_DEVICES; none (every GPU) when unset, named by UUID, or on Ray.
func TestServingGPUs(t *testing.T) {
	keys := func(ids ...int) []engine.GPUKey {
		var out []engine.GPUKey
		for _, i := range ids {
			out = append(out, engine.GPUKey{Index: i})
		}
		return out
	}
	for _, tc := range []struct {
		name string
		cfg  ServerConfig
		want []engine.GPUKey
	}{
		{"unset", ServerConfig{}, nil},
		{"gpus", ServerConfig{GPUs: []int{2, 3}}, keys(2, 3)},
		{"env", ServerConfig{Env: map[string]string{"CUDA_VISIBLE_DEVICES": "1, 0"}}, keys(1, 0)},
		{"uuids", ServerConfig{Env: map[string]string{"CUDA_VISIBLE_DEVICES": "GPU-8f3a"}}, nil},
		{"ray", ServerConfig{GPUs: []int{0, 1}, DistributedExecutorBackend: "ray"}, nil},
	} {
		t.Run(tc.name, func(t *testing.T) {
			if got := tc.cfg.servingGPUs(); !slices.Equal(got, tc.want) {
				t.Errorf("ServingGPUs() = %v, want %v", got, tc.want)
			}
		})
	}
}
