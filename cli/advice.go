package cli

import (
	"errors"

	"speedmatrix/engine"
	"speedmatrix/engine/openai"
)

// planFlags names the flags of each plan setting.
var planFlags = map[engine.PlanField]string{
	engine.FieldContexts:    "--contexts or --prefill-contexts",
	engine.FieldConcurrency: "--concurrency",
	engine.FieldDuration:    "--duration (e.g. 30s)",
	engine.FieldMaxOutput:   "--max-output",
	engine.FieldAPI:         "--api",
}

// advice is what to change on the command line for an error of the engine
// or its client, which state facts in their own terms; "" when no flag
// would help.
func advice(err error) string {
	var plan *engine.PlanError
	var model *engine.UnknownModelError
	switch {
	case errors.As(err, &plan):
		var flags []string
		for _, p := range plan.Problems {
			flags = append(flags, planFlags[p.Field])
		}
		return "change " + joinUnique(flags)
	case errors.As(err, &model), errors.Is(err, openai.ErrModelNotFound):
		return "pick one with --model"
	case errors.Is(err, openai.ErrUnauthorized):
		return "give the key the server was started with: --api-key-env VAR"
	case errors.Is(err, openai.ErrContextTooLong):
		return "lower --contexts or --max-output"
	case errors.Is(err, openai.ErrUnreachable):
		return "check --endpoint"
	case errors.Is(err, openai.ErrMalformed), errors.Is(err, openai.ErrNotSupported):
		return "check that --endpoint is an OpenAI-compatible server"
	case errors.Is(err, openai.ErrTimeout):
		return "check the server, or raise --request-timeout"
	}
	return ""
}

// withAdvice appends the advice for err, if any, to its message.
func withAdvice(err error) error {
	if a := advice(err); a != "" {
		return &advised{err: err, advice: a}
	}
	return err
}

type advised struct {
	err    error
	advice string
}

func (a *advised) Error() string { return a.err.Error() + ": " + a.advice }
func (a *advised) Unwrap() error { return a.err }

func joinUnique(items []string) string {
	var out []string
	seen := map[string]bool{}
	for _, s := range items {
		if !seen[s] {
			seen[s] = true
			out = append(out, s)
		}
	}
	switch len(out) {
	case 0:
		return ""
	case 1:
		return out[0]
	}
	s := out[0]
	for _, x := range out[1 : len(out)-1] {
		s += ", " + x
	}
	return s + " and " + out[len(out)-1]
}
