package main

import (
	"encoding/json"
	"io"
	"os"
	"path/filepath"
	"regexp"
	"strings"
	"testing"
)

// TestVersionHasOneHome: `speedmatrix --version` says FyneApp.toml's
// Version, which `fyne package` stamps into the package, and it is a
// release's version (0.1.0 stayed after three releases).
func TestVersionHasOneHome(t *testing.T) {
	toml, err := os.ReadFile("FyneApp.toml")
	if err != nil {
		t.Fatal(err)
	}
	m := regexp.MustCompile(`(?m)^Version\s*=\s*"(\d+\.\d+\.\d+)"\s*$`).FindAllStringSubmatch(string(toml), -1)
	if len(m) != 1 {
		t.Fatalf("FyneApp.toml has %d Version lines, want one", len(m))
	}
	manifest := m[0][1]
	if manifest == "0.1.0" {
		t.Error("FyneApp.toml still says 0.1.0")
	}
	out := captureStdout(t, func() {
		if err := dispatch(t.Context(), []string{"--version"}); err != nil {
			t.Fatal(err)
		}
	})
	if want := "speedmatrix " + manifest + "\n"; out != want {
		t.Errorf("--version printed %q, want %q (FyneApp.toml's)", out, want)
	}
	if got := manifestVersion("[Details]\nVersion = \"9.9.9\"\n[Other]\nVersion = \"1\"\n"); got != "9.9.9" {
		t.Errorf("manifestVersion read %q, want [Details]' 9.9.9", got)
	}
}

// TestResultsCarryTheVersion: a run's report.json names the build that
// measured it, by FyneApp.toml's version.
func TestResultsCarryTheVersion(t *testing.T) {
	tmp := t.TempDir()
	for _, k := range []string{"HOME", "XDG_CONFIG_HOME", "XDG_CACHE_HOME", "XDG_DATA_HOME", "XDG_STATE_HOME"} {
		t.Setenv(k, filepath.Join(tmp, k))
	}
	dir := filepath.Join(tmp, "out")
	captureStdout(t, func() {
		err := dispatch(t.Context(), []string{"load", "--sim", "tiny", "--rates", "20", "--requests", "2", "--output-tokens", "8", "--out", dir})
		if err != nil {
			t.Fatal(err)
		}
	})
	b, err := os.ReadFile(filepath.Join(dir, "report.json"))
	if err != nil {
		t.Fatal(err)
	}
	var rep struct {
		Run struct {
			BenchmarkTool string `json:"benchmark_tool"`
		} `json:"run"`
	}
	if err := json.Unmarshal(b, &rep); err != nil {
		t.Fatal(err)
	}
	if want := "speedmatrix v" + manifestVersion(manifest); rep.Run.BenchmarkTool != want || !strings.HasPrefix(want, "speedmatrix v0.") {
		t.Errorf("report.json says it was measured by %q, want %q", rep.Run.BenchmarkTool, want)
	}
}

// captureStdout is what f prints on standard output.
func captureStdout(t *testing.T, f func()) string {
	t.Helper()
	r, w, err := os.Pipe()
	if err != nil {
		t.Fatal(err)
	}
	old := os.Stdout
	os.Stdout = w
	done := make(chan string)
	go func() {
		b, _ := io.ReadAll(r)
		done <- string(b)
	}()
	defer func() { os.Stdout = old }()
	f()
	w.Close()
	os.Stdout = old
	return <-done
}
