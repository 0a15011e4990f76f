package measure

import (
	"context"
	"fmt"
	"math/rand/v2"
	"sync"
	"sync/atomic"
	"time"

	"speedmatrix/engine"
	"speedmatrix/engine/openai"
)

// conversationTally counts, over a replay, what was done to fit the
// conversations into the model's context; its goroutines add to it.
type conversationTally struct {
	shortened, dropped, skipped atomic.Int64
	// said counts the conversations whose shortening was logged: the
	// first few are, the rest only counted.
	said atomic.Int64
}

// saidShortenedMost is how many shortened conversations a replay names in
// its log; the summary counts them all.
const saidShortenedMost = 3

// prepareConversations reads the plan's conversations, records what will
// be replayed and says it, and checks that the conversations open at once
// fit in the client's memory with the longest history they may hold (as
// sizeOpen checks a cap).
func (l *loadRunner) prepareConversations(maxModelLen int) error {
	r := l.runner
	c := l.load.Conversations
	set, err := readConversations(l.load.Dataset, c.Answers)
	if err != nil {
		return &engine.PlanError{Problems: []engine.PlanProblem{{Field: engine.FieldDataset, Problem: err.Error()}}}
	}
	// A history holds at most what fits the context (or maxHistoryBytes),
	// and never more than the conversation's text and its answers. The
	// replay holds no more requests open than its conversations, which must
	// fit: the client sets no cap of its own (maxOpen 0).
	most := engine.DatasetPromptTokens(maxHistoryBytes)
	if maxModelLen > 0 {
		most = maxModelLen
	}
	longest := 0
	for _, cv := range set.convs {
		longest = max(longest, min(most, engine.DatasetPromptTokens(cv.bytes)+len(cv.turns)*l.load.OutputTokens.Max))
	}
	if s := engine.OpenProblem(c.Open, longest); s != "" {
		return &engine.PlanError{Problems: []engine.PlanProblem{{Field: engine.FieldConversations, Problem: s}}}
	}
	// The plan's requests are the turns, now known.
	plan := l.load
	plan.Requests = set.turns
	if err := engine.ValidateLoadPlan(plan, engine.Limits{MaxModelLen: maxModelLen}); err != nil {
		return err
	}
	l.convs = set
	sum := &engine.ConversationSummary{Name: set.name, Conversations: len(set.convs), Turns: set.turns, Open: c.Open,
		Answers: c.Answers, ThinkTime: c.ThinkTimeText()}
	r.mu.Lock()
	l.section.Conversations, l.section.Plan.Requests, l.load.Requests = sum, set.turns, set.turns
	r.mu.Unlock()
	r.logf("replaying %s", sum.Line())
	return nil
}

// replay sends the conversations' turns, Open conversations at a time, each
// taken by a worker when its last one ends, until every conversation of
// the file is replayed. recs hold one record per turn, a conversation's
// turns together, in the file's order; a turn not sent (skipped, after a
// failed turn, or when the replay stopped) is not dispatched. It returns
// when every conversation has ended, or at once when ctx ends or the
// server stops.
func (l *loadRunner) replay(ctx context.Context, pg *rateProgress) ([]*loadRecord, outcome) {
	set := l.convs
	recs := make([]*loadRecord, 0, set.turns)
	first := make([]int, len(set.convs))
	for i, c := range set.convs {
		first[i] = len(recs)
		for k := range c.turns {
			recs = append(recs, &loadRecord{requestRecord: requestRecord{FinalTokens: -1, Worker: i}, Turn: k + 1})
		}
	}
	sctx, stop := context.WithCancel(ctx)
	defer stop()
	var next atomic.Int64
	var wg sync.WaitGroup
	for range min(l.load.Conversations.Open, len(set.convs)) {
		wg.Go(func() {
			for sctx.Err() == nil {
				i := int(next.Add(1)) - 1
				if i >= len(set.convs) {
					return
				}
				l.converse(sctx, i, recs[first[i]:first[i]+len(set.convs[i].turns)], pg)
			}
		})
	}
	out := l.waitAll(ctx, &wg)
	stop()
	wg.Wait()
	if ctx.Err() != nil {
		out = outcomeCancelled
	}
	l.sayConversations()
	return recs, out
}

