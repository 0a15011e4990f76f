package measure

import (
	"errors"
	"speedmatrix/engine"

	"speedmatrix/engine/openai"
)

// Problem is the kind of fault behind an error of a run, so that each
// front end can say what to do in its own words (a flag, a screen).
type Problem int

// The problems ProblemOf tells apart.
const (
	problemOther          Problem = iota // nothing the user can set would help
	ProblemPlan                          // a setting of the plan (see PlanError.Problems)
	ProblemModel                         // the server doesn't serve the model asked for
	ProblemAuth                          // the server rejected the API key
	ProblemContextTooLong                // a prompt and its output don't fit the model
	ProblemUnreachable                   // no connection to the server
	ProblemNotOpenAI                     // the server doesn't speak the OpenAI API
	ProblemTimeout                       // a request got no answer in time
	ProblemBusy                          // another client uses the server
	ProblemServerStopped                 // the server stopped answering mid-run
	ProblemServerChanged                 // a resumed run reaches another server
)

// ProblemOf classifies err (which may wrap the engine's and the client's
// errors).
func ProblemOf(err error) Problem {
	var plan *engine.PlanError
	var model *engine.UnknownModelError
	var busy *BusyError
	var changed *ServerChangedError
	switch {
	case err == nil:
		return problemOther
	case errors.As(err, &plan):
		return ProblemPlan
	case errors.As(err, &model), errors.Is(err, openai.ErrModelNotFound):
		return ProblemModel
	case errors.Is(err, openai.ErrUnauthorized):
		return ProblemAuth
	case errors.Is(err, openai.ErrContextTooLong):
		return ProblemContextTooLong
	case errors.As(err, &busy):
		return ProblemBusy
	case errors.As(err, &changed):
		return ProblemServerChanged
	case errors.Is(err, ErrServerStopped):
		return ProblemServerStopped
	case errors.Is(err, openai.ErrUnreachable):
		return ProblemUnreachable
	case errors.Is(err, openai.ErrMalformed), errors.Is(err, openai.ErrNotSupported):
		return ProblemNotOpenAI
	case errors.Is(err, openai.ErrTimeout):
		return ProblemTimeout
	}
	return problemOther
}
