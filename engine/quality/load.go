package quality

import (
	"encoding/json"
	"fmt"
	"io"
	"math"
	"slices"

	"speedmatrix/engine"
)

// The bounds a reference file is held to where it is read. A reference at
// the sizes (8 probes at each of 512 to 128K tokens, 256
// continuation tokens at top-20, alone and under load) is about 25 MB.
const (
	// MaxReferenceBytes is the largest reference file ReadReference reads:
	// about 18 million prompt token ids, 1M-token probes among them.
	// Decoded, a file costs at most about 5 times its size in memory
	// (8 bytes per token id, which a hostile file writes in 2).
	MaxReferenceBytes = 128 << 20
	// MaxProbes is the most probes a reference holds.
	MaxProbes = 4096
	// MaxContinuationTokens is the most continuation tokens a probe
	// holds (the references use 128 to 256).
	MaxContinuationTokens = 4096
	// MaxSettings is the most settings a header names.
	MaxSettings = 256
	// LogprobSlack is how far above 0 a logprob may be, by float
	// rounding of a probability of 1.
	LogprobSlack = 1e-4
)

// ReferenceError says why a file is not a reference this build can read:
// it is too large, not JSON, or claims what no recording writes.
type ReferenceError struct {
	Problem string // "probe 3: its continuation has 300 tokens, more than the 256 its header asked for"
}

// Error is "not a quality reference: PROBLEM".
func (e *ReferenceError) Error() string { return "not a quality reference: " + e.Problem }

// VersionError says a reference was written in another format version.
type VersionError struct {
	Version int // the file's
	Want    int // FormatVersion
}

// Error names both versions.
func (e *VersionError) Error() string {
	return fmt.Sprintf("quality reference format version %d; this build reads version %d", e.Version, e.Want)
}

// TokenizerError says a reference was recorded with another tokenizer than
// the server's: its token ids mean other words there, so nothing compares.
type TokenizerError struct {
	ReferenceModel, ReferenceTokenizer string
	Model, Tokenizer                   string // the server's
}

// Error names both models and both fingerprints.
func (e *TokenizerError) Error() string {
	return fmt.Sprintf("the reference was recorded with %s (tokenizer %s), the server runs %s (tokenizer %s): their tokenizers differ",
		e.ReferenceModel, e.ReferenceTokenizer, e.Model, e.Tokenizer)
}

// CheckTokenizer says whether a server that runs model, with tokenizer
// fingerprint (Fingerprint), can be compared with the reference: a
// *TokenizerError when the fingerprints differ. Another model with the
// same tokenizer (a quantization of it) is what a reference is for.
func CheckTokenizer(h Header, model, fingerprint string) error {
	if fingerprint != h.Tokenizer {
		return &TokenizerError{ReferenceModel: h.Model, ReferenceTokenizer: h.Tokenizer, Model: model, Tokenizer: fingerprint}
	}
	return nil
}

// ReadReference reads a reference file from r: at most MaxReferenceBytes,
// FormatVersion only (a *VersionError otherwise), every string bounded
// (engine.BoundStrings, names to engine.BoundName) and every count within
// the bounds above (a *ReferenceError otherwise). Errors reading r are
// returned wrapped.
func ReadReference(r io.Reader) (Reference, error) { return readReference(r, MaxReferenceBytes) }

// CheckReferenceSize refuses, before it is read, a reference file of size
// bytes that ReadReference would refuse for its size: a caller that knows
// the size (a file's Stat) reads no byte of a 10 GB file.
func CheckReferenceSize(size int64) error { return sizeProblem(size, MaxReferenceBytes) }

// sizeProblem is the *ReferenceError of a file over limit bytes; nil
// within it.
func sizeProblem(size, limit int64) error {
	if size > limit {
		return &ReferenceError{fmt.Sprintf("it is larger than %d MiB, more than a recording writes", limit>>20)}
	}
	return nil
}

// readReference is ReadReference with a limit in bytes.
func readReference(r io.Reader, limit int64) (Reference, error) {
	data, err := io.ReadAll(io.LimitReader(r, limit+1))
	if err != nil {
		return Reference{}, fmt.Errorf("read quality reference: %w", err)
	}
	if err := sizeProblem(int64(len(data)), limit); err != nil {
		return Reference{}, err
	}
	var v struct {
		FormatVersion *int `json:"format_version"`
	}
	if err := json.Unmarshal(data, &v); err != nil {
		return Reference{}, &ReferenceError{"it is not JSON: " + err.Error()}
	}
	if v.FormatVersion == nil {
		return Reference{}, &ReferenceError{"it has no format_version"}
	}
	if *v.FormatVersion != FormatVersion {
		return Reference{}, &VersionError{Version: *v.FormatVersion, Want: FormatVersion}
	}
	var ref Reference
	if err := json.Unmarshal(data, &ref); err != nil {
		return Reference{}, &ReferenceError{engine.BoundText(err.Error(), engine.MaxTextRunes)}
	}
	engine.BoundStrings(&ref)
	for _, s := range []*string{&ref.Model, &ref.Tokenizer, &ref.Server.Name, &ref.Server.Version,
		&ref.Server.Quantization, &ref.Server.Backend, &ref.Server.SimProfile} {
		*s = engine.BoundName(*s)
	}
	if problem := ref.problem(); problem != "" {
		return Reference{}, &ReferenceError{problem}
	}
	return ref, nil
}

