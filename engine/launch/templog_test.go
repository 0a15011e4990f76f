package launch

import (
	"context"
	"errors"
	"net/http"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// inTemp is cfg's fake vllm with its log in the temporary folder (no
// log_dir), which is dir for the test.
func inTemp(t *testing.T, mode string) (ServerConfig, string) {
	dir := t.TempDir()
	t.Setenv("TMPDIR", dir)
	cfg := fakeConfig(t, mode, "FAKEVLLM_CHILD=1")
	cfg.LogDir = ""
	return cfg, dir
}

// A server that was ready and stops normally leaves no log behind in the
// temporary folder.
func TestTemporaryLogGoesOnNormalStop(t *testing.T) {
	cfg, dir := inTemp(t, "")
	s, err := launch(t, context.Background(), cfg)
	if err != nil {
		t.Fatal(err)
	}
	if !s.TemporaryLog() || filepath.Dir(s.LogPath()) != dir {
		t.Fatalf("log %s (temporary %v), want one in %s", s.LogPath(), s.TemporaryLog(), dir)
	}
	if err := s.Stop(); err != nil {
		t.Fatal(err)
	}
	if _, err := os.Stat(s.LogPath()); !errors.Is(err, os.ErrNotExist) {
		t.Errorf("the log of a server stopped normally is still there (%v)", err)
	}
}

// The log of a server that failed to start, or died, stays where its
// error says; so does every log in a log_dir.
func TestFailedServersKeepTheirLog(t *testing.T) {
	cfg, _ := inTemp(t, "exit")
	_, err := launch(t, context.Background(), cfg)
	var se *ServerError
	if !errors.As(err, &se) || !strings.Contains(err.Error(), "its whole log is kept in "+se.LogPath) {
		t.Fatalf("start: %v, want a *ServerError naming its log", err)
	}
	if _, err := os.Stat(se.LogPath); err != nil {
		t.Errorf("the failed start's log: %v", err)
	}

	cfg, _ = inTemp(t, "die")
	s, err := launch(t, context.Background(), cfg)
	if err != nil {
		t.Fatal(err)
	}
	if resp, err := http.Get(s.baseURL() + "/fake/die"); err == nil {
		resp.Body.Close()
	}
	waitExit(t, s)
	if err := s.alive(); !errors.As(err, &se) {
		t.Fatalf("Alive = %v, want a *ServerError", err)
	}
	_ = s.Stop()
	if _, err := os.Stat(s.LogPath()); err != nil {
		t.Errorf("the log of a server that died: %v", err)
	}

	s, err = launch(t, context.Background(), fakeConfig(t, ""))
	if err != nil {
		t.Fatal(err)
	}
	if err := s.Stop(); err != nil {
		t.Fatal(err)
	}
	if _, err := os.Stat(s.LogPath()); s.TemporaryLog() || err != nil {
		t.Errorf("the log in log_dir: %v (temporary %v), want it kept", err, s.TemporaryLog())
	}
}
