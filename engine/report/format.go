package report

import (
	"math"
	"strconv"
	"strings"

	"speedmatrix/engine"
)

// Dash stands for a figure that doesn't apply or wasn't measured.
const Dash = "—"

// Int writes n with thousands separators: 203,607.
func Int(n int) string {
	s := strconv.Itoa(abs(n))
	var b strings.Builder
	if n < 0 {
		b.WriteByte('-')
	}
	for i, c := range s {
		if i > 0 && (len(s)-i)%3 == 0 {
			b.WriteByte(',')
		}
		b.WriteRune(c)
	}
	return b.String()
}

func abs(n int) int {
	if n < 0 {
		return -n
	}
	return n
}

// fixed1 writes v with one decimal and thousands separators: 1,237.5.
func fixed1(v float64) string {
	tenths := int(math.Round(v * 10))
	sign := ""
	if tenths < 0 {
		sign, tenths = "-", -tenths
	}
	return sign + Int(tenths/10) + "." + strconv.Itoa(tenths%10)
}

// TokPerSec writes a rate as the reference reports do: one decimal below 10,000
// (9,534.0), thousands with one decimal from there, dropping ".0" (40.4K, 16K).
func TokPerSec(v float64) string {
	if math.Round(v*10)/10 < 10000 {
		return fixed1(v)
	}
	return strings.TrimSuffix(fixed1(math.Round(v/100)/10), ".0") + "K"
}

// Millis writes a latency in whole milliseconds: 1,147 ms.
func Millis(ms float64) string { return Int(int(math.Round(ms))) + " ms" }

// millisFine writes a short latency with one decimal: 5.9 ms.
func millisFine(ms float64) string { return fixed1(ms) + " ms" }

// Percent writes a relative change with its sign, as the comparison
// heatmap and the Checks table print it: "+12.5%", "−3.0%", "0.0%".
func Percent(frac float64) string {
	p := math.Round(frac*1000) / 10
	switch {
	case p == 0:
		return "0.0%"
	case p > 0:
		return "+" + strconv.FormatFloat(p, 'f', 1, 64) + "%"
	}
	return "−" + strconv.FormatFloat(-p, 'f', 1, 64) + "%"
}

// seconds writes a measured window: 30.0 s.
func seconds(s float64) string { return fixed1(s) + " s" }

// wholeSeconds writes a planned duration: 30 s.
func wholeSeconds(s float64) string {
	if s == math.Trunc(s) {
		return Int(int(s)) + " s"
	}
	return strconv.FormatFloat(s, 'f', -1, 64) + " s"
}

// tokens writes a token count with its unit: 4,096 tokens.
func tokens(n int) string { return Int(n) + " tokens" }

// GB writes a memory size in whole GiB, as GPUs are sold: 96 GB.
func GB(bytes uint64) string {
	return Int(int(math.Round(float64(bytes)/(1<<30)))) + " GB"
}

// contextRange writes the span of a list of contexts: "8K–123K".
func contextRange(contexts []int) string {
	if len(contexts) == 0 {
		return ""
	}
	lo, hi := engine.ContextLabel(contexts[0]), engine.ContextLabel(contexts[len(contexts)-1])
	if lo == hi {
		return lo
	}
	return lo + "–" + hi
}

// decodeCell is a cell of the Sustained decode table: total tok/s and TTFT
// ("1,237.5 · 128 ms TTFT") when Valid, else its status ("Not run"). A
// flagged cell ends with FlagMarker.
func decodeCell(r engine.Result) string {
	if !r.Measured() {
		return string(r.Status)
	}
	return Mark(TokPerSec(r.TotalTokPerSec)+" · "+Millis(r.TTFTMs)+" TTFT", r)
}

// MeasurementColumns are the headings of the reference reports' All measurements table.
var MeasurementColumns = []string{
	"Phase", "Context", "Requests at once", "Status", "Total tok/s", "Per request tok/s", "TTFT",
	"Time between tokens", "Average active requests", "Completed requests", "Output tokens", "Measured for",
}

// PerRequest formats the "Per request tok/s" column: one decimal and no
// thousands separator, as reference report 003 prints "2009.0".
func PerRequest(v float64) string {
	return strconv.FormatFloat(v, 'f', 1, 64)
}

// MeasurementRow is one row of the All measurements table, formatted as the
// reference reports format it; figures that don't apply are Dash. A flagged Valid
// cell's status ends with FlagMarker ("Valid †"). A Failed cell's partial
// figures are never shown.
func MeasurementRow(r engine.Result) []string {
	row := []string{r.Phase.Title(), r.ContextName(), strconv.Itoa(r.Concurrency), Mark(string(r.Status), r),
		Dash, Dash, Dash, Dash, Dash, Dash, Dash, Dash}
	switch {
	case r.Status == engine.StatusLooped:
		row[9], row[10] = "0", "0"
	case !r.Measured():
	case r.Phase == engine.PhasePrefill:
		row[4], row[6], row[9] = TokPerSec(r.TotalTokPerSec), Millis(r.TTFTMs), Int(r.Completed)
	default:
		row[4], row[5] = TokPerSec(r.TotalTokPerSec), PerRequest(r.PerRequestTokPerSec)
		row[6], row[7] = Millis(r.TTFTMs), millisFine(r.ITLMs)
		row[8], row[9] = fixed1(r.AvgActive), Int(r.Completed)
		row[10], row[11] = Int(r.OutputTokens), seconds(r.MeasuredS)
	}
	return row
}
