package widget

import (
	"errors"
	"fmt"
	"math"
	"strconv"
	"strings"
	"time"

	"fyne.io/fyne/v2/widget"

	"speedmatrix/app"
	"speedmatrix/engine"
)

// SloFieldNames name the SLO's settings as the fields label them, for the
// engine's problems with an SLO (engine.SLO.Check, ValidatePlan).
var SloFieldNames = map[engine.PlanField]string{
	engine.FieldSLOTTFT: app.SloTTFTName, engine.FieldSLOITL: app.SloITLName, engine.FieldSLOPercentile: app.SloPctName,
}

// OnScreen is a text of report's as the app shows it: its SLO bounds said
// "within" where report writes "≤". The app's font has no "≤": Fyne draws
// it from a system font, whose wider glyph and space read as "≤  50 ms".
func OnScreen(s string) string { return sloRelation.Replace(s) }

var sloRelation = strings.NewReplacer(" ≤ ", " within ")

// SloFields are the fields that write an SLO: the TTFT and ITL bounds
// ("2s", "50ms"; empty: no bound) and the percentile that must meet them.
// The Matrix, Settings and Results screens each have a set; all read and
// write engine.SLO one way.
type SloFields struct {
	Ttft, Itl *widget.Entry
	Pct       *DropDown
}

// NewSLOFields is a set of SLO fields; changed, when set, hears every edit.
func NewSLOFields(changed func()) *SloFields {
	f := &SloFields{Ttft: widget.NewEntry(), Itl: widget.NewEntry()}
	f.Ttft.SetPlaceHolder("off, e.g. 2s")
	f.Itl.SetPlaceHolder("off, e.g. 50ms")
	f.Ttft.Validator = func(s string) error { _, err := ParseSLOBound(app.SloTTFTName, s); return err }
	f.Itl.Validator = func(s string) error { _, err := ParseSLOBound(app.SloITLName, s); return err }
	pcts := make([]string, len(engine.SLOPercentiles))
	for i, p := range engine.SLOPercentiles {
		pcts[i] = pctLabel(p)
	}
	f.Pct = NewDropDown(pcts, nil)
	f.Pct.SetSelected(pctLabel(engine.DefaultSLOPercentile))
	if changed != nil {
		f.Ttft.OnChanged = func(string) { changed() }
		f.Itl.OnChanged = func(string) { changed() }
		f.Pct.OnChanged = func(string) { changed() }
	}
	return f
}

// Set shows s in the fields.
func (f *SloFields) Set(s engine.SLO) {
	f.Ttft.SetText(BoundText(s.TTFT))
	f.Itl.SetText(BoundText(s.ITL))
	f.Pct.SetSelected(pctLabel(s.At()))
}

// Read is the SLO the fields write, or the first field that cannot be used
// in the fields' words.
func (f *SloFields) Read() (engine.SLO, error) {
	var s engine.SLO
	var err error
	if s.TTFT, err = ParseSLOBound(app.SloTTFTName, f.Ttft.Text); err != nil {
		return engine.SLO{}, err
	}
	if s.ITL, err = ParseSLOBound(app.SloITLName, f.Itl.Text); err != nil {
		return engine.SLO{}, err
	}
	s.Percentile, _ = strconv.Atoi(strings.TrimPrefix(f.Pct.Selected, "p"))
	if s.Percentile == engine.DefaultSLOPercentile {
		s.Percentile = 0 // the default, as the engine writes it
	}
	var bad *engine.PlanError
	if errors.As(s.Check(), &bad) {
		p := bad.Problems[0]
		problem, fix, _ := strings.Cut(p.Problem, ": ")
		return engine.SLO{}, &app.FieldError{Field: SloFieldNames[p.Field], Problem: problem, Fix: fix}
	}
	return s, nil
}

// pctLabel is how the percentile field shows p: "p99".
func pctLabel(p int) string { return "p" + strconv.Itoa(p) }

// ParseSLOBound reads an SLO bound written with its unit: "2s", "500ms",
// "1.5 s"; "" or "0" is no bound. A number without a unit is refused: "2"
// could be seconds or milliseconds.
func ParseSLOBound(field, text string) (time.Duration, error) {
	s := strings.TrimSpace(text)
	if s == "" || s == "0" {
		return 0, nil
	}
	const fix = "write it like 2s or 500ms, or leave it empty for no bound"
	if _, err := strconv.ParseFloat(s, 64); err == nil {
		return 0, &app.FieldError{Field: field, Problem: fmt.Sprintf("%q has no unit", s), Fix: fix}
	}
	d, err := app.ParseDuration(s, time.Second)
	if err != nil {
		return 0, &app.FieldError{Field: field, Problem: fmt.Sprintf("%q is not a duration", s), Fix: fix}
	}
	if d <= 0 {
		return 0, &app.FieldError{Field: field, Problem: fmt.Sprintf("%s is not above zero", s), Fix: fix}
	}
	return d, nil
}

// BoundText writes a bound as the fields take it back: "2s", "50ms",
// "1.5s"; "" for no bound.
func BoundText(d time.Duration) string {
	if d <= 0 {
		return ""
	}
	if d < time.Second {
		return strconv.FormatFloat(float64(d)/float64(time.Millisecond), 'f', -1, 64) + "ms"
	}
	return strconv.FormatFloat(d.Seconds(), 'f', -1, 64) + "s"
}

// marginWords is a cell's binding margin against the SLO: the bound with
// the least to spare, "ITL 12 % to spare", or the one missed by the most,
// "TTFT 40 % over".
func marginWords(s engine.SLO, c engine.SLOCheck) string {
	name, m := "TTFT", c.TTFTMargin
	if s.ITL > 0 && (s.TTFT <= 0 || c.ITLMargin < c.TTFTMargin) {
		name, m = "ITL", c.ITLMargin
	}
	pct := strconv.Itoa(int(math.Round(math.Abs(m) * 100)))
	if m < 0 {
		return name + " " + pct + " % over"
	}
	return name + " " + pct + " % to spare"
}
