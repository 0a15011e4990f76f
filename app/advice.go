package app

import (
	"errors"

	"speedmatrix/engine"
	"speedmatrix/engine/dcgm"
	"speedmatrix/engine/measure"
	"speedmatrix/engine/secret"
)

// problemAdvice is what to do in the app for each kind of problem: which
// screen and field (the plan's is built from matrixFields).
var problemAdvice = map[measure.Problem]string{
	measure.ProblemModel:          "choose one of its models in Model on the Server screen (Detect models lists them)",
	measure.ProblemAuth:           "type the key the server was started with in API key on the Server screen",
	measure.ProblemContextTooLong: "lower Contexts or Max output on the Matrix screen",
	measure.ProblemBusy:           "stop the other client's requests, then start the run again",
	measure.ProblemServerStopped:  "the finished cells are kept; start the server again, then run again",
	measure.ProblemUnreachable:    "check URL on the Server screen, and that the server is running",
	measure.ProblemNotOpenAI:      "check URL on the Server screen, and that the server is running",
	measure.ProblemTimeout:        "check that the server is not hung or overloaded",
}

// Advice is what to do in the app about an error of the engine, which
// states facts in its own terms; "" when no setting would help.
func Advice(err error) string {
	p := measure.ProblemOf(err)
	if p != measure.ProblemPlan {
		return problemAdvice[p]
	}
	return "change " + MatrixFields[engine.PlanFields(err)[0]] + " on the Matrix screen"
}

// Upper is s with its first letter in upper case, when it is an ASCII
// lower-case letter.
func Upper(s string) string {
	if s == "" || s[0] < 'a' || s[0] > 'z' {
		return s
	}
	return string(s[0]-'a'+'A') + s[1:]
}

// problemMessages say in plain words what went wrong, per kind of problem.
var problemMessages = map[measure.Problem]string{
	measure.ProblemPlan:           "The matrix has a setting the run cannot use.",
	measure.ProblemModel:          "The server does not serve that model.",
	measure.ProblemAuth:           "The server rejected the API key.",
	measure.ProblemContextTooLong: "A prompt and its output do not fit the model.",
	measure.ProblemUnreachable:    "The server does not answer.",
	measure.ProblemNotOpenAI:      "That address does not answer like an OpenAI-compatible server.",
	measure.ProblemTimeout:        "The server took too long to answer.",
	measure.ProblemBusy:           "Another client is using the server.",
	measure.ProblemServerStopped:  "The server stopped answering during the run.",
	measure.ProblemServerChanged:  "This is not the server the run began with.",
}

// problemScreens is the screen that fixes each kind of problem.
var problemScreens = map[measure.Problem]string{
	measure.ProblemPlan:           TabMatrix,
	measure.ProblemModel:          TabServer,
	measure.ProblemAuth:           TabServer,
	measure.ProblemContextTooLong: TabMatrix,
	measure.ProblemUnreachable:    TabServer,
	measure.ProblemNotOpenAI:      TabServer,
	measure.ProblemServerChanged:  TabServer,
}

// NoticeOf is err as a banner shows it: the plain message of its kind (or
// fallback for a kind without one), the advice, a button to the screen
// that fixes it (through show, when set), and err itself as the detail.
func NoticeOf(err error, fallback string, show func(screen string)) Notice {
	if n, ok := ExporterNotice(err, show); ok {
		return n
	}
	p := measure.ProblemOf(err)
	n := Notice{Message: problemMessages[p], Action: Upper(Advice(err)), Detail: err.Error()}
	if n.Message == "" {
		n.Message = fallback
	}
	if n.Action != "" {
		n.Action += "."
	}
	if screen := problemScreens[p]; screen != "" && show != nil {
		n.Button, n.OnPress = "Open "+screen+" screen", func() { show(screen) }
	}
	return n
}

// PrecisionName labels the Matrix screen's precision field.
const PrecisionName = "Precision"

// PrefillRepeatsName labels the Matrix screen's field for
// engine.Plan.PrefillRepeats.
const PrefillRepeatsName = "Prefill repeats"

// The names of the SLO's fields, as every screen labels them.
const (
	SloTTFTName = "TTFT bound"
	SloITLName  = "ITL bound"
	SloPctName  = "SLO percentile"
)

// MatrixFields names each plan setting as the Matrix screen labels it (a
// resumed run's KV budget comes from its report.json).
var MatrixFields = map[engine.PlanField]string{
	engine.FieldContexts:        "Prefill or Decode contexts",
	engine.FieldPrefillContexts: "Prefill contexts",
	engine.FieldDecodeContexts:  "Decode contexts",
	engine.FieldConcurrency:     "Requests at once",
	engine.FieldDuration:        "Seconds per cell",
	engine.FieldMaxOutput:       "Max output tokens",
	engine.FieldAPI:             "API",
	engine.FieldKVBudget:        "KV budget",
	engine.FieldPrecision:       PrecisionName,
	engine.FieldPrefillRepeats:  PrefillRepeatsName,
	engine.FieldSLOTTFT:         SloTTFTName,
	engine.FieldSLOITL:          SloITLName,
	engine.FieldSLOPercentile:   SloPctName,
}

// ExporterNotice is err, an exporter the run cannot read, as the banner
// says it; ok is false when err is about something else.
func ExporterNotice(err error, show func(screen string)) (Notice, bool) {
	var ue *dcgm.URLError
	if !errors.As(err, &ue) {
		return Notice{}, false
	}
	n := Notice{Message: "The GPU metrics exporter " + secret.URL(ue.URL) + " did not answer with DCGM metrics.",
		Action: "Check that dcgm-exporter runs there (it listens on :9400 by default) and that this machine reaches it, or clear GPU metrics on the Server screen.",
		Detail: err.Error()}
	if errors.Is(err, dcgm.ErrNotURL) {
		n.Message = secret.URL(ue.URL) + " in GPU metrics is not an exporter address."
		n.Action = "Write each like http://node2:9400/metrics in GPU metrics on the Server screen, separated by commas."
	}
	if show != nil {
		n.Button, n.OnPress = "Open Server screen", func() { show(TabServer) }
	}
	return n, true
}
