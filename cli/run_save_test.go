package cli

import (
	"errors"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"speedmatrix/engine"
	"speedmatrix/engine/report"
	"speedmatrix/engine/runs"
)

// fullAfterFirst makes t's run save as report.Save does, except into out
// after its first save there: a disk that filled up mid-run.
func fullAfterFirst(t *testing.T, out string) {
	saves := 0
	cliFor(t).Save = func(dir string, rep engine.Report) error {
		if dir == out {
			if saves++; saves > 1 {
				return errors.New("write " + filepath.Join(dir, report.JSONFile) + ": no space left on device")
			}
		}
		return report.Save(dir, rep)
	}
}

// A disk that fills up mid-run loses nothing: every cell goes whole into a
// rescue folder, which the last line names, and --out keeps its last good
// report.
func TestRunRescuesWhatOutCantTake(t *testing.T) {
	t.Parallel()
	fastSim(t)
	noCharts(t)
	out, rescue := t.TempDir(), t.TempDir()
	fullAfterFirst(t, out)
	cliFor(t).Rescue = []string{rescue}
	text, err := runCLI(t, t.Context(), append([]string{"--sim", "tiny", "--out", out}, smallMatrix...)...)
	if ExitCode(err) != exitExport {
		t.Fatalf("exit %d (%v), want %d\n%s", ExitCode(err), err, exitExport, text)
	}
	folders, _ := filepath.Glob(filepath.Join(rescue, "*"))
	if len(folders) != 1 {
		t.Fatalf("rescue folders %q, want one", folders)
	}
	want := "every measured cell is saved in " + folders[0] + " instead: copy that folder where you want it (--out " + out + " holds an older report)"
	if !strings.Contains(err.Error(), want) || strings.Contains(err.Error(), "\n") {
		t.Errorf("last line %q, want one line saying %q", err, want)
	}
	if !strings.Contains(text, "warning: write "+filepath.Join(out, report.JSONFile)+": no space left on device; every measured cell is saved in "+folders[0]) {
		t.Errorf("the run did not say where the cells went when the save failed:\n%s", text)
	}
	if rep, lerr := report.Load(folders[0]); lerr != nil || len(rep.Results) != 3 || !rep.Run.Complete {
		t.Errorf("rescued report: %d cells, complete %v (%v); want all 3", len(rep.Results), rep.Run.Complete, lerr)
	}
	if rep, lerr := report.Load(out); lerr != nil || len(rep.Results) == 0 || rep.Run.Complete {
		t.Errorf("--out keeps %d cells, complete %v (%v); want its last good, partial report", len(rep.Results), rep.Run.Complete, lerr)
	}
}

// When no folder takes the report, the run stops rather than measure what
// would be lost, and says where the last report saved is and how to finish.
func TestRunStopsWhenNothingTakesTheReport(t *testing.T) {
	t.Parallel()
	fastSim(t)
	noCharts(t)
	out := t.TempDir()
	fullAfterFirst(t, out)
	cliFor(t).Rescue = []string{filepath.Join(out, report.JSONFile, "not-a-folder")}
	text, err := runCLI(t, t.Context(), append([]string{"--sim", "tiny", "--out", out}, smallMatrix...)...)
	if ExitCode(err) != exitIncomplete {
		t.Fatalf("exit %d (%v), want %d\n%s", ExitCode(err), err, exitIncomplete, text)
	}
	for _, want := range []string{"stopped, since no folder could take what it measured", "the last report saved is in " + out,
		"free space, then finish it with: speedmatrix run --resume " + out} {
		if !strings.Contains(err.Error(), want) {
			t.Errorf("last line %q lacks %q", err, want)
		}
	}
	if strings.Contains(text, "[3/3] Sustained decode 1K × 2: Valid") {
		t.Errorf("the run measured on after nothing could be saved:\n%s", text)
	}
}

// Two runs never save into the same folder: the second is refused before
// it measures anything, in the words of its flags.
func TestRunRefusesAFolderInUse(t *testing.T) {
	t.Parallel()
	out := t.TempDir()
	held, err := runs.LockFolder(out)
	if err != nil {
		t.Fatal(err)
	}
	defer held.Unlock()
	_, err = runCLI(t, t.Context(), append([]string{"--sim", "tiny", "--out", out}, smallMatrix...)...)
	if want := "run: another speedmatrix run is saving into " + out + ": wait for it to end, or choose another --out"; err == nil || err.Error() != want || ExitCode(err) != exitCantStart {
		t.Errorf("second run: %v (exit %d), want %q", err, ExitCode(err), want)
	}
	if err := report.Save(out, engine.Report{Plan: engine.DefaultPlan(), Results: []engine.Result{{Cell: engine.Cell{Phase: engine.PhasePrefill, ContextTokens: 8192, Concurrency: 1}, Status: engine.StatusValid}}}); err != nil {
		t.Fatal(err)
	}
	_, err = runCLI(t, t.Context(), "--resume", out)
	if want := "run --resume: another speedmatrix run is saving into " + out + ": wait for it to end"; err == nil || err.Error() != want {
		t.Errorf("resume of a run in progress: %v, want %q", err, want)
	}
	if entries, _ := os.ReadDir(out); len(entries) != 4 {
		t.Errorf("the refused runs left files: %v", entries)
	}
}
