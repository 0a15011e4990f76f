//go:build linux

package launch

import (
	"bufio"
	"bytes"
	"context"
	"encoding/json"
	"net"
	"os"
	"os/exec"
	"strconv"
	"strings"
	"testing"
	"time"
)

// The guards this test binary runs (it is their program) wait a second,
// not five, before they SIGKILL what ignored their SIGTERM: the tests see
// the same escalation sooner.
func init() { orphanGrace = time.Second }

// TestKillNineLeavesNothing: SIGKILL of the process that launched the
// server ends the server, its engine core child, a daemon grandchild that
// left the process group and holds the port, and the Docker container.
func TestKillNineLeavesNothing(t *testing.T) {
	for _, tt := range []struct {
		name   string
		runner Runner
		mode   string
	}{
		{"exec, children ignoring SIGTERM", RunnerExec, "stubborn"},
		{"docker", RunnerDocker, ""},
		{"sglang, children ignoring SIGTERM", RunnerExec, "stubborn sglang"},
		{"sglang docker", RunnerDocker, "sglang"},
	} {
		t.Run(tt.name, func(t *testing.T) {
			dockerLog := fakeDockerOnPath(t, "")
			mode, sglang := strings.CutSuffix(tt.mode, "sglang")
			cfg := fakeConfig(t, strings.TrimSpace(mode), "FAKEVLLM_CHILD=1", "FAKEVLLM_DAEMON=1")
			if sglang {
				cfg = asSGLang(t, cfg)
			}
			cfg.Runner, cfg.DockerImage = tt.runner, "fake/vllm-openai:test"
			helper, lines := startHelper(t, cfg)
			tree := descendants(helper.Process.Pid)
			daemon := pidAfter(lines, "fakevllm: daemon pid=")
			if len(tree) < 4 || daemon == 0 || !contains(tree, daemon) {
				t.Fatalf("tree %v lacks the guard, server, engine core and daemon %d; log:\n%s", tree, daemon, strings.Join(lines, "\n"))
			}
			if err := helper.Process.Kill(); err != nil {
				t.Fatal(err)
			}
			_ = helper.Wait()
			killed := time.Now()
			deadline := killed.Add(15 * time.Second)
			for left := running(tree); len(left) > 0 || !portFree(cfg.Port); left = running(tree) {
				if time.Now().After(deadline) {
					t.Fatalf("15 s after kill -9 of the launcher: still running %v, port %d free %v", left, cfg.Port, portFree(cfg.Port))
				}
				time.Sleep(100 * time.Millisecond)
			}
			t.Logf("kill -9 of the launcher: %d processes gone and port %d free after %v", len(tree), cfg.Port, time.Since(killed).Round(10*time.Millisecond))
			if tt.runner == RunnerDocker {
				b, _ := os.ReadFile(dockerLog)
				if !strings.Contains(string(b), "docker rm -f "+containerName(cfg)) {
					t.Errorf("the guard did not remove the container; docker calls:\n%s", b)
				}
			}
		})
	}
}

// TestStopEndsDaemons: a clean Stop also ends a daemon that left the
// server's process group (the guard, as its subreaper, finds it).
func TestStopEndsDaemons(t *testing.T) {
	cfg := fakeConfig(t, "", "FAKEVLLM_CHILD=1", "FAKEVLLM_DAEMON=1")
	s, err := launch(t, context.Background(), cfg)
	if err != nil {
		t.Fatal(err)
	}
	daemon := pidAfter(s.Logs(), "fakevllm: daemon pid=")
	if daemon == 0 {
		t.Fatalf("no daemon in the log:\n%s", strings.Join(s.Logs(), "\n"))
	}
	if err := s.Stop(); err != nil {
		t.Fatal(err)
	}
	if left := running([]procInfo{{pid: daemon}}); len(left) > 0 || !portFree(cfg.Port) {
		t.Errorf("after Stop: daemon %v running, port free %v", left, portFree(cfg.Port))
	}
}

// startHelper runs launchHelper for cfg and returns once it is ready, with
// the lines it printed.
func startHelper(t *testing.T, cfg ServerConfig) (*exec.Cmd, []string) {
	t.Helper()
	b, err := json.Marshal(cfg)
	if err != nil {
		t.Fatal(err)
	}
	cmd := exec.Command(os.Args[0], "-test.run=^$")
	cmd.Env = append(os.Environ(), helperEnv+"="+string(b))
	out, err := cmd.StdoutPipe()
	if err != nil {
		t.Fatal(err)
	}
	cmd.Stderr = os.Stderr
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { _ = cmd.Process.Kill() })
	var lines []string
	sc := bufio.NewScanner(out)
	for sc.Scan() {
		l := sc.Text()
		if l == "ready" {
			go func() { _, _ = bufio.NewReader(out).WriteTo(&bytes.Buffer{}) }()
			return cmd, lines
		}
		lines = append(lines, l)
		if strings.HasPrefix(l, "error:") {
			break
		}
	}
	t.Fatalf("the helper did not get ready:\n%s", strings.Join(lines, "\n"))
	return nil, nil
}

// pidAfter is the number after the first occurrence of prefix in lines.
func pidAfter(lines []string, prefix string) int {
	for _, l := range lines {
		if _, rest, ok := strings.Cut(l, prefix); ok {
			n, _ := strconv.Atoi(strings.Fields(rest)[0])
			return n
		}
	}
	return 0
}

func contains(tree []procInfo, pid int) bool {
	for _, p := range tree {
		if p.pid == pid {
			return true
		}
	}
	return false
}

// running are the processes of tree that still run (zombies don't).
func running(tree []procInfo) []int {
	state := map[int]procInfo{}
	for _, p := range procs() {
		state[p.pid] = p
	}
	var out []int
	for _, p := range tree {
		if now, ok := state[p.pid]; ok && now.running() {
			out = append(out, p.pid)
		}
	}
	return out
}

func portFree(port int) bool {
	ln, err := net.Listen("tcp", "127.0.0.1:"+strconv.Itoa(port))
	if err != nil {
		return false
	}
	ln.Close()
	return true
}
