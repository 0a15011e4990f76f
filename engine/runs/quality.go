package runs

import (
	"cmp"
	"context"
	"crypto/sha256"
	"encoding/hex"
	"errors"
	"fmt"
	"io"
	"io/fs"
	"path/filepath"
	"slices"
	"time"

	"speedmatrix/engine"
	"speedmatrix/engine/measure"
	"speedmatrix/engine/openai"
	"speedmatrix/engine/quality"
	"speedmatrix/engine/quality/probe"
)

// Quality is a run's quality phase: the server compared with a reference
// after the matrix's cells, the one phase (probe.Run) the CLI's run, the
// app and a sweep all add to a run the same way. It runs after the cells,
// never before or between them, so that its requests neither warm the
// prefix cache nor load the server a measured cell sees.
type Quality struct {
	// Reference is the reference compared with; File is its file as the
	// user named it and SHA256 the digest of its bytes (ReadReference).
	Reference quality.Reference
	File      string
	SHA256    string
	// NeedleTrials per context (0: no needle task), at the reference's
	// contexts, seeded as the reference's needle runs were so that they
	// pair with them.
	NeedleTrials int
	// Tasks are a task file's items (none: no task run), TaskFile its
	// name and TaskTokens the longest answer (probe.DefaultTaskTokens
	// when 0).
	Tasks      []quality.Task
	TaskFile   string
	TaskTokens int
	Budget     quality.Budget
	// Text builds the needle haystacks ("": the built-in text).
	Text string
}

// QualityUnfinished is Run.Incomplete while a run's quality phase has not
// ended: its cells may all be done, but the run is not complete.
const QualityUnfinished = "the quality phase is unfinished"

// ReadReference reads a reference file from r within quality's bounds
// (quality.ReadReference), with the SHA-256 of the bytes read, which a
// resumed phase checks the file given again against. A file (r has Stat)
// over the bounds is refused before a byte is read.
func ReadReference(r io.Reader) (quality.Reference, string, error) {
	if f, ok := r.(interface{ Stat() (fs.FileInfo, error) }); ok {
		if st, err := f.Stat(); err == nil && st.Mode().IsRegular() {
			if err := quality.CheckReferenceSize(st.Size()); err != nil {
				return quality.Reference{}, "", err
			}
		}
	}
	h := sha256.New()
	ref, err := quality.ReadReference(io.TeeReader(r, h))
	return ref, hex.EncodeToString(h.Sum(nil)), err
}

// ReferenceChangedError is a resumed run given another reference file
// than the one its quality phase began with.
type ReferenceChangedError struct {
	Was, Now string // the files' names as report.json and the user give them
}

func (e *ReferenceChangedError) Error() string {
	return fmt.Sprintf("%s is not the reference the run's quality phase began with (%s): its bytes differ", e.Now, e.Was)
}

// Connect connects to the server the run measures and checks that its
// tokenizer is the reference's: a server of another tokenizer is a
// *quality.TokenizerError, found before any cell is measured.
func (q Quality) Connect(ctx context.Context, c *openai.Client, model string) (probe.Server, error) {
	s, err := probe.Connect(ctx, c, model)
	if err != nil {
		return s, err
	}
	fp, err := s.Fingerprint(ctx)
	if err != nil {
		return s, err
	}
	return s, quality.CheckTokenizer(q.Reference.Header, s.Model, fp)
}

// Prior is the quality phase a resumed run had begun (nil: none, or a
// new phase for a run that had none), or a *ReferenceChangedError when
// it began against another file.
func (q Quality) Prior(prev *engine.Report) (*quality.Report, error) {
	if prev == nil || prev.Quality == nil {
		return nil, nil
	}
	if p := prev.Quality; p.ReferenceSHA256 != "" && p.ReferenceSHA256 != q.SHA256 {
		return nil, &ReferenceChangedError{Was: p.ReferenceFile, Now: q.File}
	}
	return prev.Quality, nil
}

