package dcgm

import (
	"bytes"
	"context"
	"errors"
	"net/http"
	"net/http/httptest"
	"slices"
	"strings"
	"sync/atomic"
	"testing"
	"time"

	"speedmatrix/engine"
	"speedmatrix/engine/report"
	"speedmatrix/engine/telemetry"
	"speedmatrix/engine/telemetry/telemetrytest"
)

var t0 = time.Date(2026, 12, 1, 15, 30, 0, 0, time.UTC)

// exporter serves a fixture page; after pages answers (when pages > 0)
// it drops every connection, as a node whose exporter died does; or, with
// backAt > 0, answers 503 until request backAt.
type exporter struct {
	*httptest.Server
	pages, backAt int64
	served        atomic.Int64
}

func newExporter(t *testing.T, page string) *exporter {
	e := &exporter{}
	e.Server = httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		if n := e.served.Add(1); e.pages > 0 && n > e.pages {
			if e.backAt == 0 {
				panic(http.ErrAbortHandler) // dead for good
			}
			if n < e.backAt {
				http.Error(w, "upstream down", http.StatusServiceUnavailable) // a proxy before it, say
				return
			}
		}
		w.Header().Set("Content-Type", "text/plain; version=0.0.4")
		_, _ = w.Write([]byte(page))
	}))
	t.Cleanup(e.Close)
	return e
}

func TestOpenListsEveryNodesGPUs(t *testing.T) {
	n1, n2 := newExporter(t, readFixture(t, "node1.prom")), newExporter(t, readFixture(t, "node2.prom"))
	src, err := open(t.Context(), []string{n1.URL + "/metrics", n2.URL + "/metrics"}, Options{})
	if err != nil {
		t.Fatal(err)
	}
	gpus := src.GPUs()
	if len(gpus) != 4 {
		t.Fatalf("got %d GPUs, want 4", len(gpus))
	}
	for i, want := range []string{"node1", "node1", "node2", "node2"} {
		if gpus[i].Index != i || gpus[i].Host != want || gpus[i].Name != "NVIDIA H100 80GB HBM3" {
			t.Errorf("GPU %d: %+v, want index %d on %s", i, gpus[i], i, want)
		}
	}
	if gpus[0].VRAMBytes != (76345+4321+583)<<20 || gpus[0].DriverVersion != "550.90.07" {
		t.Errorf("GPU 0: %+v", gpus[0])
	}
	rows := report.GPUDetails(gpus)
	if len(rows) != 2 || rows[0].Key != "GPU 0-1" || !strings.HasPrefix(rows[0].Value, "node1 · ") ||
		rows[1].Key != "GPU 2-3" || !strings.HasPrefix(rows[1].Value, "node2 · ") {
		t.Errorf("Hardware lines %+v: want one per node", rows)
	}
}

func TestOpenBadExporters(t *testing.T) {
	garbage := newExporter(t, "<html><body>It works!</body></html>\n")
	notFound := httptest.NewServer(http.NotFoundHandler())
	defer notFound.Close()
	closed := httptest.NewServer(http.NotFoundHandler())
	closed.Close()
	tests := []struct{ url, want string }{
		{garbage.URL, "no DCGM_FI_DEV_ GPU metric on the page: is it a DCGM exporter's /metrics?"},
		{notFound.URL + "/metrics", "answered HTTP 404 Not Found"},
		{closed.URL + "/metrics", "no answer: dial tcp"},
		{"node2:9400", "not an http(s) URL"},
	}
	for _, tc := range tests {
		t.Run(tc.url, func(t *testing.T) {
			_, err := open(t.Context(), []string{tc.url}, Options{})
			var ue *URLError
			if !errors.As(err, &ue) || ue.URL != tc.url || !strings.Contains(err.Error(), tc.want) || strings.Contains(err.Error(), "\n") {
				t.Fatalf("err = %v, want one line about %s saying %q", err, tc.url, tc.want)
			}
		})
	}
}

