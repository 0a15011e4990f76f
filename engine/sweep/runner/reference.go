package runner

import (
	"errors"
	"os"
	"path/filepath"

	"speedmatrix/engine/quality"
	"speedmatrix/engine/runs"
	"speedmatrix/engine/sweep"
)

// ReferenceError is a resume whose ReferenceFile can't be used: it can't be
// read, it is not a reference (quality.ReadReference's bounds), or its
// digest is not the one sweep.json recorded (ErrChanged).
type ReferenceError struct {
	Path string
	Err  error
}

func (e *ReferenceError) Error() string { return e.Path + ": " + e.Err.Error() }

// Unwrap returns the reason.
func (e *ReferenceError) Unwrap() error { return e.Err }

// LoadReference reads the quality reference of the sweep s saved in dir,
// held to quality.ReadReference's bounds (runs.ReadReference) and to the
// digest s recorded, which it returns with it.
func LoadReference(dir string, s sweep.Sweep) (quality.Reference, string, error) {
	path := filepath.Join(dir, sweep.ReferenceFile)
	fail := func(err error) (quality.Reference, string, error) {
		return quality.Reference{}, "", &ReferenceError{Path: path, Err: err}
	}
	f, err := os.Open(path)
	if err != nil {
		return fail(errors.Unwrap(err))
	}
	defer f.Close()
	ref, sum, err := runs.ReadReference(f)
	switch {
	case s.Quality == nil || sum != s.Quality.ReferenceSHA256:
		return fail(ErrChanged)
	case err != nil:
		return fail(err)
	}
	return ref, sum, nil
}
