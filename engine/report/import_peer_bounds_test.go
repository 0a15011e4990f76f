package report

import (
	"bytes"
	"errors"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"speedmatrix/engine"
)

// peerFile is a recorded peer file with old replaced by new, everywhere.
func peerFile(t *testing.T, name, old, new string) []byte {
	t.Helper()
	data := readPeerFile(t, name)
	if !bytes.Contains(data, []byte(old)) {
		t.Fatalf("%s has no %q", name, old)
	}
	return bytes.ReplaceAll(data, []byte(old), []byte(new))
}

// readPeerFile is a recorded peer file's bytes.
func readPeerFile(t *testing.T, name string) []byte {
	t.Helper()
	data, err := os.ReadFile(filepath.Join(peersDir, name))
	if err != nil {
		t.Fatal(err)
	}
	return data
}

// TestImportHostilePeers: a peer file no tool writes is refused with one
// line that says why, in well under a second, before it is laid out.
func TestImportHostilePeers(t *testing.T) {
	const aiperf, guidellm, vllm = "aiperf-0.13.0.rate.json", "guidellm-0.8.1.rate.json", "vllm-bench-0.32.0+cpu.rate.json"
	vllmLine := []byte(`{"completed": 1, "output_throughput": 1, "request_throughput": 1, "duration": 1}` + "\n")
	for _, tc := range []struct {
		name string
		data []byte
		want string
	}{
		{"a million GuideLLM benchmarks", []byte(`{"metadata": {"guidellm_version": "0.8.1"}, "benchmarks": [` + strings.Repeat("{}, ", 1e6) + `{}]}`),
			"its GuideLLM results list 1000001 runs, more than the 256 rates a load test measures"},
		{"a million vllm bench runs", bytes.Repeat(vllmLine, 1e6), "its vllm bench serve results list 257 runs, more than the 256"},
		{"nested a million deep", []byte(`{"metadata": {}, "benchmarks": ` + strings.Repeat("[", 1e6) + strings.Repeat("]", 1e6) + `}`), "exceeded max depth"},
		{"a negative throughput", peerFile(t, aiperf, `"avg": 5.241106691168156`, `"avg": -5.2`), "negative request throughput (-5.2)"},
		{"a rate of 1e300", peerFile(t, vllm, `"request_rate": 4.0`, `"request_rate": 1e300`), "rate 1e+300 req/s, outside (0, 1e+06]"},
		{"a number past float64", peerFile(t, vllm, `"request_rate": 4.0`, `"request_rate": 1e400`), "looks like a vllm bench serve results file but cannot be read"},
		{"a string for a number", peerFile(t, guidellm, `"duration": 2.8460135459899902`, `"duration": "long"`), "looks like a GuideLLM results file but cannot be read"},
		{"more completed than sent", peerFile(t, aiperf, `"avg": 24.0`, `"avg": 2e9`), "completed requests, outside 0–1,000,000"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			start := time.Now()
			_, _, err := Decode(tc.data, "hostile.json")
			took := time.Since(start)
			if err == nil || !strings.Contains(err.Error(), tc.want) || strings.Contains(err.Error(), "\n") || !strings.HasPrefix(err.Error(), "hostile.json ") {
				t.Fatalf("err = %v, want one line naming the file with %q", err, tc.want)
			}
			t.Logf("%d bytes refused in %v", len(tc.data), took)
			if took > 10*time.Second { // a bound, not a benchmark: the other core may be busy
				t.Errorf("took %v", took)
			}
		})
	}
}

// TestImportPeerOddButReal: what a tool may write that JSON has not
// (Python's NaN and Infinity) is read, and a huge name is bounded.
func TestImportPeerOddButReal(t *testing.T) {
	data := peerFile(t, "vllm-bench-0.32.0+cpu.rate.json", `"burstiness": 1.0`, `"burstiness": Infinity`)
	data = bytes.Replace(data, []byte(`"p99_ttft_ms": 16.357021167423223`), []byte(`"p99_ttft_ms": NaN`), 1)
	data = bytes.Replace(data, []byte(`"model_id": "tiny"`), []byte(`"model_id": "`+strings.Repeat("m", 1<<20)+`"`), 1)
	r, format, err := Decode(data, "result.json")
	if err != nil || format != FormatVLLMBench {
		t.Fatalf("%s: %v", format, err)
	}
	row := r.Load.Results[0]
	if row.Arrivals != engine.ArrivalsConstant || row.TTFTMs.P99 != 0 || HasPercentile(row.TTFTMs, 99) {
		t.Errorf("arrivals %q, TTFT p99 %v (shown: %v)", row.Arrivals, row.TTFTMs.P99, HasPercentile(row.TTFTMs, 99))
	}
	if n := len([]rune(r.Run.ServedModel)); n > engine.MaxNameRunes+1 {
		t.Errorf("a model name of %d characters was kept", n)
	}
}

