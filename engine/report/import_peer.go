package report

import (
	"bytes"
	"encoding/json"
	"fmt"
	"math"
	"path/filepath"
	"time"

	"speedmatrix/engine"
	"speedmatrix/engine/secret"
)

// The load-test tools whose results files Decode imports, each as its runs
// are labelled.
const (
	vllmBenchTool     = "vllm bench serve"
	guideLLMTool      = "GuideLLM"
	aiperfTool        = "AIPerf"
	inferencePerfTool = "inference-perf"
)

// peerRun is what a load-test tool's results file says, tool by tool
// decoded into one shape: the rows a load section holds, and the words
// that say where the tool's figures differ from ours.
type peerRun struct {
	tool, version     string
	model             string    // the served model's name, "" when the file has none
	endpoint          string    // the server's URL, "" when the file has none
	started, finished time.Time // zero when the file does not say
	plan              engine.LoadPlan
	rows              []engine.LoadResult
	// goodput is whether the file has the tool's own goodput; without it
	// each row's goodput is every completed request per second, as ours
	// is without an SLO.
	goodput bool
	// notes say, one sentence each, how the tool defines a figure
	// otherwise than we do, and what the file lacks.
	notes []string
}

// report lays a peer's run out as an imported load test, labelled with
// its tool and version everywhere, and holds it to what a load test
// writes (checkRun).
func (p peerRun) report(file string) (engine.Report, error) {
	imp := &engine.Import{Tool: p.tool, Version: p.version, File: filepath.Base(file)}
	if imp.Version == "" {
		imp.Version = engine.VersionUnknown
	}
	for i := range p.rows {
		peerRow(&p.rows[i], p.goodput)
	}
	notes := p.notes
	if !p.goodput {
		notes = append(notes, "The "+p.tool+" file has no goodput: goodput counts every completed request, as ours does without an SLO.")
	}
	if imp.Version == engine.VersionUnknown {
		notes = append(notes, "The "+p.tool+" file does not say which version of the tool wrote it.")
	}
	rep := engine.Report{
		SchemaVersion: engine.SchemaVersion,
		Hardware:      engine.HardwareInfo{Note: "The " + p.tool + " file does not say what the server ran on: its hardware is unknown."},
		Run: engine.RunInfo{
			ServedModel:   secret.Text(p.model),
			BenchmarkTool: imp.Label(),
			Endpoint:      secret.Text(p.endpoint),
			StartedAt:     p.started,
			FinishedAt:    p.finished,
			Complete:      true,
			Imported:      imp,
			Notes:         notes,
		},
		Load: &engine.LoadSection{Plan: p.plan, Results: p.rows, Imported: imp},
	}
	if len(p.rows) == 0 {
		return rep, fmt.Errorf("%s is a %s results file with no results: nothing to import", file, p.tool)
	}
	engine.BoundReport(&rep)
	return rep, checkRun(rep, file)
}

// peerRow sets what a row's figures say of it: its status (Failed when no
// request completed), a flag for failed requests, and goodput as every
// completed request per second when the file has none.
func peerRow(r *engine.LoadResult, goodput bool) {
	if r.Requests < r.Completed+r.Failed {
		r.Requests = r.Completed + r.Failed
	}
	r.Status = engine.StatusValid
	if r.Completed == 0 {
		r.Status, r.Error = engine.StatusFailed, "no request completed"
	}
	if r.Failed > 0 && r.Completed > 0 {
		r.Flags = append(r.Flags, engine.Flag{Kind: engine.FlagFailedRequests,
			Message: fmt.Sprintf("%d of %d %s failed", r.Failed, r.Requests, engine.Plural(r.Requests, "request", "requests"))})
	}
	if !goodput {
		r.GoodputRPS = r.RequestThroughputRPS
	}
}

