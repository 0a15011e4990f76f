package sweep

import (
	"cmp"
	"errors"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"slices"
	"strings"

	"speedmatrix/engine"
)

// Origin is what a sweep's configurations were made of besides
// server.toml: the --vary options as given (the app writes its fields the
// same way), or a --vary-file with the digest of its text. A resume makes
// the configurations again from them and refuses a sweep.json whose
// configurations differ: a results file is data, never instructions.
type Origin struct {
	Vary []string `json:"vary,omitempty"`
	// VaryFile is the --vary-file's path as given; VaryFileSHA256 the
	// digest of its text, which a resume compares as it does server.toml's.
	VaryFile       string `json:"vary_file,omitempty"`
	VaryFileSHA256 string `json:"vary_file_sha256,omitempty"`
}

// HardMaxConfigs is the most configurations a sweep runs, --yes or not:
// a thousand start-ups of vLLM take days; a larger grid is several sweeps.
const HardMaxConfigs = 1024

// maxInputBytes bounds what a resume reads of a server.toml or vary-file
// that sweep.json names: 1,024 tables of a few keys take tens of KB.
const maxInputBytes = 1 << 20

// SizeError is a sweep of more than HardMaxConfigs configurations: N of
// them, the baseline left out.
type SizeError struct{ N int }

func (e *SizeError) Error() string {
	return fmt.Sprintf("%d configurations, more than the %d a sweep runs: each starts the server; split them into several sweeps", e.N, HardMaxConfigs)
}

// ErrNoOrigin is a sweep.json that records neither the vary options nor
// the vary file its configurations were made of (an earlier version wrote
// it), resumed without either: its configurations can't be checked.
var ErrNoOrigin = errors.New(JSONFile + " records neither the vary options nor the vary file its configurations were made of")

// Derive makes a sweep's configurations from its user's inputs:
// server.toml (base, read from path), then o's vary options (a grid) or its
// vary-file (varyText, the file's text), each checked against server.toml
// (Resolve). A new sweep and a resume both make them here, so that a resume
// can refuse a sweep.json whose configurations are not these. More than
// HardMaxConfigs is a *SizeError, found before the grid is made.
func Derive(path, base string, o Origin, varyText string) (cs []Config, dropped []string, err error) {
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
		if n > HardMaxConfigs {
			return nil, nil, &SizeError{N: int(min(n, 1e15))}
		}
		cs = Grid(axes)
	case o.VaryFile != "":
		if cs, err = ReadVaryFile(o.VaryFile, varyText); err != nil {
			return nil, nil, err
		}
		if n := len(cs) - 1; n > HardMaxConfigs {
			return nil, nil, &SizeError{N: n}
		}
	default:
		return nil, nil, ErrNoOrigin
	}
	return Resolve(path, base, cs)
}

// Inputs are what a resume is given again by its user in place of what
// sweep.json records: server.toml's path, the vary-file's, or the vary
// options themselves. Empty: the recorded one.
type Inputs struct {
	Server, VaryFile string
	Vary             []string
}

// ErrChanged is a server.toml or vary-file whose text is not the one the
// sweep began with: its configurations would not be the ones measured.
var ErrChanged = errors.New("changed since the sweep began")

// ErrInFolder is a file that sweep.json names inside the sweep's own
// folder: it came with the folder, which whoever shared it could have
// written, so a resume reads it only when its user names it.
var ErrInFolder = errors.New("lies in the sweep's own folder")

// InputError is why Resume could not use a sweep's server.toml (or its
// vary-file): it could not be read (Err from the file system), it changed
// (ErrChanged), or sweep.json names one in the sweep's folder (ErrInFolder).
type InputError struct {
	Path     string
	VaryFile bool // the vary-file, not server.toml
	Err      error
}

func (e *InputError) Error() string { return e.Path + ": " + e.Err.Error() }

// Unwrap returns the reason.
func (e *InputError) Unwrap() error { return e.Err }

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
	return fmt.Sprintf("configuration %d of %s is not what server.toml and the sweep's vary options make there (%s)", e.Index+1, JSONFile, want)
}

