package runs

import (
	"cmp"
	"path/filepath"
	"regexp"
	"slices"
	"strings"
	"time"

	"speedmatrix/engine"
	"speedmatrix/engine/report"
)

// Saver keeps what a run measures: both front ends hand it the run's
// report after every cell and at the end, and it saves the report into the
// run's folder (report.Save writes each file atomically), so nothing
// measured is lost if the front end dies.
type Saver struct {
	// Dir is the run's folder: --out, or the resumed run's. Empty, the
	// first save makes one in Root named after the run (Folder); with no
	// Root either, nothing is saved.
	Dir, Root string
	// Save writes the report (nil: report.Save).
	Save func(dir string, rep engine.Report) error
	// Now dates a report whose run has no start time yet (nil: time.Now).
	Now func() time.Time
	// Err is the last save's failure; nil once a save works again.
	Err error
}

// Keep saves rep unless the run reached no cell (every one Not run:
// nothing was measured). It returns whether it wrote (or tried to) and the
// save's error, which Err keeps until a later save works.
func (s *Saver) Keep(rep engine.Report) (bool, error) {
	if !slices.ContainsFunc(rep.Results, func(r engine.Result) bool { return r.Status != engine.StatusNotRun }) {
		return false, nil
	}
	if s.Dir == "" && s.Root == "" {
		return false, nil
	}
	if rep.Run.StartedAt.IsZero() {
		now := s.Now
		if now == nil {
			now = time.Now
		}
		rep.Run.StartedAt = now()
	}
	if s.Dir == "" {
		s.Dir = filepath.Join(s.Root, Folder(rep))
	}
	save := s.Save
	if save == nil {
		save = report.Save
	}
	s.Err = save(s.Dir, rep)
	return true, s.Err
}

var unsafeName = regexp.MustCompile(`[^A-Za-z0-9._-]+`)

// Folder is the name of a run's folder in the runs folder:
// <start time>-<served model>.
func Folder(rep engine.Report) string {
	model := rep.Run.ServedModel
	if model == "" && rep.Run.Model != "" {
		model = filepath.Base(rep.Run.Model)
	}
	return rep.Run.StartedAt.Format("20060102-150405") + "-" + cmp.Or(SafeName(model), "model")
}

// SafeName is s as a file name: runs of anything but letters, digits, '.',
// '_' and '-' become one '-', and none leads or trails.
func SafeName(s string) string {
	return strings.Trim(unsafeName.ReplaceAllString(s, "-"), "-")
}
