package cli

import (
	"errors"
	"strings"

	"speedmatrix/engine"
	"speedmatrix/engine/measure"
)

// planFlags names the flags of each plan setting.
var planFlags = map[engine.PlanField]string{
	engine.FieldContexts:        "--contexts or --prefill-contexts",
	engine.FieldPrefillContexts: "--prefill-contexts",
	engine.FieldDecodeContexts:  "--contexts",
	engine.FieldConcurrency:     "--concurrency",
	engine.FieldDuration:        "--duration",
	engine.FieldMaxOutput:       "--max-output",
	engine.FieldAPI:             "--api",
	engine.FieldKVBudget:        "--kv-budget",
	engine.FieldPrecision:       "--precision",
	engine.FieldPrefillRepeats:  "--prefill-repeats",
	engine.FieldSLOTTFT:         "--slo-ttft",
	engine.FieldSLOITL:          "--slo-itl",
	engine.FieldSLOPercentile:   "--slo-percentile",
	engine.FieldSLOUserTokS:     "--slo-user-tok-s",
	// A load test's.
	engine.FieldRates:          "--rates",
	engine.FieldSweepRates:     "--sweep-rates",
	engine.FieldArrivals:       "--arrivals",
	engine.FieldBurst:          "--burst",
	engine.FieldRequests:       "--requests",
	engine.FieldMaxConcurrency: "--max-concurrency",
	engine.FieldInputTokens:    "--input-tokens",
	engine.FieldOutputTokens:   "--output-tokens",
	engine.FieldDataset:        "--dataset",
	engine.FieldTrace:          "--trace",
	engine.FieldConversations:  "--conversations",
	engine.FieldThinkTime:      "--think-time",
	engine.FieldAnswers:        "--answers",
}

// inFlags is a plan's problems (or warnings) in the words of the command
// line: "--max-output: must be at least 1 token; --duration: must be positive".
func inFlags(problems []engine.PlanProblem) string {
	parts := make([]string, len(problems))
	for i, p := range problems {
		parts[i] = planFlags[p.Field] + ": " + p.Problem
	}
	return strings.Join(parts, "; ")
}

// problemAdvice is what to change on the command line for each kind of
// problem; a plan's problems are each said with their flag (inFlags).
var problemAdvice = map[measure.Problem]string{
	measure.ProblemModel:          "pick one with --model",
	measure.ProblemAuth:           "give the key the server was started with: --api-key-env VAR",
	measure.ProblemContextTooLong: "lower --contexts or --max-output",
	measure.ProblemUnreachable:    "check --endpoint",
	measure.ProblemNotOpenAI:      "check that --endpoint is an OpenAI-compatible server",
	measure.ProblemTimeout:        "check the server, or raise --request-timeout",
}

// withAdvice is err, an error of the engine or its client, which state
// facts in their own terms, in the words of the command line: a plan's
// problems with their flags, anything else with what to change, if a flag
// would help.
func withAdvice(err error) error {
	var plan *engine.PlanError
	if errors.As(err, &plan) {
		return errors.New("run: " + inFlags(plan.Problems))
	}
	if a := problemAdvice[measure.ProblemOf(err)]; a != "" {
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
