package cli

import (
	"errors"
	"fmt"
	"strings"

	"speedmatrix/engine"
	"speedmatrix/engine/sweep"
)

// reopen loads the sweep to resume. Nothing starts unless everything holds:
// its server.toml and vary-file are the ones it began with, its
// configurations are the ones they make (sweep.json alone runs nothing),
// its plan can run, and it is no larger than a new sweep may be.
func (f sweepFlags) reopen() (sweep.Sweep, string, string, error) {
	const cmd = "sweep --resume"
	s, text, err := sweep.Resume(f.resume, sweep.Inputs{Server: f.launch, VaryFile: f.varyFile, Vary: f.vary})
	if err != nil {
		return s, "", "", resumeError(err)
	}
	restated := len(f.vary) > 0 || f.varyFile != ""
	if keys := sweep.ProgramKeys(s.Configs); len(keys) > 0 && len(s.Vary) > 0 && !restated {
		return s, "", "", fmt.Errorf("%s: the sweep varies %s, which chooses what runs: a resume takes it only from your command line, never from %s; give the --vary options you began it with again",
			cmd, strings.Join(keys, ", "), sweep.JSONFile)
	}
	if err := f.checkSize(s.Configs); err != nil {
		return s, "", "", err
	}
	return s, f.resume, text, nil
}

// resumeError words why a sweep can't be resumed, in one line.
func resumeError(err error) error {
	const cmd = "sweep --resume"
	var (
		in       *sweep.InputError
		mismatch *sweep.MismatchError
		plan     *engine.PlanError
	)
	edited := fmt.Sprintf("%s was edited; nothing was started: restore it, or begin a new sweep with another --out", sweep.JSONFile)
	what, flag := "server.toml", "--launch"
	if errors.As(err, &in) && in.VaryFile {
		what, flag = "vary-file", "--vary-file"
	}
	switch {
	case in != nil && errors.Is(err, sweep.ErrChanged):
		return fmt.Errorf("%s: %s changed since the sweep began: restore it, or begin a new sweep with another --out", cmd, in.Path)
	case in != nil && errors.Is(err, sweep.ErrInFolder):
		return fmt.Errorf("%s: %s names %s as its %s, in the sweep's own folder, which whoever shared the folder could have written: if you trust it, give it with %s %s",
			cmd, sweep.JSONFile, in.Path, what, flag, in.Path)
	case in != nil:
		return fmt.Errorf("%s: the sweep's %s %s can't be read (%v): give its new place with %s", cmd, what, in.Path, in.Err, flag)
	case errors.As(err, &mismatch):
		return fmt.Errorf("%s: %v; %s", cmd, err, edited)
	case errors.As(err, &plan):
		return fmt.Errorf("%s: %s's plan can't run (%v); %s", cmd, sweep.JSONFile, plan, edited)
	case errors.Is(err, sweep.ErrNoOrigin):
		return fmt.Errorf("%s: %v (an earlier version began it): give them again, --vary KEY=V1,V2 … or --vary-file FILE, as you began it", cmd, err)
	}
	return sweepError(cmd, err)
}
