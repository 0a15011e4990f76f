package history

import (
	"encoding/json"
	"image/color"
	"os"
	"path/filepath"
	"strings"
	"time"

	"fyne.io/fyne/v2"
	"fyne.io/fyne/v2/canvas"
	"fyne.io/fyne/v2/container"
	"fyne.io/fyne/v2/widget"

	appwidget "speedmatrix/app/widget"
	"speedmatrix/engine/report"
	"speedmatrix/engine/sweep"
)

// Files History keeps in a run's folder beside the report's own.
const (
	// nameFile holds the name a run was given with Rename.
	nameFile = "name.txt"
	// SummaryFile caches what the list shows of the run (report.Summary),
	// so that listing many runs doesn't read every report.json (they are
	// hundreds of KB each; see BENCHMARKS.md). It is valid while newer than
	// report.json and of summaryVersion.
	SummaryFile    = "history-summary.json"
	summaryVersion = 4 // 2: GPU is report.ServedOn; 3: the summary names the run's target; 4: a load test's rates
)

// summaryCache is summaryFile's content.
type summaryCache struct {
	Version int            `json:"version"`
	Summary report.Summary `json:"summary"`
}

// Entry is one saved run as History lists it.
type Entry struct {
	Folder  string
	name    string // from Rename; "" when never renamed
	Sum     report.Summary
	err     error     // why its report.json (or sweep.json) could not be read
	modTime time.Time // of report.json (or sweep.json) and name.txt, to know when to read again
	// Sweep is set for a sweep's folder (sweep.go), which sum
	// describes by its first run.
	Sweep *sweep.Sweep
}

// entry reads the run (or the sweep) in folder, from memory while its
// files are unchanged; ok is false when the folder holds neither.
func (h *Tab) entry(folder string) (Entry, bool) {
	dir := filepath.Join(h.Dir(), folder)
	st, err := os.Stat(filepath.Join(dir, report.JSONFile))
	if err != nil {
		return h.sweepEntry(folder)
	}
	mod := entryModTime(dir, st.ModTime())
	if e, ok := h.Cache[folder]; ok && e.modTime.Equal(mod) {
		return e, true
	}
	e := Entry{Folder: folder, modTime: mod}
	e.Sum, e.err = summaryOf(dir, st.ModTime())
	if b, err := os.ReadFile(filepath.Join(dir, nameFile)); err == nil {
		e.name = strings.TrimSpace(string(b))
	}
	h.Cache[folder] = e
	return e, true
}

// summaryOf sums up the run in dir from its summaryFile when that is newer
// than its report.json (modified at reportMod), else from the report, and
// then writes the summaryFile for next time.
func summaryOf(dir string, reportMod time.Time) (report.Summary, error) {
	path := filepath.Join(dir, SummaryFile)
	if st, err := os.Stat(path); err == nil && !st.ModTime().Before(reportMod) {
		var c summaryCache
		if b, err := os.ReadFile(path); err == nil && json.Unmarshal(b, &c) == nil && c.Version == summaryVersion {
			return c.Summary, nil
		}
	}
	sum, err := report.LoadSummary(dir)
	if err != nil {
		return sum, err
	}
	if b, err := json.Marshal(summaryCache{Version: summaryVersion, Summary: sum}); err == nil {
		_ = report.WriteFileAtomic(path, b) // only a cache: a read-only folder is listed all the same
	}
	return sum, nil
}

// forget drops what History knows of the run in folder, after its
// report.json was written: the next list reads it again.
func (h *Tab) forget(folder string) {
	delete(h.Cache, folder)
	_ = os.Remove(filepath.Join(h.Dir(), folder, SummaryFile))
}

// started is when the run began; runs that don't say sort last.
func (e Entry) started() time.Time { return e.Sum.Started }

// Title is the run's name, else its model.
func (e Entry) Title() string {
	switch {
	case e.name != "":
		return e.name
	case e.err != nil:
		return e.Folder
	}
	return e.Sum.Model
}

// Detail is the line under the title: "RTX 3090 24GB · 3 of 8 cells ·
// peak 4,863.4 tok/s · 2026-12-01 05:42", or why the run can't be read.
func (e Entry) Detail() string {
	if e.err != nil {
		return "cannot be read: " + e.err.Error()
	}
	if e.Sweep != nil {
		return e.sweepDetail()
	}
	var parts []string
	if e.name != "" {
		parts = append(parts, e.Sum.Model)
	}
	if e.Sum.GPU != "" {
		parts = append(parts, e.Sum.GPU)
	}
	parts = append(parts, e.measured()...) // cells, or a load test's rates (load.go)
	if !e.Sum.Started.IsZero() {
		parts = append(parts, e.Sum.Started.Local().Format("2006-01-02 15:04"))
	}
	return strings.Join(parts, " · ")
}

