package cli

import (
	"bytes"
	"context"
	"errors"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"speedmatrix/engine"
	"speedmatrix/engine/report"
)

func loadCLI(t *testing.T, ctx context.Context, args ...string) (string, error) {
	t.Helper()
	var out, errOut bytes.Buffer
	err := cliFor(t).Load(ctx, args, &out, &errOut)
	return out.String() + errOut.String(), err
}

// TestLoadSim runs `speedmatrix load` against the simulator: a line per
// rate, labelled simulated, and the report saved with its load section.
func TestLoadSim(t *testing.T) {
	t.Parallel()
	fastSim(t)
	var charted engine.Report
	cliFor(t).WriteCharts = func(_ context.Context, _ string, r engine.Report) error { charted = r; return nil }
	dir := filepath.Join(t.TempDir(), "out")
	out, err := loadCLI(t, t.Context(), "--sim", "tiny", "--rates", "10,20", "--requests", "10", "--input-tokens", "256:512",
		"--output-tokens", "32", "--seed", "3", "--slo-ttft", "2s", "--out", dir)
	if err != nil {
		t.Fatalf("%v\n%s", err, out)
	}
	for _, want := range []string{"load test against the simulator (profile tiny)", "[1/2] 10 req/s poisson (simulated): 10/10 completed", "[2/2] 20 req/s poisson (simulated): 10/10 completed", "done: 2 rates"} {
		if !strings.Contains(out, want) {
			t.Errorf("output lacks %q:\n%s", want, out)
		}
	}
	rep, err := report.Load(dir)
	if err != nil {
		t.Fatal(err)
	}
	if rep.Load == nil || len(rep.Load.Results) != 2 || rep.Load.Plan.Seed != 3 || rep.Load.Plan.SLO.TTFT == 0 || !rep.Server.Simulated {
		t.Errorf("saved report: load %+v, simulated %v; want 2 rates of the plan, simulated", rep.Load, rep.Server.Simulated)
	}
	if charted.Load == nil || len(charted.Load.Results) != 2 {
		t.Errorf("the charts were drawn from %+v, want the load test", charted.Load)
	}
}

