package app

import (
	"net/http/httptest"
	"strings"
	"testing"

	"speedmatrix/engine/dcgm"
	"speedmatrix/engine/dcgm/dcgmtest"
)

// TestGPUMetricsField: the endpoint's GPU metrics field takes two nodes'
// exporters for the run, as --gpu-metrics does: their GPUs are the
// Hardware section's, their samples the telemetry, J/token sums them all,
// and the field is remembered.
func TestGPUMetricsField(t *testing.T) {
	eng := &fakeEngine{events: cannedEvents()}
	u := newTestUI(t, testDeps(t, eng), Options{})
	s := u.server
	s.selectKind(targetEndpoint)
	s.url.SetText("http://127.0.0.1:9")
	n1, n2 := dcgmtest.Exporter(t, "node1.prom"), dcgmtest.Exporter(t, "node2.prom")
	s.exporters.field.SetText(n1 + ", " + n2)
	u.run.onStart()
	if u.run.uiDone == nil {
		t.Fatalf("run did not start: %s (%s)", u.run.progressLine.Text, u.run.banner.current.Message)
	}
	waitFor(t, u.run.uiDone, "the run to finish")
	tgt := eng.lastTarget()
	if _, ok := tgt.Telemetry.(*dcgm.Telemetry); !ok || tgt.ServingGPUs != nil {
		t.Errorf("telemetry %T, serving %v: want the exporters' over every GPU", tgt.Telemetry, tgt.ServingGPUs)
	}
	g := tgt.Header.Hardware.GPUs
	if len(g) != 4 || g[0].Host != "node1" || g[3].Host != "node2" {
		t.Errorf("Hardware GPUs %+v: want node1's 2 then node2's 2", g)
	}
	if saved := s.settings().GPUMetrics; saved != n1+", "+n2 {
		t.Errorf("saved GPU metrics %q, want both URLs", saved)
	}
	if s.targetTelemetry() == nil {
		t.Error("the live panels do not read the exporters")
	}
}

// TestGPUMetricsBadInput: an address that is not a URL, and an exporter
// that doesn't answer, stop the run before it starts with a banner in the
// Server screen's words.
func TestGPUMetricsBadInput(t *testing.T) {
	dead := httptest.NewServer(nil)
	deadURL := dead.URL + "/metrics"
	dead.Close()
	for _, tc := range []struct{ field, message string }{
		{"node2:9400", "node2:9400 in GPU metrics is not an exporter address."},
		{deadURL, "The GPU metrics exporter " + deadURL + " did not answer with DCGM metrics."},
	} {
		t.Run(tc.field, func(t *testing.T) {
			eng := &fakeEngine{events: cannedEvents()}
			u := newTestUI(t, testDeps(t, eng), Options{})
			u.server.selectKind(targetEndpoint)
			u.server.url.SetText("http://127.0.0.1:9")
			u.server.exporters.field.SetText(tc.field)
			u.run.onStart()
			n := u.run.banner.current
			if u.run.uiDone != nil || n.Message != tc.message || !strings.Contains(n.Action, "GPU metrics on the Server screen") || n.Detail == "" {
				t.Errorf("started %v, banner %+v; want refused with %q", u.run.uiDone != nil, n, tc.message)
			}
			if strings.Contains(n.Message, "--") {
				t.Errorf("banner names a flag: %q", n.Message)
			}
		})
	}
	u := newTestUI(t, testDeps(t, &fakeEngine{}), Options{})
	u.server.selectKind(targetEndpoint)
	u.server.url.SetText("http://127.0.0.1:9")
	u.server.exporters.field.SetText("ftp://node2/metrics")
	u.server.onDetect()
	if n := u.server.banner.current; n.Message != "ftp://node2/metrics in GPU metrics is not an exporter address." {
		t.Errorf("Detect with a bad GPU metrics URL: banner %q", n.Message)
	}
}
