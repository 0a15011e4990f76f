package app

import (
	"errors"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"
)

func TestDurationFieldParse(t *testing.T) {
	tests := []struct {
		field   durationField
		text    string
		want    time.Duration
		problem string // "" when it parses
	}{
		{firstTokenField, "", 5 * time.Minute, ""},
		{firstTokenField, "5", 5 * time.Minute, ""},
		{firstTokenField, " 1.5 ", 90 * time.Second, ""},
		{firstTokenField, "90s", 90 * time.Second, ""},
		{firstTokenField, "2 min", 2 * time.Minute, ""},
		{firstTokenField, "1m30s", 90 * time.Second, ""},
		{firstTokenField, "2h", 0, "2h is out of range"},
		{firstTokenField, "abc", 0, `"abc" is not a duration`},
		{firstTokenField, "NaN", 0, `"NaN" is not a duration`},
		{stallField, "", 30 * time.Second, ""},
		{stallField, "45", 45 * time.Second, ""},
		{stallField, "0", 0, "0 is out of range"},
		{stallField, "-5", 0, "-5 is out of range"},
		{intervalField, "", time.Second, ""},
		{intervalField, "0.25", 250 * time.Millisecond, ""},
		{intervalField, "500ms", 500 * time.Millisecond, ""},
		{intervalField, "100ms", 0, "100ms is out of range"},
	}
	for _, tt := range tests {
		t.Run(tt.field.name+"/"+tt.text, func(t *testing.T) {
			got, err := tt.field.parse(tt.text)
			if tt.problem == "" {
				if err != nil || got != tt.want {
					t.Errorf("parse(%q) = %v, %v; want %v", tt.text, got, err, tt.want)
				}
				return
			}
			var fe *fieldError
			if !errors.As(err, &fe) || fe.Problem != tt.problem || fe.Field != tt.field.name || fe.Fix == "" {
				t.Errorf("parse(%q) error = %#v, want %s: %s and a fix", tt.text, err, tt.field.name, tt.problem)
			}
		})
	}
}

func TestDurationFieldFormatRoundTrips(t *testing.T) {
	for _, f := range []durationField{firstTokenField, stallField, intervalField} {
		for _, d := range []time.Duration{f.def, f.min, f.max} {
			if got, err := f.parse(f.format(d)); err != nil || got != d {
				t.Errorf("%s: parse(format(%v) = %q) = %v, %v", f.name, d, f.format(d), got, err)
			}
		}
	}
}

func TestUsableFolder(t *testing.T) {
	base := t.TempDir()
	file := filepath.Join(base, "a-file")
	if err := os.WriteFile(file, nil, 0o644); err != nil {
		t.Fatal(err)
	}
	tests := []struct {
		name, dir, problem string // problem "" when usable
	}{
		{"existing", base, ""},
		{"created", filepath.Join(base, "new", "runs"), ""},
		{"trailing slash cleaned", base + "/sub/", ""},
		{"relative", "runs", "is not a full path"},
		{"a file", file, "is a file, not a folder"},
		{"under a file", filepath.Join(file, "runs"), "cannot be created"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			got, err := usableFolder(tt.dir)
			if tt.problem == "" {
				if err != nil {
					t.Fatalf("usableFolder(%q): %v", tt.dir, err)
				}
				if info, err := os.Stat(got); err != nil || !info.IsDir() || got != filepath.Clean(tt.dir) {
					t.Errorf("usableFolder(%q) = %q, want the cleaned folder, existing", tt.dir, got)
				}
				return
			}
			var fe *folderError
			if !errors.As(err, &fe) || fe.Problem != tt.problem {
				t.Errorf("usableFolder(%q) error = %v, want %q", tt.dir, err, tt.problem)
			}
		})
	}
	t.Run("read-only", func(t *testing.T) {
		if os.Geteuid() == 0 {
			t.Skip("root writes into read-only folders")
		}
		ro := filepath.Join(base, "ro")
		if err := os.Mkdir(ro, 0o500); err != nil {
			t.Fatal(err)
		}
		var fe *folderError
		if _, err := usableFolder(ro); !errors.As(err, &fe) || fe.Problem != "is not writable" {
			t.Errorf("read-only folder: %v, want is not writable", err)
		}
	})
	t.Run("home", func(t *testing.T) {
		home := t.TempDir()
		t.Setenv("HOME", home)
		got, err := usableFolder("~/speedmatrix-runs")
		if err != nil || got != filepath.Join(home, "speedmatrix-runs") {
			t.Errorf("~/speedmatrix-runs = %q, %v; want it under %s", got, err, home)
		}
	})
}

func TestLoadAppSettingsKeepsTheLastExportFolder(t *testing.T) {
	u := newTestUI(t, testDeps(t, &fakeEngine{}), Options{})
	u.prefs.p.SetString(prefExport, "/data/exports")
	if got := loadAppSettings(u.prefs).ExportDir; got != "/data/exports" {
		t.Errorf("export folder from an earlier version = %q, want /data/exports", got)
	}
	u.prefs.save(prefApp, appSettings{ExportDir: "/data/new"})
	if got := loadAppSettings(u.prefs).ExportDir; got != "/data/new" {
		t.Errorf("export folder = %q, want the Settings screen's /data/new", got)
	}
	if !strings.Contains(u.prefs.p.String(prefApp), "/data/new") {
		t.Errorf("app preference = %q", u.prefs.p.String(prefApp))
	}
}
