package cli

import (
	"cmp"
	"errors"
	"fmt"
	"strings"

	"speedmatrix/engine"
	"speedmatrix/engine/launch"
	"speedmatrix/engine/sweep"
	"speedmatrix/engine/sweep/runner"
)

// reopen loads the sweep to resume. Nothing starts unless everything holds:
// the server.toml and vary-file given on the command line are the ones it
// began with (sweep.json's own paths are never read), its configurations
// are the ones they make (sweep.json alone runs nothing), its plan can
// run, and it is no larger than a new sweep may be.
func (f sweepFlags) reopen() (sweep.Sweep, string, string, error) {
	s, text, err := runner.Resume(f.resume, runner.Inputs{Server: f.launch, VaryFile: f.varyFile, Vary: f.vary})
	if err != nil {
		return s, "", "", resumeError(err)
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
		in       *runner.InputError
		missing  *runner.MissingError
		program  *runner.ProgramError
		mismatch *runner.MismatchError
		plan     *engine.PlanError
		ref      *runner.ReferenceError
	)
	edited := fmt.Sprintf("%s was edited; nothing was started: restore it, or begin a new sweep with another --out", sweep.JSONFile)
	what, flag := "server.toml", "--launch"
	if errors.As(err, &in) && in.VaryFile {
		what, flag = "vary-file", "--vary-file"
	}
	switch {
	case errors.As(err, &missing):
		return missingInputs(missing)
	case in != nil && errors.Is(err, runner.ErrChanged):
		return fmt.Errorf("%s: %s changed since the sweep began: restore it, or begin a new sweep with another --out", cmd, in.Path)
	case in != nil:
		return fmt.Errorf("%s: the %s %s can't be read (%v): give the %s the sweep began with, where it is now, with %s", cmd, what, in.Path, in.Err, what, flag)
	case errors.As(err, &program):
		return fmt.Errorf("%s: the sweep varies %s, which chooses what runs: a resume takes it only from your command line, never from %s; give the --vary options you began it with again",
			cmd, strings.Join(program.Keys, ", "), sweep.JSONFile)
	case errors.As(err, &mismatch):
		return fmt.Errorf("%s: %v; %s", cmd, err, edited)
	case errors.As(err, &ref) && errors.Is(err, runner.ErrChanged):
		return fmt.Errorf("%s: %s is not the quality reference the sweep recorded (its sha256 differs from %s's); nothing was started: restore it, or begin a new sweep with another --out", cmd, ref.Path, sweep.JSONFile)
	case errors.As(err, &ref):
		return fmt.Errorf("%s: the sweep's quality reference %s can't be used (%v); nothing was started: restore it, or begin a new sweep with another --out", cmd, ref.Path, ref.Err)
	case errors.As(err, &plan):
		return fmt.Errorf("%s: %s's plan can't run (%v); %s", cmd, sweep.JSONFile, plan, edited)
	case errors.Is(err, runner.ErrNoOrigin):
		return fmt.Errorf("%s: %v (an earlier version began it): give them again, --vary KEY=V1,V2 … or --vary-file FILE, as you began it", cmd, err)
	}
	return sweepError(cmd, err)
}

// missingInputs asks for the server.toml and vary-file a resume was not
// given, with the flags that give them where sweep.json says they were,
// ready to copy.
func missingInputs(m *runner.MissingError) error {
	var what, words []string
	give := func(name, flag, path, placeholder string) {
		what = append(what, name)
		words = append(words, flag, cmp.Or(path, placeholder))
	}
	if m.Server {
		give("server.toml", "--launch", m.ServerPath, "SERVER.TOML")
	}
	if m.VaryFile {
		give("vary-file", "--vary-file", m.VaryFilePath, "SWEEP.TOML")
	}
	return fmt.Errorf("sweep --resume: give the %s the sweep began with: %s (a resume never takes what runs from the sweep's files)",
		strings.Join(what, " and "), launch.CommandLine(nil, words, ""))
}

// resumeCommand is the command that finishes the sweep s saved in dir:
// its server.toml and vary-file given again, and its vary options where
// they choose what runs, which a resume takes only from its command line.
func resumeCommand(dir string, s sweep.Sweep) string {
	words := []string{"speedmatrix", "sweep", "--resume", dir, "--launch", s.Server}
	switch {
	case s.VaryFile != "":
		words = append(words, "--vary-file", s.VaryFile)
	case len(runner.ProgramKeys(s.Configs)) > 0:
		for _, v := range s.Vary {
			words = append(words, "--vary", v)
		}
	}
	return launch.CommandLine(nil, words, "")
}
