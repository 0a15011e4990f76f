package shell

import (
	"fmt"
	"slices"
	"strings"
	"testing"

	"fyne.io/fyne/v2/test"

	"speedmatrix/app"
	"speedmatrix/app/apptest"
	"speedmatrix/app/server"
	"speedmatrix/engine/launch"
	"speedmatrix/engine/openai"
	"speedmatrix/engine/sim"
)

func TestServerTargetFromFlag(t *testing.T) {
	u := newTestUI(t, testDeps(t, &fakeEngine{}), app.Options{Target: "sim:big"})
	if u.server.Kind.Selected != app.TargetSim || u.server.Profile.Selected != "big" {
		t.Errorf("--target sim:big selected %q / %q", u.server.Kind.Selected, u.server.Profile.Selected)
	}
	if c := u.server.Capacity(); c.KVCacheTokens != 10_000_000 || c.MaxNumSeqs != 256 {
		t.Errorf("capacity of the big profile = %+v", c)
	}
	u = newTestUI(t, testDeps(t, &fakeEngine{}), app.Options{Target: "http://10.0.0.5:8000"})
	u.start()
	waitFor(t, u.server.Detected, "the models of the --target endpoint")
	if u.server.Model.Text != "served" {
		t.Errorf("model of the --target endpoint = %q, want it detected", u.server.Model.Text)
	}
	if u.server.Kind.Selected != app.TargetEndpoint || u.server.Url.Text != "http://10.0.0.5:8000" {
		t.Errorf("--target URL selected %q / %q", u.server.Kind.Selected, u.server.Url.Text)
	}
	tgt, err := u.server.Target()
	if err != nil || tgt.BaseURL != "http://10.0.0.5:8000" || tgt.Header.Hardware.Note == "" {
		t.Errorf("remote endpoint target = %+v, %v; want its URL and a note that its hardware is unknown", tgt, err)
	}
}

func TestServerEndpointDetectsModels(t *testing.T) {
	u := newTestUI(t, testDeps(t, &fakeEngine{}), app.Options{})
	s := u.server
	s.SelectKind(app.TargetEndpoint)
	s.Url.SetText("not a url")
	s.OnDetect()
	if n := s.Banner.Current; !s.Banner.Visible() || n.Message != "That URL is not a server address." || n.Action != "Write it as a URL like http://127.0.0.1:8000." {
		t.Errorf("bad URL banner = %+v", n)
	}
	s.Url.SetText("http://127.0.0.1:8000")
	s.OnDetect()
	waitFor(t, s.Detected, "model detection")
	if s.Model.Text != "served" || !strings.HasPrefix(s.EndpointStatus.Text, "Found 1 model: served.") || s.Banner.Visible() {
		t.Errorf("model %q, status %q, banner %q; want the detected model and no banner", s.Model.Text, s.EndpointStatus.Text, s.Banner.Current.Message)
	}
	if got := s.Capacity().MaxModelLen; got != 32768 {
		t.Errorf("max model length from /v1/models = %d, want 32768", got)
	}
}

func TestServerLaunchFormCommandAndLifecycle(t *testing.T) {
	u, srv, cfgs := launchUI(t)
	s, l := u.server, u.server.Launch
	if s.Kind.Selected != app.TargetVLLM {
		t.Fatalf("with a GPU the target is %q", s.Kind.Selected)
	}
	test.Type(s.Form.Model, "Qwen/Qwen3-0.6B")
	if cmd := l.Command.Text; !strings.Contains(cmd, "--api-key <redacted>") {
		t.Errorf("with no key given, command = %q: want the generated key shown as --api-key <redacted>", cmd)
	}
	s.Form.ApiKey.SetText("secret-key")
	s.Form.MaxNumSeqs.SetText("32")
	cmd := l.Command.Text
	if !strings.Contains(cmd, "serve Qwen/Qwen3-0.6B") || !strings.Contains(cmd, "--max-num-seqs 32") {
		t.Errorf("command = %q, want the model and --max-num-seqs 32", cmd)
	}
	if strings.Contains(cmd, "secret-key") || !strings.Contains(cmd, "<redacted>") {
		t.Errorf("command shows the API key: %q", cmd)
	}
	l.OnSuggest(true)
	if s.Form.Tp.Text != "1" || s.Form.GpuUtil.Text != "0.88" || s.Form.MaxModelLen.Text != "40960" {
		t.Errorf("suggestion filled tp %q, util %q, max len %q", s.Form.Tp.Text, s.Form.GpuUtil.Text, s.Form.MaxModelLen.Text)
	}
	if _, err := s.Target(); err == nil {
		t.Error("a run could start before the server was started")
	}

	l.OnStart()
	if cfg := <-cfgs; cfg.APIKey != "secret-key" || cfg.MaxNumSeqs != 32 {
		t.Errorf("launched config: key %q, max seqs %d", cfg.APIKey, cfg.MaxNumSeqs)
	}
	close(srv.ready)
	waitFor(t, l.Settled, "the server to be ready")
	if !strings.Contains(l.Kv.Text, "123,456 tokens") {
		t.Errorf("KV line = %q, want the capacity vLLM reported", l.Kv.Text)
	}
	if c := s.Capacity(); c.KVCacheTokens != 123456 || c.MaxNumSeqs != 32 {
		t.Errorf("capacity = %+v", c)
	}
	if tgt, err := s.Target(); err != nil || tgt.BaseURL != "http://127.0.0.1:8000" || len(tgt.Header.Hardware.GPUs) != 1 {
		t.Errorf("target = %+v, %v", tgt, err)
	}
	if !strings.Contains(u.busy(), "vLLM server") {
		t.Errorf("busy() = %q with a server up", u.busy())
	}
	u.shutdown()
	if !srv.isStopped() {
		t.Error("shutdown left the server running")
	}
}

