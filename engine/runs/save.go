package runs

import (
	"cmp"
	"errors"
	"fmt"
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
// run's folder (report.Save writes the saved files of the one list of a
// run's files, charts.Artifacts, each atomically, so a failed save leaves
// the last good files), so nothing measured is lost if the front end
// dies. The folder is the run's alone while the Saver holds it (Claim). A
// save the folder can't take (a full disk, a folder made read-only) goes
// whole into a folder of its own in a rescue folder instead (Rescue), and
// back into the run's folder once it works again.
type Saver struct {
	// Dir is the run's folder: --out, or the resumed run's. Empty, the
	// first save makes one in Root named after the run (Folder, with -2,
	// -3… when another run holds that one); with no Root either, nothing
	// is saved.
	Dir, Root string
	// Save writes the report (nil: report.Save).
	Save func(dir string, rep engine.Report) error
	// Now dates a report whose run has no start time yet (nil: time.Now).
	Now func() time.Time
	// Rescue are the folders tried in turn, when Dir can't take a save,
	// for a folder of the run's own that holds the whole report (nil:
	// rescueRoots()).
	Rescue []string
	// Err is the last save's failure, a *SaveError; nil once a save into
	// Dir works again.
	Err error
	// Rescued is the rescue folder that holds the run while Dir can't; ""
	// when none was needed. A save into Dir that works removes it: Dir
	// then holds all it held.
	Rescued string

	kept string      // the folder of the last save that worked
	lock *FolderLock // Dir, held for this run
}

// SaveError is a save that Dir could not take, and where the report is.
type SaveError struct {
	Dir string
	Err error // why Dir could not take it
	// Rescued: this save's report is whole in Kept.
	Rescued bool
	// Kept is the folder that holds the last report saved: this one's when
	// Rescued; "" when no save ever worked.
	Kept string
	// RescueErr is why no rescue folder could take it (when not Rescued).
	RescueErr error
}

func (e *SaveError) Error() string {
	switch {
	case e.Rescued:
		return fmt.Sprintf("%v; every measured cell is saved in %s instead", e.Err, e.Kept)
	case e.Kept != "":
		return fmt.Sprintf("%v, and no other folder could take it (%v): the last report saved is in %s", e.Err, e.RescueErr, e.Kept)
	}
	return fmt.Sprintf("%v, and no other folder could take it (%v)", e.Err, e.RescueErr)
}

// Unwrap is why Dir could not take the save.
func (e *SaveError) Unwrap() error { return e.Err }

// maxSameName is how many folders of the same name (-2, -3…) a new run
// tries in its runs folder while other runs hold them.
const maxSameName = 20

// Keep saves rep unless the run reached no cell, nor a load test's rate
// (every one Not run: nothing was measured). It returns whether it wrote
// (or tried to) and the save's error, a *SaveError, which Err keeps until
// a later save works.
func (s *Saver) Keep(rep engine.Report) (bool, error) {
	if !reached(rep) {
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
	save := s.Save
	if save == nil {
		save = report.Save
	}
	err := s.claim(rep)
	if err == nil {
		err = save(s.Dir, rep)
	}
	if err == nil {
		s.Err, s.kept = nil, s.Dir
		s.dropRescue()
		return true, nil
	}
	s.Err = s.rescue(save, rep, err)
	return true, s.Err
}

// reached reports whether a run measured anything: a cell, or a load
// test's rate, that isn't Not run.
func reached(rep engine.Report) bool {
	if rep.Load != nil && slices.ContainsFunc(rep.Load.Results, func(r engine.LoadResult) bool { return r.Status != engine.StatusNotRun }) {
		return true
	}
	return slices.ContainsFunc(rep.Results, func(r engine.Result) bool { return r.Status != engine.StatusNotRun })
}

// Kept is the folder that holds the last report saved: Dir, a rescue
// folder, or "" when no save worked.
func (s *Saver) Kept() string { return s.kept }

// Claim takes Dir for this run (LockFolder), or returns a *BusyError when
// another run saves into it. Keep claims the folder on its first save; a
// front end claims a folder it knows before the run, so that it refuses one
// another run holds before measuring anything. Release lets go.
func (s *Saver) Claim() error {
	if s.lock != nil {
		return nil
	}
	l, err := LockFolder(s.Dir)
	if err != nil {
		return err
	}
	s.lock = l
	return nil
}

// Release lets go of the run's folder, once the run's last save is done.
func (s *Saver) Release() {
	s.lock.Unlock()
	s.lock = nil
}

// claim claims Dir, or a new folder in Root named after the run.
func (s *Saver) claim(rep engine.Report) error {
	if s.lock != nil || s.Dir != "" {
		return s.Claim()
	}
	base := filepath.Join(s.Root, Folder(rep))
	s.Dir = base
	for n := 2; ; n++ {
		err := s.Claim()
		var busy *BusyError
		if !errors.As(err, &busy) || n > maxSameName {
			return err
		}
		s.Dir = fmt.Sprintf("%s-%d", base, n)
	}
}

var unsafeName = regexp.MustCompile(`[^A-Za-z0-9._-]+`)

// Folder is the name of a run's folder in the runs folder:
// <start time>-<served model>, and <start time>-load-<served model> for a
// load test (the time first, as every run's, so that the folders list in
// the order they ran).
func Folder(rep engine.Report) string {
	model := rep.Run.ServedModel
	if model == "" && rep.Run.Model != "" {
		model = filepath.Base(rep.Run.Model)
	}
	kind := ""
	if rep.Load != nil {
		kind = "load-"
	}
	return rep.Run.StartedAt.Format("20060102-150405") + "-" + kind + cmp.Or(SafeName(model), "model")
}

// SafeName is s as a file name: runs of anything but letters, digits, '.',
// '_' and '-' become one '-', and none leads or trails.
func SafeName(s string) string {
	return strings.Trim(unsafeName.ReplaceAllString(s, "-"), "-")
}