// Pending reports whether rep's run has a quality phase that has not
// ended (its cells may be unfinished too): a resume must be given the
// reference again.
func Pending(rep engine.Report) bool {
	return rep.Quality != nil && !rep.Run.Complete
}

// Unfinished marks rep, a run with a quality phase still to run,
// incomplete (QualityUnfinished), whatever its cells: a front end marks
// each cell's report so, for the matrix's last cell completes no run
// whose phase is to follow.
func Unfinished(rep *engine.Report) {
	rep.Run.Complete, rep.Run.Incomplete = false, cmp.Or(rep.Run.Incomplete, QualityUnfinished)
}

// Section is the quality section a run begins with, before its cells
// (Subject.Header.Quality): it names the reference, so that a run
// interrupted in its cells is Pending too.
func (q Quality) Section() *engine.QualityReport {
	return &engine.QualityReport{Reference: q.Reference.Header, ReferenceFile: filepath.Base(q.File), ReferenceSHA256: q.SHA256}
}

// Run runs the phase against s on rep, a complete matrix's last report,
// going on from prior (Prior). The run is incomplete (QualityUnfinished)
// until the phase ends, though its cells are all done; keep gets the report, its Quality
// section filled, when the phase begins and after every context, needle
// context and few task items (Saver.Keep). It returns the last report and
// probe.Run's error: on ctx's end, what was compared is in it.
func (q Quality) Run(ctx context.Context, s probe.Server, rep engine.Report, prior *quality.Report, events func(probe.Event), keep func(engine.Report) error) (engine.Report, error) {
	Unfinished(&rep)
	eng := rep.Server
	eng.MaxModelLen = max(eng.MaxModelLen, s.MaxModelLen)
	o := probe.RunOptions{Seed: q.needleSeed(), Text: q.text(), Tasks: q.Tasks, TaskFile: q.TaskFile, TaskTokens: q.TaskTokens,
		Budget: q.Budget, Server: eng, Prior: prior, Events: events, NeedleTrials: q.NeedleTrials}
	set := func(r quality.Report) {
		r.ReferenceFile, r.ReferenceSHA256 = filepath.Base(q.File), q.SHA256
		rep.Quality = &r
	}
	if prior != nil {
		set(*prior)
	} else {
		set(quality.Report{Reference: q.Reference.Header, Server: quality.ServerInfo{Model: s.Model, Tokenizer: q.Reference.Tokenizer, Server: eng}})
	}
	if err := keep(rep); err != nil {
		return rep, err
	}
	r, err := probe.Run(ctx, s, q.Reference, o, func(r quality.Report) error {
		set(r)
		return keep(rep)
	})
	set(r)
	if err == nil || isNoLogprobs(err) {
		rep.Run.Complete, rep.Run.Incomplete, rep.Run.FinishedAt = true, "", time.Now()
	}
	return rep, err
}

// needleSeed is the seed the reference's needle runs used, so that the
// phase's trials pair with them; the reference's own seed without any.
func (q Quality) needleSeed() uint64 {
	if len(q.Reference.Needle) > 0 {
		return q.Reference.Needle[0].Seed
	}
	return q.Reference.Seed
}

func (q Quality) text() string {
	if q.Text != "" {
		return q.Text
	}
	return quality.CleanText(quality.Text())
}

// isNoLogprobs is a server that gave no logprobs: the phase ended, its
// drift missing, its needle task and tasks run.
func isNoLogprobs(err error) bool {
	var nl *probe.NoLogprobsError
	return errors.As(err, &nl)
}

// Rates are the speeds the phase's estimate assumes: prompt tokens per
// second of one cold request, and one stream's output tokens per second.
type Rates struct {
	PrefillTokPerS, DecodeTokPerS float64
}

// PriorDecodeTokPerS is one stream's output rate before a run has
// measured one: a mid-sized model on one GPU.
const PriorDecodeTokPerS = 40

