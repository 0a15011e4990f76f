package probe

import (
	"context"
	"errors"
	"fmt"
	"sync"
	"time"

	"speedmatrix/engine/openai"
	"speedmatrix/engine/quality"
)

// Defaults of a check, where its Options leave them zero.
const (
	DefaultProbes             = 8
	DefaultContinuationTokens = 128
	DefaultBackground         = 4
	DefaultNeedleTrials       = 20
)

// Options are what a check asks: the contexts, how many probes each, how
// long their continuations, K, the seed and the text.
type Options struct {
	Contexts           []int
	Probes             int // per context (DefaultProbes)
	ContinuationTokens int // DefaultContinuationTokens
	K                  int // at most quality.MaxK (quality.MaxK)
	Seed               uint64
	Text               string // natural text (quality.Text())
	// Background is how many requests run beside a probe while the noise
	// floor is recorded (DefaultBackground).
	Background int
	// Parallel is how many probes a comparison asks at once
	// (DefaultParallel); a recording asks one at a time.
	Parallel int
	// Events hears the check's progress; nil: nothing.
	Events func(Event)
}

func (o Options) withDefaults() Options {
	o.Probes = cmpOr(o.Probes, DefaultProbes)
	o.ContinuationTokens = cmpOr(o.ContinuationTokens, DefaultContinuationTokens)
	o.K = min(cmpOr(o.K, quality.MaxK), quality.MaxK)
	o.Background = cmpOr(o.Background, DefaultBackground)
	o.Parallel = cmpOr(o.Parallel, DefaultParallel)
	if hear := o.Events; hear != nil {
		var mu sync.Mutex // probes and trials run o.Parallel at once: one event at a time
		o.Events = func(e Event) {
			mu.Lock()
			defer mu.Unlock()
			hear(e)
		}
	}
	if o.Text == "" {
		o.Text = quality.CleanText(quality.Text())
	}
	return o
}

func cmpOr(v, d int) int {
	if v <= 0 {
		return d
	}
	return v
}

func (o Options) event(e Event) {
	if o.Events != nil {
		o.Events(e)
	}
}

// Record records a reference: at every context (fitted to the server),
// Probes probes, each the greedy continuation with its top-K, then the
// same positions teacher-forced while Background other requests run (the
// noise floor). head is the header's start (engine, settings); the
// model, fingerprint and the recording's own fields are filled in. save
// gets the reference after every context; what was recorded when ctx ends
// is returned with ctx's error.
func Record(ctx context.Context, s Server, head quality.Header, o Options, save func(quality.Reference) error) (quality.Reference, error) {
	o = o.withDefaults()
	fp, err := s.Fingerprint(ctx)
	if err != nil {
		return quality.Reference{}, err
	}
	head.FormatVersion, head.Model, head.Tokenizer = quality.FormatVersion, s.Model, fp
	head.K, head.ContinuationTokens, head.Seed = o.K, o.ContinuationTokens, o.Seed
	head.Contexts, head.RecordedAt = s.fitted(o.Contexts, o.ContinuationTokens), time.Now().UTC()
	if len(head.Contexts) == 0 {
		return quality.Reference{}, fmt.Errorf("no context fits the model's %d tokens with %d continuation tokens", s.MaxModelLen, o.ContinuationTokens)
	}
	ref := quality.Reference{Header: head}
	for _, c := range head.Contexts {
		for i := range o.Probes {
			o.event(Event{Phase: PhaseRecord, ContextTokens: c, Done: i, Of: o.Probes})
			p, err := recordProbe(ctx, s, &ref.K, o, c, i)
			if err != nil {
				return ref, fmt.Errorf("%d tokens, probe %d: %w", c, i+1, err)
			}
			ref.Probes = append(ref.Probes, p)
		}
		if err := save(ref); err != nil {
			return ref, err
		}
	}
	return ref, nil
}

