// Package sweeptest serves the tests of the packages that resume sweeps:
// a sweep.json edited as someone else would, and a program that leaves a
// mark when it runs, to prove that a resume ran nothing it was not given.
package sweeptest

import (
	"encoding/json"
	"fmt"
	"os"
	"path/filepath"
	"runtime"
	"testing"
)

// EditJSON changes the JSON file at path (a sweep.json) as f says, as a
// hand, or someone else, would.
func EditJSON(t testing.TB, path string, f func(m map[string]any)) {
	t.Helper()
	data, err := os.ReadFile(path)
	var m map[string]any
	if err == nil {
		err = json.Unmarshal(data, &m)
	}
	if err != nil {
		t.Fatal(err)
	}
	f(m)
	if data, err = json.Marshal(m); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(path, data, 0o644); err != nil {
		t.Fatal(err)
	}
}

// MarkerProgram writes a program named name, in a new folder, that leaves
// a file beside it when it runs, then fails; it returns the program and
// the file's path. It skips the test where a shell script can't run.
func MarkerProgram(t testing.TB, name string) (exe, marker string) {
	t.Helper()
	if runtime.GOOS == "windows" {
		t.Skip("a shell script stands in for the server")
	}
	dir := t.TempDir()
	exe, marker = filepath.Join(dir, name), filepath.Join(dir, name+".ran")
	if err := os.WriteFile(exe, fmt.Appendf(nil, "#!/bin/sh\ntouch %q\nexit 1\n", marker), 0o755); err != nil {
		t.Fatal(err)
	}
	return exe, marker
}
