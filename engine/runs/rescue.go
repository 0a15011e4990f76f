package runs

import (
	"errors"
	"os"
	"path/filepath"
	"runtime"
	"strings"

	"speedmatrix/engine"
)

// rescueRoots are where a run goes when its own folder can't take a save:
// speedmatrix/rescued in the user's data folder (dataHome), which outlives
// a reboot and which cleaning tools leave alone (measured results are data,
// not a cache: ~/.cache also holds the rig's venv, and gets emptied), then
// speedmatrix-rescued in the temporary folder, which may be on another disk.
func rescueRoots() []string {
	var roots []string
	if data, err := dataHome(); err == nil {
		roots = append(roots, filepath.Join(data, "speedmatrix", "rescued"))
	}
	return append(roots, filepath.Join(os.TempDir(), "speedmatrix-rescued"))
}

// dataHome is the user's folder for data an application keeps: on Linux
// and the BSDs $XDG_DATA_HOME, else ~/.local/share (the XDG base directory
// rules); on macOS and Windows the folder Go names for its settings
// (~/Library/Application Support, %AppData%), where those systems keep
// application data too.
func dataHome() (string, error) {
	switch runtime.GOOS {
	case "darwin", "ios", "windows", "plan9":
		return os.UserConfigDir()
	}
	if d := os.Getenv("XDG_DATA_HOME"); filepath.IsAbs(d) { // the rules ignore a relative one
		return d, nil
	}
	home, err := os.UserHomeDir()
	if err != nil {
		return "", err
	}
	return filepath.Join(home, ".local", "share"), nil
}

// rescue saves rep, which Dir could not take (cause), whole in the rescue
// folder it is in, else in a new one, and says where it is.
func (s *Saver) rescue(save func(string, engine.Report) error, rep engine.Report, cause error) *SaveError {
	e := &SaveError{Dir: s.Dir, Err: cause}
	var failed []string
	if s.Rescued != "" {
		err := save(s.Rescued, rep)
		if err == nil {
			s.kept, e.Rescued, e.Kept = s.Rescued, true, s.Rescued
			return e
		}
		failed = append(failed, s.Rescued+": "+rootCause(err).Error())
	}
	roots := s.Rescue
	if roots == nil {
		roots = rescueRoots()
	}
	for _, root := range roots {
		dir, err := newRescueFolder(root, rep, save)
		if err != nil {
			failed = append(failed, root+": "+rootCause(err).Error())
			continue
		}
		s.dropRescue()
		s.Rescued, s.kept, e.Rescued, e.Kept = dir, dir, true, dir
		return e
	}
	if len(failed) == 0 {
		failed = append(failed, "no rescue folder is set")
	}
	e.Kept, e.RescueErr = s.kept, errors.New(strings.Join(failed, "; "))
	return e
}

// rootCause is the error at the end of err's chain, "no space left on
// device", without the paths that the rescue folder names already.
func rootCause(err error) error {
	for {
		next := errors.Unwrap(err)
		if next == nil {
			return err
		}
		err = next
	}
}

// newRescueFolder saves rep in a new folder of root named after the run,
// and returns it; on failure it leaves nothing.
func newRescueFolder(root string, rep engine.Report, save func(string, engine.Report) error) (string, error) {
	if err := os.MkdirAll(root, 0o700); err != nil {
		return "", err
	}
	dir, err := os.MkdirTemp(root, Folder(rep)+"-")
	if err != nil {
		return "", err
	}
	if err := save(dir, rep); err != nil {
		_ = os.RemoveAll(dir)
		return "", err
	}
	return dir, nil
}

// dropRescue removes the rescue folder, whose report a later save holds
// whole.
func (s *Saver) dropRescue() {
	if s.Rescued != "" {
		_ = os.RemoveAll(s.Rescued)
		s.Rescued = ""
	}
}
