package runs

import (
	"bufio"
	"errors"
	"os"
	"os/exec"
	"path/filepath"
	"testing"
	"time"

	"speedmatrix/engine"
)

// holdEnv asks the test binary to hold the lock of the folder it names, as
// another speedmatrix would, until it is killed.
const holdEnv = "SPEEDMATRIX_TEST_HOLD_FOLDER"

func TestMain(m *testing.M) {
	if dir := os.Getenv(holdEnv); dir != "" {
		if _, err := LockFolder(dir); err != nil {
			os.Stdout.WriteString(err.Error() + "\n")
			os.Exit(1)
		}
		os.Stdout.WriteString("held\n")
		time.Sleep(time.Hour)
	}
	os.Exit(m.Run())
}

// A folder one run holds is refused to another, until the first lets go.
func TestSaverHoldsItsFolder(t *testing.T) {
	dir := filepath.Join(t.TempDir(), "out")
	a, b := Saver{Dir: dir}, Saver{Dir: dir, Rescue: []string{t.TempDir()}}
	if err := a.Claim(); err != nil {
		t.Fatal(err)
	}
	var busy *BusyError
	if err := b.Claim(); !errors.As(err, &busy) || busy.Dir != dir || err.Error() != "another speedmatrix run is saving into "+dir {
		t.Fatalf("second run: %v, want a *BusyError naming %s", err, dir)
	}
	if _, err := b.Keep(cells(1)); !errors.As(err, &busy) {
		t.Errorf("second run's save: %v, want a *BusyError", err)
	}
	a.Release()
	if _, err := os.Stat(filepath.Join(dir, LockFile)); !errors.Is(err, os.ErrNotExist) {
		t.Errorf("the lock file is left after Release (%v)", err)
	}
	if err := b.Claim(); err != nil {
		t.Errorf("after the first let go: %v", err)
	}
	b.Release()
}

// Another process's lock holds until that process ends, however it ends: a
// killed run leaves its lock file, but no lock.
func TestLockEndsWithItsProcess(t *testing.T) {
	dir := t.TempDir()
	cmd := exec.Command(os.Args[0], "-test.run=^$")
	cmd.Env = append(os.Environ(), holdEnv+"="+dir)
	out, err := cmd.StdoutPipe()
	if err != nil {
		t.Fatal(err)
	}
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	if line, _ := bufio.NewReader(out).ReadString('\n'); line != "held\n" {
		_ = cmd.Process.Kill()
		t.Fatalf("the other process: %q", line)
	}
	s := Saver{Dir: dir}
	var busy *BusyError
	if err := s.Claim(); !errors.As(err, &busy) {
		t.Errorf("while another process holds it: %v, want a *BusyError", err)
	}
	_ = cmd.Process.Kill()
	_ = cmd.Wait()
	if _, err := os.Stat(filepath.Join(dir, LockFile)); err != nil {
		t.Errorf("the killed process's lock file: %v", err)
	}
	if err := s.Claim(); err != nil {
		t.Errorf("after the other process was killed: %v", err)
	}
	s.Release()
}

// A new run in a runs folder whose folder of that name another run holds
// gets the name with -2.
func TestSaverTakesTheNextNameWhenHeld(t *testing.T) {
	root := t.TempDir()
	now := func() time.Time { return time.Date(2026, 12, 4, 21, 0, 0, 0, time.UTC) }
	a, b := Saver{Root: root, Now: now}, Saver{Root: root, Now: now}
	if _, err := a.Keep(measured(engine.StatusValid)); err != nil {
		t.Fatal(err)
	}
	defer a.Release()
	if _, err := b.Keep(measured(engine.StatusValid)); err != nil || b.Dir != a.Dir+"-2" {
		t.Errorf("second run saved in %q (%v), want %s-2", b.Dir, err, a.Dir)
	}
	b.Release()
}