func TestServerFormRoundTrip(t *testing.T) {
	on := true
	cfg := launch.ServerConfig{Runner: launch.RunnerDocker, DockerImage: "vllm/vllm-openai:v0.11.0", Model: "m", ServedModelName: "s",
		TensorParallelSize: 2, MaxModelLen: 8192, GPUMemoryUtilization: 0.85, MaxNumSeqs: 64, EnablePrefixCaching: &on,
		AsyncScheduling: true, ReasoningParser: "qwen3", Host: "0.0.0.0", Port: 8001, APIKey: "k",
		APIKeyFile: "/run/key", ExtraArgs: []string{"--enforce-eager"}, Env: map[string]string{"A": "1"}}
	f := server.NewLaunchForm(nil)
	f.Fill(cfg)
	got := f.Config(true)
	if got.Runner != cfg.Runner || got.TensorParallelSize != 2 || got.GPUMemoryUtilization != 0.85 ||
		got.EnablePrefixCaching == nil || !*got.EnablePrefixCaching || got.Env["A"] != "1" || got.ExtraArgs[0] != "--enforce-eager" ||
		got.APIKey != "k" || got.Port != 8001 || got.ReasoningParser != "qwen3" || got.APIKeyFile != "/run/key" {
		t.Errorf("form round trip = %+v", got)
	}
	if f.Config(false).APIKey != "" {
		t.Error("config(false) keeps the API key")
	}
	f.Tp.SetText("two")
	f.Config(true)
	if p := f.Problems(); len(p) != 1 || !strings.Contains(p[0], "tensor parallel") {
		t.Errorf("problems = %v", p)
	}
}

// TestServerDetectFailureIsABanner: a server that is down gets the banner
// in plain words, with the engine's error only behind Details.
func TestServerDetectFailureIsABanner(t *testing.T) {
	d := testDeps(t, &fakeEngine{})
	d.Endpoints = fakeEndpoints{err: fmt.Errorf("cannot reach http://127.0.0.1:9: %w (%w)", openai.ErrUnreachable, errBoom)}
	u := newTestUI(t, d, app.Options{})
	s := u.server
	s.SelectKind(app.TargetEndpoint)
	s.Url.SetText("http://127.0.0.1:9")
	s.OnDetect()
	waitFor(t, s.Detected, "model detection")
	n := s.Banner.Current
	if n.Message != "The server does not answer." || !strings.Contains(n.Action, "URL on the Server screen") || !strings.Contains(n.Detail, "boom") {
		t.Errorf("banner = %+v", n)
	}
	if strings.Contains(n.Message+n.Action, "--") {
		t.Errorf("the banner names a flag: %+v", n)
	}
}

// TestLaunchFailureIsABanner: a server that does not start gets the
// banner, with the launcher's error behind Details.
func TestLaunchFailureIsABanner(t *testing.T) {
	d := testDeps(t, &fakeEngine{})
	d.Hardware = oneGPU
	u := newTestUI(t, d, app.Options{})
	u.server.Launch.Failed(errBoom)
	n := u.server.Banner.Current
	if !u.server.Banner.Visible() || n.Message != "The vLLM server did not start." || n.Detail != "boom" || u.server.Launch.State.Text != "Not running." {
		t.Errorf("banner %+v, state %q", n, u.server.Launch.State.Text)
	}
}

