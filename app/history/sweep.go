package history

import (
	"os"
	"path/filepath"
	"strings"

	appwidget "speedmatrix/app/widget"
	"speedmatrix/engine/report"
	"speedmatrix/engine/sweep"
)

// A sweep's folder is one entry of History: its runs, in its subfolders,
// are not listed apart. Open shows its summary on the Results screen, and
// Resume finishes one that did not end.

// sweepEntry reads the sweep in folder (its sweep.json), from memory while
// its files are unchanged; ok is false when the folder holds no sweep.
func (h *Tab) sweepEntry(folder string) (Entry, bool) {
	dir := filepath.Join(h.Dir(), folder)
	st, err := os.Stat(filepath.Join(dir, sweep.JSONFile))
	if err != nil {
		return Entry{}, false
	}
	mod := entryModTime(dir, st.ModTime())
	if e, ok := h.Cache[folder]; ok && e.modTime.Equal(mod) {
		return e, true
	}
	e := Entry{Folder: folder, modTime: mod}
	s, err := sweep.Load(dir)
	if e.err = err; err == nil {
		e.Sweep = &s
		e.Sum = sweepSummary(dir, s)
	}
	if b, err := os.ReadFile(filepath.Join(dir, nameFile)); err == nil {
		e.name = strings.TrimSpace(string(b))
	}
	h.Cache[folder] = e
	return e, true
}

// sweepSummary is what the list shows of a sweep: the model and GPU of its
// first run, when it began, whether it ended and was simulated.
func sweepSummary(dir string, s sweep.Sweep) report.Summary {
	var sum report.Summary
	for _, c := range s.Configs {
		runDir := sweep.RunDir(dir, c)
		st, err := os.Stat(filepath.Join(runDir, report.JSONFile))
		if err != nil {
			continue
		}
		if run, err := summaryOf(runDir, st.ModTime()); err == nil {
			sum = run
			break
		}
	}
	sum.Started, sum.Partial, sum.Simulated = s.Started, s.Ended.IsZero(), s.Simulated || sum.Simulated
	sum.Cells, sum.Finished, sum.PeakTokPerSec, sum.Rates, sum.RatesRPS = 0, 0, 0, 0, nil
	return sum
}

// sweepDetail is the line under a sweep's title, the most telling first
// (the row cuts it): "Sweep · 5 configurations · best at 8K × 64:
// max_num_seqs=256 (+18.0%) · 2026-12-01 05:42 · RTX 3090".
func (e Entry) sweepDetail() string {
	parts := []string{appwidget.SweepCount(*e.Sweep), appwidget.SweepBestLine(*e.Sweep)}
	if e.name != "" && e.Sum.Model != "" {
		parts = append([]string{e.Sum.Model}, parts...)
	}
	if !e.Sum.Started.IsZero() {
		parts = append(parts, e.Sum.Started.Local().Format("2006-01-02 15:04"))
	}
	if e.Sum.GPU != "" {
		parts = append(parts, e.Sum.GPU)
	}
	return strings.Join(parts, " · ")
}

// sweepResumable reports whether a listed sweep can be finished: it did
// not end, and nothing runs now.
func (h *Tab) sweepResumable(e Entry) bool {
	return e.err == nil && e.Sweep != nil && e.Sweep.Ended.IsZero() && !h.U.State.Run.Running
}
