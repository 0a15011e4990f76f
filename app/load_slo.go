package app

import (
	"errors"
	"strconv"
	"strings"
	"time"

	"fyne.io/fyne/v2/widget"

	"speedmatrix/engine"
)

// sloFields are the entries of an SLO: TTFT and ITL bounds and the
// percentile they apply to. The load test's form uses them; the Matrix
// form's SLO (issue 26) should use the same, so that both read "2s" alike.
type sloFields struct {
	ttft, itl  *widget.Entry
	percentile *dropDown
}

// sloPercentiles are the percentiles an SLO may apply to, as the drop-down
// names them.
var sloPercentiles = []string{"p50", "p90", "p99"}

// newSLOFields are empty SLO entries (no SLO) at the default percentile;
// changed hears every edit.
func newSLOFields(changed func()) *sloFields {
	f := &sloFields{ttft: widget.NewEntry(), itl: widget.NewEntry()}
	f.ttft.PlaceHolder, f.itl.PlaceHolder = "no bound, e.g. 2s", "no bound, e.g. 50ms"
	f.percentile = newDropDown(sloPercentiles, func(string) { changed() })
	f.percentile.SetSelected("p" + strconv.Itoa(engine.DefaultSLOPercentile))
	f.ttft.OnChanged = func(string) { changed() }
	f.itl.OnChanged = func(string) { changed() }
	return f
}

// set shows s in the entries.
func (f *sloFields) set(s engine.SLO) {
	f.ttft.SetText(sloBound(s.TTFT))
	f.itl.SetText(sloBound(s.ITL))
	f.percentile.SetSelected("p" + strconv.Itoa(s.At()))
}

// sloBound writes a bound as the entries read it: "2s", "50ms"; "" for none.
func sloBound(d time.Duration) string {
	if d <= 0 {
		return ""
	}
	return d.String()
}

// read parses the entries; the error names the field in the screen's
// words (ttftLabel, itlLabel).
func (f *sloFields) read() (engine.SLO, error) {
	var s engine.SLO
	var err error
	if s.TTFT, err = parseBound(f.ttft.Text); err != nil {
		return s, errors.New(sloTTFTLabel + ": " + err.Error())
	}
	if s.ITL, err = parseBound(f.itl.Text); err != nil {
		return s, errors.New(sloITLLabel + ": " + err.Error())
	}
	s.Percentile, _ = strconv.Atoi(strings.TrimPrefix(f.percentile.Selected, "p"))
	return s, nil
}

// The SLO fields' labels.
const (
	sloTTFTLabel       = "TTFT bound"
	sloITLLabel        = "ITL bound"
	sloPercentileLabel = "SLO percentile"
)

// parseBound reads a latency bound, "2s" or "500ms"; "" is no bound.
func parseBound(s string) (time.Duration, error) {
	s = strings.TrimSpace(s)
	if s == "" {
		return 0, nil
	}
	d, err := time.ParseDuration(s)
	if err != nil || d <= 0 {
		return 0, errors.New("write a time above 0 with its unit, e.g. 2s or 500ms, or leave it empty for no bound")
	}
	return d, nil
}

// items are the form's rows of the SLO.
func (f *sloFields) items() []*widget.FormItem {
	items := []*widget.FormItem{
		widget.NewFormItem(sloTTFTLabel, f.ttft),
		widget.NewFormItem(sloITLLabel, f.itl),
		widget.NewFormItem(sloPercentileLabel, f.percentile),
	}
	items[0].HintText = "goodput counts the requests within both bounds"
	return items
}
