package cli

import (
	"net/http"
	"net/http/httptest"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"speedmatrix/engine"
	"speedmatrix/engine/dcgm/dcgmtest"
	"speedmatrix/engine/report"
	"speedmatrix/engine/simtarget"
	"speedmatrix/hw"
)

// TestRunGPUMetrics measures a server reached by --endpoint with two nodes'
// DCGM exporters: the Hardware section lists both nodes' GPUs.
func TestRunGPUMetrics(t *testing.T) {
	t.Parallel()
	hwCanned(t, hw.Hardware{}, hw.ErrNoNVML)
	noCharts(t)
	sim, stop, err := simtarget.Start("tiny", simtarget.Options{TimeScale: 20})
	if err != nil {
		t.Fatal(err)
	}
	defer stop()
	n1, n2 := dcgmtest.Exporter(t, "node1.prom"), dcgmtest.Exporter(t, "node2.prom")
	dir := filepath.Join(t.TempDir(), "out")
	out, err := runCLI(t, t.Context(), "--endpoint", sim.BaseURL, "--gpu-metrics", n1+", "+n2, "--out", dir,
		"--prefill-contexts", "none", "--contexts", "1K", "--concurrency", "1", "--duration", "300ms", "--max-output", "64")
	if err != nil {
		t.Fatalf("%v\n%s", err, out)
	}
	rep, err := report.Load(dir)
	if err != nil {
		t.Fatal(err)
	}
	g := rep.Hardware.GPUs
	if len(g) != 4 || g[0].Host != "node1" || g[3].Host != "node2" || g[3].Index != 3 {
		t.Fatalf("Hardware GPUs %+v: want node1's 2 then node2's 2", g)
	}
	md, _ := os.ReadFile(filepath.Join(dir, report.MarkdownFile))
	for _, want := range []string{"4× H100 80GB HBM3", "node1 (2 GPUs), node2 (2 GPUs)", "| Node | node1: 2× H100 80GB HBM3, 159 GB (GPU 0-1) |", "| Node | node2: 2× H100 80GB HBM3, 159 GB (GPU 2-3) |"} {
		if !strings.Contains(string(md), want) {
			t.Errorf("report.md lacks %q:\n%s", want, md)
		}
	}

	// Resumed without --gpu-metrics, the run reads the same exporters again:
	// the Hardware section, emptied here, is theirs again.
	if len(rep.Run.GPUMetrics) != 2 {
		t.Fatalf("report run.gpu_metrics %q, want both exporters", rep.Run.GPUMetrics)
	}
	rep.Results, rep.Run.Complete, rep.Hardware = nil, false, engine.HardwareInfo{}
	if err := report.Save(dir, rep); err != nil {
		t.Fatal(err)
	}
	if out, err := runCLI(t, t.Context(), "--resume", dir); err != nil {
		t.Fatalf("resume: %v\n%s", err, out)
	}
	again, err := report.Load(dir)
	if err != nil {
		t.Fatal(err)
	}
	if len(again.Hardware.GPUs) != 4 || len(again.Results) != 1 || again.Results[0].Status != engine.StatusValid {
		t.Errorf("resumed: %d GPUs, %d results; want the 4 exporter GPUs again and the cell measured", len(again.Hardware.GPUs), len(again.Results))
	}
}

func TestRunGPUMetricsBadInput(t *testing.T) {
	t.Parallel()
	hwCanned(t, hw.Hardware{}, hw.ErrNoNVML)
	dead := httptest.NewServer(nil)
	deadURL := dead.URL + "/metrics"
	dead.Close()
	garbage := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) { _, _ = w.Write([]byte("<html>hello</html>")) }))
	defer garbage.Close()
	sim, stop, err := simtarget.Start("tiny", simtarget.Options{TimeScale: 20})
	if err != nil {
		t.Fatal(err)
	}
	defer stop()
	dir := t.TempDir()
	cases := []struct {
		name string
		args []string
		want string
	}{
		{"unreachable", []string{"--endpoint", sim.BaseURL, "--gpu-metrics", deadURL}, "run: --gpu-metrics " + deadURL + ": no answer"},
		{"garbage", []string{"--endpoint", sim.BaseURL, "--gpu-metrics", garbage.URL}, "no DCGM_FI_DEV_ GPU metric on the page"},
		{"not a URL", []string{"--endpoint", sim.BaseURL, "--gpu-metrics", "node2:9400"}, "not an http(s) URL"},
		{"with --sim", []string{"--sim", "tiny", "--gpu-metrics", deadURL}, "--gpu-metrics goes with --endpoint"},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			out, err := runCLI(t, t.Context(), append(c.args, "--out", filepath.Join(dir, c.name))...)
			if err == nil || !strings.Contains(err.Error(), c.want) || strings.Contains(err.Error(), "\n") {
				t.Errorf("error %v, want one line containing %q\n%s", err, c.want, out)
			}
		})
	}
}
