package cli

import (
	"encoding/csv"
	"fmt"
	"net/http"
	"net/http/httptest"
	"os"
	"path/filepath"
	"strings"
	"sync/atomic"
	"syscall"
	"testing"

	"speedmatrix/engine"
	"speedmatrix/engine/report"
	"speedmatrix/engine/sim"
	"speedmatrix/engine/sweep"
)

// TestLoadServerKilledMidRate: a server that dies in the middle of a rate
// (as under kill -9) ends the test with exit 3, and what its completed
// requests measured is shown everywhere report.json keeps it: on the
// console, in load.csv (with the rate's status and error after the 18
// fixed columns) and in report.md, never "nothing was measured".
func TestLoadServerKilledMidRate(t *testing.T) {
	t.Parallel()
	noCharts(t)
	s := tinySim(t, sim.Faults{})
	const dieAt = 11
	var srv *httptest.Server
	var generated atomic.Int64
	srv = httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		if r.URL.Path == "/v1/chat/completions" && generated.Add(1) >= dieAt {
			srv.Listener.Close()
			go srv.CloseClientConnections()
			return
		}
		s.ServeHTTP(w, r)
	}))
	t.Cleanup(srv.Close)
	dir := filepath.Join(t.TempDir(), "out")
	out, err := loadCLI(t, t.Context(), "--endpoint", srv.URL, "--rates", "40", "--arrivals", "constant", "--requests", "40",
		"--input-tokens", "64", "--output-tokens", "16", "--request-timeout", "2s", "--out", dir)
	if ExitCode(err) != exitIncomplete || !strings.Contains(err.Error(), "load incomplete: 0 of 1 rate measured, 1 part-way (") ||
		!strings.HasSuffix(err.Error(), "what was measured is saved in "+dir) || strings.Contains(err.Error(), "nothing was measured") {
		t.Fatalf("err %v (exit %d), want exit 3 saying what was measured part-way is saved\n%s", err, ExitCode(err), out)
	}
	rep, err := report.Load(dir)
	if err != nil {
		t.Fatal(err)
	}
	r := rep.Load.Results[0]
	if r.Status != engine.StatusFailed || r.Completed < 1 || r.Completed >= dieAt || r.TTFTMs.P50 <= 0 {
		t.Fatalf("saved rate %s, %d completed, TTFT p50 %g: want Failed with the completed requests' figures", r.Status, r.Completed, r.TTFTMs.P50)
	}
	if want := fmt.Sprintf("failed: %s; before it stopped: %d/40 completed", r.Error, r.Completed); !strings.Contains(out, want) {
		t.Errorf("console lacks %q:\n%s", want, out)
	}
	f, err := os.Open(filepath.Join(dir, report.LoadCSVFile))
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	cr := csv.NewReader(f)
	cr.Comment = '#'
	rows, err := cr.ReadAll()
	if err != nil || len(rows) != 2 {
		t.Fatalf("load.csv: %v, %d rows", err, len(rows))
	}
	row := map[string]string{}
	for i, col := range rows[0] {
		row[col] = rows[1][i]
	}
	if row["ttft_p50_ms"] == "" || row["e2e_p99_ms"] == "" || row["status"] != "Failed" || row["error"] != r.Error {
		t.Errorf("load.csv row %v: want the completed requests' TTFT and E2E, status Failed and the error", row)
	}
	md, _ := os.ReadFile(filepath.Join(dir, report.MarkdownFile))
	if line := "| 40 req/s | Failed | " + report.Int(r.Completed) + " |"; !strings.Contains(string(md), line) ||
		!strings.Contains(string(md), report.NoteLoadPartial) || strings.Contains(string(md), "| 40 req/s | Failed | "+report.Int(r.Completed)+" | "+report.Int(r.Failed)+" | "+report.Dash) {
		t.Errorf("report.md does not show the failed rate's figures:\n%s", md)
	}
}

// errNoSpace is a full disk, as the chart writers meet it.
var errNoSpace = fmt.Errorf("write report.png: %w", syscall.ENOSPC)

// TestChartsNotWritten: run, load and sweep that measured everything but
// could not write their charts exit 4 and say that the measurements are
// kept and report --in redraws them, never "run again".
func TestChartsNotWritten(t *testing.T) {
	t.Parallel()
	dir := t.TempDir()
	full := engine.Report{Run: engine.RunInfo{Complete: true}}
	load := full
	load.Load = &engine.LoadSection{Results: []engine.LoadResult{{RateRPS: 1, Status: engine.StatusValid, Completed: 1}}}
	s := sweep.Sweep{Server: "server.toml", Configs: []sweep.Config{{Name: "a", Status: sweep.StatusDone}, {Name: "b", Status: sweep.StatusPending}}}
	redraw := "the measurements are saved; free space or fix the permissions of " + dir + ", then redraw the charts with speedmatrix report --in " + dir
	for _, tc := range []struct {
		name string
		err  error
		want string
	}{
		{"run", finish(nil, full, dir, chartError(errNoSpace, dir)), "run: measured every cell, but " + errNoSpace.Error() + ": " + redraw},
		{"load", finishLoad(nil, load, dir, chartError(errNoSpace, dir)), "load: measured every rate, but " + errNoSpace.Error() + ": " + redraw},
		{"sweep", sweepEnd(nil, dir, s, chartError(errNoSpace, dir)), "sweep: 1 of 2 configurations done, but " + errNoSpace.Error() + ": " + redraw +
			"; then finish the sweep with speedmatrix sweep --resume " + dir + " --launch server.toml"},
	} {
		if ExitCode(tc.err) != exitExport || tc.err.Error() != tc.want {
			t.Errorf("%s: %v (exit %d), want exit 4: %q", tc.name, tc.err, ExitCode(tc.err), tc.want)
		}
	}
}

// TestLoadChartsBlocked: a load test whose chart can't be written (a
// folder in the place of load-latency.png) keeps its report and says to
// redraw with report --in.
func TestLoadChartsBlocked(t *testing.T) {
	t.Parallel()
	fastSim(t)
	dir := filepath.Join(t.TempDir(), "out")
	if err := os.MkdirAll(filepath.Join(dir, "load-latency.png"), 0o755); err != nil {
		t.Fatal(err)
	}
	out, err := loadCLI(t, t.Context(), "--sim", "tiny", "--rates", "20", "--requests", "6", "--input-tokens", "64", "--output-tokens", "8", "--out", dir)
	if ExitCode(err) != exitExport || !strings.HasSuffix(err.Error(), "then redraw the charts with speedmatrix report --in "+dir) || strings.Contains(err.Error(), "run again") {
		t.Fatalf("err %v (exit %d), want exit 4 naming report --in\n%s", err, ExitCode(err), out)
	}
	if _, err := report.Load(dir); err != nil {
		t.Errorf("the report was not kept: %v", err)
	}
}
