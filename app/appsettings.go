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
	"speedmatrix/hw"
)

// appSettings are the Settings screen's choices, remembered under prefApp.
// A zero field means the default.
type appSettings struct {
	Theme             string        `json:"theme,omitempty"`     // themeSystem, themeLight or themeDark
	ExportDir         string        `json:"exportDir,omitempty"` // where Export opens; "": the home folder
	RunsDir           string        `json:"runsDir,omitempty"`   // where History keeps runs; "": deps.runsDir
	FirstTokenTimeout time.Duration `json:"firstTokenTimeout,omitempty"`
	StallTimeout      time.Duration `json:"stallTimeout,omitempty"`
	TelemetryInterval time.Duration `json:"telemetryInterval,omitempty"`
	// SLO is the latency objective runs are judged against (the Matrix
	// and Settings screens edit it; off: the zero SLO).
	SLO engine.SLO `json:"slo,omitzero"`
}

// loadAppSettings reads the remembered settings; an earlier version's last
// export folder becomes the default one.
func loadAppSettings(s *settings) appSettings {
	var c appSettings
	s.load(prefApp, &c)
	if c.ExportDir == "" {
		c.ExportDir = s.p.String(prefExport)
	}
	return c
}

// firstToken is the first-token timeout a run uses.
func (c appSettings) firstToken() time.Duration {
	return cmp.Or(c.FirstTokenTimeout, openai.DefaultFirstTokenTimeout)
}

// stall is the stall timeout a run uses.
func (c appSettings) stall() time.Duration { return cmp.Or(c.StallTimeout, openai.DefaultStallTimeout) }

// interval is how often the hardware sampler reads the GPUs.
func (c appSettings) interval() time.Duration {
	return cmp.Or(c.TelemetryInterval, hw.DefaultSampleInterval)
}

// durationField is a duration the Settings screen edits as a number of
// unit, or as a Go duration such as 90s.
type durationField struct {
	name     string        // as the screen labels it: "First-token timeout"
	unit     time.Duration // what a plain number counts
	unitName string        // "min", "s"
	def      time.Duration // the engine's default
	min, max time.Duration
}

// The durations on the Settings screen, with the engine's defaults.
var (
	firstTokenField = durationField{name: "First-token timeout", unit: time.Minute, unitName: "min",
		def: openai.DefaultFirstTokenTimeout, min: time.Second, max: time.Hour}
	stallField = durationField{name: "Stall timeout", unit: time.Second, unitName: "s",
		def: openai.DefaultStallTimeout, min: time.Second, max: 30 * time.Minute}
	intervalField = durationField{name: "Telemetry interval", unit: time.Second, unitName: "s",
		def: hw.DefaultSampleInterval, min: 250 * time.Millisecond, max: time.Minute}
)

// fieldError is a field that cannot be used: what is wrong, what to write.
type fieldError struct {
	Field, Problem, Fix string
}

func (e *fieldError) Error() string { return e.Field + ": " + e.Problem + ": " + e.Fix }

// format writes d as a number of the field's unit: 5 (min), 1.5 (min), 30 (s).
func (f durationField) format(d time.Duration) string {
	return strconv.FormatFloat(float64(d)/float64(f.unit), 'f', -1, 64)
}

// parse reads text: a number of the field's unit ("5", "0.5") or a
// duration with its unit ("90s", "2 min", "1m30s"); "" is the default.
func (f durationField) parse(text string) (time.Duration, error) {
	s := strings.TrimSpace(text)
	if s == "" {
		return f.def, nil
	}
	d, err := parseDuration(s, f.unit)
	if err != nil {
		return 0, &fieldError{f.name, fmt.Sprintf("%q is not a duration", s),
			fmt.Sprintf("write a number of %s, such as %s, or a duration such as 90s", unitWords(f.unitName), f.format(f.def))}
	}
	if d < f.min || d > f.max {
		return 0, &fieldError{f.name, fmt.Sprintf("%s is out of range", s),
			fmt.Sprintf("write a value from %s to %s", durationWords(f.min), durationWords(f.max))}
	}
	return d, nil
}

// parseDuration reads a plain number of unit or a Go duration; "min" and
// spaces are accepted ("2 min", "1 h 30 min").
func parseDuration(s string, unit time.Duration) (time.Duration, error) {
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

// durationWords writes d for a person: 250 ms, 1 s, 30 min, 1 h.
func durationWords(d time.Duration) string {
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

// folderError is a folder that cannot be used; Problem completes "The runs
// folder /x …".
type folderError struct {
	Dir, Problem string
	Err          error
}

func (e *folderError) Error() string { return e.Dir + " " + e.Problem + ": " + e.Err.Error() }
func (e *folderError) Unwrap() error { return e.Err }

// errRelative says a folder was not written as a full path.
var errRelative = errors.New("not a full path")

// usableFolder checks that dir is a folder Speed Matrix can write into,
// creating it when it does not exist, and returns it cleaned ("~" is the
// home folder).
func usableFolder(dir string) (string, error) {
	dir = strings.TrimSpace(dir)
	if rest, ok := strings.CutPrefix(dir, "~"); ok && (rest == "" || rest[0] == '/' || rest[0] == filepath.Separator) {
		if home, err := os.UserHomeDir(); err == nil {
			dir = home + rest
		}
	}
	if !filepath.IsAbs(dir) {
		return dir, &folderError{dir, "is not a full path", errRelative}
	}
	dir = filepath.Clean(dir)
	if info, err := os.Stat(dir); err == nil && !info.IsDir() {
		return dir, &folderError{dir, "is a file, not a folder", errors.New("not a directory")}
	}
	if err := os.MkdirAll(dir, 0o755); err != nil {
		return dir, &folderError{dir, "cannot be created", err}
	}
	f, err := os.CreateTemp(dir, ".speedmatrix-write-check-*")
	if err != nil {
		return dir, &folderError{dir, "is not writable", err}
	}
	name := f.Name()
	f.Close()
	os.Remove(name)
	return dir, nil
}

// folderProblem is a folder field that cannot be used.
type folderProblem struct {
	field string // "runs folder"
	err   error
}

func (p folderProblem) Error() string { return p.field + ": " + p.err.Error() }

// notice is a problem as every screen shows it: what happened in plain
// words, what to do, an optional button that does it, and the technical
// detail behind a "Details" toggle.
type notice struct {
	Message string // plain words, a sentence: "The server does not answer."
	Action  string // what to do: "Check URL on the Server screen."
	Button  string // a button's label; "" for none
	OnPress func() // what the button does
	Detail  string // the error as the program saw it; "" for none
}

// problemNotice is how the Settings screen shows a field it cannot use.
func problemNotice(err error) notice {
	var fp folderProblem
	var fe *fieldError
	var de *folderError
	switch {
	case errors.As(err, &fp) && errors.As(fp.err, &de):
		n := notice{Message: "The " + fp.field + " " + de.Dir + " " + de.Problem + ".",
			Action: "Choose a folder you can write to with Choose folder, or write its full path.", Detail: de.Err.Error()}
		if errors.Is(de.Err, errRelative) {
			n.Detail = ""
		}
		return n
	case errors.As(err, &fe):
		return notice{Message: fe.Field + ": " + fe.Problem + ".", Action: capitalize(fe.Fix) + "."}
	}
	return notice{Message: "These settings cannot be used.", Action: "Check the fields on the Settings screen.", Detail: err.Error()}
}

func capitalize(s string) string {
	if s == "" {
		return s
	}
	return strings.ToUpper(s[:1]) + s[1:]
}
