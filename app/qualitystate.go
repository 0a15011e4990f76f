package app

import (
	"errors"
	"fmt"
	"os"
	"path/filepath"

	"speedmatrix/engine/quality"
	"speedmatrix/engine/runs"
)

// The Matrix screen's Quality choices: what a run does after its matrix.
const (
	qualityOff     = "Off"
	qualityRecord  = "Record a reference"
	qualityCompare = "Compare with a reference"
)

// qualityField is the Quality field's name, as the Matrix screen labels it.
const qualityField = "Quality"

// qualityInfo is the Matrix screen's Quality field: off, record a reference
// into Path after the matrix, or compare the server with the reference at
// Path after the matrix. Err says why the field can't be used (nil when it
// can); Start refuses then.
type qualityInfo struct {
	Mode string
	Path string
	Err  error
}

// on reports whether a run adds a quality phase.
func (q qualityInfo) on() bool { return q.Mode == qualityRecord || q.Mode == qualityCompare }

// setQuality replaces the Quality field; watchers of the plan hear of it.
func (s *appState) setQuality(q qualityInfo) {
	s.quality = q
	s.notify(changePlan)
}

// checkQuality is why q can't be used, in the field's words (a
// *fieldError), or nil: a reference to compare with that can't be read as
// one, a place to record into that is taken or can't be written. It reads
// the reference (within the engine's bounds) and returns it for Compare.
func checkQuality(q qualityInfo) (quality.Reference, error) {
	switch q.Mode {
	case qualityCompare:
		if q.Path == "" {
			return quality.Reference{}, &fieldError{qualityField, "no reference chosen", "choose the reference file to compare with, or record one with Record a reference"}
		}
		ref, _, err := readReferenceFile(q.Path)
		return ref, err
	case qualityRecord:
		return quality.Reference{}, checkRecordPath(q.Path)
	}
	return quality.Reference{}, nil
}

// readReferenceFile reads the reference at path within the engine's bounds,
// with its bytes' SHA-256 (runs.ReadReference); the error is in the
// Quality field's words.
func readReferenceFile(path string) (quality.Reference, string, error) {
	name := filepath.Base(path)
	fh, err := os.Open(path)
	if err != nil {
		return quality.Reference{}, "", &fieldError{qualityField, name + " cannot be read (" + pathless(err) + ")", "choose the reference file again, or record one with Record a reference"}
	}
	defer fh.Close()
	ref, sum, err := runs.ReadReference(fh)
	var version *quality.VersionError
	var bad *quality.ReferenceError
	switch {
	case errors.As(err, &version):
		return ref, "", &fieldError{qualityField, name + " is of " + err.Error(), "record the reference again with Record a reference"}
	case errors.As(err, &bad):
		return ref, "", &fieldError{qualityField, name + " is " + err.Error(), "choose a file saved by Record a reference"}
	case err != nil:
		return ref, "", &fieldError{qualityField, name + " cannot be read (" + pathless(err) + ")", "choose the reference file again"}
	}
	return ref, sum, nil
}

// checkRecordPath checks, before anything is measured, that a reference
// can be recorded at path: not over a file (a reference is recorded once,
// and later servers are measured against it), in a folder that takes
// files.
func checkRecordPath(path string) error {
	if path == "" {
		return &fieldError{qualityField, "no file to record the reference into", "choose where to save it with Save as…"}
	}
	name := filepath.Base(path)
	if _, err := os.Lstat(path); err == nil {
		return &fieldError{qualityField, name + " already exists, and a reference is recorded once", "choose another name with Save as…, or compare with it: Compare with a reference"}
	}
	if _, err := usableFolder(filepath.Dir(path)); err != nil {
		return &fieldError{qualityField, "the folder of " + name + " can't be written (" + pathless(err) + ")", "choose another folder with Save as…"}
	}
	return nil
}

// pathless is err's message without the path an *os.PathError repeats:
// "no such file or directory".
func pathless(err error) string {
	var fe *folderError
	if errors.As(err, &fe) {
		return fmt.Sprintf("it %s: %s", fe.Problem, pathless(fe.Err))
	}
	var pe *os.PathError
	if errors.As(err, &pe) {
		return pe.Err.Error()
	}
	return err.Error()
}
