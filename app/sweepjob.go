package app

import (
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"time"

	"speedmatrix/engine"
	"speedmatrix/engine/launch"
	"speedmatrix/engine/runs"
	"speedmatrix/engine/sweep"
)

// A sweep in the app: the Server screen's "Compare settings…" makes one
// of the Launch form's configurations, the Run screen runs it (sweep.Runner)
// into a folder of the runs folder, History lists that folder as one entry
// and Results shows its summary. The folder holds what the CLI's --out
// holds, and server.toml: the form as it was, which a resume reads.

// sweepServerFile is the server.toml of a sweep's folder: the Launch form
// as the sweep began, without its secrets.
const sweepServerFile = "server.toml"

// sweepJob is a sweep the Run screen is asked to run: a new one, or one
// saved in dir to resume.
type sweepJob struct {
	dir string // the sweep's folder; "" for a new sweep, whose folder the Run screen makes
	// s, base and model make a new sweep: its configurations and plan,
	// server.toml's text, and the model its folder is named after.
	s     sweep.Sweep
	base  string
	model string
	// secrets are the form's API key, HF token and secret variables, which
	// server.toml leaves out (launch.WithSecrets): in memory only, so that
	// a resumed sweep's servers get new keys.
	secrets launch.ServerConfig
}

// open makes the folder of a new sweep in root (started now) and writes
// its server.toml, or reads the saved sweep to resume. It returns the sweep,
// its folder and server.toml's text; its errors say what to do in the
// app's words.
func (j *sweepJob) open(root string, now time.Time) (s sweep.Sweep, dir, base string, err error) {
	if j.dir != "" {
		return reopenSweep(j.dir)
	}
	dir, err = makeSweepFolder(root, now, j.model)
	if err != nil {
		return s, "", "", fmt.Errorf("the sweep's folder could not be made in %s (check that it is writable, or choose another runs folder in Settings): %w", root, err)
	}
	path := filepath.Join(dir, sweepServerFile)
	if err := os.WriteFile(path, []byte(j.base), 0o644); err != nil {
		return s, "", "", fmt.Errorf("%s could not be written (check that %s is writable): %w", path, dir, err)
	}
	s = j.s
	s.Server, s.ServerSHA256 = path, sweep.Digest([]byte(j.base))
	return s, dir, j.base, nil
}

// reopenSweep reads the sweep saved in dir, with the state of each of its
// configurations from its folder (sweep.Reopen), to finish it.
func reopenSweep(dir string) (s sweep.Sweep, _, base string, err error) {
	path := filepath.Join(dir, sweepServerFile) // the runs folder may have moved since
	s, base, err = sweep.Resume(dir, sweep.Inputs{Server: path})
	var se *sweep.InputError
	switch {
	case errors.As(err, &se) && se.Err == sweep.ErrChanged:
		return s, "", "", fmt.Errorf("%s changed since the sweep began: restore it, or compare settings anew from the Server screen", path)
	case se != nil:
		return s, "", "", fmt.Errorf("the sweep's server.toml can't be read (%v): it was made elsewhere, or moved; resume it with speedmatrix sweep --resume %s --launch SERVER.TOML", se.Err, dir)
	case err != nil:
		return s, "", "", err
	}
	return s, dir, base, nil
}

// makeSweepFolder makes a new folder for a sweep of model in root, named as
// runs are (runs.Folder: the time first) with "sweep-" before the model,
// and -2, -3… when the name is taken.
func makeSweepFolder(root string, now time.Time, model string) (string, error) {
	if err := os.MkdirAll(root, 0o755); err != nil {
		return "", err
	}
	name := runs.Folder(engine.Report{Run: engine.RunInfo{StartedAt: now, ServedModel: "sweep-" + filepath.Base(model)}})
	dir := filepath.Join(root, name)
	for n := 2; ; n++ {
		err := os.Mkdir(dir, 0o755)
		if !errors.Is(err, os.ErrExist) || n > 100 {
			return dir, err
		}
		dir = filepath.Join(root, fmt.Sprintf("%s-%d", name, n))
	}
}

// isSweepRun reports whether the run folder dir is a configuration's of a
// sweep: its parent holds sweep.json. A sweep resumes as a whole, so such
// a run is not resumed alone.
func isSweepRun(dir string) bool {
	if dir == "" {
		return false
	}
	_, err := os.Stat(filepath.Join(filepath.Dir(dir), sweep.JSONFile))
	return err == nil
}
