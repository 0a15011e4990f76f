package shell

import (
	"fmt"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	"fyne.io/fyne/v2"
	"fyne.io/fyne/v2/storage"
	"fyne.io/fyne/v2/widget"

	"speedmatrix/app"
	"speedmatrix/app/apptest"
	"speedmatrix/app/results"
	"speedmatrix/engine"
	"speedmatrix/engine/runs"
)

// exportFileNames lists the files Export writes of a report with no
// roofline, SLO, quality section or telemetry: those of every export.
func exportFileNames() []string { return results.ExportFileNamesFor(engine.Report{}) }

// TestExportNeverOverwritesSilently: an export goes into a new folder named
// after the run; a second one into the same place asks, and "New folder"
// keeps the first. The confirmation offers to open the folder, and a
// folder that cannot be written gets the banner.
func TestExportNeverOverwritesSilently(t *testing.T) {
	u := newTestUI(t, testDeps(t, &fakeEngine{}), app.Options{})
	var asked []string
	answer := true // "Open folder" for the done dialog
	u.Ask = func(title, message string, answers []string, pick func(int)) {
		asked = append(asked, title+" | "+strings.Join(answers, " | "))
		if answer {
			pick(0)
		} else {
			pick(1)
		}
	}
	var opened []string
	u.Opened = func(dir string) { opened = append(opened, dir) }
	rep := cannedReport("tiny", 195.7)
	u.results.Show(rep, "")
	parent := t.TempDir()
	want := filepath.Join(parent, runs.Folder(rep))

	u.results.ExportInto(parent)
	waitFor(t, u.results.Exported, "the export")
	if !results.HoldsExport(want, rep) || len(asked) != 1 || asked[0] != "Export done | Open folder | Close" || len(opened) != 1 || opened[0] != want {
		t.Fatalf("first export: files in %s %v, asked %q, opened %q", want, results.HoldsExport(want, rep), asked, opened)
	}
	stamp := filepath.Join(want, "report.md")
	if err := os.WriteFile(stamp, []byte("the user's edit"), 0o644); err != nil {
		t.Fatal(err)
	}
	answer = false // "New folder", then "Close"
	u.results.ExportInto(parent)
	waitFor(t, u.results.Exported, "the second export")
	if len(asked) != 3 || asked[1] != "Replace the earlier export? | Replace | New folder | Cancel" {
		t.Fatalf("second export asked %q, want whether to replace", asked)
	}
	if b, _ := os.ReadFile(stamp); string(b) != "the user's edit" {
		t.Error("the first export was overwritten")
	}
	if !results.HoldsExport(want+"-2", rep) {
		t.Errorf("the second export is not in %s-2", want)
	}

	blocked := filepath.Join(parent, "a-file")
	if err := os.WriteFile(blocked, nil, 0o644); err != nil {
		t.Fatal(err)
	}
	u.results.ExportInto(blocked) // a file, not a folder
	waitFor(t, u.results.Exported, "the failed export")
	if n := u.results.Banner.Current; !u.results.Banner.Visible() || n.Button != "Export again" || n.Detail == "" {
		t.Errorf("failed export banner = %+v", n)
	}
}

// TestFailedExportSaysWhatIsWhere: an export that could not make its
// folder says nothing was exported and names the folder, without
// pretending other files are there; one that wrote some files names the
// folder, how many, and the files that are missing.
func TestFailedExportSaysWhatIsWhere(t *testing.T) {
	u := newTestUI(t, testDeps(t, &fakeEngine{}), app.Options{})
	rep := cannedReport("tiny", 195.7)
	u.results.Show(rep, "")
	blocked := filepath.Join(t.TempDir(), "a-file")
	if err := os.WriteFile(blocked, nil, 0o644); err != nil {
		t.Fatal(err)
	}
	dir := filepath.Join(blocked, runs.Folder(rep))
	u.results.ExportInto(blocked)
	waitFor(t, u.results.Exported, "the export into a file")
	if got, want := u.results.Banner.Current.Message, "Nothing was exported: the folder "+dir+" could not be made."; got != want {
		t.Errorf("banner %q, want %q", got, want)
	}
	if a := u.results.Banner.Current.Action; strings.Contains(a, "other files") {
		t.Errorf("the banner says other files were written: %q", a)
	}

	parent := t.TempDir()
	dir = filepath.Join(parent, runs.Folder(rep))
	for _, name := range []string{"prefill.png", "report.md"} { // a folder where a file goes: it cannot be written
		if err := os.MkdirAll(filepath.Join(dir, name), 0o755); err != nil {
			t.Fatal(err)
		}
	}
	u.results.StartExport(dir)
	waitFor(t, u.results.Exported, "the partial export")
	total := len(results.ExportFileNamesFor(rep))
	want := fmt.Sprintf("%d files of %d were exported to %s; these were not: report.md, prefill.png.", total-2, total, dir)
	if got := u.results.Banner.Current.Message; got != want {
		t.Errorf("banner %q, want %q", got, want)
	}
	if _, err := os.Stat(filepath.Join(dir, "report.json")); err != nil {
		t.Errorf("the files that could be written are not there: %v", err)
	}
}