// peerRows is how many entries a results file may list as rows: as many
// as a load test of ours measures. A file with more is refused before its
// entries are decoded.
func peerRows(file, tool string, n int) error {
	if n > maxLoadRates {
		return &implausibleError{File: file, Problem: fmt.Sprintf("its %s results list %d runs, more than the %d rates a load test measures", tool, n, maxLoadRates)}
	}
	return nil
}

// unreadable is the error of a file that is one tool's by its keys but
// whose values are not what the tool writes (a string for a number, a
// number past float64).
func unreadable(file, tool string, err error) error {
	return fmt.Errorf("%s looks like a %s results file but cannot be read: %v", file, tool, err)
}

// decodePeer decodes data, a tool's file or part of one, into T; what
// does not fit is unreadable.
func decodePeer[T any](data []byte, file, tool string) (T, error) {
	var f T
	if err := json.Unmarshal(data, &f); err != nil {
		return f, unreadable(file, tool, err)
	}
	return f, nil
}

// ms turns seconds into milliseconds.
func ms(seconds float64) float64 { return seconds * 1000 }

// msPercentiles scales percentiles given in seconds to milliseconds.
func msPercentiles(p engine.Percentiles) engine.Percentiles {
	p.P50, p.P90, p.P99, p.Mean = ms(p.P50), ms(p.P90), ms(p.P99), ms(p.Mean)
	return p
}

// count is a whole number a tool wrote as a float ("24.0"): rounded, and
// -1 (refused by checkRun as negative) when it is not a count at all.
func count(v float64) int {
	if math.IsNaN(v) || v < 0 || v > maxLoadRequests {
		return -1
	}
	return int(math.Round(v))
}

// maybeFloat is a number a tool may write as null, a number or a string
// ("inf"); ok is false for null or a string that is no number.
type maybeFloat struct {
	v  float64
	ok bool
}

// UnmarshalJSON reads null, a number, or "inf" (as +Inf).
func (m *maybeFloat) UnmarshalJSON(b []byte) error {
	switch string(b) {
	case "null":
		return nil
	case `"inf"`, `"Infinity"`:
		m.v, m.ok = math.Inf(1), true
		return nil
	case `"-Infinity"`:
		m.v, m.ok = math.Inf(-1), true
		return nil
	}
	if err := json.Unmarshal(b, &m.v); err != nil {
		return err
	}
	m.ok = true
	return nil
}

// pythonJSON is data with the numbers Python's json writes and JSON has
// not (NaN, Infinity, -Infinity: a mean over no requests, vllm bench's
// --burstiness inf) outside strings made JSON: NaN null, the others the
// strings "Infinity" and "-Infinity", which maybeFloat reads and a plain
// number refuses. Data without them is returned as it is.
func pythonJSON(data []byte) []byte {
	if !bytes.Contains(data, []byte("NaN")) && !bytes.Contains(data, []byte("Infinity")) {
		return data
	}
	out := make([]byte, 0, len(data)+64)
	inString, escaped := false, false
	for i := 0; i < len(data); i++ {
		c := data[i]
		switch {
		case inString:
			inString = escaped || c != '"'
			escaped = !escaped && c == '\\'
		case c == '"':
			inString = true
		case bytes.HasPrefix(data[i:], []byte("NaN")):
			out = append(out, "null"...)
			i += len("NaN") - 1
			continue
		case bytes.HasPrefix(data[i:], []byte("Infinity")):
			out = append(out, `"Infinity"`...)
			i += len("Infinity") - 1
			continue
		case bytes.HasPrefix(data[i:], []byte("-Infinity")):
			out = append(out, `"-Infinity"`...)
			i += len("-Infinity") - 1
			continue
		}
		out = append(out, c)
	}
	return out
}

// localTime is a time Python tools write, local time without a zone
// (datetime.now().isoformat(): AIPerf, llm-inference-bench); zero for one
// that isn't.
func localTime(s string) time.Time {
	t, err := time.ParseInLocation("2006-01-02T15:04:05.999999999", s, time.Local)
	if err != nil {
		return time.Time{}
	}
	return t
}
