package shell

import (
	"context"
	"fmt"
	"os"
	"path/filepath"
	"slices"
	"strconv"
	"strings"
	"sync/atomic"
	"testing"

	"fyne.io/fyne/v2"
	"fyne.io/fyne/v2/container"
	"fyne.io/fyne/v2/test"

	"speedmatrix/app"
	"speedmatrix/app/apptest"
	"speedmatrix/app/server"
	"speedmatrix/engine/launch"
	"speedmatrix/engine/sweep"
	"speedmatrix/engine/sweep/runner"
	"speedmatrix/engine/sweep/sweeptest"
)

// setRow chooses a field of the Compare settings dialog and types its values.
func setRow(f *server.CompareForm, i int, key, values string) {
	for len(f.Rows) <= i {
		f.AddRow()
	}
	for _, c := range app.CompareFields {
		if c.Key == key {
			f.Rows[i].Field.SetSelected(c.Option())
		}
	}
	f.Rows[i].Values.SetText(values)
}

func configNames(cs []sweep.Config) []string {
	names := make([]string, len(cs))
	for i, c := range cs {
		names[i] = c.Name
	}
	return names
}

// TestCompareSettingsBuildsTheGrid: the dialog's fields make the baseline
// and every combination, count them with their estimate, drop a value
// that is the form's own, and refuse bad values under their field.
func TestCompareSettingsBuildsTheGrid(t *testing.T) {
	uiOnly(t)
	u := sweepUI(t, &simLauncher{t: t})
	u.server.Form.MaxNumSeqs.SetText("16")
	u.server.Launch.OnCompare()
	f := u.server.Launch.Compare
	if f == nil {
		t.Fatalf("Compare settings… opened nothing: %s", u.server.Launch.State.Text)
	}
	for _, tt := range []struct {
		name    string
		rows    [][2]string
		configs []string // nil: Start sweep is off
		count   string   // in the count line
		errRow  int      // the row whose error is errText
		errText string
	}{
		{"grid", [][2]string{{"max_num_seqs", "4, 8"}, {"enforce_eager", "true,false"}},
			[]string{"baseline", "max_num_seqs=4 enforce_eager=true", "max_num_seqs=4 enforce_eager=false", "max_num_seqs=8 enforce_eager=true", "max_num_seqs=8 enforce_eager=false"},
			"baseline + 4 configurations, about", 0, ""},
		{"the form's own value runs once", [][2]string{{"max_num_seqs", "16, 32"}}, []string{"baseline", "max_num_seqs=32"}, "baseline + 1 configuration", 0, ""},
		{"not a number", [][2]string{{"max_num_seqs", "4, many"}}, nil, "", 0, `max_num_seqs takes a whole number, not "many": e.g. max_num_seqs=16.`},
		{"a value twice", [][2]string{{"max_num_seqs", "4,4"}}, nil, "", 0, "lists 4 twice: give each value once."},
		{"not a fraction", [][2]string{{"max_num_seqs", "4"}, {"gpu_memory_utilization", "high"}}, nil, "", 1, `GPU memory utilization takes a number, not "high"`},
		{"a field twice", [][2]string{{"max_num_seqs", "4"}, {"max_num_seqs", "8"}}, nil, "", 1, "max_num_seqs is listed above already"},
	} {
		t.Run(tt.name, func(t *testing.T) {
			for len(f.Rows) > 1 {
				f.RemoveRow(f.Rows[len(f.Rows)-1])
			}
			for i, r := range tt.rows {
				setRow(f, i, r[0], r[1])
			}
			if got := configNames(f.Configs); !slices.Equal(got, tt.configs) {
				t.Errorf("configurations = %q, want %q", got, tt.configs)
			}
			if f.StartBtn.Disabled() != (tt.configs == nil) {
				t.Errorf("Start sweep disabled = %v with configurations %q", f.StartBtn.Disabled(), tt.configs)
			}
			if !strings.Contains(f.Count.Text, tt.count) {
				t.Errorf("count = %q, want it to hold %q", f.Count.Text, tt.count)
			}
			if got := f.Rows[tt.errRow].Err; tt.errText != "" && (got.Hidden || !strings.Contains(got.Text, tt.errText)) {
				t.Errorf("row %d says %q (hidden %v), want %q", tt.errRow, got.Text, got.Hidden, tt.errText)
			}
		})
	}
}

