package history

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

// Tab lists the saved runs with what each measured; it opens,
// renames, deletes and imports runs, and compares two (compare.go).
type Tab struct {
	U *app.UI
	// The screens it asks to show or finish a saved run (connected by newUI).
	Reports app.ReportViewer
	Runs    app.RunStarter
	Targets app.TargetSource

	Entries  []Entry          // newest first
	Cache    map[string]Entry // by folder: a report.json is read once
	List     *widget.List
	Rows     map[fyne.CanvasObject]*Row
	Selected int // index into entries; -1 for none

	OpenBtn, renameBtn, deleteBtn, importBtn *widget.Button
	ResumeBtn                                *widget.Button // for a partial run of ours
	Where                                    *widget.Label  // the runs folder
	listed                                   string         // the runs folder entries come from
	A, B                                     *appwidget.DropDown
	compareBtn                               *widget.Button
	CompareResult, compareBox                *fyne.Container
	CompareCard                              *widget.Card  // its subtitle says what the comparison shows
	Status                                   *widget.Label // what the comparison compares
	Note                                     *widget.Label // the list's: what was imported, or that none is saved
	Banner                                   *appwidget.Banner

	// The dialogs of the screen; tests replace them.
	Confirm  func(title, message string, ok func())
	AskName  func(current string, ok func(name string))
	PickFile func(ok func(data []byte, name string))
}

// New builds the History screen.
func New(u *app.UI) (*Tab, *container.TabItem) {
	h := &Tab{U: u, Selected: -1, Cache: map[string]Entry{}, Rows: map[fyne.CanvasObject]*Row{}}
	h.Confirm, h.AskName, h.PickFile = h.confirmDialog, h.nameDialog, h.fileDialog
	h.List = widget.NewList(func() int { return len(h.Entries) }, h.newRow, h.updateRow)
	h.List.OnSelected = h.onSelect
	h.List.OnUnselected = func(widget.ListItemID) { h.onSelect(-1) }
	h.OpenBtn = widget.NewButtonWithIcon("Open in Results", theme.FolderOpenIcon(), h.OnOpen)
	h.renameBtn = widget.NewButtonWithIcon("Rename…", theme.DocumentCreateIcon(), h.OnRename)
	h.deleteBtn = widget.NewButtonWithIcon("Delete…", theme.DeleteIcon(), h.OnDelete)
	h.importBtn = widget.NewButtonWithIcon("Import…", theme.UploadIcon(), h.OnImport)
	h.ResumeBtn = widget.NewButtonWithIcon("Resume", theme.MediaPlayIcon(), h.onResume)
	h.ResumeBtn.Disable()
	h.A, h.B = appwidget.NewDropDown(nil, nil), appwidget.NewDropDown(nil, nil)
	h.A.PlaceHolder, h.B.PlaceHolder = "Run A (the base)", "Run B (compared with A)"
	h.compareBtn = widget.NewButtonWithIcon("Compare", theme.ViewRefreshIcon(), h.OnCompare)
	h.CompareResult = container.NewStack()
	h.Status, h.Note = widget.NewLabel(""), widget.NewLabel("")
	h.Status.Wrapping, h.Note.Wrapping = fyne.TextWrapWord, fyne.TextWrapWord
	h.Banner = appwidget.NewBanner()
	h.Where = widget.NewLabel("")
	h.Where.Truncation = fyne.TextTruncateEllipsis
	h.Where.Importance = widget.LowImportance
	h.Reload()
	u.State.Watch(app.ChangeRun, func() { h.onSelect(h.Selected) })
	u.State.Watch(app.ChangeSaved, h.onSaved)
	u.State.Watch(app.ChangeSettings, h.followFolder)

	actions := container.NewHBox(h.OpenBtn, h.ResumeBtn, h.renameBtn, h.deleteBtn)
	left := widget.NewCard("Saved runs", "newest first",
		container.NewBorder(container.NewVBox(container.NewHBox(h.importBtn), h.Where, h.Note), actions, nil, nil, h.List))
	pick := widget.NewForm(widget.NewFormItem("A", h.A), widget.NewFormItem("B", h.B))
	h.compareBox = container.NewBorder(container.NewVBox(pick, h.compareBtn, h.Status), nil, nil, nil, h.CompareResult)
	right := widget.NewCard("Compare two runs", compareCells, h.compareBox)
	h.CompareCard = right
	split := container.NewHSplit(left, right)
	split.Offset = 0.42
	header := appwidget.ScreenHeader("History", "Open a saved run or one imported from another tool (llm-inference-bench, vllm bench serve, GuideLLM, AIPerf, inference-perf), or see what a change of settings, model or GPU did to each cell.")
	body := container.NewBorder(h.Banner.Object(), nil, nil, nil, split)
	return h, container.NewTabItemWithIcon(app.TabHistory, theme.HistoryIcon(), appwidget.Screen(header, body, nil))
}

// Dir is where History keeps runs.
func (h *Tab) Dir() string { return h.U.RunsDir() }

// onSaved lists the runs again, the one just saved read afresh.
func (h *Tab) onSaved() {
	h.forget(filepath.Base(h.U.State.Saved))
	h.Reload()
}

// followFolder lists the runs folder of the settings, when it moved.
func (h *Tab) followFolder() {
	if h.Dir() != h.listed {
		h.Reload()
	}
}

