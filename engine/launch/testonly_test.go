package launch

import (
	"context"
	"strings"
)

// What only the tests use: helpers that read a value back, and entry
// points the product reaches another way.

// Start launches cfg's server and waits until it is ready (see Launch and
// WaitReady). On any error nothing is left running.
func Start(ctx context.Context, cfg ServerConfig) (*Server, error) {
	s, err := Launch(ctx, cfg)
	if err != nil {
		return nil, err
	}
	if err := s.WaitReady(ctx); err != nil {
		return nil, err
	}
	return s, nil
}

// ParseLog gathers the facts of a whole text of vLLM's log.
func ParseLog(text string) LogFacts { return parseLog(&vllmFlavor, text) }

// parseLog gathers the facts of a whole text of fl's log.
func parseLog(fl *flavor, text string) LogFacts {
	var f LogFacts
	for _, line := range strings.FieldsFunc(text, func(r rune) bool { return r == '\n' || r == '\r' }) {
		f.add(fl, line)
	}
	return f
}

// Diagnose recognises a fatal start-up error in one line of vLLM's log.
func Diagnose(line string) (Fatal, bool) { return vllmFlavor.diagnose(line) }

// Args is the argument list of the engine's program for cfg: for vLLM,
// `serve MODEL …` in the order the reference reports show; for SGLang,
// `-m sglang.launch_server --model-path MODEL …` as its docs write it. The
// API key is not among them (it goes in the environment, see Environ). It
// is pure: it neither reads the environment nor generates a key (Launch
// does that first).
func Args(cfg ServerConfig) []string {
	fl := cfg.flavor()
	return append(fl.entry(false), fl.args(cfg, cfg.Host, "")...)
}