// Resume reads the sweep saved in dir to finish it. Nothing in sweep.json
// is run as it stands: its plan must be one that can run, and its
// configurations are made again (Derive) from server.toml and the vary
// options or vary-file, those given in in or else those recorded, and must
// be the ones recorded (*MismatchError). A server.toml or vary-file that
// can't be read, changed, or is named by sweep.json inside dir is an
// *InputError. Each configuration's state comes from its folder (Reopen).
// It returns the sweep with server.toml's text.
func Resume(dir string, in Inputs) (Sweep, string, error) {
	s, err := Load(dir)
	if err != nil {
		return s, "", err
	}
	if err := engine.ValidatePlan(s.Plan, engine.Limits{}); err != nil {
		return s, "", fmt.Errorf("%s: %w", JSONFile, err)
	}
	s.Server = cmp.Or(in.Server, s.Server)
	base, err := readInput(dir, s.Server, in.Server == "", s.ServerSHA256, false)
	if err != nil {
		return s, "", err
	}
	o := s.Origin
	if in.Vary != nil || in.VaryFile != "" {
		o = Origin{Vary: in.Vary, VaryFile: in.VaryFile}
	}
	varyText := ""
	if o.VaryFile != "" {
		want := ""
		if s.VaryFile != "" {
			want = s.VaryFileSHA256
		}
		if varyText, err = readInput(dir, o.VaryFile, in.VaryFile == "", want, true); err != nil {
			return s, "", err
		}
		o.VaryFileSHA256 = Digest([]byte(varyText))
	}
	cs, _, err := Derive(s.Server, base, o, varyText)
	if err != nil {
		return s, "", err
	}
	if err := sameConfigs(cs, s.Configs); err != nil {
		return s, "", err
	}
	for i := range cs {
		// Only what a sweep measured carries over; what runs is made anew.
		cs[i].StartupS, cs[i].MeasureS, cs[i].Reason = s.Configs[i].StartupS, s.Configs[i].MeasureS, s.Configs[i].Reason
	}
	s.Configs, s.Origin = cs, o
	Reopen(dir, &s)
	return s, base, nil
}

// sameConfigs is a *MismatchError at the first configuration of got that
// is not want's.
func sameConfigs(want, got []Config) error {
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
// which must not lie in the sweep's folder dir when sweep.json named it
// (recorded), and whose digest must be want ("": any).
func readInput(dir, path string, recorded bool, want string, varyFile bool) (string, error) {
	fail := func(err error) (string, error) { return "", &InputError{Path: path, VaryFile: varyFile, Err: err} }
	if recorded && inFolder(dir, path) {
		return fail(ErrInFolder)
	}
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
	case want != "" && Digest(text) != want:
		return fail(ErrChanged)
	}
	return string(text), nil
}

// inFolder reports whether path lies in dir, as written or once its
// symbolic links are followed.
func inFolder(dir, path string) bool {
	d, err1 := filepath.Abs(dir)
	p, err2 := filepath.Abs(path)
	if err1 != nil || err2 != nil {
		return true // can't tell: not to be trusted
	}
	under := func(d, p string) bool {
		rel, err := filepath.Rel(d, p)
		return err == nil && rel != ".." && !strings.HasPrefix(rel, ".."+string(filepath.Separator))
	}
	if under(d, p) {
		return true
	}
	rd, err1 := filepath.EvalSymlinks(d)
	rp, err2 := filepath.EvalSymlinks(p)
	return err1 == nil && err2 == nil && under(rd, rp)
}

// programKeys choose the program a configuration runs and the code it
// loads: the engine and its executable or image, its arguments and
// environment, a model's own code. A resume takes them only from its
// user's inputs, never from vary options sweep.json records: a sweep
// folder is something users share.
var programKeys = []string{"engine", "runner", "executable", "docker_image", "ray_executable", "ray_address",
	"extra_args", "env", "hf_cache", "model", "trust_remote_code"}

// ProgramKeys lists the keys of programKeys that cs set, in order.
func ProgramKeys(cs []Config) []string {
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
