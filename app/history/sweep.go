package shell

import (
	"os"
	"path/filepath"
	"strings"

	"speedmatrix/engine/report"
	"speedmatrix/engine/sweep"
)

// A sweep's folder is one entry of History: its runs, in its subfolders,
// are not listed apart. Open shows its summary on the Results screen, and
// Resume finishes one that did not end.

// sweepEntry reads the sweep in folder (its sweep.json), from memory while
// its files are unchanged; ok is false when the folder holds no sweep.
func (h *historyTab) sweepEntry(folder string) (historyEntry, bool) {
	dir := filepath.Join(h.dir(), folder)
	st, err := os.Stat(filepath.Join(dir, sweep.JSONFile))
	if err != nil {
		return historyEntry{}, false
	}
	mod := entryModTime(dir, st.ModTime())
	if e, ok := h.cache[folder]; ok && e.modTime.Equal(mod) {
		return e, true
	}
	e := historyEntry{folder: folder, modTime: mod}
	s, err := sweep.Load(dir)
	if e.err = err; err == nil {
		e.sweep = &s
		e.sum = sweepSummary(dir, s)
	}
	if b, err := os.ReadFile(filepath.Join(dir, nameFile)); err == nil {
		e.name = strings.TrimSpace(string(b))
	}
	h.cache[folder] = e
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
func (e historyEntry) sweepDetail() string {
	parts := []string{sweepCount(*e.sweep), sweepBestLine(*e.sweep)}
	if e.name != "" && e.sum.Model != "" {
		parts = append([]string{e.sum.Model}, parts...)
	}
	if !e.sum.Started.IsZero() {
		parts = append(parts, e.sum.Started.Local().Format("2006-01-02 15:04"))
	}
	if e.sum.GPU != "" {
		parts = append(parts, e.sum.GPU)
	}
	return strings.Join(parts, " · ")
}

// sweepResumable reports whether a listed sweep can be finished: it did
// not end, and nothing runs now.
func (h *historyTab) sweepResumable(e historyEntry) bool {
	return e.err == nil && e.sweep != nil && e.sweep.Ended.IsZero() && !h.u.State.Run.Running
}
