package app

import (
	"cmp"
	"path/filepath"
	"regexp"
	"strings"

	"speedmatrix/engine"
)

// The runs folder keeps every run in a folder of its own: the Settings
// screen chooses it, the Run screen saves into it, History lists it.

// runsDir is the runs folder: the Settings screen's, else the default
// (deps.runsDir).
func (u *ui) runsDir() string { return cmp.Or(u.state.settings.RunsDir, u.deps.runsDir) }

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

// saveRun writes rep into dir, or into a new folder of the runs folder
// named after the run when dir is "", and tells the state (History lists
// it); it returns the folder ("" when there is no runs folder). The Run
// screen saves a run after every cell into one folder.
func (u *ui) saveRun(rep engine.Report, dir string) (string, error) {
	root := u.runsDir()
	if root == "" {
		return "", nil
	}
	if rep.Run.StartedAt.IsZero() {
		rep.Run.StartedAt = u.deps.now()
	}
	if dir == "" {
		dir = filepath.Join(root, runFolder(rep))
	}
	if err := u.deps.store.Save(dir, rep); err != nil {
		return dir, err
	}
	u.state.runSaved(dir)
	return dir, nil
}
