package runs

import (
	"errors"
	"fmt"
	"os"
	"path/filepath"
)

// LockFile is the file in a run's folder whose lock says that a run saves
// into the folder. It is removed when the run lets go of the folder; one
// left by a run that was killed holds no lock and is taken over.
const LockFile = ".speedmatrix.lock"

// BusyError is a run's folder that another run (another speedmatrix
// process, or another run of this one) saves into.
type BusyError struct {
	Dir string
}

func (e *BusyError) Error() string {
	return "another speedmatrix run is saving into " + e.Dir
}

// errLocked is what lockFile returns when another open file holds the lock.
var errLocked = errors.New("locked")

// FolderLock is a run's folder taken for one run: two runs never save into
// the same folder, so neither loses the other's results. The lock is the
// kernel's (flock), so it ends with the process that holds it, however it
// ends.
type FolderLock struct {
	f    *os.File
	path string
}

// LockFolder takes dir (created if missing) for one run, or returns a
// *BusyError when another run holds it.
func LockFolder(dir string) (*FolderLock, error) {
	if err := os.MkdirAll(dir, 0o755); err != nil {
		return nil, err
	}
	path := filepath.Join(dir, LockFile)
	// A run that lets go removes the file: one opened just before that is
	// no longer the folder's, so it is opened again.
	for range 10 {
		f, err := os.OpenFile(path, os.O_RDWR|os.O_CREATE, 0o644)
		if err != nil {
			return nil, fmt.Errorf("lock %s: %w", dir, err)
		}
		if err := lockFile(f); err != nil {
			f.Close()
			if errors.Is(err, errLocked) {
				return nil, &BusyError{Dir: dir}
			}
			return nil, fmt.Errorf("lock %s: %w", dir, err)
		}
		if sameFile(f, path) {
			return &FolderLock{f: f, path: path}, nil
		}
		f.Close()
	}
	return nil, &BusyError{Dir: dir}
}

// sameFile reports whether f is still the file at path.
func sameFile(f *os.File, path string) bool {
	open, err := f.Stat()
	if err != nil {
		return false
	}
	now, err := os.Stat(path)
	return err == nil && os.SameFile(open, now)
}

// Unlock lets go of the folder: the lock file goes, then the lock. It is
// safe on a nil lock.
func (l *FolderLock) Unlock() {
	if l == nil {
		return
	}
	_ = os.Remove(l.path)
	_ = l.f.Close()
}