// TestCompareSettingsAsksBeforeALargeGrid: more than sweep.MaxConfigs
// configurations start only once the box is ticked.
func TestCompareSettingsAsksBeforeALargeGrid(t *testing.T) {
	u := sweepUI(t, &simLauncher{t: t})
	u.server.Launch.OnCompare()
	f := u.server.Launch.Compare
	values := make([]string, sweep.MaxConfigs+1)
	for i := range values {
		values[i] = strconv.Itoa(i + 1)
	}
	setRow(f, 0, "max_num_seqs", strings.Join(values, ","))
	if f.Many.Hidden || !f.StartBtn.Disabled() {
		t.Fatalf("65 configurations: confirm box hidden %v, Start sweep disabled %v; want the box shown and Start off", f.Many.Hidden, f.StartBtn.Disabled())
	}
	test.Tap(f.Many)
	if f.StartBtn.Disabled() || len(f.Configs) != sweep.MaxConfigs+2 {
		t.Errorf("ticked: Start sweep disabled %v, %d configurations; want it on with the baseline and 65", f.StartBtn.Disabled(), len(f.Configs))
	}
}

// TestSweepRunsEveryConfiguration: a sweep started from the dialog
// launches each configuration in turn, the Run screen saying which, and
// measures it for real (the simulator standing in for vLLM); one that
// fails to start is recorded and the sweep goes on; History then lists the
// sweep once and Results shows its summary.
func TestSweepRunsEveryConfiguration(t *testing.T) {
	gate := make(chan struct{})
	l := &simLauncher{t: t, gate: map[int]chan struct{}{4: gate}, fail: func(cfg launch.ServerConfig) error {
		if cfg.MaxNumSeqs == 8 {
			return errOOM
		}
		return nil
	}}
	u := sweepUI(t, l)
	u.server.Launch.OnCompare()
	f := u.server.Launch.Compare
	setRow(f, 0, "max_num_seqs", "4, 8")
	test.Tap(f.StartBtn)
	sr := u.run.Sweep
	if sr == nil {
		t.Fatalf("the sweep did not start: %s", u.run.ProgressLine.Text)
	}
	if u.Tabs.Selected().Text != u.RunItem.Text {
		t.Errorf("the app shows %q, want the Run screen", u.Tabs.Selected().Text)
	}
	// The second configuration's server holds its start-up until released.
	// The sweep's line, the progress line and the log are updated one
	// after the other: wait for all three.
	waitUntil(t, func() bool {
		return strings.HasPrefix(u.run.SweepView.Line.Text, "Configuration 2 of 3: max_num_seqs=4 · Starting") &&
			strings.HasPrefix(u.run.ProgressLine.Text, "Starting max_num_seqs=4 …") &&
			strings.Contains(u.run.Log.Text(), "INFO simulated vLLM: loading the model")
	},
		"the Run screen to show the second configuration starting, in its sweep line, progress line and log")
	if row := u.run.SweepView.Rows[0]; row[1] != string(sweep.StatusDone) || !strings.HasSuffix(row[3], "cells") {
		t.Errorf("baseline's row = %q, want Done with its cells", row)
	}
	if u.server.Launch.Start.Disabled() == false || !strings.Contains(u.server.Launch.Why.Text, "A sweep is running") {
		t.Errorf("Start server during a sweep: disabled %v, why %q", u.server.Launch.Start.Disabled(), u.server.Launch.Why.Text)
	}
	close(gate)
	waitFor(t, sr.Done, "the sweep to end")

	s := sweepStatuses(t, sr.Dir, "baseline: Done", "max_num_seqs=4: Done", "max_num_seqs=8: Failed to start")
	if s.Ended.IsZero() || !s.Simulated {
		t.Errorf("sweep.json: ended %v, simulated %v; want both", !s.Ended.IsZero(), s.Simulated)
	}
	if r := s.Configs[2].Reason; !strings.Contains(r, "CUDA out of memory") {
		t.Errorf("failed configuration's reason = %q", r)
	}
	if got := l.launched(); len(got) != 3 || got[0].MaxNumSeqs != 0 || got[1].MaxNumSeqs != 4 {
		t.Errorf("launched %d configurations (%+v), want the baseline then 4 and 8", len(got), got)
	}
	if !strings.HasPrefix(u.run.ProgressLine.Text, "Sweep finished in") || u.run.Running() {
		t.Errorf("after the sweep: line %q, running %v", u.run.ProgressLine.Text, u.run.Running())
	}
	if len(u.history.Entries) != 1 || u.history.Entries[0].Sweep == nil {
		t.Fatalf("History lists %d entries (sweep %v), want the sweep once", len(u.history.Entries), len(u.history.Entries) > 0 && u.history.Entries[0].Sweep != nil)
	}
	if e := u.history.Entries[0]; !strings.HasPrefix(e.Detail(), "Sweep · 3 configurations · best at 1K × ") || !e.Sum.Simulated {
		t.Errorf("History's line = %q, simulated badge %v", e.Detail(), e.Sum.Simulated)
	}
	if !u.results.Sweep.Shown || u.Tabs.Selected().Text != app.TabResults || !apptest.HasText(lastTab(u.results.Sweep.Views), "max_num_seqs=8 · Failed to start: start vllm: torch.OutOfMemoryError") {
		t.Errorf("Results: sweep shown %v, screen %q", u.results.Sweep.Shown, u.Tabs.Selected().Text)
	}
}

