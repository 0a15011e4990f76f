package measure

import (
	"context"
	"crypto/rand"
	"encoding/hex"
	"fmt"
	"slices"

	"speedmatrix/engine/servers"
)

// prepare is the run's start, before any cell: it asks the server what it
// is and what it holds, fits the plan to it, checks a resumed run's server
// and sizes the prompts. Any request that fails ends it, detection's at
// the first that gets no answer at all (servers.Detect): a server that
// never answers costs one request timeout.
func (r *runner) prepare(ctx context.Context) error {
	if err := r.detect(ctx); err != nil {
		return err
	}
	s, note, err := resolve(ctx, r.client, r.plan, r.target, r.kind)
	if err != nil {
		return err
	}
	r.setup = s
	if note != "" {
		r.addNote(note)
		r.logf("%s", note)
	}
	server := r.fillServer()
	if err := r.checkResume(server); err != nil {
		return err
	}
	r.prompts = newPrompter(r.client, s.Model, r.plan.API, newRunID())
	r.prompts.maxModelLen = s.MaxModelLen
	maxCtx := slices.Max(slices.Concat([]int{1}, s.Prefill, s.Decode))
	if err := r.prompts.setup(ctx, maxCtx); err != nil {
		if ctx.Err() != nil {
			return fmt.Errorf("%w: %w", ErrInterrupted, ctx.Err())
		}
		return fmt.Errorf("prepare prompts: %w", err)
	}
	r.mu.Lock()
	r.report.Run.ChatTemplateTokens = r.prompts.chatTemplateTokens()
	r.cells = s.cells(r.plan)
	r.eta = newETAModel(r.plan, s)
	r.mu.Unlock()
	return nil
}

// detect finds which engine serves the endpoint, once the server (when
// launched here) is alive: a run's and a load test's first step.
func (r *runner) detect(ctx context.Context) error {
	if err := r.alive(); err != nil {
		return err
	}
	kind, version, err := servers.Detect(ctx, r.client)
	if err != nil {
		return fmt.Errorf("detect the server: %w", err)
	}
	r.kind, r.version = kind, version
	return nil
}

// newRunID is a random id for the run, which its prompts' prefixes carry.
func newRunID() string {
	var b [6]byte
	_, _ = rand.Read(b[:])
	return hex.EncodeToString(b[:])
}
