package report

import (
	"encoding/json"
	"strings"
	"testing"
	"unicode/utf8"

	"speedmatrix/engine"
)

// TestReadBoundsWhatAFileSays: a report.json whose run.model is 1 MB and
// whose texts carry a right-to-left override is read with the model cut to
// a name (engine.MaxNameRunes), every other string to engine.MaxTextRunes,
// and no bidi control left: what report --in, History and --resume get.
func TestReadBoundsWhatAFileSays(t *testing.T) {
	rlo := "\u202e"
	r := engine.Report{SchemaVersion: engine.SchemaVersion,
		Run:           engine.RunInfo{Model: strings.Repeat("m", 1<<20), ServedModel: "gemma" + rlo, Notes: []string{strings.Repeat("n", 1<<20)}},
		LaunchCommand: "vllm serve " + rlo + "x"}
	data, err := json.Marshal(r)
	if err != nil {
		t.Fatal(err)
	}
	got, _, err := Decode(data, "report.json")
	if err != nil {
		t.Fatal(err)
	}
	if n := utf8.RuneCountInString(got.Run.Model); n != engine.MaxNameRunes {
		t.Errorf("run.model: %d runes, want %d", n, engine.MaxNameRunes)
	}
	if n := utf8.RuneCountInString(got.Run.Notes[0]); n != engine.MaxTextRunes {
		t.Errorf("a note: %d runes, want %d", n, engine.MaxTextRunes)
	}
	if got.Run.ServedModel != "gemma" || strings.Contains(got.LaunchCommand, rlo) {
		t.Errorf("bidi control kept: served model %q, launch command %q", got.Run.ServedModel, got.LaunchCommand)
	}
}
