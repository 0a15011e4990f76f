package shell

import (
	"fmt"
	"strings"
	"testing"

	"fyne.io/fyne/v2/test"
	"fyne.io/fyne/v2/widget"

	"speedmatrix/app/server"
	"speedmatrix/engine/launch"
	"speedmatrix/engine/servers"
)

// TestLaunchFormEngineChoice: choosing SGLang as the Engine shows SGLang's
// command, Suggest fills the same fields into it, and the choice reaches
// the launcher and the saved form.
func TestLaunchFormEngineChoice(t *testing.T) {
	uiOnly(t)
	u, _, cfgs := launchUI(t)
	s, l := u.server, u.server.Launch
	test.Type(s.Form.Model, "Qwen/Qwen3-0.6B")
	if cmd := l.Command.Text; !strings.HasPrefix(cmd, "vllm serve Qwen/Qwen3-0.6B") {
		t.Fatalf("vLLM's command = %q", cmd)
	}
	s.Form.Server.SetSelected("SGLang")
	cmd := l.Command.Text
	if !strings.HasPrefix(cmd, "python3 -m sglang.launch_server --model-path Qwen/Qwen3-0.6B") ||
		!strings.Contains(cmd, "--api-key <redacted> --enable-metrics") || strings.Contains(cmd, " serve ") {
		t.Errorf("SGLang's command = %q", cmd)
	}
	if p := s.Form.Executable.PlaceHolder; !strings.HasPrefix(p, "python3") {
		t.Errorf("Executable placeholder = %q, want SGLang's python3", p)
	}
	if !s.Form.Parallel.Executor.Disabled() || !s.Form.AsyncScheduling.Disabled() {
		t.Error("vLLM's executor and async scheduling stay enabled for SGLang")
	}
	for _, e := range []*widget.Entry{s.Form.Tp, s.Form.MaxModelLen, s.Form.GpuUtil} {
		e.SetText("")
	}
	if cmd := l.Command.Text; strings.Contains(cmd, "--tp") {
		t.Errorf("with the sizes cleared, command = %q", cmd)
	}
	l.OnSuggest(true)
	if cmd := l.Command.Text; !strings.Contains(cmd, "--tp 1 --context-length 40960 --mem-fraction-static 0.88") {
		t.Errorf("after Suggest, command = %q: want the suggested sizes as SGLang's flags", cmd)
	}
	l.OnStart()
	if cfg := <-cfgs; cfg.Server != servers.SGLang {
		t.Errorf("launched engine %q", cfg.Server)
	}
	f := server.NewLaunchForm(nil)
	f.Fill(s.Form.Config(false))
	if f.Server.Selected != "SGLang" {
		t.Errorf("a saved SGLang form fills back as %q", f.Server.Selected)
	}
	s.Form.Server.SetSelected("vLLM")
	if cmd := l.Command.Text; !strings.Contains(cmd, "serve Qwen/Qwen3-0.6B --tensor-parallel-size 1") || s.Form.Parallel.Executor.Disabled() {
		t.Errorf("back on vLLM, command = %q, executor disabled %v", cmd, s.Form.Parallel.Executor.Disabled())
	}
}

// TestSGLangStartFailureWords: SGLang's failures at start are banners in
// the app's words, naming SGLang and the fields to change, never a flag.
func TestSGLangStartFailureWords(t *testing.T) {
	for kind, want := range map[launch.FatalKind]string{
		launch.FatalOutOfMemory:  "The SGLang server ran out of GPU memory while starting.",
		launch.FatalNotInstalled: "The Python of Executable has no SGLang.",
	} {
		fatal := launch.Fatal{Kind: kind, Summary: "s", Advice: "lower gpu_memory_utilization (--mem-fraction-static)", Server: "SGLang"}
		err := fmt.Errorf("start: %w", &launch.ServerError{Server: "SGLang", Reason: "exited", Fatal: &fatal})
		n := server.LaunchNotice(err)
		if n.Message != want || strings.Contains(n.Message+n.Action, "--") || n.Detail != err.Error() {
			t.Errorf("%s: banner %+v", kind, n)
		}
	}
	se := &launch.SetupError{Kind: launch.SetupVenvNoVLLM, Subject: "/opt/sg", Server: "SGLang", Program: "python3"}
	if n := server.LaunchNotice(se); n.Message != "The environment /opt/sg has no SGLang." || !strings.Contains(n.Action, "bin/python3") {
		t.Errorf("venv without SGLang: %+v", n)
	}
}
