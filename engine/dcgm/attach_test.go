package dcgm

import (
	"errors"
	"slices"
	"strings"
	"testing"
	"time"

	"speedmatrix/engine"
)

func TestSplitURLs(t *testing.T) {
	for _, tc := range []struct {
		in   string
		want []string
	}{
		{"", nil},
		{" , ", nil},
		{"http://a:9400/metrics", []string{"http://a:9400/metrics"}},
		{"http://a:9400/metrics, http://b:9400/metrics,", []string{"http://a:9400/metrics", "http://b:9400/metrics"}},
	} {
		if got := SplitURLs(tc.in); !slices.Equal(got, tc.want) {
			t.Errorf("SplitURLs(%q) = %q, want %q", tc.in, got, tc.want)
		}
	}
}

// TestAttach: two nodes' exporters become the Hardware section's GPUs with
// a note naming the nodes, and their samples the telemetry; a bad URL is
// a *URLError naming it.
func TestAttach(t *testing.T) {
	n1, n2 := newExporter(t, readFixture(t, "node1.prom")), newExporter(t, readFixture(t, "node2.prom"))
	var header engine.Report
	urls := []string{n1.URL + "/metrics", n2.URL + "/metrics"}
	tel, err := Attach(t.Context(), urls, &header, time.Hour, Options{})
	if err != nil {
		t.Fatal(err)
	}
	defer tel.Stop()
	h := header.Hardware
	if !slices.Equal(header.Run.GPUMetrics, urls) {
		t.Errorf("run gpu_metrics %q, want %q (for a resumed run)", header.Run.GPUMetrics, urls)
	}
	if len(h.GPUs) != 4 || h.Type != "Discrete GPU" || !strings.Contains(h.Note, "node1 (2 GPUs), node2 (2 GPUs)") {
		t.Errorf("hardware %+v: want 4 GPUs of node1 and node2, noted", h)
	}
	var ue *URLError
	if _, err := Attach(t.Context(), []string{"node2:9400"}, &header, time.Hour, Options{}); !errors.As(err, &ue) || ue.URL != "node2:9400" {
		t.Errorf("Attach(node2:9400) = %v, want a URLError naming it", err)
	}
}
