package shell

import (
	"speedmatrix/app"
	"speedmatrix/engine"
	"speedmatrix/engine/measure"
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

// advice is what to do in the app about an error of the engine, which
// states facts in its own terms; "" when no setting would help.
func advice(err error) string {
	p := measure.ProblemOf(err)
	if p != measure.ProblemPlan {
		return problemAdvice[p]
	}
	return "change " + matrixFields[engine.PlanFields(err)[0]] + " on the Matrix screen"
}

func upper(s string) string {
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
	measure.ProblemPlan:           app.TabMatrix,
	measure.ProblemModel:          app.TabServer,
	measure.ProblemAuth:           app.TabServer,
	measure.ProblemContextTooLong: app.TabMatrix,
	measure.ProblemUnreachable:    app.TabServer,
	measure.ProblemNotOpenAI:      app.TabServer,
	measure.ProblemServerChanged:  app.TabServer,
}

// noticeOf is err as a banner shows it: the plain message of its kind (or
// fallback for a kind without one), the advice, a button to the screen
// that fixes it (through show, when set), and err itself as the detail.
func noticeOf(err error, fallback string, show func(screen string)) app.Notice {
	if n, ok := exporterNotice(err, show); ok {
		return n
	}
	p := measure.ProblemOf(err)
	n := app.Notice{Message: problemMessages[p], Action: upper(advice(err)), Detail: err.Error()}
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
