package report

import (
	"bytes"
	"encoding/csv"
	"math"
	"os"
	"path/filepath"
	"reflect"
	"slices"
	"strings"
	"testing"

	"speedmatrix/engine"
)

// TestLoadGolden pins every file a load test writes: report.json (the
// fixture charts and cli read), load.csv and report.md, for the simulated
// test and the real sweep with a Failed rate.
func TestLoadGolden(t *testing.T) {
	for _, c := range []struct {
		name string
		r    engine.Report
	}{{"load", loadReport()}, {"load-failed", loadFailedReport()}} {
		js, err := JSON(c.r)
		if err != nil {
			t.Fatal(err)
		}
		golden(t, c.name+".report.json", js)
		var b bytes.Buffer
		if err := WriteLoadCSV(&b, c.r); err != nil {
			t.Fatal(err)
		}
		golden(t, c.name+".csv", b.Bytes())
		golden(t, c.name+".report.md", []byte(Markdown(c.r)))
	}
}

// TestLoadFixtureLoadsBack: the fixture on disk is what loadReport builds,
// and passes Load's checks.
func TestLoadFixtureLoadsBack(t *testing.T) {
	got, err := Load(filepath.Join("testdata", "load.report.json"))
	if err != nil {
		t.Fatal(err)
	}
	if want := loadReport(); !reflect.DeepEqual(got.Load, want.Load) {
		t.Errorf("testdata/load.report.json differs from loadReport(): run go test -update")
	}
}

// TestLoadCSVHeaderIsExact: load.csv's header is the 18 columns,
// column for column (other tools read them by position), then status,
// flags and error; a simulated file's comment is skipped by a reader told
// that '#' starts one, leaving the header first.
func TestLoadCSVHeaderIsExact(t *testing.T) {
	const want = "rate_rps,arrivals,requests,completed,failed,duration_s,request_throughput_rps,output_tok_s,ttft_p50_ms,ttft_p90_ms,ttft_p99_ms,tpot_p50_ms,tpot_p99_ms,itl_p50_ms,itl_p99_ms,e2e_p50_ms,e2e_p99_ms,goodput_rps" +
		",status,flags,error,prefix_cache_hit_rate,reasoning_tokens,answer_tokens,answer_ttft_ms,trace_hit_rate,concurrency"
	for _, c := range []struct {
		name      string
		r         engine.Report
		simulated bool
	}{{"real", loadFailedReport(), false}, {"simulated", loadReport(), true}} {
		var b bytes.Buffer
		if err := WriteLoadCSV(&b, c.r); err != nil {
			t.Fatal(err)
		}
		first, _, _ := strings.Cut(b.String(), "\n")
		if gotComment := strings.HasPrefix(first, "# simulated (profile tiny)"); gotComment != c.simulated {
			t.Errorf("%s: first line %q, want a simulated comment: %v", c.name, first, c.simulated)
		}
		cr := csv.NewReader(&b)
		cr.Comment = '#'
		rows, err := cr.ReadAll()
		if err != nil {
			t.Fatalf("%s: %v", c.name, err)
		}
		if got := strings.Join(rows[0], ","); got != want {
			t.Errorf("%s: header %q, want %q", c.name, got, want)
		}
		if len(rows)-1 != len(c.r.Load.Results) {
			t.Errorf("%s: %d rows, want one per rate (%d)", c.name, len(rows)-1, len(c.r.Load.Results))
		}
	}
}

