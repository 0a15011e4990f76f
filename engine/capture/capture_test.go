package capture

import (
	"encoding/json"
	"io/fs"
	"net"
	"strings"
	"testing"
	"time"

	"speedmatrix/engine"
)

const containerFullID = "3f2a1b9c0d1e5f6a7b8c9d0e1f2a3b4c5d6e7f8a9b0c1d2e3f4a5b6c7d8e9f0a"

// secrets are the values that must never come out of Read.
var secrets = []string{"sm-argv-key-0123", "hf_argvToken0123", "sm-env-key-0123", "hf_envToken0123", "pa55word", "sm-container-key-0123", "hf_containerSecret0123"}

func vllmProc(pid, uid int) proc {
	return proc{PID: pid, PPID: 1, UID: uid, User: "alice", Name: "vllm",
		Argv: []string{"/home/alice/venv/bin/vllm", "serve", "fake/model", "--api-key", "sm-argv-key-0123",
			"--hf-token=hf_argvToken0123", "--port", "8000", "--download-dir", "s3://bob:pa55word@bucket/x"},
		Environ: []string{"HOME=/home/alice", "VLLM_API_KEY=sm-env-key-0123", "HF_TOKEN=hf_envToken0123",
			"CUDA_VISIBLE_DEVICES=0,1", "NCCL_P2P_DISABLE=1", "TORCH_CUDA_ARCH_LIST=9.0", "PATH=/usr/bin", "OTHER=x"},
		StartedAt: time.Date(2026, 12, 1, 14, 0, 0, 0, time.UTC)}
}

// onPort8000 is a machine where pid 4242 (uid 1000) listens on 127.0.0.1:8000.
func onPort8000(p proc) *fakeHost {
	return &fakeHost{me: 1000,
		ls:    []listener{{IP: net.IPv4(127, 0, 0, 1), Port: 8000, UID: p.UID, Inode: "777"}},
		holds: map[string][]int{"777": {p.PID}},
		procs: map[int]proc{p.PID: p},
	}
}

func TestReadProcess(t *testing.T) {
	h := onPort8000(vllmProc(4242, 1000))
	p := read(t.Context(), h, "http://127.0.0.1:8000")
	if p.NotCaptured != "" || p.PID != 4242 || p.User != "alice" || p.From != "/proc/4242" {
		t.Fatalf("got %+v", p)
	}
	want := []string{"/home/alice/venv/bin/vllm", "serve", "fake/model", "--api-key", "<redacted>",
		"--hf-token=<redacted>", "--port", "8000", "--download-dir", "s3://bob:<redacted>@bucket/x"}
	if strings.Join(p.Command, " ") != strings.Join(want, " ") {
		t.Errorf("command %q, want %q", p.Command, want)
	}
	wantEnv := map[string]string{"VLLM_API_KEY": "<redacted>", "HF_TOKEN": "<redacted>",
		"CUDA_VISIBLE_DEVICES": "0,1", "NCCL_P2P_DISABLE": "1", "TORCH_CUDA_ARCH_LIST": "9.0"}
	if len(p.Env) != len(wantEnv) {
		t.Errorf("env %v, want %v", p.Env, wantEnv)
	}
	for k, v := range wantEnv {
		if p.Env[k] != v {
			t.Errorf("env %s = %q, want %q", k, p.Env[k], v)
		}
	}
	if !p.StartedAt.Equal(vllmProc(0, 0).StartedAt) {
		t.Errorf("started %v", p.StartedAt)
	}
	noSecrets(t, p)
}

func TestReadTopProcess(t *testing.T) {
	parent, child := vllmProc(500, 1000), vllmProc(501, 1000)
	child.PPID, child.Argv = 500, []string{"python3", "-c", "from multiprocessing.spawn import spawn_main"}
	h := onPort8000(parent)
	h.holds["777"] = []int{501, 500}
	h.procs[501] = child
	if p := read(t.Context(), h, "http://localhost:8000/v1"); p.PID != 500 {
		t.Errorf("picked pid %d, want the parent 500 of the processes sharing the socket", p.PID)
	}
}

// TestReadNotCaptured: each case where the command can't be read says why.
func TestReadNotCaptured(t *testing.T) {
	noPerm := vllmProc(4242, 1000)
	noPerm.ArgvErr = &fs.PathError{Op: "open", Path: "/proc/4242/cmdline", Err: fs.ErrPermission}
	other := onPort8000(vllmProc(4242, 1001))
	other.holds = nil // its file descriptors can't be read
	tests := []struct {
		name, url string
		h         *fakeHost
		want      string
	}{
		{"remote", "http://192.0.2.7:8000", onPort8000(vllmProc(1, 1000)), "the server is not on this machine (192.0.2.7:8000)"},
		{"another user", "http://127.0.0.1:8000", other, "the server runs as another user (uid 1001)"},
		{"no permission", "http://127.0.0.1:8000", onPort8000(noPerm), "no permission to read /proc/4242/cmdline (the server runs as uid 1000)"},
		{"nothing listens", "http://127.0.0.1:9999", onPort8000(vllmProc(1, 1000)), "nothing on this machine listens on port 9999"},
		{"not a URL", "127.0.0.1:8000", onPort8000(vllmProc(1, 1000)), "is not a URL"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			tt.h.noDock = true
			p := read(t.Context(), tt.h, tt.url)
			if len(p.Command) > 0 || !strings.Contains(p.NotCaptured, tt.want) {
				t.Errorf("NotCaptured %q (command %q), want %q", p.NotCaptured, p.Command, tt.want)
			}
			if got := launchCommand(p, ""); got != NotCapturedPrefix+p.NotCaptured {
				t.Errorf("launch command %q", got)
			}
		})
	}
}

