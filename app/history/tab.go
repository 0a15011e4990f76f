package shell

import (
	"os"
	"path/filepath"
	"slices"
	"strings"

	"fyne.io/fyne/v2"
	"fyne.io/fyne/v2/container"
	"fyne.io/fyne/v2/theme"
	"fyne.io/fyne/v2/widget"

	"speedmatrix/app"
	appwidget "speedmatrix/app/widget"
	"speedmatrix/engine"
)

// historyTab lists the saved runs with what each measured; it opens,
// renames, deletes and imports runs, and compares two (history_compare.go).
type historyTab struct {
	u *app.UI
	// The screens it asks to show or finish a saved run (connected by newUI).
	reports reportViewer
	runs    runStarter
	targets targetSource

	entries  []historyEntry          // newest first
	cache    map[string]historyEntry // by folder: a report.json is read once
	list     *widget.List
	rows     map[fyne.CanvasObject]*historyRow
	selected int // index into entries; -1 for none

	openBtn, renameBtn, deleteBtn, importBtn *widget.Button
	resumeBtn                                *widget.Button // for a partial run of ours
	where                                    *widget.Label  // the runs folder
	listed                                   string         // the runs folder entries come from
	a, b                                     *appwidget.DropDown
	compareBtn                               *widget.Button
	compareResult, compareBox                *fyne.Container
	compareCard                              *widget.Card  // its subtitle says what the comparison shows
	status                                   *widget.Label // what the comparison compares
	note                                     *widget.Label // the list's: what was imported, or that none is saved
	banner                                   *appwidget.Banner

	// The dialogs of the screen; tests replace them.
	confirm  func(title, message string, ok func())
	askName  func(current string, ok func(name string))
	pickFile func(ok func(data []byte, name string))
}

// newHistoryTab builds the History screen.
func newHistoryTab(u *app.UI) (*historyTab, *container.TabItem) {
	h := &historyTab{u: u, selected: -1, cache: map[string]historyEntry{}, rows: map[fyne.CanvasObject]*historyRow{}}
	h.confirm, h.askName, h.pickFile = h.confirmDialog, h.nameDialog, h.fileDialog
	h.list = widget.NewList(func() int { return len(h.entries) }, h.newRow, h.updateRow)
	h.list.OnSelected = h.onSelect
	h.list.OnUnselected = func(widget.ListItemID) { h.onSelect(-1) }
	h.openBtn = widget.NewButtonWithIcon("Open in Results", theme.FolderOpenIcon(), h.onOpen)
	h.renameBtn = widget.NewButtonWithIcon("Rename…", theme.DocumentCreateIcon(), h.onRename)
	h.deleteBtn = widget.NewButtonWithIcon("Delete…", theme.DeleteIcon(), h.onDelete)
	h.importBtn = widget.NewButtonWithIcon("Import…", theme.UploadIcon(), h.onImport)
	h.resumeBtn = widget.NewButtonWithIcon("Resume", theme.MediaPlayIcon(), h.onResume)
	h.resumeBtn.Disable()
	h.a, h.b = appwidget.NewDropDown(nil, nil), appwidget.NewDropDown(nil, nil)
	h.a.PlaceHolder, h.b.PlaceHolder = "Run A (the base)", "Run B (compared with A)"
	h.compareBtn = widget.NewButtonWithIcon("Compare", theme.ViewRefreshIcon(), h.onCompare)
	h.compareResult = container.NewStack()
	h.status, h.note = widget.NewLabel(""), widget.NewLabel("")
	h.status.Wrapping, h.note.Wrapping = fyne.TextWrapWord, fyne.TextWrapWord
	h.banner = appwidget.NewBanner()
	h.where = widget.NewLabel("")
	h.where.Truncation = fyne.TextTruncateEllipsis
	h.where.Importance = widget.LowImportance
	h.reload()
	u.State.Watch(app.ChangeRun, func() { h.onSelect(h.selected) })
	u.State.Watch(app.ChangeSaved, h.onSaved)
	u.State.Watch(app.ChangeSettings, h.followFolder)

	actions := container.NewHBox(h.openBtn, h.resumeBtn, h.renameBtn, h.deleteBtn)
	left := widget.NewCard("Saved runs", "newest first",
		container.NewBorder(container.NewVBox(container.NewHBox(h.importBtn), h.where, h.note), actions, nil, nil, h.list))
	pick := widget.NewForm(widget.NewFormItem("A", h.a), widget.NewFormItem("B", h.b))
	h.compareBox = container.NewBorder(container.NewVBox(pick, h.compareBtn, h.status), nil, nil, nil, h.compareResult)
	right := widget.NewCard("Compare two runs", compareCells, h.compareBox)
	h.compareCard = right
	split := container.NewHSplit(left, right)
	split.Offset = 0.42
	header := appwidget.ScreenHeader("History", "Open a saved run or one imported from llm-inference-bench, or see what a change of settings, model or GPU did to each cell.")
	body := container.NewBorder(h.banner.Object(), nil, nil, nil, split)
	return h, container.NewTabItemWithIcon(app.TabHistory, theme.HistoryIcon(), appwidget.Screen(header, body, nil))
}

// dir is where History keeps runs.
func (h *historyTab) dir() string { return h.u.RunsDir() }

// onSaved lists the runs again, the one just saved read afresh.
func (h *historyTab) onSaved() {
	h.forget(filepath.Base(h.u.State.Saved))
	h.reload()
}

