package app

import (
	"cmp"
)

// The runs folder keeps every run in a folder of its own (runs.Folder):
// the Settings screen chooses it, the Run screen saves into it
// (runs.Saver), History lists it.

// RunsDir is the runs folder: the Settings screen's, else the default
// (deps.RunsDir).
func (u *UI) RunsDir() string { return cmp.Or(u.State.Settings.RunsDir, u.Deps.RunsDir) }