// TestLoadCSVRows: a burst has no rate; a Valid rate has every figure and
// its flags' kinds; a rate that failed part-way (its server killed) has
// the figures of the requests that completed before, with its status and
// error; one with none completed has its counts alone.
func TestLoadCSVRows(t *testing.T) {
	burst := engine.LoadResult{Arrivals: engine.ArrivalsBurst, Status: engine.StatusValid, Requests: 64, Completed: 64, DurationS: 9.5,
		RequestThroughputRPS: 6.7, TTFTMs: engine.Percentiles{P50: 800, P90: 1500, P99: 1600},
		Flags:       []engine.Flag{{Kind: engine.FlagClientBehind, Message: "late"}, {Kind: engine.FlagBadMetrics, Message: "NaN"}, {Kind: engine.FlagClientBehind, Message: "held"}},
		PrefixCache: &engine.PrefixCache{ServerHitRate: 0.9375, QueriedTokens: 1024, HitTokens: 960},
		Reasoning:   engine.Reasoning{ReasoningTokens: 3072, AnswerTokens: 1024, AnswerTTFTMs: 950}}
	failed := engine.LoadResult{RateRPS: 8, Arrivals: engine.ArrivalsConstant, Status: engine.StatusFailed, Error: "the server stopped answering", Requests: 100, Completed: 27, Failed: 2,
		DurationS: 20, RequestThroughputRPS: 1.35, TTFTMs: engine.Percentiles{P50: 13, P90: 17, P99: 26}, E2EMs: engine.Percentiles{P50: 356, P99: 370}}
	none := engine.LoadResult{RateRPS: 8, Arrivals: engine.ArrivalsConstant, Status: engine.StatusFailed, Error: "no request completed", Requests: 100, Failed: 100, DurationS: 3}
	for _, c := range []struct {
		name string
		res  engine.LoadResult
		want string
	}{
		{"burst", burst, ",burst,64,64,0,9.500,6.700,0.00,800.00,1500.00,1600.00,0.000,0.000,0.000,0.000,0.00,0.00,0.000,Valid,client_behind;bad_metrics,,0.9375,3072,1024,950.00,,"},
		{"failed part-way", failed, "8,constant,100,27,2,20.000,1.350,0.00,13.00,17.00,26.00,0.000,0.000,0.000,0.000,356.00,370.00,0.000,Failed,,the server stopped answering,,,,,,"},
		{"failed", none, "8,constant,100,0,100,3.000,,,,,,,,,,,,,Failed,,no request completed,,,,,,"},
	} {
		if got := strings.Join(loadCSVRow(c.res, false), ","); got != c.want {
			t.Errorf("%s: %q, want %q", c.name, got, c.want)
		}
	}
	// An imported closed loop: its concurrency, no rate, and an empty
	// empty cell for each percentile its file lacks.
	closed := engine.LoadResult{Arrivals: engine.ArrivalsConcurrent, Concurrency: 4, Status: engine.StatusValid, Requests: 16, Completed: 16, DurationS: 1,
		RequestThroughputRPS: 16, TTFTMs: engine.Percentiles{P50: 10, P99: 20}}
	if got, want := strings.Join(loadCSVRow(closed, true), ","), ",concurrent,16,16,0,1.000,16.000,0.00,10.00,,20.00,,,,,,,0.000,Valid,,,,,,,,4"; got != want {
		t.Errorf("imported closed loop: %q, want %q", got, want)
	}
}

// TestSaveLoadTest: Save writes load.csv and no results.csv for a load
// test, and report.md says simulated.
func TestSaveLoadTest(t *testing.T) {
	dir := t.TempDir()
	if err := Save(dir, loadReport()); err != nil {
		t.Fatal(err)
	}
	if _, err := os.Stat(filepath.Join(dir, CSVFile)); !os.IsNotExist(err) {
		t.Errorf("results.csv written for a load test (err %v)", err)
	}
	csvData, err := os.ReadFile(filepath.Join(dir, LoadCSVFile))
	if err != nil {
		t.Fatal(err)
	}
	md, err := os.ReadFile(filepath.Join(dir, MarkdownFile))
	if err != nil {
		t.Fatal(err)
	}
	for name, data := range map[string][]byte{LoadCSVFile: csvData, MarkdownFile: md} {
		if !bytes.Contains(data, []byte("simulated (profile tiny)")) {
			t.Errorf("%s does not say simulated", name)
		}
	}
	if bytes.Contains(md, []byte("Sustained decode")) {
		t.Error("report.md of a load test has matrix sections")
	}
}

// TestLoadMarkdownHasNoSecrets: the endpoint's password never reaches report.md.
func TestLoadMarkdownHasNoSecrets(t *testing.T) {
	if md := Markdown(loadFailedReport()); strings.Contains(md, "secret") {
		t.Error("report.md shows the endpoint's password")
	}
}

// TestReadRejectsHostileLoad: every load section no load test writes is
// refused with a line that names the file and what is wrong.
func TestReadRejectsHostileLoad(t *testing.T) {
	cases := []struct {
		name  string
		spoil func(l *engine.LoadSection)
		want  string
	}{
		{"negative duration", func(l *engine.LoadSection) { l.Results[0].DurationS = -3 }, "its load test at 1 req/s has a negative duration (-3)"},
		{"prefix-cache hit rate above 1", func(l *engine.LoadSection) { l.Results[0].PrefixCache = &engine.PrefixCache{ServerHitRate: 2} },
			"its load test at 1 req/s has a prefix-cache hit rate of 2, above 1"},
		{"more reasoning than output", func(l *engine.LoadSection) { l.Results[0].AnswerTokens = 1 << 40 },
			"its load test at 1 req/s has 0 reasoning and 1099511627776 answer tokens of "},
		{"absurd TTFT", func(l *engine.LoadSection) { l.Results[1].TTFTMs.P99 = 1e300 }, "TTFT p99 of 1e+300, more than"},
		{"rate of zero in the plan", func(l *engine.LoadSection) { l.Plan.RatesRPS[0] = 0 }, "its load plan: rate 0 req/s, outside (0, 1e+06]"},
		{"more completed than sent", func(l *engine.LoadSection) { l.Results[2].Completed = 500 }, "500 completed and 0 failed of 200 requests"},
		{"a billion requests", func(l *engine.LoadSection) { l.Plan.Requests = 1e9 }, "1000000000 requests per rate, outside 0–1,000,000"},
		{"negative goodput", func(l *engine.LoadSection) { l.Results[4].GoodputRPS = -1 }, "at 16 req/s has a negative goodput"},
		{"too many rates", func(l *engine.LoadSection) {
			for len(l.Results) <= maxLoadRates {
				l.Results = append(l.Results, l.Results[0])
			}
		}, "257 rates, more than the 256"},
		{"backwards length", func(l *engine.LoadSection) { l.Plan.InputTokens.Min = 4096 }, "input length 4096–1024 tokens"},
	}
	for _, c := range cases {
		r := loadReport()
		c.spoil(r.Load)
		path := writeJSON(t, "report.json", r)
		_, _, err := Read(path)
		wantImplausible(t, c.name, err, path, c.want)
		if err != nil && strings.Contains(err.Error(), "\n") {
			t.Errorf("%s: error is more than one line: %q", c.name, err)
		}
	}
}

