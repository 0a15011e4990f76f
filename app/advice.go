package app

import (
	"errors"

	"speedmatrix/engine"
	"speedmatrix/engine/openai"
)

// planFields names where each plan setting is set in the app.
var planFields = map[engine.PlanField]string{
	engine.FieldContexts:    "Contexts on the Matrix screen",
	engine.FieldConcurrency: "Concurrency on the Matrix screen",
	engine.FieldDuration:    "Duration on the Matrix screen",
	engine.FieldMaxOutput:   "Max output on the Matrix screen",
	engine.FieldAPI:         "API on the Matrix screen",
}

// advice is what to do in the app about an error of the engine, which
// states facts in its own terms: which screen and field to change. It is
// "" when no setting would help.
func advice(err error) string {
	var plan *engine.PlanError
	var model *engine.UnknownModelError
	var busy *engine.BusyError
	switch {
	case errors.As(err, &plan):
		return "change " + planFields[plan.Problems[0].Field]
	case errors.As(err, &model), errors.Is(err, openai.ErrModelNotFound):
		return "choose one of its models in Model on the Server screen (Detect models lists them)"
	case errors.Is(err, openai.ErrUnauthorized):
		return "type the key the server was started with in API key on the Server screen"
	case errors.As(err, &busy):
		return "stop the other client's requests, then start the run again"
	case errors.Is(err, engine.ErrServerStopped):
		return "the finished cells are kept; start the server again, then run again"
	case errors.Is(err, openai.ErrUnreachable), errors.Is(err, openai.ErrMalformed), errors.Is(err, openai.ErrNotSupported):
		return "check URL on the Server screen, and that the server is running"
	case errors.Is(err, openai.ErrTimeout):
		return "check that the server is not hung or overloaded"
	}
	return ""
}

// explain is err's message followed by the advice, if any.
func explain(err error) string {
	if a := advice(err); a != "" {
		return err.Error() + ". " + upper(a) + "."
	}
	return err.Error()
}

func upper(s string) string {
	if s == "" || s[0] < 'a' || s[0] > 'z' {
		return s
	}
	return string(s[0]-'a'+'A') + s[1:]
}
