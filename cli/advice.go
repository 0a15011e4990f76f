package cli

import (
	"strings"

	"speedmatrix/engine"
	"speedmatrix/engine/measure"
)

// planFlags names the flags of each plan setting.
var planFlags = map[engine.PlanField]string{
	engine.FieldContexts:    "--contexts or --prefill-contexts",
	engine.FieldConcurrency: "--concurrency",
	engine.FieldDuration:    "--duration (e.g. 30s)",
	engine.FieldMaxOutput:   "--max-output",
	engine.FieldAPI:         "--api",
}

// problemAdvice is what to change on the command line for each kind of
// problem (the plan's is built from planFlags).
var problemAdvice = map[measure.Problem]string{
	measure.ProblemModel:          "pick one with --model",
	measure.ProblemAuth:           "give the key the server was started with: --api-key-env VAR",
	measure.ProblemContextTooLong: "lower --contexts or --max-output",
	measure.ProblemUnreachable:    "check --endpoint",
	measure.ProblemNotOpenAI:      "check that --endpoint is an OpenAI-compatible server",
	measure.ProblemTimeout:        "check the server, or raise --request-timeout",
}

// advice is what to change on the command line for an error of the engine
// or its client, which state facts in their own terms; "" when no flag
// would help.
func advice(err error) string {
	p := measure.ProblemOf(err)
	if p != measure.ProblemPlan {
		return problemAdvice[p]
	}
	var flags []string
	for _, f := range engine.PlanFields(err) {
		flags = append(flags, planFlags[f])
	}
	return "change " + strings.Join(flags, " and ")
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