// Reload lists the run folders holding a report.json, newest first, and
// keeps the selection and the compare pickers on the same runs.
func (h *Tab) Reload() {
	selected := h.SelectedFolder()
	a, b := h.PickedFolder(h.A), h.PickedFolder(h.B)
	h.listed = h.Dir()
	h.Where.SetText("Saved in " + h.listed)
	dirents, _ := os.ReadDir(h.listed)
	h.Entries = h.Entries[:0]
	for _, d := range dirents {
		if !d.IsDir() {
			continue
		}
		if e, ok := h.entry(d.Name()); ok {
			h.Entries = append(h.Entries, e)
		}
	}
	slices.SortStableFunc(h.Entries, func(x, y Entry) int {
		if c := y.started().Compare(x.started()); c != 0 {
			return c
		}
		return strings.Compare(y.Folder, x.Folder)
	})
	h.setPickerOptions(a, b)
	h.List.Refresh()
	h.selectFolder(selected)
	if len(h.Entries) == 0 {
		appwidget.SetOptional(h.Note, "No saved runs yet: every finished run is saved here automatically, and Import… adds one made elsewhere.")
	} else if strings.HasPrefix(h.Note.Text, "No saved runs") {
		appwidget.SetOptional(h.Note, "")
	}
}

// Index is the position of folder in entries, or -1.
func (h *Tab) Index(folder string) int {
	return slices.IndexFunc(h.Entries, func(e Entry) bool { return e.Folder == folder })
}

// SelectedFolder is the folder of the selected run, "" for none.
func (h *Tab) SelectedFolder() string {
	if h.Selected < 0 || h.Selected >= len(h.Entries) {
		return ""
	}
	return h.Entries[h.Selected].Folder
}

// selectFolder selects the run in folder, or nothing when it isn't listed.
func (h *Tab) selectFolder(folder string) {
	if i := h.Index(folder); folder != "" && i >= 0 {
		h.List.Select(i)
		return
	}
	h.List.UnselectAll()
	h.onSelect(-1)
}

// onSelect enables what can be done with the selected run.
func (h *Tab) onSelect(i widget.ListItemID) {
	h.Selected = i
	for _, b := range []*widget.Button{h.OpenBtn, h.renameBtn, h.deleteBtn} {
		if i >= 0 && i < len(h.Entries) {
			b.Enable()
		} else {
			b.Disable()
		}
	}
	h.ResumeBtn.Disable()
	if i >= 0 && i < len(h.Entries) && (h.Resumable(h.Entries[i]) || h.sweepResumable(h.Entries[i])) {
		h.ResumeBtn.Enable()
	}
}

// Resumable reports whether the engine can finish a listed run: a partial
// matrix of ours (a load test is not resumed), while no other run goes on.
func (h *Tab) Resumable(e Entry) bool {
	return e.err == nil && e.Sum.Partial && e.Sum.Imported == "" && e.Sum.Rates == 0 && !h.U.State.Run.Running
}

// OfferLatest offers the Results screen the newest saved run that can be
// read, so that a restarted app shows the last run rather than nothing.
func (h *Tab) OfferLatest() {
	for _, e := range h.Entries {
		if e.err != nil || e.Sweep != nil {
			continue
		}
		if rep, err := h.Load(e.Folder); err == nil {
			h.Reports.OfferReport(rep, filepath.Join(h.Dir(), e.Folder))
			return
		}
	}
}

// onResume finishes the selected partial run in its own folder.
func (h *Tab) onResume() {
	if e, ok := h.selectedSweep(); ok {
		h.ResumeBtn.Disable()
		app.ResumeSweep(h.Targets, h.Runs, filepath.Join(h.Dir(), e.Folder))
		return
	}
	if rep, dir, ok := h.openSelected(); ok {
		h.ResumeBtn.Disable()
		h.Runs.ResumeRun(rep, dir)
	}
}

// OnOpen shows the selected run on the Results screen.
func (h *Tab) OnOpen() {
	if e, ok := h.selectedSweep(); ok {
		h.Reports.OpenSweep(filepath.Join(h.Dir(), e.Folder))
		return
	}
	if rep, dir, ok := h.openSelected(); ok {
		h.Reports.OpenReport(rep, dir)
	}
}

// openSelected reads the selected run and its folder; when it can't, the
// banner says why and ok is false.
func (h *Tab) openSelected() (rep engine.Report, dir string, ok bool) {
	folder := h.SelectedFolder()
	if folder == "" {
		return rep, "", false
	}
	dir = filepath.Join(h.Dir(), folder)
	rep, err := h.Load(folder)
	if err != nil {
		h.Banner.Show(app.Notice{Message: "This run could not be opened.", Action: "Its folder may be from a newer Speed Matrix, or damaged: " + dir + ".", Detail: err.Error()})
		return rep, dir, false
	}
	h.Banner.Hide()
	return rep, dir, true
}

// selectedSweep is the selected entry when it is a sweep that can be read.
func (h *Tab) selectedSweep() (Entry, bool) {
	if h.Selected < 0 || h.Selected >= len(h.Entries) {
		return Entry{}, false
	}
	e := h.Entries[h.Selected]
	return e, e.Sweep != nil
}

// Load reads a run by its folder name.
func (h *Tab) Load(folder string) (engine.Report, error) {
	return h.U.Deps.Store.Load(filepath.Join(h.Dir(), folder))
}
