package launch

import (
	"context"
	"errors"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// TestLaunchRefusesBadSetups: each setting that cannot work is refused
// before anything runs (not vLLM: once it exited), with one line saying
// what to change.
func TestLaunchRefusesBadSetups(t *testing.T) {
	dir := t.TempDir()
	venv := filepath.Join(dir, "venv")
	writeFile(t, filepath.Join(venv, "pyvenv.cfg"), "home = /usr/bin\n")
	venvWithVLLM := filepath.Join(dir, "good-venv")
	writeFile(t, filepath.Join(venvWithVLLM, "pyvenv.cfg"), "home = /usr/bin\n")
	writeFile(t, filepath.Join(venvWithVLLM, "bin", "vllm"), "#!/bin/sh\n")
	notExecutable := writeFile(t, filepath.Join(dir, "plain", "vllm"), "not a program\n")
	notVLLM := writeFile(t, filepath.Join(dir, "other", "tool"), "#!/bin/sh\necho \"usage: tool [FILE]\"\nexit 2\n")
	if err := os.Chmod(notVLLM, 0o755); err != nil {
		t.Fatal(err)
	}
	keyDir := filepath.Join(dir, "keys")
	emptyKey := writeFile(t, filepath.Join(keyDir, "empty"), "\n")

	tests := []struct {
		name string
		edit func(*ServerConfig)
		kind SetupKind
		want string
	}{
		{"not on the PATH", func(c *ServerConfig) { c.Executable = "no-such-vllm-here" }, SetupNoExecutable, "is not on the PATH: install vLLM (pip install vllm)"},
		{"missing file", func(c *ServerConfig) { c.Executable = filepath.Join(dir, "nope", "vllm") }, SetupNoExecutable, "does not exist: set executable to the bin/vllm"},
		{"venv without vllm", func(c *ServerConfig) { c.Executable = filepath.Join(venv, "bin", "vllm") }, SetupVenvNoVLLM,
			"the venv " + venv + " has no vllm (" + filepath.Join(venv, "bin", "vllm") + " does not exist): install vLLM in it (" + filepath.Join(venv, "bin", "pip") + " install vllm)"},
		{"venv folder without vllm", func(c *ServerConfig) { c.Executable = venv }, SetupVenvNoVLLM, "has no vllm"},
		{"venv folder given", func(c *ServerConfig) { c.Executable = venvWithVLLM }, SetupNoExecutable,
			"is a venv, not a program: set executable to " + filepath.Join(venvWithVLLM, "bin", "vllm")},
		{"not executable", func(c *ServerConfig) { c.Executable = notExecutable }, SetupNoExecutable, "is not executable: make it executable (chmod +x"},
		{"not vLLM", func(c *ServerConfig) { c.Executable = notVLLM }, SetupNotVLLM, "is not vLLM (it exited before it was ready and printed nothing vLLM prints)"},
		{"key file missing", func(c *ServerConfig) { c.APIKeyFile = filepath.Join(keyDir, "missing") }, SetupKeyFile,
			"cannot read api_key_file " + filepath.Join(keyDir, "missing") + " (no such file or directory): make it a file you can read"},
		{"key file a folder", func(c *ServerConfig) { c.APIKeyFile = keyDir }, SetupKeyFile, "(is a directory)"},
		{"key file empty", func(c *ServerConfig) { c.APIKeyFile = emptyKey }, SetupKeyFile, "is empty: write the key on its first line"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			cfg := fakeConfig(t, "")
			tt.edit(&cfg)
			_, err := launch(t, context.Background(), cfg)
			var se *SetupError
			if !errors.As(err, &se) || se.Kind != tt.kind || !strings.Contains(err.Error(), tt.want) {
				t.Fatalf("Launch = %v\nwant a %s error containing %q", err, tt.kind, tt.want)
			}
			if strings.Contains(err.Error(), "\n") {
				t.Errorf("the error is not one line: %q", err)
			}
		})
	}
}

func TestLaunchRefusesBadDocker(t *testing.T) {
	tests := []struct {
		mode string
		kind SetupKind
		want string
	}{
		{"down", SetupDockerDown, "Docker is not running or does not answer (docker info: Cannot connect to the Docker daemon at unix:///var/run/docker.sock. Is the docker daemon running?): start it (sudo systemctl start docker), or use runner = \"exec\""},
		{"noimage", SetupNoImage, "the image fake/img:1 is not on this machine (Error response from daemon: No such image: fake/img:1): pull it first: docker pull fake/img:1 (or set docker_image to an image you have)"},
	}
	for _, tt := range tests {
		t.Run(tt.mode, func(t *testing.T) {
			log := fakeDockerOnPath(t, tt.mode)
			cfg := fakeConfig(t, "")
			cfg.Runner, cfg.DockerImage = RunnerDocker, "fake/img:1"
			_, err := Launch(context.Background(), cfg)
			var se *SetupError
			if !errors.As(err, &se) || se.Kind != tt.kind || err.Error() != "start vllm: "+tt.want {
				t.Fatalf("Launch = %v\nwant start vllm: %s", err, tt.want)
			}
			if b, _ := os.ReadFile(log); strings.Contains(string(b), "docker run") {
				t.Errorf("docker run was called:\n%s", b)
			}
		})
	}
	t.Run("not installed", func(t *testing.T) {
		t.Setenv("PATH", t.TempDir())
		err := checkDocker(context.Background(), "img")
		var se *SetupError
		if !errors.As(err, &se) || se.Kind != SetupNoDocker || !strings.Contains(err.Error(), "docker is not installed (not on the PATH): install Docker") {
			t.Errorf("checkDocker = %v", err)
		}
	})
}

// TestLaunchReadsKeyFile: the key of api_key_file is the one vLLM requires.
func TestLaunchReadsKeyFile(t *testing.T) {
	cfg := fakeConfig(t, "")
	cfg.APIKeyFile = writeFile(t, filepath.Join(t.TempDir(), "key"), "sm-from-the-file\nignored\n")
	s, err := launch(t, context.Background(), cfg)
	if err != nil {
		t.Fatal(err)
	}
	if s.config().APIKey != "sm-from-the-file" || s.Subject().APIKey != "sm-from-the-file" {
		t.Errorf("key = %q", s.config().APIKey)
	}
}
