package runner

import (
	"errors"
	"fmt"
	"io"
	"os"
	"slices"
	"strings"
	"unicode"

	"speedmatrix/engine"
	"speedmatrix/engine/sweep"
)

// maxInputBytes bounds what a resume reads of the server.toml or
// vary-file its user names: 1,024 tables of a few keys take tens of KB.
const maxInputBytes = 1 << 20

// SizeError is a sweep of more than HardMaxConfigs configurations: N of
// them, the baseline left out.
type SizeError struct{ N int }

func (e *SizeError) Error() string {
	return fmt.Sprintf("%d configurations, more than the %d a sweep runs: each starts the server; split them into several sweeps", e.N, sweep.HardMaxConfigs)
}

// ErrNoOrigin is a sweep.json that records neither the vary options nor
// the vary file its configurations were made of (an earlier version wrote
// it), resumed without either: its configurations can't be checked.
var ErrNoOrigin = errors.New(sweep.JSONFile + " records neither the vary options nor the vary file its configurations were made of")

// Derive makes a sweep's configurations from its user's inputs:
// server.toml (base, read from path), then o's vary options (a grid) or its
// vary-file (varyText, the file's text), each checked against server.toml
// (Resolve). A new sweep and a resume both make them here, so that a resume
// can refuse a sweep.json whose configurations are not these. More than
// HardMaxConfigs is a *SizeError, found before the grid is made.
func Derive(path, base string, o sweep.Origin, varyText string) (cs []sweep.Config, dropped []string, err error) {
	switch {
	case len(o.Vary) > 0:
		axes, err := ParseVary(o.Vary, "--vary")
		if err != nil {
			return nil, nil, err
		}
		n := 1.0
		for _, a := range axes {
			n *= float64(len(a))
		}
		if n > sweep.HardMaxConfigs {
			return nil, nil, &SizeError{N: int(min(n, 1e15))}
		}
		cs = Grid(axes)
	case o.VaryFile != "":
		if cs, err = ReadVaryFile(o.VaryFile, varyText); err != nil {
			return nil, nil, err
		}
		if n := len(cs) - 1; n > sweep.HardMaxConfigs {
			return nil, nil, &SizeError{N: n}
		}
	default:
		return nil, nil, ErrNoOrigin
	}
	return Resolve(path, base, cs)
}

// Inputs are what a resume is given again by its user: server.toml and
// the vary-file (their paths), or the vary options themselves. A resume
// reads server.toml and a vary-file only where its user names them, never
// where sweep.json says: whoever wrote the folder could have written the
// file it names and its digest too. Vary options not given are the
// recorded ones, but for keys that choose what runs (programKeys).
type Inputs struct {
	Server, VaryFile string
	Vary             []string
	// ServerText, when set, is server.toml's text as its user's front end
	// makes it now (the app's Launch form), in place of the file: Server
	// then only names it.
	ServerText *string
}

// ErrChanged is a server.toml or vary-file whose text is not the one the
// sweep began with: its configurations would not be the ones measured.
var ErrChanged = errors.New("changed since the sweep began")

// InputError is why Resume could not use the server.toml (or the
// vary-file) its user gave: it could not be read (Err from the file
// system), or it changed (ErrChanged).
type InputError struct {
	Path     string
	VaryFile bool // the vary-file, not server.toml
	Err      error
}

func (e *InputError) Error() string { return e.Path + ": " + e.Err.Error() }

// Unwrap returns the reason.
func (e *InputError) Unwrap() error { return e.Err }

// MissingError is a resume not given the server.toml (Server) or the
// vary-file (VaryFile) its sweep began with. ServerPath and VaryFilePath
// are where sweep.json says they were, for the user to check and give
// ("" where it says nothing a user could give: see shownPath).
type MissingError struct {
	Server, VaryFile         bool
	ServerPath, VaryFilePath string
}

func (e *MissingError) Error() string {
	var what []string
	if e.Server {
		what = append(what, "server.toml")
	}
	if e.VaryFile {
		what = append(what, "vary-file")
	}
	return "a resume is given the " + strings.Join(what, " and ") + " its sweep began with, never the one " + sweep.JSONFile + " names"
}

// ProgramError is a resume whose recorded vary options set Keys, which
// choose what runs (programKeys): they are taken only from the user, who
// gives the vary options again.
type ProgramError struct{ Keys []string }

func (e *ProgramError) Error() string {
	return fmt.Sprintf("the sweep varies %s, which chooses what runs: a resume takes it only from its user, never from %s", strings.Join(e.Keys, ", "), sweep.JSONFile)
}

// MismatchError is a sweep.json whose configurations are not the ones its
// inputs make: edited by hand, or by someone else. Index counts from 0 the
// first that differs; Want is what the inputs make there ("": none).
type MismatchError struct {
	Index int
	Want  string
}

func (e *MismatchError) Error() string {
	want := "none"
	if e.Want != "" {
		want = e.Want
	}
	return fmt.Sprintf("configuration %d of %s is not what server.toml and the sweep's vary options make there (%s)", e.Index+1, sweep.JSONFile, want)
}

