package runs

import (
	"errors"
	"os"
	"path/filepath"
	"runtime"
	"strings"
	"testing"

	"speedmatrix/engine"
	"speedmatrix/engine/report"
)

// failingIn is report.Save, except into dir while *broken: a disk that is
// full there.
func failingIn(dir string, broken *bool) func(string, engine.Report) error {
	return func(d string, rep engine.Report) error {
		if d == dir && *broken {
			return errors.New("write " + filepath.Join(d, report.JSONFile) + ": no space left on device")
		}
		return report.Save(d, rep)
	}
}

// cells is a report with n Valid cells.
func cells(n int) engine.Report {
	rep := measured(engine.StatusValid)
	for len(rep.Results) < n {
		rep.Results = append(rep.Results, engine.Result{Cell: engine.Cell{Phase: engine.PhaseDecode, ContextTokens: 1024, Concurrency: len(rep.Results)}, Status: engine.StatusValid})
	}
	return rep
}

// A save the run's folder can't take goes whole into a rescue folder, which
// the error names; the run's folder keeps its last good report; once the
// folder takes a save again, the rescue folder goes.
func TestSaverRescuesWhatTheFolderCantTake(t *testing.T) {
	dir, rescue := t.TempDir(), t.TempDir()
	full := false
	s := Saver{Dir: dir, Rescue: []string{filepath.Join(rescue, "no", "\x00"), rescue}, Save: failingIn(dir, &full)}
	if _, err := s.Keep(cells(1)); err != nil {
		t.Fatal(err)
	}
	full = true
	_, err := s.Keep(cells(3))
	var se *SaveError
	if !errors.As(err, &se) || !se.Rescued || s.Rescued == "" || filepath.Dir(s.Rescued) != rescue || s.Kept() != s.Rescued {
		t.Fatalf("Keep = %v (%+v), rescued in %q, kept %q; want the report rescued in a folder of %s", err, se, s.Rescued, s.Kept(), rescue)
	}
	if !strings.Contains(err.Error(), "no space left on device; every measured cell is saved in "+s.Rescued+" instead") {
		t.Errorf("error %q does not say where the cells are", err)
	}
	if got, lerr := report.Load(s.Rescued); lerr != nil || len(got.Results) != 3 {
		t.Errorf("rescue folder holds %d cells (%v), want 3", len(got.Results), lerr)
	}
	if got, lerr := report.Load(dir); lerr != nil || len(got.Results) != 1 {
		t.Errorf("the run's folder holds %d cells (%v), want its last good report (1)", len(got.Results), lerr)
	}
	first := s.Rescued
	if _, err := s.Keep(cells(4)); !errors.As(err, &se) || s.Rescued != first {
		t.Errorf("a later save went to %q (%v), want the same rescue folder %s", s.Rescued, err, first)
	}
	full = false
	if _, err := s.Keep(cells(5)); err != nil || s.Err != nil || s.Rescued != "" || s.Kept() != dir {
		t.Fatalf("folder back: Keep = %v, Err %v, rescued %q, kept %q", err, s.Err, s.Rescued, s.Kept())
	}
	if _, err := os.Stat(first); !errors.Is(err, os.ErrNotExist) {
		t.Errorf("the rescue folder %s is still there (%v) once the run's folder holds everything", first, err)
	}
}

// When no folder takes the save, the error names the last report saved.
func TestSaverNamesTheLastReportWhenNothingTakesIt(t *testing.T) {
	dir := t.TempDir()
	full := false
	s := Saver{Dir: dir, Rescue: []string{filepath.Join(dir, report.JSONFile, "x")}, Save: failingIn(dir, &full)}
	if _, err := s.Keep(cells(1)); err != nil {
		t.Fatal(err)
	}
	full = true
	_, err := s.Keep(cells(2))
	var se *SaveError
	if !errors.As(err, &se) || se.Rescued || se.Kept != dir || se.RescueErr == nil {
		t.Fatalf("Keep = %v (%+v), want no rescue and the last report in %s", err, se, dir)
	}
	if !strings.Contains(err.Error(), "no other folder could take it") || !strings.HasSuffix(err.Error(), "the last report saved is in "+dir) {
		t.Errorf("error %q", err)
	}
}

// The default rescue folders are the user's data folder (measured results
// are data: a cache folder gets emptied), then the temporary folder; a
// relative XDG_DATA_HOME is ignored, as the XDG rules say.
func TestRescueRoots(t *testing.T) {
	if runtime.GOOS != "linux" {
		t.Skip("the data folder follows XDG_DATA_HOME on Linux")
	}
	tmp := filepath.Join(os.TempDir(), "speedmatrix-rescued")
	for _, c := range []struct{ data, home, want string }{
		{"/data", "/home/u", "/data/speedmatrix/rescued"},
		{"", "/home/u", "/home/u/.local/share/speedmatrix/rescued"},
		{"relative", "/home/u", "/home/u/.local/share/speedmatrix/rescued"},
	} {
		t.Setenv("XDG_DATA_HOME", c.data)
		t.Setenv("XDG_CACHE_HOME", "/cache")
		t.Setenv("HOME", c.home)
		if got := rescueRoots(); len(got) != 2 || got[0] != c.want || got[1] != tmp {
			t.Errorf("XDG_DATA_HOME=%q HOME=%s: rescueRoots() = %q, want [%s %s]", c.data, c.home, got, c.want, tmp)
		}
	}
}

// With no rescue folders given, a save the run's folder can't take goes to
// $XDG_DATA_HOME/speedmatrix/rescued, and the error names the folder.
func TestSaverRescuesIntoTheDataFolder(t *testing.T) {
	if runtime.GOOS != "linux" {
		t.Skip("the data folder follows XDG_DATA_HOME on Linux")
	}
	data, cache := t.TempDir(), t.TempDir()
	t.Setenv("XDG_DATA_HOME", data)
	t.Setenv("XDG_CACHE_HOME", cache)
	dir := t.TempDir()
	full := true
	s := Saver{Dir: dir, Save: failingIn(dir, &full)}
	_, err := s.Keep(cells(2))
	root := filepath.Join(data, "speedmatrix", "rescued")
	if filepath.Dir(s.Rescued) != root {
		t.Fatalf("rescued in %q (%v), want a folder of %s", s.Rescued, err, root)
	}
	if err == nil || !strings.Contains(err.Error(), "every measured cell is saved in "+s.Rescued) {
		t.Errorf("error %v does not name %s", err, s.Rescued)
	}
	if entries, _ := os.ReadDir(cache); len(entries) != 0 {
		t.Errorf("the cache folder holds %d entries, want none", len(entries))
	}
	_ = os.RemoveAll(s.Rescued)
}
