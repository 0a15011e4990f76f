package app

import (
	"cmp"
	"errors"
	"fmt"
	"math"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"time"

	"speedmatrix/engine"
	"speedmatrix/engine/openai"
	"speedmatrix/engine/telemetry"
)

// Settings are the Settings screen's choices, remembered under prefApp.
// A zero field means the default.
type Settings struct {
	Theme             string        `json:"theme,omitempty"`     // themeSystem, themeLight or themeDark
	ExportDir         string        `json:"exportDir,omitempty"` // where Export opens; "": the home folder
	RunsDir           string        `json:"runsDir,omitempty"`   // where History keeps runs; "": deps.runsDir
	FirstTokenTimeout time.Duration `json:"firstTokenTimeout,omitempty"`
	StallTimeout      time.Duration `json:"stallTimeout,omitempty"`
	TelemetryInterval time.Duration `json:"telemetryInterval,omitempty"`
	// SLO is the latency objective runs are judged against (the Matrix
	// and Settings screens edit it; off: the zero SLO).
	SLO engine.SLO `json:"slo,omitzero"`
	// Prices are the user's rent and electricity prices a run's cost
	// comes from (zero: not given, no cost shown).
	Prices engine.Prices `json:"prices,omitzero"`
}

// RunPrices are the prices a run records (engine.RunInfo.Prices), nil
// when none is given.
func (c Settings) RunPrices() *engine.Prices {
	if !c.Prices.Any() {
		return nil
	}
	p := c.Prices
	return &p
}

// PriceField is a price the Settings screen edits.
type PriceField struct {
	Name  string // as the screen labels it: "Rent (USD per hour)"
	Which string // engine.PriceRent or engine.PriceElectricity
	Fix   string // what to write
}

// The prices on the Settings screen.
var (
	RentField        = PriceField{Name: "GPU rent", Which: engine.PriceRent, Fix: "write the GPU box's rent in US dollars per hour, such as 2.50, or leave it empty"}
	ElectricityField = PriceField{Name: "Electricity price", Which: engine.PriceElectricity, Fix: "write the electricity price in US dollars per kWh, such as 0.30, or leave it empty"}
)

// Parse reads the field's text by engine.ParsePrice; "" is not given.
func (f PriceField) Parse(text string) (float64, error) {
	v, err := engine.ParsePrice(f.Which, text)
	var pe *engine.PriceError
	if errors.As(err, &pe) {
		problem := pe.Problem
		if strings.HasPrefix(problem, "is ") {
			problem = "the price " + problem
		}
		return 0, &FieldError{f.Name, problem, f.Fix}
	}
	return v, err
}

// Format writes a price for its field: "" when not given.
func (f PriceField) Format(v float64) string {
	if v == 0 {
		return ""
	}
	return strconv.FormatFloat(v, 'f', -1, 64)
}

// LoadSettings reads the remembered settings; an earlier version's last
// export folder becomes the default one.
func LoadSettings(s *Prefs) Settings {
	var c Settings
	s.Load(PrefApp, &c)
	if c.ExportDir == "" {
		c.ExportDir = s.P.String(PrefExport)
	}
	return c
}

// FirstToken is the first-token timeout a run uses.
func (c Settings) FirstToken() time.Duration {
	return cmp.Or(c.FirstTokenTimeout, openai.DefaultFirstTokenTimeout)
}

// Stall is the stall timeout a run uses.
func (c Settings) Stall() time.Duration { return cmp.Or(c.StallTimeout, openai.DefaultStallTimeout) }

// Interval is how often the hardware sampler reads the GPUs.
func (c Settings) Interval() time.Duration {
	return cmp.Or(c.TelemetryInterval, telemetry.DefaultSampleInterval)
}

// DurationField is a duration the Settings screen edits as a number of
// unit, or as a Go duration such as 90s.
type DurationField struct {
	Name     string        // as the screen labels it: "First-token timeout"
	unit     time.Duration // what a plain number counts
	UnitName string        // "min", "s"
	Def      time.Duration // the engine's default
	Min, Max time.Duration
}

// The durations on the Settings screen, with the engine's defaults.
var (
	FirstTokenField = DurationField{Name: "First-token timeout", unit: time.Minute, UnitName: "min",
		Def: openai.DefaultFirstTokenTimeout, Min: time.Second, Max: time.Hour}
	StallField = DurationField{Name: "Stall timeout", unit: time.Second, UnitName: "s",
		Def: openai.DefaultStallTimeout, Min: time.Second, Max: 30 * time.Minute}
	IntervalField = DurationField{Name: "Telemetry interval", unit: time.Second, UnitName: "s",
		Def: telemetry.DefaultSampleInterval, Min: 250 * time.Millisecond, Max: time.Minute}
)

// FieldError is a field that cannot be used: what is wrong, what to write.
type FieldError struct {
	Field, Problem, Fix string
}

func (e *FieldError) Error() string { return e.Field + ": " + e.Problem + ": " + e.Fix }

// Format writes d as a number of the field's unit: 5 (min), 1.5 (min), 30 (s).
func (f DurationField) Format(d time.Duration) string {
	return strconv.FormatFloat(float64(d)/float64(f.unit), 'f', -1, 64)
}

