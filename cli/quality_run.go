package cli

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"path/filepath"

	"speedmatrix/engine"
	"speedmatrix/engine/launch"
	"speedmatrix/engine/quality"
	"speedmatrix/engine/quality/probe"
	"speedmatrix/engine/report"
)

// The files a comparison writes into --out.
const (
	qualityJSONFile = "quality.json"
	qualityCSVFile  = "quality.csv"
)

// qualityRun is one `speedmatrix quality` against a connected server.
type qualityRun struct {
	f      qualityFlags
	s      probe.Server
	text   string
	tasks  []quality.Task
	budget quality.Budget
	eng    engine.ServerInfo
	prior  *quality.Report // --resume's interrupted comparison
	stdout io.Writer
}

// simulated is " (simulated)" for the simulator, "" otherwise.
func (q qualityRun) simulated() string {
	if q.eng.Simulated {
		return " (simulated)"
	}
	return ""
}

// event prints a check's progress: a line per probe, and the event's
// own line (probe.Event.Line) for the rest.
func (q qualityRun) event(e probe.Event) {
	switch {
	case e.Phase == probe.PhaseRecord || e.Phase == probe.PhaseCompare:
		fmt.Fprintf(q.stdout, "%s %s: probe %d of %d\n", e.Phase, engine.ContextLabel(e.ContextTokens), e.Done+1, e.Of)
	case e.Line() != "":
		fmt.Fprintln(q.stdout, e.Line())
	}
}

// writeJSON writes v to path atomically, indented when indent (a
// reference is not: its token ids would take a line each).
func writeJSON(path string, v any, indent bool) error {
	b, err := json.Marshal(v)
	if indent {
		b, err = json.MarshalIndent(v, "", " ")
	}
	if err != nil {
		return err
	}
	return report.WriteFileAtomic(path, append(b, '\n'))
}

// stopped is a check's error with its exit code: 1 when nothing was
// saved yet (began false), 3 when it had begun (what it measured is
// saved), 4 when a file could not be written.
func stopped(err, saveErr error, began bool) error {
	switch {
	case saveErr != nil:
		return exitWith(exitExport, fmt.Errorf("quality: %w", saveErr))
	case !began:
		return exitWith(exitCantStart, fmt.Errorf("quality: %w", withAdvice(err)))
	}
	return exitWith(exitIncomplete, fmt.Errorf("quality: %w", withAdvice(err)))
}

// record records a reference into --save-reference, saved after every
// context, then the needle task into it.
func (q qualityRun) record(ctx context.Context) error {
	fmt.Fprintf(q.stdout, "recording a quality reference of %s%s → %s\n", q.s.Model, q.simulated(), q.f.saveReference)
	contexts, _ := engine.ParseContexts(q.f.contexts) // checked with the flags
	var saveErr error
	saves := 0
	save := func(r quality.Reference) error {
		saves++
		if saveErr = writeJSON(q.f.saveReference, r, false); saveErr != nil {
			saveErr = fmt.Errorf("write %s: %w", q.f.saveReference, saveErr)
		}
		return saveErr
	}
	o := probe.Options{Contexts: contexts, Probes: q.f.probes, ContinuationTokens: q.f.continuation, Seed: q.f.seed, Text: q.text, Events: q.event}
	r := probe.RunOptions{NeedleTrials: q.f.needle, Seed: q.f.seed, Text: q.text, Tasks: q.tasks, TaskFile: filepath.Base(q.f.tasks), TaskTokens: q.f.taskTokens}
	ref, err := probe.RecordReference(ctx, q.s, quality.Header{Server: q.eng, Settings: q.settings()}, o, r, save)
	var nl *probe.NoLogprobsError
	if errors.As(err, &nl) {
		fmt.Fprintf(q.stdout, "%v: no drift can be measured against it; the needle task and --tasks still run, but no reference is saved\n", err)
		q.withoutDrift(ctx, contexts)
		return exitWith(exitCantStart, fmt.Errorf("quality: %w: record the reference on a server that gives logprobs (vLLM: --max-logprobs 20)", err))
	}
	if err != nil {
		return stopped(q.tasksErr(err), saveErr, saves > 0)
	}
	fmt.Fprintf(q.stdout, "reference saved: %d probes at %s, top %d logprobs, %d tokens each%s\n", len(ref.Probes), engine.ContextLabels(ref.Contexts), ref.K, ref.ContinuationTokens, q.simulated())
	printNeedle(q.stdout, ref.Needle)
	printTasks(q.stdout, ref.Tasks)
	return nil
}