// converse replays conversation ci turn by turn into recs, one per turn.
// Its first turn is due when it is taken; each next one when the reply
// before it ended, plus the think time. Every turn draws its output length
// and the think time after it from the seed and its place alone, so the
// same seed replays the same conversations whatever the order their
// workers take them in. A turn that fails ends its conversation: the
// turns after it follow from an answer it never got.
func (l *loadRunner) converse(ctx context.Context, ci int, recs []*loadRecord, pg *rateProgress) {
	c := l.convs.convs[ci]
	plan := l.load.Conversations
	rng := rand.New(rand.NewPCG(uint64(l.load.Seed), mix(0x3c6ef372fe94f82b, uint64(ci), 0)))
	h := newHistory(c.system)
	timer := time.NewTimer(time.Hour)
	defer timer.Stop()
	due := time.Now()
	shortened := false
	for k, t := range c.turns {
		user := t.user
		if k == 0 {
			user = l.conversationStart(ci) + user
		}
		out := draw(rng, l.load.OutputTokens)
		think := plan.ThinkTime
		if plan.ThinkExp {
			think = seconds(rng.ExpFloat64() * think.Seconds())
		}
		msgs, dropped, ok := l.fit(ctx, h, user, out)
		if ctx.Err() != nil {
			return
		}
		l.tallyFit(c, k, dropped, ok, &shortened)
		if !ok {
			continue
		}
		if !wait(ctx, timer, due) {
			return
		}
		rec := recs[k]
		rec.Scheduled, rec.Dispatched, rec.Output = due, true, out
		rec.acquired = time.Now()
		rec.Behind = max(0, rec.acquired.Sub(due))
		pg.sent.Add(1)
		raise(&pg.maxInFlight, pg.inFlight.Add(1))
		var answer answerText
		req := openai.StreamRequest{API: string(engine.APIChat), Model: l.runner.setup.Model, Messages: msgs,
			MaxTokens: out, IgnoreEOS: true, ContinuousUsage: true}
		l.sendRequest(ctx, int(l.runner.requests.Add(1)), rec, req, pg, &answer)
		pg.inFlight.Add(-1)
		pg.done.Add(1)
		if !rec.completed() {
			return
		}
		reply, replyTokens := answer.text(), rec.outputTokens()
		if plan.Answers == engine.AnswersDataset {
			reply, replyTokens = t.answer, 0
		}
		h.add(user, reply, rec.PromptTokens, replyTokens)
		due = rec.End.Add(think)
	}
}

// conversationStart begins conversation ci's first user message, and so
// every turn's history after it: the run's id and the conversation's
// place, so that a prefix cache warmed by an earlier run (or another
// conversation of the file that starts alike) finds none of it, as no
// load test's prompt starts like another's.
func (l *loadRunner) conversationStart(ci int) string {
	return fmt.Sprintf("(Benchmark run %s, conversation %d.)\n\n", l.runner.prompts.runID, ci+1)
}

// wait waits until due; false when ctx ended first.
func wait(ctx context.Context, timer *time.Timer, due time.Time) bool {
	d := time.Until(due)
	if d <= 0 {
		return ctx.Err() == nil
	}
	timer.Reset(d)
	select {
	case <-timer.C:
		return true
	case <-ctx.Done():
		return false
	}
}

// tallyFit counts what fitting turn k of c into the context did: its
// dropped turn pairs, and whether it was skipped; it says so the first
// time a conversation is shortened (for the first few), and for every
// skipped turn.
func (l *loadRunner) tallyFit(c conversation, k, dropped int, ok bool, shortened *bool) {
	tl, name := &l.convTally, l.convs.name
	if dropped > 0 {
		tl.dropped.Add(int64(dropped))
		if !*shortened {
			*shortened = true
			tl.shortened.Add(1)
			if tl.said.Add(1) <= saidShortenedMost {
				l.runner.logf("%s line %d: the conversation outgrew the model's context at turn %d: its oldest turns are dropped from the history from then on, to fit",
					name, c.line, k+1)
			}
		}
	}
	if !ok {
		tl.skipped.Add(1)
		l.runner.logf("warning: %s line %d: turn %d is skipped: its message does not fit the model's context even without the history before it", name, c.line, k+1)
	}
}

// sayConversations records what was done to fit the conversations into the
// context, and says it when anything was.
func (l *loadRunner) sayConversations() {
	r, tl := l.runner, &l.convTally
	r.mu.Lock()
	if l.section.Conversations == nil {
		r.mu.Unlock()
		return
	}
	// A new summary, not the old one changed: snapshots sent before share it.
	sum := *l.section.Conversations
	sum.Shortened, sum.DroppedTurns, sum.SkippedTurns = int(tl.shortened.Load()), int(tl.dropped.Load()), int(tl.skipped.Load())
	l.section.Conversations = &sum
	r.mu.Unlock()
	if sum.Shortened > 0 || sum.SkippedTurns > 0 {
		r.logf("conversations: %d shortened to fit the model's context (%s dropped), %s skipped",
			sum.Shortened, engine.Count(sum.DroppedTurns, "turn pair", "turn pairs"), engine.Count(sum.SkippedTurns, "turn", "turns"))
	}
}