// RatesOf is what rep measured: its fastest valid prefill cell's prompt
// tok/s and its valid single-stream decode cells' slowest per-request
// tok/s (the phase's probes run alone, at every context); the priors
// (measure.PriorPrefillTokPerS, PriorDecodeTokPerS) where it measured
// none.
func RatesOf(rep engine.Report) Rates {
	var r Rates
	for _, c := range rep.Results {
		if c.Status != engine.StatusValid {
			continue
		}
		switch {
		case c.Phase == engine.PhasePrefill:
			r.PrefillTokPerS = max(r.PrefillTokPerS, c.TotalTokPerSec)
		case c.Phase == engine.PhaseDecode && c.Concurrency == 1 && c.PerRequestTokPerSec > 0:
			if r.DecodeTokPerS == 0 || c.PerRequestTokPerSec < r.DecodeTokPerS {
				r.DecodeTokPerS = c.PerRequestTokPerSec
			}
		}
	}
	if r.PrefillTokPerS <= 0 {
		r.PrefillTokPerS = measure.PriorPrefillTokPerS
	}
	if r.DecodeTokPerS <= 0 {
		r.DecodeTokPerS = PriorDecodeTokPerS
	}
	return r
}

// requestOverheadS is a request's fixed cost beside its tokens.
const requestOverheadS = 0.05

// taskAnswerShare is the share of TaskTokens a task's answer is assumed
// to take: worked answers stop well before the cap.
const taskAnswerShare = 4

// Estimate is how long the phase takes at rates, leaving out what prior
// (which may be nil) already compared: per drift context, each probe's
// prompt and its continuation (teacher forcing sends one request per
// probe, and one more, mostly prefix-cached, per divergence, which the
// estimate leaves out); per needle context, each trial's haystack and
// its short answer; each task item's answer at a quarter of TaskTokens.
func (q Quality) Estimate(prior *quality.Report, r Rates) time.Duration {
	if r.PrefillTokPerS <= 0 || r.DecodeTokPerS <= 0 {
		r = RatesOf(engine.Report{})
	}
	// A request's prefill is the server's whole compute, so prefills add
	// up; decode streams batch, so those asked probe.DefaultParallel at a
	// time (every probe of a context but its first, every needle trial)
	// take about a DefaultParallel-th of their time each.
	var s float64
	request := func(prompt, output int, together bool) {
		decode := requestOverheadS + float64(output)/r.DecodeTokPerS
		if together {
			decode /= probe.DefaultParallel
		}
		s += float64(prompt)/r.PrefillTokPerS + decode
	}
	ref := q.Reference
	first := map[int]bool{}
	for _, p := range ref.Probes {
		if prior == nil || !slices.ContainsFunc(prior.Contexts, func(c quality.ContextDrift) bool { return c.ContextTokens == p.ContextTokens && c.Positions > 0 }) {
			request(len(p.Prompt), len(p.Continuation), first[p.ContextTokens])
			first[p.ContextTokens] = true
		}
	}
	if q.NeedleTrials > 0 {
		for _, c := range ref.Contexts {
			if prior == nil || !slices.ContainsFunc(prior.Needle, func(n quality.NeedleContext) bool { return n.ContextTokens == c }) {
				for range q.NeedleTrials {
					request(c, needleAnswerTokens, true)
				}
			}
		}
	}
	asked := 0
	if prior != nil && prior.Tasks != nil {
		asked = len(prior.Tasks.Correct)
	}
	tokens := cmp.Or(q.TaskTokens, probe.DefaultTaskTokens) / taskAnswerShare
	for _, t := range q.Tasks[min(asked, len(q.Tasks)):] {
		request(len(t.Prompt)/4, tokens, false)
	}
	return engine.DurationOf(s)
}

// needleAnswerTokens is about what a needle answer takes: six digits and a
// little wrapping.
const needleAnswerTokens = 8