// Parse reads text: a number of the field's unit ("5", "0.5") or a
// duration with its unit ("90s", "2 min", "1m30s"); "" is the default.
func (f DurationField) Parse(text string) (time.Duration, error) {
	s := strings.TrimSpace(text)
	if s == "" {
		return f.Def, nil
	}
	d, err := ParseDuration(s, f.unit)
	if err != nil {
		return 0, &FieldError{f.Name, fmt.Sprintf("%q is not a duration", s),
			fmt.Sprintf("write a number of %s, such as %s, or a duration such as 90s", unitWords(f.UnitName), f.Format(f.Def))}
	}
	if d < f.Min || d > f.Max {
		return 0, &FieldError{f.Name, fmt.Sprintf("%s is out of range", s),
			fmt.Sprintf("write a value from %s to %s", DurationWords(f.Min), DurationWords(f.Max))}
	}
	return d, nil
}

// ParseDuration reads a plain number of unit or a Go duration; "min" and
// spaces are accepted ("2 min", "1 h 30 min").
func ParseDuration(s string, unit time.Duration) (time.Duration, error) {
	if n, err := strconv.ParseFloat(s, 64); err == nil {
		if math.IsNaN(n) || math.IsInf(n, 0) {
			return 0, errors.New("not a number")
		}
		return time.Duration(n * float64(unit)), nil
	}
	s = strings.NewReplacer(" ", "", "mins", "m", "min", "m", "sec", "s").Replace(strings.ToLower(s))
	return time.ParseDuration(s)
}

func unitWords(unit string) string {
	if unit == "min" {
		return "minutes"
	}
	return "seconds"
}

// DurationWords writes d for a person: 250 ms, 1 s, 30 min, 1 h.
func DurationWords(d time.Duration) string {
	switch {
	case d < time.Second:
		return fmt.Sprintf("%d ms", d.Milliseconds())
	case d < time.Minute:
		return strconv.FormatFloat(d.Seconds(), 'f', -1, 64) + " s"
	case d < time.Hour:
		return strconv.FormatFloat(d.Minutes(), 'f', -1, 64) + " min"
	}
	return strconv.FormatFloat(d.Hours(), 'f', -1, 64) + " h"
}

// FolderError is a folder that cannot be used; Problem completes "The runs
// folder /x …".
type FolderError struct {
	Dir, Problem string
	Err          error
}

func (e *FolderError) Error() string { return e.Dir + " " + e.Problem + ": " + e.Err.Error() }
func (e *FolderError) Unwrap() error { return e.Err }

// errRelative says a folder was not written as a full path.
var errRelative = errors.New("not a full path")

// UsableFolder checks that dir is a folder Speed Matrix can write into,
// creating it when it does not exist, and returns it cleaned ("~" is the
// home folder).
func UsableFolder(dir string) (string, error) {
	dir = strings.TrimSpace(dir)
	if rest, ok := strings.CutPrefix(dir, "~"); ok && (rest == "" || rest[0] == '/' || rest[0] == filepath.Separator) {
		if home, err := os.UserHomeDir(); err == nil {
			dir = home + rest
		}
	}
	if !filepath.IsAbs(dir) {
		return dir, &FolderError{dir, "is not a full path", errRelative}
	}
	dir = filepath.Clean(dir)
	if info, err := os.Stat(dir); err == nil && !info.IsDir() {
		return dir, &FolderError{dir, "is a file, not a folder", errors.New("not a directory")}
	}
	if err := os.MkdirAll(dir, 0o755); err != nil {
		return dir, &FolderError{dir, "cannot be created", err}
	}
	f, err := os.CreateTemp(dir, ".speedmatrix-write-check-*")
	if err != nil {
		return dir, &FolderError{dir, "is not writable", err}
	}
	name := f.Name()
	f.Close()
	os.Remove(name)
	return dir, nil
}

// FolderProblem is a folder field that cannot be used.
type FolderProblem struct {
	Field string // "runs folder"
	Err   error
}

func (p FolderProblem) Error() string { return p.Field + ": " + p.Err.Error() }

// Notice is a problem as every screen shows it: what happened in plain
// words, what to do, an optional button that does it, and the technical
// detail behind a "Details" toggle.
type Notice struct {
	Message string // plain words, a sentence: "The server does not answer."
	Action  string // what to do: "Check URL on the Server screen."
	Button  string // a button's label; "" for none
	OnPress func() // what the button does
	Detail  string // the error as the program saw it; "" for none
}

// ProblemNotice is how the Settings screen shows a field it cannot use.
func ProblemNotice(err error) Notice {
	var fp FolderProblem
	var fe *FieldError
	var de *FolderError
	switch {
	case errors.As(err, &fp) && errors.As(fp.Err, &de):
		n := Notice{Message: "The " + fp.Field + " " + de.Dir + " " + de.Problem + ".",
			Action: "Choose a folder you can write to with Choose folder, or write its full path.", Detail: de.Err.Error()}
		if errors.Is(de.Err, errRelative) {
			n.Detail = ""
		}
		return n
	case errors.As(err, &fe):
		return Notice{Message: fe.Field + ": " + fe.Problem + ".", Action: capitalize(fe.Fix) + "."}
	}
	return Notice{Message: "These settings cannot be used.", Action: "Check the fields on the Settings screen.", Detail: err.Error()}
}

func capitalize(s string) string {
	if s == "" {
		return s
	}
	return strings.ToUpper(s[:1]) + s[1:]
}
