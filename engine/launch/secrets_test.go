//go:build linux

package launch

import (
	"bytes"
	"context"
	"fmt"
	"net/http"
	"os"
	"path/filepath"
	"speedmatrix/engine/servers"
	"strings"
	"sync"
	"testing"
)

// TestSecretsNeverShown: the API key reaches vLLM and SGLang (they require
// it of clients) but no process list shows it, and neither it, the HF
// token nor a secret variable is in the log file, Logs, the subscribers or
// the launch command, although the fakes echo them as vLLM and SGLang do.
func TestSecretsNeverShown(t *testing.T) {
	echoed := map[string]string{servers.VLLM: "'api_key': ['" + redacted + "'], 'hf_token': '" + redacted + "'",
		servers.SGLang: "api_key='" + redacted + "', "}
	for _, tt := range []struct{ engine, image string }{{servers.VLLM, "fake/vllm-openai:test"}, {servers.SGLang, "fake/sglang:test"}} {
		for _, runner := range []Runner{RunnerExec, RunnerDocker} {
			t.Run(tt.engine+" "+string(runner), func(t *testing.T) {
				secretsNeverShown(t, tt.engine, runner, tt.image, echoed[tt.engine])
			})
		}
	}
}

func secretsNeverShown(t *testing.T, engine string, runner Runner, image, echoed string) {
	fakeDockerOnPath(t, "")
	const key, token, wandb = "sm-test-key-0123456789", "hf_test_token_0123", "wandb-secret-value"
	cfg := fakeConfig(t, "", "FAKEVLLM_CHILD=1", "WANDB_API_KEY="+wandb)
	if engine == servers.SGLang {
		cfg = asSGLang(t, cfg)
	}
	cfg.Runner, cfg.DockerImage, cfg.APIKey, cfg.HFToken = runner, image, key, token
	s, err := Launch(context.Background(), cfg)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { _ = s.Stop() })
	var mu sync.Mutex
	var seen []string
	s.Subscribe(func(l string) { mu.Lock(); seen = append(seen, l); mu.Unlock() })
	if err := s.WaitReady(context.Background()); err != nil {
		t.Fatal(err)
	}
	req, _ := http.NewRequest("GET", s.baseURL()+"/v1/models", nil)
	req.Header.Set("Authorization", "Bearer "+key)
	if resp, err := http.DefaultClient.Do(req); err != nil || resp.StatusCode != 200 {
		t.Fatalf("the server does not take the key from its environment: %v %v", resp, err)
	}
	cmdlines := allCommandLines(t)
	logs := strings.Join(s.Logs(), "\n")
	if !strings.Contains(logs, echoed) {
		t.Errorf("the echoed arguments are not in the log, redacted:\n%s", logs)
	}
	file, _ := os.ReadFile(s.LogPath())
	mu.Lock()
	subscribed := strings.Join(seen, "\n")
	mu.Unlock()
	for name, text := range map[string]string{"ps (every /proc/PID/cmdline)": cmdlines, "Logs": logs,
		"the log file": string(file), "the subscriber": subscribed, "Display": s.Display(),
		"the report's launch command": s.Subject().Header.LaunchCommand} {
		for _, secret := range []string{key, token, wandb} {
			if strings.Contains(text, secret) {
				t.Errorf("%s shows %q", name, secret)
			}
		}
	}
	if !strings.Contains(s.Display(), "--api-key "+redacted) || !strings.Contains(cmdlines, guardName+" ") {
		t.Errorf("Display = %s; guard in ps: %v", s.Display(), strings.Contains(cmdlines, guardName))
	}
	t.Logf("ps during the launch: %s", psLine(cmdlines, cfg.Port))
}

// psLine is the line of cmdlines that runs the server on port.
func psLine(cmdlines string, port int) string {
	for _, l := range strings.Split(cmdlines, "\n") {
		if strings.Contains(l, fmt.Sprintf("--port %d", port)) && !strings.HasPrefix(l, guardName) {
			return l
		}
	}
	return "(not found)"
}

// allCommandLines is every process's command line, as ps -ef shows them.
func allCommandLines(t *testing.T) string {
	t.Helper()
	paths, err := filepath.Glob("/proc/[0-9]*/cmdline")
	if err != nil || len(paths) == 0 {
		t.Fatalf("no /proc: %v", err)
	}
	var b strings.Builder
	for _, p := range paths {
		c, err := os.ReadFile(p)
		if err == nil {
			b.Write(bytes.ReplaceAll(c, []byte{0}, []byte{' '}))
			b.WriteByte('\n')
		}
	}
	return b.String()
}