func TestReadEnvNotReadable(t *testing.T) {
	pr := vllmProc(4242, 1000)
	pr.Environ, pr.EnvErr = nil, &fs.PathError{Op: "open", Path: "/proc/4242/environ", Err: fs.ErrPermission}
	p := read(t.Context(), onPort8000(pr), "http://127.0.0.1:8000")
	if len(p.Command) == 0 || p.Env != nil || len(p.Notes) != 1 || !strings.Contains(p.Notes[0], "environment: not captured: no permission to read /proc/4242/environ") {
		t.Errorf("got command %q, env %v, notes %q", p.Command, p.Env, p.Notes)
	}
}

// TestReadDockerProxy: a published port is held by docker-proxy (root);
// the command, environment and image come from docker inspect.
func TestReadDockerProxy(t *testing.T) {
	proxy := proc{PID: 900, PPID: 1, UID: 0, User: "root", Name: "docker-proxy",
		Argv: []string{"/usr/bin/docker-proxy", "-proto", "tcp", "-host-ip", "0.0.0.0", "-host-port", "8123"}}
	h := &fakeHost{me: 0, ls: []listener{{IP: net.IPv4zero, Port: 8123, Inode: "9"}},
		holds: map[string][]int{"9": {900}}, procs: map[int]proc{900: proxy},
		dock: map[string]string{"ps --quiet --no-trunc": containerFullID + "\n", "inspect " + containerFullID: dockerInspect(t)}}
	p := read(t.Context(), h, "http://127.0.0.1:8123")
	checkContainer(t, p)
}

// TestReadDockerOtherUser: speedmatrix can't see docker-proxy's file
// descriptors, but docker names the container that publishes the port.
func TestReadDockerOtherUser(t *testing.T) {
	h := &fakeHost{me: 1000, ls: []listener{{IP: net.IPv6unspecified, Port: 8123, UID: 0, Inode: "9"}},
		dock: map[string]string{"ps --quiet --no-trunc": containerFullID + "\n", "inspect " + containerFullID: dockerInspect(t)}}
	checkContainer(t, read(t.Context(), h, "http://localhost:8123"))
}

func checkContainer(t *testing.T, p engine.ServerProcess) {
	t.Helper()
	c := p.Container
	if c == nil || c.ID != "3f2a1b9c0d1e" || c.Name != "vllm-bench" || c.Image != "vllm/vllm-openai:v0.32.0-x86_64" {
		t.Fatalf("container %+v (process %+v)", c, p)
	}
	if p.NotCaptured != "" || p.From != "docker inspect" || p.PID != 51234 || p.ServerVersion != "0.32.0" || p.User != "root" {
		t.Errorf("got %+v", p)
	}
	if got := strings.Join(p.Command, " "); got != "vllm serve RedHatAI/gemma-4-26B-A4B-it-NVFP4 --served-model-name bench --max-model-len 262144 --api-key <redacted>" {
		t.Errorf("command %q", got)
	}
	if p.Env["HF_TOKEN"] != "<redacted>" || p.Env["VLLM_USE_V1"] != "1" || p.Env["CUDA_VERSION"] != "12.8.1" || len(p.Env) != 3 {
		t.Errorf("env %v", p.Env)
	}
	if !p.StartedAt.Equal(time.Date(2026, 12, 1, 14, 0, 1, 5e8, time.UTC)) {
		t.Errorf("started %v", p.StartedAt)
	}
	cmd := launchCommand(p, "")
	if !strings.Contains(cmd, "# in Docker container vllm-bench (3f2a1b9c0d1e), image vllm/vllm-openai:v0.32.0-x86_64\n") {
		t.Errorf("launch command lacks the container:\n%s", cmd)
	}
	noSecrets(t, p)
}

// TestReadInContainer: a process found through /proc whose cgroup names a
// container keeps its own command and gets the container's name and image.
func TestReadInContainer(t *testing.T) {
	pr := vllmProc(4242, 0)
	pr.Cgroup = "0::/system.slice/docker-" + containerFullID + ".scope\n"
	h := onPort8000(pr)
	h.dock = map[string]string{"inspect " + containerFullID: dockerInspect(t)}
	p := read(t.Context(), h, "http://127.0.0.1:8000")
	if p.From != "/proc/4242" || p.Command[0] != "/home/alice/venv/bin/vllm" || p.Container == nil || p.Container.Image != "vllm/vllm-openai:v0.32.0-x86_64" {
		t.Errorf("got %+v, container %+v", p, p.Container)
	}
	// Without a docker daemon, the id is kept and the note says why the rest is missing.
	h.dock = nil
	p = read(t.Context(), h, "http://127.0.0.1:8000")
	if p.Container == nil || p.Container.ID != "3f2a1b9c0d1e" || len(p.Notes) != 1 || !strings.Contains(p.Notes[0], "Cannot connect to the Docker daemon") {
		t.Errorf("without docker: container %+v, notes %q", p.Container, p.Notes)
	}
}

func noSecrets(t *testing.T, p engine.ServerProcess) {
	t.Helper()
	b, _ := json.Marshal(p)
	text := string(b) + launchCommand(p, "/home/alice")
	for _, s := range secrets {
		if strings.Contains(text, s) {
			t.Errorf("secret %q shown: %s", s, text)
		}
	}
}
