package probe

import (
	"context"
	"errors"
	"slices"

	"speedmatrix/engine"
	"speedmatrix/engine/quality"
)

// RunOptions are what a quality phase asks beyond its reference: the
// needle task, the task file, the budget it judges by, and an earlier,
// interrupted phase to go on from.
type RunOptions struct {
	// NeedleTrials per context (0: no needle task), at NeedleContexts
	// (the reference's when empty), built from Seed and Text.
	NeedleTrials   int
	NeedleContexts []int
	Seed           uint64
	Text           string
	// Tasks are the task file's items (none: no task run), TaskFile its
	// name as reports show it, TaskTokens the longest answer.
	Tasks      []quality.Task
	TaskFile   string
	TaskTokens int
	Budget     quality.Budget
	// Engine names the server compared (its Simulated says so).
	Engine engine.EngineInfo
	// Prior is an interrupted phase against the same reference: the
	// contexts it compared, the needle contexts it finished and the task
	// items it asked are kept, not asked again. nil: none.
	Prior *quality.Report
	// Events hears the phase's progress; nil: nothing.
	Events func(Event)
}

// ErrPriorReference is a Prior recorded against another reference.
var ErrPriorReference = errors.New("the interrupted quality phase was measured against another reference")

// Run is one server's quality against ref, what `quality --reference`,
// `run --quality-reference`, a sweep and the app all run: the drift per
// context (Compare), then the needle task paired with the reference's,
// then the task file paired with the reference's. save gets the whole
// report, judged against o.Budget, after every context, needle context
// and every few task items; what was measured when ctx ends is returned
// with ctx's error.
//
// A server of another tokenizer is refused (*quality.TokenizerError)
// before anything is asked. A server that gives no logprobs
// (*NoLogprobsError) still runs the needle task and the tasks, and that
// error is returned at the end, with the report: its drift is missing.
func Run(ctx context.Context, s Server, ref quality.Reference, o RunOptions, save func(quality.Report) error) (quality.Report, error) {
	rep := quality.Report{Reference: ref.Header, Server: quality.ServerInfo{Model: s.Model, Tokenizer: ref.Tokenizer, Engine: o.Engine}}
	if p := o.Prior; p != nil {
		if p.Reference.Tokenizer != ref.Tokenizer || p.Reference.Model != ref.Model || !p.Reference.RecordedAt.Equal(ref.RecordedAt) {
			return rep, ErrPriorReference
		}
		rep.NoiseFloor, rep.Contexts, rep.Needle, rep.Tasks = p.NoiseFloor, p.Contexts, p.Needle, p.Tasks
	}
	emit := func() error {
		o.Budget.Apply(&rep)
		return save(rep)
	}
	// Drift: the contexts the prior phase did not finish.
	rest := ref
	rest.Contexts = slices.DeleteFunc(slices.Clone(ref.Contexts), func(c int) bool { return hasContext(rep.Contexts, c) })
	done := rep.Contexts
	var noLogprobs *NoLogprobsError
	if len(rest.Contexts) > 0 {
		_, err := Compare(ctx, s, rest, Options{Events: o.Events}, func(r quality.Report) error {
			rep.NoiseFloor, rep.Contexts = r.NoiseFloor, merged(done, r.Contexts)
			return emit()
		})
		if !errors.As(err, &noLogprobs) && err != nil {
			return rep, err
		}
	}
	if o.NeedleTrials > 0 {
		contexts := o.NeedleContexts
		if len(contexts) == 0 {
			contexts = ref.Contexts
		}
		// A prior context of another seed or trial count asked other
		// questions: it is asked again, not kept.
		trials := min(o.NeedleTrials, quality.MaxNeedleTrials)
		finished := slices.DeleteFunc(slices.Clone(rep.Needle), func(n quality.NeedleContext) bool {
			return n.Seed != o.Seed || len(n.Correct) != trials || !slices.Contains(contexts, n.ContextTokens)
		})
		rep.Needle = finished
		todo := slices.DeleteFunc(slices.Clone(contexts), func(c int) bool {
			return slices.ContainsFunc(finished, func(n quality.NeedleContext) bool { return n.ContextTokens == c })
		})
		if len(todo) > 0 {
			_, err := Needle(ctx, s, todo, o.NeedleTrials, o.Seed, o.Text, ref.Needle, o.Events, func(n []quality.NeedleContext) error {
				rep.Needle = mergedNeedle(finished, n)
				return emit()
			})
			if err != nil {
				return rep, err
			}
		}
	}
	if len(o.Tasks) > 0 {
		_, err := Tasks(ctx, s, o.Tasks, o.TaskFile, o.TaskTokens, ref.Tasks, rep.Tasks, o.Events, func(t quality.TaskRun) error {
			rep.Tasks = &t
			return emit()
		})
		if err != nil {
			return rep, err
		}
	}
	if err := emit(); err != nil {
		return rep, err
	}
	if noLogprobs != nil {
		return rep, noLogprobs
	}
	return rep, nil
}

// hasContext is whether cs holds context c with positions compared.
func hasContext(cs []quality.ContextDrift, c int) bool {
	return slices.ContainsFunc(cs, func(d quality.ContextDrift) bool { return d.ContextTokens == c && d.Positions > 0 })
}

// merged is a and b's contexts, ascending (b's are new ones).
func merged(a, b []quality.ContextDrift) []quality.ContextDrift {
	out := append(slices.Clone(a), b...)
	slices.SortStableFunc(out, func(x, y quality.ContextDrift) int { return x.ContextTokens - y.ContextTokens })
	return out
}

// mergedNeedle is a and b's needle contexts, ascending.
func mergedNeedle(a, b []quality.NeedleContext) []quality.NeedleContext {
	out := append(slices.Clone(a), b...)
	slices.SortStableFunc(out, func(x, y quality.NeedleContext) int { return x.ContextTokens - y.ContextTokens })
	return out
}
