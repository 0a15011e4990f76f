package report

import (
	"encoding/csv"
	"io"
	"slices"
	"strconv"
	"strings"

	"speedmatrix/engine"
)

// LoadCSVFile holds a load test's figures, one row per rate. A load test's
// report writes it instead of results.csv, whose rows are matrix cells.
const LoadCSVFile = "load.csv"

// LoadCSVHeader is the exact header of load.csv: the 18 columns the load
// test's issue fixed, which other tools read by position, then the rate's
// status (Valid, Failed, Cancelled), its flags (their kinds, separated by
// ";") and the reason of a rate that isn't Valid, so that a failed rate
// never reads like a measured one; then the server's prefix-cache hit
// rate over the rate (0–1); then, when the replies streamed reasoning, the
// completed requests' output split into reasoning and answer tokens and
// the median time to the first answer token; then, for a trace's replay,
// the hit rate its hash ids imply (0–1); then the requests kept open at
// once of a row held at a concurrency (an imported closed loop; its
// rate_rps is empty, as a burst's). A latency an imported file lacks is
// an empty cell (HasPercentile). Columns are only ever added at the end.
// Unlike results.csv it has no simulated and target columns: a simulated
// load test says so in a comment line above the header instead
// (LoadCSVComment).
var LoadCSVHeader = []string{
	"rate_rps", "arrivals", "requests", "completed", "failed", "duration_s", "request_throughput_rps", "output_tok_s",
	"ttft_p50_ms", "ttft_p90_ms", "ttft_p99_ms", "tpot_p50_ms", "tpot_p99_ms", "itl_p50_ms", "itl_p99_ms",
	"e2e_p50_ms", "e2e_p99_ms", "goodput_rps",
	"status", "flags", "error",
	"prefix_cache_hit_rate",
	"reasoning_tokens", "answer_tokens", "answer_ttft_ms",
	"trace_hit_rate",
	"concurrency",
}

// LoadCSVComment is the line load.csv starts with when its figures come
// from the simulator, "" otherwise: "# simulated (profile tiny): …". CSV
// readers skip it when told that '#' starts a comment (pandas comment="#",
// Go's csv.Reader.Comment), and one that isn't told fails on it rather
// than take simulated figures for measured ones.
func LoadCSVComment(r engine.Report) string {
	if !r.Server.Simulated {
		return ""
	}
	return "# " + r.Server.SimulatedLabel() + ": every figure below comes from Speed Matrix's built-in simulator, not a real server (target " +
		target(r) + ")"
}

// CSVFileFor is the name of r's table of figures: LoadCSVFile for a load
// test, CSVFile for a matrix.
func CSVFileFor(r engine.Report) string {
	if r.Load != nil {
		return LoadCSVFile
	}
	return CSVFile
}

// WriteCSVFor writes the file CSVFileFor names: WriteLoadCSV for a load
// test, WriteCSV for a matrix.
func WriteCSVFor(w io.Writer, r engine.Report) error {
	if r.Load != nil {
		return WriteLoadCSV(w, r)
	}
	return WriteCSV(w, r)
}

// WriteLoadCSV writes load.csv: LoadCSVComment when simulated, the header,
// then one row per rate in the run's order. A burst's rate_rps is empty
// (it has no rate; arrivals says "burst"). The request counts and the
// duration are written whatever the status; the other figures wherever
// requests completed (LoadHasFigures): a rate that failed or was
// cancelled part-way has the figures of the requests that completed
// before it stopped, and its status and error say so. A report without a
// load section writes the header alone.
func WriteLoadCSV(w io.Writer, r engine.Report) error {
	if c := LoadCSVComment(r); c != "" {
		if _, err := io.WriteString(w, c+"\n"); err != nil {
			return err
		}
	}
	cw := csv.NewWriter(w)
	if err := cw.Write(LoadCSVHeader); err != nil {
		return err
	}
	if r.Load != nil {
		for _, res := range r.Load.Results {
			if err := cw.Write(loadCSVRow(res, r.Load.Imported != nil)); err != nil {
				return err
			}
		}
	}
	cw.Flush()
	return cw.Error()
}

func loadCSVRow(r engine.LoadResult, imported bool) []string {
	row := make([]string, len(LoadCSVHeader))
	switch {
	case r.Arrivals == engine.ArrivalsConcurrent:
		row[26] = strconv.Itoa(r.Concurrency)
	case !IsBurst(r):
		row[0] = strconv.FormatFloat(r.RateRPS, 'f', -1, 64)
	}
	row[1], row[2], row[3], row[4] = string(r.Arrivals), strconv.Itoa(r.Requests), strconv.Itoa(r.Completed), strconv.Itoa(r.Failed)
	row[5] = num(r.DurationS, 3)
	row[18], row[19] = string(r.Status), flagKinds(r.Flags)
	row[21] = prefixCacheColumn(r.PrefixCache)
	if p := r.PrefixCache; p != nil && p.TraceHitRate != nil {
		row[25] = num(*p.TraceHitRate, 4)
	}
	if !LoadMeasured(r) {
		row[20] = r.Error
	}
	if !LoadHasFigures(r) {
		return row
	}
	row[6], row[7] = num(r.RequestThroughputRPS, 3), num(r.OutputTokPerSec, 2)
	pct := func(pct engine.Percentiles, p, digits int) string {
		if imported && !HasPercentile(pct, p) {
			return "" // not in the other tool's file
		}
		return num(pct.At(p), digits)
	}
	row[8], row[9], row[10] = pct(r.TTFTMs, 50, 2), pct(r.TTFTMs, 90, 2), pct(r.TTFTMs, 99, 2)
	row[11], row[12] = pct(r.TPOTMs, 50, 3), pct(r.TPOTMs, 99, 3)
	row[13], row[14] = pct(r.ITLMs, 50, 3), pct(r.ITLMs, 99, 3)
	row[15], row[16] = pct(r.E2EMs, 50, 2), pct(r.E2EMs, 99, 2)
	row[17] = num(r.GoodputRPS, 3)
	reasoningColumns(row[22:25], r.Reasoning)
	return row
}

// flagKinds is a rate's flags for load.csv: their kinds, each once, in
// order, separated by ";".
func flagKinds(flags []engine.Flag) string {
	var kinds []string
	for _, f := range flags {
		if k := string(f.Kind); !slices.Contains(kinds, k) {
			kinds = append(kinds, k)
		}
	}
	return strings.Join(kinds, ";")
}