// recordProbe records probe i at context c: alone, then under load. k is
// lowered to the server's cap when it refuses more.
func recordProbe(ctx context.Context, s Server, k *int, o Options, c, i int) (quality.Probe, error) {
	prompt, err := s.promptIDs(ctx, o.Text, c, o.Seed, i)
	if err != nil {
		return quality.Probe{}, err
	}
	p := quality.Probe{ContextTokens: c, Prompt: prompt}
	*k, err = capped(*k, func(e CapError) { o.event(Event{Phase: PhaseCap, Cap: e.Cap, Asked: e.Asked}) }, func(k int) error {
		p.Continuation, p.TopK, err = s.generate(ctx, prompt, o.ContinuationTokens, k)
		return err
	})
	if err != nil {
		return p, err
	}
	err = underLoad(ctx, s, prompt, o, func() error {
		p.Loaded, _, err = s.force(ctx, prompt, p.Continuation, *k)
		return err
	})
	return p, err
}

// underLoad runs f while n other requests stream beside it: it waits for
// each to have its first token (so they share the server's steps with f),
// and keeps each going, one request after another, until f returns.
func underLoad(ctx context.Context, s Server, prompt []int, o Options, f func() error) error {
	bctx, stop := context.WithCancel(ctx)
	var wg sync.WaitGroup
	started := make(chan struct{}, o.Background)
	errs := make(chan error, o.Background)
	for range o.Background {
		wg.Add(1)
		go func() {
			defer wg.Done()
			var once sync.Once
			for bctx.Err() == nil {
				req := openai.StreamRequest{API: "completions", Model: s.Model, PromptTokenIDs: prompt, MaxTokens: o.ContinuationTokens, IgnoreEOS: true}
				_, err := s.Client.Stream(bctx, req, func(openai.Chunk) { once.Do(func() { started <- struct{}{} }) })
				if err != nil && bctx.Err() == nil {
					once.Do(func() { started <- struct{}{} })
					errs <- err
					return
				}
			}
		}()
	}
	defer func() { stop(); wg.Wait() }()
	for range o.Background {
		select {
		case <-started:
		case <-ctx.Done():
			return ctx.Err()
		}
	}
	select {
	case err := <-errs:
		return fmt.Errorf("a request beside the probe failed: %w", err)
	default:
	}
	err := f()
	select {
	case berr := <-errs:
		return errors.Join(err, fmt.Errorf("a request beside the probe failed: %w", berr))
	default:
	}
	return err
}

// RecordReference records a whole reference, what `quality
// --save-reference`, a sweep's baseline and the app all record: the probes
// (Record), then the needle task at the reference's contexts and the task
// file of r (its NeedleTrials, Seed, Text, Tasks, TaskFile and TaskTokens;
// the rest is for comparing). save gets the reference after every context
// and step; what was recorded when ctx ends is returned with ctx's error.
// A server without logprobs gives a *NoLogprobsError before anything is
// saved: a reference without probes compares nothing.
func RecordReference(ctx context.Context, s Server, head quality.Header, o Options, r RunOptions, save func(quality.Reference) error) (quality.Reference, error) {
	ref, err := Record(ctx, s, head, o, save)
	if err != nil {
		return ref, err
	}
	if r.NeedleTrials > 0 {
		ref.Needle, err = Needle(ctx, s, ref.Contexts, r.NeedleTrials, r.Seed, r.Text, nil, o.Events, func(n []quality.NeedleContext) error {
			withNeedle := ref
			withNeedle.Needle = n
			return save(withNeedle)
		})
		if err != nil {
			return ref, err
		}
	}
	if len(r.Tasks) > 0 {
		t, err := Tasks(ctx, s, r.Tasks, r.TaskFile, r.TaskTokens, nil, nil, o.Events, func(t quality.TaskRun) error {
			withTasks := ref
			withTasks.Tasks = &t
			return save(withTasks)
		})
		ref.Tasks = &t
		if err != nil {
			return ref, err
		}
	}
	return ref, nil
}
