package app

import (
	"os"
	"path/filepath"
	"speedmatrix/engine/runs"
	"strings"
	"testing"
)

// TestExportNeverOverwritesSilently: an export goes into a new folder named
// after the run; a second one into the same place asks, and "New folder"
// keeps the first. The confirmation offers to open the folder, and a
// folder that cannot be written gets the banner.
func TestExportNeverOverwritesSilently(t *testing.T) {
	u := newTestUI(t, testDeps(t, &fakeEngine{}), Options{})
	var asked []string
	answer := true // "Open folder" for the done dialog
	u.ask = func(title, message string, answers []string, pick func(int)) {
		asked = append(asked, title+" | "+strings.Join(answers, " | "))
		if answer {
			pick(0)
		} else {
			pick(1)
		}
	}
	var opened []string
	u.opened = func(dir string) { opened = append(opened, dir) }
	rep := cannedReport("tiny", 195.7)
	u.results.show(rep, "")
	parent := t.TempDir()
	want := filepath.Join(parent, runs.Folder(rep))

	u.results.exportInto(parent)
	waitFor(t, u.results.exported, "the export")
	if !holdsExport(want) || len(asked) != 1 || asked[0] != "Export done | Open folder | Close" || len(opened) != 1 || opened[0] != want {
		t.Fatalf("first export: files in %s %v, asked %q, opened %q", want, holdsExport(want), asked, opened)
	}
	stamp := filepath.Join(want, "report.md")
	if err := os.WriteFile(stamp, []byte("the user's edit"), 0o644); err != nil {
		t.Fatal(err)
	}
	answer = false // "New folder", then "Close"
	u.results.exportInto(parent)
	waitFor(t, u.results.exported, "the second export")
	if len(asked) != 3 || asked[1] != "Replace the earlier export? | Replace | New folder | Cancel" {
		t.Fatalf("second export asked %q, want whether to replace", asked)
	}
	if b, _ := os.ReadFile(stamp); string(b) != "the user's edit" {
		t.Error("the first export was overwritten")
	}
	if !holdsExport(want + "-2") {
		t.Errorf("the second export is not in %s-2", want)
	}

	blocked := filepath.Join(parent, "a-file")
	if err := os.WriteFile(blocked, nil, 0o644); err != nil {
		t.Fatal(err)
	}
	u.results.exportInto(blocked) // a file, not a folder
	waitFor(t, u.results.exported, "the failed export")
	if n := u.results.banner.current; !u.results.banner.visible() || n.Button != "Export again" || n.Detail == "" {
		t.Errorf("failed export banner = %+v", n)
	}
}