// TestHistoryOpensASweep: a sweep's folder is one entry of History, not
// its runs; opening it shows the summary, each of its runs opens as any
// run, and the way back leads to the summary.
func TestHistoryOpensASweep(t *testing.T) {
	uiOnly(t)
	u := sweepUI(t, &simLauncher{t: t})
	cs := runner.Grid([][]sweep.Setting{{{Key: "max_num_seqs", Value: "8"}}})
	dir := savedSweep(t, u, cs, map[string]map[int]float64{"baseline": {1: 100, 2: 150}, "max_num_seqs=8": {1: 100, 2: 300}}, map[string]bool{"baseline": true, "max_num_seqs=8": true})
	u.State.RunSaved(dir)
	h := u.history
	if len(h.Entries) != 1 {
		t.Fatalf("History lists %d entries, want the sweep once", len(h.Entries))
	}
	e := h.Entries[0]
	if want := "Sweep · 2 configurations · best at 1K × 2: max_num_seqs=8 (+100.0%)"; !strings.HasPrefix(e.Detail(), want) || !e.Sum.Simulated {
		t.Errorf("line = %q, simulated %v; want it to begin %q, simulated", e.Detail(), e.Sum.Simulated, want)
	}
	h.List.Select(0)
	if !h.ResumeBtn.Disabled() {
		t.Error("Resume is on for a sweep that ended")
	}
	h.OnOpen()
	r := u.results
	if !r.Sweep.Shown || !strings.HasPrefix(r.Title.Text, "Sweep: ") || !strings.Contains(r.Subtitle.Text, "varying max_num_seqs") {
		t.Fatalf("Results: shown %v, title %q, subtitle %q", r.Sweep.Shown, r.Title.Text, r.Subtitle.Text)
	}
	for _, want := range []string{"1K × 2: max_num_seqs=8, +100.0% over baseline", "Simulated: every configuration"} {
		if !apptest.HasText(r.Sweep.Views, want) {
			t.Errorf("the summary lacks %q", want)
		}
	}
	open := apptest.FindButton(lastTab(r.Sweep.Views), "Open")
	if open == nil {
		t.Fatal("the runs list has no Open")
	}
	test.Tap(open)
	if r.Sweep.Shown || !r.Has || r.Source != sweep.RunDir(dir, cs[0]) || r.Sweep.Back.Hidden {
		t.Errorf("opened run: sweep shown %v, report %v, source %q, back hidden %v", r.Sweep.Shown, r.Has, r.Source, r.Sweep.Back.Hidden)
	}
	test.Tap(r.Sweep.Back)
	if !r.Sweep.Shown {
		t.Error("Sweep summary did not go back to the sweep")
	}
}

// TestResumeSweepRunsOnlyTheRest: a sweep stopped after its baseline
// resumes from History: only the configuration without a run starts.
func TestResumeSweepRunsOnlyTheRest(t *testing.T) {
	l := &simLauncher{t: t}
	u := sweepUI(t, l)
	cs := runner.Grid([][]sweep.Setting{{{Key: "max_num_seqs", Value: "8"}, {Key: "max_num_seqs", Value: "16"}}})
	dir := savedSweep(t, u, cs, map[string]map[int]float64{"baseline": {1: 100, 2: 150}}, map[string]bool{"baseline": true})
	u.State.RunSaved(dir)
	u.history.List.Select(0)
	if u.history.ResumeBtn.Disabled() {
		t.Fatal("Resume is off for a sweep that did not end")
	}
	test.Tap(u.history.ResumeBtn)
	sr := u.run.Sweep
	if sr == nil {
		t.Fatalf("the sweep did not resume: %s", u.run.ProgressLine.Text)
	}
	waitFor(t, sr.Done, "the sweep to end")
	var seqs []int
	for _, cfg := range l.launched() {
		seqs = append(seqs, cfg.MaxNumSeqs)
	}
	if !slices.Equal(seqs, []int{8, 16}) {
		t.Errorf("launched max_num_seqs %v, want 8 and 16 alone: the baseline's run is kept", seqs)
	}
	s, err := sweep.Load(dir)
	if err != nil {
		t.Fatal(err)
	}
	if s.Ended.IsZero() || s.Configs[1].Status != sweep.StatusDone || s.Configs[2].Status != sweep.StatusDone {
		t.Errorf("after resume: ended %v, statuses %v %v", !s.Ended.IsZero(), s.Configs[1].Status, s.Configs[2].Status)
	}
	if _, err := os.Stat(filepath.Join(dir, "max_num_seqs-16", "report.json")); err != nil {
		t.Errorf("the resumed configuration's run is not in the sweep's folder: %v", err)
	}
}