// problem is why ref is not one a recording writes; "" when it is.
func (ref Reference) problem() string {
	if p := headerProblem(ref.Header); p != "" {
		return p
	}
	if len(ref.Probes) == 0 || len(ref.Probes) > MaxProbes {
		return fmt.Sprintf("it has %d probes; a reference has 1 to %d", len(ref.Probes), MaxProbes)
	}
	for i, p := range ref.Probes {
		if problem := p.problem(ref.Header); problem != "" {
			return fmt.Sprintf("probe %d: %s", i+1, problem)
		}
	}
	if p := needleProblem(ref.Needle); p != "" {
		return p
	}
	return taskProblem(ref.Tasks)
}

// problem is what is wrong with the header alone; "" when nothing.
func headerProblem(h Header) string {
	switch {
	case h.Model == "":
		return "it names no model"
	case !validFingerprint(h.Tokenizer):
		return "its tokenizer fingerprint is not sha256: and 64 hex digits"
	case h.K < 1 || h.K > MaxK:
		return fmt.Sprintf("K is %d; a reference keeps 1 to %d top logprobs", h.K, MaxK)
	case h.ContinuationTokens < 1 || h.ContinuationTokens > MaxContinuationTokens:
		return fmt.Sprintf("it asks for %d continuation tokens; a reference asks for 1 to %d", h.ContinuationTokens, MaxContinuationTokens)
	case len(h.Contexts) == 0 || len(h.Contexts) > engine.MaxLevels:
		return fmt.Sprintf("it has %d contexts; a reference has 1 to %d", len(h.Contexts), engine.MaxLevels)
	case !slices.IsSorted(h.Contexts) || len(slices.Compact(slices.Clone(h.Contexts))) != len(h.Contexts):
		return "its contexts are not ascending without repeats"
	case h.Contexts[0] < 1 || h.Contexts[len(h.Contexts)-1] > engine.MaxContextTokens:
		return fmt.Sprintf("a context is outside 1–%d tokens", engine.MaxContextTokens)
	case len(h.Settings) > MaxSettings:
		return fmt.Sprintf("it has %d settings, more than %d", len(h.Settings), MaxSettings)
	}
	return ""
}

// problem is what is wrong with one probe of a reference with header h.
func (p Probe) problem(h Header) string {
	n := len(p.Continuation)
	switch {
	case !slices.Contains(h.Contexts, p.ContextTokens):
		return fmt.Sprintf("its context %d tokens is not one the header lists", p.ContextTokens)
	case len(p.Prompt) == 0 || len(p.Prompt) > p.ContextTokens:
		return fmt.Sprintf("its prompt has %d tokens; it has 1 to its context's %d", len(p.Prompt), p.ContextTokens)
	case n == 0 || n > h.ContinuationTokens:
		return fmt.Sprintf("its continuation has %d tokens; it has 1 to the %d the header asked for", n, h.ContinuationTokens)
	case len(p.TopK) != n:
		return fmt.Sprintf("it has top-K at %d positions for %d continuation tokens", len(p.TopK), n)
	case len(p.Loaded) != 0 && len(p.Loaded) != n:
		return fmt.Sprintf("it has top-K under load at %d positions for %d continuation tokens", len(p.Loaded), n)
	case !tokenIDs(p.Prompt) || !tokenIDs(p.Continuation):
		return fmt.Sprintf("a token id is outside 0–%d", MaxTokenID)
	}
	for _, list := range [][]TopK{p.TopK, p.Loaded} {
		for i, t := range list {
			if problem := t.problem(h.K); problem != "" {
				return fmt.Sprintf("position %d: %s", i+1, problem)
			}
		}
	}
	return ""
}

// problem is what is wrong with one recorded position of a reference
// that asked for k logprobs: fewer than k entries, a logprob that is not
// one (NaN, infinite, above 0), or probabilities that sum past 1.
func (t TopK) problem(k int) string {
	if len(t) < k {
		return fmt.Sprintf("it lists %d tokens, fewer than K = %d", len(t), k)
	}
	sum := 0.0
	for _, e := range t {
		if math.IsNaN(e.Logprob) || math.IsInf(e.Logprob, 0) || e.Logprob > LogprobSlack {
			return fmt.Sprintf("token %d has logprob %v, not one of a probability", e.Token, e.Logprob)
		}
		sum += math.Exp(e.Logprob)
	}
	if sum > 1+MassSlack {
		return fmt.Sprintf("its probabilities sum to %.4g, more than 1", sum)
	}
	return ""
}

// tokenIDs reports whether every id is within 0–MaxTokenID.
func tokenIDs(ids []int) bool {
	for _, id := range ids {
		if id < 0 || id > MaxTokenID {
			return false
		}
	}
	return true
}
