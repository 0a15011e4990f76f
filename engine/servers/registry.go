package servers

import (
	"fmt"
	"slices"
	"strings"

	"speedmatrix/engine/openai"
)

// Entry is one inference engine: everything Speed Matrix knows of it that
// more than one package reads. An engine's entry is in its file here
// (vllm.go, sglang.go, generic.go); what acts on it lives with the package
// that owns the act: engine/launch's flavor starts it, engine/sim's mode
// speaks as it. Registry lists the entries.
type Entry struct {
	// Name names the engine in server.toml, the Engine section and flags
	// ("vllm"); Title in messages ("vLLM").
	Name, Title string
	// MetricPrefix begins every name on its /metrics page ("vllm:"), by
	// which Detect knows it; "" for none.
	MetricPrefix string
	// MetricNames are its /metrics names with the figure each gives.
	MetricNames openai.MetricNames
	// fromInfo knows the engine by a server info answer (nil: it serves none).
	fromInfo func(openai.ServerInfo, openai.ServerVersion) (Kind, bool)
	// kind is the Kind of a server known by its /metrics page (m, zero when
	// it serves none) or by its /version answer (v).
	kind func(m openai.Metrics, v openai.ServerVersion) Kind
	// answersVersion: a server Detect knows no other way that answers
	// /version is this engine.
	answersVersion bool
	// Unsupported are the server.toml keys the engine has no flag for, in
	// the order their messages come; it supports every other key. The
	// Launch form disables them, and Validate rejects them when set.
	Unsupported []string
	// Launches says engine/launch has a flavor that starts it (its
	// file there registers it; a test checks that the two agree).
	Launches bool
	// SimMode is what the simulator speaks it as (sim.Options.Mode), ""
	// when it cannot.
	SimMode string
	// EnvPrefixes begin the environment variables of its own that change
	// how it behaves, which a report keeps (IsRelevantEnv).
	EnvPrefixes []string
}

// Registry are the engines, in the order a front end offers them: Detect
// tries them in this order (those that answersVersion last), and the
// generic one is what nothing else matched.
var Registry = []Entry{vllmEntry, sglangEntry, genericEntry}

// Lookup is the entry of the engine named name.
func Lookup(name string) (Entry, bool) {
	i := slices.IndexFunc(Registry, func(e Entry) bool { return e.Name == name })
	if i < 0 {
		return Entry{}, false
	}
	return Registry[i], true
}

// Supports reports whether the engine has a flag for the server.toml key.
func (e Entry) Supports(key string) bool { return !slices.Contains(e.Unsupported, key) }

// Launchable are the names of the engines engine/launch starts, in
// Registry's order.
func Launchable() []string {
	var names []string
	for _, e := range Registry {
		if e.Launches {
			names = append(names, e.Name)
		}
	}
	return names
}

// SimModes are the modes the simulator speaks, in Registry's order.
func SimModes() []string {
	var modes []string
	for _, e := range Registry {
		if e.SimMode != "" {
			modes = append(modes, e.SimMode)
		}
	}
	return modes
}

// BySimMode is the entry the simulator's mode speaks as; the error names
// the modes there are.
func BySimMode(mode string) (Entry, error) {
	i := slices.IndexFunc(Registry, func(e Entry) bool { return e.SimMode != "" && e.SimMode == mode })
	if i < 0 {
		return Entry{}, fmt.Errorf("%q is not one the simulator speaks: use %s", mode, strings.Join(SimModes(), " or "))
	}
	return Registry[i], nil
}

// sharedEnvPrefixes begin the variables that change how any engine
// behaves: CUDA, NCCL, PyTorch and Hugging Face's.
var sharedEnvPrefixes = []string{"CUDA_", "NCCL_", "TORCH_", "HF_"}

// EnvPrefixes are the prefixes of the environment variables that change
// how a server behaves: every engine's own, then CUDA, NCCL, PyTorch and
// Hugging Face's.
var EnvPrefixes = envPrefixes()

func envPrefixes() []string {
	var all []string
	for _, e := range Registry {
		all = append(all, e.EnvPrefixes...)
	}
	return append(all, sharedEnvPrefixes...)
}

// IsRelevantEnv reports whether the environment variable name has one of
// EnvPrefixes: a variable that changes how the server behaves, which the
// report keeps (with secret.Env, its secret values redacted).
func IsRelevantEnv(name string) bool {
	return slices.ContainsFunc(EnvPrefixes, func(p string) bool { return strings.HasPrefix(name, p) })
}
