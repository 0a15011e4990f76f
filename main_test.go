package main

import (
	"os"
	"os/exec"
	"strings"
	"testing"
)

// TestQuietUnderCUTF8: under LANG=C.UTF-8, Debian's default, a program
// that links Fyne as speedmatrix does (this test binary) prints nothing
// about the locale while it starts: package locale set LANGUAGE before
// Fyne read it. Before, every command printed "Fyne error: Error parsing
// user locale C".
func TestQuietUnderCUTF8(t *testing.T) {
	if os.Getenv("SPEEDMATRIX_LOCALE_CHILD") != "" {
		return // the child: starting was the test
	}
	cmd := exec.Command(os.Args[0], "-test.run=^TestQuietUnderCUTF8$", "-test.v")
	var env []string
	for _, kv := range os.Environ() {
		if k, _, _ := strings.Cut(kv, "="); k != "LANG" && k != "LANGUAGE" && k != "LC_ALL" && k != "LC_MESSAGES" {
			env = append(env, kv)
		}
	}
	cmd.Env = append(env, "LANG=C.UTF-8", "SPEEDMATRIX_LOCALE_CHILD=1")
	out, err := cmd.CombinedOutput()
	if err != nil {
		t.Fatalf("the child failed: %v\n%s", err, out)
	}
	if strings.Contains(string(out), "locale") {
		t.Errorf("starting under LANG=C.UTF-8 printed:\n%s", out)
	}
}
