package launch

import (
	"fmt"
	"regexp"
	"speedmatrix/engine/servers"
	"strings"
)

// Engines are the engines Launch can start, in the order a front end offers them.
var Engines = []string{servers.VLLM, servers.SGLang}

// flavor is what differs between the engines Launch starts: how the command
// is built, where the API key goes, what the log says and what its failures
// mean. Everything else (the guard, the log, secrets, readiness, Stop, the
// docker runner) is the same machinery for every engine; a new engine is a
// new flavor in a file of its own.
type flavor struct {
	name, title string // "sglang" as the report's Engine section names it, "SGLang" in messages
	repository  string
	executable  string // the default program of an exec runner
	venvProgram string // that program in a venv's bin/
	install     string // the command that installs the engine
	image       string // the default docker image
	// keyEnv is the variable that carries the API key to the server, so
	// that it is never on a command line.
	keyEnv string
	// args is the engine's arguments for cfg: the address it binds and,
	// when key is not empty, --api-key key (what Display shows).
	args func(cfg ServerConfig, listenHost, key string) []string
	// entry is what comes before args: on the command that runs (run) and
	// on the one Display shows.
	entry func(run bool) []string
	// inImage is the command after a docker image, from entry and args.
	inImage func(run bool, args []string) []string
	// facts takes in one log line (ANSI codes removed).
	facts func(f *LogFacts, line string)
	// logPrefix matches the prefix of the engine's log lines (time, level,
	// process): a line with one, or naming the engine, is the engine's.
	logPrefix *regexp.Regexp
	// diagnoses are the engine's own start-up failures, checked before
	// sharedDiagnoses.
	diagnoses []diagnosis
	// readyLine: the log line that sets LogFacts.Started also means ready.
	readyLine bool
	// versionPaths are asked, in order, for the version the log did not name.
	versionPaths []string
	// problems are the settings this engine cannot honour.
	problems func(cfg ServerConfig) []error
}

var flavors = map[string]*flavor{servers.VLLM: &vllmFlavor, servers.SGLang: &sglangFlavor}

// vllmFlavor is `vllm serve`.
var vllmFlavor = flavor{
	name: servers.VLLM, title: servers.VLLMTitle, repository: "github.com/vllm-project/vllm",
	executable: DefaultExecutable, venvProgram: servers.VLLM, install: "pip install vllm", image: defaultDockerImage,
	keyEnv: apiKeyEnv, args: serveArgs,
	entry: func(bool) []string { return nil },
	// The image's entrypoint is `vllm serve`.
	inImage: func(_ bool, args []string) []string { return args[1:] },
	facts:   addVLLMFacts, logPrefix: logPrefixRE,
	diagnoses: vllmDiagnoses, versionPaths: []string{"/version"},
	problems: func(ServerConfig) []error { return nil },
}

// EngineTitle is the engine cfg names as messages write it: "vLLM", "SGLang".
func (cfg ServerConfig) EngineTitle() string { return cfg.flavor().title }

// InstallCommand is how the engine cfg names is installed: "pip install vllm".
func (cfg ServerConfig) InstallCommand() string { return cfg.flavor().install }

// EngineTitle is the engine of that server.toml name as messages write it
// ("vLLM" for "vllm"); the name itself when Launch does not know it.
func EngineTitle(name string) string {
	if f, ok := flavors[name]; ok {
		return f.title
	}
	return name
}

// looksLike reports whether line is one fl's engine prints.
func (fl *flavor) looksLike(line string) bool {
	return strings.Contains(strings.ToLower(line), fl.name) || strings.TrimSpace(fl.logPrefix.FindString(line)) != ""
}

// flavor is the engine cfg names; vLLM when it names none (Validate
// rejects an unknown name).
func (cfg ServerConfig) flavor() *flavor {
	if f, ok := flavors[cfg.Engine]; ok {
		return f
	}
	return &vllmFlavor
}

// engineProblem is the error of an unknown engine name, nil for a known one.
func engineProblem(name string) error {
	if _, ok := flavors[name]; ok || name == "" {
		return nil
	}
	return fmt.Errorf("engine %q is unknown: use \"%s\"", name, strings.Join(Engines, `" or "`))
}
