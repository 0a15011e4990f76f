//go:build linux

package launch

import (
	"context"
	"encoding/json"
	"errors"
	"os"
	"os/exec"
	"path/filepath"
	"slices"
	"speedmatrix/engine/servers"
	"strings"
	"testing"
)

// asSGLang makes cfg (from fakeConfig) launch the fake as SGLang: engine
// sglang, and the fake as the venv's bin/python3.
func asSGLang(t *testing.T, cfg ServerConfig) ServerConfig {
	t.Helper()
	python := filepath.Join(filepath.Dir(fakeVLLM(t)), "python3")
	if err := os.Symlink(fakeVLLM(t), python); err != nil && !errors.Is(err, os.ErrExist) {
		t.Fatal(err)
	}
	cfg.Server, cfg.Executable = servers.SGLang, python
	return cfg
}

// TestSGLangStart: a launched SGLang is ready on its ready line, takes the
// key from the launcher, and its Engine section says sglang, with the
// version of /get_server_info and the KV cache of max_total_num_tokens=.
func TestSGLangStart(t *testing.T) {
	cfg := asSGLang(t, fakeConfig(t, "", "FAKEVLLM_CHILD=1"))
	cfg.MaxNumSeqs = 64
	s, err := launch(t, context.Background(), cfg)
	if err != nil {
		t.Fatal(err)
	}
	f := s.Facts()
	if !f.Started || f.KVCacheTokens == 0 {
		t.Fatalf("facts %+v: no ready line or KV cache; log:\n%s", f, strings.Join(s.Logs(), "\n"))
	}
	info := s.Subject().Header.Server
	if info.Name != "sglang" || info.Version != "0.5.6.post2" || info.Repository != "github.com/sgl-project/sglang" ||
		info.KVCacheTokens != f.KVCacheTokens || info.MaxNumSeqs != 64 || info.Quantization != "BF16" {
		t.Errorf("Engine section = %+v", info)
	}
	checkKeyRequired(t, s, s.config().APIKey)
	if !strings.Contains(s.Display(), "python3 -m sglang.launch_server --model-path fake/model") || !strings.Contains(s.Display(), "--api-key "+redacted) {
		t.Errorf("Display = %s", s.Display())
	}
	if !strings.HasPrefix(filepath.Base(s.LogPath()), "sglang-") {
		t.Errorf("log file %s is not named for SGLang", s.LogPath())
	}
}

// TestSGLangBadStart: a Python without sglang, and a CUDA out-of-memory
// error at start, each end the launch with one line saying what to change.
func TestSGLangBadStart(t *testing.T) {
	for mode, want := range map[string]FatalKind{"nomodule": FatalNotInstalled, "oom": FatalOutOfMemory} {
		t.Run(mode, func(t *testing.T) {
			cfg := asSGLang(t, fakeConfig(t, mode))
			_, err := launch(t, context.Background(), cfg)
			var fatal Fatal
			if !errors.As(err, &fatal) || fatal.Kind != want {
				t.Fatalf("err = %v, want a %s", err, want)
			}
			first, _, _ := strings.Cut(err.Error(), "\n")
			if !strings.HasPrefix(first, "SGLang server exited") || strings.Contains(first, "vLLM") {
				t.Errorf("first line: %s", first)
			}
			t.Logf("%s", first)
		})
	}
}

// TestSGLangLauncherInPython runs the launcher with a real python3 and a
// stand-in sglang package: SGLang's argument parser sees --api-key, the
// process's command line does not, and SGLang's processes do not inherit
// SGLANG_API_KEY. Without any sglang, the launch fails as not installed.
func TestSGLangLauncherInPython(t *testing.T) {
	python, err := exec.LookPath("python3")
	if err != nil {
		t.Skip("no python3 on the PATH")
	}
	pkg := filepath.Join(t.TempDir(), "sglang")
	if err := os.MkdirAll(pkg, 0o755); err != nil {
		t.Fatal(err)
	}
	const standIn = `import json, os, sys
if __name__ == "__main__":
    print(json.dumps({"argv": sys.argv[1:], "cmdline": open("/proc/self/cmdline").read().split("\0"),
                      "env": os.environ.get("SGLANG_API_KEY")}))
`
	for name, text := range map[string]string{"__init__.py": "", "launch_server.py": standIn} {
		if err := os.WriteFile(filepath.Join(pkg, name), []byte(text), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	cfg := ServerConfig{Server: servers.SGLang, Executable: python, Model: "m", Port: 30000, APIKey: "sm-key-in-memory-only"}.WithDefaults()
	argv := Command(cfg)
	cmd := exec.Command(argv[0], argv[1:]...)
	cmd.Env = environ(cfg, append(os.Environ(), "PYTHONPATH="+filepath.Dir(pkg)))
	out, err := cmd.CombinedOutput()
	if err != nil {
		t.Fatalf("%v: %s", err, out)
	}
	var seen struct {
		Argv, Cmdline []string
		Env           *string
	}
	if err := json.Unmarshal(out, &seen); err != nil {
		t.Fatalf("%v: %s", err, out)
	}
	if !slices.Equal(seen.Argv[len(seen.Argv)-2:], []string{"--api-key", cfg.APIKey}) || !slices.Contains(seen.Argv, "--enable-metrics") {
		t.Errorf("SGLang's sys.argv = %q, want the flags and --api-key last", seen.Argv)
	}
	if slices.Contains(seen.Cmdline, cfg.APIKey) || seen.Env != nil {
		t.Errorf("the key is in /proc/self/cmdline %q or the environment %v", seen.Cmdline, seen.Env)
	}

	cfg.Port, cfg.LogDir = freePort(t), t.TempDir()
	_, err = launch(t, context.Background(), cfg)
	var fatal Fatal
	if !errors.As(err, &fatal) || fatal.Kind != FatalNotInstalled {
		t.Fatalf("python3 without sglang: %v", err)
	}
	t.Logf("%s", strings.SplitN(err.Error(), "\n", 2)[0])
}
