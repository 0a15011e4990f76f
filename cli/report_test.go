package cli

import (
	"bytes"
	"context"
	"errors"
	"flag"
	"image/png"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"speedmatrix/charts"
)

const seedFixture = "../charts/testdata/seed000.json"

func runReport(t *testing.T, args ...string) (string, string, error) {
	t.Helper()
	var stdout, stderr bytes.Buffer
	err := cliFor(t).Report(context.Background(), args, &stdout, &stderr)
	return stdout.String(), stderr.String(), err
}

func pngSize(t *testing.T, path string) (int, int) {
	t.Helper()
	f, err := os.Open(path)
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	cfg, err := png.DecodeConfig(f)
	if err != nil {
		t.Fatalf("%s: %v", path, err)
	}
	return cfg.Width, cfg.Height
}

// TestReportRedraws draws a saved run at 1× and 2× and checks every file
// is there, and that 2× is twice the size.
func TestReportRedraws(t *testing.T) {
	one, two := t.TempDir(), t.TempDir()
	stdout, _, err := runReport(t, "--in", seedFixture, "--out", one)
	if err != nil {
		t.Fatal(err)
	}
	if _, _, err := runReport(t, "--in", seedFixture, "--out", two, "--theme", "dark", "--scale", "2"); err != nil {
		t.Fatal(err)
	}
	for _, k := range charts.Kinds {
		if !strings.Contains(stdout, filepath.Join(one, string(k))) {
			t.Errorf("stdout does not list %s: %q", k, stdout)
		}
		w1, h1 := pngSize(t, filepath.Join(one, string(k)+".png"))
		w2, h2 := pngSize(t, filepath.Join(two, string(k)+".png"))
		if w2 != 2*w1 || h2 != 2*h1 {
			t.Errorf("%s: 2× is %d×%d, 1× is %d×%d", k, w2, h2, w1, h1)
		}
		if st, err := os.Stat(filepath.Join(two, string(k)+".svg")); err != nil || st.Size() == 0 {
			t.Errorf("%s.svg: %v", k, err)
		}
	}
}

// TestReportDefaultsToTheRunFolder writes next to report.json without --out.
func TestReportDefaultsToTheRunFolder(t *testing.T) {
	dir := t.TempDir()
	data, err := os.ReadFile(seedFixture)
	if err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(filepath.Join(dir, "report.json"), data, 0o644); err != nil {
		t.Fatal(err)
	}
	if _, _, err := runReport(t, "--in", dir); err != nil {
		t.Fatal(err)
	}
	if _, err := os.Stat(filepath.Join(dir, "decode-heatmap.png")); err != nil {
		t.Error(err)
	}
}

func TestReportErrors(t *testing.T) {
	if _, stderr, err := runReport(t, "-h"); !errors.Is(err, flag.ErrHelp) || !strings.Contains(stderr, "usage: speedmatrix report") {
		t.Errorf("-h gave %v, stderr %q", err, stderr)
	}
	cases := map[string][]string{
		"--in":                {},
		"not found":           {"--in", filepath.Join(t.TempDir(), "nope.json")},
		"unknown theme":       {"--in", seedFixture, "--out", t.TempDir(), "--theme", "sepia"},
		"out of range":        {"--in", seedFixture, "--out", t.TempDir(), "--scale", "9"},
		"unexpected argument": {"--in", seedFixture, "extra"},
	}
	for want, args := range cases {
		_, _, err := runReport(t, args...)
		if err == nil || !strings.Contains(err.Error(), want) {
			t.Errorf("%v: got %v, want an error mentioning %q", args, err, want)
		}
	}
}