// TestEndpointPasswordHidden: the password of an endpoint URL goes to the
// client and nowhere the app shows or keeps: the Run screen's target line,
// its progress line and log, the saved settings.
func TestEndpointPasswordHidden(t *testing.T) {
	eng := &fakeEngine{events: cannedEvents()}
	u := newTestUI(t, testDeps(t, eng), app.Options{})
	s := u.server
	s.SelectKind(app.TargetEndpoint)
	s.Url.SetText("http://ann:pw-app-secret@127.0.0.1:9")
	u.run.OnStart()
	if u.run.UiDone == nil {
		t.Fatalf("run did not start: %s", u.run.ProgressLine.Text)
	}
	shown := map[string]string{"target line": u.run.TargetLine.Text, "progress line": u.run.ProgressLine.Text,
		"run log": u.run.Log.Text(), "saved URL": s.Settings().URL, "state": u.State.Target.Description}
	waitFor(t, u.run.UiDone, "the run to finish")
	for name, text := range shown {
		if strings.Contains(text, "pw-app-secret") || !strings.Contains(text, "ann:<redacted>@127.0.0.1:9") {
			t.Errorf("%s = %q, want the password redacted", name, text)
		}
	}
	if tgt := eng.lastTarget(); tgt.BaseURL != "http://ann:pw-app-secret@127.0.0.1:9" {
		t.Errorf("the client got %q, want the URL with its password", tgt.BaseURL)
	}
}

// TestSimulatorSpeaksSGLang: "Speaks as SGLang" serves the chosen profile
// again as SGLang, the target says so, and the choice is remembered.
func TestSimulatorSpeaksSGLang(t *testing.T) {
	d := testDeps(t, &fakeEngine{})
	fs := d.Sim.(*fakeSim)
	u := newTestUI(t, d, app.Options{Target: "sim:tiny"})
	s := u.server
	s.Speaks.SetSelected(server.SpeaksSGLang)
	tg, err := s.Target()
	if err != nil {
		t.Fatal(err)
	}
	fs.mu.Lock()
	engines := slices.Clone(fs.engines)
	fs.mu.Unlock()
	if len(engines) == 0 || engines[len(engines)-1] != sim.ModeSGLang || tg.Header.Server.Name != "sglang" {
		t.Fatalf("simulator started as %q, target engine %q; want sglang last", engines, tg.Header.Server.Name)
	}
	if got := s.Description(); got != "simulated SGLang (profile tiny)" {
		t.Errorf("target reads %q", got)
	}
	if saved := s.Settings(); saved.SimMode != sim.ModeSGLang {
		t.Errorf("settings keep %+v, want the SGLang choice", saved)
	}
}

// TestSavedLaunchKind: settings saved when the first target was called
// "Launch vLLM" still choose it.
func TestSavedLaunchKind(t *testing.T) {
	d := testDeps(t, &fakeEngine{})
	d.Hardware = oneGPU
	u := newTestUI(t, d, app.Options{})
	u.server.SelectKind(app.TargetEndpoint)
	u.Prefs.Save(app.PrefTarget, app.TargetSettings{Kind: "Launch vLLM"})
	u.server.ApplyTarget("")
	if got := u.server.Kind.Selected; got != app.TargetVLLM {
		t.Errorf("saved \"Launch vLLM\" chose %q, want %q", got, app.TargetVLLM)
	}
}

// TestSuggestWithoutGPUSaysWhy: on a machine without a GPU, Suggest from
// hardware says, under its button, that there is no GPU to size to and
// what to do; with a GPU it says what it suggested, there too.
func TestSuggestWithoutGPUSaysWhy(t *testing.T) {
	uiOnly(t)
	u := newTestUI(t, testDeps(t, &fakeEngine{}), app.Options{})
	u.server.SelectKind(app.TargetVLLM)
	l := u.server.Launch
	test.Type(u.server.Form.Model, "Qwen/Qwen3-0.6B")
	tp := u.server.Form.Tp.Text
	test.Tap(apptest.FindButton(u.server.Panels[app.TargetVLLM], "Suggest from hardware"))
	if want := "No NVIDIA GPU was found on this machine"; !l.Suggested.Visible() || !strings.HasPrefix(l.Suggested.Text, want) {
		t.Errorf("Suggest without a GPU says %q (shown %v), want it to start %q", l.Suggested.Text, l.Suggested.Visible(), want)
	}
	if u.server.Form.Tp.Text != tp {
		t.Errorf("Suggest without a GPU set Tensor parallel to %q", u.server.Form.Tp.Text)
	}

	g, _, _ := launchUI(t)
	test.Type(g.server.Form.Model, "Qwen/Qwen3-0.6B")
	g.server.Launch.OnSuggest(true)
	if got := g.server.Launch.Suggested.Text; got != "Suggested: test suggestion." {
		t.Errorf("Suggest with a GPU says %q", got)
	}
}
