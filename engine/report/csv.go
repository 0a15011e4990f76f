package report

import (
	"encoding/csv"
	"io"
	"strconv"

	"speedmatrix/engine"
)

// CSVHeader is the exact header of results.csv.
var CSVHeader = []string{
	"phase", "context_tokens", "concurrency", "status", "total_tok_s", "per_request_tok_s", "ttft_ms", "itl_ms",
	"avg_active", "completed", "output_tokens", "measured_s",
}

// WriteCSV writes one row per cell. Figures that don't apply to the phase,
// or that a cell whose status isn't Valid doesn't have, are empty.
func WriteCSV(w io.Writer, r engine.Report) error {
	cw := csv.NewWriter(w)
	if err := cw.Write(CSVHeader); err != nil {
		return err
	}
	for _, res := range r.Results {
		if err := cw.Write(csvRow(res)); err != nil {
			return err
		}
	}
	cw.Flush()
	return cw.Error()
}

func csvRow(r engine.Result) []string {
	row := []string{string(r.Phase), strconv.Itoa(r.ContextTokens), strconv.Itoa(r.Concurrency), string(r.Status),
		"", "", "", "", "", "", "", ""}
	if !r.Measured() {
		return row
	}
	row[4] = num(r.TotalTokPerSec, 2)
	row[6] = num(r.TTFTMs, 2)
	row[9] = strconv.Itoa(r.Completed)
	if r.Phase == engine.PhaseDecode {
		row[5] = num(r.PerRequestTokPerSec, 2)
		row[7] = num(r.ITLMs, 3)
		row[8] = num(r.AvgActive, 2)
		row[10] = strconv.Itoa(r.OutputTokens)
		row[11] = num(r.MeasuredS, 3)
	}
	return row
}

func num(v float64, decimals int) string { return strconv.FormatFloat(v, 'f', decimals, 64) }