// Resume reads the sweep saved in dir to finish it. Nothing in sweep.json
// is run as it stands: its plan must be one that can run, and its
// configurations are made again (Derive) from the server.toml and vary
// options or vary-file given in in (the recorded vary options where none
// are, unless they set a key of programKeys: *ProgramError), and must be
// the ones recorded (*MismatchError). A server.toml or vary-file not given
// is a *MissingError; one that can't be read or changed, an *InputError.
// Each configuration's state comes from its folder (Reopen). It returns
// the sweep with server.toml's text.
func Resume(dir string, in Inputs) (sweep.Sweep, string, error) {
	s, err := sweep.Load(dir)
	if err != nil {
		return s, "", err
	}
	if err := engine.ValidatePlan(s.Plan, engine.Limits{}); err != nil {
		return s, "", fmt.Errorf("%s: %w", sweep.JSONFile, err)
	}
	restated := in.Vary != nil || in.VaryFile != ""
	if m := missing(s, in, restated); m != nil {
		return s, "", m
	}
	s.Server = in.Server
	var base string
	if in.ServerText != nil {
		if base = *in.ServerText; s.ServerSHA256 != "" && sweep.Digest([]byte(base)) != s.ServerSHA256 {
			return s, "", &InputError{Path: in.Server, Err: ErrChanged}
		}
	} else if base, err = readInput(in.Server, s.ServerSHA256, false); err != nil {
		return s, "", err
	}
	o := s.Origin
	if restated {
		o = sweep.Origin{Vary: in.Vary, VaryFile: in.VaryFile}
	}
	varyText := ""
	if o.VaryFile != "" {
		want := ""
		if s.VaryFile != "" {
			want = s.VaryFileSHA256
		}
		if varyText, err = readInput(o.VaryFile, want, true); err != nil {
			return s, "", err
		}
		o.VaryFileSHA256 = sweep.Digest([]byte(varyText))
	}
	cs, _, err := Derive(s.Server, base, o, varyText)
	if err != nil {
		return s, "", err
	}
	if keys := ProgramKeys(cs); len(keys) > 0 && !restated {
		return s, "", &ProgramError{Keys: keys}
	}
	if err := sameConfigs(cs, s.Configs); err != nil {
		return s, "", err
	}
	for i := range cs {
		// Only what a sweep measured carries over; what runs is made anew.
		cs[i].StartupS, cs[i].MeasureS, cs[i].Reason = s.Configs[i].StartupS, s.Configs[i].MeasureS, s.Configs[i].Reason
		cs[i].Quality, cs[i].QualityS = s.Configs[i].Quality, s.Configs[i].QualityS
	}
	s.Configs, s.Origin = cs, o
	if s.Quality != nil && s.Quality.ReferenceSHA256 != "" {
		if _, _, err := LoadReference(dir, s); err != nil {
			return s, "", err
		}
	}
	Reopen(dir, &s)
	return s, base, nil
}

// missing is the *MissingError of a resume of s given in (restated: its
// vary options or vary-file), nil when it was given all it needs.
func missing(s sweep.Sweep, in Inputs, restated bool) *MissingError {
	m := MissingError{Server: in.Server == "" && in.ServerText == nil, VaryFile: s.VaryFile != "" && !restated}
	if m.Server {
		m.ServerPath = shownPath(s.Server)
	}
	if m.VaryFile {
		m.VaryFilePath = shownPath(s.VaryFile)
	}
	if !m.Server && !m.VaryFile {
		return nil
	}
	return &m
}

// shownPath is a path sweep.json records as a user may be shown it to
// copy: "" where it is too long for a path or holds a control character,
// which would break the line that shows it.
func shownPath(p string) string {
	if len(p) > 4096 || strings.ContainsFunc(p, unicode.IsControl) {
		return ""
	}
	return p
}

// sameConfigs is a *MismatchError at the first configuration of got that
// is not want's.
func sameConfigs(want, got []sweep.Config) error {
	for i := range max(len(want), len(got)) {
		if i >= len(want) {
			return &MismatchError{Index: i}
		}
		w := want[i]
		if i >= len(got) || got[i].Name != w.Name || got[i].Folder != w.Folder || got[i].Baseline != w.Baseline || !slices.Equal(got[i].Settings, w.Settings) {
			return &MismatchError{Index: i, Want: w.Name}
		}
	}
	return nil
}

// readInput reads a sweep's server.toml or vary-file (varyFile) at path,
// whose digest must be want ("": any).
func readInput(path, want string, varyFile bool) (string, error) {
	fail := func(err error) (string, error) { return "", &InputError{Path: path, VaryFile: varyFile, Err: err} }
	f, err := os.Open(path)
	if err != nil {
		return fail(errors.Unwrap(err))
	}
	defer f.Close()
	text, err := io.ReadAll(io.LimitReader(f, maxInputBytes+1))
	switch {
	case err != nil:
		return fail(err)
	case len(text) > maxInputBytes:
		return fail(fmt.Errorf("is larger than any server.toml or vary-file (%d MiB)", maxInputBytes>>20))
	case want != "" && sweep.Digest(text) != want:
		return fail(ErrChanged)
	}
	return string(text), nil
}

// programKeys choose the program a configuration runs and the code it
// loads: the engine and its executable or image, its arguments and
// environment, a model's own code. A resume takes them only from its
// user's inputs, never from vary options sweep.json records: a sweep
// folder is something users share.
var programKeys = []string{"engine", "runner", "executable", "docker_image", "ray_executable", "ray_address",
	"extra_args", "env", "hf_cache", "model", "trust_remote_code"}

// ProgramKeys lists the keys of programKeys that cs set, in order.
func ProgramKeys(cs []sweep.Config) []string {
	var keys []string
	for _, c := range cs {
		for _, s := range c.Settings {
			if slices.Contains(programKeys, s.Key) && !slices.Contains(keys, s.Key) {
				keys = append(keys, s.Key)
			}
		}
	}
	return keys
}