// TestImportPeerSecrets: a password in a URL a tool wrote into its file
// (AIPerf's endpoint, GuideLLM's target) never reaches the report or what
// is written from it.
func TestImportPeerSecrets(t *testing.T) {
	for _, tc := range []struct{ file, old, new string }{
		{"aiperf-0.13.0.rate.json", `"http://127.0.0.1:18432"`, `"http://bench:hunter2pass@127.0.0.1:18432"`},
		{"guidellm-0.8.1.rate.json", `"target": "http://127.0.0.1:18432"`, `"target": "http://bench:hunter2pass@127.0.0.1:18432"`},
	} {
		t.Run(tc.file, func(t *testing.T) {
			r, _, err := Decode(peerFile(t, tc.file, tc.old, tc.new), tc.file)
			if err != nil {
				t.Fatal(err)
			}
			js, err := JSON(r)
			if err != nil {
				t.Fatal(err)
			}
			var csv strings.Builder
			if err := WriteLoadCSV(&csv, r); err != nil {
				t.Fatal(err)
			}
			out := string(js) + Markdown(r) + csv.String()
			if strings.Contains(out, "hunter2pass") || !strings.Contains(r.Run.Endpoint, "bench:"+"<redacted>@") {
				t.Errorf("endpoint %q; the password reached the report", r.Run.Endpoint)
			}
		})
	}
}

// TestImportPeerRows: vllm bench's --append-result lines are a row each,
// and rows of two tools line up in the load comparison by their
// concurrency.
func TestImportPeerRows(t *testing.T) {
	rate := readPeerFile(t, "vllm-bench-0.32.0+cpu.rate.json")
	conc := readPeerFile(t, "vllm-bench-0.32.0+cpu.concurrency.json")
	both, _, err := Decode(append(append(rate, '\n'), conc...), "appended.json")
	if err != nil || len(both.Load.Results) != 2 {
		t.Fatalf("%v, %+v", err, both.Load)
	}
	guide, _, err := Read(filepath.Join(peersDir, "guidellm-0.8.1.concurrency.json"))
	if err != nil {
		t.Fatal(err)
	}
	rows := LoadComparison(both, guide)
	var matched []string
	for _, row := range rows {
		if row.A != nil && row.B != nil {
			matched = append(matched, row.Rate)
		}
	}
	if len(rows) != 2 || len(matched) != 1 || matched[0] != "4 at once" {
		t.Errorf("rows %+v, matched %q", rows, matched)
	}
	if d := Differences(both, guide); !strings.Contains(strings.Join(d, "; "), "GuideLLM 0.8.1") {
		t.Errorf("differences %q do not name the tools", d)
	}
}

// TestHasPercentile: a 0 is a missing percentile only where no
// distribution has one.
func TestHasPercentile(t *testing.T) {
	for _, tc := range []struct {
		pct  engine.Percentiles
		p    int
		want bool
	}{
		{engine.Percentiles{}, 50, false},
		{engine.Percentiles{P50: 5, P99: 9}, 90, false},
		{engine.Percentiles{P50: 5, P99: 9}, 99, true},
		{engine.Percentiles{P90: 5, P99: 9, Mean: 1}, 50, true}, // inference-perf's ITL: most gaps are 0
		{engine.Percentiles{P50: 5, P90: 6}, 99, false},
	} {
		if got := HasPercentile(tc.pct, tc.p); got != tc.want {
			t.Errorf("HasPercentile(%+v, %d) = %v", tc.pct, tc.p, got)
		}
	}
	var fe *FormatError
	if _, _, err := Decode([]byte(`{"load_summary": {}, "successes": {}}`), "summary.json"); err == nil || errors.As(err, &fe) || !strings.Contains(err.Error(), "import one stage's report") {
		t.Errorf("inference-perf's summary: %v", err)
	}
}
