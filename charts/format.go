package charts

import (
	"math"
	"strconv"
	"strings"

	"speedmatrix/engine/report"
)

// Numbers are formatted by engine/report, as the reference reports format them, so the
// sheet, report.md and the app agree. The helpers below cover what only
// the charts print.

// dash is what the reference reports print where a figure does not apply.
const dash = report.Dash

// formatPrefillLabel formats prompt tok/s as the reference reports' prefill list does:
// whole numbers below 10,000 ("9,534"), thousands above ("40.4K").
func formatPrefillLabel(v float64) string {
	if math.Round(v*10)/10 >= 10000 {
		return report.TokPerSec(v)
	}
	return wholeNumber(v)
}

// wholeNumber rounds v and writes it with thousands separators ("9,534").
func wholeNumber(v float64) string { return report.Int(int(math.Round(v))) }

// formatCompact writes axis ticks: "500", "2.5K", "40K", "1.2M".
func formatCompact(v float64) string {
	trim := func(f float64) string { return strings.TrimSuffix(strconv.FormatFloat(f, 'f', 1, 64), ".0") }
	switch a := math.Abs(v); {
	case a >= 1e6:
		return trim(v/1e6) + "M"
	case a >= 1e3:
		return trim(v/1e3) + "K"
	}
	return trim(v)
}
