package shell

import (
	"strings"
	"sync/atomic"
	"testing"
	"time"

	"speedmatrix/app"
	"speedmatrix/app/apptest"
	"speedmatrix/engine"
)

// byHand is a server the user started, as engine/capture reads it.
var byHand = engine.ServerProcess{PID: 4242, UID: 1000, User: "alice", From: "/proc/4242",
	StartedAt: time.Date(2026, 12, 1, 14, 0, 0, 0, time.UTC),
	Command:   []string{"/opt/venv/bin/vllm", "serve", "fake/model", "--api-key", "<redacted>"},
	Env:       map[string]string{"VLLM_API_KEY": "<redacted>", "CUDA_VISIBLE_DEVICES": "3"},
	Container: &engine.Container{ID: "3f2a1b9c0d1e", Name: "vllm", Image: "vllm/vllm-openai:v0.32.0"}}

// TestServerStartedAs: after Detect, the Server screen shows how the
// endpoint's server was started; a run of it records the same, read again.
func TestServerStartedAs(t *testing.T) {
	eng := &fakeEngine{}
	d := testDeps(t, eng)
	var asked atomic.Int32
	d.Capture = fakeCapture{proc: byHand, asked: &asked}
	u := newTestUI(t, d, app.Options{})
	s := u.server
	s.SelectKind(app.TargetEndpoint)
	s.Url.SetText("http://127.0.0.1:8000")
	if s.Started.Card.Visible() {
		t.Error("the Started as card shows before Detect")
	}
	s.OnDetect()
	waitFor(t, s.Detected, "model detection")
	c := s.Started
	if !c.Card.Visible() || !strings.Contains(c.Card.Subtitle, "by alice (pid 4242), read from /proc/4242") {
		t.Fatalf("card visible %v, subtitle %q", c.Card.Visible(), c.Card.Subtitle)
	}
	if c.Command.Text != "/opt/venv/bin/vllm serve fake/model --api-key <redacted>" {
		t.Errorf("command %q", c.Command.Text)
	}
	if !apptest.HasText(c.Env, "VLLM_API_KEY") || !apptest.HasText(c.Env, "CUDA_VISIBLE_DEVICES") || !strings.Contains(c.Note.Text, "In Docker container vllm (3f2a1b9c0d1e), image vllm/vllm-openai:v0.32.0.") {
		t.Errorf("environment or container not shown; note %q", c.Note.Text)
	}

	u.run.OnStart()
	if u.run.UiDone == nil {
		t.Fatalf("the run did not start: %s", u.run.ProgressLine.Text)
	}
	h := eng.lastTarget().Header
	if h.Process == nil || h.Process.PID != 4242 || !strings.HasSuffix(h.LaunchCommand, "/opt/venv/bin/vllm serve fake/model --api-key <redacted>") || asked.Load() != 2 {
		t.Errorf("run header: server %+v, launch command %q, asked %d times (want at Detect and at the start)", h.Process, h.LaunchCommand, asked.Load())
	}
	if h.Diagnostics == nil || h.Diagnostics.NVIDIA.Note != "NVIDIA driver not found" || h.Diagnostics.Env["CUDA_VISIBLE_DEVICES"] != "0" {
		t.Errorf("diagnostics %+v", h.Diagnostics)
	}
	waitFor(t, u.run.UiDone, "the run")

	s.Url.SetText("http://127.0.0.1:8001")
	if c.Card.Visible() {
		t.Error("another address still shows the last server's command")
	}
}

// TestServerStartedAsNotCaptured: the card says why the command is unknown.
func TestServerStartedAsNotCaptured(t *testing.T) {
	d := testDeps(t, &fakeEngine{})
	d.Capture = fakeCapture{proc: engine.ServerProcess{UID: 1001, NotCaptured: "the server runs as another user (uid 1001)"}}
	u := newTestUI(t, d, app.Options{})
	s := u.server
	s.SelectKind(app.TargetEndpoint)
	s.Url.SetText("http://127.0.0.1:8000")
	s.OnDetect()
	waitFor(t, s.Detected, "model detection")
	c := s.Started
	want := "How this server was started could not be read: the server runs as another user (uid 1001)."
	if !c.Card.Visible() || c.Command.Visible() || !strings.HasPrefix(c.Note.Text, want) || strings.Contains(c.Note.Text, "--") {
		t.Errorf("card visible %v, command visible %v, note %q; want %q", c.Card.Visible(), c.Command.Visible(), c.Note.Text, want)
	}
}

// TestServerStartedAsFollowsARestart: a server restarted since Detect is
// another process; the run reads it again, and the card shows the process
// the run records, with when it was read, not the one Detect found.
func TestServerStartedAsFollowsARestart(t *testing.T) {
	eng := &fakeEngine{}
	d := testDeps(t, eng)
	before := byHand
	before.PID, before.From = 12361, "/proc/12361"
	d.Capture = fakeCapture{proc: before}
	u := newTestUI(t, d, app.Options{})
	s := u.server
	s.SelectKind(app.TargetEndpoint)
	s.Url.SetText("http://127.0.0.1:8000")
	s.OnDetect()
	waitFor(t, s.Detected, "model detection")
	if sub := s.Started.Card.Subtitle; !strings.Contains(sub, "(pid 12361)") || !strings.HasSuffix(sub, " · read 03:04:05") {
		t.Fatalf("after Detect: subtitle %q", sub)
	}
	u.Deps.Capture = fakeCapture{proc: byHand} // restarted as pid 4242
	u.run.OnStart()
	waitFor(t, u.run.UiDone, "the run")
	if sub := s.Started.Card.Subtitle; !strings.Contains(sub, "(pid 4242)") || strings.Contains(sub, "12361") {
		t.Errorf("after the run: subtitle %q, want the restarted server's pid 4242", sub)
	}
	if h := eng.lastTarget().Header; h.Process == nil || h.Process.PID != 4242 {
		t.Errorf("the run recorded %+v, want pid 4242", h.Process)
	}
}