// Label names the run in the compare pickers: "2026-12-01 05:42 ·
// tiny-sim · profile tiny", with what else tells it apart: a load test, a
// sweep, a run another tool measured.
func (e Entry) Label() string {
	if e.err != nil {
		return e.Title()
	}
	parts := []string{e.Title()}
	if !e.Sum.Started.IsZero() {
		parts = append([]string{e.Sum.Started.Local().Format("2006-01-02 15:04")}, parts...)
	}
	if e.Sum.Target != "" {
		parts = append(parts, e.Sum.Target)
	}
	if e.Sum.Rates > 0 {
		parts = append(parts, "load test")
	}
	if e.Sweep != nil {
		parts = append(parts, "sweep")
	}
	if e.Sum.Imported != "" {
		parts = append(parts, "imported")
	}
	return strings.Join(parts, " · ")
}

// Target is what the run measured, after its title in the list: the
// simulator's profile or the endpoint (password hidden).
func (e Entry) Target() string {
	if e.err != nil {
		return ""
	}
	return e.Sum.Target
}

// sweepColor marks a sweep: several runs, one per configuration.
var sweepColor = color.NRGBA{R: 0x6d, G: 0x28, B: 0xd9, A: 0xff}

// Row is one line of the list: the title with its badges, then the
// detail.
type Row struct {
	box                   *fyne.Container
	Title, Target, Detail *widget.Label
	Partial, Simulated    fyne.CanvasObject
	sweep                 fyne.CanvasObject // the entry is a sweep
	Imported              fyne.CanvasObject
	importedText          *canvas.Text
}

func (h *Tab) newRow() fyne.CanvasObject {
	r := &Row{Title: widget.NewLabel("model-name-placeholder"), Detail: widget.NewLabel("RTX PRO 6000 96GB · 45 cells · peak 9,005.7 tok/s · 2026-01-01 00:00")}
	r.Title.TextStyle = fyne.TextStyle{Bold: true}
	r.Target = widget.NewLabel("")
	r.Target.Truncation = fyne.TextTruncateEllipsis // a long URL gives way to the badges
	r.Detail.Truncation = fyne.TextTruncateEllipsis
	r.Partial = container.NewCenter(appwidget.Badge("Partial", appwidget.PartialColor))
	r.sweep = container.NewCenter(appwidget.Badge("Sweep", sweepColor))
	// The list's rows are as wide as its template's least width: a sweep
	// is never imported, so its badge takes no more room than the others.
	r.sweep.Hide()
	r.Simulated = container.NewCenter(appwidget.Badge("Simulated", appwidget.SimulatedColor))
	imported, text := appwidget.TextBadge("Imported", appwidget.ImportedColor)
	r.Imported, r.importedText = container.NewCenter(imported), text
	top := container.NewBorder(nil, nil, r.Title, container.NewHBox(r.sweep, r.Partial, r.Simulated, r.Imported), r.Target)
	r.box = container.NewVBox(top, r.Detail)
	h.Rows[r.box] = r
	return r.box
}

func (h *Tab) updateRow(i widget.ListItemID, o fyne.CanvasObject) {
	r, ok := h.Rows[o]
	if !ok || i >= len(h.Entries) {
		return
	}
	e := h.Entries[i]
	r.Title.SetText(e.Title())
	r.Target.SetText(e.Target())
	r.Detail.SetText(e.Detail())
	appwidget.ShowIf(r.Partial, e.err == nil && e.Sum.Partial)
	appwidget.ShowIf(r.Simulated, e.Sum.Simulated)
	appwidget.ShowIf(r.sweep, e.Sweep != nil)
	appwidget.ShowIf(r.Imported, e.Sum.Imported != "")
	r.importedText.Text = "Imported · " + e.Sum.Imported
	r.box.Refresh() // the title and badges changed width: lay the row out again
}

// entryModTime is when a History folder last changed: its report.json or
// sweep.json (saved), or its name file (renamed), whichever is later.
func entryModTime(dir string, saved time.Time) time.Time {
	if ns, err := os.Stat(filepath.Join(dir, nameFile)); err == nil && ns.ModTime().After(saved) {
		return ns.ModTime()
	}
	return saved
}