// TestLoadBoundsNaN: a figure that is not a number (which JSON cannot
// carry, but a report built in memory can) is named as such.
func TestLoadBoundsNaN(t *testing.T) {
	r := loadReport()
	r.Load.Results[0].OutputTokPerSec = math.NaN()
	if got := loadProblem(r.Load); !strings.Contains(got, "output tok/s that is not a number") {
		t.Errorf("loadProblem = %q", got)
	}
	if got := loadProblem(loadReport().Load); got != "" {
		t.Errorf("the fixture has a problem: %q", got)
	}
}

// TestLoadComparison: rates are matched by value, rates only one test has
// get a row of their own, and changes are in percent.
func TestLoadComparison(t *testing.T) {
	a, b := loadReport(), loadReport()
	b.Load.Results = slices.Clone(b.Load.Results[1:]) // 2–16
	b.Load.Results[0].RequestThroughputRPS = 1.8      // 2 req/s: −7.4 %
	extra := b.Load.Results[0]
	extra.RateRPS = 32
	b.Load.Results = append(b.Load.Results, extra)
	rows := LoadComparison(a, b)
	var rates []string
	for _, r := range rows {
		rates = append(rates, r.Rate)
	}
	if want := []string{"1 req/s", "2 req/s", "4 req/s", "8 req/s", "16 req/s", "32 req/s"}; !slices.Equal(rates, want) {
		t.Fatalf("rates %v, want %v", rates, want)
	}
	if rows[0].B != nil || rows[5].A != nil {
		t.Error("a rate one test lacks has the other's figures")
	}
	cells := rows[1].Cells()
	if len(cells) != len(LoadDiffColumns) || cells[1] != "1.94 req/s → 1.80 req/s (−7.4%)" {
		t.Errorf("2 req/s: %q", cells)
	}
	if got := rows[0].Cells()[1]; got != "0.99 req/s → not measured" {
		t.Errorf("1 req/s: %q", got)
	}
}

// TestLoadDifferences: two load tests differ in their plans; a load test
// and a matrix differ in kind.
func TestLoadDifferences(t *testing.T) {
	a, b := loadReport(), loadReport()
	b.Load.Plan.Arrivals, b.Load.Plan.Requests = engine.ArrivalsConstant, 500
	got := Differences(a, b)
	for _, want := range []string{"arrivals: Poisson → constant", "requests per rate: 200 → 500"} {
		if !slices.Contains(got, want) {
			t.Errorf("Differences = %q, want %q in it", got, want)
		}
	}
	if got := Differences(a, seedReport()); !slices.Contains(got, "kind of test: load test → matrix") {
		t.Errorf("load test vs matrix: %q", got)
	}
	if got := Differences(a, loadReport()); len(got) != 0 {
		t.Errorf("the same test differs: %q", got)
	}
}

// TestLoadTestSummary: History lists a load test by its rates, and its
// peak is its highest output tok/s of a Valid rate; LoadSummary reads it
// so from report.json.
func TestLoadTestSummary(t *testing.T) {
	for _, c := range []struct {
		name string
		r    engine.Report
		line string
		peak float64
	}{
		{"simulated", loadReport(), "load test · 5 rates", 6.32 * 256},
		{"sweep", loadFailedReport(), "load test · 3 rates", 4.28 * 0.97 * 256},
	} {
		s := summarize(c.r)
		if got := s.CellsLine(); got != c.line {
			t.Errorf("%s: CellsLine %q, want %q", c.name, got, c.line)
		}
		if math.Abs(s.PeakTokPerSec-c.peak) > 0.01 || s.Partial != (c.name == "sweep") {
			t.Errorf("%s: peak %v partial %v, want %v", c.name, s.PeakTokPerSec, s.Partial, c.peak)
		}
		dir := t.TempDir()
		if err := Save(dir, c.r); err != nil {
			t.Fatal(err)
		}
		if got, err := LoadSummary(dir); err != nil || !reflect.DeepEqual(got, s) {
			t.Errorf("%s: LoadSummary = %+v, %v\nwant %+v", c.name, got, err, s)
		}
	}
	r := loadFailedReport()
	r.Load.Plan.SweepRates = 5
	if got := summarize(r).CellsLine(); got != "load test · 3 of 5 rates" {
		t.Errorf("a sweep stopped early: %q", got)
	}
}
