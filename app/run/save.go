package run

import (
	"speedmatrix/app"
	"speedmatrix/engine"
)

// Save keeps what the run has measured in its History folder, after every
// cell: nothing measured is lost if the app dies. A Save History can't take
// goes whole into a rescue folder (runs.Saver), which the banner names; the
// banner says so once, and again when where the run is kept changes.
func (r *Tab) Save(rep engine.Report) {
	failing, rescue := r.Saver.Err != nil, r.Saver.Rescued
	saved, err := r.Saver.Keep(rep)
	switch {
	case !saved:
	case err == nil:
		r.u.State.RunSaved(r.Saver.Dir)
		if failing {
			r.Log.Add("the run is saved in " + r.Saver.Dir + " again")
			r.Banner.Hide()
		}
	case !failing || r.Saver.Rescued != rescue:
		r.Log.Add("cannot save the run in " + r.Saver.Dir + ": " + err.Error())
		r.Banner.Show(unsavedNotice(r.Saver.Rescued, err))
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
