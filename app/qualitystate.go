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
	QualityOff     = "Off"
	QualityRecord  = "Record a reference"
	QualityCompare = "Compare with a reference"
)

// QualityField is the Quality field's name, as the Matrix screen labels it.
const QualityField = "Quality"

// QualityInfo is the Matrix screen's Quality field: off, record a reference
// into Path after the matrix, or compare the server with the reference at
// Path after the matrix. Err says why the field can't be used (nil when it
// can); Start refuses then.
type QualityInfo struct {
	Mode string
	Path string
	Err  error
}

// On reports whether a run adds a quality phase.
func (q QualityInfo) On() bool { return q.Mode == QualityRecord || q.Mode == QualityCompare }

// SetQuality replaces the Quality field; watchers of the plan hear of it.
func (s *State) SetQuality(q QualityInfo) {
	s.Quality = q
	s.notify(ChangePlan)
}

// CheckQuality is why q can't be used, in the field's words (a
// *fieldError), or nil: a reference to compare with that can't be read as
// one, a place to record into that is taken or can't be written. It reads
// the reference (within the engine's bounds) and returns it for Compare.
func CheckQuality(q QualityInfo) (quality.Reference, error) {
	switch q.Mode {
	case QualityCompare:
		if q.Path == "" {
			return quality.Reference{}, &FieldError{QualityField, "no reference chosen", "choose the reference file to compare with, or record one with Record a reference"}
		}
		ref, _, err := ReadReferenceFile(q.Path)
		return ref, err
	case QualityRecord:
		return quality.Reference{}, checkRecordPath(q.Path)
	}
	return quality.Reference{}, nil
}

// ReadReferenceFile reads the reference at path within the engine's bounds,
// with its bytes' SHA-256 (runs.ReadReference); the error is in the
// Quality field's words.
func ReadReferenceFile(path string) (quality.Reference, string, error) {
	name := filepath.Base(path)
	fh, err := os.Open(path)
	if err != nil {
		return quality.Reference{}, "", &FieldError{QualityField, name + " cannot be read (" + pathless(err) + ")", "choose the reference file again, or record one with Record a reference"}
	}
	defer fh.Close()
	ref, sum, err := runs.ReadReference(fh)
	var version *quality.VersionError
	var bad *quality.ReferenceError
	switch {
	case errors.As(err, &version):
		return ref, "", &FieldError{QualityField, name + " is of " + err.Error(), "record the reference again with Record a reference"}
	case errors.As(err, &bad):
		return ref, "", &FieldError{QualityField, name + " is " + err.Error(), "choose a file saved by Record a reference"}
	case err != nil:
		return ref, "", &FieldError{QualityField, name + " cannot be read (" + pathless(err) + ")", "choose the reference file again"}
	}
	return ref, sum, nil
}

// checkRecordPath checks, before anything is measured, that a reference
// can be recorded at path: not over a file (a reference is recorded once,
// and later servers are measured against it), in a folder that takes
// files.
func checkRecordPath(path string) error {
	if path == "" {
		return &FieldError{QualityField, "no file to record the reference into", "choose where to save it with Save as…"}
	}
	name := filepath.Base(path)
	if _, err := os.Lstat(path); err == nil {
		return &FieldError{QualityField, name + " already exists, and a reference is recorded once", "choose another name with Save as…, or compare with it: Compare with a reference"}
	}
	if _, err := UsableFolder(filepath.Dir(path)); err != nil {
		return &FieldError{QualityField, "the folder of " + name + " can't be written (" + pathless(err) + ")", "choose another folder with Save as…"}
	}
	return nil
}

// pathless is err's message without the path an *os.PathError repeats:
// "no such file or directory".
func pathless(err error) string {
	var fe *FolderError
	if errors.As(err, &fe) {
		return fmt.Sprintf("it %s: %s", fe.Problem, pathless(fe.Err))
	}
	var pe *os.PathError
	if errors.As(err, &pe) {
		return pe.Err.Error()
	}
	return err.Error()
}
