package shell

import (
	"errors"
	"fmt"
	"strings"
	"testing"

	"speedmatrix/app"
	"speedmatrix/app/server"
	"speedmatrix/engine/launch"
)

// TestLaunchSetupProblemsAreBanners: a setting the launcher refuses gets
// the banner in the app's words (a field of the Server screen, never a
// server.toml key or a flag), with the launcher's one line behind Details.
func TestLaunchSetupProblemsAreBanners(t *testing.T) {
	kinds := []launch.SetupKind{launch.SetupNoExecutable, launch.SetupNotVLLM, launch.SetupVenvNoVLLM, launch.SetupNoDocker,
		launch.SetupDockerDown, launch.SetupNoImage, launch.SetupPortInUse, launch.SetupKeyFile,
		launch.SetupNoRay, launch.SetupRayDown, launch.SetupRayNoGPUs}
	fields := map[launch.SetupKind]string{launch.SetupNoExecutable: "Executable", launch.SetupNotVLLM: "Executable",
		launch.SetupVenvNoVLLM: "Executable", launch.SetupNoDocker: "Runner", launch.SetupDockerDown: "Runner",
		launch.SetupNoImage: "Docker image", launch.SetupPortInUse: "Port", launch.SetupKeyFile: "API key",
		launch.SetupNoRay: "Executor", launch.SetupRayDown: "Ray address", launch.SetupRayNoGPUs: "Tensor parallel"}
	for _, kind := range kinds {
		t.Run(string(kind), func(t *testing.T) {
			d := testDeps(t, &fakeEngine{})
			d.Hardware = oneGPU
			se := &launch.SetupError{Kind: kind, Subject: "/opt/venv", Fact: "fact of " + string(kind), Fix: "set executable = x in server.toml"}
			d.Launcher = fakeLauncher{cfgs: make(chan launch.ServerConfig, 1), err: fmt.Errorf("wrapped: %w", se)}
			u := newTestUI(t, d, app.Options{})
			l := u.server.Launch
			u.server.Form.Model.SetText("Qwen/Qwen3-0.6B")
			l.OnStart()
			waitFor(t, l.Settled, "the launch to fail")
			n := u.server.Banner.Current
			words := n.Message + " " + n.Action
			if !u.server.Banner.Visible() || n.Detail != "wrapped: start vllm: fact of "+string(kind)+": set executable = x in server.toml" ||
				!strings.Contains(words, "/opt/venv") && kind != launch.SetupNoDocker && kind != launch.SetupDockerDown {
				t.Errorf("banner = %+v", n)
			}
			if !strings.Contains(n.Action, fields[kind]) || strings.Contains(words, "--") || strings.Contains(words, "server.toml") ||
				strings.Contains(words, "_") || strings.Contains(words, " = ") {
				t.Errorf("banner words %q: want the field %q and no flag or server.toml key", words, fields[kind])
			}
			if l.State.Text != "Not running." || l.Up() {
				t.Errorf("state %q, up %v", l.State.Text, l.Up())
			}
		})
	}
	if n := server.LaunchNotice(errors.New("boom")); n.Message != "The vLLM server did not start." || n.Detail != "boom" {
		t.Errorf("another error: %+v", n)
	}
}
