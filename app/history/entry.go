package shell

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
	// summaryFile caches what the list shows of the run (report.Summary),
	// so that listing many runs doesn't read every report.json (they are
	// hundreds of KB each; see BENCHMARKS.md). It is valid while newer than
	// report.json and of summaryVersion.
	summaryFile    = "history-summary.json"
	summaryVersion = 4 // 2: GPU is report.ServedOn; 3: the summary names the run's target; 4: a load test's rates
)

// summaryCache is summaryFile's content.
type summaryCache struct {
	Version int            `json:"version"`
	Summary report.Summary `json:"summary"`
}

// historyEntry is one saved run as History lists it.
type historyEntry struct {
	folder  string
	name    string // from Rename; "" when never renamed
	sum     report.Summary
	err     error     // why its report.json (or sweep.json) could not be read
	modTime time.Time // of report.json (or sweep.json) and name.txt, to know when to read again
	// sweep is set for a sweep's folder (history_sweep.go), which sum
	// describes by its first run.
	sweep *sweep.Sweep
}

// entry reads the run (or the sweep) in folder, from memory while its
// files are unchanged; ok is false when the folder holds neither.
func (h *historyTab) entry(folder string) (historyEntry, bool) {
	dir := filepath.Join(h.dir(), folder)
	st, err := os.Stat(filepath.Join(dir, report.JSONFile))
	if err != nil {
		return h.sweepEntry(folder)
	}
	mod := entryModTime(dir, st.ModTime())
	if e, ok := h.cache[folder]; ok && e.modTime.Equal(mod) {
		return e, true
	}
	e := historyEntry{folder: folder, modTime: mod}
	e.sum, e.err = summaryOf(dir, st.ModTime())
	if b, err := os.ReadFile(filepath.Join(dir, nameFile)); err == nil {
		e.name = strings.TrimSpace(string(b))
	}
	h.cache[folder] = e
	return e, true
}

// summaryOf sums up the run in dir from its summaryFile when that is newer
// than its report.json (modified at reportMod), else from the report, and
// then writes the summaryFile for next time.
func summaryOf(dir string, reportMod time.Time) (report.Summary, error) {
	path := filepath.Join(dir, summaryFile)
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
func (h *historyTab) forget(folder string) {
	delete(h.cache, folder)
	_ = os.Remove(filepath.Join(h.dir(), folder, summaryFile))
}

// started is when the run began; runs that don't say sort last.
func (e historyEntry) started() time.Time { return e.sum.Started }

// title is the run's name, else its model.
func (e historyEntry) title() string {
	switch {
	case e.name != "":
		return e.name
	case e.err != nil:
		return e.folder
	}
	return e.sum.Model
}

// detail is the line under the title: "RTX 3090 24GB · 3 of 8 cells ·
// peak 4,863.4 tok/s · 2026-12-01 05:42", or why the run can't be read.
func (e historyEntry) detail() string {
	if e.err != nil {
		return "cannot be read: " + e.err.Error()
	}
	if e.sweep != nil {
		return e.sweepDetail()
	}
	var parts []string
	if e.name != "" {
		parts = append(parts, e.sum.Model)
	}
	if e.sum.GPU != "" {
		parts = append(parts, e.sum.GPU)
	}
	parts = append(parts, e.measured()...) // cells, or a load test's rates (history_load.go)
	if !e.sum.Started.IsZero() {
		parts = append(parts, e.sum.Started.Local().Format("2006-01-02 15:04"))
	}
	return strings.Join(parts, " · ")
}

// Label names the run in the compare pickers: "2026-12-01 05:42 ·
// tiny-sim · profile tiny", with what else tells it apart: a load test, a
// sweep, a run another tool measured.
func (e historyEntry) Label() string {
	if e.err != nil {
		return e.title()
	}
	parts := []string{e.title()}
	if !e.sum.Started.IsZero() {
		parts = append([]string{e.sum.Started.Local().Format("2006-01-02 15:04")}, parts...)
	}
	if e.sum.Target != "" {
		parts = append(parts, e.sum.Target)
	}
	if e.sum.Rates > 0 {
		parts = append(parts, "load test")
	}
	if e.sweep != nil {
		parts = append(parts, "sweep")
	}
	if e.sum.Imported != "" {
		parts = append(parts, "imported")
	}
	return strings.Join(parts, " · ")
}

// target is what the run measured, after its title in the list: the
// simulator's profile or the endpoint (password hidden).
func (e historyEntry) target() string {
	if e.err != nil {
		return ""
	}
	return e.sum.Target
}

// sweepColor marks a sweep: several runs, one per configuration.
var sweepColor = color.NRGBA{R: 0x6d, G: 0x28, B: 0xd9, A: 0xff}

// historyRow is one line of the list: the title with its badges, then the
// detail.
type historyRow struct {
	box                   *fyne.Container
	title, target, detail *widget.Label
	partial, simulated    fyne.CanvasObject
	sweep                 fyne.CanvasObject // the entry is a sweep
	imported              fyne.CanvasObject
	importedText          *canvas.Text
}

func (h *historyTab) newRow() fyne.CanvasObject {
	r := &historyRow{title: widget.NewLabel("model-name-placeholder"), detail: widget.NewLabel("RTX PRO 6000 96GB · 45 cells · peak 9,005.7 tok/s · 2026-01-01 00:00")}
	r.title.TextStyle = fyne.TextStyle{Bold: true}
	r.target = widget.NewLabel("")
	r.target.Truncation = fyne.TextTruncateEllipsis // a long URL gives way to the badges
	r.detail.Truncation = fyne.TextTruncateEllipsis
	r.partial = container.NewCenter(appwidget.Badge("Partial", partialColor))
	r.sweep = container.NewCenter(appwidget.Badge("Sweep", sweepColor))
	// The list's rows are as wide as its template's least width: a sweep
	// is never imported, so its badge takes no more room than the others.
	r.sweep.Hide()
	r.simulated = container.NewCenter(appwidget.Badge("Simulated", appwidget.SimulatedColor))
	imported, text := appwidget.TextBadge("Imported", importedColor)
	r.imported, r.importedText = container.NewCenter(imported), text
	top := container.NewBorder(nil, nil, r.title, container.NewHBox(r.sweep, r.partial, r.simulated, r.imported), r.target)
	r.box = container.NewVBox(top, r.detail)
	h.rows[r.box] = r
	return r.box
}

func (h *historyTab) updateRow(i widget.ListItemID, o fyne.CanvasObject) {
	r, ok := h.rows[o]
	if !ok || i >= len(h.entries) {
		return
	}
	e := h.entries[i]
	r.title.SetText(e.title())
	r.target.SetText(e.target())
	r.detail.SetText(e.detail())
	showIf(r.partial, e.err == nil && e.sum.Partial)
	showIf(r.simulated, e.sum.Simulated)
	showIf(r.sweep, e.sweep != nil)
	showIf(r.imported, e.sum.Imported != "")
	r.importedText.Text = "Imported · " + e.sum.Imported
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