// TestLoadFlagErrors: each bad flag is one line, in the words of the
// flags, before anything is measured.
func TestLoadFlagErrors(t *testing.T) {
	t.Parallel()
	bad := filepath.Join(t.TempDir(), "bad.jsonl")
	if err := os.WriteFile(bad, []byte("{\"prompt\": \"a\"}\nnot json\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	out := t.TempDir()
	for _, tc := range []struct {
		args []string
		want string
	}{
		{[]string{"--rates", "abc"}, `load: --rates: "abc" is not a request rate: write requests per second above 0, e.g. 1, 2, 4, 8, or sweep`},
		{[]string{"--rates", "0"}, `load: --rates: "0" is not a request rate: write requests per second above 0`},
		{[]string{"--rates", "-1,2"}, `load: --rates: "-1" is not a request rate`},
		{[]string{}, "load: --rates: no rate to measure"},
		{[]string{"--rates", "1", "--burst", "8"}, "load: give --rates or --burst, not both"},
		{[]string{"--burst", "8", "--requests", "20"}, "load: --requests and --burst: a burst sends --burst requests at once; drop --requests"},
		{[]string{"--burst", "8", "--arrivals", "constant"}, "load: --arrivals and --burst: a burst sends every request at once; drop --arrivals"},
		{[]string{"--rates", "1", "--sweep-rates", "4"}, "load: --sweep-rates goes with --rates sweep"},
		{[]string{"--rates", "1", "--input-tokens", "big"}, `load: --input-tokens: "big" is not a length in tokens: write a whole number from 1, e.g. 1024, or a range such as 512:2048`},
		{[]string{"--rates", "1", "--input-tokens", "2048:512"}, `load: --input-tokens: "2048:512" goes from more tokens to fewer: write the smaller length first, e.g. 512:2048`},
		{[]string{"--rates", "1", "--output-tokens", "0"}, `load: --output-tokens: "0" is not a length in tokens`},
		{[]string{"--rates", "1", "--arrivals", "gamma"}, `load: --arrivals: "gamma" is not an arrival process: use poisson or constant`},
		{[]string{"--rates", "1", "--slo-ttft", "2s", "--slo-percentile", "95"}, "load: --slo-percentile: 95 is not a percentile reports keep: use 50, 90 or 99"},
		{[]string{"--rates", "1", "--slo-user-tok-s", "50"}, "load: --slo-user-tok-s sets the speed a matrix's Pareto answer holds each request to; a load test has no such chart: drop it, or bound each request's gaps with --slo-itl"},
		{[]string{"--rates", "1", "--dataset", bad}, "load: --dataset: bad.jsonl line 2: not JSON ("},
		{[]string{"--rates", "1", "--max-concurrency", "-2"}, "load: --max-concurrency: -2 requests at once"},
		// Sizes that took the process down: 2 ÷ 1e-13 seconds wrapped a
		// duration negative and 920 GB were asked for; 100,000 requests at
		// once ran out of memory.
		{[]string{"--rates", "1e-13", "--requests", "2", "--arrivals", "constant"}, "load: --rates: 2 requests at 1e-13 per second take more than a day"},
		{[]string{"--burst", "100000"}, "load: --burst: 100000 requests open at once would take about 5.4 GiB of this machine's memory (57 KiB each with 1024-token prompts): use at most 18396"},
		{[]string{"--burst", "1000000", "--output-tokens", "16"}, "load: --burst: 1000000 requests open at once would take about 54.4 GiB"},
		{[]string{"--rates", "1", "--max-concurrency", "4000", "--input-tokens", "1000K"}, "load: --max-concurrency: 4000 requests open at once would take about"},
		{[]string{"--rates", "10000", "--requests", "1000001", "--output-tokens", "16"}, "load: --requests: 1000001 requests per rate: use 1 to 1000000"},
		{[]string{"--rates", "1", "--api", "grpc"}, `load: --api: "grpc" is not an API`},
		{[]string{"--rates", "1", "--sim-engine", "tgi"}, `load: --sim-engine "tgi" is not one the simulator speaks`},
		{[]string{"--rates", "1"}, "load: nothing to measure: give --endpoint URL, --sim PROFILE or --launch server.toml"},
		{[]string{"--rates", "1", "--endpoint", "ftp://x", "--sim", "tiny"}, "load: give only one of --endpoint, --sim and --launch"},
	} {
		t.Run(strings.Join(tc.args, " "), func(t *testing.T) {
			_, err := loadCLI(t, t.Context(), append(tc.args, "--out", filepath.Join(out, "x"))...)
			if err == nil || !strings.HasPrefix(err.Error(), tc.want) || strings.Contains(err.Error(), "\n") {
				t.Errorf("err %v, want one line starting %q", err, tc.want)
			}
		})
	}
}

// TestLoadServerGone: a test whose server never answers ends as one that
// could not start, with nothing saved.
func TestLoadServerGone(t *testing.T) {
	t.Parallel()
	dir := filepath.Join(t.TempDir(), "out")
	_, err := loadCLI(t, t.Context(), "--endpoint", "http://127.0.0.1:1", "--rates", "1", "--requests", "2", "--request-timeout", "2s", "--out", dir)
	var ee *exitError
	if !errors.As(err, &ee) || ee.Code != exitCantStart || !strings.HasPrefix(err.Error(), "load: ") {
		t.Fatalf("err %v, want exit %d, in the load command's words", err, exitCantStart)
	}
	if _, err := os.Stat(filepath.Join(dir, report.JSONFile)); !errors.Is(err, os.ErrNotExist) {
		t.Errorf("a report was saved (%v)", err)
	}
}