// settings are what the reference records of the server's settings that
// change its answers: server.toml's (--launch), else the quantization the
// server reports.
func (q qualityRun) settings() map[string]string {
	m := map[string]string{}
	if q.f.launch != "" {
		if cfg, err := launch.LoadConfig(q.f.launch); err == nil { // it launched: it loads
			m = cfg.OutputSettings()
		}
	}
	if _, ok := m["quantization"]; !ok && q.eng.Quantization != "" {
		m["quantization"] = q.eng.Quantization
	}
	return m
}

// tasksErr is a task run's error in the flags' words.
func (q qualityRun) tasksErr(err error) error {
	var tl *probe.TooLongError
	if errors.As(err, &tl) {
		return fmt.Errorf("--tasks %s: %w: shorten it, lower --task-tokens or serve a longer --max-model-len", q.f.tasks, err)
	}
	return err
}

// withoutDrift runs and prints the needle task and the task file where
// no drift can be had.
func (q qualityRun) withoutDrift(ctx context.Context, contexts []int) {
	if q.f.needle > 0 {
		n, err := probe.Needle(ctx, q.s, contexts, q.f.needle, q.f.seed, q.text, nil, q.event, func([]quality.NeedleContext) error { return nil })
		printNeedle(q.stdout, n)
		if err != nil {
			fmt.Fprintf(q.stdout, "needle: %v\n", err)
		}
	}
	if len(q.tasks) > 0 {
		t, err := probe.Tasks(ctx, q.s, q.tasks, filepath.Base(q.f.tasks), q.f.taskTokens, nil, nil, q.event, func(quality.TaskRun) error { return nil })
		printTasks(q.stdout, &t)
		if err != nil {
			fmt.Fprintf(q.stdout, "tasks: %v\n", q.tasksErr(err))
		}
	}
}

// compare measures the server against ref into --out, saved after every
// context: the drift, then the needle task and the tasks paired with the
// reference's (probe.Run).
func (q qualityRun) compare(ctx context.Context, ref quality.Reference) error {
	fmt.Fprintf(q.stdout, "comparing %s%s with the reference of %s (%s) → %s\n", q.s.Model, q.simulated(), ref.Model, ref.RecordedAt.Format("2006-01-02 15:04"), q.f.out)
	var saveErr error
	saves := 0
	o := probe.RunOptions{Seed: q.f.seed, Text: q.text, Tasks: q.tasks, TaskFile: filepath.Base(q.f.tasks), TaskTokens: q.f.taskTokens,
		Budget: q.budget, Server: q.eng, Prior: q.prior, Events: q.event}
	if q.f.needle > 0 {
		o.NeedleTrials, o.NeedleContexts = q.f.needle, q.needleContexts(ref)
	}
	rep, err := probe.Run(ctx, q.s, ref, o, func(r quality.Report) error {
		saves++
		saveErr = writeQuality(q.f.out, r)
		return saveErr
	})
	var nl *probe.NoLogprobsError
	var te *quality.TokenizerError
	switch {
	case errors.Is(err, probe.ErrPriorReference):
		return exitWith(exitCantStart, fmt.Errorf("quality: --resume: %s was compared with another reference than --reference %s: give that reference, or choose another --out", filepath.Join(q.f.out, qualityJSONFile), q.f.reference))
	case errors.As(err, &te):
		return exitWith(exitCantStart, fmt.Errorf("quality: --reference %s: %w: compare it with a server of the same model family, or record a new reference", q.f.reference, err))
	case errors.As(err, &nl):
		fmt.Fprintf(q.stdout, "%v: no drift could be measured against it; the needle task and --tasks ran\n", err)
	case err != nil:
		return stopped(q.tasksErr(err), saveErr, saves > 0 || q.prior != nil)
	}
	printDrift(q.stdout, rep, q.simulated())
	printNeedle(q.stdout, rep.Needle)
	printTasks(q.stdout, rep.Tasks)
	if nl != nil {
		return exitWith(exitIncomplete, fmt.Errorf("quality: %w: the drift was not measured; the needle task and tasks are in %s", nl, filepath.Join(q.f.out, qualityJSONFile)))
	}
	return nil
}

// needleContexts is where a comparison runs the needle task: --contexts
// when given (checked with the flags), else the reference's.
func (q qualityRun) needleContexts(ref quality.Reference) []int {
	if !q.f.set["contexts"] {
		return ref.Contexts
	}
	contexts, _ := engine.ParseContexts(q.f.contexts)
	return contexts
}