// TestExportOpensInTheExportFolder: Export all opens in the default export
// folder of the settings, or in the home folder without one, never in the
// folder the last dialog (Import) showed.
func TestExportOpensInTheExportFolder(t *testing.T) {
	uiOnly(t)
	root := t.TempDir()
	home, exports, imports := filepath.Join(root, "home-folder"), filepath.Join(root, "export-folder"), filepath.Join(root, "import-folder")
	for _, d := range []string{home, exports, imports} {
		if err := os.Mkdir(d, 0o755); err != nil {
			t.Fatal(err)
		}
	}
	t.Setenv("HOME", home)
	for _, tc := range []struct{ setting, want string }{{exports, "export-folder"}, {"", "home-folder"}} {
		u := newTestUI(t, testDeps(t, &fakeEngine{}), app.Options{})
		u.App.Preferences().SetString("fyne:fileDialogLastFolder", storage.NewFileURI(imports).String()) // where Import last was
		u.State.Settings.ExportDir = tc.setting
		u.results.Show(cannedReport("tiny", 195.7), "")
		u.results.OnExport()
		top := u.Win.Canvas().Overlays().Top()
		if top == nil {
			t.Fatal("Export all shows no dialog")
		}
		if apptest.FindButton(top, tc.want) == nil || apptest.FindButton(top, "import-folder") != nil {
			t.Errorf("export folder %q: the dialog does not open in %s", tc.setting, tc.want)
		}
	}
}

// menuFiles lists the files a menu offers, its sub-menus' included.
func menuFiles(m *fyne.Menu) []string {
	var out []string
	for _, it := range m.Items {
		switch {
		case it.ChildMenu != nil:
			out = append(out, menuFiles(it.ChildMenu)...)
		case !it.IsSeparator:
			out = append(out, it.Label)
		}
	}
	return out
}

// TestSaveOneFileMenuFitsTheWindow: Save one file… offers every export
// file, each chart's PNG and SVG under one item, and its menu opens inside
// a 1024×700 window, above the button at its bottom.
func TestSaveOneFileMenuFitsTheWindow(t *testing.T) {
	uiOnly(t)
	u := newTestUI(t, testDeps(t, &fakeEngine{}), app.Options{})
	u.Win.Resize(fyne.NewSize(1024, 700))
	rep := cannedReport("tiny", 195.7)
	u.results.Show(rep, "")
	u.Show(app.TabResults)
	m := u.results.SaveMenu()
	if got, want := menuFiles(m), results.ExportFileNamesFor(rep); !slices.Equal(slices.Sorted(slices.Values(got)), slices.Sorted(slices.Values(want))) {
		t.Errorf("Save one file offers %q, want %q", got, want)
	}
	if len(m.Items) > 12 { // the data files, a separator, a row per picture (decode-energy is the sixth); the menu must still open inside the window, below
		t.Errorf("the menu has %d rows", len(m.Items))
	}
	u.results.OnSaveMenu()
	top := u.Win.Canvas().Overlays().Top()
	if top == nil {
		t.Fatal("no menu")
	}
	var menu *widget.PopUpMenu
	apptest.Walk(top, func(o fyne.CanvasObject) bool { menu, _ = o.(*widget.PopUpMenu); return menu != nil })
	if menu == nil {
		t.Fatal("the overlay holds no menu")
	}
	pos := menu.Position() // in the overlay, which covers the window
	if bottom := pos.Y + menu.Size().Height; pos.Y < 0 || bottom > 700 || menu.Size().Height < 100 {
		t.Errorf("the menu spans y %.0f to %.0f of a 700 px window", pos.Y, bottom)
	}
}