// recordingLauncher launches servers for real (launch.Launch), counting
// them.
type recordingLauncher struct{ n atomic.Int32 }

func (l *recordingLauncher) Launch(ctx context.Context, cfg launch.ServerConfig) (app.LaunchedServer, error) {
	l.n.Add(1)
	return vllmLauncher{}.Launch(ctx, cfg)
}

// TestResumeSweepRunsNothingTheFolderSays: a shared sweep folder whose
// sweep.json names a server.toml outside it, with the digest of its text
// (and the same text in the folder's server.toml), whose executable is
// a program of its own, is not resumed: the Launch form is another server,
// so nothing starts, and the Run screen says what to set the form to. A
// sweep.json whose vary options set the executable or the model is refused
// as well.
func TestResumeSweepRunsNothingTheFolderSays(t *testing.T) {
	exe, marker := sweeptest.MarkerProgram(t, "evil-vllm")
	evilText := fmt.Sprintf("executable = %q\nmodel = \"speedmatrix/tiny-sim\"\nport = 18801\n", exe)
	evil := filepath.Join(t.TempDir(), "server.toml")
	// varied records vary options in sweep.json, and the configurations
	// they make of the form's server.toml.
	varied := func(vary ...string) func(*testing.T, string, map[string]any) {
		return func(t *testing.T, dir string, m map[string]any) {
			base, err := os.ReadFile(filepath.Join(dir, app.SweepServerFile))
			cs, _, err2 := runner.Derive(evil, string(base), sweep.Origin{Vary: vary}, "")
			if err != nil || err2 != nil {
				t.Fatal(err, err2)
			}
			m["vary"], m["configs"] = vary, cs
		}
	}
	for _, tt := range []struct {
		name string
		edit func(t *testing.T, dir string, m map[string]any)
		want string
	}{
		{"another server.toml", func(t *testing.T, dir string, m map[string]any) {
			for _, path := range []string{evil, filepath.Join(dir, app.SweepServerFile)} {
				if err := os.WriteFile(path, []byte(evilText), 0o644); err != nil {
					t.Fatal(err)
				}
			}
			m["server_toml"], m["server_toml_sha256"] = evil, sweep.Digest([]byte(evilText))
		}, fmt.Sprintf("This sweep began with another server: set the Launch form on the Server screen to what it was (executable = %q, port = 18801", exe)},
		{"vary options that set the executable", varied("executable=" + exe),
			"This sweep compares executable, which chooses what runs, and a resume takes that only from you: compare settings anew from the Server screen."},
		{"vary options that set the model", varied("model=a/b,c/d"), "This sweep compares model (Model), which chooses what runs"},
	} {
		t.Run(tt.name, func(t *testing.T) {
			_ = os.Remove(marker) // each case on its own
			l := &recordingLauncher{}
			u := sweepUI(t, &simLauncher{t: t})
			u.Deps.Launcher = l
			cs := runner.Grid([][]sweep.Setting{{{Key: "max_num_seqs", Value: "8"}, {Key: "max_num_seqs", Value: "16"}}})
			dir := savedSweep(t, u, cs, map[string]map[int]float64{"baseline": {1: 100, 2: 150}}, map[string]bool{"baseline": true})
			sweeptest.EditJSON(t, filepath.Join(dir, sweep.JSONFile), func(m map[string]any) { tt.edit(t, dir, m) })
			u.State.RunSaved(dir)
			u.history.List.Select(0)
			test.Tap(u.history.ResumeBtn)
			if u.run.Sweep != nil {
				waitFor(t, u.run.Sweep.Done, "the sweep to end")
				t.Error("the sweep resumed")
			}
			if n := u.run.Banner.Current; !u.run.Banner.Visible() || !strings.HasPrefix(n.Action, tt.want) || strings.Contains(n.Action, "\n") {
				t.Errorf("banner = %+v, want one line that begins %q", n, tt.want)
			}
			if _, err := os.Stat(marker); err == nil || l.n.Load() != 0 {
				t.Errorf("%d servers launched; the folder's program ran: %v", l.n.Load(), err == nil)
			}
		})
	}
}