// followFolder lists the runs folder of the settings, when it moved.
func (h *historyTab) followFolder() {
	if h.dir() != h.listed {
		h.reload()
	}
}

// reload lists the run folders holding a report.json, newest first, and
// keeps the selection and the compare pickers on the same runs.
func (h *historyTab) reload() {
	selected := h.selectedFolder()
	a, b := h.pickedFolder(h.a), h.pickedFolder(h.b)
	h.listed = h.dir()
	h.where.SetText("Saved in " + h.listed)
	dirents, _ := os.ReadDir(h.listed)
	h.entries = h.entries[:0]
	for _, d := range dirents {
		if !d.IsDir() {
			continue
		}
		if e, ok := h.entry(d.Name()); ok {
			h.entries = append(h.entries, e)
		}
	}
	slices.SortStableFunc(h.entries, func(x, y historyEntry) int {
		if c := y.started().Compare(x.started()); c != 0 {
			return c
		}
		return strings.Compare(y.folder, x.folder)
	})
	h.setPickerOptions(a, b)
	h.list.Refresh()
	h.selectFolder(selected)
	if len(h.entries) == 0 {
		appwidget.SetOptional(h.note, "No saved runs yet: every finished run is saved here automatically, and Import… adds one made elsewhere.")
	} else if strings.HasPrefix(h.note.Text, "No saved runs") {
		appwidget.SetOptional(h.note, "")
	}
}

// index is the position of folder in entries, or -1.
func (h *historyTab) index(folder string) int {
	return slices.IndexFunc(h.entries, func(e historyEntry) bool { return e.folder == folder })
}

func (h *historyTab) selectedFolder() string {
	if h.selected < 0 || h.selected >= len(h.entries) {
		return ""
	}
	return h.entries[h.selected].folder
}

// selectFolder selects the run in folder, or nothing when it isn't listed.
func (h *historyTab) selectFolder(folder string) {
	if i := h.index(folder); folder != "" && i >= 0 {
		h.list.Select(i)
		return
	}
	h.list.UnselectAll()
	h.onSelect(-1)
}

// onSelect enables what can be done with the selected run.
func (h *historyTab) onSelect(i widget.ListItemID) {
	h.selected = i
	for _, b := range []*widget.Button{h.openBtn, h.renameBtn, h.deleteBtn} {
		if i >= 0 && i < len(h.entries) {
			b.Enable()
		} else {
			b.Disable()
		}
	}
	h.resumeBtn.Disable()
	if i >= 0 && i < len(h.entries) && (h.resumable(h.entries[i]) || h.sweepResumable(h.entries[i])) {
		h.resumeBtn.Enable()
	}
}

// resumable reports whether the engine can finish a listed run: a partial
// matrix of ours (a load test is not resumed), while no other run goes on.
func (h *historyTab) resumable(e historyEntry) bool {
	return e.err == nil && e.sum.Partial && e.sum.Imported == "" && e.sum.Rates == 0 && !h.u.State.Run.Running
}

// offerLatest offers the Results screen the newest saved run that can be
// read, so that a restarted app shows the last run rather than nothing.
func (h *historyTab) offerLatest() {
	for _, e := range h.entries {
		if e.err != nil || e.sweep != nil {
			continue
		}
		if rep, err := h.Load(e.folder); err == nil {
			h.reports.offerReport(rep, filepath.Join(h.dir(), e.folder))
			return
		}
	}
}

// onResume finishes the selected partial run in its own folder.
func (h *historyTab) onResume() {
	if e, ok := h.selectedSweep(); ok {
		h.resumeBtn.Disable()
		resumeSweep(h.targets, h.runs, filepath.Join(h.dir(), e.folder))
		return
	}
	if rep, dir, ok := h.openSelected(); ok {
		h.resumeBtn.Disable()
		h.runs.resumeRun(rep, dir)
	}
}

// onOpen shows the selected run on the Results screen.
func (h *historyTab) onOpen() {
	if e, ok := h.selectedSweep(); ok {
		h.reports.openSweep(filepath.Join(h.dir(), e.folder))
		return
	}
	if rep, dir, ok := h.openSelected(); ok {
		h.reports.openReport(rep, dir)
	}
}

// openSelected reads the selected run and its folder; when it can't, the
// banner says why and ok is false.
func (h *historyTab) openSelected() (rep engine.Report, dir string, ok bool) {
	folder := h.selectedFolder()
	if folder == "" {
		return rep, "", false
	}
	dir = filepath.Join(h.dir(), folder)
	rep, err := h.Load(folder)
	if err != nil {
		h.banner.Show(app.Notice{Message: "This run could not be opened.", Action: "Its folder may be from a newer Speed Matrix, or damaged: " + dir + ".", Detail: err.Error()})
		return rep, dir, false
	}
	h.banner.Hide()
	return rep, dir, true
}

// selectedSweep is the selected entry when it is a sweep that can be read.
func (h *historyTab) selectedSweep() (historyEntry, bool) {
	if h.selected < 0 || h.selected >= len(h.entries) {
		return historyEntry{}, false
	}
	e := h.entries[h.selected]
	return e, e.sweep != nil
}

// Load reads a run by its folder name.
func (h *historyTab) Load(folder string) (engine.Report, error) {
	return h.u.Deps.Store.Load(filepath.Join(h.dir(), folder))
}