// TestTelemetrySumsNodesAndNotesAnExporterThatStops samples two nodes
// through the Sampler on a clock the test drives: the summary sums both
// nodes' power, the throttle verdict names node2's GPU, and when node2's
// exporter stops the samples go on with node1 and the note says when.
func TestTelemetrySumsNodesAndNotesAnExporterThatStops(t *testing.T) {
	n1, n2 := newExporter(t, readFixture(t, "node1.prom")), newExporter(t, readFixture(t, "node2.prom"))
	n2.pages = 4 // Open's, then the samples at t0, +1 s and +2 s
	clock := telemetrytest.NewClock(t0)
	src, err := open(t.Context(), []string{n1.URL, n2.URL}, Options{Now: clock.Now})
	if err != nil {
		t.Fatal(err)
	}
	tel := start(context.Background(), src, time.Second, telemetry.WithClock(clock))
	for range 3 {
		clock.Advance(time.Second) // samples at t0, +1 s, +2 s of both nodes, +3 s of node1
	}
	tel.Stop() // waits for the sample at +3 s; the samples stay

	both := tel.Summary(t0, t0.Add(2*time.Second))

	wantPower := 612.345 + 598.655 + 605.1 + 699.9
	if both == nil || both.Samples != 3 || len(both.GPUs) != 4 || !near(both.TotalPowerW.Avg, wantPower) {
		t.Fatalf("summary of both nodes %+v: want 3 samples of 4 GPUs, %.1f W in all", both, wantPower)
	}
	if th := both.Throttle; th == nil || th.Verdict != engine.ThrottlePowerCap || len(th.Reasons) != 1 ||
		len(th.Reasons[0].GPUs) != 1 || th.Reasons[0].GPUs[0] != 3 {
		t.Errorf("throttle %+v: want power cap on GPU 3 (node2's GPU 1)", both.Throttle)
	}
	after := tel.Summary(t0.Add(3*time.Second), t0.Add(3*time.Second))
	if after == nil || len(after.GPUs) != 2 || !near(after.TotalPowerW.Avg, 612.345+598.655) {
		t.Errorf("after node2 stopped: %+v, want node1's 2 GPUs", after)
	}
	if g := tel.TelemetryGap(t0, t0.Add(2*time.Second)); g != "" {
		t.Errorf("gap before node2 stopped: %q", g)
	}
	if g := tel.TelemetryGap(t0.Add(2500*time.Millisecond), t0.Add(3*time.Second)); g != "the DCGM exporter "+n2.URL+" did not answer" {
		t.Errorf("gap after node2 stopped: %q", g)
	}
	notes := tel.TelemetryNotes()
	if len(notes) != 1 || !strings.Contains(notes[0], n2.URL+" stopped at 15:30:03 UTC") {
		t.Errorf("notes %q: want node2's exporter stopped at 15:30:03 UTC", notes)
	}

	var csv bytes.Buffer
	rep := engine.Report{Results: []engine.Result{{Cell: engine.Cell{Phase: engine.PhaseDecode, ContextTokens: 1024, Concurrency: 1},
		Status: engine.StatusValid, Telemetry: both}}}
	if err := report.WriteTelemetryCSV(&csv, rep); err != nil {
		t.Fatal(err)
	}
	lines := strings.Split(strings.TrimSpace(csv.String()), "\n")
	if len(lines) != 2 || strings.Split(lines[1], ",")[7] != "2516.0" {
		t.Errorf("telemetry.csv %q: want both nodes' summed power, 2516.0 W, as power_avg_w", csv.String())
	}
}

func near(a, b float64) bool { return a-b < 1e-6 && b-a < 1e-6 }

// TestExporterThatComesBack: an exporter quiet for two scrapes is noted
// with when it stopped and when it answered again; its GPUs keep their
// numbers when they come back.
func TestExporterThatComesBack(t *testing.T) {
	n1 := newExporter(t, readFixture(t, "node1.prom"))
	n1.pages, n1.backAt = 2, 5 // Open's and one Read's, then two failures
	now := t0
	src, err := open(t.Context(), []string{n1.URL}, Options{Now: func() time.Time { return now }})
	if err != nil {
		t.Fatal(err)
	}
	defer src.Close()
	var counts []int
	for range 4 {
		now = now.Add(time.Second)
		counts = append(counts, len(src.Read().GPUs))
	}
	if want := []int{2, 0, 0, 2}; !slices.Equal(counts, want) {
		t.Errorf("GPUs per sample %v, want %v", counts, want)
	}
	notes := src.notes()
	if len(notes) != 1 || !strings.Contains(notes[0], "stopped at 15:30:02 UTC") || !strings.Contains(notes[0], "until it answered again at 15:30:04 UTC") {
		t.Errorf("notes %q", notes)
	}
	if g := src.gap(t0.Add(4500*time.Millisecond), t0.Add(5*time.Second)); g != "" {
		t.Errorf("gap after it came back: %q", g)
	}
	if gpus := src.GPUs(); len(gpus) != 2 {
		t.Errorf("GPUs %+v: want the same 2", gpus)
	}
}
