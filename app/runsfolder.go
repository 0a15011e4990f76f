package app

import (
	"cmp"
)

// The runs folder keeps every run in a folder of its own (runs.Folder):
// the Settings screen chooses it, the Run screen saves into it
// (runs.Saver), History lists it.

// runsDir is the runs folder: the Settings screen's, else the default
// (deps.runsDir).
func (u *base) runsDir() string { return cmp.Or(u.state.settings.RunsDir, u.deps.runsDir) }
