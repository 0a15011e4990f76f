package app

import (
	"fmt"
	"os"
	"path/filepath"
	"regexp"
	"slices"
	"strings"

	"fyne.io/fyne/v2"
	"fyne.io/fyne/v2/container"
	"fyne.io/fyne/v2/theme"
	"fyne.io/fyne/v2/widget"

	"speedmatrix/engine"
	"speedmatrix/engine/report"
)

// historyTab lists the saved runs, opens one, and compares two.
type historyTab struct {
	u *ui

	runs          []string // folder names under runsDir, newest first
	list          *widget.List
	selected      int
	openBtn       *widget.Button
	base, other   *widget.Select
	compareBtn    *widget.Button
	compareResult *fyne.Container
	status        *widget.Label
}

// newHistoryTab builds the History screen.
func newHistoryTab(u *ui) *container.TabItem {
	h := &historyTab{u: u, selected: -1}
	u.history = h
	h.list = widget.NewList(
		func() int { return len(h.runs) },
		func() fyne.CanvasObject { return widget.NewLabel("2026-01-01 00:00:00 · model-name-placeholder") },
		func(i widget.ListItemID, o fyne.CanvasObject) { o.(*widget.Label).SetText(runTitle(h.runs[i])) },
	)
	h.list.OnSelected = func(i widget.ListItemID) { h.selected = i; h.openBtn.Enable() }
	h.openBtn = widget.NewButtonWithIcon("Open in Results", theme.FolderOpenIcon(), h.onOpen)
	h.openBtn.Disable()
	h.base = widget.NewSelect(nil, nil)
	h.base.PlaceHolder = "Base run"
	h.other = widget.NewSelect(nil, nil)
	h.other.PlaceHolder = "Compared run"
	h.compareBtn = widget.NewButtonWithIcon("Compare", theme.ViewRefreshIcon(), h.onCompare)
	h.compareResult = container.NewStack()
	h.status = widget.NewLabel("")
	h.status.Wrapping = fyne.TextWrapWord
	h.reload()

	left := widget.NewCard("Saved runs", "every run is saved in "+u.deps.runsDir,
		container.NewBorder(nil, h.openBtn, nil, nil, h.list))
	pick := widget.NewForm(widget.NewFormItem("Base", h.base), widget.NewFormItem("Compared", h.other))
	right := widget.NewCard("Compare two runs", "% change of total tok/s in each decode cell, from base to compared",
		container.NewBorder(container.NewVBox(pick, h.compareBtn, h.status), nil, nil, nil, h.compareResult))
	split := container.NewHSplit(left, right)
	split.Offset = 0.35
	header := screenHeader("History", "Open a saved run, or see what a change of settings, model or GPU did to each cell.")
	return container.NewTabItemWithIcon(tabHistory, theme.HistoryIcon(), screen(header, split, nil))
}

var unsafeName = regexp.MustCompile(`[^A-Za-z0-9._-]+`)

// runFolder is the folder name of a run: <timestamp>-<model>.
func runFolder(rep engine.Report) string {
	model := rep.Run.ServedModel
	if model == "" {
		model = filepath.Base(rep.Run.Model)
	}
	model = strings.Trim(unsafeName.ReplaceAllString(model, "-"), "-")
	if model == "" {
		model = "model"
	}
	return rep.Run.StartedAt.Format("20060102-150405") + "-" + model
}

// runTitle is how the list shows a run folder: "2026-11-30 07:46:21 · tiny".
func runTitle(folder string) string {
	if len(folder) > 16 && folder[8] == '-' && folder[15] == '-' {
		f := folder
		return fmt.Sprintf("%s-%s-%s %s:%s:%s · %s", f[0:4], f[4:6], f[6:8], f[9:11], f[11:13], f[13:15], f[16:])
	}
	return folder
}

// save stores rep under the runs folder and lists it.
// save writes rep into dir, or into a new folder named after the run when
// dir is "", and returns the folder ("" when there is no runs folder).
func (h *historyTab) save(rep engine.Report, dir string) (string, error) {
	if h.u.deps.runsDir == "" {
		return "", nil
	}
	if rep.Run.StartedAt.IsZero() {
		rep.Run.StartedAt = h.u.deps.now()
	}
	if dir == "" {
		dir = filepath.Join(h.u.deps.runsDir, runFolder(rep))
	}
	if err := h.u.deps.store.Save(dir, rep); err != nil {
		return dir, err
	}
	h.reload()
	return dir, nil
}

// reload lists the run folders holding a report.json, newest first.
func (h *historyTab) reload() {
	entries, _ := os.ReadDir(h.u.deps.runsDir)
	h.runs = h.runs[:0]
	for _, e := range entries {
		if _, err := os.Stat(filepath.Join(h.u.deps.runsDir, e.Name(), report.JSONFile)); err == nil && e.IsDir() {
			h.runs = append(h.runs, e.Name())
		}
	}
	slices.Reverse(h.runs)
	titles := make([]string, len(h.runs))
	for i, r := range h.runs {
		titles[i] = runTitle(r)
	}
	h.base.SetOptions(titles)
	h.other.SetOptions(titles)
	h.list.UnselectAll()
	h.selected = -1
	h.openBtn.Disable()
	h.list.Refresh()
	switch {
	case len(h.runs) == 0:
		h.status.SetText("No saved runs yet: every finished run is saved here automatically.")
	case len(h.runs) >= 2 && h.base.SelectedIndex() < 0 && h.other.SelectedIndex() < 0:
		// The usual question: what changed since the run before the last one.
		h.base.SetSelectedIndex(1)
		h.other.SetSelectedIndex(0)
		h.status.SetText("")
	default:
		h.status.SetText("")
	}
}

// load reads a run by its folder name.
func (h *historyTab) load(folder string) (engine.Report, error) {
	return h.u.deps.store.Load(filepath.Join(h.u.deps.runsDir, folder))
}

// onOpen shows the selected run on the Results screen.
func (h *historyTab) onOpen() {
	if h.selected < 0 || h.selected >= len(h.runs) {
		return
	}
	folder := h.runs[h.selected]
	rep, err := h.load(folder)
	if err != nil {
		h.status.SetText(fmt.Sprintf("Could not open %s: %v. The folder may be from a newer Speed Matrix or damaged.", folder, err))
		return
	}
	h.u.results.show(rep, filepath.Join(h.u.deps.runsDir, folder))
	h.u.show(tabResults)
}

// onCompare draws the % change of each decode cell between the two runs.
func (h *historyTab) onCompare() {
	bi, oi := h.base.SelectedIndex(), h.other.SelectedIndex()
	if bi < 0 || oi < 0 {
		h.status.SetText("Choose a base run and a run to compare with it.")
		return
	}
	base, err := h.load(h.runs[bi])
	if err == nil {
		var other engine.Report
		if other, err = h.load(h.runs[oi]); err == nil {
			h.showDelta(base, other)
			return
		}
	}
	h.status.SetText("Could not load the runs: " + err.Error())
}

func (h *historyTab) showDelta(base, other engine.Report) {
	h.status.SetText(fmt.Sprintf("%s → %s", report.ModelOnGPU(base), report.ModelOnGPU(other)))
	h.compareResult.Objects = []fyne.CanvasObject{newDeltaView(h.u, base, other, h.compareResult)}
	h.compareResult.Refresh()
}
