package shell

import (
	"speedmatrix/app"
	"speedmatrix/engine"
)

// Save keeps what the run has measured in its History folder, after every
// cell: nothing measured is lost if the app dies. A Save History can't take
// goes whole into a rescue folder (runs.Saver), which the banner names; the
// banner says so once, and again when where the run is kept changes.
func (r *runTab) Save(rep engine.Report) {
	failing, rescue := r.saver.Err != nil, r.saver.Rescued
	saved, err := r.saver.Keep(rep)
	switch {
	case !saved:
	case err == nil:
		r.u.State.RunSaved(r.saver.Dir)
		if failing {
			r.log.Add("the run is saved in " + r.saver.Dir + " again")
			r.banner.Hide()
		}
	case !failing || r.saver.Rescued != rescue:
		r.log.Add("cannot save the run in " + r.saver.Dir + ": " + err.Error())
		r.banner.Show(unsavedNotice(r.saver.Rescued, err))
	}
}

// unsavedNotice is the banner of a run History can't take: where it is
// saved instead (rescued), or that it is only in memory.
func unsavedNotice(rescued string, err error) app.Notice {
	if rescued != "" {
		return app.Notice{Message: "The run cannot be saved to History, so every measured cell is saved in " + rescued + ".",
			Action: "Free space where History keeps runs, or copy that folder where you want it.", Detail: err.Error()}
	}
	return app.Notice{Message: "The run cannot be saved to History or anywhere else.",
		Action: "Free space: the measurements are kept in memory, and Export on the Results screen saves them once the run ends.", Detail: err.Error()}
}
