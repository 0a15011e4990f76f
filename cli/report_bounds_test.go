package cli

import (
	"encoding/json"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"unicode/utf8"

	"speedmatrix/engine"
	"speedmatrix/engine/report"
)

// hostileFile writes what fixture holds, with edit's changes, into a
// temporary folder.
func hostileFile(t *testing.T, fixture string, edit func(map[string]any)) string {
	t.Helper()
	data, err := os.ReadFile(fixture)
	if err != nil {
		t.Fatal(err)
	}
	var v map[string]any
	if err := json.Unmarshal(data, &v); err != nil {
		t.Fatal(err)
	}
	edit(v)
	if data, err = json.Marshal(v); err != nil {
		t.Fatal(err)
	}
	path := filepath.Join(t.TempDir(), "hostile.json")
	if err := os.WriteFile(path, data, 0o644); err != nil {
		t.Fatal(err)
	}
	return path
}

// checkOutputs fails for each file of dir, and stdout, that holds a bidi
// control or a run of more than engine.MaxNameRunes of the letter the
// hostile name repeats.
func checkOutputs(t *testing.T, dir, stdout string, long string) {
	t.Helper()
	entries, err := os.ReadDir(dir)
	if err != nil {
		t.Fatal(err)
	}
	texts := map[string]string{"the console": stdout}
	for _, e := range entries {
		if strings.HasSuffix(e.Name(), ".png") {
			continue // drawn from the same items as its .svg
		}
		b, err := os.ReadFile(filepath.Join(dir, e.Name()))
		if err != nil {
			t.Fatal(err)
		}
		texts[e.Name()] = string(b)
	}
	for name, s := range texts {
		if i := strings.IndexAny(s, engine.BidiControls); i >= 0 {
			t.Errorf("%s has a bidi control: %q", name, s[max(0, i-20):min(len(s), i+20)])
		}
		if strings.Contains(s, long) {
			t.Errorf("%s holds more than %d runes of the long name", name, engine.MaxNameRunes)
		}
	}
}

// TestReportOfAHostileRun: report --in of a report.json whose run.model is
// 1 MB with a right-to-left override, as are its other texts, draws every
// picture and the page with the model cut to a name's length, and nothing
// it writes (pictures, report.html, results.csv) or prints has a bidi
// control.
func TestReportOfAHostileRun(t *testing.T) {
	t.Parallel()
	in := hostileFile(t, seedFixture, func(v map[string]any) {
		run := v["run"].(map[string]any)
		run["model"] = "m\u202e" + strings.Repeat("m", 1<<20)
		run["served_model"] = "gemma\u202eti"
		run["notes"] = []string{"a note\u2067"}
		v["launch_command"] = "vllm serve \u202egemma"
		for _, r := range v["results"].([]any) {
			r.(map[string]any)["error"] = "failed\u202e"
		}
	})
	out := t.TempDir()
	stdout, _, err := runReport(t, "--in", in, "--out", out)
	if err != nil {
		t.Fatal(err)
	}
	checkOutputs(t, out, stdout, strings.Repeat("m", engine.MaxNameRunes+1))
	page, err := os.ReadFile(filepath.Join(out, "report.html"))
	if err != nil {
		t.Fatal(err)
	}
	model := strings.Repeat("m", engine.MaxNameRunes-1) + engine.Ellipsis
	if !strings.Contains(string(page), model) || utf8.RuneCountInString(model) != engine.MaxNameRunes {
		t.Error("report.html does not name the model cut to a name's length")
	}
}

// TestReportOfAHostileImport: an llm-inference-bench file whose model,
// version and event log carry bidi controls is imported into report.json,
// report.md, results.csv, the pictures and the page without one, and the
// console's line about it has none.
func TestReportOfAHostileImport(t *testing.T) {
	t.Parallel()
	in := hostileFile(t, libFixture, func(v map[string]any) {
		meta := v["metadata"].(map[string]any)
		meta["model"] = "tiny\u202e" + strings.Repeat("m", 1<<20)
		meta["version"] = "0.4.18\u2066"
		log := v["event_log"].([]any)
		for i, l := range log {
			log[i] = l.(string) + "\u202e"
		}
	})
	out := t.TempDir()
	stdout, _, err := runReport(t, "--in", in, "--out", out)
	if err != nil {
		t.Fatal(err)
	}
	for _, name := range []string{report.JSONFile, report.MarkdownFile, report.CSVFile, "report.html", "report.svg"} {
		if _, err := os.Stat(filepath.Join(out, name)); err != nil {
			t.Errorf("%s not written: %v", name, err)
		}
	}
	checkOutputs(t, out, stdout, strings.Repeat("m", engine.MaxNameRunes+1))
}
