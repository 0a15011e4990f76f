package capture

import (
	"strings"
	"testing"
	"time"

	"speedmatrix/engine"
)

func TestLaunchCommand(t *testing.T) {
	at := time.Date(2026, 12, 1, 14, 0, 0, 0, time.UTC)
	started := at.Local().Format("2006-01-02 15:04:05 MST")
	p := engine.ServerProcess{PID: 4242, UID: 1000, User: "alice", From: "/proc/4242", StartedAt: at,
		Command: []string{"/home/alice/venv/bin/vllm", "serve", "m", "--api-key", "<redacted>", "--override-generation-config", `{"temperature": 0}`},
		Env:     map[string]string{"VLLM_API_KEY": "<redacted>", "CUDA_VISIBLE_DEVICES": "0,1"},
		Notes:   []string{"environment: partly read"}}
	want := "# started " + started + " by alice (pid 4242), read from /proc/4242\n" +
		"# environment: partly read\n" +
		`env CUDA_VISIBLE_DEVICES=0,1 VLLM_API_KEY=<redacted> "$HOME/venv/bin/vllm" serve m --api-key <redacted> --override-generation-config '{"temperature": 0}'`
	if got := launchCommand(p, "/home/alice"); got != want {
		t.Errorf("LaunchCommand:\n%s\nwant:\n%s", got, want)
	}
	p.User, p.PID, p.StartedAt, p.Notes, p.Env = "", 0, time.Time{}, nil, nil
	p.Container = &engine.Container{ID: "3f2a1b9c0d1e", Image: "vllm/vllm-openai:v0.32.0"}
	want = "# started by uid 1000, read from /proc/4242\n# in Docker container 3f2a1b9c0d1e, image vllm/vllm-openai:v0.32.0\n"
	if got := launchCommand(p, ""); !strings.HasPrefix(got, want) {
		t.Errorf("LaunchCommand:\n%s\nwant it to start:\n%s", got, want)
	}
}

func TestHeader(t *testing.T) {
	p := engine.ServerProcess{PID: 7, Command: []string{"vllm", "serve", "m"}, ServerVersion: "0.32.0",
		Container: &engine.Container{ID: "3f2a1b9c0d1e", Image: "vllm/vllm-openai:v0.32.0"}}
	var h engine.Report
	Header(&h, p)
	if h.Process == nil || h.Process.PID != 7 || h.Server.Version != "0.32.0" || h.Server.Build != "vllm/vllm-openai:v0.32.0" ||
		!strings.HasSuffix(h.LaunchCommand, "\nvllm serve m") {
		t.Errorf("header %+v", h)
	}
	h = engine.Report{Server: engine.ServerInfo{Version: "0.33.0"}}
	Header(&h, p)
	if h.Server.Version != "0.33.0" {
		t.Errorf("a version the header had was replaced by %q", h.Server.Version)
	}
}

func TestIsLocal(t *testing.T) {
	tests := []struct {
		host string
		want bool
	}{
		{"localhost", true}, {"LOCALHOST", true}, {"127.0.0.1", true}, {"127.0.1.1", true}, {"::1", true}, {"[::1]", true},
		{"192.0.2.7", false}, {"2001:db8::1", false}, {"no-such-host.invalid", false},
	}
	if own := interfaceIPs(); len(own) > 0 {
		tests = append(tests, struct {
			host string
			want bool
		}{own[len(own)-1].String(), true})
	}
	for _, tt := range tests {
		if got := IsLocal(t.Context(), tt.host); got != tt.want {
			t.Errorf("IsLocal(%q) = %v, want %v", tt.host, got, tt.want)
		}
	}
}
