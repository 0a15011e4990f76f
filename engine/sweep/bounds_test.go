package sweep

import (
	"os"
	"path/filepath"
	"strings"
	"testing"
	"unicode/utf8"

	"speedmatrix/engine"
	"speedmatrix/engine/report"
)

// TestLoadBoundsEveryString: a sweep.json someone edited loads with its
// configurations' names and reasons bounded and without bidi controls.
func TestLoadBoundsEveryString(t *testing.T) {
	dir := t.TempDir()
	s := New("server.toml", engine.Plan{}, named([]Config{{Name: BaselineName, Baseline: true}, {Name: "b", Settings: []Setting{{"max_num_seqs", "8"}}}}), "test")
	s.Configs[1].Name = "b\u202e" + strings.Repeat("x", 1<<20)
	s.Configs[1].Reason = "oom\u202e"
	if err := Save(dir, s); err != nil {
		t.Fatal(err)
	}
	got, err := Load(dir)
	if err != nil {
		t.Fatal(err)
	}
	c := got.Configs[1]
	if n := utf8.RuneCountInString(c.Name); n != engine.MaxTextRunes || strings.ContainsRune(c.Name+c.Reason, '\u202e') {
		t.Errorf("configuration: name of %d runes (want %d), %q, reason %q", n, engine.MaxTextRunes, c.Name[:10], c.Reason)
	}
}

// TestSummaryOfAHostileSweepHasNoBidi: a shared sweep folder whose
// sweep.json names a configuration with a right-to-left override, and one
// of whose runs has a model so named, gives a sweep.md and a sweep.csv
// without a bidi control.
func TestSummaryOfAHostileSweepHasNoBidi(t *testing.T) {
	dir := t.TempDir()
	s := New("server.toml", engine.Plan{DecodeContexts: []int{engine.K}, Concurrency: []int{1}},
		named([]Config{{Name: BaselineName, Baseline: true}, {Name: "b", Settings: []Setting{{"max_num_seqs", "8"}}}}), "test")
	s.Configs[0].Status = StatusDone
	s.Configs[1].Name, s.Configs[1].Status, s.Configs[1].Reason = "fast\u202ewols", StatusFailed, "oom\u2067"
	if err := Save(dir, s); err != nil {
		t.Fatal(err)
	}
	run := engine.Report{SchemaVersion: engine.SchemaVersion, Run: engine.RunInfo{Model: "gemma\u202eti", ServedModel: "g\u200f", Complete: true},
		Plan: s.Plan, Results: []engine.Result{{Cell: engine.Cell{Phase: engine.PhaseDecode, ContextTokens: engine.K, Concurrency: 1},
			Status: engine.StatusValid, TotalTokPerSec: 100, Flags: []engine.Flag{{Kind: engine.FlagPreempted, Message: "x\u202d"}}}}}
	if err := os.MkdirAll(RunDir(dir, s.Configs[0]), 0o755); err != nil {
		t.Fatal(err)
	}
	if err := report.Save(RunDir(dir, s.Configs[0]), run); err != nil {
		t.Fatal(err)
	}
	loaded, err := Load(dir)
	if err != nil {
		t.Fatal(err)
	}
	runs, bad := LoadRuns(dir, loaded)
	if len(runs) != 1 || len(bad) != 0 {
		t.Fatalf("runs %d, errors %v", len(runs), bad)
	}
	if err := WriteSummary(dir, loaded, runs, basis); err != nil {
		t.Fatal(err)
	}
	for _, name := range []string{MDFile, CSVFile} {
		b, err := os.ReadFile(filepath.Join(dir, name))
		if err != nil {
			t.Fatal(err)
		}
		if i := strings.IndexAny(string(b), engine.BidiControls); i >= 0 || !strings.Contains(string(b), "fastwols") {
			t.Errorf("%s: a bidi control at %d, or the configuration is not named:\n%s", name, i, b)
		}
	}
}

func TestLoadRefusesHostileFiles(t *testing.T) {
	dir := t.TempDir()
	good := New("server.toml", engine.Plan{}, named([]Config{{Name: BaselineName, Baseline: true}}), "test")
	for _, tt := range []struct {
		name    string
		mutate  func(s *Sweep)
		wantErr string
	}{
		{"escaping folder", func(s *Sweep) { s.Configs[0].Folder = "../x" }, `folder "../x"`},
		{"no baseline", func(s *Sweep) { s.Configs[0].Baseline = false }, "not the baseline"},
		{"other version", func(s *Sweep) { s.FormatVersion = 9 }, "format version 9"},
	} {
		s := good
		s.Configs = append([]Config(nil), good.Configs...)
		tt.mutate(&s)
		if err := Save(dir, s); err != nil {
			t.Fatal(err)
		}
		if _, err := Load(dir); err == nil || !strings.Contains(err.Error(), tt.wantErr) {
			t.Errorf("%s: err = %v", tt.name, err)
		}
	}
	big := filepath.Join(dir, "big.json")
	if err := os.WriteFile(big, make([]byte, maxJSONBytes+2), 0o644); err != nil {
		t.Fatal(err)
	}
	if _, err := Load(big); err == nil || !strings.Contains(err.Error(), "larger than any sweep.json") {
		t.Errorf("big file: err = %v", err)
	}
}
