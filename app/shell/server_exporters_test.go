package shell

import (
	"net/http/httptest"
	"strings"
	"testing"

	"fyne.io/fyne/v2/test"

	"speedmatrix/app"
	"speedmatrix/engine/dcgm"
	"speedmatrix/engine/dcgm/dcgmtest"
	"speedmatrix/engine/launch"
)

// TestGPUMetricsField: the endpoint's GPU metrics field takes two nodes'
// exporters for the run, as --gpu-metrics does: their GPUs are the
// Hardware section's, their samples the telemetry, J/token sums them all,
// and the field is remembered.
func TestGPUMetricsField(t *testing.T) {
	eng := &fakeEngine{events: cannedEvents()}
	u := newTestUI(t, testDeps(t, eng), app.Options{})
	s := u.server
	s.SelectKind(app.TargetEndpoint)
	s.Url.SetText("http://127.0.0.1:9")
	n1, n2 := dcgmtest.Exporter(t, "node1.prom"), dcgmtest.Exporter(t, "node2.prom")
	s.Exporters.Field.SetText(n1 + ", " + n2)
	u.run.OnStart()
	if u.run.UiDone == nil {
		t.Fatalf("run did not start: %s (%s)", u.run.ProgressLine.Text, u.run.Banner.Current.Message)
	}
	waitFor(t, u.run.UiDone, "the run to finish")
	tgt := eng.lastTarget()
	if _, ok := tgt.Telemetry.(*dcgm.Telemetry); !ok || tgt.ServingGPUs != nil {
		t.Errorf("telemetry %T, serving %v: want the exporters' over every GPU", tgt.Telemetry, tgt.ServingGPUs)
	}
	g := tgt.Header.Hardware.GPUs
	if len(g) != 4 || g[0].Host != "node1" || g[3].Host != "node2" {
		t.Errorf("Hardware GPUs %+v: want node1's 2 then node2's 2", g)
	}
	if saved := s.Settings().GPUMetrics; saved != n1+", "+n2 {
		t.Errorf("saved GPU metrics %q, want both URLs", saved)
	}
	if tel, from := s.TargetTelemetry(); tel == nil || from != app.FromExporters {
		t.Errorf("the live panels read %T from source %d, want the exporters", tel, from)
	}
}

// TestGPUMetricsBadInput: an address that is not a URL, and an exporter
// that doesn't answer, stop the run before it starts with a banner in the
// Server screen's words.
func TestGPUMetricsBadInput(t *testing.T) {
	uiOnly(t)
	dead := httptest.NewServer(nil)
	deadURL := dead.URL + "/metrics"
	dead.Close()
	for _, tc := range []struct{ field, message string }{
		{"node2:9400", "node2:9400 in GPU metrics is not an exporter address."},
		{deadURL, "The GPU metrics exporter " + deadURL + " did not answer with DCGM metrics."},
	} {
		t.Run(tc.field, func(t *testing.T) {
			eng := &fakeEngine{events: cannedEvents()}
			u := newTestUI(t, testDeps(t, eng), app.Options{})
			u.server.SelectKind(app.TargetEndpoint)
			u.server.Url.SetText("http://127.0.0.1:9")
			u.server.Exporters.Field.SetText(tc.field)
			u.run.OnStart()
			n := u.run.Banner.Current
			if u.run.UiDone != nil || n.Message != tc.message || !strings.Contains(n.Action, "GPU metrics on the Server screen") || n.Detail == "" {
				t.Errorf("started %v, banner %+v; want refused with %q", u.run.UiDone != nil, n, tc.message)
			}
			if strings.Contains(n.Message, "--") {
				t.Errorf("banner names a flag: %q", n.Message)
			}
		})
	}
	u := newTestUI(t, testDeps(t, &fakeEngine{}), app.Options{})
	u.server.SelectKind(app.TargetEndpoint)
	u.server.Url.SetText("http://127.0.0.1:9")
	u.server.Exporters.Field.SetText("ftp://node2/metrics")
	u.server.OnDetect()
	if n := u.server.Banner.Current; n.Message != "ftp://node2/metrics in GPU metrics is not an exporter address." {
		t.Errorf("Detect with a bad GPU metrics URL: banner %q", n.Message)
	}
}

// TestLaunchGPUMetrics: a launched server's GPU metrics (the cluster's
// exporters) are its run's GPUs and telemetry; a bad address is a form
// problem in the field's words, and the field is remembered.
func TestLaunchGPUMetrics(t *testing.T) {
	u, srv, cfgs := launchUI(t)
	s, l := u.server, u.server.Launch
	test.Type(s.Form.Model, "Qwen/Qwen3-0.6B")
	field := s.Form.Parallel.GpuMetrics.Field

	field.SetText("node2:9400")
	s.Form.Config(false)
	if got := strings.Join(s.Form.Problems(), "\n"); !strings.Contains(got, "GPU metrics: node2:9400 is not an exporter address") {
		t.Errorf("form problems %q, want the bad exporter address named", got)
	}

	field.SetText(dcgmtest.Exporter(t, "node1.prom") + ", " + dcgmtest.Exporter(t, "node2.prom"))
	l.OnStart()
	if cfg := <-cfgs; len(cfg.GPUMetrics) != 2 {
		t.Errorf("launched with gpu_metrics %q, want both exporters", cfg.GPUMetrics)
	}
	close(srv.ready)
	waitFor(t, l.Settled, "the server to be ready")
	tg, err := s.Target()
	if err != nil {
		t.Fatal(err)
	}
	hosts := map[string]int{}
	for _, g := range tg.Header.Hardware.GPUs {
		hosts[g.Host]++
	}
	if hosts["node1"] != 2 || hosts["node2"] != 2 || tg.Telemetry == nil || tg.ServingGPUs != nil {
		t.Errorf("GPUs by host %v, telemetry %v, serving %v: want both nodes' exporters", hosts, tg.Telemetry != nil, tg.ServingGPUs)
	}
	var saved launch.ServerConfig
	u.Prefs.Load(app.PrefServer, &saved)
	if len(saved.GPUMetrics) != 2 {
		t.Errorf("remembered gpu_metrics %q", saved.GPUMetrics)
	}
	u.shutdown()
}
