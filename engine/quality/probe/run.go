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
	// Server names the server compared (its Simulated says so).
	Server engine.ServerInfo
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
	rep := quality.Report{Reference: ref.Header, Server: quality.ServerInfo{Model: s.Model, Tokenizer: ref.Tokenizer, Server: o.Server}}
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
	err := drift(ctx, s, ref, o, &rep, emit)
	var noLogprobs *NoLogprobsError
	if !errors.As(err, &noLogprobs) && err != nil {
		return rep, err
	}
	if err := needle(ctx, s, ref, o, &rep, emit); err != nil {
		return rep, err
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

// drift compares the contexts of ref that rep (the prior phase's) has
// not, into rep, emitting after each.
func drift(ctx context.Context, s Server, ref quality.Reference, o RunOptions, rep *quality.Report, emit func() error) error {
	rest, done := ref, rep.Contexts
	rest.Contexts = slices.DeleteFunc(slices.Clone(ref.Contexts), func(c int) bool {
		return slices.ContainsFunc(done, func(d quality.ContextDrift) bool { return d.ContextTokens == c && d.Positions > 0 })
	})
	if len(rest.Contexts) == 0 {
		return nil
	}
	_, err := Compare(ctx, s, rest, Options{Events: o.Events}, func(r quality.Report) error {
		rep.NoiseFloor, rep.Contexts = r.NoiseFloor, byContext(done, r.Contexts, func(d quality.ContextDrift) int { return d.ContextTokens })
		return emit()
	})
	return err
}

// needle runs the needle task at the contexts rep (the prior phase's)
// has not finished with o's seed and trial count, into rep; a prior
// context of another seed or count asked other questions, and is asked
// again.
func needle(ctx context.Context, s Server, ref quality.Reference, o RunOptions, rep *quality.Report, emit func() error) error {
	if o.NeedleTrials <= 0 {
		return nil
	}
	contexts := o.NeedleContexts
	if len(contexts) == 0 {
		contexts = ref.Contexts
	}
	trials := min(o.NeedleTrials, quality.MaxNeedleTrials)
	finished := slices.DeleteFunc(slices.Clone(rep.Needle), func(n quality.NeedleContext) bool {
		return n.Seed != o.Seed || len(n.Correct) != trials || !slices.Contains(contexts, n.ContextTokens)
	})
	rep.Needle = finished
	todo := slices.DeleteFunc(slices.Clone(contexts), func(c int) bool {
		return slices.ContainsFunc(finished, func(n quality.NeedleContext) bool { return n.ContextTokens == c })
	})
	if len(todo) == 0 {
		return nil
	}
	_, err := Needle(ctx, s, todo, o.NeedleTrials, o.Seed, o.Text, ref.Needle, o.Events, func(n []quality.NeedleContext) error {
		rep.Needle = byContext(finished, n, func(c quality.NeedleContext) int { return c.ContextTokens })
		return emit()
	})
	return err
}

// byContext is a's entries and b's (new ones), ascending by context.
func byContext[T any](a, b []T, context func(T) int) []T {
	out := append(slices.Clone(a), b...)
	slices.SortStableFunc(out, func(x, y T) int { return context(x) - context(y) })
	return out
}
