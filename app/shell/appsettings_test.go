package shell

import (
	"errors"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"speedmatrix/app"
)

func TestDurationFieldParse(t *testing.T) {
	tests := []struct {
		field   app.DurationField
		text    string
		want    time.Duration
		problem string // "" when it parses
	}{
		{app.FirstTokenField, "", 5 * time.Minute, ""},
		{app.FirstTokenField, "5", 5 * time.Minute, ""},
		{app.FirstTokenField, " 1.5 ", 90 * time.Second, ""},
		{app.FirstTokenField, "90s", 90 * time.Second, ""},
		{app.FirstTokenField, "2 min", 2 * time.Minute, ""},
		{app.FirstTokenField, "1m30s", 90 * time.Second, ""},
		{app.FirstTokenField, "2h", 0, "2h is out of range"},
		{app.FirstTokenField, "abc", 0, `"abc" is not a duration`},
		{app.FirstTokenField, "NaN", 0, `"NaN" is not a duration`},
		{app.StallField, "", 30 * time.Second, ""},
		{app.StallField, "45", 45 * time.Second, ""},
		{app.StallField, "0", 0, "0 is out of range"},
		{app.StallField, "-5", 0, "-5 is out of range"},
		{app.IntervalField, "", time.Second, ""},
		{app.IntervalField, "0.25", 250 * time.Millisecond, ""},
		{app.IntervalField, "500ms", 500 * time.Millisecond, ""},
		{app.IntervalField, "100ms", 0, "100ms is out of range"},
	}
	for _, tt := range tests {
		t.Run(tt.field.Name+"/"+tt.text, func(t *testing.T) {
			got, err := tt.field.Parse(tt.text)
			if tt.problem == "" {
				if err != nil || got != tt.want {
					t.Errorf("parse(%q) = %v, %v; want %v", tt.text, got, err, tt.want)
				}
				return
			}
			var fe *app.FieldError
			if !errors.As(err, &fe) || fe.Problem != tt.problem || fe.Field != tt.field.Name || fe.Fix == "" {
				t.Errorf("parse(%q) error = %#v, want %s: %s and a fix", tt.text, err, tt.field.Name, tt.problem)
			}
		})
	}
}

func TestDurationFieldFormatRoundTrips(t *testing.T) {
	for _, f := range []app.DurationField{app.FirstTokenField, app.StallField, app.IntervalField} {
		for _, d := range []time.Duration{f.Def, f.Min, f.Max} {
			if got, err := f.Parse(f.Format(d)); err != nil || got != d {
				t.Errorf("%s: parse(format(%v) = %q) = %v, %v", f.Name, d, f.Format(d), got, err)
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
			got, err := app.UsableFolder(tt.dir)
			if tt.problem == "" {
				if err != nil {
					t.Fatalf("usableFolder(%q): %v", tt.dir, err)
				}
				if info, err := os.Stat(got); err != nil || !info.IsDir() || got != filepath.Clean(tt.dir) {
					t.Errorf("usableFolder(%q) = %q, want the cleaned folder, existing", tt.dir, got)
				}
				return
			}
			var fe *app.FolderError
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
		var fe *app.FolderError
		if _, err := app.UsableFolder(ro); !errors.As(err, &fe) || fe.Problem != "is not writable" {
			t.Errorf("read-only folder: %v, want is not writable", err)
		}
	})
	t.Run("home", func(t *testing.T) {
		home := t.TempDir()
		t.Setenv("HOME", home)
		got, err := app.UsableFolder("~/speedmatrix-runs")
		if err != nil || got != filepath.Join(home, "speedmatrix-runs") {
			t.Errorf("~/speedmatrix-runs = %q, %v; want it under %s", got, err, home)
		}
	})
}

func TestLoadAppSettingsKeepsTheLastExportFolder(t *testing.T) {
	u := newTestUI(t, testDeps(t, &fakeEngine{}), app.Options{})
	u.Prefs.P.SetString(app.PrefExport, "/data/exports")
	if got := app.LoadSettings(u.Prefs).ExportDir; got != "/data/exports" {
		t.Errorf("export folder from an earlier version = %q, want /data/exports", got)
	}
	u.Prefs.Save(app.PrefApp, app.Settings{ExportDir: "/data/new"})
	if got := app.LoadSettings(u.Prefs).ExportDir; got != "/data/new" {
		t.Errorf("export folder = %q, want the Settings screen's /data/new", got)
	}
	if !strings.Contains(u.Prefs.P.String(app.PrefApp), "/data/new") {
		t.Errorf("app preference = %q", u.Prefs.P.String(app.PrefApp))
	}
}