// lastTab is the content of the last tab of tabs (a sweep's Runs).
func lastTab(tabs *container.AppTabs) fyne.CanvasObject { return tabs.Items[len(tabs.Items)-1].Content }

// TestSweepStopsResumable: Esc, confirmed, stops a sweep while a server
// starts: what it measured is kept, the configuration that was starting
// is Pending again, and History offers to resume the sweep.
func TestSweepStopsResumable(t *testing.T) {
	gate := make(chan struct{}) // never released: the second server never gets ready
	l := &simLauncher{t: t, gate: map[int]chan struct{}{4: gate}}
	u := sweepUI(t, l)
	var asked string
	u.Ask = func(title, _ string, _ []string, pick func(int)) { asked = title; pick(0) }
	u.server.Launch.OnCompare()
	setRow(u.server.Launch.Compare, 0, "max_num_seqs", "4, 8")
	test.Tap(u.server.Launch.Compare.StartBtn)
	sr := u.run.Sweep
	waitUntil(t, func() bool {
		return strings.HasPrefix(u.run.SweepView.Line.Text, "Configuration 2 of 3: max_num_seqs=4 · Starting")
	},
		"the second configuration to start")
	if !strings.Contains(u.busy(), "A sweep is in progress") {
		t.Errorf("busy() = %q: closing the window would not say a sweep runs", u.busy())
	}
	u.Win.Canvas().OnTypedKey()(&fyne.KeyEvent{Name: fyne.KeyEscape})
	if asked != "Stop the sweep?" {
		t.Errorf("Esc asked %q, want Stop the sweep?", asked)
	}
	waitFor(t, sr.Done, "the sweep to stop")
	s, err := sweep.Load(sr.Dir)
	if err != nil {
		t.Fatal(err)
	}
	if !s.Ended.IsZero() || s.Configs[0].Status != sweep.StatusDone || s.Configs[1].Status != sweep.StatusPending {
		t.Errorf("stopped sweep: ended %v, statuses %v %v; want not ended, the baseline Done, the next Pending", !s.Ended.IsZero(), s.Configs[0].Status, s.Configs[1].Status)
	}
	if !strings.HasPrefix(u.run.ProgressLine.Text, "Sweep stopped after") || !strings.Contains(u.run.ProgressLine.Text, "Resume in History") {
		t.Errorf("progress line = %q", u.run.ProgressLine.Text)
	}
	u.history.List.Select(0)
	if u.history.ResumeBtn.Disabled() {
		t.Error("History does not offer to resume the stopped sweep")
	}
	// A resume makes the configurations again from the fields as the
	// sweep recorded them, and finds the ones begun.
	if _, _, err := runner.Resume(sr.Dir, runner.Inputs{Server: filepath.Join(sr.Dir, app.SweepServerFile)}); err != nil || !slices.Equal(s.Vary, []string{"max_num_seqs=4, 8"}) {
		t.Errorf("resume: %v; recorded vary options %q", err, s.Vary)
	}
}

// sweepStatuses reads the sweep saved in dir and checks its configurations'
// statuses ("name: status").
func sweepStatuses(t *testing.T, dir string, want ...string) sweep.Sweep {
	t.Helper()
	s, err := sweep.Load(dir)
	if err != nil {
		t.Fatal(err)
	}
	var statuses []string
	for _, c := range s.Configs {
		statuses = append(statuses, c.Name+": "+string(c.Status))
	}
	if !slices.Equal(statuses, want) {
		t.Errorf("sweep.json: %q, want %q", statuses, want)
	}
	return s
}

// TestSweepGoesOnAfterAServerDies: a configuration whose server stops
// answering is Partial, with why, and the next one is measured.
func TestSweepGoesOnAfterAServerDies(t *testing.T) {
	u := sweepUI(t, &simLauncher{t: t, dead: map[int]bool{8: true}})
	u.server.Launch.OnCompare()
	setRow(u.server.Launch.Compare, 0, "max_num_seqs", "8, 16")
	test.Tap(u.server.Launch.Compare.StartBtn)
	sr := u.run.Sweep
	waitFor(t, sr.Done, "the sweep to end")
	s := sweepStatuses(t, sr.Dir, "baseline: Done", "max_num_seqs=8: Partial", "max_num_seqs=16: Done")
	if r := s.Configs[1].Reason; !strings.Contains(r, "the server stopped answering") {
		t.Errorf("the dead server's configuration says %q, want why", r)
	}
}
