package capture

import (
	"os"
	"path/filepath"
	"testing"
)

func TestContainerID(t *testing.T) {
	tests := []struct{ name, cgroup, want string }{
		{"systemd, cgroup v2", "0::/system.slice/docker-" + containerFullID + ".scope\n", containerFullID},
		{"cgroupfs, cgroup v1", "12:pids:/docker/" + containerFullID + "\n11:cpu:/docker/" + containerFullID + "\n", containerFullID},
		{"rootless", "0::/user.slice/user-1000.slice/user@1000.service/app.slice/docker-" + containerFullID + ".scope\n", containerFullID},
		{"a user session", "0::/user.slice/user-1000.slice/session-3.scope\n", ""},
		{"short hex is not an id", "0::/docker/3f2a1b9c\n", ""},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			if got := containerID(tt.cgroup); got != tt.want {
				t.Errorf("containerID = %q, want %q", got, tt.want)
			}
		})
	}
}

func TestImageVersion(t *testing.T) {
	tests := []struct{ image, want string }{
		{"vllm/vllm-openai:v0.32.0", "0.32.0"},
		{"vllm/vllm-openai:v0.32.0-x86_64", "0.32.0"},
		{"docker.io/vllm/vllm-openai:0.30.1rc1", "0.30.1rc1"},
		{"localhost:5000/vllm-openai:v0.9", "0.9"},
		{"vllm/vllm-openai:latest", ""},
		{"vllm/vllm-openai", ""},
		{"nvidia/cuda:12.8.1-base", ""}, // not a vLLM image
		{"vllm/vllm-openai:v0.32.0@sha256:abc", "0.32.0"},
	}
	for _, tt := range tests {
		if got := imageVersion(tt.image); got != tt.want {
			t.Errorf("imageVersion(%q) = %q, want %q", tt.image, got, tt.want)
		}
	}
}

func TestVenvVersion(t *testing.T) {
	venv := t.TempDir()
	for _, dir := range []string{"bin", "lib/python3.12/site-packages/vllm-0.30.1rc1.dev452+g73a583112.dist-info", "lib/python3.12/site-packages/vllm_flash_attn-2.7.dist-info"} {
		if err := os.MkdirAll(filepath.Join(venv, dir), 0o755); err != nil {
			t.Fatal(err)
		}
	}
	exe, py := filepath.Join(venv, "bin", "vllm"), filepath.Join(venv, "bin", "python3")
	tests := []struct {
		name string
		argv []string
		want string
	}{
		{"the venv's vllm", []string{exe, "serve", "m"}, "0.30.1rc1.dev452+g73a583112"},
		{"python running the venv's script", []string{"/usr/bin/python3.12", exe, "serve", "m"}, "0.30.1rc1.dev452+g73a583112"},
		{"the venv's python", []string{py, "-m", "vllm.entrypoints.openai.api_server"}, "0.30.1rc1.dev452+g73a583112"},
		{"on the PATH", []string{"vllm", "serve", "m"}, ""},
		{"a venv without vllm", []string{filepath.Join(t.TempDir(), "bin", "vllm"), "serve"}, ""},
		{"empty", nil, ""},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			if got := venvVersion(tt.argv); got != tt.want {
				t.Errorf("venvVersion = %q, want %q", got, tt.want)
			}
		})
	}
}
